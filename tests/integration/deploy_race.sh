#!/bin/sh
# SPDX-License-Identifier: MIT
# fleet-ssh against a host where another user lies in wait. The "host" is this machine
# seen through a mount namespace (fakessh, fleet-ssh's FLEET_SSH hook): its /etc and
# /usr/local are overlays over the real ones whose writes land in this test's
# directory, its /tmp and /srv are directories of this test, sudo runs the command as
# it is (we are root) and systemctl only records its calls. Before fleet-ssh runs, the
# user nobody plants a world-writable file at every name the files could be staged
# at in /tmp, and a racer (as nobody) keeps swapping their contents for its own unit
# (User=root), binary and key, and copies off any key it sees. After the run the
# installed unit, binary and key must be the real ones, the key the agent's alone
# (0600) in a directory the agent may not write, and nobody must hold the key.
# Root only (mount namespaces, overlays, a second user); skipped without them.
. "$(dirname "$0")/lib.sh"

: "${IOCURVE_BUILD:?set by meson test}"
: "${IOCURVE_SOURCE:?set by meson test}"
[ "$(id -u)" -eq 0 ] || { echo "# needs root (mount namespace, overlays, a second user)"; exit 77; }
for p in unshare setpriv useradd; do
	command -v "$p" > /dev/null || { echo "# no $p"; exit 77; }
done
FLEET=${IOCURVE_FLEET_SSH:-$IOCURVE_SOURCE/tools/deploy/fleet-ssh}
UNIT=$IOCURVE_BUILD/tools/iocurve-agent@.service
R=$T/remote
L=$T/loot
mkdir -p "$R/etc.up" "$R/etc.work" "$R/usr.up/sbin" "$R/usr.work" "$R/tmp" "$R/srv" "$L"
# nobody reaches its planted files and its loot; the host's /tmp is a /tmp.
chmod 0711 "$T" "$R"
chmod 1777 "$R/tmp"
chmod 0777 "$L"
unshare -m sh -c "mount -t overlay overlay -o lowerdir=/etc,upperdir=$R/etc.up,workdir=$R/etc.work /etc" \
	2> "$T/overlay.err" || { sed 's/^/# /' "$T/overlay.err"; echo "# no overlay mounts here"; exit 77; }

