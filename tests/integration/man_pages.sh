#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# man_pages: docs/man/routerctl.1 and docs/man/routerd.8 are clean mdoc (mandoc -Tlint, no
# warning), every command and option of `routerctl --help` has its entry in routerctl(1)
# (.It Cm under COMMANDS, .It Fl under OPTIONS) and the page documents nothing routerctl no
# longer has; every flag of `routerd --help` and every config key routerd knows has its entry
# in routerd(8), which has the sections and files a router host needs. No root, no lab.
set -uo pipefail
: "${SY_SRC:?SY_SRC is not set (run through meson test)}"
: "${ROUTERD:?}" "${ROUTERCTL:?}"
T_NAME=man_pages
# shellcheck source=testlib.sh
source "$SY_SRC/tests/integration/testlib.sh"

man1=$SY_SRC/docs/man/routerctl.1
man8=$SY_SRC/docs/man/routerd.8
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. Lint: mandoc's warnings (style notes, such as a page it cannot find for .Xr, are not).
command -v mandoc >/dev/null || t_fail "mandoc not found (SY_PACKAGES: mandoc)"
for page in "$man1" "$man8"; do
	t_run mandoc -Tlint -W warning "$page"
	[ "$T_RC" -eq 0 ] && [ -z "$T_OUT$T_ERR" ] || t_fail "mandoc -Tlint $(basename "$page")" "$(t_seen)"
	t_ok "mandoc -Tlint -W warning $(basename "$page"): clean"
done

# 2. routerctl --help against routerctl(1).
t_run "$ROUTERCTL" --help
[ "$T_RC" -eq 0 ] || t_fail "routerctl --help" "$(t_seen)"
printf '%s\n' "$T_OUT" >"$tmp/routerctl.help"
t_run python3 - "$tmp/routerctl.help" "$man1" <<'PY'
import re, sys

help_text = open(sys.argv[1]).read()
page = open(sys.argv[2]).read().splitlines()

# `routerctl --help`: "  routerctl NAME ..." under commands:, "  -x, --long ..." under options.
commands = set(re.findall(r"^  routerctl (\S+)", help_text, re.M))
options = set()
for short, long_ in re.findall(r"^  (-\w), (--[\w-]+)", help_text, re.M):
    options.add((short, long_))
if len(commands) < 10 or len(options) < 6:
    sys.exit(f"routerctl --help parsed to {sorted(commands)} and {sorted(options)}: too few")

# The page: .Sh sections; in COMMANDS, ".It Cm NAME ..."; in OPTIONS, ".It Fl x ... , Fl Fl long ...".
section, man_commands, man_options = None, set(), set()
for line in page:
    if line.startswith(".Sh "):
        section = line[4:].strip().strip('"')
        continue
    if not line.startswith(".It "):
        continue
    words = line.split()
    if section == "COMMANDS" and len(words) >= 3 and words[1] == "Cm":
        man_commands.add(words[2])
    elif section == "OPTIONS" and len(words) >= 3 and words[1] == "Fl":
        short = "-" + words[2]
        m = re.search(r"Fl Fl ([\w-]+)", line)
        man_options.add((short, "--" + m.group(1) if m else None))

problems = []
for c in sorted(commands - man_commands):
    problems.append(f"command {c!r} of routerctl --help has no '.It Cm {c}' under COMMANDS in routerctl(1)")
for c in sorted(man_commands - commands):
    problems.append(f"routerctl(1) documents a command {c!r} that routerctl --help does not list")
for o in sorted(options - man_options, key=str):
    problems.append(f"option {o[0]}, {o[1]} of routerctl --help has no '.It Fl' entry (both spellings) under OPTIONS")
for o in sorted(man_options - options, key=str):
    problems.append(f"routerctl(1) documents an option {o} that routerctl --help does not list")
if problems:
    sys.exit("\n".join(problems))
print(f"{len(commands)} commands and {len(options)} options, each with its entry")
PY
[ "$T_RC" -eq 0 ] || { mapfile -t why <<<"$T_ERR"; t_fail "routerctl(1) covers routerctl --help" "${why[@]}"; }
t_ok "routerctl(1) covers routerctl --help: $T_OUT"

