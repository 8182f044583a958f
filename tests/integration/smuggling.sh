#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# smuggling: the request smuggling corpus (tests/integration/smuggling/corpus.txt) against the
# proxy mode. A proxied vhost (two path rules) whose backend is a canary that records every
# byte it receives (smuggling/smuggle.py canary). Each case goes on its own connection in one
# write; its answers must have the statuses the corpus says and the router must close the
# connection after them. At the end the canary must hold exactly the accepted requests (and
# a last good one) and nothing of any refused one, and routerctl stats must count the
# router's own answers and the routed requests the corpus implies. SMUGGLING_CORPUS names
# another corpus file (same format) to try a few cases by hand.
T_NAME=smuggling
source "$(dirname "$0")/testlib.sh"

t_setup smg 1
t_start_routerd
MBUFS0=$(t_mbufs_in_use)
D=lab.switchyard.test
H=smug.$D
SMUGGLE="$SY_SRC/tests/integration/smuggling/smuggle.py"
CORPUS=${SMUGGLING_CORPUS:-$SY_SRC/tests/integration/smuggling/corpus.txt}
CANARY_LOG=$LAB_DIR/canary.jsonl
CANARY_PORT=8083

lab_spawn backend canary python3 "$SMUGGLE" canary "$LAB_BACKEND_A_IP" "$CANARY_PORT" "$CANARY_LOG"
sy_poll 10 test -f "$CANARY_LOG.ready" || t_fail "the canary listens on $LAB_BACKEND_A_IP:$CANARY_PORT" \
	"$(cat "$LAB_DIR/canary.log" 2>/dev/null)"

rctl apply -f - <<EOF
apiVersion: v1
kind: Service
metadata: {name: canary, namespace: demo}
spec: {ports: [{name: http, port: $CANARY_PORT, targetPort: $CANARY_PORT}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: canary, namespace: demo}
subsets: [{addresses: [{ip: $LAB_BACKEND_A_IP}], ports: [{name: http, port: $CANARY_PORT}]}]
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: smug-root, namespace: demo}
spec: {host: $H, to: {kind: Service, name: canary}, port: {targetPort: http}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: smug-ok, namespace: demo}
spec: {host: $H, path: /ok, to: {kind: Service, name: canary}, port: {targetPort: http}}
EOF
t_expect_rc 0 "apply the canary and a proxied host with two path rules"
rctl resolve "http://$H/ok/x" -o json
t_json_expect "$T_OUT" 'd["mode"] == "proxy"' "resolve: $H is proxied"

rctl stats -o json
before=$T_OUT

# Every case, one TAP line each; the first failures are shown together at the end.
t_run lab_client python3 "$SMUGGLE" run "$LAB_ROUTER_IP" 80 "$H" "$CORPUS" "$CANARY_LOG"
[ -n "$T_OUT" ] || t_fail "the corpus client ran" "seen: $(t_seen)"
failures=()
counts=
while IFS= read -r line; do
	case "$line" in
	"ok "*) t_ok "${line#ok }" ;;
	"not ok "*) failures+=("${line#not ok }") ;;
	"counts "*) counts=${line#counts } ;;
	esac
done <<<"$T_OUT"
[ "${#failures[@]}" -eq 0 ] || t_fail "${#failures[@]} smuggling case(s) failed" "${failures[@]}" "stderr: ${T_ERR:0:800}"
[ "$T_RC" -eq 0 ] && [ -n "$counts" ] || t_fail "the corpus client finished" "seen: $(t_seen)"

# The router's own answers and the routed requests, by routerctl stats: 400 bad_request (the
# peeker's or the proxy's), 413 body_too_large, 501 transfer_coding_not_supported, 505
# http_version_not_supported, 414 uri_too_long, 431 head_too_large, 503 no_route (an
# absolute-form target naming a host nobody serves).
rctl stats -o json
after=$T_OUT
delta=$(python3 - "$before" "$after" "$counts" <<'PY'
import json, sys
b, a, c = (json.loads(x) for x in sys.argv[1:])
ans = lambda d, k: d["total"]["answers"].get(k, 0)
got = {k: ans(a, k) - ans(b, k) for k in a["total"]["answers"]}
want = {"bad_request": c.get("400", 0), "body_too_large": c.get("413", 0),
        "transfer_coding_not_supported": c.get("501", 0),
        "http_version_not_supported": c.get("505", 0),
        "uri_too_long": c.get("414", 0), "head_too_large": c.get("431", 0),
        "no_route": c.get("503", 0)}
bad = {k: (got.get(k, 0), v) for k, v in want.items() if got.get(k, 0) != v}
bad.update({k: (v, 0) for k, v in got.items() if v and k not in want})
routed = a["total"]["proxy_requests"] - b["total"]["proxy_requests"]
if routed != c["routed"]:
    bad["proxy_requests"] = (routed, c["routed"])
print(json.dumps(bad) if bad else "")
PY
)
[ -z "$delta" ] || t_fail "routerctl stats: the router's answers and routed requests match the corpus" \
	"name: [seen, expected]: $delta"
t_ok "routerctl stats: answers by reason and proxy_requests moved by what the corpus implies ($counts)"

t_flows_zero 10 || t_fail "every connection and backend leg freed" "JSON: ${T_OUT:0:1500}"
t_ok "every connection and backend leg freed (flows_active 0)"
t_mbufs_back "$MBUFS0" "after the smuggling corpus"
t_check_sanitizers
t_finish
