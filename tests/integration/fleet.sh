#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# fleet: one routerd that is Router shard1 and the route scheduler (docs/operations.md
# "Fleet"). Two Router objects and four routes applied: the scheduler binds them (shard1's
# selector explicitly, the rest by round robin onto shard2), phases and DNS names are set,
# the routerd serves only shard1's routes (curl through the lab), routerctl shows routers,
# bindings and describe, an apply that sets status.phase is refused, and `routerctl dns-zone
# shard1` passes named-checkzone (bind9-utils); the data plane's DNS responder (dns.listen)
# answers dig for both shards' zones from the Routers (A, AAAA for shard1's IPv6 VIP, ANY),
# and REFUSED outside.
source "$(dirname "$0")/testlib.sh"

t_setup fleet 1
python3 - "$LAB_ROUTERD_CONFIG" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["router_name"] = "shard1"
c["scheduler"] = True
c["scheduler_retry_s"] = 2
c["dns"] = {"listen": ["198.18.0.1", "2001:2::1"]}
c["ports"][0]["ipv6"] = ["2001:2::1/64"]
json.dump(c, open(p, "w"), indent=1)
PY
t_start_routerd
R=$LAB_ROUTER_IP
D=$LAB_DOMAIN
S1=shard1.apps.$D
S2=shard2.apps.$D
items_expr='(d["items"] if isinstance(d, dict) and "items" in d else d if isinstance(d, list) else [d])'

get() { # HOST PATH: GET through the router; T_OUT body, CODE status
	t_run lab_client curl -sS -m 10 --resolve "$1:80:$R" -o - -w '\n%{http_code}' "http://$1$2"
	CODE=$(tail -n 1 <<<"$T_OUT")
	T_OUT=$(sed '$d' <<<"$T_OUT")
}

cat >"$LAB_DIR/fleet.yaml" <<YAML
apiVersion: v1
kind: Service
metadata: {name: a, namespace: demo}
spec:
  ports: [{name: http, port: 80, targetPort: 80}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: a, namespace: demo}
subsets:
- addresses: [{ip: $LAB_BACKEND_A_IP}]
  ports: [{name: http, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: b, namespace: demo}
spec:
  ports: [{name: http, port: 80, targetPort: 80}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: b, namespace: demo}
subsets:
- addresses: [{ip: $LAB_BACKEND_B_IP}]
  ports: [{name: http, port: 80}]
---
apiVersion: route.openshift.io/v1
kind: Router
metadata: {name: shard1}
spec:
  description: public shard one
  dns: $S1
  routeSelector: {matchLabels: {tier: public}}
  vips: [198.18.0.80, 198.18.0.81, 2001:2:0::80]
---
apiVersion: route.openshift.io/v1
kind: Router
metadata: {name: shard2}
spec:
  description: everything else
  dns: $S2
  vips: [198.18.0.82]
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: pub, namespace: demo, labels: {tier: public}}
spec:
  to: {kind: Service, name: a}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: www, namespace: demo, labels: {tier: public}}
spec:
  host: www.$D
  to: {kind: Service, name: b}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: other, namespace: demo}
spec:
  host: other.$D
  to: {kind: Service, name: a}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: gen, namespace: demo}
spec:
  to: {kind: Service, name: b}
YAML

rctl apply -f "$LAB_DIR/fleet.yaml"
t_expect_rc 0 "apply two Routers and four Routes"
t_ok "apply: 2 Routers (shard1 selects tier=public, shard2 takes the rest), 4 Routes"

# --- bindings: made by the scheduler right after the apply ---
rctl get routebindings -n demo -o json
t_expect_rc 0 "get routebindings -o json"
t_json_expect "$T_OUT" "sorted((b['spec']['routeName'], b['spec']['routerName'], b['spec']['dns']) for b in $items_expr) == \
[('gen','shard2','$S2'), ('other','shard2','$S2'), ('pub','shard1','$S1'), ('www','shard1','$S1')]" \
	"bindings: pub and www to shard1 (its selector), other and gen to shard2 (the strategy)"
t_ok "bindings: pub, www -> shard1 (selector); other, gen -> shard2 (round robin)"
rctl get routebindings -n demo
t_expect_out '^NAME +ROUTE +ROUTER +DNS +AGE' "get routebindings: a table NAME ROUTE ROUTER DNS AGE"
t_expect_out "pub\\.shard1 +pub +shard1 +$S1" "get routebindings lists pub.shard1"
t_ok "get routebindings: table"

# --- route status: phase and DNS ---
rctl get route pub -n demo -o json
t_json_expect "$T_OUT" "d['status']['phase'] == 'scheduled' and d['status']['dns'] == 'pub-demo.$S1'" \
	"pub: phase scheduled, dns pub-demo.$S1 (<name>-<namespace>.<shard dns>)"
