#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# httpproxy: a Contour HTTPProxy tree carries real traffic (curl in the client namespace):
# a root with a kubernetes.io/tls Secret (made at run time) includes a child in another
# namespace under /app with a header condition (X-Team: blue); the child's route replaces
# the whole matched prefix (/app, the include's) with /echo/ and sets a request header, and
# permits plain HTTP. The echoing backend (pool_server.py) says the path and headers it got.
# Without the header, the root's own /app route (nginx a) answers; any other path over plain
# HTTP gets Contour's 301 upgrade to https. Statuses: both valid, in Contour's shape.
# Then clientValidation: a root whose caSecret names a test CA (made at run time) is served to
# curl with a certificate that CA signed; without one, or with one another CA signed, the
# handshake fails; its name as Host on a connection made for hp (or without SNI) gets 421;
# the CertificateRequest names that CA, and hp's does not ask for a certificate at all.
# Then retryPolicy (statuses sent again; perTryTimeout: a slow try abandoned and retried, 504
# when none is in time) and timeoutPolicy.idle (a response silent mid-body cut).
T_NAME=httpproxy
source "$(dirname "$0")/testlib.sh"

t_setup hpx 1
t_start_routerd
D=lab.switchyard.test

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
# The echoing pool on backend a's address, port 8082 (Service demo/c).
t_backend_service c 8082 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8082

t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
	-subj "/CN=hp.$D" -addext "subjectAltName=DNS:hp.$D,DNS:mtls.$D" \
	-keyout "$LAB_DIR/hp.key" -out "$LAB_DIR/hp.crt"
t_expect_rc 0 "make a certificate for hp.$D"
CRT=$(base64 -w0 "$LAB_DIR/hp.crt")
KEY=$(base64 -w0 "$LAB_DIR/hp.key")

rctl apply -f - <<EOF
apiVersion: v1
kind: Secret
metadata: {name: hp-cert, namespace: demo}
type: kubernetes.io/tls
data: {tls.crt: $CRT, tls.key: $KEY}
---
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: team}
spec: {ports: [{name: http, port: 8082, targetPort: 8082}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: echo, namespace: team}
subsets: [{addresses: [{ip: $LAB_BACKEND_A_IP}], ports: [{name: http, port: 8082}]}]
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: root, namespace: demo}
spec:
  virtualhost:
    fqdn: hp.$D
    tls: {secretName: hp-cert}
  routes:
  - services: [{name: a, port: 80}]
  - conditions: [{prefix: /app}]
    permitInsecure: true
    services: [{name: a, port: 80}]
  includes:
  - name: child
    namespace: team
    conditions:
    - prefix: /app
    - header: {name: X-Team, exact: blue}
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: child, namespace: team}
spec:
  routes:
  - conditions: [{prefix: /}]
    permitInsecure: true
    pathRewritePolicy:
      replacePrefix: [{replacement: /echo/}]
    requestHeadersPolicy:
      set: [{name: X-Via-Child, value: team}]
    services: [{name: echo, port: 8082}]
EOF
t_expect_rc 0 "apply a Secret, a Service in team, an HTTPProxy root and its child"

rctl get httpproxy root -n demo -o json
t_json_expect "$T_OUT" 'd["status"]["currentStatus"] == "valid" and d["status"]["description"] == "Valid HTTPProxy" and
	d["status"]["conditions"][0]["type"] == "Valid" and d["status"]["conditions"][0]["status"] == "True"' \
	"root: Valid HTTPProxy, condition Valid True"
rctl get proxy child -n team -o json
t_json_expect "$T_OUT" 'd["status"]["currentStatus"] == "valid"' "team/child: valid"
t_ok "statuses in Contour's shape"

