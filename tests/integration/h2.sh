#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# h2: HTTP/2 to clients (issue 37; what routerd does: docs, H2 interface) with real clients
# in the client namespace (curl, nghttp, h2load, python3-h2) and real servers (the lab's two
# nginx, which add X-Backend: a|b, pool_server.py for 10 MB, upload_sink.py for uploads).
# One host, h2.<lab domain>: /a -> nginx a, /b -> nginx b, /blob -> pool c, /up -> the sink,
# edge TLS (a certificate made at run time; plain HTTP allowed), and redir.<lab domain>,
# edge TLS with insecure policy Redirect. The client namespace resolves those names to the
# router (/etc/netns/<ns>/hosts): SNI and :authority come from the URLs.
#   - curl --http2-prior-knowledge (h2c, port 80): 200, HTTP version 2, the right backend;
#     curl --http2 over TLS: ALPN h2, version 2; curl --http1.1 over TLS: ALPN http/1.1, 1.1;
#   - nghttp: /a and /b as two streams of one connection (h2c, then TLS), each answered 200
#     by its own backend (X-Backend and the body);
#   - what an HTTP/1.1 backend gets from a stream (pool c's echo): path, Host from
#     :authority, no pseudo-header; from routerd X-Forwarded-For/-Host/-Proto and Forwarded;
#   - an unknown host over h2: 404 (no_route_status 404); the Redirect policy over h2: 302
#     with Location https://redir.<domain>/p?q=1;
#   - a 1 MB POST arrives intact (the sink's sha256), a 10 MB download arrives intact
#     (sha256 against the backend's own answer), each over h2c and over TLS;
#   - h2load -n 2000 -c 4 -m 10 over h2c and TLS: 2000 succeeded, all 2xx;
#   - `Upgrade: h2c` over HTTP/1.1 (curl --http2 on http://): answered 200 in HTTP/1.1; for
#     routerd the Upgrade and HTTP2-Settings headers not forwarded (the backend's echo);
#   - routerd only: the access log's record of an h2 request says HTTP/2.0 (an HTTP/1.1
#     one does not), `routerctl conns` shows a held h2 connection (h2_hold.py) as HTTP/2.0,
#     the h2 counters (h2_conns, h2_streams) count the nghttp connection and its two
#     streams, no h2_protocol_errors from these clients; every connection freed within
#     10 s once the clients are gone.
# H2_PROXY=haproxy runs the same client assertions against Debian's HAProxy in routerd's
# place (on the root ends' addresses, the same routes in its config): the test's check of
# itself while routerd had no h2; the routerd-only checks are skipped then.
T_NAME=h2
source "$(dirname "$0")/testlib.sh"

for c in curl nghttp h2load openssl sha256sum; do
	command -v "$c" >/dev/null || t_skip_all "$c is not installed (nghttp2-client, curl, openssl)"
done
/usr/bin/python3 -c 'import h2' 2>/dev/null || t_skip_all "python3-h2 is not installed"
H2_PROXY=${H2_PROXY:-routerd}
case $H2_PROXY in
routerd) ;;
haproxy) command -v haproxy >/dev/null || t_skip_all "H2_PROXY=haproxy: haproxy is not installed" ;;
*) t_fail "setup" "H2_PROXY: routerd or haproxy, not '$H2_PROXY'" ;;
esac

t_setup h2l 1
D=$LAB_DOMAIN
R=$LAB_ROUTER_IP
H=h2.$D
RD=redir.$D
C=$LAB_DIR/h2tls
LOG=$LAB_DIR/access.log
A_IP=$LAB_BACKEND_A_IP

# The client namespace resolves the lab's names to the router: `ip netns exec` binds
# /etc/netns/<ns>/hosts over /etc/hosts (curl, nghttp and h2load take SNI and :authority
# from the URL). Removed on exit.
NETNS_ETC=/etc/netns/$LAB_NS_CLIENT
h2_on_exit() {
	rm -f "$NETNS_ETC/hosts"
	rmdir "$NETNS_ETC" /etc/netns 2>/dev/null
	_t_on_exit "$1"
}
LAB_ON_EXIT=h2_on_exit
mkdir -p "$NETNS_ETC" && printf '%s %s %s nowhere.%s\n' "$R" "$H" "$RD" "$D" >"$NETNS_ETC/hosts" ||
	t_fail "setup" "could not write $NETNS_ETC/hosts"

