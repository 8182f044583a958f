#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# backend6: IPv6 backends through routerd (issue 36), with real peers. The backend namespace
# gets IPv6 addresses in 2001:2:1::/64 (no DAD) on its link to the router, routerd's port
# "backend" gets 2001:2:1::1/64 (its source address toward them), the client port
# 2001:2::1/64 as in tcp6.sh; backends of our own (pool_server.py) listen on the IPv6
# addresses only. With curl -4 (an IPv4 client: translated to IPv6 on the backend leg) and
# curl -6 (IPv6 on both legs):
#   - an OpenShift Route with one rule (spliced) and one with path rules (proxied) to a
#     Service whose Endpoints address is IPv6: the right backend answers, the backend sees
#     the router's IPv6 address (2001:2:1::1) as its peer, the proxy's forwarded headers name
#     the client of either family; one keep-alive connection routed to an IPv6 backend, a
#     second IPv6 backend and an IPv4 one; 4 MB downloads intact (sha256); 40 connections in
#     a row per family;
#   - a Skipper RouteGroup network backend http://[2001:2:1::11]:8080, and an lb backend whose
#     IPv6 literals are written long-hand (resolve prints them in RFC 5952 form);
#   - get endpoints shows the IPv6 endpoint, the access log the backend as [ADDR]:PORT
#     (spliced and proxied, both client families), routerctl conns a held spliced
#     connection's backend as [ADDR]:PORT;
#   - stats: no ipv6_no_route, ipv6_tcp_not_served or tcp_bad_checksum drop, flows back to 0,
#     packet buffers back;
#   - last, a Contour IngressRoute with an active health check on its one IPv6 endpoint
#     (lb_all_ejected "fail": no healthy endpoint is a 503): healthy (get endpoints, metrics
#     endpoint="[ADDR]:PORT"); the server stopped by its PID -> unhealthy, 503 to both
#     families; started again -> healthy, answered. Every wait bounded (8 s, 15 s).
# A test of its own rather than more of tcp6.sh: its routerd config differs (the backend
# port's IPv6 address, lb_all_ejected), it needs backends tcp6.sh does not start, and it can
# run (and fail) on its own while tcp6.sh keeps covering IPv6 clients with IPv4 backends.
# Lab addresses: 198.18.0.0/15 and 2001:2::/48 only; no route out of any namespace.
T_NAME=backend6
source "$(dirname "$0")/testlib.sh"

for c in curl python3 sha256sum; do
	command -v "$c" >/dev/null || t_skip_all "$c is not installed"
done

R4=$LAB_ROUTER_IP      # routerd, port "client", IPv4
R6=2001:2::1           # routerd, port "client", IPv6
C6=2001:2::2           # the client namespace
RB6=2001:2:1::1        # routerd, port "backend", IPv6: its source address toward the backends
B6A=2001:2:1::10       # pool6-a
B6B=2001:2:1::11       # pool6-b
B6H=2001:2:1::12       # pool6-h, health checked
D=$LAB_DOMAIN
POOL=$SY_SRC/tests/integration/pool_server.py

t_setup b6 1
ALOG=$LAB_DIR/access.log
python3 - "$LAB_ROUTERD_CONFIG" "$R6" "$RB6" "$ALOG" <<'PY' || t_fail "setup" "cannot give the ports IPv6 addresses"
import json, sys
p, client6, backend6, alog = sys.argv[1:5]
c = json.load(open(p))
for port in c["ports"]:
    port["ipv6"] = [(client6 if port["name"] == "client" else backend6) + "/64"]
c.setdefault("listen", {})["addresses"] = []
c["access_log"] = {"to": alog, "format": "json"}
# A pool whose every endpoint is unhealthy answers 503 (not panic: one used anyway).
c["lb_all_ejected"] = "fail"
json.dump(c, open(p, "w"), indent=1)
PY
t_start_routerd
MBUFS0=$(t_mbufs_in_use)

