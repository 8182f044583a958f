# SPDX-License-Identifier: BSD-3-Clause
"""perf/route_change's parts (run with /usr/bin/python3; see perf/README.md, "route_change").

  gen DIR ROUTES DOMAIN A_IP B_IP   the objects: DIR/batch-NNNN.json (Services, Endpoints,
                                    Routes in applies of 1 % of the objects, at least 1000)
                                    and DIR/meta.json
  pick DIR LOADED                   the changed route, near the middle of the LOADED first:
                                    DIR/change-0.json and change-1.json (to the other
                                    Service and back); prints the meta with its host
  load ROUTERCTL SOCKET DIR BOUND   apply every batch in turn (`routerctl apply -f`), each
                                    timed; stops starting batches after BOUND seconds.
                                    Prints one JSON line.
  poll --host H --vip IP [--client raw|curl] [--count N] [--max-seconds S]
                                    in the client namespace: one request after the other,
                                    Connection: close, to http://IP/ with Host: H. Prints a
                                    line "A T_SENT T_RECV ANSWER" each time the answer
                                    differs from the one before (the first included), and
                                    at the end "S REQUESTS ELAPSED ERRORS". ANSWER is the
                                    X-Backend header ("a", "b") or "status-NNN" / "error-KIND".
  change ROUTERCTL SOCKET DIR POLL_LOG K BOUND
                                    K changes of the route, alternating between the two
                                    files; for each, the apply's wall time and the time
                                    from just before the apply to the first response with
                                    the new answer in POLL_LOG (both time.monotonic(),
                                    CLOCK_MONOTONIC), then `routerctl status`'s
                                    last_compile. Prints one JSON line.
  report FILE...                    the table, from the JSON lines of each size.
"""
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time

ROUTES_PER_NS = 100
SVCS_PER_NS = 10  # a Service per 10 routes; even ones -> backend-a, odd ones -> backend-b
ROUTES_PER_SVC = ROUTES_PER_NS // SVCS_PER_NS


def log(msg):
    print(f"[route_change] {msg}", file=sys.stderr, flush=True)


def route_host(i, domain):
    return f"app{i}.ns{i // ROUTES_PER_NS}.{domain}"


def service(j):
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": f"svc{j}", "namespace": f"ns{j // SVCS_PER_NS}"},
            "spec": {"ports": [{"name": "http", "port": 80, "targetPort": 80}]}}


def endpoints(j, a_ip, b_ip):
    return {"apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": f"svc{j}", "namespace": f"ns{j // SVCS_PER_NS}"},
            "subsets": [{"addresses": [{"ip": a_ip if j % 2 == 0 else b_ip}],
                         "ports": [{"name": "http", "port": 80}]}]}


def route(i, svc, domain):
    return {"apiVersion": "route.openshift.io/v1", "kind": "Route",
            "metadata": {"name": f"r{i}", "namespace": f"ns{i // ROUTES_PER_NS}"},
            "spec": {"host": route_host(i, domain),
                     "to": {"kind": "Service", "name": f"svc{svc}", "weight": 100},
                     "port": {"targetPort": "http"}}}


