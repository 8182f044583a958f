#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""An h2spec-style HTTP/2 conformance suite (RFC 9113 sections 3 to 8, RFC 7541) and the
HTTP/2 attacks, run against a server: each case on a fresh connection, one line per case.

  /usr/bin/python3 tests/h2spec/run.py --host H --port P [--tls] [--authority NAME]
      [--path /x] [--only RE] [-v]

Frames are built with hyperframe where they are valid and by hand (raw()) where they are
not: the cases send what h2 itself refuses to send. Header blocks are built with hpack, or
by hand for the HPACK cases. Outcomes as h2spec checks them: a connection error is a GOAWAY
with the named code or the connection closed; a stream error is RST_STREAM with the code, or
a GOAWAY with it, or the connection closed. Exit status 1 if any case failed.
See tests/h2spec/README.md.
"""

import argparse
import hashlib
import re
import select
import socket
import ssl
import struct
import sys
import time

import hpack
from hyperframe.frame import (ContinuationFrame, DataFrame, Frame, GoAwayFrame, HeadersFrame,
                              PingFrame, PriorityFrame, RstStreamFrame, SettingsFrame,
                              WindowUpdateFrame)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# frame types and flags (RFC 9113 section 6)
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, \
    CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIO = 0x1, 0x1, 0x4, 0x8, 0x20

ERRORS = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
          "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL",
          "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY",
          "HTTP_1_1_REQUIRED"]
E = {name: code for code, name in enumerate(ERRORS)}

# settings identifiers
S_HEADER_TABLE_SIZE, S_ENABLE_PUSH, S_MAX_CONCURRENT_STREAMS, S_INITIAL_WINDOW_SIZE, \
    S_MAX_FRAME_SIZE, S_MAX_HEADER_LIST_SIZE = range(1, 7)


def ename(code):
    return ERRORS[code] if code < len(ERRORS) else "0x%x" % code


def raw(ftype, flags, stream, payload=b"", length=None):
    """A frame as bytes, whatever its fields say (length defaults to the payload's)."""
    n = len(payload) if length is None else length
    return struct.pack(">I", n)[1:] + struct.pack(">BBI", ftype, flags, stream) + payload


def ser(frame):
    return frame.serialize()


def hpack_int(value, prefix_bits, first):
    """RFC 7541 5.1: an integer with an N-bit prefix, `first` holding the other bits."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = [first | limit]
    value -= limit
    while value >= 128:
        out.append((value & 0x7f) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def literal(name, value):
    """A literal header field without indexing, new name, no Huffman (RFC 7541 6.2.2)."""
    return (b"\x00" + hpack_int(len(name), 7, 0) + name + hpack_int(len(value), 7, 0) +
            value)


class Closed(Exception):
    pass


class Timeout(Exception):
    pass


def describe(f):
    t = type(f).__name__.replace("Frame", "")
    extra = ""
    if isinstance(f, GoAwayFrame):
        extra = " %s last=%d %r" % (ename(f.error_code), f.last_stream_id,
                                    bytes(f.additional_data)[:60])
    elif isinstance(f, RstStreamFrame):
        extra = " " + ename(f.error_code)
    elif isinstance(f, SettingsFrame):
        extra = " " + str(dict(f.settings))
    elif isinstance(f, (DataFrame,)):
        extra = " len=%d" % len(f.data)
    elif isinstance(f, WindowUpdateFrame):
        extra = " +%d" % f.window_increment
    return "%s(s=%d flags=%s%s)" % (t, f.stream_id, ",".join(sorted(f.flags)) or "-", extra)


class Conn:
    """One client connection: the socket, the server's settings, HPACK state, a deadline."""

    def __init__(self, opts, deadline, handshake=True, settings=None):
        self.opts = opts
        self.deadline = deadline
        self.buf = b""
        self.closed = False
        self.enc = hpack.Encoder()
        self.dec = hpack.Decoder()
        self.server_settings = {}
        self.log = []
        self.seen = []  # every frame read
        self.responses = {}  # stream -> what collect() gathered
        self.win_conn = 65535  # the server's connection window for our DATA, before sending
        self.win_inc = {}  # stream -> the WINDOW_UPDATE increments the server gave it
        s = socket.create_connection((opts.host, opts.port),
                                     timeout=max(0.1, deadline - time.monotonic()))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if opts.tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            ctx.set_alpn_protocols(["h2"])
            s = ctx.wrap_socket(s, server_hostname=opts.authority)
            if s.selected_alpn_protocol() != "h2":
                raise AssertionError("ALPN: the server chose %r, not h2" %
                                     s.selected_alpn_protocol())
        self.sock = s
        if handshake:
            self.handshake(settings or {})

    # -- sending
    def send(self, data):
        if self.opts.verbose > 1:
            self.log.append("> %d bytes" % len(data))
        try:
            self.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.closed = True
            raise Closed()

    def send_frames(self, *frames):
        self.send(b"".join(f if isinstance(f, bytes) else ser(f) for f in frames))

    def handshake(self, settings):
        sf = SettingsFrame(0)
        for k, v in settings.items():
            sf.settings[k] = v
        self.send(PREFACE + ser(sf))
        got_settings = got_ack = False
        while not (got_settings and got_ack):
            f = self.read_frame()
            if isinstance(f, SettingsFrame):
                if "ACK" in f.flags:
                    got_ack = True
                else:
                    got_settings = True
                    self.server_settings.update(f.settings)
                    self.send_frames(SettingsFrame(0, flags=["ACK"]))
            elif isinstance(f, GoAwayFrame):
                raise AssertionError("GOAWAY during the handshake: " + describe(f))

    def setting(self, key, default):
        return self.server_settings.get(key, default)

    # -- header blocks
    def block(self, headers):
        return self.enc.encode([(k.encode() if isinstance(k, str) else k,
                                 v.encode() if isinstance(v, str) else v) for k, v in headers])

    def req_headers(self, method="GET", path=None, extra=()):
        return [(":method", method), (":scheme", "https" if self.opts.tls else "http"),
                (":authority", self.opts.authority), (":path", path or self.opts.path)] + \
            list(extra)

    def headers(self, stream, headers, end_stream=True, end_headers=True):
        f = HeadersFrame(stream)
        f.data = self.block(headers)
        if end_stream:
            f.flags.add("END_STREAM")
        if end_headers:
            f.flags.add("END_HEADERS")
        return f

    def open_stream(self, stream):
        """A request that stays open: a POST to --post-path announcing a body it does not
        send. (A GET without END_STREAM may be answered at once, and the server then
        closes the stream, RFC 9113 8.1: a frame sent on it after would race that.)"""
        self.send_frames(self.headers(stream, self.req_headers(
            "POST", self.opts.post_path, [("content-length", "1000000")]), end_stream=False))

    def get(self, stream, path=None, end_stream=True, extra=()):
        self.send_frames(self.headers(stream, self.req_headers("GET", path, extra), end_stream))

    # -- reading
    def _recv(self):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Timeout()
        self.sock.settimeout(left)
        try:
            d = self.sock.recv(65536)
        except socket.timeout:
            raise Timeout()
        except (ConnectionResetError, ssl.SSLError, OSError):
            d = b""
        if not d:
            self.closed = True
            raise Closed()
        self.buf += d

    def read_frame(self):
        while len(self.buf) < 9:
            self._recv()
        f, n = Frame.parse_frame_header(memoryview(self.buf[:9]))
        while len(self.buf) < 9 + n:
            self._recv()
        body, self.buf = self.buf[9:9 + n], self.buf[9 + n:]
        f.parse_body(memoryview(body))
        self.seen.append(f)
        if isinstance(f, WindowUpdateFrame):
            if f.stream_id == 0:
                self.win_conn += f.window_increment
            else:
                self.win_inc[f.stream_id] = self.win_inc.get(f.stream_id, 0) + \
                    f.window_increment
        if self.opts.verbose > 1:
            self.log.append("< " + describe(f))
        # keep the server sending: give back what its DATA used
        if isinstance(f, DataFrame) and f.flow_controlled_length:
            try:
                self.send_frames(WindowUpdateFrame(0, window_increment=f.flow_controlled_length))
                if "END_STREAM" not in f.flags:
                    self.send_frames(WindowUpdateFrame(
                        f.stream_id, window_increment=f.flow_controlled_length))
            except Closed:
                pass
        return f

    def poll_frames(self):
        """The frames that can be read now without waiting (for floods: read while sending)."""
        out = []
        while True:
            r, _, _ = select.select([self.sock], [], [], 0)
            if not r and not (self.opts.tls and self.sock.pending()):
                return out
            try:
                self._recv()
            except (Timeout, Closed):
                r = None
            while True:
                if len(self.buf) < 9:
                    break
                n = struct.unpack(">I", b"\0" + self.buf[:3])[0]
                if len(self.buf) < 9 + n:
                    break
                out.append(self.read_frame())
            if r is None:
                return out

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


# -- verdicts (as h2spec's verify functions)

class Fail(Exception):
    pass


def want_conn_error(c, *codes):
    """GOAWAY with one of codes, or the connection closed."""
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, GoAwayFrame):
                if f.error_code in [E[x] for x in codes]:
                    return "GOAWAY %s" % ename(f.error_code)
                raise Fail("GOAWAY %s, expected %s" % (ename(f.error_code), "/".join(codes)))
    except Closed:
        return "connection closed"
    except Timeout:
        raise Fail("timeout: neither GOAWAY %s nor the connection closed" % "/".join(codes))


