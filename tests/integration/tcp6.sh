#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tcp6: TCP over IPv6 through routerd (issue 36). The client port has an IPv6 address
# (2001:2::1/64) and listen.addresses is empty, so every port address is a listen address;
# the client namespace talks to it over IPv6 only (2001:2::2/64, no DAD), while the lab's
# backends stay IPv4 (an IPv6 client leg, an IPv4 backend leg). With real curl -6:
#   - ping -6 of the router (sanity: neighbour discovery and ICMPv6 first);
#   - spliced Host routes (one rule: plain -> a, generated -> b) answered by the right nginx;
#   - a proxied host with path rules: three requests on ONE keep-alive connection, each
#     routed by its path (a, b, and an echoing pool c), and the echo shows the forwarded
#     headers the backend got: X-Forwarded-For 2001:2::2, Forwarded for="[2001:2::2]"
#     (RFC 7239: an IPv6 node is quoted and bracketed);
#   - TLS passthrough by SNI (each backend's own certificate verified) and TLS edge (a
#     certificate made here, verified against its test CA; forwarded headers say https);
#   - 20 MB downloads intact (sha256), spliced and proxied;
#   - 200 connections in a row with Connection: close (spliced and proxied, alternately),
#     every one answered by the right backend;
#   - an unknown Host (HTTP) and an unknown SNI (TLS) get the router's own 503;
#   - routerctl stats: nothing dropped as ipv6_tcp_not_served, no tcp_bad_checksum, the flow
#     table empty and the packet buffers back at the end.
# Lab IPv6 addresses are in 2001:2::/48 only; DAD is off in the namespace.
T_NAME=tcp6
source "$(dirname "$0")/testlib.sh"

for c in curl openssl python3 sha256sum; do
	command -v "$c" >/dev/null || t_skip_all "$c is not installed"
done

R6=2001:2::1           # routerd, port "client"
C6=2001:2::2           # the client namespace
U="[$R6]"              # the router in a URL or a --resolve entry
FWD_FOR="\"[$C6]\""    # Forwarded: for= of the client (RFC 7239 section 6)
D=$LAB_DOMAIN
P=passthrough.$LAB_DOMAIN

t_setup t6 1
C=$LAB_DIR/tls6
# The client port gets an IPv6 address; no listen addresses: every port address is served.
# The access log in JSON lines, to see how it writes IPv6 clients.
ALOG=$LAB_DIR/access6.log
python3 - "$LAB_ROUTERD_CONFIG" "$R6" "$ALOG" <<'PY' || t_fail "setup" "cannot give port client an IPv6 address"
import json, sys
p, addr, alog = sys.argv[1:4]
c = json.load(open(p))
c["ports"][0]["ipv6"] = [addr + "/64"]
c.setdefault("listen", {})["addresses"] = []
c["access_log"] = {"to": alog, "format": "json"}
json.dump(c, open(p, "w"), indent=1)
PY
t_start_routerd
MBUFS0=$(t_mbufs_in_use)

# The client end: IPv6 on, no duplicate address detection, the lab address.
lab_ipv6 client "$C6/64"

# --- 1. ping -6 ----------------------------------------------------------------------------
t_run lab_client ping -6 -c 3 -i 0.2 -W 2 "$R6"
t_expect_rc 0 "ping -6 $R6 from $LAB_NS_CLIENT"
t_expect_out ' 0% packet loss' "ping -6 $R6: 0% loss"
t_ok "ping -6 -c 3 $R6 from the client namespace: 3/3 replies"

# --- routes --------------------------------------------------------------------------------
rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_plain_route
# A third pool that echoes the request it got (pool_server.py on backend a, port 8082).
t_backend_service c 8082 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8082
t_px_routes

# An edge Route: a test CA and a leaf for edge6.$D signed by it (made here, nothing kept).
mkdir -p "$C" || t_fail "certificates" "mkdir $C"
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
	-subj "/CN=Switchyard tcp6 test CA" -addext "basicConstraints=critical,CA:TRUE" \
	-addext "keyUsage=critical,keyCertSign,cRLSign" -keyout "$C/ca.key" -out "$C/ca.pem"
