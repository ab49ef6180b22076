#!/usr/bin/env python3
"""The GPU suite's driver (scripts/gpu-suite.sh is its front door, which builds and bundles).

The runs are a table, scripts/gpu_suite_table.py: each has a name (its log is $OUT/NAME.log), a part,
a command, and the summary rows it feeds with their figures and targets. This runs the rows of the
parts asked for, in table order, and prints the summary from the same rows.

    scripts/gpu_suite.py list              the table: parts, runs, commands, summary rows and targets
    scripts/gpu_suite.py run               run the parts in PARTS from the bundle (gpu-suite.sh run)
    scripts/gpu_suite.py summary DIR       the summary of a finished run's folder ($OUT), run nothing
    scripts/gpu_suite.py compare DIR DIR   the headline figures of two runs side by side, and whether
                                           they agree within --tolerance percent (default 3)

The environment gpu-suite.sh documents: PARTS, QUICK, FULL, OUT, BUNDLE, TESTS_FROM, KERNELAB,
KERNELAB_CASES, BHSWEEP, BHSWEEP_N, LONG_STEPS, PROFILE_MOMENTS, PROFILE_ARGS.
"""
import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from gpu_suite_table import DEFAULT_PARTS, LABEL_WIDTH, PARTS, Context, runs


class Driver:
    def __init__(self, ctx):
        self.ctx = ctx
        ctx.note = self.note
        self.status = []  # (name, text) in the order they ran
        self.failed_tests = False

    def note(self, name, text):
        self.status.append((name, text))
        with open(self.ctx.out / "runs.tsv", "a") as f:
            f.write(f"{name}\t{text}\n")
        return False

    def header(self):
        return f"# nbodylab {self.commit} on {self.gpu}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"

    def step(self, run):
        ctx = self.ctx
        if run.before and not run.before(ctx):
            return
        argv = run.command(ctx)
        env = dict(os.environ)
        env.update({k: (v(ctx) if callable(v) else v) for k, v in run.env.items()})
        shown = " ".join(argv)
        print(f"=== {run.name}: {shown}", flush=True)
        log = ctx.out / f"{run.name}.log"
        start = time.monotonic()
        with open(log, "w") as f:
            f.write(f"{self.header()}\n# {shown}\n")
            f.flush()
            try:
                rc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=ctx.root).returncode
            except OSError as e:
                f.write(f"{e}\n")
                rc = 127
        with open(log, errors="replace") as f:
            sys.stdout.write("".join(f.readlines()[-40:]))
        took = int(time.monotonic() - start)
        ctx.ok[run.name] = rc == 0
        self.note(run.name, f"ok ({took}s)" if rc == 0 else f"FAILED rc={rc} ({took}s, see {run.name}.log)")
        if rc != 0 and run.test:
            self.failed_tests = True
        if run.after:
            run.after(ctx, rc)

    def run(self, bundle_commit, gpu, baseline_commit):
        ctx = self.ctx
        self.commit, self.gpu = bundle_commit, gpu
        (ctx.out / "runs.tsv").write_text("")
        (ctx.out / "commit.txt").write_text(bundle_commit + "\n")  # scripts/measured_figures.py reads it
        heading = (
            f"nbodylab GPU suite: commit {bundle_commit} on {gpu}, {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}"
        )
        if baseline_commit:
            heading += f"\nbaseline build: commit {baseline_commit}"
        (ctx.out / "run.txt").write_text(heading + "\n")
        print(heading, flush=True)
        table_ = runs(ctx)
        selected = [r for r in table_ if r.part == "always" or ctx.want(r.part)]
        for r in selected:
            if r.only and not r.only(ctx):
                continue
            self.step(r)
            if r.name == "info":
                with open(ctx.out / "nvidia-smi.txt", "w") as f:
                    try:
                        subprocess.run(
                            [
                                "nvidia-smi",
                                "--format=csv",
                                "--query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu",
                            ],
                            stdout=f,
                            stderr=subprocess.STDOUT,
                        )
                    except OSError as e:
                        f.write(f"nvidia-smi: {e.strerror}\n")
        if ctx.want("compare") and not ctx.has_baseline():
            self.note("compare", "no baseline bundled (BASELINE_BIN at build)")
        print()
        print(summary(ctx, table_, selected))
        return 1 if self.failed_tests else 0


# ---------------------------------------------------------------------------------------------------
# The summary: the status of each run, then the table's rows.


def read_status(out):
    try:
        with open(out / "runs.tsv") as f:
            return [tuple(line.rstrip("\n").split("\t", 1)) for line in f if "\t" in line]
    except OSError:
        return []


def where_from(ctx, run):
    """What produces a row that did not run, in words: "part allpairs, FULL=1"."""
    return f"part {run.part}" + (f", {run.only_text}" if run.only_text else "")