# Both namespace ends: IPv6 on, no duplicate address detection, lab addresses only.
lab_ipv6 client "$C6/64"
lab_ipv6 backend "$B6A/64" "$B6B/64" "$B6H/64"
t_run lab_backend ip -6 route show default
[ -z "$T_OUT" ] || t_fail "no default IPv6 route in $LAB_NS_BACKEND" "$(t_seen)"
t_run lab_backend ip -6 addr show dev "$LAB_IF_BACKEND_PEER" scope global
for a in "$B6A" "$B6B" "$B6H"; do
	grep -q "inet6 $a/64 scope global" <<<"$T_OUT" && ! grep -q "$a/64.*tentative" <<<"$T_OUT" ||
		t_fail "$a/64 on $LAB_IF_BACKEND_PEER, not tentative" "$(t_seen)"
done
t_ok "backend namespace: $B6A, $B6B, $B6H /64 on $LAB_IF_BACKEND_PEER (nodad), no default route; client $C6/64"

# The router's backend-side IPv6 address answers neighbour discovery and echo.
t_run lab_backend ping -6 -c 3 -i 0.2 -W 2 "$RB6"
t_expect_rc 0 "ping -6 $RB6 (routerd's backend port) from $LAB_NS_BACKEND"
t_expect_out ' 0% packet loss' "ping -6 $RB6: 0% loss"
t_ok "ping -6 $RB6 from the backend namespace: 3/3 replies"

# --- helpers -------------------------------------------------------------------------------
# why: the drops routerd counted so far, for failure messages.
why() {
	"$ROUTERCTL" -s "$LAB_SOCKET" stats -o json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)["total"]["drops"]
print("routerd drops so far: %s" % {k: v for k, v in d.items() if v})' 2>/dev/null || echo "routerd: no stats"
}
# server6 NAME ADDR PORT [HEALTH_FILE]: pool_server.py NAME on [ADDR]:PORT in the backend
# namespace (answers "NAME"), waited for (5 s); SERVER_PID its PID.
server6() {
	lab_spawn backend "$1" python3 "$POOL" "$2" "$3" "$1" ${4:+"$4"} ||
		t_fail "start $1 on [$2]:$3"
	SERVER_PID=$LAB_SPAWN_PID
	for _ in $(seq 50); do
		lab_backend python3 -c "import socket; socket.create_connection(('$2', $3), 1)" \
			2>/dev/null && return 0
		sy_pid_alive "$SERVER_PID" || break
		sleep 0.1
	done
	t_fail "$1 listens on [$2]:$3 within 5 s" "$(cat "$LAB_DIR/$1.log" 2>/dev/null)"
}
# service6 NAME ADDR PORT: Service and Endpoints NAME (namespace demo), one IPv6 address.
service6() {
	rctl apply -f - <<EOF
apiVersion: v1
kind: Service
metadata: {name: $1, namespace: demo}
spec: {ports: [{name: http, port: $3, targetPort: $3}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: $1, namespace: demo}
subsets: [{addresses: [{ip: "$2"}], ports: [{name: http, port: $3}]}]
EOF
	t_expect_rc 0 "apply Service and Endpoints $1 -> [$2]:$3"
}
# cl 4|6 CURL-ARGS... URL-PATH: curl from the client namespace to the router over IPv4 or
# IPv6, 10 s at most, through t_run.
router_of() { if [ "$1" = 4 ]; then echo "$R4"; else echo "[$R6]"; fi; }
# get 4|6 HOST PATH [curl args]: T_OUT the body, CODE the status.
get() {
	local fam=$1 host=$2 path=$3
	shift 3
	t_run lab_client curl "-$fam" -g -sS --max-time 10 -H "Host: $host" -o - -w '\n%{http_code}' \
		"$@" "http://$(router_of "$fam")$path"
	CODE=$(tail -n 1 <<<"$T_OUT")
	T_OUT=$(sed '$d' <<<"$T_OUT")
}
expect_body() { # 4|6 HOST PATH BODY WHAT
	get "$1" "$2" "$3"
	[ "$T_RC" -eq 0 ] && [ "$CODE" = 200 ] && [ "$T_OUT" = "$4" ] ||
		t_fail "$5: curl -$1 http://$(router_of "$1")$3 (Host: $2) answers 200 '$4'" \
			"seen: code ${CODE:-none}; $(t_seen)" "$(why)"
}
expect_code() { # 4|6 HOST PATH CODE WHAT
	get "$1" "$2" "$3"
	[ "$CODE" = "$4" ] ||
		t_fail "$5: curl -$1 http://$(router_of "$1")$3 (Host: $2) answers $4" \
			"seen: code ${CODE:-none}; $(t_seen)" "$(why)"
}
client_of() { if [ "$1" = 4 ]; then echo "$LAB_CLIENT_IP"; else echo "$C6"; fi; }
# Failures that do not stop the test (what operators read, checked after the traffic):
# reported as "not ok" at once, the test fails at its end.
LATE_FAILS=0
t_fail_later() {
	T_NUM=$((T_NUM + 1))
	printf 'not ok %d - %s\n' "$T_NUM" "$1"
	shift
	local l
	for l in "$@"; do printf '#   %s\n' "$l"; done
	LATE_FAILS=$((LATE_FAILS + 1))
}

# --- backends and routes -------------------------------------------------------------------
server6 pool6-a "$B6A" 8080
server6 pool6-b "$B6B" 8080
t_run lab_backend curl -6 -g -sS --max-time 3 "http://[$B6A]:8080/"
[ "$T_OUT" = pool6-a ] || t_fail "pool6-a answers on [$B6A]:8080 in its namespace" "$(t_seen)"
service6 v6a "$B6A" 8080
service6 v6b "$B6B" 8080
{
	lab_service_a_yaml
	cat <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: sp6, namespace: demo}
spec: {host: sp6.$D, to: {kind: Service, name: v6a}, port: {targetPort: http}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: px6, namespace: demo}
spec: {host: px6.$D, to: {kind: Service, name: v6a}, port: {targetPort: http}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: px6-b, namespace: demo}
spec: {host: px6.$D, path: /b, to: {kind: Service, name: v6b}, port: {targetPort: http}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: px6-v4, namespace: demo}
spec: {host: px6.$D, path: /v4, to: {kind: Service, name: a}, port: {targetPort: http}}
EOF
} | rctl apply -f -
t_expect_rc 0 "apply Routes sp6 (-> v6a, one rule) and px6 (/ -> v6a, /b -> v6b, /v4 -> a)"
rctl resolve "http://sp6.$D/" -o json
t_json_expect "$T_OUT" 'd["mode"] == "splice" and [(e["address"], e["port"]) for e in d["endpoints"]] == [("'"$B6A"'", 8080)]' \
	"resolve sp6.$D: spliced, to [$B6A]:8080"