def want_stream_error(c, stream, *codes, unanswered=False):
    """RST_STREAM (on stream) or GOAWAY with one of codes, or the connection closed;
    unanswered: a response on the stream fails (a malformed request must not be served)."""
    try:
        while True:
            f = c.read_frame()
            if (isinstance(f, RstStreamFrame) and f.error_code == E["NO_ERROR"] and
                    "NO_ERROR" not in codes):
                continue  # RFC 9113 8.1: a complete response asks us to stop sending
            if isinstance(f, GoAwayFrame) or (isinstance(f, RstStreamFrame) and
                                              f.stream_id == stream):
                kind = "GOAWAY" if isinstance(f, GoAwayFrame) else "RST_STREAM"
                if f.error_code in [E[x] for x in codes]:
                    return "%s %s" % (kind, ename(f.error_code))
                raise Fail("%s %s, expected %s" % (kind, ename(f.error_code), "/".join(codes)))
            if unanswered and isinstance(f, HeadersFrame) and f.stream_id == stream:
                raise Fail("a response (HEADERS) on stream %d, expected %s" %
                           (stream, "/".join(codes)))
    except Closed:
        return "connection closed"
    except Timeout:
        raise Fail("timeout: no RST_STREAM/GOAWAY %s" % "/".join(codes))


def want_ping_ack(c, payload=b"h2spec\0\0"):
    """The connection still works: a PING is acknowledged with its payload."""
    try:
        c.send_frames(PingFrame(0, opaque_data=payload))
        while True:
            f = c.read_frame()
            if isinstance(f, PingFrame) and "ACK" in f.flags:
                if bytes(f.opaque_data) == payload:
                    return "PING acknowledged"
                raise Fail("a PING ACK with payload %r, expected %r" %
                           (bytes(f.opaque_data), payload))
            if isinstance(f, GoAwayFrame):
                raise Fail("GOAWAY %s, expected the frame to be ignored" % ename(f.error_code))
    except Closed:
        raise Fail("connection closed, expected the frame to be ignored")
    except Timeout:
        raise Fail("timeout waiting for the PING ACK")


def collect(c, f):
    """Responses by stream, header blocks decoded in the order they arrive (HPACK state)."""
    if not isinstance(f, (HeadersFrame, ContinuationFrame, DataFrame)):
        return
    r = c.responses.setdefault(f.stream_id, {"headers": None, "body": b"", "block": b"",
                                             "done": False})
    if isinstance(f, (HeadersFrame, ContinuationFrame)):
        r["block"] += bytes(f.data)
        if "END_HEADERS" in f.flags:
            h = dict((k.decode() if isinstance(k, bytes) else k,
                      v.decode() if isinstance(v, bytes) else v)
                     for k, v in c.dec.decode(r["block"]))
            r["block"] = b""
            if r["headers"] is None:
                r["headers"] = h
    else:
        r["body"] += bytes(f.data)
    if "END_STREAM" in f.flags and isinstance(f, (HeadersFrame, DataFrame)):
        r["done"] = True


def read_response(c, stream):
    """(headers dict, body bytes) of the response on stream, until its END_STREAM."""
    try:
        while not c.responses.get(stream, {}).get("done"):
            f = c.read_frame()
            collect(c, f)
            if isinstance(f, GoAwayFrame):
                raise Fail("GOAWAY %s %r before the response on stream %d was complete" %
                           (ename(f.error_code), bytes(f.additional_data)[:80], stream))
            if isinstance(f, RstStreamFrame) and f.stream_id == stream:
                raise Fail("RST_STREAM %s on stream %d, expected a response" %
                           (ename(f.error_code), stream))
    except Closed:
        raise Fail("connection closed before the response on stream %d was complete" % stream)
    except Timeout:
        raise Fail("timeout waiting for the response on stream %d" % stream)
    r = c.responses[stream]
    return r["headers"] or {}, r["body"]


def want_ok(c, stream, body_check=True):
    h, body = read_response(c, stream)
    st = h.get(":status")
    if st != "200":
        raise Fail("status %s, expected 200 (body %r)" % (st, body[:80]))
    if body_check and c.opts.body and c.opts.body.encode() not in body:
        raise Fail("200 but the body %r does not contain %r" % (body[:80], c.opts.body))
    return "200, %d bytes" % len(body)


def served_after(opts):
    """After an attack: a new connection to the same port gets a GET answered 200."""
    c = Conn(opts, time.monotonic() + opts.timeout)
    try:
        c.get(1)
        return want_ok(c, 1)
    except (Closed, Timeout):
        raise Fail("a new connection after the attack was not served")
    finally:
        c.close()


# -- the cases

CASES = []


def case(cid, text, timeout=None, handshake=True, settings=None):
    def reg(fn):
        CASES.append((cid, text, fn, timeout, handshake, settings))
        return fn
    return reg


# 3.5 HTTP/2 Connection Preface
@case("3.5/1", "a valid client preface and SETTINGS get the server's SETTINGS and an ACK")
def _(c):
    return "SETTINGS %s" % dict(c.server_settings)


@case("3.5/2", "an invalid connection preface: GOAWAY or close", handshake=False)
def _(c):
    c.send(b"INVALID CONNECTION PREFACE\r\n\r\n" + ser(SettingsFrame(0)))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("3.5/3", "SETTINGS missing after the preface (a PING first): PROTOCOL_ERROR",
      handshake=False)
def _(c):
    c.send(PREFACE + ser(PingFrame(0, opaque_data=b"12345678")))
    return want_conn_error(c, "PROTOCOL_ERROR")


# 4.1 Frame Format
@case("4.1/1", "a frame of unknown type is ignored")
def _(c):
    c.send(raw(0x16, 0, 0, b"\0" * 8))
    return want_ping_ack(c)


@case("4.1/2", "undefined flags on a PING are ignored")
def _(c):
    c.send(raw(PING, 0x16, 0, b"\0" * 8))
    f = None
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, PingFrame) and "ACK" in f.flags:
                return "PING ACK"
            if isinstance(f, GoAwayFrame):
                raise Fail("GOAWAY %s" % ename(f.error_code))
    except (Closed, Timeout):
        raise Fail("no PING ACK")


@case("4.1/3", "the reserved bit of the stream id set on a PING is ignored")
def _(c):
    c.send(raw(PING, 0, 0x80000000, b"\0" * 8))
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, PingFrame) and "ACK" in f.flags:
                return "PING ACK"
            if isinstance(f, GoAwayFrame):
                raise Fail("GOAWAY %s" % ename(f.error_code))
    except (Closed, Timeout):
        raise Fail("no PING ACK")


