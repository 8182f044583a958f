#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs_config_keys: every key routerd's config accepts has its row in
docs/configuration.md, and every row there names a key routerd accepts.

The keys come from the parser itself. Each object of the config is parsed by a function
that refuses an unknown key with "PREFIX.%s: unknown key (known: a, b, c)"; those lists,
with their prefixes, are the accepted keys (control/config/config.c, control/config/config_vrrp.c,
control/config/config_client_certs.c, control/config/config_h2.c, control/etcd/store_config.c). So that the lists cannot drift from what the parser does,
every name the parsers compare a key with (strcmp(key, "x"), json_object_get(o, "x"),
a `known[]` array, int_key(o, "x", ...), tls_file(o, "x", ...)) must be in some list, and
every key used by the config files in the tree (config/*.json, perf/*.json) must be
accepted.

A row is a table line of docs/configuration.md whose first cell is the key in backticks:
`tls.tickets`, `ports[].mtu`. Arguments: the source tree (default $SY_SRC). Prints TAP."""
import glob
import json
import os
import re

from docs_tap import Tap, source_dir

SRC = source_dir()

PARSERS = ["control/config/config.c", "control/config/config_vrrp.c", "control/config/config_client_certs.c",
           "control/config/config_h2.c", "control/etcd/store_config.c"]
# Parsers whose message prefix is a "%s" filled at run time: the function says which object.
PREFIX_OF_FUNCTION = {"parse_top": "", "parse_port": "ports[]."}

tap = Tap()
check = tap.check


LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def strip_comments(c):
    # Comments out, string literals kept (a "/*" inside a literal is not a comment).
    out, i = [], 0
    pat = re.compile(r'"(?:[^"\\\n]|\\.)*"|/\*.*?\*/|//[^\n]*', re.S)
    for m in pat.finditer(c):
        out.append(c[i:m.start()])
        out.append(m.group(0) if m.group(0).startswith('"') else " ")
        i = m.end()
    out.append(c[i:])
    return "".join(out)


def merged_literals(c):
    """(position, text) of each string literal, adjacent literals joined as C joins them."""
    found = []
    for m in LITERAL.finditer(c):
        text = bytes(m.group(0)[1:-1], "utf-8").decode("unicode_escape")
        if found and c[found[-1][2]:m.start()].strip() == "":
            pos, prev, _ = found[-1]
            found[-1] = (pos, prev + text, m.end())
        else:
            found.append((m.start(), text, m.end()))
    return [(p, t) for p, t, _ in found]


def function_at(c, pos):
    """The function a position is in: the last `name(` at the start of a line before it."""
    names = [m for m in re.finditer(r"^([a-z_][a-z0-9_]*)\(", c, re.M) if m.start() < pos]
    return names[-1].group(1) if names else None


accepted = set()          # full key paths
compared = {}             # leaf name -> file where a parser compares a key with it
problems = []
for rel in PARSERS:
    try:
        with open(os.path.join(SRC, rel), encoding="utf-8") as f:
            c = strip_comments(f.read())
    except OSError as e:
        problems.append(f"{rel}: {e}")
        continue
    lists = 0
    for pos, text in merged_literals(c):
        m = re.match(r"^(.*?)%s: unknown key \(known: ([^);]*)", text)
        if not m:
            continue
        lists += 1
        prefix = m.group(1)
        if prefix == "":
            fn = function_at(c, pos)
            if fn not in PREFIX_OF_FUNCTION:
                problems.append(f"{rel}: an unknown-key message with a run-time prefix in "
                                f"{fn}(), which this test does not know (PREFIX_OF_FUNCTION)")
                continue
            prefix = PREFIX_OF_FUNCTION[fn]
        prefix = re.sub(r"\[%z?u\]", "[]", prefix)
        for k in m.group(2).split(","):
            if k.strip():
                accepted.add(prefix + k.strip())
    if lists == 0:
        problems.append(f"{rel}: no \"unknown key (known: ...)\" message found")
    # Names the parsers compare keys with.
    for pat in (r'strcmp\(\s*key\s*,\s*"([a-z_0-9]+)"\s*\)',
                r'json_object_get\(\s*[^,()]+,\s*"([a-z_0-9]+)"\s*\)',
                r'\b(?:int_key|tls_file)\(\s*[^,()]+,\s*"([a-z_0-9]+)"'):
        for name in re.findall(pat, c):
            compared.setdefault(name, rel)
    for arr in re.findall(r"\bknown\s*\[\s*\]\s*=\s*\{([^}]*)\}", c):
        for name in re.findall(r'"([a-z_0-9]+)"', arr):
            compared.setdefault(name, rel)

check(not problems and len(accepted) >= 30,
      f"the parser's keys are found ({len(accepted)} keys in {len(PARSERS)} files)",
      "; ".join(problems))

# Every object holding keys is a key itself (its row says what the object is).
orphans = []
for key in sorted(accepted):
    parts = key.split(".")
    for i in range(1, len(parts)):
        parent = ".".join(parts[:i])
        parent = parent[:-2] if parent.endswith("[]") else parent
        if parent not in accepted:
            orphans.append(f"{key} (no {parent})")
check(not orphans, "every object that holds keys is a key itself", ", ".join(orphans))

leaves = {re.split(r"[.\]]", k)[-1] for k in accepted}
unlisted = sorted(f"{n} ({f})" for n, f in compared.items() if n not in leaves)
check(not unlisted,
      "every name the parsers compare a key with is in an unknown-key message's list",
      "compared but in no list (add it to the message, then a row): " + ", ".join(unlisted))


def key_paths(value, prefix=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield prefix + k
            yield from key_paths(v, prefix + k + ".")
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, dict):
                yield from key_paths(v, prefix[:-1] + "[].")


used, unreadable = {}, []
for pattern in ("config/*.json", "perf/*.json"):
    for path in sorted(glob.glob(os.path.join(SRC, pattern))):
        try:
            with open(path, encoding="utf-8") as f:
                cfg = json.load(f)
        except (OSError, ValueError) as e:
            unreadable.append(f"{os.path.relpath(path, SRC)}: {e}")
            continue
        if isinstance(cfg, dict) and "ports" in cfg:  # a routerd config
            for k in key_paths(cfg):
                used.setdefault(k, os.path.relpath(path, SRC))
strange = sorted(f"{k} ({f})" for k, f in used.items() if k not in accepted)
check(used and not strange and not unreadable,
      f"every key of the tree's routerd configs ({len(used)} distinct) is accepted",
      "; ".join(unreadable + ["not accepted: " + ", ".join(strange)] if strange else unreadable)
      or "no routerd config found under config/ or perf/")

doc = tap.read(SRC, "docs/configuration.md")
# Rows of the key tables only: a table whose header starts "| key |".
key_rows, in_key_table = [], False
for line in doc.splitlines():
    if re.match(r"^\|\s*key\s*\|", line):
        in_key_table = True
    elif not line.startswith("|"):
        in_key_table = False
    elif in_key_table:
        m = re.match(r"^\|\s*`([^`]+)`\s*\|", line)
        if m:
            key_rows.append(m.group(1))
missing = sorted(accepted - set(key_rows))
check(accepted and not missing, "every key routerd accepts has its row in docs/configuration.md",
      "no row: " + ", ".join(missing))
extra = sorted(set(key_rows) - accepted)
check(key_rows and not extra, "every row of docs/configuration.md's key tables is a key routerd accepts",
      "not accepted by routerd: " + ", ".join(extra))
dups = sorted({k for k in key_rows if key_rows.count(k) > 1})
check(not dups, "no key has two rows", ", ".join(dups))

tap.finish()
