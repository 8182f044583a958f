#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# health_checks: active HTTP health checks (control/health.h, dataplane/lb/hc_probe.h) against
# two backends of our own (pool_server.py d and e, whose /healthz answers 200, or what a file
# says), behind Contour IngressRoutes with healthCheck {path: /healthz, intervalSeconds: 1,
# timeoutSeconds: 1, unhealthyThresholdCount: 2, healthyThresholdCount: 2}, one worker:
#   - both endpoints become healthy; the checks carry the seed's Host header
#     (contour-envoy-healthcheck); two routes (two pools) use each endpoint, and it is still
#     checked once per interval, not twice;
#   - d's health path answers 503: d is unhealthy within an interval (a 503 needs no
#     threshold) and new connections all go to e; the path answers 200 again: d returns
#     after two passes;
#   - e is killed while a client fetches without pause: no client request fails (but the one
#     in flight to e when it died, if any), e is
#     unhealthy within threshold x interval (+ timeout), then gets no new connection (not
#     even a try); e starts again: it returns after the healthy threshold;
#   - the backend port has two addresses: backend legs come from each in turn;
#   - routerctl get endpoints shows each endpoint's health; stats count the checks;
#   - proxy mode: a request whose endpoint refuses the connection goes to the next one.
T_NAME=health_checks
source "$(dirname "$0")/testlib.sh"

t_setup hc 1
# The backend port gets a second address: backend legs (and the checks) come from both in
# turn (dataplane/conn/snat.h, source addresses).
python3 - "$LAB_ROUTERD_CONFIG" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
for port in c["ports"]:
    if port["name"] == "backend":
        port["ipv4"].append("198.18.1.2/24")
json.dump(c, open(p, "w"), indent=1)
PY
t_start_routerd
MBUFS0=$(t_mbufs_in_use)
D=$LAB_DOMAIN
R=$LAB_ROUTER_IP
A=$LAB_BACKEND_A_IP
POOL=$SY_SRC/tests/integration/pool_server.py

t_backend_service d 8083 python3 "$POOL" "$A" 8083 pool-d "$LAB_DIR/d.health"
t_backend_service e 8084 python3 "$POOL" "$A" 8084 pool-e "$LAB_DIR/e.health"
e_pid=$LAB_SPAWN_PID

# ir NAME HOST STRATEGY: d and e, 1/1, with the health check. Two strategies make two pools.
ir() {
	cat <<YAML
---
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: $1, namespace: demo}
spec:
  virtualhost: {fqdn: $2}
  routes:
  - match: /
    services:
    - {name: d, port: 8083, weight: 1, strategy: $3, healthCheck: {path: /healthz, intervalSeconds: 1, timeoutSeconds: 1, unhealthyThresholdCount: 2, healthyThresholdCount: 2}}
    - {name: e, port: 8084, weight: 1, strategy: $3}
YAML
}
{
	ir hc1 "hc1.$D" RoundRobin
	ir hc2 "hc2.$D" Random
} | rctl apply -f -
t_expect_rc 0 "apply IngressRoutes hc1 (RoundRobin) and hc2 (Random) over d and e, health checked"

# spread HOST N [GAP]: N new connections, one request each; prints {"d": .., "e": .., "failed": ..}.
spread() {
	t_run lab_client python3 "$SY_SRC/tests/integration/spread.py" "$R" "$@"
	t_expect_rc 0 "$2 connections to $1"
	t_note "$1: $T_OUT"
}
hcstats() { # NAME PORT: the backend's count of checks and the Host headers they carried
	t_run lab_backend curl -s -m 3 "http://$A:$2/hcstats"
	t_expect_rc 0 "hcstats of $1"
}
# health_of NAME: T_OUT = get endpoints NAME's first backend as JSON.
health_of() {
	rctl get endpoints "$1" -n demo -o json
	T_OUT=$(t_json "$T_OUT" 'd["status"]["backends"][0]')
}
# wait_state NAME STATE SECONDS [not-ejected]: poll get endpoints until NAME's health is
# STATE (and, with not-ejected, no worker ejects it); T_WAITED = seconds it took (0.1 s).
wait_state() {
	local t0=$EPOCHREALTIME cond="d.get('health', {}).get('state') == '$2'"
	[ "${4:-}" = not-ejected ] && cond="$cond and not d['ejected']"
	while :; do
		health_of "$1"
		[ "$(t_json "$T_OUT" "bool($cond)")" = true ] && break
		if [ "$(python3 -c "print(int(($EPOCHREALTIME - $t0) * 10))")" -gt "$(($3 * 10))" ]; then
			t_fail "$1 becomes $2 within $3 s" "get endpoints $1: $T_OUT"
		fi
		sleep 0.1
	done
	T_WAITED=$(python3 -c "print('%.1f' % ($EPOCHREALTIME - $t0))")
}

