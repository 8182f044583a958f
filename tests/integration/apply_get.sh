#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# apply_get: config/routes.yaml applied with routerctl, read back with get (table, json,
# yaml, every kind spelling), resolved, deleted, and re-applied unchanged.
source "$(dirname "$0")/testlib.sh"

ROUTES=$SY_SRC/config/routes.yaml
ROUTE_NAMES=(web web-b canary generated secure-a secure-b)

# Items of a get -o json answer, whether routerctl prints the reply, a List or one object.
items_expr='(d["items"] if isinstance(d, dict) and "items" in d else d if isinstance(d, list) else [d])'
one_expr="$items_expr[0]"

t_setup app 1
t_start_routerd

# --- empty kinds on a fresh router: a header only, exit 0 ---
for k in routes svc endpoints; do
	rctl get $k
	t_expect_rc 0 "get $k on a fresh router (no objects) exits 0"
	lines=$(grep -c . <<<"$T_OUT")
	[ "$lines" -eq 1 ] || t_fail "get $k with no objects prints just a header" "expected 1 line, seen $lines: $(t_seen)"
	rctl get $k -o json
	t_expect_rc 0 "get $k -o json with no objects"
	t_json_expect "$T_OUT" "len($items_expr) == 0" "get $k -o json with no objects: no items"
done
t_ok "empty kinds (routes, svc, endpoints on a fresh router): header only, exit 0; json: no items"

rctl apply -f "$ROUTES"
t_expect_rc 0 "apply -f config/routes.yaml"
t_expect_out 'created' "apply reports created objects"
t_ok "apply -f config/routes.yaml: created"

rctl status -o json
t_expect_rc 0 "status -o json"
t_json_expect "$T_OUT" 'd["objects"]["Route"] == 6 and d["objects"]["Service"] == 2 and d["objects"]["Endpoints"] == 2' \
	"status counts 6 Routes, 2 Services, 2 Endpoints"
gen1=$(t_json "$T_OUT" 'd["generation"]')
t_ok "status: 6 routes, 2 services, 2 endpoints, generation $gen1"

rctl apply -f "$ROUTES"
t_expect_rc 0 "re-apply of the same file"
t_expect_out 'unchanged' "re-apply reports unchanged"
# Per-object lines must all say unchanged (a summary like "0 created" is fine).
changed=$(printf '%s\n' "$T_OUT" | grep -Ew 'created|configured' | grep -Ev '\b0 (created|configured)')
[ -z "$changed" ] || t_fail "re-apply of the same file must not create or configure anything" "seen: $changed"
t_ok "re-apply of the same file: every object unchanged"

# --- get routes: table with HOST/PORT ---
rctl get routes
t_expect_rc 0 "get routes"
t_expect_out '^NAMESPACE|^NAME' "get routes prints a header"
t_expect_out 'HOST/PORT' "get routes: a HOST/PORT column"
for n in "${ROUTE_NAMES[@]}"; do
	t_expect_out "(^|[[:space:]])$n([[:space:]]|\$)" "get routes lists route $n"
done
t_expect_out 'web\.lab\.switchyard\.test' "get routes shows web's host"
t_expect_out 'generated-demo\.apps\.lab\.switchyard\.test' "get routes shows the generated host <name>-<namespace>.<routing_subdomain>"
t_ok "get routes: header with HOST/PORT, all 6 routes, the generated host"

rctl get routes -n demo -o wide
t_expect_rc 0 "get routes -n demo -o wide"
t_ok "get routes -o wide exits 0"

rctl get route web -n demo -o yaml
t_expect_rc 0 "get route web -n demo -o yaml"
t_expect_out 'creationTimestamp:' "yaml output has metadata.creationTimestamp"
t_ok "get route web -o yaml"

# --- get route web -o json: metadata and status ---
rctl get route web -n demo -o json
t_expect_rc 0 "get route web -n demo -o json"
web=$T_OUT
t_json_expect "$web" "$one_expr['metadata']['name'] == 'web' and $one_expr['metadata']['namespace'] == 'demo'" "get route web: name and namespace"
t_json_expect "$web" "__import__('re').fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ', $one_expr['metadata']['creationTimestamp']) is not None" \
	"metadata.creationTimestamp is RFC 3339 UTC seconds"
