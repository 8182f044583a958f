#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# lb_strategies: how new connections spread over a pool, by strategy, seen from the client
# namespace by which backend answers (nginx a, nginx b, pool_server c), 2,000 connections
# per case, one worker (round robin is exact per worker):
#   - OpenShift Route 80/20 (to a, alternateBackends b) with balance roundrobin: exactly
#     1,600 / 400; with balance random: 80% +- 4 points;
#   - Contour IngressRoute 1/1/1 over a, b, c, strategy RoundRobin: each 666 or 667;
#     strategy Random: each 33.3% +- 4 points;
#   - balance source: every connection from one client address to one backend; the default
#     of a passthrough route is source (resolve says so), of an edge/plain route random;
#     40 client addresses keep their backends across an unrelated change, and adding an
#     endpoint moves about a third of them, all to it;
#   - passive health: an endpoint that stops is tried away from (clients see 200s), ejected
#     after 5 failures in a row, and back after the ejection time once it runs again;
#   - sticky cookies on proxied vhosts: OpenShift's (default name, cookie_name,
#     disable_cookies) and Contour's Cookie strategy; a cookie outlives a weight change.
T_NAME=lb_strategies
source "$(dirname "$0")/testlib.sh"

t_setup lbs 1
t_start_routerd
MBUFS0=$(t_mbufs_in_use)
D=$LAB_DOMAIN
R=$LAB_ROUTER_IP
rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_backend_service c 8082 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8082

# route NAME HOST BALANCE: 80 to a, 20 to b (one endpoint each), host-only (spliced).
route() {
	cat <<YAML
---
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: $1
  namespace: demo
  annotations: {haproxy.router.openshift.io/balance: "$3"}
spec:
  host: $2
  to: {kind: Service, name: a, weight: 80}
  alternateBackends: [{kind: Service, name: b, weight: 20}]
  port: {targetPort: http}
YAML
}
# ir NAME HOST STRATEGY: 1/1/1 over a, b, c.
ir() {
	cat <<YAML
---
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: $1, namespace: demo}
spec:
  virtualhost: {fqdn: $2}
  strategy: $3
  routes:
  - match: /
    services: [{name: a, port: 80, weight: 1}, {name: b, port: 80, weight: 1}, {name: c, port: 8082, weight: 1}]
YAML
}
{
	route rr "rr.$D" roundrobin
	route rand "rand.$D" random
	route src "src.$D" source
	route plain "plain80.$D" ""
	ir ir-rr "ir-rr.$D" RoundRobin
	ir ir-rand "ir-rand.$D" Random
} | rctl apply -f -
t_expect_rc 0 "apply Routes (80/20: roundrobin, random, source, default) and IngressRoutes (1/1/1: RoundRobin, Random)"

# spread HOST N: N new connections (HTTP/1.0, one request each); prints {"a": .., "b": .., "c": ..}.
spread() {
	t_run lab_client python3 "$SY_SRC/tests/integration/spread.py" "$R" "$1" "$2"
	t_expect_rc 0 "$2 connections to $1"
	t_note "$1: $T_OUT"
}

for h in rr rand src plain80 ir-rr ir-rand; do
	rctl resolve "http://$h.$D/" -o json
	t_note "$h.$D: mode $(t_json "$T_OUT" 'd["mode"]'), strategy $(t_json "$T_OUT" 'd["strategy"]'), endpoints $(t_json "$T_OUT" '[(e["address"], e["port"], e["weight"]) for e in d["endpoints"]]')"
done
rctl resolve "http://rr.$D/" -o json
t_json_expect "$T_OUT" 'd["mode"] == "splice" and d["strategy"] == "round-robin"' "rr.$D: spliced, round robin"

spread "rr.$D" 2000
t_json_expect "$T_OUT" 'd == {"a": 1600, "b": 400}' "roundrobin 80/20 over 2,000 connections: exactly 1,600 / 400"
spread "rand.$D" 2000
t_json_expect "$T_OUT" 'set(d) == {"a", "b"} and abs(d["a"] / 2000 - 0.8) <= 0.04' "random 80/20 over 2,000 connections: a within 76-84%"
t_ok "OpenShift 80/20: round robin exact, random within 4 points"