wait_state e healthy 5
wait_state d healthy 5
t_note "get endpoints d: $T_OUT"
t_json_expect "$T_OUT" 'd["health"]["path"] == "/healthz" and d["health"]["host"] == "contour-envoy-healthcheck" and d["health"]["interval_ms"] == 1000 and d["health"]["last"] == "200"' \
	"get endpoints: d healthy, path /healthz, the seed's default Host, last check 200"
hcstats d 8083
t_json_expect "$T_OUT" 'd["hosts"] == ["contour-envoy-healthcheck"] and d["checks"] >= 1' "d's checks carry Host: contour-envoy-healthcheck"
c0=$(t_json "$T_OUT" 'd["checks"]')
sleep 6
hcstats d 8083
c1=$(t_json "$T_OUT" 'd["checks"]')
t_note "checks of d in 6 s: $((c1 - c0)) (interval 1 s +- 10%; two pools use d)"
[ $((c1 - c0)) -ge 4 ] && [ $((c1 - c0)) -le 8 ] ||
	t_fail "d checked once per interval however many pools use it" "$((c1 - c0)) checks in 6 s"
t_ok "one endpoint, two routes and pools: checked once per interval ($((c1 - c0)) checks in 6 s)"

spread "hc1.$D" 100
t_json_expect "$T_OUT" 'd == {"d": 50, "e": 50}' "both healthy: RoundRobin 50 / 50"
# Source addresses: 20 new connections, each asking its backend who connected.
t_run lab_client bash -c 'for i in $(seq 20); do curl -s -m 5 -H "Host: hc1.'"$D"'" "http://'"$R"'/peer"; done'
t_expect_rc 0 "20 requests for /peer"
t_note "backend legs came from: $(printf '%s\n' "$T_OUT" | sort | uniq -c | tr '\n' ' ')"
# In turn, but the health checks take their turns too: each address at least 5 of 20.
n1=$(printf '%s\n' "$T_OUT" | grep -c '^198\.18\.1\.1$')
n2=$(printf '%s\n' "$T_OUT" | grep -c '^198\.18\.1\.2$')
[ "$n1" -ge 5 ] && [ "$n2" -ge 5 ] && [ $((n1 + n2)) = 20 ] ||
	t_fail "backend legs from both addresses of the backend port, in turn" "got: $T_OUT"
t_ok "two source addresses on the backend port: legs from each in turn ($n1 / $n2)"

# 503 on the health path: out at once (no threshold for a 503).
echo 503 >"$LAB_DIR/d.health"
wait_state d unhealthy 4
t_note "d unhealthy $T_WAITED s after its health path turned 503: $T_OUT"
t_json_expect "$T_OUT" 'd["health"]["last"] == "503" and d["ejected"] is False' "get endpoints: d unhealthy on a 503 (active health, not passive ejection)"
rctl stats -o json
avoid0=$(t_json "$T_OUT" 'd["total"]["lb_hc_down_avoided"]')
spread "hc1.$D" 60
t_json_expect "$T_OUT" 'd == {"e": 60}' "d unhealthy: all 60 new connections to e"
spread "hc2.$D" 40
t_json_expect "$T_OUT" 'd == {"e": 40}' "the other pool (Random) follows the same endpoint's health: 40 to e"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["lb_hc_down_avoided"] > '"$avoid0" "picks that skipped the unhealthy d are counted (lb_hc_down_avoided)"
rm -f "$LAB_DIR/d.health"
wait_state d healthy 5
t_note "d healthy again $T_WAITED s after its health path answered 200 (2 passes needed)"
python3 -c "import sys; sys.exit(0 if $T_WAITED >= 0.8 else 1)" ||
	t_fail "d returns only after the healthy threshold (2 passes, 1 s apart)" "it returned after $T_WAITED s"
