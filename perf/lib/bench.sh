# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# What perf/churn and perf/proxy share: one wrk run measured from outside with the proxy's
# CPU (process CPU time for a kernel proxy, the worker's busy cycles for routerd), a fresh
# namespace lab per proxy, and the root ends' addresses for a kernel proxy (HAProxy, nginx).
# Sourced after tools/lib/lab.sh, with lab_init done. The caller sets REPORT (wrk_report.lua),
# ROUTERD and duration (seconds per wrk run); rows go to ROWS, the kernel proxy's PID in KPID.
# shellcheck disable=SC2154 # duration: set by the caller
ROWS=()
PHASES=() # measure: a -Dpoll_phases=true routerd's busy cycles by part, a line a run
KPID=
CPU_TICK=$(getconf CLK_TCK)
# IPv6 on the lab's client link (perf/proxy --family 6, issue 36; 2001:2::/48 only): the
# router's address (routerd's port "client", or the root end for a kernel proxy) and the
# client namespace's. BENCH_URL_HOST: the router as a URL's host ("[2001:2::1]" for IPv6);
# measure, start_haproxy and start_nginx send there (default the lab's IPv4 address).
BENCH_ROUTER_IP6=2001:2::1
BENCH_CLIENT_IP6=2001:2::2
BENCH_URL_HOST=
bench_url_host() { printf '%s' "${BENCH_URL_HOST:-$LAB_ROUTER_IP}"; }

# The proxy the kernel runs (HAProxy, nginx): stop it and take the addresses back.
stop_kernel_proxy() {
	if [ -n "$KPID" ] && sy_pid_alive "$KPID"; then
		kill "$KPID" 2>/dev/null
		sy_poll 5 bash -c "! kill -0 $KPID 2>/dev/null" || kill -KILL "$KPID" 2>/dev/null
	fi
	KPID=
	ip addr flush dev "$LAB_IF_CLIENT" 2>/dev/null
	sysctl -qw "net.ipv6.conf.$LAB_IF_CLIENT.disable_ipv6=1" 2>/dev/null # (kernel_addrs6)
	ip addr flush dev "$LAB_IF_BACKEND" 2>/dev/null
	return 0
}

# proc_ticks PID: "UTIME STIME" of /proc/PID/stat, in clock ticks ("0 0" when gone).
proc_ticks() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0 0; return; }
	st=${st##*) }
	# shellcheck disable=SC2086 # split into fields on purpose
	set -- $st
	echo "${12} ${13}"
}
proc_cpu_ticks() { # PID: utime + stime
	local u s
	read -r u s <<<"$(proc_ticks "$1")"
	echo $((u + s))
}
proc_sys_ticks() { # PID: stime alone, the kernel's work on the process's behalf
	local u s
	read -r u s <<<"$(proc_ticks "$1")"
	echo "$s"
}

# vcpu_noise CPU: one line on how often CPU is taken away from a spinning thread (2 s of
# $BUILD/perf/vcpu_gaps): on a VM, what runs meanwhile empties the caches, and a proxy's
# costs per unit grow with it (perf/README.md, "tls", 2026-11-27 afternoon).
vcpu_noise() {
	[ -x "$BUILD/perf/vcpu_gaps" ] || { echo "(no $BUILD/perf/vcpu_gaps)"; return 0; }
	taskset -c "$1" "$BUILD/perf/vcpu_gaps" --seconds 2 | sed -n 's/^Taken away/CPU '"$1"' taken away/p'
}

tw_count() { lab_backend ss -Htan state time-wait | wc -l; }

# backend_opens: connections the backends' namespace has accepted so far (TCP PassiveOpens).
backend_opens() {
	# shellcheck disable=SC2016 # awk's fields, not the shell's
	lab_backend awk '$1 == "Tcp:" { if (n) { print $n; exit } for (i = 1; i <= NF; i++) if ($i == "PassiveOpens") n = i }' /proc/net/snmp
}

# cpu_snapshot PROXY: "BUSY IDLE TICKS": for routerd (any PROXY starting with routerd) worker 0's
# busy and idle cycles and routerd's process CPU ticks; for a kernel proxy "- - TICKS" of KPID.
# Two snapshots around a run give the proxy's CPU over it (perf/tls).
cpu_snapshot() {
	if [ "${1#routerd}" != "$1" ]; then
		printf '%s %s\n' "$(routerd_cycles | cut -d' ' -f1,2)" "$(proc_cpu_ticks "$ROUTERD_PID")"
	else
		printf -- '- - %s\n' "$(proc_cpu_ticks "$KPID")"
	fi
}

