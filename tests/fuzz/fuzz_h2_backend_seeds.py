#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The seeds of fuzz_h2_backend (tests/fuzz/corpus/fuzz_h2_backend/): the
clients' canned requests and an h2c backend's byte streams (hyperframe and
hpack, Debian's python3-hyperframe and python3-hpack), cut into the harness's
operations (tests/fuzz/fuzz_h2_backend.c, "Input").

    /usr/bin/python3 tests/fuzz/fuzz_h2_backend_seeds.py tests/fuzz/corpus/fuzz_h2_backend

A backend connection's first request is its stream 1, the next one on it
(the same client's or another's: connections carry many clients' streams) stream 3.
"""
import os
import sys

import hpack
from hyperframe.frame import (ContinuationFrame, DataFrame, GoAwayFrame, HeadersFrame,
                              PingFrame, PushPromiseFrame, RstStreamFrame, SettingsFrame,
                              WindowUpdateFrame)

# c0: bits 0-2 clock step, bits 3-5 a window, bits 6-7 what (0 request,
# 1 backend bytes, 2 FIN/RST, 3 client bytes).
STEP = {0: 0, 1: 2, 20: 3, 300: 4, 3000: 5, 31000: 6, 301000: 7}
WIN = {65535: 0, 0: 1, 1: 2, 100: 3, 1000: 4, 8192: 5, 16384: 6, 32768: 7}
# The clients' canned requests (fuzz_h2_backend.c canned[]).
GET, HEAD, POST_CL, POST_CHUNKED, GRPC, EXPECT, CLOSE, PIPELINED, HTTP10, BIG_POST, \
    OPTIONS, COOKIES = range(12)
BE_FIN, BE_RST, CLIENT_FIN, CLIENT_RST = range(4)
MAX_OP = 2047


def c0(step_ms, win, what):
    return STEP[step_ms] | WIN[win] << 3 | what << 6


def request(k, client=0, step_ms=0, win=65535):
    return bytes([c0(step_ms, win, 0), k, client])


def backend(payload, leg=0, step_ms=0, win=65535):
    """The backend leg's bytes (leg 0: the newest; k: slot k - 1), as many
    operations as it takes."""
    out = b""
    while True:
        part, payload = payload[:MAX_OP], payload[MAX_OP:]
        n = len(part)
        out += bytes([c0(step_ms, win, 1), n & 0xff, n >> 8 | leg << 3]) + part
        step_ms = 0
        if not payload:
            return out


def control(which, target=0, step_ms=0):
    """FIN or RST of a backend leg (target: as backend()'s leg) or client."""
    c2 = target << 3 if which in (BE_FIN, BE_RST) else target
    return bytes([c0(step_ms, 65535, 2), which, c2])


def wait(step_ms):
    """The clock moves on (no bytes from the newest backend leg)."""
    return bytes([c0(step_ms, 65535, 1), 0, 0])


def client_bytes(payload, client=0, step_ms=0, win=65535):
    assert len(payload) <= MAX_OP
    n = len(payload)
    return bytes([c0(step_ms, win, 3), n & 0xff, n >> 8 | client << 3]) + payload


enc = hpack.Encoder()


def fresh_encoder():
    global enc
    enc = hpack.Encoder()


def settings(**kw):
    f = SettingsFrame(0)
    for k, v in kw.items():
        f.settings[getattr(SettingsFrame, k)] = v
    return f.serialize()


SETTINGS = settings(MAX_CONCURRENT_STREAMS=100, INITIAL_WINDOW_SIZE=65535)
SETTINGS_ACK = SettingsFrame(0, flags=["ACK"]).serialize()
HELLO = SETTINGS + SETTINGS_ACK


def headers(sid, fields, end_stream=False):
    f = HeadersFrame(sid, data=enc.encode(fields))
    f.flags.add("END_HEADERS")
    if end_stream:
        f.flags.add("END_STREAM")
    return f.serialize()


def data(sid, payload, end_stream=False):
    f = DataFrame(sid, data=payload)
    if end_stream:
        f.flags.add("END_STREAM")
    return f.serialize()


def seeds():
    out = {}

    # A GET answered with HEADERS and DATA, then the next request on the
    # same client (keep-alive) as stream 3 of the same leg.
    fresh_encoder()
    out["normal"] = (
        request(GET) +
        backend(HELLO + headers(1, [(":status", "200"), ("content-type", "text/plain"),
                                    ("server", "fz")]) + data(1, b"hello", end_stream=True)) +
        request(COOKIES, step_ms=20) +
        backend(headers(3, [(":status", "200"), ("content-length", "2")]) +
                data(3, b"ok", end_stream=True)) +
        wait(300))

    # gRPC: no content-length (chunked to the client), trailers with
    # grpc-status.
    fresh_encoder()
    out["grpc_trailers"] = (
        request(GRPC) +
        backend(HELLO + headers(1, [(":status", "200"), ("content-type", "application/grpc")]) +
                data(1, b"\x00\x00\x00\x00\x03abc") + data(1, b"\x00\x00\x00\x00\x01z") +
                headers(1, [("grpc-status", "0"), ("grpc-message", "OK")], end_stream=True)) +
        request(POST_CHUNKED, step_ms=20) +
        backend(headers(3, [(":status", "200")]) + data(3, b"chunked") +
                headers(3, [("x-trailer", "t")], end_stream=True)) +
        wait(300))

    # 100-continue, then the final response.
    fresh_encoder()
    out["continue"] = (
        request(EXPECT) +
        backend(HELLO + headers(1, [(":status", "100")])) +
        backend(headers(1, [(":status", "200"), ("content-length", "2")]) +
                data(1, b"ok", end_stream=True), step_ms=20) +
        wait(300))

    # RST_STREAM before the response head: the request again (a replay)
    # or a 502; the next stream answered.
    fresh_encoder()
    out["rst_before_headers"] = (
        request(GET) +
        backend(HELLO + RstStreamFrame(1, error_code=7).serialize()) +
        backend(headers(3, [(":status", "200"), ("content-length", "0")], end_stream=True)) +
        backend(HELLO + headers(1, [(":status", "200"), ("content-length", "0")],
                                end_stream=True)) +
        request(POST_CL, step_ms=20) +
        backend(RstStreamFrame(3, error_code=2).serialize()) +
        wait(300))

    # GOAWAY in the middle of a body, then the backend's FIN.
    fresh_encoder()
    out["goaway_mid_body"] = (
        request(GET) +
        backend(HELLO + headers(1, [(":status", "200"), ("content-length", "10")]) +
                data(1, b"hello")) +
        backend(GoAwayFrame(0, last_stream_id=1, error_code=0).serialize() + data(1, b"wor"),
                step_ms=20) +
        backend(GoAwayFrame(0, last_stream_id=0, error_code=2,
                            additional_data=b"bye").serialize()) +
        control(BE_FIN) +
        request(GET, step_ms=300) +
        wait(300))

    # A content-length response to a chunked request with trailers.
    fresh_encoder()
    out["content_length"] = (
        request(POST_CHUNKED) +
        backend(HELLO + headers(1, [(":status", "201"), ("content-length", "5"),
                                    ("location", "/x")]) + data(1, b"he")) +
        backend(data(1, b"llo", end_stream=True), step_ms=1) +
        request(BIG_POST, step_ms=20) +
        backend(WindowUpdateFrame(0, window_increment=100000).serialize() +
                WindowUpdateFrame(3, window_increment=100000).serialize()) +
        backend(headers(3, [(":status", "200"), ("content-length", "0")], end_stream=True),
                step_ms=20) +
        wait(300))

    # HEAD: a content-length and no body.
    fresh_encoder()
    out["head"] = (
        request(HEAD) +
        backend(HELLO + headers(1, [(":status", "200"), ("content-length", "1000")],
                                end_stream=True)) +
        request(HTTP10, step_ms=20) +
        backend(headers(3, [(":status", "304"), ("etag", "\"x\"")], end_stream=True)) +
        wait(300))

    # A PING flood (the session answers each, or gives up on the backend).
    fresh_encoder()
    pings = b"".join(PingFrame(0, opaque_data=bytes([i % 256] * 8)).serialize()
                     for i in range(300))
    out["ping_flood"] = (
        request(GET) +
        backend(HELLO + pings, win=0) +
        backend(headers(1, [(":status", "200"), ("content-length", "0")], end_stream=True),
                step_ms=300, win=65535) +
        wait(300))

    # A huge header block: a 100-byte field indexed once, then referenced
    # thousands of times (the decoded list is far over any limit), in
    # HEADERS and CONTINUATION frames.
    fresh_encoder()
    block = enc.encode([(":status", "200"), ("x-big", "v" * 100)])
    block += b"\xbe" * 5000
    frames = HeadersFrame(1, data=block[:1000]).serialize()
    for i in range(1000, len(block), 1000):
        f = ContinuationFrame(1, data=block[i:i + 1000])
        if i + 1000 >= len(block):
            f.flags.add("END_HEADERS")
        frames += f.serialize()
    out["huge_headers"] = request(GET) + backend(HELLO + frames) + wait(300)

    # A server push attempt (push is off: a protocol error), then the
    # response.
    fresh_encoder()
    pp = PushPromiseFrame(1, promised_stream_id=2,
                          data=enc.encode([(":method", "GET"), (":scheme", "http"),
                                           (":authority", "h2c.test"), (":path", "/pushed")]))
    pp.flags.add("END_HEADERS")
    out["push_promise"] = (
        request(GET) +
        backend(HELLO + pp.serialize() +
                headers(1, [(":status", "200"), ("content-length", "2")]) +
                data(1, b"ok", end_stream=True)) +
        request(GET, step_ms=20) +
        wait(300))

    # Two clients at once: one connection carries both (streams 1 and 3),
    # answered out of order; the first client closes, and the third
    # client's request is stream 5 of the same connection.
    fresh_encoder()
    out["two_clients_one_leg"] = (
        request(GET, client=0) +
        request(OPTIONS, client=1) +
        backend(HELLO + headers(3, [(":status", "200"), ("content-length", "1")]) +
                data(3, b"b", end_stream=True) +
                headers(1, [(":status", "200"), ("content-length", "1")]) +
                data(1, b"a", end_stream=True), leg=1) +
        control(CLIENT_FIN, 0, step_ms=20) +
        request(GET, client=2, step_ms=20) +
        backend(headers(5, [(":status", "200"), ("content-length", "1")]) +
                data(5, b"c", end_stream=True), leg=1) +
        control(CLIENT_FIN, 2, step_ms=20) +
        wait(3000) +
        wait(31000))

    # Two streams on one connection, one reset by the backend mid-body,
    # the other finished after it; then a GOAWAY that leaves out a third
    # (sent again on a new connection).
    fresh_encoder()
    out["reset_one_of_two"] = (
        request(GET, client=0) +
        request(GET, client=1) +
        backend(HELLO + headers(1, [(":status", "200")]) + data(1, b"part") +
                RstStreamFrame(1, error_code=2).serialize() +
                headers(3, [(":status", "200"), ("content-length", "2")]) +
                data(3, b"ok", end_stream=True), leg=1) +
        request(GET, client=2, step_ms=20) +
        backend(GoAwayFrame(0, last_stream_id=3).serialize(), leg=1, step_ms=20) +
        backend(HELLO + headers(1, [(":status", "200"), ("content-length", "1")]) +
                data(1, b"n", end_stream=True), leg=0, step_ms=20) +
        wait(3000) +
        wait(31000))

    # Garbage instead of a SETTINGS frame; then an HTTP/1.1 answer (a
    # backend that does not speak h2).
    fresh_encoder()
    out["not_h2"] = (
        request(PIPELINED) +
        backend(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") +
        request(CLOSE, client=1, step_ms=20) +
        backend(b"\x00\x00\x04\x09\x00\x00\x00\x00\x01abcd" + b"\xff" * 40) +
        wait(300))

    # A raw client request and a backend silent until the timeouts.
    fresh_encoder()
    out["silent_backend"] = (
        client_bytes(b"GET /raw HTTP/1.1\r\nHost: h2c.test\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"3\r\nabc\r\n0\r\n\r\n") +
        backend(HELLO) + wait(31000) + wait(301000))
    return out


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz/corpus/fuzz_h2_backend"
    os.makedirs(d, exist_ok=True)
    for name, blob in seeds().items():
        assert len(blob) <= 8192, name  # -max_len in CI (tests/fuzz/run.sh)
        with open(os.path.join(d, name), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
