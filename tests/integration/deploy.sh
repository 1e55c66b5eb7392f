#!/bin/sh
# SPDX-License-Identifier: MIT
# Deployment files: `meson install --destdir` puts binaries, man pages, example
# campaigns, units, the sysusers file, the Kubernetes manifests and fleet-ssh in place;
# the units pass `systemd-analyze verify` without a word; the manifests hold together
# (selectors, the Service the agents dial, options the programs take); fleet-ssh refuses
# what it must and reports a host it could not reach.
. "$(dirname "$0")/lib.sh"

: "${IOCURVE_BUILD:?set by meson test}"
: "${IOCURVE_SOURCE:?set by meson test}"
D=$T/root
meson install -C "$IOCURVE_BUILD" --destdir "$D" --no-rebuild > "$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "meson install --destdir"; }
ok "meson install --destdir"
for f in bin/iocurve bin/iocurve-agent share/man/man1/iocurve.1 share/man/man8/iocurve-agent.8 \
	share/man/man5/iocurve-campaign.5 share/iocurve/configs/demo.yaml \
	share/iocurve/configs/4corners.yaml lib/systemd/system/iocurve-serve.service \
	"lib/systemd/system/iocurve-agent@.service" lib/sysusers.d/iocurve.conf \
	share/iocurve/deploy/k8s/coordinator.yaml share/iocurve/deploy/k8s/agents.yaml \
	share/iocurve/deploy/fleet-ssh share/iocurve/deploy/k8s-agents; do
	found=$(find "$D" -path "*/$f" | head -1)
	[ -n "$found" ] || fail "installed: $f"