get() { # get PATH [curl args...] -> the answer with its headers in T_OUT
	local path=$1
	shift
	t_run lab_client curl -s -i -m 10 -H "Host: hp.$D" "$@" "http://$LAB_ROUTER_IP$path"
}
get "/app/items/7?q=1" -H "X-Team: blue"
t_expect_out '^HTTP/1.1 200' "X-Team: blue -> the child: 200"
t_expect_out '^path: /echo/items/7\?q=1' "the backend saw /echo/items/7?q=1 (/app replaced, the query kept)"
t_expect_out '^X-Via-Child: team' "the child's requestHeadersPolicy reached the backend"
get "/app" -H "X-Team: blue"
t_expect_out '^path: /echo/' "the prefix alone: the backend saw /echo/"
t_ok "include across namespaces with a header condition and replacePrefix: the echo saw the rewritten path"

get "/app/items/7" -H "X-Team: green"
t_expect_out '^HTTP/1.1 200' "X-Team: green: 200"
t_expect_out 'backend-a' "X-Team: green -> the root's own /app route (nginx a)"
t_expect_no_out '^path: ' "X-Team: green never reached the echo"
get "/app/items/7"
t_expect_out 'backend-a' "no X-Team -> the root's /app route (nginx a)"
t_ok "the header condition decides between the child and the root"

get "/other/page?x=1"
t_expect_out '^HTTP/1.1 301' "plain HTTP to a TLS root's route without permitInsecure: 301"
t_expect_out "^[Ll]ocation: https://hp.$D/other/page\\?x=1" "Location: https://hp.$D/other/page?x=1"
t_ok "Contour's 301 upgrade to https"

# Over TLS the same tree: the Secret's certificate, verified by curl.
t_run lab_client curl -s -i -m 10 --cacert "$LAB_DIR/hp.crt" --resolve "hp.$D:443:$LAB_ROUTER_IP" \
	-H "X-Team: blue" "https://hp.$D/app/x"
t_expect_out '^path: /echo/x' "https: X-Team: blue -> the child, /echo/x"
t_run lab_client curl -s -m 10 --cacert "$LAB_DIR/hp.crt" --resolve "hp.$D:443:$LAB_ROUTER_IP" "https://hp.$D/other"
t_expect_out 'backend-a' "https: the root's / route (nginx a)"
t_ok "https with the Secret's certificate serves the same tree"

# clientValidation: a CA of the test's, a client it signed, a client of another CA.
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
	-subj "/CN=hp-test-ca" -keyout "$LAB_DIR/ca.key" -out "$LAB_DIR/ca.crt"
t_expect_rc 0 "make a client CA"
t_run openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=client" \
	-keyout "$LAB_DIR/client.key" -out "$LAB_DIR/client.csr"
t_run openssl x509 -req -in "$LAB_DIR/client.csr" -CA "$LAB_DIR/ca.crt" -CAkey "$LAB_DIR/ca.key" \
	-CAcreateserial -days 30 -out "$LAB_DIR/client.crt"
t_expect_rc 0 "sign a client certificate with it"
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
	-subj "/CN=rogue" -keyout "$LAB_DIR/rogue.key" -out "$LAB_DIR/rogue.crt"
t_expect_rc 0 "make a client certificate no CA of ours signed"
CA=$(base64 -w0 "$LAB_DIR/ca.crt")
rctl apply -f - <<EOF
apiVersion: v1
kind: Secret
metadata: {name: client-ca, namespace: demo}
type: Opaque
data: {ca.crt: $CA}
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: mtls, namespace: demo}
spec:
  virtualhost:
    fqdn: mtls.$D
    tls:
      secretName: hp-cert
      clientValidation: {caSecret: client-ca}
  routes:
  - services: [{name: a, port: 80}]
EOF
t_expect_rc 0 "apply an HTTPProxy with clientValidation"
rctl get httpproxy mtls -n demo -o json
t_json_expect "$T_OUT" 'd["status"]["currentStatus"] == "valid"' "mtls: valid"

