#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# splice_workers: the splice path with 2 workers. net_af_packet gives each worker its own
# queue and the kernel spreads frames over the queues by its own hash, so some segments of a
# connection land on the worker that does not own it and must be handed over through the ring
# (docs/architecture.md 4.3 and section 8). 600 connections (16 at a time) are all answered
# 200 with the right body; both workers splice connections; hand-offs happen and none is lost
# to a full ring; the flow table is empty again afterwards; a 20 MB download arrives intact.
T_NAME=splice_workers
source "$(dirname "$0")/testlib.sh"

t_setup spw 2
t_start_routerd
MBUFS0=$(t_mbufs_in_use)
HTTPC="python3 $SY_SRC/tests/integration/httpc.py"
D=lab.switchyard.test

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_plain_route
t_ok "routes applied"

stats_json() { rctl stats -o json; [ "$T_RC" -eq 0 ] || t_fail "routerctl stats -o json" "$(t_seen)"; }
stats_json
t_json_expect "$T_OUT" 'len(d["workers"]) == 2' "routerctl stats shows 2 workers"

t_run lab_client $HTTPC count "$LAB_ROUTER_IP" "plain.$D" / 600 16
res=$T_OUT
t_expect_rc 0 "600 connections to plain.$D, 16 in parallel"
t_json_expect "$res" 'd["errors"] == 0 and d["statuses"] == {"200": 600} and d["bodies"] == {"backend-a": 600}' \
	"600 connections (16 at a time) to plain.$D: all 200 backend-a"
t_ok "600 connections, 16 in parallel, through 2 workers: all 200 backend-a"

stats_json
st=$T_OUT
per_worker=$(t_json "$st" '[{k: w.get(k) for k in ("conns_opened", "conns_spliced", "conns_closed", "handoffs", "flows_active")} for w in d["workers"]]')
drops=$(t_json "$st" '{k: v for k, v in d["total"]["drops"].items() if v}')
t_note "per worker: $per_worker"
t_note "drops: $drops"
t_json_expect "$st" 'all(w["conns_spliced"] > 0 for w in d["workers"])' \
	"both workers spliced connections (per worker: $per_worker)"
t_json_expect "$st" 'd["total"]["conns_spliced"] >= 600' "at least 600 connections spliced in total"
t_json_expect "$st" 'd["total"]["handoffs"] > 0' \
	"segments were handed over between workers (kernel hash != flow owner)"
t_json_expect "$st" 'd["total"]["drops"].get("tcp_handoff_ring_full", 0) == 0 and all(w.get("drops", {}).get("tcp_handoff_ring_full", 0) == 0 for w in d["workers"])' \
	"no drops for a full hand-off ring"
t_ok "both workers spliced (per worker: $per_worker); $(t_json "$st" 'd["total"]["handoffs"]') hand-offs; no tcp_handoff_ring_full drops"

# The flow table empties within a few seconds (LINGER is 2 s).
deadline=$((SECONDS + 8))
while :; do
	stats_json
	[ "$(t_json "$T_OUT" 'd["total"]["flows_active"]')" = 0 ] && break
	[ "$SECONDS" -lt "$deadline" ] || t_fail "flows_active back to 0 within 8 s" \
		"per worker: $(t_json "$T_OUT" '[{k: w.get(k) for k in ("conns_opened", "conns_closed", "flows_active", "handoffs")} for w in d["workers"]]')" \
		"drops: $(t_json "$T_OUT" '{k: v for k, v in d["total"]["drops"].items() if v}')"
	sleep 0.5
done
t_json_expect "$T_OUT" 'd["total"]["conns_closed"] == d["total"]["conns_opened"]' "every connection opened was closed"
t_ok "flow table empty again on both workers ($(t_json "$T_OUT" 'd["total"]["conns_opened"]') opened and closed)"

# 20 MB down under 2 workers, sha256 end to end.
big=$LAB_DIR/nginx-a/www/big.bin
head -c 20M /dev/urandom >"$big" || t_fail "setup" "20 MB random file"
want=$(sha256sum <"$big" | cut -d' ' -f1)
h0=$(t_json "$T_OUT" 'd["total"]["handoffs"]')
t_run lab_client sh -c "curl -sS -m 60 -H 'Host: plain.$D' http://$LAB_ROUTER_IP/big.bin | sha256sum"
[ "$T_RC" -eq 0 ] && [ "${T_OUT%% *}" = "$want" ] ||
	t_fail "20 MB download through 2 workers: sha256 equal" "want $want; $(t_seen)"
stats_json
t_json_expect "$T_OUT" 'd["total"]["drops"].get("tcp_handoff_ring_full", 0) == 0' "no tcp_handoff_ring_full drops after the 20 MB download"
t_ok "20 MB download through 2 workers: sha256 matches ($(($(t_json "$T_OUT" 'd["total"]["handoffs"]') - h0)) hand-offs during it)"
t_note "drops: $(t_json "$T_OUT" '{k: v for k, v in d["total"]["drops"].items() if v}')"
# Frames handed between the workers over their rings: every buffer back with both at rest.
t_flows_zero 10 || t_fail "flows_active back to 0 after the download" "JSON: ${T_OUT:0:1500}"
t_mbufs_back "$MBUFS0" "2 workers, after the hand-offs"

t_finish
