#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# client_certs: tls.client_certificates (the OpenShift IngressController's clientTLS), seen by
# curl in the client namespace, with certificates the test makes at run time (a client CA,
# another CA, ECDSA P-256; nothing is checked in) and pool_server.py's /echo as the backend:
#   - policy Required, allowed_subject_patterns ["CN=alice$"], on an edge Route with its own
#     certificate (the ClientHello moves the connection to it) and on one served with the
#     default certificate:
#       - a certificate the client CA signed, subject /O=Switchyard test/CN=alice: 200, and the
#         backend sees X-SSL-Client-DN with that subject and X-SSL-Client-Verify: SUCCESS,
#         once each: the client's own headers of those names (forged) are removed;
#       - no certificate: the handshake fails (no HTTP status);
#       - a certificate from another CA (same subject): the handshake fails;
#       - a certificate of the client CA whose subject (CN=mallory) matches no pattern: 403,
#         counted as answers.client_cert_not_allowed;
#       - TLS 1.2 without a certificate: the handshake fails too;
#       - a TLS 1.3 session made with alice's certificate, resumed without it: the backend
#         still sees her subject;
#       - plain HTTP (insecureEdgeTerminationPolicy Allow) with forged headers: removed;
#   - routerd restarted with policy Optional: no certificate 200 with X-SSL-Client-Verify: NONE
#     and no X-SSL-Client-DN; alice's 200 with SUCCESS; the other CA's still fails.
T_NAME=client_certs
source "$(dirname "$0")/testlib.sh"

for c in openssl curl python3; do
	command -v "$c" >/dev/null || t_skip_all "$c is not installed"
done

t_setup mtl 1
D=$LAB_DOMAIN
R=$LAB_ROUTER_IP
C=$LAB_DIR/certs
mkdir -p "$C" || t_fail "certificates" "could not make $C"

# --- certificates ------------------------------------------------------------------------
# ca NAME CN: a self-signed CA, $C/NAME.pem and $C/NAME.key.
ca() {
	t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
		-subj "/CN=$2" -addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" -keyout "$C/$1.key" -out "$C/$1.pem"
	t_expect_rc 0 "make CA $1 ($2)"
}
# leaf FILE CA SUBJECT USAGE [SAN]: $C/FILE.crt and .key, signed by CA, extendedKeyUsage USAGE.
leaf() {
	printf '%s\n' "basicConstraints = critical, CA:FALSE" "keyUsage = critical, digitalSignature" \
		"extendedKeyUsage = $4" ${5:+"subjectAltName = DNS:$5"} >"$C/$1.ext"
	t_run openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "$3" \
		-keyout "$C/$1.key" -out "$C/$1.csr"
	t_expect_rc 0 "certificate request $1 ($3)"
	t_run openssl x509 -req -in "$C/$1.csr" -CA "$C/$2.pem" -CAkey "$C/$2.key" -CAcreateserial \
		-days 30 -sha256 -extfile "$C/$1.ext" -out "$C/$1.crt"
	t_expect_rc 0 "$2 signs $1 ($3)"
}
ca client-ca "Switchyard client_certs client CA"
ca other-ca "Switchyard client_certs other CA"
ca server-ca "Switchyard client_certs server CA"
leaf server server-ca "/CN=mtls.$D" serverAuth "mtls.$D"
leaf alice client-ca "/O=Switchyard test/CN=alice" clientAuth
leaf mallory client-ca "/O=Switchyard test/CN=mallory" clientAuth
leaf alice-other other-ca "/O=Switchyard test/CN=alice" clientAuth
t_run openssl verify -CAfile "$C/client-ca.pem" "$C/alice.crt" "$C/mallory.crt"
t_expect_rc 0 "the client leaves verify against the client CA"
t_ok "certificates made: client CA, another CA, a server certificate, alice, mallory, alice by the other CA"

# with_client_certs JSON OUT: the lab config with tls.client_certificates set to JSON, into
# the file OUT.
with_client_certs() {
	python3 - "$LAB_ROUTERD_CONFIG" "$2" "$1" <<'PY' || t_fail "set tls.client_certificates" "$1"
import json, sys
c = json.load(open(sys.argv[1]))
c.setdefault("tls", {})["client_certificates"] = json.loads(sys.argv[3])
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
}
# client_certs POLICY: the lab config's tls.client_certificates (before routerd starts).
client_certs() {
	with_client_certs '{"policy": "'"$1"'", "ca_file": "'"$C/client-ca.pem"'",
		"allowed_subject_patterns": ["CN=alice$"]}' "$LAB_ROUTERD_CONFIG"
}
# refused JSON WANT: routerd with the lab config's tls.client_certificates set to JSON does
# not start, and says WANT (the key and the value).
refused() {
	with_client_certs "$1" "$LAB_DIR/bad.json"
	t_run timeout 20 "$ROUTERD" -c "$LAB_DIR/bad.json"
	[ "$T_RC" -ne 0 ] && [ "$T_RC" -ne 124 ] && grep -qF -- "$2" <<<"$T_OUT$T_ERR" ||
		t_fail "routerd refuses tls.client_certificates $1, saying: $2" "$(t_seen)"
	t_ok "routerd does not start with $1: \"${2}\""
}
refused '{"policy": "Sometimes", "ca_file": "'"$C/client-ca.pem"'"}' \
	'tls.client_certificates.policy: "Sometimes" is not "Required" or "Optional"'
