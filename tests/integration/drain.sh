#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# drain: a graceful stop (dataplane/drain.c; docs/operations.md, "Stopping"), with curl in the
# client namespace and the Python pool (pool_server.py) as backend:
#   - SIGTERM during a 20 MiB spliced download at 4 MiB/s: the download completes intact
#     (SHA-256 of what arrived against the pool's known bytes), a new connection meanwhile is
#     refused at once (curl: connection refused; conns_refused_draining counted), `routerctl
#     status` shows the drain, an idle keep-alive proxied connection is closed by the router
#     (the client sees its FIN), and routerd exits 0 as soon as the download is done, well
#     within drain_s;
#   - drain_s bounds it: a request that would take 30 s holds the drain until drain_s (3 s)
#     passes, then routerd exits 0 and says how many it left;
#   - a second signal ends the drain at once.
T_NAME=drain
source "$(dirname "$0")/testlib.sh"

t_setup drn 1
D=lab.switchyard.test
R=$LAB_ROUTER_IP
drain_s() { t_config_set drain_s "$1"; } # N
routes() { t_pool_routes "dl.$D" "px.$D" /p; }

# --- 1. SIGTERM during a download ---------------------------------------------------------
N=$((20 << 20))
want=$(python3 -c "import hashlib, random, sys; n = int(sys.argv[1]); print(hashlib.sha256(random.Random(n).randbytes(n)).hexdigest())" "$N")
drain_s 20
t_start_routerd
routes
# An idle keep-alive connection to the proxied route: one request, then it waits for the
# router to close it (the drain), recording when.
lab_client python3 - "$R" "px.$D" "$LAB_DIR/idle.log" <<'PY' &
import socket, sys, time
s = socket.create_connection((sys.argv[1], 80), timeout=60)
s.sendall(b"GET /p HTTP/1.1\r\nHost: %s\r\n\r\n" % sys.argv[2].encode())
buf = b""
while b"pool-c" not in buf:
    buf += s.recv(4096)
with open(sys.argv[3], "w") as f:
    f.write("answered\n")
    f.flush()
    s.settimeout(30)
    try:
        rest = s.recv(4096)
        f.write("closed by the router\n" if rest == b"" else "unexpected bytes\n")
    except Exception as e:
        f.write("no close: %s\n" % e)
PY
idle_pid=$!
sy_poll 10 grep -q answered "$LAB_DIR/idle.log" || t_fail "the idle keep-alive client got its answer" "$(cat "$LAB_DIR/idle.log" 2>&1)"
# The download starts once the idle client is served (a slow start, as under ASan, must not
# eat into it: at 4 MB/s the 20 MiB take 5 s), and the signal comes once it is under way.
lab_client curl -sS -m 60 --limit-rate 4M --resolve "dl.$D:80:$R" -o "$LAB_DIR/blob" \
	"http://dl.$D/blob/$N" 2>"$LAB_DIR/dl.err" &
