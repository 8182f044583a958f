#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where routerd's worker spends its time in P1, set beside set (perf/pktgen --profile).

perf/pktgen --profile records the worker thread (perf record -F 4999 -t, cpu-clock: the
guest has no hardware counters) from the begin to the end hook of every P1 step, into
RUN-profile-N.perf beside the step's counter snapshots RUN-begin-N.json / RUN-end-N.json.
This script adds up, per set and function, the sampled time of its equal-rate steps (all
rounds: RUN and RUN-rR) and divides it by the packets routerd forwarded in them, in TSC
cycles (the snapshots' tsc_hz): "cycles a packet by function", IPv4's first set beside
the others, and each one's difference to it. The recording also holds the 1.2 s after a
step in which pktgen reads its counters, when the worker polls empty queues and naps:
those samples land in the driver's RX call and the poll loop, not in the fast path's
functions, whose rows are the ones to compare.

    perf/lib/pktgen-profile.py --dir /tmp/switchyard-pktgen-last [--top 25]
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def forwarded(d, run, i):
    """Packets routerd forwarded in step i of run, what it received, and tsc_hz."""
    a = load(f"{d}/{run}-begin-{i}.json")
    b = load(f"{d}/{run}-end-{i}.json")
    return (b["total"]["tx_packets"] - a["total"]["tx_packets"],
            b["total"]["rx_packets"] - a["total"]["rx_packets"], b.get("tsc_hz", 0))


def samples(path):
    """Sampled nanoseconds by function in one perf.data file."""
    out = subprocess.run(["perf", "script", "-i", path, "-F", "period,ip,sym,dso"],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"perf script -i {path}: {out.stderr.strip()}")
    ns = collections.Counter()
    for line in out.stdout.splitlines():
        w = line.split(None, 2)
        if len(w) < 3 or not w[0].isdigit():
            continue
        # "period ip symbol (dso)" -> symbol; unresolved -> [dso basename]
        rest = w[2].strip()
        m = re.match(r"(.*?)\s+\((.*)\)$", rest)
        sym, dso = (m.group(1), os.path.basename(m.group(2))) if m else (rest, "?")
        sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
        if sym in ("", "[unknown]"):
            sym = f"[{dso}]"
        ns[sym] += int(w[0])
    return ns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    d = args.dir
    per_set = {}  # set -> [Counter ns, packets, tsc_hz]
    left_out = []
    for path in sorted(glob.glob(f"{d}/*-profile-*.perf")):
        m = re.match(r"(.*)-profile-(\d+)\.perf$", os.path.basename(path))
        run, i = m.group(1), int(m.group(2))
        base = re.sub(r"-r\d+$", "", run)
        # The first round's step 1 is at full rate: not an equal-rate step.
        if run == base and i == 1:
            continue
        try:
            fwd, rx, hz = forwarded(d, run, i)
        except (OSError, KeyError, ValueError):
            continue
        # As the table: a step in which routerd forwarded less than 99 % of what it
        # received measured something else (a profiled run is slower, and the first
        # set's flows may have passed their 300 s idle timeout by its last rounds).
        if fwd < 0.99 * rx:
            left_out.append(f"{run} step {i}")
            continue
        acc = per_set.setdefault(base, [collections.Counter(), 0, hz])
        acc[0].update(samples(path))
        acc[1] += fwd
    if not per_set:
        sys.exit(f"no P1 profiles in {d} (perf/pktgen --profile)")
    sets = sorted(per_set, key=lambda s: (not s.startswith("p1-1"), "v6" in s or "v64" in s, s))
    ref = sets[0]

    def cyc(s, sym):
        ns, pkts, hz = per_set[s]
        return ns[sym] * 1e-9 * hz / max(pkts, 1)

    syms = collections.Counter()
    for s in sets:
        for sym in per_set[s][0]:
            syms[sym] = max(syms[sym], cyc(s, sym))
    top = [sym for sym, _ in syms.most_common(args.top)]
    print(f"routerd's worker, TSC cycles a forwarded packet by function, equal-rate steps of "
          f"every round ({ref} is the reference)")
    print("| function | " + " | ".join(sets) + " |")
    print("|---|" + "---|" * len(sets))
    for sym in top:
        cells = []
        for s in sets:
            v = cyc(s, sym)
            cells.append(f"{v:.1f}" if s == ref else f"{v:.1f} ({v - cyc(ref, sym):+.1f})")
        print(f"| {sym} | " + " | ".join(cells) + " |")
    tot = {s: sum(per_set[s][0].values()) * 1e-9 * per_set[s][2] / max(per_set[s][1], 1) for s in sets}
    print("| all sampled | " + " | ".join(
        f"{tot[s]:.1f}" if s == ref else f"{tot[s]:.1f} ({tot[s] - tot[ref]:+.1f})" for s in sets) + " |")
    print("| packets | " + " | ".join(f"{per_set[s][1]:,}" for s in sets) + " |")
    if left_out:
        print(f"left out ({len(left_out)}: routerd forwarded less than 99 % of what it "
              f"received): {', '.join(left_out)}")


if __name__ == "__main__":
    main()
