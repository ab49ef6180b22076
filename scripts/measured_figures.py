#!/usr/bin/env python3
"""Writes what each kernel toggle measured on a GPU, from the kept logs of GPU suite runs.

    scripts/measured_figures.py --run benchmarks/GPU/DATE/NAME[@COMMIT] [--run ...]   write both outputs
    scripts/measured_figures.py --check                                    compare, write nothing

Outputs, one source: assets/measured/figures.json (the panel's toggle tooltips read it at run time)
and the table between the measured-figures markers in BENCHMARKS.md. Every figure names the GPU, the
commit and the log it was computed from, so a figure never outlives the kernels it measured unnoticed.

A run is a folder benchmarks/<gpu>/<date>/<name>/ holding what scripts/gpu-suite.sh wrote (its $OUT): bench JSON
files (ladder-*.json, sweep-*.json, bhswitches.json), the printed logs (bench-*.log), info.log (the GPU)
and commit.txt (the commit the binaries were built at). For a run without commit.txt, name the commit
after an @. Each figure comes from the first run given that has its file. A table kept only as a
printed log (bench-bhswitches.log in the oldest run) is read from the log.

--check regenerates from the runs the committed figures.json lists and fails, showing the difference,
when the committed figures.json or BENCHMARKS.md section differ from it (ctest runs this).
Python 3 standard library only.
"""
import argparse
import difflib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURES_FILE = "assets/measured/figures.json"
BENCHMARKS_MD = "BENCHMARKS.md"
BEGIN = "<!-- measured-figures:begin (written by scripts/measured_figures.py from the logs it names; do not edit by hand) -->"
END = "<!-- measured-figures:end -->"

# All-pairs ladder rungs (`nbodylab bench ladder`): each rung's "x prev" (JSON: speedup) is its speedup
# over the rung it builds on, so each names one toggle's effect. (toggle, rung name as the ladder
# prints it, what the comparison is.)
LADDER = [
    ("parallelism", "N threads", "N threads vs 1 thread"),
    ("layout", "SoA", "SoA vs AoS, global loads"),
    ("params", "constant params", "constant memory vs kernel arguments"),
    ("rsqrt", "rsqrtf", "rsqrtf vs 1.0f / sqrtf"),
    ("self_interaction", "two loops (side trip)", "two loops vs if (i != j)"),
    ("tiling", "shared tiles", "shared-memory tiles vs global loads"),
    ("unroll", "unroll 8", "unroll 8 vs 1"),
    ("self_interaction", "no if (softening)", "no test (softening makes the self-term zero) vs if (i != j)"),
    ("fma_order", "FMA order", "FMA-friendly term order"),
    ("unroll", "unroll 128", "unroll 128 vs 8"),
    ("fast_math", "-ftz", "-ftz vs IEEE flags"),
    ("layout", "float4", "float4 vs SoA, shared tiles, 1 body/thread"),
    ("bodies_per_thread", "4 bodies/thread", "4 bodies/thread and unroll 32 vs 1 body/thread and unroll 128"),
    ("tiling", "warp shuffle (side trip)", "warp shuffle vs shared tiles, 4 bodies/thread"),
    ("block_size", "block 128 (side trip)", "128 vs 256 threads per block, 4 bodies/thread"),
    ("precision", "fp64 (side trip)", "fp64 vs fp32, 4 bodies/thread"),
]
LADDER_FILES = ["ladder-1m.json", "ladder-64k.json"]
SWEEP_FILES = ["sweep-1m.json", "sweep-64k.json"]