rctl resolve "http://px6.$D/" -o json
t_json_expect "$T_OUT" 'd["mode"] == "proxy" and [(e["address"], e["port"]) for e in d["endpoints"]] == [("'"$B6A"'", 8080)]' \
	"resolve px6.$D/: proxied, to [$B6A]:8080"
rctl resolve "http://px6.$D/b/x" -o json
t_json_expect "$T_OUT" 'd["mode"] == "proxy" and [(e["address"], e["port"]) for e in d["endpoints"]] == [("'"$B6B"'", 8080)]' \
	"resolve px6.$D/b/x: proxied, to [$B6B]:8080"
t_ok "routes: sp6.$D spliced to [$B6A]:8080; px6.$D proxied, / -> [$B6A]:8080, /b -> [$B6B]:8080 (routerctl resolve)"

# --- 1. spliced to an IPv6 backend, from IPv4 and IPv6 clients -----------------------------
for fam in 4 6; do
	expect_body "$fam" "sp6.$D" / pool6-a "spliced (IPv$fam client) to an IPv6 backend"
	expect_body "$fam" "sp6.$D" /peer "$RB6" "spliced (IPv$fam client): the backend's peer is routerd's IPv6 address"
	# Spliced: no forwarded headers, the request as the client sent it.
	get "$fam" "sp6.$D" /echo/s
	hdrs=$(tr -d '\r' <<<"$T_OUT")
	[ "$CODE" = 200 ] && grep -qFx "path: /echo/s" <<<"$hdrs" && grep -qFx "Host: sp6.$D" <<<"$hdrs" &&
		! grep -qi '^x-forwarded-for' <<<"$hdrs" ||
		t_fail "spliced (IPv$fam client): the backend got the client's request unchanged" "$(t_seen)"
