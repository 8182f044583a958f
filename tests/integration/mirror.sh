#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mirror: request mirrors (issue 38; docs/routing.md, "Request mirrors";
# dataplane/proxy/px_mirror.h). curl in the client namespace; nginx a is each route's
# backend; the mirror is mirror_sink.py on backend a's address, port 8086, which records
# every request it gets (method, path, body length and sha256, Connection header).
#
#   - An HTTPRoute rule with a RequestMirror (100 %): GETs from HTTP/1.1 and h2 clients, a
#     POST of 200 kB with a content-length and one chunked: the client gets nginx a's
#     answer; the mirror gets the same request, body intact (sha256), with
#     "Connection: close"; proxy_mirror_requests and proxy_mirror_answered count them.
#   - percent 50 over 40 requests: between 8 and 32 reach the mirror (binomial, p = 0.5).
#   - A mirror whose endpoint refuses: every client answer 200 from a, proxy_mirror_failed
#     counts the refusals.
#   - A mirror that never answers: the client's answers do not wait for it (each under 2 s);
#     its legs end at their silence timeout (10 s), counted as failed. One that stops
#     reading a 4 MB upload is given up (proxy_mirror_dropped), the upload served.
#   - Contour HTTPProxy: a route's service with mirror: true gets a copy, no traffic of its
#     own (resolve shows the mirror, services only a).
#   - resolve shows each rule's mirrors and their share; every flow freed at the end.
T_NAME=mirror
source "$(dirname "$0")/testlib.sh"

command -v curl >/dev/null || t_skip_all "curl is not installed"
t_setup mir 1
D=$LAB_DOMAIN
R=$LAB_ROUTER_IP
A=$LAB_BACKEND_A_IP
MLOG=$LAB_DIR/mirror.jsonl
: >"$MLOG"
t_start_routerd
rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_backend_service shadow 8086 python3 "$SY_SRC/tests/integration/mirror_sink.py" "$A" 8086 "$MLOG"
# A mirror Service whose endpoint refuses (nothing listens on 8097).
rctl apply -f - <<EOF
apiVersion: v1
kind: Service
metadata: {name: refused, namespace: demo}
spec: {ports: [{name: http, port: 8097}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: refused, namespace: demo}
subsets: [{addresses: [{ip: $A}], ports: [{name: http, port: 8097}]}]
---
$(t_gateway_yaml "{name: http, port: 80, protocol: HTTP, hostname: \"*.$D\"}")
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: mirrored, namespace: demo}
spec:
  parentRefs: [{name: gw}]
  hostnames: [mirror.$D]
  rules:
  - matches: [{path: {type: PathPrefix, value: /half}}]
    filters:
    - type: RequestMirror
      requestMirror: {backendRef: {name: shadow, port: 8086}, percent: 50}
    backendRefs: [{name: a, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /refused}}]
    filters:
    - type: RequestMirror
      requestMirror: {backendRef: {name: refused, port: 8097}}
    backendRefs: [{name: a, port: 80}]
  - filters:
    - type: RequestMirror
      requestMirror: {backendRef: {name: shadow, port: 8086}}
    backendRefs: [{name: a, port: 80}]
EOF
t_expect_rc 0 "apply the mirror Services, a Gateway and the HTTPRoute with RequestMirrors"

rctl get httproute mirrored -n demo -o json
t_json_expect "$T_OUT" '[(c["type"], c["status"]) for c in d["status"]["parents"][0]["conditions"]] == [("Accepted", "True"), ("ResolvedRefs", "True")]' \
	"HTTPRoute: Accepted, ResolvedRefs"
rctl resolve "http://mirror.$D/x" -o json
t_json_expect "$T_OUT" 'd["mode"] == "proxy" and [s["name"] for s in d["services"]] == ["a"] and
	len(d["mirrors"]) == 1 and d["mirrors"][0]["share"] == 1.0 and
	d["mirrors"][0]["endpoints"][0]["port"] == 8086' \
	"resolve: proxied, traffic to a, a mirror to shadow :8086 for every request"
rctl resolve "http://mirror.$D/half/x" -o json
t_json_expect "$T_OUT" 'd["mirrors"][0]["share"] == 0.5' "resolve: /half mirrors half the requests"
t_ok "the HTTPRoute's mirrors compiled: statuses and resolve"

