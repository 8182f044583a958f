# SPDX-License-Identifier: BSD-3-Clause
# The namespace lab (docs/architecture.md section 8, docs/testing.md), as functions for
# tools/lab, tools/demo and the integration tests. Source it (bash only).
#
#   client ns  sy-ID-client                 root ns (routerd)              backend ns  sy-ID-backend
#   syIDc1 198.18.0.2/24  <== veth ==>  syIDc0 [port "client"  198.18.0.1]
#                                       syIDb0 [port "backend" 198.18.1.1]  <== veth ==>  syIDb1
#                                                                     198.18.1.10 nginx "backend-a"
#                                                                     198.18.1.11 nginx "backend-b"
#
# The root ends carry no address and no IPv6, so the kernel stays out of the way of
# routerd's net_af_packet ports. Every address is in 198.18.0.0/15 and no namespace has a
# default route, so nothing the lab does can reach another network.
#
# With the lossy relay (LAB_RELAY=1 before lab_up; tools/lossy-relay, docs/architecture.md
# section 8), the client side gets a second, root-only veth pair and sy-lossy-relay between
# the two:
#
#   client ns                       root ns
#   syIDc1 198.18.0.2/24 <=veth=> syIDca [sy-lossy-relay] syIDcr <=veth=> syIDc0 [port "client"]
#
# syIDca and syIDcr are the relay's ports (-a and -b: "a2b" is client to router, "b2a" router
# to client); syIDcr/syIDc0 is a veth pair with both ends in the root namespace. None of the
# three root ends has an address or IPv6, and every end has its offloads off. routerd's
# config is the same either way (its client port is on syIDc0). The relay runs in the root
# namespace with LAB_RELAY_ARGS (default "--seed 1": a clean bridge), is tracked like
# routerd and nginx (lab_down stops it) and writes its JSON stats (on SIGUSR1, at exit) to
# $LAB_RELAY_LOG. lab_relay_stop / lab_relay_start change its impairments on a running lab;
# lab_relay_stats prints its counters. LOSSY_RELAY names the executable (default: the one in
# $SY_SRC/build).
#
# Typical use:
#   source tools/lib/lab.sh
#   lab_init t$$ 1 && lab_cleanup_on_exit && lab_up && lab_routerd_start && lab_routerd_wait
# Everything made is recorded under $LAB_DIR and removed by lab_down (the EXIT trap).

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
set +m # no job control: background children stay in our process group and keep their PIDs

LAB_ROOT=${SY_LAB_ROOT:-/run/switchyard/lab}
LAB_TEMPLATE=${SY_LAB_TEMPLATE:-$SY_SRC/config/lab.routerd.json}

# Fixed lab addressing (198.18.0.0/15 only).
LAB_ROUTER_IP=198.18.0.1          # routerd, port "client" (the address clients talk to)
LAB_CLIENT_IP=198.18.0.2          # the client namespace
LAB_ROUTER_BACKEND_IP=198.18.1.1  # routerd, port "backend"
LAB_BACKEND_A_IP=198.18.1.10      # nginx "backend-a"
LAB_BACKEND_B_IP=198.18.1.11      # nginx "backend-b"
LAB_UNUSED_IP=198.18.0.99         # on the client subnet, owned by nobody
LAB_DOMAIN=lab.switchyard.test
LAB_ROUTING_SUBDOMAIN=apps.lab.switchyard.test

