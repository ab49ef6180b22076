#!/usr/bin/env python3
"""Checks the GPU suite's driver without a GPU (scripts/gpu-suite.sh, scripts/gpu_suite.py): `--list`
prints the table, every part and every headline row; `summary` on a fixture folder of kept results
(data/gpu-suite-run: what a run on an H200 wrote) prints each run's status and the headline figures,
each the value read here independently from the same JSON, and says what would produce a figure that
is not there; `compare` finds two runs alike, and flags a figure that differs by more than the
tolerance; an unknown part and an unknown command are refused."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "gpu-suite-run")
HEADLINES = [
    "all-pairs ladder best, n=65536: interactions/s",
    "all-pairs ladder best, n=1048576: interactions/s",
    "Barnes-Hut n=1048576, defaults: ms/step (target <= 3.0)",
    "Barnes-Hut n=1048576, defaults: force error p99 / max (target <= 2e-3 / 2e-2)",
    "Barnes-Hut n=10000000, defaults: ms/step (target <= 25)",
    "Barnes-Hut n=10000000, defaults: force error p99 / max (target <= 2e-3 / 2e-2)",
    "render n=1048576 collision 1920x1080, sprites: FPS",
    "render n=1048576 collision 1920x1080, splat: FPS",
]
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def suite(*args, env=None):
    environment = {k: v for k, v in os.environ.items() if k not in ("PARTS", "QUICK", "FULL", "OUT")}
    environment.update(env or {})
    return subprocess.run(["bash", os.path.join(ROOT, "scripts", "gpu-suite.sh"), *args], capture_output=True,
                          text=True, env=environment)


def rows(text):
    """The summary's rows after its separator: label -> value, by the known labels."""
    out = {}
    for line in text.splitlines():
        for label in HEADLINES:
            if line.startswith(label + " "):
                out[label] = line[len(label):].strip()
    return out


def table_value(path, title, key_column, key, column):
    with open(path) as f:
        for table in json.load(f):
            if title in table["title"]:
                for row in table["rows"]:
                    if str(row.get(key_column)) == key:
                        return row[column]
    raise KeyError((path, title, key))


def main():
    listed = suite("--list")
    check(listed.returncode == 0, f"--list exits 0 (got {listed.returncode}: {listed.stderr})")
    for part in ("tests", "allpairs", "barneshut", "render", "splat", "stall", "sanitizer", "compare", "kernelab"):
        check(f" {part} " in listed.stdout, f"--list names the part {part}")
    for label in HEADLINES:
        check(f"! {label}" in listed.stdout, f"--list marks the headline row {label!r}")
    check("bench-ladder-1m  [FULL=1]" in listed.stdout, "--list says the 1M ladder needs FULL=1")
    check("$BUNDLE/bin/nbodylab bench --algo barneshut --backend gpu --scene plummer -n 1048576 --steps 10 "
          "--warmup 2 --error-sample 2000 --json $OUT/bh-1m.json" in listed.stdout, "--list shows each command")

    summary = suite("summary", FIXTURE)
    check(summary.returncode == 0, f"summary exits 0 (got {summary.returncode}: {summary.stderr})")
    text = summary.stdout
    with open(os.path.join(FIXTURE, "runs.tsv")) as f:
        for line in f:
            name, status = line.rstrip("\n").split("\t")
            check(f"{name:<58} {status}" in text, f"the summary gives the status of {name}: {status}")
    got = rows(text)
    fixture = lambda name: os.path.join(FIXTURE, name)  # noqa: E731
    ladder = table_value(fixture("ladder-64k.json"), "ladder", "rung", "best", "interactions_per_s")
    expected = {
        HEADLINES[0]: f"{ladder:.4g}",
        HEADLINES[1]: "n/a (not run: part allpairs, FULL=1)",
        HEADLINES[2]: f"{table_value(fixture('bh-1m.json'), 'Per stage', 'stage', 'total', 'ms'):.4g}",
        HEADLINES[4]: f"{table_value(fixture('bh-10m.json'), 'Per stage', 'stage', 'total', 'ms'):.4g}",
    }
    for label, file in ((HEADLINES[3], "bh-1m.json"), (HEADLINES[5], "bh-10m.json")):
        p99 = table_value(fixture(file), "Summary", "quantity", "force error: 99th percentile", "value")
        worst = table_value(fixture(file), "Summary", "quantity", "force error: max", "value")
        expected[label] = f"{p99:.4g} / {worst:.4g}"
    for label, file in ((HEADLINES[6], "frame-1048576-sprites-overlapped.json"),
                        (HEADLINES[7], "frame-1048576-splat-overlapped.json")):
        with open(fixture(file)) as f:
            expected[label] = f"{json.load(f)['fps']:.4g}"
    for label, value in expected.items():
        check(got.get(label) == value, f"{label}: the summary says {got.get(label)!r}, the JSON {value!r}")
    check("stall, all-pairs n=65536, unroll 8<->32 every 1 s" in text and "p95 ratio 1.05x" in text,
          "the summary gives the stall figures of the kept stall JSON")

    same = suite("compare", FIXTURE, FIXTURE)
    check(same.returncode == 0 and "largest difference: 0.00%" in same.stdout,
          f"a run compared with itself agrees (exit {same.returncode}): {same.stdout[-300:]}")
    with tempfile.TemporaryDirectory() as tmp:
        slower = os.path.join(tmp, "slower")
        shutil.copytree(FIXTURE, slower)
        with open(os.path.join(slower, "bh-10m.json")) as f:
            tables = json.load(f)
        for table in tables:
            for row in table["rows"]:
                if "Per stage" in table["title"] and row.get("stage") == "total":
                    row["ms"] *= 1.05
        with open(os.path.join(slower, "bh-10m.json"), "w") as f:
            json.dump(tables, f)
        differs = suite("compare", FIXTURE, slower)
        flagged = [line for line in differs.stdout.splitlines() if "differs by more than 3%" in line]
        check(differs.returncode == 1, f"a 5% slower figure fails the comparison (exit {differs.returncode})")
        check(len(flagged) == 1 and flagged[0].startswith(HEADLINES[4]), f"only that figure is flagged: {flagged}")
        check(suite("compare", FIXTURE, slower, "--tolerance", "6").returncode == 0, "within a 6% tolerance it agrees")

    unknown = suite("--list", env={"PARTS": "barneshut nosuch"})
    check(unknown.returncode != 0 and "no part named nosuch" in unknown.stderr,
          f"an unknown part is refused by name: {unknown.returncode} {unknown.stderr}")
    bad = suite("bogus")
    check(bad.returncode == 2 and "usage" in bad.stderr, f"an unknown command is refused with the usage: {bad.stderr}")

    for failure in failures:
        print("FAIL:", failure)
    print(f"gpu suite driver: {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
