#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# splice_http: plain-HTTP routes by Host carry real traffic from real clients (curl, a Python
# client) to real servers (nginx, a Python upload sink) through routerd's splice path:
# Host routing (port, case, absolute-form, HTTP/1.0), path rules (proxied: per request),
# the router's own answers (503 unknown host, 400 malformed), keep-alive, 80/20 weights over
# 1,000 connections, 100 MB down and up with checksums, a route change that must not break an
# established connection, and a flow table that is empty again after thousands of connections.
T_NAME=splice_http
source "$(dirname "$0")/testlib.sh"

t_setup sph 1
t_start_routerd
MBUFS0=$(t_mbufs_in_use)
HTTPC="python3 $SY_SRC/tests/integration/httpc.py"
D=lab.switchyard.test

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
# An upload sink on backend a, behind upload.$D.
t_upload_sink "upload.$D"
t_ok "routes applied"

stat() { # stat PYEXPR over the stats reply
	rctl stats -o json
	t_json "$T_OUT" "$1"
}

get() { # get HOST PATH [curl args...] -> body in T_OUT
	local host=$1 path=$2
	shift 2
	t_run lab_client curl -s -m 10 -H "Host: $host" "$@" "http://$LAB_ROUTER_IP$path"
}

get "web.$D" /
t_expect_rc 0 "curl web.$D"
[ "$T_OUT" = backend-a ] || t_fail "web.$D/ is served by backend a" "seen: $(t_seen)"
get "web.$D" /b/x
[ "$T_OUT" = backend-b ] || t_fail "web.$D/b/x: the longer path rule (/b) sends it to b" "seen: $(t_seen)"
get "web.$D" /bx
[ "$T_OUT" = backend-a ] || t_fail "web.$D/bx: /b is segment-aware, so a" "seen: $(t_seen)"
get "WEB.LAB.Switchyard.TEST:80" /
[ "$T_OUT" = backend-a ] || t_fail "Host with upper case and :80 routes to a" "seen: $(t_seen)"
get "generated-demo.apps.$D" /
[ "$T_OUT" = backend-b ] || t_fail "generated host <name>-<namespace>.<suffix>" "seen: $(t_seen)"
t_run lab_client curl -s -m 10 -0 -H "Host: web.$D" "http://$LAB_ROUTER_IP/b"
[ "$T_OUT" = backend-b ] || t_fail "HTTP/1.0 request with Host" "seen: $(t_seen)"
# Absolute-form request target: the host in the URI wins (curl through the router as a proxy).
t_run lab_client curl -s -m 10 -x "http://$LAB_ROUTER_IP:80" "http://web.$D/b/abs"
[ "$T_OUT" = backend-b ] || t_fail "absolute-form GET http://web.$D/b/abs" "seen: $(t_seen)"
t_ok "Host routing: exact host, path rules (segment-aware), case, port, HTTP/1.0, absolute-form"

t_run lab_client curl -s -m 10 -o /dev/null -w '%{http_code}' -H "Host: nobody.$D" "http://$LAB_ROUTER_IP/"
[ "$T_OUT" = 503 ] || t_fail "an unknown host gets 503 (OpenShift's answer)" "seen: $(t_seen)"
t_run lab_client curl -s -m 10 -H "Host: nobody.$D" "http://$LAB_ROUTER_IP/"
t_expect_out 'Service Unavailable' "the 503 page says Service Unavailable"
t_run lab_client $HTTPC raw "$LAB_ROUTER_IP" 80 'GET / HTTP/1.1\r\nHost: web.lab.switchyard.test\r\nBad Header: x\r\n\r\n'
t_expect_out '^HTTP/1.1 400 Bad Request' "a malformed header line gets 400"
t_run lab_client $HTTPC raw "$LAB_ROUTER_IP" 80 'GET / HTTP/1.1\r\nUser-Agent: x\r\n\r\n'
t_expect_out '^HTTP/1.1 400 Bad Request' "HTTP/1.1 without Host gets 400"
t_ok "the router's own answers: 503 for an unknown host, 400 for malformed heads"

# Plain HTTP to TLS vhosts: insecureEdgeTerminationPolicy decides (Redirect: 302 to https,
# Allow: served in plain, None: not served); passthrough hosts are never served in plain.
rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: edge-redirect, namespace: demo}
spec:
  host: redirect.$D
  to: {kind: Service, name: a}
  port: {targetPort: http}
  tls: {termination: edge, insecureEdgeTerminationPolicy: Redirect}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: edge-allow, namespace: demo}
spec:
  host: allow.$D
  to: {kind: Service, name: a}
  port: {targetPort: http}
  tls: {termination: edge, insecureEdgeTerminationPolicy: Allow}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: edge-none, namespace: demo}
spec:
  host: none.$D
  to: {kind: Service, name: a}
  port: {targetPort: http}
  tls: {termination: edge}
EOF
t_expect_rc 0 "apply edge routes with each insecure policy"
t_run lab_client curl -s -m 10 -o /dev/null -w '%{http_code} %{redirect_url}' -H "Host: redirect.$D" "http://$LAB_ROUTER_IP/p?q=1"
[ "$T_OUT" = "302 https://redirect.$D/p?q=1" ] || t_fail "Redirect policy: 302 to the https URL" "seen: $(t_seen)"
get "allow.$D" /
[ "$T_OUT" = backend-a ] || t_fail "Allow policy: plain HTTP is served" "seen: $(t_seen)"
t_run lab_client curl -s -m 10 -o /dev/null -w '%{http_code}' -H "Host: none.$D" "http://$LAB_ROUTER_IP/"
[ "$T_OUT" = 503 ] || t_fail "no insecure policy: plain HTTP is not served (503)" "seen: $(t_seen)"
t_run lab_client curl -s -m 10 -o /dev/null -w '%{http_code}' -H "Host: a.passthrough.$D" "http://$LAB_ROUTER_IP/"
[ "$T_OUT" = 503 ] || t_fail "a passthrough host over plain HTTP: 503" "seen: $(t_seen)"
t_ok "insecure policies on TLS vhosts: Redirect -> 302 https, Allow -> served, None -> 503"