# One self-signed certificate for both names (curl verifies it with --cacert).
mkdir -p "$C" || t_fail "setup" "mkdir $C"
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj "/CN=$H" -addext "subjectAltName=DNS:$H,DNS:$RD" -keyout "$C/tls.key" -out "$C/tls.crt"
t_expect_rc 0 "a certificate for $H and $RD"
cat "$C/tls.crt" "$C/tls.key" >"$C/tls.pem"

# The backends of our own on backend a's address: pool c (pool_server.py: /blob/N, /echo)
# and the upload sink (the sha256 of what it received).
spawn_backend() { # NAME PORT CMD...
	local name=$1 port=$2
	shift 2
	lab_spawn backend "$name" "$@"
	sy_poll 10 lab_backend /usr/bin/python3 -c \
		"import socket; socket.create_connection(('$A_IP', $port), 1)" ||
		t_fail "setup" "$name does not accept on $A_IP:$port" "$(cat "$LAB_DIR/$name.log")"
}
spawn_backend c 8082 /usr/bin/python3 "$SY_SRC/tests/integration/pool_server.py" "$A_IP" 8082
spawn_backend sink 8080 /usr/bin/python3 "$SY_SRC/tests/integration/upload_sink.py" "$A_IP" 8080
t_ok "pool c (:8082) and the upload sink (:8080) on backend a's address"