t_json_expect "$web" "isinstance($one_expr['metadata']['uid'], str) and len($one_expr['metadata']['uid']) > 0" "metadata.uid is set"
t_json_expect "$web" "$one_expr['status']['ingress'][0]['conditions'][0]['type'] == 'Admitted'" \
	"status.ingress[0].conditions[0].type == Admitted"
t_json_expect "$web" "$one_expr['spec']['host'] == 'web.lab.switchyard.test' and $one_expr['spec']['to']['name'] == 'a'" \
	"spec round-trips (host, to.name)"
t_ok "get route web -o json: creationTimestamp $(t_json "$web" "$one_expr['metadata']['creationTimestamp']"), uid, Admitted"

rctl get route generated -n demo -o json
t_expect_rc 0 "get route generated -n demo -o json"
t_json_expect "$T_OUT" "$one_expr['status']['ingress'][0]['host'] == 'generated-demo.apps.lab.switchyard.test'" \
	"route without host: status.ingress[0].host is the generated host"
t_ok "route without spec.host gets generated-demo.apps.lab.switchyard.test"

# --- services and endpoints round trip ---
rctl get svc
t_expect_rc 0 "get svc"
t_expect_out '(^|[[:space:]])a([[:space:]]|$)' "get svc lists a"
t_expect_out '(^|[[:space:]])b([[:space:]]|$)' "get svc lists b"
rctl get svc a -n demo -o json
t_expect_rc 0 "get svc a -n demo -o json"
t_json_expect "$T_OUT" "sorted((p['name'], p['port']) for p in $one_expr['spec']['ports']) == [('http', 80), ('https', 443)]" \
	"service a's ports round-trip"
rctl get endpoints b -n demo -o json
t_expect_rc 0 "get endpoints b -n demo -o json"
t_json_expect "$T_OUT" "$one_expr['subsets'][0]['addresses'][0]['ip'] == '$LAB_BACKEND_B_IP'" \
	"endpoints b round-trip (subsets[0].addresses[0].ip)"
rctl get endpoints
t_expect_rc 0 "get endpoints"
t_ok "get svc / get endpoints round trip"

# --- an empty namespace, and a kind with no objects ---
rctl get routes -n empty-ns
t_expect_rc 0 "get routes -n empty-ns exits 0"
lines=$(grep -c . <<<"$T_OUT")
[ "$lines" -eq 1 ] || t_fail "get routes -n empty-ns prints just a header" "expected 1 line, seen $lines: $(t_seen)"
rctl get routes -n empty-ns -o json
t_expect_rc 0 "get routes -n empty-ns -o json"
t_json_expect "$T_OUT" "len($items_expr) == 0" "get routes -n empty-ns -o json: no items"
t_ok "get routes -n empty-ns: header only, exit 0; json: no items"
rctl get ingressroutes
if [ "$T_RC" -eq 0 ]; then
	lines=$(grep -c . <<<"$T_OUT")
	[ "$lines" -eq 1 ] || t_fail "get ingressroutes (no objects) prints just a header" "expected 1 line, seen $lines: $(t_seen)"
	t_ok "get ingressroutes: header only, exit 0"
else
	# IngressRoute (Contour) is not a kind routerd knows yet: then it must say so.
	t_expect_out 'unknown|resource type' "get ingressroutes: exit 0 with a header, or a clear unknown-kind error"
	t_note "IngressRoute is not a known kind yet: $(head -n 1 <<<"$T_ERR$T_OUT")"
	t_ok "get ingressroutes: kind not known yet, clear error (exit $T_RC)"
fi