# 4.2 Frame Size
@case("4.2/1", "DATA of 2^14 octets (the default max) is accepted")
def _(c):
    c.send_frames(c.headers(1, c.req_headers("POST", extra=[("content-length", "16384")]),
                            end_stream=False),
                  DataFrame(1, data=b"x" * 16384, flags=["END_STREAM"]))
    h, _ = read_response(c, 1)
    return "answered %s" % h.get(":status")


@case("4.2/2", "DATA over SETTINGS_MAX_FRAME_SIZE: FRAME_SIZE_ERROR")
def _(c):
    n = c.setting(S_MAX_FRAME_SIZE, 16384) + 1
    c.open_stream(1)
    c.send(raw(DATA, END_STREAM, 1, b"x" * n))
    return want_stream_error(c, 1, "FRAME_SIZE_ERROR")


@case("4.2/3", "HEADERS over SETTINGS_MAX_FRAME_SIZE: connection error FRAME_SIZE_ERROR")
def _(c):
    n = c.setting(S_MAX_FRAME_SIZE, 16384) + 1
    blk = c.block(c.req_headers())
    blk += literal(b"x-pad", b"a" * (n - len(blk) - 8))
    blk += b"\0" * (n - len(blk))  # pad with nothing meaningful: the size is the error
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, blk[:n]))
    return want_conn_error(c, "FRAME_SIZE_ERROR")


@case("4.2/4", "a frame header announcing more than the max, without sending it all")
def _(c):
    n = c.setting(S_MAX_FRAME_SIZE, 16384) + 1
    c.send(raw(0x16, 0, 0, b"", length=n) + b"\0" * 100)
    try:
        return want_conn_error(c, "FRAME_SIZE_ERROR")
    except Fail:
        raise Fail("no FRAME_SIZE_ERROR for a %d-octet frame header" % n)


# 4.3 Header Compression and Decompression
@case("4.3/1", "an invalid header block fragment: COMPRESSION_ERROR")
def _(c):
    # a literal with incremental indexing whose name length runs past the block
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, b"\x40\x7f\xff\xff\x0f" + b"x" * 4))
    return want_conn_error(c, "COMPRESSION_ERROR")


@case("4.3/2", "a PRIORITY between HEADERS and CONTINUATION: PROTOCOL_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    c.send(raw(HEADERS, END_STREAM, 1, blk[:4]) +
           ser(PriorityFrame(1, depends_on=0, stream_weight=255)) +
           raw(CONTINUATION, END_HEADERS, 1, blk[4:]))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("4.3/3", "a HEADERS of another stream between HEADERS and CONTINUATION: PROTOCOL_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    c.send(raw(HEADERS, END_STREAM, 1, blk[:4]) +
           raw(HEADERS, END_STREAM | END_HEADERS, 3, blk) +
           raw(CONTINUATION, END_HEADERS, 1, blk[4:]))
    return want_conn_error(c, "PROTOCOL_ERROR")


# 5.1 Stream States
@case("5.1/1", "idle: DATA: PROTOCOL_ERROR")
def _(c):
    c.send_frames(DataFrame(1, data=b"test", flags=["END_STREAM"]))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("5.1/2", "idle: RST_STREAM: PROTOCOL_ERROR")
def _(c):
    c.send_frames(RstStreamFrame(1, error_code=E["CANCEL"]))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("5.1/3", "idle: WINDOW_UPDATE: PROTOCOL_ERROR")
def _(c):
    c.send_frames(WindowUpdateFrame(1, window_increment=100))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("5.1/4", "idle: CONTINUATION: PROTOCOL_ERROR")
def _(c):
    c.send(raw(CONTINUATION, END_HEADERS, 1, c.block(c.req_headers())))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("5.1/5", "half closed (remote): DATA: STREAM_CLOSED")
def _(c):
    c.get(1)
    c.send_frames(DataFrame(1, data=b"test", flags=["END_STREAM"]))
    return want_stream_error(c, 1, "STREAM_CLOSED")


@case("5.1/6", "half closed (remote): HEADERS: STREAM_CLOSED")
def _(c):
    c.get(1)
    c.get(1)
    return want_stream_error(c, 1, "STREAM_CLOSED")


@case("5.1/7", "half closed (remote): CONTINUATION: STREAM_CLOSED or PROTOCOL_ERROR")
def _(c):
    c.get(1)
    c.send(raw(CONTINUATION, END_HEADERS, 1, c.block([("x-dummy", "1")])))
    return want_stream_error(c, 1, "STREAM_CLOSED", "PROTOCOL_ERROR")


@case("5.1/8", "closed: DATA after RST_STREAM: STREAM_CLOSED")
def _(c):
    c.open_stream(1)
    c.send_frames(RstStreamFrame(1, error_code=E["CANCEL"]),
                  DataFrame(1, data=b"test", flags=["END_STREAM"]))
    return want_stream_error(c, 1, "STREAM_CLOSED")


@case("5.1/9", "closed: HEADERS after RST_STREAM: STREAM_CLOSED")
def _(c):
    c.open_stream(1)
    c.send_frames(RstStreamFrame(1, error_code=E["CANCEL"]))
    c.get(1)
    return want_stream_error(c, 1, "STREAM_CLOSED")


@case("5.1/10", "closed: CONTINUATION after RST_STREAM: STREAM_CLOSED or PROTOCOL_ERROR")
def _(c):
    c.open_stream(1)
    c.send_frames(RstStreamFrame(1, error_code=E["CANCEL"]))
    c.send(raw(CONTINUATION, END_HEADERS, 1, c.block([("x-dummy", "1")])))
    return want_stream_error(c, 1, "STREAM_CLOSED", "PROTOCOL_ERROR")


@case("5.1/11", "closed: DATA after the response's END_STREAM: STREAM_CLOSED")
def _(c):
    c.get(1)
    read_response(c, 1)
    c.send_frames(DataFrame(1, data=b"test", flags=["END_STREAM"]))
    return want_stream_error(c, 1, "STREAM_CLOSED")


@case("5.1/12", "closed: HEADERS after the response's END_STREAM: STREAM_CLOSED")
def _(c):
    c.get(1)
    read_response(c, 1)
    c.get(1)
    return want_stream_error(c, 1, "STREAM_CLOSED")


@case("5.1/13", "closed: CONTINUATION after END_STREAM: STREAM_CLOSED or PROTOCOL_ERROR")
def _(c):
    c.get(1)
    read_response(c, 1)
    c.send(raw(CONTINUATION, END_HEADERS, 1, c.block([("x-dummy", "1")])))
    return want_stream_error(c, 1, "STREAM_CLOSED", "PROTOCOL_ERROR")


# 5.1.1 Stream Identifiers
@case("5.1.1/1", "an even-numbered stream id: PROTOCOL_ERROR")
def _(c):
    c.get(2)
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("5.1.1/2", "a stream id smaller than one used before: PROTOCOL_ERROR")
def _(c):
    c.get(5)
    c.get(3)
    return want_conn_error(c, "PROTOCOL_ERROR")


# 5.1.2 Stream Concurrency
@case("5.1.2/1", "streams over SETTINGS_MAX_CONCURRENT_STREAMS: REFUSED_STREAM or "
      "PROTOCOL_ERROR")
def _(c):
    n = c.setting(S_MAX_CONCURRENT_STREAMS, None)
    if n is None:
        raise Fail("the server sets no SETTINGS_MAX_CONCURRENT_STREAMS")
    c.send(b"".join(ser(c.headers(2 * i + 1, c.req_headers(), end_stream=False))
                    for i in range(n + 1)))
    return want_stream_error(c, 2 * n + 1, "PROTOCOL_ERROR", "REFUSED_STREAM")


# 5.3.1 Stream Dependencies
@case("5.3.1/1", "HEADERS depending on its own stream: PROTOCOL_ERROR")
def _(c):
    f = c.headers(1, c.req_headers())
    c.send(raw(HEADERS, END_STREAM | END_HEADERS | PRIO, 1,
               struct.pack(">IB", 1, 15) + bytes(f.data)))
    return want_stream_error(c, 1, "PROTOCOL_ERROR")


