#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# package: tools/package builds the Debian package (its own build, build-pkg/) into a
# temporary directory, and the package is checked as a router host would get it:
#   - the file list (dpkg-deb -c): routerd in /usr/sbin, routerctl in /usr/bin, the unit in
#     /lib/systemd/system, /etc/switchyard/routerd.json, both man pages gzipped, owned by root;
#   - the control fields: Package, Version (the project's), Architecture (dpkg's), Depends
#     (libc6, librte-*, and a package for every library routerd and routerctl load: their
#     NEEDED entries resolved as ldd resolves them, and the DPDK drivers EAL loads itself);
#   - conffiles: /etc/switchyard/routerd.json;
#   - the shipped config is one routerd accepts (routerd --check, the packaged routerd) and
#     keeps the socket under /run/switchyard and the state under /var/lib/switchyard;
#   - the unit: what it must say (restart on failure, runtime and state directories, only the
#     capabilities DPDK needs, unlimited locked memory), and `systemd-analyze verify` accepts
#     it with the package's /usr laid over the host's in a private mount namespace (so its
#     ExecStart= and man: pages exist); a unit with a missing program is refused the same way,
#     so the check can fail;
#   - a second run writes the same package.
# Nothing is installed on this machine, and no unit is started.
set -uo pipefail
: "${SY_SRC:?SY_SRC is not set (run through meson test)}"
T_NAME=package
# shellcheck source=testlib.sh
source "$SY_SRC/tests/integration/testlib.sh"

for t in dpkg-deb dpkg-shlibdeps systemd-analyze man readelf; do
	command -v "$t" >/dev/null || t_fail "$t not found (SY_PACKAGES in tools/lib/common.sh has its package)"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. Build it.
t_run "$SY_SRC/tools/package" --output "$tmp/out"
[ "$T_RC" -eq 0 ] || t_fail "tools/package --output DIR" "$(t_seen)"
deb=$(tail -n 1 <<<"$T_OUT")
[ -f "$deb" ] && [ "$(find "$tmp/out" -name '*.deb' | wc -l)" -eq 1 ] ||
	t_fail "tools/package printed the one .deb it made" "$(t_seen)" "$(ls -l "$tmp/out")"
t_ok "tools/package built $(basename "$deb")"

# 2. The file list.
dpkg-deb -c "$deb" >"$tmp/list" || t_fail "dpkg-deb -c" "$(cat "$tmp/list")"
for f in ./usr/sbin/routerd ./usr/bin/routerctl ./lib/systemd/system/routerd.service \
	./etc/switchyard/routerd.json ./usr/share/man/man1/routerctl.1.gz ./usr/share/man/man8/routerd.8.gz; do
	line=$(awk -v f="$f" '$6 == f' "$tmp/list")
	[ -n "$line" ] || t_fail "the package has $f" "$(cat "$tmp/list")"
	[[ $line == -r* ]] && [[ $(awk '{print $2}' <<<"$line") == root/root ]] ||
		t_fail "$f is a regular file owned by root" "$line"
	case "$f" in
	*/sbin/routerd | */bin/routerctl) [[ $line == -rwxr-xr-x* ]] || t_fail "$f is 0755" "$line" ;;
	*) [[ $line == -rw-r--r--* ]] || t_fail "$f is 0644" "$line" ;;
	esac
done
! grep -q '/usr/local/' "$tmp/list" || t_fail "nothing under /usr/local" "$(grep /usr/local/ "$tmp/list")"
t_ok "dpkg-deb -c: routerd, routerctl, routerd.service, routerd.json, routerctl.1.gz, routerd.8.gz"

# 3. The control fields.
field() { dpkg-deb -f "$deb" "$1"; }
project_version=$(meson introspect --projectinfo "$SY_SRC/build-pkg" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
[ "$(field Package)" = switchyard ] || t_fail "Package: switchyard" "$(field Package)"
[[ $(field Version) == "$project_version"* ]] || t_fail "Version starts with the project's $project_version" "$(field Version)"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] ||
	t_fail "Architecture: $(dpkg --print-architecture)" "$(field Architecture)"
