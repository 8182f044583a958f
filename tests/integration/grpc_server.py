#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A gRPC server for the lab (python3-grpcio, Debian's interpreter), without protoc: a generic
handler whose messages are raw bytes (no (de)serializers). Insecure by default, so h2c with
prior knowledge: what routerd speaks to a Service port annotated upstream-protocol.h2c. With
--tls, TLS with the certificate chain CERT and its key KEY (grpcio's TLS server selects h2 by
ALPN): what routerd reaches for upstream-protocol.h2 and for re-encrypt Routes.

  grpc_server.py ADDR PORT [--tls CERT KEY]

Service t.Echo:
  Unary         the request's bytes reversed
  ServerStream  the request is an ASCII integer N: N messages b"msg-<i>", i = 0..N-1
                ("N:PAD": each message followed by PAD bytes b"x", for flow control)
  ClientStream  reads every message, answers b"<count>:<total bytes>"
  Bidi          each message upper-cased, sent back as it arrives
  NotFound      aborts with NOT_FOUND, details "no such thing"
  Meta          answers the request metadata x-probe's value; initial metadata x-head: yes,
                trailing metadata x-trail: yes

Prints "ready" (flushed) once serving; exits 0 on SIGTERM or SIGINT.
"""
import signal
import sys
import threading
from concurrent import futures

import grpc


def unary(request, context):
    return request[::-1]


def server_stream(request, context):
    n, _, pad = request.decode("ascii").partition(":")
    fill = b"x" * int(pad or 0)
    for i in range(int(n)):
        yield b"msg-%d" % i + fill


def client_stream(request_iterator, context):
    count = total = 0
    for m in request_iterator:
        count += 1
        total += len(m)
    return b"%d:%d" % (count, total)


def bidi(request_iterator, context):
    for m in request_iterator:
        yield m.upper()


def not_found(request, context):
    context.abort(grpc.StatusCode.NOT_FOUND, "no such thing")


def meta(request, context):
    probe = dict(context.invocation_metadata()).get("x-probe", "")
    context.send_initial_metadata((("x-head", "yes"),))
    context.set_trailing_metadata((("x-trail", "yes"),))
    return probe.encode()


HANDLERS = {
    "Unary": grpc.unary_unary_rpc_method_handler(unary),
    "ServerStream": grpc.unary_stream_rpc_method_handler(server_stream),
    "ClientStream": grpc.stream_unary_rpc_method_handler(client_stream),
    "Bidi": grpc.stream_stream_rpc_method_handler(bidi),
    "NotFound": grpc.unary_unary_rpc_method_handler(not_found),
    "Meta": grpc.unary_unary_rpc_method_handler(meta),
}

# 1 MiB requests and replies, with room for the framing.
MAX_MSG = 4 * 1024 * 1024


def main():
    if len(sys.argv) not in (3, 6) or (len(sys.argv) == 6 and sys.argv[3] != "--tls"):
        sys.exit("usage: grpc_server.py ADDR PORT [--tls CERT KEY]")
    addr, port = sys.argv[1], int(sys.argv[2])
    creds = None
    if len(sys.argv) == 6:
        with open(sys.argv[4], "rb") as f:
            chain = f.read()
        with open(sys.argv[5], "rb") as f:
            key = f.read()
        creds = grpc.ssl_server_credentials(((key, chain),))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16),
                         options=[("grpc.max_receive_message_length", MAX_MSG),
                                  ("grpc.max_send_message_length", MAX_MSG),
                                  ("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("t.Echo", HANDLERS),))
    host = "[%s]" % addr if ":" in addr else addr
    try:
        if creds is None:
            bound = server.add_insecure_port("%s:%d" % (host, port))
        else:
            bound = server.add_secure_port("%s:%d" % (host, port), creds)
    except RuntimeError as e:
        bound = e
    if bound != port:
        sys.exit("grpc_server.py: cannot listen on %s:%d (%s)" % (host, port, bound))
    server.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print("ready", flush=True)
    while not stop.wait(0.2):
        pass
    server.stop(0).wait()
    sys.exit(0)


if __name__ == "__main__":
    main()
