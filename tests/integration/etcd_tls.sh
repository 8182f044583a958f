#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# etcd_tls: the etcd store over TLS with client certificates (docs/operations.md "Store on
# etcd"). The test starts its own etcd on a 198.18.0.0/15 address of a veth pair it makes
# (and removes), serving https:// only to clients whose certificate its CA signed
# (tools/lib/etcd_lab.sh's etcd_start_tls: a throwaway CA, etcd's certificate for its IP, a
# client certificate). Then three routerds without ports:
#   good     https endpoint, ca_file, cert_file and key_file: connected; a Route applied
#            through it is in etcd (etcdctl get), a Route put with etcdctl is on it;
#   nocert   the right CA, no client certificate: never connected, its status' last error
#            names the TLS alert etcd answers with;
#   wrongca  a client certificate but another CA: never connected, its last error names
#            the failed verification of etcd's certificate.
# Also: a config whose ca_file does not exist is refused at start, naming the key and path.
source "$(dirname "$0")/testlib.sh"

command -v etcd >/dev/null && command -v etcdctl >/dev/null ||
	t_skip_all "etcd and etcdctl are needed (Debian: etcd-server etcd-client)"
command -v openssl >/dev/null || t_skip_all "openssl is needed for the lab's certificates"
t_setup_bare etl