# lab_init ID [WORKERS]: set every LAB_* name for lab ID; makes nothing.
lab_init() {
	local id=$1
	[[ $id =~ ^[a-z0-9]{1,10}$ ]] || {
		sy_warn "lab id '$id': use 1 to 10 lowercase letters or digits (interface names are <= 15 chars)"
		return 1
	}
	LAB_ID=$id
	LAB_WORKERS=${2:-${LAB_WORKERS:-1}}
	# routerd's port driver on the root ends: af_packet (the default: every test) or
	# af_xdp (AF_XDP sockets, copy mode; see lab_write_config). DPDK 22.11's af_xdp takes
	# a device's queue count from its "combined" channels, which a veth does not have, so
	# it binds one queue: one worker.
	LAB_PORT_KIND=${LAB_PORT_KIND:-af_packet}
	case $LAB_PORT_KIND in
	af_packet) ;;
	af_xdp) [ "$LAB_WORKERS" = 1 ] || {
		sy_warn "LAB_PORT_KIND=af_xdp: one worker only (a veth has no combined channels for DPDK's af_xdp to spread over)"
		return 1
	} ;;
	*) sy_warn "LAB_PORT_KIND '$LAB_PORT_KIND': af_packet or af_xdp"; return 1 ;;
	esac
	LAB_DIR=$LAB_ROOT/$id
	LAB_NS_CLIENT=sy-$id-client
	LAB_NS_BACKEND=sy-$id-backend
	LAB_IF_CLIENT=sy${id}c0        # root side, routerd port "client"
	LAB_IF_CLIENT_PEER=sy${id}c1   # in the client namespace
	LAB_IF_BACKEND=sy${id}b0       # root side, routerd port "backend"
	LAB_IF_BACKEND_PEER=sy${id}b1  # in the backend namespace
	# Only with LAB_RELAY=1: the relay's ports, both in the root namespace.
	LAB_RELAY=${LAB_RELAY:-0}
	LAB_RELAY_ARGS=${LAB_RELAY_ARGS:---seed 1}
	LAB_IF_RELAY_A=sy${id}ca       # root end of the client veth (relay port -a)
	LAB_IF_RELAY_B=sy${id}cr       # root, veth peer of LAB_IF_CLIENT (relay port -b)
	LAB_RELAY_LOG=$LAB_DIR/relay.log
	LAB_RELAY_PID=
	LAB_RELAY_JSON=
	LAB_SOCKET=$LAB_DIR/routerd.sock
	LAB_STATE_DIR=$LAB_DIR/state
	LAB_ROUTERD_CONFIG=$LAB_DIR/routerd.json
	LAB_ROUTERD_LOG=$LAB_DIR/routerd.log
	LAB_ENV=$LAB_DIR/env
	LAB_PIDS=$LAB_DIR/pids
	LAB_EXTRA_IFS=
	ROUTERD_PID=
}

# lab_service_a_yaml: Service demo/a and its Endpoints (nginx backend-a, port 80), then
# "---": the start of many tests' objects.
lab_service_a_yaml() {
	cat <<EOF
apiVersion: v1
kind: Service
metadata: {name: a, namespace: demo}
spec: {ports: [{name: http, port: 80, targetPort: 80}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: a, namespace: demo}
subsets: [{addresses: [{ip: $LAB_BACKEND_A_IP}], ports: [{name: http, port: 80}]}]
---
EOF
}

# Run a command inside the client / backend namespace.
lab_client() { ip netns exec "$LAB_NS_CLIENT" "$@"; }
lab_backend() { ip netns exec "$LAB_NS_BACKEND" "$@"; }

# lab_spawn client|backend|root NAME CMD...: start CMD in the background inside that
# namespace (root: the root namespace), output to $LAB_DIR/NAME.log, tracked so lab_down
# stops it. Sets LAB_SPAWN_PID (the command's own PID: `ip netns exec` and setsid exec it).
lab_spawn() {
	local ns
	case "$1" in
	client) ns=$LAB_NS_CLIENT ;;
	backend) ns=$LAB_NS_BACKEND ;;
	root) ns= ;;
	*) sy_warn "lab_spawn: client, backend or root, not '$1'"; return 1 ;;
	esac
	if [ -n "$ns" ]; then
		setsid ip netns exec "$ns" "${@:3}" </dev/null >>"$LAB_DIR/$2.log" 2>&1 &
	else
		setsid "${@:3}" </dev/null >>"$LAB_DIR/$2.log" 2>&1 &
	fi
	LAB_SPAWN_PID=$!
	lab_track "$LAB_SPAWN_PID" "$2"
}

