# SPDX-License-Identifier: BSD-3-Clause
# Shared shell helpers for tools/demo, tools/test, tools/lab and the integration tests.
# Source it (bash only); it defines functions and a few variables, and runs nothing.

# The source tree: the directory above tools/.
SY_SRC=${SY_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

# Debian's programs ahead of whatever else is on PATH: the project runs on Debian's packages
# (SY_PACKAGES). On this workplace a pyenv shim came first for python3; it took 350 ms a
# start against Debian's 30 ms, the tests start python3 thousands of times (the metrics test
# spent 49 of its 57 s starting it), and its interpreter lacks python3-h2 and python3-grpcio.
case ":$PATH:" in
:/usr/bin:/bin:*) ;;
*) PATH=/usr/bin:/bin:/usr/sbin:/sbin:$PATH ;;
esac
export PATH

# Everything the project needs on a fresh Debian 12 machine, to build, test and run the lab
# (chromium: the status page is checked in it, headless, by tests/integration/status_page.sh;
# dpkg-dev, systemd, man-db and mandoc: tools/package builds the .deb with dpkg-shlibdeps,
# tests/integration/package.sh checks its unit with systemd-analyze verify, which asks man for
# the unit's Documentation=, and man_pages.sh lints the man pages with mandoc).
SY_PACKAGES=(meson ninja-build pkg-config gcc libdpdk-dev dpdk libjansson-dev libssl-dev
	libnuma-dev libcmocka-dev libyaml-dev libpcre2-dev libzstd-dev nginx-light curl iproute2 ethtool
	iputils-ping openssl python3 procps wrk nghttp2-client prometheus graphviz clang libclang-rt-14-dev
	chromium bind9-utils bind9-dnsutils libcurl4-openssl-dev etcd-server etcd-client
	dpkg-dev systemd man-db mandoc libnghttp2-dev python3-h2 python3-hyperframe python3-grpcio haproxy)

sy_log() { printf '%s %s\n' "${SY_LOG_TAG:-[switchyard]}" "$*" >&2; }
sy_warn() { printf '%s warning: %s\n' "${SY_LOG_TAG:-[switchyard]}" "$*" >&2; }
sy_die() {
	printf '%s error: %s\n' "${SY_LOG_TAG:-[switchyard]}" "$*" >&2
	exit 1
}

sy_require_root() {
	[ "$(id -u)" -eq 0 ] || sy_die "$1 needs root (network namespaces, hugepages, apt-get); run it as root"
}

# Packages from SY_PACKAGES that are not installed.
sy_missing_packages() {
	local p
	for p in "${SY_PACKAGES[@]}"; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || printf '%s\n' "$p"
	done
}

# Install what is missing, and only then touch apt: a machine that has everything is left
# alone (no apt-get update), which keeps repeated runs fast and offline-safe.
sy_install_deps() {
	local missing policy_added=0
	mapfile -t missing < <(sy_missing_packages)
	if [ "${#missing[@]}" -eq 0 ]; then
		sy_log "dependencies: all ${#SY_PACKAGES[@]} packages installed"
		return 0
	fi
	sy_log "dependencies: installing ${missing[*]}"
	[ "$(id -u)" -eq 0 ] || sy_die "missing packages (${missing[*]}) and not root: install them or run as root"
	# Debian starts nginx on install; the lab runs its own instances in namespaces and has no
	# use for a system nginx on port 80, so keep maintainer scripts from starting services
	# (only when no local policy exists; removed again right after).
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && policy_added=1
	fi
	# apt's thousand lines go to a log; the terminal gets one line a step.
	local rc=0 log=${SY_APT_LOG:-${TMPDIR:-/tmp}/switchyard-apt.log}
	: >"$log"
	sy_log "dependencies: apt-get update (output in $log)"
	DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		sy_log "dependencies: apt-get install ${#missing[@]} packages (output in $log)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"${missing[@]}" >>"$log" 2>&1 || rc=$?
	fi
	[ "$policy_added" -eq 1 ] && rm -f /usr/sbin/policy-rc.d
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$log" >&2
		sy_die "apt-get failed (exit $rc) installing: ${missing[*]} (full output: $log)"
	fi
	mapfile -t missing < <(sy_missing_packages)
	[ "${#missing[@]}" -eq 0 ] || sy_die "still missing after apt-get: ${missing[*]} (see $log)"
	sy_log "dependencies: installed"
}

# Reserve 2 MiB hugepages and mount hugetlbfs when possible. Failure is not an error:
# routerd falls back to --no-huge by itself when none are free.
sy_hugepages() {
	local want=${SY_HUGEPAGES:-512} cur free
	if [ "$(id -u)" -ne 0 ]; then
		sy_warn "hugepages: not root, leaving them as they are"
		return 0
	fi
	cur=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)
	if [ "$cur" -lt "$want" ]; then
		echo "$want" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
	fi
	if ! mountpoint -q /dev/hugepages 2>/dev/null; then
		mkdir -p /dev/hugepages 2>/dev/null &&
			mount -t hugetlbfs nodev /dev/hugepages 2>/dev/null ||
			sy_warn "hugepages: could not mount hugetlbfs at /dev/hugepages"
	fi
	free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
	sy_log "hugepages: nr_hugepages=$(cat /proc/sys/vm/nr_hugepages) free=${free:-0}" \
		"$([ "${free:-0}" -gt 0 ] || echo '(none: routerd will run with --no-huge)')"
}

# sy_build DIR [meson setup options...]: configure DIR if needed (or re-apply the options to
# an existing DIR) and build it.
sy_build() {
	local dir=$1
	shift
	if [ -f "$SY_SRC/$dir/build.ninja" ]; then
		if [ "$#" -gt 0 ]; then
			meson configure "$SY_SRC/$dir" "$@" >/dev/null || return 1
		fi
	else
		meson setup "$SY_SRC/$dir" "$SY_SRC" "$@" || return 1
	fi
	ninja -C "$SY_SRC/$dir"
}

# True while PID is a live process (a zombie counts as exited).
sy_pid_alive() {
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[ -n "$st" ] && [[ $st != Z* ]]
}

# sy_poll SECONDS CMD...: run CMD every 0.2 s until it succeeds; fail after SECONDS.
sy_poll() {
	local deadline=$((SECONDS + $1))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}
