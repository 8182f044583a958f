#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gateway_api: Gateway API objects carry real traffic (curl in the client namespace, nginx
# backends a and b, the echoing pool c): a GatewayClass of ours, a Gateway whose HTTP
# listener is routerd's HTTP port (another on a port routerd does not listen on:
# PortUnavailable), and an HTTPRoute with a header match (x-canary: yes -> b), weights
# (a/b 1:1, then a alone when b's weight is 0), a RequestHeaderModifier (set, add, remove: seen
# by the echoing backend), a ResponseHeaderModifier add and a RequestRedirect (301 with its Location); statuses and
# routerctl's tables; a TLSRoute on a Passthrough listener, b's certificate verified.
T_NAME=gateway_api
source "$(dirname "$0")/testlib.sh"

t_setup gwa 1
t_start_routerd
D=lab.switchyard.test

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
# The echoing pool on backend a's address, port 8082 (Service demo/c).
t_backend_service c 8082 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8082

route() { # route WEIGHT_B: the HTTPRoute with b's weight on the catch-all rule
	rctl apply -f - <<EOF
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: demo}
spec:
  parentRefs: [{name: gw, sectionName: http}]
  hostnames: [gw.$D]
  rules:
  - matches: [{headers: [{name: x-canary, value: "yes"}]}]
    backendRefs: [{name: b, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /echo}}]
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        set: [{name: X-Test, value: one}]
        add: [{name: X-Add, value: two}]
        remove: [X-Drop]
    - type: ResponseHeaderModifier
      responseHeaderModifier:
        add: [{name: X-Resp-Add, value: three}]
    backendRefs: [{name: c, port: 8082}]
  - matches: [{path: {type: Exact, value: /old}}]
    filters:
    - type: RequestRedirect
      requestRedirect: {hostname: new.$D, statusCode: 301, path: {type: ReplaceFullPath, replaceFullPath: /new}}
  - backendRefs: [{name: a, port: 80, weight: 1}, {name: b, port: 80, weight: $1}]
EOF
}

rctl apply -f - <<EOF
$(t_gateway_yaml "{name: http, port: 80, protocol: HTTP, hostname: \"*.$D\"}" "{name: elsewhere, port: 8080, protocol: HTTP}")
EOF
t_expect_rc 0 "apply a GatewayClass and a Gateway"
route 1
t_expect_rc 0 "apply the HTTPRoute (b's weight 1)"

rctl get gatewayclass switchyard -o json
t_json_expect "$T_OUT" '[c["status"] for c in d["status"]["conditions"] if c["type"] == "Accepted"] == ["True"]' \
	"GatewayClass: Accepted True"
rctl get gateway gw -n demo -o json
t_json_expect "$T_OUT" '{l["name"]: (l["attachedRoutes"], [c["reason"] for c in l["conditions"]]) for l in d["status"]["listeners"]} ==
	{"http": (1, ["Accepted", "Programmed", "ResolvedRefs"]), "elsewhere": (0, ["PortUnavailable", "Invalid", "ResolvedRefs"])}' \
	"Gateway: the HTTP listener programmed with one route, the one on 8080 PortUnavailable"
rctl get httproute web -n demo -o json
t_json_expect "$T_OUT" 'd["status"]["parents"][0]["controllerName"] == "switchyard.io/gateway-controller" and
	[(c["type"], c["status"]) for c in d["status"]["parents"][0]["conditions"]] == [("Accepted", "True"), ("ResolvedRefs", "True")]' \
	"HTTPRoute: Accepted and ResolvedRefs for its parent"
rctl get gateways -n demo
t_expect_out '^gw +switchyard +True +1 ' "routerctl get gateways: class, programmed, attached routes"
rctl get httproutes -n demo
t_expect_out "^web +gw.$D +1/1 " "routerctl get httproutes: hostnames, parents accepted"
rctl apply -f - <<EOF
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: rpc, namespace: demo}
spec:
  parentRefs: [{name: gw}]
  hostnames: [grpc.$D]
  rules:
  - matches: [{method: {service: t.Echo}}]
    backendRefs: [{name: a, port: 80}]
EOF
t_expect_rc 0 "apply a GRPCRoute"
rctl get grpcroutes -n demo
t_expect_out "^rpc +grpc.$D +1/1 " "routerctl get grpcroutes: hostnames, parents accepted"
rctl resolve http://grpc.$D/t.Echo/Say -o json
t_json_expect "$T_OUT" 'd["services"][0]["protocol"] == "h2c"' "GRPCRoute: its backend speaks h2c"
rctl delete grpcroute rpc -n demo
t_expect_rc 0 "delete the GRPCRoute"
t_ok "statuses in the Gateway API's shape; routerctl tables"

get() { # get PATH [curl args]: status line, headers and body in T_OUT
	local path=$1
	shift
	t_run lab_client curl -s -i -m 10 -H "Host: gw.$D" "$@" "http://$LAB_ROUTER_IP$path"
}

# Header match: b, every time.
for i in 1 2 3 4 5; do
	get / -H "x-canary: yes"
	t_expect_out '^backend-b' "x-canary: yes -> b (try $i)"
done
t_ok "a header match picks its rule (x-canary: yes -> b)"

