#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# fleet_ha: the fleet of issue 18 in one lab (docs/operations.md "Store on etcd", "VIP
# failover", "Routers and the route scheduler"): a local etcd and three routerds on one L2
# segment (tools/lib/vrrp_lab.sh: client-side ports on one bridge with the client namespace,
# backend-side ones on another with nginx backend-a), all reading their objects from etcd:
#   node 0 and node 1: Router shard1 (routes labelled tier=public), VIPs .80 and .81 shared
#     by VRRP (active/active: .80 on node 0, .81 on node 1);
#   node 2: Router shard2 (tier=internal), VIP .90 (its only node).
# Every node is a scheduler candidate; one leads. Checked: the objects are applied once
# (through node 0) and every router has them; each router serves exactly its shard; route
# status phase and dns come from the bindings; dig at a responder gets each shard's VIPs;
# the scheduler leader killed (SIGKILL): another leads and schedules a new route; a VIP
# owner killed under a probe loop: new connections succeed through the standby (the time is
# printed; the 1 s target is measured in perf/vrrp_failover, not here); etcd stopped: every
# router keeps serving through the VIPs and says disconnected; etcd restarted with a change
# put meanwhile: all converge; no route lost on any router.
source "$(dirname "$0")/testlib.sh"

[ "$(id -u)" -eq 0 ] || t_skip_all "needs root (network namespaces)"
command -v etcd >/dev/null && command -v etcdctl >/dev/null ||
	t_skip_all "etcd and etcdctl are needed (Debian: etcd-server etcd-client)"
source "$SY_SRC/tools/lib/vrrp_lab.sh"
source "$SY_SRC/tools/lib/etcd_lab.sh"
N=3
vl_init "fh$(($$ % 1000000))" "$N" || t_fail "setup" "bad lab id"
_fleet_on_exit() {
	etcd_lab_down
	[ "$1" -eq 0 ] && return 0
	vl_dump_logs
}
LAB_ON_EXIT=_fleet_on_exit
lab_cleanup_on_exit
vl_up || t_fail "lab up" "building the three-router lab failed (see the warnings above)"
etcd_lab_up || t_fail "a veth pair with an address for etcd"
etcd_start || t_fail "etcd answers on $E_URL"
t_ok "lab $LAB_ID up: $N routerd ports on each bridge, nginx backend-a, etcd $E_URL (pid $E_PID)"

D=$LAB_DOMAIN
PFX=/sy-$LAB_ID/
Z1=shard1.apps.$D
Z2=shard2.apps.$D
V1=198.18.0.80
V2=198.18.0.81
V3=198.18.0.90
# Nodes 0 and 1 are shard1's two VRRP nodes, node 2 is shard2's one; shard2's VRIDs start
# at 11 so that the two Routers' virtual routers never share a VRID on the segment.
for ((i = 0; i < N; i++)); do
	python3 - "$LAB_DIR/routerd-$i.json" "$i" "$E_URL" "$PFX" <<'PY' || t_fail "config of routerd $i"
import json, sys
p, i, url, pfx = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
c = json.load(open(p))
c["router_name"] = "shard1" if i < 2 else "shard2"
c["vrrp"].update({"node": i if i < 2 else 0, "nodes": 2 if i < 2 else 1, "vrid_base": 1 if i < 2 else 11})
c["scheduler"] = True
c["scheduler_retry_s"] = 2
c["store"] = {"etcd": {"endpoints": [url], "prefix": pfx, "lease_ttl_s": 3}}
json.dump(c, open(p, "w"), indent=1)
PY
done
for ((i = 0; i < N; i++)); do vl_start "$i"; done
for ((i = 0; i < N; i++)); do
	vl_wait "$i" 40 || t_fail "routerd $i started" "$(tail -n 20 "$(vl_log "$i")")"
done