@case("5.3.1/2", "PRIORITY depending on its own stream: PROTOCOL_ERROR")
def _(c):
    c.send(raw(PRIORITY, 0, 1, struct.pack(">IB", 1, 15)))
    return want_stream_error(c, 1, "PROTOCOL_ERROR")


# 5.4.1 Connection Error Handling
@case("5.4.1/1", "a PING on a stream: GOAWAY, then the connection closed")
def _(c):
    c.send(raw(PING, 0, 1, b"\0" * 8))
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, GoAwayFrame):
                break
    except Closed:
        raise Fail("closed without a GOAWAY")
    except Timeout:
        raise Fail("timeout: no GOAWAY")
    try:
        while True:
            c.read_frame()
    except Closed:
        return "GOAWAY %s, then closed" % ename(f.error_code)
    except Timeout:
        raise Fail("GOAWAY sent but the connection stayed open")


# 5.5 Extending HTTP/2
@case("5.5/1", "an unknown extension frame is ignored")
def _(c):
    c.send(raw(0xff, 0, 0, b"\0" * 8))
    return want_ping_ack(c)


@case("5.5/2", "an unknown extension frame inside a header block: PROTOCOL_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    c.send(raw(HEADERS, END_STREAM, 1, blk[:4]) + raw(0xff, 0, 0, b"\0" * 8) +
           raw(CONTINUATION, END_HEADERS, 1, blk[4:]))
    return want_conn_error(c, "PROTOCOL_ERROR")


# 6.1 DATA
@case("6.1/1", "DATA on stream 0: PROTOCOL_ERROR")
def _(c):
    c.open_stream(1)
    c.send(raw(DATA, END_STREAM, 0, b"test"))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.1/2", "DATA on a half-closed (remote) stream: STREAM_CLOSED")
def _(c):
    c.get(1)
    c.send(raw(DATA, END_STREAM, 1, b"test"))
    return want_stream_error(c, 1, "STREAM_CLOSED")


@case("6.1/3", "DATA with a pad length not shorter than the payload: PROTOCOL_ERROR")
def _(c):
    c.open_stream(1)
    c.send(raw(DATA, END_STREAM | PADDED, 1, b"\x06test"))
    return want_conn_error(c, "PROTOCOL_ERROR")


# 6.2 HEADERS
@case("6.2/1", "HEADERS without END_HEADERS, then a PRIORITY: PROTOCOL_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    c.send(raw(HEADERS, END_STREAM, 1, blk) + ser(PriorityFrame(1, stream_weight=255)))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.2/2", "HEADERS without END_HEADERS, then HEADERS on another stream: PROTOCOL_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    c.send(raw(HEADERS, END_STREAM, 1, blk) + raw(HEADERS, END_STREAM | END_HEADERS, 3, blk))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.2/3", "HEADERS on stream 0: PROTOCOL_ERROR")
def _(c):
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 0, c.block(c.req_headers())))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.2/4", "HEADERS with a pad length longer than the payload: PROTOCOL_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    c.send(raw(HEADERS, END_STREAM | END_HEADERS | PADDED, 1,
               bytes([len(blk) + 1]) + blk))
    return want_conn_error(c, "PROTOCOL_ERROR")


# 6.3 PRIORITY
@case("6.3/1", "PRIORITY on stream 0: PROTOCOL_ERROR")
def _(c):
    c.send(raw(PRIORITY, 0, 0, struct.pack(">IB", 0, 15)))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.3/2", "PRIORITY of length 4: FRAME_SIZE_ERROR")
def _(c):
    c.open_stream(1)
    c.send(raw(PRIORITY, 0, 1, struct.pack(">I", 0)))
    return want_stream_error(c, 1, "FRAME_SIZE_ERROR")


# 6.4 RST_STREAM
@case("6.4/1", "RST_STREAM on stream 0: PROTOCOL_ERROR")
def _(c):
    c.send(raw(RST_STREAM, 0, 0, struct.pack(">I", E["CANCEL"])))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.4/2", "RST_STREAM on an idle stream: PROTOCOL_ERROR")
def _(c):
    c.send(raw(RST_STREAM, 0, 1, struct.pack(">I", E["CANCEL"])))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.4/3", "RST_STREAM of length 3: FRAME_SIZE_ERROR")
def _(c):
    c.open_stream(1)
    c.send(raw(RST_STREAM, 0, 1, b"\0\0\x08"))
    return want_conn_error(c, "FRAME_SIZE_ERROR")


# 6.5 SETTINGS
@case("6.5/1", "a SETTINGS ACK with a payload: FRAME_SIZE_ERROR")
def _(c):
    c.send(raw(SETTINGS, ACK, 0, struct.pack(">HI", S_ENABLE_PUSH, 0)))
    return want_conn_error(c, "FRAME_SIZE_ERROR")


@case("6.5/2", "SETTINGS on a non-zero stream: PROTOCOL_ERROR")
def _(c):
    c.send(raw(SETTINGS, 0, 1, struct.pack(">HI", S_ENABLE_PUSH, 0)))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.5/3", "SETTINGS of a length not a multiple of 6: FRAME_SIZE_ERROR")
def _(c):
    c.send(raw(SETTINGS, 0, 0, struct.pack(">HI", S_ENABLE_PUSH, 0)[:5]))
    return want_conn_error(c, "FRAME_SIZE_ERROR")


@case("6.5.2/1", "SETTINGS_ENABLE_PUSH of 2: PROTOCOL_ERROR")
def _(c):
    c.send(raw(SETTINGS, 0, 0, struct.pack(">HI", S_ENABLE_PUSH, 2)))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.5.2/2", "SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1: FLOW_CONTROL_ERROR")
def _(c):
    c.send(raw(SETTINGS, 0, 0, struct.pack(">HI", S_INITIAL_WINDOW_SIZE, 2 ** 31)))
    return want_conn_error(c, "FLOW_CONTROL_ERROR")


@case("6.5.2/3", "SETTINGS_MAX_FRAME_SIZE below 16384: PROTOCOL_ERROR")
def _(c):
    c.send(raw(SETTINGS, 0, 0, struct.pack(">HI", S_MAX_FRAME_SIZE, 16383)))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.5.2/4", "SETTINGS_MAX_FRAME_SIZE over 2^24-1: PROTOCOL_ERROR")
def _(c):
    c.send(raw(SETTINGS, 0, 0, struct.pack(">HI", S_MAX_FRAME_SIZE, 2 ** 24)))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.5.2/5", "an unknown setting is ignored (SETTINGS ACK)")
def _(c):
    c.send(raw(SETTINGS, 0, 0, struct.pack(">HI", 0xff, 1)))
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, SettingsFrame) and "ACK" in f.flags:
                return "SETTINGS ACK"
            if isinstance(f, GoAwayFrame):
                raise Fail("GOAWAY %s" % ename(f.error_code))
    except (Closed, Timeout):
        raise Fail("no SETTINGS ACK")


@case("6.5.3/1", "several values of SETTINGS_INITIAL_WINDOW_SIZE in one frame: the last counts")
def _(c):
    c.send(raw(SETTINGS, 0, 0, struct.pack(">HIHI", S_INITIAL_WINDOW_SIZE, 100,
                                           S_INITIAL_WINDOW_SIZE, 1)))
    c.get(1)
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, DataFrame) and f.stream_id == 1:
                if len(f.data) == 1:
                    return "a DATA frame of 1 octet"
                raise Fail("a DATA frame of %d octets under a window of 1" % len(f.data))
            if isinstance(f, HeadersFrame) and "END_STREAM" in f.flags:
                raise Fail("a response without a body: use a --path with a body")
            if isinstance(f, (GoAwayFrame, RstStreamFrame)):
                raise Fail(describe(f))
    except (Closed, Timeout):
        raise Fail("no DATA frame")


