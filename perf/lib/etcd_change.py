#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""perf/etcd_change's parts (run with /usr/bin/python3; see perf/README.md, "etcd_change").

  load URL PREFIX ROUTES DOMAIN     the objects of perf/route_change (per namespace 10
                                    Services, their Endpoints, 100 OpenShift Routes, each
                                    on its own host) written to etcd under PREFIX objects/
                                    through its gRPC gateway, txns of 128 puts on 2
                                    keep-alive connections (fleet_bench.put_all). Prints
                                    one JSON line (objects, txns, seconds, revision).
  loaded SOCK ROUTES REVISION       exit 0 once routerd (control socket SOCK) holds ROUTES
                                    Routes and has applied etcd's REVISION.
  revision URL                      etcd's revision now.
  cpu PID                           CPU seconds of routerd's control thread and etcd threads.
  change URL PREFIX SOCK ROUTES DOMAIN K BOUND [GAP_MS [POLL_US]]
                                    K changes of one Route (route_change.pick: near the
                                    middle, to the next Service and back), each one put of
                                    its key (/v3/kv/put, the gateway). After each put, the
                                    control socket is asked `resolve` for its host, one
                                    request after the other, until the answer names the new
                                    Service (POLL_US, default 0: a pause after each that did
                                    not); then `status`. Between changes GAP_MS (default
                                    "20,70": a random pause in that range). Prints one JSON
                                    line.
  report FILE                       the table, from change's and load's JSON lines.