# core_ticks CPU: "BUSY TOTAL" ticks of one CPU from /proc/stat (busy: user, nice, system,
# irq, softirq, steal; total adds idle and iowait): how loaded the client's core was.
core_ticks() {
	awk -v c="cpu$1" '$1 == c { b = $2 + $3 + $4 + $7 + $8 + $9; print b, b + $5 + $6 }' /proc/stat
}

# routerd_tsc_hz: the rate routerd's cycle counters tick at (`routerctl stats`' tsc_hz).
# Cycles over a run become time by it, not by busy + idle over the run's wall time: the
# counters are read around the run, so that window is longer than the wall time measured
# (by the readings themselves, some 0.2 s: a quarter of a quick perf/h2 run, whose busy
# time per request it understated by as much, 2026-12-01).
routerd_tsc_hz() {
	lab_routerctl stats -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["tsc_hz"])'
}

# routerd_cycles: worker 0's busy and idle cycles, busy loops, RX and TX packets, TX calls,
# then its busy polls' parts (all 0 unless routerd was built with -Dpoll_phases=true).
routerd_cycles() {
	lab_routerctl stats -o json | python3 -c \
		'import json,sys; w=json.load(sys.stdin)["workers"][0]; print(*(w[k] for k in ("busy_cycles", "idle_cycles", "busy_loops", "rx_packets", "tx_packets", "tx_bursts", "poll_pre_cycles", "poll_rx_cycles", "poll_input_cycles", "poll_timer_cycles", "poll_tx_cycles")))'
}

# measure PROXY RUN CONNS close|keepalive [HOST]: one wrk run of D seconds ($duration) from
# the client namespace on CPU 0; appends a table row to ROWS (printed to stderr too). Without
# HOST the requests go round SY_WRK_MIX's (Host, path) pairs (wrk_report.lua).
measure() {
	local proxy=$1 run=$2 c=$3 mode=$4 host=${5:-} out tw cpu0 cpu1 b0 b1 i0 i1 t0 t1 o0 o1
	local l0 l1 r0 r1 x0 x1 k0 k1 ph0 ph1 line hz=
	local -a hdr=()
	[ -n "$host" ] && hdr+=(-H "Host: $host")
	[ "$mode" = close ] && hdr+=(-H 'Connection: close')
	tw=$(tw_count)
	if [ "${proxy#routerd}" != "$proxy" ]; then # routerd, routerd proxy, routerd splice
		read -r b0 i0 l0 r0 x0 k0 ph0 < <(routerd_cycles)
		hz=$(routerd_tsc_hz)
		cpu0=$(proc_cpu_ticks "$ROUTERD_PID")
	else
		cpu0=$(proc_cpu_ticks "$KPID")
	fi
	o0=$(backend_opens)
	t0=$(date +%s.%N)
	out=$(lab_client taskset -c 0 wrk -t1 -c"$c" -d"${duration}s" --timeout 5s -s "$REPORT" \
		"${hdr[@]}" "http://$(bench_url_host)/" | grep '^{' | tail -n 1)
	t1=$(date +%s.%N)
	o1=$(backend_opens)
	[ -n "$out" ] || { sy_warn "$proxy $run: wrk printed no report"; return 1; }
	if [ -n "${b0:-}" ]; then
		read -r b1 i1 l1 r1 x1 k1 ph1 < <(routerd_cycles)
		cpu1=$(proc_cpu_ticks "$ROUTERD_PID")
	else
		cpu1=$(proc_cpu_ticks "$KPID")
	fi
	local -a made
	mapfile -t made < <(python3 - "$proxy" "$run" "$c" "$mode" "$out" "$tw" "$cpu0" "$cpu1" "$CPU_TICK" \
		"$t0" "$t1" "${b0:-}" "${b1:-0}" "${i0:-0}" "${i1:-0}" "$o0" "$o1" \
		"${l0:-0}" "${l1:-0}" "${r0:-0}" "${r1:-0}" "${x0:-0}" "${x1:-0}" "${k0:-0}" "${k1:-0}" \
		"${ph0:-0 0 0 0 0}" "${ph1:-0 0 0 0 0}" "${hz:-0}" <<'PY'
import json, sys
(proxy, run, c, mode, out, tw, cpu0, cpu1, tick, t0, t1, b0, b1, i0, i1, o0, o1,
 l0, l1, r0, r1, x0, x1, k0, k1, ph0, ph1, tsc_hz) = sys.argv[1:]
d = json.loads(out)
req = max(d["requests"], 1)
opens = int(o1) - int(o0)  # by the proxy, and by nothing else in the lab during the run
rate = d["requests"] / (d["duration_us"] / 1e6)
errs = d["connect"] + d["read"] + d["write"] + d["timeout"]
proc = (int(cpu1) - int(cpu0)) / int(tick) / req * 1e6
if b0:
    busy, idle = int(b1) - int(b0), int(i1) - int(i0)
    hz = int(tsc_hz)  # routerd_tsc_hz
    load = busy / max(busy + idle, 1)
    polls, rx, tx = int(l1) - int(l0), int(r1) - int(r0), int(x1) - int(x0)
    # Packets per request both ways, and how many arrive per busy poll: a poll's fixed
    # cost (and each port's TX call) is shared by that many.
    calls = int(k1) - int(k0)
    cpu = (f"{busy / hz / req * 1e6:.1f} us busy ({proc:.1f} us process; worker {load:.0%} busy;"
           f" {rx / req:.1f} in, {tx / req:.1f} out per request, {rx / max(polls, 1):.1f} in per busy poll,"
           f" {tx / max(calls, 1):.1f} out per TX call)")
    # A -Dpoll_phases=true build: where the busy polls' cycles went (PHASES, printed
    # under the table by the caller).
    ph = [int(b) - int(a) for a, b in zip(ph0.split(), ph1.split())]
    if sum(ph) > 0:
        names = ("rings", "RX calls", "our processing", "timers", "TX calls")
        parts = ", ".join(f"{n} {v / hz / req * 1e6:.1f} us ({v / max(busy, 1):.0%})"
                          for n, v in zip(names, ph))
        print(f"PHASES {proxy}, {run}: per request {parts};"
              f" {ph[4] / max(calls, 1):,.0f} cycles per TX call, {ph[4] / max(tx, 1):,.0f} per frame sent;"
              f" {ph[2] / max(rx, 1):,.0f} cycles of our processing per frame received")
else:
    cpu = f"{proc:.1f} us"
ms = lambda us: f"{us / 1000:.2f} ms"
if run.replace("-", "") != mode:
    run = f"{run} ({mode})"
print(f"| {proxy} | {run} | {c} | {rate:,.0f} | {ms(d['lat_p50_us'])} | {ms(d['lat_p99_us'])} "
      f"| {ms(d['lat_max_us'])} | {errs} | {d['status']} | {cpu} | {opens:,} ({opens / req:.2f}/req) | {tw} |")
PY
)
	for line in "${made[@]}"; do
		case $line in
		"PHASES "*) PHASES+=("- ${line#PHASES }") ;;
		*) ROWS+=("$line") ;;
		esac
		printf '%s\n' "$line" >&2
	done
}