# Barnes-Hut switches (`nbodylab bench bhswitches`): (toggle, the switch's row as the bench names it).
BHSWITCHES = [
    ("bh_build", "Morton build vs insertion build (ours)"),
    ("bh_throttle", "throttling barrier (insertion build)"),
    ("bh_combined_fence", "combined memory fence (insertion build)"),
    ("bh_waitfree", "wait-free pre-pass (summarize)"),
    ("bh_sort", "sorting of bodies (warp walk)"),
    ("bh_sort", "sorting of bodies (group lists)"),
    ("bh_traversal", "warp-synchronous walk vs per-thread"),
    ("bh_traversal", "group interaction lists vs warp walk (ours)"),
    ("bh_rsqrt", "rsqrtf instruction"),
    ("bh_avoid_volatile", "avoid volatile"),
]
# The bhswitches table's columns: printed header -> JSON key (app/bench/modes.cpp).
BHSWITCHES_COLUMNS = {
    "switch": "switch", "tutorial 50k/500k/5M": "tutorial", "kernel": "kernel", "on ms": "kernel_on_ms",
    "off ms": "kernel_off_ms", "kernel x": "kernel_speedup", "step on ms": "step_on_ms",
    "step off ms": "step_off_ms", "step x": "step_speedup",
}

class Failure(Exception):
    pass


class Run:
    """One GPU suite run kept under benchmarks/: its folder, commit and GPU."""

    def __init__(self, spec):
        folder, _, commit = spec.partition("@")
        self.dir = os.path.relpath(os.path.join(ROOT, folder) if not os.path.isabs(folder) else folder, ROOT)
        if not os.path.isdir(os.path.join(ROOT, self.dir)):
            raise Failure(f"{folder}: no such folder")
        commit_file = os.path.join(ROOT, self.dir, "commit.txt")
        if not commit and os.path.exists(commit_file):
            commit = open(commit_file).read().strip()
        if not commit:
            raise Failure(f"{folder}: no commit.txt; name the commit the run's binaries were built at: {folder}@COMMIT")
        self.commit = commit
        self.gpu = self._gpu()

    def _gpu(self):
        info = os.path.join(ROOT, self.dir, "info.log")
        if os.path.exists(info):
            for line in open(info):
                if line.startswith("GPU: "):
                    return line[len("GPU: "):].strip()
        raise Failure(f"{self.dir}: info.log names no GPU ('GPU: ...' line)")

    def path(self, name):
        return os.path.join(self.dir, name)

    def has(self, name):
        return os.path.exists(os.path.join(ROOT, self.dir, name))

    def spec(self):
        return f"{self.dir}@{self.commit}"


def short_n(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10}k"
    return f"{n:,}"


def speedup(x):
    return f"{x:,.0f}x" if x >= 100 else f"{x:.2f}x"


def n_from_notes(notes):
    for note in notes:
        m = re.search(r"\bn = (\d+)", note)
        if m:
            return int(m.group(1))
    return None


def load_table(run, name):
    tables = json.load(open(os.path.join(ROOT, run.path(name))))
    if len(tables) != 1:
        raise Failure(f"{run.path(name)}: expected one table, found {len(tables)}")
    return tables[0]


def printed_table(run, name, columns):
    """A table as `nbodylab bench` prints it: a header row, a rule of dashes, rows, then notes. Cells are
    separated by two or more spaces; the header names map to JSON keys through `columns`."""
    lines = open(os.path.join(ROOT, run.path(name))).read().replace("\r", "\n").split("\n")
    for i, line in enumerate(lines):
        cells = re.split(r"\s{2,}", line.strip())
        if cells and cells[0] in columns and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
            keys = [columns[c] for c in cells]
            rows, notes = [], []
            for row in lines[i + 2:]:
                if not row.strip():
                    break
                values = re.split(r"\s{2,}", row.strip())
                if len(values) != len(keys):
                    notes.append(row.strip())
                    continue
                rows.append({k: float(v) if re.fullmatch(r"-?[0-9.]+(e[-+]?[0-9]+)?", v) else v for k, v in zip(keys, values)})
            return {"rows": rows, "notes": notes}
    raise Failure(f"{run.path(name)}: no printed table with the columns {', '.join(columns)}")


