#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""h2_hold: HTTP/2 connections held open (python3-h2), for `routerctl conns` and for the
memory an idle connection and an open stream cost a proxy (perf/h2).

    /usr/bin/python3 h2_hold.py ADDR PORT AUTHORITY OUT SECONDS
        [--conns N] [--streams S] [--path PATH] [--tls] [--no-wait]

Opens N connections (default 1) to ADDR:PORT, h2c with prior knowledge (--tls: TLS, ALPN h2,
the certificate not verified), exchanges SETTINGS with the server (its SETTINGS received and
acknowledged), then sends S requests (default 1; 0: none, an idle connection) GET PATH
(default /) with :authority AUTHORITY on each. Without --no-wait it reads every response
to its end; with it, it waits only until every request is sent (streams a slow backend
keeps open). Then it writes OUT (renamed into place once whole: the caller polls for it):
one line per connection "LOCAL_PORT STATUS" (the first response's status, "-" when not
waited for), then "ready", and keeps every connection open for SECONDS or until killed,
sending nothing of its own: what the server sends meanwhile is read (its PINGs and SETTINGS
acknowledged, as any client does; DATA of late answers credited back to the window).
"""
import argparse
import os
import select
import signal
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events


def open_conn(args):
    s = socket.create_connection((args.addr, args.port), timeout=10)
    if args.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.set_alpn_protocols(["h2"])
        s = ctx.wrap_socket(s, server_hostname=args.authority.split(":")[0])
        if s.selected_alpn_protocol() != "h2":
            sys.exit(f"h2_hold: ALPN chose {s.selected_alpn_protocol()!r}, not h2")
    c = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    c.initiate_connection()
    s.sendall(c.data_to_send())
    return s, c


def pump(s, c, until, deadline):
    """Read and feed events until until(events) says done; returns the events."""
    seen = []
    while not until(seen):
        if time.monotonic() > deadline:
            sys.exit("h2_hold: timed out waiting for the server")
        data = s.recv(65536)
        if not data:
            sys.exit("h2_hold: the server closed the connection")
        for ev in c.receive_data(data):
            seen.append(ev)
            if isinstance(ev, h2.events.DataReceived):
                c.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            if isinstance(ev, (h2.events.ConnectionTerminated, h2.events.StreamReset)):
                sys.exit(f"h2_hold: {ev}")
        out = c.data_to_send()
        if out:
            s.sendall(out)
    return seen


def main():
    p = argparse.ArgumentParser()
    p.add_argument("addr")
    p.add_argument("port", type=int)
    p.add_argument("authority")
    p.add_argument("out")
    p.add_argument("seconds", type=float)
    p.add_argument("--conns", type=int, default=1)
    p.add_argument("--streams", type=int, default=1)
    p.add_argument("--path", default="/")
    p.add_argument("--tls", action="store_true")
    p.add_argument("--no-wait", action="store_true")
    args = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    scheme = "https" if args.tls else "http"
    conns, lines = [], []
    deadline = time.monotonic() + 60
    for _ in range(args.conns):
        s, c = open_conn(args)
        # The server's SETTINGS, received and acknowledged (h2 queues the ACK).
        pump(s, c, lambda ev: any(isinstance(e, h2.events.RemoteSettingsChanged) for e in ev),
             deadline)
        status = "-"
        ids = []
        for _ in range(args.streams):
            sid = c.get_next_available_stream_id()
            c.send_headers(sid, [(":method", "GET"), (":scheme", scheme),
                                 (":authority", args.authority), (":path", args.path)],
                           end_stream=True)
            ids.append(sid)
        s.sendall(c.data_to_send())
        if ids and not args.no_wait:
            def done(ev):
                return {e.stream_id for e in ev if isinstance(e, h2.events.StreamEnded)} >= set(ids)
            seen = pump(s, c, done, deadline)
            for e in seen:
                if isinstance(e, h2.events.ResponseReceived) and e.stream_id == ids[0]:
                    status = dict(e.headers).get(b":status", b"?").decode()
        s.setblocking(False)
        conns.append((s, c))
        lines.append(f"{s.getsockname()[1]} {status}")
    with open(args.out + ".tmp", "w") as o:
        o.write("\n".join(lines + ["ready"]) + "\n")
    os.rename(args.out + ".tmp", args.out)
    end = time.monotonic() + args.seconds
    socks = {s: c for s, c in conns}
    while socks and time.monotonic() < end:
        r, _, _ = select.select(list(socks), [], [], max(0.0, min(1.0, end - time.monotonic())))
        for s in r:
            try:
                data = s.recv(65536)
            except (BlockingIOError, ssl.SSLWantReadError):
                continue
            except OSError:
                data = b""
            if not data:
                del socks[s]
                continue
            c = socks[s]
            try:
                for ev in c.receive_data(data):
                    if isinstance(ev, h2.events.DataReceived):
                        c.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                out = c.data_to_send()
                if out:
                    s.setblocking(True)
                    s.sendall(out)
                    s.setblocking(False)
            except Exception:  # a late answer to a reset stream: not our business here
                pass


if __name__ == "__main__":
    main()
