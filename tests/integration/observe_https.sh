#!/bin/sh
# SPDX-License-Identifier: MIT
# observe: over https with a bearer token: a source whose certificate the campaign's
# ca_file signs and whose token_file holds the token it wants is read; the same source
# without the CA (the system's CAs do not sign it) and with a wrong token is not, each
# said by its reason at every interval; the token is never written into the results.
. "$(dirname "$0")/lib.sh"

command -v openssl > /dev/null || { echo "# skip: openssl is not installed"; exit 77; }
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
	-subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
	-keyout "$T/src.key" -out "$T/src.crt" 2> "$T/openssl.err" ||
	{ cat "$T/openssl.err"; fail "a certificate for the source"; }
TOKEN=tok-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$TOKEN" > "$T/good.token"
printf 'not-it\n' > "$T/bad.token"
chmod 600 "$T/good.token" "$T/bad.token"
PORT=$(free_port)
python3 - "$PORT" "$T/src.crt" "$T/src.key" "$TOKEN" > "$T/src.out" 2> "$T/src.err" <<'PY' &
import http.server, ssl, sys
port, crt, key, token = sys.argv[1:]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.headers.get("Authorization") != f"Bearer {token}":
            self.send_response(401)
            self.end_headers()
            return
        body = b"# TYPE disk_busy gauge\ndisk_busy 0.5\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(crt, key)
s.socket = ctx.wrap_socket(s.socket, server_side=True)
print("ready", flush=True)
s.serve_forever()
PY
PIDS="$PIDS $!"
wait_for "$T/src.out" ready 10 || { cat "$T/src.err"; fail "the https source listens"; }

URL="https://127.0.0.1:$PORT/metrics"
cat > "$T/c.yaml" << YAML
campaign: ohttps
agents: {local: 1}
target: {sim: {servers: 4, service_time: 200us}}
interval: 500ms
warmup: 500ms
measure: 1s
workloads:
  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [200]}}
observe:
  - {name: good, url: '$URL', ca_file: '$T/src.crt', token_file: '$T/good.token', series: [{name: busy, metric: disk_busy}]}
  - {name: noca, url: '$URL', token_file: '$T/good.token', series: [{name: busy, metric: disk_busy}]}
  - {name: badtok, url: '$URL', ca_file: '$T/src.crt', token_file: '$T/bad.token', series: [{name: busy, metric: disk_busy}]}
YAML
"$IOCURVE" run "$T/c.yaml" --out "$T/r" > "$T/run.out" 2> "$T/run.err" ||
	{ cat "$T/run.out" "$T/run.err"; fail "the campaign runs"; }
ok "the campaign runs beside the three sources"
python3 - "$T/r/intervals.jsonl" <<'PY' || fail "each source's lines"
import json, sys
obs = [json.loads(l) for l in open(sys.argv[1]) if '"observe"' in l]
by = {k: [o for o in obs if o["observe"] == k] for k in ("good", "noca", "badtok")}
for k, v in by.items():
    print(f"# {k}: {len(v)} lines, first: {json.dumps(v[0]) if v else None}")
assert by["good"] and all(o["values"]["busy"] == 0.5 and "late" not in o for o in by["good"])
assert by["noca"] and all("certificate" in o.get("late", "") for o in by["noca"]), by["noca"][0]
assert by["badtok"] and all("401" in o.get("late", "") for o in by["badtok"]), by["badtok"][0]
PY
ok "https with the campaign's CA and token read; without the CA and with a wrong token refused, by reason"
check "the token is in no file of the results" sh -c "! grep -r -q -- '$TOKEN' '$T/r'"
check "nor in the run's output" sh -c "! grep -q -- '$TOKEN' '$T/run.out' '$T/run.err'"

# A FIFO as ca_file is refused at once, naming it: handed to OpenSSL's loader, the open
# blocked for good (no SIGTERM, no status, the agents' sessions timed out).
mkfifo "$T/ca.fifo"
sed "s|ca_file: '$T/src.crt', token_file: '$T/good.token'|ca_file: '$T/ca.fifo', token_file: '$T/good.token'|" \
	"$T/c.yaml" > "$T/fifo.yaml"
grep -q "ca.fifo" "$T/fifo.yaml" || fail "the campaign names the FIFO"
rc=0
timeout 60 "$IOCURVE" run "$T/fifo.yaml" --out "$T/rf" > "$T/fifo.out" 2> "$T/fifo.err" || rc=$?
[ "$rc" -ne 124 ] || fail "a FIFO as ca_file does not hold the run (it was still in open after 60 s)"
[ "$rc" -ne 0 ] || fail "a FIFO as ca_file is refused"
check "the refusal names the source, the key and the FIFO" \
	grep -q "observe 'good': ca_file: $T/ca.fifo: not a regular file (a FIFO)" "$T/fifo.err"
