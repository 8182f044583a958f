#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# vrrp6: VIP failover of an IPv6 VIP (VRRPv3 over IPv6, RFC 5798; docs/operations.md "VIP
# failover") with two routerds on one L2 segment (tools/lib/vrrp_lab.sh with VL_IPV6=1: the
# client ports have 2001:2::11 and 2001:2::12/64 beside their IPv4 addresses), the same
# Router shard1 applied to each with VIPs [2001:2::80, 198.18.0.81]: VRID 1 (IPv6) preferred
# on node 0, VRID 2 (IPv4) on node 1. The client namespace talks IPv6 (2001:2::2/64, no
# DAD) to an IPv4 backend through the VIP.
#   - each VIP has one master, its preferred node; `routerctl status` prints the IPv6 VIP
#     and its master's link-local address in RFC 5952 form; ping -6 and curl -6 to the
#     IPv6 VIP work, and the client's neighbour entry for it is node 0's MAC; dig AAAA at
#     node 1's responder gives the IPv6 VIP;
#   - SIGKILL (by PID) of node 0 with the client idle: node 1 takes the VIP over, and its
#     unsolicited neighbour advertisements move the client's entry to node 1's MAC without
#     the client asking; curl -6 works again; dig AAAA still answers it; node 0 restarted
#     takes the VIP back (preemption) and the client's entry follows it;
#   - adverts from the client with a bad hop limit and from a global address are dropped
#     with their named counters; node 1 counts IPv6 adverts received and NAs sent;
#   - SIGTERM of node 0 under a probe of new connections to the IPv6 VIP: no attempt is
#     refused or unanswered (node 0 resigns, takes what still reaches it until the client's entry follows node
#     1's NA, and drains the master-down interval; docs/operations.md "Stopping").
source "$(dirname "$0")/testlib.sh"

[ "$(id -u)" -eq 0 ] || t_skip_all "needs root (network namespaces)"
for c in curl dig python3; do
	command -v "$c" >/dev/null || t_skip_all "$c is not installed"
done
source "$SY_SRC/tools/lib/vrrp_lab.sh"
N=2
VL_IPV6=1
VIP6=2001:2::80
VIP4=198.18.0.81
C6=2001:2::2
vl_init "v6$(($$ % 1000000))" "$N" || t_fail "setup" "bad lab id"
LAB_ON_EXIT=vl_on_exit
lab_cleanup_on_exit
vl_up || t_fail "lab up" "building the two-router lab failed (see the warnings above)"
lab_ipv6 client "$C6/64"
t_ok "lab $LAB_ID up: client ($C6) and backend bridges, $N routerd ports on each, nginx backend-a"
for ((i = 0; i < N; i++)); do vl_start "$i"; done
for ((i = 0; i < N; i++)); do
	vl_wait "$i" 40 || t_fail "routerd $i started" "$(tail -n 20 "$(vl_log "$i")")"
	vl_apply "$i" "$VIP6" "$VIP4" || t_fail "apply Router shard1 ($VIP6, $VIP4) to routerd $i"
done
t_ok "$N routerds up (pids ${VL_PID[*]}), Router shard1 with VIPs $VIP6 and $VIP4 applied to each"

# --- ownership ---
vl_wait_master "$VIP6" 0 10 || t_fail "$VIP6: node 0 is its only master" "states: $(vl_states "$VIP6")"
vl_wait_master "$VIP4" 1 10 || t_fail "$VIP4: node 1 is its only master" "states: $(vl_states "$VIP4")"
[ "$(vl_states "$VIP6")" = "0:master 1:backup" ] || t_fail "$VIP6: node 1 is its backup" "$(vl_states "$VIP6")"
t_ok "each VIP has one master, its preferred node: $VIP6 node 0, $VIP4 node 1"
LL0=$(vl_ll 0)
LL1=$(vl_ll 1)
t_run vl_ctl 1 status
t_expect_out "2001:2::80 +1 +backup +240 +${LL0//./\\.} +250 +[0-9]+ +[0-9]+ ms ago" \
	"status: node 1 is backup of $VIP6 (VRID 1) behind node 0's link-local $LL0 at 250"
