#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One libFuzzer harness for a bounded time on a copy of its seed corpus (the seeds stay as
# committed; what the run finds is thrown away). Exit status: 0, or 1 on a crash, a
# sanitizer report, a leak, a timeout or an abort from a broken invariant (never 77,
# meson's "skipped"); the input that did it is kept in ARTIFACTS (default: the harness's
# directory/artifacts) with the command that replays it.
#
#   run.sh HARNESS SEEDS SECONDS [libFuzzer options...]
#   FUZZ_SECONDS overrides SECONDS; FUZZ_RUNS caps the number of inputs (default 5,000,000).
set -uo pipefail
exe=$1 seeds=$2 secs=${FUZZ_SECONDS:-$3}
shift 3
[ -x "$exe" ] || { echo "# $exe: not built" >&2; exit 1; }
[ -d "$seeds" ] || { echo "# $seeds: no seed corpus" >&2; exit 1; }
# UBSan reports are fatal, so libFuzzer sees them (they print and go on by default).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
work=$(mktemp -d "${TMPDIR:-/tmp}/sy-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" && cp -r "$seeds/." "$work/corpus/" || exit 1
echo "# $(basename "$exe"): $(find "$seeds" -type f | wc -l) seeds, ${secs} s"
# libFuzzer's own exit status for a finding is 77, which meson takes for "skipped": 1.
"$exe" -max_total_time="$secs" -runs="${FUZZ_RUNS:-5000000}" -timeout=10 -rss_limit_mb=2048 \
	-max_len=8192 -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
	-artifact_prefix="$work/" "$@" "$work/corpus" 2>&1 &
pid=$!
wait "$pid"
rc=$?
[ "$rc" -eq 77 ] && rc=1
# A harness with an EAL (tests/unit/test_eal.h) that died on a finding left its runtime
# directory behind.
rm -rf "/var/run/dpdk/sy-$(basename "$exe")-$pid"
if [ "$rc" -ne 0 ]; then
	keep=${ARTIFACTS:-$(dirname "$exe")/artifacts}
	mkdir -p "$keep"
	for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
		[ -e "$a" ] || continue
		cp "$a" "$keep/"
		echo "# kept $keep/$(basename "$a"); replay: $exe $keep/$(basename "$a")"
		od -A d -c "$a" | head -n 20 | sed 's/^/#   /'
	done
fi
exit "$rc"
