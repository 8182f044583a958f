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
checks=$SY_SRC/tests/integration/man_pages.py
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
t_run python3 "$checks" routerctl "$tmp/routerctl.help" "$man1"
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
python3 "$checks" keys "$known_src" >"$tmp/keys" || t_fail "the known config keys in $known_src"
t_run python3 "$checks" routerd "$tmp/routerd.help" "$tmp/keys" "$man8" "$ROUTERD"
[ "$T_RC" -eq 0 ] || { mapfile -t why <<<"$T_ERR"; t_fail "routerd(8) covers routerd --help and the config keys" "${why[@]}"; }
t_ok "routerd(8) covers routerd --help and the config keys: $T_OUT"
echo "1..$T_NUM"
