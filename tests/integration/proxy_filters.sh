#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# proxy_filters: Skipper's filters applied per request by the proxy mode, seen with curl at the
# client and by a backend that echoes what it received (pool_server.py under /echo):
# setPath and modPath (the query kept), setRequestHeader (replacing the client's), status()
# over a backend's answer, setResponseHeader (replacing the backend's) and responseCookie,
# ratelimit and clientRatelimit (429 with Retry-After past the rate, per client for the
# latter), status + inlineContent, redirectTo, a shunt backend, and a filter this router does
# not apply (503, never served unchanged). All on one RouteGroup, one keep-alive connection
# where it matters. Network backends named by host name (routerd gets its own /etc/hosts),
# https:// (TLS to nginx a's HTTPS, its certificate verified against tls.backend_ca for the
# URL's host: the right name 200, another name or a bare address 502) and a name that does
# not resolve (503, named by describe). Then
# the forwarded-header policies (append, replace, never, if-none) of OpenShift Routes'
# set-forwarded-headers annotation.
T_NAME=proxy_filters
source "$(dirname "$0")/testlib.sh"

t_setup pxf 1
D=lab.switchyard.test
# routerd's own /etc/hosts (tools/lib/lab.sh, LAB_HOSTS_FILE): names for backend a, one of
# them the name nginx a's certificate carries.
LAB_HOSTS_FILE=$LAB_DIR/hosts
printf '127.0.0.1 localhost\n%s be-a.lab.test a.passthrough.%s\n' "$LAB_BACKEND_A_IP" "$D" \
	>"$LAB_HOSTS_FILE"
# https:// URL backends are verified against tls.backend_ca: nginx a's self-signed
# certificate (for a.passthrough.$D, DNS name only).
python3 - "$LAB_ROUTERD_CONFIG" "$LAB_DIR/nginx-a/tls.crt" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.setdefault("tls", {})["backend_ca"] = sys.argv[2]
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
t_start_routerd

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"

# The echoing pool on backend a's address, port 8082.
t_backend_service c 8082 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8082

rctl apply -f - <<EOF
apiVersion: zalando.org/v1
kind: RouteGroup
metadata: {name: filters, namespace: demo}
spec:
  hosts: [filters.$D]
  backends:
  - {name: c, type: service, serviceName: c, servicePort: 8082}
  - {name: nowhere, type: shunt}
  - {name: again, type: loopback}
  defaultBackends: [{backendName: c}]
  routes:
  - pathSubtree: /
  - pathSubtree: /set
    filters: ['setPath("/echo/set-to")']
  - pathSubtree: /mod
    filters: ['modPath("^/mod/(\\\\w+)", "/echo/\$1")']
  - pathSubtree: /hdr
    filters: ['setRequestHeader("X-Test", "one")', 'appendRequestHeader("X-App", "route")', 'dropRequestHeader("X-Drop")', 'setPath("/echo")']
  - pathSubtree: /resp
    filters: ['status(203)', 'setResponseHeader("Content-Type", "text/x-switchyard")', 'setResponseHeader("X-Served-By", "switchyard")', 'responseCookie("canary", "A")', 'appendResponseHeader("X-Appended", "a1")', 'dropResponseHeader("Server")']
  - pathSubtree: /limited
    filters: ['ratelimit(3, "1m")']
  - pathSubtree: /client
    filters: ['clientRatelimit(2, "1h", "X-Client")']
  - pathSubtree: /inline
    filters: ['status(418)', 'inlineContent("teapot")']
  - pathSubtree: /redir
    filters: ['redirectTo(308, "https://example.test/new")']
  - pathSubtree: /shunt
    backends: [{backendName: nowhere}]
  - pathSubtree: /tee
    filters: ['tee("http://198.18.1.10:8080")']
  - pathSubtree: /old
    filters: ['modPath("^/old", "/new")', 'setResponseHeader("X-Chain", "outer")', 'setResponseHeader("X-Outer", "o")', 'responseCookie("outer", "1")', 'status(202)']
    backends: [{backendName: again}]
  - pathSubtree: /new
    filters: ['setPath("/echo/after-loopback")', 'setRequestHeader("X-Looped", "yes")', 'setResponseHeader("X-Chain", "inner")', 'setResponseHeader("X-Inner", "i")', 'responseCookie("inner", "1")', 'status(201)']
  - pathSubtree: /spin
    backends: [{backendName: again}]
  - pathSubtree: /qp
    filters: ['setPath("/echo/plain")']
  - pathSubtree: /qp
    predicates: ['QueryParam("canary", "^yes$")']
    filters: ['setPath("/echo/canary")']
