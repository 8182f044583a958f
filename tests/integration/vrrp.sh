#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# vrrp: VIP failover (README "VIP failover") with three routerds on one L2 segment
# (tools/lib/vrrp_lab.sh: client-side veths on one bridge with the client namespace,
# backend-side ones on another with nginx backend-a), the same Router shard1 applied to each.
#   - 3 VIPs over 3 nodes (active/active): each VIP has exactly one master, its preferred
#     node (VIP i on node i); the client's ARP resolves each VIP to its owner's MAC; curl to
#     every VIP works; dig at any node's responder gets the 3 VIPs.
#   - SIGKILL the owner of a VIP under a bounded probe loop: new connections succeed
#     through the standby (the time from kill to the first success is printed, bound 5 s);
#     the responder keeps answering the VIP; SIGTERM of another owner: priority 0, a faster
#     takeover; restarting the preferred node takes its VIP back (preemption).
#   - Malformed adverts from the client are dropped with their named counters.
#   - 1 VIP over 3 nodes (active/passive): one master, two standbys; kill it, the next
#     takes over, the third stays standby.
source "$(dirname "$0")/testlib.sh"

[ "$(id -u)" -eq 0 ] || t_skip_all "needs root (network namespaces)"
source "$SY_SRC/tools/lib/vrrp_lab.sh"
N=3
vl_init "vr$(($$ % 1000000))" "$N" || t_fail "setup" "bad lab id"
_vrrp_on_exit() {
	local i
	[ "$1" -eq 0 ] && return 0
	for ((i = 0; i < N; i++)); do
		[ -s "$(vl_log "$i")" ] || continue
		printf '# --- last 15 lines of routerd %d ---\n' "$i"
		tail -n 15 "$(vl_log "$i")" | sed 's/^/# /'
	done
}
LAB_ON_EXIT=_vrrp_on_exit
lab_cleanup_on_exit
vl_up || t_fail "lab up" "building the three-router lab failed (see the warnings above)"
t_ok "lab $LAB_ID up: client and backend bridges, $N routerd ports on each, nginx backend-a"
VIPS=("${VL_VIPS_ALL[@]}")
for ((i = 0; i < N; i++)); do vl_start "$i"; done
for ((i = 0; i < N; i++)); do
	vl_wait "$i" 40 || t_fail "routerd $i started" "$(tail -n 20 "$(vl_log "$i")")"
	vl_apply "$i" "${VIPS[@]}" || t_fail "apply Router shard1 (3 VIPs) and a route to routerd $i"
done
t_ok "$N routerds up (pids ${VL_PID[*]}), Router shard1 with VIPs ${VIPS[*]} applied to each"

# --- ownership: VIP i on node i, exactly one master each ---
for ((v = 0; v < 3; v++)); do
	vl_wait_master "${VIPS[$v]}" "$v" 10 ||
		t_fail "VIP ${VIPS[$v]}: node $v is its only master" "states: $(vl_states "${VIPS[$v]}")"
	t_note "VIP ${VIPS[$v]}: $(vl_states "${VIPS[$v]}")"
done
t_ok "each VIP has exactly one master, its preferred node (active/active)"
t_run vl_ctl 1 status
t_expect_out "^vrrp: +node 1 of 3, adverts every 100 ms, preempt on" "status: the vrrp line"
t_expect_out "198\.18\.0\.81 +2 +master +250 +198\.18\.0\.12 +250" "status: node 1 masters VIP .81 (VRID 2, 250)"
t_expect_out "198\.18\.0\.80 +1 +backup +240 +198\.18\.0\.11 +250 +[0-9]+ +[0-9]+ ms ago" \
	"status: node 1 is backup of .80 behind 198.18.0.11 at 250"
t_note "routerctl status on node 1:"
printf '%s\n' "$T_OUT" | sed -n '/^vrrp:/,/^$/p' | sed 's/^/#   /'
t_ok "routerctl status: VRID, state, priority, master and its priority, transitions, last advert"

# --- ARP and TCP through each VIP ---
check_vip() { # V NODE: curl through VIP V works and the client's ARP says NODE's MAC
	local v=$1 n=$2 mac
	t_run lab_client curl -sS -m 5 --resolve "$VL_ROUTE_HOST:80:${VIPS[$v]}" "http://$VL_ROUTE_HOST/"
	[ "$T_RC" = 0 ] && [ "$T_OUT" = backend-a ] || t_fail "curl through VIP ${VIPS[$v]}" "$(t_seen)"
	mac=$(lab_client ip neigh show "${VIPS[$v]}" | grep -o 'lladdr [0-9a-f:]*' | cut -d' ' -f2)
	[ "$mac" = "$(vl_mac "$n")" ] ||
		t_fail "the client resolves ${VIPS[$v]} to node $n's MAC $(vl_mac "$n")" "ip neigh: $(lab_client ip neigh show "${VIPS[$v]}")"
}
lab_client ip neigh flush all
for ((v = 0; v < 3; v++)); do check_vip "$v" "$v"; done
t_ok "curl through every VIP: backend-a; the client's ARP resolves VIP i to node i's MAC"
t_run lab_client dig +time=2 +tries=2 +norecurse @"$(vl_ip 1)" "www.$VL_ZONE" A +short
[ "$(sort <<<"$T_OUT" | tr '\n' ' ')" = "${VIPS[*]} " ] || t_fail "dig at node 1: the 3 active VIPs" "$(t_seen)"
t_ok "dig www.$VL_ZONE at node 1's responder: the 3 VIPs"
