#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# proxy_http: the proxy mode (dataplane/proxy/) with real clients (curl, wrk, a raw Python
# client) and real servers (two nginx, a Python server for a third pool). One keep-alive
# connection asking for /, /api and /api/v2 reaches three pools, checked by each backend's
# body, in each dialect: OpenShift Route paths, a Contour IngressRoute's routes, a Skipper
# RouteGroup with a Header predicate and methods. Pipelined requests answer in order; the
# forwarded headers reach the backend; ambiguous framing gets 400 from the router; wrk with
# keep-alive and with a connection per request, and h2load in HTTP/1.1 mode, see no error; a
# WebSocket echo (ws_echo.py) works through the Upgrade tunnel.
T_NAME=proxy_http
source "$(dirname "$0")/testlib.sh"

t_setup pxh 1
t_start_routerd
MBUFS0=$(t_mbufs_in_use)
HTTPC="python3 $SY_SRC/tests/integration/httpc.py"
D=lab.switchyard.test

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"

# A third pool: a Python server on backend a's address, port 8082 (pool_server.py).
t_backend_service c 8082 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8082

t_px_routes
rctl apply -f - <<EOF
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: pxir, namespace: demo}
spec:
  virtualhost: {fqdn: pxir.$D}
  routes:
  - match: /
    services: [{name: a, port: 80}]
  - match: /api
    services: [{name: b, port: 80}]
  - match: /api/v2
    services: [{name: c, port: 8082}]
---
apiVersion: zalando.org/v1
kind: RouteGroup
metadata: {name: pxrg, namespace: demo}
spec:
  hosts: [pxrg.$D]
  backends:
  - {name: a, type: service, serviceName: a, servicePort: 80}
  - {name: b, type: service, serviceName: b, servicePort: 80}
  - {name: c, type: service, serviceName: c, servicePort: 8082}
  defaultBackends: [{backendName: a}]
  routes:
  - pathSubtree: /
  - pathSubtree: /api
    predicates: ['Header("X-Pool", "b")']
    backends: [{backendName: b}]
  - pathSubtree: /api
    methods: [POST]
    backends: [{backendName: c}]
  - pathSubtree: /api/v2
    backends: [{backendName: c}]
EOF
t_expect_rc 0 "apply a third pool and a host per dialect with three path rules"

rctl resolve "http://px.$D/api" -o json
t_json_expect "$T_OUT" 'd["mode"] == "proxy" and d["binding"] == "request"' "resolve: px.$D is proxied, bound per request"

# A cold router: the first traffic is 64 clients at once, so 64 backend SYNs wait for one
# ARP answer. None may be dropped for want of room (each would cost its request a 1 s SYN
# retransmission: dataplane/net/neigh_t.h, SY_NEIGH_PENDING_PER_NH).
t_run lab_client wrk -t1 -c64 -d2s --timeout 3s -s "$SY_SRC/tests/integration/wrk_report.lua" \
	-H "Host: px.$D" -H "Connection: close" "http://$LAB_ROUTER_IP/"
rep=$(printf '%s\n' "$T_OUT" | grep '^{' | tail -n 1)
[ -n "$rep" ] || t_fail "wrk on a cold router printed its report" "$(t_seen)"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["drops"]["arp_pending_full"] == 0' \
	"64 connections at once on a cold router: no frame dropped waiting for ARP"
t_json_expect "$rep" 'd["requests"] > 64 and d["connect"] + d["read"] + d["write"] + d["timeout"] + d["status"] == 0 and d["lat_max_us"] < 900000' \
	"64 connections at once on a cold router: no error, none waited for a SYN retransmission"
t_ok "a cold router, 64 clients at once: nothing dropped waiting for ARP, slowest request $(t_json "$rep" 'd["lat_max_us"] // 1000') ms"

# three URLs, one curl, one connection: curl reuses it for the same host and port
three() { # three HOST [curl args] -> "bodies|connects"
	local host=$1
	shift
	t_run lab_client curl -s -m 10 -H "Host: $host" "$@" -w '%{num_connects}\n' \
		"http://$LAB_ROUTER_IP/" "http://$LAB_ROUTER_IP/api/x" "http://$LAB_ROUTER_IP/api/v2/y"
}
before=$(rctl stats -o json && t_json "$T_OUT" 'd["total"]["conns_proxied"]')
three "px.$D"
[ "$(printf '%s' "$T_OUT" | tr '\n' ' ')" = "backend-a 1 backend-b 0 pool-c 0" ] ||
	t_fail "OpenShift Routes: /, /api, /api/v2 on one connection reach a, b, c" "seen: $(t_seen)"
