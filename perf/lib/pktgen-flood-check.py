#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check what perf/pktgen's SYN flood puts on the wire, from a pcap pktgen wrote itself
(its port a net_pcap vdev, tx_pcap=FILE; perf/pktgen runs it before P2):

  pktgen-flood-check.py PCAP --family 4|6 --dst ADDR [--min-frames N]

Every frame must be Ethernet + IPv4 or IPv6 (the family's, no extension headers) + TCP,
SYN alone, to ADDR port 80, with a valid IPv4 header checksum (IPv4) and a valid TCP
checksum over the family's pseudo-header: routerd drops a bad one before TCP
(tcp_bad_checksum), so the flood would measure drops. And the flood must vary its
source as the header of perf/pktgen says: no (source address, source port) pair twice
among the frames, and more than one source address. Prints one line; exit 1 on the
first frame that fails, or when the sources do not vary.
"""
import argparse
import ipaddress
import struct
import sys


def frames(path):
    with open(path, "rb") as f:
        d = f.read()
    if len(d) < 24 or struct.unpack("<I", d[:4])[0] not in (0xA1B2C3D4, 0xA1B23C4D):
        sys.exit(f"{path}: not a little-endian pcap")
    off = 24
    while off + 16 <= len(d):
        caplen = struct.unpack("<I", d[off + 8:off + 12])[0]
        off += 16
        yield d[off:off + caplen]
        off += caplen


def fold(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pcap")
    ap.add_argument("--family", required=True, choices=["4", "6"])
    ap.add_argument("--dst", required=True)
    ap.add_argument("--min-frames", type=int, default=100)
    a = ap.parse_args()
    dst = ipaddress.ip_address(a.dst).packed
    seen, srcs, n = set(), set(), 0

    def bad(i, why):
        print(f"flood check IPv{a.family}: frame {i}: {why}")
        sys.exit(1)

    for i, f in enumerate(frames(a.pcap)):
        n += 1
        et = struct.unpack("!H", f[12:14])[0]
        if a.family == "6":
            if et != 0x86DD or len(f) < 74 or f[20] != 6:
                bad(i, "not Ethernet + IPv6 + TCP (no extension header)")
            plen = struct.unpack("!H", f[18:20])[0]
            src, dip, tcp = f[22:38], f[38:54], f[54:54 + plen]
            pseudo = src + dip + struct.pack("!IxxxB", plen, 6)
        else:
            ihl = (f[14] & 0xF) * 4
            if et != 0x0800 or f[14] >> 4 != 4 or f[23] != 6:
                bad(i, "not Ethernet + IPv4 + TCP")
            if fold(f[14:14 + ihl]) != 0xFFFF:
                bad(i, "IPv4 header checksum wrong")
            tl = struct.unpack("!H", f[16:18])[0]
            src, dip, tcp = f[26:30], f[30:34], f[14 + ihl:14 + tl]
            pseudo = src + dip + struct.pack("!xBH", 6, len(tcp))
        if len(tcp) < 20 or dip != dst or struct.unpack("!H", tcp[2:4])[0] != 80:
            bad(i, f"not TCP to {a.dst} port 80")
        if tcp[13] & 0x3F != 0x02:
            bad(i, f"TCP flags {tcp[13]:#04x}, not SYN alone")
        if fold(pseudo + tcp) != 0xFFFF:
            bad(i, "TCP checksum wrong over the pseudo-header")
        key = (src, tcp[0:2])
        if key in seen:
            bad(i, "a (source address, source port) pair seen before")
        seen.add(key)
        srcs.add(src)
    if n < a.min_frames or len(srcs) < 2:
        print(f"flood check IPv{a.family}: {n} frames, {len(srcs)} source addresses: too few")
        sys.exit(1)
    lo, hi = min(srcs), max(srcs)
    to = f"[{a.dst}]:80" if a.family == "6" else f"{a.dst}:80"
    print(f"flood check IPv{a.family}: {n} frames, all TCP SYN to {to} with valid checksums;"
          f" {len(srcs)} source addresses ({ipaddress.ip_address(lo)} .. {ipaddress.ip_address(hi)}),"
          f" no (address, port) pair twice")


if __name__ == "__main__":
    main()
