#!/usr/bin/env python3
"""The guided tours' figures as Markdown tables.

    scripts/tour_table.py allpairs|barneshut LOG   the live speed-up of each step, from a scripted tour's log
    scripts/tour_table.py --write                  the tables in docs/window.md, from the tours and the
                                                   measured-figures data, and the predict-then-measure
                                                   tables from the kept sessions (PREDICTIONS)
    scripts/tour_table.py --check                  compare them with docs/window.md, write nothing (ctest)

Live: the log is what `nbodylab --offscreen --script tour-allpairs-live.json` prints (scripts/gpu-suite.sh,
part teach): at its end one line per A/B the lab ran, in order, "A/B, B = <changes>: N frame(s)
compared; force computation A a ms, B b ms (medians) ...". A step's A/B compares the step (A) with the
step it builds on (B); the lines whose B is "a copy of A" are the moments between steps, when the
previous step's build is still running as both, and are left out. The first step, and the step after
the single-thread rung, have no A/B (the tour times that rung on a sample itself).

Written: for each step of each tour, what a GPU measured in exactly that step's configuration against
the step before it, as the tour window shows it (assets/measured/figures.json; an all-pairs step's
figures are its ladder rung's, a Barnes-Hut step's those of its `bench --compare` run, which
scripts/measured_figures.py --tour-commands lists), or that it has not been measured in it yet.
Python 3 standard library only.
"""
import csv
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"A/B, B = (.*?): (\d+) frame\(s\) compared; force computation A ([\d.]+) ms, B ([\d.]+) ms")
DOC = "docs/window.md"
BEGIN = ("<!-- tour-figures:begin (written by scripts/tour_table.py from the tours and the measured figures, which "
         "scripts/measured_figures.py writes them with; do not edit by hand) -->")
END = "<!-- tour-figures:end -->"
NOT_YET = "not measured in this configuration yet"
# The predict-then-measure sessions the docs show: each tour's live script run offscreen on a GPU
# (scripts/gpu-suite.sh, part teach), its exported table kept beside its log.
PREDICTIONS = ["benchmarks/h100/2026-11-28/tours/tour-allpairs-predictions.csv",
               "benchmarks/h100/2026-11-28/tours/tour-barneshut-predictions.csv"]
PREDICTIONS_BEGIN = ("<!-- tour-predictions:begin (written by scripts/tour_table.py from the kept sessions it names; "
                     "do not edit by hand) -->")
PREDICTIONS_END = "<!-- tour-predictions:end -->"


def live_table(kind, log):
    tour = json.loads((ROOT / "assets" / "tour" / f"{kind}.json").read_text())
    steps = tour["steps"]
    compared = [m for m in LINE.finditer(Path(log).read_text()) if m.group(1) != "a copy of A"]
    without = 2 if kind == "allpairs" else 1  # steps with no A/B of their own
    if len(compared) != len(steps) - without:
        raise ValueError(f"{log}: {len(compared)} A/B results for {len(steps) - without} steps with an A/B")
    lines = ["| step | title | A (this step) ms | B (previous step) ms | live speed-up | frames |",
             "| --- | --- | --- | --- | --- | --- |"]
    for i, step in enumerate(steps):
        if i < without:
            lines.append(f"| {i + 1} | {step['title']} | - | - | no A/B (first step, or the single-thread rung) | 0 |")
            continue
        m = compared[i - without]
        a, b = float(m.group(3)), float(m.group(4))
        lines.append(f"| {i + 1} | {step['title']} | {a:.3f} | {b:.3f} | {b / a:.2f}x | {m.group(2)} |")
    return "\n".join(lines)


def measured(figure):
    log = figure["log"]
    if log.endswith(".log") and (ROOT / (log[:-len(".log")] + ".json")).exists():
        log = log[:-len(".log")] + ".{log,json}"  # bench --compare's tables are in the JSON beside the log
    return (f"{figure['value']} ({figure['gpu']}, {figure['config']['bodies']:,} bodies, {figure['config']['scene']}, "
            f"commit {figure['commit']}; `{log}`)")


def committed_figures():
    return json.loads((ROOT / "assets" / "measured" / "figures.json").read_text())["figures"]


