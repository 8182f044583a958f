#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# etcd_cache: the etcd store's local copy of a store too big to print in one go
# (docs/operations.md "Store on etcd"; control/etcd/cache.h). The test starts its own etcd
# on a 198.18.0.0/15 address of a veth pair it makes (and removes), puts 20,000 Services
# into it through the gateway (perf/lib/fleet_bench.py's put_all: txns of 128), and starts
# one routerd without ports on it. Checked: the control thread prints the copy in many
# slices, each short, and the file holds every object; a change that comes while a copy is
# being printed drops that print (status: restarted), and the copy written after it has
# the change; the copy loads: routerd restarted with etcd stopped serves the 20,000
# objects from it; no sanitizer report or leak at its exit.
source "$(dirname "$0")/testlib.sh"

command -v etcd >/dev/null && command -v etcdctl >/dev/null ||
	t_skip_all "etcd and etcdctl are needed (Debian: etcd-server etcd-client)"
t_setup_bare eca

source "$SY_SRC/tools/lib/etcd_lab.sh"
PFX=/sy-$LAB_ID/
N=20000
B_PID=
B_LOG=$LAB_DIR/routerd-b.log
B_SOCK=$LAB_DIR/b.sock
COPY=$LAB_DIR/mem/b-state/etcd-cache.jsonl
etcd_cache_on_exit() {
	_t_on_exit "$1"
	if [ "$1" -ne 0 ] && [ -s "$B_LOG" ]; then
		printf '# --- last 20 lines of %s ---\n' "$B_LOG"
		tail -n 20 "$B_LOG" | sed 's/^/# /'
	fi
	[ -n "$B_PID" ] && _lab_stop_pid "$B_PID" 10
	etcd_lab_down
	[ -n "$MEM_TMPFS" ] && umount "$LAB_DIR/mem"
	return 0
}
LAB_ON_EXIT=etcd_cache_on_exit
etcd_lab_up || t_fail "a veth pair with an address for etcd"
# etcd's data and b's state (its copy) on a tmpfs of the test's own. On the disk, b's
# copy (160 MB) took 1.5 s to write, 3-4 s under the sanitizer, and the next print waits ten
# times that: it did not start within the 6 s each try waits for it. And etcd's commits no
# longer wait behind that write. (A put made while a print runs still took 85-110 ms here
# on 2026-11-29, against 2 ms just before it, with the data on disk or not; why is not
# known. The print is made long enough instead, below.)
MEM_TMPFS=
mkdir -p "$LAB_DIR/mem" && mount -t tmpfs -o size=2g,mode=0700 sy-etcd-cache "$LAB_DIR/mem" &&
	MEM_TMPFS=1 || t_fail "a tmpfs at $LAB_DIR/mem"
E_DATA=$LAB_DIR/mem/etcd
etcd_start || t_fail "etcd answers on $E_URL"
t_ok "etcd $E_URL up (pid $E_PID)"

# put_services FROM TO LABEL: Services s<FROM>..s<TO-1> (namespace n<i/100>), label v=LABEL.
put_services() {
	python3 - "$E_URL" "$PFX" "$1" "$2" "$3" "$SY_SRC/perf/lib" <<'PY'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[6])
from fleet_bench import put_all
url, pfx, a, b, label = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
# An 8 KB annotation each: the copy is printed in about 100 ms rather than 15-20 ms, long
# enough for a put to land during a print (below; with 4 KB, 50 ms, a put that etcd
# answered in 90 ms came back after it).
note = "x" * 8192
put_all(url, ((f"{pfx}objects/service/n{i // 100}/s{i}",
               {"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": f"s{i}", "namespace": f"n{i // 100}", "labels": {"v": label},
                             "annotations": {"test.switchyard/note": note}},
                "spec": {"ports": [{"name": "http", "port": 80}]}}) for i in range(a, b)))
PY
}
t_run put_services 0 "$N" 0
t_expect_rc 0 "put $N Services into etcd"
t_ok "$N Services in etcd"

cat >"$LAB_DIR/b.json" <<EOF
{"workers": 1, "idle": "adaptive", "eal": ["--log-level=*:notice"],
 "control_socket": "$B_SOCK", "state_dir": "$LAB_DIR/mem/b-state", "router_name": "b",
 "routing_subdomain": "$LAB_ROUTING_SUBDOMAIN",
 "store": {"etcd": {"endpoints": ["$E_URL"], "prefix": "$PFX", "lease_ttl_s": 3}}}