def first_run(runs, *names):
    """The first run holding one of `names` (tried in order within each run), and that name."""
    for run in runs:
        for name in names:
            if run.has(name):
                return run, name
    return None, None


def figure(run, log, toggle, what, value, note=""):
    f = {"toggle": toggle, "what": what, "value": value, "gpu": run.gpu, "commit": run.commit, "log": log}
    if note:
        f["note"] = note
    return f


def ladder_figures(runs):
    out = []
    for file in LADDER_FILES:
        run, name = first_run(runs, file)
        if not run:
            continue
        table = load_table(run, name)
        n = short_n(n_from_notes(table["notes"]))
        rows = {r["name"]: r for r in table["rows"]}
        for toggle, rung, what in LADDER:
            row = rows.get(rung)
            if row is None:
                raise Failure(f"{run.path(name)}: no rung '{rung}'")
            out.append(figure(run, run.path(name), toggle, f"{what} (ladder rung {row['rung']})",
                              f"{speedup(row['speedup'])} at n = {n}"))
        fp32, fp64 = rows["4 bodies/thread"], rows["fp64 (side trip)"]
        out.append(figure(run, run.path(name), "precision", "force error RMS, fp64 vs fp32 (ladder rungs 16 and 13)",
                          f"{fp64['error_rms']:.1e} vs {fp32['error_rms']:.1e} at n = {n}"))
    return out


def sweep_figures(runs):
    out = []
    for file in SWEEP_FILES:
        run, name = first_run(runs, file)
        if not run:
            continue
        table = load_table(run, name)
        n = short_n(n_from_notes(table["notes"]))
        fastest = {}  # bodies per thread -> its fastest row over unroll x block size
        for row in table["rows"]:
            bpt = int(row["bodies_per_thread"])
            if bpt not in fastest or row["ms"] < fastest[bpt]["ms"]:
                fastest[bpt] = row
        blocked = [b for b in sorted(fastest) if b >= 4]
        if blocked:
            out.append(figure(run, run.path(name), "unroll",
                              "fastest unroll factor with " + ", ".join(map(str, blocked)) +
                              " bodies/thread (sweep over unroll x block size)",
                              ", ".join(str(int(fastest[b]["unroll"])) for b in blocked) + f" at n = {n}"))
        if 4 in fastest and 8 in fastest:
            out.append(figure(run, run.path(name), "bodies_per_thread",
                              "8 vs 4 bodies/thread, each at its fastest unroll and block size (sweep)",
                              f"{speedup(fastest[4]['ms'] / fastest[8]['ms'])} at n = {n}"))
    return out


def bhswitches_figures(runs):
    run, name = first_run(runs, "bhswitches.json", "bench-bhswitches.log")
    if not run:
        return []
    table = load_table(run, name) if name.endswith(".json") else printed_table(run, name, BHSWITCHES_COLUMNS)
    n = n_from_notes(table["notes"])
    at_n = f" at n = {short_n(n)}" if n else ""
    note = "" if n else "this log does not record n; the run's command line, quoted in BENCHMARKS.md, gives it"
    rows = {r["switch"]: r for r in table["rows"]}
    out = []
    for toggle, switch in BHSWITCHES:
        row = rows.get(switch)
        if row is None:
            raise Failure(f"{run.path(name)}: no switch '{switch}'")
        kernel = row["kernel"]
        if kernel == "step":
            value = f"whole step {speedup(row['step_speedup'])} ({row['step_on_ms']:.2f} vs {row['step_off_ms']:.2f} ms)"
        else:
            value = f"{kernel} {speedup(row['kernel_speedup'])}, whole step {speedup(row['step_speedup'])}"
        out.append(figure(run, run.path(name), toggle, switch, value + at_n, note))
    return out