def written_tables(figures):
    out = []
    allpairs = json.loads((ROOT / "assets" / "tour" / "allpairs.json").read_text())
    out += ["All-pairs (each step's ladder rung against the rung it builds on):", "",
            "| step | title | measured in this configuration |", "| --- | --- | --- |"]
    for i, step in enumerate(allpairs["steps"]):
        if i == 0:
            out.append(f"| {i + 1} | {step['title']} | the starting point (timed on a sample by the tour) |")
            continue
        rung = re.compile(rf"\(ladder rung {i}\)$")
        found = [measured(f) for f in figures if rung.search(f["what"]) and "baseline" in f]
        out.append(f"| {i + 1} | {step['title']} | {'<br>'.join(found) or NOT_YET} |")
    barneshut = json.loads((ROOT / "assets" / "tour" / "barneshut.json").read_text())
    out += ["", "Barnes-Hut (each step against the step before it, `bench --compare` on the same bodies):", "",
            "| step | title | measured in this configuration |", "| --- | --- | --- |"]
    for i, step in enumerate(barneshut["steps"]):
        if i == 0:
            out.append(f"| {i + 1} | {step['title']} | the starting point |")
            continue
        log = f"tour-barneshut-step-{i + 1:02d}.log"
        found = [measured(f) for f in figures if f["log"].endswith("/" + log)]
        out.append(f"| {i + 1} | {step['title']} | {'<br>'.join(found) or NOT_YET} |")
    return "\n".join(out)


def prediction_tables():
    """The kept predict-then-measure sessions as Markdown: per step the prediction, the live speed-up with its
    interval, the tutorial's figure and the force loop's instructions per interaction."""
    out = []
    for rel in PREDICTIONS:
        rows = list(csv.DictReader((ROOT / rel).open(encoding="utf-8")))
        log = rel.replace("-predictions.csv", ".log")
        first = (ROOT / log).read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
        out += [f"`{rel}` ({first}; its log `{log}`):", "",
                "| step | title | predicted | live (95% interval) | the tutorial | instructions per interaction |",
                "| --- | --- | --- | --- | --- | --- |"]
        for r in rows:
            if r["live_speedup"] and r["live_low"] and r["live_low"] != r["live_high"]:
                live = f"{float(r['live_speedup']):.2f}x ({float(r['live_low']):.2f} to {float(r['live_high']):.2f})"
            elif r["live_speedup"]:
                live = f"{float(r['live_speedup']):.2f}x ({r['live_note']})"
            else:
                live = r["live_note"] or "-"
            tutorial = r["tutorial"].split(" (Burtscher")[0] if r["tutorial"] else "-"
            code = (f"{r['code']}, {r['count']}: {r['per_interaction_before']} -> {r['per_interaction_after']}"
                    if r["per_interaction_after"] else "the force loop's code does not change")
            predicted = f"{float(r['predicted_speedup']):.2f}x" if r["predicted_speedup"] else r["prediction_source"]
            out.append(f"| {r['step']} | {r['title']} | {predicted} | {live} | {tutorial} | {code} |")
        out.append("")
    return "\n".join(out).rstrip("\n")


def with_predictions(text):
    begin, end = text.find("<!-- tour-predictions:begin"), text.find(PREDICTIONS_END)
    if begin < 0 or end < begin:
        raise ValueError(f"{DOC}: no tables between the markers\n  {PREDICTIONS_BEGIN}\n  {PREDICTIONS_END}")
    return text[:begin] + PREDICTIONS_BEGIN + "\n\n" + prediction_tables() + "\n\n" + text[end:]


def with_tables(text, figures):
    begin, end = text.find("<!-- tour-figures:begin"), text.find(END)
    if begin < 0 or end < begin:
        raise ValueError(f"{DOC}: no tables between the markers\n  {BEGIN}\n  {END}")
    return text[:begin] + BEGIN + "\n\n" + written_tables(figures) + "\n\n" + text[end:]


def main() -> int:
    args = sys.argv[1:]
    try:
        if args in (["--write"], ["--check"]):
            path = ROOT / DOC
            text = path.read_text(encoding="utf-8")
            new = with_predictions(with_tables(text, committed_figures()))
            if args == ["--check"]:
                if new != text:
                    print(f"{DOC}: the tour tables differ from the tours, assets/measured/figures.json or the kept "
                          "predict-then-measure sessions: run scripts/tour_table.py --write", file=sys.stderr)
                    return 1
                print(f"{DOC}: the tour tables match the tours and the measured figures")
                return 0
            path.write_text(new, encoding="utf-8")
            print(f"wrote the tour tables of {DOC}")
            return 0
        if len(args) == 2 and args[0] in ("allpairs", "barneshut"):
            print(live_table(args[0], args[1]))
            return 0
    except (OSError, ValueError, KeyError) as e:
        print(f"tour_table: {e}", file=sys.stderr)
        return 1
    print(__doc__.strip().splitlines()[2], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
