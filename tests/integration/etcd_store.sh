#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# etcd_store: two routerds sharing one etcd (docs/operations.md "Store on etcd"). The test
# starts its own etcd on a 198.18.0.0/15 address of a veth pair it makes (and removes), then
# router A (the lab's routerd, with data-plane ports: curl through it) and router B (no
# ports: routerctl), Routers shard-a and shard-b, both "scheduler": true. Checked: an apply
# through A is in etcd (etcdctl get) and on B; an object put with etcdctl is served; oldest
# claim wins alike on both routers (etcd's create_revision, not the clocks); exactly one
# scheduler leader; the leader's routerd killed (SIGKILL, by PID) -> the other leads within
# the lease's ttl and schedules a new route; etcd stopped -> both keep serving, status says
# disconnected, apply fails naming etcd and the endpoint; etcd back and a change put -> both
# converge; no route lost. The times seen are printed.
source "$(dirname "$0")/testlib.sh"

command -v etcd >/dev/null && command -v etcdctl >/dev/null ||
	t_skip_all "etcd and etcdctl are needed (Debian: etcd-server etcd-client)"
t_setup et 1

# --- etcd on its own address (tools/lib/etcd_lab.sh) ------------------------------------
source "$SY_SRC/tools/lib/etcd_lab.sh"
PFX=/sy-$LAB_ID/
B_PID=
etcd_on_exit() {
	_t_on_exit "$1"
	if [ "$1" -ne 0 ] && [ -n "${B_LOG:-}" ] && [ -s "$B_LOG" ]; then
		printf '# --- last 30 lines of %s ---\n' "$B_LOG"
		tail -n 30 "$B_LOG" | sed 's/^/# /'
	fi
	[ -n "$B_PID" ] && _lab_stop_pid "$B_PID" 10
	etcd_lab_down
}
LAB_ON_EXIT=etcd_on_exit
etcd_lab_up || t_fail "a veth pair with an address for etcd"
etcd_start || t_fail "etcd answers on $E_URL"
t_ok "etcd $E_URL up (pid $E_PID, data $E_DATA)"

# --- router A (the lab's, ports) and router B (no ports) -------------------------------
python3 - "$LAB_ROUTERD_CONFIG" "$E_URL" "$PFX" <<'PY'
import json, sys
p, url, pfx = sys.argv[1:4]
c = json.load(open(p))
c["router_name"] = "shard-a"
c["scheduler"] = True
c["scheduler_retry_s"] = 2
c["store"] = {"etcd": {"endpoints": [url], "prefix": pfx, "lease_ttl_s": 3}}
json.dump(c, open(p, "w"), indent=1)
PY
B_SOCK=$LAB_DIR/b.sock
B_CFG=$LAB_DIR/b.json
B_LOG=$LAB_DIR/routerd-b.log
cat >"$B_CFG" <<EOF
{"workers": 1, "eal": ["--log-level=*:notice"], "control_socket": "$B_SOCK",
 "state_dir": "$LAB_DIR/b-state", "router_name": "shard-b", "scheduler": true,
 "scheduler_retry_s": 2, "routing_subdomain": "$LAB_ROUTING_SUBDOMAIN",
 "store": {"etcd": {"endpoints": ["$E_URL"], "prefix": "$PFX", "lease_ttl_s": 3}}}