t_expect_out "198\.18\.0\.81 +2 +master +250 +198\.18\.0\.12 +250" "status: node 1 masters $VIP4 (VRID 2)"
t_note "routerctl status on node 1:"
printf '%s\n' "$T_OUT" | sed -n '/^vrrp:/,/^$/p' | sed 's/^/#   /'
t_run vl_ctl 0 metrics
t_expect_out '^switchyard_vrrp_master\{vip="2001:2::80",vrid="1"\} 1$' "metrics: node 0 holds $VIP6"
t_ok "routerctl status and metrics: the IPv6 VIP and its master's link-local address in RFC 5952 form"

# --- ICMPv6, TCP and the neighbour entry through the IPv6 VIP ---
t_run lab_client ping -6 -c 3 -i 0.2 -W 2 "$VIP6"
t_expect_rc 0 "ping -6 $VIP6"
t_expect_out ' 0% packet loss' "ping -6 $VIP6: 0% loss"
neigh_mac() { # the MAC of the client's neighbour entry for the VIP
	lab_client ip -6 neigh show "$VIP6" | grep -o 'lladdr [0-9a-f:]*' | cut -d' ' -f2
}
check_vip6() { # NODE: curl -6 through the VIP works and the client's entry says NODE's MAC
	local n=$1
	t_run lab_client curl -6 -sS -m 5 --resolve "$VL_ROUTE_HOST:80:[$VIP6]" "http://$VL_ROUTE_HOST/"
	[ "$T_RC" = 0 ] && [ "$T_OUT" = backend-a ] || t_fail "curl -6 through $VIP6" "$(t_seen)"
	[ "$(neigh_mac)" = "$(vl_mac "$n")" ] ||
		t_fail "the client resolves $VIP6 to node $n's MAC $(vl_mac "$n")" "ip -6 neigh: $(lab_client ip -6 neigh show "$VIP6")"
}
# wait_neigh NODE WHY: within 3 s, with the client sending nothing, its entry for the VIP
# says NODE's MAC: only unsolicited advertisements (Override set) can have moved it.
wait_neigh() {
	local k
	for k in $(seq 30); do
		[ "$(neigh_mac)" = "$(vl_mac "$1")" ] && return 0
		sleep 0.1
	done
	t_fail "$2: the client's entry for $VIP6 moves to node $1's MAC $(vl_mac "$1")" \
		"ip -6 neigh: $(lab_client ip -6 neigh show "$VIP6")"
}
check_vip6 0
# The client solicited $VIP6 (ff02::1:ff00:80 reaches both nodes) and asked nothing else of
# node 1 over IPv6: the backup must not have answered.
t_run vl_ctl 1 stats -o json
t_json_expect "$T_OUT" 'd["total"]["nd_adverts_sent"] == 0' "the backup (node 1) answered no neighbour solicitation"
t_ok "ping -6 $VIP6: 3/3; curl -6 through it: backend-a; the client's neighbour entry is node 0's MAC; the backup stayed silent"
aaaa() { # NODE: the AAAA records node NODE's responder gives for the zone
	lab_client dig +time=1 +tries=2 +norecurse @"$(vl_ip "$1")" "www.$VL_ZONE" AAAA +short 2>/dev/null
}
[ "$(aaaa 1)" = "$VIP6" ] || t_fail "dig AAAA at node 1: $VIP6 (its master, node 0, advertises)" "$(aaaa 1)"
t_ok "dig AAAA www.$VL_ZONE at node 1's responder: $VIP6"

# --- failover: SIGKILL of node 0 while the client is idle ---
t_run vl_ctl 1 stats -o json
NAS0=$(t_json "$T_OUT" 'd["total"]["vrrp_nas_sent"]')
t0=$(date +%s.%N)
vl_signal 0 KILL # by its PID (VL_PID[0]); returns once it has exited
vl_wait_master "$VIP6" 1 5 || t_fail "node 1 (priority 240) is $VIP6's master after SIGKILL of node 0" "$(vl_states "$VIP6")"
t1=$(date +%s.%N)
wait_neigh 1 "node 1's unsolicited NA after the takeover"
t_note "SIGKILL of node 0: node 1 master of $VIP6 after $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s; the client's entry: $(lab_client ip -6 neigh show "$VIP6")"
t_run vl_ctl 1 stats -o json
t_json_expect "$T_OUT" "d['total']['vrrp_nas_sent'] > $NAS0" "node 1 counts the unsolicited NAs it sent on takeover"
check_vip6 1
[ "$(aaaa 1)" = "$VIP6" ] || t_fail "dig AAAA at node 1 still gives $VIP6 (node 1 serves it now)" "$(aaaa 1)"
t_ok "SIGKILL of $VIP6's master: node 1 takes it over, its unsolicited NA moves the client's entry to node 1's MAC, curl -6 works, dig AAAA answers it"

