# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the integration tests (sourced; not a test itself).
# meson passes ROUTERD, ROUTERCTL and SY_SRC (see meson.build). Each test builds its own lab
# with a unique id, starts its own routerd, and removes everything on exit, even on failure.
set -uo pipefail

: "${SY_SRC:?SY_SRC is not set (run through meson test)}"
SY_LOG_TAG="[${T_NAME:-$(basename "$0" .sh)}]"
# shellcheck source=../../tools/lib/lab.sh
source "$SY_SRC/tools/lib/lab.sh"

T_NUM=0
T_T0=${EPOCHREALTIME/./}
T_OUT=
T_ERR=
T_RC=0

t_note() { printf '# %s\n' "$*"; }
# _t_at: seconds since the test began, to a tenth ("12.3"); every result line carries it, so
# that a test log says where a slow test spends its time.
_t_at() {
	local us=$((${EPOCHREALTIME/./} - T_T0))
	printf '%d.%d' $((us / 1000000)) $((us / 100000 % 10))
}
t_ok() {
	T_NUM=$((T_NUM + 1))
	printf 'ok %d - %s [%s s]\n' "$T_NUM" "$*" "$(_t_at)"
}
# t_fail WHAT [DETAIL...]: report the first failed assertion and stop the test.
t_fail() {
	T_NUM=$((T_NUM + 1))
	printf 'not ok %d - %s [%s s]\n' "$T_NUM" "$1" "$(_t_at)"
	shift
	local l
	for l in "$@"; do printf '#   %s\n' "$l"; done
	exit 1
}
t_skip_all() {
	printf '1..0 # SKIP %s\n' "$*"
	exit 77
}

# t_run CMD...: run CMD, keep stdout in T_OUT, stderr in T_ERR, status in T_RC.
t_run() {
	local ef
	ef=$(mktemp)
	T_OUT=$("$@" 2>"$ef")
	T_RC=$?
	T_ERR=$(cat "$ef")
	rm -f "$ef"
	return 0
}
# Last command's output, for failure messages.
t_seen() { printf 'exit %s; stdout: %s; stderr: %s' "$T_RC" "${T_OUT:0:1500}" "${T_ERR:0:800}"; }

# rctl ARGS...: routerctl on this test's socket, through t_run.
rctl() { t_run "$ROUTERCTL" -s "$LAB_SOCKET" "$@"; }

# t_in_flight N: routerd holds at least N live connections (`routerctl conns`).
# A test that signals routerd "with a request in flight" waits for this, not a fixed pause:
# on a loaded machine the client may not have connected yet.
t_in_flight() {
	"$ROUTERCTL" -s "$LAB_SOCKET" conns -o json 2>/dev/null |
		python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["flows_active"] < int(sys.argv[1]))' "$1"
}

# t_stop_bg PID: stop a background `lab_client CMD &` (or lab_backend): the subshell that `&`
# forked and CMD, its child (both by PID; ours). Killing the subshell alone leaves CMD running
# with the test's output open, and meson waits for that: a curl -m 40 kept the drain test
# 39 s past its last line.
t_stop_bg() {
	kill "$1" $(ps -o pid= --ppid "$1" 2>/dev/null) 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# poll_until SECONDS CMD...: CMD until it succeeds, SECONDS at most; WAITED = seconds taken.
poll_until() {
	local t0 deadline
	t0=$(date +%s.%N)
	deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || { WAITED=timeout; return 1; }
		sleep 0.1
	done
	WAITED=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)")
}
# store_of SOCK PYEXPR: PYEXPR over d = the status op's "store" of the routerd on SOCK ("?"
# when it does not answer).
store_of() {
	local j
	j=$("$ROUTERCTL" -s "$1" status -o json 2>/dev/null) || { echo "?"; return; }
	t_json "$j" "(lambda d: $2)(d['store'])" 2>/dev/null || echo "?"
}
# t_expect_rc WANT WHAT: the last t_run exited WANT (a number or a|b list like 1|2).
t_expect_rc() {
	[[ "|$1|" == *"|$T_RC|"* ]] || t_fail "$2" "expected exit status $1" "seen: $(t_seen)"
}
# t_expect_out REGEX WHAT: stdout+stderr of the last t_run matches the extended REGEX.
t_expect_out() {
	# A here-string, not a pipe: grep -q leaves at the first match, and under pipefail
	# a writer still writing a long output would die of SIGPIPE and fail the check.
	grep -Eq -- "$1" <<<"$T_OUT"$'\n'"$T_ERR" ||
		t_fail "$2" "expected output matching /$1/" "seen: $(t_seen)"
}
t_expect_no_out() {
	! grep -Eq -- "$1" <<<"$T_OUT"$'\n'"$T_ERR" ||
		t_fail "$2" "expected no output matching /$1/" "seen: $(t_seen)"
}

