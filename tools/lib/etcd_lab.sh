# SPDX-License-Identifier: BSD-3-Clause
# A local etcd for a lab (sourced after tools/lib/lab.sh and lab_init; not a test itself):
# etcd_store.sh, fleet_ha.sh and perf/fleet. etcd listens on a 198.19.0.0/16 address (from
# our PID, so that two runs side by side do not meet) on one end of a veth pair in the root
# namespace, where routerd's control thread and etcdctl reach it. etcd_lab_down (or the
# lab's exit hook, through etcd_lab_on_exit) stops etcd and removes the pair.
#
#   etcd_lab_up        the veth pair and its address; sets E_IF E_IP E_URL E_DATA
#   etcd_start         etcd on E_URL (data in E_DATA, kept across restarts); E_PID
#   etcd_stop          stop it (SIGTERM, then SIGKILL), E_PID emptied
#   ectl ARGS...       etcdctl (v3) against E_URL
#   etcd_lab_down      etcd_stop and the pair removed

E_PID=
etcd_lab_up() {
	E_IF=sy${LAB_ID}e0
	E_PEER=sy${LAB_ID}e1
	E_IP=198.19.$((($$ / 250) % 250)).$((($$ % 250) + 1))
	E_URL=http://$E_IP:2379
	E_DATA=$LAB_DIR/etcd
	ip link add "$E_IF" type veth peer name "$E_PEER" || return 1
	sysctl -qw "net.ipv6.conf.$E_IF.disable_ipv6=1" "net.ipv6.conf.$E_PEER.disable_ipv6=1" 2>/dev/null
	ip addr add "$E_IP/32" dev "$E_IF" && ip link set "$E_IF" up && ip link set "$E_PEER" up
}

ectl() { ETCDCTL_API=3 etcdctl --endpoints "$E_URL" --dial-timeout 2s --command-timeout 5s "$@"; }

etcd_start() { # [EXTRA ETCD ARGS...]
	lab_spawn root etcd etcd --name e0 --data-dir "$E_DATA" \
		--listen-client-urls "$E_URL" --advertise-client-urls "$E_URL" \
		--listen-peer-urls "http://$E_IP:2380" --initial-advertise-peer-urls "http://$E_IP:2380" \
		--initial-cluster "e0=http://$E_IP:2380" --log-level warn "$@"
	E_PID=$LAB_SPAWN_PID
	sy_poll 30 ectl endpoint health >/dev/null 2>&1 || {
		sy_warn "etcd does not answer on $E_URL: $(tail -n 20 "$LAB_DIR/etcd.log" 2>/dev/null)"
		return 1
	}
}

etcd_stop() {
	[ -n "$E_PID" ] && _lab_stop_pid "$E_PID" 10
	E_PID=
}

etcd_lab_down() {
	etcd_stop
	[ -n "${E_IF:-}" ] && ip link del "$E_IF" 2>/dev/null
	return 0
}