EOF
b_start() {
	setsid "$ROUTERD" -c "$B_CFG" </dev/null >>"$B_LOG" 2>&1 &
	B_PID=$!
	lab_track "$B_PID" routerd-b
	sy_poll 30 "$ROUTERCTL" -s "$B_SOCK" status >/dev/null 2>&1 ||
		t_fail "router B answers" "$(tail -n 20 "$B_LOG")"
}
t_start_routerd "router A (shard-a, lab ports) started"
A_PID=$ROUTERD_PID
b_start
t_ok "router B (shard-b, no ports) started (pid $B_PID)"
A_SOCK=$LAB_SOCKET
actl() { t_run "$ROUTERCTL" -s "$A_SOCK" "$@"; }
bctl() { t_run "$ROUTERCTL" -s "$B_SOCK" "$@"; }
# names_on SOCK: the names of the router's Routes in demo, sorted, space-separated.
names_on() { "$ROUTERCTL" -s "$1" get routes -n demo -o json | python3 -c '
import json, sys
d = json.load(sys.stdin)
items = d["items"] if isinstance(d, dict) and "items" in d else d if isinstance(d, list) else [d]
print(" ".join(sorted(i["metadata"]["name"] for i in items)) + " ")'; }
both_connected() {
	[ "$(store_of "$A_SOCK" "d['connected']")" = true ] && [ "$(store_of "$B_SOCK" "d['connected']")" = true ]
}
poll_until 30 both_connected || t_fail "both routers connected to etcd" \
	"A: $("$ROUTERCTL" -s "$A_SOCK" status -o json | tr -d '\n' | head -c 800)"
t_ok "both routers connected to etcd ($WAITED s)"
actl status
t_expect_out "^store: +etcd $E_URL $PFX, connected, revision [0-9]+" "routerctl status: the store line"
t_ok "routerctl status: $(grep '^store:' <<<"$T_OUT")"

leaders() { # how many lead, and who the holder is on each
	local a b
	a=$(store_of "$A_SOCK" "d['scheduler_leader']")
	b=$(store_of "$B_SOCK" "d['scheduler_leader']")
	LEADERS=0
	[ "$a" = true ] && LEADER=a && LEADERS=$((LEADERS + 1))
	[ "$b" = true ] && LEADER=b && LEADERS=$((LEADERS + 1))
	[ "$LEADERS" -eq 1 ]
}
poll_until 20 leaders || t_fail "exactly one scheduler leader" "leaders: $LEADERS"
t_ok "exactly one scheduler leader: router $LEADER ($WAITED s)"
HOLDER_A=$(store_of "$A_SOCK" "d['leader']")
HOLDER_B=$(store_of "$B_SOCK" "d['leader']")
[ "$HOLDER_A" = "$HOLDER_B" ] && [ "$(ectl get "${PFX}leader/scheduler" --print-value-only)" = "$HOLDER_A" ] ||
	t_fail "both routers name the holder of ${PFX}leader/scheduler" "A: $HOLDER_A B: $HOLDER_B"
t_ok "both name the same leader ($HOLDER_A), as etcd holds it"

R=$LAB_ROUTER_IP
D=$LAB_DOMAIN
get() { # HOST: GET / through router A; CODE, T_OUT body
	t_run lab_client curl -sS -m 5 --resolve "$1:80:$R" -o - -w '\n%{http_code}' "http://$1/"
	CODE=$(tail -n 1 <<<"$T_OUT")
	T_OUT=$(sed '$d' <<<"$T_OUT")
}
served_by_a() { get "$1"; [ "$CODE" = 200 ] && [[ "$T_OUT" == *"$2"* ]]; }
route_on() { "$ROUTERCTL" -s "$1" get route "$2" -n demo >/dev/null 2>&1; }
phase_on() { # SOCK ROUTE PHASE
	local j
	j=$("$ROUTERCTL" -s "$1" get route "$2" -n demo -o json 2>/dev/null) || return 1
	[ "$(t_json "$j" "d.get('status', {}).get('phase')")" = "$3" ]
}

# put_route NAME HOST [MORE]: Route demo/NAME (tier shared, for HOST, to Service a) put with
# etcdctl; MORE is JSON members added to its metadata.
put_route() {
	t_run ectl put "${PFX}objects/route.route.openshift.io/demo/$1" \
		"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"$1\",\"labels\":{\"tier\":\"shared\"}${3:+,$3}},\"spec\":{\"host\":\"$2\",\"to\":{\"kind\":\"Service\",\"name\":\"a\"}}}"
}

# apply_route SOCK NAME [HOST]: routerctl apply of Route demo/NAME (tier shared, for HOST, by
# default NAME.$D, to Service a) through the router on SOCK.
apply_route() {
	t_run "$ROUTERCTL" -s "$1" apply -f - <<YAML
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: $2, namespace: demo, labels: {tier: shared}}
spec: {host: ${3:-$2.$D}, to: {kind: Service, name: a}}
YAML
}