refused '{"policy": "Required", "ca_file": "'"$C/missing.pem"'"}' \
	"tls.client_certificates.ca_file: \"$C/missing.pem\": cannot read it"
refused '{"policy": "Required", "ca_file": "'"$C/alice.csr"'"}' \
	"tls.client_certificates.ca_file: \"$C/alice.csr\": it holds no PEM certificate"
refused '{"policy": "Required", "ca_file": "'"$C/client-ca.pem"'", "allowed_subject_patterns": ["CN=(alice"]}' \
	'tls.client_certificates.allowed_subject_patterns[0]: "CN=(alice" is not a regular expression'

client_certs Required
t_start_routerd "routerd started with tls.client_certificates policy Required"
t_backend_service c 8082 python3 "$SY_SRC/tests/integration/pool_server.py" "$LAB_BACKEND_A_IP" 8082

ind() { sed "s/^/$(printf '%*s' "$1" '')/" "$2"; }
rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: mtls, namespace: demo}
spec:
  host: mtls.$D
  to: {kind: Service, name: c}
  port: {targetPort: http}
  tls:
    termination: edge
    insecureEdgeTerminationPolicy: Allow
    certificate: |
$(ind 6 "$C/server.crt")
    key: |
$(ind 6 "$C/server.key")
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: mtls-default, namespace: demo}
spec:
  host: dflt.$D
  to: {kind: Service, name: c}
  port: {targetPort: http}
  tls: {termination: edge}
EOF
t_expect_rc 0 "apply edge Routes mtls (its own certificate, Allow) and dflt (the default certificate)"

# get HOST [curl args]: https://HOST/echo; T_CODE the status (000: no response), T_BODY
# what the backend saw; T_RC curl's exit status.
get() {
	local host=$1 tls=(--cacert "$C/server-ca.pem")
	shift
	[ "$host" = "dflt.$D" ] && tls=(-k)
	t_run lab_client curl -sS -m 10 "${tls[@]}" --resolve "$host:443:$R" --resolve "$host:80:$R" \
		-o "$LAB_DIR/body" -w '%{http_code}' "$@"
	T_CODE=$T_OUT
	T_BODY=$(cat "$LAB_DIR/body" 2>/dev/null)
	rm -f "$LAB_DIR/body"
}
forged=(-H "X-SSL-Client-DN: /CN=forged" -H "x-ssl-client-verify: SUCCESS-forged")
alice=(--cert "$C/alice.crt" --key "$C/alice.key")
# count NAME: how many header lines named NAME the backend saw (case-insensitive).
count() { grep -ci "^$1:" <<<"$T_BODY"; }

# alice_served WHAT HOST: alice's certificate gets 200, and the backend sees her subject and
# SUCCESS once each, not the forged headers sent with them.
alice_served() {
	get "$2" "${alice[@]}" "${forged[@]}" "https://$2/echo"
	[ "$T_CODE" = 200 ] || t_fail "$1: alice's certificate served" "status $T_CODE; $(t_seen)"
	grep -qx 'X-SSL-Client-DN: /O=Switchyard test/CN=alice' <<<"$T_BODY" &&
		grep -qx 'X-SSL-Client-Verify: SUCCESS' <<<"$T_BODY" ||
		t_fail "$1: the backend sees alice's verified subject" "backend saw: $T_BODY"
	[ "$(count X-SSL-Client-DN)" = 1 ] && [ "$(count X-SSL-Client-Verify)" = 1 ] &&
		! grep -qi forged <<<"$T_BODY" ||
		t_fail "$1: the client's own X-SSL-Client-* headers are removed" "backend saw: $T_BODY"
	t_ok "$1, alice: 200, X-SSL-Client-DN /O=Switchyard test/CN=alice, SUCCESS; forged headers removed"
}
# no_handshake WHAT HOST [CURL ARGS]: the TLS handshake fails (no HTTP status at all).
no_handshake() {
	local what=$1 host=$2
	shift 2
	get "$host" "$@" "https://$host/echo"
	[ "$T_RC" -ne 0 ] && [ "$T_CODE" = 000 ] ||
		t_fail "$what: no handshake" "status $T_CODE; $(t_seen)"
	t_ok "$what: the handshake fails (curl exit $T_RC: ${T_ERR:0:100})"
}
other_ca=(--cert "$C/alice-other.crt" --key "$C/alice-other.key")

