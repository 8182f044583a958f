# SPDX-License-Identifier: BSD-3-Clause
"""The checks of man_pages.sh: a man page's entries against what the program says of itself.

  man_pages.py routerctl HELP PAGE             routerctl --help's commands and options
  man_pages.py routerd HELP KEYS PAGE ROUTERD  routerd --help's flags and the config keys
  man_pages.py keys CONFIG_C                   the config keys routerd's parser lists

Prints one line on success; exits with the problems, one a line, otherwise.
"""
import json
import re
import subprocess
import sys
import tempfile


def mdoc_items(path):
    """The page's .Sh section names in order, and each section's .It lines."""
    sections, items, section = [], {}, None
    for line in open(path).read().splitlines():
        if line.startswith(".Sh "):
            section = line[4:].strip().strip('"')
            sections.append(section)
        elif line.startswith(".It ") and section is not None:
            items.setdefault(section, []).append(line)
    return sections, items


def flags_of(item):
    """'.It Fl c Ar file , Fl Fl config Ar file' -> ['-c', '--config']."""
    return [("--" if m.group(1) else "-") + m.group(2) for m in re.finditer(r"Fl (Fl )?([\w-]+)", item)]


def both_ways(have, documented, undocumented_msg, unknown_msg=None):
    """What the program has and the page lacks, and (with unknown_msg) the reverse."""
    name = lambda x: ", ".join(x) if isinstance(x, tuple) else repr(x)
    out = [undocumented_msg.format(name(x)) for x in sorted(have - documented)]
    if unknown_msg:
        out += [unknown_msg.format(name(x)) for x in sorted(documented - have)]
    return out


def check_routerctl(help_path, page):
    help_text = open(help_path).read()
    # "  routerctl NAME ..." under commands:, "  -x, --long ..." under options.
    commands = set(re.findall(r"^  routerctl (\S+)", help_text, re.M))
    options = set(re.findall(r"^  (-\w), (--[\w-]+)", help_text, re.M))
    if len(commands) < 10 or len(options) < 6:
        sys.exit(f"routerctl --help parsed to {sorted(commands)} and {sorted(options)}: too few")
    _, items = mdoc_items(page)
    man_commands = {i.split()[2] for i in items.get("COMMANDS", []) if i.split()[1:2] == ["Cm"]}
    man_options = {tuple(flags_of(i)) for i in items.get("OPTIONS", []) if i.split()[1:2] == ["Fl"]}
    problems = both_ways(commands, man_commands, "command {} of routerctl --help has no '.It Cm' entry under COMMANDS",
                         "routerctl(1) documents a command {} that routerctl --help does not list")
    problems += both_ways(options, man_options,
                          "option {} of routerctl --help has no '.It Fl' entry (both spellings) under OPTIONS",
                          "routerctl(1) documents an option {} that routerctl --help does not list")
    if problems:
        sys.exit("\n".join(problems))
    print(f"{len(commands)} commands and {len(options)} options, each with its entry")


def check_routerd(help_path, keys_path, page, routerd):
    flags = set(re.findall(r"^\s+(--?[\w-]+)", open(help_path).read(), re.M))
    keys = set(open(keys_path).read().split())
    if not flags or len(keys) < 20:
        sys.exit(f"parsed flags {sorted(flags)} and keys {sorted(keys)}: too few")
    sections, items = mdoc_items(page)
    man_flags = {f for i in items.get("OPTIONS", []) for f in flags_of(i)}
    man_keys = {k.strip() for i in items.get("CONFIGURATION", []) if i.startswith(".It Ic ")
                for k in i[len(".It Ic "):].split(",")}
    problems = both_ways(flags, man_flags, "flag {} of routerd --help has no .It Fl entry under OPTIONS in routerd(8)")
    problems += both_ways(keys, man_keys, "config key {} has no '.It Ic' entry under CONFIGURATION in routerd(8)",
                          "routerd(8) documents a config key {} that routerd does not know")
    # Each documented key, tried on routerd itself: it must not be unknown.
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        for k in sorted(man_keys):
            f.seek(0)
            f.truncate()
            json.dump({k: None}, f)
            f.flush()
            r = subprocess.run([routerd, "--check", "-c", f.name], capture_output=True, text=True)
            if f"{k}: unknown key" in r.stderr:
                problems.append(f"routerd(8) documents a config key {k!r}: routerd --check calls it unknown")
    for s in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "CONFIGURATION", "SIGNALS", "FILES",
              "EXIT STATUS", "SEE ALSO"]:
        if s not in sections:
            problems.append(f"routerd(8) has no section {s}")
    text = open(page).read()
    for needle in ["/etc/switchyard/routerd.json", "/run/switchyard/routerd.sock", "/var/lib/switchyard",
                   "routerd.service", "hugepages", "vfio-pci", "driverctl", "dpdk-devbind", "SIGTERM",
                   "Xr routerctl 1"]:
        if needle not in text:
            problems.append(f"routerd(8) does not mention {needle}")
    if problems:
        sys.exit("\n".join(problems))
    print(f"{len(flags)} flags and {len(keys)} config keys, each with its entry")


def known_keys(config_c):
    """The list in the parser's "unknown key (known: ...)" message: its adjacent C string
    literals joined, up to the closing parenthesis."""
    src = open(config_c).read()
    at = src.index("unknown key (known: workers,")
    start = src.rindex('"', 0, at)
    text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', src[start:at + 2000]))
    print("\n".join(k.strip() for k in text.split("(known: ", 1)[1].split(")", 1)[0].split(",")))


if __name__ == "__main__":
    what, args = sys.argv[1], sys.argv[2:]
    {"routerctl": check_routerctl, "routerd": check_routerd, "keys": known_keys}[what](*args)
