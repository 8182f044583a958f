# SPDX-License-Identifier: BSD-3-Clause
# A lab of N routerds sharing VIPs (VIP failover, docs/operations.md "VIP failover"), for
# tests/integration/vrrp.sh and perf/vrrp_failover. Source it (bash) after setting SY_SRC,
# ROUTERD and ROUTERCTL; it sources lab.sh and uses its names, tracking and lab_down.
#
#   client ns sy-ID-client                 root ns                           backend ns sy-ID-backend
#   syIDc1 198.18.0.2/24 ==veth== syIDcx -+ bridge syIDC                     syIDb1 198.18.1.10/24
#                                         +- syID0cp ==veth== syID0c  [routerd 0 "client" 198.18.0.11]
#                                         +- syID1cp ==veth== syID1c  [routerd 1 "client" 198.18.0.12]
#                                         +- ...
#                   bridge syIDB -+- syIDbx ==veth== syIDb1 (nginx "backend-a" on 198.18.1.10)
#                                 +- syID0bp ==veth== syID0b  [routerd 0 "backend" 198.18.1.2]
#                                 +- ...
#
# Every routerd: one worker (VL_WORKERS), the adaptive idle policy (N DPDK processes on 2 cores),
# drain_s VL_DRAIN_S (default 3: a SIGTERM gives the VIPs away at once, then drains), its own
# control socket, state directory and (routerd's default) --file-prefix; router_name shard1,
# the route scheduler on (each routerd is a fleet of one that binds its routes itself),
# dns.listen on its client address, and vrrp {port client, node i, nodes N}. The VIPs
# come from the Router object applied to each (vl_apply_all). With VL_IPV6=1 (set before
# vl_up) the client ports also get an IPv6 address (vl_ip6, 2001:2::11 on node 0 ...), so
# IPv6 VIPs can fail over there (VRRPv3 over IPv6; the client namespace turns IPv6 on
# itself, lab_ipv6).
source "$SY_SRC/tools/lib/lab.sh"

VL_VIPS_ALL=(198.18.0.80 198.18.0.81 198.18.0.82)
VL_ROUTE_HOST=web.lab.switchyard.test
VL_ZONE=shard1.apps.lab.switchyard.test

vl_ip() { printf '198.18.0.%d' $((11 + $1)); }     # node i's client address
vl_bip() { printf '198.18.1.%d' $((2 + $1)); }     # node i's backend address
vl_ip6() { printf '2001:2::%x' $((0x11 + $1)); }   # node i's client IPv6 address (VL_IPV6)
vl_if() { printf 'sy%s%d%s' "$LAB_ID" "$1" "$2"; } # vl_if I c|b|cp|bp
vl_sock() { printf '%s/n%d.sock' "$LAB_DIR" "$1"; }
vl_log() { printf '%s/routerd-%d.log' "$LAB_DIR" "$1"; }
vl_ctl() { local i=$1; shift; "$ROUTERCTL" -s "$(vl_sock "$i")" "$@"; }
vl_mac() { cat "/sys/class/net/$(vl_if "$1" c)/address"; }
# vl_ll I: node i's link-local address (its client MAC's modified EUI-64), the source of
# its IPv6 adverts, in RFC 5952 form.
vl_ll() {
	python3 -c '
import ipaddress, sys
b = bytes.fromhex(sys.argv[1].replace(":", ""))
print(ipaddress.IPv6Address(bytes([0xfe, 0x80] + [0] * 6 + [b[0] ^ 2, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]])))' "$(vl_mac "$1")"
}