after=$(rctl stats -o json && t_json "$T_OUT" 'd["total"]["conns_proxied"]')
[ $((after - before)) -eq 1 ] || t_fail "one proxied connection for the three requests" "before $before after $after"
t_ok "OpenShift Route paths: one keep-alive connection, three requests, three pools (a, b, c)"

three "pxir.$D"
[ "$(printf '%s' "$T_OUT" | tr '\n' ' ')" = "backend-a 1 backend-b 0 pool-c 0" ] ||
	t_fail "IngressRoute routes: /, /api, /api/v2 on one connection reach a, b, c" "seen: $(t_seen)"
t_ok "Contour IngressRoute routes: one connection, three pools"

three "pxrg.$D" -H "X-Pool: b"
[ "$(printf '%s' "$T_OUT" | tr '\n' ' ')" = "backend-a 1 backend-b 0 pool-c 0" ] ||
	t_fail "RouteGroup: Header predicate sends /api to b, /api/v2 to c, / to a" "seen: $(t_seen)"
three "pxrg.$D"
[ "$(printf '%s' "$T_OUT" | tr '\n' ' ')" = "backend-a 1 backend-a 0 pool-c 0" ] ||
	t_fail "RouteGroup: without the header /api falls back to the default backend a" "seen: $(t_seen)"
t_run lab_client curl -s -m 10 -H "Host: pxrg.$D" -X POST -d x "http://$LAB_ROUTER_IP/api/x"
[ "$T_OUT" = pool-c ] || t_fail "RouteGroup: POST /api goes to c (methods)" "seen: $(t_seen)"
t_ok "Skipper RouteGroup: Header predicate and methods decided per request on one connection"

# A backend that closes its connection after a response (nginx at its keepalive_requests,
# 1000 by default: the wrk run above brings pooled legs near it) closes the leg, not the
# client's connection, when the body ends by its length: the next request on the same
# connection reaches another pool. A body that ends at the backend's close ends the
# client's connection too (its end is the close), so the request after it connects again.
t_run lab_client curl -s -m 10 -H "Host: px.$D" -w ' %{num_connects}\n' \
	"http://$LAB_ROUTER_IP/api/v2/closing" "http://$LAB_ROUTER_IP/" \
	"http://$LAB_ROUTER_IP/api/v2/closing-eof" "http://$LAB_ROUTER_IP/"
[ "$(printf '%s' "$T_OUT" | tr '\n' ' ')" = "pool-c  1 backend-a  0 pool-c  0 backend-a  1" ] ||
	t_fail "a backend's Connection: close ends its leg, not the client's keep-alive connection" \
		"expected: pool-c 1, backend-a 0, pool-c 0, backend-a 1 (body, connections made); seen: $(t_seen)"
t_run lab_client curl -si -m 10 -H "Host: px.$D" "http://$LAB_ROUTER_IP/api/v2/closing"
t_expect_out '^Connection: keep-alive' "the response to a client that keeps its connection says keep-alive"
t_expect_no_out '^Connection: close' "the backend's Connection: close is not passed on"
t_ok "a backend's close after a length-framed response closes its leg only; one read to the close closes the client's"

# Forwarded headers, as the backend sees them.
t_run lab_client curl -s -m 10 -H "Host: px.$D" "http://$LAB_ROUTER_IP/api/v2/echo"
t_expect_out "X-Forwarded-For: $LAB_CLIENT_IP" "X-Forwarded-For carries the client's address"
t_expect_out "X-Forwarded-Host: px.$D" "X-Forwarded-Host carries the Host"
t_expect_out "X-Forwarded-Proto: http" "X-Forwarded-Proto says http"
t_expect_out "Forwarded: for=$LAB_CLIENT_IP;host=px.$D;proto=http" "Forwarded (RFC 7239)"
t_ok "forwarded headers reach the backend: X-Forwarded-For/-Host/-Proto, Forwarded"

