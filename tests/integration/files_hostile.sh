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
errs = {}
ok = 0
for l in open(sys.argv[1] + "/intervals.jsonl"):
    o = json.loads(l)
    if o.get("agent") == "*" and "parts" in o and not o.get("warmup"):
        ok += o["ops"]
        for k in ("err_errno", "errno"):
            if k in o:
                errs[o[k]] = errs.get(o[k], 0) + 1
        errs["n"] = errs.get("n", 0) + o.get("errors", 0)
print(f"# {ok} operations done, {errs.get('n', 0)} failed; errnos {errs}")
assert errs.get("n", 0) > 100, errs
PY
grep -q "Too many levels of symbolic links (ELOOP)\|Invalid cross-device link (EXDEV)" "$T/run.out" ||
	{ cat "$T/run.out"; fail "the failures say ELOOP or EXDEV"; }
ok "the operations that met a link failed with ELOOP/EXDEV, counted"