spread "hc1.$D" 100
t_json_expect "$T_OUT" 'd == {"d": 50, "e": 50}' "d back: RoundRobin 50 / 50 again"
t_ok "a 503 on the health path takes d out within an interval; two passes bring it back"

# Kill e while a client fetches without pause (a connection every 20 ms for 6 s).
lab_spawn client loop python3 "$SY_SRC/tests/integration/spread.py" "$R" "hc1.$D" 300 0.02
loop_pid=$LAB_SPAWN_PID
sleep 1
kill "$e_pid" && wait "$e_pid" 2>/dev/null
t_kill=$EPOCHREALTIME
wait_state e unhealthy 8
down_after=$(python3 -c "print('%.1f' % ($EPOCHREALTIME - $t_kill))")
t_note "e unhealthy $down_after s after it was killed: $T_OUT"
# Threshold 2 x interval 1 s (+ 10% jitter each), + the 1 s timeout of a check in flight, +
# up to a second a turn of this loop on a loaded 2-core machine (sanitizer builds in CI).
python3 -c "import sys; sys.exit(0 if $down_after <= 6 else 1)" ||
	t_fail "e unhealthy within threshold x interval" "after $down_after s"
for _ in $(seq 100); do sy_pid_alive "$loop_pid" || break; sleep 0.1; done
wait "$loop_pid" 2>/dev/null
loop_out=$(tail -n 1 "$LAB_DIR/loop.log")
t_note "client loop across the kill (300 connections): $loop_out"
# One request at a time: at most the one in flight to e when it died may fail.
t_json_expect "$loop_out" 'd.get("failed", 0) <= 1 and sum(d.values()) == 300' "no client request failed while e died but the one in flight to it (refused connects go to d)"
rctl stats -o json
retries0=$(t_json "$T_OUT" 'd["total"]["backend_retries"]')
spread "hc1.$D" 60
t_json_expect "$T_OUT" 'd == {"d": 60}' "e unhealthy: all 60 new connections to d"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["backend_retries"] == '"$retries0" "no connection even tried e once it was unhealthy (backend_retries unchanged)"
t_ok "e killed: no request failed but the one in flight, unhealthy within $down_after s, then no new traffic"

t_backend_service e 8084 python3 "$POOL" "$A" 8084 pool-e "$LAB_DIR/e.health"
wait_state e healthy 5
t_note "e healthy $T_WAITED s after it started again"
# Passive ejection from the connects it refused may still run (10 s): wait for it too.
wait_state e healthy 15 not-ejected
spread "hc1.$D" 100
t_json_expect "$T_OUT" 'd == {"d": 50, "e": 50}' "e back: RoundRobin 50 / 50"
t_ok "e started again: back after the healthy threshold"

rctl stats -o json
t_note "health checks: $(t_json "$T_OUT" 'd["health_checks"]'); worker: $(t_json "$T_OUT" '{k: d["total"][k] for k in ("hc_sent", "hc_answered", "hc_failed", "lb_hc_down_avoided")}')"
t_json_expect "$T_OUT" 'd["health_checks"]["targets"] == 2 and d["health_checks"]["healthy"] == 2 and d["health_checks"]["transitions"] >= 6' \
	"stats: 2 targets, both healthy, at least 6 state changes (2 up, d down/up, e down/up)"
t_json_expect "$T_OUT" 'd["total"]["hc_sent"] >= d["health_checks"]["checks"] - 2 and d["total"]["hc_failed"] >= 2 and d["total"]["hc_answered"] > 10' \
	"stats: the worker's checks sent, answered and failed"

# Proxy mode retries: an OpenShift Route 50/50 over d and "gone" (an endpoint nothing listens
# on), round robin, with a second path rule so that it is proxied. Each request the pick
# sends to gone is refused and goes to the pick's next endpoint, d: the client sees only
# 200s from d. After 5 refusals gone is ejected and no longer tried.
rctl apply -f - <<YAML
apiVersion: v1
kind: Service
metadata: {name: gone, namespace: demo}
spec: {ports: [{name: http, port: 8099, targetPort: 8099}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: gone, namespace: demo}
subsets: [{addresses: [{ip: $A}], ports: [{name: http, port: 8099}]}]
---
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: retry
  namespace: demo
  annotations: {haproxy.router.openshift.io/balance: roundrobin}
spec:
  host: retry.$D
  to: {kind: Service, name: d, weight: 50}
  alternateBackends: [{kind: Service, name: gone, weight: 50}]
  port: {targetPort: http}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: retry-api, namespace: demo}
