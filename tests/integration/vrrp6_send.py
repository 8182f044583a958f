#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Send one VRRPv3 packet over IPv6 to ff02::12 from this namespace (tests/integration/vrrp6.sh):
  vrrp6_send.py IFACE KIND   KIND: bad_hop_limit bad_source
bad_hop_limit: hop limit 1 from the interface's link-local address; bad_source: hop limit 255
from a global address (bound: the first global address on IFACE). The kernel fills in the
checksum over the IPv6 pseudo-header (IPV6_CHECKSUM at offset 6), so each is refused for
its KIND alone, with that counter; neither could take a VIP (VRID 99, a VIP nobody has)."""
import socket
import struct
import subprocess
import sys

IPV6_CHECKSUM = 7  # linux/in6.h


def main():
    ifname, kind = sys.argv[1], sys.argv[2]
    msg = struct.pack("!BBBBHH", 3 << 4 | 1, 99, 100, 1, 10, 0) + socket.inet_pton(
        socket.AF_INET6, "2001:2::99")
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, 112)
    s.setsockopt(socket.IPPROTO_IPV6, IPV6_CHECKSUM, 6)
    idx = socket.if_nametoindex(ifname)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, idx)
    if kind == "bad_hop_limit":
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 1)
    elif kind == "bad_source":
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
        out = subprocess.run(["ip", "-6", "-o", "addr", "show", "dev", ifname, "scope", "global"],
                             capture_output=True, text=True, check=True).stdout.split()
        s.bind((out[out.index("inet6") + 1].split("/")[0], 0))
    else:
        sys.exit("unknown kind " + kind)
    s.sendto(msg, ("ff02::12", 0, 0, idx))


if __name__ == "__main__":
    main()
