#!/usr/bin/env python3
"""Appends one body at rest at (X, 0, 0), with the mass of the snapshot's first body, to a Tipsy
snapshot (as nbodylab --save writes it: big-endian, dark particles only), and writes a new snapshot.
It turns a saved sphere into the far-outlier case of `nbodylab bench geometry`, so the
tools that take --load (bench, bench groups, the lab) can look at that tree too.

    scripts/tipsy_add_body.py IN.tipsy X OUT.tipsy
"""
import struct
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, target = sys.argv[1], sys.argv[3]
    try:
        x = float(sys.argv[2])
    except ValueError:
        sys.exit(f"X must be a number (got {sys.argv[2]!r})")
    if x != x or x in (float("inf"), float("-inf")):
        sys.exit(f"X must be finite (got {sys.argv[2]!r}): nbodylab refuses NaN and inf at load")
    try:
        data = open(source, "rb").read()
    except OSError as e:
        sys.exit(f"{source}: {e.strerror}")
    if len(data) < 32:
        sys.exit(f"{source}: {len(data)} bytes, too short for a Tipsy header")
    time, n, ndim, ngas, ndark, nstar = struct.unpack(">diiiii", data[:28])
    if ngas or nstar or ndark != n:
        sys.exit(f"{source}: only dark-particle snapshots (as nbodylab writes them) are read")
    if len(data) < 32 + 36 * n:
        sys.exit(f"{source}: {len(data)} bytes, too short for {n} bodies")
    mass = struct.unpack(">f", data[32:36])[0]
    body = struct.pack(">9f", mass, x, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)  # mass, position, velocity, eps, phi
    with open(target, "wb") as f:
        f.write(struct.pack(">diiiiii", time, n + 1, ndim, 0, n + 1, 0, 0))
        f.write(data[32:32 + 36 * n])
        f.write(body)
    print(f"{source}: {n} bodies and one more at rest at x = {x:g} (mass {mass:g}) in {target}")


if __name__ == "__main__":
    main()