rctl get route www -n demo -o json
t_json_expect "$T_OUT" "d['status']['phase'] == 'scheduled' and d['status']['dns'] == 'www.$D'" \
	"www (custom host): dns is the host"
rctl get route gen -n demo -o json
t_json_expect "$T_OUT" "d['status']['dns'] == 'gen-demo.$S2' and 'ingress' not in d['status']" \
	"gen: dns under shard2, no ingress status from shard1's router"
rctl get routes -n demo
t_expect_out 'PHASE +DNS' "get routes: PHASE and DNS columns in a fleet"
t_expect_out "gen +gen-demo\\.$S2 .*scheduled +gen-demo\\.$S2" "get routes: gen's row"
t_ok "route status: phase scheduled, dns generated under the shard or the custom host; get routes shows both"

# --- who serves what: this routerd is shard1 ---
get "pub-demo.$S1" /
[ "$CODE" = 200 ] && [ "$T_OUT" = backend-a ] || t_fail "shard1 serves pub at pub-demo.$S1" "$(t_seen) code $CODE"
get "www.$D" /
[ "$CODE" = 200 ] && [ "$T_OUT" = backend-b ] || t_fail "shard1 serves www" "$(t_seen) code $CODE"
get "other.$D" /
[ "$CODE" = 503 ] || t_fail "shard1 does not serve other (bound to shard2): 503" "$(t_seen) code $CODE"
get "gen-demo.$S2" /
[ "$CODE" = 503 ] || t_fail "shard1 does not serve gen (bound to shard2): 503" "$(t_seen) code $CODE"
get "pub-demo.apps.$D" /
[ "$CODE" = 503 ] || t_fail "pub is not served under routing_subdomain in a fleet: 503" "$(t_seen) code $CODE"
t_ok "curl through the lab: shard1's routes 200 (pub-demo.$S1, www), shard2's 503"

# --- routers, describe ---
rctl get routers
t_expect_rc 0 "get routers"
t_expect_out '^NAME +DNS +VIPS +ROUTES +DESCRIPTION +AGE' "get routers: header"
t_expect_out "shard1 +$S1 +198\\.18\\.0\\.80,198\\.18\\.0\\.81,2001:2:0::80 +2 +public shard one" "get routers: shard1 row"
t_ok "get routers: DNS, VIPs, number of routes, description"
rctl describe route pub -n demo
t_expect_rc 0 "describe route pub"
t_expect_out "Phase:[[:space:]]+scheduled" "describe route: Phase"
t_expect_out "DNS:[[:space:]]+pub-demo\\.$S1" "describe route: DNS"
t_expect_out "Routers:[[:space:]]+shard1 \\(pub-demo\\.$S1\\)" "describe route: the routers serving it"
t_ok "describe route pub: phase, final DNS name, routers serving it"
rctl describe router shard2
t_expect_out "Routes:[[:space:]]+demo/gen[[:space:]]+gen-demo\\.$S2" "describe router shard2 lists its routes"
t_ok "describe router shard2: its routes and their names"

# --- status.phase is the scheduler's ---
cat >"$LAB_DIR/bad.yaml" <<YAML
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: sneaky, namespace: demo}
spec:
  to: {kind: Service, name: a}
status:
  phase: scheduled
YAML
rctl apply -f "$LAB_DIR/bad.yaml"
t_expect_rc 1 "apply of a Route with status.phase is refused"
t_expect_out 'status\.phase' "the error names status.phase"
t_ok "a Route applied with status.phase: refused, the error names the field"

# --- the zone file ---
rctl dns-zone shard1
t_expect_rc 0 "dns-zone shard1"
printf '%s\n' "$T_OUT" >"$LAB_DIR/shard1.zone"
t_expect_out "^\\\$ORIGIN $S1\\.\$" "zone: \$ORIGIN"
t_expect_out '^\*[[:space:]]+IN[[:space:]]+A[[:space:]]+198\.18\.0\.80' "zone: wildcard A for the first VIP"
t_expect_out '^[[:space:]]+IN[[:space:]]+A[[:space:]]+198\.18\.0\.81' "zone: round robin A for the second VIP"
t_expect_out '^[[:space:]]+IN[[:space:]]+AAAA[[:space:]]+2001:2::80[[:space:]]' "zone: AAAA for the IPv6 VIP, in RFC 5952 text"
command -v named-checkzone >/dev/null || t_fail "named-checkzone is installed (bind9-utils, tools/lib/common.sh)"
t_run named-checkzone "$S1" "$LAB_DIR/shard1.zone"
t_expect_rc 0 "named-checkzone accepts the zone"
t_expect_out '^OK$' "named-checkzone says OK"
t_ok "dns-zone shard1: \$ORIGIN, SOA, NS, a wildcard A or AAAA per VIP; named-checkzone: OK"

