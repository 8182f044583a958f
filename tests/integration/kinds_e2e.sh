#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# kinds_e2e: a few rules of each kind carry real traffic through routerd's splice path
# (curl in the client namespace, nginx backends): a Contour IngressRoute with a delegation
# across namespaces and a canary by weights, a Contour v1alpha1 Route, a Skipper RouteGroup
# (pathSubtree, exact path, a shunt answering with its own status, the catch-all 404),
# RouteGroup network and lb backends (URLs of the backends), the oldest claim winning a
# host across kinds.
T_NAME=kinds_e2e
source "$(dirname "$0")/testlib.sh"

t_setup kin 1
t_start_routerd
D=lab.switchyard.test

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
rctl apply -f - <<EOF
apiVersion: v1
kind: Service
metadata: {name: b, namespace: team}
spec: {ports: [{name: http, port: 80, targetPort: 80}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: b, namespace: team}
subsets: [{addresses: [{ip: $LAB_BACKEND_B_IP}], ports: [{name: http, port: 80}]}]
---
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: root, namespace: demo}
spec:
  virtualhost: {fqdn: ir.$D}
  routes:
  - match: /
    services: [{name: a, port: 80}]
  - match: /team
    delegate: {name: child, namespace: team}
---
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: child, namespace: team}
spec:
  routes:
  - match: /team
    services: [{name: b, port: 80}]
---
apiVersion: contour.heptio.com/v1alpha1
kind: Route
metadata: {name: cr, namespace: demo}
spec:
  host: cr.$D
  routes:
  - pathPrefix: /
    upstreams: [{serviceName: b, servicePort: 80}]
---
apiVersion: zalando.org/v1
kind: RouteGroup
metadata: {name: rg, namespace: demo}
spec:
  hosts: [rg.$D]
  backends:
  - {name: a, type: service, serviceName: a, servicePort: 80}
  - {name: b, type: service, serviceName: b, servicePort: 80}
  - {name: gone, type: shunt}
  routes:
  - pathSubtree: /api
    backends: [{backendName: a}]
  - path: /exact
    backends: [{backendName: b}]
  - pathSubtree: /old
    backends: [{backendName: gone}]
    filters: ['status(410)', 'inlineContent("gone for good")']
EOF
t_expect_rc 0 "apply an IngressRoute tree, a Contour Route and a RouteGroup"

rctl get ingressroute root -n demo -o json
t_json_expect "$T_OUT" 'd["status"]["currentStatus"] == "valid" and d["status"]["description"] == "valid IngressRoute"' \
	"IngressRoute root: valid IngressRoute"
rctl get ingressroute child -n team -o json
t_json_expect "$T_OUT" 'd["status"]["currentStatus"] == "valid"' "delegate team/child: valid"
rctl get routegroup rg -n demo -o json
t_json_expect "$T_OUT" 'd["status"]["valid"] is True' "RouteGroup rg: valid"
t_ok "statuses in each peer's shape"

get() { # get HOST PATH -> "body code" in T_OUT (newlines folded)
	t_run lab_client curl -s -m 10 -w ' %{http_code}' -H "Host: $1" "http://$LAB_ROUTER_IP$2"
	T_OUT=$(tr '\n' ' ' <<<"$T_OUT" | tr -s ' ')
	T_OUT=${T_OUT% }
}
get "ir.$D" /
[ "$T_OUT" = "backend-a 200" ] || t_fail "IngressRoute: / -> a" "seen: $(t_seen)"
get "ir.$D" /team/x
[ "$T_OUT" = "backend-b 200" ] || t_fail "IngressRoute: /team delegated to team/child -> b" "seen: $(t_seen)"
t_ok "IngressRoute with a delegation across namespaces carries traffic"

get "cr.$D" /anything
[ "$T_OUT" = "backend-b 200" ] || t_fail "Contour Route v1alpha1: cr -> b" "seen: $(t_seen)"
t_ok "Contour Route v1alpha1 carries traffic"

get "rg.$D" /api/v1
[ "$T_OUT" = "backend-a 200" ] || t_fail "RouteGroup pathSubtree /api -> a" "seen: $(t_seen)"
get "rg.$D" /exact
[ "$T_OUT" = "backend-b 200" ] || t_fail "RouteGroup path /exact -> b" "seen: $(t_seen)"
get "rg.$D" /old/page
[ "$T_OUT" = "gone for good 410" ] || t_fail "RouteGroup shunt: status(410) + inlineContent" "seen: $(t_seen)"
t_run lab_client curl -s -m 10 -o /dev/null -w '%{http_code}' -H "Host: rg.$D" "http://$LAB_ROUTER_IP/elsewhere"
[ "$T_OUT" = 404 ] || t_fail "RouteGroup catch-all: 404 for a path no route has (Skipper's shunt)" "seen: $(t_seen)"
t_ok "RouteGroup: pathSubtree, exact path, a shunt's own answer, the catch-all 404"

