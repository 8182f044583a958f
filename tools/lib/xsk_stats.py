#!/usr/bin/env python3
"""xsk_stats PID: the kernel's own counters of every AF_XDP socket a process holds.

DPDK 22.11's net_af_xdp reports only rx_dropped (as imissed) of the kernel's
struct xdp_statistics; a frame refused because the socket's RX ring was full,
its fill ring empty, or a TX descriptor invalid is counted only here. The
sockets are borrowed with pidfd_getfd(2) (root, Linux 5.6+) and read with
getsockopt(SOL_XDP, XDP_STATISTICS) on the copy; the owner is not disturbed.
"""
import ctypes
import os
import struct
import sys

SOL_XDP = 283
XDP_STATISTICS = 7
SYS_PIDFD_GETFD = 438
FIELDS = ("rx_dropped", "rx_invalid_descs", "tx_invalid_descs", "rx_ring_full",
          "rx_fill_ring_empty_descs", "tx_ring_empty_descs")


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: xsk_stats.py PID")
    pid = int(sys.argv[1])
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    out = []
    for name in sorted(os.listdir(f"/proc/{pid}/fd"), key=int):
        try:
            if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                continue
        except OSError:
            continue
        fd = libc.syscall(SYS_PIDFD_GETFD, pidfd, int(name), 0)
        if fd < 0:
            continue
        buf = ctypes.create_string_buffer(8 * len(FIELDS))
        blen = ctypes.c_uint32(len(buf))
        ok = libc.getsockopt(fd, SOL_XDP, XDP_STATISTICS, buf, ctypes.byref(blen)) == 0
        os.close(fd)
        raw = buf.raw[:blen.value] if ok else None  # None: not an AF_XDP socket
        if raw is not None and len(raw) >= 8 * 4:
            vals = struct.unpack(f"{len(raw) // 8}Q", raw)
            out.append(f"fd {name}: " + " ".join(f"{k}={v}" for k, v in zip(FIELDS, vals)))
    print("; ".join(out) if out else "no AF_XDP sockets")


if __name__ == "__main__":
    main()
