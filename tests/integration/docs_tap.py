# SPDX-License-Identifier: BSD-3-Clause
"""What the docs_* tests share: the source tree they read, and their TAP output."""
import os
import sys


def source_dir():
    """The tree to read: the first argument, else $SY_SRC (set by meson test)."""
    src = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SY_SRC")
    if not src:
        sys.exit("SY_SRC is not set (run through meson test)")
    return src


class Tap:
    """Checks recorded in order, printed as TAP; a failed one prints its detail."""

    def __init__(self):
        self.results = []

    def check(self, ok, what, detail=""):
        self.results.append((bool(ok), what, detail))

    def read(self, src, rel):
        """The text of the file rel under src; "" and a failed check when it cannot be read."""
        try:
            with open(os.path.join(src, rel), encoding="utf-8") as f:
                return f.read()
        except OSError as e:
            self.check(False, f"{rel} can be read", str(e))
            return ""

    def finish(self):
        failed = 0
        for i, (ok, what, detail) in enumerate(self.results, 1):
            print(("ok" if ok else "not ok") + f" {i} - {what}")
            if not ok:
                failed += 1
                if detail:
                    print("#   " + detail.replace("\n", "\n#   "))
        print(f"1..{len(self.results)}")
        sys.exit(1 if failed or not self.results else 0)