done
ok "installed: binaries, man pages, campaigns, units, sysusers, manifests, fleet-ssh, k8s-agents"
UNITS=$(dirname "$(find "$D" -name iocurve-serve.service)")
BINDIR=$(dirname "$(find "$D" -path '*/bin/iocurve')")
PREFIX_BIN=${BINDIR#"$D"}
check "the units start the installed programs" \
	grep -q "^ExecStart=$PREFIX_BIN/iocurve serve " "$UNITS/iocurve-serve.service"
# ca.key out of the daemon's reach: docs/deploy.md makes the CA in a directory of its
# own, not the one the serve unit reads, and the unit cannot reach it at all.
TLSDIR=$(sed -n 's/^Environment=IOCURVE_TLS=//p' "$UNITS/iocurve-serve.service")
CADIR=$(sed -n 's/^iocurve certs init \([^ ]*\).*/\1/p' "$IOCURVE_SOURCE/docs/deploy.md" | head -1)
echo "# the daemon reads $TLSDIR; deploy.md makes the CA in $CADIR"
check "deploy.md keeps the CA's directory apart from the daemon's" \
	sh -c "test -n '$CADIR' && test -n '$TLSDIR' && test '$CADIR' != '$TLSDIR'"
check "the serve unit cannot reach the CA's directory" \
	grep -qx "InaccessiblePaths=-$CADIR" "$UNITS/iocurve-serve.service"
check "deploy.md hands the daemon no CA key (no chown -R of a certificate directory)" \
	sh -c "! grep -q 'chown -R iocurve' '$IOCURVE_SOURCE/docs/deploy.md'"
check "the example campaigns installed pass check" \
	"$BINDIR/iocurve" check "$(find "$D" -path '*/configs/4corners.yaml')"

if command -v systemd-analyze > /dev/null 2>&1; then
	# verify looks for the ExecStart programs: point them at the installed copies.
	mkdir "$T/units"
	sed "s|$PREFIX_BIN/|$BINDIR/|" "$UNITS/iocurve-serve.service" > "$T/units/iocurve-serve.service"
	sed "s|$PREFIX_BIN/|$BINDIR/|" "$UNITS/iocurve-agent@.service" > "$T/units/iocurve-agent@c1.service"
	systemd-analyze verify --man=no "$T/units/iocurve-serve.service" \
		"$T/units/iocurve-agent@c1.service" > "$T/verify.out" 2>&1 || true
	sed 's/^/# /' "$T/verify.out"
	check "systemd-analyze verify: both units, not a word" sh -c "! test -s '$T/verify.out'"
	for u in iocurve-serve.service iocurve-agent@c1.service; do
		for k in User=iocurve ProtectSystem=strict NoNewPrivileges=yes CapabilityBoundingSet=; do
			grep -q "^$k\$" "$T/units/$u" || fail "$u: $k"
		done
	done
	ok "both units: a dedicated user, ProtectSystem=strict, no new privileges, no capabilities"
	# The sandbox as systemd rates it (0 is locked down, 10 is none), from the unit files
	# alone: under 2.0 for both (before hardening: serve 3.7, agent 4.8).
	if (cd "$T/units" && systemd-analyze security --offline=yes iocurve-serve.service) \
		> "$T/security.serve" 2>&1; then
		for u in iocurve-serve.service iocurve-agent@c1.service; do
			(cd "$T/units" && systemd-analyze security --offline=yes "$u") > "$T/security.out" 2>&1 ||
				{ cat "$T/security.out"; fail "systemd-analyze security $u"; }
			exposure=$(sed -n 's/.*Overall exposure level for [^ ]*: \([0-9.]*\).*/\1/p' "$T/security.out")
			grep "✗" "$T/security.out" | sed 's/^/#   /; s/  */ /g'
			echo "# $u: exposure $exposure"
			check "$u: systemd-analyze security exposure $exposure is under 2.0" \
				awk -v e="$exposure" 'BEGIN { exit !(e != "" && e + 0 < 2.0) }'
		done
		for k in SystemCallFilter=@system-service RestrictNamespaces=yes MemoryDenyWriteExecute=yes \
			UMask=0027 CapabilityBoundingSet=; do
			for u in iocurve-serve.service iocurve-agent@c1.service; do
				grep -q "^$k" "$T/units/$u" || fail "$u: $k"
			done
		done
		grep -q "^SystemCallFilter=@system-service.* io_uring_setup io_uring_enter io_uring_register" \
			"$T/units/iocurve-agent@c1.service" || fail "the agent's filter names io_uring's calls"
		ok "both units filter system calls (the agent's admits io_uring), restrict namespaces, deny W+X memory, umask 0027"
	else
		sed 's/^/# /' "$T/security.serve"
		echo "# systemd-analyze security --offline is not supported here: the exposure check is skipped"
	fi
else
	echo "# no systemd-analyze: the units' check is skipped"
fi

# The manifests: YAML that Kubernetes would take, and options the programs accept.
"$BINDIR/iocurve" serve --help > "$T/serve.help"
"$BINDIR/iocurve-agent" --help > "$T/agent.help" 2>&1 || true
PY=python3
$PY -c 'import yaml' 2> /dev/null || PY=/usr/bin/python3
if $PY -c 'import yaml' 2> /dev/null; then
	# The agents' objects as k8s-agents makes them for two nodes, one with a dotted name.
	"$BINDIR/iocurve" certs init "$T/kca" > /dev/null
	K8S_AGENTS=$(find "$D" -name k8s-agents)
	NODES="node-1 ip-10-0-0-2.eu-west-1.compute.internal"
	# A link planted at a node's file name is replaced, not written through.
	mkdir "$T/k8s"
	ln -s "$T/victim" "$T/k8s/node-1.yaml"
	(umask 022 && PATH="$BINDIR:$PATH" "$K8S_AGENTS" --out "$T/k8s" "$T/kca" node/node-1 \
		ip-10-0-0-2.eu-west-1.compute.internal > "$T/k8s-agents.out" 2> "$T/k8s-agents.err") ||
		{ cat "$T/k8s-agents.err"; fail "k8s-agents makes the agents' objects"; }
	for n in $NODES; do
		[ -f "$T/k8s/$n.yaml" ] && [ ! -L "$T/k8s/$n.yaml" ] || fail "k8s-agents wrote $T/k8s/$n.yaml"
		grep -qx "$T/k8s/$n.yaml" "$T/k8s-agents.out" || fail "k8s-agents names the file it wrote for $n"
		[ "$(stat -c %a "$T/k8s/$n.yaml")" = 600 ] ||
			fail "$n.yaml is the admin's alone (0600 under umask 022): $(stat -c %a "$T/k8s/$n.yaml")"
		cat "$T/k8s/$n.yaml" >> "$T/agents.yaml"
	done
	check "k8s-agents: one 0600 file per node, nothing else, nothing through a planted link" sh -c \
		"test \"\$(ls -A '$T/k8s' | wc -l)\" -eq 2 && test ! -e '$T/victim'"
	check "no node's file holds another node's key" $PY - "$T" $NODES <<'PY'
import base64, sys, yaml
t, nodes = sys.argv[1], sys.argv[2:]
keys = {n: open(f"{t}/kca/{n}.key").read() for n in nodes}
for n in nodes:
    text = open(f"{t}/k8s/{n}.yaml").read()
    held = []
    for d in yaml.safe_load_all(text):
        for k, v in ((d or {}).get("data") or {}).items():
            if k.endswith(".key"):
                held.append(base64.b64decode(v).decode())
    assert held == [keys[n]], (n, len(held))
    for other in nodes:
        if other != n:
            assert base64.b64encode(keys[other].encode()).decode() not in text, (n, other)
PY
	# --apply: each node's objects straight to kubectl, one node per call, no file.
	mkdir "$T/kubectl.calls"
	cat > "$T/kubectl" <<SH
#!/bin/sh
[ "\$*" = "apply -f -" ] || exit 3
cat > "$T/kubectl.calls/\$(ls "$T/kubectl.calls" | wc -l)"
SH
	chmod +x "$T/kubectl"
	mkdir "$T/applydir"
	(cd "$T/applydir" && PATH="$BINDIR:$PATH" KUBECTL="$T/kubectl" "$K8S_AGENTS" --apply "$T/kca" \
		$NODES > "$T/apply.out" 2>&1) || { cat "$T/apply.out"; fail "k8s-agents --apply"; }
	check "--apply: one kubectl call per node, each with that node's key only, no file left" \
		$PY - "$T" $NODES <<'PY'
import base64, os, sys, yaml
t, nodes = sys.argv[1], sys.argv[2:]
calls = sorted(os.listdir(f"{t}/kubectl.calls"), key=int)
assert len(calls) == len(nodes), calls
for c, n in zip(calls, nodes):
    docs = [d for d in yaml.safe_load_all(open(f"{t}/kubectl.calls/{c}")) if d]
    keys = [k for d in docs for k in (d.get("data") or {}) if k.endswith(".key")]
    assert keys == [f"{n}.key"], (n, keys)
assert os.listdir(f"{t}/applydir") == [], os.listdir(f"{t}/applydir")
PY
	status=0
	PATH="$BINDIR:$PATH" "$K8S_AGENTS" "$T/kca" node-1 > "$T/stdout.yaml" 2> "$T/k8s-stdout.err" || status=$?
	check "k8s-agents prints no key to standard output (the old 'k8s-agents DIR NODE... > file')" \
		sh -c "test $status -eq 2 && ! test -s '$T/stdout.yaml' && grep -q 'give --out DIR' '$T/k8s-stdout.err'"
	check "the manifests hold together; each node's Secret holds its key and no other" \
		$PY - "$(find "$D" -path '*/deploy/k8s' -type d)" "$T" <<'PY'
import base64, sys, yaml
k8s, t = sys.argv[1], sys.argv[2]
docs = list(yaml.safe_load_all(open(f"{k8s}/coordinator.yaml")))
docs += [d for d in yaml.safe_load_all(open(f"{t}/agents.yaml")) if d]
kinds = {}
for d in docs:
    assert d["apiVersion"] and d["metadata"]["name"], d
    kinds.setdefault(d["kind"], []).append(d)
assert set(kinds) == {"Deployment", "Service", "PersistentVolumeClaim", "DaemonSet", "Secret",
                      "NetworkPolicy"}, set(kinds)
nodes = ["node-1", "ip-10-0-0-2.eu-west-1.compute.internal"]
(dep,), (svc,), dss, secrets = kinds["Deployment"], kinds["Service"], kinds["DaemonSet"], kinds["Secret"]
assert len(dss) == len(secrets) == len(nodes), (len(dss), len(secrets))
for w in [dep] + dss:
    spec = w["spec"]
    sel, lab = spec["selector"]["matchLabels"], spec["template"]["metadata"]["labels"]
    assert all(lab.get(k) == v for k, v in sel.items()), (sel, lab)
    c = spec["template"]["spec"]["containers"][0]
    assert c["image"] and c["securityContext"]["allowPrivilegeEscalation"] is False, c
    mounts = {m["name"] for m in c["volumeMounts"]}
    assert mounts <= {v["name"] for v in spec["template"]["spec"]["volumes"]}, mounts
assert dep["spec"]["replicas"] == 1, "one coordinator: the queue lives in one process"
# The coordinator needs no io_uring: it runs under the runtime's seccomp default.
pod_sc = dep["spec"]["template"]["spec"]["securityContext"]
assert pod_sc.get("seccompProfile") == {"type": "RuntimeDefault"}, pod_sc
# /metrics is reached only by labelled scrapers; the agent port by anyone (mutual TLS).
(netpol,) = kinds["NetworkPolicy"]
np = netpol["spec"]
assert np["podSelector"]["matchLabels"] == dep["spec"]["selector"]["matchLabels"], np
assert np["policyTypes"] == ["Ingress"], np
cmd = dep["spec"]["template"]["spec"]["containers"][0]["command"]
metrics_port = int(cmd[cmd.index("--metrics") + 1].rsplit(":", 1)[1])
agent_port = int(cmd[cmd.index("--listen") + 1].rsplit(":", 1)[1])
open_ports, scrape = set(), []
for rule in np["ingress"]:
    ports = {p["port"] for p in rule.get("ports", [])}
    assert ports, f"a rule with no ports opens every port: {rule}"
    if not rule.get("from"):
        open_ports |= ports
    elif metrics_port in ports:
        scrape += rule["from"]
assert open_ports == {agent_port}, f"open to all: {open_ports}"
assert scrape == [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"iocurve/metrics": "scrape"}}}], scrape
lab = dep["spec"]["template"]["metadata"]["labels"]
assert all(lab.get(k) == v for k, v in svc["spec"]["selector"].items()), svc
ports = {p["name"]: p["port"] for p in svc["spec"]["ports"]}
# One key per node: node N's DaemonSet runs on N only, as N, mounting N's Secret only,
# which holds ca.crt and N's pair: no other node's key, never the CA's.
sels = set()
for node, ds, sec in zip(nodes, dss, secrets):
    assert sec["metadata"]["name"] == f"iocurve-agent-tls-{node}", sec["metadata"]
    assert sorted(sec["data"]) == sorted(["ca.crt", f"{node}.crt", f"{node}.key"]), sorted(sec["data"])
    crt = base64.b64decode(sec["data"][f"{node}.crt"]).decode()
    assert crt == open(f"{t}/kca/{node}.crt").read(), f"{node}.crt is not the node's own"
    assert "PRIVATE KEY" in base64.b64decode(sec["data"][f"{node}.key"]).decode()
    pod = ds["spec"]["template"]["spec"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}], terms
    tls = [v for v in pod["volumes"] if "secret" in v]
    assert [v["secret"]["secretName"] for v in tls] == [sec["metadata"]["name"]], tls
    cmd = pod["containers"][0]["command"]
    assert cmd[cmd.index("--name") + 1] == node, cmd
    sel = tuple(sorted(ds["spec"]["selector"]["matchLabels"].items()))
    assert sel not in sels, "two DaemonSets with one selector would fight over pods"
    sels.add(sel)
    env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
    assert env["IOCURVE_AGENT_COORDINATOR"] == f"{svc['metadata']['name']}:{ports['agents']}", env
