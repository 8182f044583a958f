#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Send one VRRP packet to 224.0.0.18 from this namespace (tests/integration/vrrp.sh):
  vrrp_send.py SRC KIND   KIND: bad_ttl bad_version bad_length bad_checksum unknown_vrid
                                address_mismatch
Each is a malformed or foreign advertisement a routerd must drop with that counter; none
could take a VIP (the only well-formed ones name VRID 99 or a VIP nobody has)."""
import socket
import struct
import sys


def cksum(src, msg):
    ph = socket.inet_aton(src) + socket.inet_aton("224.0.0.18") + struct.pack("!BBH", 0, 112, len(msg))
    d = ph + msg
    if len(d) % 2:
        d += b"\0"
    s = sum(struct.unpack("!%dH" % (len(d) // 2), d))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def advert(src, vrid, prio, addrs, version=3, count=None):
    body = b"".join(socket.inet_aton(a) for a in addrs)
    n = len(addrs) if count is None else count
    msg = struct.pack("!BBBBHH", version << 4 | 1, vrid, prio, n, 10, 0) + body
    return msg[:6] + struct.pack("!H", cksum(src, msg)) + msg[8:]


def main():
    src, kind = sys.argv[1], sys.argv[2]
    ttl = 255
    if kind == "bad_ttl":
        ttl, msg = 1, advert(src, 99, 100, ["198.18.0.99"])
    elif kind == "bad_version":
        msg = advert(src, 1, 100, ["198.18.0.99"], version=2)
    elif kind == "bad_length":
        msg = advert(src, 1, 100, ["198.18.0.99"], count=2)
    elif kind == "bad_checksum":
        m = bytearray(advert(src, 1, 100, ["198.18.0.99"]))
        m[7] ^= 0xFF
        msg = bytes(m)
    elif kind == "unknown_vrid":
        msg = advert(src, 99, 100, ["198.18.0.99"])
    elif kind == "address_mismatch":
        msg = advert(src, 1, 100, ["198.18.0.99"])
    else:
        sys.exit("unknown kind " + kind)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 112)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, ttl)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src))
    s.sendto(msg, ("224.0.0.18", 0))


if __name__ == "__main__":
    main()