for h in "mtls.$D" "dflt.$D"; do
	alice_served "$h, Required" "$h"
	no_handshake "$h, Required, no certificate" "$h"
	no_handshake "$h, Required, another CA's certificate" "$h" "${other_ca[@]}"
done

no_handshake "mtls.$D, Required, TLS 1.2, no certificate" "mtls.$D" --tls-max 1.2

# Resumption: a TLS 1.3 session made with alice's certificate resumes without her presenting
# it again (the ticket carries it), and the backend still sees her subject.
# s_client reads to the end (-ign_eof) so that it has the ticket before it writes -sess_out.
resume() { # ARGS...: s_client to mtls with a GET /echo, into T_OUT
	t_run lab_client timeout 10 sh -c "printf 'GET /echo HTTP/1.1\r\nHost: mtls.$D\r\nConnection: close\r\n\r\n' |
		openssl s_client -connect $R:443 -servername mtls.$D -tls1_3 -CAfile $C/server-ca.pem -ign_eof $*"
}
resume -cert "$C/alice.crt" -key "$C/alice.key" -sess_out "$C/alice.sess"
[ -s "$C/alice.sess" ] || t_fail "TLS 1.3: s_client -sess_out keeps alice's session" "$(t_seen)"
resume -sess_in "$C/alice.sess"
grep -q '^Reused, TLSv1\.3' <<<"$T_OUT" && grep -Eq '^X-SSL-Client-DN: /O=Switchyard test/CN=alice'$'\r''?$' <<<"$T_OUT" ||
	t_fail "a resumed session keeps alice's subject for the backend" "$(t_seen)"
t_ok "TLS 1.3 resumption without the certificate: Reused, the backend still sees X-SSL-Client-DN of alice"

rctl stats -o json
before=$(t_json "$T_OUT" 'd["total"]["answers"].get("client_cert_not_allowed", 0)')
# Two requests on one connection (num_connects: 1, then 0).
t_run lab_client curl -sS -m 10 --cacert "$C/server-ca.pem" --resolve "mtls.$D:443:$R" \
	--cert "$C/mallory.crt" --key "$C/mallory.key" -o /dev/null -o /dev/null \
	-w '%{http_code}/%{num_connects} ' "https://mtls.$D/echo" "https://mtls.$D/echo"
[ "$T_OUT" = "403/1 403/0 " ] ||
	t_fail "Required: a subject no pattern allows gets 403 (each request of the connection)" \
		"$(t_seen)"
rctl stats -o json
after=$(t_json "$T_OUT" 'd["total"]["answers"].get("client_cert_not_allowed", 0)')
[ "$after" -ge $((before + 2)) ] ||
	t_fail "answers.client_cert_not_allowed counts the refusals" "before $before, after $after"
t_ok "Required, mallory (matches no allowed_subject_patterns): 403 twice on one connection, answers.client_cert_not_allowed $before -> $after"

get "mtls.$D" "${forged[@]}" "http://mtls.$D/echo"
[ "$T_CODE" = 200 ] && [ "$(count X-SSL-Client-DN)" = 0 ] && [ "$(count X-SSL-Client-Verify)" = 0 ] ||
	t_fail "plain HTTP: the client's X-SSL-Client-* headers are removed" "status $T_CODE; backend saw: $T_BODY"
t_ok "plain HTTP with forged X-SSL-Client-* headers: 200, removed"

# --- Optional ------------------------------------------------------------------------------
lab_routerd_stop 15 || t_note "routerd exit status on SIGTERM: $ROUTERD_STATUS"
client_certs Optional
t_start_routerd "routerd restarted with policy Optional"
for _ in $(seq 50); do
	get "mtls.$D" "https://mtls.$D/echo"
	[ "$T_CODE" = 200 ] && break
	sleep 0.2
done
[ "$T_CODE" = 200 ] && grep -qx 'X-SSL-Client-Verify: NONE' <<<"$T_BODY" &&
	[ "$(count X-SSL-Client-DN)" = 0 ] ||
	t_fail "Optional, no certificate: 200, X-SSL-Client-Verify NONE, no DN" "status $T_CODE; backend saw: $T_BODY; $(t_seen)"
t_ok "Optional, no certificate: 200, X-SSL-Client-Verify: NONE, no X-SSL-Client-DN"
alice_served "Optional" "mtls.$D"
no_handshake "Optional, another CA's certificate" "mtls.$D" "${other_ca[@]}"

t_finish
