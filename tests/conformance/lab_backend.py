#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The lab mode's backends (run.py --lab, README.md): one small HTTP server (http.server) per
lab address and port, run inside the lab's backend namespace. Each answers every request,
whatever its method and path, with 200, `X-Backend: ADDR:PORT` and the body `ADDR:PORT`,
where ADDR:PORT is the endpoint the case wrote (not the lab address it was mapped to), so
that run.py compares the data plane's answer with the endpoints `resolve` listed in the
case's own terms. A connection whose first byte is a TLS handshake record is answered over
TLS with a self-signed certificate (TLS passthrough reaches the backend as TLS).

  lab_backend.py SPEC.json      SPEC: {"cert": PEM, "key": PEM,
                                       "listen": [{"address", "port", "answer"}, ...]}

Prints "ready N" on stdout once every listener is bound, then serves until SIGTERM.
"""
import http.server
import json
import signal
import socket
import ssl
import sys
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the proxy mode reuses backend connections

    def __getattr__(self, name):
        # Every method (GET, POST, PURGE, ...) gets the same answer.
        if name.startswith("do_"):
            return self.answer
        raise AttributeError(name)

    def answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n > 0:
            self.rfile.read(n)
        body = (self.server.answer + "\n").encode()
        self.send_response(200)
        self.send_header("X-Backend", self.server.answer)
        self.send_header("X-Backend-Path", self.path)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, fmt, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, port, answer, tls):
        self.answer = answer
        self.tls = tls
        super().__init__((address, port), Handler)

    def finish_request(self, request, client_address):
        # In the connection's own thread: a client that sends nothing blocks only itself.
        request.settimeout(10)
        try:
            first = request.recv(1, socket.MSG_PEEK)
        except OSError:
            return
        if first == b"\x16":
            try:
                request = self.tls.wrap_socket(request, server_side=True)
            except (OSError, ssl.SSLError):
                return
        super().finish_request(request, client_address)


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(spec["cert"], spec["key"])
    servers = [Server(x["address"], x["port"], x["answer"], tls) for x in spec["listen"]]
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    print("ready %d" % len(servers), flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(1):
        pass


if __name__ == "__main__":
    main()