# RequestHeaderModifier: the echoing backend sees X-Test set (the client's replaced) and
# X-Drop gone.
get /echo/x -H "X-Test: client" -H "X-Drop: 1" -H "X-Keep: 2" -H "X-Add: client"
t_expect_out '^HTTP/1.1 200' "echo: 200"
t_expect_out '^X-Test: one' "RequestHeaderModifier set: X-Test: one"
grep -qi '^X-Test: client' <<<"$T_OUT" && t_fail "set replaces the client's X-Test" "$T_OUT"
grep -qi '^X-Drop:' <<<"$T_OUT" && t_fail "remove: X-Drop does not reach the backend" "$T_OUT"
t_expect_out '^X-Keep: 2' "other headers pass"
# add: the client's X-Add stays and the route's is added beside it (the echo shows both).
t_expect_out '^X-Add: client' "RequestHeaderModifier add keeps the client's X-Add"
t_expect_out '^X-Add: two' "RequestHeaderModifier add: X-Add: two"
t_expect_out '^X-Resp-Add: three' "ResponseHeaderModifier add: X-Resp-Add: three"
t_ok "RequestHeaderModifier: set replaces, add appends, remove drops; ResponseHeaderModifier add"

# RequestRedirect: 301 to the fixed Location.
get /old
t_expect_out '^HTTP/1.1 301' "redirect: 301"
t_expect_out "^Location: http://new.$D/new" "redirect: Location http://new.$D/new"
get /old/more
t_expect_out '^HTTP/1.1 200' "an Exact match: /old/more is not redirected"
t_ok "RequestRedirect answers 301 with its Location"

# Weights: a and b 1:1 over 40 connections, then b at 0: a alone.
t_run lab_client python3 "$SY_SRC/tests/integration/httpc.py" count "$LAB_ROUTER_IP" "gw.$D" / 40 4
t_json_expect "$T_OUT" 'd["errors"] == 0 and d["statuses"] == {"200": 40} and
	d["bodies"].get("backend-a", 0) >= 8 and d["bodies"].get("backend-b", 0) >= 8' \
	"weights 1:1: both a and b answer"
route 0
t_expect_rc 0 "re-apply the HTTPRoute with b's weight 0"
t_run lab_client python3 "$SY_SRC/tests/integration/httpc.py" count "$LAB_ROUTER_IP" "gw.$D" / 20 4
t_json_expect "$T_OUT" 'd["errors"] == 0 and d["bodies"] == {"backend-a": 20}' \
	"weight 0: b gets nothing"
t_ok "weighted backendRefs carry traffic by their weights"

# A host outside the listener's *.$D is not served; a missing Service answers 500.
t_run lab_client curl -s -o /dev/null -w '%{http_code}' -m 10 -H "Host: other.test" "http://$LAB_ROUTER_IP/"
[ "$T_OUT" = 503 ] || t_fail "other.test: no route (503)" "seen: $(t_seen)"
rctl apply -f - <<EOF
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: broken, namespace: demo}
spec:
  parentRefs: [{name: gw}]
  hostnames: [broken.$D]
  rules: [{backendRefs: [{name: nowhere, port: 80}]}]
EOF
t_expect_rc 0 "apply an HTTPRoute to a Service that does not exist"
t_run lab_client curl -s -o /dev/null -w '%{http_code}' -m 10 -H "Host: broken.$D" "http://$LAB_ROUTER_IP/"
[ "$T_OUT" = 500 ] || t_fail "a rule whose backends are all invalid answers 500" "seen: $(t_seen)"
t_ok "outside the listener's hostname: not served; no valid backend: 500"

# TLSRoute on a Passthrough listener (routerd's HTTPS port): spliced by SNI, still
# encrypted; the client verifies backend b's own certificate. The config's OpenShift Route
# for that host goes first (an older claim would keep it).
rctl delete route secure-b -n demo
t_expect_rc 0 "delete the OpenShift Route demo/secure-b"
rctl apply -f - <<EOF
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: tls, namespace: demo}
spec:
  gatewayClassName: switchyard
  listeners:
  - name: tls
    port: 443
    protocol: TLS
    hostname: "*.passthrough.$D"
    tls: {mode: Passthrough}
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: b, namespace: demo}
spec:
  parentRefs: [{name: tls}]
  hostnames: [b.passthrough.$D]
  rules: [{backendRefs: [{name: b, port: 443}]}]
EOF
t_expect_rc 0 "apply a Passthrough Gateway and a TLSRoute"
rctl get tlsroute b -n demo -o json
t_json_expect "$T_OUT" '[(c["type"], c["status"]) for c in d["status"]["parents"][0]["conditions"]] == [("Accepted", "True"), ("ResolvedRefs", "True")]' \
	"TLSRoute: Accepted and ResolvedRefs"
host=b.passthrough.$D
t_run lab_client curl -sS -m 10 --cacert "$LAB_DIR/nginx-b/tls.crt" --resolve "$host:443:$LAB_ROUTER_IP" "https://$host/"
[ "$T_RC" -eq 0 ] && [ "$T_OUT" = "backend-b" ] ||
	t_fail "https://$host/ through the TLSRoute: backend-b, its certificate verified" "seen: $(t_seen)"
t_ok "TLSRoute: SNI $host spliced to b's own TLS"

t_finish