def generate(runs):
    figures = ladder_figures(runs) + sweep_figures(runs) + bhswitches_figures(runs)
    first_seen = {}
    for f in figures:
        first_seen.setdefault(f["toggle"], len(first_seen))
    figures.sort(key=lambda f: first_seen[f["toggle"]])  # a toggle's figures together, each in its order
    return {
        "about": "What each kernel toggle measured on a GPU, for the panel's tooltips and BENCHMARKS.md. Written by "
                 "scripts/measured_figures.py from the kept logs named in each figure; regenerate, do not edit.",
        "runs": [{"dir": r.dir, "commit": r.commit, "gpu": r.gpu} for r in runs],
        "figures": figures,
    }


def figures_json(data):
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def markdown_section(data):
    """The figures as a table, one row per comparison and run (its values and logs joined, as the panel
    shows them), then the notes."""
    rows, notes = {}, {}
    for f in data["figures"]:
        row = rows.setdefault((f["toggle"], f["what"], f["gpu"], f["commit"]), {"values": [], "logs": []})
        row["values"].append(f["value"])
        if f["log"] not in row["logs"]:
            row["logs"].append(f["log"])
        if f.get("note"):
            notes.setdefault(f["log"], f["note"])
    lines = [BEGIN, "",
             "| toggle | comparison | measured | GPU, commit | logs |",
             "| --- | --- | --- | --- | --- |"]
    for (toggle, what, gpu, commit), row in rows.items():
        logs = ", ".join(f"`{log}`" for log in row["logs"])
        lines.append(f"| `{toggle}` | {what} | {', '.join(row['values'])} | {gpu}, {commit} | {logs} |")
    if notes:
        lines.append("")
        lines += [f"- `{log}`: {note}." for log, note in notes.items()]
    lines += ["", END]
    return "\n".join(lines)


def with_section(markdown, section):
    begin, end = markdown.find(BEGIN), markdown.find(END)
    if begin < 0 or end < begin:
        raise Failure(f"{BENCHMARKS_MD}: no section between the markers\n  {BEGIN}\n  {END}")
    return markdown[:begin] + section + markdown[end + len(END):]


def differences(path, expected):
    actual = open(os.path.join(ROOT, path)).read() if os.path.exists(os.path.join(ROOT, path)) else ""
    if actual == expected:
        return ""
    return "".join(difflib.unified_diff(actual.splitlines(True), expected.splitlines(True),
                                        f"{path} (committed)", f"{path} (from the logs)"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", action="append", default=[], metavar="DIR[@COMMIT]",
                        help="a GPU suite run kept under benchmarks/ (repeat; earlier runs win)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate and compare with the committed files instead of writing them")
    args = parser.parse_args()
    try:
        specs = args.run
        if not specs:
            if not args.check:
                raise Failure("name at least one --run")
            committed = json.load(open(os.path.join(ROOT, FIGURES_FILE)))
            specs = [f"{r['dir']}@{r['commit']}" for r in committed["runs"]]
        data = generate([Run(spec) for spec in specs])
        new_json = figures_json(data)
        new_md = with_section(open(os.path.join(ROOT, BENCHMARKS_MD)).read(), markdown_section(data))
        if args.check:
            diff = differences(FIGURES_FILE, new_json) + differences(BENCHMARKS_MD, new_md)
            if diff:
                sys.stdout.write(diff)
                raise Failure("the committed figures differ from what the logs give: run "
                              "scripts/measured_figures.py " + " ".join(f"--run {s}" for s in specs))
            print(f"{FIGURES_FILE} and {BENCHMARKS_MD} match the logs ({len(data['figures'])} figures)")
            return 0
        os.makedirs(os.path.dirname(os.path.join(ROOT, FIGURES_FILE)), exist_ok=True)
        open(os.path.join(ROOT, FIGURES_FILE), "w").write(new_json)
        open(os.path.join(ROOT, BENCHMARKS_MD), "w").write(new_md)
        print(f"wrote {FIGURES_FILE} ({len(data['figures'])} figures) and the section of {BENCHMARKS_MD}")
        return 0
    except (Failure, OSError, ValueError, KeyError) as e:
        print(f"measured_figures: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