# node_store NODE PYEXPR: store_of (testlib.sh) for routerd NODE.
node_store() { store_of "$(vl_sock "$1")" "$2"; }
running() { [ -n "${VL_PID[$1]:-}" ]; }
all_connected() { # every running node: connected to etcd
	local i
	for ((i = 0; i < N; i++)); do
		running "$i" || continue
		[ "$(node_store "$i" "d['connected']")" = true ] || return 1
	done
}
LEADER=
one_leader() { # exactly one running node leads; LEADER = it
	local i n=0
	for ((i = 0; i < N; i++)); do
		running "$i" || continue
		[ "$(node_store "$i" "d['scheduler_leader']")" = true ] && LEADER=$i && n=$((n + 1))
	done
	[ "$n" -eq 1 ]
}
poll_until 30 all_connected || t_fail "every routerd connected to etcd" "$(vl_ctl 0 status 2>&1 | head -n 30)"
poll_until 20 one_leader || t_fail "exactly one scheduler leader"
t_ok "$N routerds up (pids ${VL_PID[*]}), all on etcd ($PFX); one scheduler leader: node $LEADER"

# --- the objects, applied once ---------------------------------------------------------
t_run vl_ctl 0 apply -f - < <(lab_service_a_yaml; cat <<EOF
apiVersion: route.openshift.io/v1
kind: Router
metadata: {name: shard1}
spec: {description: public shard, dns: $Z1, routeSelector: {matchLabels: {tier: public}}, vips: [$V1, $V2]}
---
apiVersion: route.openshift.io/v1
kind: Router
metadata: {name: shard2}
spec: {description: internal shard, dns: $Z2, routeSelector: {matchLabels: {tier: internal}}, vips: [$V3]}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: web, namespace: demo, labels: {tier: public}}
spec: {host: web.$D, to: {kind: Service, name: a}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: api, namespace: demo, labels: {tier: internal}}
spec: {host: api.$D, to: {kind: Service, name: a}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: gen, namespace: demo, labels: {tier: public}}
spec: {to: {kind: Service, name: a}}
EOF
)
t_expect_rc 0 "apply the Service, Routers shard1 and shard2 and Routes web, api, gen through node 0"
route_on() { vl_ctl "$1" get route "$2" -n demo >/dev/null 2>&1; }
on_all() { # ROUTE: every running node has it
	local i
	for ((i = 0; i < N; i++)); do
		running "$i" || continue
		route_on "$i" "$1" || return 1
	done
}
for r in web api gen; do poll_until 20 on_all "$r" || t_fail "every routerd has Route $r"; done
t_ok "applied once through node 0: every routerd has the Routers and the three Routes ($WAITED s)"

# get_via ADDR HOST: GET / with Host HOST at ADDR:80 from the client; CODE and T_OUT (body).
get_via() {
	t_run lab_client curl -sS -m 3 --resolve "$2:80:$1" -o - -w '\n%{http_code}' "http://$2/"
	CODE=$(tail -n 1 <<<"$T_OUT")
	T_OUT=$(sed '$d' <<<"$T_OUT")
}
serves() { get_via "$1" "$2"; [ "$CODE" = 200 ] && [ "$T_OUT" = backend-a ]; }
GEN_HOST=
phase_dns() { # NODE ROUTE: "PHASE DNS" of the route's status there
	local j
	j=$(vl_ctl "$1" get route "$2" -n demo -o json 2>/dev/null) || return 1
	t_json "$j" "'%s %s' % (d.get('status', {}).get('phase'), d.get('status', {}).get('dns'))"
}
scheduled() { [ "$(phase_dns "$1" "$2" | cut -d' ' -f1)" = scheduled ]; }
for r in web api gen; do poll_until 20 scheduled 0 "$r" || t_fail "Route $r scheduled" "$(phase_dns 0 "$r")"; done
[ "$(phase_dns 1 web)" = "scheduled web.$D" ] || t_fail "web: phase scheduled, dns its host" "$(phase_dns 1 web)"
[ "$(phase_dns 2 gen)" = "scheduled gen-demo.$Z1" ] || t_fail "gen: dns <name>-<namespace>.<shard1 dns>" "$(phase_dns 2 gen)"
GEN_HOST=gen-demo.$Z1
t_ok "route status from the bindings, alike on every node: web scheduled as web.$D, gen as $GEN_HOST"