# vl_init ID NODES: names only (lab_init), ID at most 9 characters.
vl_init() {
	[ "${#1}" -le 9 ] || { sy_warn "vl_init: id '$1' is over 9 characters"; return 1; }
	lab_init "$1" 1 || return 1
	VL_NODES=$2
	VL_BR_C=sy${LAB_ID}C
	VL_BR_B=sy${LAB_ID}B
	LAB_IF_CLIENT=sy${LAB_ID}cx # the client's root end (lab_down removes it)
	LAB_IF_BACKEND=sy${LAB_ID}bx
	VL_PID=()
	local i
	LAB_EXTRA_IFS=
	for ((i = 0; i < VL_NODES; i++)); do
		LAB_EXTRA_IFS+=" $(vl_if "$i" c) $(vl_if "$i" b)"
	done
	LAB_EXTRA_IFS+=" $VL_BR_C $VL_BR_B"
}

_vl_quiet_if() { # DEV: no IPv6, no ARP answers, no offloads (af_packet on veth)
	sysctl -qw "net.ipv6.conf.$1.disable_ipv6=1" 2>/dev/null || true
	sysctl -qw "net.ipv4.conf.$1.arp_ignore=8" 2>/dev/null || true
	lab_offloads_off ethtool -K "$1"
}

_vl_bridge() { # NAME
	ip link add "$1" type bridge stp_state 0 forward_delay 0 mcast_snooping 0 || return 1
	_vl_quiet_if "$1"
	ip link set "$1" up
}

_vl_port_pair() { # ROUTERD_END BRIDGE_END BRIDGE
	ip link add "$1" type veth peer name "$2" || return 1
	_vl_quiet_if "$1"
	_vl_quiet_if "$2"
	ip link set "$2" master "$3" || return 1
	ip link set "$1" mtu 1500 up && ip link set "$2" mtu 1500 up
}

_vl_ns_pair() { # ROOT_END NS_END NS BRIDGE ADDR
	ip link add "$1" type veth peer name "$2" netns "$3" || return 1
	_vl_quiet_if "$1"
	lab_offloads_off ip netns exec "$3" ethtool -K "$2"
	ip link set "$1" master "$4" && ip link set "$1" up || return 1
	ip -n "$3" addr add "$5" dev "$2" && ip -n "$3" link set "$2" up
}

_vl_config() { # I VIPS...
	local i=$1 v6=
	[ -z "${VL_IPV6:-}" ] || v6=" \"ipv6\": [\"$(vl_ip6 "$i")/64\"],"
	cat >"$LAB_DIR/routerd-$i.json" <<EOF
{
  "workers": ${VL_WORKERS:-1},
  "idle": "adaptive",
  "drain_s": ${VL_DRAIN_S:-3},
  "eal": ["--log-level=*:notice"],
  "control_socket": "$(vl_sock "$i")",
  "state_dir": "$LAB_DIR/state-$i",
  "ports": [
    {"name": "client", "devargs": "net_af_packet0,iface=$(vl_if "$i" c)", "ipv4": ["$(vl_ip "$i")/24"],$v6 "mtu": 1500},
    {"name": "backend", "devargs": "net_af_packet1,iface=$(vl_if "$i" b)", "ipv4": ["$(vl_bip "$i")/24"], "mtu": 1500}
  ],
  "listen": {"addresses": ["$(vl_ip "$i")"], "http": 80, "https": 443},
  "router_name": "shard1",
  "scheduler": true,
  "dns": {"listen": "$(vl_ip "$i")"},
  "vrrp": {"port": "client", "node": $i, "nodes": $VL_NODES, "advert_interval_ms": ${VL_ADVERT_MS:-100}, "vrid_base": 1, "preempt": true}
}
EOF
	mkdir -p "$LAB_DIR/state-$i"
}