allyaml = open(f"{t}/agents.yaml").read()
ca_key = base64.b64encode(open(f"{t}/kca/ca.key", "rb").read()).decode()
assert ca_key not in allyaml, "the CA's key is in the agents' objects"
# Every option the containers pass is one the programs list.
for w, help_file in [(dep, "serve.help")] + [(ds, "agent.help") for ds in dss]:
    known = open(f"{t}/{help_file}").read()
    for a in w["spec"]["template"]["spec"]["containers"][0]["command"]:
        if str(a).startswith("--"):
            assert a in known, f"{a} is not an option of {help_file}"
print(f"# manifests: {len(docs)} objects, {len(dss)} agents each with its own Secret; agents dial {env['IOCURVE_AGENT_COORDINATOR']}")
PY
	status=0
	PATH="$BINDIR:$PATH" "$K8S_AGENTS" --out "$T/k8s-bad" "$T/kca" 'Bad_Node' > /dev/null 2> "$T/k8s-bad.err" || status=$?
	check "k8s-agents refuses a name that is not a node's" \
		sh -c "test $status -eq 2 && grep -q \"'Bad_Node' is not a Kubernetes node name\" '$T/k8s-bad.err'"
else
	echo "# no PyYAML: the manifests' check is skipped"
fi

# fleet-ssh: a host it cannot reach fails that host, not silently; odd names are refused.
FLEET=$(find "$D" -name fleet-ssh)
"$BINDIR/iocurve" certs init "$T/ca" > /dev/null
printf '# lab\nclient-7.lab\nbad;name\n' > "$T/hosts"
status=0
PATH="$BINDIR:$PATH" FLEET_SSH=false FLEET_SCP=false IOCURVE_AGENT_BIN="$BINDIR/iocurve-agent" \
	IOCURVE_AGENT_UNIT="$UNITS/iocurve-agent@.service" \
	"$FLEET" "$T/ca" coord.lab:7070 "$T/hosts" > "$T/fleet.out" 2>&1 || status=$?
