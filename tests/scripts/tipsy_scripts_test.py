#!/usr/bin/env python3
"""Checks scripts/tipsy_add_body.py and scripts/tipsy_trim.py on a small snapshot written here in the
format nbodylab --save writes (big-endian Tipsy, dark particles only): the far-outlier snapshot holds
every body of the input, in order, and one more at rest where asked; the trimmed one keeps the bodies
within the percentile and drops the far one; a snapshot of another kind is refused with a reason."""
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def write(path, bodies, ngas=0):
    with open(path, "wb") as f:
        f.write(struct.pack(">diiiiii", 1.5, len(bodies), 3, ngas, len(bodies), 0, 0))
        for mass, x, y, z in bodies:
            f.write(struct.pack(">9f", mass, x, y, z, 0.1, 0.2, 0.3, 0.0, 0.0))


def read(path):
    data = open(path, "rb").read()
    time, n, _, _, ndark, _ = struct.unpack(">diiiii", data[:28])
    assert ndark == n, (ndark, n)
    assert len(data) == 32 + 36 * n, (len(data), n)
    return time, [struct.unpack(">9f", data[32 + 36 * i:68 + 36 * i]) for i in range(n)]


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "in.tipsy")
        bodies = [(0.25, float(i), -float(i), 0.5 * i) for i in range(100)]
        write(source, bodies)

        far = os.path.join(tmp, "far.tipsy")
        r = run(os.path.join(ROOT, "scripts", "tipsy_add_body.py"), source, "1e20", far)
        assert r.returncode == 0, r.stderr
        time, out = read(far)
        assert time == 1.5 and len(out) == 101, (time, len(out))
        assert all(out[i][:4] == bodies[i] for i in range(100)), "the input's bodies, in order"
        far_x = struct.unpack(">f", struct.pack(">f", 1e20))[0]  # as a float holds it
        assert out[100][:4] == (0.25, far_x, 0.0, 0.0) and out[100][4:7] == (0.0, 0.0, 0.0), out[100]

        trimmed = os.path.join(tmp, "trim.tipsy")
        r = run(os.path.join(ROOT, "scripts", "tipsy_trim.py"), far, "99", trimmed)
        assert r.returncode == 0, r.stderr
        _, kept = read(trimmed)
        assert len(kept) == 100 and all(b[1] < 1e19 for b in kept), len(kept)

        gas = os.path.join(tmp, "gas.tipsy")
        write(gas, bodies, ngas=1)
        r = run(os.path.join(ROOT, "scripts", "tipsy_add_body.py"), gas, "1e20", os.path.join(tmp, "x.tipsy"))
        assert r.returncode != 0 and "dark-particle" in r.stderr, (r.returncode, r.stderr)
        assert not os.path.exists(os.path.join(tmp, "x.tipsy")), "nothing written for a refused input"
        for x, why in (("abc", "must be a number"), ("nan", "must be finite")):
            r = run(os.path.join(ROOT, "scripts", "tipsy_add_body.py"), source, x, os.path.join(tmp, "y.tipsy"))
            assert r.returncode != 0 and why in r.stderr and "Traceback" not in r.stderr, (x, r.stderr)
        r = run(os.path.join(ROOT, "scripts", "tipsy_add_body.py"), os.path.join(tmp, "none.tipsy"), "1", far)
        assert r.returncode != 0 and "none.tipsy" in r.stderr and "Traceback" not in r.stderr, r.stderr
    print("tipsy scripts: ok")


if __name__ == "__main__":
    main()