# Start time of PID (clock ticks since boot, /proc/PID/stat field 22), or nothing.
_lab_starttime() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) } # after "pid (comm) ": the comm may hold spaces
	set -- $st
	printf '%s' "${20}"
}

# lab_track PID NAME: remember a process this lab started (routerd, nginx, or any helper a
# test runs), so lab_down stops exactly it. Its start time is recorded with it: a PID that
# the kernel later gives to an unrelated process is never signalled.
lab_track() {
	local pid=$1 name=$2
	if ! [[ $pid =~ ^[0-9]+$ ]] && [[ $name =~ ^[0-9]+$ ]]; then
		pid=$2 name=$1 # lab_track NAME PID: accepted too
	fi
	[[ $pid =~ ^[0-9]+$ ]] || { sy_warn "lab_track: '$pid' is not a PID (usage: lab_track PID NAME)"; return 1; }
	printf '%s %s %s\n' "$pid" "$name" "$(_lab_starttime "$pid" || echo -)" >>"$LAB_PIDS"
}

# lab_owns_pid PID [STARTTIME]: PID is alive and is the process that was recorded: same
# start time, or (without one) its command line mentions this lab's directory.
lab_owns_pid() {
	local pid=$1 st=${2:--}
	sy_pid_alive "$pid" || return 1
	if [ "$st" != - ]; then
		[ "$(_lab_starttime "$pid")" = "$st" ]
	else
		tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$LAB_DIR/"
	fi
}

lab_offloads_off() { # [ns-exec-prefix...] DEV
	"$@" rx off tx off tso off gso off gro off >/dev/null 2>&1 ||
		sy_warn "ethtool: could not turn off every offload on ${*: -1}"
}

_lab_veth() { # ROOT_IF PEER_IF NS ADDR...
	local rif=$1 pif=$2 ns=$3 a
	shift 3
	ip link add "$rif" type veth peer name "$pif" netns "$ns" || return 1
	# Root end: no IPv4 address, no IPv6, no forwarding, no ARP answers: only routerd's
	# net_af_packet socket uses it.
	sysctl -qw "net.ipv6.conf.$rif.disable_ipv6=1" 2>/dev/null || true
	sysctl -qw "net.ipv4.conf.$rif.forwarding=0" "net.ipv4.conf.$rif.arp_ignore=8" 2>/dev/null || true
	ip link set "$rif" mtu 1500 up || return 1
	lab_offloads_off ethtool -K "$rif"
	lab_offloads_off ip netns exec "$ns" ethtool -K "$pif"
	for a in "$@"; do
		ip -n "$ns" addr add "$a" dev "$pif" || return 1
	done
	ip -n "$ns" link set "$pif" mtu 1500 up
}

_lab_root_veth() { # IF1 IF2: a veth pair with both ends in the root namespace, like a root end
	local dev
	ip link add "$1" type veth peer name "$2" || return 1
	for dev in "$1" "$2"; do
		sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" 2>/dev/null || true
		sysctl -qw "net.ipv4.conf.$dev.forwarding=0" "net.ipv4.conf.$dev.arp_ignore=8" 2>/dev/null || true
		lab_offloads_off ethtool -K "$dev"
		ip link set "$dev" mtu 1500 up || return 1
	done
}

# ---- the lossy relay (LAB_RELAY=1) ----------------------------------------------------

_lab_relay_bin() {
	local bin=${LOSSY_RELAY:-$SY_SRC/build/tools/lossy-relay/sy-lossy-relay}
	[ -x "$bin" ] || { sy_warn "LOSSY_RELAY is not an executable (got '$bin')"; return 1; }
	printf '%s' "$bin"
}

