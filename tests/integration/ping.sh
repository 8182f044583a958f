#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ping: routerd (WORKERS workers, default 1) answers ARP and ICMP echo for its client-port
# address, ignores an address it does not own, and counts what it did in `routerctl stats`.
T_NAME="ping-${1:-1}w"
source "$(dirname "$0")/testlib.sh"

workers=${1:-1}
t_setup "p$workers" "$workers"
t_start_routerd

t_run lab_client ping -c 5 -i 0.2 -W 2 "$LAB_ROUTER_IP"
t_expect_rc 0 "ping $LAB_ROUTER_IP from $LAB_NS_CLIENT"
t_expect_out ' 0% packet loss' "ping $LAB_ROUTER_IP: 0% loss"
t_ok "ping -c 5 $LAB_ROUTER_IP from the client namespace: 5/5 replies"

# A full-size frame (1472 bytes of ICMP payload = 1500-byte IP packet, DF set).
t_run lab_client ping -c 2 -i 0.2 -W 2 -s 1472 -M do "$LAB_ROUTER_IP"
t_expect_rc 0 "ping -s 1472 -M do $LAB_ROUTER_IP (1500-byte packets)"
t_ok "ping with 1500-byte IP packets: replies"

# ARP: the client learnt the router's MAC (net_af_packet uses the root veth end's MAC).
t_run lab_client ip neigh show "$LAB_ROUTER_IP" dev "$LAB_IF_CLIENT_PEER"
t_expect_out 'lladdr ([0-9a-f]{2}:){5}[0-9a-f]{2}' "ARP entry for $LAB_ROUTER_IP in the client namespace"
mac=$(grep -Eo 'lladdr [0-9a-f:]+' <<<"$T_OUT" | cut -d' ' -f2)
root_mac=$(cat "/sys/class/net/$LAB_IF_CLIENT/address")
t_ok "router answers ARP: $LAB_ROUTER_IP is at $mac ($([ "$mac" = "$root_mac" ] && echo "the MAC of $LAB_IF_CLIENT" || echo "note: $LAB_IF_CLIENT has $root_mac"))"

# An address on the subnet that nobody owns: no ARP answer, no echo reply.
t_run lab_client ping -c 2 -i 0.2 -W 1 "$LAB_UNUSED_IP"
t_expect_rc '1|2' "ping of the unused address $LAB_UNUSED_IP must fail"
t_ok "ping $LAB_UNUSED_IP (owned by nobody) fails"

rctl stats
t_expect_rc 0 "routerctl stats"
t_ok "routerctl stats (table) exits 0"

rctl stats -o json
t_expect_rc 0 "routerctl stats -o json"
stats=$T_OUT
t_json_expect "$stats" 'd.get("ok") is not False and d["total"]["rx_packets"] > 0 and d["total"]["tx_packets"] > 0 and d["total"]["rx_bytes"] > 0 and d["total"]["tx_bytes"] > 0' \
	"stats: total rx/tx packets and bytes > 0"
t_json_expect "$stats" "len(d['workers']) == $workers" "stats: one entry per worker ($workers)"
t_json_expect "$stats" 'isinstance(d["total"]["drops"], dict)' "stats: total.drops is an object of reason -> count"
# ICMP echo replies: any counter whose name says icmp + echo/reply, anywhere under total.
icmp=$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
found = []
def walk(o, path):
    if isinstance(o, dict):
        for k, v in o.items():
            walk(v, path + [k])
    elif isinstance(o, (int, float)) and not isinstance(o, bool):
        name = ".".join(path).lower()
        if "icmp" in name and ("echo" in name or "repl" in name):
            found.append((".".join(path), o))
walk(d.get("total", d), ["total"])
for p, v in found:
    print(p, v)
' "$stats")
[ -n "$icmp" ] || t_fail "stats: an ICMP echo reply counter" "no key naming icmp and echo/reply under total" "JSON: ${stats:0:1500}"
awk '$2 > 0 { ok = 1 } END { exit !ok }' <<<"$icmp" ||
	t_fail "stats: ICMP echo replies > 0 after 7 answered pings" "seen: $icmp"
t_ok "stats: ICMP echo replies counted ($(tr '\n' ' ' <<<"$icmp"))"

t_finish
