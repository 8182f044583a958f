#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# grpc: gRPC end to end through routerd to a real grpcio server (issue 37). The server,
# grpc_server.py (service t.Echo, raw bytes messages), listens h2c on backend a's address,
# port 50051; Service grpc-echo names that port `grpc` and is annotated
# projectcontour.io/upstream-protocol.h2c: grpc, so routerd speaks HTTP/2 with prior
# knowledge to it. The client, grpc_client.py in the client namespace (one JSON line a call):
#   - over edge TLS (ALPN h2, routerd's certificate checked against a CA made at run time):
#     unary, server streaming, client streaming, bidi (send one, read its reply, send the
#     next: only a stream carried both ways at once completes), NOT_FOUND with its details,
#     request metadata to the server and initial and trailing metadata back, 1 MiB each way
#     in one call, 200 messages of 16 KiB in one stream (flow control, many DATA frames);
#   - the same over h2c on port 80 (the Route's insecure policy Allow);
#   - Service grpc-old with the old spelling, contour.heptio.com/upstream-protocol.h2c:
#     "50051" (the port by number): unary and bidi (its Route has the path /t.Echo/, so
#     routerctl resolve says proxy: a Route of the host alone it calls splice);
#   - the server stopped: a call gets UNAVAILABLE, routerd still serves (curl to another
#     route answers 200);
#   - TLS to the backend: a second grpc_server.py, --tls, on port 50052 with a certificate
#     from a CA made at run time (ALPN h2; checked straight first, like the h2c one):
#     - Service grpcs-echo annotated projectcontour.io/upstream-protocol.h2: grpcs (TLS, the
#       certificate not checked, ALPN h2 then http/1.1), edge Route grpcs.$D: the eight
#       calls; h2_backend_conns rises (ALPN chose h2 and the leg spoke it);
#     - reencrypt Route reenc-grpc.$D (destinationCACertificate the test CA) to Service
#       grpc-reenc, not annotated: unary and bidi; h2_backend_conns rises;
#   - Service tls-web annotated upstream-protocol.tls: "9443", to a python3 HTTPS server
#     (self-signed certificate; it offers ALPN h2 and http/1.1 and says in its body and log
#     the TLS version and the ALPN chosen), Route tlsweb.$D with path /web (proxied): curl
#     200 with the server's body, TLS seen and h2 not chosen; h2_backend_conns unchanged
#     (HTTP/1.1 over TLS). Route tlsweb-plain.$D, the host alone, the same: resolve says
#     it is proxied (never spliced: plain HTTP must not reach the TLS port);
#   - the counters: h2_backend_conns and h2_backend_streams counted, no h2_protocol_errors
#     nor h2_backend_errors; every connection freed once the clients are gone.
# GRPC_PROXY=haproxy runs the same client assertions against Debian's HAProxy in routerd's
# place (proto h2 to the server; ssl with ALPN h2 to the TLS one): the test's check of
# itself while routerd spoke only HTTP/1.1 to backends; routerd's own checks (counters,
# connections) are skipped then.
# First the pair without routerd (the client in the backend namespace straight to the
# server, all eight calls), so that a later failure is routerd's. grpc_client.py prints
# {"mode": ..., "code": ..., "details": ..., "replies": [...], "ok": ...} a line per call.
T_NAME=grpc
source "$(dirname "$0")/testlib.sh"

for c in openssl curl; do
	command -v "$c" >/dev/null || t_skip_all "$c is not installed"
done
/usr/bin/python3 -c 'import grpc' 2>/dev/null || t_skip_all "python3-grpcio is not installed"
GRPC_PROXY=${GRPC_PROXY:-routerd}
case $GRPC_PROXY in
routerd) ;;
haproxy) command -v haproxy >/dev/null || t_skip_all "GRPC_PROXY=haproxy: haproxy is not installed" ;;
*) t_fail "setup" "GRPC_PROXY: routerd or haproxy, not '$GRPC_PROXY'" ;;
esac

t_setup grpc 1
D=$LAB_DOMAIN
R=$LAB_ROUTER_IP
A_IP=$LAB_BACKEND_A_IP
H=grpc.$D
HOLD=grpc-old.$D
HS=grpcs.$D
HR=reenc-grpc.$D
HT=tlsweb.$D
HTP=tlsweb-plain.$D
TLS_PORT=50052
WEB_PORT=9443
C=$LAB_DIR/grpctls
PORT=50051
SERVER=$SY_SRC/tests/integration/grpc_server.py
CLIENT=$SY_SRC/tests/integration/grpc_client.py