done
t_ok "spliced to [$B6A]:8080 from curl -4 and curl -6: pool6-a answers, its peer is $RB6, the request unchanged"

# --- 2. proxied to IPv6 backends, from IPv4 and IPv6 clients -------------------------------
for fam in 4 6; do
	expect_body "$fam" "px6.$D" / pool6-a "proxied (IPv$fam client) to an IPv6 backend"
	expect_body "$fam" "px6.$D" /b/x pool6-b "proxied (IPv$fam client), path /b, to the second IPv6 backend"
	expect_body "$fam" "px6.$D" /peer "$RB6" "proxied (IPv$fam client): the backend's peer is routerd's IPv6 address"
	cip=$(client_of "$fam")
	[ "$fam" = 4 ] && ffor=$cip || ffor="\"[$cip]\""
	get "$fam" "px6.$D" /echo
	hdrs=$(tr -d '\r' <<<"$T_OUT")
	grep -qFx "X-Forwarded-For: $cip" <<<"$hdrs" &&
		grep -qFx "Forwarded: for=$ffor;host=px6.$D;proto=http" <<<"$hdrs" ||
		t_fail "proxied (IPv$fam client): the IPv6 backend saw X-Forwarded-For: $cip, Forwarded: for=$ffor;host=px6.$D;proto=http" \
			"$(t_seen)"
	# One keep-alive connection: an IPv6 backend, the other IPv6 backend, an IPv4 backend.
	t_run lab_client curl "-$fam" -g -sS --max-time 10 -H "Host: px6.$D" -w '\n@@ %{http_code} %{num_connects}\n' \
		"http://$(router_of "$fam")/" "http://$(router_of "$fam")/b/1" "http://$(router_of "$fam")/v4/1" \
		"http://$(router_of "$fam")/b/2"
	seen=$(grep -v '^$' <<<"$T_OUT" | tr '\n' ' ')
	[ "$T_RC" -eq 0 ] && [ "$seen" = "pool6-a @@ 200 1 pool6-b @@ 200 0 backend-a @@ 200 0 pool6-b @@ 200 0 " ] ||
		t_fail "proxied (IPv$fam client): /, /b/1, /v4/1, /b/2 on ONE connection reach pool6-a, pool6-b, backend-a (IPv4), pool6-b" \
			"seen: $seen" "$(t_seen)" "$(why)"
done
t_ok "proxied to [$B6A]:8080 and [$B6B]:8080 from curl -4 and curl -6: right backends, peer $RB6, forwarded headers for $LAB_CLIENT_IP and \"[$C6]\", one keep-alive connection across IPv6 and IPv4 backends"

# --- 3. 4 MB down from an IPv6 backend, intact ---------------------------------------------
N=4194304
want=$(python3 -c "import random, hashlib; print(hashlib.sha256(random.Random($N).randbytes($N)).hexdigest())")
for fam in 4 6; do
	for host in sp6 px6; do
		t_run lab_client sh -c "curl -$fam -g -sS --max-time 60 -H 'Host: $host.$D' 'http://$(router_of "$fam")/blob/$N' | sha256sum"
		[ "$T_RC" -eq 0 ] && [ "${T_OUT%% *}" = "$want" ] ||
			t_fail "4 MB from [$B6A]:8080 through $host.$D (IPv$fam client) arrives intact" "want sha256 $want" "$(t_seen)" "$(why)"
	done
done
t_ok "4 MB downloads from an IPv6 backend, spliced and proxied, IPv4 and IPv6 clients: sha256 matches"

# --- 4. 40 connections in a row per client family (Connection: close) ----------------------
for fam in 4 6; do
	t_run lab_client bash -c '
deadline=$((SECONDS + 60)) n=0 ok=0 bad=
for i in $(seq 40); do
	[ "$SECONDS" -lt "$deadline" ] || break
	n=$((n + 1))
	if [ $((i % 2)) -eq 1 ]; then host=sp6 path=/c$i want=pool6-a; else host=px6 path=/b/c$i want=pool6-b; fi
	body=$(curl -'"$fam"' -g -s --max-time 5 -H "Connection: close" -H "Host: $host.'"$D"'" "http://'"$(router_of "$fam")"'$path")
	if [ "$body" = "$want" ]; then ok=$((ok + 1)); else bad="$bad $i:$host:${body:0:40}"; fi
