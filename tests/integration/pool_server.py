#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A backend pool of our own for the proxy and load-balancing tests:

    pool_server.py [--tls CRT KEY] ADDR PORT [NAME [HEALTH_FILE]]

Answers every GET or POST with NAME (default "pool-c"), and under /echo with the request it
received: "path: <target>", then its headers (the forwarded headers the router added, what
filters changed). /healthz answers 200, or the status written in HEALTH_FILE while that file
exists (so a test can turn the health path to 503 and back), and counts the checks: /hcstats
answers {"checks": n, "hosts": [Host headers seen]} as JSON. /peer answers the address the
connection came from (the router's source address toward the backend). /blob/N answers N
bytes (at most 64 MiB) from random.Random(N), the same every time, for a test to compare
with what it computes itself. /slow/N answers "slow" after N seconds (at most 30): a
backend slower than a route's timeout. /slowonce/N (any query) answers its first request
after N seconds and every later one for the same target at once: a try that a route's
perTryTimeout abandons, and its retry answered. /stall/N sends the head of a 10-byte body and
5 bytes of it, then the rest after N seconds (at most 30): a response that stops mid-body.
A target ending in /closing answers NAME
with "Connection: close" and closes (a backend at its keepalive_requests); one ending in
/closing-eof the same without a Content-Length (the body ends at the close).
/trailers answers "trailers" chunked, with the
trailer fields grpc-status: 0 and grpc-message: fine (what a gRPC backend ends with).
A target ending in /dropnext answers NAME and keeps the connection, but the next request on
that connection is read and left unanswered, the connection closed (a backend whose idle
timeout closes a kept connection just as a request arrives); /dropstats answers how many
were, {"dropped": n}. ADDR may be an IPv6 address (2001:2:1::10, no brackets): the
server listens over IPv6 then. With --tls it speaks TLS (ALPN http/1.1) with that
certificate and key."""
import http.server
import json
import os
import random
import socket
import ssl
import sys
import threading
import time

ARGS = sys.argv[1:]
TLS = None
if "--tls" in ARGS:
    i = ARGS.index("--tls")
    TLS = ARGS[i + 1:i + 3]
    del ARGS[i:i + 3]
NAME = (ARGS[2] if len(ARGS) > 2 else "pool-c").encode() + b"\n"
HEALTH_FILE = ARGS[3] if len(ARGS) > 3 else None
CHECKS = {"checks": 0, "hosts": []}
DROPS = {"dropped": 0}
SEEN = set()  # /slowonce targets asked for already
SEEN_LOCK = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        if getattr(self, "drop_next", False):
            with SEEN_LOCK:
                DROPS["dropped"] += 1
            self.close_connection = True
            return
        if self.path.endswith("/dropnext"):
            self.drop_next = True
        if self.path == "/dropstats":
            self.answer(200, json.dumps(DROPS).encode())
            return
        if self.path == "/healthz":
            CHECKS["checks"] += 1
            host = self.headers.get("Host") or ""
            if host not in CHECKS["hosts"]:
                CHECKS["hosts"].append(host)
            status = 200
            if HEALTH_FILE and os.path.exists(HEALTH_FILE):
                with open(HEALTH_FILE) as f:
                    status = int(f.read().strip() or 200)
            self.answer(status, b"health\n")
            return
        if self.path == "/peer":
            self.answer(200, (self.client_address[0] + "\n").encode())
            return
        if self.path.startswith("/blob/") and self.path[6:].isdigit():
            n = int(self.path[6:])
            if n <= 64 << 20:
                self.answer(200, random.Random(n).randbytes(n))
                return
        if self.path.startswith("/slow/") and self.path[6:].isdigit():
            time.sleep(min(int(self.path[6:]), 30))
            self.answer(200, b"slow\n")
            return
        if self.path.startswith("/slowonce/"):
            n = self.path[10:].split("?")[0]
            with SEEN_LOCK:
                first = self.path not in SEEN
                SEEN.add(self.path)
            if first and n.isdigit():
                time.sleep(min(int(n), 30))
            self.answer(200, b"slow\n" if first else b"fast\n")
            return
        if self.path.startswith("/stall/") and self.path[7:].isdigit():
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "10")
            self.end_headers()
            try:
                self.wfile.write(b"stall")
                self.wfile.flush()
                time.sleep(min(int(self.path[7:]), 30))
                self.wfile.write(b"ended")
            except OSError:
                pass  # the router cut it
            return
        if self.path == "/trailers":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Trailer", "grpc-status, grpc-message")
            self.end_headers()
            self.wfile.write(b"9\r\ntrailers\n\r\n0\r\ngrpc-status: 0\r\ngrpc-message: fine\r\n\r\n")
            return
        if self.path.endswith("/closing"):
            # NAME with "Connection: close", then the close: a backend done with its
            # connection after this response (nginx at its keepalive_requests).
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(NAME)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(NAME)
            self.close_connection = True
            return
        if self.path.endswith("/closing-eof"):
            # NAME with no length: the body ends where the connection does.
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(NAME)
            self.close_connection = True
            return
        if self.path == "/hcstats":
            self.answer(200, json.dumps(CHECKS).encode())
            return
        if "/echo" in self.path:
            body = ("path: %s\n%s" % (self.path, self.headers)).encode()
        else:
            body = NAME
        self.answer(200, body)

    do_POST = do_GET

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6 if ":" in ARGS[0] else socket.AF_INET
    # socketserver's listen backlog is 5: a burst of connections (perf/h2's hundreds of
    # streams held open, each its own backend connection) would wait for SYN retransmissions.
    request_queue_size = 256


SRV = Server((ARGS[0], int(ARGS[1])), Handler)
if TLS is not None:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(TLS[0], TLS[1])
    ctx.set_alpn_protocols(["http/1.1"])
    SRV.socket = ctx.wrap_socket(SRV.socket, server_side=True)
SRV.serve_forever()