spec:
  host: retry.$D
  path: /api
  to: {kind: Service, name: d}
  port: {targetPort: http}
YAML
t_expect_rc 0 "apply Route retry.$D: 50/50 over d and an endpoint nobody listens on, proxied"
rctl resolve "http://retry.$D/" -o json
t_json_expect "$T_OUT" 'd["mode"] == "proxy"' "retry.$D is proxied"
rctl stats -o json
retries0=$(t_json "$T_OUT" 'd["total"]["backend_retries"]')
# 20 GETs and 20 POSTs without a body, each on a new connection.
t_run lab_client bash -c 'for i in $(seq 20); do curl -s -m 5 -H "Host: retry.'"$D"'" "http://'"$R"'/"; curl -s -m 5 -X POST -H "Host: retry.'"$D"'" "http://'"$R"'/"; done'
t_expect_rc 0 "40 requests to retry.$D"
t_note "answers: $(printf '%s\n' "$T_OUT" | sort | uniq -c | tr '\n' ' ')"
[ "$(printf '%s\n' "$T_OUT" | grep -c '^pool-d$')" = 40 ] ||
	t_fail "every request answered by d (refused connects retried on the next endpoint)" "got: $T_OUT"
rctl stats -o json
t_json_expect "$T_OUT" '1 <= d["total"]["backend_retries"] - '"$retries0"' <= 6' "the refused endpoint retried on the next one, then ejected (1 to 6 retries)"
t_ok "proxy mode: a refused connect goes to the pick's next endpoint, any method; no client sees it"
rctl describe route retry -n demo
t_note "describe route retry: $(printf '%s\n' "$T_OUT" | grep -E '^  198' | tr '\n' ';')"
t_expect_out '198\.18\.1\.10:8083	[0-9]+ open, healthy \(GET /healthz: [0-9]+ checks' "describe route: d's health (its checks come from the IngressRoutes' pools)"
t_expect_out '198\.18\.1\.10:8099	0 open, not health checked, ejected on 1 worker' "describe route: the refusing endpoint, unchecked, ejected"

# Prometheus: the health gauges and counters, checked by promtool.
rctl metrics
printf '%s\n' "$T_OUT" >"$LAB_DIR/metrics.txt"
grep -q '^switchyard_health_check_endpoints{state="healthy"} 2$' "$LAB_DIR/metrics.txt" ||
	t_fail "metrics: two healthy endpoints" "$(grep health "$LAB_DIR/metrics.txt")"
grep -q '^switchyard_health_check_up{endpoint="198.18.1.10:8084"} 1$' "$LAB_DIR/metrics.txt" ||
	t_fail "metrics: e is up" "$(grep health "$LAB_DIR/metrics.txt")"
grep -Eq '^switchyard_health_check_transitions_total [6-9]' "$LAB_DIR/metrics.txt" ||
	t_fail "metrics: the state changes counted" "$(grep health "$LAB_DIR/metrics.txt")"
bad=$(promtool check metrics <"$LAB_DIR/metrics.txt" 2>&1 | grep -i health || true)
[ -z "$bad" ] || t_fail "promtool finds nothing wrong with the health metrics" "$bad"
t_ok "metrics: health check endpoints by state, per endpoint up, checks and transitions (promtool clean)"

# No route checks e any more: its target goes.
rctl delete ingressroute hc1 -n demo
rctl delete ingressroute hc2 -n demo
rctl stats -o json
t_json_expect "$T_OUT" 'd["health_checks"]["targets"] == 0' "routes deleted: no targets left"
# The workers' own probes (connects, requests, answers read, resets): every buffer back.
t_flows_zero 10 || t_fail "flows_active back to 0 after the run" "JSON: ${T_OUT:0:1500}"
t_mbufs_back "$MBUFS0" "after the health checks and the traffic of this test"
t_finish