# t_json JSON PYEXPR: evaluate a Python expression over the parsed JSON `d` and print the
# result (JSON for lists/objects/None/bools, plain for strings and numbers).
t_json() {
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
v = eval(sys.argv[2], {"d": d})
print(v if isinstance(v, (str, int, float)) and not isinstance(v, bool) else json.dumps(v))
' "$1" "$2"
}
# t_json_expect JSON PYEXPR WHAT: fail unless PYEXPR over `d` is true.
t_json_expect() {
	local v
	v=$(t_json "$1" "bool($2)" 2>&1) || t_fail "$3" "could not evaluate $2 over the JSON: $v" "JSON: ${1:0:1500}"
	[ "$v" = true ] || t_fail "$3" "expected: $2" "JSON: ${1:0:1500}"
}

# Common start: root check, lab up, trap, routerd running and answering.
# t_setup ID-PREFIX [WORKERS]
t_setup() {
	_t_lab_init "$@"
	lab_up || t_fail "lab up" "building the namespace lab failed (see the warnings above)"
	t_ok "lab $LAB_ID up (namespaces, veths, nginx backends answer)"
}
# t_setup_bare ID-PREFIX: the same without namespaces, veths, nginx or the lab's routerd
# config: only $LAB_DIR, the list of processes to stop and the cleanup on exit, for tests
# whose routerds have no ports (etcd_tls.sh).
t_setup_bare() {
	_t_lab_init "$1" 1
	[ ! -e "$LAB_DIR" ] || t_fail "setup" "$LAB_DIR already exists"
	mkdir -p "$LAB_DIR" && chmod 700 "$LAB_DIR" && : >"$LAB_PIDS" || t_fail "setup" "mkdir $LAB_DIR"
}
_t_lab_init() { # ID-PREFIX [WORKERS]
	[ "$(id -u)" -eq 0 ] || t_skip_all "needs root (network namespaces)"
	[ -x "${ROUTERD:-}" ] || t_fail "setup" "ROUTERD is not an executable: '${ROUTERD:-}'"
	[ -x "${ROUTERCTL:-}" ] || t_fail "setup" "ROUTERCTL is not an executable: '${ROUTERCTL:-}'"
	# A unique id: the prefix and this shell's PID (<= 10 chars for interface names).
	lab_init "$1$(($$ % 10000000))" "${2:-1}" || t_fail "setup" "bad lab id"
	LAB_ON_EXIT=_t_on_exit
	lab_cleanup_on_exit
	t_note "lab $LAB_ID, routerd $ROUTERD, routerctl $ROUTERCTL, workers $LAB_WORKERS"
}

# t_config_set KEY JSON: set KEY of the lab's routerd config to the JSON value (before
# t_start_routerd).
t_config_set() {
	python3 - "$LAB_ROUTERD_CONFIG" "$1" "$2" <<'PY' || t_fail "set $1 in the routerd config" "value: $2"
import json, sys
p, key, value = sys.argv[1:4]
c = json.load(open(p))
c[key] = json.loads(value)
json.dump(c, open(p, "w"), indent=1)
PY
}

# t_start_routerd [WHAT]: start routerd on the lab config and wait for its socket (30 s).
# t_flows_zero SECONDS: poll routerctl stats until flows_active is 0 (parked backend legs of
# the proxy's idle pool live 4 s, client legs' TIME_WAIT records 2 s); 1 if it is not within
# SECONDS, T_OUT the last stats.
t_flows_zero() {
	local deadline=$((SECONDS + $1))
	while :; do
		rctl stats -o json
		[ "$(t_json "$T_OUT" 'd["total"]["flows_active"]')" = 0 ] && return 0
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.5
	done
}

