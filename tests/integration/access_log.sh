#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# access_log: routerd's access log (config access_log; control/observe/access_log.h) in the lab,
# with the file the config names:
#   - a spliced connection (plain.lab: host only) is one line, mode splice, its Host, the
#     Route that carried it, the backend it was spliced to and the connect time;
#   - each request of a proxied keep-alive connection (web.lab: path rules) is a line of its
#     own: mode proxy, status 200, bytes both ways, the route (web for /, web-b for /b), the
#     backend (a, then b);
#   - the router's own answer (an unknown host) is mode answer, 503, termination no_route;
#   - the workers' alog_records counter equals the lines written, nothing dropped;
#   - the file moved away (logrotate): the next lines go to a new file;
#   - "format": "json": every line parses, with the same fields by name.
T_NAME=access_log
source "$(dirname "$0")/testlib.sh"

t_setup al 1
LOG=$LAB_DIR/access.log
set_log() { t_config_set access_log "{\"to\": \"$LOG\", \"format\": \"$1\"}"; } # FORMAT
set_log haproxy
t_start_routerd
D=$LAB_DOMAIN
R=$LAB_ROUTER_IP
rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_plain_route

# lines_of PATTERN: the log's lines matching PATTERN (after the writer's next turn).
lines_of() {
	sleep 0.3
	grep -E -- "$1" "$LOG" || true
}

t_run lab_client curl -s -m 5 -H "Host: plain.$D" "http://$R/"
t_expect_out 'backend-a' "plain.$D answers (spliced)"
L=$(lines_of "\\{plain\\.$D\\}")
t_note "spliced: $L"
grep -Eq "^$LAB_CLIENT_IP:[0-9]+ \\[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9:.]+\\] $R:80 Route demo/plain $LAB_BACKEND_A_IP:80 [0-9]+/-/- - 0 [0-9]+ -- splice \\{plain\\.$D\\} \"GET /\"$" <<<"$L" ||
	t_fail "a spliced connection is one line: client, date, frontend, route, backend, connect time, mode splice" "got: $L"
t_ok "spliced connection logged (route, backend, connect time)"

# Two requests on one keep-alive connection to a proxied vhost: / -> a, /b -> b.
t_run lab_client curl -s -m 5 -H "Host: web.$D" "http://$R/" "http://$R/b"
t_expect_out 'backend-a' "web.$D / answers"
L=$(lines_of "\\{web\\.$D\\}")
t_note "proxied: $L"
[ "$(printf '%s\n' "$L" | grep -c 'proxy {')" = 2 ] || t_fail "two requests, two lines" "got: $L"
grep -Eq " $R:80 Route demo/web $LAB_BACKEND_A_IP:80 -/[0-9]+/[0-9]+ 200 [1-9][0-9]* [1-9][0-9]* -- proxy \\{web\\.$D\\} \"GET /\"$" <<<"$L" ||
	t_fail "GET / : route web, backend a, 200, bytes both ways" "got: $L"
grep -Eq " Route demo/web-b $LAB_BACKEND_B_IP:80 -/[0-9]+/[0-9]+ 200 [1-9][0-9]* [1-9][0-9]* -- proxy \\{web\\.$D\\} \"GET /b\"$" <<<"$L" ||
	t_fail "GET /b : route web-b, backend b, 200" "got: $L"
t_ok "each proxied request its own line (route, backend, status, bytes, times)"

t_run lab_client curl -s -m 5 -o /dev/null -w '%{http_code}' -H "Host: nowhere.$D" "http://$R/x"
t_expect_out '^503$' "an unknown host: 503"
L=$(lines_of "\\{nowhere\\.$D\\}")
t_note "answer: $L"
grep -Eq " - - -/-/- 503 0 [0-9]+ no_route answer \\{nowhere\\.$D\\} \"GET /x\"$" <<<"$L" ||
	t_fail "the router's own answer: mode answer, 503, no_route" "got: $L"
t_ok "the router's own answer logged with its reason"

rctl stats -o json
recs=$(t_json "$T_OUT" 'd["total"]["alog_records"]')
dropped=$(t_json "$T_OUT" 'd["total"]["alog_dropped"]')
lines=$(wc -l <"$LOG")
t_note "alog_records $recs, alog_dropped $dropped, lines $lines"
[ "$recs" = "$lines" ] && [ "$dropped" = 0 ] || t_fail "every record written, none dropped" "records $recs, lines $lines, dropped $dropped"

# logrotate moves the file: the writer opens a new one (it looks once a second).
mv "$LOG" "$LOG.1"
sleep 1.2
t_run lab_client curl -s -m 5 -H "Host: plain.$D" "http://$R/after-rotation"
sleep 1.2
t_run lab_client curl -s -m 5 -H "Host: plain.$D" "http://$R/after-rotation-2"
sleep 0.5
[ -f "$LOG" ] && grep -q 'after-rotation-2' "$LOG" || t_fail "a moved log file is reopened" "$(ls -l "$LAB_DIR")"
t_ok "the file moved away: a new one is written"

# JSON lines.
lab_routerd_stop 15 || t_note "routerd exit status on SIGTERM: $ROUTERD_STATUS"
rm -f "$LOG"
set_log json
t_start_routerd "routerd restarted with JSON access log lines"
t_run lab_client curl -s -m 5 -H "Host: web.$D" "http://$R/b"
t_run lab_client curl -s -m 5 -H "Host: plain.$D" "http://$R/"
sleep 0.3
python3 - "$LOG" "$D" "$LAB_BACKEND_B_IP" <<'PY' || t_fail "JSON lines parse, with the fields by name" "$(cat "$LOG")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
web = [l for l in lines if l["host"] == "web." + sys.argv[2]]
plain = [l for l in lines if l["host"] == "plain." + sys.argv[2]]
assert len(web) == 1 and len(plain) == 1, lines
w = web[0]
assert w["mode"] == "proxy" and w["status"] == 200 and w["route"] == "Route demo/web-b", w
assert w["backend"] == sys.argv[3] + ":80" and w["bytes_out"] > 0 and w["target"] == "/b", w
assert w["total_ms"] is not None and w["response_ms"] is not None and w["termination"] == "--", w
p = plain[0]
assert p["mode"] == "splice" and p["status"] is None and p["connect_ms"] is not None, p
assert p["time"].endswith("Z") and p["tls"] is False, p
print("json ok:", w)
PY
t_ok "format json: one object a line, the same fields"
t_finish
