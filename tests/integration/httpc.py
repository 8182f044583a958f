#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Small HTTP client for the splice tests: many connections, keep-alive, raw bytes.

  httpc.py count ADDR HOST PATH N [PARALLEL]
      N connections (one request each, Connection: close); prints a JSON object
      {"bodies": {body: count}, "statuses": {status: count}, "errors": n}
  httpc.py keepalive ADDR HOST PATH N
      N requests on ONE connection; prints {"bodies": ..., "connections": 1}
  httpc.py raw ADDR PORT HEX-OR-TEXT
      send the bytes, print what comes back until the peer closes (max 5 s)
  httpc.py hold ADDR HOST PATH FIFO
      a keep-alive connection: one request, then wait for a line on FIFO, then a second
      request on the same connection; prints both bodies as JSON
"""
import json
import socket
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

TIMEOUT = 10


def read_response(f):
    """Read one HTTP/1.1 response from a file object; return (status, body)."""
    line = f.readline()
    if not line:
        raise EOFError("connection closed before a status line")
    status = int(line.split()[1])
    length = None
    while True:
        h = f.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        name, _, value = h.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    body = f.read(length) if length is not None else f.read()
    return status, body.decode("latin-1", "replace").strip()


def one(addr, host, path):
    with socket.create_connection((addr, 80), timeout=TIMEOUT) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        return read_response(s.makefile("rb"))


def count(addr, host, path, n, parallel=1):
    bodies, statuses, errors = {}, {}, []
    lock = threading.Lock()

    def task(_):
        try:
            st, body = one(addr, host, path)
            with lock:
                bodies[body] = bodies.get(body, 0) + 1
                statuses[str(st)] = statuses.get(str(st), 0) + 1
        except Exception as e:  # noqa: BLE001 - every failure is counted and shown
            with lock:
                errors.append(repr(e))

    with ThreadPoolExecutor(max_workers=parallel) as ex:
        list(ex.map(task, range(n)))
    print(json.dumps({"bodies": bodies, "statuses": statuses, "errors": len(errors),
                      "first_errors": errors[:5]}))


def keepalive(addr, host, path, n):
    bodies = {}
    with socket.create_connection((addr, 80), timeout=TIMEOUT) as s:
        f = s.makefile("rb")
        for _ in range(n):
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            st, body = read_response(f)
            key = f"{st} {body}"
            bodies[key] = bodies.get(key, 0) + 1
    print(json.dumps({"bodies": bodies, "connections": 1}))


def raw(addr, port, data):
    payload = bytes.fromhex(data[4:]) if data.startswith("hex:") else data.encode().decode(
        "unicode_escape").encode("latin-1")
    out = b""
    with socket.create_connection((addr, int(port)), timeout=5) as s:
        s.sendall(payload)
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except (socket.timeout, ConnectionResetError) as e:
            out += f"\n[{type(e).__name__}]".encode()
    sys.stdout.write(out.decode("latin-1"))


def hold(addr, host, path, fifo):
    res = []
    with socket.create_connection((addr, 80), timeout=30) as s:
        f = s.makefile("rb")
        for i in range(2):
            if i == 1:
                with open(fifo) as ff:
                    ff.readline()
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            res.append(read_response(f)[1])
    print(json.dumps(res))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "count":
        count(args[0], args[1], args[2], int(args[3]), int(args[4]) if len(args) > 4 else 1)
    elif cmd == "keepalive":
        keepalive(args[0], args[1], args[2], int(args[3]))
    elif cmd == "raw":
        raw(args[0], args[1], args[2])
    elif cmd == "hold":
        hold(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
