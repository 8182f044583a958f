#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""perf/fleet's helpers (perf/fleet runs them; see perf/README.md, "fleet").

  load URL PREFIX ROUTERS ROUTES   Router objects r00..r(ROUTERS-1) and ROUTES
                                   unscheduled Routes bench/r<i> written to etcd through
                                   its gRPC gateway in txns of 128 puts (etcd's default
                                   --max-txn-ops), on 2 keep-alive connections
  count URL PREFIX ROUTER          JSON: bindings, status keys of ROUTER, routes whose
                                   status there says phase "scheduled", status keys of
                                   every router (all_statuses), revision
  trial ROUTE SOCK_APPLY SOCK...   apply Route bench/ROUTE through SOCK_APPLY (the control
                                   protocol), then poll every SOCK until its `get` shows
                                   the route with status.phase "scheduled" (its live
                                   generation has the route and its binding) and the
                                   router it is bound to `resolve`s its host to it; JSON:
                                   seconds from the apply to each router
"""
import base64
import http.client
import json
import socket
import sys
import threading
import time
import urllib.parse

TXN_OPS = 128


def b64(s):
    return base64.b64encode(s.encode()).decode()


def range_end(prefix):
    b = bytearray(prefix.encode())
    b[-1] += 1
    return base64.b64encode(bytes(b)).decode()


class Gateway:
    def __init__(self, url):
        u = urllib.parse.urlparse(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)

    def post(self, path, body):
        self.conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        r = self.conn.getresponse()
        data = r.read()
        if r.status != 200:
            raise RuntimeError("%s: HTTP %d %s" % (path, r.status, data[:300]))
        return json.loads(data)


def route_obj(i):
    # No host: served as r<i>-bench.<the shard's dns> (the generated form).
    return {"apiVersion": "route.openshift.io/v1", "kind": "Route",
            "metadata": {"name": "r%d" % i, "namespace": "bench"},
            "spec": {"to": {"kind": "Service", "name": "svc"}}}


def load(url, prefix, routers, routes):
    gw = Gateway(url)
    puts = []
    for i in range(routers):
        name = "r%02d" % i
        puts.append((prefix + "objects/router.route.openshift.io/" + name, {
            "apiVersion": "route.openshift.io/v1", "kind": "Router",
            "metadata": {"name": name},
            "spec": {"dns": "%s.apps.bench.test" % name}}))
    gw.post("/v3/kv/txn", {"success": [{"requestPut": {"key": b64(k), "value": b64(json.dumps(v))}}
                                       for k, v in puts]})
    t0 = time.monotonic()
    txns = put_all(url, ((prefix + "objects/route.route.openshift.io/bench/r%d" % i, route_obj(i))
                         for i in range(routes)))
    print(json.dumps({"routes": routes, "txns": txns + 1,
                      "seconds": round(time.monotonic() - t0, 2)}))


def put_all(url, items, conns=2):
    """Every (key, object) of items put, in txns of TXN_OPS on conns keep-alive
    connections (one thread each, the txns dealt out in turn). Returns the number of
    txns; exits on the first error."""
    batches, batch = [], []
    for k, v in items:
        batch.append({"requestPut": {"key": b64(k),
                                     "value": b64(json.dumps(v, separators=(",", ":")))}})
        if len(batch) == TXN_OPS:
            batches.append(batch)
            batch = []
    if batch:
        batches.append(batch)
    errors = []

    def writer(part):
        g = Gateway(url)
        try:
            for b in part:
                g.post("/v3/kv/txn", {"success": b})
        except Exception as e:  # reported below
            errors.append(str(e))

    threads = [threading.Thread(target=writer, args=(batches[k::conns],)) for k in range(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        sys.exit("put: " + errors[0])
    return len(batches)


def count_prefix(gw, key):
    r = gw.post("/v3/kv/range", {"key": b64(key), "range_end": range_end(key), "count_only": True})
    return int(r.get("count", 0)), int(r["header"]["revision"])


def pages(gw, key, keys_only=False):
    """Every kv under key, in pages (a range answer over ~4 MB is refused by
    etcd's gateway defaults)."""
    start = b64(key)
    while True:
        req = {"key": start, "range_end": range_end(key), "limit": 20000}
        if keys_only:
            req["keys_only"] = True
        r = gw.post("/v3/kv/range", req)
        kvs = r.get("kvs", [])
        yield from kvs
        if not r.get("more") or not kvs:
            return
        start = base64.b64encode(base64.b64decode(kvs[-1]["key"]) + b"\0").decode()


def count(url, prefix, router):
    """Bindings in etcd, how many name router (binding <route>.<router>), and
    router's status keys of routes, and how many of them say scheduled: a
    router writes the status of the routes bound to it, and only those."""
    gw = Gateway(url)
    bkey = prefix + "objects/routebinding.route.openshift.io/"
    bindings, rev = count_prefix(gw, bkey)
    suffix = ("." + router).encode()
    bound_here = sum(1 for kv in pages(gw, bkey, keys_only=True)
                     if base64.b64decode(kv["key"]).endswith(suffix)) if bindings else 0
    skey = prefix + "status/%s/route.route.openshift.io/" % router
    statuses, _ = count_prefix(gw, skey)
    all_statuses, _ = count_prefix(gw, prefix + "status/")
    scheduled = 0
    if statuses > 0:
        scheduled = sum(1 for kv in pages(gw, skey)
                        if b'"phase":"scheduled"' in base64.b64decode(kv.get("value", "")))
    print(json.dumps({"bindings": bindings, "bound_here": bound_here, "statuses": statuses,
                      "scheduled": scheduled, "all_statuses": all_statuses, "revision": rev}))


class Ctl:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.f = self.s.makefile("rb")

    def call(self, req):
        self.s.sendall((json.dumps(req) + "\n").encode())
        return json.loads(self.f.readline())


def trial(route, apply_sock, socks):
    ctls = [Ctl(s) for s in socks]
    name = route
    obj = {"apiVersion": "route.openshift.io/v1", "kind": "Route",
           "metadata": {"name": name, "namespace": "bench"},
           "spec": {"to": {"kind": "Service", "name": "svc"}}}
    t0 = time.monotonic()
    rep = Ctl(apply_sock).call({"op": "apply", "objects": [obj]})
    t_ack = time.monotonic() - t0
    if not rep.get("ok"):
        sys.exit("apply: %s" % rep)
    seen = [None] * len(ctls)
    dns = None
    deadline = t0 + 120
    while None in seen and time.monotonic() < deadline:
        for i, c in enumerate(ctls):
            if seen[i] is not None:
                continue
            g = c.call({"op": "get", "kind": "route", "namespace": "bench", "name": name})
            objs = g.get("items") or []
            st = (objs[0].get("status") or {}) if objs else {}
            if st.get("phase") != "scheduled":
                continue
            dns = st.get("dns")
            ing = st.get("ingress") or []
            if ing:
                # The router it is bound to: its generation must answer for the host.
                r = c.call({"op": "resolve", "url": "http://%s/" % dns})
                if not r.get("ok") or name not in json.dumps(r):
                    continue
            seen[i] = time.monotonic() - t0
        time.sleep(0.002)
    print(json.dumps({"route": name, "dns": dns, "ack": round(t_ack, 4),
                      "routers": [None if s is None else round(s, 4) for s in seen]}))


def main():
    cmd = sys.argv[1]
    if cmd == "load":
        load(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "count":
        count(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "trial":
        trial(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