@case("6.5.3/2", "SETTINGS without ACK gets a SETTINGS ACK")
def _(c):
    c.send_frames(SettingsFrame(0, settings={S_ENABLE_PUSH: 0}))
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, SettingsFrame) and "ACK" in f.flags:
                return "SETTINGS ACK"
    except (Closed, Timeout):
        raise Fail("no SETTINGS ACK")


# 6.7 PING
@case("6.7/1", "a PING gets a PING ACK with the same payload")
def _(c):
    return want_ping_ack(c, b"abcdefgh")


@case("6.7/2", "a PING ACK is not answered")
def _(c):
    c.send_frames(PingFrame(0, opaque_data=b"unknown!", flags=["ACK"]))
    return want_ping_ack(c, b"h2spec!!")


@case("6.7/3", "PING on a non-zero stream: PROTOCOL_ERROR")
def _(c):
    c.send(raw(PING, 0, 1, b"\0" * 8))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.7/4", "PING of length 6: FRAME_SIZE_ERROR")
def _(c):
    c.send(raw(PING, 0, 0, b"\0" * 6))
    return want_conn_error(c, "FRAME_SIZE_ERROR")


# 6.8 GOAWAY
@case("6.8/1", "GOAWAY on a non-zero stream: PROTOCOL_ERROR")
def _(c):
    c.send(raw(GOAWAY, 0, 1, struct.pack(">II", 0, 0)))
    return want_conn_error(c, "PROTOCOL_ERROR")


# 6.9 WINDOW_UPDATE
@case("6.9/1", "WINDOW_UPDATE of 0 on the connection: PROTOCOL_ERROR")
def _(c):
    c.send(raw(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0)))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.9/2", "WINDOW_UPDATE of 0 on a stream: PROTOCOL_ERROR")
def _(c):
    c.open_stream(1)
    c.send(raw(WINDOW_UPDATE, 0, 1, struct.pack(">I", 0)))
    return want_stream_error(c, 1, "PROTOCOL_ERROR")


@case("6.9/3", "WINDOW_UPDATE of length 3: FRAME_SIZE_ERROR")
def _(c):
    c.send(raw(WINDOW_UPDATE, 0, 0, b"\0\0\x01"))
    return want_conn_error(c, "FRAME_SIZE_ERROR")


@case("6.9.1/1", "SETTINGS_INITIAL_WINDOW_SIZE 1: the server sends DATA of 1 octet")
def _(c):
    c.send_frames(SettingsFrame(0, settings={S_INITIAL_WINDOW_SIZE: 1}))
    c.get(1)
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, DataFrame) and f.stream_id == 1:
                if len(f.data) == 1:
                    return "a DATA frame of 1 octet"
                raise Fail("a DATA frame of %d octets under a window of 1" % len(f.data))
            if isinstance(f, HeadersFrame) and "END_STREAM" in f.flags:
                raise Fail("a response without a body: use a --path with a body")
            if isinstance(f, (GoAwayFrame, RstStreamFrame)):
                raise Fail(describe(f))
    except (Closed, Timeout):
        raise Fail("no DATA frame")


@case("6.9.1/2", "WINDOW_UPDATEs taking the connection window past 2^31-1: "
      "FLOW_CONTROL_ERROR")
def _(c):
    c.send_frames(WindowUpdateFrame(0, window_increment=2 ** 31 - 1),
                  WindowUpdateFrame(0, window_increment=2 ** 31 - 1))
    return want_conn_error(c, "FLOW_CONTROL_ERROR")


@case("6.9.1/3", "WINDOW_UPDATEs taking a stream window past 2^31-1: FLOW_CONTROL_ERROR")
def _(c):
    c.open_stream(1)
    c.send_frames(WindowUpdateFrame(1, window_increment=2 ** 31 - 1),
                  WindowUpdateFrame(1, window_increment=2 ** 31 - 1))
    return want_stream_error(c, 1, "FLOW_CONTROL_ERROR")


@case("6.9.2/1", "SETTINGS_INITIAL_WINDOW_SIZE 0, then raised: the server sends DATA")
def _(c):
    c.send_frames(SettingsFrame(0, settings={S_INITIAL_WINDOW_SIZE: 0}))
    c.get(1)
    c.send_frames(SettingsFrame(0, settings={S_INITIAL_WINDOW_SIZE: 65535}))
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, DataFrame) and f.stream_id == 1:
                return "DATA once the window opened"
            if isinstance(f, HeadersFrame) and "END_STREAM" in f.flags:
                raise Fail("a response without a body: use a --path with a body")
            if isinstance(f, (GoAwayFrame, RstStreamFrame)):
                raise Fail(describe(f))
    except (Closed, Timeout):
        raise Fail("no DATA frame")


@case("6.9.2/2", "SETTINGS_INITIAL_WINDOW_SIZE 2^31: FLOW_CONTROL_ERROR")
def _(c):
    c.open_stream(1)
    c.send(raw(SETTINGS, 0, 0, struct.pack(">HI", S_INITIAL_WINDOW_SIZE, 2 ** 31)))
    return want_conn_error(c, "FLOW_CONTROL_ERROR")


# 6.10 CONTINUATION
@case("6.10/1", "HEADERS and several CONTINUATIONs: a response")
def _(c):
    blk = c.block(c.req_headers())
    parts = [blk[i:i + 3] for i in range(0, len(blk), 3)]
    out = raw(HEADERS, END_STREAM, 1, parts[0])
    for i, p in enumerate(parts[1:]):
        out += raw(CONTINUATION, END_HEADERS if i == len(parts) - 2 else 0, 1, p)
    c.send(out)
    return want_ok(c, 1)


@case("6.10/2", "a CONTINUATION followed by a frame of another type: PROTOCOL_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    c.send(raw(HEADERS, END_STREAM, 1, blk[:3]) + raw(CONTINUATION, 0, 1, blk[3:6]) +
           raw(DATA, END_STREAM, 1, b"test"))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.10/3", "a CONTINUATION on stream 0: PROTOCOL_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    c.send(raw(HEADERS, END_STREAM, 1, blk[:3]) + raw(CONTINUATION, END_HEADERS, 0, blk[3:]))
    return want_conn_error(c, "PROTOCOL_ERROR")


@case("6.10/4", "a CONTINUATION after HEADERS with END_HEADERS: PROTOCOL_ERROR")
def _(c):
    c.send_frames(c.headers(1, c.req_headers()))
    c.send(raw(CONTINUATION, END_HEADERS, 1, c.block([("x-dummy", "1")])))
    return want_conn_error(c, "PROTOCOL_ERROR", "STREAM_CLOSED")


@case("6.10/5", "a CONTINUATION after a CONTINUATION with END_HEADERS: PROTOCOL_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    c.send(raw(HEADERS, END_STREAM, 1, blk[:3]) + raw(CONTINUATION, END_HEADERS, 1, blk[3:]) +
           raw(CONTINUATION, END_HEADERS, 1, c.block([("x-dummy", "1")])))
    return want_conn_error(c, "PROTOCOL_ERROR", "STREAM_CLOSED")


@case("6.10/6", "a CONTINUATION after DATA: PROTOCOL_ERROR")
def _(c):
    c.open_stream(1)
    c.send(raw(DATA, 0, 1, b"test") + raw(CONTINUATION, END_HEADERS, 1,
                                          c.block([("x-dummy", "1")])))
    return want_conn_error(c, "PROTOCOL_ERROR")


# 7 Error Codes
@case("7/1", "GOAWAY with an unknown error code: no error back")
def _(c):
    c.send(raw(GOAWAY, 0, 0, struct.pack(">II", 0, 0xff)))
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, GoAwayFrame) and f.error_code != 0:
                raise Fail("GOAWAY %s" % ename(f.error_code))
    except Closed:
        return "closed without an error"
    except Timeout:
        return "no error within the timeout"


@case("7/2", "RST_STREAM with an unknown error code is accepted")
def _(c):
    c.open_stream(1)
    c.send(raw(RST_STREAM, 0, 1, struct.pack(">I", 0xff)))
    return want_ping_ack(c)