# --- apply through A -----------------------------------------------------------------
# Both Routers select tier=shared: every test route is bound to both, served by both.
{ lab_service_a_yaml; cat <<YAML; } >"$LAB_DIR/fleet.yaml"
apiVersion: route.openshift.io/v1
kind: Router
metadata: {name: shard-a}
spec: {dns: shard-a.apps.$D, routeSelector: {matchLabels: {tier: shared}}, vips: [198.18.0.80]}
---
apiVersion: route.openshift.io/v1
kind: Router
metadata: {name: shard-b}
spec: {dns: shard-b.apps.$D, routeSelector: {matchLabels: {tier: shared}}, vips: [198.18.0.81]}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: web, namespace: demo, labels: {tier: shared}}
spec: {host: web.$D, to: {kind: Service, name: a}}
YAML
actl apply -f "$LAB_DIR/fleet.yaml"
t_expect_rc 0 "apply through A"
t_ok "apply through A: Service, Endpoints, Routers shard-a and shard-b, Route web"
actl get route web -n demo
t_expect_rc 0 "A has Route web as soon as the apply answered"
t_run ectl get "${PFX}objects/route.route.openshift.io/demo/web" --print-value-only
t_json_expect "$T_OUT" "d['spec']['host'] == 'web.$D' and d['metadata']['uid']" \
	"etcdctl get shows Route demo/web as applied"
t_ok "etcdctl get ${PFX}objects/route.route.openshift.io/demo/web: the object"
poll_until 15 route_on "$B_SOCK" web || t_fail "router B has Route demo/web"
t_ok "router B has Route demo/web ($WAITED s)"
poll_until 15 phase_on "$B_SOCK" web scheduled || t_fail "web scheduled (seen on B)"
t_run ectl get --prefix "${PFX}objects/routebinding.route.openshift.io/demo/" --keys-only
t_expect_out "demo/web\\.shard-a" "the leader's binding web.shard-a is in etcd"
t_expect_out "demo/web\\.shard-b" "the leader's binding web.shard-b is in etcd"
t_ok "the scheduler's RouteBindings web.shard-a and web.shard-b are in etcd; web scheduled on B"
poll_until 15 served_by_a "web.$D" backend-a || t_fail "router A serves web.$D" "code $CODE: ${T_OUT:0:200}"
t_ok "router A serves web.$D: 200 from backend-a ($WAITED s)"
t_run ectl get --prefix "${PFX}status/shard-b/route.route.openshift.io/demo/web" --print-value-only
t_json_expect "$T_OUT" "any(i['routerName'] == 'shard-b' and i['conditions'][0]['status'] == 'True' for i in d['ingress'])" \
	"router B wrote its admission of web under ${PFX}status/shard-b/"
t_ok "statuses written back: ${PFX}status/shard-b/... says B admitted web"

# --- a router writes the status of what it serves, and only that -----------------------
# Route solo matches neither Router's selector (it stays new) until a RouteBinding by hand
# binds it to shard-a: then A writes its status (scheduled, admitted) and B writes none,
# though B computes the same phase and dns for it.
cat >"$LAB_DIR/solo.yaml" <<YAML
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: solo, namespace: demo, labels: {tier: solo}}
spec: {host: solo.$D, to: {kind: Service, name: a}}
YAML
actl apply -f "$LAB_DIR/solo.yaml"
t_expect_rc 0 "apply Route solo"
poll_until 15 phase_on "$B_SOCK" solo new || t_fail "solo is new on B (no Router selects it)"
cat >"$LAB_DIR/solo-binding.yaml" <<YAML
apiVersion: route.openshift.io/v1
kind: RouteBinding
metadata: {name: solo.shard-a, namespace: demo}
spec: {routeNamespace: demo, routeName: solo, routerName: shard-a, dns: shard-a.apps.$D}
YAML
actl apply -f "$LAB_DIR/solo-binding.yaml"
t_expect_rc 0 "apply RouteBinding solo.shard-a"
poll_until 15 phase_on "$B_SOCK" solo scheduled || t_fail "solo scheduled (seen on B)"
solo_status_on_a() {
	t_run ectl get "${PFX}status/shard-a/route.route.openshift.io/demo/solo" --print-value-only
	[[ "$T_OUT" == *'"phase":"scheduled"'* ]]
}
poll_until 15 solo_status_on_a || t_fail "A writes the status of solo, bound to it" "$T_OUT"
t_json_expect "$T_OUT" "any(i['routerName'] == 'shard-a' and i['conditions'][0]['status'] == 'True' for i in d['ingress'])" \
	"A's status of solo admits it"