EOF
t_expect_rc 0 "apply a RouteGroup with one route per filter"
rctl resolve "http://filters.$D/set/x" -o json
t_json_expect "$T_OUT" 'd["mode"] == "proxy"' "resolve: filters.$D is proxied"

get() { # get PATH [curl args]: status line, headers and body in T_OUT
	local path=$1
	shift
	t_run lab_client curl -s -i -m 10 -H "Host: filters.$D" "$@" "http://$LAB_ROUTER_IP$path"
}

get "/set/x?q=1"
t_expect_out '^HTTP/1.1 200' "setPath: 200"
t_expect_out '^path: /echo/set-to\?q=1' "setPath: the backend gets /echo/set-to, the query kept"
get "/mod/abc?z=2"
t_expect_out '^path: /echo/abc\?z=2' "modPath: ^/mod/(\\w+) -> /echo/\$1, the query kept"
t_ok "setPath and modPath rewrite the path the backend gets; the query stays"

# QueryParam("canary", "^yes$") on the data path: the parameter's raw value, the first of
# its name; no parameter, another value or the name inside another name: the other rule.
get "/qp?canary=yes"
t_expect_out '^path: /echo/canary\?canary=yes' "QueryParam: canary=yes takes the predicate's rule"
get "/qp?x=1&canary=yes&canary=no"
t_expect_out '^path: /echo/canary\?' "QueryParam: the first canary counts"
get "/qp?canary=no"
t_expect_out '^path: /echo/plain\?canary=no' "QueryParam: canary=no takes the plain rule"
get "/qp?notcanary=yes"
t_expect_out '^path: /echo/plain\?' "QueryParam: a longer name is another parameter"
get "/qp"
t_expect_out '^path: /echo/plain' "QueryParam: no query takes the plain rule"
t_ok "query parameter predicates choose the rule per request on the data path"

# A loopback backend: /old/x becomes /new/x (modPath) and is routed again, from the top:
# the /new route's filters apply (setPath, setRequestHeader) and its backend answers. On
# the way back both routes' response filters apply, /new's first and /old's after them
# (Skipper's order): /old's X-Chain and status win, each route's own header and cookie
# are there, /new's cookie first. A loopback route that changes nothing routes to itself:
# 500 after 9 rounds.
get "/old/x?k=v"
t_expect_out '^HTTP/1.1 202' "loopback: the outer route's status(202) over the inner's status(201)"
t_expect_out '^path: /echo/after-loopback\?k=v' "loopback: the /new route's setPath applied after /old's modPath"
t_expect_out '^X-Looped: yes' "loopback: the /new route's setRequestHeader applied"
t_expect_out '^X-Chain: outer' "loopback: the outer route's setResponseHeader has the last word"
[ "$(grep -ci '^X-Chain:' <<<"$T_OUT")" = 1 ] || t_fail "loopback: one X-Chain header" "$T_OUT"
t_expect_out '^X-Inner: i' "loopback: the inner route's own response header"
t_expect_out '^X-Outer: o' "loopback: the outer route's own response header"
[ "$(grep -i '^Set-Cookie:' <<<"$T_OUT" | cut -d= -f1 | tr -d '\r' | tr '\n' ' ')" = "Set-Cookie: inner Set-Cookie: outer " ] ||
	t_fail "loopback: both routes' cookies, the inner's first" "$T_OUT"
get "/spin"
t_expect_out '^HTTP/1.1 500 ' "a loopback route that loops: 500"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["proxy_loopbacks"] >= 10 and d["total"]["answers"]["loopback_limit"] == 1' \
	"loopback rounds and the loop limit are counted"
t_ok "loopback backends: the changed request is routed again, every route's response filters apply (outer last); a loop ends in 500 after 9 rounds"