# vl_up: namespaces, bridges, veths, nginx backend-a, one config per routerd.
vl_up() {
	local i
	if [ -e "$LAB_DIR" ] || ip netns list | grep -qE "^($LAB_NS_CLIENT|$LAB_NS_BACKEND)( |\$)"; then
		sy_warn "lab '$LAB_ID' already exists"
		return 1
	fi
	mkdir -p "$LAB_DIR" && chmod 700 "$LAB_DIR" || return 1
	: >"$LAB_PIDS"
	ip netns add "$LAB_NS_CLIENT" && ip netns add "$LAB_NS_BACKEND" || return 1
	ip -n "$LAB_NS_CLIENT" link set lo up && ip -n "$LAB_NS_BACKEND" link set lo up || return 1
	_vl_bridge "$VL_BR_C" && _vl_bridge "$VL_BR_B" || return 1
	_vl_ns_pair "$LAB_IF_CLIENT" "$LAB_IF_CLIENT_PEER" "$LAB_NS_CLIENT" "$VL_BR_C" "$LAB_CLIENT_IP/24" || return 1
	_vl_ns_pair "$LAB_IF_BACKEND" "$LAB_IF_BACKEND_PEER" "$LAB_NS_BACKEND" "$VL_BR_B" "$LAB_BACKEND_A_IP/24" || return 1
	for ((i = 0; i < VL_NODES; i++)); do
		_vl_port_pair "$(vl_if "$i" c)" "$(vl_if "$i" cp)" "$VL_BR_C" || return 1
		_vl_port_pair "$(vl_if "$i" b)" "$(vl_if "$i" bp)" "$VL_BR_B" || return 1
		_vl_config "$i"
	done
	_lab_nginx a "$LAB_BACKEND_A_IP" backend-a "a.passthrough.$LAB_DOMAIN" || return 1
}

# vl_dump_logs: the last 15 lines of every routerd's log, as TAP comments (a failed test's
# exit hook).
vl_dump_logs() {
	local i
	for ((i = 0; i < VL_NODES; i++)); do
		[ -s "$(vl_log "$i")" ] || continue
		printf '# --- last 15 lines of routerd %d ---\n' "$i"
		tail -n 15 "$(vl_log "$i")" | sed 's/^/# /'
	done
}

# vl_on_exit STATUS: a test's LAB_ON_EXIT hook: the routerds' logs when it failed.
vl_on_exit() {
	[ "$1" -eq 0 ] || vl_dump_logs
}

