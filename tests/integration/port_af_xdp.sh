#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# port_af_xdp: routerd on net_af_xdp ports (AF_XDP sockets in copy mode on the lab's veths,
# LAB_PORT_KIND=af_xdp in tools/lib/lab.sh), the port kind perf/proxy measures beside
# af_packet. That driver sends single mbufs only: it copies a frame's first segment and
# nothing else, so the proxy's frames (a header mbuf with the payload chained on) reach the
# wire whole only because the worker makes each one mbuf first (sy_tx_linearize). Checks:
#   - routerd starts on net_af_xdp ports (busy_budget=0);
#   - a spliced and a proxied download, and a proxied upload, each byte for byte (sha256);
#   - one keep-alive connection through the proxied vhost reaching both of its pools;
#   - wrk through the proxied vhost, keep-alive and Connection: close, without an error;
#   - no drop for want of an mbuf or TX room, and the flow table empty afterwards;
#   - every mbuf inside the UMEM the driver registers, and the kernel's own counters of the
#     AF_XDP sockets (tools/lib/xsk_stats.py) without an invalid descriptor, and RX ring
#     drops under 0.1 % of the frames received;
#   - routerctl stats reports the same kernel counters per port (dataplane/xsk_stats.c), and
#     a burst of pings into a stopped routerd shows there and in the metrics
#     (switchyard_port_dropped_packets_total) as the kernel's drops.
T_NAME=port_af_xdp
source "$(dirname "$0")/testlib.sh"

LAB_PORT_KIND=af_xdp
D=lab.switchyard.test
t_setup xdp 1
grep -q '"net_af_xdp0,iface=[^"]*,busy_budget=0"' "$LAB_ROUTERD_CONFIG" ||
	t_fail "the lab config names net_af_xdp ports" "$(grep devargs "$LAB_ROUTERD_CONFIG")"
t_start_routerd "routerd started on net_af_xdp ports"
# The driver's fill rings hold mbufs from the start: the baseline is not 0 here.
MBUFS0=$(t_mbufs_in_use)
! grep -qi "failed to initialize" "$LAB_ROUTERD_LOG" ||
	t_fail "EAL probed both af_xdp devices" "$(tail -n 20 "$LAB_ROUTERD_LOG")"

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_plain_route
t_upload_sink "upload.$D"
# A second rule makes upload.$D proxied (web.$D already is: / and /b).
t_sink_proxied "upload.$D"
t_expect_mode "http://web.$D/" proxy
t_expect_mode "http://upload.$D/" proxy
t_expect_mode "http://plain.$D/" splice

big=$LAB_DIR/nginx-a/www/big.bin
head -c 8M /dev/urandom >"$big" || t_fail "setup" "8 MB random file"
want=$(sha256sum <"$big" | cut -d' ' -f1)
for h in plain web; do
	got=$(lab_client curl -s -m 30 -H "Host: $h.$D" "http://$LAB_ROUTER_IP/big.bin" | sha256sum | cut -d' ' -f1)
	[ "$got" = "$want" ] || t_fail "8 MB download through $h.$D arrives intact" "sha256 $got, want $want"
done
t_ok "8 MB downloads through plain.$D (spliced) and web.$D (proxied): identical sha256"

sy_poll 10 lab_backend curl -s -m 1 -o /dev/null "http://$LAB_BACKEND_A_IP:8080/" ||
	t_fail "upload sink answers on $LAB_BACKEND_A_IP:8080" "$(cat "$LAB_DIR/sink.log" 2>/dev/null)"
up=$LAB_DIR/up.bin
head -c 8M /dev/urandom >"$up" || t_fail "setup" "8 MB upload file"
want_up=$(sha256sum <"$up" | cut -d' ' -f1)
t_run lab_client curl -s -m 30 -H "Host: upload.$D" --data-binary "@$up" "http://$LAB_ROUTER_IP/up"
[ "$T_OUT" = "$want_up 8388608" ] || t_fail "8 MB upload through upload.$D arrives intact" \
	"the sink saw $(t_seen); want $want_up 8388608 (sha256, length)"
t_ok "8 MB upload through upload.$D (proxied): the sink's sha256 matches"

