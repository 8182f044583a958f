#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A WebSocket echo server and client (RFC 6455, just what the test needs), for the proxy
mode's Upgrade tunnel.

  ws_echo.py serve ADDR PORT          echo every text/binary message; answer a close
  ws_echo.py client ADDR PORT HOST PATH
      upgrade through ADDR:PORT with Host HOST, send a text, a 64 KB text and a 300 KB binary
      message, check each echo, close; print JSON {"status":..., "accept_ok":..., "echoed":
      N, "mismatch": N, "closed": bool, "via": "<server's X-Ws-Peer header>"}
"""
import base64
import hashlib
import json
import os
import socket
import struct
import sys
import threading

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def read_head(sock):
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(4096)
        if not chunk:
            raise EOFError("closed before the end of the head")
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    return head.decode("latin-1"), rest


class Reader:
    def __init__(self, sock, rest=b""):
        self.sock, self.buf = sock, rest

    def exact(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("closed mid-frame")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def frame(self):
        b0, b1 = self.exact(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self.exact(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self.exact(8))[0]
        mask = self.exact(4) if b1 & 0x80 else None
        data = self.exact(n)
        if mask:
            data = bytes(c ^ mask[i % 4] for i, c in enumerate(data))
        return b0 & 0x0F, data


def frame(opcode, data, masked):
    head = bytes([0x80 | opcode])
    n = len(data)
    bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 65536:
        head += bytes([bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", n)
    if masked:
        mask = os.urandom(4)
        data = bytes(c ^ mask[i % 4] for i, c in enumerate(data))
        head += mask
    return head + data


def accept_of(key):
    return base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()


def serve_one(conn, peer):
    try:
        head, rest = read_head(conn)
        key = ""
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "sec-websocket-key":
                key = value.strip()
        conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\nX-Ws-Peer: %s\r\n\r\n"
                      % (accept_of(key), peer)).encode())
        r = Reader(conn, rest)
        while True:
            op, data = r.frame()
            if op == 8:
                conn.sendall(frame(8, data[:2], False))
                break
            if op in (1, 2):
                conn.sendall(frame(op, data, False))
    except (EOFError, OSError):
        pass
    finally:
        conn.close()


def serve(addr, port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(16)
    while True:
        conn, peer = s.accept()
        threading.Thread(target=serve_one, args=(conn, "%s:%d" % peer), daemon=True).start()


def client(addr, port, host, path):
    out = {"status": 0, "accept_ok": False, "echoed": 0, "mismatch": 0, "closed": False, "via": ""}
    s = socket.create_connection((addr, port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
               % (path, host, key)).encode())
    head, rest = read_head(s)
    lines = head.split("\r\n")
    out["status"] = int(lines[0].split()[1])
    headers = {l.partition(":")[0].strip().lower(): l.partition(":")[2].strip() for l in lines[1:]}
    out["accept_ok"] = headers.get("sec-websocket-accept") == accept_of(key)
    out["via"] = headers.get("x-ws-peer", "")
    if out["status"] != 101:
        print(json.dumps(out))
        return
    r = Reader(s, rest)
    for op, data in ((1, b"hello"), (1, b"x" * 65536), (2, os.urandom(300000))):
        s.sendall(frame(op, data, True))
        rop, rdata = r.frame()
        if rop == op and rdata == data:
            out["echoed"] += 1
        else:
            out["mismatch"] += 1
    s.sendall(frame(8, struct.pack("!H", 1000), True))
    op, _ = r.frame()
    out["closed"] = op == 8
    s.close()
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]))
    else:
        client(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