# Pipelining: three requests in one write, three answers in order.
t_run lab_client $HTTPC raw "$LAB_ROUTER_IP" 80 "GET / HTTP/1.1\r\nHost: px.$D\r\n\r\nGET /api/x HTTP/1.1\r\nHost: px.$D\r\n\r\nGET /api/v2/z HTTP/1.1\r\nHost: px.$D\r\nConnection: close\r\n\r\n"
order=$(printf '%s' "$T_OUT" | grep -Eo 'backend-a|backend-b|pool-c' | tr '\n' ' ')
[ "$order" = "backend-a backend-b pool-c " ] || t_fail "pipelined requests answered in order" "seen: $(t_seen)"
t_ok "pipelining: three requests in one segment, answered in order by a, b, c"

# Ambiguous framing: the router answers 400 itself, the backend never sees it.
before=$(rctl stats -o json && t_json "$T_OUT" 'd["total"]["proxy_requests"]')
t_run lab_client $HTTPC raw "$LAB_ROUTER_IP" 80 "POST /api HTTP/1.1\r\nHost: px.$D\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
t_expect_out '^HTTP/1.1 400 Bad Request' "Content-Length with Transfer-Encoding: 400"
t_run lab_client $HTTPC raw "$LAB_ROUTER_IP" 80 "POST /api HTTP/1.1\r\nHost: px.$D\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde"
t_expect_out '^HTTP/1.1 400 Bad Request' "two different Content-Lengths: 400"
t_run lab_client $HTTPC raw "$LAB_ROUTER_IP" 80 "POST /api HTTP/1.1\r\nHost: px.$D\r\nTransfer-Encoding: gzip\r\n\r\n"
t_expect_out '^HTTP/1.1 501' "a transfer coding the router cannot frame: 501"
after=$(rctl stats -o json && t_json "$T_OUT" 'd["total"]["proxy_requests"]')
[ "$after" = "$before" ] || t_fail "refused requests were not routed" "before $before after $after"
t_ok "ambiguous framing (CL+TE, two lengths, unknown coding) answered by the router, never routed"

# A first head larger than the client's initial window (ten segments): the client stalls
# waiting for an ACK that PEEK does not give; its retransmission gets 431 at once, not 408
# after the 10 s http-request timeout (httpc.py gives up after 5 s).
big=$(head -c 20000 /dev/zero | tr '\0' a)
for h in "px.$D" "web.$D"; do
	t_run lab_client $HTTPC raw "$LAB_ROUTER_IP" 80 "GET / HTTP/1.1\r\nHost: $h\r\nX-Big: $big\r\n\r\n"
	t_expect_out '^HTTP/1.1 431 ' "a 20 KB first head to $h: 431"
done
t_ok "a 20 KB first head gets 431 within seconds, proxied or spliced"


# A chunked upload through the proxy (nginx a reads and discards it, then answers), and a
# GET after it on the same connection: the router found the body's end by its framing.
head -c 3M /dev/urandom >"$LAB_DIR/up.bin"
t_run lab_client curl -s -m 60 -H "Host: px.$D" -H 'Transfer-Encoding: chunked' -w ' %{num_connects}\n' \
	--data-binary "@$LAB_DIR/up.bin" "http://$LAB_ROUTER_IP/up" --next -s -m 10 -H "Host: px.$D" \
	-w ' %{num_connects}\n' "http://$LAB_ROUTER_IP/api/x"
[ "$(printf '%s' "$T_OUT" | tr '\n' ' ')" = "backend-a  1 backend-b  0" ] ||
	t_fail "3 MB chunked POST, then a GET on the same connection" "seen: $(t_seen)"
t_ok "chunked upload (3 MB) through the proxy, then the next request on the same connection"

