#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tls_edge: TLS terminated by routerd's workers (2 of them), seen by real clients (curl,
# openssl s_client, python3 ssl) in the client namespace, with certificates the test makes
# at run time (a test CA, ECDSA P-256; nothing is checked in):
#   - OpenShift edge Routes with inline certificates: each SNI gets its route's certificate
#     (fingerprints compared), curl verifies it against the CA and gets the backend's body;
#     a wildcard certificate *.wild serves x.wild;
#   - no SNI: the default certificate, the one `routerctl status` names (sha256);
#   - insecureEdgeTerminationPolicy None (and unset): plain HTTP 503; Allow: 200;
#     Redirect: 302 to https://host/path?query exactly;
#   - a Contour IngressRoute root with a kubernetes.io/tls Secret: https 200 with the
#     Secret's certificate; plain HTTP 301 to https; a permitInsecure route 200 over HTTP;
#   - version floors: a TLS 1.1 ClientHello is refused (s_client at SECLEVEL=0, or it would
#     not even offer 1.1; OpenSSL 3.0's s_client prints "Protocol  : TLSv1.1" for a failed
#     handshake too, so "refused" is a non-zero exit and no "New, TLSv1.1, Cipher is" line);
#     minimumProtocolVersion "1.3": TLS 1.2 refused, TLS 1.3 served;
#   - resumption: TLS 1.3 tickets (-sess_out / -sess_in, eight times) and TLS 1.2 (-reconnect,
#     five times); both workers count resumptions (tickets from one resumed on the other);
#   - a request whose Host names another TLS vhost than the SNI: 421 when the connection's
#     certificate does not name it or its vhost has other TLS settings (another certificate,
#     a TLS 1.3 floor); served (from its own route) when the same certificate and context
#     cover it (RFC 9110 4.3.3 connection reuse);
#   - passthrough (config/routes.yaml's, nginx's own certificate), edge and re-encrypt (to
#     nginx's HTTPS, destinationCACertificate its certificate) on one :443; re-encrypt with a
#     destinationCACertificate that did not sign the backend's: 502 (TLS_EDGE_REENCRYPT=0
#     skips the re-encrypt part);
#   - bad certificates, each on its own route: unparseable PEM (certificate; key), a key
#     that does not match, expired, not yet valid, for another host: Admitted False,
#     ExtendedValidationFailed, the OpenShift router's words; every other host still served;
#     a Contour root whose Secret is malformed: invalid, "TLS Secret [...] not found or is
#     malformed";
#   - a changed Secret: new connections get the new certificate, a keep-alive connection
#     opened before keeps working;
#   - hostile bytes on :443 (a truncated ClientHello, a record header claiming 20000 bytes,
#     random garbage): routerd stays up and serves; half a ClientHello, then nothing: the
#     router drops the connection within 20 s (its handshake timeout is 10 s);
#   - OCSP stapling from <state_dir>/ocsp: good and revoked staples sent (TLS 1.3 and 1.2),
#     one signed by a rogue key and a garbage file refused (status says why), a removed
#     file no longer stapled;
#   - a TLS 1.2 renegotiation attempt: refused with no_renegotiation, routerd serves on;
#   - re-encrypt without destinationCACertificate: the system trust store (SSL_CERT_FILE
#     for routerd: the test CA) and <service>.<namespace>.svc: 200, another name 502.
T_NAME=tls_edge
source "$(dirname "$0")/testlib.sh"

for c in openssl curl python3 base64; do
	command -v "$c" >/dev/null || t_skip_all "$c is not installed"
done
# Re-encrypt to the lab's nginx HTTPS (destinationCACertificate = nginx's own certificate):
# 1 (the default) runs that block, 0 notes it and skips it.
TLS_EDGE_REENCRYPT=${TLS_EDGE_REENCRYPT:-1}

t_setup tle 2
D=$LAB_DOMAIN
R=$LAB_ROUTER_IP
C=$LAB_DIR/tls
# OCSP staples are looked for every second (the default is a minute), in the default
# directory <state_dir>/ocsp. routerd's system trust store is the test CA (SSL_CERT_FILE,
# read when a context is built, so the CA made below is there in time): re-encrypt
# without destinationCACertificate verifies against it.
python3 - "$LAB_ROUTERD_CONFIG" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.setdefault("tls", {})["ocsp_rescan_s"] = 1
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
SSL_CERT_FILE=$C/ca.pem t_start_routerd
MBUFS0=$(t_mbufs_in_use)

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"

# --- certificates ------------------------------------------------------------------------
# A test CA and leaves signed by it with `openssl ca` (which can set any validity window:
# OpenSSL 3.0's x509 has no -not_before). Serials count up, so a re-issued leaf differs.
mkdir -p "$C/newcerts" && : >"$C/index.txt" && echo 1000 >"$C/serial" ||
	t_fail "certificates" "could not make $C"
cat >"$C/ca.cnf" <<EOF
[ca]
default_ca = test_ca
[test_ca]
database = $C/index.txt
new_certs_dir = $C/newcerts
serial = $C/serial
certificate = $C/ca.pem
private_key = $C/ca.key
default_md = sha256
default_days = 30
policy = policy_any
unique_subject = no
copy_extensions = none
email_in_dn = no
[policy_any]
commonName = supplied
EOF
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
	-subj "/CN=Switchyard tls_edge test CA" -addext "basicConstraints=critical,CA:TRUE" \
	-addext "keyUsage=critical,keyCertSign,cRLSign" -keyout "$C/ca.key" -out "$C/ca.pem"
t_expect_rc 0 "make the test CA (ECDSA P-256)"

# leaf FILE CN [STARTDATE ENDDATE]: $C/FILE.key and $C/FILE.crt, a server certificate for CN
# (also its only subjectAltName) signed by the test CA, valid 30 days from now or in the
# window given (YYYYMMDDHHMMSSZ).
leaf() {
	local f=$1 cn=$2 when=(-days 30)
	[ "$#" -ge 4 ] && when=(-startdate "$3" -enddate "$4")
	printf '%s\n' "basicConstraints = critical, CA:FALSE" "keyUsage = critical, digitalSignature" \
		"extendedKeyUsage = serverAuth" "subjectAltName = DNS:$cn" \
		"subjectKeyIdentifier = hash" "authorityKeyIdentifier = keyid" >"$C/$f.ext"
	t_run openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$cn" \
		-keyout "$C/$f.key" -out "$C/$f.csr"
	t_expect_rc 0 "certificate request for $cn"
	t_run openssl ca -batch -notext -config "$C/ca.cnf" -extfile "$C/$f.ext" "${when[@]}" \
		-in "$C/$f.csr" -out "$C/$f.crt"
	t_expect_rc 0 "the test CA signs $cn ($f)"
}
leaf a-edge "a.edge.$D"
leaf b-edge "b.edge.$D"
leaf allow-edge "allow.edge.$D"
leaf redirect-edge "redirect.edge.$D"
leaf wild "*.wild.$D"
leaf secure "secure.$D"
leaf tls13 "tls13.$D"
leaf reenc "reenc.$D"
leaf expired "expired.$D" 20200101000000Z 20200301000000Z
leaf notyet "notyet.$D" 20990101000000Z 21000101000000Z
leaf mismatch "mismatch.$D"
leaf badkey "badkey.$D"
leaf other "other.$D"
leaf ocsp "ocsp.$D"
leaf revoked "revoked.$D"
leaf forged "forged.$D"
leaf sys "sys.$D"
leaf sys2 "sys2.$D"
leaf sysca-backend "sysca.demo.svc"
printf '%s\n' '-----BEGIN CERTIFICATE-----' 'bm90IGEgY2VydGlmaWNhdGUsIGp1c3QgdGV4dA==' \
	'-----END CERTIFICATE-----' >"$C/garbage.crt"