# fresh_lab: a new lab (no TIME_WAIT anywhere), nginx backends up; the peers' receive work
# steered to CPU 0 and the backends pinned there unless BENCH_STEER=0 (steer_peer_rx,
# pin_backends).
fresh_lab() {
	stop_kernel_proxy
	lab_down
	lab_up >/dev/null || sy_die "lab up failed"
	[ "${BENCH_STEER:-1}" = 0 ] || steer_peer_rx 0 || sy_die "could not steer the peers' receive work"
	[ "${BENCH_STEER:-1}" = 0 ] || pin_backends 0 || sy_die "could not pin the backends"
}

# pin_backends CPU: the lab's nginx backends run on CPU, with wrk, so that the proxy's CPU
# is the proxy's alone. Left to the scheduler they land on the proxy's CPU too (22 % of
# CPU 1's samples in a splice run, 2026-11-26), and there they cost each proxy differently:
# a kernel proxy's process time does not include them, but routerd's busy cycles are wall
# time and count every preemption that falls inside a busy poll.
pin_backends() { # CPU
	local pid name _
	while read -r pid name _; do
		case $name in nginx-*) taskset -a -pc "$1" "$pid" >/dev/null || return 1 ;; esac
	done <"$LAB_PIDS"
}

# steer_peer_rx CPU: the client's and backends' kernels receive on CPU, whoever sends.
# On a veth pair the receiving end's whole stack (IP, TCP, waking the reader) runs inside
# the sender's transmit call, so without this a proxy's CPU time includes wrk's and nginx's
# TCP receive work for every packet it sends them (65 % of routerd's worker samples in a
# splice keep-alive profile). RPS on the peer ends queues that work to CPU instead, as if
# client and backends were other machines. It is set on the client's and backends' ends
# only: what the proxy receives is still processed as before (in the sender's context:
# af_packet's ring for routerd, the socket's TCP receive for HAProxy and nginx), the same
# for every proxy in a run.
steer_peer_rx() { # CPU
	local mask dev ns
	mask=$(printf '%x' $((1 << $1)))
	for ns in client backend; do
		if [ $ns = client ]; then dev=$LAB_IF_CLIENT_PEER; else dev=$LAB_IF_BACKEND_PEER; fi
		"lab_$ns" sh -c "for q in /sys/class/net/$dev/queues/rx-*; do echo $mask > \$q/rps_cpus; done" || return 1
	done
}