spread "ir-rr.$D" 2000
t_json_expect "$T_OUT" 'set(d) == {"a", "b", "c"} and all(v in (666, 667) for v in d.values())' "RoundRobin 1/1/1 over 2,000 connections: 666 or 667 each"
spread "ir-rand.$D" 2000
t_json_expect "$T_OUT" 'set(d) == {"a", "b", "c"} and all(abs(v / 2000 - 1 / 3) <= 0.04 for v in d.values())' "Random 1/1/1 over 2,000 connections: each within 4 points of a third"
t_ok "Contour 1/1/1: RoundRobin exact to one connection, Random within 4 points"

spread "src.$D" 300
t_json_expect "$T_OUT" 'len(d) == 1 and sum(d.values()) == 300' "balance source: 300 connections from one client address, one backend"
spread "plain80.$D" 400
t_json_expect "$T_OUT" 'set(d) == {"a", "b"}' "no balance annotation on a plain route: random, both backends"
rctl resolve "http://plain80.$D/" -o json
t_json_expect "$T_OUT" 'd["strategy"].startswith("random")' "resolve: a plain route's default is random"
rctl resolve "https://a.passthrough.$D/" -o json
t_json_expect "$T_OUT" 'd["strategy"].startswith("source")' "resolve: a passthrough route's default is source"
t_ok "source affinity: one client, one backend; defaults: source for passthrough, random otherwise"

# Client-address affinity across configuration changes: 40 more client addresses, a
# balance-source Route 1:1 over a and b. An unrelated change (another Route) moves no
# client; adding c to the pool (1:1:1) moves about a third of them, every one to c (Maglev:
# one endpoint more moves about 1/N, none between the endpoints that stay).
for i in $(seq 100 139); do
	ip -n "$LAB_NS_CLIENT" addr add "198.18.0.$i/24" dev "$LAB_IF_CLIENT_PEER" ||
		t_fail "client address 198.18.0.$i" "ip addr add failed"
done
affinity_route() { # EXTRA-BACKENDS
	cat <<YAML
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: aff
  namespace: demo
  annotations: {haproxy.router.openshift.io/balance: source}
spec:
  host: aff.$D
  to: {kind: Service, name: a, weight: 1}
  alternateBackends: [{kind: Service, name: b, weight: 1}$1]
  port: {targetPort: http}
YAML
}
affinity_route "" | rctl apply -f -
t_expect_rc 0 "apply Route aff.$D: balance source, a and b 1:1"
t_run lab_client python3 "$SY_SRC/tests/integration/spread.py" "$R" "aff.$D" --sources 198.18.0.100 139
t_expect_rc 0 "40 client addresses to aff.$D"
m1=$T_OUT
t_json_expect "$m1" 'len(d) == 40 and set(d.values()) == {"a", "b"}' "40 clients over a and b"
route other "other.$D" random | rctl apply -f -
t_expect_rc 0 "an unrelated change: Route other.$D"
t_run lab_client python3 "$SY_SRC/tests/integration/spread.py" "$R" "aff.$D" --sources 198.18.0.100 139
t_json_expect "$T_OUT" 'd == '"$m1" "after an unrelated change every client reaches the same backend"
affinity_route ", {kind: Service, name: c, weight: 1}" | rctl apply -f -
t_expect_rc 0 "apply Route aff.$D with c added (1:1:1)"
t_run lab_client python3 "$SY_SRC/tests/integration/spread.py" "$R" "aff.$D" --sources 198.18.0.100 139
m3=$T_OUT
moved=$(python3 -c 'import json, sys; a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2]); m = [k for k in a if a[k] != b[k]]; print(len(m), all(b[k] == "c" for k in m))' "$m1" "$m3")
t_note "c added: $moved (clients moved, all to c)"
[ "${moved#* }" = True ] && [ "${moved% *}" -ge 6 ] && [ "${moved% *}" -le 22 ] ||
	t_fail "adding c moves about a third of the clients (6..22 of 40), all of them to c" "moved: $moved; before $m1; after $m3"
t_ok "source affinity survives configuration changes: none moved by an unrelated change, ${moved% *} of 40 to the added endpoint only"

