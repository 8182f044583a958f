#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# relay_loss: a connection carried by routerd under packet loss, duplication and reordering.
# The lab's lossy relay (tools/lib/lab.sh, LAB_RELAY=1) sits between the client namespace and
# routerd's client port and impairs TCP both ways with fixed seeds. Two tests run this script:
#   splice_loss (LOSS_MODE=splice): hosts with one rule for "/", carried by the splice path,
#     20 MB each way;
#   proxy_loss (LOSS_MODE=proxy): hosts with path rules, carried by the proxy mode's own TCP
#     on both legs (dataplane/tcp/tcb_*.c), 100 MB each way;
#   tls_loss (LOSS_MODE=tls): edge routes, TLS terminated by the workers (dataplane/tls/)
#     over the proxy mode's TCP, 100 MB each way over https (the default certificate).
# In each:
#   - at 1% and at 5% drop (+1% dup, +1% reorder): a download from nginx and an upload to a
#     sink arrive with identical sha256 within a bounded time (curl -m);
#   - at 3% drop (+1% dup, +1% reorder): a burst of 200 short connections (SYN, cookie ACK,
#     held request segments, FINs all get lost now and then) is answered 200 every time;
#   - the relay's own counters prove it dropped, duplicated and reordered frames in both
#     directions in each phase, and routerd's flow table is empty again within ~10 s of each
#     phase (LINGER is 2 s; the rest is for the peers' retransmissions through the relay).
# meson passes LOSSY_RELAY (the relay's executable) besides ROUTERD, ROUTERCTL and SY_SRC.
LOSS_MODE=${LOSS_MODE:-splice}
T_NAME=${LOSS_MODE}_loss
source "$(dirname "$0")/testlib.sh"

[ -x "${LOSSY_RELAY:-}" ] || t_fail "setup" "LOSSY_RELAY is not an executable: '${LOSSY_RELAY:-}'"
HTTPC="python3 $SY_SRC/tests/integration/httpc.py"
D=lab.switchyard.test
IMPAIR=(--dup 1 --reorder 1 --only-tcp)

LAB_RELAY=1
LAB_RELAY_ARGS="--seed 1" # a clean bridge while the lab comes up; each phase restarts it
t_setup spl 1
t_start_routerd
MBUFS0=$(t_mbufs_in_use)

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml"
t_plain_route
# An upload sink on backend a, behind upload.$D.
t_upload_sink "upload.$D"
case $LOSS_MODE in
splice)
	HOST=plain.$D SIZE_MB=20 MAX_S=120 ;;
proxy)
	# web.$D has path rules (config/routes.yaml); a second rule makes upload.$D proxied too.
	HOST=web.$D SIZE_MB=${LOSS_SIZE_MB:-100} MAX_S=240
	t_sink_proxied "upload.$D"
	for h in "$HOST" "upload.$D"; do
		t_expect_mode "http://$h/" proxy
	done ;;
tls)
	HOST=tls.$D SIZE_MB=${LOSS_SIZE_MB:-100} MAX_S=300
	rctl apply -f - <<EOF
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: tls-down, namespace: demo}
spec:
  host: $HOST
  to: {kind: Service, name: a}
  port: {targetPort: http}
  tls: {termination: edge}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: tls-up, namespace: demo}
spec:
  host: uploadtls.$D
  to: {kind: Service, name: sink}
  tls: {termination: edge}
EOF
	t_expect_rc 0 "apply edge routes $HOST and uploadtls.$D"
	for h in "$HOST" "uploadtls.$D"; do
		rctl resolve "https://$h/"
		t_expect_out '^vhost: .*\(proxy,' "$h is carried in proxy mode (TLS terminated)"
	done ;;
*) t_fail "setup" "LOSS_MODE is splice, proxy or tls, not '$LOSS_MODE'" ;;
esac
# How curl reaches HOST (and the upload host): plain HTTP with a Host header, or https to
# the router's address with the name resolved to it (-k: the router's default certificate).
if [ "$LOSS_MODE" = tls ]; then
	UP_HOST=uploadtls.$D
	down_url=https://$HOST/big.bin up_url=https://$UP_HOST/up
	CURL_TO=(-k --resolve "$HOST:443:$LAB_ROUTER_IP" --resolve "$UP_HOST:443:$LAB_ROUTER_IP")
else
	UP_HOST=upload.$D
	down_url=http://$LAB_ROUTER_IP/big.bin up_url=http://$LAB_ROUTER_IP/up
	CURL_TO=()
fi
SIZE=$((SIZE_MB * 1048576))
sy_poll 10 lab_backend curl -s -m 1 -o /dev/null "http://$LAB_BACKEND_A_IP:8080/" ||
	t_fail "upload sink answers on $LAB_BACKEND_A_IP:8080" "$(cat "$LAB_DIR/sink.log")"
