#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Record the VRRP adverts seen on an interface (tests/integration/vrrp.sh):
  vrrp_watch.py IFACE STOPFILE [MAX_SECONDS]
One line per advert, with the kernel's receive time: "SECONDS SRC VRID PRIORITY", until
STOPFILE exists or MAX_SECONDS (default 30) have passed.

The failover checks compare how a VIP changed hands at the protocol level: after a
SIGKILL the new master's first advert comes a Master_Down_Interval after the old
master's last one; after a SIGTERM the old master sends priority 0 and the new one
follows within its Skew_Time. A client's probe sees the same difference only through
its own timeouts and the ARP cache, which blur it (RFC 5798 6.4.2, 6.4.3)."""
import os
import select
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800
SO_TIMESTAMPNS = 35


def main():
    iface, stop = sys.argv[1], sys.argv[2]
    limit = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
    s.bind((iface, ETH_P_IP))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    end = time.monotonic() + limit
    while time.monotonic() < end and not os.path.exists(stop):
        if not select.select([s], [], [], 0.05)[0]:
            continue
        frame, anc, _, _ = s.recvmsg(2048, 64)
        ip = frame[14:]
        if len(ip) < 28 or ip[0] >> 4 != 4 or ip[9] != 112:
            continue
        v = ip[(ip[0] & 15) * 4:]
        if len(v) < 8 or v[0] >> 4 != 3:
            continue
        ts = time.time()
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
                sec, nsec = struct.unpack("qq", data[:16])
                ts = sec + nsec / 1e9
        print("%.6f %s %d %d" % (ts, socket.inet_ntoa(ip[12:16]), v[1], v[2]), flush=True)


if __name__ == "__main__":
    main()