# vl_wait_drops NODE SECONDS REASON...: until routerd NODE's stats count every drop REASON
# (e.g. vrrp_bad_ttl) at least once; status 1 at the deadline. VL_DROPS: its vrrp drop
# counters as last read (JSON), for the failure message.
vl_wait_drops() {
	local n=$1 deadline=$((SECONDS + $2))
	shift 2
	while :; do
		VL_DROPS=$(vl_ctl "$n" stats -o json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)["total"]["drops"]
print(json.dumps({k: v for k, v in d.items() if k.startswith("vrrp")}))
sys.exit(0 if all(d.get(r, 0) >= 1 for r in sys.argv[1:]) else 1)' "$@") && return 0
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# vl_stop_all: SIGTERM every running routerd and reap it; status 1 when a log has a
# sanitizer report (VL_SAN_REPORT: the first one, for the failure message).
vl_stop_all() {
	local i
	VL_SAN_REPORT=
	for ((i = 0; i < VL_NODES; i++)); do
		[ -n "${VL_PID[$i]:-}" ] || continue
		vl_signal "$i" TERM
		if [ -z "$VL_SAN_REPORT" ] && grep -Eq -- "${T_SANITIZER_RE:-ERROR: AddressSanitizer|runtime error:}" "$(vl_log "$i")"; then
			VL_SAN_REPORT="routerd $i: $(grep -E -A 20 -- "${T_SANITIZER_RE:-ERROR: AddressSanitizer|runtime error:}" "$(vl_log "$i")" | head -n 40)"
		fi
	done
	[ -z "$VL_SAN_REPORT" ]
}

# vl_start I: start routerd I (appending to its log); VL_PID[I].
vl_start() {
	local i=$1
	printf '=== %s starting\n' "$(date -u +%FT%T.%NZ)" >>"$(vl_log "$i")"
	# Started from a subshell: not a job of ours, so killing it on purpose prints no
	# "Killed" line (init reaps it).
	VL_PID[$i]=$( (setsid "$ROUTERD" -c "$LAB_DIR/routerd-$i.json" </dev/null >>"$(vl_log "$i")" 2>&1 &
		echo $!))
	lab_track "${VL_PID[$i]}" routerd
}

# vl_wait I [SECONDS]: until routerd I answers `status` (default 30 s). DPDK 22.11's
# net_af_packet names its PACKET_FANOUT group (getpid() ^ ifindex) & 0xffff, so two
# routerds on different veths can draw the same group and the second fails to probe its
# port (EINVAL): that start is retried (a new PID, another group), up to 3 times.
vl_wait() {
	local i=$1 deadline=$((SECONDS + ${2:-30})) tries=0
	until vl_ctl "$i" status >/dev/null 2>&1; do
		if ! sy_pid_alive "${VL_PID[$i]}"; then
			{ wait "${VL_PID[$i]}"; } 2>/dev/null
			if [ "$tries" -lt 3 ] && tail -n 20 "$(vl_log "$i")" | grep -q 'could not set PACKET_FANOUT'; then
				tries=$((tries + 1))
				sy_warn "routerd $i: af_packet fanout group taken (PID ^ ifindex); starting it again"
				vl_start "$i"
				continue
			fi
			sy_warn "routerd $i exited"
			tail -n 20 "$(vl_log "$i")" >&2
			return 1
		fi
		[ "$SECONDS" -lt "$deadline" ] || { sy_warn "routerd $i not ready in time"; return 1; }
		sleep 0.2
	done
}

# vl_signal I SIG: signal routerd I and return once it has exited (10 s, then SIGKILL).
vl_signal() {
	local i=$1 pid=${VL_PID[$1]} deadline=$((SECONDS + 10))
	[ -n "$pid" ] || return 1
	kill -"$2" "$pid" 2>/dev/null
	while sy_pid_alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.05; done
	sy_pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null
	while sy_pid_alive "$pid"; do sleep 0.05; done # not our child (vl_start): init reaps it
	VL_PID[$i]=
}

# vl_objects VIPS...: the objects every routerd gets: backend-a's Service and Endpoints,
# Router shard1 with these VIPs (its selector binds the route), Route web.
vl_objects() {
	local vips
	vips=$(printf '%s, ' "$@")
	lab_service_a_yaml
	cat <<EOF
apiVersion: route.openshift.io/v1
kind: Router
metadata: {name: shard1}
spec:
  dns: $VL_ZONE
  routeSelector: {matchLabels: {tier: public}}
  vips: [${vips%, }]
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: web, namespace: demo, labels: {tier: public}}
spec:
  host: $VL_ROUTE_HOST
  to: {kind: Service, name: a}
EOF
}

# vl_apply I VIPS...: apply the objects to routerd I.
vl_apply() {
	local i=$1
	shift
	vl_objects "$@" | vl_ctl "$i" apply -f - >/dev/null
}

# vl_states VIP: the state of VIP on every node, "0:master 1:backup 2:-" (-: not running).
vl_states() {
	local i out=
	for ((i = 0; i < VL_NODES; i++)); do
		if [ -n "${VL_PID[$i]:-}" ]; then
			out+="$i:$(vl_ctl "$i" status -o json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = [x for x in ((d.get("vrrp") or {}).get("vips") or []) if x["vip"] == sys.argv[1]]
print(v[0]["state"] if v else "none")' "$1" 2>/dev/null || echo "?") "
		else
			out+="$i:- "
		fi
	done
	printf '%s' "${out% }"
}

# vl_master VIP: the one node that is master of VIP (status 1 unless exactly one is).
vl_master() {
	local s
	s=$(vl_states "$1")
	[ "$(grep -o '[0-9]*:master' <<<"$s" | wc -l)" = 1 ] || return 1
	grep -o '[0-9]*:master' <<<"$s" | cut -d: -f1
}