sed 's/^/# /' "$T/fleet.out"
check "fleet-ssh exits 1 when hosts failed" test "$status" -eq 1
check "fleet-ssh names the host it could not reach" grep -q "^client-7.lab: FAILED" "$T/fleet.out"
check "fleet-ssh refuses a name that would reach a shell" grep -q "^bad;name: FAILED (not a plain host name)" "$T/fleet.out"
check "fleet-ssh made the agent's certificate, named after the host" test -s "$T/ca/client-7.crt"
status=0
IOCURVE_AGENT_BIN="$BINDIR/iocurve-agent" "$FLEET" "$T/ca" 'x;reboot' "$T/hosts" > "$T/odd.out" 2>&1 ||
	status=$?
check "fleet-ssh refuses an odd coordinator address" \
	sh -c "test $status -eq 2 && grep -q 'unusual characters' '$T/odd.out'"

# A host named "-v" would reach ssh as an option (and made the batch stop): refused,
# the hosts after it still tried.
printf -- '-v\nclient-8.lab\n' > "$T/dash-hosts"
status=0
PATH="$BINDIR:$PATH" FLEET_SSH=false FLEET_SCP=false IOCURVE_AGENT_BIN="$BINDIR/iocurve-agent" \
	IOCURVE_AGENT_UNIT="$UNITS/iocurve-agent@.service" \
	"$FLEET" "$T/ca" coord.lab:7070 "$T/dash-hosts" > "$T/dash.out" 2>&1 || status=$?