done
echo "$n $ok"
[ -z "$bad" ] || echo "failed:$bad" | head -c 2000 >&2'
	[ "$T_OUT" = "40 40" ] ||
		t_fail "40 connections in a row (IPv$fam client), spliced and proxied alternately to IPv6 backends, all answered right" \
			"tried, answered right: $T_OUT" "$(t_seen)" "$(why)"
done
t_ok "40 connections in a row from each client family (Connection: close), spliced and proxied to IPv6 backends: all answered right"

# --- 5. Skipper RouteGroup backends with IPv6 literals -------------------------------------
rctl apply -f - <<EOF
apiVersion: zalando.org/v1
kind: RouteGroup
metadata: {name: rg6-net, namespace: demo}
spec:
  hosts: [rg6-net.$D]
  backends:
  - {name: origin, type: network, address: "http://[$B6B]:8080"}
  defaultBackends: [{backendName: origin}]
---
apiVersion: zalando.org/v1
kind: RouteGroup
metadata: {name: rg6-lb, namespace: demo}
spec:
  hosts: [rg6-lb.$D]
  backends:
  - name: both
    type: lb
    algorithm: roundRobin
    endpoints: ["http://[2001:2:1:0:0:0:0:10]:8080", "http://[2001:0002:0001::0011]:8080"]
  defaultBackends: [{backendName: both}]
EOF
t_expect_rc 0 "apply RouteGroups rg6-net (network http://[$B6B]:8080) and rg6-lb (lb, long-hand IPv6 literals)"
rctl resolve "http://rg6-net.$D/"
t_expect_out "backend: +network http://\\[$B6B\\]:8080" "routerctl resolve shows the network backend http://[$B6B]:8080"
t_note "resolve rg6-net: $(tr '\n' ';' <<<"$T_OUT")"
rctl resolve "http://rg6-lb.$D/" -o json
t_json_expect "$T_OUT" 'd["status"] is None and d["backend"]["type"] == "lb" and
	sorted((e["address"], e["port"]) for e in d["endpoints"]) == [("'"$B6A"'", 8080), ("'"$B6B"'", 8080)]' \
	"resolve rg6-lb: its endpoints in RFC 5952 form ($B6A, $B6B), port 8080"
t_note "rg6-lb is carried in $(t_json "$T_OUT" 'd["mode"]') mode"
for fam in 4 6; do
	expect_body "$fam" "rg6-net.$D" / pool6-b "RouteGroup network backend http://[$B6B]:8080 (IPv$fam client)"
	expect_body "$fam" "rg6-net.$D" /any/path pool6-b "RouteGroup network backend, any path (IPv$fam client)"
	t_run lab_client bash -c 'for i in $(seq 10); do curl -'"$fam"' -g -s --max-time 5 -H "Host: rg6-lb.'"$D"'" "http://'"$(router_of "$fam")"'/"; done'
	na=$(grep -c '^pool6-a$' <<<"$T_OUT")
	nb=$(grep -c '^pool6-b$' <<<"$T_OUT")
	[ "$na" -ge 1 ] && [ "$nb" -ge 1 ] && [ $((na + nb)) = 10 ] ||
		t_fail "RouteGroup lb backend over two IPv6 endpoints (IPv$fam client): 10 connections, both answer" "$(t_seen)" "$(why)"
done
t_ok "Skipper RouteGroups: network http://[$B6B]:8080 and lb over [$B6A]/[$B6B] (long-hand literals, resolved to RFC 5952) answered for curl -4 and curl -6"

# --- 6. what operators read: get endpoints, access log, conns -------------------------------
rctl get endpoints v6a -n demo -o json
t_json_expect "$T_OUT" '[(b["ip"], b["port"]) for b in d["status"]["backends"]] == [("'"$B6A"'", 8080)] and d["status"]["backends"][0]["connections"] >= 1' \
	"get endpoints v6a: its IPv6 endpoint [$B6A]:8080, with the connections it had"