# wrk, keep-alive and a connection per request: no errors, no non-2xx. With a connection
# per request, the backend connections come from the worker's idle pool (px_idle.c): far
# fewer are opened than requests are sent, and the backend is left with few TIME_WAITs.
for mode in keepalive close; do
	extra=()
	[ $mode = close ] && extra=(-H 'Connection: close')
	rctl stats -o json
	px0=$(t_json "$T_OUT" 'd["total"]["proxy_requests"], d["total"]["proxy_backend_conns"], d["total"]["proxy_backend_pooled"]')
	t_run lab_client wrk -t1 -c16 -d3s -s "$SY_SRC/tests/integration/wrk_report.lua" \
		-H "Host: px.$D" "${extra[@]}" "http://$LAB_ROUTER_IP/api/x"
	t_expect_rc 0 "wrk ($mode)"
	rep=$(printf '%s\n' "$T_OUT" | tail -n 1)
	rctl stats -o json
	ans=$(t_json "$T_OUT" '{k: v for k, v in d["total"]["answers"].items() if v}')
	t_json_expect "$rep" 'd["requests"] > 100 and d["connect"] + d["read"] + d["write"] + d["timeout"] + d["status"] == 0' \
		"wrk $mode through the proxy: no errors ($rep; the router's own answers so far: $ans)"
	if [ $mode = close ]; then
		px1=$(t_json "$T_OUT" 'd["total"]["proxy_requests"], d["total"]["proxy_backend_conns"], d["total"]["proxy_backend_pooled"]')
		tw=$(lab_backend ss -Htan state time-wait | wc -l)
		t_json_expect "[$px0, $px1, $tw]" \
			'(d[1][0] - d[0][0]) > 1000 and (d[1][1] - d[0][1]) * 20 < (d[1][0] - d[0][0]) and (d[1][2] - d[0][2]) * 10 > (d[1][0] - d[0][0]) * 9 and d[2] < 200' \
			"idle pool: a connection per client request, few backend connections (requests, backend conns, pooled before/after; backend TIME_WAITs: [$px0, $px1, $tw])"
		t_ok "Connection: close clients share the worker's pooled backend connections: $(t_json "[$px0, $px1]" 'f"{d[1][0]-d[0][0]} requests, {d[1][1]-d[0][1]} backend connections opened, {d[1][2]-d[0][2]} sent on pooled ones"'), $tw TIME_WAITs at the backend"
	fi
done
t_ok "wrk keep-alive and Connection: close through the proxy: no errors"

# h2load in HTTP/1.1 mode: 2,000 requests over 10 keep-alive connections, none failed.
t_run lab_client h2load --h1 -n 2000 -c 10 -m 1 -H ":authority: px.$D" "http://$LAB_ROUTER_IP/api/x"
t_expect_rc 0 "h2load --h1"
grep -Eq '^requests: 2000 total, 2000 started, 2000 done, 2000 succeeded, 0 failed, 0 errored' <<<"$T_OUT" &&
	grep -Eq '^status codes: 2000 2xx' <<<"$T_OUT" ||
	t_fail "h2load --h1: 2000 requests, all 2xx, none failed" "seen: $(t_seen)"
t_ok "h2load --h1 -n 2000 -c 10 through the proxy: 2000 succeeded, all 2xx"

# WebSocket: an Upgrade through the proxy, a tunnel after the 101 (ws_echo.py on backend a,
# port 8083, behind px.$D/ws). Three messages (5 B, 64 KB text, 300 KB binary) come back
# unchanged, then the close handshake.
t_backend_service ws 8083 python3 "$SY_SRC/tests/integration/ws_echo.py" serve "$LAB_BACKEND_A_IP" 8083
rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: px-ws, namespace: demo}
spec: {host: px.$D, path: /ws, to: {kind: Service, name: ws}, port: {targetPort: http}}
EOF
t_expect_rc 0 "apply the WebSocket echo route px.$D/ws"
t_run lab_client python3 "$SY_SRC/tests/integration/ws_echo.py" client "$LAB_ROUTER_IP" 80 "px.$D" /ws
t_json_expect "$T_OUT" 'd["status"] == 101 and d["accept_ok"] and d["echoed"] == 3 and d["mismatch"] == 0 and d["closed"]' \
	"WebSocket through the proxy: 101, three messages echoed, close handshake"
t_ok "WebSocket echo through the proxy: 101, 5 B / 64 KB / 300 KB messages unchanged, closed cleanly"

# Parked backend legs close after SY_PROXY_IDLE_BACKEND_MS (4 s) unused.
t_flows_zero 10
t_json_expect "$T_OUT" 'd["total"]["flows_active"] == 0 and d["total"]["proxy_idle_expired"] > 0' \
	"every proxied connection and backend leg freed, parked ones after their idle time"
t_mbufs_back "$MBUFS0" "after every request of this test"
t_check_sanitizers
t_finish
