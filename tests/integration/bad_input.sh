#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bad_input: every kind of bad input gets its own error and leaves the previous generation
# live; the raw protocol survives garbage, unknown ops and over-size lines on one connection.
source "$(dirname "$0")/testlib.sh"

t_setup bad 1
t_start_routerd

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply -f config/routes.yaml"
t_ok "apply -f config/routes.yaml"

# The live state to compare against after every rejected input: status's generation and
# object counts, and what web resolves to. snapshot sets SNAP.
snapshot() {
	local status
	rctl status -o json
	[ "$T_RC" -eq 0 ] || t_fail "status -o json" "seen: $(t_seen)"
	status=$T_OUT
	rctl resolve http://web.lab.switchyard.test/ -o json
	[ "$T_RC" -eq 0 ] || t_fail "resolve web" "seen: $(t_seen)"
	SNAP="$(t_json "$status" '[d["generation"], d["objects"]]') $(t_json "$T_OUT" '[d["generation"], d["object"], d["endpoints"]]')"
}
snapshot
before=$SNAP
t_note "live state: $before"
expect_unchanged() {
	snapshot
	[ "$SNAP" = "$before" ] || t_fail "$1: the previous generation must stay live" "before: $before" "after: $SNAP"
}

B=$LAB_DIR/bad
mkdir -p "$B"

# raw_apply FILE.json: send the objects of FILE (a JSON list) as one raw apply request and
# print "code|field|object" of the first error ("ok" when accepted).
raw_apply() {
	python3 - "$LAB_SOCKET" "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(30)
s.connect(sys.argv[1])
s.sendall(json.dumps({"op": "apply", "objects": json.load(open(sys.argv[2]))}).encode() + b"\n")
r = json.loads(s.makefile("rb").readline())
e = r.get("error") or {}
print("ok" if r.get("ok") else f'{e.get("code")}|{e.get("field")}|{e.get("object")}')
PY
}

# bad_case NAME WANT-CODE WANT-FIELD MSG-REGEX WHAT: $B/NAME.json holds a JSON list of objects;
# apply it with routerctl (as YAML documents) and raw; both must be rejected with the code
# (and field), and nothing may change.
bad_case() {
	local name=$1 code=$2 field=$3 re=$4 what=$5 msg seen
	python3 -c '
import json, sys
print("\n---\n".join(json.dumps(o) for o in json.load(open(sys.argv[1]))))' "$B/$name.json" >"$B/$name.yaml"
	rctl apply -f "$B/$name.yaml"
	t_expect_rc 1 "$what: routerctl apply exits 1"
	t_expect_out "$re" "$what: routerctl's message"
	msg=$(head -n 1 <<<"$T_ERR$T_OUT")
	expect_unchanged "$what (routerctl)"
	seen=$(raw_apply "$B/$name.json")
	[[ $seen == "$code|"* ]] || t_fail "$what: the protocol's error code is $code" "seen (code|field|object): $seen"
	[ -z "$field" ] || [[ $seen == "$code|$field|"* ]] ||
		t_fail "$what: the error names field $field" "seen (code|field|object): $seen"
	expect_unchanged "$what (raw apply)"
	t_ok "$what: rejected ($seen); routerctl: $msg"
}

# 1. Not YAML / not JSON: routerctl refuses it before sending anything.
printf 'apiVersion: v1\nkind: Service\nmetadata: [unclosed\n  name: x\n' >"$B/broken.yaml"
printf '{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"' >"$B/broken.json"
for f in broken.yaml broken.json; do
	rctl apply -f "$B/$f"
	t_expect_rc '1|2' "apply of an unparsable file ($f)"
	t_expect_out "$f:[0-9]+" "apply of $f: the message names the file and line"
	msg=$(head -n 1 <<<"$T_ERR$T_OUT")
	rc=$T_RC
	expect_unchanged "apply of $f"
	t_ok "apply of an unparsable file ($f): exit $rc, $msg"
done

