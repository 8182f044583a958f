#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# splice_tls: TLS passthrough routed by SNI through routerd's splice path. The router never
# terminates TLS: each client sees the backend's own certificate and verifies it.
#   - openssl s_client with SNI a/b.passthrough gets backend a's / b's own certificate;
#   - curl --cacert <backend's cert> gets backend-a / backend-b over verified TLS;
#   - an unknown SNI, and a ClientHello without SNI, are terminated with the router's default
#     certificate (the one `routerctl status` names, as the OpenShift router's fe_no_sni does)
#     and a request on them gets the router's 503: nothing is passed through blind;
#   - plain HTTP bytes sent to :443 get the connection reset;
#   - a ~2 KB TLS 1.2 ClientHello sent in 3 TCP segments (TCP_NODELAY, 3 send() calls, SNI in
#     the last one) is reassembled by the router and spliced: backend a's ServerHello and
#     certificate come back.
T_NAME=splice_tls
source "$(dirname "$0")/testlib.sh"

for c in openssl curl python3; do
	command -v "$c" >/dev/null || t_skip_all "$c is not installed"
done
t_setup spt 1
t_start_routerd
MBUFS0=$(t_mbufs_in_use)
rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_ok "routes applied"

R=$LAB_ROUTER_IP
P=passthrough.$LAB_DOMAIN
stats_drops() {
	rctl stats -o json
	t_json "$T_OUT" '{k: v for k, v in d["total"]["drops"].items() if v}'
}
fp() { openssl x509 -noout -fingerprint -sha256 "$@" 2>/dev/null | cut -d= -f2; }

# s_client [ARGS...]: openssl s_client to R:443 from the client namespace (10 s at most).
s_client() {
	t_run lab_client timeout 10 openssl s_client -connect "$R:443" "$@" </dev/null
}

# --- 1. each backend's own certificate, chosen by SNI ------------------------------------
for x in a b; do
	s_client -servername "$x.$P"
	t_expect_out "subject=.*CN ?= ?$x\\.passthrough\\.lab\\.switchyard\\.test" \
		"s_client -servername $x.$P: the certificate's subject is CN=$x.$P"
	seen_fp=$(printf '%s\n' "$T_OUT" | fp)
	want_fp=$(fp -in "$LAB_DIR/nginx-$x/tls.crt")
	[ -n "$want_fp" ] && [ "$seen_fp" = "$want_fp" ] ||
		t_fail "s_client -servername $x.$P: the certificate is backend $x's own" \
			"want sha256 fingerprint $want_fp, seen '$seen_fp'" "$(t_seen)"
done
t_ok "SNI a/b.passthrough: s_client sees each backend's own certificate (subject and fingerprint)"

for x in a b; do
	t_run lab_client curl -sS -m 10 --cacert "$LAB_DIR/nginx-$x/tls.crt" --resolve "$x.$P:443:$R" "https://$x.$P/"
	[ "$T_RC" -eq 0 ] && [ "$T_OUT" = "backend-$x" ] ||
		t_fail "https://$x.$P/ with --cacert backend $x's certificate answers backend-$x" "$(t_seen)"
done
t_ok "curl over verified TLS: https://a.$P/ -> backend-a, https://b.$P/ -> backend-b"

