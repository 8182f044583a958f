#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The smuggling test's two ends (tests/integration/smuggling.sh; corpus.txt says the format).

  smuggle.py canary ADDR PORT LOG
      the backend: answers every request 200 "canary" (keep-alive unless the request says
      close or is HTTP/1.0) and appends one JSON line per connection to LOG when it ends:
      {"conn": N, "data": HEX of every byte received}. Writes LOG.ready once listening.
  smuggle.py run ADDR PORT HOST CORPUS LOG
      the client: every corpus case on its own connection (one write), then a last good
      request; checks each answer's statuses and that the router closed the connection, then
      that the canary's log holds exactly the accepted requests. Prints "ok NAME - why" or
      "not ok NAME - what" per check, then "counts {JSON}": the router's own answers by
      status and the requests it routed, for the script to hold against routerctl stats.
  smuggle.py dump CORPUS DIR [HOST]
      write each case's bytes to DIR/NAME (fuzzer seeds, or a look with xxd).
"""
import json
import os
import re
import socket
import sys
import threading
import time

CASE = re.compile(r'^(\S+)\s+(\d{3}(?:,\d{3})*)\s+"((?:[^"\\]|\\.)*)"\s+(.+)$')
ESCAPES = {"r": b"\r", "n": b"\n", "t": b"\t", "0": b"\0", "\\": b"\\", '"': b'"'}
FORWARDED = re.compile(rb"(?:X-Forwarded-(?:For|Host|Port|Proto)|Forwarded): [^\r\n]*\r\n")
# Hop-by-hop (RFC 9110 7.6.1): the router does not pass a client's "Connection: close" on,
# so that the backend connection can serve the next client (the idle pool).
CONNECTION = re.compile(rb"Connection: close\r\n", re.I)
TIMEOUT = 5.0


def unescape(s, host):
    """C escapes, {H} for the host, {c*N} for N copies of c."""
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            n = s[i + 1]
            if n == "x":
                out.append(int(s[i + 2:i + 4], 16))
                i += 4
                continue
            if n not in ESCAPES:
                raise ValueError(f"unknown escape \\{n}")
            out += ESCAPES[n]
            i += 2
        elif c == "{":
            j = s.index("}", i)
            m = s[i + 1:j]
            if m == "H":
                out += host.encode()
            else:
                ch, n = m.split("*")
                out += ch.encode("latin-1") * int(n)
            i = j + 1
        else:
            out += c.encode("latin-1")
            i += 1
    return bytes(out)


def load(path, host):
    cases = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            m = CASE.match(line.rstrip("\n"))
            if not m:
                raise SystemExit(f"{path}:{no}: not NAME STATUS \"REQUEST\" reason")
            cases.append({"name": m.group(1), "want": [int(x) for x in m.group(2).split(",")],
                          "data": unescape(m.group(3), host), "why": m.group(4)})
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SystemExit(f"{path}: names used twice: {sorted(dup)}")
    return cases


class Stream:
    """Bytes of a connection, read on demand. need(n) -> False at EOF."""

    def __init__(self, sock=None, data=b""):
        self.sock, self.buf, self.seen = sock, bytearray(data), bytearray()

    def need(self, n):
        while len(self.buf) < n:
            if self.sock is None:
                return False
            d = self.sock.recv(65536)
            if not d:
                return False
            self.buf += d
            self.seen += d
        return True

    def find(self, what, start=0):
        """Index of `what` at or after start, reading as needed; -1 at EOF."""
        while True:
            i = self.buf.find(what, start)
            if i >= 0:
                return i
            if not self.need(len(self.buf) + 1):
                return -1

    def take(self, n):
        b = bytes(self.buf[:n])
        del self.buf[:n]
        return b


def read_message(st, response=False):
    """One HTTP/1.x message (lenient: only well-formed ones get here). Returns (head, body)
    or None at EOF before a head."""
    while st.need(2) and st.buf[:2] == b"\r\n" and not response:
        st.take(2)  # empty lines before a request line
    e = st.find(b"\r\n\r\n")
    if e < 0:
        return None
    head = st.take(e + 4)
    low = head.lower()
    m = re.search(rb"\r\ncontent-length:[ \t]*(\d+)", low)
    if re.search(rb"\r\ntransfer-encoding:[^\r\n]*chunked", low):
        body = bytearray()
        while True:
            e = st.find(b"\r\n")
            if e < 0:
                return head, bytes(body)
            line = st.take(e + 2)
            body += line
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while True:  # trailers, then the blank line
                    e = st.find(b"\r\n")
                    if e < 0:
                        return head, bytes(body)
                    t = st.take(e + 2)
                    body += t
                    if t == b"\r\n":
                        return head, bytes(body)
            st.need(size + 2)
            body += st.take(size + 2)
    n = int(m.group(1)) if m else 0
    if response and not m:
        st.need(1 << 30)  # close-delimited
        return head, st.take(len(st.buf))
    st.need(n)
    return head, st.take(n)


# ------------------------------------------------------------------ canary --

def canary(addr, port, log):
    lock = threading.Lock()
    count = [0]

    def record(data):
        with lock:
            count[0] += 1
            with open(log, "a", encoding="ascii") as f:
                f.write(json.dumps({"msg": count[0], "data": bytes(data).hex()}) + "\n")

    def serve(conn):
        # One record per request received, and one for bytes left that are not one: the
        # router's pooled backend connections carry requests of many clients.
        st = Stream(conn)
        conn.settimeout(10)
        try:
            while True:
                msg = read_message(st)
                if msg is None:
                    break
                record(msg[0] + msg[1])
                head = msg[0].lower()
                close = head.split(b"\r\n")[0].endswith(b" http/1.0") or \
                    re.search(rb"\r\nconnection:[^\r\n]*close", head) is not None
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 7\r\n" +
                             (b"Connection: close\r\n" if close else b"") + b"\r\ncanary\n")
                if close:
                    conn.shutdown(socket.SHUT_WR)
                    st.need(1 << 30)  # whatever else comes, until the router closes
                    break
        except OSError:
            pass
        finally:
            conn.close()
            if st.buf:
                record(st.buf)

    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, int(port)))
    srv.listen(64)
    open(log, "a", encoding="ascii").close()
    with open(log + ".ready", "w", encoding="ascii") as f:
        f.write("ready\n")
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


# ------------------------------------------------------------------ client --

def exchange(addr, port, data):
    """Send data in one write; read answers until the router closes. Returns (statuses,
    closed, error)."""
    statuses, closed, err = [], False, ""
    with socket.create_connection((addr, int(port)), timeout=TIMEOUT) as s:
        s.sendall(data)
        st = Stream(s)
        try:
            while True:
                msg = read_message(st, response=True)
                if msg is None:
                    closed = not st.buf
                    if st.buf:
                        err = f"{len(st.buf)} bytes that are not a response: {bytes(st.buf[:80])!r}"
                    break
                line = msg[0].split(b"\r\n")[0]
                m = re.match(rb"HTTP/1\.1 (\d{3}) ", line)
                if not m:
                    err = f"not a status line: {line[:80]!r}"
                    break
                statuses.append(int(m.group(1)))
        except ConnectionResetError:
            closed = True  # a reset after the answer is a close too
        except socket.timeout:
            err = f"the router kept the connection open {TIMEOUT:.0f} s after {statuses or 'no answer'}"
    return statuses, closed, err


def run(addr, port, host, corpus, log):
    cases = load(corpus, host)
    final = f"GET /ok/final HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
    cases.append({"name": "final", "want": [200], "data": final,
                  "why": "a good request after the corpus reaches the canary"})
    failed = 0
    counts = {"routed": 0}
    forwarded = {}  # request line -> the bytes the canary must have got
    for c in cases:
        try:
            got, closed, err = exchange(addr, port, c["data"])
        except OSError as e:
            got, closed, err = [], False, f"{type(e).__name__}: {e}"
        if got == c["want"] and closed and not err:
            print(f"ok {c['name']} - {'/'.join(map(str, got))}: {c['why']}")
        else:
            failed += 1
            print(f"not ok {c['name']} - expected {c['want']} then a close, got {got}"
                  f"{'' if closed else ' and no close'}{'; ' + err if err else ''} ({c['why']})")
        for s in c["want"]:
            if s == 200:
                counts["routed"] += 1
            else:
                counts[str(s)] = counts.get(str(s), 0) + 1
        if c["want"][0] == 200:
            st = Stream(data=c["data"])
            head, body = read_message(st)
            forwarded[head.split(b"\r\n")[0]] = CONNECTION.sub(b"", head) + body

    # The canary: each accepted case's request once, exactly, and nothing else.
    deadline = time.time() + 10
    while True:
        with open(log, encoding="ascii") as f:
            recs = [json.loads(x) for x in f if x.strip()]
        if len(recs) >= len(forwarded) or time.time() > deadline:
            break
        time.sleep(0.2)
    seen = {}
    stray = []
    for r in recs:
        data = CONNECTION.sub(b"", FORWARDED.sub(b"", bytes.fromhex(r["data"])))
        line = data.split(b"\r\n")[0]
        if line in forwarded and line not in seen:
            seen[line] = data
        else:
            stray.append(data[:200])
    if stray:
        failed += 1
        print(f"not ok canary - {len(stray)} message(s) the corpus did not expect: {stray[:3]}")
    else:
        print(f"ok canary - nothing of any refused request reached the backend ({len(recs)} requests)")
    missing = [k for k in forwarded if k not in seen]
    wrong = [k for k in forwarded if k in seen and seen[k] != forwarded[k]]
    if missing or wrong:
        failed += 1
        print(f"not ok canary_accepted - missing {missing[:3]}, different "
              f"{[(forwarded[k][:120], seen[k][:160]) for k in wrong[:2]]}")
    else:
        print(f"ok canary_accepted - each of the {len(forwarded)} accepted requests reached the "
              "canary once, byte for byte (forwarded headers aside)")
    print("counts " + json.dumps(counts))
    return 1 if failed else 0


def dump(corpus, outdir, host="smug.lab.switchyard.test"):
    os.makedirs(outdir, exist_ok=True)
    for c in load(corpus, host):
        with open(os.path.join(outdir, c["name"]), "wb") as f:
            f.write(c["data"])


def main():
    cmd, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if cmd == "canary" and len(args) == 3:
        canary(*args)
    elif cmd == "run" and len(args) == 5:
        sys.exit(run(*args))
    elif cmd == "dump" and len(args) in (2, 3):
        dump(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