# lab_relay_start [NAME [ARGS...]]: start sy-lossy-relay between LAB_IF_RELAY_A (client
# side) and LAB_IF_RELAY_B (router side) with ARGS (default: $LAB_RELAY_ARGS, split on
# blanks), its output in $LAB_DIR/NAME.log (default relay), and wait (10 s) until it bridges.
# Sets LAB_RELAY_PID and LAB_RELAY_LOG. Only one relay at a time: lab_relay_stop first.
lab_relay_start() {
	local name=${1:-relay} bin n
	[ "$#" -gt 0 ] && shift
	[ "$LAB_RELAY" = 1 ] || { sy_warn "lab_relay_start: this lab has no relay (LAB_RELAY=1 before lab_up)"; return 1; }
	if [ -n "$LAB_RELAY_PID" ] && sy_pid_alive "$LAB_RELAY_PID"; then
		sy_warn "lab_relay_start: a relay runs already (pid $LAB_RELAY_PID); lab_relay_stop first"
		return 1
	fi
	bin=$(_lab_relay_bin) || return 1
	# shellcheck disable=SC2086 # split on blanks on purpose
	[ "$#" -gt 0 ] || set -- $LAB_RELAY_ARGS
	LAB_RELAY_LOG=$LAB_DIR/$name.log
	printf '=== %s %s -a %s -b %s %s\n' "$(date -u +%FT%TZ)" "$bin" "$LAB_IF_RELAY_A" \
		"$LAB_IF_RELAY_B" "$*" >>"$LAB_RELAY_LOG"
	lab_spawn root "$name" "$bin" -a "$LAB_IF_RELAY_A" -b "$LAB_IF_RELAY_B" "$@" || return 1
	LAB_RELAY_PID=$LAB_SPAWN_PID
	for n in $(seq 100); do
		grep -q ': bridging ' "$LAB_RELAY_LOG" && return 0
		sy_pid_alive "$LAB_RELAY_PID" || break
		sleep 0.1
	done
	sy_warn "sy-lossy-relay did not start bridging; its log:"
	cat "$LAB_RELAY_LOG" >&2
	return 1
}

_lab_relay_json_count() { grep -c '^{' "$LAB_RELAY_LOG" 2>/dev/null || true; }

# lab_relay_stats: print the running relay's counters (one JSON line: SIGUSR1, then the new
# line from its log) and keep them in LAB_RELAY_JSON. Fails if it does not answer in 5 s.
lab_relay_stats() {
	local before n
	[ -n "$LAB_RELAY_PID" ] && sy_pid_alive "$LAB_RELAY_PID" || { sy_warn "lab_relay_stats: no relay running"; return 1; }
	before=$(_lab_relay_json_count)
	kill -USR1 "$LAB_RELAY_PID" || return 1
	for n in $(seq 50); do
		if [ "$(_lab_relay_json_count)" -gt "$before" ]; then
			LAB_RELAY_JSON=$(grep '^{' "$LAB_RELAY_LOG" | tail -n 1)
			printf '%s\n' "$LAB_RELAY_JSON"
			return 0
		fi
		sleep 0.1
	done
	sy_warn "lab_relay_stats: no stats from the relay (pid $LAB_RELAY_PID) within 5 s"
	return 1
}