t_note "get endpoints v6a: $(t_json "$T_OUT" 'd["status"]["backends"]')"
# The access log: spliced and proxied records whose backend is an IPv6 endpoint.
for _ in $(seq 50); do
	grep -q 'rg6-lb' "$ALOG" 2>/dev/null && break
	sleep 0.1
done
t_run python3 - "$ALOG" "$B6A" "$B6B" "$C6" "$LAB_CLIENT_IP" <<'PY'
import json, sys
path, a, b, c6, c4 = sys.argv[1:6]
recs = [json.loads(l) for l in open(path) if l.strip()]
def some(what, f):
    m = [r for r in recs if f(r)]
    assert m, "no record: %s (of %d; last: %s)" % (what, len(recs), recs[-3:])
    return len(m)
print(some("spliced to [a] from IPv4", lambda r: r["mode"] == "splice" and r["backend"] == "[%s]:8080" % a and r["client"].startswith(c4 + ":")),
      some("spliced to [a] from IPv6", lambda r: r["mode"] == "splice" and r["backend"] == "[%s]:8080" % a and r["client"].startswith("[%s]:" % c6)),
      some("proxied to [b] from IPv4", lambda r: r["mode"] != "splice" and r["backend"] == "[%s]:8080" % b and r["client"].startswith(c4 + ":") and r["status"] == 200),
      some("proxied to [b] from IPv6", lambda r: r["mode"] != "splice" and r["backend"] == "[%s]:8080" % b and r["client"].startswith("[%s]:" % c6) and r["status"] == 200))
PY
[ "$T_RC" -eq 0 ] ||
	t_fail_later "access log: spliced and proxied records name the IPv6 backend as [ADDR]:8080, from both client families" "$(t_seen)" \
		"modes seen: $(python3 -c 'import json,sys,collections; print(collections.Counter((r["mode"], r["backend"]) for r in map(json.loads, open(sys.argv[1])) if r).most_common(8))' "$ALOG" 2>&1)"
[ "$T_RC" -eq 0 ] && t_ok "access log: records of IPv6 backends as [$B6A]:8080 / [$B6B]:8080, spliced and proxied, IPv4 and IPv6 clients (counts: $T_OUT)"

# A held spliced connection (IPv4 client) to the IPv6 backend, as routerctl conns lists it.
lab_spawn client hold6 python3 "$SY_SRC/tests/integration/holder.py" "$R4" "sp6.$D" "$LAB_DIR/hold6.out" 60
hold_pid=$LAB_SPAWN_PID
for _ in $(seq 100); do
	[ -s "$LAB_DIR/hold6.out" ] && break
	sleep 0.1
done
read -r hold_port hold_status <"$LAB_DIR/hold6.out" 2>/dev/null ||
	t_fail "a held connection through sp6.$D" "$(cat "$LAB_DIR/hold6.log" 2>/dev/null)"
[ "$hold_status" = 200 ] || t_fail "a held connection through sp6.$D got 200" "status '$hold_status'"
rctl conns -o json
t_expect_rc 0 "routerctl conns -o json"
mine=$(t_json "$T_OUT" "[c for c in d['conns'] if c['client'] == '$LAB_CLIENT_IP:$hold_port']")
t_note "routerctl conns, the held connection: $mine"
if [ "$(t_json "$mine" 'len(d) == 1 and d[0]["kind"] == "spliced" and d[0]["backend"] == "['"$B6A"']:8080"')" = true ]; then
	t_ok "routerctl conns: the spliced connection's backend is [$B6A]:8080"
else
	t_fail_later "routerctl conns: the held spliced connection ($LAB_CLIENT_IP:$hold_port) shows backend [$B6A]:8080" "seen: $mine"
fi
kill "$hold_pid" 2>/dev/null
wait "$hold_pid" 2>/dev/null

# --- 7. stats -------------------------------------------------------------------------------
rctl stats -o json
STATS=$T_OUT
t_note "drops: $(t_json "$STATS" '{k: v for k, v in d["total"]["drops"].items() if v}')"
t_json_expect "$STATS" 'd["total"]["drops"]["ipv6_no_route"] == 0' \
	"stats: no IPv6 packet dropped as ipv6_no_route (the backend port's 2001:2:1::/64 is on-link)"
