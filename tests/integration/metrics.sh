#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# metrics: routerd's Prometheus endpoint (config "metrics", control/observe/) in the lab.
# Scraped before and after real traffic: the counters moved by what was sent (spliced
# connections, the router's own 503, packets both ways; per route object and per backend
# endpoint: requests, answers by class, bytes, latency histograms; a spliced download's
# bytes to the byte; a route's active flows while connections are held, 0 after them);
# the Contour seed's IngressRoute gauges count what was applied; `promtool check metrics`
# (Debian's prometheus package) flags nothing but the seed's gauges that end in _total
# (kept: Contour's users query them); `routerctl metrics` gives the same exposition; other
# paths get 404 (but / and
# /status.json, the status page: status_page.sh), other methods 405.
T_NAME=metrics
source "$(dirname "$0")/testlib.sh"

command -v promtool >/dev/null || t_fail "promtool is installed (tools/lib/common.sh installs prometheus)"
t_setup mt 1
PORT=$((20000 + $$ % 20000))
t_config_set metrics "\"127.0.0.1:$PORT\""
t_start_routerd
D=lab.switchyard.test
URL=http://127.0.0.1:$PORT/metrics

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_plain_route
rctl apply -f - <<EOF
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: root, namespace: demo}
spec:
  virtualhost: {fqdn: ir.$D}
  routes:
  - match: /
    services: [{name: a, port: 80}]
---
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: lonely, namespace: demo}
spec:
  routes:
  - match: /x
    services: [{name: a, port: 80}]
EOF
t_expect_rc 0 "apply an IngressRoute root and an orphaned one"

# metric NAME{LABELS} from the scrape in $1 (0 when absent). awk, not python: the test reads
# about 50 values, and starting python3 for each made the test take 57 s; it takes 8 now.
value() {
	awk -v want="$2" '
		/^#/ { next }
		{ i = match($0, / [^ ]*$/) }
		i && substr($0, 1, i - 1) == want { print substr($0, i + 1); found = 1; exit }
		END { if (!found) print 0 }' <<<"$1"
}

t_run curl -sf -m 5 "$URL"
t_expect_rc 0 "GET $URL"
before=$T_OUT
t_expect_out '^switchyard_generation [0-9]+' "the exposition has the generation"
[ "$(value "$before" 'contour_ingressroute_total{namespace="demo"}')" = 2 ] ||
	t_fail "contour_ingressroute_total{namespace=\"demo\"} is 2" "seen: $(grep contour_ <<<"$before")"
[ "$(value "$before" 'contour_ingressroute_root_total{namespace="demo"}')" = 1 ] ||
	t_fail "contour_ingressroute_root_total{namespace=\"demo\"} is 1" "seen: $(grep contour_ <<<"$before")"
[ "$(value "$before" 'contour_ingressroute_orphaned_total{namespace="demo"}')" = 1 ] ||
	t_fail "contour_ingressroute_orphaned_total{namespace=\"demo\"} is 1" "seen: $(grep contour_ <<<"$before")"
