#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# conns: `routerctl conns` lists the workers' live connection records (observe/conn_list.h).
# Two keep-alive connections held open after one exchange each (holder.py), one through a
# spliced host and one through a proxied host, are found by their client ports with their
# kind, states and timers; the human table names both; a LIMIT lists fewer and says so; a bad
# LIMIT is a usage error; once the clients are gone the records end and the list is empty.
T_NAME=conns
source "$(dirname "$0")/testlib.sh"

t_setup cns 1
t_start_routerd
D=lab.switchyard.test
# check JSON PYEXPR WHAT: t_json_expect, and ok.
check() { t_json_expect "$@"; t_ok "$3"; }
# check_out REGEX WHAT: t_expect_out, and ok.
check_out() { t_expect_out "$@"; t_ok "$2"; }

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_plain_route # plain.$D: one rule for "/", spliced; web.$D has path rules: proxied

rctl conns
t_expect_rc 0 "routerctl conns with no traffic"
check_out '^No connections\.$' "routerctl conns with no traffic says so"

t_hold splice "$LAB_ROUTER_IP" "plain.$D"
t_hold proxy "$LAB_ROUTER_IP" "web.$D"
t_ok "two keep-alive connections held after one 200 each (client ports $PORT_splice, $PORT_proxy)"

rctl conns -o json
t_expect_rc 0 "routerctl conns -o json"
CONNS=$T_OUT
check "$CONNS" "
[c for c in d['conns'] if c['client'] == '$LAB_CLIENT_IP:$PORT_splice'
 and c['listen'] == '$LAB_ROUTER_IP:80' and c['kind'] == 'spliced'
 and c['backend'].startswith('$LAB_BACKEND_A_IP:') and c['timer_ms'] > 0]" \
	"the spliced connection: kind spliced, its client and listen addresses, backend a, a timer set"
check "$CONNS" "
[c for c in d['conns'] if c['client'] == '$LAB_CLIENT_IP:$PORT_proxy' and c['kind'] == 'proxy'
 and c['client_tcp'] == 'established' and c['request'] == 'head' and c['response'] == 'none'
 and c['requests'] == 1 and c['unacked'] == 0 and c['tls'] == ''
 and 0 < c['deadline_ms'] <= 300000]" \
	"the proxied connection: kind proxy, established, waiting for its next head, 1 request, all acknowledged, the keep-alive timeout (300 s) running"
check "$CONNS" "not d['truncated'] and d['flows_active'] >= 2 and len(d['conns']) >= 2" \
	"the list is whole: not truncated, at least both connections"

rctl conns
t_expect_rc 0 "routerctl conns"
check_out "KIND +CLIENT +LISTEN" "the table's header"
check_out "spliced +$LAB_CLIENT_IP:$PORT_splice +$LAB_ROUTER_IP:80" "the table's spliced line"
check_out "proxy +$LAB_CLIENT_IP:$PORT_proxy +$LAB_ROUTER_IP:80 .* established/" "the table's proxied line"

rctl conns 1 -o json
t_expect_rc 0 "routerctl conns 1 -o json"
check "$T_OUT" "len(d['conns']) == 1 and d['truncated']" "a LIMIT of 1 lists one and says the list is cut"
rctl conns 1
check_out "listed of [0-9]+ live" "the table says how many it left out"

rctl conns 0
t_expect_rc 2 "routerctl conns 0 is a usage error"
check_out "LIMIT must be a whole number" "the usage error names LIMIT"

# The clients go away: RSTs from their kernel end both records.
kill "$PID_splice" "$PID_proxy" 2>/dev/null
t_flows_zero 20 || t_fail "the records end after the clients left" "$(rctl conns; echo "$T_OUT")"
rctl conns
check_out '^No connections\.$' "and routerctl conns is empty again"
t_ok "both records ended after the clients left; routerctl conns empty"
t_finish