t_json_expect "$STATS" 'd["total"]["drops"]["ipv6_tcp_not_served"] == 0' \
	"stats: no IPv6 TCP segment dropped as ipv6_tcp_not_served"
t_json_expect "$STATS" 'd["total"]["drops"]["tcp_bad_checksum"] == 0' \
	"stats: no TCP segment failed our checksum (tcp_bad_checksum 0: IPv6 pseudo-headers right both ways)"
t_ok "stats: ipv6_no_route 0, ipv6_tcp_not_served 0, tcp_bad_checksum 0"
t_flows_zero 15 || t_fail "flows_active back to 0 after the traffic" "JSON: ${T_OUT:0:1500}"
t_ok "flow table: $(t_json "$T_OUT" 'd["total"]["conns_opened"]') connections opened, 0 active"
t_mbufs_back "$MBUFS0" "after every connection to IPv6 backends"

# --- 8. an active health check on an IPv6 endpoint -----------------------------------------
# Last: what it needs of routerd came last (control/health.c), and the checks above run
# whatever happens here.
server6 pool6-h "$B6H" 8086 "$LAB_DIR/h6.health"
h_pid=$SERVER_PID
service6 h6 "$B6H" 8086
rctl apply -f - <<EOF
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: hc6, namespace: demo}
spec:
  virtualhost: {fqdn: hc6.$D}
  routes:
  - match: /
    services:
    - {name: h6, port: 8086, healthCheck: {path: /healthz, intervalSeconds: 1, timeoutSeconds: 1, unhealthyThresholdCount: 2, healthyThresholdCount: 2}}
EOF
t_expect_rc 0 "apply IngressRoute hc6.$D -> h6 ([$B6H]:8086), health checked"
rctl resolve "http://hc6.$D/" -o json
t_json_expect "$T_OUT" '[(e["address"], e["port"]) for e in d["endpoints"]] == [("'"$B6H"'", 8086)]' \
	"resolve hc6.$D: to [$B6H]:8086"
HC_MODE=$(t_json "$T_OUT" 'd["mode"]')
# health_of: T_OUT = get endpoints h6's first backend as JSON.
health_of() {
	rctl get endpoints h6 -n demo -o json
	[ "$T_RC" -eq 0 ] || t_fail "routerctl get endpoints h6 -n demo -o json" "$(t_seen)"
	T_OUT=$(t_json "$T_OUT" 'd["status"]["backends"][0]')
}
# wait_state STATE SECONDS [not-ejected]: poll get endpoints (every 0.1 s, SECONDS at most)
# until h6's health is STATE; T_WAITED the seconds it took.
wait_state() {
	local t0=$EPOCHREALTIME cond="d.get('health', {}).get('state') == '$1'"
	[ "${3:-}" = not-ejected ] && cond="$cond and not d['ejected']"
	while :; do
		health_of
		[ "$(t_json "$T_OUT" "bool($cond)")" = true ] && break
		if [ "$(python3 -c "print(int(($EPOCHREALTIME - $t0) * 10))")" -gt "$(($2 * 10))" ]; then
			t_fail "h6 ([$B6H]:8086) becomes $1${3:+ and $3} within $2 s" "get endpoints h6: $T_OUT" \
				"stats health_checks: $("$ROUTERCTL" -s "$LAB_SOCKET" stats -o json 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["health_checks"])' 2>&1)" \
				"hcstats of pool6-h: $(lab_backend curl -6 -g -s -m 3 "http://[$B6H]:8086/hcstats" 2>&1)" "$(why)"
		fi
		sleep 0.1
	done
	T_WAITED=$(python3 -c "print('%.1f' % ($EPOCHREALTIME - $t0))")
}
# metric_up: the switchyard_health_check_up line of [B6H]:8086 into T_OUT.
metric_up() {
	rctl metrics
	T_OUT=$(grep -F "switchyard_health_check_up{endpoint=\"[$B6H]:8086\"}" <<<"$T_OUT")
}
wait_state healthy 6
t_note "get endpoints h6: $T_OUT"
t_json_expect "$T_OUT" 'd["ip"] == "'"$B6H"'" and d["port"] == 8086 and d["health"]["path"] == "/healthz" and d["health"]["last"] == "200"' \
	"get endpoints h6: [$B6H]:8086 healthy, checked on /healthz, last 200"
