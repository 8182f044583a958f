# SPDX-License-Identifier: BSD-3-Clause
"""Where a TLS worker's time goes: perf samples grouped by what the code does.

    python3 profile_groups.py PROFILE.perf [GROUP=CALIBRATION.perf ...]

PROFILE: `perf record` of routerd's worker (perf/tls). Samples are grouped by their own
symbol (no children). Debian strips libcrypto's internal functions (the assembly for P-256,
X25519, SHA-256, AES-GCM has no exported name) and no debug symbols are reachable here, so
an unnamed address is placed in its function by the library's unwind table (.eh_frame FDE
ranges, `readelf --debug-dump=frames`) and the function is given the group whose
calibration run (`perf record` of `openssl speed` on that one primitive) spent the largest
share of its samples there. Named symbols are grouped by name first.

When the profile has call chains (perf record --call-graph dwarf), a sample under a named
entry point of CALLER_RULES goes to that entry's group whatever its own function: the
key share's generation (EVP_PKEY_generate) runs X25519's base-point code, which the ECDH
calibration (`openssl speed ecdhx25519` derives, it generates once) never runs, so by its
own functions it would land in "other libcrypto".
"""
import bisect
import glob
import os
import re
import subprocess
import sys
from collections import defaultdict

LABELS = {
    "ecdsa": "ECDSA P-256 sign (P-256 field and scalar code)",
    "x25519": "X25519",
    "x25519_keygen": "X25519 key share generation (under EVP_PKEY_generate)",
    "sha": "SHA-256 / HMAC / HKDF",
    "aesgcm": "AES-128-GCM",
    "malloc": "OpenSSL malloc/free (CRYPTO_*, glibc)",
    "routerd": "routerd's own code (our TCP, proxy, TLS BIO)",
    "dpdk": "DPDK (af_packet PMD, mbufs)",
    "kernel": "kernel (af_packet TX/RX syscalls, veth, the peers' TCP)",
    "libssl": "libssl (TLS 1.3 state machine, unnamed and named)",
    "locks": "OpenSSL's locks and name lookups (pthread_rwlock, strcmp, hash tables)",
    "crypto_other": "other libcrypto (EVP fetch, providers, ASN.1, BN glue)",
    "libc": "libc other (memcpy, memset, ...)",
    "other": "other",
}
ORDER = ["ecdsa", "x25519", "x25519_keygen", "sha", "aesgcm", "malloc", "locks", "libssl", "crypto_other", "routerd",
         "dpdk", "kernel", "libc", "other"]
NAME_RULES = [
    ("malloc", re.compile(r"^(CRYPTO_(malloc|zalloc|free|realloc|clear_free|clear_realloc|strdup|"
                          r"strndup|memdup)|malloc|free|cfree|calloc|realloc|_int_malloc|_int_free|"
                          r"_int_realloc|malloc_consolidate|unlink_chunk.*|tcache_.*|__libc_(malloc|"
                          r"free|calloc|realloc))$")),
    # The workers are single-threaded, so these are OpenSSL's: its CRYPTO_THREAD_* locks
    # and the by-name lookups of OpenSSL 3's algorithm fetches (the name map, method store).
    ("locks", re.compile(r"^(pthread_rwlock_.*|pthread_mutex_.*|CRYPTO_THREAD_.*|__strcmp.*|"
                         r"__strcasecmp.*|strcmp|strcasecmp|OPENSSL_LH_.*|OPENSSL_strcasecmp|"
                         r"ossl_lh_strcasehash)$")),
    ("x25519", re.compile(r"(?i)x25519|ecx_")),
    ("ecdsa", re.compile(r"(?i)ecdsa|nistz256|ec_gfp|^bn_|^BN_|^ecp_|^EC_|ossl_ec_")),
    ("sha", re.compile(r"(?i)sha256|sha512|hmac|hkdf|^EVP_Digest")),
    ("aesgcm", re.compile(r"(?i)aesni|gcm|^aes_")),
]


CALLER_RULES = [("x25519_keygen", "EVP_PKEY_generate")]


def stacks(path):
    """(dso, symbol or 0xADDR, [every frame's symbol]) per sample, from perf script."""
    out = subprocess.run(["perf", "script", "-i", path, "-F", "ip,sym,dso"],
                         capture_output=True, text=True).stdout
    for block in out.split("\n\n"):
        frames = []
        for line in block.strip().splitlines():
            m = re.match(r"\s*([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$", line)
            if m:
                dso = os.path.basename(m.group(3))
                sym = m.group(2).split("+0x")[0]
                frames.append((dso, f"0x{m.group(1)}" if sym == "[unknown]" else sym))
        # The leaf is the first real function: an inlined frame ("(inlined)") is part of
        # the function below it, as the flat report counts it.
        real = [f for f in frames if f[0] != "inlined"]
        if real:
            yield real[0][0], real[0][1], [f[1] for f in frames]