# 3. routerd --help and the config keys against routerd(8). The keys routerd knows are the
# list its config parser prints for an unknown key (the string in control/, read from the
# source because routerd's own message is cut at its error buffer's length); each key the
# page documents is also tried on routerd --check, which must not call it unknown.
t_run "$ROUTERD" --help
[ "$T_RC" -eq 0 ] || t_fail "routerd --help" "$(t_seen)"
printf '%s\n' "$T_OUT" >"$tmp/routerd.help"
known_src=$(grep -rl --include='*.c' 'unknown key (known: workers,' "$SY_SRC/control" | head -n 1)
[ -n "$known_src" ] || t_fail "no config parser under control/ lists the known keys"
python3 - "$known_src" >"$tmp/keys" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
at = src.index('unknown key (known: workers,')
# The adjacent C string literals from there on, joined, up to the list's closing ")".
start = src.rindex('"', 0, at)
text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', src[start:at + 2000]))
print("\n".join(k.strip() for k in text.split("(known: ", 1)[1].split(")", 1)[0].split(",")))
PY
t_run python3 - "$tmp/routerd.help" "$tmp/keys" "$man8" "$ROUTERD" "$tmp" <<'PY'
import json, re, subprocess, sys

help_text, keys = open(sys.argv[1]).read(), set(open(sys.argv[2]).read().split())
page = open(sys.argv[3]).read().splitlines()
routerd, tmp = sys.argv[4], sys.argv[5]
flags = set(re.findall(r"^\s+(--?[\w-]+)", help_text, re.M))
if not flags or len(keys) < 20:
    sys.exit(f"parsed flags {sorted(flags)} and keys {sorted(keys)}: too few")

section, sections, man_flags, man_keys = None, [], set(), set()
for line in page:
    if line.startswith(".Sh "):
        section = line[4:].strip().strip('"')
        sections.append(section)
        continue
    if not line.startswith(".It "):
        continue
    if section == "OPTIONS":
        # ".It Fl c Ar file , Fl Fl config Ar file" -> -c, --config
        for m in re.finditer(r"Fl (Fl )?([\w-]+)", line):
            man_flags.add(("--" if m.group(1) else "-") + m.group(2))
    elif section == "CONFIGURATION" and line.startswith(".It Ic "):
        man_keys.update(k.strip() for k in line[len(".It Ic "):].split(","))

problems = []
for f in sorted(flags - man_flags):
    problems.append(f"flag {f} of routerd --help has no .It Fl entry under OPTIONS in routerd(8)")
for k in sorted(keys - man_keys):
    problems.append(f"config key {k!r} has no '.It Ic {k}' under CONFIGURATION in routerd(8)")
for k in sorted(man_keys - keys):
    problems.append(f"routerd(8) documents a config key {k!r} that routerd does not know")
for k in sorted(man_keys):
    with open(f"{tmp}/key.json", "w") as f:
        json.dump({k: None}, f)
    r = subprocess.run([routerd, "--check", "-c", f"{tmp}/key.json"], capture_output=True, text=True)
    if f"{k}: unknown key" in r.stderr:
        problems.append(f"routerd(8) documents a config key {k!r}: routerd --check calls it unknown")
for s in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "CONFIGURATION", "SIGNALS", "FILES",
          "EXIT STATUS", "SEE ALSO"]:
    if s not in sections:
        problems.append(f"routerd(8) has no section {s}")
text = "\n".join(page)
for needle in ["/etc/switchyard/routerd.json", "/run/switchyard/routerd.sock", "/var/lib/switchyard",
               "routerd.service", "hugepages", "vfio-pci", "driverctl", "dpdk-devbind", "SIGTERM",
               "Xr routerctl 1"]:
    if needle not in text:
        problems.append(f"routerd(8) does not mention {needle}")
if problems:
    sys.exit("\n".join(problems))
print(f"{len(flags)} flags and {len(keys)} config keys, each with its entry")
PY
[ "$T_RC" -eq 0 ] || { mapfile -t why <<<"$T_ERR"; t_fail "routerd(8) covers routerd --help and the config keys" "${why[@]}"; }
t_ok "routerd(8) covers routerd --help and the config keys: $T_OUT"
echo "1..$T_NUM"