# lab_relay_stop: SIGTERM the relay, wait (10 s, then SIGKILL); its final JSON line (reason
# "sigterm": the hold queue is flushed by then) goes to LAB_RELAY_JSON, its exit status to
# LAB_RELAY_STATUS. Call it directly, not in $(...): it must reap the relay and reset
# LAB_RELAY_PID in this shell.
lab_relay_stop() {
	local deadline=$((SECONDS + 10))
	LAB_RELAY_STATUS=
	[ -n "$LAB_RELAY_PID" ] || { sy_warn "lab_relay_stop: no relay running"; return 1; }
	kill -TERM "$LAB_RELAY_PID" 2>/dev/null
	while sy_pid_alive "$LAB_RELAY_PID" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
	if sy_pid_alive "$LAB_RELAY_PID"; then
		sy_warn "sy-lossy-relay (pid $LAB_RELAY_PID) did not stop on SIGTERM; SIGKILL"
		kill -KILL "$LAB_RELAY_PID" 2>/dev/null
	fi
	wait "$LAB_RELAY_PID" 2>/dev/null
	LAB_RELAY_STATUS=$?
	LAB_RELAY_PID=
	LAB_RELAY_JSON=$(grep '^{' "$LAB_RELAY_LOG" | tail -n 1)
	[ "$LAB_RELAY_STATUS" = 0 ]
}

# Self-signed certificate for NAME (for the passthrough backends).
_lab_cert() { # NAME OUTBASE
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
		-subj "/CN=$1" -addext "subjectAltName=DNS:$1" \
		-keyout "$2.key" -out "$2.crt" >/dev/null 2>&1
}

# One nginx backend: NAME ADDR BODY CERT-NAME. HTTP on :80 and HTTPS on :443 (a certificate
# for CERT-NAME), and HTTP/2 on :18080 (h2c, prior knowledge) and :18443 (TLS, ALPN h2) for
# routerd's h2 backends: BODY on every path, "ok" on /health, 2 MiB of random bytes on
# /big.bin (the same file is $LAB_DIR/nginx-NAME/www/big.bin, to compare).
_lab_nginx() {
	local name=$1 addr=$2 body=$3 cn=$4 d=$LAB_DIR/nginx-$1 pid
	mkdir -p "$d/tmp" "$d/www"
	_lab_cert "$cn" "$d/tls" || return 1
	# 2 MiB of random bytes, for transfers that need many segments and a full window.
	head -c 2097152 /dev/urandom >"$d/www/big.bin" || return 1
	cat >"$d/nginx.conf" <<EOF
# nginx-$name for lab $LAB_ID (generated by tools/lib/lab.sh)
pid $d/nginx.pid;
error_log $d/error.log notice;
events { worker_connections 256; }
http {
    log_format proto '\$remote_addr "\$request" \$status \$body_bytes_sent \$server_port';
    access_log $d/access.log proto;
    client_body_temp_path $d/tmp/body;
    proxy_temp_path $d/tmp/proxy;
    fastcgi_temp_path $d/tmp/fastcgi;
    uwsgi_temp_path $d/tmp/uwsgi;
    scgi_temp_path $d/tmp/scgi;
    default_type text/plain;
    client_max_body_size 16m;
    server {
        listen $addr:80;
        listen $addr:443 ssl;
        listen $addr:18080 http2;
        listen $addr:18443 ssl http2;
        server_name $cn;
        ssl_certificate $d/tls.crt;
        ssl_certificate_key $d/tls.key;
        add_header X-Backend $name always;
        location = /health { return 200 "ok\n"; }
        location = /big.bin { root $d/www; }
        location / { return 200 "$body\n"; }
    }
}
EOF
	setsid ip netns exec "$LAB_NS_BACKEND" nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf" \
		-g 'daemon off; master_process off;' </dev/null >>"$d/stdout.log" 2>&1 &
	pid=$!
	lab_track "$pid" "nginx-$name"
	sy_poll 10 lab_backend curl -sf --max-time 1 "http://$addr/health" || {
		sy_warn "nginx-$name did not answer on http://$addr/health:"
		cat "$d/error.log" >&2
		return 1
	}
}

