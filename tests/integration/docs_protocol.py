#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs_protocol: docs/protocol.md, the one description of the control protocol, keeps up
with the server.

  1. every op in the server's op table (sy_ops_handle's `ops[]`, control/ops_*.c) has its
     entry in docs/protocol.md (a line starting `{"op":"NAME"`), and every op described
     there is in the table;
  2. the unknown_op error's list of known ops is the op table;
  3. every error code the server sends (sy_err_reply1("CODE", ...),
     sy_err_add(e, "CODE", ...) under control/) is a row of the error-code table.

Arguments: the source tree (default $SY_SRC). Prints TAP."""
import glob
import os
import re

from docs_tap import Tap, source_dir

SRC = source_dir()
tap = Tap()
check = tap.check


def strip_comments(c):
    c = re.sub(r"/\*.*?\*/", " ", c, flags=re.S)
    return re.sub(r"//[^\n]*", " ", c)


sources = {}
for path in sorted(glob.glob(os.path.join(SRC, "control", "**", "*.c"), recursive=True)):
    with open(path, encoding="utf-8", errors="replace") as f:
        sources[os.path.relpath(path, SRC)] = strip_comments(f.read())

# The op table: `ops[] = { { "name", fn }, ... };` in an ops_*.c file.
ops, table_file = [], None
for name, text in sources.items():
    if not os.path.basename(name).startswith("ops_"):
        continue
    m = re.search(r"\bops\s*\[\s*\]\s*=\s*\{(.*?)\};", text, re.S)
    if m:
        ops = re.findall(r'\{\s*"([^"]+)"\s*,\s*[A-Za-z_]\w*\s*\}', m.group(1))
        table_file = name
        break
check(table_file is not None and len(ops) >= 5,
      f"the server's op table is found ({table_file}: {len(ops)} ops)",
      "no `ops[] = {{ \"name\", fn }}, ...` table in control/ops_*.c" if not ops else "")

doc = tap.read(SRC, "docs/protocol.md")

documented = re.findall(r'^`\{"op":"([^"]+)"', doc, re.M)
missing = [o for o in ops if o not in documented]
check(ops and not missing, "every op the server implements is described in docs/protocol.md",
      "not described: " + ", ".join(missing))
stale = [o for o in documented if o not in ops]
check(not stale, "every op docs/protocol.md describes is implemented",
      "described but not in the op table: " + ", ".join(stale))

# The unknown_op error names the known ops: the same set as the table.
known = None
if table_file:
    raw = open(os.path.join(SRC, table_file), encoding="utf-8").read()
    m = re.search(r'unknown op \\"%s\\" \(known: ((?:[^)"]|"\s*")*)\)', raw)
    if m:
        known = [k.strip() for k in re.sub(r'"\s*"', "", m.group(1)).split(",")]
check(known is not None and sorted(known) == sorted(ops),
      "the unknown_op error lists exactly the op table's ops",
      f"table {sorted(ops)}, message {sorted(known) if known else 'not found'}")

# Error codes the server sends, and the error-code table's rows.
codes = set()
for text in sources.values():
    codes.update(re.findall(
        r'sy_err_(?:reply1\(\s*|add\(\s*[^,()]+,\s*)"([a-z_]+)"', text))
table_codes = set(re.findall(r"^\|\s*`([a-z_]+)`\s*\|", doc, re.M))
undocumented = sorted(codes - table_codes)
check(len(codes) >= 5 and not undocumented,
      f"every error code the server sends ({len(codes)}) has its row in docs/protocol.md",
      "no row: " + ", ".join(undocumented))

tap.finish()
