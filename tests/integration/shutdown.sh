#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# shutdown: SIGTERM and SIGINT each make routerd exit 0 within a few seconds and remove its
# control socket; with a sanitizer build, no ASan/UBSan/LeakSanitizer report.
source "$(dirname "$0")/testlib.sh"

asan=no
ldd "$ROUTERD" 2>/dev/null | grep -q libasan && asan=yes
t_setup sd 1
t_note "routerd built with AddressSanitizer: $asan (ASAN_OPTIONS=${ASAN_OPTIONS:-})"

for sig in TERM INT; do
	t_start_routerd "routerd started (for SIG$sig)"
	# Give it some work first, so shutdown has state to free: objects, a generation, packets.
	rctl apply -f "$SY_SRC/config/routes.yaml"
	t_expect_rc 0 "apply -f config/routes.yaml"
	rctl get routes -o json
	t_expect_rc 0 "get routes"
	lab_client ping -c 2 -i 0.2 -W 2 "$LAB_ROUTER_IP" >/dev/null 2>&1 ||
		t_note "ping $LAB_ROUTER_IP failed (the ping test covers it)"
	[ -S "$LAB_SOCKET" ] || t_fail "the control socket $LAB_SOCKET exists while routerd runs" "$(ls -la "$LAB_DIR")"
	start=$EPOCHREALTIME
	lab_routerd_stop 5 "$sig"
	took=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
	[ "$ROUTERD_STATUS" != timeout ] || t_fail "routerd exits within 5 s of SIG$sig" "it was still running (then killed)"
	[ "$ROUTERD_STATUS" = 0 ] || t_fail "routerd exits 0 on SIG$sig" "exit status $ROUTERD_STATUS; log tail:" \
		"$(tail -n 30 "$LAB_ROUTERD_LOG")"
	t_ok "SIG$sig: routerd exited 0 in ${took} s"
	[ ! -e "$LAB_SOCKET" ] || t_fail "the control socket is removed on SIG$sig" "$LAB_SOCKET still exists"
	t_ok "SIG$sig: control socket removed"
	t_check_sanitizers leaks
	t_ok "SIG$sig: no sanitizer report in routerd's log (leaks checked: $asan)"
done

t_finish
