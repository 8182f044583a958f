#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# proxy_protocol: the PROXY protocol from a front load balancer (listen.proxy_protocol;
# dataplane/peek/proxy_proto.c, docs/operations.md "PROXY protocol"), written by a test
# client (python3 sockets, curl --haproxy-protocol) in the client namespace, backends the
# echoing pool (pool_server.py /echo) and nginx:
#   - version 1 before a request to a proxied route: the backend's X-Forwarded-For is the
#     header's client, not the connection's; to a spliced route: the backend gets the request
#     without the header (it answers 200 with the request line it read);
#   - version 2 (TCP over IPv4, with a TLV) before a spliced and a proxied request; LOCAL (a
#     balancer's health check): the connection's own address stands;
#   - a route's ip_allowlist judges the header's client: the one it lists 200, another 403;
#   - TLS terminated after a header (curl --haproxy-protocol, https);
#   - a connection with no header, or a broken one: reset, counted proxy_protocol_bad;
#   - listen.proxy_protocol {"from": [a prefix the client is not in]}: its connections come
#     straight and are served; a bad config key refused at start, naming it.
T_NAME=proxy_protocol
source "$(dirname "$0")/testlib.sh"

t_setup ppr 1
D=lab.switchyard.test
R=$LAB_ROUTER_IP
pp_config() { # JSON: listen.proxy_protocol's value
	python3 - "$LAB_ROUTERD_CONFIG" "$1" <<'PY' || t_fail "set listen.proxy_protocol" "$1"
import json, sys
c = json.load(open(sys.argv[1]))
c.setdefault("listen", {})["proxy_protocol"] = json.loads(sys.argv[2])
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
}
routes() {
	t_pool_routes "sp.$D" "px.$D" /echo
	rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: allow
  namespace: demo
  annotations: {haproxy.router.openshift.io/ip_allowlist: 198.19.7.7}
spec: {host: allow.$D, to: {kind: Service, name: c}, port: {targetPort: http}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: edge, namespace: demo}
spec: {host: edge.$D, to: {kind: Service, name: c}, port: {targetPort: http}, tls: {termination: edge}}
EOF
	t_expect_rc 0 "apply routes allow (allowlist 198.19.7.7) and edge (TLS)"
}
# send HEADER HOST PATH: raw bytes to R:80 from the client namespace: HEADER (python bytes
# literal, '' for none) then a GET; T_OUT the response, or "RESET"/"CLOSED".
send() {
	t_run lab_client /usr/bin/python3 - "$R" "$1" "$2" "$3" <<'PY'
import socket, sys
r, hdr, host, path = sys.argv[1], eval(sys.argv[2]), sys.argv[3], sys.argv[4]
s = socket.create_connection((r, 80), timeout=5)
s.sendall(hdr + b"GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path.encode(), host.encode()))
out = b""
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
except ConnectionResetError:
    print("RESET" if not out else out.decode(errors="replace"))
    sys.exit(0)
print(out.decode(errors="replace") if out else "CLOSED")
PY
}
V1="b'PROXY TCP4 198.19.7.7 198.18.0.1 40000 80\\r\\n'"
V1_OTHER="b'PROXY TCP4 198.19.9.9 198.18.0.1 40000 80\\r\\n'"
# v2: signature, PROXY over TCP/IPv4, 12 bytes of addresses + a 4-byte NOOP TLV.
V2="b'\\r\\n\\r\\n\\x00\\r\\nQUIT\\n\\x21\\x11\\x00\\x10' + bytes([198,19,7,7, 198,18,0,1]) + (40000).to_bytes(2,'big') + (80).to_bytes(2,'big') + b'\\x04\\x00\\x01x'"
V2_LOCAL="b'\\r\\n\\r\\n\\x00\\r\\nQUIT\\n\\x20\\x00\\x00\\x00'"

pp_config true
t_start_routerd "routerd started (listen.proxy_protocol true)"
routes

# --- version 1 ----------------------------------------------------------------------------
send "$V1" "px.$D" /echo/a
grep -q '^HTTP/1.1 200' <<<"$T_OUT" && grep -qi '^X-Forwarded-For: 198.19.7.7' <<<"$T_OUT" ||
	t_fail "v1 header, proxied route: 200, X-Forwarded-For the header's client" "$(t_seen)"
grep -qi "X-Forwarded-For: $LAB_CLIENT_IP" <<<"$T_OUT" && t_fail "the connection's own address is not forwarded" "$(t_seen)"
send "$V1" "sp.$D" /echo/b
grep -q '^HTTP/1.1 200' <<<"$T_OUT" && grep -q '^path: /echo/b' <<<"$T_OUT" ||
	t_fail "v1 header, spliced route: the backend reads the request, not the header (200, path /echo/b)" "$(t_seen)"
t_ok "version 1: proxied (X-Forwarded-For 198.19.7.7) and spliced (the backend never sees the header)"

# --- version 2 ----------------------------------------------------------------------------
send "$V2" "sp.$D" /echo/c
grep -q '^HTTP/1.1 200' <<<"$T_OUT" && grep -q '^path: /echo/c' <<<"$T_OUT" ||
	t_fail "v2 header with a TLV, spliced route: 200" "$(t_seen)"
send "$V2" "px.$D" /echo/d
grep -qi '^X-Forwarded-For: 198.19.7.7' <<<"$T_OUT" || t_fail "v2 header, proxied route: X-Forwarded-For 198.19.7.7" "$(t_seen)"
send "$V2_LOCAL" "px.$D" /echo/e
grep -qi "^X-Forwarded-For: $LAB_CLIENT_IP" <<<"$T_OUT" ||
	t_fail "v2 LOCAL (a balancer's own check): the connection's address stands" "$(t_seen)"
t_ok "version 2: TCP over IPv4 with a TLV (spliced and proxied), LOCAL keeps the connection's address"

# --- the allowlist judges the header's client ---------------------------------------------
send "$V1" "allow.$D" /
grep -q '^HTTP/1.1 200' <<<"$T_OUT" || t_fail "allowlist 198.19.7.7, header 198.19.7.7: 200" "$(t_seen)"
send "$V1_OTHER" "allow.$D" /
grep -q '^HTTP/1.1 403' <<<"$T_OUT" || t_fail "allowlist 198.19.7.7, header 198.19.9.9: 403" "$(t_seen)"
t_ok "ip_allowlist by the header's client: 198.19.7.7 200, 198.19.9.9 403"

# --- TLS after the header ------------------------------------------------------------------
t_run lab_client curl -sS -m 10 -k --haproxy-protocol --resolve "edge.$D:443:$R" "https://edge.$D/echo/tls"
grep -q '^path: /echo/tls' <<<"$T_OUT" || t_fail "curl --haproxy-protocol https (edge): served" "$(t_seen)"
t_ok "TLS terminated after a v1 header (curl --haproxy-protocol)"

# --- no header, a broken one ----------------------------------------------------------------
before=$(rctl stats -o json >/dev/null; t_json "$T_OUT" 'd["total"]["answers"]["proxy_protocol_bad"]')
send "b''" "sp.$D" /
[ "$T_OUT" = RESET ] || [ "$T_OUT" = CLOSED ] || t_fail "no header: the connection is reset, nothing served" "$(t_seen)"
send "b'PROXY TCP4 198.19.7.7 198.18.0.1 99999 80\\r\\n'" "sp.$D" /
[ "$T_OUT" = RESET ] || [ "$T_OUT" = CLOSED ] || t_fail "a port out of range: reset" "$(t_seen)"
t_run lab_client curl -sS -m 5 --resolve "sp.$D:80:$R" "http://sp.$D/"
[ "$T_RC" -ne 0 ] || t_fail "curl without a header: no answer" "$(t_seen)"
after=$(rctl stats -o json >/dev/null; t_json "$T_OUT" 'd["total"]["answers"]["proxy_protocol_bad"]')
[ "$after" -ge $((before + 3)) ] || t_fail "answers.proxy_protocol_bad counts them" "$before -> $after"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["proxy_protocol_headers"] >= 7' "proxy_protocol_headers counts the headers read"
t_ok "no header or a broken one: reset (answers.proxy_protocol_bad $before -> $after)"
lab_routerd_stop 10 || t_note "routerd exit status: $ROUTERD_STATUS"

# --- from: only the balancer's connections carry one -----------------------------------------
pp_config '{"from": ["198.18.0.99/32", "2001:2::99/128"]}'
t_start_routerd "routerd started (proxy_protocol from 198.18.0.99/32)"
t_run lab_client curl -sS -m 5 --resolve "sp.$D:80:$R" "http://sp.$D/echo/f"
grep -q '^path: /echo/f' <<<"$T_OUT" || t_fail "a client not in from: served without a header" "$(t_seen)"
t_ok "listen.proxy_protocol.from: a connection from elsewhere is served as it comes"
lab_routerd_stop 10 || t_note "routerd exit status: $ROUTERD_STATUS"

pp_config '{"from": ["198.18.0.300/32"]}'
lab_routerd_start
lab_routerd_wait_exit 10 && t_fail "routerd refuses a bad from" "it exited 0"
[ "$ROUTERD_STATUS" != timeout ] || t_fail "routerd refuses a bad from" "it ran"
grep -q 'listen.proxy_protocol.from\[0\]: "198.18.0.300/32" is not an address or CIDR' "$LAB_ROUTERD_LOG" ||
	t_fail "the error names the key and the value" "$(tail -n 5 "$LAB_ROUTERD_LOG")"
t_ok "a bad listen.proxy_protocol.from: routerd does not start, naming the key and value"
t_finish