sleep 1 # B compiled solo's binding when it saw scheduled; its write would be out by now
t_run ectl get --prefix "${PFX}status/shard-b/route.route.openshift.io/demo/solo" --keys-only
t_expect_no_out "solo" "B writes no status for solo, which is not bound to it"
t_run ectl get --prefix "${PFX}status/shard-b/route.route.openshift.io/demo/web" --keys-only
t_expect_out "demo/web" "B keeps its status of web, bound to it"
t_ok "statuses per router: shard-a wrote solo's (scheduled, admitted), shard-b none (not bound to it)"

# --- an apply larger than one etcd txn (128 operations) --------------------------------
{
	for i in $(seq 1 300); do
		printf -- '---\napiVersion: route.openshift.io/v1\nkind: Route\n'
		printf 'metadata: {name: bulk%d, namespace: bulk}\n' "$i"
		printf 'spec: {host: bulk%d.%s, to: {kind: Service, name: a}}\n' "$i" "$D"
	done
} >"$LAB_DIR/bulk.yaml"
actl apply -f "$LAB_DIR/bulk.yaml"
t_expect_rc 0 "apply of 300 Routes through A (etcd takes 128 operations a txn)"
t_run ectl get --prefix "${PFX}objects/route.route.openshift.io/bulk/" --keys-only
[ "$(grep -c 'bulk/bulk' <<<"$T_OUT")" = 300 ] || t_fail "all 300 Routes are in etcd" "$(grep -c 'bulk/bulk' <<<"$T_OUT") keys"
actl get route bulk300 -n bulk
t_expect_rc 0 "A has the last of them as soon as the apply answered"
bulk_on_b() { [ "$("$ROUTERCTL" -s "$B_SOCK" get routes -n bulk -o json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(len(d["items"] if isinstance(d, dict) and "items" in d else d if isinstance(d, list) else [d]))')" = 300 ]; }
poll_until 15 bulk_on_b || t_fail "router B has the 300 Routes"
t_ok "an apply of 300 Routes through A: acknowledged once etcd had all of them (3 txns, in order), B has them ($WAITED s)"
t_run ectl del --prefix "${PFX}objects/route.route.openshift.io/bulk/"
t_expect_out "^300$" "etcdctl deletes the 300 Routes"

# --- an object put with etcdctl --------------------------------------------------------
put_route hand "hand.$D"
t_expect_rc 0 "etcdctl put Route demo/hand"
poll_until 15 served_by_a "hand.$D" backend-a || t_fail "router A serves hand.$D (put with etcdctl)" "code $CODE"
t_ok "a Route put with etcdctl is served by A ($WAITED s)"
poll_until 15 route_on "$B_SOCK" hand || t_fail "router B has Route demo/hand"
t_run ectl put "${PFX}objects/route.route.openshift.io/demo/broken" \
	'{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"broken"},"spec":{"to":{"kind":"Service"}}}'
refused() { [ "$(store_of "$1" "'broken' in (d.get('last_refused') or '')")" = true ]; }
poll_until 10 refused "$A_SOCK" || t_fail "an invalid object in etcd is refused and named in status"
route_on "$A_SOCK" broken && t_fail "the invalid Route is not stored"
t_run store_of "$A_SOCK" "d['last_refused']"
t_expect_out "spec.to.name" "the refusal names the field"
t_ok "an invalid object put with etcdctl is refused (status: $T_OUT); the rest is served"

# --- oldest claim wins, alike on both routers -----------------------------------------
# "first" is created in etcd first, through B; "second" later, through etcdctl, with an
# older creationTimestamp and uid: by the clocks it would win, by create_revision it loses.
apply_route "$B_SOCK" first "claim.$D"
t_expect_rc 0 "apply Route first (claim.$D) through B"
put_route second "claim.$D" \
	'"namespace":"demo","creationTimestamp":"2001-01-01T00:00:00Z","uid":"00000000-0000-7000-8000-000000000001"'