EOF
# Without SY_COMPILE_VERIFY (the suite sets it): after every change it compiles all 20,000
# objects again to check the incremental compile, a second of the control thread each time
# here, and a put of s1 then came back through the watch after the 50 ms print was over
# (five tries out of five, 2026-11-29).
b_start() {
	setsid env -u SY_COMPILE_VERIFY "$ROUTERD" -c "$LAB_DIR/b.json" </dev/null >>"$B_LOG" 2>&1 &
	B_PID=$!
	lab_track "$B_PID" routerd-b
	sy_poll 30 "$ROUTERCTL" -s "$B_SOCK" status >/dev/null 2>&1 ||
		t_fail "routerd b answers" "$(tail -n 20 "$B_LOG")"
}
cache_of() { store_of "$B_SOCK" "d['cache']$1"; }
# copy_wait: seconds to wait for the next copy: 30, and the hold routerd reports after a slow
# write (ten times what it took; a 5.8 s write in CI held the next one 58 s).
copy_wait() {
	local held
	held=$(cache_of "['next_write_in_ms']")
	[[ "$held" =~ ^[0-9]+$ ]] || held=0
	echo $((30 + held / 1000))
}
services() { "$ROUTERCTL" -s "$B_SOCK" status -o json | python3 -c "import json,sys; print(json.load(sys.stdin)['objects'].get('Service', 0))"; }
has_all() { [ "$(services)" = "$N" ]; }
current() { [ "$(cache_of "['current']")" = true ]; }
b_start
poll_until 60 has_all || t_fail "routerd b holds the $N Services" "it holds $(services)"
poll_until 30 current || t_fail "b's copy holds its live generation" "$(cache_of "")"
SLICES=$(cache_of "['serialize_slices']")
[ "${SLICES:-0}" -gt 1 ] 2>/dev/null || t_fail "the copy was printed in slices" "$(cache_of "")"
[ "$(cache_of "['objects_written']")" = "$N" ] || t_fail "the copy says $N objects" "$(cache_of "")"
# copy_check LABEL_OF_S1: every line one object, the N Services once each, s1's label.
copy_check() {
	python3 - "$COPY" "$N" "$1" <<'PY'
import json, sys
path, n, want = sys.argv[1], int(sys.argv[2]), sys.argv[3]
names, s1 = set(), None
for line in open(path):
    o = json.loads(line)["object"]
    names.add(o["metadata"]["name"])
    if o["metadata"]["name"] == "s1":
        s1 = o["metadata"]["labels"]["v"]
ok = names == {f"s{i}" for i in range(n)} and s1 == want
print(f"{len(names)} objects, s1 v={s1}")
sys.exit(0 if ok else 1)
PY
}
t_run copy_check 0
t_expect_rc 0 "the copy holds every Service once"
# A slice runs 0.2 ms before the loop turns (its wall time may stretch on a loaded machine:
# the CPU it took is the code's).
MAXCPU=$(cache_of "['serialize_slice_max_cpu_ms']")
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 20 else 1)" "$MAXCPU" ||
	t_fail "every slice of the print is short" "$(cache_of "")"
t_ok "copy of $N objects printed in $SLICES slices (at most $MAXCPU ms of CPU each, $(cache_of "['serialize_slice_max_ms']") ms of wall time; $(cache_of "['serialize_ms']") ms in all): $T_OUT"

# A change while a copy is being printed: put s0 (a new generation), wait for the print that
# follows it (status: printing, asked on one connection), and put s1 at once, again with a new
# label while the print lasts (75-85 ms with the 8 KB annotations). s1 goes out on a
# connection to etcd opened before the print starts. Tried up to 8 times: the first put
# during a print took 85-110 ms to be answered here, so it lands in some prints, not all.
# put_s1_during_print LABEL: prints "caught LAST" (LAST: s1's last label) when s1 was put
# while b was printing, with how long the first put took.
put_s1_during_print() {
	python3 - "$E_URL" "$PFX" "$B_SOCK" "$1" "$SY_SRC/perf/lib" <<'PY'
import base64, json, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[5])
from fleet_bench import Ctl, Gateway
url, pfx, sock, label = sys.argv[1:5]
ctl, gw = Ctl(sock), Gateway(url)
b64 = lambda s: base64.b64encode(s.encode()).decode()
key = b64(f"{pfx}objects/service/n0/s1")
def put_s1(v):
    obj = {"apiVersion": "v1", "kind": "Service",
           "metadata": {"name": "s1", "namespace": "n0", "labels": {"v": v}},
           "spec": {"ports": [{"name": "http", "port": 80}]}}
    gw.post("/v3/kv/txn", {"success": [{"requestPut": {
        "key": key, "value": b64(json.dumps(obj, separators=(",", ":")))}}]})