# route NAME HOST PATH SERVICE POLICY: an OpenShift edge Route with the certificate inline.
route() { t_edge_route "$1" "$2" "$3" "$4" "$5" "$C/tls.crt" "$C/tls.key"; }
# service NAME PORT: a Service and its Endpoints on backend a's address.
service() {
	cat <<EOF
---
apiVersion: v1
kind: Service
metadata: {name: $1, namespace: demo}
spec: {ports: [{name: http, port: $2, targetPort: $2}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: $1, namespace: demo}
subsets: [{addresses: [{ip: $A_IP}], ports: [{name: http, port: $2}]}]
EOF
}

if [ "$H2_PROXY" = routerd ]; then
	t_config_set no_route_status 404
	t_config_set access_log "{\"to\": \"$LOG\", \"format\": \"json\"}"
	t_start_routerd
	rctl apply -f "$SY_SRC/config/routes.yaml"
	t_expect_rc 0 "apply config/routes.yaml (Services a and b)"
	rctl apply -f - <<EOF
$(service c 8082)
$(service sink 8080)
$(route h2-a "$H" /a a Allow)
$(route h2-b "$H" /b b Allow)
$(route h2-blob "$H" /blob c Allow)
$(route h2-trl "$H" /trailers c Allow)
$(route h2-up "$H" /up sink Allow)
$(route h2-redir "$RD" "" a Redirect)
EOF
	t_expect_rc 0 "apply $H (/a -> a, /b -> b, /blob -> c, /up -> sink) and $RD, edge TLS"
else
	# HAProxy in routerd's place: the root ends get the router's addresses (as
	# perf/lib/bench.sh kernel_addrs) and the same routes (the longest path first, as the
	# OpenShift router orders them: /b is a prefix of /blob).
	for dev in "$LAB_IF_CLIENT" "$LAB_IF_BACKEND"; do
		sysctl -qw "net.ipv4.conf.$dev.arp_ignore=0" || t_fail "setup" "arp_ignore on $dev"
	done
	ip addr add "$R/24" dev "$LAB_IF_CLIENT" && ip addr add "$LAB_ROUTER_BACKEND_IP/24" dev "$LAB_IF_BACKEND" ||
		t_fail "setup" "addresses on the root ends"
	host_is="{ req.hdr(host),field(1,:) -i $H }"
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
    bind $R:443 ssl crt $C/tls.pem alpn h2,http/1.1
    http-request redirect scheme https code 302 if { req.hdr(host),field(1,:) -i $RD } !{ ssl_fc }
    use_backend c if $host_is { path_beg /blob }
    use_backend a if $host_is { path_beg /a }
    use_backend b if $host_is { path_beg /b }
    use_backend sink if $host_is { path_beg /up }
    default_backend none
backend none
    http-request return status 404 content-type text/plain string "no route"
backend a
    server a $A_IP:80
backend b
    server b $LAB_BACKEND_B_IP:80
backend c
    server c $A_IP:8082
backend sink
    server sink $A_IP:8080
CFG
	lab_spawn root haproxy haproxy -db -f "$LAB_DIR/haproxy.cfg"
	sy_poll 10 lab_client curl -sf -m 1 "http://$H/a" ||
		t_fail "HAProxy answers" "$(cat "$LAB_DIR/haproxy.log")"
	t_ok "HAProxy $(haproxy -v | head -n 1 | awk '{print $3}') in routerd's place, the same routes"
fi

# h2c: prior knowledge on port 80; each path to its backend.
# get ARGS...: curl in the client namespace; T_OUT the body, then a line "CODE VERSION".
get() { t_run lab_client curl -sS -m 20 --cacert "$C/tls.crt" -w '\n%{http_code} %{http_version}' "$@"; }
# expect_get WANT WHAT ARGS...: T_OUT (body and status line, newlines as spaces) is WANT.
expect_get() {
	local want=$1 what=$2
	shift 2
	get "$@"
	[ "$(printf '%s' "$T_OUT" | tr -s '\n' ' ')" = "$want" ] || t_fail "$what" "expected: $want" "seen: $(t_seen)"
}
sy_poll 10 lab_client curl -sf -m 2 --http2-prior-knowledge "http://$H/a" # routes compiled
expect_get "backend-a 200 2" "h2c /a: 200 over HTTP/2 from backend a" --http2-prior-knowledge "http://$H/a"
expect_get "backend-b 200 2" "h2c /b: 200 over HTTP/2 from backend b" --http2-prior-knowledge "http://$H/b"
t_ok "curl --http2-prior-knowledge (h2c): /a from backend a, /b from backend b, HTTP version 2"

expect_get "backend-a 200 2" "TLS with ALPN h2: 200 over HTTP/2" --http2 -v "https://$H/a"
grep -q 'ALPN: server accepted h2' <<<"$T_ERR" || t_fail "TLS: the server chose h2 by ALPN" "seen: $(t_seen)"
expect_get "backend-b 200 2" "TLS with ALPN h2: /b from backend b" --http2 "https://$H/b"
expect_get "backend-a 200 1.1" "TLS offering only http/1.1: HTTP/1.1" --http1.1 -v "https://$H/a"
grep -q 'ALPN: server accepted http/1.1' <<<"$T_ERR" ||
	t_fail "TLS offering only http/1.1: the server chose http/1.1 by ALPN" "seen: $(t_seen)"
t_ok "edge TLS: curl --http2 gets ALPN h2 and HTTP/2, curl --http1.1 still HTTP/1.1"

# Two streams on one connection, routed apart by path (nghttp: one connection per
# authority, every URL a stream of it). Its -v trace: "send HEADERS frame <...
# stream_id=N>" then the request's ":path: P" lines, "recv (stream_id=N) NAME: VALUE" for
# the response's headers, and the bodies on stdout among them.
# shellcheck disable=SC2016 # Python, not shell
NGHTTP_CHECK='
import re, sys
out = sys.stdin.read()
paths, hdrs, cur = {}, {}, None
for line in out.splitlines():
    m = re.search(r"send HEADERS frame <.*stream_id=(\d+)>", line)
    if m:
        cur = int(m.group(1))
        continue
    m = re.match(r"\s+:path: (\S+)$", line)
    if m and cur is not None:
        paths[cur] = m.group(1)
        continue
    m = re.search(r"recv \(stream_id=(\d+)\) ([^:]\S*|:status): (.*)$", line)
    if m:
        hdrs.setdefault(int(m.group(1)), {})[m.group(2).lower()] = m.group(3).strip()
by_path = {p: (sid, hdrs.get(sid, {})) for sid, p in paths.items()}
connects = len(re.findall(r"\] Connected", out))
ok = (connects == 1 and set(by_path) == {"/a", "/b"} and by_path["/a"][0] != by_path["/b"][0]
      and all(by_path[p][1].get(":status") == "200" and by_path[p][1].get("x-backend") == p[1:]
              for p in ("/a", "/b"))
      and "backend-a" in out and "backend-b" in out)
print("connections %d, streams %s" % (connects, {p: (s, h.get(":status"), h.get("x-backend"))
                                             for p, (s, h) in by_path.items()}))
sys.exit(0 if ok else 1)
'
h2_counters() { # the h2_conns and h2_streams counters, "CONNS STREAMS"
	rctl stats -o json
	t_json "$T_OUT" '"%s %s" % (d["total"]["h2_conns"], d["total"]["h2_streams"])' 2>/dev/null || echo "? ?"
}
for scheme in http https; do
	[ "$H2_PROXY" = routerd ] && read -r c0 s0 < <(h2_counters)
	t_run lab_client nghttp -v -t 20 "$scheme://$H/a" "$scheme://$H/b"
	t_expect_rc 0 "nghttp $scheme://$H/a $scheme://$H/b"
	got=$(/usr/bin/python3 -c "$NGHTTP_CHECK" <<<"$T_OUT") ||
		t_fail "nghttp ($scheme): /a and /b two streams of one connection, 200 from a and from b" \
			"parsed: $got" "seen: $(t_seen)"
	if [ "$H2_PROXY" = routerd ]; then
		read -r c1 s1 < <(h2_counters)
		[[ "$c0$s0$c1$s1" =~ ^[0-9]+$ ]] && [ "$((c1 - c0)) $((s1 - s0))" = "1 2" ] ||
			t_fail "nghttp ($scheme): h2_conns +1, h2_streams +2" "before: $c0 $s0, after: $c1 $s1"
	fi
	t_ok "nghttp ($scheme): two streams on one connection routed by path to a and b ($got)"
done

# Connection coalescing (RFC 9113 9.1.1): a stream for another host the connection's
# certificate covers, with the same TLS settings, is served on it, not answered 421.
if [ "$H2_PROXY" = routerd ]; then
	t_run lab_client nghttp -v -t 10 -H ":authority: $RD" "https://$H/x"
	grep -q 'recv (stream_id=13) :status: 200' <<<"$T_OUT" &&
		grep -q 'recv (stream_id=13) x-backend: a' <<<"$T_OUT" ||
		t_fail "a stream for $RD on a connection to $H (one certificate covers both): 200 from a" \
			"$(t_seen)"
	t_ok "coalescing: a stream for $RD on the TLS connection to $H (SNI $H) served, 200 from a"
fi

# A chunked HTTP/1.1 response's trailer section reaches the h2 client as the stream's
# trailers: a HEADERS frame after the DATA, ending the stream (what gRPC's grpc-status rides).
if [ "$H2_PROXY" = routerd ]; then
	t_run lab_client nghttp -v -t 10 "http://$H/trailers"
	t_expect_rc 0 "nghttp http://$H/trailers"
	trl=$(awk '/recv DATA frame/ {d=1} d && /recv \(stream_id=13\) grpc-(status|message)/ {print $(NF-1), $NF}' <<<"$T_OUT" | tr '\n' ' ')
	[ "$trl" = "grpc-status: 0 grpc-message: fine " ] &&
		grep -q 'recv HEADERS frame <length=[0-9]*, flags=0x05, stream_id=13>' <<<"$T_OUT" ||
		t_fail "a chunked response's trailers as the stream's trailers (after the DATA, END_STREAM)" \
			"seen: '$trl'; $(t_seen)"
	t_ok "chunked HTTP/1.1 trailers carried as h2 trailers: $trl"
fi

# What the HTTP/1.1 backend gets from an h2 stream (pool c's echo): the request line's
# path, Host from :authority, no pseudo-header; from routerd (as for HTTP/1.1) the
# X-Forwarded-* and Forwarded headers, proto http on h2c and https over TLS.
for how in "--http2-prior-knowledge http" "--http2 https"; do
	set -- $how
	get "$1" "$2://$H/blob/echo?x=1"
	grep -q '^path: /blob/echo?x=1$' <<<"$T_OUT" && grep -Eqi "^host: $H\$" <<<"$T_OUT" &&
		! grep -q '^:' <<<"$T_OUT" && [ "$(tail -n 1 <<<"$T_OUT")" = "200 2" ] ||
		t_fail "h2 ($2) to an HTTP/1.1 backend: its path, Host from :authority, no pseudo-header" "seen: $(t_seen)"
	if [ "$H2_PROXY" = routerd ]; then
		for want in "X-Forwarded-For: $LAB_CLIENT_IP" "X-Forwarded-Host: $H" "X-Forwarded-Proto: $2" \
			"Forwarded: for=$LAB_CLIENT_IP;host=$H;proto=$2"; do
			grep -Eqi "^$want"$'\r?$' <<<"$T_OUT" ||
				t_fail "h2 ($2): the backend gets '$want', as for HTTP/1.1" "seen: $(t_seen)"
		done
	fi
	t_ok "h2 ($2) to the HTTP/1.1 backend: path and Host as sent$([ "$H2_PROXY" = routerd ] && echo ", X-Forwarded-For/-Host/-Proto $2, Forwarded")"
done

# The router's own answers over h2: an unknown host, the Redirect policy.
get --http2-prior-knowledge "http://nowhere.$D/x"
[ "$(tail -n 1 <<<"$T_OUT")" = "404 2" ] || t_fail "an unknown host over h2c: 404" "seen: $(t_seen)"
t_run lab_client curl -sS -m 20 --http2-prior-knowledge -o /dev/null -D - \
	-w '%{http_code} %{http_version}\n' "http://$RD/p?q=1"
grep -Eq "^location: https://$RD/p\\?q=1"$'\r?$' <<<"$T_OUT" && [ "$(tail -n 1 <<<"$T_OUT")" = "302 2" ] ||
	t_fail "the Redirect policy over h2c: 302, Location https://$RD/p?q=1" "seen: $(t_seen)"
t_ok "over h2c: an unknown host 404, the Redirect policy 302 with Location https://$RD/p?q=1"

# A 1 MB POST, intact at the backend; a 10 MB download, intact at the client.
head -c 1048576 /dev/urandom >"$LAB_DIR/up.bin"
up_sha=$(sha256sum "$LAB_DIR/up.bin" | cut -d' ' -f1)
big=10485760
t_run lab_backend curl -sS -m 20 -o "$LAB_DIR/direct.bin" "http://$A_IP:8082/blob/$big"
t_expect_rc 0 "10 MB straight from pool c"
big_sha=$(sha256sum "$LAB_DIR/direct.bin" | cut -d' ' -f1)
[ "$(stat -c %s "$LAB_DIR/direct.bin")" = "$big" ] || t_fail "pool c answers 10 MB" "$(ls -l "$LAB_DIR/direct.bin")"
for how in "--http2-prior-knowledge http" "--http2 https"; do
	set -- $how
	expect_get "$up_sha 1048576 200 2" "1 MB POST over HTTP/2 ($2): the sink's sha256 and length" \
		"$1" --data-binary "@$LAB_DIR/up.bin" "$2://$H/up"
	rm -f "$LAB_DIR/down.bin"
	get "$1" -o "$LAB_DIR/down.bin" "$2://$H/blob/$big"
	got=$(sha256sum "$LAB_DIR/down.bin" 2>/dev/null | cut -d' ' -f1)
	[ "$(tail -n 1 <<<"$T_OUT")" = "200 2" ] && [ "$got" = "$big_sha" ] ||
		t_fail "10 MB download over HTTP/2 ($2): 200, sha256 as the backend's" \
			"want $big_sha, got '$got' ($(stat -c %s "$LAB_DIR/down.bin" 2>/dev/null) bytes)" "seen: $(t_seen)"
	t_ok "over HTTP/2 ($2): 1 MB POST intact at the backend, 10 MB download intact (sha256)"
done

# h2load: 2000 requests, 4 connections, 10 streams each at a time.
for how in "http h2c" "https h2"; do
	set -- $how
	scheme=$1
	t_run lab_client h2load -n 2000 -c 4 -m 10 "$scheme://$H/a"
	t_expect_rc 0 "h2load $scheme"
	grep -Eq '^requests: 2000 total, 2000 started, 2000 done, 2000 succeeded, 0 failed, 0 errored' <<<"$T_OUT" &&
		grep -Eq '^status codes: 2000 2xx' <<<"$T_OUT" && grep -Eq "^Application protocol: $2\$" <<<"$T_OUT" ||
		t_fail "h2load -n 2000 -c 4 -m 10 ($scheme): 2000 succeeded over $2, all 2xx" "seen: $(t_seen)"
	t_ok "h2load -n 2000 -c 4 -m 10 ($scheme, $(grep -Eo '^Application protocol: .*' <<<"$T_OUT")): 2000 succeeded, all 2xx"
done

# An HTTP/1.1 Upgrade to h2c: declined, answered in HTTP/1.1; the backend (pool c's echo)
# sees neither the Upgrade nor the HTTP2-Settings header.
expect_get "backend-a 200 1.1" "Upgrade: h2c over HTTP/1.1: answered 200 in HTTP/1.1" --http2 -v "http://$H/a"
grep -qi '^> Upgrade: h2c' <<<"$T_ERR" || t_fail "curl --http2 on http:// asked for the h2c upgrade" "seen: $(t_seen)"
t_ok "Upgrade: h2c over HTTP/1.1 declined: 200 in HTTP/1.1"
# routerd declines the upgrade itself (H2 interface): the backend sees neither header.
# HAProxy forwards both (the backend declines): not checked for it.
if [ "$H2_PROXY" = routerd ]; then
	get --http2 "http://$H/blob/echo"
	[ "$(tail -n 1 <<<"$T_OUT")" = "200 1.1" ] && ! grep -Eqi '^(upgrade|http2-settings):' <<<"$T_OUT" ||
		t_fail "Upgrade: h2c: the backend gets neither Upgrade nor HTTP2-Settings" "seen: $(t_seen)"
	t_ok "Upgrade: h2c: Upgrade and HTTP2-Settings not forwarded to the backend"
fi

if [ "$H2_PROXY" != routerd ]; then
	t_note "H2_PROXY=$H2_PROXY: access log, routerctl conns and the h2 counters are routerd's: not checked"
	t_finish
	exit 0
fi

# The access log: an h2 request's record says HTTP/2.0, an HTTP/1.1 one's does not.
get --http2-prior-knowledge "http://$H/a/h2-log"
get --http1.1 "http://$H/a/h1-log"
sleep 0.5
/usr/bin/python3 - "$LOG" "$H" <<'PY' >"$LAB_DIR/alog.out" 2>&1 ||
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
def of(target):
    r = [x for x in recs if x.get("host") == sys.argv[2] and x.get("target") == target]
    assert len(r) == 1, (target, r)
    return r[0]
h2, h1 = of("/a/h2-log"), of("/a/h1-log")
assert "HTTP/2.0" in h2.values() and h2.get("status") == 200, h2
assert "HTTP/2.0" not in h1.values() and h1.get("status") == 200, h1
print("h2:", h2)
print("h1:", h1)
PY
	t_fail "access log: the h2 request's record says HTTP/2.0, the HTTP/1.1 one's does not" \
		"$(cat "$LAB_DIR/alog.out")" "log: $(tail -n 5 "$LOG")"
t_ok "access log: HTTP/2.0 on the h2 request's record ($(grep -c . "$LOG") records)"

# routerctl conns: a held h2c connection (one exchange, then idle) shows HTTP/2.0.
lab_spawn client hold /usr/bin/python3 "$SY_SRC/tests/integration/h2_hold.py" "$R" 80 "$H" \
	"$LAB_DIR/hold.out" 60 --path /a
HOLD_PID=$LAB_SPAWN_PID
sy_poll 10 grep -q '^ready$' "$LAB_DIR/hold.out" ||
	t_fail "a held h2c connection" "$(cat "$LAB_DIR/hold.log" 2>/dev/null)"
read -r hport hstatus <"$LAB_DIR/hold.out"
[ "$hstatus" = 200 ] || t_fail "the held h2c connection's request answered 200" "status '$hstatus'"
rctl conns -o json
t_expect_rc 0 "routerctl conns -o json"
t_json_expect "$T_OUT" "[c for c in d['conns'] if c['client'] == '$LAB_CLIENT_IP:$hport' and 'HTTP/2.0' in str(c)]" \
	"routerctl conns: the held h2c connection (client port $hport) shows HTTP/2.0"
t_ok "routerctl conns: the held h2c connection (client port $hport) shows HTTP/2.0"

# A connection its client ends without a GOAWAY (curl: FIN on h2c; close_notify and FIN over
# TLS) is freed within 5 s, in h2 as in HTTP/1.1 (nghttp and h2load send a GOAWAY first).
conn_gone() { # PORT: no record of the client's connection from PORT
	rctl conns -o json
	[ "$(t_json "$T_OUT" "not [c for c in d['conns'] if c['client'] == '$LAB_CLIENT_IP:$1']")" = true ]
}
for how in "--http1.1 https 1.1" "--http2-prior-knowledge http 2" "--http2 https 2"; do
	set -- $how
	t_run lab_client curl -sS -m 10 --cacert "$C/tls.crt" "$1" -o /dev/null -w '%{local_port} %{http_version}' "$2://$H/a"
	[ "${T_OUT#* }" = "$3" ] || t_fail "curl $1 $2://$H/a" "seen: $(t_seen)"
	port=${T_OUT%% *}
	if ! poll_until 5 conn_gone "$port"; then
		rctl conns
		t_fail "curl $1 ($2, HTTP/$3) ended its connection (client port $port): freed within 5 s" \
			"still listed: $(grep -E "KIND|:$port " <<<"$T_OUT")"
	fi
	t_ok "curl $1 ($2, HTTP/$3): the connection freed ${WAITED} s after curl ended it"
done

# Every connection freed once its client has gone (curl, nghttp, h2load, the holder): h2c
# and TLS alike, within 10 s (parked backend legs live 4 s, TIME_WAIT records 2 s).
kill "$HOLD_PID" 2>/dev/null
if ! t_flows_zero 10; then
	rctl conns
	t_fail "every client connection freed within 10 s of its client leaving" \
		"still listed (parked backend legs left out):" "$(grep -v proxy-idle <<<"$T_OUT")"
fi
t_ok "every connection freed after its client left (flows_active 0)"

# gRPC clients read the router's own errors as gRPC statuses (a trailers-only response,
# HTTP 200 with grpc-status, as Envoy sends), not as an HTML page: a route with no endpoint
# (503) is UNAVAILABLE, an unknown host (404 here) UNIMPLEMENTED.
rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: grpc-none, namespace: demo}
spec: {host: grpc.$D, to: {kind: Service, name: nowhere}}
EOF
t_expect_rc 0 "apply grpc.$D (a service with no endpoints)"
t_run lab_client /usr/bin/python3 "$SY_SRC/tests/integration/grpc_call.py" "$R:80" "grpc.$D" /t.Svc/Call
t_json_expect "$T_OUT" 'd["code"] == "UNAVAILABLE" and "503" in d["details"]' \
	"grpc (python3-grpcio) to a route with no endpoint: UNAVAILABLE"
t_run lab_client /usr/bin/python3 "$SY_SRC/tests/integration/grpc_call.py" "$R:80" "nohost.$D" /t.Svc/Call
t_json_expect "$T_OUT" 'd["code"] == "UNIMPLEMENTED"' "grpc to an unknown host: UNIMPLEMENTED (HTTP 404)"
t_ok "gRPC over h2c: the router's own 503 and 404 reach a grpcio client as UNAVAILABLE and UNIMPLEMENTED"

rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["h2_protocol_errors"] == 0 and d["total"]["h2_conns"] >= 8' \
	"h2 counters: connections counted, no protocol error from curl, nghttp, h2load"
t_ok "h2 counters: $(t_json "$T_OUT" '{k: v for k, v in d["total"].items() if k.startswith("h2_")}')"
t_finish