# 8.1 HTTP Message Framing
@case("8.1/1", "a second HEADERS (trailers) without END_STREAM: PROTOCOL_ERROR")
def _(c):
    c.send_frames(c.headers(1, c.req_headers("POST"), end_stream=False),
                  DataFrame(1, data=b"test"),
                  c.headers(1, [("x-trailer", "test")], end_stream=False))
    return want_stream_error(c, 1, "PROTOCOL_ERROR")


@case("8.1/2", "a GET is answered 200 with the backend's body")
def _(c):
    c.get(1)
    return want_ok(c, 1)


@case("8.1/3", "two streams on one connection are both answered")
def _(c):
    c.get(1)
    c.get(3)
    a = want_ok(c, 1)
    b = want_ok(c, 3)
    return "stream 1: %s; stream 3: %s" % (a, b)


@case("8.1/4", "a POST with a 100 KB body (past the initial window) is answered")
def _(c):
    body = bytes(range(256)) * 400
    c.send_frames(c.headers(1, c.req_headers("POST", c.opts.post_path,
                                             [("content-length", str(len(body)))]),
                            end_stream=False))
    # send within the server's windows (its WINDOW_UPDATEs counted by read_frame, those of
    # the handshake included)
    init = c.setting(S_INITIAL_WINDOW_SIZE, 65535)
    off, mfs, hdrs, resp = 0, c.setting(S_MAX_FRAME_SIZE, 16384), None, b""
    try:
        while off < len(body):
            n = min(mfs, c.win_conn - off, init + c.win_inc.get(1, 0) - off, len(body) - off)
            if n > 0:
                c.send_frames(DataFrame(1, data=body[off:off + n],
                                        flags=["END_STREAM"] if off + n == len(body) else []))
                off += n
                continue
            f = c.read_frame()
            if isinstance(f, (RstStreamFrame, GoAwayFrame)):
                raise Fail("%s after %d of %d octets" % (describe(f), off, len(body)))
            elif isinstance(f, HeadersFrame) and f.stream_id == 1:
                raise Fail("answered after %d of %d octets (no WINDOW_UPDATE?)" %
                           (off, len(body)))
    except Timeout:
        raise Fail("stalled after %d of %d octets: no WINDOW_UPDATE" % (off, len(body)))
    except Closed:
        raise Fail("closed after %d of %d octets" % (off, len(body)))
    hdrs, resp = read_response(c, 1)
    digest = hashlib.sha256(body).hexdigest()
    if c.opts.post_sha256 and digest.encode() not in resp:
        raise Fail("status %s, the body %r lacks the sha256 of what was sent (%s)" %
                   (hdrs.get(":status"), resp[:100], digest[:16]))
    if not hdrs.get(":status", "").startswith("2"):
        raise Fail("status %s" % hdrs.get(":status"))
    return "status %s%s" % (hdrs.get(":status"), ", sha256 echoed" if c.opts.post_sha256
                            else "")


@case("8.1/5", "trailers after DATA are accepted")
def _(c):
    c.send_frames(c.headers(1, c.req_headers("POST"), end_stream=False),
                  DataFrame(1, data=b"test"),
                  c.headers(1, [("x-trailer", "test")], end_stream=True))
    h, _ = read_response(c, 1)
    return "answered %s" % h.get(":status")


# 8.1.2 HTTP Header Fields
def malformed(c, headers):
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, c.block(headers)))
    return want_stream_error(c, 1, "PROTOCOL_ERROR", unanswered=True)


@case("8.1.2/1", "an uppercase header name: PROTOCOL_ERROR")
def _(c):
    return malformed(c, c.req_headers(extra=[("X-TEST", "ok")]))


@case("8.1.2.1/1", "an unknown pseudo-header: PROTOCOL_ERROR")
def _(c):
    return malformed(c, c.req_headers(extra=[(":test", "ok")]))


@case("8.1.2.1/2", "a response pseudo-header (:status) in a request: PROTOCOL_ERROR")
def _(c):
    return malformed(c, c.req_headers(extra=[(":status", "200")]))


@case("8.1.2.1/3", "a pseudo-header in trailers: PROTOCOL_ERROR")
def _(c):
    c.send_frames(c.headers(1, c.req_headers("POST"), end_stream=False),
                  DataFrame(1, data=b"test"),
                  c.headers(1, [(":method", "GET")], end_stream=True))
    return want_stream_error(c, 1, "PROTOCOL_ERROR")


@case("8.1.2.1/4", "a pseudo-header after a regular header: PROTOCOL_ERROR")
def _(c):
    h = c.req_headers()
    return malformed(c, h[:2] + [("x-test", "ok")] + h[2:])


@case("8.1.2.2/1", "Connection: PROTOCOL_ERROR")
def _(c):
    return malformed(c, c.req_headers(extra=[("connection", "keep-alive")]))


@case("8.1.2.2/2", "TE other than trailers: PROTOCOL_ERROR")
def _(c):
    return malformed(c, c.req_headers(extra=[("te", "trailers, deflate")]))


@case("8.1.2.2/3", "Keep-Alive: PROTOCOL_ERROR")
def _(c):
    return malformed(c, c.req_headers(extra=[("keep-alive", "timeout=5")]))


@case("8.1.2.2/4", "Transfer-Encoding: PROTOCOL_ERROR")
def _(c):
    return malformed(c, c.req_headers(extra=[("transfer-encoding", "chunked")]))


@case("8.1.2.2/5", "Upgrade: PROTOCOL_ERROR")
def _(c):
    return malformed(c, c.req_headers(extra=[("upgrade", "websocket")]))


@case("8.1.2.2/6", "Proxy-Connection: PROTOCOL_ERROR")
def _(c):
    return malformed(c, c.req_headers(extra=[("proxy-connection", "keep-alive")]))


@case("8.1.2.2/7", "TE: trailers is allowed (200)")
def _(c):
    c.get(1, extra=[("te", "trailers")])
    return want_ok(c, 1)


# 8.1.2.3 Request Pseudo-Header Fields
@case("8.1.2.3/1", "an empty :path: PROTOCOL_ERROR")
def _(c):
    return malformed(c, [(k, "" if k == ":path" else v) for k, v in c.req_headers()])


@case("8.1.2.3/2", "no :method: PROTOCOL_ERROR")
def _(c):
    return malformed(c, [(k, v) for k, v in c.req_headers() if k != ":method"])


@case("8.1.2.3/3", "no :scheme: PROTOCOL_ERROR")
def _(c):
    return malformed(c, [(k, v) for k, v in c.req_headers() if k != ":scheme"])


@case("8.1.2.3/4", "no :path: PROTOCOL_ERROR")
def _(c):
    return malformed(c, [(k, v) for k, v in c.req_headers() if k != ":path"])


@case("8.1.2.3/5", "a duplicated :method: PROTOCOL_ERROR")
def _(c):
    h = c.req_headers()
    return malformed(c, h[:1] + [(":method", "GET")] + h[1:])


@case("8.1.2.3/6", "a duplicated :scheme: PROTOCOL_ERROR")
def _(c):
    h = c.req_headers()
    return malformed(c, h[:2] + [(":scheme", h[1][1])] + h[2:])


@case("8.1.2.3/7", "a duplicated :path: PROTOCOL_ERROR")
def _(c):
    h = c.req_headers()
    return malformed(c, h + [(":path", h[3][1])])


# 8.1.2.6 Malformed Requests and Responses
@case("8.1.2.6/1", "content-length not matching one DATA frame: PROTOCOL_ERROR")
def _(c):
    c.send_frames(c.headers(1, c.req_headers("POST", extra=[("content-length", "1")]),
                            end_stream=False),
                  DataFrame(1, data=b"test", flags=["END_STREAM"]))
    return want_stream_error(c, 1, "PROTOCOL_ERROR")