# Backends given as URLs with host names, resolved by the control thread when the pool is
# built: be-a.lab.test (routerd's hosts file) serves; https:// goes over TLS, verified for
# the URL's host (a.passthrough.$D: nginx a's certificate, 200; be-a.lab.test, same
# address, and the bare address: not that certificate's names, 502 backend_tls_failed);
# a name that does not resolve leaves no
# endpoint (503), and resolve and `routerctl describe` (the group's status) name the lookup
# that failed with the resolver's words. A group whose only rule is "/" to a host name is
# spliced: once resolved, the name is just an address.
rctl apply -f - <<EOF
apiVersion: zalando.org/v1
kind: RouteGroup
metadata: {name: named, namespace: demo}
spec:
  hosts: [named.$D]
  backends:
  - {name: byname, type: network, address: "http://be-a.lab.test:8082"}
  - {name: tls, type: network, address: "https://a.passthrough.$D"}
  - {name: tls-other-name, type: network, address: "https://be-a.lab.test:443"}
  - {name: tls-address, type: network, address: "https://$LAB_BACKEND_A_IP"}
  - {name: gone, type: network, address: "http://nowhere.invalid"}
  defaultBackends: [{backendName: byname}]
  routes:
  - pathSubtree: /
  - pathSubtree: /tls
    backends: [{backendName: tls}]
  - pathSubtree: /other-name
    backends: [{backendName: tls-other-name}]
  - pathSubtree: /address
    backends: [{backendName: tls-address}]
  - pathSubtree: /gone
    backends: [{backendName: gone}]
---
apiVersion: zalando.org/v1
kind: RouteGroup
metadata: {name: named-splice, namespace: demo}
spec:
  hosts: [named-splice.$D]
  backends:
  - {name: byname, type: network, address: "http://be-a.lab.test:8082"}
  defaultBackends: [{backendName: byname}]
EOF
t_expect_rc 0 "apply RouteGroups with host-name and https backends"
t_run lab_client curl -s -i -m 10 -H "Host: named.$D" "http://$LAB_ROUTER_IP/"
t_expect_out '^HTTP/1.1 200' "a host-name backend serves"
t_expect_out '^pool-c' "be-a.lab.test:8082 is backend a's pool c"
rctl resolve "http://named.$D/" -o json
t_json_expect "$T_OUT" '[(e["address"], e["port"]) for e in d["endpoints"]] == [("'"$LAB_BACKEND_A_IP"'", 8082)]' "resolve: be-a.lab.test resolved to backend a"
rctl resolve "http://named-splice.$D/" -o json
t_json_expect "$T_OUT" 'd["mode"] == "splice" and [(e["address"], e["port"]) for e in d["endpoints"]] == [("'"$LAB_BACKEND_A_IP"'", 8082)]' \
	"resolve: a host-name backend on its own is spliced"
t_run lab_client curl -s -i -m 10 -H "Host: named-splice.$D" "http://$LAB_ROUTER_IP/"
t_expect_out '^HTTP/1.1 200' "the spliced host-name backend serves"
t_expect_out '^pool-c' "spliced to backend a's pool c"
rctl stats -o json
hs_before=$(t_json "$T_OUT" 'd["total"]["tls_backend_handshakes"]')
t_run lab_client curl -s -i -m 10 -H "Host: named.$D" "http://$LAB_ROUTER_IP/tls"
t_expect_out '^HTTP/1.1 200' "an https:// backend: 200 over TLS"
t_expect_out '^backend-a' "the body comes from nginx a's HTTPS"
t_expect_out '^X-Backend: a' "nginx a answered"
grep -q "\"GET /tls HTTP/1.1\"" "$LAB_DIR/nginx-a/access.log" ||
	t_fail "nginx a logged the request" "$(tail -n 3 "$LAB_DIR/nginx-a/access.log")"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["tls_backend_handshakes"] == '"$hs_before"' + 1' \
	"one TLS handshake towards the backend, counted"
rctl resolve "http://named.$D/tls" -o json
t_json_expect "$T_OUT" 'd["status"] is None and d["mode"] == "proxy"' "resolve: served, in the proxy mode"
t_json_expect "$T_OUT" '[(e["address"], e["port"], e.get("tls"), e.get("tls_name")) for e in d["endpoints"]] == [("'"$LAB_BACKEND_A_IP"'", 443, True, "a.passthrough.'"$D"'")]' \
	"resolve: the https endpoint, marked tls, verified for the URL's host"
