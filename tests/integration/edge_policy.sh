#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# edge_policy: what operators set on an OpenShift Route's edge with haproxy.router.openshift.io/
# annotations (docs/routing.md, "Edge policies"), seen by curl and openssl s_client in the
# client namespace, with nginx and a Python pool (pool_server.py) as backends:
#   - ip_allowlist that admits the client (its /32 among others): 200, on a spliced route and
#     on a proxied one (a path rule); one that leaves it out: 403 on both (per request on one
#     keep-alive connection); ip_whitelist, the older name;
#     passthrough with an allowlist that leaves the client out: the connection reset, no
#     ServerHello; the same with one that admits it: nginx's certificate;
#   - timeout 1s in front of a backend that answers after 3 s: 504 in 1-3 s; timeout 6s in
#     front of one that answers after 2 s: 200;
#   - hsts_header on an edge route: the header as given over TLS, none over plain HTTP
#     (insecureEdgeTerminationPolicy Allow);
#   - an invalid value (timeout "2x", ip_allowlist with a bad address): not applied, the route
#     served, its status condition EdgePoliciesApplied False naming the annotation and value;
#   - answers.source_not_allowed counts the refusals;
#   - rate-limit-connections: concurrent-tcp 2 (a third concurrent connection refused, served
#     again after), rate-tcp 3 (of six connections in a row three served), rate-http 5 (a
#     burst of 8 requests on one connection: 5 answered, then the connection closed);
#   - timeout-tunnel 2s on a spliced route: a keep-alive connection idle 3.5 s is dropped,
#     kept without it;
#   - pod-concurrent-connections 1 on a one-endpoint route: a second concurrent connection
#     503 (lb_all_full), served again after;
#   - spec.httpHeaders.actions (request Set and Delete as the backend sees them, response Set
#     and Delete as curl sees them) and rewrite-target on one route; a route setting Host
#     refused at apply.
T_NAME=edge_policy
source "$(dirname "$0")/testlib.sh"

t_setup edp 1
D=lab.switchyard.test
R=$LAB_ROUTER_IP
t_start_routerd
rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_backend_service c 8082 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8082

A=haproxy.router.openshift.io
# route NAME HOST SERVICE ANNOTATIONS-YAML [PATH] [TLS-YAML]: an OpenShift Route.
route() {
	cat <<EOF
---
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: $1
  namespace: demo
  annotations: {$4}
spec:
  host: $2
${5:+  path: $5
}  to: {kind: Service, name: $3}
  port: {targetPort: ${7:-http}}
  tls: ${6:-null}
EOF
}
rctl apply -f - <<EOF
$(route allow-in "allow-in.$D" c "$A/ip_allowlist: '198.19.7.0/24 $LAB_CLIENT_IP 2001:2::/48'")
$(route allow-out "allow-out.$D" c "$A/ip_allowlist: '198.19.7.0/24 2001:2::/48'")
$(route allow-old "allow-old.$D" c "$A/ip_whitelist: '198.19.7.7'")
$(route px-in "px.$D" c "$A/ip_allowlist: '$LAB_CLIENT_IP/32'" /in)
$(route px-out "px.$D" c "$A/ip_allowlist: '198.19.7.7'" /out)
$(route pt-out "pt-out.$D" a "$A/ip_allowlist: '198.19.7.7'" "" "{termination: passthrough}" https)
$(route pt-in "pt-in.$D" a "$A/ip_allowlist: '198.18.0.0/15'" "" "{termination: passthrough}" https)
$(route slow "slow.$D" c "$A/timeout: 1s")
$(route patient "patient.$D" c "$A/timeout: 6s")
$(route hsts "hsts.$D" c "$A/hsts_header: 'max-age=31536000;includeSubDomains;preload'" "" "{termination: edge, insecureEdgeTerminationPolicy: Allow}")
$(route bad "bad.$D" c "$A/timeout: 2x, $A/ip_allowlist: '198.19.7.7 198.18.0.300'")
$(route rl-conc "rl-conc.$D" c "$A/rate-limit-connections: 'true', $A/rate-limit-connections.concurrent-tcp: '2'")
$(route rl-conc-px "rl-conc-px.$D" c "$A/rate-limit-connections: 'true', $A/rate-limit-connections.concurrent-tcp: '1'" /slow)
$(route rl-tcp "rl-tcp.$D" c "$A/rate-limit-connections: 'true', $A/rate-limit-connections.rate-tcp: '3'")
$(route rl-http "rl-http.$D" c "$A/rate-limit-connections: 'true', $A/rate-limit-connections.rate-http: '5'")
$(route pod1 "pod1.$D" c "$A/pod-concurrent-connections: '1'")
$(route tt "tt.$D" a "$A/timeout-tunnel: 2s")
$(route tt-none "tt-none.$D" a "")
EOF
t_expect_rc 0 "apply Routes with edge-policy annotations"
# spec.httpHeaders.actions and rewrite-target on one route: /api/... reaches the echoing
# pool as /echo/...
rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: headers
  namespace: demo
  annotations: {$A/rewrite-target: /echo}