# t_mbufs_stats: routerctl stats into T_OUT, MBUFS the packet buffers out of routerd's pool
# now ("mbufs" "in_use"). In the caller's shell, so that T_OUT stays for its messages.
t_mbufs_stats() {
	rctl stats -o json
	[ "$T_RC" -eq 0 ] || t_fail "routerctl stats -o json" "$(t_seen)"
	MBUFS=$(t_json "$T_OUT" 'd["mbufs"]["in_use"]')
}

# t_mbufs_in_use: prints that figure (for a baseline: MBUFS0=$(t_mbufs_in_use)).
t_mbufs_in_use() { t_mbufs_stats && printf '%s\n' "$MBUFS"; }

# t_mbufs_back BASELINE WHAT: with the traffic over and every flow freed, the buffers out of
# the pool must come back to BASELINE (taken with no traffic: what the ports' queues hold),
# within 5 s; anything above it is a buffer some path kept, anything below 0 one that went
# back to the pool twice.
t_mbufs_back() {
	local deadline=$((SECONDS + 5)) n
	while :; do
		t_mbufs_stats
		n=$MBUFS
		[ "$n" -ge 0 ] && [ "$n" -le "$1" ] && break
		[ "$SECONDS" -lt "$deadline" ] ||
			t_fail "$2: packet buffers back to the baseline ($1 in use) with no traffic" \
				"$n in use; mbufs: $(t_json "$T_OUT" 'd["mbufs"]'); flows_active $(t_json "$T_OUT" 'd["total"]["flows_active"]')"
		sleep 0.5
	done
	t_ok "$2: packet buffers back to the baseline ($n in use, baseline $1)"
}

t_start_routerd() {
	lab_routerd_start || t_fail "${1:-start routerd}" "could not start routerd"
	lab_routerd_wait 30 || t_fail "${1:-start routerd}" "routerd did not become ready; log tail:" \
		"$(tail -n 30 "$LAB_ROUTERD_LOG")"
	t_ok "${1:-routerd started} (pid $ROUTERD_PID, answers on $LAB_SOCKET)"
}

# Sanitizer reports in routerd's log (ASan/UBSan errors always fail; LeakSanitizer only where
# the test asks for it: the shutdown test).
T_SANITIZER_RE='ERROR: AddressSanitizer|runtime error:|ERROR: UndefinedBehaviorSanitizer'
T_LEAK_RE='ERROR: LeakSanitizer|SUMMARY: AddressSanitizer: [0-9]+ byte\(s\) leaked'
t_check_sanitizers() { # [leaks]
	local re=$T_SANITIZER_RE
	[ "${1:-}" = leaks ] && re="$re|$T_LEAK_RE"
	[ -f "$LAB_ROUTERD_LOG" ] || return 0
	if grep -Eq -- "$re" "$LAB_ROUTERD_LOG"; then
		t_fail "no sanitizer report from routerd" "routerd's log has one:" \
			"$(grep -E -A 25 -- "$re" "$LAB_ROUTERD_LOG" | head -n 60)"
	fi
}

# t_plain_route: a Route plain.lab.switchyard.test -> service a with one rule for "/", the
# vhost shape the splice path carries (config/routes.yaml's web.lab has path rules, so it
# is proxied). The splice tests send their load there.
t_plain_route() {
	rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: plain, namespace: demo}
spec:
  host: plain.$LAB_DOMAIN
  to: {kind: Service, name: a}
  port: {targetPort: http}
EOF
	t_expect_rc 0 "apply the spliced route plain.$LAB_DOMAIN"
}