# One connection, two requests, two pools: every request routed on its own.
t_run lab_client curl -s -m 10 -w '%{num_connects}\n' -H "Host: web.$D" "http://$LAB_ROUTER_IP/" \
	"http://$LAB_ROUTER_IP/b"
[ "$(printf '%s' "$T_OUT" | tr '\n' ' ')" = "backend-a 1 backend-b 0" ] ||
	t_fail "one keep-alive connection: / to pool a, /b to pool b" "$(t_seen)"
t_ok "one keep-alive connection through web.$D: / answered by backend-a, /b by backend-b"

for mode in keep-alive close; do
	hdr=()
	[ "$mode" = close ] && hdr=(-H "Connection: close")
	t_run lab_client wrk -t1 -c16 -d3s --timeout 3s -s "$SY_SRC/tests/integration/wrk_report.lua" \
		-H "Host: web.$D" "${hdr[@]}" "http://$LAB_ROUTER_IP/"
	rep=$(printf '%s\n' "$T_OUT" | grep '^{' | tail -n 1)
	[ -n "$rep" ] || t_fail "wrk $mode printed its report" "$(t_seen)"
	t_json_expect "$rep" 'd["requests"] > 100 and d["connect"] + d["read"] + d["write"] + d["timeout"] == 0 and d["status"] == 0' \
		"wrk $mode through web.$D: no socket error, every answer 2xx"
	t_ok "wrk $mode through web.$D: $(t_json "$rep" 'd["requests"]') requests, no error"
done

rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["drops"]["no_mbuf"] == 0 and d["total"]["drops"]["tx_full"] == 0' \
	"no frame dropped for want of an mbuf or TX room"
t_flows_zero 15 || t_fail "flows_active back to 0 within 15 s" "$(t_json "$T_OUT" 'd["total"]["flows_active"]')"
t_ok "nothing dropped for want of an mbuf or TX room; the flow table is empty again"
# The driver takes back the mbufs of a port's sent frames at that port's next send (the
# kernel's completion ring is read before each kick), so at rest the last frames sent on each
# port are still out. One ping to each of the router's addresses leaves one reply per port.
lab_client ping -c 1 -W 2 "$LAB_ROUTER_IP" >/dev/null ||
	t_fail "the router answers a ping on its client side"
lab_backend ping -c 1 -W 2 "$LAB_ROUTER_BACKEND_IP" >/dev/null ||
	t_fail "the router answers a ping on its backend side"
t_mbufs_back "$((MBUFS0 + 2))" "af_xdp ports, after the traffic and a ping to each port"
# The kernel's own counters of routerd's AF_XDP sockets, which the driver does not report:
# a frame sent from an mbuf outside the UMEM the driver registered is refused there as an
# invalid TX descriptor, and its connection waits out an RTO (dataplane/mbuf_pool.c).
line=$(grep -o 'mbuf pool: .*' "$LAB_ROUTERD_LOG" | tail -n 1)
[[ $line == *" 0 outside the UMEM"* ]] ||
	t_fail "every mbuf of the pool lies inside the af_xdp UMEM" "routerd said: ${line:-nothing}"
t_run python3 "$SY_SRC/tools/lib/xsk_stats.py" "$ROUTERD_PID"
kernel=$T_OUT
n=$(printf '%s' "$kernel" | grep -o 'tx_invalid_descs=' | wc -l)
[ "$n" -eq 2 ] || t_fail "routerd holds an AF_XDP socket per port" "$(t_seen)"
! printf '%s' "$kernel" | grep -qE 'invalid_descs=[1-9]' ||
	t_fail "the kernel refused none of routerd's AF_XDP descriptors" "$(t_seen)"
# routerd reads the same counters itself (dataplane/xsk_stats.c), per port, so a frame the
# kernel dropped on a full RX ring has a name and a counter in routerctl stats. Traffic is
# over: both readings must agree exactly, summed over the ports.
rctl stats -o json
t_json_expect "$T_OUT" 'all(p["af_xdp"]["sockets"] == 1 for p in d["ports"])' \
	"routerctl stats: each af_xdp port reports the kernel's counters of its one AF_XDP socket"