spec:
  host: headers.$D
  path: /api
  to: {kind: Service, name: c}
  port: {targetPort: http}
  httpHeaders:
    actions:
      request:
      - {name: X-Env, action: {type: Set, set: {value: prod}}}
      - {name: X-Drop, action: {type: Delete}}
      response:
      - {name: Server, action: {type: Delete}}
      - {name: X-Frame-Options, action: {type: Set, set: {value: DENY}}}
EOF
t_expect_rc 0 "apply a Route with spec.httpHeaders.actions and rewrite-target"
# A header OpenShift keeps for itself: the apply refused, naming it.
rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: sethost, namespace: demo}
spec:
  host: sethost.$D
  to: {kind: Service, name: c}
  httpHeaders: {actions: {request: [{name: Host, action: {type: Set, set: {value: evil.test}}}]}}
EOF
[ "$T_RC" -ne 0 ] && grep -q 'spec.httpHeaders.actions.request\[0\]' <<<"$T_OUT$T_ERR" &&
	grep -q '"Host": the router does not let a route set or delete it' <<<"$T_OUT$T_ERR" ||
	t_fail "a Route setting Host: the apply refused, naming the field and the header" "$(t_seen)"
t_ok "spec.httpHeaders: setting Host refused at apply, by field and name"

# get URL [curl args]: status code and body's first line into T_OUT ("CODE BODY").
get() {
	local url=$1 host
	shift
	host=${url#*://}
	host=${host%%/*}
	t_run lab_client curl -sS -m 10 -k --resolve "$host:80:$R" --resolve "$host:443:$R" \
		-o "$LAB_DIR/body" -w '%{http_code}' "$@" "$url"
	T_OUT="$T_OUT $(head -n 1 "$LAB_DIR/body" 2>/dev/null)"
}
refusals() {
	rctl stats -o json
	t_json "$T_OUT" 'd["total"]["answers"]["source_not_allowed"]'
}

# --- ip_allowlist ---------------------------------------------------------------------
before=$(refusals)
get "http://allow-in.$D/"
[ "$T_OUT" = "200 pool-c" ] || t_fail "allowlist with the client's address: 200 from the pool" "$(t_seen)"
get "http://allow-out.$D/"
[ "${T_OUT%% *}" = 403 ] || t_fail "allowlist without the client's address: 403" "$(t_seen)"
get "http://allow-old.$D/"
[ "${T_OUT%% *}" = 403 ] || t_fail "ip_whitelist (the older name) without the client: 403" "$(t_seen)"
t_ok "ip_allowlist on spliced routes: the client's address admitted (200), others 403 (ip_whitelist too)"
get "http://px.$D/in"
[ "$T_OUT" = "200 pool-c" ] || t_fail "proxied route /in, allowlist with the client: 200" "$(t_seen)"
get "http://px.$D/out"
[ "${T_OUT%% *}" = 403 ] || t_fail "proxied route /out, allowlist without the client: 403" "$(t_seen)"
# Both on one keep-alive connection: the refusal is per request, the connection goes on.
t_run lab_client curl -sS -m 10 --resolve "px.$D:80:$R" -o /dev/null -o /dev/null -w '%{http_code} ' \
	"http://px.$D/out" "http://px.$D/in"
[ "$T_OUT" = "403 200 " ] || t_fail "one keep-alive connection: /out 403, then /in 200" "$(t_seen)"
t_ok "ip_allowlist on proxied routes: per request (403 then 200 on one connection)"
t_run lab_client timeout 10 openssl s_client -connect "$R:443" -servername "pt-out.$D" </dev/null
[ "$T_RC" -ne 0 ] && ! grep -q 'Server certificate' <<<"$T_OUT" ||
	t_fail "passthrough, allowlist without the client: no handshake (the connection reset)" "$(t_seen)"
t_run lab_client timeout 10 openssl s_client -connect "$R:443" -servername "pt-in.$D" </dev/null
grep -q 'Server certificate' <<<"$T_OUT" ||
	t_fail "passthrough, allowlist with the client: nginx's certificate" "$(t_seen)"
t_ok "ip_allowlist on passthrough: refused client reset before any ServerHello, admitted one served"
after=$(refusals)
[ "$after" -ge $((before + 5)) ] ||
	t_fail "answers.source_not_allowed counts the refusals (5 at least)" "before $before, after $after"
t_ok "answers.source_not_allowed: $before -> $after"

# --- timeout ------------------------------------------------------------------------------
t0=$(date +%s%N)
get "http://slow.$D/slow/3"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "${T_OUT%% *}" = 504 ] && [ "$ms" -ge 900 ] && [ "$ms" -lt 2900 ] ||
	t_fail "timeout 1s, a backend 3 s slow: 504 after about 1 s" "after $ms ms; $(t_seen)"
t_ok "timeout 1s: 504 after $ms ms (the backend takes 3 s)"
get "http://patient.$D/slow/2"
[ "$T_OUT" = "200 slow" ] || t_fail "timeout 6s, a backend 2 s slow: 200" "$(t_seen)"
t_ok "timeout 6s: a backend 2 s slow answered (200)"

# --- hsts_header --------------------------------------------------------------------------
t_run lab_client curl -sS -m 10 -k --resolve "hsts.$D:443:$R" -D - -o /dev/null "https://hsts.$D/"
grep -qi '^Strict-Transport-Security: max-age=31536000;includeSubDomains;preload' <<<"$T_OUT" ||
	t_fail "hsts_header over TLS: the header as given" "$(t_seen)"
t_run lab_client curl -sS -m 10 --resolve "hsts.$D:80:$R" -D - -o /dev/null "http://hsts.$D/"
grep -q '^HTTP/1.1 200' <<<"$T_OUT" && ! grep -qi '^Strict-Transport-Security' <<<"$T_OUT" ||
	t_fail "hsts_header over plain HTTP (Allow): 200 without the header" "$(t_seen)"
t_ok "hsts_header: sent over TLS as given, never over plain HTTP"

# --- spec.httpHeaders.actions, rewrite-target -----------------------------------------------
t_run lab_client curl -sS -m 10 --resolve "headers.$D:80:$R" -D "$LAB_DIR/hdrs" -H 'X-Drop: 1' \
	-H 'X-Keep: 1' "http://headers.$D/api/x?q=1"
grep -q '^path: /echo/x?q=1' <<<"$T_OUT" || t_fail "rewrite-target /echo: /api/x?q=1 reaches the backend as /echo/x?q=1" "$(t_seen)"
grep -qi '^X-Env: prod' <<<"$T_OUT" && grep -qi '^X-Keep: 1' <<<"$T_OUT" && ! grep -qi '^X-Drop' <<<"$T_OUT" ||
	t_fail "request actions: X-Env set, X-Drop deleted, X-Keep untouched (as the backend saw them)" "$(t_seen)"
grep -qi '^X-Frame-Options: DENY' "$LAB_DIR/hdrs" && ! grep -qi '^Server:' "$LAB_DIR/hdrs" ||
	t_fail "response actions: X-Frame-Options set, the backend's Server deleted" "$(cat "$LAB_DIR/hdrs")"
t_ok "spec.httpHeaders.actions seen by the backend and the client; rewrite-target /api -> /echo"

# --- rate-limit-connections ---------------------------------------------------------------
before=$(rctl stats -o json >/dev/null; t_json "$T_OUT" 'd["total"]["answers"]["source_conn_limited"]')
# concurrent-tcp 2: two slow requests in flight, a third connection reset, then served again.
held=()
for k in 1 2; do
	lab_client curl -sS -m 10 --resolve "rl-conc.$D:80:$R" -o /dev/null "http://rl-conc.$D/slow/3" &
	held+=($!)
done
sleep 1
get "http://rl-conc.$D/"
[ "$T_RC" -ne 0 ] || t_fail "concurrent-tcp 2: a third connection while two are open is refused" "$(t_seen)"
wait "${held[@]}"
get "http://rl-conc.$D/"
[ "$T_OUT" = "200 pool-c" ] || t_fail "concurrent-tcp 2: served again once they closed" "$(t_seen)"
t_ok "rate-limit-connections.concurrent-tcp 2: the third concurrent connection refused, served again after"
# The same on a proxied route (a path rule), concurrent-tcp 1: counted from the first request
# until the connection ends, then the source's count is back (no leak across connections).
lab_client curl -sS -m 10 --resolve "rl-conc-px.$D:80:$R" -o /dev/null "http://rl-conc-px.$D/slow/3" &
held=$!
sleep 1
get "http://rl-conc-px.$D/slow/0"
[ "$T_RC" -ne 0 ] || t_fail "proxied, concurrent-tcp 1: a second connection while one is open is refused" "$(t_seen)"
wait "$held"
for k in 1 2 3; do
	get "http://rl-conc-px.$D/slow/0"
	[ "$T_OUT" = "200 slow" ] || t_fail "proxied, concurrent-tcp 1: connections one after another served ($k)" "$(t_seen)"
done
t_ok "rate-limit-connections.concurrent-tcp 1 on a proxied route: the second concurrent refused; one after another served"
# rate-tcp 3 (in 3 s): of six connections in a row, the first three served, the rest refused.
seen=
for k in 1 2 3 4 5 6; do
	get "http://rl-tcp.$D/"
	seen+="${T_OUT%% *} "
done
[ "$seen" = "200 200 200 000 000 000 " ] || t_fail "rate-tcp 3: three connections served, then refused" "codes: $seen"
t_ok "rate-limit-connections.rate-tcp 3: $seen"
# rate-http 5 (in 10 s): a burst of 8 requests on one keep-alive connection: 5 answered, then
# the connection closed.
t_run lab_client curl -sS -m 10 --resolve "rl-http.$D:80:$R" -w '%{http_code} ' \
	$(for k in 1 2 3 4 5 6 7 8; do printf -- '-o /dev/null http://rl-http.%s/ ' "$D"; done)
codes=$(grep -o '[0-9][0-9][0-9] ' <<<"$T_OUT" | tr -d '\n')
[ "${codes:0:20}" = "200 200 200 200 200 " ] && ! grep -q '200 200 200 200 200 200' <<<"$codes" ||
	t_fail "rate-http 5: a burst of 8 requests, 5 answered, then the connection closed" "codes: $codes; $(t_seen)"
t_ok "rate-limit-connections.rate-http 5: a burst of 8 requests: $codes"
after=$(rctl stats -o json >/dev/null; t_json "$T_OUT" 'd["total"]["answers"]["source_conn_limited"]')
[ "$after" -ge $((before + 5)) ] || t_fail "answers.source_conn_limited counts the refusals" "$before -> $after"
t_ok "answers.source_conn_limited: $before -> $after"

# --- pod-concurrent-connections ---------------------------------------------------------------
# 1 with one endpoint: while a slow request holds it, the next connection gets 503; after, 200.
lab_client curl -sS -m 10 --resolve "pod1.$D:80:$R" -o /dev/null "http://pod1.$D/slow/3" &
held=$!
sleep 1
get "http://pod1.$D/"
[ "${T_OUT%% *}" = 503 ] || t_fail "pod-concurrent-connections 1: a second connection while one is open gets 503" "$(t_seen)"
wait "$held"
get "http://pod1.$D/"
[ "$T_OUT" = "200 pool-c" ] || t_fail "pod-concurrent-connections 1: served again once the first closed" "$(t_seen)"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["lb_all_full"] >= 1' "lb_all_full counts the pick that found the endpoint full"
t_ok "pod-concurrent-connections 1: a second concurrent connection 503, served again after"

# --- timeout-tunnel on a spliced route ------------------------------------------------------
# keepalive HOST: one request, then 3.5 s idle, then another on the same connection; T_OUT
# how many of the two were answered. timeout-tunnel 2s forgets the connection meanwhile.
keepalive() {
	t_run lab_client /usr/bin/python3 - "$R" "$1" <<'PY'
import socket, sys, time
s = socket.create_connection((sys.argv[1], 80), timeout=3)
req = b"GET / HTTP/1.1\r\nHost: %s\r\n\r\n" % sys.argv[2].encode()
answered = 0
for k in range(2):
    if k:
        time.sleep(3.5)
    try:
        s.sendall(req)
        if b"HTTP/1.1 200" in s.recv(65536):
            answered += 1
    except OSError:
        pass
print(answered)
PY
}
keepalive "tt-none.$D"
[ "$T_OUT" = 2 ] || t_fail "a spliced keep-alive connection idle 3.5 s, default idle timeout: both answered" "$(t_seen)"
keepalive "tt.$D"
[ "$T_OUT" = 1 ] || t_fail "timeout-tunnel 2s: the connection idle 3.5 s is gone, the second request unanswered" "$(t_seen)"
t_ok "timeout-tunnel 2s on a spliced route: a connection idle 3.5 s is dropped (default: kept)"

# --- invalid values -------------------------------------------------------------------------
get "http://bad.$D/slow/2"
[ "$T_OUT" = "200 slow" ] || t_fail "invalid timeout and allowlist: not applied, the route served" "$(t_seen)"
rctl get route bad -n demo -o json
t_json_expect "$T_OUT" '[c["status"] for c in d["status"]["ingress"][0]["conditions"] if c["type"] == "Admitted"] == ["True"]' \
	"the route with invalid annotations is admitted"
msg=$(t_json "$T_OUT" '[c for c in d["status"]["ingress"][0]["conditions"] if c["type"] == "EdgePoliciesApplied"][0]["message"]')
grep -qF "$A/timeout: Invalid value: \"2x\"" <<<"$msg" &&
	grep -qF "$A/ip_allowlist: Invalid value: \"198.18.0.300\"" <<<"$msg" ||
	t_fail "status: EdgePoliciesApplied names each invalid annotation and its value" "$msg"
t_ok "invalid annotations: route served without them; status says: $msg"

t_finish
