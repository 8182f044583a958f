#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A backend that answers any request with the sha256 of its body (for upload checks).

  upload_sink.py ADDR PORT
"""
import hashlib
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _answer(self):
        n = int(self.headers.get("Content-Length", "0"))
        h = hashlib.sha256()
        left = n
        while left > 0:
            chunk = self.rfile.read(min(left, 1 << 20))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
        body = f"{h.hexdigest()} {n - left}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_PUT = do_POST = do_GET = _answer

    def log_message(self, *args):
        pass


ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), Sink).serve_forever()