# --- each router serves exactly its shard ----------------------------------------------
shard_ok() {
	local i
	for i in 0 1; do
		serves "$(vl_ip "$i")" "web.$D" && serves "$(vl_ip "$i")" "$GEN_HOST" || return 1
		get_via "$(vl_ip "$i")" "api.$D"
		[ "$CODE" != 200 ] || return 1
	done
	serves "$(vl_ip 2)" "api.$D" || return 1
	get_via "$(vl_ip 2)" "web.$D"
	[ "$CODE" != 200 ]
}
poll_until 20 shard_ok || t_fail "nodes 0 and 1 serve web and gen, not api; node 2 api, not web" "last: $CODE $T_OUT"
t_ok "each router serves exactly its shard: nodes 0, 1 web and $GEN_HOST (not api), node 2 api (not web)"

# --- VIPs and DNS ------------------------------------------------------------------------
vl_wait_master "$V1" 0 10 || t_fail "$V1: node 0 its only master" "$(vl_states "$V1")"
vl_wait_master "$V2" 1 10 || t_fail "$V2: node 1 its only master" "$(vl_states "$V2")"
vl_wait_master "$V3" 2 10 || t_fail "$V3: node 2 its only master" "$(vl_states "$V3")"
serves "$V1" "web.$D" && serves "$V2" "web.$D" && serves "$V3" "api.$D" ||
	t_fail "curl through the VIPs: web via $V1 and $V2, api via $V3" "$CODE $T_OUT"
t_ok "VIPs: $V1 on node 0, $V2 on node 1 (shard1, active/active), $V3 on node 2; curl through each"
dig_a() { lab_client dig +time=2 +tries=2 +norecurse @"$1" "$2" A +short | sort | tr '\n' ' '; }
[ "$(dig_a "$(vl_ip 0)" "web.$Z1")" = "$V1 $V2 " ] || t_fail "dig web.$Z1 at node 0: $V1 $V2" "$(dig_a "$(vl_ip 0)" "web.$Z1")"
[ "$(dig_a "$(vl_ip 2)" "api.$Z2")" = "$V3 " ] || t_fail "dig api.$Z2 at node 2: $V3" "$(dig_a "$(vl_ip 2)" "api.$Z2")"
t_ok "dig: *.$Z1 -> $V1 $V2, *.$Z2 -> $V3"

# --- the scheduler leader dies -----------------------------------------------------------
poll_until 10 one_leader || t_fail "one leader before the kill"
DEAD=$LEADER
vl_signal "$DEAD" KILL
poll_until 20 one_leader || t_fail "another node leads after node $DEAD was killed"
[ "$LEADER" != "$DEAD" ] || t_fail "the new leader is not the dead node"
t_ok "scheduler leader node $DEAD killed: node $LEADER leads after $WAITED s (lease ttl 3 s)"
t_run vl_ctl "$LEADER" apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: late, namespace: demo, labels: {tier: public}}
spec: {host: late.$D, to: {kind: Service, name: a}}
EOF
t_expect_rc 0 "apply Route late through node $LEADER"
poll_until 20 scheduled "$LEADER" late || t_fail "the new leader schedules Route late" "$(phase_dns "$LEADER" late)"
poll_until 20 serves "$V2" "late.$D" || poll_until 5 serves "$V1" "late.$D" || t_fail "late.$D served through shard1's VIPs"
t_ok "the new leader scheduled Route late; shard1 serves it ($WAITED s)"
vl_start "$DEAD"
vl_wait "$DEAD" 40 || t_fail "node $DEAD restarted"
poll_until 30 all_connected && poll_until 20 on_all late || t_fail "the restarted node catches up from etcd"
[ "$DEAD" = 2 ] || vl_wait_master "$( [ "$DEAD" = 0 ] && echo "$V1" || echo "$V2")" "$DEAD" 10 ||
	t_fail "node $DEAD takes its VIP back (preempt)"
[ "$DEAD" != 2 ] || vl_wait_master "$V3" 2 10 || t_fail "node 2 holds $V3 again"
poll_until 10 one_leader || t_fail "one leader after the restart"
t_ok "node $DEAD restarted: caught up (Route late), its VIP back; one leader (node $LEADER)"

