#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# readme_protocol: README.md's control-protocol section is control/PROTOCOL.md (without its
# title, headings one level down), so the documented protocol is the same in both places.
set -uo pipefail
: "${SY_SRC:?SY_SRC is not set (run through meson test)}"
python3 - "$SY_SRC/README.md" "$SY_SRC/control/PROTOCOL.md" <<'PY'
import difflib, sys
readme, proto = (open(p).read() for p in sys.argv[1:3])
begin, end = "<!-- BEGIN control/PROTOCOL.md", "<!-- END control/PROTOCOL.md -->"
if begin not in readme or end not in readme:
    sys.exit("not ok 1 - README.md has no BEGIN/END control/PROTOCOL.md markers")
section = readme.split(begin, 1)[1].split("\n", 1)[1].split(end, 1)[0]
want, in_code = [], False
for line in proto.split("\n", 1)[1].lstrip("\n").splitlines():
    if line.startswith("```"):
        in_code = not in_code
    want.append("#" + line if not in_code and line.startswith("#") else line)
got = section.rstrip("\n").splitlines()
want = "\n".join(want).rstrip("\n").splitlines()
if got != want:
    diff = "\n".join(difflib.unified_diff(want, got, "control/PROTOCOL.md (headings demoted)", "README.md section", lineterm=""))
    sys.exit("not ok 1 - README.md's protocol section differs from control/PROTOCOL.md:\n" + diff)
print("ok 1 - README.md's protocol section matches control/PROTOCOL.md")
print("1..1")
PY