# kernel_addrs: the root ends get the router's addresses, and the kernel answers ARP.
kernel_addrs() {
	local dev
	for dev in "$LAB_IF_CLIENT" "$LAB_IF_BACKEND"; do
		sysctl -qw "net.ipv4.conf.$dev.arp_ignore=0"
	done
	ip addr add "$LAB_ROUTER_IP/24" dev "$LAB_IF_CLIENT" || return 1
	ip addr add "$LAB_ROUTER_BACKEND_IP/24" dev "$LAB_IF_BACKEND" || return 1
}

# kernel_addrs6: the root end of the client link also gets the router's IPv6 address
# (after kernel_addrs; no DAD, no router advertisements taken). stop_kernel_proxy turns
# IPv6 off there again.
kernel_addrs6() {
	local dev=$LAB_IF_CLIENT
	sysctl -qw "net.ipv6.conf.$dev.accept_dad=0" "net.ipv6.conf.$dev.accept_ra=0" \
		"net.ipv6.conf.$dev.disable_ipv6=0" || return 1
	ip -6 addr add "$BENCH_ROUTER_IP6/64" dev "$dev" nodad
}

# client_ipv6: the client namespace's end gets BENCH_CLIENT_IP6/64 (no DAD, no router
# advertisements taken: the on-link /64 is its only IPv6 route), as tests/integration/tcp6.sh.
client_ipv6() {
	local dev=$LAB_IF_CLIENT_PEER
	lab_client sysctl -qw "net.ipv6.conf.$dev.accept_dad=0" "net.ipv6.conf.$dev.accept_ra=0" \
		"net.ipv6.conf.$dev.disable_ipv6=0" || return 1
	lab_client ip -6 addr add "$BENCH_CLIENT_IP6/64" dev "$dev" nodad
}

# start_haproxy CFG-BODY HOST [GLOBAL-LINES [CURL-ARGS...]]: HAProxy (one thread, http mode)
# on CPU 1 with the frontend and backends in CFG-BODY and GLOBAL-LINES added to its global
# section (perf/tls: the TLS settings); waits until it answers: curl with CURL-ARGS from the
# client namespace, by default http://<router address>/ with Host: HOST.
start_haproxy() {
	local d=$LAB_DIR/haproxy body=$1 host=$2 global=${3:-}
	local -a check=(-g -H "Host: $host" "http://$(bench_url_host)/")
	[ "$#" -gt 3 ] && check=("${@:4}")
	mkdir -p "$d"
	cat >"$d/haproxy.cfg" <<CFG
global
    nbthread 1
    maxconn 8000
$global
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
$body
CFG
	lab_spawn root haproxy taskset -c 1 haproxy -db -f "$d/haproxy.cfg"
	KPID=$LAB_SPAWN_PID
	sy_poll 10 lab_client curl -sf -m 1 "${check[@]}" ||
		sy_die "HAProxy does not answer (see $LAB_DIR/haproxy.log)"
}

# start_nginx HTTP-BODY HOST: nginx (one worker, no master) on CPU 1 with HTTP-BODY in its
# http block; waits until it answers HOST.
start_nginx() {
	local d=$LAB_DIR/nginx-proxy
	mkdir -p "$d/tmp"
	cat >"$d/nginx.conf" <<CFG
pid $d/nginx.pid;
worker_processes 1;
error_log $d/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $d/tmp/body;
    proxy_temp_path $d/tmp/proxy;
    fastcgi_temp_path $d/tmp/fastcgi;
    uwsgi_temp_path $d/tmp/uwsgi;
    scgi_temp_path $d/tmp/scgi;
$1
}
CFG
	lab_spawn root nginx-proxy taskset -c 1 nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf" \
		-g 'daemon off; master_process off;'
	KPID=$LAB_SPAWN_PID
	sy_poll 10 lab_client curl -gsf -m 1 -H "Host: $2" "http://$(bench_url_host)/" ||
		sy_die "nginx does not answer (see $d/error.log)"
}

# table_header: the markdown table's first two lines.
table_header() {
	printf '\n| proxy | run | conns | req/s | p50 | p99 | max | socket errors | non-2xx | CPU/request | backend connections opened | backend TIME_WAITs at start |\n'
	printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
}