mtls() { # mtls [curl args...]: GET https://mtls.$D/ (SNI mtls.$D)
	t_run lab_client curl -s -m 10 --cacert "$LAB_DIR/hp.crt" --resolve "mtls.$D:443:$LAB_ROUTER_IP" \
		"$@" "https://mtls.$D/"
}
mtls --cert "$LAB_DIR/client.crt" --key "$LAB_DIR/client.key"
[ "$T_RC" = 0 ] && grep -q backend-a <<<"$T_OUT" ||
	t_fail "a client certificate the CA signed: served (nginx a)" "seen: $(t_seen)"
mtls
[ "$T_RC" != 0 ] && ! grep -q backend-a <<<"$T_OUT" ||
	t_fail "no client certificate: refused in the handshake" "seen: $(t_seen)"
mtls --cert "$LAB_DIR/rogue.crt" --key "$LAB_DIR/rogue.key"
[ "$T_RC" != 0 ] && ! grep -q backend-a <<<"$T_OUT" ||
	t_fail "a certificate of another CA: refused in the handshake" "seen: $(t_seen)"
t_ok "clientValidation: the CA's client served; none, or another CA's, refused"

# Another name's connection (no certificate asked), then Host: mtls: 421, not served.
t_run lab_client curl -s -m 10 -o /dev/null -w '%{http_code}' --cacert "$LAB_DIR/hp.crt" \
	--resolve "hp.$D:443:$LAB_ROUTER_IP" -H "Host: mtls.$D" "https://hp.$D/"
[ "$T_OUT" = 421 ] || t_fail "SNI hp, Host mtls: 421" "seen: $(t_seen)"
t_run lab_client curl -s -k -m 10 -o /dev/null -w '%{http_code}' -H "Host: mtls.$D" \
	"https://$LAB_ROUTER_IP/"
[ "$T_OUT" = 421 ] || t_fail "no SNI, Host mtls: 421" "seen: $(t_seen)"
t_ok "a Host header cannot reach the clientValidation vhost past its handshake (421)"

t_run lab_client sh -c "echo | openssl s_client -connect $LAB_ROUTER_IP:443 -servername mtls.$D 2>&1"
t_expect_out 'Acceptable client certificate CA names' "mtls: the server asks for a client certificate"
t_expect_out 'CN ?= ?hp-test-ca' "mtls: naming the caSecret's CA"
t_run lab_client sh -c "echo | openssl s_client -connect $LAB_ROUTER_IP:443 -servername hp.$D 2>&1"
t_expect_no_out 'Acceptable client certificate CA names' "hp: no client certificate asked for"
t_ok "the CertificateRequest is the vhost's own"

# A session from hp (no certificate asked) offered to mtls: not resumed, not served.
t_run lab_client sh -c "printf 'GET / HTTP/1.1\r\nHost: hp.$D\r\nConnection: close\r\n\r\n' |
	openssl s_client -connect $LAB_ROUTER_IP:443 -servername hp.$D -sess_out $LAB_DIR/hp.sess -ign_eof 2>&1"
t_expect_out 'backend-a' "hp: served, its session kept"
t_run lab_client sh -c "printf 'GET / HTTP/1.1\r\nHost: mtls.$D\r\nConnection: close\r\n\r\n' |
	openssl s_client -connect $LAB_ROUTER_IP:443 -servername mtls.$D -sess_in $LAB_DIR/hp.sess -ign_eof 2>&1"
t_expect_no_out '^Reused' "hp's session is not resumed on mtls"
t_expect_no_out 'backend-a' "hp's session does not get past mtls's certificate check"
t_run lab_client sh -c "printf 'GET / HTTP/1.1\r\nHost: hp.$D\r\nConnection: close\r\n\r\n' |
	openssl s_client -connect $LAB_ROUTER_IP:443 -servername hp.$D -sess_in $LAB_DIR/hp.sess -ign_eof 2>&1"
