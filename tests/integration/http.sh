#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# http: real clients through routerd (WORKERS workers, default 1) to the lab's nginx
# backends: Host and path routing, weights, the no-route answer, TLS passthrough by SNI
# (the client verifies each backend's own certificate), and 2 MiB transfers both ways that
# arrive intact, sequentially and in parallel.
T_NAME="http-${1:-1}w"
source "$(dirname "$0")/testlib.sh"

workers=${1:-1}
t_setup "h$workers" "$workers"
t_start_routerd
rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply -f config/routes.yaml"
t_ok "apply -f config/routes.yaml"

R=$LAB_ROUTER_IP
# get HOST PATH [curl args...]: GET http://HOST/PATH through the router; sets T_OUT (body),
# T_ERR (curl's stderr) and CODE.
get() {
	local host=$1 path=$2
	shift 2
	t_run lab_client curl -sS -m 10 --resolve "$host:80:$R" -o - -w '\n%{http_code}' "$@" "http://$host$path"
	CODE=$(tail -n 1 <<<"$T_OUT")
	T_OUT=$(sed '$d' <<<"$T_OUT")
}
expect_body() { # HOST PATH BODY
	get "$1" "$2"
	[ "$T_RC" -eq 0 ] && [ "$CODE" = 200 ] && [ "$T_OUT" = "$3" ] ||
		t_fail "GET http://$1$2 through the router answers 200 '$3'" "seen: code ${CODE:-none}; $(t_seen)"
}

expect_body web.lab.switchyard.test / backend-a
t_ok "http://web.lab.switchyard.test/ -> backend-a"
expect_body web.lab.switchyard.test /b/x backend-b
t_ok "http://web.lab.switchyard.test/b/x -> backend-b (path rule)"
expect_body generated-demo.apps.lab.switchyard.test / backend-b
t_ok "http://generated-demo.apps.lab.switchyard.test/ -> backend-b (generated host)"
get nope.lab.switchyard.test /
[ "$T_RC" -eq 0 ] && [ "$CODE" = 503 ] || t_fail "a host with no route gets 503" "seen: code ${CODE:-none}; $(t_seen)"
t_ok "http://nope.lab.switchyard.test/ -> 503 from the router"

# Weights: canary is a 80 / b 20, chosen per connection.
a=0 b=0
for _ in $(seq 100); do
	get canary.lab.switchyard.test /
	case "$CODE $T_OUT" in
	"200 backend-a") a=$((a + 1)) ;;
	"200 backend-b") b=$((b + 1)) ;;
	*) t_fail "GET http://canary.lab.switchyard.test/ answers 200 from a or b" "seen: code ${CODE:-none}; $(t_seen)" ;;
	esac
done
[ "$a" -ge 60 ] && [ "$a" -le 95 ] && [ "$b" -ge 5 ] ||
	t_fail "canary splits about 80/20 over 100 connections" "seen: a $a, b $b"
t_ok "canary over 100 connections: a $a, b $b (weights 80/20)"

# 2 MiB down, intact.
want=$(sha256sum <"$LAB_DIR/nginx-a/www/big.bin" | cut -d' ' -f1)
t_run lab_client sh -c "curl -sS -m 30 --resolve web.lab.switchyard.test:80:$R http://web.lab.switchyard.test/big.bin | sha256sum"
[ "$T_RC" -eq 0 ] && [ "${T_OUT%% *}" = "$want" ] ||
	t_fail "2 MiB GET through the router arrives intact" "want sha256 $want" "seen: $(t_seen)"
t_ok "2 MiB GET through the router: sha256 matches"

# 2 MiB up (nginx reads and discards the body, then answers).
head -c 2097152 /dev/urandom >"$LAB_DIR/upload.bin"
t_run lab_client curl -sS -m 30 --resolve web.lab.switchyard.test:80:$R -o /dev/null -w '%{http_code} %{size_upload}' \
	--data-binary "@$LAB_DIR/upload.bin" http://web.lab.switchyard.test/upload
[ "$T_RC" -eq 0 ] && [ "$T_OUT" = "200 2097152" ] ||
	t_fail "2 MiB POST through the router is answered 200" "seen: $(t_seen)"
t_ok "2 MiB POST through the router: 200, 2097152 bytes sent"

# TLS passthrough: the router picks the backend by SNI; the client checks the backend's cert.
for x in a b; do
	host=$x.passthrough.lab.switchyard.test
	t_run lab_client curl -sS -m 10 --cacert "$LAB_DIR/nginx-$x/tls.crt" --resolve "$host:443:$R" "https://$host/"
	[ "$T_RC" -eq 0 ] && [ "$T_OUT" = "backend-$x" ] ||
		t_fail "https://$host/ through the router: backend-$x, its certificate verified" "seen: $(t_seen)"
done
t_ok "TLS passthrough: a.passthrough -> backend-a, b.passthrough -> backend-b, certificates verified"
want=$(sha256sum <"$LAB_DIR/nginx-b/www/big.bin" | cut -d' ' -f1)
t_run lab_client sh -c "curl -sS -m 30 --cacert $LAB_DIR/nginx-b/tls.crt --resolve b.passthrough.lab.switchyard.test:443:$R https://b.passthrough.lab.switchyard.test/big.bin | sha256sum"
[ "$T_RC" -eq 0 ] && [ "${T_OUT%% *}" = "$want" ] ||
	t_fail "2 MiB over TLS passthrough arrives intact" "want sha256 $want" "seen: $(t_seen)"
t_ok "2 MiB over TLS passthrough: sha256 matches"

# 20 connections at once, each a 2 MiB download.
want=$(sha256sum <"$LAB_DIR/nginx-a/www/big.bin" | cut -d' ' -f1)
t_run lab_client bash -c '
for i in $(seq 20); do
	( curl -sS -m 60 --resolve web.lab.switchyard.test:80:'"$R"' http://web.lab.switchyard.test/big.bin | sha256sum ) &
done
wait'
good=$(grep -c "^$want " <<<"$T_OUT")
[ "$good" -eq 20 ] || t_fail "20 parallel 2 MiB downloads all arrive intact" "intact: $good of 20; $(t_seen)"
t_ok "20 parallel 2 MiB downloads: all intact"

rctl stats -o json
t_expect_rc 0 "stats -o json"
t_note "drops: $(t_json "$T_OUT" '{k: v for k, v in d["total"]["drops"].items() if v}')"

t_finish
