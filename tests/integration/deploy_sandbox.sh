#!/bin/sh
# SPDX-License-Identifier: MIT
# The hardened units' sandbox, where no systemd runs to apply it: serve and an agent
# run as an unprivileged user with every capability dropped, no new privileges, and
# each under its unit's SystemCallFilter= loaded with libseccomp (unitseccomp.py);
# a campaign of O_DIRECT reads and writes through io_uring completes. The same agent
# without io_uring_setup in its filter fails, naming it: the filter bites. Root only
# (to become another user); skipped without setpriv, libseccomp or systemd-analyze.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "# needs root (runs the programs as nobody)"; exit 77; }
for p in setpriv prlimit systemd-analyze /usr/bin/python3; do
	command -v "$p" > /dev/null || { echo "# no $p"; exit 77; }
done
python3 -c 'import ctypes.util, sys; sys.exit(ctypes.util.find_library("seccomp") is None)' ||
	{ echo "# no libseccomp"; exit 77; }
SECCOMP=$(dirname "$0")/unitseccomp.py
SERVE_UNIT=$IOCURVE_BUILD/tools/iocurve-serve.service
AGENT_UNIT=$IOCURVE_BUILD/tools/iocurve-agent@.service
for k in SystemCallFilter CapabilityBoundingSet NoNewPrivileges; do
	grep -q "^$k=" "$AGENT_UNIT" || fail "the agent's unit sets $k="
done
[ -z "$(sed -n 's/^CapabilityBoundingSet=//p' "$AGENT_UNIT")" ] ||
	fail "the agent's unit keeps no capability"
echo "# the agent's unit allows $(python3 "$SECCOMP" "$AGENT_UNIT" --list | wc -l) system calls"

# Everything the unprivileged user needs in one directory of its own.
S=$T/sb
mkdir -p "$S/data"
chmod 0711 "$T"
"$IOCURVE" certs init "$S/ca" > /dev/null
"$IOCURVE" certs agent "$S/ca" c1 > /dev/null
chown -R nobody:nogroup "$S"
# $AS_USER PROGRAM...: as nobody, no capability in any set, no new privileges (a
# command, not a function: a background one's $! is then the program's own pid).
AS_USER="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs"

PORT=$(free_port)
SOCK=$S/ctl.sock
# A soft descriptor limit under the hard one, as a unit's LimitNOFILE may leave it.
prlimit --nofile=256:4096 $AS_USER /usr/bin/python3 "$SECCOMP" "$SERVE_UNIT" -- "$IOCURVE" serve --listen "127.0.0.1:$PORT" \
	--tls "$S/ca" --control "$SOCK" --results "$S/results" 2> "$T/serve.log" &
PIDS="$PIDS $!"
wait_for "$T/serve.log" "control socket" 10 || { cat "$T/serve.log"; fail "serve starts in its sandbox"; }
ok "serve starts as nobody under its unit's system call filter"
check "it raised its descriptor limit (prlimit64, not @resources' setrlimit)" \
	grep -q "up to 4096 file descriptors" "$T/serve.log"
check "and made its control socket private (0600)" test "$(stat -c %a "$SOCK")" = 600

agent() { # agent LOG [--without CALL]: the agent in its unit's sandbox; pid in AG
	log=$1
	shift
	$AS_USER /usr/bin/python3 "$SECCOMP" "$AGENT_UNIT" "$@" -- "$IOCURVE_AGENT" \
		--coordinator "127.0.0.1:$PORT" --tls "$S/ca" --name c1 --allow "$S/data" 2> "$log" &
	AG=$!
	PIDS="$PIDS $AG"
}
cat > "$S/c.yaml" <<YAML
campaign: sandbox
agents: {select: {count: 1}, wait: 20s}
target: {path: $S/data, size: 8MiB, direct: true}
workers: 2
queue_depth: 4
interval: 200ms
warmup: 200ms
measure: 600ms
workloads:
  - {name: rw, rw: randrw, block_size: 4KiB, load: {steps: [200]}}
YAML
chown nobody:nogroup "$S/c.yaml"

agent "$T/agent.log"
A1=$AG
wait_for "$T/serve.log" "agent c1 joined" 15 || { cat "$T/agent.log"; fail "the agent joins from its sandbox"; }
$AS_USER "$IOCURVE" run "$S/c.yaml" --coordinator "$SOCK" > "$T/run.out" 2>&1 ||
	{ cat "$T/run.out" "$T/agent.log"; fail "an O_DIRECT io_uring campaign completes in the agent's sandbox"; }
ok "an O_DIRECT io_uring campaign completes in the agent's sandbox"
check "its worker files are laid out, owned by the unprivileged user" \
	test "$(find "$S/data" -name 'c1-w*.dat' -user nobody -size 8M | wc -l)" -eq 2
check "nothing was refused a system call" sh -c "! grep -qi 'operation not permitted' '$T/agent.log' '$T/serve.log'"
kill "$A1" 2> /dev/null || true
wait_exit "$A1" 10 || true

# The filter bites: without io_uring_setup the same campaign fails, and says so.
agent "$T/agent2.log" --without io_uring_setup
wait_for "$T/serve.log" "agent c1 joined" 15 || fail "the agent joins again"
status=0
$AS_USER "$IOCURVE" run "$S/c.yaml" --coordinator "$SOCK" > "$T/run2.out" 2>&1 || status=$?
sed 's/^/# /' "$T/run2.out" | grep -i "fail\|error" | head -3
check "without io_uring_setup in the filter the campaign fails" test "$status" -ne 0
grep -i "io_uring" "$T/run2.out" | head -2 | sed "s/^/# /"
check "naming what was refused" grep -qi "io_uring.*operation not permitted" "$T/run2.out"
echo "# deploy-sandbox: all passed"