@case("8.1.2.6/2", "content-length not matching the sum of DATA frames: PROTOCOL_ERROR")
def _(c):
    c.send_frames(c.headers(1, c.req_headers("POST", extra=[("content-length", "8")]),
                            end_stream=False),
                  DataFrame(1, data=b"test"), DataFrame(1, data=b"test!", flags=["END_STREAM"]))
    return want_stream_error(c, 1, "PROTOCOL_ERROR")


@case("8.1.2.6/3", "content-length larger than the DATA sent with END_STREAM: PROTOCOL_ERROR")
def _(c):
    c.send_frames(c.headers(1, c.req_headers("POST", extra=[("content-length", "100")]),
                            end_stream=False),
                  DataFrame(1, data=b"test", flags=["END_STREAM"]))
    return want_stream_error(c, 1, "PROTOCOL_ERROR")


# 8.2 Server Push
@case("8.2/1", "a PUSH_PROMISE from the client: PROTOCOL_ERROR")
def _(c):
    c.open_stream(1)
    c.send(raw(PUSH_PROMISE, END_HEADERS, 1, struct.pack(">I", 2) +
               c.block(c.req_headers())))
    return want_conn_error(c, "PROTOCOL_ERROR")


# RFC 7541 HPACK
@case("hpack/2.3.3/1", "an indexed field past the tables: COMPRESSION_ERROR")
def _(c):
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, c.block(c.req_headers()) +
               hpack_int(200, 7, 0x80)))
    return want_conn_error(c, "COMPRESSION_ERROR")


@case("hpack/2.3.3/2", "a literal whose indexed name is past the tables: COMPRESSION_ERROR")
def _(c):
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, c.block(c.req_headers()) +
               hpack_int(200, 6, 0x40) + b"\x01x"))
    return want_conn_error(c, "COMPRESSION_ERROR")


@case("hpack/4.2/1", "a dynamic table size update over SETTINGS_HEADER_TABLE_SIZE: "
      "COMPRESSION_ERROR")
def _(c):
    n = c.setting(S_HEADER_TABLE_SIZE, 4096) + 1
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, hpack_int(n, 5, 0x20) +
               c.block(c.req_headers())))
    return want_conn_error(c, "COMPRESSION_ERROR")


@case("hpack/4.2/2", "a dynamic table size update after a field: COMPRESSION_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, blk + hpack_int(0, 5, 0x20)))
    return want_conn_error(c, "COMPRESSION_ERROR")


@case("hpack/5.2/1", "a Huffman string holding EOS: COMPRESSION_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    # literal, new name "x-test", Huffman value of 4 octets of all ones (EOS is 30 ones)
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, blk + b"\x00\x06x-test\x84" +
               b"\xff" * 4))
    return want_conn_error(c, "COMPRESSION_ERROR")


@case("hpack/5.2/2", "Huffman padding longer than 7 bits: COMPRESSION_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    # 'a' is 00011 (5 bits); then 11 bits of ones as padding
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, blk + b"\x00\x06x-test\x82\x1f\xff"))
    return want_conn_error(c, "COMPRESSION_ERROR")


@case("hpack/5.2/3", "Huffman padding not of ones: COMPRESSION_ERROR")
def _(c):
    blk = c.block(c.req_headers())
    # 'a' (00011) then 000 as padding
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, blk + b"\x00\x06x-test\x81\x18"))
    return want_conn_error(c, "COMPRESSION_ERROR")


@case("hpack/6.1/1", "the dynamic table used across two requests: both answered")
def _(c):
    # hpack's encoder indexes fields: the second block refers to the first one's entries
    c.get(1, extra=[("x-custom", "switchyard-h2spec")])
    a = want_ok(c, 1)
    c.get(3, extra=[("x-custom", "switchyard-h2spec")])
    b = want_ok(c, 3)
    return "%s; %s" % (a, b)


# -- attacks: each ends in the answer the config names; then a new connection is served

def flood(c, frames_of, total, chunk):
    """Send total frames (frames_of(i) bytes) chunk at a time, reading as it goes; the
    first GOAWAY, or None if the server read them all."""
    sent = 0
    try:
        while sent < total:
            c.send(b"".join(frames_of(sent + i) for i in range(min(chunk, total - sent))))
            sent += chunk
            if any(isinstance(f, GoAwayFrame) for f in c.poll_frames()):
                break
    except Closed:
        pass
    # all sent: the answer comes within 1.5 s or not at all
    c.deadline = min(c.deadline, time.monotonic() + 1.5)
    try:
        while not any(isinstance(f, GoAwayFrame) for f in c.seen):
            c.read_frame()
    except (Closed, Timeout):
        pass
    return next((f for f in c.seen if isinstance(f, GoAwayFrame)), None), sent


def want_calm(c, name, frames_of, total, chunk=50, codes=("ENHANCE_YOUR_CALM",),
              unit="frames"):
    g, sent = flood(c, frames_of, total, chunk)
    if g is None:
        raise Fail("%s: no GOAWAY after %d %s (%s)" %
                   (name, sent, unit, "closed" if c.closed else "still open"))
    if ename(g.error_code) not in codes:
        raise Fail("%s: GOAWAY %s %r after %d %s, expected %s" % (
            name, ename(g.error_code), bytes(g.additional_data)[:60], sent, unit,
            "/".join(codes)))
    return "GOAWAY %s after %d %s sent; then %s" % (ename(g.error_code), sent, unit,
                                                   served_after(c.opts))


@case("attacks/1", "rapid reset (streams opened and reset past reset_burst): GOAWAY "
      "ENHANCE_YOUR_CALM", timeout=8)
def _(c):
    def pair(i):  # the encoder indexes the request: after the first, a few octets each
        s = 2 * i + 1
        return (raw(HEADERS, END_STREAM | END_HEADERS, s, c.block(c.req_headers())) +
                raw(RST_STREAM, 0, s, struct.pack(">I", E["CANCEL"])))
    return want_calm(c, "rapid reset", pair, 4 * c.opts.reset_burst + 100, chunk=20,
                     unit="streams opened and reset")


