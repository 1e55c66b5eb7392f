#!/bin/sh
# SPDX-License-Identifier: MIT
# A file set whose directories are swapped for links while a step runs: every operation
# resolves its directory beneath the set without following a link, so the files the links
# point at (outside every --allow path) are never read, written, made, renamed, chmodded
# or removed; the operations that met a link fail and are counted with their errno.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/outside/x"
for i in 0 1 2 3 4 5 6 7; do
	printf 'keep %s\n' "$i" > "$T/outside/x/f$i"
	chmod 600 "$T/outside/x/f$i"
done
mkdir "$T/outside/x/e0"
( cd "$T/outside" && find . -printf '%p %m %s\n' | sort ) > "$T/outside.before"

cat > "$T/h.yaml" <<YAML
campaign: files-hostile
agents: {local: 1}
target: {path: $T/sets, size: 1MiB, direct: false}
workers: 1
interval: 500ms
warmup: 500ms
measure: 4s
slo: {latency: 50ms}
steady: {extend: 0}
stop: {errors: allow}
fileset: {dirs: 4, files: 8, size: 4KiB}
workloads:
  - name: all
    mix:
      - {name: stat, share: 20, op: stat}
      - {name: create, share: 10, op: create}
      - {name: unlink, share: 10, op: unlink}
      - {name: rename, share: 10, op: rename}
      - {name: chmod, share: 10, op: setattr}
      - {name: read, share: 10, rw: read-file}
      - {name: write, share: 10, rw: write-file}
      - {name: mkdir, share: 5, op: mkdir}
      - {name: rmdir, share: 5, op: rmdir}
      - {name: readdir, share: 10, op: readdir}
    load: {steps: [400]}
YAML
"$IOCURVE" run "$T/h.yaml" --out "$T/r" > "$T/run.out" 2> "$T/run.err" &
RUN=$!
PIDS="$PIDS $RUN"
# once the step runs (its first interval written), every directory becomes a link outside
wait_for "$T/r/intervals.jsonl" '"workload":"all","step":0' 30 ||
	{ cat "$T/run.out" "$T/run.err"; fail "the step starts"; }
set_dir=$T/sets/local-0-w0.set
for d in 0 1 2 3; do
	mv "$set_dir/d$d" "$set_dir/d$d.real"
	ln -s "$T/outside/x" "$set_dir/d$d"
done
wait_exit "$RUN" 60 || { cat "$T/run.out" "$T/run.err"; fail "the campaign ends (errors allowed)"; }
ok "the campaign runs to its end with every directory a link"
( cd "$T/outside" && find . -printf '%p %m %s\n' | sort ) > "$T/outside.after"
diff "$T/outside.before" "$T/outside.after" ||
	fail "the files the links point at are as they were (no create, unlink, rename, chmod or write)"
ok "the files outside are as they were"
python3 - "$T/r" <<'PY' || fail "the operations that met a link failed, counted"
import json, sys
done = failed = 0
for l in open(sys.argv[1] + "/intervals.jsonl"):
    o = json.loads(l)
    if o.get("agent") == "*" and "parts" in o and not o.get("warmup"):
        done += o["ops"]
        failed += o.get("errors", 0)
        assert sum(p.get("errors", 0) for p in o["parts"]) == o.get("errors", 0), o
print(f"# {done} operations done, {failed} failed (each in its kind's errors too)")
assert failed > 100, failed
PY
# the first failure kept: a link not followed (ENOTDIR), or the moment between the move
# and the link (ENOENT)
grep -q "errors ([a-z-]* d[0-3][/a-z0-9.]*: \(Not a directory (ENOTDIR)\|No such file or directory (ENOENT)\)" "$T/run.out" ||
	{ cat "$T/run.out"; fail "the failures name the kind and the path"; }
ok "the operations that met a link failed, counted, naming kind and path"
grep -q "file set put back after a step .*; some names could not be" "$T/r/agent-local-0.log" ||
	fail "putting the set back after the step says what it could not"
ok "and the set's putting back follows no link either, and says so"
# The next layout finds the links and refuses to go through them, in words.
"$IOCURVE" run "$T/h.yaml" --out "$T/r2" > "$T/run2.out" 2> "$T/run2.err" &&
	fail "a layout through a linked directory is refused"
grep -q "opening d0 of the set: Too many levels of symbolic links\|opening d0 of the set: Not a directory" "$T/run2.err" ||
	{ cat "$T/run2.err"; fail "the refusal names the directory"; }
ok "the next layout refuses the link, naming it"
( cd "$T/outside" && find . -printf '%p %m %s\n' | sort ) > "$T/outside.after2"
diff "$T/outside.before" "$T/outside.after2" || fail "and the files outside are still as they were"
ok "the files outside are still as they were"