# Passive health: a RoundRobin 1/1 pool over nginx a and a server of our own (d, port
# 8083). d stops: its connects are refused, each client still gets a's 200 (the router
# tries the next endpoint), and after 5 failures in a row d is ejected from the worker's
# picks: no more tries at it. d starts again: after the ejection (10 s) it is back.
t_backend_service d 8083 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8083
d_pid=$LAB_SPAWN_PID
ir ir-health "health.$D" RoundRobin | sed 's/{name: b, port: 80, weight: 1}, {name: c, port: 8082, weight: 1}/{name: d, port: 8083, weight: 1}/' |
	rctl apply -f -
t_expect_rc 0 "apply IngressRoute health.$D: RoundRobin over a and d"
spread "health.$D" 100
t_json_expect "$T_OUT" 'd == {"a": 50, "c": 50}' "both endpoints serve (d answers pool-c): 50 / 50"
kill "$d_pid" && wait "$d_pid" 2>/dev/null
rctl stats -o json
retries0=$(t_json "$T_OUT" 'd["total"]["backend_retries"]')
ej0=$(t_json "$T_OUT" 'd["total"]["lb_ejections"]')
spread "health.$D" 60
t_json_expect "$T_OUT" 'd == {"a": 60}' "d stopped: all 60 connections answered by a (no client sees the failure)"
rctl stats -o json
t_note "after d stopped: $(t_json "$T_OUT" '{k: d["total"][k] for k in ("backend_retries", "lb_ejections", "lb_ejected_avoided", "lb_panic_picks")}') (before: retries $retries0, ejections $ej0)"
t_json_expect "$T_OUT" 'd["total"]["lb_ejections"] == '"$ej0"' + 1' "d ejected once"
t_json_expect "$T_OUT" 'd["total"]["backend_retries"] - '"$retries0"' <= 6' \
	"after 5 refused connects d is not tried again (at most 6 retries for 60 connections)"
t_json_expect "$T_OUT" 'd["total"]["lb_ejected_avoided"] >= 20' "picks that skipped the ejected d are counted"
rctl get endpoints d -n demo -o json
t_note "get endpoints d: $(t_json "$T_OUT" 'd["status"]["backends"]')"
t_json_expect "$T_OUT" 'len(d["status"]["backends"]) == 1 and d["status"]["backends"][0]["connections"] >= 55 and {k: v for k, v in d["status"]["backends"][0].items() if k != "connections"} == {"ip": "'"$LAB_BACKEND_A_IP"'", "port": 8083, "open_connections": 0, "ejected": True, "ejected_workers": 1, "failures_in_a_row": 0, "requests": 0}' \
	"routerctl get endpoints d: ejected on the worker, nothing open"
t_backend_service d 8083 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8083
sleep 10.5
spread "health.$D" 100
t_json_expect "$T_OUT" 'set(d) == {"a", "c"} and d["c"] >= 40' "d running again, after the 10 s ejection: back in the rotation"
t_ok "passive health: a stopped endpoint is retried away from, ejected after 5 failures, back after the ejection time"

# Sticky sessions by cookie (proxied vhosts). sticky.$D: an OpenShift Route 50/50 over a and b
# with balance roundrobin and a second path rule (so it is proxied): a request without the
# cookie gets a Set-Cookie (an opaque name of the route, HttpOnly); with it, 20 requests on
# new connections all reach the same backend, also after the route's weights change.
# router.openshift.io/cookie_name names it; disable_cookies turns it off. A Contour
# IngressRoute with strategy Cookie is proxied and uses X-Contour-Session-Affinity.
sticky_route() { # NAME HOST WEIGHT-A WEIGHT-B [ANNOTATION]
	cat <<YAML
---
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: $1
  namespace: demo
  annotations: {haproxy.router.openshift.io/balance: roundrobin${5:+, $5}}
spec:
  host: $2
  to: {kind: Service, name: a, weight: $3}
  alternateBackends: [{kind: Service, name: b, weight: $4}]
  port: {targetPort: http}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: $1-api, namespace: demo}
spec:
  host: $2
  path: /api
  to: {kind: Service, name: a}
  port: {targetPort: http}
