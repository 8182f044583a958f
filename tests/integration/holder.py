# SPDX-License-Identifier: BSD-3-Clause
"""holder: one keep-alive HTTP/1.1 connection held open after one exchange.

    python3 holder.py ADDR HOST OUT SECONDS

Connects to ADDR:80, sends GET / with Host HOST, reads the response, writes
"LOCAL_PORT STATUS" to OUT and keeps the connection open, idle, for SECONDS
(or until killed): the connection a test then looks for in `routerctl conns`.
"""
import os
import socket
import sys
import time


def main():
    addr, host, out, secs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    s = socket.create_connection((addr, 80), timeout=10)
    s.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    f = s.makefile("rb")
    status = f.readline().split()[1].decode()
    length = 0
    while True:
        line = f.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    f.read(length)
    with open(out + ".tmp", "w") as o:
        o.write(f"{s.getsockname()[1]} {status}\n")
    # Renamed only once whole: the test polls for it.
    os.rename(out + ".tmp", out)
    time.sleep(secs)


if __name__ == "__main__":
    main()