def summary(ctx, table_, selected=None):
    """The summary of the run in ctx.out. `selected`: the runs this invocation chose (their rows print
    when their file is there); None: every row of the table whose file is there (a finished folder)."""
    out = ctx.out
    lines = ["================ summary ================"]
    try:
        lines.append((out / "run.txt").read_text().rstrip("\n"))
    except OSError:
        pass
    lines += [f"{name:<{LABEL_WIDTH}} {text}" for name, text in read_status(out)]
    lines.append("-----------------------------------------")
    chosen = {id(r) for r in selected} if selected is not None else None  # two parts may share a run's name
    headline, others = [], []  # (group, label, line)
    for run in table_:
        ran = chosen is None or id(run) in chosen
        for row in run.rows:
            present = not row.needs or (out / row.needs).exists()
            if row.headline:
                text = row.text(out) if present else f"n/a (not run: {where_from(ctx, run)})"
                headline.append((row.group, row.label, f"{row.label_text():<{LABEL_WIDTH}} {text}"))
            elif ran and present:
                line = (
                    f"{row.label}  {row.text(out)}"
                    if row.group
                    else f"{row.label_text():<{LABEL_WIDTH}} {row.text(out)}"
                )
                others.append((row.group, row.label, line))
    # A row twice (one run in two parts: stallbh and stall) prints once, where it last appears.
    rows = headline + others
    last = {(group, label): i for i, (group, label, _) in enumerate(rows)}
    rows = [r for i, r in enumerate(rows) if last[(r[0], r[1])] == i]
    lines += [line for group, _, line in rows if not group]
    for title in dict.fromkeys(group for group, _, _ in rows if group):
        lines.append(f"----------------- {title} -----------------")
        lines += [line for group, _, line in rows if group == title]
    return "\n".join(lines)


def headline_figures(ctx, table_):
    """label -> the numbers of each headline row of the run in ctx.out."""
    figures = {}
    for run in table_:
        for row in run.rows:
            if row.headline:
                present = not row.needs or (ctx.out / row.needs).exists()
                text = row.text(ctx.out) if present else ""
                figures[row.label_text()] = [float(x) for x in re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", text)]
    return figures


def compare(env, a_dir, b_dir, tolerance):
    a = headline_figures(Context(env, ".", ".", a_dir), runs(Context(env, ".", ".", a_dir)))
    b = headline_figures(Context(env, ".", ".", b_dir), runs(Context(env, ".", ".", b_dir)))
    print(f"{'headline figure':<{LABEL_WIDTH}} {'A':>12} {'B':>12}  B/A")
    print(f"A = {a_dir}, B = {b_dir}; tolerance {tolerance:g}%")
    worst = 0.0
    for label in a:
        if not a[label] or not b.get(label):
            print(
                f"{label:<{LABEL_WIDTH}} {'n/a' if not a[label] else a[label][0]:>12} "
                f"{'n/a' if not b.get(label) else b[label][0]:>12}  (not in both)"
            )
            continue
        for x, y in zip(a[label], b[label]):
            ratio = y / x if x else float("inf") if y else 1.0
            worst = max(worst, abs(ratio - 1) * 100)
            mark = "" if abs(ratio - 1) * 100 <= tolerance else f"  differs by more than {tolerance:g}%"
            print(f"{label:<{LABEL_WIDTH}} {x:>12.4g} {y:>12.4g}  {ratio:.4f}{mark}")
    print(f"largest difference: {worst:.2f}%")
    return 0 if worst <= tolerance else 1


def list_table(ctx):
    table_ = runs(ctx)
    print('Parts (* runs by default; PARTS="..." picks others):')
    for part, what in PARTS.items():
        print(f"  {'*' if part in DEFAULT_PARTS else ' '} {part:<11} {what}")
    print("\nRuns, in the order they go (each writes $OUT/NAME.log; rows marked ! are headline figures):")
    for run in table_:
        condition = f"  [{run.only_text}]" if run.only_text else ""
        print(f"{run.part:<11} {run.name}{condition}")
        words = [w if w and not re.search(r"[\s'\"]", w) else shlex.quote(w) for w in run.command(ctx)]
        print(f"{'':<11}   $ {' '.join(words)}")
        for row in run.rows:
            print(f"{'':<11}   {'!' if row.headline else '>'} {row.label_text()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list")
    sub.add_parser("run")
    s = sub.add_parser("summary")
    s.add_argument("dir")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--tolerance", type=float, default=3.0, help="percent (default 3)")
    args = parser.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--list | head` ends quietly
    env = dict(os.environ)
    root = Path(__file__).resolve().parent.parent
    bundle = Path(env.get("BUNDLE", root / "gpu-bundle"))
    unknown = [p for p in env.get("PARTS", "").split() if p not in PARTS]
    if unknown:
        sys.exit(f"gpu-suite: no part named {', '.join(unknown)}; the parts are: {' '.join(PARTS)}")
    if args.command == "list":
        list_table(Context(env, root, bundle, env.get("OUT", root / "gpu-results"), display=True))
    elif args.command == "summary":
        ctx = Context(env, root, bundle, args.dir)
        print(summary(ctx, runs(ctx)))
    elif args.command == "compare":
        sys.exit(compare(env, args.a, args.b, args.tolerance))
    else:
        ctx = Context(env, root, bundle, Path(env.get("OUT", root / "gpu-results")).resolve())
        ctx.out.mkdir(parents=True, exist_ok=True)
        commit = (bundle / "commit.txt").read_text().strip() if (bundle / "commit.txt").exists() else "unknown"
        baseline = (bundle / "BASELINE_COMMIT").read_text().strip() if (bundle / "BASELINE_COMMIT").exists() else ""
        try:
            gpu = subprocess.run(
                ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True
            ).stdout.splitlines()
        except OSError:
            gpu = []
        sys.exit(Driver(ctx).run(commit, gpu[0] if gpu and gpu[0] else "no GPU", baseline))


if __name__ == "__main__":
    main()