t_expect_rc 0 "etcdctl put Route second (claim.$D, an older timestamp)"
admitted_on() { # SOCK ROUTE ROUTER -> True/False
	local j
	j=$("$ROUTERCTL" -s "$1" get route "$2" -n demo -o json 2>/dev/null) || { echo "?"; return; }
	t_json "$j" "[i['conditions'][0]['status'] + (':' + i['conditions'][0].get('reason', '') if i['conditions'][0]['status'] == 'False' else '') for i in d.get('status', {}).get('ingress', []) if i['routerName'] == '$3'] or '?'" 2>/dev/null
}
claims_settled() {
	[ "$(admitted_on "$A_SOCK" first shard-a)" = '["True"]' ] &&
		[ "$(admitted_on "$A_SOCK" second shard-a)" = '["False:HostAlreadyClaimed"]' ] &&
		[ "$(admitted_on "$B_SOCK" first shard-b)" = '["True"]' ] &&
		[ "$(admitted_on "$B_SOCK" second shard-b)" = '["False:HostAlreadyClaimed"]' ]
}
poll_until 15 claims_settled || t_fail "first (older in etcd) wins claim.$D on both routers" \
	"A: first $(admitted_on "$A_SOCK" first shard-a) second $(admitted_on "$A_SOCK" second shard-a)" \
	"B: first $(admitted_on "$B_SOCK" first shard-b) second $(admitted_on "$B_SOCK" second shard-b)"
t_ok "oldest claim wins alike: first admitted, second HostAlreadyClaimed, on A and on B ($WAITED s)"

# --- etcd slow: the control socket still answers -----------------------------------------
# etcd frozen (SIGSTOP): an apply waits for it (up to the call's 3 s timeout) while the same
# router answers status at once. A Service, so that the route counts below stay exact
# whether or not etcd takes the write when it wakes.
kill -STOP "$E_PID"
(
	"$ROUTERCTL" -s "$A_SOCK" apply -f - >"$LAB_DIR/slow.out" 2>&1 <<YAML
apiVersion: v1
kind: Service
metadata: {name: slow, namespace: demo}
spec: {ports: [{name: http, port: 80, targetPort: 80}]}
YAML
	echo "rc=$?" >>"$LAB_DIR/slow.out"
) &
SLOW=$!
# Nothing outside routerd shows the apply parked: give it a moment to get there. Its
# still being unanswered after status answered is checked below.
sleep 0.3
t0=$(date +%s.%N)
actl status
t_expect_rc 0 "status answers while an apply waits for a frozen etcd"
STATUS_S=$(python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)")
python3 -c "import sys; sys.exit(float(sys.argv[1]) > 1.0)" "$STATUS_S" ||
	t_fail "status answers within 1 s while etcd is frozen" "took $STATUS_S s"
[ -s "$LAB_DIR/slow.out" ] && t_fail "the apply was still waiting when status answered" "$(cat "$LAB_DIR/slow.out")"
wait "$SLOW"
kill -CONT "$E_PID"
grep -q '^rc=1$' "$LAB_DIR/slow.out" && grep -q "etcd" "$LAB_DIR/slow.out" ||
	t_fail "the apply to a frozen etcd fails naming etcd" "$(cat "$LAB_DIR/slow.out")"
t_ok "etcd frozen: status answered in $STATUS_S s while an apply waited; the apply failed: $(head -n 1 "$LAB_DIR/slow.out")"
poll_until 20 both_connected || t_fail "both connected again after etcd woke"

# --- the leader dies -------------------------------------------------------------------
leader_is() { [ "$(store_of "$1" "d['scheduler_leader']")" = true ]; }
# Who leads now (the frozen etcd above may have let the lease of the first leader lapse).
poll_until 20 leaders || t_fail "exactly one leader before the kill" "leaders: $LEADERS"
if [ "$LEADER" = a ]; then
	DEAD_PID=$A_PID SURV=$B_SOCK SURV_NAME=B
