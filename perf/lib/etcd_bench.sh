# SPDX-License-Identifier: BSD-3-Clause
# What perf/fleet and perf/etcd_change share (sourced after tools/lib/lab.sh and
# tools/lib/etcd_lab.sh; not a benchmark itself):
#
#   etcd_bench_up ID   lab_init ID, its directory, the exit hook (on failure the last lines
#                      of every $LAB_DIR/r*.log; etcd stopped and its veth pair removed,
#                      every process started stopped by PID), then etcd on its own
#                      198.19 address with room for 100,000s of objects (8 GB backend,
#                      compaction every 100,000 revisions). Dies on failure.
#   etcd_bench_routerd NAME SCHEDULER
#                      a routerd without data-plane ports on that etcd (prefix $EB_PREFIX):
#                      config $LAB_DIR/NAME.json, 1 worker, adaptive idle, --no-huge -m 256,
#                      its own --file-prefix, socket $LAB_DIR/NAME.sock, state dir
#                      $LAB_DIR/NAME-state, log $LAB_DIR/NAME.log; "scheduler": SCHEDULER
#                      (true/false). Tracked by PID (lab_track); sets EB_PID. routerd adds
#                      --no-pci itself (no PCI port in the config: control/config/eal_args.c).
#
# Needs ROUTERD; EB_PREFIX defaults to /bench/.
EB_PREFIX=${EB_PREFIX:-/bench/}
EB_PID=

_etcd_bench_on_exit() {
	[ "$1" -ne 0 ] && for f in "$LAB_DIR"/r*.log; do
		[ -s "$f" ] && { echo "--- last lines of $f" >&2; tail -n 8 "$f" >&2; }
	done
	etcd_lab_down
}

etcd_bench_up() {
	lab_init "$1" 1 || exit 1
	mkdir -p "$LAB_DIR" && : >"$LAB_PIDS"
	LAB_ON_EXIT=_etcd_bench_on_exit
	lab_cleanup_on_exit
	etcd_lab_up || sy_die "a veth pair for etcd"
	# 8 GB of backend: 100k routes, their bindings and one status per route and router.
	etcd_start --quota-backend-bytes 8589934592 --auto-compaction-mode revision \
		--auto-compaction-retention 100000 || sy_die "etcd"
}

etcd_bench_routerd() {
	local name=$1 cfg=$LAB_DIR/$1.json
	mkdir -p "$LAB_DIR/$name-state"
	cat >"$cfg" <<EOF
{"workers": 1, "idle": "adaptive", "flows_per_worker": 1024,
 "eal": ["--log-level=*:notice", "--no-huge", "--no-shconf", "-m", "256",
         "--file-prefix", "sy-$LAB_ID-$name"],
 "control_socket": "$LAB_DIR/$name.sock", "state_dir": "$LAB_DIR/$name-state",
 "router_name": "$name", "scheduler": $2, "scheduler_retry_s": 10,
 "store": {"etcd": {"endpoints": ["$E_URL"], "prefix": "$EB_PREFIX", "lease_ttl_s": 10}}}
EOF
	setsid "$ROUTERD" -c "$cfg" </dev/null >>"$LAB_DIR/$name.log" 2>&1 &
	EB_PID=$!
	lab_track "$EB_PID" routerd
}