@case("attacks/2", "CONTINUATION flood past max_header_list_size: GOAWAY", timeout=8)
def _(c):
    limit = c.setting(S_MAX_HEADER_LIST_SIZE, c.opts.max_header_list_size)
    first = c.block(c.req_headers())
    piece = literal(b"x-flood", b"f" * 4000)
    state = {"first": True}

    def frame(i):
        if state["first"]:
            state["first"] = False
            return raw(HEADERS, END_STREAM, 1, first)
        return raw(CONTINUATION, 0, 1, piece)
    total = 4 * (limit // len(piece)) + 50
    g, sent = flood(c, frame, total, 4)
    if g is None:
        raise Fail("no GOAWAY after %d CONTINUATIONs (~%d KB, limit %d; %s)" %
                   (sent, sent * len(piece) // 1024, limit,
                    "closed" if c.closed else "still open"))
    return "GOAWAY %s after %d frames (~%d KB, limit %d); then %s" % (
        ename(g.error_code), sent, sent * len(piece) // 1024, limit, served_after(c.opts))


@case("attacks/3", "SETTINGS flood: GOAWAY ENHANCE_YOUR_CALM", timeout=8)
def _(c):
    return want_calm(c, "SETTINGS flood", lambda i: raw(SETTINGS, 0, 0, b""),
                     4 * c.opts.flood_burst + 100, chunk=100)


@case("attacks/4", "PING flood: GOAWAY ENHANCE_YOUR_CALM", timeout=8)
def _(c):
    return want_calm(c, "PING flood", lambda i: raw(PING, 0, 0, struct.pack(">Q", i)),
                     4 * c.opts.flood_burst + 100, chunk=100)


@case("attacks/5", "PRIORITY flood: GOAWAY ENHANCE_YOUR_CALM", timeout=8)
def _(c):
    return want_calm(c, "PRIORITY flood",
                     lambda i: raw(PRIORITY, 0, 2 * (i % 1000) + 101, struct.pack(">IB", 0, 15)),
                     4 * c.opts.flood_burst + 100, chunk=100)


@case("attacks/6", "empty DATA flood: GOAWAY ENHANCE_YOUR_CALM", timeout=8)
def _(c):
    # a body announced and never sent: the stream stays open (a backend that answers
    # before the body ends closes it, RFC 9113 8.1, and DATA on it is then ignored)
    c.send_frames(c.headers(1, c.req_headers("POST", c.opts.post_path,
                                             [("content-length", "1000000")]),
                            end_stream=False))
    return want_calm(c, "empty DATA flood", lambda i: raw(DATA, 0, 1, b""),
                     4 * c.opts.flood_burst + 100, chunk=100)


@case("attacks/7", "WINDOW_UPDATE flood: GOAWAY ENHANCE_YOUR_CALM", timeout=8)
def _(c):
    return want_calm(c, "WINDOW_UPDATE flood",
                     lambda i: raw(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1)),
                     4 * c.opts.flood_burst + 100, chunk=100,
                     codes=("ENHANCE_YOUR_CALM",))


@case("attacks/8", "more streams than max_concurrent_streams: REFUSED_STREAM (the connection "
      "kept), or GOAWAY PROTOCOL_ERROR once the client acknowledged the limit (libnghttp2's "
      "rule; RFC 9113 5.1.2 names a stream error, h2spec takes either)", timeout=5)
def _(c):
    n = c.setting(S_MAX_CONCURRENT_STREAMS, c.opts.max_concurrent_streams)
    c.send(b"".join(ser(c.headers(2 * i + 1, c.req_headers(), end_stream=False))
                    for i in range(n + 10)))
    refused = set()
    try:
        while len(refused) < 10:
            f = c.read_frame()
            if isinstance(f, RstStreamFrame):
                if f.error_code != E["REFUSED_STREAM"]:
                    raise Fail("RST_STREAM %s on stream %d, expected REFUSED_STREAM" %
                               (ename(f.error_code), f.stream_id))
                refused.add(f.stream_id)
            elif isinstance(f, GoAwayFrame):
                if f.error_code != E["PROTOCOL_ERROR"]:
                    raise Fail("GOAWAY %s, expected RST_STREAM REFUSED_STREAM or GOAWAY "
                               "PROTOCOL_ERROR" % ename(f.error_code))
                if f.last_stream_id > 2 * n - 1:
                    raise Fail("GOAWAY last stream %d: a stream past the limit was taken"
                               % f.last_stream_id)
                return "GOAWAY PROTOCOL_ERROR, last stream %d; then %s" % (
                    f.last_stream_id, served_after(c.opts))
    except (Closed, Timeout):
        raise Fail("%d of the 10 streams over %d refused" % (len(refused), n))
    want = set(2 * i + 1 for i in range(n, n + 10))
    if refused != want:
        raise Fail("refused streams %s, expected the last 10 (%s)" %
                   (sorted(refused)[:12], sorted(want)[:3]))
    ping = want_ping_ack(c)
    return "streams %d..%d refused (REFUSED_STREAM), %s; then %s" % (
        2 * n + 1, 2 * n + 19, ping, served_after(c.opts))


@case("attacks/9", "an HPACK table size update over header_table_size: GOAWAY "
      "COMPRESSION_ERROR", timeout=5)
def _(c):
    n = c.setting(S_HEADER_TABLE_SIZE, 4096)
    c.send(raw(HEADERS, END_STREAM | END_HEADERS, 1, hpack_int(1 << 30, 5, 0x20) +
               c.block(c.req_headers())))
    r = want_conn_error(c, "COMPRESSION_ERROR")
    return "%s (setting %d, asked 2^30); then %s" % (r, n, served_after(c.opts))


@case("attacks/10", "one header block over max_header_list_size with END_HEADERS: refused, "
      "not served", timeout=5)
def _(c):
    limit = c.setting(S_MAX_HEADER_LIST_SIZE, c.opts.max_header_list_size)
    blk = c.block(c.req_headers())
    pieces = [literal(b"x-big-%d" % i, b"b" * 8000) for i in range(limit // 8000 + 2)]
    body = blk + b"".join(pieces)
    mfs = c.setting(S_MAX_FRAME_SIZE, 16384)
    chunks = [body[i:i + mfs] for i in range(0, len(body), mfs)]
    out = raw(HEADERS, END_STREAM | (END_HEADERS if len(chunks) == 1 else 0), 1, chunks[0])
    for i, ch in enumerate(chunks[1:]):
        out += raw(CONTINUATION, END_HEADERS if i == len(chunks) - 2 else 0, 1, ch)
    try:
        c.send(out)
    except Closed:
        pass
    try:
        while True:
            f = c.read_frame()
            if isinstance(f, GoAwayFrame):
                r = "GOAWAY %s" % ename(f.error_code)
                break
            if isinstance(f, RstStreamFrame) and f.stream_id == 1:
                r = "RST_STREAM %s" % ename(f.error_code)
                break
            collect(c, f)
            if (c.responses.get(1) or {}).get("headers") is not None:
                st = c.responses[1]["headers"].get(":status")
                if st == "431":
                    r = "answered 431"
                    break
                raise Fail("a %d-octet header list answered %s" % (len(body), st))
    except Closed:
        r = "connection closed"
    except Timeout:
        raise Fail("no answer to a %d-octet header list (limit %d)" % (len(body), limit))
    return "%s for %d octets (limit %d); then %s" % (r, len(body), limit, served_after(c.opts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--tls", action="store_true", help="TLS with ALPN h2 (else h2c)")
    ap.add_argument("--authority", help=":authority and SNI (default: host)")
    ap.add_argument("--path", default="/", help="a path answered 200 with a body")
    ap.add_argument("--body", help="a string the 200's body must contain")
    ap.add_argument("--post-path", help="the path POSTs go to (default: --path)")
    ap.add_argument("--post-sha256", action="store_true",
                    help="the POST's answer must contain the sha256 of its body")
    ap.add_argument("--only", help="run the cases whose id matches this regular expression")
    ap.add_argument("--timeout", type=float, default=2.0, help="seconds per case")
    ap.add_argument("--reset-burst", type=int, default=100)
    ap.add_argument("--flood-burst", type=int, default=1000)
    ap.add_argument("--max-header-list-size", type=int, default=65536)
    ap.add_argument("--max-concurrent-streams", type=int, default=100)
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("-v", "--verbose", action="count", default=0,
                    help="-v: details of failures; -vv: every frame of failed cases")
    opts = ap.parse_args()
    opts.authority = opts.authority or opts.host
    opts.post_path = opts.post_path or opts.path
    cases = [x for x in CASES if not opts.only or re.search(opts.only, x[0])]
    if opts.list:
        for cid, text, *_ in cases:
            print("%-14s %s" % (cid, text))
        return 0
    passed = failed = 0
    t0 = time.monotonic()
    for cid, text, fn, tmo, handshake, settings in cases:
        start = time.monotonic()
        c = None
        try:
            c = Conn(opts, start + (tmo or opts.timeout), handshake, settings)
            detail = fn(c)
            ok = True
        except Fail as e:
            ok, detail = False, str(e)
        except Closed:
            ok, detail = False, "the connection closed unexpectedly"
        except Timeout:
            ok, detail = False, "timeout"
        except (OSError, AssertionError) as e:
            ok, detail = False, "%s: %s" % (type(e).__name__, e)
        except Exception as e:  # a frame we could not parse, etc.
            ok, detail = False, "%s: %s" % (type(e).__name__, e)
        ms = (time.monotonic() - start) * 1000
        if ok:
            passed += 1
        else:
            failed += 1
        line = "%s %-14s %s" % ("PASS" if ok else "FAIL", cid, text)
        if opts.verbose or not ok:
            line += "  [%s; %.0f ms]" % (detail, ms)
        print(line, flush=True)
        if c is not None:
            if opts.verbose > 1 and (not ok or opts.verbose > 2):
                for entry in c.log[-40:]:
                    print("      " + entry)
            c.close()
    took = time.monotonic() - t0
    print("%d passed, %d failed (%.1f s)" % (passed, failed, took))
    if took >= 40 and not opts.only:
        print("the suite took %.1f s: over its 40 s" % took)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