_lab_write_env() {
	local v
	{
		echo "# lab $LAB_ID, written by tools/lib/lab.sh; source it from bash"
		for v in LAB_ID LAB_WORKERS LAB_PORT_KIND LAB_DIR LAB_NS_CLIENT LAB_NS_BACKEND LAB_IF_CLIENT \
			LAB_IF_CLIENT_PEER LAB_IF_BACKEND LAB_IF_BACKEND_PEER LAB_ROUTER_IP LAB_CLIENT_IP \
			LAB_ROUTER_BACKEND_IP LAB_BACKEND_A_IP LAB_BACKEND_B_IP LAB_UNUSED_IP LAB_DOMAIN \
			LAB_ROUTING_SUBDOMAIN LAB_SOCKET LAB_STATE_DIR LAB_ROUTERD_CONFIG LAB_ROUTERD_LOG \
			LAB_RELAY LAB_RELAY_ARGS LAB_IF_RELAY_A LAB_IF_RELAY_B LAB_RELAY_LOG; do
			printf '%s=%q\n' "$v" "${!v}"
		done
		printf 'ROUTERCTL_SOCKET=%q\n' "$LAB_SOCKET"
	} >"$LAB_ENV"
}

# Generate routerd's config from the template (placeholders in config/lab.routerd.json).
# LAB_PORT_KIND=af_xdp turns the template's net_af_packet ports into net_af_xdp ones, with
# busy_budget=0: the driver's default (64) makes every empty receive poll a recvfrom
# syscall, for the kernel's preferred busy polling, which on a veth has nothing to poll.
lab_write_config() {
	local xdp='s|"net_af_packet\([0-9]*\),iface=\([^",]*\)"|"net_af_xdp\1,iface=\2,busy_budget=0"|'
	[ -f "$LAB_TEMPLATE" ] || { sy_warn "no template $LAB_TEMPLATE"; return 1; }
	[ "$LAB_PORT_KIND" = af_xdp ] || xdp=
	sed -e "$xdp" -e "s|\"@WORKERS@\"|$LAB_WORKERS|g" \
		-e "s|@CLIENT_IFACE@|$LAB_IF_CLIENT|g" \
		-e "s|@BACKEND_IFACE@|$LAB_IF_BACKEND|g" \
		-e "s|@SOCKET@|$LAB_SOCKET|g" \
		-e "s|@STATE_DIR@|$LAB_STATE_DIR|g" \
		"$LAB_TEMPLATE" >"$LAB_ROUTERD_CONFIG"
}

# Build the whole lab. On failure returns non-zero and leaves the pieces for lab_down.
lab_up() {
	[ -n "${LAB_ID:-}" ] || { sy_warn "lab_up: call lab_init first"; return 1; }
	if [ -e "$LAB_DIR" ] || ip netns list | grep -qE "^($LAB_NS_CLIENT|$LAB_NS_BACKEND)( |\$)"; then
		sy_warn "lab '$LAB_ID' already exists (tools/lab down --id $LAB_ID removes it)"
		return 1
	fi
	mkdir -p "$LAB_DIR" "$LAB_STATE_DIR" && chmod 700 "$LAB_DIR" || return 1
	: >"$LAB_PIDS"
	local ns
	for ns in "$LAB_NS_CLIENT" "$LAB_NS_BACKEND"; do
		ip netns add "$ns" || return 1
		ip -n "$ns" link set lo up || return 1
	done
	if [ "$LAB_RELAY" = 1 ]; then
		_lab_relay_bin >/dev/null || return 1
		_lab_veth "$LAB_IF_RELAY_A" "$LAB_IF_CLIENT_PEER" "$LAB_NS_CLIENT" "$LAB_CLIENT_IP/24" || return 1
		_lab_root_veth "$LAB_IF_RELAY_B" "$LAB_IF_CLIENT" || return 1
		lab_relay_start relay || return 1
	else
		_lab_veth "$LAB_IF_CLIENT" "$LAB_IF_CLIENT_PEER" "$LAB_NS_CLIENT" "$LAB_CLIENT_IP/24" || return 1
	fi
	_lab_veth "$LAB_IF_BACKEND" "$LAB_IF_BACKEND_PEER" "$LAB_NS_BACKEND" \
		"$LAB_BACKEND_A_IP/24" "$LAB_BACKEND_B_IP/24" || return 1
	_lab_nginx a "$LAB_BACKEND_A_IP" backend-a "a.passthrough.$LAB_DOMAIN" || return 1
	_lab_nginx b "$LAB_BACKEND_B_IP" backend-b "b.passthrough.$LAB_DOMAIN" || return 1
	lab_write_config || return 1
	_lab_write_env
}

