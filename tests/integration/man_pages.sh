#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages: they render without a warning, name every command and option the
# programs themselves list, and `meson install` puts them in their sections.
. "$(dirname "$0")/lib.sh"

: "${IOCURVE_SOURCE:?set by meson test}"
M=$IOCURVE_SOURCE/man
command -v man > /dev/null 2>&1 || { echo "# skip: no man"; exit 77; }
for p in iocurve.1 iocurve-agent.8 iocurve-campaign.5; do
	MANWIDTH=80 man --warnings -l "$M/$p" > "$T/$p.txt" 2> "$T/$p.err"
	check "$p renders" test -s "$T/$p.txt"
	check "$p renders without a warning" sh -c "! test -s '$T/$p.err'"
done
# Every verb of `iocurve --help` is in iocurve(1).
"$IOCURVE" --help | sed -n 's/^  \([a-z]*\) .*/\1/p' > "$T/verbs"
check "iocurve --help lists the verbs" test "$(wc -l < "$T/verbs")" -ge 10
for v in $(cat "$T/verbs"); do
	grep -q "\b$v\b" "$T/iocurve.1.txt" || fail "iocurve(1) does not describe '$v'"
done
ok "iocurve(1) describes every verb"
# Every long option of iocurve-agent's usage is in iocurve-agent(8).
"$IOCURVE_AGENT" --help 2>&1 | grep -o -- '--[a-z-]*' | sort -u > "$T/agentopts"
for o in $(cat "$T/agentopts"); do
	grep -q -- "$o" "$T/iocurve-agent.8.txt" || fail "iocurve-agent(8) does not describe $o"
done
ok "iocurve-agent(8) describes every option ($(wc -l < "$T/agentopts"))"
# Every top-level and workload key of the campaign language is in iocurve-campaign(5).
for k in campaign agents target slo stop workers queue_depth block_size rw read_pct random \
	working_set align arrivals data direct timing interval warmup measure steady retry load zip \
	refine confirm repeat percentiles units targets; do
	grep -q "\b$k\b" "$T/iocurve-campaign.5.txt" || fail "iocurve-campaign(5) does not describe '$k'"
done
ok "iocurve-campaign(5) describes every key"
# Installed where man looks.
if [ -n "${IOCURVE_BUILD:-}" ] && meson install -C "$IOCURVE_BUILD" --destdir "$T/root" \
	--no-rebuild > "$T/install.log" 2>&1; then
	for p in man1/iocurve.1 man8/iocurve-agent.8 man5/iocurve-campaign.5; do
		check "meson install puts $p in place" sh -c "find '$T/root' -path '*/man/$p*' | grep -q ."
	done
else
	cat "$T/install.log" 2> /dev/null
	fail "meson install"
fi
echo "# man-pages: all passed"