# grpc_call TARGET AUTHORITY MODE [--tls CAFILE]: grpc_client.py in the client namespace,
# T_OUT its JSON lines.
grpc_call() { t_run lab_client /usr/bin/python3 "$CLIENT" "$@"; }
# grpc_line MODE: the JSON line of MODE in T_OUT.
grpc_line() { grep -m 1 "^{\"mode\":\"$1\"," <<<"$T_OUT"; }
# grpc_expect MODE PYEXPR WHAT: MODE's line is there and PYEXPR over it (d) is true.
grpc_expect() {
	local line
	line=$(grpc_line "$1") || t_fail "$3" "no line for $1" "seen: $(t_seen)"
	t_json_expect "$line" "$2" "$3"
}
# grpc_expect_all HOW: T_OUT is grpc_client.py's `all`, every call what t.Echo answers.
grpc_expect_all() {
	local how=$1
	grpc_expect unary 'd["code"] == "OK" and d["replies"] == ["cprg olleh"]' "$how: unary, the request reversed"
	grpc_expect server_stream 'd["code"] == "OK" and d["replies"] == ["msg-%d" % i for i in range(5)]' \
		"$how: server streaming, msg-0..msg-4"
	grpc_expect client_stream 'd["code"] == "OK" and d["replies"] == ["4:10"]' \
		"$how: client streaming, 4 messages of 10 bytes counted"
	grpc_expect bidi 'd["code"] == "OK" and d["replies"] == ["A", "BB", "CCC", "DDDD", "EEEEE"]' \
		"$how: bidi, each message's reply read before the next is sent"
	grpc_expect not_found 'd["code"] == "NOT_FOUND" and d["details"] == "no such thing"' \
		"$how: NOT_FOUND carried through with its details"
	grpc_expect meta 'd["code"] == "OK" and d["replies"][0].startswith("probe-") and d["initial"].get("x-head") == "yes" and d["trailing"].get("x-trail") == "yes"' \
		"$how: x-probe reaches the server, x-head (initial) and x-trail (trailing) come back"
	grpc_expect large_unary 'd["code"] == "OK" and d["bytes"] == 1 << 20 and d["intact"]' \
		"$how: 1 MiB each way in one unary call, intact"
	grpc_expect large_stream 'd["code"] == "OK" and d["count"] == 200 and d["intact"]' \
		"$how: 200 messages of 16 KiB in one server stream, intact"
	[ "$T_RC" = 0 ] || t_fail "$how: grpc_client.py all exits 0" "seen: $(t_seen)"
}

# One self-signed certificate for the edge Route (the client checks it: --tls CAFILE).
mkdir -p "$C" || t_fail "setup" "mkdir $C"
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj "/CN=$H" -addext "subjectAltName=DNS:$H" -keyout "$C/tls.key" -out "$C/tls.crt"
t_expect_rc 0 "a certificate for $H"

# A test CA for the TLS backends: it signs the TLS gRPC server's certificate (for the names
# re-encrypt would check without destinationCACertificate, <service>.<namespace>.svc, of
# both Services in front of it) and the certificates routerd shows the client for $HS and
# $HR. tls-web's server has a self-signed one no one could verify.
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj "/CN=Switchyard grpc test CA" -addext "basicConstraints=critical,CA:TRUE" \
	-addext "keyUsage=critical,keyCertSign,cRLSign" -keyout "$C/ca.key" -out "$C/ca.pem"
t_expect_rc 0 "make the test CA (ECDSA P-256)"
# leaf FILE NAME...: $C/FILE.key and $C/FILE.crt, a server certificate for the NAMEs (the
# first its CN) signed by the test CA.
leaf() {
	local f=$1 san
	shift
	san=$(printf 'DNS:%s,' "$@")
	printf '%s\n' "basicConstraints = critical, CA:FALSE" "keyUsage = critical, digitalSignature" \
		"extendedKeyUsage = serverAuth" "subjectAltName = ${san%,}" >"$C/$f.ext"
	t_run openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$1" \
		-keyout "$C/$f.key" -out "$C/$f.csr"
	t_expect_rc 0 "certificate request for $*"
	t_run openssl x509 -req -in "$C/$f.csr" -CA "$C/ca.pem" -CAkey "$C/ca.key" -CAcreateserial \
		-days 2 -sha256 -extfile "$C/$f.ext" -out "$C/$f.crt"
	t_expect_rc 0 "the test CA signs $* ($f)"
}
leaf grpc-tls grpcs-echo.demo.svc grpc-reenc.demo.svc
leaf grpcs "$HS"
leaf reenc "$HR"
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj "/CN=nobody.invalid" -keyout "$C/tls-web.key" -out "$C/tls-web.crt"
t_expect_rc 0 "a self-signed certificate for tls-web's server"
t_run openssl verify -CAfile "$C/ca.pem" "$C/grpc-tls.crt" "$C/grpcs.crt" "$C/reenc.crt"
t_expect_rc 0 "the leaves verify against the test CA"

