#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# status_page: the status page on routerd's metrics address (control/observe/status_page.*)
# in the lab, with 2 workers. config/routes.yaml and a spliced route applied, traffic sent
# with curl; then /status.json has the lab's vhosts, routes, backends (the connections sent
# counted) and workers; GET / is the self-contained page; headless Chromium (Debian's
# chromium package) loads it, its script draws the lab's host names into the DOM, and a
# screenshot is kept as a test artifact: <build dir>/meson-logs/status_page.png (the build
# dir of $ROUTERD; $SY_ARTIFACT_DIR overrides). Also `routerctl top -n 2` and the apply
# summary line, with the progress apply draws on a terminal (script(1) gives it one).
T_NAME=status_page
source "$(dirname "$0")/testlib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] ||
	t_fail "chromium is installed (tools/lib/common.sh installs Debian's chromium package: tools/test, or apt-get install chromium)"
ARTIFACTS=${SY_ARTIFACT_DIR:-$(dirname "$ROUTERD")/meson-logs}
mkdir -p "$ARTIFACTS" || t_fail "artifact directory $ARTIFACTS can be made"

t_setup sp 2
PORT=$((20000 + ($$ + 7) % 20000))
t_config_set metrics "\"127.0.0.1:$PORT\""
t_start_routerd
D=$LAB_DOMAIN
BASE=http://127.0.0.1:$PORT

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_expect_out '^applied 10 objects \(Service 2, Endpoints 2, Route 6\) in [0-9.]+ s, generation [0-9]+: 10 created, 0 configured, 0 unchanged$' \
	"apply ends with a summary line"
t_expect_out '^route/web created$' "apply still prints a line per object"
t_ok "apply config/routes.yaml: per-object lines and the summary: $(tail -n 1 <<<"$T_OUT")"
t_plain_route

# Traffic: spliced (plain) and proxied (web) connections, and one the router answers itself.
for i in $(seq 1 12); do
	t_run lab_client curl -sf -m 5 -H "Host: plain.$D" "http://$LAB_ROUTER_IP/"
	[ "$T_OUT" = backend-a ] || t_fail "spliced request $i through the router" "seen: $(t_seen)"
	t_run lab_client curl -sf -m 5 -H "Host: web.$D" "http://$LAB_ROUTER_IP/b/"
	[ "$T_OUT" = backend-b ] || t_fail "proxied request $i (web/b) through the router" "seen: $(t_seen)"
done
t_run lab_client curl -s -m 5 -o /dev/null -w '%{http_code}' -H "Host: nobody.$D" "http://$LAB_ROUTER_IP/"
[ "$T_OUT" = 503 ] || t_fail "an unknown host gets 503" "seen: $(t_seen)"
t_ok "traffic: 12 spliced to a, 12 proxied to b, one 503"

# --- /status.json ---
t_run curl -sf -m 10 -D "$LAB_DIR/json.head" "$BASE/status.json"
t_expect_rc 0 "GET /status.json"
J=$T_OUT
grep -qi '^content-type: application/json' "$LAB_DIR/json.head" ||
	t_fail "/status.json is application/json" "headers: $(cat "$LAB_DIR/json.head")"
t_json_expect "$J" 'd["router"]["name"] == "default" and d["generation"]["id"] >= 2 and d["generation"]["published"] > 0' \
	"status.json: router name and the live generation"
t_json_expect "$J" 'd["objects"]["Route"] == 7 and d["objects"]["Service"] == 2 and d["objects"]["Endpoints"] == 2' \
	"status.json: objects by kind (7 Routes, 2 Services, 2 Endpoints)"
t_json_expect "$J" "sorted(h for x in d['routes']['items'] for h in x['hosts']) == sorted(['web.$D', 'web.$D', 'canary.$D', 'generated-demo.apps.$D', 'a.passthrough.$D', 'b.passthrough.$D', 'plain.$D']) and all(x['state'] == 'admitted' for x in d['routes']['items'])" \
	"status.json: the 7 route objects with their hosts, all admitted"
t_json_expect "$J" "{v['host']: v['mode'] for v in d['vhosts']['items']} == {'a.passthrough.$D': 'splice', 'b.passthrough.$D': 'splice', 'canary.$D': 'splice', 'generated-demo.apps.$D': 'splice', 'plain.$D': 'splice', 'web.$D': 'proxy'}" \
	"status.json: the 6 vhosts, web proxied (path rules), the rest spliced"
t_json_expect "$J" "[r['path'] for v in d['vhosts']['items'] if v['host'] == 'web.$D' for r in v['rules']] == ['/b', '/'] and [r['endpoints'] for v in d['vhosts']['items'] if v['host'] == 'web.$D' for r in v['rules']] == [['198.18.1.11:80'], ['198.18.1.10:80']]" \
	"status.json: web's rules in match order with their pools' endpoints"
