# SPDX-License-Identifier: BSD-3-Clause
"""perf/tls's table, crypto floor and verdict, from the run's raw figures.

    python3 tls_report.py RECORDS.jsonl SPEED.txt [FLOOR.txt ...]

RECORDS: one JSON object per measured run (perf/tls `record`): proxy, run (full, resumed,
bulk), units (s_time connections) or wrk (wrk_report.lua's JSON), and two snapshots, a*
before and b* after: cpu ("BUSY,IDLE,TICKS" for routerd, "-,-,TICKS" for a kernel proxy),
core0/core1 ("BUSY,TOTAL" ticks), ctr (the proxy's handshake counters: handshakes,
resumed, and for routerd the TSC cycles inside OpenSSL's calls), t (seconds).
SPEED: `openssl speed -seconds 3 ecdsap256 ecdhx25519`'s output.
FLOOR: perf/tls_floor's table (OpenSSL's server work per handshake, in process), one per
round: back to back from files named floor-*, paced by client processes on another core
(--paced-by-cpu) from files named paced-*. With several rounds (records carry "round"), each row is the round with the median
CPU per unit, and the verdict is the median over rounds of routerd's full handshakes per
core against HAProxy's in the same round.

Everything printed is computed here from those figures; nothing is assumed.
"""
import json
import os
import re
import sys

TARGET = 1.5  # routerd's full handshakes per core against HAProxy's (issue 14)


def tsc_hz(r):
    """routerd's TSC rate over a run (every loop cycle is busy or idle), or None."""
    b0, i0, _ = r["acpu"].split(",")
    b1, i1, _ = r["bcpu"].split(",")
    if b0 == "-":
        return None
    return (int(b1) - int(b0) + int(i1) - int(i0)) / (float(r["bt"]) - float(r["at"]))


def proxy_cpu(r):
    """(CPU seconds, wall seconds, how it was measured, routerd's process CPU seconds or None)."""
    wall = float(r["bt"]) - float(r["at"])
    b0, i0, k0 = r["acpu"].split(",")
    b1, i1, k1 = r["bcpu"].split(",")
    proc = (int(k1) - int(k0)) / int(r["tick"])
    if b0 == "-":
        return proc, wall, f"{proc / wall:.0%} of a core (process CPU)", None
    busy, idle = int(b1) - int(b0), int(i1) - int(i0)
    hz = (busy + idle) / wall  # every loop cycle is busy or idle: the TSC rate
    secs = busy / hz
    return secs, wall, f"worker {busy / max(busy + idle, 1):.0%} busy (process {proc / wall:.0%})", proc


def core_share(r, cpu):
    b0, t0 = map(int, r[f"a{cpu}"].split(","))
    b1, t1 = map(int, r[f"b{cpu}"].split(","))
    return (b1 - b0) / max(t1 - t0, 1)


def counters(r):
    a, b = r["actr"].split(","), r["bctr"].split(",")
    d = [str(int(y) - int(x)) if x.lstrip("-").isdigit() and y.lstrip("-").isdigit() else "-"
         for x, y in zip(a, b)]
    return (d + ["-", "-", "-"])[:3]


def routerd_parts(r, hz, n, lib_cycles):
    """routerd's frames per handshake and TX calls, and from a -Dpoll_phases=true build
    where its busy cycles outside OpenSSL's calls went; "" for a kernel proxy."""
    a, b = r["actr"].split(","), r["bctr"].split(",")
    if len(a) < 11 or len(b) < 11 or not hz:
        return ""
    rx, tx, calls, pre, rxc, inp, tim, txc = (int(y) - int(x) for x, y in zip(a[3:11], b[3:11]))
    n = max(n, 1)
    text = f"{rx / n:.1f} frames in and {tx / n:.1f} out per handshake, {tx / max(calls, 1):.1f} per TX call"
    if pre + rxc + inp + tim + txc > 0:
        us = lambda c: c / hz / n * 1e6
        text += (f"; around them (a -Dpoll_phases=true build): the drivers' TX calls {us(txc):.1f} us, "
                 f"RX calls {us(rxc):.1f} us, our processing {us(inp - lib_cycles):.1f} us, "
                 f"timers {us(tim):.1f} us, rings {us(pre):.1f} us")
    return text