t_run lab_client curl -s -m 10 "${CURL_TO[@]}" -H "Host: $HOST" "${down_url%big.bin}"
[ "$T_OUT" = backend-a ] || t_fail "$HOST through the clean relay answers backend-a" "seen: $(t_seen)"
t_ok "routes applied; $HOST answers through the relay (clean)"

# SIZE_MB of random bytes as nginx a's /big.bin.
big=$LAB_DIR/nginx-a/www/big.bin
head -c "${SIZE_MB}M" /dev/urandom >"$big" || t_fail "setup" "$SIZE_MB MB random file"
want=$(sha256sum <"$big" | cut -d' ' -f1)

stats_json() { rctl stats -o json; [ "$T_RC" -eq 0 ] || t_fail "routerctl stats -o json" "$(t_seen)"; }
nonzero_drops() { t_json "$1" '{k: v for k, v in d["total"]["drops"].items() if v}'; }

# relay_phase NAME SEED DROP: restart the relay with DROP% + IMPAIR and the seed.
relay_phase() {
	if [ -n "$LAB_RELAY_PID" ]; then
		lab_relay_stop || t_fail "relay stops on SIGTERM (exit 0)" "status $LAB_RELAY_STATUS; $(tail -n 5 "$LAB_RELAY_LOG")"
	fi
	lab_relay_start "relay-$1" --seed "$2" --drop "$3" "${IMPAIR[@]}" ||
		t_fail "start the relay ($1: --seed $2 --drop $3 ${IMPAIR[*]})"
	t_note "phase $1: relay --seed $2 --drop $3 ${IMPAIR[*]} (pid $LAB_RELAY_PID, log $LAB_RELAY_LOG)"
}

# flows_drain WHAT: flows_active must be 0 within 10 s (relay still running, so the peers'
# retransmissions of FINs and last ACKs still get through).
flows_drain() {
	local deadline=$((SECONDS + 10)) n
	while :; do
		stats_json
		n=$(t_json "$T_OUT" 'd["total"]["flows_active"]')
		[ "$n" = 0 ] && break
		if [ "$SECONDS" -ge "$deadline" ]; then
			local relay
			relay=$(lab_relay_stats 2>&1)
			t_fail "$1: flows_active back to 0 within 10 s" "flows_active still $n" \
				"routerd total: $(t_json "$T_OUT" '{k: v for k, v in d["total"].items() if k != "drops"}')" \
				"routerd drops: $(nonzero_drops "$T_OUT")" \
				"client sockets: $(lab_client ss -tanH 2>&1 | grep -v LISTEN | head -n 20 | tr '\n' ';')" \
				"backend sockets: $(lab_backend ss -tanH 2>&1 | grep -v LISTEN | head -n 20 | tr '\n' ';')" \
				"routerd's live records (routerctl conns): $("$ROUTERCTL" -s "$LAB_SOCKET" conns 20 2>&1)" \
				"relay: $relay"
		fi
		sleep 0.5
	done
	t_note "$1: flows_active 0; opened $(t_json "$T_OUT" 'd["total"]["conns_opened"]') closed $(t_json "$T_OUT" 'd["total"]["conns_closed"]'); drops $(nonzero_drops "$T_OUT")"
}

# relay_check NAME: stop the relay and check its final counters: invariants, and drops,
# duplicates and reorders in both directions (a2b = client to router, b2a = router to client).
relay_check() {
	lab_relay_stop || t_fail "$1: relay exits 0 on SIGTERM" "status $LAB_RELAY_STATUS; $(tail -n 5 "$LAB_RELAY_LOG")"
	local j=$LAB_RELAY_JSON
	t_json_expect "$j" 'd["reason"] == "sigterm"' "$1: relay's final stats"
	t_json_expect "$j" 'all(d[k]["received"] == d[k]["forwarded"] + d[k]["dropped"] and d[k]["held"] == 0 and d[k]["sent"] == d[k]["forwarded"] + d[k]["duplicated"] and d[k]["send_errors"] == 0 for k in ("a2b", "b2a"))' \
		"$1: relay counters consistent (received = forwarded + dropped, sent = forwarded + duplicated)"
	t_json_expect "$j" 'all(d[k]["oversize"] == 0 and d[k]["csum_partial"] == 0 and d[k]["truncated"] == 0 for k in ("a2b", "b2a"))' \
		"$1: no oversize / partial-checksum frames at the relay (offloads are off)"
	t_json_expect "$j" 'all(d[k]["dropped"] > 0 and d[k]["duplicated"] > 0 and d[k]["reordered"] > 0 for k in ("a2b", "b2a"))' \
		"$1: the relay dropped, duplicated and reordered frames in both directions"
	RELAY_SUMMARY=$(t_json "$j" '"; ".join("%s %d frames: %d dropped, %d dup, %d reordered" % (k, d[k]["received"], d[k]["dropped"], d[k]["duplicated"], d[k]["reordered"]) for k in ("a2b", "b2a"))')
}