t_expect_rc 0 "make the test CA (ECDSA P-256)"
printf '%s\n' "basicConstraints = critical, CA:FALSE" "keyUsage = critical, digitalSignature" \
	"extendedKeyUsage = serverAuth" "subjectAltName = DNS:edge6.$D" >"$C/edge.ext"
t_run openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-subj "/CN=edge6.$D" -keyout "$C/edge.key" -out "$C/edge.csr"
t_expect_rc 0 "certificate request for edge6.$D"
t_run openssl x509 -req -in "$C/edge.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial \
	-days 30 -sha256 -extfile "$C/edge.ext" -out "$C/edge.crt"
t_expect_rc 0 "the test CA signs edge6.$D"
ind() { sed "s/^/$(printf '%*s' "$1" '')/" "$2"; }
cat >"$C/edge-route.yaml" <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: edge6, namespace: demo}
spec:
  host: edge6.$D
  to: {kind: Service, name: c}
  port: {targetPort: http}
  tls:
    termination: edge
    certificate: |
$(ind 6 "$C/edge.crt")
    key: |
$(ind 6 "$C/edge.key")
    caCertificate: |
$(ind 6 "$C/ca.pem")
EOF
rctl apply -f "$C/edge-route.yaml"
t_expect_rc 0 "apply the edge Route edge6.$D (-> pool c)"
rctl get route edge6 -n demo -o json
t_json_expect "$(t_json "$T_OUT" '(d["items"][0] if "items" in d else d).get("status")')" \
	'[c.get("status") for c in d["ingress"][0]["conditions"] if c["type"] == "Admitted"] == ["True"]' \
	"route edge6 is admitted"
t_expect_mode "http://plain.$D/" splice
t_expect_mode "http://generated-demo.apps.$D/" splice
t_expect_mode "http://px.$D/" proxy
t_ok "routes applied: plain and generated-demo spliced, px proxied, edge6 (edge, admitted), passthrough a/b"

# --- helpers -------------------------------------------------------------------------------
stats() { # stats: routerctl stats -o json into STATS
	rctl stats -o json
	t_expect_rc 0 "routerctl stats -o json"
	STATS=$T_OUT
}
# why: the drops routerd counted so far, for failure messages (on a router without TCP over
# IPv6, ipv6_tcp_not_served says why).
why() {
	"$ROUTERCTL" -s "$LAB_SOCKET" stats -o json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)["total"]["drops"]
print("routerd drops so far: %s" % {k: v for k, v in d.items() if v})' 2>/dev/null || echo "routerd: no stats"
}
# c6 CURL-ARGS...: curl -6 in the client namespace, 10 s at most, through t_run.
c6() { t_run lab_client curl -6 -g -sS --max-time 10 "$@"; }
# get HOST PATH [curl args]: GET http://[R6]PATH with Host: HOST; T_OUT the body, CODE the status.
get() {
	local host=$1 path=$2
	shift 2
	c6 -H "Host: $host" -o - -w '\n%{http_code}' "$@" "http://$U$path"
	CODE=$(tail -n 1 <<<"$T_OUT")
	T_OUT=$(sed '$d' <<<"$T_OUT")
}
expect_body() { # HOST PATH BODY WHAT
	get "$1" "$2"
	[ "$T_RC" -eq 0 ] && [ "$CODE" = 200 ] && [ "$T_OUT" = "$3" ] ||
		t_fail "$4: GET http://$U$2 (Host: $1) answers 200 '$3'" "seen: code ${CODE:-none}; $(t_seen)" "$(why)"
}

# --- 2. spliced Host routes over IPv6 -------------------------------------------------------
expect_body "plain.$D" / backend-a "spliced route over IPv6"
expect_body "generated-demo.apps.$D" / backend-b "spliced route over IPv6"
# The name resolved to the router's IPv6 address (no Host header of our own).
c6 --resolve "plain.$D:80:$U" "http://plain.$D/x"
[ "$T_RC" -eq 0 ] && [ "$T_OUT" = backend-a ] ||
	t_fail "curl -6 --resolve plain.$D:80:$U http://plain.$D/x answers backend-a" "$(t_seen)" "$(why)"