# vl_wait_master VIP NODE SECONDS: until NODE is VIP's only master.
vl_wait_master() {
	local deadline=$((SECONDS + $3))
	while :; do
		[ "$(vl_master "$1")" = "$2" ] && return 0
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# vl_probe ARGS...: tests/integration/vip_probe.py in the client namespace.
vl_probe() { lab_client python3 "$SY_SRC/tests/integration/vip_probe.py" "$@"; }

# vl_failover_lost: after vl_failover, its failed attempts that were refused (a RST) or
# never answered (no handshake). One whose handshake completed and whose request then
# went unanswered is not among them: its ACK crossed the standby's gratuitous ARP and
# reached a node that never saw its SYN (each node has its own cookie secret).
#
# vl_failover VIP NODE SIG: probe VIP from the client (at most 15 s), signal its owner NODE
# once the probe has seen the VIP work three times, and wait for the first new connection
# that succeeds after the outage the signal causes. VL_FAILOVER_S: seconds from the signal
# to the end of that connection (empty: none succeeded); VL_FAILOVER_FAILS: attempts that
# failed in between; VL_FAILOVER_GAP: the outage (below); VL_FAILOVER_LOG: the probe's log. Returns 1 when the probe never saw
# the VIP work before the signal.
vl_failover_lost() {
	awk -v t0="$(cat "$VL_FAILOVER_LOG.signalled")" \
		'$1 > t0 && $3 == "fail" && !($4 == "timeout" && $5 != "-") { n++ } END { print n + 0 }' \
		"$VL_FAILOVER_LOG"
}
vl_failover() {
	local vip=$1 n=$2 sig=$3 log mark pp t0 k
	log=$LAB_DIR/probe-$vip-$n-$sig-$RANDOM.log
	mark=$log.signalled
	VL_FAILOVER_LOG=$log
	VL_FAILOVER_S=
	VL_FAILOVER_FAILS=
	vl_probe "$vip" "$VL_ROUTE_HOST" 15 --until-recovered --mark "$mark" --gone "$mark.gone" >"$log" 2>&1 &
	pp=$!
	for k in $(seq 50); do
		[ "$(grep -c ' ok ' "$log")" -ge 3 ] && break
		sleep 0.1
	done
	if [ "$(grep -c ' ok ' "$log")" -lt 3 ]; then
		kill "$pp" 2>/dev/null
		wait "$pp" 2>/dev/null
		return 1
	fi
	t0=$(date +%s.%N)
	echo "$t0" >"$mark"
	vl_signal "$n" "$sig" # returns once it has exited
	: >"$mark.gone"
	wait "$pp"
	# The first success after a failure that followed the signal (a connection the dying
	# node still served does not count); without any failure (SIGTERM can hand over with
	# no outage), the first success that started after the signal.
	# VL_FAILOVER_GAP: the outage clients saw, from the end of the last success before the
	# first failure to the end of that first success after. Without any failure, from the
	# end of the last success that started before the signal to the end of the first that
	# started after it: a connection attempt can span the whole takeover (its SYN
	# retransmitted until the new owner answers), an outage all the same.
	read -r VL_FAILOVER_S VL_FAILOVER_FAILS VL_FAILOVER_GAP < <(awk -v t0="$t0" '
		$3 == "ok" && fails == 0 { last_ok = $2 }
		$3 == "ok" && $1 <= t0 { before = $2 }
		$1 > t0 && $3 == "fail" { fails++ }
		$1 > t0 && $3 == "ok" && first == "" { first = $2 - t0; first_end = $2 }
		$1 > t0 && $3 == "ok" && fails > 0 {
			printf "%.3f %d %.3f\n", $2 - t0, fails, $2 - last_ok; done = 1; exit }
		END { if (!done) printf "%s %d %.3f\n", first == "" ? "-" : sprintf("%.3f", first), fails,
			first == "" || before == "" ? 0 : first_end - before }' "$log")
	[ "$VL_FAILOVER_S" = - ] && VL_FAILOVER_S=
	return 0
}
