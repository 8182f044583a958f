#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ping6: with an IPv6 address on its client port, routerd answers the client namespace's
# kernel over IPv6: neighbour discovery (the kernel learns routerd's MAC for the address
# and for the port's link-local one), ICMPv6 echo of both, full-size packets; an address
# on the link that nobody owns gets no answer; a client off the link is answered through
# the static route's gateway, which routerd resolves with its own solicitations, and one
# with no route is not; and `routerctl stats` counts replies, advertisements and
# solicitations. Lab IPv6 addresses are in 2001:2::/48 only; DAD is off in the namespace.
T_NAME="ping6"
source "$(dirname "$0")/testlib.sh"

ROUTER6=2001:2::1
CLIENT6=2001:2::2
UNUSED6=2001:2::99
# Off the link: a prefix routerd reaches through a gateway on the client link (the
# client namespace plays the gateway, with an address of its own for it), and a prefix
# it has no route for.
GW6=2001:2::fe
FAR6=2001:2:5::2
NOROUTE6=2001:2:6::2

t_setup p6 1
python3 - "$LAB_ROUTERD_CONFIG" "$ROUTER6" "$GW6" <<'PY' || t_fail "setup" "cannot give port client an IPv6 address"
import json, sys
p, addr, gw = sys.argv[1:4]
c = json.load(open(p))
c["ports"][0]["ipv6"] = [addr + "/64"]
c.setdefault("routes", []).append(
    {"prefix": "2001:2:5::/64", "via": gw, "port": c["ports"][0]["name"]})
json.dump(c, open(p, "w"), indent=1)
PY
t_start_routerd

# The client end: IPv6 on, no duplicate address detection (its probes would delay the
# address), the lab address.
lab_ipv6 client "$CLIENT6/64"

t_run lab_client ping -6 -c 5 -i 0.2 -W 2 "$ROUTER6"
t_expect_rc 0 "ping -6 $ROUTER6 from $LAB_NS_CLIENT"
t_expect_out ' 0% packet loss' "ping -6 $ROUTER6: 0% loss"
t_ok "ping -6 -c 5 $ROUTER6 from the client namespace: 5/5 replies"

# Neighbour discovery: the kernel learnt routerd's MAC (af_packet: the root veth end's).
root_mac=$(cat "/sys/class/net/$LAB_IF_CLIENT/address")
t_run lab_client ip -6 neigh show "$ROUTER6" dev "$LAB_IF_CLIENT_PEER"
t_expect_out "lladdr $root_mac" "neighbour entry for $ROUTER6 names $root_mac"
t_ok "neighbour discovery: $ROUTER6 is at $root_mac"

# 1452 bytes of data: a 1500-byte IPv6 packet, not fragmented.
t_run lab_client ping -6 -c 2 -i 0.2 -W 2 -s 1452 -M do "$ROUTER6"
t_expect_rc 0 "ping -6 -s 1452 -M do $ROUTER6 (1500-byte packets)"
t_ok "ping -6 with 1500-byte IPv6 packets: replies"

# The port's link-local address: fe80:: and the modified EUI-64 of its MAC.
ll=$(python3 -c '
import sys
b = [int(x, 16) for x in sys.argv[1].split(":")]
b[0] ^= 2
w = [b[0] << 8 | b[1], b[2] << 8 | 0xff, 0xfe << 8 | b[3], b[4] << 8 | b[5]]
print("fe80::" + ":".join("%x" % x for x in w))' "$root_mac")
t_run lab_client ping -6 -c 3 -i 0.2 -W 2 "$ll%$LAB_IF_CLIENT_PEER"
t_expect_rc 0 "ping -6 $ll%$LAB_IF_CLIENT_PEER (routerd's link-local address)"
t_ok "ping -6 of the port's link-local address $ll: replies"

# Nobody owns this one: no advertisement, no reply.
t_run lab_client ping -6 -c 2 -i 0.2 -W 1 "$UNUSED6"
t_expect_rc '1|2' "ping -6 of the unused address $UNUSED6 must fail"
t_ok "ping -6 $UNUSED6 (owned by nobody) fails"

# Off the link. The kernel's own solicitation for $ROUTER6 comes from $FAR6, which is not
# on routerd's link, so routerd learns nothing from it: the reply to $FAR6 goes to the
# route's gateway $GW6, which routerd must solicit itself (nd_solicits_sent).
lab_ipv6 client "$GW6/64" "$FAR6/64" "$NOROUTE6/64"
t_run lab_client ping -6 -c 3 -i 0.2 -W 2 -I "$FAR6" "$ROUTER6"
t_expect_rc 0 "ping -6 -I $FAR6 $ROUTER6 (answered through the gateway $GW6)"
t_expect_out ' 0% packet loss' "ping -6 -I $FAR6 $ROUTER6: 0% loss"
t_ok "ping -6 from $FAR6, off the link: answered through the static route's gateway $GW6"

t_run lab_client ping -6 -c 2 -i 0.2 -W 1 -I "$NOROUTE6" "$ROUTER6"
t_expect_rc '1|2' "ping -6 -I $NOROUTE6 $ROUTER6 must fail: routerd has no route back"
t_ok "ping -6 from $NOROUTE6 (no route back) gets no reply"

rctl stats -o json
t_expect_rc 0 "routerctl stats -o json"
stats=$T_OUT
t_json_expect "$stats" 'd["total"]["icmp6_echo_replies"] >= 10' \
	"stats: icmp6_echo_replies >= 10 (5 + 2 + 3 answered pings)"
t_json_expect "$stats" 'd["total"]["nd_adverts_sent"] >= 1' "stats: nd_adverts_sent >= 1"
# The kernel's solicitations for $UNUSED6 go to that address's solicited-node group, which
# is none of ours: dropped before ICMPv6 is read, as ipv6_not_ours.
t_json_expect "$stats" 'd["total"]["drops"]["ipv6_not_ours"] >= 1' \
	"stats: solicitations for $UNUSED6 dropped as ipv6_not_ours"
t_json_expect "$stats" 'd["total"]["nd_solicits_sent"] >= 1' \
	"stats: nd_solicits_sent >= 1 (routerd asked for the gateway $GW6)"
t_json_expect "$stats" 'd["total"]["drops"]["ipv6_no_route"] >= 2' \
	"stats: the replies to $NOROUTE6 dropped as ipv6_no_route"
t_json_expect "$stats" 'd["total"]["drops"]["nd_unresolved"] == 0' \
	"stats: no reply waited in vain for a neighbour"
t_json_expect "$stats" 'd["total"]["drops"]["icmp6_bad_checksum"] == 0' \
	"stats: no ICMPv6 message from the kernel failed our checksum"
t_ok "stats: $(t_json "$stats" 'd["total"]["icmp6_echo_replies"]') ICMPv6 echo replies, $(t_json "$stats" 'd["total"]["nd_adverts_sent"]') neighbour advertisements, $(t_json "$stats" 'd["total"]["nd_solicits_sent"]') solicitations, $(t_json "$stats" 'd["total"]["drops"]["ipv6_not_ours"]') packets for other nodes dropped"

t_finish