t_expect_out '^Reused' "hp's session resumes on hp (the check above can fail)"
t_ok "sessions of another vhost do not skip the client certificate check"

# retryPolicy: service e answers /healthz with the status in its health file, a (nginx) with
# 200, round robin between them. Passive health ejects an endpoint after 5 failures (5xx) in
# a row, so the 5xx part sends e 3 requests; the rest uses 429, which it counts a success.
echo 503 > "$LAB_DIR/e.health"
t_backend_service e 8085 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8085 \
	pool-e "$LAB_DIR/e.health"
retry_proxy() { # retry_proxy NAME POLICY
	rctl apply -f - <<EOF
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: $1, namespace: demo}
spec:
  virtualhost: {fqdn: $1.$D}
  routes:
  - conditions: [{prefix: /healthz}]
    services: [{name: a, port: 80}, {name: e, port: 8085}]
    loadBalancerPolicy: {strategy: RoundRobin}
    $2
EOF
	t_expect_rc 0 "apply HTTPProxy $1"
}
statuses() { # statuses HOST N: N answers' status codes, one per line
	t_run lab_client sh -c "for i in \$(seq $2); do curl -s -o /dev/null -w '%{http_code}\\n' -m 5 \
		-H 'Host: $1.$D' http://$LAB_ROUTER_IP/healthz; done"
}
retries() { # retries: routerd's proxy_status_retries
	rctl stats -o json
	t_json "$T_OUT" 'd["total"]["proxy_status_retries"]'
}
retry_proxy retry5xx "retryPolicy: {count: 1}"
retry_proxy noretry ""
retry_proxy retrycodes "retryPolicy: {count: 2, retryOn: [retriable-status-codes], retriableStatusCodes: [429]}"
r0=$(retries)
statuses retry5xx 6
[ "$(grep -c '^200$' <<<"$T_OUT")" = 6 ] ||
	t_fail "retryPolicy (5xx by default): every request answered 200 (e's 503 sent again to a)" "$T_OUT"
r1=$(retries)
[ $((r1 - r0)) -ge 2 ] || t_fail "the 503s were sent again (proxy_status_retries $r0 -> $r1)" ""
echo 429 > "$LAB_DIR/e.health"
statuses noretry 20
n429=$(grep -c '^429$' <<<"$T_OUT")
[ "$n429" -ge 5 ] || t_fail "without a retryPolicy e's 429s reach the client (the checks can fail)" "$T_OUT"
statuses retrycodes 20
[ "$(grep -c '^200$' <<<"$T_OUT")" = 20 ] ||
	t_fail "retriableStatusCodes [429]: every request answered 200" "$T_OUT"
r2=$(retries)
[ $((r2 - r1)) -ge 5 ] || t_fail "the 429s were sent again (proxy_status_retries $r1 -> $r2)" ""
rctl resolve "http://retrycodes.$D/healthz" -o json
t_json_expect "$T_OUT" 'd["retry"] == {"count": 2, "on": ["retriable-status-codes"], "codes": [429]}' \
	"resolve shows the retry policy"
t_ok "retryPolicy: 503s (default retryOn) and 429s (retriableStatusCodes) sent again, all answered 200 ($((r1 - r0)) and $((r2 - r1)) retries); without it $n429 of 20 got e's 429"

# retryPolicy.perTryTimeout and timeoutPolicy.idle (Envoy's per_try_timeout and route
# idle_timeout) on the echoing pool c: /slowonce/N answers the first request for a target
# after N s and the next at once; /stall/N sends the head and half the body, the rest after N
# s. Route ctl (response: 20s, proxied too) is what the same requests get without them. The
# margins are wide: a loaded 2-core machine.
timeouts_proxy() { # timeouts_proxy NAME POLICY
	rctl apply -f - <<EOF
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: $1, namespace: demo}
spec:
  virtualhost: {fqdn: $1.$D}
  routes:
  - services: [{name: c, port: 8082}]
    $2