# The host's sudo (we are root already) and systemctl (no systemd to start units).
printf '#!/bin/sh\nexec "$@"\n' > "$R/usr.up/sbin/sudo"
printf '#!/bin/sh\necho "systemctl $*" >> /usr/local/systemctl.calls\n' > "$R/usr.up/sbin/systemctl"
chmod 0755 "$R/usr.up/sbin/sudo" "$R/usr.up/sbin/systemctl"
# ssh HOST COMMAND: the command as ssh runs it (by a shell, its words joined), after a
# link's delay (the racer's turn), on the host described above.
cat > "$T/fakessh" <<SH
#!/bin/sh
shift
sleep 0.3
exec unshare -m sh -c '
	mount -t overlay overlay -o lowerdir=/etc,upperdir=$R/etc.up,workdir=$R/etc.work /etc &&
	mount -t overlay overlay -o lowerdir=/usr/local,upperdir=$R/usr.up,workdir=$R/usr.work /usr/local &&
	mount --bind $R/tmp /tmp && mount --bind $R/srv /srv &&
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin exec sh -c "\$1"' fakessh "\$*"
SH
# scp FILE... HOST:DIR/ (what fleet-ssh once staged with): as scp writes into a file
# that exists, keeping its owner and mode.
cat > "$T/fakescp" <<SH
#!/bin/sh
for last; do :; done
while [ \$# -gt 1 ]; do cat "\$1" > "$R/tmp/\${1##*/}"; shift; done
SH
chmod 0755 "$T/fakessh" "$T/fakescp"

"$IOCURVE" certs init "$T/ca" > /dev/null
"$IOCURVE" certs init "$T/evil" > /dev/null
printf 'c1.lab\n' > "$T/hosts"

# The attacker's files, and a plant at every name a file of c1's was ever staged at.
mkdir "$L/own"
printf '[Service]\nUser=root\nExecStart=/bin/sh -c "id > /root/owned"\n' > "$L/own/iocurve-agent@.service"
printf '#!/bin/sh\nid > /root/owned\n' > "$L/own/iocurve-agent"
cp "$T/evil/coordinator.key" "$L/own/c1.key"
printf 'IOCURVE_AGENT_COORDINATOR=evil.example:7070\n' > "$L/own/agent-c1.env"
cp "$T/evil/ca.crt" "$L/own/ca.crt"
cp "$T/evil/coordinator.crt" "$L/own/c1.crt"
chmod -R a+rX "$L/own"
STAGED="iocurve-agent@.service iocurve-agent c1.key c1.crt ca.crt agent-c1.env"
for f in $STAGED; do
	setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c "umask 0; : > '$R/tmp/$f'"
done
# The racer: whatever lands in a plant is copied off when it is a key and swapped for
# the attacker's own, over and over, until told to stop.
cat > "$T/racer" <<SH
#!/bin/sh
while [ ! -e "$L/stop" ]; do
	for f in $STAGED; do
		if ! cmp -s "$L/own/\$f" "$R/tmp/\$f"; then
			grep -q "PRIVATE KEY" "$R/tmp/\$f" 2> /dev/null && cp "$R/tmp/\$f" "$L/stolen-\$f"
			cat "$L/own/\$f" > "$R/tmp/\$f"
		fi
	done
	sleep 0.01
done
SH
chmod 0755 "$T/racer"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/racer" &
RACER=$!
PIDS="$PIDS $RACER"

status=0
PATH="$(dirname "$IOCURVE"):$PATH" FLEET_SSH="$T/fakessh" FLEET_SCP="$T/fakescp" \
	IOCURVE_AGENT_BIN="$IOCURVE_AGENT" IOCURVE_AGENT_UNIT="$UNIT" \
	"$FLEET" "$T/ca" coord.lab:7070 "$T/hosts" /srv/iocurve > "$T/fleet.out" 2>&1 || status=$?
touch "$L/stop"
wait "$RACER" 2> /dev/null || true
sed 's/^/# /' "$T/fleet.out"
check "fleet-ssh installed the host" \
	sh -c "test $status -eq 0 && grep -q '^c1.lab: agent c1 started' '$T/fleet.out'"

E=$R/etc.up
IOUID=$(awk -F: '$1 == "iocurve" { print $3 }' "$E/passwd")
IOGID=$(awk -F: '$1 == "iocurve" { print $4 }' "$E/passwd")
check "the host's iocurve user was made (uid ${IOUID:-none})" test -n "$IOUID"
U=$E/systemd/system/iocurve-agent@.service
sed 's/^/#   /' "$U" 2> /dev/null | grep -E 'User=|ExecStart=' || true
check "the installed unit is the real one: User=iocurve, the installed agent" sh -c \
	"grep -q '^User=iocurve\$' '$U' && grep -q '^ExecStart=/usr/local/bin/iocurve-agent --name %i ' '$U' &&
	 ! grep -q 'owned' '$U'"
check "the installed binary is the real one" cmp -s "$IOCURVE_AGENT" "$R/usr.up/bin/iocurve-agent"
check "and only root may change it (0755, root's)" \
	test "$(stat -c '%a %u' "$R/usr.up/bin/iocurve-agent")" = "755 0"
K=$E/iocurve/tls/c1.key
check "the installed key is the agent's own" cmp -s "$T/ca/c1.key" "$K"
check "the key is the agent's alone: 0600, owned by iocurve" \
	test "$(stat -c '%a %u' "$K")" = "600 $IOUID"
check "the certificates are the real ones" sh -c \
	"cmp -s '$T/ca/c1.crt' '$E/iocurve/tls/c1.crt' && cmp -s '$T/ca/ca.crt' '$E/iocurve/tls/ca.crt'"
check "the env file names the real coordinator" \
	grep -q '^IOCURVE_AGENT_COORDINATOR=coord.lab:7070$' "$E/iocurve/agent-c1.env"
check "the tls directory is root's, the agent's group may read it, not write it (0750)" \
	test "$(stat -c '%a %u %g' "$E/iocurve/tls")" = "750 0 $IOGID"
ls "$L" | sed 's/^/# loot: /'
check "nobody copied off a key" sh -c "! ls '$L' | grep -q '^stolen'"
KEYLINE=$(sed -n 2p "$T/ca/c1.key")
check "no file in the host's /tmp holds the key" sh -c "! grep -rqF '$KEYLINE' '$R/tmp'"
check "nothing of fleet-ssh's is left in the host's /tmp (only the plants)" \
	test "$(find "$R/tmp" -mindepth 1 | wc -l)" -eq "$(echo $STAGED | wc -w)"
check "ca.key went nowhere near the host" sh -c \
	"! grep -rqF '$(sed -n 2p "$T/ca/ca.key")' '$R/etc.up' '$R/usr.up' '$R/tmp' '$R/srv'"
check "the allowed directory is the agent's" test "$(stat -c %u "$R/srv/iocurve")" = "$IOUID"
check "the unit was enabled and started" grep -q "^systemctl enable --now iocurve-agent@c1\$" \
	"$R/usr.up/systemctl.calls"
echo "# deploy-race: all passed"