# 2. Unknown kind.
cat >"$B/unknown-kind.json" <<'J'
[{"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "g", "namespace": "demo"}, "spec": {}}]
J
bad_case unknown-kind unknown_kind "" 'Gizmo' "unknown kind"

# 3. A required field missing.
cat >"$B/no-to-name.json" <<'J'
[{"apiVersion": "route.openshift.io/v1", "kind": "Route", "metadata": {"name": "broken", "namespace": "demo"},
  "spec": {"host": "broken.lab.switchyard.test", "to": {"kind": "Service"}}}]
J
bad_case no-to-name invalid spec.to.name 'spec\.to\.name' "Route without spec.to.name"
rctl get route broken -n demo
t_expect_rc 1 "the rejected route does not exist"

# 4. The same object twice in one apply.
cat >"$B/dup.json" <<'J'
[{"apiVersion": "route.openshift.io/v1", "kind": "Route", "metadata": {"name": "twice", "namespace": "demo"},
  "spec": {"host": "twice.lab.switchyard.test", "to": {"kind": "Service", "name": "a"}}},
 {"apiVersion": "route.openshift.io/v1", "kind": "Route", "metadata": {"name": "twice", "namespace": "demo"},
  "spec": {"host": "twice2.lab.switchyard.test", "to": {"kind": "Service", "name": "b"}}}]
J
bad_case dup duplicate "" 'twice' "the same Route twice in one apply"
rctl get route twice -n demo
t_expect_rc 1 "no route 'twice' after the rejected apply"

# 5. Three objects, one bad: all or nothing.
cat >"$B/batch.json" <<'J'
[{"apiVersion": "route.openshift.io/v1", "kind": "Route", "metadata": {"name": "good1", "namespace": "demo"},
  "spec": {"host": "good1.lab.switchyard.test", "to": {"kind": "Service", "name": "a"}}},
 {"apiVersion": "route.openshift.io/v1", "kind": "Route", "metadata": {"name": "bad", "namespace": "demo"},
  "spec": {"host": "bad.lab.switchyard.test", "to": {"kind": "Service"}}},
 {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "good2", "namespace": "demo"},
  "spec": {"ports": [{"name": "http", "port": 80, "targetPort": 80}]}}]
J
bad_case batch invalid spec.to.name 'spec\.to\.name' "a batch of three with one bad object"
rctl get route good1 -n demo
t_expect_rc 1 "good1 (good, in the rejected batch) was not created"
rctl get service good2 -n demo
t_expect_rc 1 "good2 (good, in the rejected batch) was not created"
t_ok "the two good objects of the rejected batch were not created"

# 6. The raw protocol on one connection.
t_run python3 - "$LAB_SOCKET" <<'PY'
import json, socket, sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(60)
s.connect(sys.argv[1])
f = s.makefile("rb")

def reply(what):
    line = f.readline()
    if not line:
        sys.exit(f"{what}: the connection was closed instead of an error reply")
    try:
        r = json.loads(line)
    except ValueError:
        sys.exit(f"{what}: reply is not JSON: {line[:300]!r}")
    return r

def expect_error(req, code, what):
    s.sendall(req)
    r = reply(what)
    if r.get("ok") is not False or not isinstance(r.get("error"), dict) or r["error"].get("code") != code:
        sys.exit(f"{what}: expected ok:false with error.code {code!r}, seen {json.dumps(r)[:500]}")
    if not isinstance(r.get("errors"), list) or not r["errors"] or not r["error"].get("message"):
        sys.exit(f"{what}: expected errors[] and a message, seen {json.dumps(r)[:500]}")
    print(f"ok: {what} -> {code}: {r['error'].get('message')}")

def expect_status(what):
    s.sendall(b'{"op":"status"}\n')
    r = reply(what)
    if r.get("ok") is not True or "generation" not in r:
        sys.exit(f"{what}: expected ok:true with a generation, seen {json.dumps(r)[:500]}")
    print(f"ok: {what}: status answers, generation {r['generation']}")

expect_error(b"this is not json\n", "bad_request", "a non-JSON line")
expect_status("after a non-JSON line")
expect_error(b"[1, 2, 3]\n", "bad_request", "a JSON line that is not an object")
expect_error(b'{"no_op": true}\n', "bad_request", "an object without op")
expect_error(b'{"op":"frobnicate"}\n', "unknown_op", "an unknown op")
expect_status("after an unknown op")
big = b'{"op":"status","pad":"' + b"x" * (16 * 1024 * 1024 + 64) + b'"}\n'
expect_error(big, "too_large", "a line over 16 MiB")
expect_status("after an over-size line")

# An apply with a bad object: error names kind/namespace/name and the field.
bad = {"op": "apply", "objects": [{"apiVersion": "route.openshift.io/v1", "kind": "Route",
       "metadata": {"name": "raw", "namespace": "demo"},
       "spec": {"host": "raw.lab.switchyard.test", "to": {"kind": "Service"}}}]}
s.sendall(json.dumps(bad).encode() + b"\n")
r = reply("apply of a Route without spec.to.name")
e = r.get("error") or {}
if r.get("ok") is not False or e.get("code") != "invalid" or e.get("field") != "spec.to.name" \
        or "demo/raw" not in str(e.get("object")):
    sys.exit(f"raw apply: expected invalid, field spec.to.name, object naming demo/raw; seen {json.dumps(r)[:500]}")
print(f"ok: raw apply -> invalid {e.get('object')} {e.get('field')}")

# Two requests in one write: two replies, in order.
s.sendall(b'{"op":"status"}\n{"op":"nope"}\n')
a, b = reply("pipelined 1"), reply("pipelined 2")
if a.get("ok") is not True or (b.get("error") or {}).get("code") != "unknown_op":
    sys.exit(f"pipelined requests: expected status then unknown_op, seen {a} / {b}")
print("ok: two requests in one write answered in order")
expect_status("at the end")
PY
[ "$T_RC" -eq 0 ] || t_fail "raw protocol on one connection" "$T_OUT" "$T_ERR"
while read -r l; do t_note "$l"; done <<<"$T_OUT"
expect_unchanged "raw protocol requests"
t_ok "raw protocol: bad_request, unknown_op, too_large each answered; the same connection then serves status"

t_finish