Clocks: time.monotonic() (CLOCK_MONOTONIC), the same clock routerd's store status
"last_change" uses (control/etcd/sync.c): its "live_mono" is comparable with the put's
times here.
"""
import base64
import json
import os
import random
import statistics
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleet_bench import Ctl, Gateway, b64, put_all  # noqa: E402
from route_change import objects, pick, route, route_host, ROUTES_PER_NS  # noqa: E402

A_IP, B_IP = "198.18.1.10", "198.18.1.11"  # the lab's backends (nothing is sent to them)


def key_of(prefix, o):
    md = o["metadata"]
    seg = {"Route": "route.route.openshift.io", "Service": "service",
           "Endpoints": "endpoints"}[o["kind"]]
    return f"{prefix}objects/{seg}/{md['namespace']}/{md['name']}"


def log(msg):
    print(f"[etcd_change] {msg}", file=sys.stderr, flush=True)


def cmd_load(url, prefix, n, domain):
    n = int(n)
    objs = list(objects(n, domain, A_IP, B_IP))
    t0 = time.monotonic()
    txns = put_all(url, ((key_of(prefix, o), o) for o in objs))
    secs = time.monotonic() - t0
    rev = int(Gateway(url).post("/v3/kv/range", {"key": b64(prefix), "count_only": True})
              ["header"]["revision"])
    print(json.dumps({"routes": n, "objects": len(objs), "txns": txns,
                      "seconds": round(secs, 2), "revision": rev}))


def cmd_loaded(sock, n, rev):
    st = Ctl(sock).call({"op": "status"})
    store = st.get("store") or {}
    ok = (st.get("objects", {}).get("Route", 0) >= int(n) and store.get("synced")
          and int(store.get("applied_revision", 0)) >= int(rev))
    log(f"routerd: {st.get('objects', {}).get('Route', 0)} Routes, generation {st.get('generation')},"
        f" etcd revision applied {store.get('applied_revision')} of {rev},"
        f" last compile {st.get('last_compile')}")
    sys.exit(0 if ok else 1)


def cmd_revision(url):
    print(Gateway(url).post("/v3/kv/range", {"key": b64("/"), "count_only": True})
          ["header"]["revision"])


def thread_cpu(pid):
    """CPU seconds (user + system) of routerd's threads by name: the control thread
    (routerd), the etcd threads."""
    out, hz = {}, os.sysconf("SC_CLK_TCK")
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            f = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if comm in ("routerd", "etcd-watch", "etcd-ops"):
            out[comm] = out.get(comm, 0) + (int(f[11]) + int(f[12])) / hz
    return out


def cmd_cpu(pid):
    print(json.dumps(thread_cpu(int(pid))))


def services_of(reply):
    return [s.get("name") for s in reply.get("services") or []]


def cmd_change(url, prefix, sock, n, domain, k, bound, gap="20,70", poll_us="0", status="status"):
    n, k, bound, pause = int(n), int(k), float(bound), int(poll_us) / 1e6
    ask_status = status != "nostatus"
    gap_lo, gap_hi = (float(x) / 1e3 for x in gap.split(","))
    x, svc = pick(n)
    host = route_host(x, domain)
    ctl, gw = Ctl(sock), Gateway(url)
    objs = [route(x, svc + 1, domain), route(x, svc, domain)]  # change 1, 3, ... and 2, 4, ...
    key = key_of(prefix, objs[0])
    res = {"route": f"ns{x // ROUTES_PER_NS}/r{x}", "host": host, "asked": k, "changes": [],
           "failed": None}
    resolve = {"op": "resolve", "url": f"http://{host}/"}

    def serves(name):
        return name in services_of(ctl.call(resolve))

    # The floor: one resolve round trip with nothing changing.
    if not serves(f"svc{svc}"):
        res["failed"] = f"before the changes {host} does not resolve to svc{svc}: {ctl.call(resolve)}"
        print(json.dumps(res))
        return
    t0 = time.monotonic()
    for _ in range(300):
        ctl.call(resolve)
    res["floor_ms"] = round((time.monotonic() - t0) / 300 * 1e3, 4)
    res["poll_us"] = int(poll_us)
    # What one `status` costs (it counts the objects of each kind: a walk of the store
    # per kind); the control thread does nothing else meanwhile.
    ts = []
    for _ in range(3):
        t0 = time.monotonic()
        ctl.call({"op": "status"})
        ts.append((time.monotonic() - t0) * 1e3)
    res["status_ms"] = round(statistics.median(ts), 2)
    rng = random.Random(1)
    restarted = None
    for i in range(k):
        obj = objs[i % 2]
        want = obj["spec"]["to"]["name"]
        time.sleep(gap_lo + rng.random() * (gap_hi - gap_lo))
        gen0 = ctl.call(resolve)["generation"]  # (a status walks the store: slower)
        body = {"key": b64(key), "value": b64(json.dumps(obj, separators=(",", ":")))}
        t_sent = time.monotonic()
        try:
            put = gw.post("/v3/kv/put", body)
        except Exception as e:  # noqa: BLE001 (reported)
            res["failed"] = f"change {i + 1}: the put failed: {e}"
            break
        t_resp = time.monotonic()
        rev = int(put["header"]["revision"])
        polls, t_prev, t_first, t_seen = 0, t_resp, None, None
        while time.monotonic() - t_resp < bound:
            names = services_of(ctl.call(resolve))
            t = time.monotonic()
            polls += 1
            t_first = t_first or t
            if want in names:
                t_seen = t
                break
            t_prev = t
            if pause:
                time.sleep(pause)
        if t_seen is None:
            res["failed"] = f"change {i + 1}: {host} did not resolve to {want} within {bound:.0f} s"
            break
        # A status walks the whole store (tens of ms at 100k): left out under a profile.
        st = ctl.call({"op": "status"}) if ask_status else {"generation": ctl.call(resolve)["generation"]}
        lc, lch = st.get("last_compile") or {}, (st.get("store") or {}).get("last_change") or {}
        c = {"put_ms": (t_resp - t_sent) * 1e3, "seen_ms": (t_seen - t_resp) * 1e3,
             "seen_after_ms": (t_prev - t_resp) * 1e3, "polls": polls,
             "seen_from_sent_ms": (t_seen - t_sent) * 1e3,
             "poll_interval_ms": (t_seen - t_first) * 1e3 / (polls - 1) if polls > 1 else None,
             "compile_ms": lc.get("ms"), "incremental": lc.get("incremental"),
             "objects": lc.get("objects"), "generations": st["generation"] - gen0,
             "revision": rev}
        if lch.get("revision") == rev and lch.get("live_mono") is not None:
            # routerd's own clock of the change: the watch's receipt and the publish
            # (CLOCK_MONOTONIC, as time.monotonic() here).
            c["live_ms"] = (lch["live_mono"] - t_resp) * 1e3
            c["received_ms"] = (lch["received_mono"] - t_resp) * 1e3
            c["drain_ms"] = lch.get("read_to_live_ms")
            c["watch_ms"] = lch.get("watch_ms")
            c["handoff_ms"] = lch.get("handoff_ms")
            c["ingest_ms"] = lch.get("ingest_ms")
            c["statuses_ms"] = lch.get("statuses_ms")
            c["ingest_cpu_ms"] = lch.get("ingest_cpu_ms")
            c["compile_cpu_ms"] = lch.get("compile_cpu_ms")
        cache = (st.get("store") or {}).get("cache") or {}
        if restarted is not None and cache.get("restarted") is not None:
            # The change came while routerd printed its local copy (and dropped the print).
            c["during_print"] = cache["restarted"] > restarted
        restarted = cache.get("restarted", restarted)
        res["changes"].append(c)
        log(f"change {i + 1}/{k} ({res['route']} to {want}, revision {rev}): put {c['put_ms']:.2f} ms,"
            f" served {c['seen_ms']:.2f} ms after its response ({polls} resolves),"
            + (f" compile + publish {c['compile_ms']:.3f} ms"
               f" ({'incremental' if c['incremental'] else 'full'}, {c['objects']} objects),"
               if ask_status else "") +
            f" {c['generations']} generation(s)"
            + (f"; routerd: live {c['live_ms']:.2f} ms after the put's response"
               f" (the watch read it at {c['received_ms']:.2f}; read to live {c['drain_ms']:.3f} ms:"
               f" queued {c['watch_ms']:.3f}, taken {c['handoff_ms']:.3f}, stored {c['ingest_ms']:.3f}"
               f" (CPU {c['ingest_cpu_ms'] or 0:.3f}), compiled and published {lch.get('compile_ms', 0):.3f}"
               f" (CPU {c['compile_cpu_ms'] or 0:.3f}))"
               if "live_ms" in c else "")
            + ("; it came during a print of the local copy" if c.get("during_print") else ""))
    if res["failed"]:
        log(res["failed"])
    print(json.dumps(res))


def mmm(xs, fmt="%.3f"):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return " / ".join(fmt % v for v in (min(xs), statistics.median(xs), max(xs)))


def cmd_report(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    load = next((r for r in rows if "txns" in r), {})
    cpu_end = next((r["cpu_changes"] for r in rows if "cpu_changes" in r), {})
    ch = next((r for r in rows if "changes" in r), {})
    cs = ch.get("changes", [])
    print(f"{load.get('routes', 0):,} routes ({load.get('objects', 0):,} objects: Routes, Services,"
          f" Endpoints) written to etcd in {load.get('txns')} txns, {load.get('seconds')} s;"
          f" routerd loaded them in {load.get('routerd_load_s', '-')} s"
          f" (first compile {load.get('first_compile_ms', '-')} ms; printing its local copy of"
          f" the store took the control thread {load.get('copy_serialize_ms', '-')} ms"
          + (f" in {load['copy_slices']} slices, the longest {load['copy_slice_max_ms']:.2f} ms"
             f" ({load.get('copy_slice_max_cpu_ms') or 0:.2f} ms of CPU at most)"
             if load.get("copy_slices") else "") + ");"
          f" changed: {ch.get('route')} ({ch.get('host')}), {len(cs)} of {ch.get('asked')} changes")
    if "settled_s" in load:
        a, b = load["cpu_loaded"], load["cpu_settled"]
        print(f"routerd's status write-back: {load['status_txns']} etcd revisions after the load"
              f" (its txns), settled {load['settled_s']} s after its start; CPU seconds of its"
              f" threads, start to loaded / loaded to settled / over the changes: "
              + ", ".join(f"{t} {a.get(t, 0):.2f} / {b.get(t, 0) - a.get(t, 0):.2f}"
                          f" / {cpu_end.get(t, 0) - b.get(t, 0):.2f}"
                          for t in ("routerd", "etcd-watch", "etcd-ops")))
    print()
    print("| one Route changed in etcd (a put) | min / median / max |")
    print("|---|---|")
    print(f"| the put's round trip (gateway) [ms] | {mmm([c['put_ms'] for c in cs])} |")
    print(f"| put's response -> `resolve` answers the new Service [ms] | {mmm([c['seen_ms'] for c in cs])} |")
    print(f"| the same, the last `resolve` that did not [ms] | {mmm([c['seen_after_ms'] for c in cs])} |")
    print(f"| put sent -> `resolve` answers the new Service [ms] | {mmm([c['seen_from_sent_ms'] for c in cs])} |")
    if any("live_ms" in c for c in cs):
        print(f"| routerd: put's response -> the watch event read [ms] | {mmm([c.get('received_ms') for c in cs])} |")
        print(f"| routerd: put's response -> the change live (published) [ms] | {mmm([c.get('live_ms') for c in cs])} |")
        print(f"| routerd: the watch event's handling, read to live [ms] | {mmm([c.get('drain_ms') for c in cs])} |")
        print(f"| routerd: of it, the watch thread: message read -> queued [ms] | {mmm([c.get('watch_ms') for c in cs])} |")
        print(f"| routerd: of it, queued -> the control thread takes it [ms] | {mmm([c.get('handoff_ms') for c in cs])} |")
        print(f"| routerd: of it, decode + validate + store [ms] | {mmm([c.get('ingest_ms') for c in cs])} |")
        print(f"| routerd: the same, the control thread's CPU time [ms] | {mmm([c.get('ingest_cpu_ms') for c in cs])} |")
    print(f"| routerd: compile + publish (`last_compile.ms`) [ms] | {mmm([c['compile_ms'] for c in cs])} |")
    if any(c.get("compile_cpu_ms") is not None for c in cs):
        print(f"| routerd: the same, the control thread's CPU time [ms] | {mmm([c.get('compile_cpu_ms') for c in cs])} |")
    during = [c for c in cs if c.get("during_print")]
    if during:
        print(f"| routerd: read to live, the {len(during)} changes that came during a print of its"
              f" local copy [ms] | {mmm([c.get('drain_ms') for c in during])} |")
    if any("statuses_ms" in c for c in cs):
        print(f"| routerd: then the status write-back queued [ms] | {mmm([c.get('statuses_ms') for c in cs])} |")
    asked = [c for c in cs if c["objects"] is not None]
    inc = sorted({"incremental" if c["incremental"] else "FULL" for c in asked})
    objs = sorted({c["objects"] for c in asked})
    gens = sorted({c["generations"] for c in cs})
    print(f"| routerd: compiles | {', '.join(inc) or 'not asked (no status under --profile)'};"
          f" objects compiled {'/'.join(map(str, objs)) or '-'};"
          f" generations per change {'/'.join(map(str, gens))} |")
    iv = [c["poll_interval_ms"] for c in cs if c.get("poll_interval_ms") is not None]
    interval = statistics.mean(iv) if iv else None
    print(f"| resolution: one `resolve` round trip, nothing changing [ms] | {ch.get('floor_ms', '-')}"
          f"{'; + a pause of %d us after each' % ch['poll_us'] if ch.get('poll_us') else ''}"
          f"{'; %.3f between resolves during the changes' % interval if interval else ''} |")
    print(f"| one `status` round trip (median of 3; routerd does nothing else meanwhile) [ms] | {ch.get('status_ms', '-')} |")
    if ch.get("failed"):
        print(f"\nFAILED: {ch['failed']}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    fn = {"load": cmd_load, "loaded": cmd_loaded, "change": cmd_change, "revision": cmd_revision,
          "cpu": cmd_cpu, "report": cmd_report}.get(cmd)
    if fn is None:
        sys.exit(__doc__)
    fn(*args)


if __name__ == "__main__":
    main()