dl_pid=$!
sy_poll 10 test -s "$LAB_DIR/blob" || t_fail "the download starts" "$(cat "$LAB_DIR/dl.err" 2>&1)"
sleep 0.5
got=$(stat -c %s "$LAB_DIR/blob" 2>/dev/null || echo 0)
[ "$got" -gt 0 ] && [ "$got" -lt "$N" ] || t_fail "the download is under way when the signal comes" "$got of $N bytes"
t0=$EPOCHREALTIME
kill -TERM "$ROUTERD_PID"
sleep 0.3
t_run lab_client curl -sS -m 5 --resolve "dl.$D:80:$R" -o /dev/null "http://dl.$D/"
[ "$T_RC" -eq 7 ] || t_fail "a new connection while draining: refused at once (curl exit 7)" "$(t_seen)"
t_ok "SIGTERM with a download in flight: a new connection is refused (curl: $(tr -d '\n' <<<"$T_ERR" | cut -c1-80))"
rctl status
grep -q '^draining:.*connection(s) in flight' <<<"$T_OUT" || t_fail "routerctl status shows the drain" "$(t_seen)"
t_ok "routerctl status: $(grep '^draining:' <<<"$T_OUT")"
rctl stats -o json
t_json_expect "$T_OUT" 'd["total"]["conns_refused_draining"] >= 1' "conns_refused_draining counts the refused SYN"
wait "$idle_pid"
grep -q 'closed by the router' "$LAB_DIR/idle.log" || t_fail "the idle keep-alive proxied connection is closed by the router" "$(cat "$LAB_DIR/idle.log")"
t_ok "the idle keep-alive proxied connection was closed by the router"
wait "$dl_pid"
rc=$?
[ "$rc" -eq 0 ] || t_fail "the download in flight completes (curl exit 0)" "curl exit $rc: $(cat "$LAB_DIR/dl.err")"
have=$(sha256sum "$LAB_DIR/blob" | cut -d' ' -f1)
[ "$have" = "$want" ] || t_fail "the 20 MiB arrived intact" "sha256 $have, want $want; $(stat -c %s "$LAB_DIR/blob") bytes"
t_ok "the 20 MiB download completed intact across the drain"
lab_routerd_wait_exit 10
took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
[ "$ROUTERD_STATUS" = 0 ] || t_fail "routerd exits 0 once drained" "status $ROUTERD_STATUS; $(tail -n 20 "$LAB_ROUTERD_LOG")"
grep -q 'drained in' "$LAB_ROUTERD_LOG" || t_fail "routerd says it drained" "$(tail -n 20 "$LAB_ROUTERD_LOG")"
awk -v t="$took" 'BEGIN { exit !(t < 15) }' || t_fail "routerd gone well within drain_s (20 s)" "after $took s"
t_ok "routerd exited 0, drained, ${took} s after SIGTERM (drain_s 20)"

# --- 2. drain_s bounds the drain -------------------------------------------------------------
drain_s 3
t_start_routerd "routerd started again (drain_s 3)"
routes
lab_client curl -sS -m 40 --resolve "dl.$D:80:$R" -o /dev/null "http://dl.$D/slow/30" 2>/dev/null &
slow_pid=$!
sy_poll 10 t_in_flight 1 || t_fail "the slow request is in flight before the signal" "$(lab_routerctl conns 2>&1)"
sleep 0.3 # its request sent, not just its handshake
t0=$EPOCHREALTIME
kill -TERM "$ROUTERD_PID"
lab_routerd_wait_exit 10
took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
[ "$ROUTERD_STATUS" = 0 ] || t_fail "drain_s passed: routerd exits 0" "status $ROUTERD_STATUS"
awk -v t="$took" 'BEGIN { exit !(t >= 2.8 && t < 6) }' || t_fail "routerd exits when drain_s (3 s) passes" "after $took s"
grep -q 'drain_s (3 s) passed with 1 connection(s) in flight' "$LAB_ROUTERD_LOG" ||
	t_fail "routerd says drain_s passed with the connection it left" "$(tail -n 10 "$LAB_ROUTERD_LOG")"
t_ok "drain_s 3 with a 30 s request in flight: exited 0 after ${took} s, saying so"
t_stop_bg "$slow_pid"

# --- 3. a second signal ends it -------------------------------------------------------------
drain_s 30
t_start_routerd "routerd started again (drain_s 30)"
routes
lab_client curl -sS -m 40 --resolve "dl.$D:80:$R" -o /dev/null "http://dl.$D/slow/30" 2>/dev/null &
slow_pid=$!
sy_poll 10 t_in_flight 1 || t_fail "the slow request is in flight before the signal" "$(lab_routerctl conns 2>&1)"
sleep 0.3 # its request sent, not just its handshake
kill -TERM "$ROUTERD_PID"
sleep 0.5
sy_pid_alive "$ROUTERD_PID" || t_fail "routerd still draining after the first signal" "it exited"
t0=$EPOCHREALTIME
kill -INT "$ROUTERD_PID"
lab_routerd_wait_exit 10
took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
[ "$ROUTERD_STATUS" = 0 ] && awk -v t="$took" 'BEGIN { exit !(t < 3) }' ||
	t_fail "a second signal: routerd exits 0 at once" "status $ROUTERD_STATUS after $took s"
t_ok "a second signal ended the drain: exited 0 after ${took} s"
t_stop_bg "$slow_pid"

t_finish
