#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile file systems under the agent: planted symlinks, foreign directories, devices.
. "$(dirname "$0")/lib.sh"

campaign() { # campaign NAME DIR RW
	cat > "$T/$1.yaml" <<YAML
campaign: $1
agents: {local: 1}
target: {path: $2, size: 4MiB, direct: false}
workers: 1
interval: 1s
warmup: 1s
measure: 1s
workloads:
  - {name: w, rw: $3, block_size: 4KiB, load: {steps: [100]}}
YAML
}

# A symlink planted at the worker file points at a file the agent must not touch.
mkdir -p "$T/dir"
printf 'precious\n' > "$T/victim"
chmod 600 "$T/victim"
ln -s "$T/victim" "$T/dir/local-0-w0.dat"
campaign sym "$T/dir" randwrite
if "$IOCURVE" run "$T/sym.yaml" --out "$T/sym-results" > "$T/sym.out" 2> "$T/sym.err"; then
	fail "a run through a symlinked worker file fails"
fi
check "the refusal names the agent and the path" \
	grep -q "local-0: .*$T/dir/local-0-w0.dat: refusing to follow a symbolic link" "$T/sym.err"
check "the symlink's target is untouched" test "$(cat "$T/victim")" = precious
check "the symlink is left as it was" test -L "$T/dir/local-0-w0.dat"

# A hard link to someone else's file is not a file of our own either.
if [ "$(id -u)" -eq 0 ]; then
	mkdir -p "$T/hard"
	printf 'precious\n' > "$T/victim2"
	chown nobody "$T/victim2"
	ln "$T/victim2" "$T/hard/local-0-w0.dat"
	campaign hard "$T/hard" randwrite
	if "$IOCURVE" run "$T/hard.yaml" --out "$T/hard-results" > "$T/hard.out" 2> "$T/hard.err"; then
		fail "a run through a hard link to another user's file fails"
	fi
	check "a hard link to another user's file is refused" \
		grep -q "refusing a target file owned by uid" "$T/hard.err"
	check "the hard link's target is untouched" test "$(cat "$T/victim2")" = precious

	# A directory another user made: they could plant anything in it.
	mkdir -p "$T/foreign"
	chown nobody "$T/foreign"
	campaign foreign "$T/foreign" randread
	if "$IOCURVE" run "$T/foreign.yaml" --out "$T/f-results" > "$T/f.out" 2> "$T/f.err"; then
		fail "a target directory owned by another user is refused"
	fi
	check "the refusal says whose directory it is" \
		grep -q "target directory $T/foreign (uid [0-9]*, mode 0755) is refused: it belongs to another user" "$T/f.err"
	mkdir -p "$T/open"
	chmod 777 "$T/open"
	campaign open "$T/open" randread
	if "$IOCURVE" run "$T/open.yaml" --out "$T/o-results" > "$T/o.out" 2> "$T/o.err"; then
		fail "a world-writable directory without the sticky bit is refused"
	fi
	check "the refusal says others may write to it" grep -q "no sticky bit" "$T/o.err"
fi

# A symlink to a block device reaches nothing without --allow-device-writes.
if [ "$(id -u)" -eq 0 ] && command -v losetup > /dev/null; then
	truncate -s 8M "$T/disk.img"
	LOOP=$(losetup -f --show "$T/disk.img" 2> /dev/null) || LOOP=""
	if [ -n "$LOOP" ]; then
		mkdir -p "$T/dev"
		ln -s "$LOOP" "$T/dev/local-0-w0.dat"
		campaign dev "$T/dev" randwrite
		"$IOCURVE" run "$T/dev.yaml" --out "$T/d-results" > "$T/d.out" 2> "$T/d.err" || true
		losetup -d "$LOOP"
		check "a symlink to a device is refused" grep -q "refusing to follow a symbolic link" "$T/d.err"
		check "the device was not written" test -z "$(tr -d '\0' < "$T/disk.img" | head -c 1)"
	fi
fi
# An agent's Error carrying terminal escapes (here in a target's name) is shown escaped.
ESC=$(printf '\033')
BEL=$(printf '\007')
EVIL="$T/evil${ESC}]0;pwned${BEL}${ESC}[2J"
mkdir -p "$EVIL"
ln -s "$T/victim" "$EVIL/local-0-w0.dat"
cat > "$T/esc.yaml" <<YAML
campaign: esc
agents: {local: 1}
target: {path: "$T/evil\\e]0;pwned\\a\\e[2J", size: 4MiB}
workloads:
  - {name: w, rw: randread, block_size: 4KiB, load: {steps: [100]}}
YAML
if "$IOCURVE" run "$T/esc.yaml" --out "$T/esc-results" > "$T/esc.out" 2> "$T/esc.err"; then
	fail "a run on a target that is a plain file fails"
fi
check "the agent's Error reaches the operator" grep -q "refusing to follow a symbolic link" "$T/esc.err"
check "its escape sequences are shown escaped" grep -q 'evil\\x1b\]0;pwned\\x07\\x1b\[2J' "$T/esc.err"
check "no escape byte reaches the terminal" sh -c "! grep -q '$ESC' '$T/esc.err' '$T/esc.out'"
check "no escape byte reaches the agent's log" sh -c "! grep -rq '$ESC' '$T/esc-results'"
echo "# hostile-agent: all passed"