# t_upload_sink HOST: start tests/integration/upload_sink.py on backend a's address, port
# 8080 (answers any request with the sha256 of its body), behind a route for HOST.
t_upload_sink() {
	lab_spawn backend sink python3 "$SY_SRC/tests/integration/upload_sink.py" "$LAB_BACKEND_A_IP" 8080
	rctl apply -f - <<EOF
apiVersion: v1
kind: Endpoints
metadata: {name: sink, namespace: demo}
subsets:
- addresses: [{ip: $LAB_BACKEND_A_IP}]
  ports: [{name: http, port: 8080}]
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: sink, namespace: demo}
spec:
  host: $1
  to: {kind: Service, name: sink}
EOF
	t_expect_rc 0 "apply the upload sink route"
}

# t_sink_proxied HOST: a second rule on HOST (the upload sink's, one rule so far), path
# /elsewhere to service b, so that the vhost is carried in proxy mode.
t_sink_proxied() {
	rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: sink-elsewhere, namespace: demo}
spec:
  host: $1
  path: /elsewhere
  to: {kind: Service, name: b}
EOF
	t_expect_rc 0 "apply a path rule on $1 (proxied)"
}

# t_expect_mode URL splice|proxy: routerctl resolve says URL's vhost is carried that way.
t_expect_mode() {
	rctl resolve "$1"
	t_expect_out "^vhost: .*\\($2" "${1#*//} is carried in $2 mode"
}

# lab_ipv6 client|backend ADDR/LEN...: IPv6 on that namespace's end of its link to routerd,
# duplicate address detection off (its probes would delay the address), the addresses added
# nodad. Lab IPv6 addresses come from 2001:2::/48 only.
lab_ipv6() {
	local side=$1 ns ifc a
	shift
	case "$side" in
	client) ns=$LAB_NS_CLIENT ifc=$LAB_IF_CLIENT_PEER ;;
	backend) ns=$LAB_NS_BACKEND ifc=$LAB_IF_BACKEND_PEER ;;
	*) t_fail "lab_ipv6: client or backend, not '$side'" ;;
	esac
	"lab_$side" sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=0" "net.ipv6.conf.$ifc.accept_dad=0" ||
		t_fail "setup" "sysctl in $ns"
	for a in "$@"; do
		"lab_$side" ip -6 addr add "$a" dev "$ifc" nodad || t_fail "setup" "ip -6 addr add $a in $ns"
	done
}

# t_hold NAME ADDR HOST: one keep-alive connection from the client namespace to ADDR:80,
# held open after one exchange through HOST (holder.py); its client port in PORT_<NAME>,
# its pid in PID_<NAME>: the connection a test looks for in `routerctl conns`.
t_hold() {
	local name=$1 addr=$2 host=$3 i port status
	lab_spawn client "hold-$name" python3 "$SY_SRC/tests/integration/holder.py" "$addr" "$host" \
		"$LAB_DIR/hold-$name.out" 60
	for i in $(seq 100); do
		[ -s "$LAB_DIR/hold-$name.out" ] && break
		sleep 0.1
	done
	read -r port status <"$LAB_DIR/hold-$name.out" 2>/dev/null ||
		t_fail "a held connection through $host" "$(cat "$LAB_DIR/hold-$name.log" 2>/dev/null)"
	[ "$status" = 200 ] || t_fail "a held connection through $host got 200" "status '$status'"
	printf -v "PORT_$name" '%s' "$port"
	printf -v "PID_$name" '%s' "$LAB_SPAWN_PID"
}

# t_px_routes: px.$LAB_DOMAIN proxied by its path rules: / -> a, /api -> b, /api/v2 -> c
# (pool c: a test's pool_server.py, t_backend_service c ...).
t_px_routes() {
	local D=$LAB_DOMAIN
	rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: px-root, namespace: demo}
spec: {host: px.$D, to: {kind: Service, name: a}, port: {targetPort: http}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: px-api, namespace: demo}
spec: {host: px.$D, path: /api, to: {kind: Service, name: b}, port: {targetPort: http}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: px-v2, namespace: demo}
spec: {host: px.$D, path: /api/v2, to: {kind: Service, name: c}, port: {targetPort: http}}
EOF
	t_expect_rc 0 "apply px.$D: / -> a, /api -> b, /api/v2 -> c (path rules: proxied)"
}