t_ok "spliced Host routes over IPv6: plain.$D -> backend-a, generated-demo.apps.$D -> backend-b (curl -6 to $U)"

# --- 3. proxied path rules, one keep-alive connection, forwarded headers -------------------
stats
before=$(t_json "$STATS" 'd["total"]["conns_proxied"]')
before_req=$(t_json "$STATS" 'd["total"]["proxy_requests"]')
c6 -H "Host: px.$D" -w '\n@@ %{http_code} %{num_connects}\n' \
	"http://$U/" "http://$U/api/x" "http://$U/api/v2/echo"
out=$T_OUT
[ "$T_RC" -eq 0 ] || t_fail "three GETs on px.$D over IPv6 (one curl)" "$(t_seen)" "$(why)"
# The three bodies and their "@@ status connects" trailers, in order.
seen=$(python3 -c '
import sys
parts, cur = [], []
for line in sys.argv[1].split("\n"):
    if line.startswith("@@ "):
        parts.append(("\n".join(cur), line[3:]))
        cur = []
    else:
        cur.append(line)
print(" | ".join("%s %s" % (b.split("\n")[0], t) for b, t in parts))' "$out")
[ "$seen" = "backend-a 200 1 | backend-b 200 0 | path: /api/v2/echo 200 0" ] ||
	t_fail "px.$D over IPv6: /, /api/x, /api/v2/echo on ONE connection reach a, b, c (num_connects 1, 0, 0)" \
		"seen: $seen" "$(t_seen)"
stats
after=$(t_json "$STATS" 'd["total"]["conns_proxied"]')
after_req=$(t_json "$STATS" 'd["total"]["proxy_requests"]')
[ $((after - before)) -eq 1 ] && [ $((after_req - before_req)) -eq 3 ] ||
	t_fail "one proxied connection carried the three requests, each routed" \
		"conns_proxied $before -> $after, proxy_requests $before_req -> $after_req"
t_ok "proxied over IPv6: one keep-alive connection (num_connects 1, 0, 0; conns_proxied +1), three requests routed by path to a, b, c"
# What the echoing backend got (its header lines, \r stripped).
hdrs=$(tr -d '\r' <<<"$out")
grep -qFx "X-Forwarded-For: $C6" <<<"$hdrs" ||
	t_fail "the backend saw X-Forwarded-For: $C6 (the bare IPv6 address)" "seen: $(grep -i '^x-forwarded-for' <<<"$hdrs")" "curl's output: ${out:0:1500}"
grep -qFx "Forwarded: for=$FWD_FOR;host=px.$D;proto=http" <<<"$hdrs" ||
	t_fail "the backend saw Forwarded: for=$FWD_FOR;host=px.$D;proto=http (RFC 7239)" \
		"seen: $(grep -i '^forwarded' <<<"$hdrs")" "curl's output: ${out:0:1500}"
grep -qFx "X-Forwarded-Host: px.$D" <<<"$hdrs" && grep -qFx "X-Forwarded-Proto: http" <<<"$hdrs" ||
	t_fail "the backend saw X-Forwarded-Host px.$D and X-Forwarded-Proto http" "curl's output: ${out:0:1500}"
t_ok "forwarded headers over IPv6: X-Forwarded-For: $C6, Forwarded: for=$FWD_FOR;host=px.$D;proto=http"

# --- 4. TLS passthrough and TLS edge over IPv6 ----------------------------------------------
for x in a b; do
	c6 --cacert "$LAB_DIR/nginx-$x/tls.crt" --resolve "$x.$P:443:$U" "https://$x.$P/"
	[ "$T_RC" -eq 0 ] && [ "$T_OUT" = "backend-$x" ] ||
		t_fail "https://$x.$P/ over IPv6, backend $x's certificate verified, answers backend-$x" "$(t_seen)" "$(why)"
done
t_ok "TLS passthrough over IPv6: SNI a.passthrough -> backend-a, b.passthrough -> backend-b, certificates verified"
c6 --cacert "$C/ca.pem" --resolve "edge6.$D:443:$U" "https://edge6.$D/"
[ "$T_RC" -eq 0 ] && [ "$T_OUT" = pool-c ] ||
	t_fail "https://edge6.$D/ over IPv6 (edge, verified against the test CA) answers pool-c" "$(t_seen)" "$(why)"
c6 --cacert "$C/ca.pem" --resolve "edge6.$D:443:$U" "https://edge6.$D/echo"
hdrs=$(tr -d '\r' <<<"$T_OUT")
grep -qFx "X-Forwarded-For: $C6" <<<"$hdrs" && grep -qFx "X-Forwarded-Proto: https" <<<"$hdrs" &&
	grep -qFx "Forwarded: for=$FWD_FOR;host=edge6.$D;proto=https" <<<"$hdrs" ||
	t_fail "edge over IPv6: the backend saw X-Forwarded-For $C6, X-Forwarded-Proto https, Forwarded for=$FWD_FOR;host=edge6.$D;proto=https" "$(t_seen)"
t_ok "TLS edge over IPv6: https://edge6.$D/ terminated by routerd (certificate verified), pool-c answered, forwarded headers say $C6 and https"

# --- 5. 20 MB down, intact ------------------------------------------------------------------
big=$LAB_DIR/nginx-a/www/big.bin
head -c 20M /dev/urandom >"$big" || t_fail "setup" "write $big"
want=$(sha256sum <"$big" | cut -d' ' -f1)
for host in plain px; do
	t_run lab_client sh -c "curl -6 -g -sS --max-time 60 -H 'Host: $host.$D' 'http://$U/big.bin' | sha256sum"
	[ "$T_RC" -eq 0 ] && [ "${T_OUT%% *}" = "$want" ] ||
		t_fail "20 MB GET http://$U/big.bin (Host: $host.$D) arrives intact" "want sha256 $want" "$(t_seen)" "$(why)"
done
t_ok "20 MB downloads over IPv6, spliced (plain) and proxied (px): sha256 matches"

# --- 6. 200 connections in a row, Connection: close ----------------------------------------
# Alternately spliced (plain -> backend-a) and proxied (px /api -> backend-b); at most 90 s.
stats
opened0=$(t_json "$STATS" 'd["total"]["conns_opened"]')
t_run lab_client bash -c '
deadline=$((SECONDS + 90)) n=0 ok=0 bad=
for i in $(seq 200); do
	[ "$SECONDS" -lt "$deadline" ] || break
	n=$((n + 1))
	if [ $((i % 2)) -eq 1 ]; then host=plain path=/c$i want=backend-a; else host=px path=/api/c$i want=backend-b; fi
	body=$(curl -6 -g -s --max-time 5 -H "Connection: close" -H "Host: $host.'"$D"'" "http://'"$U"'$path")
	if [ "$body" = "$want" ]; then ok=$((ok + 1)); else bad="$bad $i:$host:${body:0:40}"; fi
done
echo "$n $ok"
[ -z "$bad" ] || echo "failed:$bad" | head -c 2000 >&2'
[ "$T_OUT" = "200 200" ] ||
	t_fail "200 connections in a row with Connection: close, all answered by the right backend" \
		"tried, answered right: $T_OUT" "$(t_seen)" "$(why)"
stats
opened1=$(t_json "$STATS" 'd["total"]["conns_opened"]')
[ $((opened1 - opened0)) -ge 200 ] ||
	t_fail "routerd counted the 200 connections" "conns_opened $opened0 -> $opened1"
t_ok "200 connections in a row over IPv6 (Connection: close, spliced and proxied alternately): 200 answered right"

# --- 7. unknown Host, unknown SNI: the router's own 503 -------------------------------------
get "nobody.$D" /
[ "$T_RC" -eq 0 ] && [ "$CODE" = 503 ] ||
	t_fail "an unknown Host over IPv6 gets the router's 503" "seen: code ${CODE:-none}; $(t_seen)" "$(why)"
grep -q 'Service Unavailable' <<<"$T_OUT" || t_fail "the 503 page over IPv6 says Service Unavailable" "$(t_seen)"
c6 -k -o /dev/null -w '%{http_code}' --resolve "nobody.$P:443:$U" "https://nobody.$P/"
[ "$T_OUT" = 503 ] ||
	t_fail "an unknown SNI over IPv6 (the default certificate): 503" "$(t_seen)" "$(why)"
t_ok "unknown Host (HTTP) and unknown SNI (TLS) over IPv6: the router's own 503"

# --- 8. IPv6 addresses as operators read them (RFC 5952 text, in brackets with a port) -----
# A held keep-alive connection of each mode (holder.py), listed by `routerctl conns`.
t_hold splice "$R6" "plain.$D"
t_hold proxy "$R6" "px.$D"
rctl conns -o json
t_expect_rc 0 "routerctl conns -o json"
t_json_expect "$T_OUT" "[c for c in d['conns'] if c['client'] == '[$C6]:$PORT_splice'
 and c['listen'] == '[$R6]:80' and c['kind'] == 'spliced']" \
	"routerctl conns: the spliced IPv6 connection as [$C6]:$PORT_splice -> [$R6]:80"
