#!/bin/sh
# SPDX-License-Identifier: MIT
# A certified agent decides how often some log lines come: 20,000 Hellos after its
# Welcome once wrote a line each (160 MB in 10 s at 97% CPU for a steady stream). Now
# its lines are counted and logged at the 1st, 10th, 100th... with the count: serve's
# log stays small, serve answers, and the agent still serves a campaign.
. "$(dirname "$0")/lib.sh"

: "${IOCURVE_SWARM:?set by meson test}"
serve_for_swarm
swarm loud 1 --hellos 20000
k=0
until grep -q "loud-00000: second Hello ignored (10000 lines of its so far)" "$T/serve.log"; do
	k=$((k + 1))
	[ "$k" -gt 300 ] && { tail -5 "$T/serve.log"; fail "serve reads the 20,000 Hellos"; }
	sleep 0.2
done
n=$(grep -c "second Hello ignored" "$T/serve.log")
echo "# serve.log: $n lines for 20,000 Hellos, $(wc -c < "$T/serve.log") bytes"
check "the Hellos are logged at the 1st, 10th, 100th, 1,000th and 10,000th" test "$n" -eq 5
"$IOCURVE" status --coordinator "$SOCK" > "$T/status.out" 2>&1 || { cat "$T/status.out"; fail "status answers"; }
ok "serve answers after the flood"
