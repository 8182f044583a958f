#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# endpoint_slice: discovery.k8s.io/v1 EndpointSlices carry real traffic (curl in the client
# namespace, the lab's nginx backends a and b). A Service whose Endpoints name only backend
# a and whose two slices name a and b: both answer (the slices are used, not the
# Endpoints). Backend a starts terminating while a client holds a spliced keep-alive
# connection to it: that connection's next request is still answered by a (it drains),
# every new connection goes to b. A not-ready endpoint takes nothing; the slices deleted,
# the Endpoints serve again.
T_NAME=endpoint_slice
source "$(dirname "$0")/testlib.sh"

t_setup eps 1
t_start_routerd
D=lab.switchyard.test

slices() { # slices A_CONDITIONS B_CONDITIONS: apply slices web-a (backend a), web-b (b)
	rctl apply -f - <<EOF
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-a, namespace: demo, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [$LAB_BACKEND_A_IP], conditions: {$1}}]
ports: [{name: http, port: 80}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-b, namespace: demo, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [$LAB_BACKEND_B_IP], conditions: {$2}}]
ports: [{name: http, port: 80}]
EOF
	t_expect_rc 0 "apply slices web-a {$1} and web-b {$2}"
}

rctl apply -f - <<EOF
apiVersion: v1
kind: Service
metadata: {name: web, namespace: demo}
spec: {ports: [{name: http, port: 80, targetPort: 80}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: web, namespace: demo}
subsets: [{addresses: [{ip: $LAB_BACKEND_A_IP}], ports: [{name: http, port: 80}]}]
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: web, namespace: demo}
spec: {host: web.$D, to: {kind: Service, name: web}, port: {targetPort: http}}
EOF
t_expect_rc 0 "apply a Service, its Endpoints (backend a only) and a Route"

count() { # count N: N new connections to web.$D; the bodies counted in T_OUT (JSON)
	t_run lab_client python3 "$SY_SRC/tests/integration/httpc.py" count "$LAB_ROUTER_IP" "web.$D" / "$1" 4
}
count 20
t_json_expect "$T_OUT" 'd["errors"] == 0 and d["bodies"] == {"backend-a": 20}' \
	"Endpoints alone: backend a answers all 20"

slices "ready: true" ""
rctl resolve "http://web.$D/" -o json
t_json_expect "$T_OUT" 'd["mode"] == "splice" and sorted(e["address"] for e in d["endpoints"]) ==
	sorted(["'"$LAB_BACKEND_A_IP"'", "'"$LAB_BACKEND_B_IP"'"])' "resolve: the slices' two endpoints"
count 40
t_json_expect "$T_OUT" 'd["errors"] == 0 and d["bodies"].get("backend-a", 0) > 0 and
	d["bodies"].get("backend-b", 0) > 0 and sum(d["bodies"].values()) == 40' \
	"slices over Endpoints: a and b both answer"
t_ok "EndpointSlices are used over the Service's Endpoints: $(t_json "$T_OUT" 'd["bodies"]')"

# A spliced keep-alive connection to backend a, held across the change: the client sends
# its second request after a starts terminating (drain.py waits for the go file).
cat >"$LAB_DIR/drain.py" <<'PY'
import os, socket, sys, time
addr, host, out, go = sys.argv[1:5]
def ask(f, s):
    s.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    status = f.readline().split()[1].decode()
    length = 0
    while True:
        line = f.readline()
        if line in (b"\r\n", b""):
            break
        k, _, v = line.decode("latin-1").partition(":")
        if k.strip().lower() == "content-length":
            length = int(v)
    return status, f.read(length).decode().strip()
for attempt in range(40):  # until a connection lands on backend a
    s = socket.create_connection((addr, 80), timeout=10)
    f = s.makefile("rb")
    first = ask(f, s)
    if first[1] == "backend-a":
        break
    s.close()
open(out, "w").write("first %s %s\n" % first)
for _ in range(300):
    if os.path.exists(go):
        break
    time.sleep(0.1)
second = ask(f, s)
open(out, "a").write("second %s %s\n" % second)
PY
lab_spawn client drain python3 "$LAB_DIR/drain.py" "$LAB_ROUTER_IP" "web.$D" "$LAB_DIR/drain.out" "$LAB_DIR/go"
poll_until 10 grep -q '^first' "$LAB_DIR/drain.out" ||
	t_fail "a keep-alive connection landed on backend a" "$(cat "$LAB_DIR/drain.out" 2>/dev/null)"
grep -q '^first 200 backend-a' "$LAB_DIR/drain.out" ||
	t_fail "the held connection's first answer is backend a's" "$(cat "$LAB_DIR/drain.out")"

slices "ready: false, serving: true, terminating: true" "ready: true"
count 30
t_json_expect "$T_OUT" 'd["errors"] == 0 and d["bodies"] == {"backend-b": 30}' \
	"backend a terminating: all 30 new connections go to b"
touch "$LAB_DIR/go"
poll_until 10 grep -q '^second' "$LAB_DIR/drain.out" ||
	t_fail "the held connection's second request was answered" "$(cat "$LAB_DIR/drain.out")"
grep -q '^second 200 backend-a' "$LAB_DIR/drain.out" ||
	t_fail "the held connection drains: its second request is answered by a" "$(cat "$LAB_DIR/drain.out")"
t_ok "a terminating endpoint takes no new connections; a connection made before still answers (drains)"

slices "ready: false" "ready: true"
count 20
t_json_expect "$T_OUT" 'd["errors"] == 0 and d["bodies"] == {"backend-b": 20}' "a not ready: b answers all"
rctl get endpointslices -n demo
t_expect_out "web-a +IPv4 +80 +$LAB_BACKEND_A_IP" "routerctl get endpointslices: a kubectl table"
rctl delete endpointslice web-a -n demo
t_expect_rc 0 "delete slice web-a"
rctl delete endpointslice web-b -n demo
t_expect_rc 0 "delete slice web-b"
count 20
t_json_expect "$T_OUT" 'd["errors"] == 0 and d["bodies"] == {"backend-a": 20}' \
	"the slices gone: the Endpoints (backend a) serve again"
t_ok "not-ready endpoints take nothing; without slices the Endpoints serve again"

t_finish
