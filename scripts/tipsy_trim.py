#!/usr/bin/env python3
"""Keeps the bodies of a Tipsy snapshot (as nbodylab --save writes it: big-endian, dark particles only)
that lie within a percentile of the distance from the bodies' median position, and writes them to a new
snapshot. Used by scripts/gpu-suite.sh (part `long`) to tell the cost of ejected bodies apart from the
cost of the bulk's own evolution: the same end state is timed with and without its farthest bodies.

    scripts/tipsy_trim.py IN.tipsy PERCENTILE OUT.tipsy
"""
import array
import struct
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, percentile, target = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    if not 0 < percentile <= 100:
        sys.exit(f"percentile {percentile} outside (0, 100]")
    data = open(source, "rb").read()
    time, n, ndim, ngas, ndark, nstar = struct.unpack(">diiiii", data[:28])
    if ngas or nstar or ndark != n:
        sys.exit(f"{source}: only dark-particle snapshots (as nbodylab writes them) are read")
    fields = array.array("f", data[32:32 + 36 * n])
    if sys.byteorder == "little":
        fields.byteswap()
    x, y, z = fields[1::9], fields[2::9], fields[3::9]
    centre = [sorted(axis)[n // 2] for axis in (x, y, z)]  # medians: the ejecta do not move them
    radius2 = [(x[i] - centre[0]) ** 2 + (y[i] - centre[1]) ** 2 + (z[i] - centre[2]) ** 2 for i in range(n)]
    limit = sorted(radius2)[min(n - 1, int(n * percentile / 100))]
    keep = [i for i in range(n) if radius2[i] <= limit]
    out = array.array("f")
    for i in keep:
        out.extend(fields[9 * i:9 * i + 9])
    if sys.byteorder == "little":
        out.byteswap()
    with open(target, "wb") as f:
        f.write(struct.pack(">diiiiii", time, len(keep), ndim, 0, len(keep), 0, 0))
        f.write(out.tobytes())
    print(f"{source}: kept {len(keep)} of {n} bodies within {limit ** 0.5:.4g} of the median position "
          f"({percentile:g}th percentile); the farthest was {max(radius2) ** 0.5:.4g}")


if __name__ == "__main__":
    main()