gw.post("/v3/kv/range", {"key": key})  # the connection is open before the print
# It starts 2-3 s after the change, or once a slow write's hold ends (a 5.8 s write under
# the sanitizer on a loaded machine held the next one for 58 s).
held = ctl.call({"op": "status"})["store"]["cache"]["next_write_in_ms"] / 1e3
deadline = time.monotonic() + held + 6
while time.monotonic() < deadline:
    # Asked every 3 ms, not back to back: a loop that never sleeps and routerd's print
    # held both cores, and etcd took 90 ms to answer the put.
    time.sleep(0.003)
    if ctl.call({"op": "status"})["store"]["cache"]["printing"]:
        last, k, t0 = f"{label}.0", 0, time.monotonic()
        put_s1(last)
        took = (time.monotonic() - t0) * 1e3
        # Bounded: at most 20 more puts, while the print still runs.
        while k < 20 and ctl.call({"op": "status"})["store"]["cache"]["printing"]:
            k += 1
            last = f"{label}.{k}"
            put_s1(last)
        print("caught (first put %.1f ms)" % took, last)
        break
else:
    print("missed")
PY
}
RESTARTED0=$(cache_of "['restarted']")
dropped=
for try in 1 2 3 4 5 6 7 8; do
	t_run put_services 0 1 "$try"
	t_expect_rc 0 "put s0"
	t_run put_s1_during_print "$try"
	t_expect_rc 0 "put s1 during a print"
	last_label=${T_OUT##* }
	if [ "$(cache_of "['restarted']")" -gt "$RESTARTED0" ]; then
		dropped=$try
		break
	fi
	t_note "try $try: s1 put during no print ($T_OUT)"
	poll_until "$(copy_wait)" current || t_fail "b's copy holds its live generation again" "$(cache_of "")"
done
[ -n "$dropped" ] || t_fail "a change during a print dropped it (8 tries)" "$(cache_of "")"
# The last put is live in b before its copy is asked for.
s1_label() {
	"$ROUTERCTL" -s "$B_SOCK" get service s1 -n n0 -o json |
		python3 -c "import json,sys; print(json.load(sys.stdin)['metadata']['labels']['v'])"
}
s1_is_last() { [ "$(s1_label 2>/dev/null)" = "$last_label" ]; }
poll_until 30 s1_is_last || t_fail "b holds s1's last put (v=$last_label)" "it holds v=$(s1_label)"
poll_until "$(copy_wait)" current || t_fail "b's copy holds its live generation after the change" "$(cache_of "")"
t_run copy_check "$last_label"
t_expect_rc 0 "the copy written after the change has it (s1 v=$last_label)"
t_ok "a change during a print dropped it (try $dropped; restarted $(cache_of "['restarted']")); the next copy has the change: $T_OUT"

# The copy loads: etcd stopped, b restarted, the objects come from the copy.
etcd_stop
_lab_stop_pid "$B_PID" 10
B_PID=
b_start
[ "$(cache_of "['loaded_at_start']")" = "$N" ] || t_fail "b loaded $N objects from its copy" "$(cache_of "")"
has_all || t_fail "b restarted with etcd down holds the $N Services" "it holds $(services)"
t_ok "b restarted with etcd stopped: $N objects from its copy"

# Stopped (SIGTERM) with its copy's chunks in hand or not: no sanitizer report, no leak.
_lab_stop_pid "$B_PID" 10
B_PID=
for re in "$T_SANITIZER_RE" "$T_LEAK_RE"; do
	grep -Eq -- "$re" "$B_LOG" 2>/dev/null &&
		t_fail "no sanitizer report from routerd b" "$(grep -E -A 20 -- "$re" "$B_LOG" | head -n 40)"
done
t_ok "routerd b stopped; no sanitizer report in its log"
t_finish