# --- a VIP owner dies under load ---------------------------------------------------------
VL_ROUTE_HOST=web.$D
vl_failover "$V1" 0 KILL || t_fail "the probe reaches $V1 before the kill" "$(cat "$VL_FAILOVER_LOG")"
[ -n "$VL_FAILOVER_S" ] || t_fail "a new connection through $V1 succeeds after node 0 dies" "$(tail -n 20 "$VL_FAILOVER_LOG")"
python3 -c 'import sys; sys.exit(float(sys.argv[1]) > 5)' "$VL_FAILOVER_S" ||
	t_fail "the standby serves $V1 within 5 s of the kill" "seen $VL_FAILOVER_S s"
vl_wait_master "$V1" 1 5 || t_fail "node 1 is $V1's master" "$(vl_states "$V1")"
[ "$(dig_a "$(vl_ip 1)" "web.$Z1")" = "$V1 $V2 " ] || t_fail "dig at node 1 still gets $V1 $V2"
t_ok "node 0 (owner of $V1) killed under a probe loop: first new connection through node 1 after $VL_FAILOVER_S s ($VL_FAILOVER_FAILS failed attempts); dig still gets both VIPs"
vl_start 0
vl_wait 0 40 || t_fail "node 0 restarted"
vl_wait_master "$V1" 0 15 || t_fail "node 0 takes $V1 back" "$(vl_states "$V1")"
poll_until 30 all_connected || t_fail "node 0 reconnects to etcd"

# --- etcd stops, and comes back ----------------------------------------------------------
etcd_stop
all_down() {
	local i
	for ((i = 0; i < N; i++)); do [ "$(node_store "$i" "d['connected']")" = false ] || return 1; done
}
poll_until 20 all_down || t_fail "every node's status says disconnected"
serves "$V1" "web.$D" && serves "$V2" "late.$D" && serves "$V3" "api.$D" ||
	t_fail "with etcd down the VIPs keep serving the last generation" "$CODE $T_OUT"
t_ok "etcd stopped: every node says disconnected ($WAITED s) and serves on (web, late, api through the VIPs)"
etcd_start || t_fail "etcd answers on $E_URL again"
t_run ectl put "${PFX}objects/route.route.openshift.io/demo/after" \
	"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"after\",\"namespace\":\"demo\",\"labels\":{\"tier\":\"public\"}},\"spec\":{\"host\":\"after.$D\",\"to\":{\"kind\":\"Service\",\"name\":\"a\"}}}"
t_expect_rc 0 "etcdctl put Route after"
poll_until 30 all_connected || t_fail "every node reconnects"
poll_until 20 on_all after || t_fail "every node has Route after"
poll_until 20 serves "$V1" "after.$D" || t_fail "after.$D served through $V1" "$CODE $T_OUT"
t_ok "etcd restarted with a Route put: every node reconnected and has it; served through $V1 ($WAITED s)"

# --- no route lost -----------------------------------------------------------------------
want=$(ectl get --prefix "${PFX}objects/route.route.openshift.io/demo/" --keys-only | sed -n 's|.*/demo/||p' | sort | tr '\n' ' ')
[ "$want" = "after api gen late web " ] || t_fail "etcd holds every route" "etcd: $want"
for ((i = 0; i < N; i++)); do
	got=$(vl_ctl "$i" get routes -n demo -o json | python3 -c '
import json, sys
d = json.load(sys.stdin)
items = d["items"] if isinstance(d, dict) and "items" in d else d if isinstance(d, list) else [d]
print(" ".join(sorted(i["metadata"]["name"] for i in items)) + " ")')
	[ "$got" = "$want" ] || t_fail "node $i has every route" "node $i: $got etcd: $want"
done
for h in "web.$D" "late.$D" "after.$D" "$GEN_HOST"; do serves "$V2" "$h" || t_fail "$h through $V2" "$CODE"; done
serves "$V3" "api.$D" || t_fail "api.$D through $V3" "$CODE"
t_ok "no route lost: etcd and the three nodes hold the same routes ($want); each served through its shard's VIPs"
vl_stop_all || t_fail "no sanitizer report from the routerds" "$VL_SAN_REPORT"
t_ok "routerds stopped; no sanitizer report"
printf '1..%d\n' "$T_NUM"
