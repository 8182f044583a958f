#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""New connections to a VIP, one after another, for VIP failover (tests/integration/vrrp.sh,
perf/vrrp_failover): each attempt connects (timeout --connect, 0.1 s), sends GET / for HOST
and reads the answer to the end (timeout --read, 0.25 s: a healthy answer takes a few ms,
and a connection the dying owner accepted must not hold the probe long); ok when it is a 200 with BODY in it. One line
per attempt: "START END ok|fail WHY CONNECTED" (Unix times; CONNECTED: when the
handshake completed, or -, the clock `date +%s.%N` reads). Bounded
by SECONDS and --max attempts; --until-recovered stops at the first ok after a failure
(with --mark FILE: a failure once FILE exists, which the caller creates when it signals the
VIP's owner), or, with --gone FILE (created once the owner has exited), after 10 oks in a
row started since then: a handover without an outage (SIGTERM) is over, and later
failures are not its doing. --until-ok stops at the first ok at all."""
import os
import argparse
import socket
import sys
import time


def attempt(vip, host, body, ct, rt, conn):
    s = socket.socket(socket.AF_INET6 if ":" in vip else socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(ct)
    try:
        s.connect((vip, 80))
        conn[0] = time.time()
        s.settimeout(rt)
        s.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        if data.startswith(b"HTTP/1.1 200") and body.encode() in data:
            return "ok", "-"
        return "fail", "answer:" + data[:12].decode(errors="replace").replace(" ", "_")
    except socket.timeout:
        return "fail", "timeout"
    except OSError as e:
        return "fail", type(e).__name__
    finally:
        s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("vip")
    ap.add_argument("host")
    ap.add_argument("seconds", type=float)
    ap.add_argument("--body", default="backend-a")
    ap.add_argument("--connect", type=float, default=0.1)
    ap.add_argument("--read", type=float, default=0.25)
    ap.add_argument("--gap", type=float, default=0.01)
    ap.add_argument("--max", type=int, default=5000)
    ap.add_argument("--until-recovered", action="store_true")
    ap.add_argument("--until-ok", action="store_true")
    ap.add_argument("--mark")
    ap.add_argument("--gone")
    a = ap.parse_args()
    deadline = time.time() + a.seconds
    failed = False
    oks_since_gone = 0
    for _ in range(a.max):
        t0 = time.time()
        if t0 >= deadline:
            break
        conn = [None]
        res, why = attempt(a.vip, a.host, a.body, a.connect, a.read, conn)
        c = f"{conn[0]:.6f}" if conn[0] else "-"
        print(f"{t0:.6f} {time.time():.6f} {res} {why} {c}", flush=True)
        if res == "ok" and (a.until_ok or (a.until_recovered and failed)):
            return 0
        if res == "fail" and (a.mark is None or os.path.exists(a.mark)):
            failed = True
        if a.gone is not None and a.until_recovered:
            gone = os.path.exists(a.gone)
            oks_since_gone = oks_since_gone + 1 if gone and res == "ok" else 0
            if oks_since_gone >= 10:
                return 0
        time.sleep(a.gap)
    return 0 if not (a.until_ok or a.until_recovered) else 1


if __name__ == "__main__":
    sys.exit(main())
