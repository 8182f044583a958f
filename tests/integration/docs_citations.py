#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs_citations: no file in the tree cites the founding design notes that were kept
beside the repository (a clone does not have them): the design lives in
docs/architecture.md, and code, scripts and docs cite it there.

Walks SY_SRC (or the first argument), skipping .git and build directories (any
directory with a meson-private/ or build.ninja), and prints TAP."""
import os
import re

from docs_tap import Tap, source_dir

SRC = source_dir()

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

tap = Tap()
tap.check(files > 0, f"text files are found under {SRC} ({files})")
tap.check(not hits, f"no text file cites {' or '.join(NOTES)}",
          f"{len(hits)} line(s) cite them; cite docs/architecture.md (its section numbers) "
          "instead:\n" + "\n".join(hits))
tap.finish()
