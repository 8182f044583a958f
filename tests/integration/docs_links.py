#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs_links: every relative link in README.md, docs/*.md, perf/README.md and
perf/journal/*.md points to a file (or directory) of the tree that exists, and every
#anchor to a heading of the markdown file it names (GitHub's heading ids).

Links inside code spans and fenced code blocks are not links. Absolute URLs (http:,
https:, mailto:) are not checked: the tests never go to the network.
Arguments: the source tree (default $SY_SRC). Prints TAP."""
import glob
import os
import re

from docs_tap import Tap, source_dir

SRC = source_dir()

FILES = ["README.md"] + sorted(
    os.path.relpath(p, SRC) for pat in ("docs/*.md", "perf/README.md", "perf/journal/*.md")
    for p in glob.glob(os.path.join(SRC, pat)))


def prose(text):
    """The text without fenced code blocks and code spans."""
    out, fence = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
            out.append("")
            continue
        out.append("" if fence else re.sub(r"`[^`]*`", "", line))
    return out


def anchors(path):
    """GitHub's ids of a markdown file's headings."""
    ids, seen = set(), {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))  # a link's text
        slug = re.sub(r"[^\w\- ]", "", title.replace("`", "").lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        ids.add(slug if n == 0 else f"{slug}-{n}")
    for m in re.finditer(r'<a\s+(?:name|id)="([^"]+)"', text):
        ids.add(m.group(1))
    return ids


LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)")

tap, total = Tap(), 0
for rel in FILES:
    path = os.path.join(SRC, rel)
    if not os.path.isfile(path):
        tap.check(False, f"{rel} exists", "missing")
        continue
    with open(path, encoding="utf-8") as f:
        lines = prose(f.read())
    bad = []
    for no, line in enumerate(lines, 1):
        targets = [m.group(1) for m in LINK.finditer(line)]
        m = REFDEF.match(line)
        if m:
            targets.append(m.group(1))
        for t in targets:
            if re.match(r"^[a-z][a-z0-9+.-]*:", t):  # http:, https:, mailto:...
                continue
            total += 1
            file_part, _, anchor = t.partition("#")
            target = path if file_part == "" else os.path.normpath(
                os.path.join(os.path.dirname(path), file_part))
            if os.path.relpath(target, SRC).split(os.sep)[0] == "..":
                bad.append(f"{rel}:{no}: {t}: outside the repository")
            elif not os.path.exists(target):
                bad.append(f"{rel}:{no}: {t}: no such file")
            elif anchor and target.endswith(".md") and anchor not in anchors(target):
                bad.append(f"{rel}:{no}: {t}: no heading #{anchor} in "
                           f"{os.path.relpath(target, SRC)}")
    tap.check(not bad, f"every relative link in {rel} resolves", "\n".join(bad))

if total == 0:
    tap.check(False, "relative links were found", "none in " + ", ".join(FILES))
tap.finish()
