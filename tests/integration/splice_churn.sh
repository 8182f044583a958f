#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# splice_churn: a connection per request through the splice path, with the backend's default
# sysctls. wrk with `Connection: close`, 64 connections for 10 s, then at once 8 connections
# for 10 s: the backend now holds tens of thousands of TIME_WAITs, and every backend-leg
# 4-tuple comes round while one is still there. Zero socket errors, zero non-2xx, no request
# slower than one second (the mark of a SYN retransmission), and nothing the router answered
# itself except empty closes (docs/operations.md, "Connection churn"). WORKERS workers
# (default 1).
T_NAME="splice_churn-${1:-1}w"
source "$(dirname "$0")/testlib.sh"

workers=${1:-1}
command -v wrk >/dev/null || t_fail "wrk is installed (tools/lib/common.sh installs it)"
t_setup "ch$workers" "$workers"
t_start_routerd
D=lab.switchyard.test
REPORT=$SY_SRC/tests/integration/wrk_report.lua

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_plain_route
t_run lab_client curl -s -m 10 -H "Host: plain.$D" "http://$LAB_ROUTER_IP/"
[ "$T_OUT" = backend-a ] || t_fail "plain.$D is served by backend a before the load" "seen: $(t_seen)"

# The backend keeps TIME_WAIT as Linux does by default: the point of this test.
tw_max=$(lab_backend sysctl -n net.ipv4.tcp_max_tw_buckets)
[ "${tw_max:-0}" -gt 1000 ] || t_fail "the backend namespace keeps TIME_WAIT (tcp_max_tw_buckets $tw_max)"
t_ok "backend namespace: default TIME_WAIT handling (tcp_max_tw_buckets $tw_max)"

stats() { rctl stats -o json && printf '%s' "$T_OUT"; }
before=$(stats)

# run CONNS LABEL: wrk for 10 s, one request per connection; its JSON line in T_OUT.
run() {
	t_run lab_client wrk -t1 -c"$1" -d10s --timeout 5s -s "$REPORT" \
		-H "Host: plain.$D" -H 'Connection: close' "http://$LAB_ROUTER_IP/"
	t_expect_rc 0 "wrk -c$1 ($2)"
	T_OUT=$(printf '%s\n' "$T_OUT" | grep '^{' | tail -n 1)
	[ -n "$T_OUT" ] || t_fail "wrk -c$1 ($2) printed its report" "seen: $(t_seen)"
	t_note "wrk -c$1 ($2): $T_OUT"
	t_json_expect "$T_OUT" 'd["requests"] > 1000' "wrk -c$1 ($2): more than 1,000 requests in 10 s"
	t_json_expect "$T_OUT" 'd["connect"] + d["read"] + d["write"] + d["timeout"] == 0' \
		"wrk -c$1 ($2): no socket errors"
	t_json_expect "$T_OUT" 'd["status"] == 0' "wrk -c$1 ($2): every answer 2xx"
	t_json_expect "$T_OUT" 'd["lat_max_us"] < 1000000' \
		"wrk -c$1 ($2): no request slower than 1 s (no SYN retransmission)"
	t_ok "wrk -c$1 ($2): $(t_json "$T_OUT" 'd["requests"]') requests, p99 $(t_json "$T_OUT" 'd["lat_p99_us"]') us, max $(t_json "$T_OUT" 'd["lat_max_us"]') us, no error"
}

run 64 "first run"
tw=$(lab_backend ss -Htan state time-wait | wc -l)
t_note "backend TIME_WAIT sockets after the first run: $tw"
[ "$tw" -gt 1000 ] || t_fail "the first run left the backend holding TIME_WAITs" "seen: $tw"
run 8 "right after, 4-tuples in TIME_WAIT at the backend"

after=$(stats)
report=$(python3 - "$before" "$after" <<'PY'
import json, sys
b, a = (json.loads(x)["total"] for x in sys.argv[1:3])
d = lambda k: a[k] - b[k]
ans = {k: a["answers"][k] - b["answers"][k] for k in a["answers"] if a["answers"][k] != b["answers"][k]}
drops = {k: a["drops"][k] - b["drops"][k] for k in a["drops"] if a["drops"][k] != b["drops"][k]}
print(json.dumps({"spliced": d("conns_spliced"), "stale_acks": d("backend_stale_acks"),
                  "syn_retx": d("backend_syn_retx"), "retries": d("backend_retries"),
                  "answers": ans, "drops": drops}))
PY
)
t_note "router counters over both runs: $report"
t_json_expect "$report" 'd["spliced"] > 2000' "thousands of connections spliced"
t_json_expect "$report" 'set(d["answers"]) <= {"client_closed_empty"}' \
	"the router answered no request itself (only wrk's empty closes at the end)"
t_json_expect "$report" 'd["syn_retx"] == 0 and d["retries"] == 0' \
	"no backend SYN needed a retransmission or another endpoint"
t_ok "router: $(t_json "$report" 'd["spliced"]') spliced, $(t_json "$report" 'd["stale_acks"]') stale ACKs answered, no SYN retransmitted, no answer of its own"

t_finish