printf '%s\n' '-----BEGIN PRIVATE KEY-----' 'bm90IGEga2V5LCBqdXN0IHRleHQ=' \
	'-----END PRIVATE KEY-----' >"$C/garbage.key"
t_run openssl verify -CAfile "$C/ca.pem" "$C/a-edge.crt" "$C/wild.crt" "$C/secure.crt"
t_expect_rc 0 "the leaves verify against the test CA"
t_ok "certificates made: a test CA (P-256) and 19 leaves (good, wildcard, expired, not yet valid, ...)"

# fp [openssl x509 ARGS]: the SHA-256 fingerprint of one certificate (stdin or -in FILE), as
# routerctl writes it: lower-case hex, no colons.
fp() { openssl x509 -noout -fingerprint -sha256 "$@" 2>/dev/null | cut -d= -f2 | tr -d : | tr 'A-F' 'a-f'; }

# --- resources ---------------------------------------------------------------------------
# ind N FILE: FILE's lines indented by N spaces (a PEM in a YAML block scalar).
ind() { sed "s/^/$(printf '%*s' "$1" '')/" "$2"; }
# edge_route NAME HOST SERVICE CRT KEY [POLICY]: a Route with edge termination, the
# certificate and key inline, the lab's service (port http).
edge_route() {
	cat <<EOF
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: $1, namespace: demo}
spec:
  host: $2
  to: {kind: Service, name: $3}
  port: {targetPort: http}
  tls:
    termination: edge
${6:+    insecureEdgeTerminationPolicy: $6
}    certificate: |
$(ind 6 "$4")
    key: |
$(ind 6 "$5")
    caCertificate: |
$(ind 6 "$C/ca.pem")
EOF
}
# tls_secret NAME CRT KEY: a kubernetes.io/tls Secret in demo.
tls_secret() {
	cat <<EOF
---
apiVersion: v1
kind: Secret
metadata: {name: $1, namespace: demo}
type: kubernetes.io/tls
data:
  tls.crt: $(base64 -w0 "$2")
  tls.key: $(base64 -w0 "$3")
EOF
}
# apply_yaml WHAT YAML: routerctl apply -f - of YAML (also kept in $LAB_DIR for a look).
apply_yaml() {
	local f
	f=$LAB_DIR/apply-$((T_NUM + 1))-$RANDOM.yaml
	printf '%s\n' "$2" >"$f"
	rctl apply -f "$f"
	t_expect_rc 0 "$1"
}

apply_yaml "apply edge Routes a.edge (None), b.edge (policy unset), allow.edge (Allow), redirect.edge (Redirect), x.wild (wildcard certificate)" \
	"$(edge_route edge-a "a.edge.$D" a "$C/a-edge.crt" "$C/a-edge.key" None
	edge_route edge-b "b.edge.$D" b "$C/b-edge.crt" "$C/b-edge.key"
	edge_route edge-allow "allow.edge.$D" b "$C/allow-edge.crt" "$C/allow-edge.key" Allow
	edge_route edge-redirect "redirect.edge.$D" a "$C/redirect-edge.crt" "$C/redirect-edge.key" Redirect
	edge_route edge-wild "x.wild.$D" a "$C/wild.crt" "$C/wild.key")"
apply_yaml "apply Contour roots secure (Secret, a permitInsecure route) and tls13 (minimumProtocolVersion 1.3)" \
	"$(tls_secret secure-tls "$C/secure.crt" "$C/secure.key"
	tls_secret tls13-tls "$C/tls13.crt" "$C/tls13.key")
---
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: secure, namespace: demo}
spec:
  virtualhost:
    fqdn: secure.$D
    tls: {secretName: secure-tls}
  routes:
  - match: /
    services: [{name: a, port: 80}]
  - match: /open
    permitInsecure: true
    services: [{name: b, port: 80}]