else
	DEAD_PID=$B_PID SURV=$A_SOCK SURV_NAME=A
fi
kill -KILL "$DEAD_PID"
wait "$DEAD_PID" 2>/dev/null
t_note "killed router $LEADER (pid $DEAD_PID, the leader) with SIGKILL"
poll_until 20 leader_is "$SURV" || t_fail "router $SURV_NAME leads after the leader died"
t_ok "router $SURV_NAME is the scheduler leader $WAITED s after the leader was killed (lease ttl 3 s)"
apply_route "$SURV" late
t_expect_rc 0 "apply Route late through router $SURV_NAME"
poll_until 15 phase_on "$SURV" late scheduled || t_fail "the new leader schedules Route late"
t_ok "the new leader scheduled Route late ($WAITED s)"
# The dead one back: it reads everything from etcd at start.
if [ "$LEADER" = a ]; then
	ROUTERD_PID=
	t_start_routerd "router A restarted"
	A_PID=$ROUTERD_PID
else
	b_start
	t_ok "router B restarted (pid $B_PID)"
fi
poll_until 30 both_connected || t_fail "both connected again"
poll_until 15 route_on "$A_SOCK" late || t_fail "A has Route late"
poll_until 15 route_on "$B_SOCK" late || t_fail "B has Route late"
poll_until 20 leaders || t_fail "still exactly one leader after the restart" "leaders: $LEADERS"
t_ok "restarted router caught up (Route late on both); exactly one leader ($LEADER)"

# --- etcd stops --------------------------------------------------------------------------
etcd_stop
both_down() {
	[ "$(store_of "$A_SOCK" "d['connected']")" = false ] && [ "$(store_of "$B_SOCK" "d['connected']")" = false ]
}
poll_until 20 both_down || t_fail "status says disconnected on both"
t_ok "etcd stopped: both routers' status says disconnected ($WAITED s)"
t_run store_of "$A_SOCK" "d['last_error']"
t_expect_out "$E_IP" "the last error names the endpoint"
bctl status
t_expect_out "^store: +etcd $E_URL $PFX, DISCONNECTED" "routerctl status says DISCONNECTED"
t_expect_out "^  last error: +.*$E_IP" "routerctl status: the last error"
get "web.$D"
[ "$CODE" = 200 ] || t_fail "A keeps serving web.$D with etcd down" "code $CODE"
bctl get routes -n demo
t_expect_out "^late " "B keeps its routes"
t_ok "both keep serving their last generation (A: web.$D 200; B: routes listed)"
apply_route "$A_SOCK" lost
t_expect_rc 1 "apply with etcd down fails"
t_expect_out "etcd $E_URL is unreachable" "the error names etcd and the endpoint"
route_on "$A_SOCK" lost && t_fail "the refused route is not stored"
t_ok "apply with etcd down: refused, naming etcd $E_URL"

# --- a router restarted while etcd is away: its local copy ------------------------------
# B's copy (<state_dir>/etcd-cache.jsonl) holds its live generation; B is stopped and
# started again with etcd still down: it serves what it held, says so, and refuses applies.
cache_current() { [ "$(store_of "$B_SOCK" "d['cache']['current']")" = true ]; }
poll_until 15 cache_current || t_fail "B's local copy holds its live generation" \
	"$(store_of "$B_SOCK" "d['cache']")"
B_BEFORE=$(names_on "$B_SOCK")
_lab_stop_pid "$B_PID" 10
B_PID=
b_start
[ "$(names_on "$B_SOCK")" = "$B_BEFORE" ] ||
	t_fail "B restarted with etcd down has the routes it held" "before: $B_BEFORE after: $(names_on "$B_SOCK")"
[ "$(store_of "$B_SOCK" "d['connected']")" = false ] || t_fail "B says it is not connected"
LOADED=$(store_of "$B_SOCK" "d['cache']['loaded_at_start']")
[ "${LOADED:-0}" -gt 0 ] 2>/dev/null || t_fail "B's status says what its copy held" "$(store_of "$B_SOCK" "d['cache']")"
apply_route "$B_SOCK" lost
t_expect_rc 1 "apply to B from its copy fails"
t_ok "B restarted with etcd down: $LOADED objects from its local copy, the same routes ($B_BEFORE), applies refused"