def library_floor(text):
    """{tickets: (full us, resumed us or None)} from perf/tls_floor's table."""
    out = {}
    for l in text.splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|\s*([0-9.]+) us\s*\|[^|]*\|\s*(?:([0-9.]+) us)?", l)
        if m:
            out[int(m.group(1))] = (float(m.group(2)), float(m.group(3)) if m.group(3) else None)
    return out


def medians(floors):
    """{tickets: (full us, resumed us or None)}: the median over rounds of each."""
    lib = {}
    for t in sorted({t for f in floors for t in f}):
        fulls = sorted(f[t][0] for f in floors if t in f)
        ress = sorted(f[t][1] for f in floors if t in f and f[t][1])
        lib[t] = (fulls[(len(fulls) - 1) // 2], ress[(len(ress) - 1) // 2] if ress else None)
    return lib


def floor(speed_text):
    """(sign/s, X25519 op/s) from openssl speed's summary lines."""
    sign = re.search(r"256 bits ecdsa \(nistp256\)\s+\S+s\s+\S+s\s+([0-9.]+)\s+([0-9.]+)", speed_text)
    x = re.search(r"253 bits ecdh \(X25519\)\s+\S+s\s+([0-9.]+)", speed_text)
    if not sign or not x:
        return None
    return float(sign.group(1)), float(x.group(1))


def main():
    records = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    speed_text = open(sys.argv[2]).read()
    floors = [library_floor(open(f).read()) for f in sys.argv[3:]
              if not os.path.basename(f).startswith("paced")]
    paced_floors = [library_floor(open(f).read()) for f in sys.argv[3:]
                    if os.path.basename(f).startswith("paced")]
    rows, per_core, us_per, us_lib, parts = [], {}, {}, {}, {}
    rounds = {}  # (proxy, run) -> [(cpu per unit, round, per core, library us or None, row)]
    for r in records:
        secs, wall, how, proc = proxy_cpu(r)
        hs, res, cyc = counters(r)
        if r["run"] in ("full", "resumed"):
            n = int(r["units"])
            unit, rate = "handshakes", n / wall
            cpu_per = secs / max(n, 1) * 1e6
            cpu_txt = f"{cpu_per:.1f} us" + (f" busy ({proc / max(n, 1) * 1e6:.1f} us process)" if proc is not None else "")
            core_rate = n / secs if secs > 0 else 0
            full, resumed = int(r["full_marks"]), int(r["resumed_marks"])
            check = (f"s_time: {full:,} full, {resumed:,} resumed, "
                     f"{float(r['client_user_s']) / max(n, 1) * 1e6:,.0f} us user CPU per connection")
            hz = tsc_hz(r)
            if cyc != "-" and hz:
                us_lib[(r["proxy"], r["run"])] = int(cyc) / hz / max(n, 1) * 1e6
                parts[(r["proxy"], r["run"])] = routerd_parts(r, hz, n, int(cyc))
            if r["proxy"].startswith("routerd"):
                check += f"; routerd counted {hs} handshakes, {res} resumed"
            else:
                check += f"; HAProxy CumSslConns +{hs}"
            if int(r["errors"]):
                check += f"; {r['errors']} error lines from s_time"
            rate_txt = f"{rate:,.0f} /s"
            core_txt = f"{core_rate:,.0f} /s"
        else:
            w = json.loads(r["wrk"])
            mb = w["bytes"] / 1e6
            wall_w = w["duration_us"] / 1e6
            unit, rate = "MB", mb / wall_w
            cpu_per = secs / max(mb, 1e-9) * 1e6
            cpu_txt = f"{cpu_per:.0f} us/MB" + (f" busy ({proc / max(mb, 1e-9) * 1e6:.0f} us process)" if proc is not None else "")
            core_rate = mb / secs if secs > 0 else 0
            errs = w["connect"] + w["read"] + w["write"] + w["timeout"]
            check = f"{w['requests']:,} x 2 MiB; {errs} socket errors, {w['status']} non-2xx"
            rate_txt = f"{rate:,.1f} MB/s"
            core_txt = f"{core_rate:,.1f} MB/s"
        key = (r["proxy"], r["run"])
        row = (f"| {r['proxy']} | {r['run']} | {rate_txt} | {core_txt} | {cpu_txt} | {how} "
               f"| {core_share(r, 'core0'):.0%} | {core_share(r, 'core1'):.0%} | {check} |")
        rounds.setdefault(key, []).append((cpu_per, int(r.get("round", 1)), core_rate,
                                           us_lib.pop(key, None), parts.pop(key, ""), row))
    # Each (proxy, run): the round with the median CPU per unit.
    for key, v in rounds.items():
        cpu_per, _, core_rate, lib_us, part, row = sorted(v)[(len(v) - 1) // 2]
        per_core[key], us_per[key] = core_rate, cpu_per
        if lib_us is not None:
            us_lib[key] = lib_us
            parts[key] = part
        rows.append(row)

    print("\n| proxy | run | rate | per core | CPU per handshake / per MB | proxy CPU | CPU 0 (clients) busy "
          "| CPU 1 (proxy) busy | check |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))

    fl = floor(speed_text)
    print("\nCrypto floor (`openssl speed -seconds 3 ecdsap256 ecdhx25519`, on CPU 1, this run):")
    for l in speed_text.splitlines():
        if re.search(r"(sign|op)\b.*/s|nistp256|X25519", l):
            print("    " + l.rstrip())
    if fl:
        sign_us, x_us = 1e6 / fl[0], 1e6 / fl[1]
        fl_us = sign_us + 2 * x_us
        print(f"  one full handshake: 1 ECDSA P-256 sign ({sign_us:.1f} us) + 2 X25519 "
              f"({2 * x_us:.1f} us) = {fl_us:.1f} us, {1e6 / fl_us:,.0f} handshakes/s per core at best")
        for p in ("routerd", "haproxy"):
            if (p, "full") in us_per:
                u = us_per[(p, "full")]
                print(f"  {p}: {u:.1f} us per full handshake = {u / fl_us:.2f}x the floor "
                      f"({u - fl_us:.1f} us above it)")
            if (p, "resumed") in us_per:
                u = us_per[(p, "resumed")]
                print(f"  {p}: {u:.1f} us per resumed handshake (its floor: 2 X25519, {2 * x_us:.1f} us)")
    else:
        print("  (could not read the sign/s and X25519 op/s figures)")

    lib, paced = medians(floors), medians(paced_floors)
    if lib:
        print("\nLibrary floor (perf/tls_floor: OpenSSL's server calls alone, in process over a BIO "
              "pair, routerd's allocator, on CPU 1, this run; median of 10 batches"
              + (f", then of {len(floors)} rounds" if len(floors) > 1 else "") + "):")
        for t, (f, res) in sorted(lib.items()):
            who = {1: "routerd's tls.tickets", 2: "OpenSSL's default, HAProxy's"}.get(t, "")
            print(f"  {t} ticket{'s' if t != 1 else ''} per full handshake ({who}): full {f:.1f} us"
                  + (f", resumed {res:.1f} us" if res else ""))
    if paced:
        print("Paced (perf/tls_floor --paced-by-cpu 0: the same calls, the clients in their own processes "
              "on CPU 0 over sockets, the server sleeping in poll() between its steps, as a network "
              "server waits for the next flight):")
        for t, (f, res) in sorted(paced.items()):
            print(f"  {t} ticket{'s' if t != 1 else ''} per full handshake: full {f:.1f} us"
                  + (f", resumed {res:.1f} us" if res else ""))
    for run in ("full", "resumed"):
        if ("routerd", run) in us_lib and ("routerd", run) in us_per:
            u, l = us_per[("routerd", run)], us_lib[("routerd", run)]
            i = 0 if run == "full" else 1
            rel = ", ".join(f"{l / table[1][i]:.2f}x the {name} floor" for name, table in
                            (("back-to-back", lib), ("paced", paced)) if 1 in table and table[1][i])
            print(f"  routerd, {run}: {l:.1f} us of its {u:.1f} us busy per handshake inside OpenSSL's "
                  f"calls (tls_handshake_cycles){' = ' + rel if rel else ''}, {u - l:.1f} us around "
                  f"them (TCP, IP, ports, the poll loop)"
                  + (f"; {parts[('routerd', run)]}" if parts.get(("routerd", run)) else ""))
    if ("haproxy", "full") in us_per:
        budget = us_per[("haproxy", "full")] / TARGET
        line = (f"  {TARGET}x HAProxy's full handshakes per core allows routerd {budget:.1f} us per "
                f"full handshake")
        if 1 in lib:
            line += (f"; OpenSSL's own work at one ticket, in process, is {lib[1][0]:.1f} us of it "
                     f"back to back ({budget - lib[1][0]:.1f} us left for everything else)")
        if 1 in paced:
            line += (f" and {paced[1][0]:.1f} us paced ({budget - paced[1][0]:.1f} us left)")
        print(line)

    # Per round: routerd against HAProxy in the same round (runs minutes apart, not a
    # slow spell apart), and the library floor of that round.
    n_rounds = max((len(v) for v in rounds.values()), default=0)
    ratios = []
    if n_rounds > 1:
        print("\nPer round (the order they ran):")
        for k in sorted(rounds):
            print(f"- {k[0]}, {k[1]}: " + ", ".join(
                f"{c:.1f} us" + (f" ({l:.1f} in OpenSSL)" if l else "")
                for c, _, _, l, _ in sorted(rounds[k], key=lambda x: x[1])))
        if floors:
            print("- library floor, 1 ticket, full: " + ", ".join(
                f"{f[1][0]:.1f} us" for f in floors if 1 in f))
        if paced_floors:
            print("- paced library floor, 1 ticket, full: " + ", ".join(
                f"{f[1][0]:.1f} us" for f in paced_floors if 1 in f))
        rr = {rd: pc for _, rd, pc, _, _ in rounds.get(("routerd", "full"), [])}
        hh = {rd: pc for _, rd, pc, _, _ in rounds.get(("haproxy", "full"), [])}
        ratios = sorted(rr[k] / hh[k] for k in rr if k in hh and hh[k] > 0)
        if ratios:
            print("- routerd/HAProxy full handshakes per core, each round: " + ", ".join(
                f"{x:.2f}x" for x in ratios) + " (sorted)")

    r, h = per_core.get(("routerd", "full")), per_core.get(("haproxy", "full"))
    print()
    if ratios:
        ratio = ratios[(len(ratios) - 1) // 2]
        verdict = "PASS" if ratio >= TARGET else "FAIL"
        print(f"Verdict: routerd against HAProxy, full handshakes per core, median over {len(ratios)} "
              f"rounds: {ratio:.2f}x (target >= {TARGET}x): {verdict}")
    elif r and h:
        ratio = r / h
        verdict = "PASS" if ratio >= TARGET else "FAIL"
        print(f"Verdict: routerd {r:,.0f} vs HAProxy {h:,.0f} full handshakes per core: "
              f"{ratio:.2f}x (target >= {TARGET}x): {verdict}")
    else:
        print("Verdict: none (needs both routerd's and HAProxy's full-handshake rows)")
    for run in ("resumed", "bulk"):
        r, h = per_core.get(("routerd", run)), per_core.get(("haproxy", run))
        if r and h:
            print(f"  {run}: routerd {r / h:.2f}x HAProxy per core")


if __name__ == "__main__":
    main()