YAML
}
{
	sticky_route sticky "sticky.$D" 50 50
	sticky_route named "named.$D" 50 50 'router.openshift.io/cookie_name: my_session'
	sticky_route nocookie "nocookie.$D" 50 50 'haproxy.router.openshift.io/disable_cookies: "true"'
	ir ir-cookie "ir-cookie.$D" Cookie
} | rctl apply -f -
t_expect_rc 0 "apply routes sticky, named (cookie_name), nocookie (disable_cookies) and IngressRoute ir-cookie (strategy Cookie)"
# cookie_get HOST [COOKIE]: one request on a new connection; T_OUT: headers and body.
cookie_get() {
	t_run lab_client curl -s -i -m 5 -H "Host: $1" ${2:+-H "Cookie: $2"} "http://$R/"
}
cookie_get "sticky.$D"
t_expect_out '^HTTP/1.1 200' "sticky.$D: 200"
t_expect_out '^Set-Cookie: [0-9a-f]{32}=[0-9a-f]{16}; path=/; HttpOnly' "sticky.$D: a Set-Cookie named by the route, HttpOnly"
cookie=$(grep -i '^Set-Cookie:' <<<"$T_OUT" | sed 's/^[Ss]et-[Cc]ookie: //; s/;.*//' | tr -d '\r')
first=$(tail -n 1 <<<"$T_OUT" | tr -d '\r')
t_note "sticky.$D: cookie $cookie -> $first"
seen=""
for i in $(seq 20); do
	cookie_get "sticky.$D" "other=1; $cookie"
	seen="$seen $(tail -n 1 <<<"$T_OUT" | tr -d '\r')"
	grep -qi '^Set-Cookie:' <<<"$T_OUT" && t_fail "a request with a valid cookie gets no new one" "$T_OUT"
done
[ "$(tr ' ' '\n' <<<"$seen" | sort -u | grep -c .)" = 1 ] && [ "$(tr ' ' '\n' <<<"$seen" | grep -m1 .)" = "$first" ] ||
	t_fail "20 requests with the cookie reach $first only" "seen:$seen"
seen=""
for i in $(seq 10); do
	cookie_get "sticky.$D"
	seen="$seen $(tail -n 1 <<<"$T_OUT" | tr -d '\r')"
done
[ "$(tr ' ' '\n' <<<"$seen" | sort -u | grep -c .)" = 2 ] || t_fail "without the cookie: both backends (round robin)" "seen:$seen"
sticky_route sticky "sticky.$D" 70 30 | rctl apply -f -
t_expect_rc 0 "change sticky.$D's weights to 70/30"
for i in $(seq 10); do
	cookie_get "sticky.$D" "$cookie"
	[ "$(tail -n 1 <<<"$T_OUT" | tr -d '\r')" = "$first" ] || t_fail "after the weight change the cookie still reaches $first" "$T_OUT"
done
cookie_get "named.$D"
t_expect_out '^Set-Cookie: my_session=[0-9a-f]{16}; path=/; HttpOnly' "router.openshift.io/cookie_name: my_session"
cookie_get "nocookie.$D"
grep -qi '^Set-Cookie:' <<<"$T_OUT" && t_fail "disable_cookies: no Set-Cookie" "$T_OUT"
rctl resolve "http://ir-cookie.$D/" -o json
t_json_expect "$T_OUT" 'd["mode"] == "proxy"' "IngressRoute strategy Cookie: proxied (a cookie needs the proxy)"
cookie_get "ir-cookie.$D"
t_expect_out '^Set-Cookie: X-Contour-Session-Affinity=[0-9a-f]{16}' "Contour Cookie strategy: X-Contour-Session-Affinity"
cookie=$(grep -i '^Set-Cookie:' <<<"$T_OUT" | sed 's/^[Ss]et-[Cc]ookie: //; s/;.*//' | tr -d '\r')
first=$(tail -n 1 <<<"$T_OUT" | tr -d '\r')
for i in $(seq 10); do
	cookie_get "ir-cookie.$D" "$cookie"
	[ "$(tail -n 1 <<<"$T_OUT" | tr -d '\r')" = "$first" ] || t_fail "Contour: the cookie keeps reaching $first" "$T_OUT"
done
t_ok "cookie stickiness: OpenShift (default name, cookie_name, disable_cookies) and Contour Cookie; a cookie survives a weight change"

t_flows_zero 10 || t_fail "flows_active back to 0 after the run" "JSON: ${T_OUT:0:1500}"
t_mbufs_back "$MBUFS0" "after every connection of this test"

t_finish
