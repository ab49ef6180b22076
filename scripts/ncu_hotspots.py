#!/usr/bin/env python3
"""Where a kernel's time goes, from Nsight Compute's per-instruction page.

    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > source.csv
    scripts/ncu_hotspots.py source.csv [--top 40]

Prints the instructions with the most warp-stall samples (each with its share, executed count and the
columns that name a stall reason), and the share of the samples per opcode. The column names differ
between Nsight Compute versions, so they are matched by substring.
"""
import csv
import sys
from collections import Counter


def number(text):
    try:
        return float(str(text).replace(",", "").strip() or 0)
    except ValueError:
        return 0.0


def main():
    path = sys.argv[1]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 40
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip()]
    # ncu may print notes before the table: start at the first line that looks like its header.
    start = next((i for i, line in enumerate(lines) if "Source" in line and "," in line), 0)
    rows = list(csv.DictReader(lines[start:]))
    if not rows:
        print("no rows in", path)
        return 1
    columns = list(rows[0].keys())
    print("columns:", "; ".join(columns))

    def column(*words):
        for c in columns:
            if all(w.lower() in c.lower() for w in words):
                return c
        return None

    samples = column("Sampling", "All") or column("Sampling")
    executed = column("Instructions Executed") or column("Executed")
    source = column("Source")
    if not samples:
        print("no warp-stall sampling column")
        return 1
    total = sum(number(r[samples]) for r in rows) or 1.0
    print(f"total warp-stall samples: {total:.0f}")
    by_opcode = Counter()
    for r in rows:
        text = (r.get(source) or "").strip()
        opcode = text.split()[0] if text else "?"
        if opcode.startswith("@"):
            opcode = text.split()[1] if len(text.split()) > 1 else opcode
        by_opcode[opcode.split(".")[0]] += number(r[samples])
    print("\nsamples by opcode:")
    for op, s in by_opcode.most_common(25):
        print(f"  {op:<12} {100 * s / total:6.2f}%")
    print(f"\ntop {top} instructions by samples:")
    ranked = sorted(enumerate(rows), key=lambda ir: -number(ir[1][samples]))[:top]
    for index, r in ranked:
        s = number(r[samples])
        e = number(r[executed]) if executed else 0
        print(f"  #{index:<5} {100 * s / total:6.2f}%  exec {e:>12.0f}  {(r.get(source) or '').strip()[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
