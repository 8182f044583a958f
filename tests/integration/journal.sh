#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# journal: applied objects survive kill -9 with the same uid and creationTimestamp; a torn
# record at the journal's end is skipped with a warning, and what follows it is kept.
source "$(dirname "$0")/testlib.sh"

t_setup jnl 1
t_start_routerd

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply -f config/routes.yaml"
t_ok "apply -f config/routes.yaml"

# identities: one line "Kind ns/name uid creationTimestamp" per object, sorted. Sets IDS.
identities() {
	local k all=
	for k in routes services endpoints; do
		rctl get "$k" -o json
		[ "$T_RC" -eq 0 ] || t_fail "get $k -o json ($1)" "seen: $(t_seen)"
		all+=$(python3 -c '
import json, sys
d = json.loads(sys.argv[1])
items = d["items"] if isinstance(d, dict) and "items" in d else d if isinstance(d, list) else [d]
for o in items:
    m = o["metadata"]
    print(sys.argv[2], m.get("namespace"), m["name"], m.get("uid"), m.get("creationTimestamp"))
' "$T_OUT" "$k")$'\n'
	done
	IDS=$(sort <<<"$all" | grep .)
}
identities "before the restart"
ids1=$IDS
n=$(grep -c . <<<"$ids1")
[ "$n" -eq 10 ] || t_fail "10 objects (6 routes, 2 services, 2 endpoints) before the restart" "seen $n: $ids1"
grep -q ' None' <<<"$ids1" && t_fail "every object has a uid and a creationTimestamp" "seen: $ids1"
t_ok "10 objects with uid and creationTimestamp recorded"

# Timestamps have one-second resolution: make sure a re-created object would differ.
sleep 1.2
lab_routerd_stop 5 KILL
t_ok "routerd killed with SIGKILL (status $ROUTERD_STATUS)"

t_start_routerd "routerd restarted on the same state_dir after kill -9"
identities "after kill -9 and restart"
[ "$IDS" = "$ids1" ] || t_fail "same objects, uids and creationTimestamps after kill -9" \
	"before: $(tr '\n' ';' <<<"$ids1")" "after:  $(tr '\n' ';' <<<"$IDS")"
t_ok "after kill -9 + restart: every object back with the same uid and creationTimestamp"

rctl resolve http://web.lab.switchyard.test/ -o json
t_json_expect "$T_OUT" "d['object'] == 'demo/web'" "the replayed routes are live (resolve web -> demo/web)"
t_ok "the replayed generation serves (resolve web -> demo/web)"

# --- a torn record ---
lab_routerd_stop 5 KILL
mapfile -t journals < <(find "$LAB_STATE_DIR" -maxdepth 2 -type f -size +0 | sort)
[ "${#journals[@]}" -gt 0 ] || t_fail "a journal file under state_dir" "nothing in $LAB_STATE_DIR: $(ls -la "$LAB_STATE_DIR")"
t_note "state_dir files: ${journals[*]}"
torn_any=0
for j in "${journals[@]}"; do
	# Append the first half of the file's last record, without its end.
	t_run python3 - "$j" <<'PY'
import sys
p = sys.argv[1]
data = open(p, "rb").read()
if not data.endswith(b"\n"):
    sys.exit(f"{p}: does not end with a newline: not a line journal, or already torn")
last = data[:-1].rsplit(b"\n", 1)[-1]
torn = last[: max(8, len(last) // 2)]
with open(p, "ab") as f:
    f.write(torn)
print(f"{p}: appended {len(torn)} of the {len(last) + 1} bytes of its last record")
PY
	[ "$T_RC" -eq 0 ] && torn_any=1 && t_note "$T_OUT"
done
[ "$torn_any" -eq 1 ] || t_fail "append a torn record to a journal file" "$T_ERR"
log_lines=$(wc -l <"$LAB_ROUTERD_LOG")

t_start_routerd "routerd starts on a journal with a torn last record"
new_log=$(tail -n +"$((log_lines + 1))" "$LAB_ROUTERD_LOG")
grep -Eiq 'torn|truncat|partial|incomplete' <<<"$new_log" ||
	t_fail "routerd logs a warning about the torn record" "log since the restart: ${new_log:0:2000}"
t_ok "routerd warns: $(grep -Ei 'torn|truncat|partial|incomplete' <<<"$new_log" | head -n 1)"
identities "after the torn record"
[ "$IDS" = "$ids1" ] || t_fail "every object still served after the torn record" \
	"before: $(tr '\n' ';' <<<"$ids1")" "after:  $(tr '\n' ';' <<<"$IDS")"
t_ok "every object still served, same uids and creationTimestamps"

# What is applied after the recovery must survive the next restart too (the torn bytes were
# cut off, not left in the middle of the journal).
cat >"$LAB_DIR/after.yaml" <<'Y'
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: after-torn, namespace: demo}
spec: {host: after.lab.switchyard.test, to: {kind: Service, name: b}}
Y
rctl apply -f "$LAB_DIR/after.yaml"
t_expect_rc 0 "apply after recovering from the torn record"
lab_routerd_stop 5 KILL
t_start_routerd "routerd restarted again"
rctl get route after-torn -n demo -o json
t_expect_rc 0 "route applied after the torn-record recovery survives a restart"
identities "after the third start"
[ "$(grep -v ' after-torn ' <<<"$IDS")" = "$ids1" ] ||
	t_fail "the first 10 objects are unchanged after the third start" "seen: $(tr '\n' ';' <<<"$IDS")"
t_ok "a route applied after recovery survives the next restart; the old objects too"
last_log=$(awk '/^=== .* starting /{buf=""} {buf = buf $0 "\n"} END {printf "%s", buf}' "$LAB_ROUTERD_LOG")
! grep -Eiq 'torn|truncat|partial|incomplete' <<<"$last_log" ||
	t_fail "no torn-record warning on the start after recovery (the torn tail was cut off)" "log: ${last_log:0:2000}"
t_ok "no torn-record warning on the following start: the tail was cut off"

t_finish