# Stop PID (ours) with SIGTERM, then SIGKILL after SECONDS.
_lab_stop_pid() { # PID SECONDS [STARTTIME]
	local pid=$1 deadline=$((SECONDS + $2)) kids
	lab_owns_pid "$pid" "${3:--}" || return 0
	# A tracked subshell (`lab_backend cmd &` forks one) has the real process as its child:
	# stop the children too (by PID: they are ours).
	kids=$(ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' ' | tr '\n' ' ')
	kill -TERM "$pid" $kids 2>/dev/null
	while sy_pid_alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
	if sy_pid_alive "$pid"; then
		sy_warn "pid $pid did not stop on SIGTERM; SIGKILL"
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null || true
}

# Remove everything lab LAB_ID made. Idempotent; touches only names derived from the id and
# processes recorded in $LAB_PIDS.
lab_down() {
	[ -n "${LAB_ID:-}" ] || return 0
	local pid kind st ns dev
	if [ -f "$LAB_PIDS" ]; then
		# routerd first (it holds the root veth ends), then the backends.
		while read -r pid kind st; do
			[ "$kind" = routerd ] && _lab_stop_pid "$pid" 10 "$st"
		done <"$LAB_PIDS"
		while read -r pid kind st; do
			[ "$kind" != routerd ] && _lab_stop_pid "$pid" 5 "$st"
		done <"$LAB_PIDS"
	fi
	for ns in "$LAB_NS_CLIENT" "$LAB_NS_BACKEND"; do
		ip netns list | grep -qE "^$ns( |\$)" && ip netns del "$ns"
	done
	# Deleting a namespace destroys its veth end and with it the root end; make sure.
	# The relay's root-only pair (syIDcr/syIDc0) goes with neither namespace: delete it here.
	# `ip netns del` returns before the kernel has destroyed the pair, so a root end can
	# vanish between the look and the delete: only one that is still there afterwards
	# is worth a word.
	# LAB_EXTRA_IFS: root-namespace devices a lab of another shape made (bridges, more
	# veths: tools/lib/vrrp_lab.sh).
	for dev in "$LAB_IF_CLIENT" "$LAB_IF_BACKEND" "$LAB_IF_RELAY_A" "$LAB_IF_RELAY_B" ${LAB_EXTRA_IFS:-}; do
		if ip link show "$dev" >/dev/null 2>&1 && ! ip link del "$dev" 2>/dev/null; then
			sleep 0.2
			ip link show "$dev" >/dev/null 2>&1 && sy_warn "could not remove interface $dev"
		fi
	done
	case "$LAB_DIR" in
	"$LAB_ROOT"/?*) rm -rf "$LAB_DIR" ;;
	esac
	rmdir "$LAB_ROOT" "$(dirname "$LAB_ROOT")" 2>/dev/null || true
	return 0
}

