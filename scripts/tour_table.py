#!/usr/bin/env python3
"""The live speed-up of each guided-tour step, as a Markdown table, from the log of a scripted tour.

    scripts/tour_table.py allpairs benchmarks/<gpu>/<date>/tour-allpairs.log

The log is what `nbodylab --offscreen --script tour-allpairs-live.json` prints (scripts/gpu-suite.sh,
part teach): at its end one line per A/B the lab ran, in order, "A/B, B = <changes>: N frame(s)
compared; force computation A a ms, B b ms (medians) ...". A step's A/B compares the step (A) with the
step it builds on (B); the lines whose B is "a copy of A" are the moments between steps, when the
previous step's build is still running as both, and are left out. The first step, and the step after
the single-thread rung, have no A/B (the tour times that rung on a sample itself). Python 3 standard
library only.
"""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"A/B, B = (.*?): (\d+) frame\(s\) compared; force computation A ([\d.]+) ms, B ([\d.]+) ms")


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("allpairs", "barneshut"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    tour = json.loads((ROOT / "assets" / "tour" / f"{sys.argv[1]}.json").read_text())
    steps = tour["steps"]
    compared = [m for m in LINE.finditer(Path(sys.argv[2]).read_text()) if m.group(1) != "a copy of A"]
    without = 2 if sys.argv[1] == "allpairs" else 1  # steps with no A/B of their own
    if len(compared) != len(steps) - without:
        print(f"{sys.argv[2]}: {len(compared)} A/B results for {len(steps) - without} steps with an A/B", file=sys.stderr)
        return 1
    print("| step | title | A (this step) ms | B (previous step) ms | live speed-up | frames |")
    print("| --- | --- | --- | --- | --- | --- |")
    for i, step in enumerate(steps):
        if i < without:
            print(f"| {i + 1} | {step['title']} | - | - | no A/B (first step, or the single-thread rung) | 0 |")
            continue
        m = compared[i - without]
        a, b = float(m.group(3)), float(m.group(4))
        print(f"| {i + 1} | {step['title']} | {a:.3f} | {b:.3f} | {b / a:.2f}x | {m.group(2)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