# Keep-alive: 200 requests on one connection. web.$D has path rules, so it is proxied (each
# request routed on its own); its requests count one by one.
before=$(stat 'd["total"]["conns_proxied"]')
before_req=$(stat 'd["total"]["proxy_requests"]')
t_run lab_client $HTTPC keepalive "$LAB_ROUTER_IP" "web.$D" / 200
t_expect_rc 0 "200 keep-alive requests"
t_json_expect "$T_OUT" 'd["bodies"] == {"200 backend-a": 200}' "200 answers from backend a on one connection"
after=$(stat 'd["total"]["conns_proxied"]')
after_req=$(stat 'd["total"]["proxy_requests"]')
[ $((after - before)) -eq 1 ] || t_fail "keep-alive used one proxied connection" "proxied before $before, after $after"
[ $((after_req - before_req)) -eq 200 ] || t_fail "200 requests routed one by one" "requests before $before_req, after $after_req"
t_ok "HTTP/1.1 keep-alive: 200 requests on one proxied connection, each routed"

# Weights: canary = a 80 / b 20, 1,000 connections.
t_run lab_client $HTTPC count "$LAB_ROUTER_IP" "canary.$D" / 1000 8
t_expect_rc 0 "1000 connections to canary.$D"
res=$T_OUT
t_json_expect "$res" 'd["errors"] == 0 and d["statuses"] == {"200": 1000}' "1000 connections, all 200"
share=$(t_json "$res" 'd["bodies"].get("backend-a", 0) / 1000')
# Binomial: n=1000, p=0.8 -> sd 1.3 points; 0.75..0.85 is ~4 sd.
python3 -c "import sys; s=float(sys.argv[1]); sys.exit(0 if 0.75 <= s <= 0.85 else 1)" "$share" ||
	t_fail "canary share of a within 0.75..0.85 (weights 80/20)" "seen: $res"
t_ok "weights 80/20 over 1,000 connections: a got $share (tolerance 0.75-0.85)"

# 100 MB download and upload, checksums end to end.
# (The lab's nginx serves /big.bin from its www directory: make it 100 MB.)
big=$LAB_DIR/nginx-a/www/big.bin
head -c 100M /dev/urandom >"$big"
want=$(sha256sum <"$big" | cut -d' ' -f1)
t_run lab_client sh -c "curl -s -m 120 -H 'Host: web.$D' http://$LAB_ROUTER_IP/big.bin | sha256sum"
[ "${T_OUT%% *}" = "$want" ] || t_fail "100 MB download: sha256 equal" "want $want; $(t_seen)"
t_ok "100 MB download through the splice: sha256 matches"
t_run lab_client curl -s -m 120 -H "Host: upload.$D" -H 'Content-Type: application/octet-stream' \
	--data-binary "@$big" "http://$LAB_ROUTER_IP/up"
[ "$T_OUT" = "$want 104857600" ] || t_fail "100 MB upload: the backend's sha256 equals ours" "want $want; $(t_seen)"
t_ok "100 MB upload through the splice: the backend saw the same sha256"

# A route change must not break an established connection: it stays on its backend.
fifo=$LAB_DIR/hold.fifo
mkfifo "$fifo"
lab_client $HTTPC hold "$LAB_ROUTER_IP" "web.$D" / "$fifo" >"$LAB_DIR/hold.out" 2>&1 &
hold_pid=$!
sleep 1
rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: web, namespace: demo}
spec:
  host: web.$D
  to: {kind: Service, name: b}
  port: {targetPort: http}
EOF
t_expect_rc 0 "re-point web.$D to b"
get "web.$D" /
[ "$T_OUT" = backend-b ] || t_fail "a new connection to web.$D goes to b after the change" "seen: $(t_seen)"
echo go >"$fifo"
wait "$hold_pid"
# web.$D had path rules when the held connection opened: it is proxied, and each of its
# requests is routed by the generation live when it arrives. The connection is not broken.
[ "$(cat "$LAB_DIR/hold.out")" = '["backend-a", "backend-b"]' ] ||
	t_fail "the established (proxied) connection survives the route change; its next request follows it" \
		"seen: $(cat "$LAB_DIR/hold.out")"
t_ok "route change: new connections go to b; the established proxied one stays up and its next request goes to b"

# Thousands of connections, then the flow table is empty again (LINGER is 2 s).
t_run lab_client $HTTPC count "$LAB_ROUTER_IP" "web.$D" / 3000 16
t_json_expect "$T_OUT" 'd["errors"] == 0 and d["statuses"] == {"200": 3000}' "3000 more connections, all 200"
t_flows_zero 10 || t_fail "flows_active back to 0 after the run" "JSON: ${T_OUT:0:1500}"
t_json_expect "$T_OUT" 'd["total"]["conns_closed"] == d["total"]["conns_opened"]' "every connection opened was closed"
t_ok "flow table: $(t_json "$T_OUT" 'd["total"]["conns_opened"]') connections opened and closed, 0 active"
t_mbufs_back "$MBUFS0" "after every connection of this test"

t_finish