sum_kernel() { printf '%s' "$kernel" | grep -o "$1=[0-9]*" | cut -d= -f2 | awk '{ s += $1 } END { print s + 0 }'; }
for pair in rx_ring_full:rx_ring_full rx_dropped:rx_dropped tx_invalid_descs:tx_invalid_descs; do
	k=${pair%%:*} r=${pair#*:}
	t_json_expect "$T_OUT" "sum(p['af_xdp']['$r'] for p in d['ports']) == $(sum_kernel "$k")" \
		"routerctl stats' af_xdp $r equals the kernel's $k (xsk_stats.py: $kernel)"
done
# A full RX ring is the kernel dropping what arrived while the worker was away (asleep under
# the adaptive idle policy, or off its core on a loaded 2-core machine); TCP resends it and
# every byte above arrived intact. It must stay rare: under 0.1 % of the frames received.
t_json_expect "$T_OUT" 'sum(p["af_xdp"]["rx_ring_full"] + p["af_xdp"]["rx_dropped"] for p in d["ports"]) * 1000 <= sum(p["ipackets"] for p in d["ports"])' \
	"frames the kernel dropped on a full RX ring stay under 0.1 % of those received"
full=$(t_json "$T_OUT" 'sum(p["af_xdp"]["rx_ring_full"] for p in d["ports"])')
rx=$(t_json "$T_OUT" 'sum(p["ipackets"] for p in d["ports"])')
t_ok "$line; the kernel's AF_XDP counters: no invalid descriptor, $full of $rx frames dropped on a full RX ring, the same in routerctl stats"

# The counters count: with routerd stopped, 4,000 pings at once overrun the client port's
# socket. In copy mode the kernel takes a buffer from the fill ring (2,048) for each frame
# before the RX ring (2,048), so the drops show as rx_dropped (fill ring empty; imissed to
# the driver) and, had the fill ring more, as rx_ring_full. routerctl stats names them once
# routerd runs again.
drops='d["ports"][0]["af_xdp"]["rx_ring_full"] + d["ports"][0]["af_xdp"]["rx_dropped"]'
before=$(t_json "$T_OUT" "$drops")
kill -STOP "$ROUTERD_PID"
lab_client ping -q -n -l 4000 -c 4000 -W 1 "$LAB_ROUTER_IP" >/dev/null 2>&1
kill -CONT "$ROUTERD_PID"
t_run python3 "$SY_SRC/tools/lib/xsk_stats.py" "$ROUTERD_PID"
kernel=$T_OUT
rctl stats -o json
t_json_expect "$T_OUT" "$drops >= $before + 1000" \
	"4,000 pings while routerd was stopped: the client port's kernel drops grew by 1,000 or more"
for k in rx_ring_full rx_dropped; do
	t_json_expect "$T_OUT" "sum(p['af_xdp']['$k'] for p in d['ports']) == $(sum_kernel "$k")" \
		"after the overrun, routerctl stats' $k equals the kernel's ($kernel)"
done
stats=$T_OUT
# The metrics carry the same, by port and reason.
rctl metrics
t_expect_rc 0 "routerctl metrics"
for pair in af_xdp_rx_ring_full:rx_ring_full af_xdp_tx_invalid_descs:tx_invalid_descs; do
	m=${pair%%:*} k=${pair#*:}
	v=$(grep -F "switchyard_port_dropped_packets_total{port=\"client\",reason=\"$m\"} " <<<"$T_OUT" | awk '{ print $2 }')
	t_json_expect "$stats" "d['ports'][0]['af_xdp']['$k'] == ${v:--1}" \
		"metrics: switchyard_port_dropped_packets_total{port=client,reason=$m} equals routerctl stats' $k (${v:-absent})"
done
v=$(grep -F 'switchyard_port_dropped_packets_total{port="client",reason="missed"} ' <<<"$T_OUT" | awk '{ print $2 }')
t_json_expect "$stats" "d['ports'][0]['imissed'] == ${v:--1} and d['ports'][0]['imissed'] >= d['ports'][0]['af_xdp']['rx_dropped'] > 0" \
	"metrics: the client port's missed frames (${v:-absent}) are its imissed, the kernel's rx_dropped"
T_OUT=$stats
t_ok "a burst into a stopped routerd: $(t_json "$T_OUT" "$drops - $before") frames counted as dropped by the kernel on port $(t_json "$T_OUT" 'd["ports"][0]["name"]') (rx_ring_full + rx_dropped), as the kernel counts them"
t_finish