# --- preemption: node 0 comes back and takes its VIP again ---
vl_start 0
vl_wait 0 40 || t_fail "restart node 0" "$(tail -n 20 "$(vl_log 0)")"
vl_wait_master "$VIP6" 0 10 || t_fail "node 0 (250, preempt) takes $VIP6 back" "$(vl_states "$VIP6")"
[ "$(vl_states "$VIP6")" = "0:master 1:backup" ] || t_fail "node 1 is backup again" "$(vl_states "$VIP6")"
wait_neigh 0 "node 0's unsolicited NA after taking the VIP back"
check_vip6 0
t_ok "node 0 restarted (journal): it takes $VIP6 back (preempt), its NA moves the client's entry back, curl -6 works"

# --- malformed IPv6 adverts: dropped, each with its counter ---
for kind in bad_hop_limit bad_source; do
	lab_client python3 "$SY_SRC/tests/integration/vrrp6_send.py" "$LAB_IF_CLIENT_PEER" "$kind" ||
		t_fail "send a $kind IPv6 advert from the client"
done
vl_wait_drops 1 5 vrrp_bad_hop_limit vrrp_bad_source ||
	t_fail "node 1 counts each malformed IPv6 advert" "drops: $VL_DROPS"
t_run vl_ctl 1 stats -o json
t_json_expect "$T_OUT" 'd["total"]["vrrp_adverts_received"] > 10 and d["total"]["vrrp_adverts_sent"] > 10' \
	"stats: adverts sent and received"
t_note "node 1 stats: $(t_json "$T_OUT" '{k: v for k, v in list(d["total"].items()) + list(d["total"]["drops"].items()) if k.startswith("vrrp")}')"
[ "$(vl_master "$VIP6")" = 0 ] || t_fail "the malformed adverts moved nothing" "$(vl_states "$VIP6")"
t_ok "malformed IPv6 adverts (hop limit, source not link-local) dropped and counted by name; no VIP moved"

# --- a planned stop: SIGTERM of node 0 while the client opens connection after connection ---
vl_failover "$VIP6" 0 TERM || t_fail "the probe reaches $VIP6 before the signal" "$(cat "$VL_FAILOVER_LOG")"
t_note "SIGTERM of node 0: $VL_FAILOVER_FAILS failed attempts; outage $VL_FAILOVER_GAP s"
# As vrrp.sh's: at most a handshake whose ACK crossed node 1's NA (vl_failover_lost).
lost=$(vl_failover_lost)
[ "$lost" -eq 0 ] && [ "$VL_FAILOVER_FAILS" -le 1 ] || t_fail "SIGTERM of $VIP6's master: no attempt refused or unanswered" \
	"$VL_FAILOVER_FAILS failed, $lost refused or unanswered; signal at $(cat "$VL_FAILOVER_LOG.signalled"); probe: $(tail -n 12 "$VL_FAILOVER_LOG")"
vl_wait_master "$VIP6" 1 5 || t_fail "node 1 is $VIP6's master after node 0's SIGTERM" "$(vl_states "$VIP6")"
wait_neigh 1 "node 1's unsolicited NA after node 0 resigned"
check_vip6 1
t_ok "SIGTERM of $VIP6's master: $VL_FAILOVER_FAILS attempt(s) failed, none refused or unanswered (outage $VL_FAILOVER_GAP s), node 1 holds it, the client's entry is node 1's MAC, curl -6 works"

vl_stop_all || t_fail "no sanitizer report from the routerds" "$VL_SAN_REPORT"
t_ok "routerds stopped; no sanitizer report"
printf '1..%d\n' "$T_NUM"