sed 's/^/# /' "$T/dash.out"
check "fleet-ssh refuses a host name starting with '-'" grep -q "^-v: FAILED (not a plain host name)" "$T/dash.out"
check "and goes on with the next host" grep -q "^client-8.lab: FAILED\$" "$T/dash.out"
check "and exits 1" test "$status" -eq 1

# An allowed path of / or a system directory: `install -d -o iocurve` would give it to
# the agent's user on every host. Refused before any host is reached (a fake ssh and
# scp in PATH record what they were asked).
mkdir -p "$T/fakebin"
printf '#!/bin/sh\necho "$0 $*" >> %s/ssh.calls\n' "$T" > "$T/fakebin/ssh"
cp "$T/fakebin/ssh" "$T/fakebin/scp"
chmod +x "$T/fakebin/ssh" "$T/fakebin/scp"
printf 'client-9.lab\n' > "$T/one-host"
fleet_allow() { # fleet_allow ALLOW: fleet-ssh with the fake ssh; status in $status
	status=0
	PATH="$T/fakebin:$BINDIR:$PATH" IOCURVE_AGENT_BIN="$BINDIR/iocurve-agent" \
		IOCURVE_AGENT_UNIT="$UNITS/iocurve-agent@.service" \
		"$FLEET" "$T/ca" coord.lab:7070 "$T/one-host" "$1" > "$T/allow.out" 2>&1 || status=$?
}
for a in / // /etc /usr/ /usr/local/lib /boot /proc /sys /dev /var /var/lib /var/lib/mysql \
	/root /home /home/alice /bin /srv/../etc; do
	fleet_allow "$a"
	if [ "$status" -ne 2 ] || ! grep -Eq "^fleet-ssh: $a: (refusing / or a system directory|the allowed path may not hold)" "$T/allow.out"; then
		cat "$T/allow.out"
		fail "fleet-ssh refuses the allowed path $a"
	fi
	[ ! -e "$T/ssh.calls" ] || fail "fleet-ssh reached a host with the allowed path $a"
done
ok "fleet-ssh refuses / and system directories as the allowed path, before any host"
fleet_allow /srv/iocurve
check "an allowed path of its own is taken: the host is installed" \
	sh -c "test $status -eq 0 && grep -q 'client-9.lab: agent client-9 started' '$T/allow.out'"
check "and its directory made for the agent's user" sh -c \
	"grep -q 'install -d -o iocurve \"\\\$allow\"' '$T/ssh.calls' &&
	 grep -q ' fleet-ssh client-9 [0-9]* /srv/iocurve\$' '$T/ssh.calls'"
echo "# deploy: all passed"
