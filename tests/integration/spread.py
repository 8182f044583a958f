#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Which backend answers new connections, one request each (HTTP/1.0), told by the body the
lab's backends answer (nginx "backend-a"/"backend-b", pool_server.py "pool-c"/"pool-d"/...).

    spread.py ADDR HOST N [GAP]         N connections, GAP seconds apart (default 0); prints
                                        {"a": n, "b": n, ...}, "failed" for a connection that
                                        failed or an answer that was not a 200
    spread.py ADDR HOST --sources FIRST LAST
                                        one connection from each client address FIRST..LAST
                                        (a.b.c.FIRST to a.b.c.LAST, already on the client);
                                        prints {"<address>": "a", ...}"""
import json
import socket
import sys

NAMES = {"backend-a": "a", "backend-b": "b", "pool-c": "c", "pool-d": "d", "pool-e": "e"}


def fetch(addr, host, src=None):
    try:
        s = socket.socket()
        s.settimeout(5)
        if src:
            s.bind((src, 0))
        s.connect((addr, 80))
        s.sendall(("GET / HTTP/1.0\r\nHost: %s\r\n\r\n" % host).encode())
        got = b""
        while True:
            c = s.recv(65536)
            if not c:
                break
            got += c
        s.close()
    except OSError:
        return "failed"
    status = got.split(b"\r\n", 1)[0]
    if not status.startswith(b"HTTP/1.") or b" 200 " not in status + b" ":
        return "failed"
    body = got.split(b"\r\n\r\n", 1)[-1].strip().decode(errors="replace")
    return NAMES.get(body, "other:" + body[:20])


def main():
    addr, host = sys.argv[1], sys.argv[2]
    if sys.argv[3] == "--sources":
        first, last = sys.argv[4], int(sys.argv[5])
        prefix, start = first.rsplit(".", 1)
        print(json.dumps({"%s.%d" % (prefix, i): fetch(addr, host, "%s.%d" % (prefix, i))
                          for i in range(int(start), last + 1)}))
        return
    n, gap = int(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) > 4 else 0
    seen = {}
    for _ in range(n):
        key = fetch(addr, host)
        seen[key] = seen.get(key, 0) + 1
        if gap:
            import time
            time.sleep(gap)
    print(json.dumps(seen))


main()
