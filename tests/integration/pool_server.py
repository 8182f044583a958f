#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A third backend pool for the proxy tests: pool_server.py ADDR PORT. Answers every GET or
POST with "pool-c", and under /echo with the request it received: "path: <target>", then its
headers (the forwarded headers the router added, what filters changed)."""
import http.server
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        if "/echo" in self.path:
            body = ("path: %s\n%s" % (self.path, self.headers)).encode()
        else:
            body = b"pool-c\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Handler).serve_forever()