# --- kind spellings ---
for spec in route:6 routes:6 Route:6 routes.route.openshift.io:6 svc:2 service:2 services:2 Service:2 \
	ep:2 endpoints:2 Endpoints:2; do
	k=${spec%:*} want=${spec#*:}
	rctl get "$k" -n demo -o json
	t_expect_rc 0 "get $k -n demo -o json"
	t_json_expect "$T_OUT" "len($items_expr) == $want" "get $k -n demo: $want items"
done
t_ok "kind spellings (route routes Route routes.route.openshift.io svc service services Service ep endpoints Endpoints)"

# --- resolve ---
rctl resolve http://web.lab.switchyard.test/ -o json
t_expect_rc 0 "resolve http://web.lab.switchyard.test/"
r=$T_OUT
t_json_expect "$r" 'd["match"] is True and d["object"] == "demo/web" and d["action"] == "backend"' "resolve web: matches demo/web"
t_json_expect "$r" "any(e['address'] == '$LAB_BACKEND_A_IP' and e['port'] == 80 for e in d['endpoints'])" \
	"resolve web: service a's endpoint $LAB_BACKEND_A_IP:80"
t_json_expect "$r" "all(e['address'] != '$LAB_BACKEND_B_IP' for e in d['endpoints'])" "resolve web: not b's endpoint"
rctl resolve http://web.lab.switchyard.test/
t_expect_rc 0 "resolve (table)"
t_expect_out 'demo/web' "resolve output names demo/web"
t_expect_out "$LAB_BACKEND_A_IP" "resolve output names a's endpoint"
t_ok "resolve http://web.lab.switchyard.test/ -> demo/web, $LAB_BACKEND_A_IP:80"

rctl resolve http://WEB.lab.switchyard.test./b/x -o json
t_expect_rc 0 "resolve http://WEB.lab.switchyard.test./b/x"
t_json_expect "$T_OUT" "d['object'] == 'demo/web-b' and any(e['address'] == '$LAB_BACKEND_B_IP' for e in d['endpoints'])" \
	"resolve web/b/x (host case and trailing dot ignored): demo/web-b, b's endpoint"
t_ok "resolve of path /b/x on web -> demo/web-b ($LAB_BACKEND_B_IP)"

rctl resolve http://canary.lab.switchyard.test/ -o json
t_expect_rc 0 "resolve canary"
t_json_expect "$T_OUT" "d['object'] == 'demo/canary' and {s['name']: round(s['share'], 2) for s in d['services']} == {'a': 0.8, 'b': 0.2}" \
	"resolve canary: a share 0.8, b share 0.2"
t_ok "resolve canary: a 80%, b 20%"

rctl resolve http://generated-demo.apps.lab.switchyard.test/ -o json
t_expect_rc 0 "resolve the generated host"
t_json_expect "$T_OUT" "d['object'] == 'demo/generated'" "resolve generated-demo.apps.lab.switchyard.test -> demo/generated"
t_ok "resolve of the generated host -> demo/generated"

rctl resolve https://a.passthrough.lab.switchyard.test/ -o json
t_expect_rc 0 "resolve the passthrough host"
t_json_expect "$T_OUT" "d['object'] == 'demo/secure-a' and d['tls'] == 'passthrough' and any(e['port'] == 443 for e in d['endpoints'])" \
	"resolve a.passthrough: demo/secure-a, tls passthrough, endpoint port 443"
t_ok "resolve of the passthrough host -> demo/secure-a, passthrough, :443"

rctl resolve http://nope.lab.switchyard.test/ -o json
t_expect_rc '0|1' "resolve of an unknown host"
t_json_expect "$T_OUT" 'd["match"] is False and d["status"] == 503 and d["object"] is None' "unknown host: match false, status 503"
rctl resolve http://nope.lab.switchyard.test/
t_expect_out '[Nn]o route' "resolve of an unknown host says no route"
t_expect_out '503' "resolve of an unknown host shows status 503"
t_ok "resolve of an unknown host: no route, 503"

# --- delete ---
rctl delete route web-b -n demo
t_expect_rc 0 "delete route web-b -n demo"
rctl get route web-b -n demo
t_expect_rc 1 "get of a deleted route exits 1"
t_expect_out 'not[ _]found' "get of a deleted route says not found"
rctl delete route web-b -n demo
t_expect_rc 1 "delete of a deleted route exits 1"
rctl resolve http://web.lab.switchyard.test/b/x -o json
t_json_expect "$T_OUT" "d['object'] == 'demo/web'" "after deleting web-b, /b/x falls back to demo/web"
t_ok "delete route web-b: get -> not found (exit 1), /b/x now resolves to demo/web"

rctl apply -f "$ROUTES"
t_expect_rc 0 "apply again after delete"
t_expect_out 'web-b.*created|created.*web-b' "apply after delete re-creates web-b"
t_ok "apply after delete re-creates web-b"

t_finish