t_run lab_backend curl -6 -g -s -m 3 "http://[$B6H]:8086/hcstats"
t_json_expect "$T_OUT" 'd["checks"] >= 1' "pool6-h got health checks over IPv6 from routerd"
metric_up
[ "$T_OUT" = "switchyard_health_check_up{endpoint=\"[$B6H]:8086\"} 1" ] ||
	t_fail "metrics: switchyard_health_check_up{endpoint=\"[$B6H]:8086\"} 1" "seen: '$T_OUT'"
for fam in 4 6; do
	expect_body "$fam" "hc6.$D" / pool6-h "health-checked IPv6 endpoint, healthy ($HC_MODE, IPv$fam client)"
done
t_ok "health check on [$B6H]:8086: healthy within $T_WAITED s, metrics endpoint=\"[$B6H]:8086\" up, answered for curl -4 and curl -6 ($HC_MODE)"

# The server stopped (our PID): unhealthy after 2 failed checks 1 s apart.
kill "$h_pid" || t_fail "kill pool6-h (pid $h_pid)"
for _ in $(seq 50); do sy_pid_alive "$h_pid" || break; sleep 0.1; done
sy_pid_alive "$h_pid" && t_fail "pool6-h (pid $h_pid) stopped on SIGTERM within 5 s"
wait "$h_pid" 2>/dev/null
wait_state unhealthy 8
t_note "h6 unhealthy $T_WAITED s after its server stopped: $T_OUT"
metric_up
[ "$T_OUT" = "switchyard_health_check_up{endpoint=\"[$B6H]:8086\"} 0" ] ||
	t_fail "metrics: switchyard_health_check_up{endpoint=\"[$B6H]:8086\"} 0 while it is down" "seen: '$T_OUT'"
for fam in 4 6; do
	expect_code "$fam" "hc6.$D" / 503 "its only endpoint unhealthy (lb_all_ejected fail): the router's 503 (IPv$fam client)"
done
t_ok "[$B6H]:8086's server stopped: unhealthy within $T_WAITED s, metrics up 0, 503 for curl -4 and curl -6"

server6 pool6-h "$B6H" 8086 "$LAB_DIR/h6.health"
h_pid=$SERVER_PID
wait_state healthy 8
t_note "h6 healthy $T_WAITED s after its server started again"
wait_state healthy 15 not-ejected
metric_up
[ "$T_OUT" = "switchyard_health_check_up{endpoint=\"[$B6H]:8086\"} 1" ] ||
	t_fail "metrics: switchyard_health_check_up{endpoint=\"[$B6H]:8086\"} 1 once it is back" "seen: '$T_OUT'"
for fam in 4 6; do
	expect_body "$fam" "hc6.$D" / pool6-h "the IPv6 endpoint back (IPv$fam client)"
done
t_ok "[$B6H]:8086's server started again: healthy, answered for curl -4 and curl -6"
rctl stats -o json
t_note "health checks: $(t_json "$T_OUT" 'd["health_checks"]')"
t_json_expect "$T_OUT" 'd["health_checks"]["targets"] == 1 and d["health_checks"]["healthy"] == 1 and d["health_checks"]["transitions"] >= 3' \
	"stats: one health target (the IPv6 endpoint), healthy, at least 3 state changes (up, down, up)"

rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["drops"]["ipv6_no_route"] == 0 and d["total"]["drops"]["tcp_bad_checksum"] == 0' \
	"stats after the health checks: ipv6_no_route 0, tcp_bad_checksum 0"
t_ok "stats after the health checks: ipv6_no_route 0, tcp_bad_checksum 0; drops $(t_json "$T_OUT" '{k: v for k, v in d["total"]["drops"].items() if v}')"

t_finish
[ "$LATE_FAILS" -eq 0 ] || exit 1
