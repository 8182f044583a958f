#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# h2_conformance: the h2spec-style HTTP/2 suite (tests/h2spec/run.py: RFC 9113 sections 3 to
# 8, RFC 7541, valid requests, the attacks) run from the client namespace against routerd,
# once over h2c with prior knowledge (the VIP's port 80) and once over TLS (an edge Route,
# ALPN h2, port 443). The host h2.<lab domain>: / to nginx backend-a (its body
# "backend-a" checked), /up to an upload sink (tests/integration/upload_sink.py, the
# sha256 of a 100 KB POST checked). Every case must pass. After the attacks routerd's
# counters (routerctl stats -o json) h2_goaway_rapid_reset, h2_goaway_flood and
# h2_header_list_too_large have risen, and routerd still serves: curl over h2c and over TLS
# with ALPN h2, HTTP/2 both, 200 from backend-a. Under the sanitizer build, no report in
# routerd's log after the suites.
T_NAME=h2_conformance
source "$(dirname "$0")/testlib.sh"

for c in openssl curl /usr/bin/python3; do
	command -v "$c" >/dev/null || t_skip_all "$c is not installed"
done
/usr/bin/python3 -c 'import hyperframe, hpack' 2>/dev/null || t_skip_all "python3-h2 (hyperframe, hpack) is not installed"

t_setup h2c 1
D=$LAB_DOMAIN
H=h2.$D
R=$LAB_ROUTER_IP
C=$LAB_DIR/tls
SUITE="/usr/bin/python3 $SY_SRC/tests/h2spec/run.py"
t_start_routerd
MBUFS0=$(t_mbufs_in_use)

# A self-signed certificate for the host, made now (nothing is checked in).
mkdir -p "$C" || t_fail "setup" "mkdir $C"
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
	-subj "/CN=$H" -addext "subjectAltName=DNS:$H" -keyout "$C/h2.key" -out "$C/h2.crt"