[ "$(value "$before" "contour_ingressroute_valid_total{namespace=\"demo\",vhost=\"ir.$D\"}")" = 1 ] ||
	t_fail "contour_ingressroute_valid_total for vhost ir.$D is 1" "seen: $(grep contour_ <<<"$before")"
[ "$(value "$before" 'switchyard_routes{kind="Route",group="route.openshift.io",state="admitted"}')" = 7 ] ||
	t_fail "seven OpenShift routes admitted (routes.yaml and plain.lab)" "seen: $(grep switchyard_routes <<<"$before")"
t_ok "Contour's IngressRoute gauges and the route counts say what was applied"

# Traffic: 20 spliced requests, and one for a host nobody serves (the router's 503).
for i in $(seq 1 20); do
	t_run lab_client curl -sf -m 5 -H "Host: plain.$D" "http://$LAB_ROUTER_IP/"
	[ "$T_OUT" = backend-a ] || t_fail "request $i through the router" "seen: $(t_seen)"
done
t_run lab_client curl -s -m 5 -o /dev/null -w '%{http_code}' -H "Host: nobody.$D" "http://$LAB_ROUTER_IP/"
[ "$T_OUT" = 503 ] || t_fail "an unknown host gets 503" "seen: $(t_seen)"
# Proxied (web.lab has path rules): 5 requests for / on one connection (Route web), 4 for
# /b... (Route web-b; the lab's nginx answers 200 on every path).
t_run lab_client curl -s -m 5 -o /dev/null -H "Host: web.$D" "http://$LAB_ROUTER_IP/" "http://$LAB_ROUTER_IP/" \
	"http://$LAB_ROUTER_IP/" "http://$LAB_ROUTER_IP/" "http://$LAB_ROUTER_IP/" "http://$LAB_ROUTER_IP/b" \
	"http://$LAB_ROUTER_IP/b" "http://$LAB_ROUTER_IP/b" "http://$LAB_ROUTER_IP/b/nothing"
t_expect_rc 0 "9 proxied requests to web.$D"
t_run curl -sf -m 5 "$URL"
after=$T_OUT
delta() { echo $(($(value "$after" "$1") - $(value "$before" "$1"))); }
[ "$(delta switchyard_connections_spliced_total)" -ge 20 ] ||
	t_fail "switchyard_connections_spliced_total moved by at least 20" "delta: $(delta switchyard_connections_spliced_total)"
[ "$(delta 'switchyard_router_answers_total{reason="no_route"}')" = 1 ] ||
	t_fail "switchyard_router_answers_total{reason=\"no_route\"} moved by 1" \
		"delta: $(delta 'switchyard_router_answers_total{reason="no_route"}')"
[ "$(delta switchyard_syn_cookies_sent_total)" -ge 21 ] ||
	t_fail "a SYN cookie for each of the 21 connections"
# A spliced connection is at least six packets each way through the router (handshake,
# request, response, both FINs and their ACKs on the two legs).
[ "$(delta switchyard_received_packets_total)" -ge 120 ] &&
	[ "$(delta switchyard_transmitted_packets_total)" -ge 120 ] ||
	t_fail "packets both ways counted" "rx +$(delta switchyard_received_packets_total), tx +$(delta switchyard_transmitted_packets_total)"
t_ok "after 21 connections: spliced +$(delta switchyard_connections_spliced_total), no_route answers +1, packets rx +$(delta switchyard_received_packets_total) tx +$(delta switchyard_transmitted_packets_total)"

# Per route object (sy_route_stats.h): the spliced connections on Route plain, the proxied
# requests on Route web and web-b, by status class, bytes, the latency histograms.
rl() { printf 'kind="Route",namespace="demo",name="%s",vhost="%s"' "$1" "$2.$D"; }
[ "$(delta "switchyard_route_connections_total{$(rl plain plain)}")" = 20 ] ||
	t_fail "route plain: 20 connections" "$(grep 'name="plain"' <<<"$after" | head -5)"
[ "$(delta "switchyard_route_requests_total{$(rl web web)}")" = 5 ] &&
	[ "$(delta "switchyard_route_responses_total{$(rl web web),code=\"2xx\"}")" = 5 ] ||
	t_fail "route web: 5 requests, 5 2xx" "$(grep 'name="web"' <<<"$after" | grep -v bucket)"
[ "$(delta "switchyard_route_requests_total{$(rl web-b web)}")" = 4 ] &&
	[ "$(delta "switchyard_route_responses_total{$(rl web-b web),code=\"2xx\"}")" = 4 ] &&
	[ "$(delta "switchyard_route_responses_total{$(rl web-b web),code=\"5xx\"}")" = 0 ] ||
	t_fail "route web-b: 4 requests, 4 2xx" "$(grep 'name="web-b"' <<<"$after" | grep -v bucket)"
[ "$(delta "switchyard_route_sent_bytes_total{$(rl web web)}")" -gt 500 ] &&
	[ "$(delta "switchyard_route_received_bytes_total{$(rl web web)}")" -gt 200 ] ||
	t_fail "route web: bytes both ways" "$(grep 'name="web"' <<<"$after" | grep bytes)"
[ "$(delta "switchyard_route_backend_response_seconds_count{$(rl web web)}")" = 5 ] &&
	[ "$(delta "switchyard_route_backend_response_seconds_bucket{$(rl web web),le=\"+Inf\"}")" = 5 ] &&
	[ "$(delta "switchyard_route_router_seconds_count{$(rl web web)}")" = 5 ] ||
	t_fail "route web: 5 in each latency histogram" "$(grep 'name="web"' <<<"$after" | grep seconds | head -30)"
t_ok "per route: plain +20 spliced connections, web +5 requests (2xx), web-b +4 (2xx), bytes and latency histograms"
# Per backend endpoint: connections opened (20 spliced + the proxied leg(s) to a).
[ "$(delta "switchyard_backend_connections_total{endpoint=\"$LAB_BACKEND_A_IP:80\"}")" -ge 21 ] &&
	grep -q "^switchyard_backend_open_connections{endpoint=\"$LAB_BACKEND_B_IP:80\"} " <<<"$after" ||
	t_fail "per backend: connections to a counted, b listed" "$(grep switchyard_backend_ <<<"$after")"
t_ok "per backend: a +$(delta "switchyard_backend_connections_total{endpoint=\"$LAB_BACKEND_A_IP:80\"}") connections opened; open connections and ejection listed"
# Per backend endpoint, its own counters (sy_backend_stats.h): b had exactly web-b's 4
# proxied requests, a web's 5 and the 20 spliced connections; each answered 2xx, each in
# the response-time histogram; bytes both ways (a's spliced ones counted at their end).
el() { printf 'endpoint="%s:80"' "$1"; }
A=$LAB_BACKEND_A_IP B=$LAB_BACKEND_B_IP
for want in "switchyard_backend_requests_total{$(el "$B")} 4" \
	"switchyard_backend_responses_total{$(el "$B"),code=\"2xx\"} 4" \
	"switchyard_backend_responses_total{$(el "$B"),code=\"5xx\"} 0" \
	"switchyard_backend_response_seconds_count{$(el "$B")} 4" \
	"switchyard_backend_response_seconds_bucket{$(el "$B"),le=\"+Inf\"} 4" \
	"switchyard_backend_spliced_connections_total{$(el "$B")} 0" \
	"switchyard_backend_requests_total{$(el "$A")} 5" \
	"switchyard_backend_responses_total{$(el "$A"),code=\"2xx\"} 5" \
	"switchyard_backend_response_seconds_count{$(el "$A")} 5" \
	"switchyard_backend_spliced_connections_total{$(el "$A")} 20"; do
	[ "$(delta "${want% *}")" = "${want##* }" ] ||
		t_fail "per backend: ${want% *} moved by ${want##* }" "delta: $(delta "${want% *}")" \
			"$(grep -E 'switchyard_backend_(requests|responses|spliced|response_seconds_count)' <<<"$after")"
done
# A spliced answer is at least its status line and "backend-a" (26 bytes), a request
# its request line and Host (30).
[ "$(delta "switchyard_backend_sent_bytes_total{$(el "$B")}")" -gt 120 ] &&
	[ "$(delta "switchyard_backend_received_bytes_total{$(el "$B")}")" -gt 100 ] &&
	[ "$(delta "switchyard_backend_received_bytes_total{$(el "$A")}")" -ge $((25 * 26)) ] &&
	[ "$(delta "switchyard_backend_sent_bytes_total{$(el "$A")}")" -ge $((25 * 30)) ] &&
	[ "$(delta "switchyard_route_sent_bytes_total{$(rl plain plain)}")" -ge $((20 * 26)) ] ||
	t_fail "per backend: bytes both ways; route plain: spliced bytes" \
		"$(grep -E '_bytes_total\{(endpoint|.*name="plain")' <<<"$after")"
t_ok "per backend: b +4 requests (4 2xx, 4 timed), a +5 requests and +20 spliced connections, bytes a $(delta "switchyard_backend_sent_bytes_total{$(el "$A")}")/$(delta "switchyard_backend_received_bytes_total{$(el "$A")}") b $(delta "switchyard_backend_sent_bytes_total{$(el "$B")}")/$(delta "switchyard_backend_received_bytes_total{$(el "$B")}") (sent/received)"

# A spliced connection's bytes are what went through it, to the byte (from its FINs'
# sequence numbers): one 2 MiB download on plain, as curl counted it.
t_run curl -sf -m 5 "$URL"
before=$T_OUT
t_run lab_client curl -sf -m 10 -o /dev/null -w '%{size_request} %{size_header} %{size_download}' \
	-H "Host: plain.$D" "http://$LAB_ROUTER_IP/big.bin"
read -r req hdr body <<<"$T_OUT"
[ "${body:-0}" = 2097152 ] || t_fail "a 2 MiB download through the splice path" "seen: $(t_seen)"
# Counted once both ends have closed (curl's exit does not wait for the last ACK).
for _ in $(seq 1 20); do
	t_run curl -sf -m 5 "$URL"
	after=$T_OUT
	[ "$(delta "switchyard_backend_received_bytes_total{$(el "$A")}")" -lt $((hdr + body)) ] || break
	sleep 0.1
done
[ "$(delta "switchyard_backend_received_bytes_total{$(el "$A")}")" = $((hdr + body)) ] &&
	[ "$(delta "switchyard_backend_sent_bytes_total{$(el "$A")}")" = "$req" ] &&
	[ "$(delta "switchyard_route_sent_bytes_total{$(rl plain plain)}")" = $((hdr + body)) ] &&
	[ "$(delta "switchyard_route_received_bytes_total{$(rl plain plain)}")" = "$req" ] ||
	t_fail "spliced bytes: a and plain moved by curl's $req sent, $((hdr + body)) received" \
		"backend a +$(delta "switchyard_backend_sent_bytes_total{$(el "$A")}")/+$(delta "switchyard_backend_received_bytes_total{$(el "$A")}"), route plain +$(delta "switchyard_route_received_bytes_total{$(rl plain plain)}")/+$(delta "switchyard_route_sent_bytes_total{$(rl plain plain)}")"
t_ok "spliced bytes to the byte: one download of $((hdr + body)) bytes (request $req) moved backend a and route plain by that"

# Active flows per route: a proxied keep-alive connection (web) and a spliced one (plain)
# held open after their answers count 1 each; closed, 0 again.
held=$LAB_DIR/flows.held release=$LAB_DIR/flows.release
cat >"$LAB_DIR/holder.py" <<'PY2'
import os, socket, sys, time
ip, dom, held, release = sys.argv[1:5]
socks = []
for host in ("web." + dom, "plain." + dom):
    s = socket.create_connection((ip, 80), timeout=5)
    s.sendall(("GET / HTTP/1.1\r\nHost: %s\r\n\r\n" % host).encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += s.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    n = [int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
    while n and len(body) < n[0]:
        body += s.recv(4096)
    print(host, head.split(b"\r\n")[0].decode(), len(body), flush=True)
    socks.append(s)
open(held, "w").close()
t = time.time()
while not os.path.exists(release) and time.time() - t < 30:
    time.sleep(0.05)
for s in socks:
    s.close()
PY2
lab_spawn client holder python3 "$LAB_DIR/holder.py" "$LAB_ROUTER_IP" "$D" "$held" "$release"
holder=$LAB_SPAWN_PID
for _ in $(seq 1 100); do [ -e "$held" ] || sleep 0.1; done
[ -e "$held" ] || t_fail "a client holds two connections open" "$(cat "$LAB_DIR/holder.log")"
t_run curl -sf -m 5 "$URL"
during=$T_OUT
touch "$release"
wait "$holder" 2>/dev/null
flows() { printf '%s+%s' "$(value "$1" "switchyard_route_flows_active{$(rl web web)}")" \
	"$(value "$1" "switchyard_route_flows_active{$(rl plain plain)}")"; }
[ "$(flows "$during")" = 1+1 ] ||
	t_fail "active flows web+plain are 1+1 while held" "seen: $(flows "$during")" \
		"$(grep flows_active <<<"$during")"
for _ in $(seq 1 50); do
	t_run curl -sf -m 5 "$URL"
	[ "$(flows "$T_OUT")" = 0+0 ] && break
	sleep 0.1
done
[ "$(flows "$T_OUT")" = 0+0 ] && ! grep -Eq '^switchyard_route_flows_active\{.*\} [1-9]' <<<"$T_OUT" ||
	t_fail "every route's active flows are 0 once closed" "$(grep flows_active <<<"$T_OUT")"
t_ok "active flows: web+plain 1+1 while a client held a keep-alive and a spliced connection, 0 after"
# The packet buffers: the pool's size, and at rest (net_af_packet ports hold none) all back.
[ "$(value "$T_OUT" switchyard_mbufs)" -gt 0 ] && [ "$(value "$T_OUT" switchyard_mbufs_in_use)" = 0 ] ||
	t_fail "switchyard_mbufs > 0 and switchyard_mbufs_in_use 0 at rest" "$(grep '^switchyard_mbufs' <<<"$T_OUT")"
t_ok "packet buffers: $(value "$T_OUT" switchyard_mbufs) in the pool, none in use at rest"
# The ports as their drivers count them: the client port received what the curls sent, and
# each port has its drop series (net_af_packet: no af_xdp reasons).
rx=$(value "$T_OUT" 'switchyard_port_received_packets_total{port="client"}')
[ "${rx:-0}" -gt 0 ] && [ "$(grep -c '^switchyard_port_dropped_packets_total{port="client",reason="missed"}' <<<"$T_OUT")" = 1 ] &&
	! grep -q 'reason="af_xdp_' <<<"$T_OUT" ||
	t_fail "per-port series: received packets and drop reasons for port client" "$(grep '^switchyard_port' <<<"$T_OUT")"
t_ok "ports: client received $rx frames; drops by reason per port ($(grep -c '^switchyard_port_dropped_packets_total' <<<"$T_OUT") series)"

# promtool: only the seed's gauges may be flagged (for their _total suffix).
t_run promtool check metrics <<<"$after"
flagged=$(printf '%s\n%s\n' "$T_OUT" "$T_ERR" | grep -v '^$' | grep -Ev '^contour_ingressroute(_[a-z]+)*_total ' || true)
[ -z "$flagged" ] || t_fail "promtool flags nothing but contour_ingressroute_*_total" "promtool: $flagged"
t_ok "promtool check metrics: nothing flagged but the Contour seed's gauges ($(printf '%s\n' "$T_OUT$T_ERR" | grep -c '^contour_ingressroute') of them)"

rctl metrics
t_expect_rc 0 "routerctl metrics"
diff <(grep '^# TYPE' <<<"$T_OUT") <(grep '^# TYPE' <<<"$after") >/dev/null ||
	t_fail "routerctl metrics gives the same metrics as the endpoint"
t_run curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/nothing"
[ "$T_OUT" = 404 ] || t_fail "GET /nothing is 404 (/ is the status page: status_page.sh)" "seen: $(t_seen)"
t_run curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST "$URL"
[ "$T_OUT" = 405 ] || t_fail "POST /metrics is 405" "seen: $(t_seen)"
t_ok "routerctl metrics is the same exposition; GET /nothing gets 404, POST 405"

t_finish
