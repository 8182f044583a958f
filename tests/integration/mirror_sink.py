#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A request mirror's backend for mirror.sh: records what reached it and answers.

  mirror_sink.py ADDR PORT LOG

Each request is read whole (content-length or chunked body) and recorded as one JSON line
in LOG: method, path, the body's length and sha256, its Connection header and how it was
framed. It is answered 200 "mirror", then the connection is closed if the request asked
(Connection: close). A request whose path starts with /hang is recorded and never
answered: the connection is held open, read, for 60 s (a mirror that stalls). One whose
path starts with /noread is recorded at its head (length -1) and its body never read: the
connection is held for 60 s (a mirror that cannot keep up)."""
import hashlib
import json
import socket
import sys
import threading
import time


def read_line(f):
    line = f.readline(65537)
    if not line:
        raise EOFError
    return line


def read_body(f, headers):
    h = hashlib.sha256()
    n = 0
    if headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int(read_line(f).split(b";")[0].strip(), 16)
            if size == 0:
                while read_line(f) not in (b"\r\n", b"\n"):
                    pass  # trailers
                return h.hexdigest(), n, "chunked"
            data = f.read(size)
            if len(data) < size:
                raise EOFError
            h.update(data)
            n += size
            read_line(f)
    left = int(headers.get("content-length", "0"))
    while left > 0:
        data = f.read(min(left, 1 << 16))
        if not data:
            raise EOFError
        h.update(data)
        n += len(data)
        left -= len(data)
    return h.hexdigest(), n, "length"


def record(log, lock, rec):
    with lock:
        with open(log, "a") as out:
            out.write(json.dumps(rec) + "\n")


def serve(conn, log, lock):
    f = conn.makefile("rb")
    try:
        while True:
            try:
                line = read_line(f)
            except EOFError:
                return
            if line in (b"\r\n", b"\n"):
                continue
            method, path, _ = line.decode("latin-1").split(" ", 2)
            headers = {}
            while True:
                h = read_line(f).decode("latin-1")
                if h in ("\r\n", "\n"):
                    break
                k, v = h.split(":", 1)
                headers[k.strip().lower()] = v.strip()
            if path.startswith("/noread"):
                record(log, lock, {"method": method, "path": path, "length": -1})
                time.sleep(60)
                return
            digest, n, framing = read_body(f, headers)
            rec = {"method": method, "path": path, "length": n, "sha256": digest,
                   "connection": headers.get("connection", ""), "framing": framing,
                   "host": headers.get("host", "")}
            record(log, lock, rec)
            if path.startswith("/hang"):
                conn.settimeout(60)
                end = time.time() + 60
                while time.time() < end and conn.recv(65536):
                    pass
                return
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nContent-Type: text/plain\r\n\r\n"
                         b"mirror\n")
            if headers.get("connection", "").lower() == "close":
                return
    except (EOFError, OSError, ValueError):
        return
    finally:
        conn.close()


def main():
    addr, port, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    lock = threading.Lock()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(128)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, log, lock), daemon=True).start()


if __name__ == "__main__":
    main()