def samples(path):
    """(count, dso, symbol) for every line of perf report's flat, self-only profile."""
    out = subprocess.run(["perf", "report", "-i", path, "--no-children", "--sort", "dso,sym",
                          "--stdio", "-g", "none", "-F", "sample,dso,sym", "--percent-limit", "0"],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+(\S+)\s+\[(.)\]\s+(.+?)\s*$", line)
        if m:
            yield int(m.group(1)), m.group(2), m.group(4)


_fde = {}


def fde_start(dso, addr):
    """Start of the function (unwind-table range) holding addr in dso, or None."""
    if dso not in _fde:
        ranges = []
        paths = glob.glob(f"/usr/lib/*/{dso}") + glob.glob(f"/lib/*/{dso}")
        if paths:
            txt = subprocess.run(["readelf", "--debug-dump=frames", paths[0]],
                                 capture_output=True, text=True).stdout
            for m in re.finditer(r"FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", txt):
                ranges.append((int(m.group(1), 16), int(m.group(2), 16)))
        ranges.sort()
        _fde[dso] = ([r[0] for r in ranges], ranges)
    starts, ranges = _fde[dso]
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and ranges[i][0] <= addr < ranges[i][1]:
        return ranges[i][0]
    return None


_dyn = {}


def near(dso, start):
    """The exported symbol just before an unnamed function: static functions sit beside the
    exported ones of their source file, so it says roughly which file the function is in."""
    if dso not in _dyn:
        syms = []
        paths = glob.glob(f"/usr/lib/*/{dso}") + glob.glob(f"/lib/*/{dso}")
        if paths:
            txt = subprocess.run(["nm", "-D", "--defined-only", paths[0]],
                                 capture_output=True, text=True).stdout
            for m in re.finditer(r"^([0-9a-f]+) [TtWi] (\S+)$", txt, re.M):
                syms.append((int(m.group(1), 16), m.group(2).split("@")[0]))
        syms.sort()
        _dyn[dso] = ([a for a, _ in syms], syms)
    addrs, syms = _dyn[dso]
    i = bisect.bisect_right(addrs, start) - 1
    return f" (next exported symbol below it: {syms[i][1]})" if i >= 0 else ""


def key(dso, sym):
    """A function's identity: its name, or (for an unnamed address) its FDE range."""
    if sym.startswith("0x"):
        start = fde_start(dso, int(sym, 16))
        return (dso, f"fn@{start:#x}" if start is not None else sym)
    return (dso, sym)


def group_of(dso, sym, fkey, calib):
    name = sym.split("@")[0]  # cfree@GLIBC_2.2.5 -> cfree
    for g, rx in NAME_RULES:
        if not sym.startswith("0x") and rx.search(name):
            return g, "name"
    best, share = None, 0.0
    # Only unnamed code by calibration: named glue (EVP_*, locks) runs in every primitive's
    # calibration and would be credited to whichever used it most.
    for g, (counts, total) in (calib.items() if fkey[1].startswith(("fn@", "0x")) else ()):
        s = counts.get(fkey, 0) / total if total else 0
        if s > share:
            best, share = g, s
    if best and share >= 0.002:
        return best, f"calibration: {share:.0%} of the {best} run"
    if dso == "routerd":
        return "routerd", "dso"
    if dso.startswith("librte_"):
        return "dpdk", "dso"
    if dso.startswith("[kernel"):
        return "kernel", "dso"
    if dso.startswith("libssl"):
        return "libssl", "dso"
    if dso.startswith("libcrypto"):
        return "crypto_other", "dso"
    if dso.startswith("libc.so") or dso.startswith("libc-"):
        return "libc", "dso"
    return "other", "dso"


def main():
    calib = {}
    for arg in sys.argv[2:]:
        g, path = arg.split("=", 1)
        counts, total = defaultdict(int), 0
        if os.path.exists(path):
            for n, dso, sym in samples(path):
                if dso.startswith(("libcrypto", "libssl")):
                    counts[key(dso, sym)] += n
                total += n
        calib[g] = (counts, total)
    groups, funcs, total = defaultdict(int), defaultdict(int), 0
    how = {}
    chained = [(1, dso, sym, syms) for dso, sym, syms in stacks(sys.argv[1])]
    if not any(len(x[3]) > 1 for x in chained):
        chained = [(n, dso, sym, []) for n, dso, sym in samples(sys.argv[1])]
    for n, dso, sym, syms in chained:
        fk = key(dso, sym)
        g, why = group_of(dso, sym, fk, calib)
        for cg, entry in CALLER_RULES:
            if entry in syms:
                g, why = cg, f"under {entry}"
                break
        groups[g] += n
        funcs[(fk, g)] += n
        how[(fk, g)] = why
        total += n
    if total == 0:
        print("\nProfile: no samples")
        return
    print(f"\nWhere routerd's worker's time goes in a full-handshake run ({total:,} samples, self time):\n")
    print("| group | share of samples |")
    print("|---|---|")
    for g in ORDER:
        if groups.get(g):
            print(f"| {LABELS[g]} | {groups[g] / total:.1%} |")
    print("\nTop functions:\n")
    print("| share | library | function | group (how) |")
    print("|---|---|---|---|")
    for (fk, g), n in sorted(funcs.items(), key=lambda kv: -kv[1])[:20]:
        name = fk[1]
        if name.startswith("fn@"):
            name += near(fk[0], int(name[3:], 16))
        print(f"| {n / total:.1%} | {fk[0]} | {name} | {g} ({how[(fk, g)]}) |")


if __name__ == "__main__":
    main()