def objects(n, domain, a_ip, b_ip):
    """Per namespace (as perf/routes_bench.c): its Services, their Endpoints, its routes."""
    n_svc = (n + ROUTES_PER_SVC - 1) // ROUTES_PER_SVC
    for ns in range((n + ROUTES_PER_NS - 1) // ROUTES_PER_NS):
        svcs = range(ns * SVCS_PER_NS, min(n_svc, (ns + 1) * SVCS_PER_NS))
        for j in svcs:
            yield service(j)
        for j in svcs:
            yield endpoints(j, a_ip, b_ip)
        for i in range(ns * ROUTES_PER_NS, min(n, (ns + 1) * ROUTES_PER_NS)):
            yield route(i, i // ROUTES_PER_SVC, domain)


def cmd_gen(d, n, domain, a_ip, b_ip):
    n = int(n)
    os.makedirs(d, exist_ok=True)
    total = n + 2 * ((n + ROUTES_PER_SVC - 1) // ROUTES_PER_SVC)
    per = max(1000, total // 100)
    batch, k = [], 0

    def flush():
        nonlocal batch, k
        with open(os.path.join(d, f"batch-{k:04d}.json"), "w") as f:
            json.dump(batch, f, separators=(",", ":"))
        batch, k = [], k + 1

    for o in objects(n, domain, a_ip, b_ip):
        batch.append(o)
        if len(batch) == per:
            flush()
    if batch:
        flush()
    meta = {"routes": n, "objects": total, "batches": k, "per_batch": per, "domain": domain}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f)
    print(json.dumps(meta))


def pick(loaded):
    """The route near the middle of the loaded first whose Service is even (backend-a):
    its number and its Service's. The next Service (odd: backend-b) is in its namespace."""
    half = loaded // 2
    x = half - half % (2 * ROUTES_PER_SVC)
    return x, x // ROUTES_PER_SVC


def cmd_pick(d, loaded):
    """The changed route: one near the middle of those loaded, on an even Service
    (backend-a), moved to the next Service (odd, same namespace: backend-b) and back. Only
    its Service's name changes. Writes DIR/change-0.json and change-1.json."""
    meta = json.load(open(os.path.join(d, "meta.json")))
    x, svc = pick(int(loaded))
    for c, s in enumerate((svc + 1, svc)):
        with open(os.path.join(d, f"change-{c}.json"), "w") as f:
            json.dump(route(x, s, meta["domain"]), f)
    meta.update({"route": f"ns{x // ROUTES_PER_NS}/r{x}", "host": route_host(x, meta["domain"]),
                 "answers": ["b", "a"]})  # the answer after change-0, after change-1
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f)
    print(json.dumps(meta))


def routerctl(rc, sock, *args, timeout=600):
    return subprocess.run([rc, "-s", sock, *args], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)


def cmd_load(rc, sock, d, bound):
    meta = json.load(open(os.path.join(d, "meta.json")))
    bound = float(bound)
    res = {"routes": meta["routes"], "objects": meta["objects"], "batches": meta["batches"],
           "per_batch": meta["per_batch"], "applied_batches": 0, "applied_objects": 0,
           "bounded": False, "bound": bound, "refused": None, "batch_s": []}
    t0 = time.monotonic()
    for k in range(meta["batches"]):
        if time.monotonic() - t0 > bound:
            res["bounded"] = True
            break
        path = os.path.join(d, f"batch-{k:04d}.json")
        b0 = time.monotonic()
        try:
            p = routerctl(rc, sock, "apply", "-f", path, timeout=max(60, bound))
        except subprocess.TimeoutExpired:
            res["refused"] = f"batch {k}: routerctl apply did not return within {max(60, bound):.0f} s"
            break
        res["batch_s"].append(round(time.monotonic() - b0, 4))
        if p.returncode != 0:
            res["refused"] = f"batch {k}: exit {p.returncode}: {(p.stderr or p.stdout).strip()[:400]}"
            break
        res["applied_batches"] += 1
        res["applied_objects"] += len(json.load(open(path)))
        if sys.stderr.isatty():
            print(f"\r  batch {k + 1}/{meta['batches']}: {time.monotonic() - t0:.1f} s",
                  end="", file=sys.stderr, flush=True)
    res["load_s"] = round(time.monotonic() - t0, 3)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    # How many routes those objects hold (every 12th object of a namespace's 120 is not one)
    res["routes_loaded"] = routes_in(meta, res["applied_objects"])
    st = json.loads(routerctl(rc, sock, "status", "-o", "json", timeout=60).stdout or "{}")
    res["vhosts"] = st.get("vhosts")
    res["last_compile"] = st.get("last_compile")
    b = res["batch_s"]
    log(f"{res['routes']} routes: loaded {res['applied_objects']:,} objects in {res['applied_batches']} applies, {res['load_s']:.1f} s"
          f" (one apply {min(b, default=0):.2f}-{max(b, default=0):.2f} s, the last {b[-1] if b else 0:.2f} s);"
          f" routerd: {res['vhosts']} vhosts, last compile {res['last_compile']}"
          + (f"; STOPPED at the {bound:.0f} s bound" if res["bounded"] else "")
          + (f"; REFUSED: {res['refused']}" if res["refused"] else ""))
    print(json.dumps(res))


def routes_in(meta, applied):
    if applied >= meta["objects"]:
        return meta["routes"]
    per_ns = ROUTES_PER_NS + 2 * SVCS_PER_NS
    full, rest = divmod(applied, per_ns)
    return full * ROUTES_PER_NS + max(0, rest - 2 * SVCS_PER_NS)


# ---- the poller (client namespace) ------------------------------------------------------

STOP = False


def _stop(*_):
    global STOP
    STOP = True


def ask_raw(vip, req):
    """One request on a new connection; the X-Backend header or what went wrong."""
    try:
        s = socket.create_connection((vip, 80), timeout=2)
    except OSError as e:
        return f"error-connect-{type(e).__name__}"
    try:
        s.sendall(req)
        buf = b"".join(iter(lambda: s.recv(65536), b""))  # to the server's close
    except OSError as e:
        return f"error-io-{type(e).__name__}"
    finally:
        s.close()
    head = buf.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    parts = head[0].split(" ")
    if len(parts) < 2 or not parts[0].startswith("HTTP/"):
        return "error-no-response"
    if parts[1] != "200":
        return f"status-{parts[1]}"
    for h in head[1:]:
        k, _, v = h.partition(":")
        if k.strip().lower() == "x-backend":
            return v.strip()
    return "status-200-no-x-backend"


def ask_curl(vip, host):
    p = subprocess.run(["curl", "-s", "-o", "/dev/null", "--max-time", "2", "-H", f"Host: {host}",
                        "-H", "Connection: close", "-w", "%{http_code} %header{x-backend}",
                        f"http://{vip}/"], capture_output=True, text=True)
    code, _, backend = p.stdout.partition(" ")
    if p.returncode != 0:
        return f"error-curl-{p.returncode}"
    if code != "200":
        return f"status-{code}"
    return backend.strip() or "status-200-no-x-backend"


def cmd_poll(argv):
    opts = {"--client": "raw", "--count": "0", "--max-seconds": "600"}
    while argv:
        opts[argv[0]] = argv[1]
        argv = argv[2:]
    host, vip, client = opts["--host"], opts["--vip"], opts["--client"]
    count, limit = int(opts["--count"]), float(opts["--max-seconds"])
    req = f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nUser-Agent: route-change\r\n\r\n".encode()
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    last, n, errors = None, 0, 0
    t_start = time.monotonic()
    while not STOP:
        t0 = time.monotonic()
        if t0 - t_start > limit or (count and n >= count):
            break
        a = ask_raw(vip, req) if client == "raw" else ask_curl(vip, host)
        t1 = time.monotonic()
        n += 1
        if a.startswith("error-") or a.startswith("status-"):
            errors += 1
        if a != last:
            print(f"A {t0:.6f} {t1:.6f} {a}", flush=True)
            last = a
    print(f"S {n} {time.monotonic() - t_start:.6f} {errors}", flush=True)


# ---- the changes ------------------------------------------------------------------------

class Tail:
    """The poller's log, read as it grows: its "A" lines."""

    def __init__(self, path):
        self.f = open(path)
        self.buf = ""
        self.current = None  # (t_sent, t_recv, answer) of the last transition

    def lines(self):
        self.buf += self.f.read()
        *done, self.buf = self.buf.split("\n")
        for ln in done:
            p = ln.split()
            if len(p) == 4 and p[0] == "A":
                self.current = (float(p[1]), float(p[2]), p[3])
                yield self.current

    def wait(self, pred, deadline):
        """The first transition (from now on) for which pred is true, or None at deadline."""
        while True:
            for t in self.lines():
                if pred(t):
                    return t
            if time.monotonic() > deadline:
                return None
            time.sleep(0.001)


def cmd_change(rc, sock, d, poll_log, k, bound):
    meta = json.load(open(os.path.join(d, "meta.json")))
    k, bound = int(k), float(bound)
    tail = Tail(poll_log)
    res = {"changes": [], "failed": None, "asked": k}
    # The poller's first answer must be the route's loaded one (backend-a).
    first = tail.wait(lambda t: True, time.monotonic() + 10)
    if first is None or first[2] != "a":
        res["failed"] = f"before the first change the poller saw {first and first[2]!r}, not 'a'"
        print(json.dumps(res))
        return
    rng = random.Random(1)
    for i in range(k):
        want = meta["answers"][i % 2]
        path = os.path.join(d, f"change-{i % 2}.json")
        # Not in step with the poller: 20-70 ms after the last change was seen.
        time.sleep(0.02 + rng.random() * 0.05)
        list(tail.lines())
        if tail.current is None or tail.current[2] == want:
            res["failed"] = f"change {i + 1}: the poller already answers {want!r} before the apply"
            break
        t0 = time.monotonic()
        try:
            p = routerctl(rc, sock, "apply", "-f", path, timeout=bound)
        except subprocess.TimeoutExpired:
            res["failed"] = f"change {i + 1}: routerctl apply did not return within {bound:.0f} s"
            break
        t1 = time.monotonic()
        if p.returncode != 0:
            res["failed"] = f"change {i + 1}: apply refused: exit {p.returncode}: {(p.stderr or p.stdout).strip()[:400]}"
            break
        seen = tail.wait(lambda t: t[2] == want and t[1] > t0, t0 + bound)
        if seen is None:
            res["failed"] = (f"change {i + 1}: the new answer {want!r} was not seen within {bound:.0f} s "
                             f"(the poller last answered {tail.current and tail.current[2]!r})")
            break
        # Anything other than the old and the new answer between them (a 503, an error)
        # is worth a word; the poller prints every transition.
        st = json.loads(routerctl(rc, sock, "status", "-o", "json", timeout=60).stdout or "{}")
        lc = st.get("last_compile") or {}
        c = {"apply_s": round(t1 - t0, 6), "seen_s": round(seen[1] - t0, 6),
             "seen_sent_s": round(seen[0] - t0, 6), "compile_ms": lc.get("ms"),
             "incremental": lc.get("incremental"), "objects": lc.get("objects"),
             "generation": st.get("generation")}
        res["changes"].append(c)
        log(f"{meta['routes']} routes: change {i + 1}/{k} ({meta['route']} to {want}): apply {c['apply_s'] * 1e3:.2f} ms,"
            f" new answer seen {c['seen_s'] * 1e3:.2f} ms (its request sent at {c['seen_sent_s'] * 1e3:.2f} ms),"
            f" routerd's compile + publish {c['compile_ms']:.3f} ms"
            f" ({'incremental' if c['incremental'] else 'full'}, {c['objects']} objects)")
    if res["failed"]:
        log(f"{meta['routes']} routes: {res['failed']}")
    print(json.dumps(res))


# ---- the table --------------------------------------------------------------------------

def ms(v):
    return "-" if v is None else (f"{v:.2f}" if v < 100 else f"{v:,.0f}")


def cmd_report(paths):
    rows = [json.loads(open(p).read()) for p in paths]
    print("| routes loaded | load (objects, applies) | apply round trip, median / max [ms] "
          "| new answer seen, median / max [ms] | router's compile + publish, median [ms] "
          "(incremental, objects compiled) | client poll floor: one request [ms] | changes |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ld, ch, fl = r["load"], r.get("change") or {}, r.get("floor") or {}
        cs = ch.get("changes", [])
        load = f"{ld['load_s']:.1f} s ({ld['applied_objects']:,} objects, {ld['applied_batches']} applies)"
        if ld.get("bounded"):
            load += f", STOPPED at the {ld['bound']:.0f} s bound: {ld['applied_batches']} of {ld['batches']} applies"
        if ld.get("refused"):
            load += f", REFUSED: {ld['refused']}"
        if cs:
            ap = [c["apply_s"] * 1e3 for c in cs]
            se = [c["seen_s"] * 1e3 for c in cs]
            cm = [c["compile_ms"] for c in cs if c["compile_ms"] is not None]
            inc = sorted({("incremental" if c["incremental"] else "full") for c in cs})
            obj = sorted({c["objects"] for c in cs if c["objects"] is not None})
            apply_c = f"{ms(statistics.median(ap))} / {ms(max(ap))}"
            seen_c = f"{ms(statistics.median(se))} / {ms(max(se))}"
            comp_c = (f"{ms(statistics.median(cm)) if cm else '-'} ({', '.join(inc)}, "
                      f"{'/'.join(f'{o:,}' for o in obj)})")
        else:
            apply_c = seen_c = comp_c = "-"
        floor = "-"
        if fl:
            floor = f"{fl['chosen_ms']:.2f} ({fl['chosen']}; raw {fl['raw_ms']:.2f}, curl {fl['curl_ms']:.2f})"
            if fl.get("interval_ms") is not None:
                floor += f"; {fl['interval_ms']:.2f} during the changes"
        n = f"{len(cs)} of {ch.get('asked', len(cs))}"
        if ch.get("failed"):
            n += f", FAILED: {ch['failed']}"
        print(f"| {ld['routes_loaded']:,} | {load} | {apply_c} | {seen_c} | {comp_c} | {floor} | {n} |")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "gen":
        cmd_gen(*args)
    elif cmd == "pick":
        cmd_pick(*args)
    elif cmd == "load":
        cmd_load(*args)
    elif cmd == "poll":
        cmd_poll(args)
    elif cmd == "change":
        cmd_change(*args)
    elif cmd == "report":
        cmd_report(args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