# Install an EXIT/INT/TERM trap that removes the lab (and runs LAB_ON_EXIT first, if set,
# e.g. to print logs). The script's exit status is kept.
lab_cleanup_on_exit() {
	trap '_lab_exit_trap' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
_lab_exit_trap() {
	local rc=$?
	trap - EXIT INT TERM
	if [ -n "${LAB_ON_EXIT:-}" ]; then
		$LAB_ON_EXIT "$rc" || true
	fi
	lab_down
	exit "$rc"
}

# ---- routerd -------------------------------------------------------------------------

# lab_routerd_start [CONFIG]: start routerd in the background (root namespace), logging to
# $LAB_ROUTERD_LOG (appended, so restarts keep the earlier log). Sets ROUTERD_PID.
lab_routerd_start() {
	local cfg=${1:-$LAB_ROUTERD_CONFIG}
	[ -x "${ROUTERD:-}" ] || { sy_warn "ROUTERD is not set to an executable (got '${ROUTERD:-}')"; return 1; }
	printf '=== %s starting %s -c %s\n' "$(date -u +%FT%TZ)" "$ROUTERD" "$cfg" >>"$LAB_ROUTERD_LOG"
	if [ -n "${LAB_HOSTS_FILE:-}" ]; then
		# routerd sees LAB_HOSTS_FILE as its /etc/hosts (host-name backends resolve
		# to lab addresses), in a mount namespace of its own: the machine's file is
		# untouched, and unshare execs, so the PID is routerd's.
		setsid unshare -m --propagation private sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' \
			"$LAB_HOSTS_FILE" "$ROUTERD" -c "$cfg" </dev/null >>"$LAB_ROUTERD_LOG" 2>&1 &
	else
		setsid "$ROUTERD" -c "$cfg" </dev/null >>"$LAB_ROUTERD_LOG" 2>&1 &
	fi
	ROUTERD_PID=$!
	lab_track "$ROUTERD_PID" routerd
}

_lab_routerd_ready() {
	"$ROUTERCTL" -s "$LAB_SOCKET" status >/dev/null 2>&1
}

# lab_routerd_wait [SECONDS]: poll `routerctl status` until it answers (default 30 s).
# Fails at once if routerd exits meanwhile.
lab_routerd_wait() {
	local deadline=$((SECONDS + ${1:-30}))
	[ -x "${ROUTERCTL:-}" ] || { sy_warn "ROUTERCTL is not set to an executable (got '${ROUTERCTL:-}')"; return 1; }
	until _lab_routerd_ready; do
		if ! sy_pid_alive "$ROUTERD_PID"; then
			wait "$ROUTERD_PID" 2>/dev/null
			sy_warn "routerd (pid $ROUTERD_PID) exited with status $? before its control socket answered"
			return 1
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			sy_warn "routerd did not answer on $LAB_SOCKET within ${1:-30} s"
			return 1
		fi
		sleep 0.2
	done
}

# lab_routerd_stop [SECONDS] [SIGNAL]: signal routerd (default SIGTERM) and wait up to
# SECONDS (default 10). Sets ROUTERD_STATUS to its exit status, or to "timeout" (then it is
# killed with SIGKILL). Returns 0 only on exit status 0.
lab_routerd_stop() {
	local secs=${1:-10} sig=${2:-TERM}
	ROUTERD_STATUS=
	[ -n "$ROUTERD_PID" ] || return 1
	kill -"$sig" "$ROUTERD_PID" 2>/dev/null
	lab_routerd_wait_exit "$secs"
}

# lab_routerd_wait_exit [SECS]: wait (default 10 s) for routerd to exit by itself, then
# SIGKILL it; ROUTERD_STATUS its exit status, or "timeout". Returns 0 on exit status 0.
lab_routerd_wait_exit() {
	local deadline=$((SECONDS + ${1:-10}))
	ROUTERD_STATUS=
	[ -n "$ROUTERD_PID" ] || return 1
	while sy_pid_alive "$ROUTERD_PID" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.05; done
	if sy_pid_alive "$ROUTERD_PID"; then
		ROUTERD_STATUS=timeout
		kill -KILL "$ROUTERD_PID" 2>/dev/null
		wait "$ROUTERD_PID" 2>/dev/null
	else
		wait "$ROUTERD_PID" 2>/dev/null
		ROUTERD_STATUS=$?
	fi
	ROUTERD_PID=
	[ "$ROUTERD_STATUS" = 0 ]
}

# routerctl on this lab's socket.
lab_routerctl() { "$ROUTERCTL" -s "$LAB_SOCKET" "$@"; }