# --- etcd returns ------------------------------------------------------------------------
etcd_start || t_fail "etcd answers on $E_URL again"
t_ok "etcd restarted (pid $E_PID)"
put_route after "after.$D"
t_expect_rc 0 "etcdctl put Route after"
poll_until 30 both_connected || t_fail "both reconnect"
t_ok "both reconnected ($WAITED s)"
poll_until 20 route_on "$A_SOCK" after || t_fail "A has Route after"
poll_until 20 route_on "$B_SOCK" after || t_fail "B has Route after"
poll_until 20 served_by_a "after.$D" backend-a || t_fail "A serves after.$D" "code $CODE"
t_ok "the change put while they reconnected reached both; A serves after.$D ($WAITED s)"
poll_until 20 leaders || t_fail "one leader again" "leaders: $LEADERS"
poll_until 20 phase_on "$A_SOCK" after scheduled || t_fail "Route after scheduled"
t_ok "exactly one leader again ($LEADER); Route after scheduled"

# --- no route lost -----------------------------------------------------------------------
want=$(ectl get --prefix "${PFX}objects/route.route.openshift.io/demo/" --keys-only |
	sed -n 's|.*/demo/||p' | grep -v '^broken$' | sort | tr '\n' ' ')
[ "$want" = "after first hand late second solo web " ] || t_fail "etcd holds every route" "etcd: $want"
[ "$(names_on "$A_SOCK")" = "$want" ] || t_fail "A has every route" "A: $(names_on "$A_SOCK") etcd: $want"
[ "$(names_on "$B_SOCK")" = "$want" ] || t_fail "B has every route" "B: $(names_on "$B_SOCK") etcd: $want"
t_ok "no route lost: etcd, A and B hold the same routes ($want)"
for h in web hand late after; do
	get "$h.$D"
	[ "$CODE" = 200 ] || t_fail "A serves $h.$D" "code $CODE"
done
t_ok "A serves web, hand, late and after"

# --- compacted while a router was away ------------------------------------------------
# etcd stopped, B sees it and is frozen (SIGSTOP) before etcd is back; meanwhile Route hand
# is deleted, Route gone-by put and the history compacted. B resumes from a compacted
# revision: it reads everything again and deletes hand, which it never saw go.
etcd_stop
b_down() { [ "$(store_of "$B_SOCK" "d['connected']")" = false ]; }
poll_until 20 b_down || t_fail "B sees etcd down"
kill -STOP "$B_PID"
etcd_start
t_run ectl del "${PFX}objects/route.route.openshift.io/demo/hand"
t_expect_out '^1$' "etcdctl del Route hand"
put_route gone-by "gone-by.$D"
REV=$(ectl get "${PFX}objects/" --prefix --keys-only -w json | python3 -c 'import json,sys; print(json.load(sys.stdin)["header"]["revision"])')
t_run ectl compact "$REV"
t_expect_rc 0 "etcdctl compact $REV"
kill -CONT "$B_PID"
t_note "B frozen while etcd came back, hand was deleted, gone-by put, history compacted at $REV"
b_caught_up() { ! route_on "$B_SOCK" hand && route_on "$B_SOCK" gone-by; }
poll_until 30 b_caught_up || t_fail "B read everything again: hand gone, gone-by there" \
	"$(grep -E 'compacted|gone' "$B_LOG" | tail -n 5)"
grep -q "was compacted" "$B_LOG" || t_fail "B's log says its revision was compacted"
t_ok "B resumed from a compacted revision: read everything again, deleted hand, has gone-by ($WAITED s)"
poll_until 15 route_on "$A_SOCK" gone-by || t_fail "A has gone-by"
route_on "$A_SOCK" hand && t_fail "A deleted hand (it saw the delete)"
t_ok "A saw the same changes live"

if grep -Eq -- "$T_SANITIZER_RE" "$B_LOG" 2>/dev/null; then
	t_fail "no sanitizer report from router B" "$(grep -E -A 20 -- "$T_SANITIZER_RE" "$B_LOG" | head -n 40)"
fi
t_finish