rctl stats -o json
fail_before=$(t_json "$T_OUT" 'd["total"]["answers"]["backend_tls_failed"]')
for what in other-name address; do
	t_run lab_client curl -s -i -m 10 -H "Host: named.$D" "http://$LAB_ROUTER_IP/$what"
	t_expect_out '^HTTP/1.1 502' "https:// backend whose certificate does not name the URL's host ($what): 502"
done
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["answers"]["backend_tls_failed"] == '"$fail_before"' + 2' \
	"both 502s are counted as backend_tls_failed"
t_run lab_client curl -s -i -m 10 -H "Host: named.$D" "http://$LAB_ROUTER_IP/gone"
t_expect_out '^HTTP/1.1 503' "a name that does not resolve: 503"
rctl resolve "http://named.$D/gone" -o json
t_json_expect "$T_OUT" '"the host name nowhere.invalid did not resolve" in d["reason"] and d["status"] == 503' \
	"resolve names the lookup that failed"
rctl describe routegroup named -n demo
t_expect_rc 0 "describe routegroup named"
t_expect_out 'backendErrors' "describe: the status lists the backends not served"
t_expect_out 'http://nowhere.invalid: the host name nowhere.invalid did not resolve: [A-Za-z]' \
	"describe: the failed name with the resolver's words"
if grep -Eq 'https://[^ ]*: .*(requests for it get 503|adds no endpoint)' <<<"$T_OUT"; then
	t_fail "describe: https backends are served, not listed in backendErrors" "$T_OUT"
fi
t_ok "host-name backends resolved at compile time (spliced when nothing else needs the proxy); https over TLS verified for the URL's host (200; another name 502); an unresolved name 503, named by resolve and describe"

get "/hdr" -H "X-Test: zero" -H "X-App: client" -H "X-Drop: 1"
t_expect_out '^path: /echo$' "setRequestHeader route: setPath too"
t_expect_out '^X-Test: one' "setRequestHeader: the backend gets X-Test: one"
grep -q '^X-Test: zero' <<<"$T_OUT" &&
	t_fail "setRequestHeader replaces the client's header" "seen: $(t_seen)"
[ "$(printf '%s\n' "$T_OUT" | grep -c '^X-Forwarded-For:')" = 1 ] ||
	t_fail "a rewritten head still gets the forwarded headers once" "seen: $(t_seen)"
t_expect_out '^X-App: client' "appendRequestHeader keeps the client's X-App"
t_expect_out '^X-App: route' "appendRequestHeader adds X-App: route beside it"
grep -qi '^X-Drop:' <<<"$T_OUT" && t_fail "dropRequestHeader: X-Drop does not reach the backend" "seen: $(t_seen)"
t_ok "setRequestHeader replaces the client's header, appendRequestHeader adds beside it, dropRequestHeader drops; forwarded headers still added"

get "/resp"
t_expect_out '^HTTP/1.1 203 ' "status(203) over the backend's 200"
t_expect_out '^X-Served-By: switchyard' "setResponseHeader adds X-Served-By"
t_expect_out '^Set-Cookie: canary=A; Path=/' "responseCookie sets canary=A"
[ "$(printf '%s\n' "$T_OUT" | grep -ci '^Content-Type:')" = 1 ] &&
	grep -q '^Content-Type: text/x-switchyard' <<<"$T_OUT" ||
	t_fail "setResponseHeader replaces the backend's Content-Type" "seen: $(t_seen)"
t_expect_out '^pool-c' "the body is the backend's"
t_expect_out '^X-Appended: a1' "appendResponseHeader adds X-Appended"
grep -qi '^Server:' <<<"$T_OUT" && t_fail "dropResponseHeader drops the backend's Server" "seen: $(t_seen)"
t_ok "status(), setResponseHeader (added and replacing), appendResponseHeader, dropResponseHeader and responseCookie on the backend's response"

# ratelimit(3, "1m"): five requests on one connection, the last two get 429.
five=()
for _ in 1 2 3 4 5; do five+=(-o /dev/null "http://$LAB_ROUTER_IP/limited"); done
t_run lab_client curl -s -m 10 -H "Host: filters.$D" -w '%{http_code} %{num_connects}\n' "${five[@]}"
[ "$(printf '%s' "$T_OUT" | tr '\n' ' ')" = "200 1 200 0 200 0 429 0 429 0" ] ||
	t_fail "ratelimit(3, 1m): three 200, then 429, on one connection" "seen: $(t_seen)"