# transfers NAME: SIZE_MB down and up through the relay, both checked end to end.
transfers() {
	local t0 took
	t0=$(date +%s%N)
	t_run lab_client curl -sS -m "$MAX_S" "${CURL_TO[@]}" -H "Host: $HOST" \
		-w '%{http_code} %{size_download}\n' -o "$LAB_DIR/down.bin" "$down_url"
	took=$((($(date +%s%N) - t0) / 1000000))
	local got
	got=$(sha256sum <"$LAB_DIR/down.bin" | cut -d' ' -f1)
	[ "$T_RC" -eq 0 ] && [ "$T_OUT" = "200 $SIZE" ] && [ "$got" = "$want" ] ||
		t_fail "$1: $SIZE_MB MB download through the router (curl -m $MAX_S) arrives intact" \
			"want 200 $SIZE sha256 $want" "got sha256 $got; $(t_seen)" \
			"relay: $(lab_relay_stats 2>&1)" "routerd drops: $(stats_json; nonzero_drops "$T_OUT")"
	t_ok "$1: $SIZE_MB MB download intact (sha256 matches) in $took ms"
	rm -f "$LAB_DIR/down.bin"
	t0=$(date +%s%N)
	t_run lab_client curl -sS -m "$MAX_S" "${CURL_TO[@]}" -H "Host: $UP_HOST" \
		-H 'Content-Type: application/octet-stream' --data-binary "@$big" "$up_url"
	took=$((($(date +%s%N) - t0) / 1000000))
	[ "$T_RC" -eq 0 ] && [ "$T_OUT" = "$want $SIZE" ] ||
		t_fail "$1: $SIZE_MB MB upload through the router (curl -m $MAX_S): the sink's sha256 equals ours" \
			"want '$want $SIZE'" "$(t_seen)" \
			"relay: $(lab_relay_stats 2>&1)" "routerd drops: $(stats_json; nonzero_drops "$T_OUT")"
	t_ok "$1: $SIZE_MB MB upload intact (the sink saw the same sha256) in $took ms"
}

for phase in "loss1 7 1" "loss5 11 5"; do
	set -- $phase
	relay_phase "$1" "$2" "$3"
	transfers "$3% drop"
	flows_drain "$3% drop"
	relay_check "$3% drop"
	t_ok "$3% drop + 1% dup + 1% reorder (seed $2): relay $RELAY_SUMMARY; flow table empty again"
	# Held, out-of-order, retransmitted and duplicated segments: every buffer back.
	t_mbufs_back "$MBUFS0" "after the $3% drop transfers"
done

# A burst of short connections at 3% loss: every handshake packet, held request segment and
# FIN can be lost; every connection must still be answered.
relay_phase burst3 5 3
if [ "$LOSS_MODE" = tls ]; then
	# A TLS handshake per connection: curl, 8 at a time. One write per connection (status,
	# body bytes, curl's exit code), so parallel lines never interleave; backend-a's body is
	# "backend-a\n", 10 bytes.
	t_run lab_client sh -c "seq 200 | xargs -P 8 -I{} curl -sS -m 60 -k -o /dev/null --resolve '$HOST:443:$LAB_ROUTER_IP' -w '%{http_code} %{size_download} %{exitcode}\n' 'https://$HOST/' 2>&1 | sort | uniq -c"
	[ "$(printf '%s\n' "$T_OUT" | awk '{$1=$1};1')" = "200 200 10 0" ] ||
		t_fail "3% drop: 200 short TLS connections (8 at a time), all answered 200 with backend-a's 10 bytes" "$(t_seen)"
else
	t_run lab_client $HTTPC count "$LAB_ROUTER_IP" "$HOST" / 200 8
	res=$T_OUT
	t_json_expect "$res" 'd["errors"] == 0 and d["statuses"] == {"200": 200} and d["bodies"] == {"backend-a": 200}' \
		"3% drop: 200 short connections (8 at a time), all answered 200 backend-a"
fi
flows_drain "burst at 3% drop"
relay_check "burst at 3% drop"
t_ok "3% drop + 1% dup + 1% reorder (seed 5): 200 connections all 200; relay $RELAY_SUMMARY; flow table empty again"
t_mbufs_back "$MBUFS0" "after the burst at 3% drop"

stats_json
t_note "routerd total: $(t_json "$T_OUT" '{k: v for k, v in d["total"].items() if k != "drops"}')"
t_note "routerd drops: $(nonzero_drops "$T_OUT")"
t_finish
