#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs_citations: no file in the tree cites the founding design notes that were kept
beside the repository (a clone does not have them): the design lives in
docs/architecture.md, and code, scripts and docs cite it there.

Walks SY_SRC (or the first argument), skipping .git and build directories (any
directory with a meson-private/ or build.ninja), and prints TAP."""
import os
import re
import sys

SRC = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SY_SRC")
if not SRC:
    sys.exit("SY_SRC is not set (run through meson test)")

# Spelt in two halves so that this file does not cite them itself.
NOTES = ["DES" + "IGN.md", "SPL" + "ICE.md"]
PATTERN = re.compile(r"\b(" + "|".join(re.escape(n) for n in NOTES) + r")")


def is_build_dir(path):
    return os.path.isdir(os.path.join(path, "meson-private")) or \
        os.path.isfile(os.path.join(path, "build.ninja"))


hits, files = [], 0
for root, dirs, names in os.walk(SRC):
    dirs[:] = sorted(d for d in dirs
                     if d != ".git" and not is_build_dir(os.path.join(root, d)))
    for name in sorted(names):
        path = os.path.join(root, name)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if b"\0" in data[:4096]:
            continue  # binary (fuzz corpora, pcaps)
        files += 1
        for no, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if PATTERN.search(line):
                hits.append(f"{os.path.relpath(path, SRC)}:{no}: {line.strip()}")

if files == 0:
    print(f"not ok 1 - no text files found under {SRC}")
elif hits:
    print(f"not ok 1 - {len(hits)} line(s) cite {' or '.join(NOTES)}; "
          "cite docs/architecture.md (its section numbers) instead:")
    for h in hits:
        print("#   " + h)
else:
    print(f"ok 1 - none of {files} text files cites {' or '.join(NOTES)}")
print("1..1")
sys.exit(1 if hits or files == 0 else 0)