# Skipper network and lb backends: the URLs are the pool (no Service), spliced.
rctl apply -f - <<EOF
apiVersion: zalando.org/v1
kind: RouteGroup
metadata: {name: rg-lb, namespace: demo}
spec:
  hosts: [rg-lb.$D]
  backends:
  - name: both
    type: lb
    algorithm: roundRobin
    endpoints: ["http://$LAB_BACKEND_A_IP:80", "http://$LAB_BACKEND_B_IP"]
  defaultBackends: [{backendName: both}]
---
apiVersion: zalando.org/v1
kind: RouteGroup
metadata: {name: rg-net, namespace: demo}
spec:
  hosts: [rg-net.$D]
  backends:
  - {name: origin, type: network, address: "http://$LAB_BACKEND_B_IP:80"}
  defaultBackends: [{backendName: origin}]
EOF
t_expect_rc 0 "apply RouteGroups with an lb and a network backend"
rctl resolve "http://rg-lb.$D/" -o json
t_json_expect "$T_OUT" 'd["mode"] == "splice" and d["status"] is None and d["backend"]["type"] == "lb" and
	sorted("%s:%s" % (e["address"], e["port"]) for e in d["endpoints"]) ==
	sorted(["'"$LAB_BACKEND_A_IP"':80", "'"$LAB_BACKEND_B_IP"':80"])' \
	"resolve: the lb backend's URLs are the spliced pool"
rctl resolve "http://rg-net.$D/"
t_expect_out "backend: +network http://$LAB_BACKEND_B_IP:80" "routerctl resolve shows the network backend"
get "rg-net.$D" /
[ "$T_OUT" = "backend-b 200" ] || t_fail "RouteGroup network backend -> b" "seen: $(t_seen)"
get "rg-net.$D" /other/path
[ "$T_OUT" = "backend-b 200" ] || t_fail "RouteGroup network backend -> b (any path)" "seen: $(t_seen)"
t_run lab_client python3 "$SY_SRC/tests/integration/httpc.py" count "$LAB_ROUTER_IP" "rg-lb.$D" / 20 4
t_json_expect "$T_OUT" 'd["errors"] == 0 and d["statuses"] == {"200": 20} and
	d["bodies"].get("backend-a", 0) > 0 and d["bodies"].get("backend-b", 0) > 0 and
	d["bodies"].get("backend-a", 0) + d["bodies"].get("backend-b", 0) == 20' \
	"RouteGroup lb backend: both endpoints answer over 20 connections"
t_ok "RouteGroup network and lb backends carry traffic: $(t_json "$T_OUT" 'd["bodies"]')"

# Canary by weights without a reload: re-apply the root with a/b 90/10.
rctl apply -f - <<EOF
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: root, namespace: demo}
spec:
  virtualhost: {fqdn: ir.$D}
  routes:
  - match: /
    services: [{name: a, port: 80, weight: 90}, {name: b, port: 80, weight: 10}]
EOF
t_expect_rc 0 "re-apply root with weights 90/10"
t_run lab_client python3 "$SY_SRC/tests/integration/httpc.py" count "$LAB_ROUTER_IP" "ir.$D" / 400 8
share=$(t_json "$T_OUT" 'd["bodies"].get("backend-a", 0) / 400')
python3 -c "import sys; s=float(sys.argv[1]); sys.exit(0 if 0.84 <= s <= 0.96 else 1)" "$share" ||
	t_fail "canary 90/10: a's share within 0.84..0.96" "seen: $T_OUT"
t_ok "IngressRoute canary 90/10 live: a got $share of 400 connections"

# One vhost space: an older Route claims a host an IngressRoute wants.
rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: first, namespace: demo, creationTimestamp: "2020-01-01T00:00:00Z"}
spec:
  host: both.$D
  to: {kind: Service, name: a}
  port: {targetPort: http}
---
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: late, namespace: demo}
spec:
  virtualhost: {fqdn: both.$D}
  routes:
  - match: /
    services: [{name: b, port: 80}]
EOF
t_expect_rc 0 "apply a Route and an IngressRoute for the same host"
get "both.$D" /
[ "$T_OUT" = "backend-a 200" ] || t_fail "the older claim (the Route) serves both.$D" "seen: $(t_seen)"
rctl get ingressroute late -n demo -o json
t_json_expect "$T_OUT" 'd["status"]["currentStatus"] == "invalid" and "Route demo/first" in d["status"]["description"]' \
	"the displaced IngressRoute says who holds the host"
t_ok "one vhost space across kinds: the oldest claim wins, the other kind says why"

t_finish
