#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The one table perf/pktgen prints, from what its phases left in the lab directory.

Inputs (perf/pktgen writes them): NAME.out of each pktgen run (perf/lib/pktgen-steps.lua:
"step N rate R secs S tx T rx X"), routerd's `routerctl stats -o json` around each step
(p2-begin-N.json / p2-end-N.json, serve-begin-1.json / serve-end-1.json), testpmd's figures
and the curl tally as arguments. Rates are per second of pktgen's sending time; routerd has
one worker, so per worker = total.
"""
import argparse
import json
import os
import subprocess
import time


def steps(path):
    out = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "step":
                out.append({"rate": w[3], "secs": float(w[5]), "tx": int(w[7]), "rx": int(w[9])})
    return out


def load(path):
    with open(path) as f:
        return json.load(f)


def delta(a, b):
    """Worker-total counters and drops of b minus a."""
    ta, tb = a["total"], b["total"]
    d = {k: tb[k] - ta[k] for k in tb if isinstance(tb[k], int)}
    d["drops"] = {k: tb["drops"][k] - ta["drops"].get(k, 0) for k in tb.get("drops", {})}
    d["drops"] = {k: v for k, v in d["drops"].items() if v}
    return d


def m(x):
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.0f} k"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--rates", required=True)
    ap.add_argument("--tp-log", required=True, help="testpmd's output (--stats-period 1)")
    ap.add_argument("--legit-ok", type=int, required=True)
    ap.add_argument("--legit-tried", type=int, required=True)
    ap.add_argument("--flows-max", type=int, required=True)
    ap.add_argument("--rss", required=True)
    ap.add_argument("--quick", type=int, default=0)
    a = ap.parse_args()
    d = a.dir

    floor = steps(os.path.join(d, "floor.out"))[0]
    # testpmd's own per-second Tx-pps (what it forwarded back), best second; its
    # end-of-run "CPU cycles/packet" is lost: memif zeroes the port's counters when the
    # peer (pktgen) disconnects, before testpmd is stopped.
    tp_best = 0
    with open(a.tp_log, errors="replace") as f:
        for line in f:
            if "Tx-pps:" in line:
                tp_best = max(tp_best, int(line.split()[1]))
    tp_back = floor["rx"] / floor["secs"]
    tp_cell = f"{m(tp_best)}pps (testpmd best 1 s)"
    p2 = steps(os.path.join(d, "p2.out"))
    rows = []
    for i, st in enumerate(p2[1:], 2):  # step 1 is the ARP warm-up
        dd = delta(load(f"{d}/p2-begin-{i}.json"), load(f"{d}/p2-end-{i}.json"))
        secs = st["secs"]
        cyc = dd["busy_cycles"] + dd["idle_cycles"]
        rows.append({
            "rate": st["rate"], "secs": secs,
            "offered": st["tx"] / secs,
            "rx": dd["rx_packets"] / secs,
            "cookies": dd["syn_cookies_sent"] / secs,
            "cps": dd["busy_cycles"] / max(dd["syn_cookies_sent"], 1),
            "busy": dd["busy_cycles"] / cyc if cyc else 0,
            "back": st["rx"] / secs,
            "drops": {k: v / secs for k, v in dd["drops"].items()},
            "ndrops": sum(dd["drops"].values()), "nrx": dd["rx_packets"],
            "dcount": dd["drops"],
        })
    top = max(rows, key=lambda r: r["cookies"])
    onset = next((r for r in rows if r["ndrops"] > 0.001 * max(r["nrx"], 1)), None)

    serve = steps(os.path.join(d, "serve.out"))[0]
    sd = delta(load(f"{d}/serve-begin-1.json"), load(f"{d}/serve-end-1.json"))
    syn_s = sd["syn_cookies_sent"] / serve["secs"]
    rss = [int(x) for x in a.rss.split(",")]
    after = load(f"{d}/serve-after.json")["total"]

    load_avg = open("/proc/loadavg").read().split()[:3]
    print()
    print(f"perf/pktgen{' --quick' if a.quick else ''}: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())},"
          f" load average {' '.join(load_avg)}; routerd 1 worker on CPU 1 (adaptive idle),"
          f" pktgen 2 lcores on CPU 0, net_memif (copy mode, defaults)")
    w = (44, 30, 34)
    line = lambda c1, c2, c3, c4="": print(f"{c1:<{w[0]}} | {c2:<{w[1]}} | {c3:<{w[2]}} | {c4}")
    line("metric", "routerd (from outside)", "floor: testpmd macswap, same memif", "note")
    print("-" * 150)
    line("P1 fwd, established spliced flows 1k / 32k", "not measured", tp_cell,
         "no flow-opening helper yet; in-process: perf/run (splice_bench, memif)")
    line("P2 SYN-ACK cookies / s / worker", f"{m(top['cookies'])}/s, {top['cps']:.0f} cyc/SYN",
         tp_cell,
         f"at {top['rate']} % ({m(top['offered'])}/s offered), worker busy {top['busy'] * 100:.0f} %")
    line("P3 new spliced conns / s", "not measured",
         "-", "no responder completes handshakes at rate; in-process: splice_bench (3)")
    for r in rows:
        dr = ", ".join(f"{k} {v} ({v * 100 / max(r['nrx'], 1):.2f} %)"
                       for k, v in sorted(r["dcount"].items(), key=lambda x: -x[1])) or "none"
        line(f"  SYN step {r['rate']:>5} % ({r['secs']:.1f} s)",
             f"offered {m(r['offered'])}/s, cookies {m(r['cookies'])}/s",
             f"SYN-ACKs back {m(r['back'])}/s, busy {r['busy'] * 100:.0f} %",
             f"drops: {dr}")
    if onset:
        dr = ", ".join(f"{k}" for k, v in sorted(onset["drops"].items(), key=lambda x: -x[1]))
        line("drop onset (> 0.1 % of received)", f"{m(onset['offered'])}/s offered", f"at step {onset['rate']} %",
             f"by reason: {dr}")
    else:
        line("drop onset (> 0.1 % of received)", "none up to the highest step", "-",
             f"highest offered {m(max(r['offered'] for r in rows))}/s")
    line("flood while serving: memory", f"RSS {rss[0]} -> max {rss[1]} -> {rss[2]} kB",
         f"flows_active max {a.flows_max}, after {after['flows_active']}",
         f"cookies counted {sd['syn_cookies_sent']}")
    print(f"floor run: 64-byte SYN range, pktgen sent {m(floor['tx'] / floor['secs'])}/s and got back"
          f" {m(tp_back)}/s over {floor['secs']:.1f} s; testpmd's best second {m(tp_best)}pps")
    print(f"flood: {syn_s:.0f} SYN/s, legit {a.legit_ok}/{a.legit_tried}")


if __name__ == "__main__":
    main()
