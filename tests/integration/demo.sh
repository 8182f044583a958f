#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# demo: `tools/demo --once` runs end to end on the build under test (ROUTERD/ROUTERCTL from
# meson; the apt step is skipped when everything is installed), shows the ping and the
# routes, and leaves nothing behind.
source "$(dirname "$0")/testlib.sh"

[ "$(id -u)" -eq 0 ] || t_skip_all "needs root (network namespaces)"
[ -x "${ROUTERD:-}" ] && [ -x "${ROUTERCTL:-}" ] || t_fail "setup" "ROUTERD/ROUTERCTL not executables"
# The demo builds its own lab; this test only makes sure it is gone afterwards.
lab_init "dm$(($$ % 10000000))" 1
lab_cleanup_on_exit
export ROUTERD ROUTERCTL

out=$LAB_ROOT/demo-$LAB_ID.out
mkdir -p "$LAB_ROOT"
timeout --foreground -k 10 240 "$SY_SRC/tools/demo" --once --id "$LAB_ID" </dev/null >"$out" 2>&1
rc=$?
T_OUT=$(cat "$out")
T_ERR=
T_RC=$rc
rm -f "$out"
printf '%s\n' "$T_OUT" | sed 's/^/# /'
t_expect_rc 0 "tools/demo --once exits 0"
t_ok "tools/demo --once exited 0"

t_expect_out '=== ping the router' "the demo shows a ping of the router"
t_expect_out ' 0% packet loss' "the demo's ping gets every reply"
t_ok "the demo shows the ping of $LAB_ROUTER_IP with 0% loss"
t_expect_out 'HOST/PORT' "the demo shows the routes table"
for n in web web-b canary generated secure-a secure-b; do
	t_expect_out "(^|[[:space:]])$n([[:space:]]|\$)" "the demo's routes table lists $n"
done
t_expect_out 'demo/web' "the demo's resolve names demo/web"
t_expect_out 'rx_packets|RX|rx' "the demo shows stats"
t_ok "the demo shows the routes, resolve answers and stats"

ip netns list | grep -q "^sy-$LAB_ID-" && t_fail "the demo removes its namespaces" "$(ip netns list)"
ip link show "sy${LAB_ID}c0" >/dev/null 2>&1 && t_fail "the demo removes its veths" "sy${LAB_ID}c0 still exists"
[ ! -e "$LAB_DIR" ] || t_fail "the demo removes its lab directory" "$LAB_DIR still exists"
t_ok "nothing left behind (namespaces, veths, $LAB_DIR)"
printf '1..%d\n' "$T_NUM"