# get PATH [CURL ARGS...]: T_OUT the body then " CODE".
get() {
	local path=$1
	shift
	t_run lab_client curl -sS -m 10 --resolve "mirror.$D:80:$R" -w ' %{http_code}' "$@" "http://mirror.$D$path"
}
# mirrored PYEXPR WHAT: within 5 s, a line of the mirror's log (as `r`) satisfies PYEXPR.
mirrored() {
	sy_poll 5 python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if any(eval(sys.argv[2], {"r": r}) for r in rs) else 1)' "$MLOG" "$1" ||
		t_fail "$2" "no record with $1 in the mirror's log:" "$(tail -n 5 "$MLOG")" \
			"mirror counters: $(mirror_counters)"
}
count_mirrored() { # PREFIX: how many records' paths start with it
	python3 -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) if l.strip() and json.loads(l)["path"].startswith(sys.argv[2])))' "$MLOG" "$1"
}
stat() { rctl stats -o json && t_json "$T_OUT" "d[\"total\"][\"$1\"]"; }
# at_least COUNTER N: routerd's COUNTER is N or more now (for sy_poll, which runs it again).
at_least() { [ "$(stat "$1")" -ge "$2" ]; }
# the mirror counters from the last stats, for a failure's message
mirror_counters() { rctl stats -o json && t_json "$T_OUT" '{k: v for k, v in d["total"].items() if "mirror" in k}'; }