# The gRPC server on backend a's address; "ready" in its log once it serves.
lab_spawn backend grpc /usr/bin/python3 "$SERVER" "$A_IP" "$PORT"
GRPC_PID=$LAB_SPAWN_PID
sy_poll 10 grep -qx ready "$LAB_DIR/grpc.log" &&
	sy_poll 5 lab_backend /usr/bin/python3 -c "import socket; socket.create_connection(('$A_IP', $PORT), 1)" ||
	t_fail "setup" "grpc_server.py does not accept on $A_IP:$PORT" "$(cat "$LAB_DIR/grpc.log")"
t_ok "grpc_server.py (t.Echo) serving h2c on $A_IP:$PORT (pid $GRPC_PID)"

# The pair without routerd: the client in the backend namespace straight to the server (h2c),
# so that a failure further on is routerd's, not the server's or the client's.
t_run lab_backend /usr/bin/python3 "$CLIENT" "$A_IP:$PORT" "$H" all
grpc_expect_all "direct to grpc_server.py (no routerd)"
t_ok "grpc_client.py all straight to grpc_server.py in the backend namespace: eight calls as expected"

# The second instance, TLS (ALPN h2) with the test CA's certificate, on port $TLS_PORT; the
# pair checked straight too (the certificate verified for grpcs-echo.demo.svc).
lab_spawn backend grpc-tls /usr/bin/python3 "$SERVER" "$A_IP" "$TLS_PORT" --tls "$C/grpc-tls.crt" "$C/grpc-tls.key"
sy_poll 10 grep -qx ready "$LAB_DIR/grpc-tls.log" &&
	sy_poll 5 lab_backend /usr/bin/python3 -c "import socket; socket.create_connection(('$A_IP', $TLS_PORT), 1)" ||
	t_fail "setup" "grpc_server.py --tls does not accept on $A_IP:$TLS_PORT" "$(cat "$LAB_DIR/grpc-tls.log")"
t_run lab_backend openssl s_client -connect "$A_IP:$TLS_PORT" -alpn h2,http/1.1 -CAfile "$C/ca.pem" \
	-verify_hostname grpcs-echo.demo.svc </dev/null
grep -q '^ALPN protocol: h2$' <<<"$T_OUT" && grep -q 'Verify return code: 0 (ok)' <<<"$T_OUT" ||
	t_fail "grpc_server.py --tls: ALPN h2 chosen from h2,http/1.1, its certificate verified" "seen: $(t_seen)"
t_run lab_backend /usr/bin/python3 "$CLIENT" "$A_IP:$TLS_PORT" grpcs-echo.demo.svc all --tls "$C/ca.pem"
grpc_expect_all "direct to grpc_server.py --tls (no routerd)"
t_ok "grpc_server.py --tls on $A_IP:$TLS_PORT: ALPN h2, the test CA's certificate; grpc_client.py all straight to it: eight calls as expected"

# tls-web: HTTP/1.1 over TLS only (python3 http.server behind ssl, the self-signed
# certificate), port $WEB_PORT. It offers ALPN h2 and http/1.1, so a client that offered h2
# would get it; its body says what the connection was, "tls-web <TLS version> alpn=<ALPN
# chosen>", and its log has a line a request the same way.
cat >"$LAB_DIR/tls_web.py" <<'PY'
import http.server, ssl, sys
addr, port, crt, key = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        how = "%s alpn=%s" % (self.connection.version(), self.connection.selected_alpn_protocol())
        print("%s %s %s" % (how, self.command, self.path), flush=True)
        b = ("tls-web %s\n" % how).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
