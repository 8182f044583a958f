#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The client of grpc_server.py's service t.Echo (python3-grpcio, raw bytes messages, no
stubs). Prints one JSON object a line per call, what it saw:

  grpc_client.py TARGET AUTHORITY MODE [--tls CAFILE]

TARGET host:port; AUTHORITY the :authority (and, with --tls, the SNI and the name the
certificate is checked against: grpc.ssl_target_name_override, the roots from CAFILE);
without --tls an insecure channel (h2c with prior knowledge), grpc.default_authority.
MODE: unary | server_stream | client_stream | bidi | not_found | meta | large_unary |
large_stream | all (every one of them, in that order, each on its own line).

Each line: {"mode": M, "code": "OK" or the status code's name, "details": ..., "replies":
[the replies as text], "ok": whether it is what grpc_server.py answers, ...}; meta adds
"initial" and "trailing" (the response's metadata as an object), large_unary "bytes" and
"intact", large_stream "count" and "intact". Exit status 0 when every call was ok, 1 if
not, 2 on a usage error. Each call has a 10 s deadline.
"""
import json
import queue
import sys
import threading

import grpc

TIMEOUT = 10
MAX_MSG = 4 * 1024 * 1024
SVC = "/t.Echo/"


def text(b):
    return b.decode("utf-8", "backslashreplace")


def status(e):
    """(code name, details) of an RpcError."""
    return e.code().name, e.details() or ""


def result(mode, code="OK", details="", replies=(), ok=None, **more):
    d = {"mode": mode, "code": code, "details": details,
         "replies": [text(r) if isinstance(r, bytes) else r for r in replies]}
    d.update(more)
    d["ok"] = bool(ok)
    return d


def unary(ch):
    req = b"hello grpc"
    try:
        r = ch.unary_unary(SVC + "Unary")(req, timeout=TIMEOUT)
        return result("unary", replies=[r], ok=r == req[::-1])
    except grpc.RpcError as e:
        return result("unary", *status(e))


def server_stream(ch):
    try:
        rs = list(ch.unary_stream(SVC + "ServerStream")(b"5", timeout=TIMEOUT))
        return result("server_stream", replies=rs, ok=rs == [b"msg-%d" % i for i in range(5)])
    except grpc.RpcError as e:
        return result("server_stream", *status(e))


def client_stream(ch):
    msgs = [b"a", b"bb", b"ccc", b"dddd"]
    try:
        r = ch.stream_unary(SVC + "ClientStream")(iter(msgs), timeout=TIMEOUT)
        return result("client_stream", replies=[r], ok=r == b"4:10")
    except grpc.RpcError as e:
        return result("client_stream", *status(e))


def bidi(ch):
    """Send one, read its reply, then send the next: the call only completes if each
    message crosses to the server and its reply back while the stream stays open (a proxy
    that waited for the end of the request would hold it until the deadline)."""
    msgs = [b"a", b"bb", b"ccc", b"dddd", b"eeeee"]
    q = queue.Queue()

    def requests():
        while True:
            m = q.get()
            if m is None:
                return
            yield m

    replies = []
    call = ch.stream_stream(SVC + "Bidi")(requests(), timeout=TIMEOUT)
    try:
        for m in msgs:
            q.put(m)
            replies.append(next(call))
        q.put(None)
        rest = list(call)
        return result("bidi", replies=replies + rest,
                      ok=replies == [m.upper() for m in msgs] and not rest)
    except StopIteration:
        q.put(None)
        return result("bidi", "EARLY_END", "the stream ended before a reply", replies)
    except grpc.RpcError as e:
        q.put(None)
        return result("bidi", *status(e), replies=replies)


def not_found(ch):
    try:
        r = ch.unary_unary(SVC + "NotFound")(b"x", timeout=TIMEOUT)
        return result("not_found", replies=[r])
    except grpc.RpcError as e:
        code, details = status(e)
        return result("not_found", code, details,
                      ok=code == "NOT_FOUND" and details == "no such thing")


def meta(ch):
    probe = "probe-%d" % threading.get_ident()
    try:
        r, call = ch.unary_unary(SVC + "Meta").with_call(
            b"", timeout=TIMEOUT, metadata=(("x-probe", probe),))
        initial = {k: v for k, v in call.initial_metadata()}
        trailing = {k: v for k, v in call.trailing_metadata()}
        return result("meta", replies=[r], initial=initial, trailing=trailing,
                      ok=r == probe.encode() and initial.get("x-head") == "yes"
                      and trailing.get("x-trail") == "yes")
    except grpc.RpcError as e:
        return result("meta", *status(e))


def large_unary(ch):
    """1 MiB each way: many DATA frames, past the initial 64 KiB flow-control windows."""
    req = bytes(i * 7 % 251 for i in range(1 << 20))
    try:
        r = ch.unary_unary(SVC + "Unary")(req, timeout=TIMEOUT)
        return result("large_unary", bytes=len(r), intact=r == req[::-1], ok=r == req[::-1])
    except grpc.RpcError as e:
        return result("large_unary", *status(e))


def large_stream(ch):
    """200 messages of 16 KiB and a bit (3.2 MB): the response's flow control for long."""
    n, pad = 200, 16384
    try:
        rs = list(ch.unary_stream(SVC + "ServerStream")(b"%d:%d" % (n, pad), timeout=TIMEOUT))
        intact = rs == [b"msg-%d" % i + b"x" * pad for i in range(n)]
        return result("large_stream", count=len(rs), bytes=sum(map(len, rs)), intact=intact,
                      ok=intact)
    except grpc.RpcError as e:
        return result("large_stream", *status(e))


MODES = {"unary": unary, "server_stream": server_stream, "client_stream": client_stream,
         "bidi": bidi, "not_found": not_found, "meta": meta, "large_unary": large_unary,
         "large_stream": large_stream}


def main():
    args = sys.argv[1:]
    ca = None
    if "--tls" in args:
        i = args.index("--tls")
        if i + 1 >= len(args):
            print(__doc__, file=sys.stderr)
            sys.exit(2)
        ca = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3 or (args[2] != "all" and args[2] not in MODES):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    target, authority, mode = args
    options = [("grpc.max_receive_message_length", MAX_MSG),
               ("grpc.max_send_message_length", MAX_MSG),
               ("grpc.default_authority", authority)]
    if ca:
        with open(ca, "rb") as f:
            creds = grpc.ssl_channel_credentials(root_certificates=f.read())
        ch = grpc.secure_channel(target, creds,
                                 options + [("grpc.ssl_target_name_override", authority)])
    else:
        ch = grpc.insecure_channel(target, options)
    all_ok = True
    with ch:
        for m in (MODES if mode == "all" else [mode]):
            d = MODES[m](ch)
            all_ok &= d["ok"]
            print(json.dumps(d, separators=(",", ":")), flush=True)
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