source "$SY_SRC/tools/lib/etcd_lab.sh"
PFX=/sy-$LAB_ID/
declare -A R_PID=()
etcd_tls_on_exit() {
	local n
	_t_on_exit "$1"
	for n in "${!R_PID[@]}"; do
		if [ "$1" -ne 0 ] && [ -s "$LAB_DIR/routerd-$n.log" ]; then
			printf '# --- last 20 lines of %s ---\n' "$LAB_DIR/routerd-$n.log"
			tail -n 20 "$LAB_DIR/routerd-$n.log" | sed 's/^/# /'
		fi
		_lab_stop_pid "${R_PID[$n]}" 10
	done
	etcd_lab_down
}
LAB_ON_EXIT=etcd_tls_on_exit
etcd_lab_up || t_fail "a veth pair with an address for etcd"
etcd_start_tls || t_fail "etcd answers on $E_URL (TLS, client certificates)"
[[ $E_URL == https://* ]] || t_fail "etcd_start_tls makes E_URL https://" "E_URL=$E_URL"
t_ok "etcd $E_URL up over TLS (pid $E_PID; certificates in $E_TLS)"

# etcd itself refuses a client without a certificate: what nocert below runs into.
t_run env ETCDCTL_API=3 etcdctl --endpoints "$E_URL" --cacert "$E_TLS/ca.pem" \
	--dial-timeout 2s --command-timeout 3s get /x
[ "$T_RC" -ne 0 ] || t_fail "etcd refuses etcdctl without a client certificate" "$(t_seen)"
t_run ectl put "${PFX}probe" ok
t_expect_rc 0 "etcdctl with the lab's client certificate writes"
t_ok "etcd requires a client certificate (etcdctl without one fails, with one writes)"

# r_config NAME ETCD-JSON-MEMBERS: a port-less routerd's config, store.etcd with the lab's
# endpoint, prefix and these members.
r_config() {
	cat >"$LAB_DIR/$1.json" <<EOF
{"workers": 1, "idle": "adaptive", "eal": ["--log-level=*:notice"],
 "control_socket": "$LAB_DIR/$1.sock", "state_dir": "$LAB_DIR/$1-state", "router_name": "$1",
 "routing_subdomain": "$LAB_ROUTING_SUBDOMAIN",
 "store": {"etcd": {"endpoints": ["$E_URL"], "prefix": "$PFX", "lease_ttl_s": 3$2}}}
EOF
}
# r_start NAME ETCD-JSON-MEMBERS: start routerd NAME on that config, wait until its control
# socket answers; its PID in R_PID[NAME].
r_start() {
	r_config "$1" "$2"
	setsid "$ROUTERD" -c "$LAB_DIR/$1.json" </dev/null >>"$LAB_DIR/routerd-$1.log" 2>&1 &
	R_PID[$1]=$!
	lab_track "${R_PID[$1]}" "routerd-$1"
	sy_poll 30 "$ROUTERCTL" -s "$LAB_DIR/$1.sock" status >/dev/null 2>&1 ||
		t_fail "routerd $1 answers" "$(tail -n 20 "$LAB_DIR/routerd-$1.log")"
}
sock() { printf '%s' "$LAB_DIR/$1.sock"; }
connected() { [ "$(store_of "$(sock "$1")" "d['connected']")" = true ]; }
# failing NAME: not connected, and a last error is known.
failing() {
	[ "$(store_of "$(sock "$1")" "d['connected']")" = false ] &&
		[ -n "$(store_of "$(sock "$1")" "d['last_error'] or ''")" ]
}
CA=",\"ca_file\": \"$E_TLS/ca.pem\""
CERT=",\"cert_file\": \"$E_TLS/client.pem\", \"key_file\": \"$E_TLS/client.key\""

# --- a TLS file that does not exist: refused at start --------------------------------
r_config missing ",\"ca_file\": \"$E_TLS/nonexistent.pem\""
t_run timeout 30 "$ROUTERD" -c "$LAB_DIR/missing.json"
[ "$T_RC" -ne 0 ] && [ "$T_RC" -ne 124 ] || t_fail "routerd refuses a missing ca_file" "$(t_seen)"
t_expect_out "store\\.etcd\\.ca_file: $E_TLS/nonexistent\\.pem: No such file or directory" \
	"the error names the key, the path and why"
t_ok "a missing ca_file is refused at start: $(grep -o 'store\.etcd\.ca_file:.*' <<<"$T_OUT"$'\n'"$T_ERR" | head -n 1)"

# --- good: the CA and a client certificate --------------------------------------------
r_start good "$CA$CERT"
poll_until 30 connected good || t_fail "routerd good connects to etcd over TLS" \
	"$("$ROUTERCTL" -s "$(sock good)" status 2>&1 | grep -A1 '^store:')"
t_ok "routerd good (pid ${R_PID[good]}) connected to $E_URL ($WAITED s)"
t_run "$ROUTERCTL" -s "$(sock good)" status
t_expect_out "^store: +etcd $E_URL $PFX, connected, revision [0-9]+" "routerctl status: the store line"
t_ok "routerctl status: $(grep '^store:' <<<"$T_OUT")"
grep -q "TLS verified against $E_TLS/ca.pem, client certificate $E_TLS/client.pem" \
	"$LAB_DIR/routerd-good.log" || t_fail "routerd's log says how it reaches etcd" \
	"$(grep 'store: etcd' "$LAB_DIR/routerd-good.log")"

t_run "$ROUTERCTL" -s "$(sock good)" apply -f - <<YAML
apiVersion: v1
kind: Service
metadata: {name: a, namespace: demo}
spec: {ports: [{name: http, port: 80, targetPort: 80}]}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: web, namespace: demo}
spec: {host: web.$LAB_DOMAIN, to: {kind: Service, name: a}}
YAML
t_expect_rc 0 "apply a Service and Route demo/web through routerd good"
t_run ectl get "${PFX}objects/route.route.openshift.io/demo/web" --print-value-only
t_json_expect "$T_OUT" "d['spec']['host'] == 'web.$LAB_DOMAIN' and d['metadata']['uid']" \
	"etcdctl get shows Route demo/web as applied"
t_ok "a Route applied through routerctl is in etcd (etcdctl get ${PFX}objects/route.route.openshift.io/demo/web)"

t_run ectl put "${PFX}objects/route.route.openshift.io/demo/hand" \
	"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"hand\"},\"spec\":{\"host\":\"hand.$LAB_DOMAIN\",\"to\":{\"kind\":\"Service\",\"name\":\"a\"}}}"
t_expect_rc 0 "etcdctl put Route demo/hand"
hand_on_good() { "$ROUTERCTL" -s "$(sock good)" get route hand -n demo >/dev/null 2>&1; }
poll_until 15 hand_on_good || t_fail "routerd good has Route demo/hand (put with etcdctl)"
t_run "$ROUTERCTL" -s "$(sock good)" get route hand -n demo -o json
t_json_expect "$T_OUT" "d['spec']['host'] == 'hand.$LAB_DOMAIN'" "routerctl get shows Route hand as put"
t_ok "a Route put with etcdctl is on routerd good through the TLS watch ($WAITED s)"

# r_refused NAME ETCD-JSON-MEMBERS REGEX WHAT: start routerd NAME; it must stay unconnected,
# its status' last error naming the endpoint and WHAT, the extended REGEX (case-insensitive);
# ERR the last error.
r_refused() {
	r_start "$1" "$2"
	poll_until 20 failing "$1" || t_fail "routerd $1 is not connected and says why" \
		"$("$ROUTERCTL" -s "$(sock "$1")" status 2>&1 | grep -A1 '^store:')"
	# Retried with backoff, the attempts do not all fail alike: etcd may close the
	# connection before libcurl reads its alert ("getpeername() failed ... not
	# connected"). The error that names the cause comes within a few attempts.
	names_it() {
		ERR=$(store_of "$(sock "$1")" "d['last_error']")
		grep -Eiq "$2" <<<"$ERR"
	}
	poll_until 20 names_it "$1" "$3" || t_fail "$1's last error names $4" "last_error: $ERR"
	connected "$1" && t_fail "routerd $1 stays unconnected"
	grep -qF "$E_IP" <<<"$ERR" || t_fail "$1's last error names the endpoint" "last_error: $ERR"
}

# --- nocert: the right CA, no client certificate ---------------------------------------
# TLS 1.3: the client's side of the handshake is done before etcd checks for a certificate,
# so libcurl sees etcd's alert on its first read ("OpenSSL SSL_read: ... sslv3 alert bad
# certificate": Go's TLS answers a missing one with bad_certificate); under TLS 1.2 the
# handshake itself would fail.
r_refused nocert "$CA" "alert|handshake" "the TLS problem"
t_run "$ROUTERCTL" -s "$(sock nocert)" status
t_expect_out "^store: +etcd $E_URL $PFX, DISCONNECTED" "routerctl status says DISCONNECTED"
t_expect_out "^  last error: +.*$E_IP" "routerctl status shows the last error"
t_ok "routerd nocert (pid ${R_PID[nocert]}, no client certificate): DISCONNECTED, last error: $ERR"

# --- wrongca: a client certificate, but etcd's certificate checked against another CA --
r_refused wrongca ",\"ca_file\": \"$E_TLS/other-ca.pem\"$CERT" \
	"SSL certificate problem|certificate verif|unable to get local issuer" \
	"the failed verification of etcd's certificate"
t_ok "routerd wrongca (pid ${R_PID[wrongca]}, another CA): not connected, last error: $ERR"

# Neither got anything: still not connected, and nothing of theirs in etcd.
connected nocert && t_fail "nocert never connects"
connected wrongca && t_fail "wrongca never connects"
t_run ectl get --prefix "${PFX}status/" --keys-only
t_expect_no_out "/(nocert|wrongca)/" "nothing written by nocert or wrongca"
connected good || t_fail "good is still connected"
t_ok "good still connected; nocert and wrongca never were and wrote nothing"

# --- the end: each routerd stopped by PID (SIGTERM), exit status 0 -----------------------
for n in good nocert wrongca; do
	kill -TERM "${R_PID[$n]}"
	for _ in $(seq 150); do sy_pid_alive "${R_PID[$n]}" || break; sleep 0.1; done
	sy_pid_alive "${R_PID[$n]}" && t_fail "routerd $n stops within 15 s of SIGTERM"
	wait "${R_PID[$n]}"
	rc=$?
	unset "R_PID[$n]"
	[ "$rc" -eq 0 ] || t_fail "routerd $n exits 0 on SIGTERM" "exit status $rc" \
		"$(tail -n 20 "$LAB_DIR/routerd-$n.log")"
	if grep -Eq -- "$T_SANITIZER_RE" "$LAB_DIR/routerd-$n.log"; then
		t_fail "no sanitizer report from routerd $n" \
			"$(grep -E -A 20 -- "$T_SANITIZER_RE" "$LAB_DIR/routerd-$n.log" | head -n 40)"
	fi
done
t_ok "routerds good, nocert and wrongca stopped with SIGTERM, exit status 0"
printf '1..%d\n' "$T_NUM"