get "/limited"
t_expect_out '^HTTP/1.1 429 ' "ratelimit: still 429 on a new connection"
t_expect_out '^Retry-After: [0-9]+' "429 says Retry-After"
t_ok "ratelimit(3, \"1m\"): three requests pass, the next ones get 429 with Retry-After"

codes=""
for who in alice alice alice bob; do
	get "/client" -H "X-Client: $who"
	codes="$codes$(printf '%s' "$T_OUT" | head -n 1 | cut -d' ' -f2) "
done
[ "$codes" = "200 200 429 200 " ] ||
	t_fail "clientRatelimit(2, 1h, X-Client): alice 200 200 429, bob 200" "seen: $codes"
t_ok "clientRatelimit(2, \"1h\", \"X-Client\"): counted per client (alice limited, bob not)"

get "/inline"
t_expect_out '^HTTP/1.1 418 ' "status(418) + inlineContent: 418"
t_expect_out '^teapot$' "inlineContent's body"
get "/redir"
t_expect_out '^HTTP/1.1 308 ' "redirectTo(308, ...): 308"
t_expect_out '^Location: https://example.test/new' "redirectTo's Location"
get "/shunt"
t_expect_out '^HTTP/1.1 404 ' "a shunt backend without status(): 404"
t_ok "inlineContent with status, redirectTo and a shunt backend answered by the router"

# Forwarded-header policies (the OpenShift annotation haproxy.router.openshift.io/
# set-forwarded-headers; the config's forwarded_headers, append by default, for the rest):
# the client sends its own X-Forwarded-For; the echoing backend says what it got.
policy_route() { # policy_route NAME PATH [POLICY]
	local ann=""
	[ -n "${3:-}" ] && ann="annotations: {haproxy.router.openshift.io/set-forwarded-headers: $3}"
	cat <<EOF
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: $1, namespace: demo, $ann}
spec: {host: fwd.$D, path: $2, to: {kind: Service, name: c}, port: {targetPort: http}}
EOF
}
{
	policy_route fwd-append /echo-append
	policy_route fwd-replace /echo-replace replace
	policy_route fwd-never /echo-never never
	policy_route fwd-ifnone /echo-ifnone if-none
} | rctl apply -f -
t_expect_rc 0 "apply four routes on fwd.$D, one per forwarded-header policy"
xff() { # xff PATH [curl args]: the X-Forwarded-For values the backend got, space-separated
	t_run lab_client curl -s -m 10 -H "Host: fwd.$D" "$@" "http://$LAB_ROUTER_IP$1"
	printf '%s\n' "$T_OUT" | sed -n 's/^X-Forwarded-For: //p' | tr -d '\r' | tr '\n' ' '
}
theirs=(-H "X-Forwarded-For: 198.18.9.9")
[ "$(xff /echo-append "${theirs[@]}")" = "198.18.9.9 $LAB_CLIENT_IP " ] ||
	t_fail "append: the client's X-Forwarded-For, then ours" "seen: $(t_seen)"
[ "$(xff /echo-replace "${theirs[@]}")" = "$LAB_CLIENT_IP " ] ||
	t_fail "replace: only ours" "seen: $(t_seen)"
[ "$(xff /echo-never "${theirs[@]}")" = "198.18.9.9 " ] ||
	t_fail "never: only the client's" "seen: $(t_seen)"
grep -q '^Forwarded:' <<<"$T_OUT" && t_fail "never: no Forwarded header added" "seen: $(t_seen)"
[ "$(xff /echo-ifnone "${theirs[@]}")" = "198.18.9.9 " ] ||
	t_fail "if-none: the client's, ours not added" "seen: $(t_seen)"
[ "$(xff /echo-ifnone)" = "$LAB_CLIENT_IP " ] ||
	t_fail "if-none without the client's: ours" "seen: $(t_seen)"
t_ok "forwarded-header policies by route annotation: append, replace, never, if-none"

get "/tee"
t_expect_out '^HTTP/1.1 503 ' "a filter the router does not apply (tee): 503, not served unchanged"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["answers"]["rate_limited"] >= 4 and d["total"]["answers"]["needs_proxy_mode"] >= 1' \
	"answer counters: rate_limited, needs_proxy_mode"
t_ok "tee (not applied here): 503 needs_proxy_mode; answers counted (rate_limited, needs_proxy_mode)"

t_finish