---
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: tls13, namespace: demo}
spec:
  virtualhost:
    fqdn: tls13.$D
    tls: {secretName: tls13-tls, minimumProtocolVersion: \"1.3\"}
  routes:
  - match: /
    services: [{name: a, port: 80}]"
for r in edge-a edge-b edge-allow edge-redirect edge-wild; do
	rctl get route "$r" -n demo -o json
	t_expect_rc 0 "get route $r -n demo -o json"
	t_json_expect "$(t_json "$T_OUT" '(d["items"][0] if "items" in d else d).get("status")')" \
		'[c.get("status") for c in d["ingress"][0]["conditions"] if c["type"] == "Admitted"] == ["True"]' \
		"route $r is admitted"
done
for r in secure tls13; do
	rctl get ingressroute "$r" -n demo -o json
	t_json_expect "$T_OUT" 'd["status"]["currentStatus"] == "valid"' "IngressRoute $r is valid"
done
t_ok "edge Routes and Contour TLS roots applied; routes Admitted, roots valid"

# --- clients -----------------------------------------------------------------------------
# https HOST PATH [curl args]: GET https://HOST/PATH through R:443, verified against the test
# CA; T_OUT the body, CODE the status.
https() {
	local host=$1 path=$2
	shift 2
	t_run lab_client curl -sS -m 10 --cacert "$C/ca.pem" --resolve "$host:443:$R" -o - \
		-w '\n%{http_code}' "$@" "https://$host$path"
	CODE=$(tail -n 1 <<<"$T_OUT")
	T_OUT=$(sed '$d' <<<"$T_OUT")
}
# http HOST PATH [curl args]: the same over plain HTTP on :80.
http() {
	local host=$1 path=$2
	shift 2
	t_run lab_client curl -sS -m 10 --resolve "$host:80:$R" -o - -w '\n%{http_code}' "$@" "http://$host$path"
	CODE=$(tail -n 1 <<<"$T_OUT")
	T_OUT=$(sed '$d' <<<"$T_OUT")
}
# redirect_of URL: the status and Location of a plain HTTP GET of URL (its host through R:80).
redirect_of() {
	local h=${1#http://}
	h=${h%%/*}
	t_run lab_client curl -sS -m 10 --resolve "$h:80:$R" -o /dev/null -D - "$1"
	loc=$(printf '%s\n' "$T_OUT" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
	code=$(printf '%s\n' "$T_OUT" | head -n 1 | cut -d' ' -f2)
}
# expect_https HOST PATH BODY [WHAT]
expect_https() {
	https "$1" "$2"
	[ "$T_RC" -eq 0 ] && [ "$CODE" = 200 ] && [ "$T_OUT" = "$3" ] ||
		t_fail "${4:-https://$1$2 (certificate verified) answers 200 '$3'}" "seen: code ${CODE:-none}; $(t_seen)"
}
# s_client [ARGS...]: openssl s_client to R:443 from the client namespace (10 s at most).
s_client() {
	t_run lab_client timeout 10 openssl s_client -connect "$R:443" "$@" </dev/null
}
# expect_cert SNI CRT-FILE WHAT: the certificate s_client gets for SNI is CRT-FILE.
expect_cert() {
	local seen want
	s_client -servername "$1"
	seen=$(printf '%s\n' "$T_OUT" | fp)
	want=$(fp -in "$2")
	[ -n "$want" ] && [ "$seen" = "$want" ] ||
		t_fail "$3" "want sha256 $want, seen '$seen'" "$(t_seen)"
}

# --- 1-3. certificates by SNI ------------------------------------------------------------
expect_https "a.edge.$D" / backend-a
expect_cert "a.edge.$D" "$C/a-edge.crt" "SNI a.edge.$D: the certificate is route edge-a's"
t_ok "edge route with an inline certificate: https://a.edge.$D/ verified, 200 backend-a; SNI a.edge gets edge-a's certificate"
expect_https "b.edge.$D" / backend-b
expect_cert "b.edge.$D" "$C/b-edge.crt" "SNI b.edge.$D: the certificate is route edge-b's"
expect_cert "a.edge.$D" "$C/a-edge.crt" "SNI a.edge.$D again: still edge-a's certificate"
t_ok "two edge hosts on one address: a.edge and b.edge each get their own certificate, b.edge -> backend-b"
expect_https "x.wild.$D" /w backend-a "https://x.wild.$D/w answers 200 backend-a, its name verified against *.wild.$D"
expect_cert "x.wild.$D" "$C/wild.crt" "SNI x.wild.$D: the wildcard certificate"
t_ok "wildcard certificate *.wild.$D on the route for x.wild.$D: curl verifies the name, 200"

# --- 4. no SNI: the default certificate --------------------------------------------------
rctl status -o json
t_expect_rc 0 "status -o json"
status=$T_OUT
t_json_expect "$status" 'len(d["tls"]["default_certificate"]["sha256"]) == 64 and d["tls"]["default_certificate"]["subject"]' \
	"status: tls.default_certificate has a subject and a sha256"
t_json_expect "$status" 'd["tls"]["default_certificate"]["generated"] is True' \
	"status: tls.default_certificate.generated is true (the lab's config names none)"
def_fp=$(t_json "$status" 'd["tls"]["default_certificate"]["sha256"]')
s_client -noservername
seen=$(printf '%s\n' "$T_OUT" | fp)
[ -n "$seen" ] && [ "$seen" = "$def_fp" ] ||
	t_fail "no SNI: the certificate is the default one routerctl status names" "want $def_fp, seen '$seen'" "$(t_seen)"
t_ok "ClientHello without SNI: the default certificate ($(t_json "$status" 'd["tls"]["default_certificate"]["subject"]'), sha256 as routerctl status says)"

# --- 5. insecureEdgeTerminationPolicy ----------------------------------------------------
http "a.edge.$D" /
[ "$T_RC" -eq 0 ] && [ "$CODE" = 503 ] ||
	t_fail "None: http://a.edge.$D/ is not served (503, the no-route answer)" "seen: code ${CODE:-none}; $(t_seen)"
http "b.edge.$D" /
[ "$T_RC" -eq 0 ] && [ "$CODE" = 503 ] ||
	t_fail "policy unset: http://b.edge.$D/ is not served (503)" "seen: code ${CODE:-none}; $(t_seen)"
t_ok "insecureEdgeTerminationPolicy None (and unset): plain HTTP gets 503"
http "allow.edge.$D" /x
[ "$T_RC" -eq 0 ] && [ "$CODE" = 200 ] && [ "$T_OUT" = backend-b ] ||
	t_fail "Allow: http://allow.edge.$D/x answers 200 backend-b" "seen: code ${CODE:-none}; $(t_seen)"
expect_https "allow.edge.$D" /x backend-b
t_ok "insecureEdgeTerminationPolicy Allow: plain HTTP 200 and https 200"
# The route's sticky-session cookie (OpenShift's default) is Secure over TLS only.
https "allow.edge.$D" /x -D -
# Over https curl speaks h2, whose field names are lowercase (RFC 9113 8.2.1).
ck=$(printf '%s\n' "$T_OUT" | tr -d '\r' | grep -i '^Set-Cookie:' | sed 's/^set-cookie:/Set-Cookie:/I')
[[ $ck =~ ^Set-Cookie:\ [0-9a-f]{32}=[0-9a-f]{16}\;\ path=/\;\ HttpOnly\;\ Secure$ ]] ||
	t_fail "https://allow.edge.$D/x sets the route's cookie, HttpOnly and Secure" "seen: '$ck'; $(t_seen)"
http "allow.edge.$D" /x -D -
ck_plain=$(printf '%s\n' "$T_OUT" | tr -d '\r' | grep -i '^Set-Cookie:')
[[ $ck_plain =~ ^Set-Cookie:\ [0-9a-f]{32}=[0-9a-f]{16}\;\ path=/\;\ HttpOnly$ ]] ||
	t_fail "http://allow.edge.$D/x sets the route's cookie, HttpOnly, not Secure" "seen: '$ck_plain'; $(t_seen)"
t_ok "the sticky cookie: '${ck#Set-Cookie: }' over https, without Secure over plain HTTP"
redirect_of "http://redirect.edge.$D/some/path?x=1&y=two"
[ "$T_RC" -eq 0 ] && [ "$code" = 302 ] && [ "$loc" = "https://redirect.edge.$D/some/path?x=1&y=two" ] ||
	t_fail "Redirect: 302 to https://redirect.edge.$D/some/path?x=1&y=two" "seen: code '$code', Location '$loc'; $(t_seen)"
expect_https "redirect.edge.$D" "/some/path?x=1&y=two" backend-a
t_ok "insecureEdgeTerminationPolicy Redirect: 302 Location https://redirect.edge.$D/some/path?x=1&y=two (query kept); https 200"

# --- 6. Contour root with a Secret -------------------------------------------------------
expect_https "secure.$D" / backend-a
expect_cert "secure.$D" "$C/secure.crt" "SNI secure.$D: the certificate from Secret secure-tls"
# tls13's root has no permitInsecure route; secure's has one, on /open only.
redirect_of "http://tls13.$D/p?q=1"
[ "$T_RC" -eq 0 ] && [ "$code" = 301 ] && [ "$loc" = "https://tls13.$D/p?q=1" ] ||
	t_fail "Contour TLS root: http://tls13.$D/p?q=1 -> 301 https://tls13.$D/p?q=1" "seen: code '$code', Location '$loc'; $(t_seen)"
redirect_of "http://secure.$D/p?q=1"
[ "$T_RC" -eq 0 ] && [ "$code" = 301 ] && [ "$loc" = "https://secure.$D/p?q=1" ] ||
	t_fail "Contour TLS root with a permitInsecure route on /open: http://secure.$D/p?q=1 (not under /open) -> 301 https://secure.$D/p?q=1" "seen: code '$code', Location '$loc'; $(t_seen)"
http "secure.$D" /open
[ "$T_RC" -eq 0 ] && [ "$CODE" = 200 ] && [ "$T_OUT" = backend-b ] ||
	t_fail "permitInsecure: http://secure.$D/open answers 200 backend-b" "seen: code ${CODE:-none}; $(t_seen)"
expect_https "secure.$D" /open backend-b
t_ok "Contour roots with Secrets: https 200 with the Secret's certificate; plain HTTP 301 to https (query kept); a permitInsecure route 200 over HTTP, the root's other routes still 301"

# --- 7. minimum versions -----------------------------------------------------------------
# SECLEVEL=0 so that the client really offers TLS 1.1 (OpenSSL 3.0 will not otherwise).
for h in "a.edge.$D" "secure.$D"; do
	s_client -servername "$h" -tls1_1 -cipher 'DEFAULT:@SECLEVEL=0'
	[ "$T_RC" -ne 0 ] || t_fail "TLS 1.1 to $h is refused (s_client exits non-zero)" "$(t_seen)"
	t_expect_no_out '^(New|Reused), TLSv1(\.1)?, Cipher is' "TLS 1.1 to $h: no handshake completes"
done
t_ok "TLS 1.1 refused on an edge Route and on a Contour root without minimumProtocolVersion"
s_client -servername "a.edge.$D" -tls1_2
t_expect_out '^New, TLSv1\.2, Cipher is' "TLS 1.2 to a.edge.$D is served"
s_client -servername "tls13.$D" -tls1_2
[ "$T_RC" -ne 0 ] || t_fail "minimumProtocolVersion 1.3: TLS 1.2 to tls13.$D is refused" "$(t_seen)"
t_expect_no_out '^(New|Reused), TLSv1\.2, Cipher is' "minimumProtocolVersion 1.3: no TLS 1.2 handshake completes"
s_client -servername "tls13.$D" -tls1_3
t_expect_out '^New, TLSv1\.3, Cipher is' "minimumProtocolVersion 1.3: TLS 1.3 to tls13.$D is served"
expect_https "tls13.$D" / backend-a
t_ok "minimumProtocolVersion \"1.3\": TLS 1.2 refused, TLS 1.3 served (TLS 1.2 still served on a.edge)"

# --- 8. resumption (2 workers: the connections land on either) ----------------------------
# resumptions: the per-worker tls_resumptions counters, space-separated.
resumptions() {
	rctl stats -o json
	t_json "$T_OUT" '" ".join(str(w["tls_resumptions"]) for w in d["workers"])'
}
before=$(resumptions)
# cached: the per-worker session caches' insertions (TLS 1.2 session IDs only).
cached() {
	rctl stats -o json
	t_json "$T_OUT" 'sum(w["tls_sessions_cached"] for w in d["workers"])'
}
cached0=$(cached)
# The TLS 1.3 ticket comes after the handshake: s_client sends a request and reads to the end
# (-ign_eof) so that it has the ticket before it writes -sess_out. Eight tickets, each
# resumed on a new connection (either worker).
reused=0
for i in 1 2 3 4 5 6 7 8; do
	t_run lab_client timeout 10 sh -c "printf 'GET / HTTP/1.1\r\nHost: a.edge.$D\r\nConnection: close\r\n\r\n' |
		openssl s_client -connect $R:443 -servername a.edge.$D -tls1_3 -ign_eof -sess_out $C/s13-$i.pem"
	[ -s "$C/s13-$i.pem" ] || t_fail "TLS 1.3: s_client -sess_out keeps a session (ticket) from a.edge.$D" "$(t_seen)"
	s_client -servername "a.edge.$D" -tls1_3 -sess_in "$C/s13-$i.pem"
	t_expect_out '^Reused, TLSv1\.3, Cipher is' "TLS 1.3 resumption $i: s_client -sess_in says Reused, TLSv1.3"
	reused=$((reused + 1))
done
t_ok "TLS 1.3 resumption: $reused of 8 tickets resumed (Reused, TLSv1.3)"
[ "$(cached)" = "$cached0" ] || t_fail "TLS 1.3 sessions stay out of the session-ID cache" "tls_sessions_cached $cached0 -> $(cached)"
# One ticket per handshake (tls.tickets, default 1; OpenSSL's own default would send two).
t_run lab_client timeout 10 sh -c "printf 'GET / HTTP/1.1\r\nHost: a.edge.$D\r\nConnection: close\r\n\r\n' |
	openssl s_client -connect $R:443 -servername a.edge.$D -tls1_3 -ign_eof -msg"
n=$(printf '%s\n' "$T_OUT" | grep -c '<<< TLS 1.3, Handshake \[length [0-9a-f]*\], NewSessionTicket')
[ "$n" -eq 1 ] || t_fail "a full TLS 1.3 handshake brings one NewSessionTicket (tls.tickets 1)" "seen $n; $(t_seen)"
t_ok "a full TLS 1.3 handshake brings exactly one NewSessionTicket (tls.tickets)"
s_client -servername "a.edge.$D" -tls1_2 -reconnect
n=$(printf '%s\n' "$T_OUT" | grep -c '^Reused, TLSv1\.2, Cipher is')
[ "$n" -eq 5 ] || t_fail "TLS 1.2 -reconnect: the 5 reconnects say Reused, TLSv1.2" "seen $n; $(t_seen)"
t_ok "TLS 1.2 resumption: s_client -reconnect reused the session 5 times (by ticket)"
# Without a ticket (-no_ticket) a TLS 1.2 session resumes by ID from the cache of the worker
# that made it; TLS 1.3 sessions were kept out of those caches above.
s_client -servername "a.edge.$D" -tls1_2 -no_ticket -reconnect
[ "$(cached)" -gt "$cached0" ] || t_fail "a TLS 1.2 session without a ticket is cached by ID" "tls_sessions_cached $cached0 -> $(cached); $(t_seen)"
t_ok "TLS 1.2 without tickets: sessions cached by ID ($cached0 -> $(cached)); the TLS 1.3 ones were not"
after=$(resumptions)
# 13 resumptions over 2 workers: each has some (all on one: about 1 in 4000 if spread evenly).
python3 -c 'import sys; b, a = (list(map(int, x.split())) for x in sys.argv[1:3]); sys.exit(not (len(a) == 2 and all(y - x > 0 for x, y in zip(b, a)) and sum(a) - sum(b) >= 13))' "$before" "$after" ||
	t_fail "tls_resumptions grew on both workers, 13 in all" "per worker before: $before; after: $after"
t_ok "resumed on both workers (tls_resumptions per worker: $before -> $after): ticket keys shared"
# tls_handshake_cycles: the TSC cycles inside OpenSSL's handshake calls, part of the busy
# cycles (work found in a poll) of every worker that made handshakes, and never more.
rctl stats -o json
t_json_expect "$T_OUT" 'all((w["tls_handshake_cycles"] > 0 or w["tls_handshakes"] + w["tls_backend_handshakes"] == 0) and w["tls_handshake_cycles"] <= w["busy_cycles"] for w in d["workers"]) and sum(w["tls_handshake_cycles"] for w in d["workers"]) > 0' \
	"tls_handshake_cycles: counted on each worker that made handshakes, within its busy cycles"
t_ok "tls_handshake_cycles counted within busy_cycles on each worker ($(t_json "$T_OUT" '" ".join(str(w["tls_handshake_cycles"]) for w in d["workers"])'))"
# tsc_hz: the rate the cycle counters tick at. Every cycle of a worker's loop is busy or idle,
# so over about a second of wall time worker 0's busy + idle cycles divided by tsc_hz are
# that second (within what the two readings' own time adds or takes).
hz_span=$(python3 - "$ROUTERCTL" "$LAB_SOCKET" <<'PY'
import json, subprocess, sys, time
def read():
    d = json.loads(subprocess.run([sys.argv[1], "-s", sys.argv[2], "stats", "-o", "json"],
                                  check=True, capture_output=True, text=True).stdout)
    w = d["workers"][0]
    return time.monotonic(), w["busy_cycles"] + w["idle_cycles"], d["tsc_hz"]
t0, c0, hz = read()
time.sleep(1.0)
t1, c1, _ = read()
print(hz, f"{(c1 - c0) / hz:.3f}", f"{t1 - t0:.3f}")
PY
)
python3 -c 'import sys; hz, span, wall = map(float, sys.argv[1:4]); sys.exit(not (hz >= 1e8 and 0.8 * wall <= span <= 1.2 * wall))' $hz_span ||
	t_fail "stats tsc_hz: worker 0's busy + idle cycles over a second, by tsc_hz, are that second" "tsc_hz, cycles / tsc_hz, wall seconds: $hz_span"
t_ok "stats tsc_hz is the counters' rate (tsc_hz, busy + idle cycles / tsc_hz, wall: $hz_span)"

# --- 9. Host of another TLS vhost than the SNI -------------------------------------------
t_run lab_client curl -sS -m 10 --http1.1 --cacert "$C/ca.pem" --resolve "a.edge.$D:443:$R" \
	-H "Host: b.edge.$D" -o /dev/null -w '%{http_code}' "https://a.edge.$D/"
[ "$T_OUT" = 421 ] || t_fail "SNI a.edge.$D with Host: b.edge.$D: 421 Misdirected Request" "$(t_seen)"
t_ok "SNI a.edge with Host: b.edge: 421 Misdirected Request"
# Connection reuse across names (RFC 9110 4.3.3): z.wild has a route of its own (backend b)
# with the same wildcard certificate as x.wild, so the same server context; w13.wild has
# that certificate too but a TLS 1.3 floor (another context). Over a connection made for
# x.wild: Host z.wild is served from z.wild's route; w13.wild (other settings) and a.edge
# (a name the certificate does not cover) get 421. Each on a connection that has just
# served x.wild (two URLs, one connection: curl says it reused it).
apply_yaml "apply z.wild (edge, the wildcard certificate, backend b) and w13.wild (the same certificate, TLS 1.3 floor)" \
	"$(edge_route edge-wild-z "z.wild.$D" b "$C/wild.crt" "$C/wild.key"
	tls_secret wild-tls "$C/wild.crt" "$C/wild.key")
---
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: w13, namespace: demo}
spec:
  virtualhost:
    fqdn: w13.wild.$D
    tls: {secretName: wild-tls, minimumProtocolVersion: \"1.3\"}
  routes:
  - match: /
    services: [{name: b, port: 80}]"
expect_https "z.wild.$D" / backend-b
# reuse HOST: GET https://x.wild/ then, on the same connection, a request with Host: HOST;
# T_OUT: the two status codes, and whether the second reused the connection (num_connects 0).
reuse() {
	local o=(-sS -m 10 --http1.1 --cacert "$C/ca.pem" --resolve "x.wild.$D:443:$R" -o /dev/null
		-w '%{http_code} %{num_connects}\n')
	t_run lab_client curl "${o[@]}" "https://x.wild.$D/" --next "${o[@]}" -H "Host: $1" "https://x.wild.$D/"
}
reuse "z.wild.$D"
[ "$T_RC" -eq 0 ] && [ "$(printf '%s\n' "$T_OUT" | tr '\n' ' ')" = "200 1 200 0 " ] ||
	t_fail "SNI x.wild, then Host: z.wild on the same connection (its certificate covers it, same context): 200" "$(t_seen)"
t_run lab_client curl -sS -m 10 --http1.1 --cacert "$C/ca.pem" --resolve "x.wild.$D:443:$R" \
	-H "Host: z.wild.$D" "https://x.wild.$D/"
[ "$T_OUT" = backend-b ] || t_fail "SNI x.wild, Host: z.wild: z.wild's route (backend b) answers" "$(t_seen)"
t_ok "connection reuse: SNI x.wild.$D, Host: z.wild.$D (same certificate and context) served by z.wild's route"
reuse "w13.wild.$D"
[ "$(printf '%s\n' "$T_OUT" | tr '\n' ' ')" = "200 1 421 0 " ] ||
	t_fail "SNI x.wild, Host: w13.wild (same certificate, TLS 1.3 floor: another context): 421" "$(t_seen)"
reuse "a.edge.$D"
[ "$(printf '%s\n' "$T_OUT" | tr '\n' ' ')" = "200 1 421 0 " ] ||
	t_fail "SNI x.wild, Host: a.edge (not a name of *.wild's certificate): 421" "$(t_seen)"
t_ok "connection reuse refused with 421: a vhost with other TLS settings (w13.wild), a name the certificate does not cover (a.edge)"

# --- 10. passthrough, edge (and re-encrypt) on one :443 ----------------------------------
t_run lab_client curl -sS -m 10 --cacert "$LAB_DIR/nginx-a/tls.crt" --resolve "a.passthrough.$D:443:$R" \
	"https://a.passthrough.$D/"
[ "$T_RC" -eq 0 ] && [ "$T_OUT" = backend-a ] ||
	t_fail "passthrough: https://a.passthrough.$D/ -> backend-a with nginx's own certificate" "$(t_seen)"
expect_cert "a.passthrough.$D" "$LAB_DIR/nginx-a/tls.crt" "passthrough: SNI a.passthrough gets nginx a's certificate"
expect_https "a.edge.$D" / backend-a
t_ok "passthrough (nginx's certificate) and edge (the route's) on the same $R:443"
if [ "$TLS_EDGE_REENCRYPT" = 1 ]; then
	apply_yaml "apply a reencrypt Route reenc.$D -> a (https), destinationCACertificate nginx a's" "---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: reenc, namespace: demo}
spec:
  host: reenc.$D
  to: {kind: Service, name: a}
  port: {targetPort: https}
  tls:
    termination: reencrypt
    certificate: |
$(ind 6 "$C/reenc.crt")
    key: |
$(ind 6 "$C/reenc.key")
    destinationCACertificate: |
$(ind 6 "$LAB_DIR/nginx-a/tls.crt")"
	expect_https "reenc.$D" / backend-a "reencrypt: https://reenc.$D/ answers 200 backend-a (nginx a's HTTPS behind)"
	expect_cert "reenc.$D" "$C/reenc.crt" "reencrypt: SNI reenc.$D gets the route's certificate"
	t_ok "reencrypt Route: the route's certificate to the client, nginx a's HTTPS behind; passthrough, edge, reencrypt on one :443"
	# The test CA did not sign nginx's certificate: the backend does not verify.
	apply_yaml "apply a reencrypt Route y.wild.$D -> a (https) whose destinationCACertificate is the test CA" "---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: reenc-bad, namespace: demo}
spec:
  host: y.wild.$D
  to: {kind: Service, name: a}
  port: {targetPort: https}
  tls:
    termination: reencrypt
    certificate: |
$(ind 6 "$C/wild.crt")
    key: |
$(ind 6 "$C/wild.key")
    destinationCACertificate: |
$(ind 6 "$C/ca.pem")"
	https "y.wild.$D" /
	[ "$T_RC" -eq 0 ] && [ "$CODE" = 502 ] ||
		t_fail "reencrypt to a backend whose certificate the destinationCACertificate did not sign: 502" \
			"seen: code ${CODE:-none}; $(t_seen)"
	t_ok "reencrypt: a backend certificate that does not verify against destinationCACertificate gets 502"
else
	t_note "reencrypt block skipped (TLS_EDGE_REENCRYPT=1 runs it)"
fi

# --- 11. bad certificates ----------------------------------------------------------------
# bad NAME HOST CRT KEY MESSAGE: route NAME is applied, not admitted: ExtendedValidationFailed
# with MESSAGE in its message.
bad() {
	local st
	apply_yaml "apply route $1 ($2): the object is accepted, its status says what is wrong" \
		"$(edge_route "$1" "$2" a "$3" "$4")"
	rctl get route "$1" -n demo -o json
	t_expect_rc 0 "get route $1 -n demo -o json"
	st=$(t_json "$T_OUT" '(d["items"][0] if "items" in d else d).get("status")')
	t_json_expect "$st" '[(c.get("status"), c.get("reason"), "'"$5"'" in c.get("message", "")) for c in d["ingress"][0]["conditions"] if c["type"] == "Admitted"] == [("False", "ExtendedValidationFailed", True)]' \
		"route $1: Admitted False, ExtendedValidationFailed, message has '$5'"
	t_note "$1: $(t_json "$st" '[c.get("message") for c in d["ingress"][0]["conditions"] if c["type"] == "Admitted"]')"
}
bad bad-cert "badcert.$D" "$C/garbage.crt" "$C/a-edge.key" "error decoding certificate data"
bad bad-key "badkey.$D" "$C/badkey.crt" "$C/garbage.key" "error decoding key data"
bad mismatch "mismatch.$D" "$C/mismatch.crt" "$C/a-edge.key" "private key does not match public key"
bad expired "expired.$D" "$C/expired.crt" "$C/expired.key" "certificate has expired"
bad notyet "notyet.$D" "$C/notyet.crt" "$C/notyet.key" "certificate is not yet valid"
bad wronghost "wronghost.$D" "$C/other.crt" "$C/other.key" "certificate is not valid for host"
t_ok "bad certificates (unparseable certificate, unparseable key, key mismatch, expired, not yet valid, another host): each route Admitted False, ExtendedValidationFailed, with the reason"
apply_yaml "apply a Contour root badsecret.$D whose Secret does not parse" \
	"$(tls_secret broken-tls "$C/garbage.crt" "$C/garbage.key")
---
apiVersion: contour.heptio.com/v1beta1
kind: IngressRoute
metadata: {name: badsecret, namespace: demo}
spec:
  virtualhost:
    fqdn: badsecret.$D
    tls: {secretName: broken-tls}
  routes:
  - match: /
    services: [{name: a, port: 80}]"
rctl get ingressroute badsecret -n demo -o json
t_json_expect "$T_OUT" 'd["status"]["currentStatus"] == "invalid" and d["status"]["description"] in ("TLS Secret [demo/broken-tls] not found or is malformed", "TLS Secret [broken-tls] not found or is malformed")' \
	"IngressRoute badsecret: invalid, TLS Secret [demo/broken-tls] not found or is malformed"
t_note "badsecret: $(t_json "$T_OUT" 'd["status"]["description"]')"
t_ok "Contour root with a malformed Secret: invalid, \"$(t_json "$T_OUT" 'd["status"]["description"]')\""
expect_https "a.edge.$D" / backend-a
expect_cert "a.edge.$D" "$C/a-edge.crt" "after the bad ones: SNI a.edge.$D still gets edge-a's certificate"
expect_https "b.edge.$D" / backend-b
expect_https "x.wild.$D" / backend-a
expect_https "secure.$D" / backend-a
expect_https "tls13.$D" / backend-a
http "allow.edge.$D" /
[ "$CODE" = 200 ] || t_fail "after the bad ones: http://allow.edge.$D/ 200" "seen: code ${CODE:-none}; $(t_seen)"
http "web.$D" /
[ "$CODE" = 200 ] && [ "$T_OUT" = backend-a ] ||
	t_fail "after the bad ones: http://web.$D/ 200 backend-a" "seen: code ${CODE:-none}; $(t_seen)"
t_run lab_client curl -sS -m 10 --cacert "$LAB_DIR/nginx-b/tls.crt" --resolve "b.passthrough.$D:443:$R" \
	"https://b.passthrough.$D/"
[ "$T_OUT" = backend-b ] || t_fail "after the bad ones: passthrough b.passthrough -> backend-b" "$(t_seen)"
t_ok "after the bad certificates: every other host still served (edge, wildcard, Contour, Allow, plain, passthrough)"

# --- 12. a changed Secret ----------------------------------------------------------------
# keepalive.py ADDR SNI CA GO-FILE: one TLS connection (verified), a request, then wait for
# GO-FILE to exist, then a second request on the same connection. One JSON line per step.
cat >"$LAB_DIR/keepalive.py" <<'EOF'
import hashlib, json, os, socket, ssl, sys, time
addr, sni, ca, go = sys.argv[1:5]
ctx = ssl.create_default_context(cafile=ca)
s = ctx.wrap_socket(socket.create_connection((addr, 443), timeout=15), server_hostname=sni)
fp = hashlib.sha256(s.getpeercert(binary_form=True)).hexdigest()
buf = b""
def response():
    global buf
    while b"\r\n\r\n" not in buf:
        c = s.recv(65536)
        if not c:
            raise EOFError("closed before a response head")
        buf += c
    head, _, buf = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    hdr = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    if hdr.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            while b"\r\n" not in buf:
                buf += s.recv(65536)
            size, _, buf = buf.partition(b"\r\n")
            n = int(size.split(b";")[0], 16)
            while len(buf) < n + 2:
                buf += s.recv(65536)
            body += buf[:n]
            buf = buf[n + 2:]
            if n == 0:
                break
    else:
        n = int(hdr.get("content-length", "0"))
        while len(buf) < n:
            c = s.recv(65536)
            if not c:
                raise EOFError("closed in a body")
            buf += c
        body, buf = buf[:n], buf[n:]
    return int(lines[0].split()[1]), body.decode("latin-1").strip()
for step in (1, 2):
    if step == 2:
        while not os.path.exists(go):
            time.sleep(0.05)
    try:
        s.sendall(f"GET / HTTP/1.1\r\nHost: {sni}\r\n\r\n".encode())
        st, body = response()
        print(json.dumps({"step": step, "status": st, "body": body, "fp": fp}), flush=True)
    except Exception as e:  # noqa: BLE001 - reported
        print(json.dumps({"step": step, "error": repr(e), "fp": fp}), flush=True)
        sys.exit(1)
EOF
old_fp=$(fp -in "$C/secure.crt")
lab_client python3 "$LAB_DIR/keepalive.py" "$R" "secure.$D" "$C/ca.pem" "$LAB_DIR/keepalive.go" \
	>"$LAB_DIR/keepalive.out" 2>&1 &
ka_pid=$!
lab_track "$ka_pid" keepalive
for _ in $(seq 100); do
	grep -q '"step": 1' "$LAB_DIR/keepalive.out" 2>/dev/null && break
	sleep 0.05
done
grep -q '"step": 1, "status": 200, "body": "backend-a", "fp": "'"$old_fp"'"' "$LAB_DIR/keepalive.out" ||
	t_fail "keep-alive TLS connection to secure.$D: the first request 200 backend-a, the old certificate" \
		"seen: $(cat "$LAB_DIR/keepalive.out")"
leaf secure2 "secure.$D"
new_fp=$(fp -in "$C/secure2.crt")
[ "$(openssl x509 -noout -serial -in "$C/secure2.crt")" != "$(openssl x509 -noout -serial -in "$C/secure.crt")" ] ||
	t_fail "the re-issued certificate for secure.$D has a new serial"
apply_yaml "apply Secret secure-tls with a re-issued certificate (new serial)" \
	"$(tls_secret secure-tls "$C/secure2.crt" "$C/secure2.key")"
seen=
for _ in $(seq 25); do
	s_client -servername "secure.$D"
	seen=$(printf '%s\n' "$T_OUT" | fp)
	[ "$seen" = "$new_fp" ] && break
	sleep 0.2
done
[ "$seen" = "$new_fp" ] || t_fail "after the Secret changed: a new connection gets the new certificate" \
	"want $new_fp (old $old_fp), seen '$seen'" "$(t_seen)"
touch "$LAB_DIR/keepalive.go"
wait "$ka_pid"
ka_rc=$?
grep -q '"step": 2, "status": 200, "body": "backend-a", "fp": "'"$old_fp"'"' "$LAB_DIR/keepalive.out" ||
	t_fail "after the Secret changed: the keep-alive connection opened before still gets 200 on its second request" \
		"exit $ka_rc; seen: $(cat "$LAB_DIR/keepalive.out")"
expect_https "secure.$D" / backend-a
t_ok "changed Secret: new connections get the new certificate; the keep-alive connection opened before still answers 200"

# --- 13. hostile input -------------------------------------------------------------------
# hostile.py MODE ADDR SNI: bytes a client should not send to :443.
#   truncated  the first 20 bytes of a real ClientHello, then close
#   bighdr     a handshake record header claiming 20000 bytes, 64 bytes of it, then wait
#   garbage    4000 random bytes, then wait
#   stall      half a real ClientHello, then nothing: how long until the router drops us
# Prints one JSON line: what came back and when the connection ended.
cat >"$LAB_DIR/hostile.py" <<'EOF'
import json, os, socket, ssl, sys, time
mode, addr, sni = sys.argv[1:4]
ctx = ssl.create_default_context()
ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
obj = ctx.wrap_bio(inc, out, server_hostname=sni)
try:
    obj.do_handshake()
except ssl.SSLWantReadError:
    pass
hello = out.read()
payload = {"truncated": hello[:20], "bighdr": b"\x16\x03\x01" + (20000).to_bytes(2, "big") + os.urandom(64),
           "garbage": os.urandom(4000), "stall": hello[:len(hello) // 2]}[mode]
s = socket.create_connection((addr, 443), timeout=5)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
t0 = time.monotonic()
s.sendall(payload)
res = {"mode": mode, "sent": len(payload), "hello_len": len(hello)}
if mode == "truncated":
    s.close()
    res["end"] = "we closed"
else:
    s.settimeout(25 if mode == "stall" else 5)
    got = b""
    try:
        while True:
            c = s.recv(65536)
            if not c:
                res["end"] = "fin"
                break
            got += c
    except ConnectionResetError:
        res["end"] = "rst"
    except socket.timeout:
        res["end"] = "timeout"
    res["after_s"] = round(time.monotonic() - t0, 2)
    res["got"] = got[:16].hex()
    s.close()
print(json.dumps(res))
EOF
for m in truncated bighdr garbage; do
	t_run lab_client python3 "$LAB_DIR/hostile.py" "$m" "$R" "a.edge.$D"
	t_expect_rc 0 "hostile client ($m) runs"
	t_note "hostile $m: $T_OUT"
	sy_pid_alive "$ROUTERD_PID" || t_fail "routerd is still running after the $m input" "$(tail -n 30 "$LAB_ROUTERD_LOG")"
	expect_https "a.edge.$D" / backend-a "after the $m input: https://a.edge.$D/ still answers 200 backend-a"
done
t_ok "a truncated ClientHello, a record header claiming 20000 bytes and random garbage on :443: routerd stays up and serves"
t_run lab_client python3 "$LAB_DIR/hostile.py" stall "$R" "a.edge.$D"
t_expect_rc 0 "hostile client (stall) runs"
stall=$T_OUT
t_note "stall: $stall"
t_json_expect "$stall" 'd["end"] in ("fin", "rst") and d["after_s"] < 20' \
	"half a ClientHello, then nothing: the router ends the connection within 20 s"
expect_https "a.edge.$D" / backend-a "after the stalled client: https://a.edge.$D/ still answers 200 backend-a"
t_ok "half a ClientHello, then nothing: dropped by the router after $(t_json "$stall" 'd["after_s"]') s ($(t_json "$stall" 'd["end"]'))"

# --- 14. OCSP stapling -------------------------------------------------------------------
# Staples are supplied as files (DER OCSP responses) in <state_dir>/ocsp. The test CA
# answers for ocsp.$D (good) and revoked.$D (revoked first); a rogue key signs one for
# forged.$D (not the issuer, not delegated: never stapled); a file of garbage is reported.
apply_yaml "apply edge Routes ocsp, revoked, forged (chain with the issuer: caCertificate)" \
	"$(edge_route ocsp "ocsp.$D" a "$C/ocsp.crt" "$C/ocsp.key"
	edge_route revoked "revoked.$D" a "$C/revoked.crt" "$C/revoked.key"
	edge_route forged "forged.$D" a "$C/forged.crt" "$C/forged.key")"
s_client -servername "ocsp.$D" -status
t_expect_out '^OCSP response: no response sent' "before any staple: s_client -status gets none"
t_run openssl ca -config "$C/ca.cnf" -revoke "$C/revoked.crt" -crl_reason keyCompromise
t_expect_rc 0 "the test CA revokes revoked.$D"
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
	-subj "/CN=rogue responder" -keyout "$C/rogue.key" -out "$C/rogue.pem"
t_expect_rc 0 "a rogue responder key"
# ocsp_response LEAF SIGNER-CRT SIGNER-KEY OUT: what a responder would answer for LEAF.
ocsp_response() {
	t_run openssl ocsp -issuer "$C/ca.pem" -cert "$C/$1.crt" -no_nonce -reqout "$C/$1.req"
	t_expect_rc 0 "OCSP request for $1"
	t_run openssl ocsp -index "$C/index.txt" -CA "$C/ca.pem" -rsigner "$2" -rkey "$3" \
		-reqin "$C/$1.req" -respout "$4" -ndays 1
	t_expect_rc 0 "OCSP response for $1, signed by $(basename "$2")"
}
ocsp_response ocsp "$C/ca.pem" "$C/ca.key" "$C/ocsp.der"
ocsp_response revoked "$C/ca.pem" "$C/ca.key" "$C/revoked.der"
ocsp_response forged "$C/rogue.pem" "$C/rogue.key" "$C/forged.der"
mkdir -p "$LAB_STATE_DIR/ocsp"
cp "$C/ocsp.der" "$LAB_STATE_DIR/ocsp/ocsp.der"
cp "$C/revoked.der" "$LAB_STATE_DIR/ocsp/some-name"
cp "$C/forged.der" "$LAB_STATE_DIR/ocsp/forged.der"
head -c 300 /dev/urandom >"$LAB_STATE_DIR/ocsp/garbage.der"
# ocsp_status PY-EXPR WHAT: wait (10 s at most) until routerctl status's tls.ocsp makes
# PY-EXPR true (o: the files by name).
ocsp_status() {
	local i
	for i in $(seq 50); do
		rctl status -o json
		t_json "$T_OUT" 'str(bool((lambda o: '"$1"')({f["file"]: f for f in d["tls"]["ocsp"]["files"]})))' |
			grep -q True && return 0
		sleep 0.2
	done
	t_fail "$2" "$T_OUT"
}
ocsp_status '"ocsp.der" in o and o["ocsp.der"]["stapled_to"] and "problem" not in o["ocsp.der"]' \
	"routerctl status: the staple in ocsp.der is stapled to ocsp.$D"
t_note "status tls.ocsp: $(t_json "$T_OUT" 'd["tls"]["ocsp"]')"
t_json_expect "$T_OUT" '[f for f in d["tls"]["ocsp"]["files"] if f["file"] == "some-name"][0]["cert_status"] == "revoked"' \
	"status: some-name answers revoked"
t_json_expect "$T_OUT" '"signature does not verify" in [f for f in d["tls"]["ocsp"]["files"] if f["file"] == "forged.der"][0]["problem"]' \
	"status: the rogue-signed staple is refused, and why"
t_json_expect "$T_OUT" '[f for f in d["tls"]["ocsp"]["files"] if f["file"] == "garbage.der"][0]["problem"] == "not a DER OCSP response"' \
	"status: garbage is not a response"
rctl stats -o json
stapled_before=$(t_json "$T_OUT" 'd["total"]["tls_ocsp_stapled"]')
s_client -servername "ocsp.$D" -status
t_expect_out 'OCSP Response Status: successful' "ocsp.$D: s_client -status gets a staple"
t_expect_out 'Cert Status: good' "ocsp.$D: the staple says good"
s_client -servername "revoked.$D" -status
t_expect_out 'Cert Status: revoked' "revoked.$D: the staple says revoked"
s_client -servername "forged.$D" -status
t_expect_out '^OCSP response: no response sent' "forged.$D: the rogue-signed response is not stapled"
s_client -servername "a.edge.$D" -status
t_expect_out '^OCSP response: no response sent' "a.edge.$D (no staple supplied): none"
s_client -servername "ocsp.$D" -status -tls1_2
t_expect_out 'Cert Status: good' "ocsp.$D over TLS 1.2: stapled too"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["tls_ocsp_stapled"] == '"$stapled_before"' + 3' \
	"three handshakes sent a staple (tls_ocsp_stapled)"
expect_https "ocsp.$D" / backend-a "a stapled host serves 200"
rm -f "$LAB_STATE_DIR/ocsp/ocsp.der"
ocsp_status '"ocsp.der" not in o' "routerctl status: ocsp.der is gone"
s_client -servername "ocsp.$D" -status
t_expect_out '^OCSP response: no response sent' "ocsp.der removed: new handshakes get no staple"
t_ok "OCSP stapling from <state_dir>/ocsp: good and revoked staples sent (TLS 1.3 and 1.2), a rogue signature and garbage refused with their reasons in status, a removed file unstapled"

# --- 15. renegotiation -------------------------------------------------------------------
# A TLS 1.2 client asks to renegotiate ("R" to s_client) on an open connection: refused
# (no_renegotiation), and routerd serves on.
t_run lab_client timeout 10 bash -c "(sleep 1; echo R; sleep 2) |
	openssl s_client -connect $R:443 -servername a.edge.$D -tls1_2 2>&1"
t_note "renegotiation: $(printf '%s\n' "$T_OUT" | sed -n '/RENEGOTIATING/,$p' | head -n 6 | tr '\n' ' ')"
t_expect_out 'RENEGOTIATING' "s_client asked to renegotiate"
grep -q 'no renegotiation' <<<"$(sed -n '/RENEGOTIATING/,$p' <<<"$T_OUT")" ||
	t_fail "the renegotiation is refused (s_client: no renegotiation)" "$(t_seen)"
sy_pid_alive "$ROUTERD_PID" || t_fail "routerd runs after a renegotiation attempt" "$(tail -n 30 "$LAB_ROUTERD_LOG")"
expect_https "a.edge.$D" / backend-a "after the renegotiation attempt: https://a.edge.$D/ answers 200"
t_ok "renegotiation attempt on TLS 1.2: refused (no_renegotiation alert); routerd serves on"

# --- 16. re-encrypt without destinationCACertificate -------------------------------------
# The backend's certificate is then checked against the system's trust store (here
# SSL_CERT_FILE: the test CA) and the name <service>.<namespace>.svc. Service sysca's
# server has a certificate for sysca.demo.svc: 200. Service sysca2 is the same server
# under another name: 502.
cat >"$LAB_DIR/tls_server.py" <<'EOF'
import http.server, ssl, sys
addr, port, crt, key, body = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        b = (body + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
srv = http.server.ThreadingHTTPServer((addr, port), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(crt, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
EOF
t_backend_service sysca 8443 python3 "$LAB_DIR/tls_server.py" "$LAB_BACKEND_A_IP" 8443 \
	"$C/sysca-backend.crt" "$C/sysca-backend.key" sysca-backend
t_backend_service sysca2 8444 python3 "$LAB_DIR/tls_server.py" "$LAB_BACKEND_A_IP" 8444 \
	"$C/sysca-backend.crt" "$C/sysca-backend.key" sysca-backend
# reenc_route NAME HOST SERVICE LEAF: re-encrypt, no destinationCACertificate.
reenc_route() {
	cat <<EOF
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: $1, namespace: demo}
spec:
  host: $2
  to: {kind: Service, name: $3}
  port: {targetPort: http}
  tls:
    termination: reencrypt
    certificate: |
$(ind 6 "$C/$4.crt")
    key: |
$(ind 6 "$C/$4.key")
EOF
}
apply_yaml "apply re-encrypt Routes sys (-> sysca) and sys2 (-> sysca2) without destinationCACertificate" \
	"$(reenc_route sys "sys.$D" sysca sys
	reenc_route sys2 "sys2.$D" sysca2 sys2)"
expect_https "sys.$D" / sysca-backend \
	"re-encrypt without destinationCACertificate: the backend's certificate for sysca.demo.svc verifies against the system store: 200"
https "sys2.$D" /
[ "$T_RC" -eq 0 ] && [ "$CODE" = 502 ] ||
	t_fail "re-encrypt to service sysca2 whose backend's certificate names sysca.demo.svc: 502" \
		"seen: code ${CODE:-none}; $(t_seen)"
t_ok "re-encrypt without destinationCACertificate: system trust store and <service>.<namespace>.svc (right name 200, another service's name 502)"

rctl stats -o json
t_expect_rc 0 "stats -o json"
t_note "drops: $(t_json "$T_OUT" '{k: v for k, v in d["total"]["drops"].items() if v}')"

# Handshakes refused, failed, stalled and cut short, records decrypted and sealed: every
# connection freed and every packet buffer back.
t_flows_zero 15 || t_fail "flows_active back to 0 within 15 s" "JSON: ${T_OUT:0:1500}"
t_mbufs_back "$MBUFS0" "after every TLS connection of this test"
t_finish
