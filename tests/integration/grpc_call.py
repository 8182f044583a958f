#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""One gRPC unary call through routerd over h2c (python3-grpcio, Debian's interpreter), with
a raw bytes message so no stubs are needed; prints the status the client saw as JSON.

  grpc_call.py HOST:PORT AUTHORITY /package.Service/Method
"""
import json
import sys

import grpc

target, authority, method = sys.argv[1:4]
with grpc.insecure_channel(target, options=[("grpc.default_authority", authority)]) as ch:
    call = ch.unary_unary(method, request_serializer=None, response_deserializer=None)
    try:
        reply = call(b"\x00", timeout=5)
        print(json.dumps({"code": "OK", "details": "", "reply": len(reply)}))
    except grpc.RpcError as e:
        print(json.dumps({"code": e.code().name, "details": e.details()}))