depends=$(field Depends)
[ -n "$depends" ] || t_fail "Depends is not empty"
# Package names alone, one a line.
tr ',|' '\n\n' <<<"$depends" | sed 's/(.*)//; s/:.*//; s/^ *//; s/ *$//' | grep -v '^$' | sort -u >"$tmp/depends"
for p in libc6 libssl3 libjansson4 libyaml-0-2; do
	grep -qx "$p" "$tmp/depends" || t_fail "Depends has $p" "$depends"
done
grep -q '^librte-eal[0-9]' "$tmp/depends" || t_fail "Depends has librte-eal" "$depends"
grep -q '^librte-mempool-ring[0-9]' "$tmp/depends" ||
	t_fail "Depends has the ring mempool driver EAL loads as a plugin" "$depends"
t_ok "control: Package switchyard, Version $(field Version), Architecture $(field Architecture), Depends $(wc -l <"$tmp/depends") packages"

# Every library the two programs name (NEEDED), found where ldd finds it, is in a package
# that Depends names, or that one of those depends on.
dpkg-deb -x "$deb" "$tmp/root" || t_fail "dpkg-deb -x"
missing=()
for bin in "$tmp/root/usr/sbin/routerd" "$tmp/root/usr/bin/routerctl"; do
	while read -r soname; do
		# "libx.so.1 => /path (0x...)", or for the dynamic loader "/lib64/ld-....so.2 (0x...)".
		path=$(ldd "$bin" | awk -v s="$soname" '$1 == s && $2 == "=>" {print $3; exit}
			{n = split($1, p, "/")} n > 1 && p[n] == s {print $1; exit}')
		[ -n "$path" ] && [ -e "$path" ] || { missing+=("$soname: ldd does not find it for $bin"); continue; }
		owner=$(dpkg-query -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1)
		[ -n "$owner" ] || owner=$(dpkg-query -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
		[ -n "$owner" ] || { missing+=("$soname ($path): no package owns it"); continue; }
		if ! grep -qx "$owner" "$tmp/depends"; then
			# libc6 brings libm, libpthread...: a package of Depends that depends on it.
			ok=0
			while read -r p; do
				apt-cache depends --important "$p" 2>/dev/null | grep -q "Depends: $owner\$" && { ok=1; break; }
			done <"$tmp/depends"
			[ "$ok" -eq 1 ] || missing+=("$soname of $(basename "$bin"): its package $owner is not in Depends")
		fi
	done < <(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
[ "${#missing[@]}" -eq 0 ] || t_fail "Depends covers every library routerd and routerctl load" "${missing[@]}" "Depends: $depends"
t_ok "Depends covers every NEEDED library of routerd and routerctl (as ldd resolves them)"

# 4. conffiles.
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles >"$tmp/conffiles" 2>/dev/null ||
	t_fail "the package has DEBIAN/conffiles"
grep -qx /etc/switchyard/routerd.json "$tmp/conffiles" || t_fail "conffiles lists /etc/switchyard/routerd.json" "$(cat "$tmp/conffiles")"
t_ok "conffiles: /etc/switchyard/routerd.json"

# 5. The shipped config: routerd takes it as it is (parsed only; no EAL, no device).
t_run "$tmp/root/usr/sbin/routerd" --check -c "$tmp/root/etc/switchyard/routerd.json"
[ "$T_RC" -eq 0 ] || t_fail "routerd --check accepts /etc/switchyard/routerd.json" "$(t_seen)"
[[ " $T_OUT " == *" --no-pci "* ]] || t_fail "the shipped config names no PCI device" "$T_OUT"
t_run python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
assert c["control_socket"].startswith("/run/switchyard/"), c["control_socket"]
assert c["state_dir"] == "/var/lib/switchyard", c["state_dir"]
assert not c.get("ports"), c["ports"]' "$tmp/root/etc/switchyard/routerd.json"
[ "$T_RC" -eq 0 ] || t_fail "the shipped config: socket under /run/switchyard, state in /var/lib/switchyard, no ports" "$(t_seen)"
t_ok "routerd --check accepts the shipped routerd.json (socket in /run/switchyard, state in /var/lib/switchyard, no ports)"

# 6. The unit says what a router host needs.
unit=$tmp/root/lib/systemd/system/routerd.service
for want in 'ExecStart=/usr/sbin/routerd -c /etc/switchyard/routerd.json' 'Restart=on-failure' \
	'RuntimeDirectory=switchyard' 'StateDirectory=switchyard' 'LimitMEMLOCK=infinity' \
	'WantedBy=multi-user.target'; do
	grep -qx "$want" "$unit" || t_fail "routerd.service has $want" "$(grep -v '^#' "$unit")"
done
allowed=" CAP_IPC_LOCK CAP_NET_ADMIN CAP_NET_RAW CAP_SYS_RAWIO CAP_SYS_ADMIN "
for key in CapabilityBoundingSet AmbientCapabilities; do
	caps=$(sed -n "s/^$key=//p" "$unit")
	[ -n "$caps" ] || t_fail "routerd.service sets $key"
	for c in $caps; do
		[[ $allowed == *" $c "* ]] || t_fail "$key holds only what DPDK needs" "$c is not one of:$allowed"
	done
done
t_ok "routerd.service: ExecStart, Restart=on-failure, runtime/state directories, capabilities, LimitMEMLOCK"

# 7. systemd-analyze verify, as installed: the package's /usr laid over this machine's in a
# private mount namespace (an overlay that only the one command sees), so routerd and the
# man pages are where the unit says. Without root or overlayfs: the unit with its paths
# pointed into the extracted tree and MANPATH at its man pages (the same checks).
verify() { # verify UNIT: systemd-analyze verify in the overlay; output in T_OUT/T_ERR
	if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
		t_run unshare -m sh -c 'mount -t overlay overlay -o "lowerdir=$1/usr:/usr" /usr &&
			exec systemd-analyze verify "$2"' sh "$tmp/root" "$1"
		[[ $T_ERR != *"mount:"* ]] && return 0
	fi
	sed "s#=/usr/sbin/routerd#=$tmp/root/usr/sbin/routerd#g; s# /etc/switchyard/# $tmp/root/etc/switchyard/#g" \
		"$1" >"$tmp/alt/$(basename "$1")"
	t_run env MANPATH="$tmp/root/usr/share/man:" systemd-analyze verify "$tmp/alt/$(basename "$1")"
}
mkdir -p "$tmp/alt" "$tmp/bad"
verify "$unit"
[ "$T_RC" -eq 0 ] && [ -z "$T_OUT$T_ERR" ] || t_fail "systemd-analyze verify routerd.service" "$(t_seen)"
t_ok "systemd-analyze verify accepts routerd.service (no output)"
sed 's#^ExecStart=/usr/sbin/routerd#ExecStart=/usr/sbin/routerd-not-there#' "$unit" >"$tmp/bad/routerd.service"
verify "$tmp/bad/routerd.service"
[ "$T_RC" -ne 0 ] && [[ $T_ERR == *routerd-not-there* ]] ||
	t_fail "systemd-analyze verify refuses a unit whose program is missing" "$(t_seen)"
t_ok "systemd-analyze verify refuses the unit with a missing ExecStart program"

# 8. Again: the same package.
sum1=$(sha256sum <"$deb")
t_run "$SY_SRC/tools/package" --output "$tmp/out"
[ "$T_RC" -eq 0 ] && [ "$(tail -n 1 <<<"$T_OUT")" = "$deb" ] || t_fail "tools/package a second time" "$(t_seen)"
[ "$(sha256sum <"$deb")" = "$sum1" ] || t_fail "a second run writes the same package"
t_ok "a second run writes the same package"
echo "1..$T_NUM"
