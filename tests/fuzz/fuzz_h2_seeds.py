#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The seeds of fuzz_h2 (tests/fuzz/corpus/fuzz_h2/): valid h2 client byte
streams (python3-h2, hyperframe and hpack; Debian's python3-h2), cut into the
harness's operations (tests/fuzz/fuzz_h2.c, "Input").

    /usr/bin/python3 tests/fuzz/fuzz_h2_seeds.py tests/fuzz/corpus/fuzz_h2
"""
import os
import struct
import sys

import h2.config
import h2.connection
import h2.settings
import hpack
from hyperframe.frame import ContinuationFrame, HeadersFrame

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
AUTH = "px.test"
# The client's ACK of the router's SETTINGS (python3-h2 would send it on
# reading them; the harness's client reads nothing).
SETTINGS_ACK = b"\x00\x00\x00\x04\x01\x00\x00\x00\x00"

# c0: bits 0-2 clock step (0, 0, 1 ms, 20 ms, 300 ms, 3 s, 31 s, 301 s),
# bits 3-5 the client's window (0, 1, 100, 1000, 8192, 16384, 32768, 65535),
# bits 6-7 what (0 data, 2 data then FIN, 3 backend FIN/RST).
STEP = {0: 0, 1: 2, 20: 3, 300: 4, 3000: 5, 31000: 6, 301000: 7}
WIN = {0: 0, 1: 1, 100: 2, 1000: 3, 8192: 4, 16384: 5, 32768: 6, 65535: 7}
# The backend's canned answers (fuzz_h2.c canned[]).
R_LENGTH, R_CHUNKED, R_CONTINUE, R_CLOSE, R_204, R_BAD, R_SHORT, R_NONE, R_304, R_503, \
    R_BIG, R_CUT = range(12)


def op(payload=b"", step_ms=0, win=65535, what=0, aux=0):
    n = len(payload) if what != 3 else aux
    assert n < 2048
    c0 = STEP[step_ms] | WIN[win] << 3 | what << 6
    return bytes([c0, n & 0xff, n >> 8]) + payload


def client(settings=None):
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True,
                                                             header_encoding="utf-8"))
    c.initiate_connection()
    if settings:
        c.update_settings(settings)
    out = c.data_to_send()
    assert out.startswith(PREFACE)
    return c, out[len(PREFACE):]


def req(method, path, extra=()):
    return [(":method", method), (":scheme", "http"), (":authority", AUTH),
            (":path", path)] + list(extra)


def seed(first, step, ops):
    return bytes([first, step]) + b"".join(ops)


def seeds():
    out = {}

    # Two GETs, / and /api, each answered with a Content-Length body.
    c, pre = client()
    c.send_headers(1, req("GET", "/"), end_stream=True)
    a = c.data_to_send()
    c.send_headers(3, req("GET", "/api", [("accept", "*/*"), ("cookie", "a=1"),
                                          ("cookie", "b=2")]), end_stream=True)
    b = c.data_to_send()
    out["get_root_api"] = seed(R_LENGTH, 1, [op(pre + a), op(SETTINGS_ACK + b, step_ms=20),
                                             op(step_ms=300)])

    # A POST with a content-length and its DATA; one without (chunked to the
    # backend), its DATA in two frames; answered chunked with trailers.
    c, pre = client()
    c.send_headers(1, req("POST", "/api", [("content-length", "5")]))
    c.send_data(1, b"hello", end_stream=True)
    a = c.data_to_send()
    c.send_headers(3, req("POST", "/", [("content-type", "text/plain")]))
    c.send_data(3, b"abc")
    b = c.data_to_send()
    c.send_data(3, b"defgh", end_stream=True)
    e = c.data_to_send()
    out["post_data"] = seed(R_CHUNKED, 0, [op(pre + a), op(SETTINGS_ACK + b), op(e, step_ms=20),
                                           op(step_ms=300)])

    # Trailers after a body without a length.
    c, pre = client()
    c.send_headers(1, req("POST", "/api", [("te", "trailers")]))
    c.send_data(1, b"body")
    c.send_headers(1, [("x-checksum", "1234")], end_stream=True)
    out["trailers"] = seed(R_CONTINUE, 0, [op(pre + c.data_to_send()), op(step_ms=300)])

    # A stream reset by the client, a PING, a SETTINGS again.
    c, pre = client()
    c.send_headers(1, req("GET", "/"), end_stream=True)
    c.reset_stream(1)
    c.ping(b"12345678")
    a = c.data_to_send()
    c.send_headers(3, req("HEAD", "/api"), end_stream=True)
    c.update_settings({h2.settings.SettingCodes.ENABLE_PUSH: 0})
    out["rst_ping"] = seed(R_NONE, 4, [op(pre + a), op(c.data_to_send(), step_ms=300),
                                       op(step_ms=31000)])

    # A header block cut into HEADERS and two CONTINUATIONs.
    _, pre = client()
    block = hpack.Encoder().encode(req("GET", "/api/cont", [("x-long", "v" * 60),
                                                            ("user-agent", "seed")]))
    h = HeadersFrame(1, data=block[:20], flags=["END_STREAM"])
    c1 = ContinuationFrame(1, data=block[20:40])
    c2 = ContinuationFrame(1, data=block[40:], flags=["END_HEADERS"])
    out["continuation"] = seed(R_204, 0, [op(pre + h.serialize()), op(c1.serialize()),
                                          op(c2.serialize(), step_ms=20), op(step_ms=300)])

    # A small h2 window and a big body: WINDOW_UPDATEs; a TCP window of 0
    # for a while, then open.
    c, pre = client({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1000})
    c.send_headers(1, req("GET", "/"), end_stream=True)
    a = c.data_to_send()
    c.increment_flow_control_window(30000)
    c.increment_flow_control_window(30000, stream_id=1)
    b = c.data_to_send()
    out["windows"] = seed(R_BIG, 0, [op(pre + a, win=0), op(step_ms=300, win=0),
                                     op(step_ms=3000, win=100), op(SETTINGS_ACK + b, win=65535),
                                     op(step_ms=300, win=65535)])

    # Concurrent streams, each answer another (close-delimited, 304, 503,
    # bad); then the client's FIN.
    c, pre = client()
    for sid in (1, 3, 5, 7, 9):
        c.send_headers(sid, req("GET", "/api/%d" % sid), end_stream=True)
    out["concurrent"] = seed(R_CLOSE, 2, [op(pre + c.data_to_send()), op(step_ms=300),
                                          op(step_ms=300, what=2)])

    # One GET, then nothing for longer than the idle timeout.
    c, pre = client()
    c.send_headers(1, req("GET", "/"), end_stream=True)
    out["idle"] = seed(R_LENGTH, 0, [op(pre + c.data_to_send()), op(step_ms=300),
                                     op(step_ms=301000)])

    # The backend's leg closed under a pooled connection, then a new stream.
    c, pre = client()
    c.send_headers(1, req("GET", "/"), end_stream=True)
    a = c.data_to_send()
    c.send_headers(3, req("DELETE", "/api"), end_stream=True)
    out["backend_close"] = seed(R_LENGTH, 0, [op(pre + a), op(step_ms=20),
                                              op(what=3, aux=0), op(c.data_to_send(), step_ms=20),
                                              op(what=3, aux=1), op(step_ms=31000)])
    # Rapid reset (CVE-2023-44487): more streams opened and reset at once
    # than the harness's reset burst (fuzz_h2.c RESET_BURST, 10).
    c, pre = client()
    ops = [op(pre)]
    for sid in range(1, 2 * 14, 2):
        c.send_headers(sid, req("GET", "/api"), end_stream=True)
        c.reset_stream(sid)
        ops.append(op(c.data_to_send()))
    out["rapid_reset"] = seed(R_LENGTH, 0, ops + [op(step_ms=300)])

    # A PING flood past the flood burst (FLOOD_BURST, 50).
    c, pre = client()
    for i in range(60):
        c.ping(b"%08d" % i)
    out["ping_flood"] = seed(R_LENGTH, 0, [op(pre), op(c.data_to_send()[:2000]),
                                           op(step_ms=20)])
    return out


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                            "corpus", "fuzz_h2")
    os.makedirs(d, exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
