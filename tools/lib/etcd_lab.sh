# SPDX-License-Identifier: BSD-3-Clause
# A local etcd for a lab (sourced after tools/lib/lab.sh and lab_init; not a test itself):
# etcd_store.sh, fleet_ha.sh and perf/fleet. etcd listens on a 198.19.0.0/16 address (from
# our PID, so that two runs side by side do not meet) on one end of a veth pair in the root
# namespace, where routerd's control thread and etcdctl reach it. etcd_lab_down (or the
# lab's exit hook, through etcd_lab_on_exit) stops etcd and removes the pair.
#
#   etcd_lab_up        the veth pair and its address; sets E_IF E_IP E_URL E_DATA
#   etcd_start         etcd on E_URL (data in E_DATA, kept across restarts); E_PID
#   etcd_start_tls     the same over TLS with client certificates (below)
#   etcd_stop          stop it (SIGTERM, then SIGKILL), E_PID emptied
#   ectl ARGS...       etcdctl (v3) against E_URL (with the lab's client certificate in TLS mode)
#   etcd_lab_down      etcd_stop and the pair removed
#
# TLS mode (etcd_start_tls, then etcd_start restarts it alike): E_URL becomes
# https://$E_IP:2379, and throwaway PEM files are made with openssl in E_TLS=$LAB_DIR/etcd-tls:
#   ca.pem ca.key            the lab's CA; etcd trusts only client certificates it signed
#   server.pem server.key    etcd's certificate, for IP:$E_IP (serverAuth and clientAuth:
#                            etcd's gRPC gateway dials etcd itself with it)
#   client.pem client.key    a client certificate (CN=switchyard-lab-client) for routerd, ectl
#   other-ca.pem             a second CA that signed nothing here: a wrong trust anchor
# etcd requires a client certificate (--client-cert-auth); peer URLs stay http.

E_PID=
E_TLS=
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

ectl() {
	local tls=()
	[ -n "$E_TLS" ] && tls=(--cacert "$E_TLS/ca.pem" --cert "$E_TLS/client.pem" --key "$E_TLS/client.key")
	ETCDCTL_API=3 etcdctl --endpoints "$E_URL" "${tls[@]}" --dial-timeout 2s --command-timeout 5s "$@"
}

# _etcd_ca NAME: a self-signed CA, $E_TLS/NAME.pem and NAME.key (req -x509's CA:TRUE).
_etcd_ca() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
		-subj "/CN=switchyard lab $LAB_ID $1" -keyout "$E_TLS/$1.key" -out "$E_TLS/$1.pem" \
		>>"$E_TLS/openssl.log" 2>&1
}
# _etcd_leaf NAME CN EXTENSIONS: $E_TLS/NAME.pem and NAME.key, signed by the lab's CA.
_etcd_leaf() {
	printf 'basicConstraints=CA:FALSE\n%s\n' "$3" >"$E_TLS/$1.ext"
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$2" \
		-keyout "$E_TLS/$1.key" -out "$E_TLS/$1.csr" >>"$E_TLS/openssl.log" 2>&1 &&
		openssl x509 -req -in "$E_TLS/$1.csr" -CA "$E_TLS/ca.pem" -CAkey "$E_TLS/ca.key" \
			-set_serial "0x$(openssl rand -hex 8)" -days 2 -extfile "$E_TLS/$1.ext" \
			-out "$E_TLS/$1.pem" >>"$E_TLS/openssl.log" 2>&1
}

etcd_start_tls() { # [EXTRA ETCD ARGS...]
	E_TLS=$LAB_DIR/etcd-tls
	E_URL=https://$E_IP:2379
	if [ ! -s "$E_TLS/client.pem" ]; then
		mkdir -p "$E_TLS" && chmod 700 "$E_TLS" && _etcd_ca ca && _etcd_ca other-ca &&
			_etcd_leaf server etcd "subjectAltName=IP:$E_IP
extendedKeyUsage=serverAuth,clientAuth" &&
			_etcd_leaf client switchyard-lab-client "extendedKeyUsage=clientAuth" || {
			sy_warn "openssl could not make the lab's certificates: $(tail -n 5 "$E_TLS/openssl.log")"
			return 1
		}
	fi
	etcd_start "$@"
}

etcd_start() { # [EXTRA ETCD ARGS...]
	local tls=()
	[ -n "$E_TLS" ] && tls=(--cert-file "$E_TLS/server.pem" --key-file "$E_TLS/server.key"
		--client-cert-auth --trusted-ca-file "$E_TLS/ca.pem")
	lab_spawn root etcd etcd --name e0 --data-dir "$E_DATA" \
		--listen-client-urls "$E_URL" --advertise-client-urls "$E_URL" "${tls[@]}" \
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