req0=$(stat proxy_mirror_requests)
ans0=$(stat proxy_mirror_answered)
for how in --http1.1 --http2-prior-knowledge; do
	get "/get${how#--}" "$how"
	[ "$T_OUT" = "backend-a
 200" ] || t_fail "GET ($how) through the mirrored rule: nginx a's answer" "$(t_seen)"
	mirrored "r[\"method\"] == \"GET\" and r[\"path\"] == \"/get${how#--}\" and r[\"connection\"] == \"close\" and r[\"length\"] == 0" \
		"the mirror got the GET ($how) with Connection: close"
done
# 200 kB: many windows, and under the 256 KiB a mirror may lag behind before it is given
# up (SY_PX_MIRROR_QUEUE, dataplane/proxy/px_mirror.h). A body over it reaches the mirror
# only when the sink keeps up with nginx, which is the host's timing, not routerd's rule
# (300 kB failed so about one run in ten, proxy_mirror_dropped 1); the bound itself is
# the non-reading mirror's case below.
head -c 200000 /dev/urandom >"$LAB_DIR/up.bin"
sum=$(sha256sum <"$LAB_DIR/up.bin" | cut -d' ' -f1)
get /post-length --http1.1 --data-binary "@$LAB_DIR/up.bin"
[ "$T_OUT" = "backend-a
 200" ] || t_fail "POST of 200 kB through the mirrored rule" "$(t_seen)"
mirrored "r[\"path\"] == \"/post-length\" and r[\"length\"] == 200000 and r[\"sha256\"] == \"$sum\"" \
	"the mirror got the 200 kB POST whole"
get /post-chunked --http1.1 -H 'Transfer-Encoding: chunked' --data-binary "@$LAB_DIR/up.bin"
[ "$T_OUT" = "backend-a
 200" ] || t_fail "chunked POST of 200 kB through the mirrored rule" "$(t_seen)"
mirrored "r[\"path\"] == \"/post-chunked\" and r[\"framing\"] == \"chunked\" and r[\"length\"] == 200000 and r[\"sha256\"] == \"$sum\"" \
	"the mirror got the chunked POST whole"
grep -Eq '"POST /post-length HTTP/1.1" 200' "$LAB_DIR/nginx-a/access.log" ||
	t_fail "nginx a (the route's backend) got the POST too" "$(tail -n 3 "$LAB_DIR/nginx-a/access.log")"
sy_poll 5 at_least proxy_mirror_answered $((ans0 + 4)) ||
	t_fail "the mirror's four answers counted (proxy_mirror_answered)" "$(mirror_counters)"
at_least proxy_mirror_requests $((req0 + 4)) ||
	t_fail "four requests mirrored (proxy_mirror_requests)" "$(mirror_counters)"
t_ok "RequestMirror: GETs (HTTP/1.1 and h2 clients) and 200 kB POSTs (length, chunked) reach the mirror whole with Connection: close; the client gets nginx a's answers"

for i in $(seq 40); do
	get "/half/$i" --http1.1
	[ "$T_OUT" = "backend-a
 200" ] || t_fail "request $i of 40 to /half" "$(t_seen)"
done
sleep 1
n=$(count_mirrored /half/)
t_note "percent 50: $n of 40 requests reached the mirror"
[ "$n" -ge 8 ] && [ "$n" -le 32 ] || t_fail "percent 50 mirrors about half of 40 requests" "$n mirrored"
t_ok "percent 50: $n of 40 requests mirrored"

f0=$(stat proxy_mirror_failed)
for i in $(seq 5); do
	get "/refused/$i" --http1.1
	[ "$T_OUT" = "backend-a
 200" ] || t_fail "request $i to a rule whose mirror refuses: nginx a's answer" "$(t_seen)"
done
sy_poll 5 at_least proxy_mirror_failed $((f0 + 5)) ||
	t_fail "five refused mirrors counted (proxy_mirror_failed)" "$(mirror_counters)"
t_ok "a mirror that refuses: the client is served by a, proxy_mirror_failed +5"

# A mirror that never answers must not hold the client up.
f1=$(stat proxy_mirror_failed)
for i in 1 2 3; do
	t0=$(date +%s%N)
	get "/hang/$i" --http1.1
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$T_OUT" = "backend-a
 200" ] && [ "$ms" -lt 2000 ] || t_fail "request $i whose mirror never answers: served at once" "${ms} ms; $(t_seen)"
done
mirrored 'r["path"] == "/hang/3"' "the stalled mirror got its request"
rctl conns -o json
t_json_expect "$T_OUT" 'sum(1 for c in d["conns"] if c["kind"] == "proxy-mirror") >= 1' \
	"routerctl conns shows the stalled mirror legs (proxy-mirror)"
sy_poll 20 at_least proxy_mirror_failed $((f1 + 3)) ||
	t_fail "the stalled mirrors end at their silence timeout" "$(mirror_counters)"
t_ok "a mirror that never answers: the client served at once, the legs ended by their timeout"

# A mirror that stops reading is given up once SY_PX_MIRROR_QUEUE (256 KiB) of the body waits
# for it; the client's upload goes on to a at its own pace.
d0=$(stat proxy_mirror_dropped)
head -c 4000000 /dev/urandom >"$LAB_DIR/big.bin"
get /noread/1 --http1.1 --data-binary "@$LAB_DIR/big.bin"
[ "$T_OUT" = "backend-a
 200" ] || t_fail "a 4 MB POST whose mirror does not read: nginx a's answer" "$(t_seen)"
mirrored 'r["path"] == "/noread/1"' "the mirror that does not read got the head"
sy_poll 5 at_least proxy_mirror_dropped $((d0 + 1)) ||
	t_fail "the mirror that cannot keep up is given up (proxy_mirror_dropped)" "$(mirror_counters)"
t_ok "a mirror that stops reading: given up (proxy_mirror_dropped), the 4 MB upload served by a"

# --- Contour HTTPProxy's mirror service -------------------------------------------------
rctl apply -f - <<EOF
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: hpm, namespace: demo}
spec:
  virtualhost: {fqdn: hpm.$D}
  routes:
  - services:
    - {name: a, port: 80}
    - {name: shadow, port: 8086, mirror: true}
EOF
t_expect_rc 0 "apply an HTTPProxy with a mirror service"
rctl resolve "http://hpm.$D/" -o json
t_json_expect "$T_OUT" '[s["name"] for s in d["services"]] == ["a"] and d["mirrors"][0]["share"] == 1.0' \
	"resolve: the HTTPProxy's traffic to a, a copy to its mirror"
for i in 1 2 3; do
	t_run lab_client curl -sS -m 10 --resolve "hpm.$D:80:$R" -w ' %{http_code}' "http://hpm.$D/hp/$i"
	[ "$T_OUT" = "backend-a
 200" ] || t_fail "HTTPProxy request $i: nginx a's answer" "$(t_seen)"
	mirrored "r[\"path\"] == \"/hp/$i\" and r[\"host\"] == \"hpm.$D\"" "the HTTPProxy's mirror got request $i"
done
t_ok "HTTPProxy: the mirror service gets a copy of each request, none of the traffic"

rctl stats -o json
t_note "mirror counters: $(t_json "$T_OUT" '{k: v for k, v in d["total"].items() if "mirror" in k}')"
t_flows_zero 20 || t_fail "every flow freed within 20 s (mirror legs included)" "$(t_json "$T_OUT" 'd["total"]["flows_active"]')"
t_ok "every flow freed"
t_finish
