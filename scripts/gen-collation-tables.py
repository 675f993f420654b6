#!/usr/bin/env python3
"""Generates the collation weight tables that crates/engine/src/row/collation
embeds (docs/FORMAT.md, "Collation tables").

    gen-collation-tables.py ALLKEYS_9_0_0 MARIADB_PORT OUTDIR

- uca0900.bin: primary weights of UCA 9.0.0 (allkeys-9.0.0.txt, e.g. from
  the `pyuca` package on PyPI, which ships the Unicode file unchanged), for
  utf8mb4_0900_ai_ci. Only entries that differ from UCA's implicit weights
  are kept; contractions (several code points to one key) included.
- uca0400.bin: the primary weights MariaDB's utf8mb4_unicode_ci (UCA 4.0.0)
  gives each BMP code point, read with WEIGHT_STRING from a MariaDB server
  at MARIADB_PORT (allkeys-4.0.0.txt is not packaged anywhere reachable; the
  oracle's weights are what quire must match anyway). Entries equal to the
  4.0.0 implicit weights are left out.
- latin1.bin: 256 code points (MySQL's latin1 = cp1252 with the five
  undefined bytes mapped to C1 controls) then 256 latin1_swedish_ci weights,
  both read from the same MariaDB.

Record format (little-endian): u32 code point, u8 count of further code
points (contraction), those u32s, u8 weight count, u16 weights.
"""
import struct
import subprocess
import sys


def implicit_0900(cp):
    if 0x17000 <= cp <= 0x18AFF:
        return [0xFB00, (cp - 0x17000) | 0x8000]
    if (0x4E00 <= cp <= 0x9FD5) or (0xFA0E <= cp <= 0xFA29):
        base = 0xFB40
    elif (0x3400 <= cp <= 0x4DB5) or (0x20000 <= cp <= 0x2A6D6) or (0x2A700 <= cp <= 0x2B734) \
            or (0x2B740 <= cp <= 0x2B81D) or (0x2B820 <= cp <= 0x2CEA1):
        base = 0xFB80
    else:
        base = 0xFBC0
    return [base + (cp >> 15), (cp & 0x7FFF) | 0x8000]


def implicit_0400(cp):
    if 0x3400 <= cp <= 0x4DB5:
        base = 0xFB80
    elif 0x4E00 <= cp <= 0x9FA5:
        base = 0xFB40
    else:
        base = 0xFBC0
    return [base + (cp >> 15), (cp & 0x7FFF) | 0x8000]


def record(cps, weights):
    out = struct.pack("<IB", cps[0], len(cps) - 1)
    for c in cps[1:]:
        out += struct.pack("<I", c)
    out += struct.pack("<B", len(weights))
    for w in weights:
        out += struct.pack("<H", w)
    return out


def uca0900(path):
    out = b""
    for line in open(path, encoding="utf-8"):
        line = line.split("#")[0].strip()
        if not line or line.startswith("@"):
            continue
        key, ces = line.split(";")
        cps = [int(x, 16) for x in key.split()]
        prim = []
        for ce in ces.strip().strip("[]").split("]["):
            p = int(ce[1:].split(".")[0], 16)
            if p:
                prim.append(p)
        if len(cps) == 1 and prim == implicit_0900(cps[0]):
            continue
        out += record(cps, prim)
    return out


def mariadb(port, sql):
    r = subprocess.run(["mariadb", "-h127.0.0.1", "-P" + str(port), "-uroot", "-N", "-B", "-Dtest",
                        "--default-character-set=utf8mb4", "-e", sql],
                       check=True, capture_output=True, text=True)
    return [l.split("\t") for l in r.stdout.splitlines()]


def uca0400(port):
    rows = mariadb(port, "SELECT seq, HEX(WEIGHT_STRING(CONVERT(CHAR(seq USING utf32) USING utf8mb4) "
                         "COLLATE utf8mb4_unicode_ci)) FROM seq_0_to_65535 "
                         "WHERE seq NOT BETWEEN 55296 AND 57343")
    out = b""
    for cp, hexw in rows:
        cp = int(cp)
        w = [int(hexw[i:i + 4], 16) for i in range(0, len(hexw), 4)]
        if w != implicit_0400(cp):
            out += record([cp], w)
    return out


def latin1(port):
    rows = mariadb(port, "SELECT HEX(CONVERT(CHAR(seq USING latin1) USING utf32)), "
                         "HEX(WEIGHT_STRING(CHAR(seq USING latin1) COLLATE latin1_swedish_ci)) "
                         "FROM seq_0_to_255")
    assert len(rows) == 256
    cps = [int(r[0], 16) for r in rows]
    ws = [int(r[1], 16) for r in rows]
    return b"".join(struct.pack("<I", c) for c in cps) + bytes(ws)


def main():
    allkeys, port, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    for name, data in [("uca0900.bin", uca0900(allkeys)), ("uca0400.bin", uca0400(port)),
                       ("latin1.bin", latin1(port))]:
        with open(f"{outdir}/{name}", "wb") as f:
            f.write(data)
        print(name, len(data), "bytes")


if __name__ == "__main__":
    main()