t_json_expect "$J" "{b['endpoint']: b['connections'] for b in d['backends']['items']}.get('198.18.1.10:80', 0) >= 12 and {b['endpoint']: b['connections'] for b in d['backends']['items']}.get('198.18.1.11:80', 0) >= 1" \
	"status.json: backend connections counted (a >= 12 spliced, b >= 1 proxied)"
t_json_expect "$J" "[{b['endpoint']: b['requests'] for b in d['backends']['items']}.get(e) for e in ('198.18.1.10:80', '198.18.1.11:80')] == [0, 12]" \
	"status.json: proxied requests per backend (a: 0, its connections were spliced; b: the 12)"
t_json_expect "$J" "len(d['workers']) == 2 and all(w['busy_cycles'] + w['idle_cycles'] > 0 for w in d['workers']) and d['totals']['conns_opened'] >= 25 and d['totals']['answers'].get('no_route') == 1" \
	"status.json: 2 workers with cycles, connections and the no_route answer counted"
t_ok "/status.json: generation $(t_json "$J" 'd["generation"]["id"]'), $(t_json "$J" 'len(d["vhosts"]["items"])') vhosts, $(t_json "$J" 'len(d["routes"]["items"])') routes, backends $(t_json "$J" '{b["endpoint"]: b["connections"] for b in d["backends"]["items"]}')"

# --- the page and what else the listener answers ---
t_run curl -sf -m 10 -D "$LAB_DIR/page.head" "$BASE/"
t_expect_rc 0 "GET /"
PAGE=$T_OUT
grep -qi '^content-type: text/html' "$LAB_DIR/page.head" || t_fail "/ is text/html" "headers: $(cat "$LAB_DIR/page.head")"
grep -q '<title>Switchyard status</title>' <<<"$PAGE" || t_fail "/ is the status page" "seen: ${PAGE:0:300}"
! grep -Eiq '(src|href)=|@import|url\(' <<<"$PAGE" || t_fail "the page loads nothing from elsewhere" \
	"seen: $(grep -Eio '.{0,40}((src|href)=|@import|url\().{0,40}' <<<"$PAGE" | head -3)"
! grep -q "web.$D" <<<"$PAGE" || t_fail "the page's HTML holds no route (the script draws them)"
t_run curl -s -m 5 -o /dev/null -w '%{http_code}' "$BASE/status"
[ "$T_OUT" = 200 ] || t_fail "GET /status is 200" "seen: $(t_seen)"
t_run curl -s -m 5 -o /dev/null -w '%{http_code}' "$BASE/nothing"
[ "$T_OUT" = 404 ] || t_fail "GET /nothing is 404" "seen: $(t_seen)"
t_run curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST "$BASE/status.json"
[ "$T_OUT" = 405 ] || t_fail "POST /status.json is 405" "seen: $(t_seen)"
t_run curl -sf -m 5 -o /dev/null "$BASE/metrics"
t_expect_rc 0 "GET /metrics still served"
t_ok "GET / and /status: the page, self-contained ($(wc -c <<<"$PAGE") bytes); /nothing 404, POST 405, /metrics 200"

# --- headless Chromium: the page loads, its script runs and draws the lab ---
chrome() {
	timeout 180 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--no-first-run --disable-extensions --disable-background-networking --disable-sync \
		--disable-component-update --user-data-dir="$LAB_DIR/chromium" "$@"
}
t_run chrome --virtual-time-budget=5000 --dump-dom "$BASE/"
t_expect_rc 0 "chromium --dump-dom $BASE/"
for h in "web.$D" "plain.$D" "canary.$D" "generated-demo.apps.$D" "a.passthrough.$D" "198.18.1.10:80" "demo/web-b"; do
	grep -qF -- "$h" <<<"$T_OUT" || t_fail "the rendered page shows $h" "DOM: ${T_OUT:0:2000}" "stderr: ${T_ERR:0:800}"
done
grep -q 'live, updated' <<<"$T_OUT" || t_fail "the page says it is live (its fetch of /status.json worked)" "DOM: ${T_OUT:0:1500}"
t_ok "headless Chromium: the script fetched /status.json and drew the lab's vhosts, routes and backends"

# Some load while the screenshot is taken, so that its rates are not all 0.
lab_spawn client load bash -c "while :; do curl -s -m 2 -o /dev/null -H 'Host: plain.$D' http://$LAB_ROUTER_IP/; \
	curl -s -m 2 -o /dev/null -H 'Host: web.$D' http://$LAB_ROUTER_IP/b/; done"
LOAD_PID=$LAB_SPAWN_PID
rm -f "$ARTIFACTS/status_page.png"
t_run chrome --virtual-time-budget=5000 --hide-scrollbars --window-size=1280,900 \
	--screenshot="$ARTIFACTS/status_page.png" "$BASE/"