# t_edge_route NAME HOST PATH SERVICE POLICY CRT KEY: an OpenShift Route (namespace demo)
# with edge termination on HOST (PATH "" for none) to SERVICE's port named http, its
# insecureEdgeTerminationPolicy POLICY, the certificate and key files inline (YAML on stdout).
_t_indent() { sed "s/^/$(printf '%*s' "$1" '')/" "$2"; } # N FILE: its lines indented by N
t_edge_route() {
	cat <<EOF
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: $1, namespace: demo}
spec:
  host: $2
${3:+  path: $3
}  to: {kind: Service, name: $4}
  port: {targetPort: http}
  tls:
    termination: edge
    insecureEdgeTerminationPolicy: $5
    certificate: |
$(_t_indent 6 "$6")
    key: |
$(_t_indent 6 "$7")
EOF
}

# t_gateway_yaml LISTENER...: YAML documents (each ending in ---) for a GatewayClass of ours
# (switchyard) and the Gateway demo/gw with these listeners (YAML flow maps, such as
# "{name: http, port: 80, protocol: HTTP}"), to put in front of a test's own objects.
t_gateway_yaml() {
	cat <<EOF
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: switchyard}
spec: {controllerName: switchyard.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: demo}
spec:
  gatewayClassName: switchyard
  listeners:
EOF
	printf '  - %s\n' "$@"
	printf -- '---\n'
}

# t_backend_service NAME PORT CMD...: start CMD (a server listening on backend a's address,
# PORT) in the backend namespace, wait until the port accepts, and apply a Service and
# Endpoints NAME (namespace demo) for it, port name http.
t_backend_service() {
	local name=$1 port=$2
	shift 2
	lab_spawn backend "$name" "$@"
	for _ in $(seq 50); do
		lab_backend python3 -c "import socket; socket.create_connection(('$LAB_BACKEND_A_IP', $port), 1)" \
			2>/dev/null && break
		sleep 0.1
	done
	rctl apply -f - <<EOF
apiVersion: v1
kind: Service
metadata: {name: $name, namespace: demo}
spec: {ports: [{name: http, port: $port, targetPort: $port}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: $name, namespace: demo}
subsets: [{addresses: [{ip: $LAB_BACKEND_A_IP}], ports: [{name: http, port: $port}]}]
EOF
	t_expect_rc 0 "apply Service and Endpoints $name (port $port)"
}

# t_pool_routes SPLICED-HOST PROXIED-HOST PROXIED-PATH: config/routes.yaml, the echoing pool
# c (pool_server.py on backend a's address, port 8082), and two OpenShift Routes to it: one
# spliced (host only), one proxied (a path rule).
t_pool_routes() {
	rctl apply -f "$SY_SRC/config/routes.yaml"
	t_expect_rc 0 "apply config/routes.yaml"
	t_backend_service c 8082 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8082
	rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: spliced, namespace: demo}
spec: {host: $1, to: {kind: Service, name: c}, port: {targetPort: http}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: proxied, namespace: demo}
spec: {host: $2, path: $3, to: {kind: Service, name: c}, port: {targetPort: http}}
EOF
	t_expect_rc 0 "apply routes $1 (spliced) and $2$3 (proxied) to the pool"
}

# t_finish: stop routerd with SIGTERM, check the log, print the plan. Call at the end.
t_finish() {
	if [ -n "$ROUTERD_PID" ]; then
		lab_routerd_stop 15 || t_note "routerd exit status on SIGTERM: $ROUTERD_STATUS"
	fi
	t_check_sanitizers
	grep -Eq -- "$T_LEAK_RE" "$LAB_ROUTERD_LOG" 2>/dev/null &&
		t_note "LeakSanitizer reported leaks at routerd's exit (the shutdown test fails on them)"
	printf '1..%d\n' "$T_NUM"
}

_t_on_exit() {
	local rc=$1
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -n "${LAB_ROUTERD_LOG:-}" ] && [ -s "$LAB_ROUTERD_LOG" ]; then
		printf '# --- last 40 lines of %s ---\n' "$LAB_ROUTERD_LOG"
		tail -n 40 "$LAB_ROUTERD_LOG" | sed 's/^/# /'
	fi
}