EOF
	t_expect_rc 0 "apply HTTPProxy $1"
}
timed() { # timed HOST PATH: T_OUT "status seconds" of one request (at most 15 s)
	t_run lab_client curl -s -o /dev/null -m 15 -w '%{http_code} %{time_total}' \
		-H "Host: $1.$D" "http://$LAB_ROUTER_IP$2"
}
under() { awk -v t="$1" -v m="$2" 'BEGIN { exit !(t < m) }'; } # under SECONDS MAX
per_try() { # per_try: routerd's proxy_per_try_timeouts
	rctl stats -o json
	t_json "$T_OUT" 'd["total"]["proxy_per_try_timeouts"]'
}
timeouts_proxy pertry "retryPolicy: {count: 2, perTryTimeout: 1s}"
timeouts_proxy idle "timeoutPolicy: {idle: 1s}"
timeouts_proxy ctl "timeoutPolicy: {response: 20s}"
rctl resolve "http://pertry.$D/" -o json
t_json_expect "$T_OUT" 'd["mode"] == "proxy" and d["retry"]["per_try_timeout_ms"] == 1000' \
	"resolve shows the perTryTimeout"
rctl resolve "http://idle.$D/" -o json
t_json_expect "$T_OUT" 'd["mode"] == "proxy" and d["idle_timeout_ms"] == 1000' "resolve shows the idle timeout"

p0=$(per_try)
timed pertry "/slowonce/3?pertry"
read -r st secs <<<"$T_OUT"
[ "$st" = 200 ] && under "$secs" 2.7 ||
	t_fail "perTryTimeout 1s: the slow first try abandoned, the retry answered 200 well under 3 s" "$(t_seen)"
p1=$(per_try)
[ $((p1 - p0)) -ge 1 ] || t_fail "the abandoned try is counted (proxy_per_try_timeouts $p0 -> $p1)" ""
timed ctl "/slowonce/3?ctl"
read -r st2 secs2 <<<"$T_OUT"
[ "$st2" = 200 ] && ! under "$secs2" 2.9 ||
	t_fail "without a perTryTimeout the same request waits for the slow answer (>= 3 s)" "$(t_seen)"
t_ok "perTryTimeout 1s: 200 in $secs s through a retry (proxy_per_try_timeouts +$((p1 - p0))); without it $secs2 s"

# Every try too slow: three tries of 1 s (count 2), then 504.
timed pertry "/slow/8"
read -r st secs <<<"$T_OUT"
p2=$(per_try)
[ "$st" = 504 ] && under "$secs" 6 ||
	t_fail "perTryTimeout: every try too slow, 504 once the retries are spent (~3 s)" "$(t_seen)"
[ $((p2 - p1)) -ge 3 ] || t_fail "each of the three tries is counted (proxy_per_try_timeouts $p1 -> $p2)" ""
t_ok "perTryTimeout with no try in time: 504 in $secs s after $((p2 - p1)) tries"

# idle 1s: a response that stops mid-body for 6 s is cut after about 1 s of silence (not
# the 20 s or 30 s server timeout); the control route carries it whole after 6 s.
timed idle "/stall/6"
rc=$T_RC
read -r st secs <<<"$T_OUT"
[ "$st" = 200 ] && [ "$rc" != 0 ] && under "$secs" 4.5 ||
	t_fail "idle 1s: the stalled body is cut (curl fails) in under 4.5 s" "$(t_seen)"
timed ctl "/stall/6"
read -r st2 secs2 <<<"$T_OUT"
[ "$st2" = 200 ] && [ "$T_RC" = 0 ] && ! under "$secs2" 5.9 ||
	t_fail "without an idle timeout the stalled body arrives whole after 6 s" "$(t_seen)"
t_ok "timeoutPolicy.idle 1s: a body silent 6 s cut after $secs s (curl exit $rc); without it whole in $secs2 s"

t_finish