t_expect_rc 0 "chromium --screenshot"
[ -s "$ARTIFACTS/status_page.png" ] && [ "$(head -c 8 "$ARTIFACTS/status_page.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
	t_fail "the screenshot is a PNG" "seen: $(t_seen); file: $(ls -l "$ARTIFACTS/status_page.png" 2>&1)"
t_ok "screenshot kept: $ARTIFACTS/status_page.png ($(stat -c %s "$ARTIFACTS/status_page.png") bytes, 1280x900)"
_lab_stop_pid "$LOAD_PID" 5 # the load loop (ours, tracked), and its curl

# --- routerctl top ---
t_run lab_client curl -sf -m 5 -H "Host: plain.$D" "http://$LAB_ROUTER_IP/"
rctl top -n 2
t_expect_rc 0 "routerctl top -n 2"
[ "$(grep -c '^routerctl top - ' <<<"$T_OUT")" = 2 ] || t_fail "top drew 2 frames" "seen: $(t_seen)"
t_expect_out '^0 +[0-9.]+% ' "top shows worker 0 with its busy share"
t_expect_out '^1 +[0-9.]+% ' "top shows worker 1"
t_expect_out '^demo/a 198\.18\.1\.10:80 +[0-9.-]+ +[0-9.-]+ +[0-9]+ +[0-9]+ +[0-9]+ ' "top shows backend a with its connections"
t_expect_out '^demo/b 198\.18\.1\.11:80 +[0-9.-]+ +[0-9.-]+ +[0-9]+ +[0-9]+ +[1-9][0-9]* ' "top shows backend b's proxied requests"
t_expect_out '^Route demo/plain +plain\.[a-z.]+ +[0-9.-]+ +[0-9.-]+ +[1-9][0-9]*$' "top shows Route demo/plain with its traffic"
t_expect_no_out $'\033\\[' "no terminal escapes when stdout is not a terminal"
top_rows=$(grep -c '198\.18\.1\.1[01]:80' <<<"$T_OUT")
# On a terminal (script(1) gives it one): the screen cleared each frame, and q quits.
command -v script >/dev/null || t_fail "script(1) is installed (bsdutils)"
t_run timeout 20 script -qec "$ROUTERCTL -s $LAB_SOCKET top -n 1" /dev/null
t_expect_rc 0 "routerctl top -n 1 on a terminal"
t_expect_out $'\033\\[H\033\\[2J' "top clears the terminal before a frame"
t_run bash -c "(sleep 2; printf q) | timeout 20 script -qec '$ROUTERCTL -s $LAB_SOCKET top' /dev/null"
t_expect_rc 0 "routerctl top (no -n) on a terminal quits on q"
t_expect_out '\(q quits\)' "top on a terminal says q quits"
rctl top -n 0
t_expect_rc 2 "top -n 0 is a usage error"
t_ok "routerctl top -n 2: two frames, both workers, routes and backends by rate ($top_rows rows of a and b); on a terminal it clears the screen and q quits"

# --- apply of a larger file on a terminal: progress, then the summary ---
python3 - "$LAB_DIR/many.yaml" "$D" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1500):
        f.write(f"---\napiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {{name: r{i}, namespace: bulk}}\n"
                f"spec: {{host: r{i}.bulk.{sys.argv[2]}, to: {{kind: Service, name: a}}}}\n")
PY
t_run script -qec "$ROUTERCTL -s $LAB_SOCKET apply -f $LAB_DIR/many.yaml" /dev/null
t_expect_rc 0 "apply of 1,500 routes on a terminal"
t_expect_out 'applying 1500 objects' "a terminal sees the progress"
t_expect_out 'applied 1500 objects \(Route 1500\) in [0-9.]+ s, generation [0-9]+: 1500 created, 0 configured, 0 unchanged' \
	"the summary line"
t_run "$ROUTERCTL" -s "$LAB_SOCKET" apply -f "$LAB_DIR/many.yaml"
t_expect_rc 0 "the same apply, not on a terminal"
t_expect_no_out 'sending objects|applying 1500' "no progress without a terminal"
t_expect_out '^applied 1500 objects \(Route 1500\) .*: 0 created, 0 configured, 1500 unchanged$' "summary of an unchanged apply"
t_run curl -sf -m 10 "$BASE/status.json"
t_json_expect "$T_OUT" "d['routes']['total'] == 1507 and d['routes']['shown'] == 200 and d['vhosts']['total'] == 1506 and d['vhosts']['shown'] == 200" \
	"status.json lists the first 200 vhosts and 200 routes per kind of many, with the totals"
t_ok "apply of 1,500 routes: progress on a terminal, summary line; status.json bounded (200 of 1506 vhosts)"

t_finish