t_json_expect "$T_OUT" "[c for c in d['conns'] if c['client'] == '[$C6]:$PORT_proxy'
 and c['listen'] == '[$R6]:80' and c['kind'] == 'proxy' and c['client_tcp'] == 'established']" \
	"routerctl conns: the proxied IPv6 connection as [$C6]:$PORT_proxy, established"
rctl conns
t_expect_out "spliced +\\[$C6\\]:$PORT_splice +\\[$R6\\]:80" "the conns table's spliced IPv6 line"
kill "$PID_splice" "$PID_proxy" 2>/dev/null
t_ok "routerctl conns lists IPv6 connections as [$C6]:PORT -> [$R6]:80, spliced and proxied"
# The access log: JSON lines whose client and frontend are IPv6 endpoints.
for i in $(seq 50); do
	grep -q "\"client\": \"\\[$C6\\]:$PORT_proxy\"" "$ALOG" 2>/dev/null && break
	sleep 0.1
done
t_run python3 - "$ALOG" "$C6" "$R6" "$PORT_splice" "$PORT_proxy" <<'PY'
import json, sys
path, c6, r6, ps, pp = sys.argv[1:6]
recs = [json.loads(l) for l in open(path) if l.strip()]
mine = [r for r in recs if r["client"].startswith("[%s]:" % c6)]
assert mine, "no record with an IPv6 client among %d" % len(recs)
assert all(r["frontend"] in ("[%s]:80" % r6, "[%s]:443" % r6) for r in mine), mine[:3]
assert any(r["client"] == "[%s]:%s" % (c6, ps) for r in mine), "no record of the spliced one"
assert any(r["client"] == "[%s]:%s" % (c6, pp) and r["status"] == 200 for r in mine), \
    "no record of the proxied one"
print(len(mine))
PY
t_expect_rc 0 "the access log's IPv6 records: $T_OUT"
t_ok "access log: $T_OUT records of IPv6 clients as [$C6]:PORT, frontend [$R6]:80 or :443"

# --- 9. stats -----------------------------------------------------------------------------
stats
t_json_expect "$STATS" 'd["total"]["drops"]["ipv6_tcp_not_served"] == 0' \
	"stats: no IPv6 TCP segment dropped as ipv6_tcp_not_served"
t_json_expect "$STATS" 'd["total"]["drops"]["tcp_bad_checksum"] == 0' \
	"stats: no TCP segment failed our checksum (tcp_bad_checksum 0: the IPv6 pseudo-header is right)"
t_ok "stats: ipv6_tcp_not_served 0, tcp_bad_checksum 0; drops: $(t_json "$STATS" '{k: v for k, v in d["total"]["drops"].items() if v}')"
t_flows_zero 15 || t_fail "flows_active back to 0 after the traffic" "JSON: ${T_OUT:0:1500}"
t_ok "flow table: $(t_json "$T_OUT" 'd["total"]["conns_opened"]') connections opened, 0 active"
t_mbufs_back "$MBUFS0" "after every IPv6 connection of this test"

t_finish