t_expect_rc 0 "make a certificate for $H"
# h2_route NAME PATH SERVICE: an edge Route on $H (plain HTTP allowed too), the certificate
# inline.
h2_route() { t_edge_route "$1" "$H" "$2" "$3" Allow "$C/h2.crt" "$C/h2.key"; }
lab_spawn backend sink python3 "$SY_SRC/tests/integration/upload_sink.py" "$LAB_BACKEND_A_IP" 8080
{
	lab_service_a_yaml
	cat <<EOF
apiVersion: v1
kind: Service
metadata: {name: sink, namespace: demo}
spec: {ports: [{name: http, port: 8080, targetPort: 8080}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: sink, namespace: demo}
subsets: [{addresses: [{ip: $LAB_BACKEND_A_IP}], ports: [{name: http, port: 8080}]}]
EOF
	h2_route h2-root / a
	h2_route h2-up /up sink
} >"$LAB_DIR/h2.yaml"
rctl apply -f "$LAB_DIR/h2.yaml"
t_expect_rc 0 "apply $H: / -> a, /up -> the upload sink; edge TLS, plain HTTP allowed"
for _ in $(seq 50); do
	lab_backend python3 -c "import socket; socket.create_connection(('$LAB_BACKEND_A_IP', 8080), 1)" \
		2>/dev/null && break
	sleep 0.1
done

# HTTP/1.1 first: the routes work before HTTP/2 is asked of them.
t_run lab_client curl -s -m 5 -H "Host: $H" "http://$R/"
[ "$T_OUT" = backend-a ] || t_fail "HTTP/1.1 http://$H/ answers backend-a" "$(t_seen)"
t_run lab_client curl -sk -m 5 --http1.1 --resolve "$H:443:$R" "https://$H/up" -d x
[[ "$T_OUT" == "$(printf x | sha256sum | cut -d' ' -f1) 1" ]] ||
	t_fail "HTTP/1.1 https://$H/up answers the sha256 of the body" "$(t_seen)"
t_ok "HTTP/1.1: http://$H/ backend-a, https://$H/up the upload sink"

# h2_counters: the counters this test watches, from routerctl stats -o json (the workers'
# counters, summed in "total"), as a JSON list.
H2_KEYS='["h2_conns", "h2_streams", "h2_streams_refused", "h2_goaway_rapid_reset", "h2_goaway_flood", "h2_header_list_too_large", "h2_protocol_errors"]'
h2_counters() {
	rctl stats -o json
	[ "$T_RC" -eq 0 ] || t_fail "routerctl stats -o json" "$(t_seen)"
	t_json "$T_OUT" "{k: d['total'].get(k) for k in $H2_KEYS}"
}
C0=$(h2_counters)
t_note "h2 counters before: $C0"

# run_suite WHAT ARGS...: the suite from the client namespace, its lines in the log; every
# case must pass (checked after both runs and the counters, so that a failure shows all).
SUITE_FAILED=
run_suite() {
	local what=$1 t0 t1
	shift
	t0=$SECONDS
	t_run lab_client $SUITE --host "$R" --authority "$H" --body backend-a --post-path /up \
		--post-sha256 "$@"
	t1=$SECONDS
	printf '%s\n' "$T_OUT" | sed 's/^/#   /'
	[ -n "$T_ERR" ] && printf '%s\n' "$T_ERR" | sed 's/^/#   stderr: /'
	[ $((t1 - t0)) -lt 40 ] || t_fail "$what: the suite in under 40 s" "took $((t1 - t0)) s"
	if grep -Eq '^[0-9]+ passed, 0 failed' <<<"$T_OUT" && [ "$T_RC" -eq 0 ]; then
		t_ok "$what: $(grep -E '^[0-9]+ passed' <<<"$T_OUT")"
	else
		t_note "$what: $(grep -E '^[0-9]+ passed' <<<"$T_OUT" || echo "exit $T_RC")"
		SUITE_FAILED+="$what:"$'\n'"$(grep -E '^FAIL|passed' <<<"$T_OUT" | head -n 40)"$'\n'
	fi
}
run_suite "h2c with prior knowledge on port 80" --port 80
run_suite "TLS on port 443, ALPN h2 (edge route)" --port 443 --tls
# hostile frames: a sanitizer's report in routerd's log (the build-asan run) fails first
t_check_sanitizers

C1=$(h2_counters)
t_note "h2 counters after: $C1"
t_json_expect "[$C0, $C1]" \
	'all(isinstance(d[1][k], int) for k in d[1]) and d[1]["h2_conns"] > d[0]["h2_conns"] and d[1]["h2_streams"] > d[0]["h2_streams"]' \
	"h2 connections and streams counted (before, after: [$C0, $C1])"
t_json_expect "[$C0, $C1]" \
	'd[1]["h2_goaway_rapid_reset"] >= d[0]["h2_goaway_rapid_reset"] + 2 and d[1]["h2_goaway_flood"] >= d[0]["h2_goaway_flood"] + 2 and d[1]["h2_header_list_too_large"] >= d[0]["h2_header_list_too_large"] + 2' \
	"the attacks counted, each run: h2_goaway_rapid_reset, h2_goaway_flood, h2_header_list_too_large (before, after: [$C0, $C1])"
t_ok "attacks counted: $(t_json "[$C0, $C1]" '", ".join("%s +%d" % (k, d[1][k] - d[0][k]) for k in d[1])')"

# Still serving, to real clients: curl over h2c and over TLS with ALPN h2.
t_run lab_client curl -s -m 5 --http2-prior-knowledge -w ' %{http_version} %{http_code}' \
	-H "Host: $H" "http://$R/"
[ "$T_OUT" = "backend-a
 2 200" ] || t_fail "after the suite: curl --http2-prior-knowledge http://$H/ gets HTTP/2 200 backend-a" "$(t_seen)"
t_run lab_client curl -sk -m 5 --http2 --resolve "$H:443:$R" -w ' %{http_version} %{http_code}' "https://$H/"
[ "$T_OUT" = "backend-a
 2 200" ] || t_fail "after the suite: curl --http2 https://$H/ (ALPN h2) gets HTTP/2 200 backend-a" "$(t_seen)"
t_ok "after the suite routerd serves: curl h2c and TLS/ALPN h2, HTTP/2 200 backend-a"

[ -z "$SUITE_FAILED" ] || {
	mapfile -t lines <<<"$SUITE_FAILED"
	t_fail "the h2spec suite: every case passes, h2c and TLS" "${lines[@]}"
}

# Every connection the suite closed is freed (TLS ones too: a client's FIN without a
# close_notify, as Python's ssl sends, ends them as it ends HTTP/1.1 ones).
if ! t_flows_zero 10; then
	n=$(t_json "$T_OUT" 'd["total"]["flows_active"]')
	rctl conns
	t_fail "every connection freed within 10 s of the suite" "$n flows active; routerctl conns:" \
		"$(head -n 12 <<<"$T_OUT")"
fi
t_mbufs_back "$MBUFS0" "after the suite"
t_check_sanitizers
t_finish