# --- 2. unknown SNI, no SNI: the default certificate, then the router's 503 ---------------
rctl status -o json
default_fp=$(t_json "$T_OUT" 'd["tls"]["default_certificate"]["sha256"]')
[ ${#default_fp} -eq 64 ] || t_fail "routerctl status names the default certificate's sha256" "$(t_seen)"
for how in "-servername nobody.$P" -noservername; do
	# shellcheck disable=SC2086
	s_client $how
	seen_fp=$(printf '%s\n' "$T_OUT" | fp | tr -d : | tr 'A-F' 'a-f')
	[ "$seen_fp" = "$default_fp" ] ||
		t_fail "s_client $how: the router's default certificate" \
			"want sha256 $default_fp, seen '$seen_fp'" "$(t_seen)"
done
t_run lab_client curl -sk -m 10 -o /dev/null -w '%{http_code}' --resolve "nobody.$P:443:$R" "https://nobody.$P/"
[ "$T_OUT" = 503 ] || t_fail "https://nobody.$P/ (terminated with the default certificate): 503" "$(t_seen)"
t_ok "unknown SNI and no SNI: the default certificate ($default_fp), and 503 for a request"

# --- 3. plain HTTP on :443 ------------------------------------------------------------------
cat >"$LAB_DIR/plain443.py" <<'EOF'
import socket, sys, time
s = socket.create_connection((sys.argv[1], 443), timeout=5)
s.sendall(b"GET / HTTP/1.1\r\nHost: a.passthrough.lab.switchyard.test\r\n\r\n")
try:
    data = s.recv(4096)
except ConnectionResetError:
    print("RST")
    sys.exit(0)
except socket.timeout:
    print("TIMEOUT (nothing within 5 s)")
    sys.exit(0)
if data:
    print("DATA " + data[:64].hex())
    sys.exit(0)
# An orderly close: does the router then reset what follows?
try:
    for _ in range(3):
        s.send(b"x")
        time.sleep(0.2)
    print("FIN (no RST after)")
except (ConnectionResetError, BrokenPipeError):
    print("FIN+RST")
EOF
t_run lab_client python3 "$LAB_DIR/plain443.py" "$R"
[ "$T_RC" -eq 0 ] && [[ $T_OUT == RST || $T_OUT == FIN+RST ]] ||
	t_fail "plain HTTP bytes to $R:443: the connection is reset" "seen: $(t_seen)" "routerd drops: $(stats_drops)"
t_ok "plain HTTP to :443: connection reset ($T_OUT)"

# --- 4. a large ClientHello in 3 segments ---------------------------------------------------
cat >"$LAB_DIR/bighello.py" <<'EOF'
# bighello.py ADDR SNI CERT.der [CUT1 CUT2]: a TLS 1.2 ClientHello of ~2 KB (a padding
# extension before server_name, so the SNI is in the last segment), sent in 3 send() calls
# (split at CUT1 and CUT2, default 200 and 1100) with TCP_NODELAY and pauses; prints what came
# back as JSON.
import json, os, socket, struct, sys, time
addr, sni, der = sys.argv[1], sys.argv[2].encode(), open(sys.argv[3], "rb").read()
def ext(t, body): return struct.pack("!HH", t, len(body)) + body
suites = [0xC02B, 0xC02C, 0xCCA9, 0xC02F, 0xC030, 0xCCA8, 0x009C]
exts = b"".join([
    ext(21, b"\0" * 1800),                                                     # padding
    ext(0x000A, struct.pack("!H", 4) + struct.pack("!HH", 0x0017, 0x001D)),     # groups
    ext(0x000B, b"\x01\x00"),                                                   # point formats
    ext(0x000D, struct.pack("!H", 8) + struct.pack("!HHHH", 0x0403, 0x0804, 0x0401, 0x0503)),
    ext(0xFF01, b"\x00"),                                                       # renegotiation_info
    ext(0x0000, struct.pack("!HBH", len(sni) + 3, 0, len(sni)) + sni),          # server_name
])
body = (b"\x03\x03" + os.urandom(32) + b"\x00"
        + struct.pack("!H", 2 * len(suites)) + b"".join(struct.pack("!H", c) for c in suites)
        + b"\x01\x00" + struct.pack("!H", len(exts)) + exts)
hs = b"\x01" + struct.pack("!I", len(body))[1:] + body
rec = b"\x16\x03\x01" + struct.pack("!H", len(hs)) + hs
cuts = [0] + [int(a) for a in (sys.argv[4:6] or (200, 1100))] + [len(rec)]
s = socket.create_connection((addr, 443), timeout=5)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
for i in range(3):
    s.send(rec[cuts[i]:cuts[i + 1]])
    time.sleep(0.1)
got, err = b"", None
s.settimeout(3)
try:
    while len(got) < 65536 and der not in got:
        c = s.recv(65536)
        if not c:
            break
        got += c
except Exception as e:  # noqa: BLE001 - reported
    err = repr(e)
print(json.dumps({"hello_len": len(rec), "sni_at": rec.find(sni), "segments": [cuts[i + 1] - cuts[i] for i in range(3)],
                  "got_len": len(got), "first": got[:6].hex(), "cert_of_backend": der in got, "error": err}))
EOF
openssl x509 -in "$LAB_DIR/nginx-a/tls.crt" -outform DER -out "$LAB_DIR/a.der" || t_fail "setup" "DER of a's cert"
t_run lab_client python3 "$LAB_DIR/bighello.py" "$R" "a.$P" "$LAB_DIR/a.der"
t_expect_rc 0 "the large-ClientHello client runs"
hello=$T_OUT
t_note "large ClientHello: $hello"
t_json_expect "$hello" 'd["hello_len"] > 1800 and d["sni_at"] > 1100' "the ClientHello is ~2 KB with the SNI in the third segment"
t_json_expect "$hello" 'd["first"][:4] == "1603" and d["first"][10:12] == "02"' \
	"a ClientHello in 3 segments: a ServerHello comes back (16 03 .. .. 02) (drops: $(stats_drops))"
t_json_expect "$hello" 'd["cert_of_backend"]' "...followed by backend a's certificate (the hello was spliced to a)"
t_ok "a $(t_json "$hello" 'd["hello_len"]')-byte ClientHello in 3 segments (SNI in the last) was reassembled and spliced: backend a's ServerHello and certificate came back"

# The same with a first segment of 3 bytes: not even the record header is whole.
t_run lab_client python3 "$LAB_DIR/bighello.py" "$R" "a.$P" "$LAB_DIR/a.der" 3 1100
t_expect_rc 0 "the large-ClientHello client runs (cuts 3, 1100)"
hello=$T_OUT
t_note "large ClientHello, 3-byte first segment: $hello"
t_json_expect "$hello" 'd["first"][:4] == "1603" and d["first"][10:12] == "02" and d["cert_of_backend"]' \
	"a ClientHello whose first segment is 3 bytes: backend a's ServerHello and certificate come back (drops: $(stats_drops))"
t_ok "the same ClientHello split 3 / 1097 / rest (a partial record header first): reassembled and spliced"

rctl stats -o json
t_note "routerd: $(t_json "$T_OUT" '{k: d["total"][k] for k in ("conns_opened", "conns_spliced", "conns_answered", "conns_closed", "flows_active")}'); drops $(t_json "$T_OUT" '{k: v for k, v in d["total"]["drops"].items() if v}')"
t_flows_zero 10 || t_fail "flows_active back to 0 after the run" "JSON: ${T_OUT:0:1500}"
t_mbufs_back "$MBUFS0" "after every passthrough connection and answer of this test"
t_finish