# --- the DNS responder on the data plane (dns.listen 198.18.0.1, UDP 53) ---
command -v dig >/dev/null || t_fail "dig is installed (bind9-dnsutils, tools/lib/common.sh)"
dq() { t_run lab_client dig +time=2 +tries=2 +norecurse @"$R" "$@"; }
dq "www.$S1" A +short
t_expect_rc 0 "dig www.$S1 A"
[ "$(sort <<<"$T_OUT" | tr '\n' ' ')" = "198.18.0.80 198.18.0.81 " ] ||
	t_fail "www.$S1: shard1's two VIPs" "seen: $(t_seen)"
dq "anything.else.$S2" A +short
[ "$T_OUT" = 198.18.0.82 ] || t_fail "a name below shard2: its VIP" "seen: $(t_seen)"
dq "$S1" SOA
t_expect_out 'status: NOERROR' "the apex's SOA: NOERROR"
t_expect_out 'flags: qr aa' "authoritative"
t_expect_out "^$S1\.[[:space:]]+30[[:space:]]+IN[[:space:]]+SOA[[:space:]]+ns1\.$S1\." "the SOA names ns1"
dq "www.$S1" AAAA +short
t_expect_rc 0 "dig www.$S1 AAAA"
[ "$T_OUT" = 2001:2::80 ] || t_fail "www.$S1 AAAA: shard1's IPv6 VIP" "seen: $(t_seen)"
dq "www.$S1" ANY +notcp +short # dig asks ANY over TCP unless told; we answer UDP only
[ "$(sort <<<"$T_OUT" | tr '\n' ' ')" = "198.18.0.80 198.18.0.81 2001:2::80 " ] ||
	t_fail "www.$S1 ANY: the A and AAAA records" "seen: $(t_seen)"
dq "www.$S2" AAAA
t_expect_out 'status: NOERROR' "AAAA below a zone with only IPv4 VIPs: NOERROR"
t_expect_out 'ANSWER: 0, AUTHORITY: 1' "... with no answer and the SOA (NODATA)"
dq www.example.com A
t_expect_out 'status: REFUSED' "a name in no shard zone: REFUSED"
# A new Router: the responder follows without a restart.
rctl apply -f - <<YAML
apiVersion: route.openshift.io/v1
kind: Router
metadata: {name: shard3}
spec:
  dns: shard3.apps.$D
  vips: [198.18.0.83]
YAML
t_expect_rc 0 "apply Router shard3"
dq "x.shard3.apps.$D" A +short
[ "$T_OUT" = 198.18.0.83 ] || t_fail "the new shard3 zone is answered" "seen: $(t_seen)"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["dns_queries"] >= 8 and d["total"]["dns_refused"] >= 1 and d["total"]["dns_noerror"] >= 7' "stats count the DNS queries by answer"
t_ok "DNS responder: shard VIPs by dig (A, AAAA, ANY), SOA (aa), NODATA, REFUSED outside; a new Router answered at once"

# The same responder over IPv6 (dns.listen's second address, 2001:2::1 on the client port):
# the same zones, ns1's AAAA the address asked, REFUSED outside; dig checks the UDP checksum.
lab_ipv6 client "2001:2::2/64"
dq6() { t_run lab_client dig -6 +time=2 +tries=2 +norecurse @2001:2::1 "$@"; }
dq6 "www.$S1" A +short
t_expect_rc 0 "dig -6 @2001:2::1 www.$S1 A"
[ "$(sort <<<"$T_OUT" | tr '\n' ' ')" = "198.18.0.80 198.18.0.81 " ] ||
	t_fail "over IPv6: www.$S1's two VIPs" "seen: $(t_seen)"
dq6 "www.$S1" AAAA +short
[ "$T_OUT" = 2001:2::80 ] || t_fail "over IPv6: www.$S1 AAAA" "seen: $(t_seen)"
dq6 "ns1.$S1" AAAA +short
[ "$T_OUT" = 2001:2::1 ] || t_fail "over IPv6: ns1.$S1 AAAA is the responder's IPv6 address" "seen: $(t_seen)"
dq6 "ns1.$S1" A +short
[ "$T_OUT" = 198.18.0.1 ] || t_fail "ns1.$S1 A is the responder's IPv4 address" "seen: $(t_seen)"
dq6 "$S1" SOA
t_expect_out 'flags: qr aa' "over IPv6: the apex's SOA, authoritative"
dq6 www.example.com A
t_expect_out 'status: REFUSED' "over IPv6: a name in no shard zone: REFUSED"
t_ok "DNS responder over IPv6: A, AAAA, ns1's A and AAAA, SOA, REFUSED from dig -6"

t_finish