srv = http.server.ThreadingHTTPServer((addr, port), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(crt, key)
ctx.set_alpn_protocols(["h2", "http/1.1"])
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print("ready", flush=True)
srv.serve_forever()
PY
lab_spawn backend tls-web /usr/bin/python3 "$LAB_DIR/tls_web.py" "$A_IP" "$WEB_PORT" "$C/tls-web.crt" "$C/tls-web.key"
sy_poll 10 grep -qx ready "$LAB_DIR/tls-web.log" &&
	sy_poll 5 lab_backend curl -skf --http1.1 -m 1 -o /dev/null "https://$A_IP:$WEB_PORT/" ||
	t_fail "setup" "tls_web.py does not answer https://$A_IP:$WEB_PORT/" "$(cat "$LAB_DIR/tls-web.log")"
t_run lab_backend curl -sS -m 5 -o /dev/null -w '%{http_code}' "http://$A_IP:$WEB_PORT/"
[ "$T_OUT" != 200 ] || t_fail "tls_web.py answers nothing in plain HTTP" "seen: $(t_seen)"
t_run lab_backend openssl s_client -connect "$A_IP:$WEB_PORT" -alpn h2,http/1.1 </dev/null
grep -q '^ALPN protocol: h2$' <<<"$T_OUT" ||
	t_fail "tls_web.py chooses h2 when it is offered (so a leg that offered it would break)" "seen: $(t_seen)"
t_ok "tls_web.py on $A_IP:$WEB_PORT: HTTPS only (plain HTTP gets no 200), self-signed certificate, ALPN h2 chosen when offered"

# h2c_service NAME ANNOTATION VALUE: a Service (namespace demo) with one port named grpc,
# annotated ANNOTATION: VALUE, and its Endpoints on backend a's address.
h2c_service() {
	cat <<EOF
---
apiVersion: v1
kind: Service
metadata:
  name: $1
  namespace: demo
  annotations: {$2: "$3"}
spec: {ports: [{name: grpc, port: $PORT, targetPort: $PORT}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: $1, namespace: demo}
subsets: [{addresses: [{ip: $A_IP}], ports: [{name: grpc, port: $PORT}]}]
EOF
}
# grpc_route NAME HOST SERVICE [edge]: an OpenShift Route to SERVICE's port grpc; with
# "edge", TLS terminated by routerd with the certificate above, plain HTTP (h2c) allowed.
grpc_route() {
	cat <<EOF
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: $1, namespace: demo}
spec:
  host: $2
  to: {kind: Service, name: $3}
  port: {targetPort: grpc}
EOF
	[ "${4:-}" = edge ] || return 0
	cat <<EOF
  tls:
    termination: edge
    insecureEdgeTerminationPolicy: Allow
    certificate: |
$(_t_indent 6 "$C/tls.crt")
    key: |
$(_t_indent 6 "$C/tls.key")
EOF
}

# tls_service NAME PORTNAME PORT [METADATA]: a Service (namespace demo) with one port
# PORTNAME: PORT, METADATA (e.g. its annotations) added to its metadata, and its Endpoints
# on backend a's address.
tls_service() {
	cat <<EOF
---
apiVersion: v1
kind: Service
metadata:
  name: $1
  namespace: demo
  ${4:-}
spec: {ports: [{name: $2, port: $3, targetPort: $3}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: $1, namespace: demo}
subsets: [{addresses: [{ip: $A_IP}], ports: [{name: $2, port: $3}]}]
EOF
}
# tls_route NAME HOST SERVICE PORTNAME [TERMINATION CERT]: an OpenShift Route to SERVICE's
# port PORTNAME; with TERMINATION (edge or reencrypt), routerd shows the client $C/CERT.crt.
# A reencrypt route's destinationCACertificate follows it, from the caller.
tls_route() {
	cat <<EOF
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: $1, namespace: demo}
spec:
  host: $2
  to: {kind: Service, name: $3}
  port: {targetPort: $4}
EOF
	[ -n "${5:-}" ] || return 0
	cat <<EOF
  tls:
    termination: $5
    certificate: |
$(_t_indent 6 "$C/$6.crt")
    key: |
$(_t_indent 6 "$C/$6.key")
EOF
}

if [ "$GRPC_PROXY" = routerd ]; then
	t_start_routerd
	rctl apply -f "$SY_SRC/config/routes.yaml"
	t_expect_rc 0 "apply config/routes.yaml (Services a and b, web.$D)"
	rctl apply -f - <<EOF
$(h2c_service grpc-echo projectcontour.io/upstream-protocol.h2c grpc)
$(grpc_route grpc-echo "$H" grpc-echo edge)
$(h2c_service grpc-old contour.heptio.com/upstream-protocol.h2c "$PORT")
$(grpc_route grpc-old "$HOLD" grpc-old)
  path: /t.Echo/
EOF
	t_expect_rc 0 "apply Services grpc-echo (projectcontour.io/upstream-protocol.h2c: grpc) and grpc-old (contour.heptio.com/upstream-protocol.h2c: \"$PORT\"), Routes $H (edge TLS) and $HOLD"
	rctl apply -f - <<EOF
$(tls_service grpcs-echo grpcs "$TLS_PORT" "annotations: {projectcontour.io/upstream-protocol.h2: grpcs}")
$(tls_route grpcs "$HS" grpcs-echo grpcs edge grpcs)
$(tls_service grpc-reenc grpcs "$TLS_PORT")
$(tls_route grpc-reenc "$HR" grpc-reenc grpcs reencrypt reenc)
    destinationCACertificate: |
$(_t_indent 6 "$C/ca.pem")
$(tls_service tls-web https "$WEB_PORT" "annotations: {projectcontour.io/upstream-protocol.tls: \"$WEB_PORT\"}")
$(tls_route tls-web "$HT" tls-web https)
  path: /web
$(tls_route tls-web-plain "$HTP" tls-web https)
EOF
	t_expect_rc 0 "apply Services grpcs-echo (upstream-protocol.h2: grpcs), grpc-reenc (no annotation), tls-web (upstream-protocol.tls: \"$WEB_PORT\"); Routes $HS (edge), $HR (reencrypt, destinationCACertificate the test CA), $HT (path /web) and $HTP (host only)"
else
	# HAProxy in routerd's place (as h2.sh's H2_PROXY=haproxy): the root ends get the
	# router's addresses, the same routes in its config, HTTP/2 to the gRPC server (proto h2).
	for dev in "$LAB_IF_CLIENT" "$LAB_IF_BACKEND"; do
		sysctl -qw "net.ipv4.conf.$dev.arp_ignore=0" || t_fail "setup" "arp_ignore on $dev"
	done
	ip addr add "$R/24" dev "$LAB_IF_CLIENT" && ip addr add "$LAB_ROUTER_BACKEND_IP/24" dev "$LAB_IF_BACKEND" ||
		t_fail "setup" "addresses on the root ends"
	for f in tls grpcs reenc; do cat "$C/$f.crt" "$C/$f.key" >"$C/$f.pem"; done
	cat >"$LAB_DIR/haproxy.cfg" <<CFG
global
    maxconn 4000
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend fe
    bind $R:80
    bind $R:443 ssl crt $C/tls.pem crt $C/grpcs.pem crt $C/reenc.pem alpn h2,http/1.1
    use_backend grpc if { req.hdr(host),field(1,:) -i $H $HOLD }
    use_backend grpcs if { req.hdr(host),field(1,:) -i $HS }
    use_backend reenc if { req.hdr(host),field(1,:) -i $HR }
    use_backend tlsweb if { req.hdr(host),field(1,:) -i $HT $HTP }
    use_backend a if { req.hdr(host),field(1,:) -i web.$D }
    default_backend none
backend none
    http-request return status 404 content-type text/plain string "no route"
backend grpc
    # A new connection per request: after the server stops, an idle one reused at that
    # moment had the call reset (UNKNOWN "Stream removed") rather than refused (503).
    http-reuse never
    server g $A_IP:$PORT proto h2
backend grpcs
    server g $A_IP:$TLS_PORT ssl verify none alpn h2,http/1.1
backend reenc
    server g $A_IP:$TLS_PORT ssl verify required ca-file $C/ca.pem alpn h2,http/1.1
backend tlsweb
    server t $A_IP:$WEB_PORT ssl verify none
backend a
    server a $A_IP:80
CFG
	lab_spawn root haproxy haproxy -db -f "$LAB_DIR/haproxy.cfg"
	sy_poll 10 lab_client curl -sf -m 1 -H "Host: web.$D" "http://$R/" ||
		t_fail "HAProxy answers" "$(cat "$LAB_DIR/haproxy.log")"
	t_ok "HAProxy $(haproxy -v | head -n 1 | awk '{print $3}') in routerd's place, the same routes"
fi

# ALPN: routerd chooses h2 on the edge Route (gRPC would refuse anything else); polled, the
# first time, until the Route's certificate is served.
alpn_h2() {
	t_run lab_client openssl s_client -connect "$R:443" -servername "$H" -alpn h2 -CAfile "$C/tls.crt" </dev/null
	grep -q '^ALPN protocol: h2$' <<<"$T_OUT" && grep -q 'Verify return code: 0 (ok)' <<<"$T_OUT"
}
poll_until 10 alpn_h2 || t_fail "TLS to $H offering h2: ALPN h2, the certificate verified" "seen: $(t_seen)"
t_ok "TLS to $H: ALPN h2, the certificate verified against the run's CA"

# The routes compiled and the backend reached (until then: UNIMPLEMENTED, or whatever a
# backend that does not get HTTP/2 makes of the call).
if ! sy_poll 15 lab_client /usr/bin/python3 "$CLIENT" "$R:443" "$H" unary --tls "$C/tls.crt"; then
	grpc_call "$R:443" "$H" unary --tls "$C/tls.crt"
	t_fail "a unary call over TLS through $H to the h2c backend" "seen: $(t_seen)" \
		"grpc_server.py's log: $(tail -n 5 "$LAB_DIR/grpc.log")"
fi

grpc_call "$R:443" "$H" all --tls "$C/tls.crt"
grpc_expect_all "TLS (ALPN h2)"
t_ok "TLS (ALPN h2) to $H: unary, server/client streaming, bidi interleaved, NOT_FOUND and its details, metadata both ways and trailers, 1 MiB unary, 200 x 16 KiB stream"

grpc_call "$R:80" "$H" all
grpc_expect_all "h2c (port 80)"
t_ok "h2c with prior knowledge (port 80) to $H: the same eight calls"

grpc_call "$R:80" "$HOLD" unary
grpc_expect unary 'd["code"] == "OK" and d["replies"] == ["cprg olleh"]' \
	"$HOLD (contour.heptio.com/upstream-protocol.h2c: \"$PORT\"): unary"
grpc_call "$R:80" "$HOLD" bidi
grpc_expect bidi 'd["code"] == "OK" and d["replies"] == ["A", "BB", "CCC", "DDDD", "EEEEE"]' \
	"$HOLD: bidi"
t_ok "$HOLD, the old annotation naming the port by number: unary and bidi"
if [ "$GRPC_PROXY" = routerd ]; then
	rctl resolve "http://$HOLD/t.Echo/Unary" -o json
	t_json_expect "$T_OUT" 'd.get("mode") == "proxy"' "$HOLD (path /t.Echo/): proxied (routerctl resolve)"
fi

# --- TLS to the backends -----------------------------------------------------------------
# h2_conns: routerd's h2_backend_conns now (the backend legs that spoke h2), in H2_CONNS;
# nothing to read with HAProxy.
h2_conns() {
	H2_CONNS=
	[ "$GRPC_PROXY" = routerd ] || return 0
	rctl stats -o json
	t_expect_rc 0 "routerctl stats -o json"
	H2_CONNS=$(t_json "$T_OUT" 'd["total"]["h2_backend_conns"]')
}
# h2_conns_rose WHAT: h2_backend_conns went up since BEFORE (routerd only).
h2_conns_rose() {
	[ "$GRPC_PROXY" = routerd ] || return 0
	h2_conns
	[ "$H2_CONNS" -gt "$BEFORE" ] ||
		t_fail "$1: h2_backend_conns rose (the leg spoke h2)" "before $BEFORE, after $H2_CONNS"
	t_note "$1: h2_backend_conns $BEFORE -> $H2_CONNS"
}
# first_unary TARGET AUTHORITY [--tls CAFILE]: poll a unary call until it passes (the routes
# compiled, the TLS backend reached), 15 s at most.
first_unary() {
	sy_poll 15 lab_client /usr/bin/python3 "$CLIENT" "$1" "$2" unary "${@:3}" && return 0
	grpc_call "$1" "$2" unary "${@:3}"
	t_fail "a unary call through $2" "seen: $(t_seen)" \
		"grpc_server.py --tls's log: $(tail -n 5 "$LAB_DIR/grpc-tls.log")"
}

# grpcs-echo: upstream-protocol.h2, so TLS to the server (its certificate not checked: routerd
# does not know the test CA), ALPN h2 offered and chosen, HTTP/2 over it.
h2_conns
BEFORE=$H2_CONNS
first_unary "$R:443" "$HS" --tls "$C/ca.pem"
grpc_call "$R:443" "$HS" all --tls "$C/ca.pem"
grpc_expect_all "$HS (upstream-protocol.h2)"
h2_conns_rose "$HS (upstream-protocol.h2)"
t_ok "$HS, Service port annotated upstream-protocol.h2: TLS to grpc_server.py --tls, ALPN h2: the eight calls${H2_CONNS:+, h2_backend_conns $BEFORE -> $H2_CONNS}"

# tls-web: upstream-protocol.tls, so HTTP/1.1 over TLS, the self-signed certificate accepted,
# h2 not offered (the server, which prefers h2, chose http/1.1 or nothing).
# tlsweb_200 HOST PATH: curl http://HOST/PATH through the proxy answers 200.
tlsweb_200() {
	t_run lab_client curl -sS -m 5 -w '\n%{http_code}' -H "Host: $1" "http://$R$2"
	[ "$(tail -n 1 <<<"$T_OUT")" = 200 ]
}
# tlsweb_check HOST PATH: curl gets tls_web.py's body through HOST, the server saw the request
# over TLS, not in h2, and (routerd) h2_backend_conns did not move.
tlsweb_check() {
	local host=$1 path=$2 seen body lines
	h2_conns
	BEFORE=$H2_CONNS
	lines=$(wc -l <"$LAB_DIR/tls-web.log")
	if ! poll_until 15 tlsweb_200 "$host" "$path"; then
		seen=$(t_seen)
		[ "$GRPC_PROXY" = routerd ] && rctl resolve "http://$host$path" -o json
		t_fail "curl http://$host$path through $GRPC_PROXY: 200" "seen: $seen" \
			"tls_web.py's log: $(tail -n 5 "$LAB_DIR/tls-web.log")" \
			"routerctl resolve http://$host$path: ${T_OUT:-}"
	fi
	body=$(head -n 1 <<<"$T_OUT")
	[[ $body =~ ^tls-web\ TLSv1\.[23]\ alpn=(None|http/1\.1)$ ]] ||
		t_fail "$host: the body is tls-web's, over TLS 1.2 or 1.3, ALPN not h2" "body: $body" "$(t_seen)"
	tail -n +$((lines + 1)) "$LAB_DIR/tls-web.log" | grep -Eq "^TLSv1\.[23] alpn=(None|http/1\.1) GET $path\$" ||
		t_fail "tls_web.py logged GET $path over TLS" "its log: $(tail -n 5 "$LAB_DIR/tls-web.log")"
	if [ "$GRPC_PROXY" = routerd ]; then
		h2_conns
		[ "$H2_CONNS" = "$BEFORE" ] ||
			t_fail "$host (upstream-protocol.tls, HTTP/1.1): h2_backend_conns unchanged" "before $BEFORE, after $H2_CONNS"
	fi
	t_ok "$host, Service port annotated upstream-protocol.tls: curl http://$host$path 200, body '$body' (the server saw TLS, no h2)${H2_CONNS:+; h2_backend_conns unchanged ($H2_CONNS)}"
}
# A Route with a path rule: proxied.
tlsweb_check "$HT" /web
# A Route with the host alone (one rule for "/"), which routerd would otherwise splice: the
# bytes must still go over TLS, so it is proxied (a route to a Service port that speaks TLS
# or h2 never is spliced).
if [ "$GRPC_PROXY" = routerd ]; then
	rctl resolve "http://$HTP/" -o json
	t_json_expect "$T_OUT" 'd["mode"] == "proxy" and d["services"][0]["protocol"] == "tls"' \
		"resolve: the host-only Route to the .tls Service is proxied, protocol tls"
fi
tlsweb_check "$HTP" /

# grpc-reenc: no annotation; the reencrypt Route offers ALPN h2 to the server (its certificate
# checked against destinationCACertificate, the test CA) and speaks h2 once it is chosen.
h2_conns
BEFORE=$H2_CONNS
first_unary "$R:443" "$HR" --tls "$C/ca.pem"
grpc_call "$R:443" "$HR" unary --tls "$C/ca.pem"
grpc_expect unary 'd["code"] == "OK" and d["replies"] == ["cprg olleh"]' "$HR (reencrypt): unary"
grpc_call "$R:443" "$HR" bidi --tls "$C/ca.pem"
grpc_expect bidi 'd["code"] == "OK" and d["replies"] == ["A", "BB", "CCC", "DDDD", "EEEEE"]' \
	"$HR (reencrypt): bidi, each message's reply read before the next is sent"
h2_conns_rose "$HR (reencrypt)"
t_ok "$HR, reencrypt Route to an unannotated Service: ALPN h2 to grpc_server.py --tls, unary and bidi${H2_CONNS:+, h2_backend_conns $BEFORE -> $H2_CONNS}"

# A Gateway API GRPCRoute (routerd only): grpcroute.$D on an HTTP listener, two methods of
# t.Echo matched, to a Service without any annotation: a GRPCRoute's backends speak h2c.
# A method no rule matches gets the router's no-route answer (no_route_status, 503 here:
# gRPC reads it as UNAVAILABLE; with 404 it would be UNIMPLEMENTED).
if [ "$GRPC_PROXY" = routerd ]; then
	HGR=grpcroute.$D
	rctl apply -f - <<EOF
$(t_gateway_yaml "{name: http, port: 80, protocol: HTTP}")
apiVersion: v1
kind: Service
metadata: {name: grpc-gw, namespace: demo}
spec: {ports: [{name: grpc, port: $PORT, targetPort: $PORT}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: grpc-gw, namespace: demo}
subsets: [{addresses: [{ip: $A_IP}], ports: [{name: grpc, port: $PORT}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: echo, namespace: demo}
spec:
  parentRefs: [{name: gw}]
  hostnames: [$HGR]
  rules:
  - matches: [{method: {service: t.Echo, method: Unary}}, {method: {service: t.Echo, method: Bidi}}]
    backendRefs: [{name: grpc-gw, port: $PORT}]
EOF
	t_expect_rc 0 "apply a Gateway, Service grpc-gw (no annotation) and GRPCRoute echo ($HGR: t.Echo Unary and Bidi)"
	if ! sy_poll 15 lab_client /usr/bin/python3 "$CLIENT" "$R:80" "$HGR" unary; then
		grpc_call "$R:80" "$HGR" unary
		t_fail "GRPCRoute: a unary call over h2c through $HGR" "seen: $(t_seen)"
	fi
	grpc_call "$R:80" "$HGR" unary
	grpc_expect unary 'd["code"] == "OK" and d["replies"] == ["cprg olleh"]' "GRPCRoute $HGR: unary"
	grpc_call "$R:80" "$HGR" bidi
	grpc_expect bidi 'd["code"] == "OK" and d["replies"] == ["A", "BB", "CCC", "DDDD", "EEEEE"]' \
		"GRPCRoute $HGR: bidi"
	grpc_call "$R:80" "$HGR" server_stream
	grpc_expect server_stream 'd["code"] == "UNAVAILABLE" and "503" in d["details"]' \
		"GRPCRoute $HGR: ServerStream, matched by no rule, gets the router's no-route 503 (UNAVAILABLE)"
	t_ok "GRPCRoute $HGR over h2c to an unannotated Service: unary and bidi; a method not matched the no-route 503"
fi

# counters read now (before the server stops): gRPC reached the backend in HTTP/2.
if [ "$GRPC_PROXY" = routerd ]; then
	rctl stats -o json
	t_expect_rc 0 "routerctl stats -o json"
	STATS=$T_OUT
	t_note "h2 counters: $(t_json "$STATS" '{k: v for k, v in d["total"].items() if k.startswith("h2_")}')"
fi

# The server gone: a call is UNAVAILABLE (routerd's 502/503, or its trailers-only answer).
kill "$GRPC_PID" 2>/dev/null
port_closed() { ! lab_backend /usr/bin/python3 -c "import socket; socket.create_connection(('$A_IP', $PORT), 1)"; }
sy_poll 10 port_closed ||
	t_fail "grpc_server.py stopped (SIGTERM)" "$A_IP:$PORT still accepts"
t_ok "grpc_server.py stopped: $A_IP:$PORT refuses"
for how in "$R:443 $H --tls $C/tls.crt" "$R:80 $H" "$R:80 $HOLD"; do
	set -- $how
	grpc_call "$1" "$2" unary "${@:3}"
	grpc_expect unary 'd["code"] == "UNAVAILABLE"' "the server stopped: a unary call ($1, $2) gets UNAVAILABLE"
done
[ "$GRPC_PROXY" != routerd ] || kill -0 "$ROUTERD_PID" 2>/dev/null ||
	t_fail "routerd still running after the backend went away"
t_run lab_client curl -sS -m 5 -o /dev/null -w '%{http_code}' -H "Host: web.$D" "http://$R/"
[ "$T_OUT" = 200 ] || t_fail "$GRPC_PROXY still serves: web.$D answers curl 200" "seen: $(t_seen)"
t_ok "the server stopped: UNAVAILABLE over TLS and h2c, for both Services; web.$D still answers 200"

# The rest is routerd's own (its counters and connections).
if [ "$GRPC_PROXY" != routerd ]; then
	t_finish
	exit 0
fi

# The backend side of HTTP/2 counted: connections to the h2c backend, a stream for each call
# (at least the 18 that succeeded above: 8 over TLS, 8 over h2c, unary and bidi to $HOLD).
t_json_expect "$STATS" '"h2_backend_conns" in d["total"] and "h2_backend_streams" in d["total"]' \
	"routerctl stats: the counters h2_backend_conns and h2_backend_streams exist"
t_json_expect "$STATS" 'd["total"]["h2_backend_conns"] > 0 and d["total"]["h2_backend_streams"] >= 18' \
	"h2_backend_conns > 0, h2_backend_streams >= 18 (the calls that reached grpc_server.py)"
t_json_expect "$STATS" 'd["total"]["h2_protocol_errors"] == 0' "no h2_protocol_errors"
t_json_expect "$STATS" 'd["total"]["h2_backend_errors"] == 0' "no h2_backend_errors (h2c and TLS backends)"
t_ok "counters: h2_backend_conns $(t_json "$STATS" 'd["total"]["h2_backend_conns"]'), h2_backend_streams $(t_json "$STATS" 'd["total"]["h2_backend_streams"]'), no h2 protocol error"

# Every connection freed once the clients are gone (parked backend legs live 4 s).
if ! t_flows_zero 10; then
	rctl conns
	t_fail "every connection freed within 10 s of the clients leaving" "still listed: $T_OUT"
fi
t_ok "every connection freed (flows_active 0)"
t_finish
