#!/usr/bin/env python3
"""Writes what each kernel toggle measured on a GPU, and in which configuration, from the kept logs.

    scripts/measured_figures.py --run benchmarks/GPU/DATE[/NAME][@COMMIT] [--run ...]   write the outputs
    scripts/measured_figures.py --check                                    compare, write nothing
    scripts/measured_figures.py --tour-commands [--bin B] [--out DIR] [--n N]
                                             the GPU runs that measure every Barnes-Hut tour step

Outputs, one source: assets/measured/figures.json (the panel's toggle tooltips and the tour read it at
run time), the table between the measured-figures markers in BENCHMARKS.md, and the tables between the
markers of the documents in DOC_TABLES (each a function of the kept logs). Every figure names the GPU,
the commit, the log, and the configuration it was measured in: the algorithm, the scene, N, the seed,
theta and every toggle (`config`), and for a comparison the toggles of the side it is compared with
(`baseline`). A teaching text shows a figure only where that configuration is the one it talks about
(sim/measured_figures.hpp), so a figure never speaks for another configuration.

A run is a folder under benchmarks/ holding what a GPU run wrote. Each figure comes from the first run
given that has its file:
- bench JSON files of scripts/gpu-suite.sh: ladder-*.json, sweep-*.json (the configuration of each rung
  and sweep point is in the file: its `variant` column and notes);
- bhswitches.json or bench-bhswitches.log: the table's rows change one switch on top of the settings the
  run started from, which the table does not print; base-settings.json beside it records them (the
  command line on top of that commit's defaults), and each row's change is BHSWITCH_ROWS below, as
  app/bench/modes.cpp makes it;
- tour-barneshut-step-NN.log with tour-barneshut-step-NN.json: `bench --compare` of one Barnes-Hut tour
  step (A) against the step before it (B), every toggle on its command line, which the log's second
  line records (--tour-commands writes these runs).
The commit is the folder's commit.txt, else the one its logs' first line names ("# nbodylab COMMIT on
GPU, ..."), else the one given after an @; the GPU is info.log's "GPU: " line, else the logs' first line.

--check regenerates from the runs the committed figures.json lists and fails, showing the difference,
when a committed output differs (ctest runs this). Python 3 standard library only.
"""
import argparse
import difflib
import glob
import json
import os
import re
import shlex
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
SWEPT = ["unroll", "block_size", "bodies_per_thread"]

# An all-pairs variant as the program describes it (cuda/allpairs/variant.cpp, describe): one word per
# toggle, in the CLI's vocabulary. A toggle the variant leaves out is inert in it (the switchboard
# normalises it: the single-thread port has no tiles, blocks or bodies per thread to choose; fp64 has no
# single-precision flags): the figure speaks for any value of it, written "*".
ALLPAIRS_WORDS = {
    "single_thread": ("parallelism", "single_thread"), "thread_per_body": ("parallelism", "thread_per_body"),
    "aos": ("layout", "aos"), "soa": ("layout", "soa"), "float4": ("layout", "float4"),
    "arguments": ("params", "arguments"), "constant": ("params", "constant"),
    "rsqrt": ("rsqrt", "on"), "no-rsqrt": ("rsqrt", "off"),
    "branch": ("self_interaction", "branch"), "two_loops": ("self_interaction", "two_loops"),
    "softening": ("self_interaction", "softening"),
    "tiling=none": ("tiling", "none"), "shared": ("tiling", "shared"), "shuffle": ("tiling", "shuffle"),
    "fma_order": ("fma_order", "on"), "no-fma_order": ("fma_order", "off"),
    "fast_math=off": ("fast_math", "off"), "ftz": ("fast_math", "ftz"), "fast_math": ("fast_math", "fast_math"),
    "fp32": ("precision", "fp32"), "fp64": ("precision", "fp64"),
}
INERT = {("parallelism", "single_thread"): ["tiling", "bodies_per_thread", "block_size"], ("precision", "fp64"): ["fast_math"]}
ANY = "*"

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
# What each row measures, as app/bench/modes.cpp (kSwitches) makes it: the toggles it sets on top of the
# run's settings for 'on', and for 'off' (each on top of the run's settings, not of 'on').
BHSWITCH_ROWS = {
    "avoid volatile": ({}, {"bh_avoid_volatile": "off"}),
    "rsqrtf instruction": ({}, {"bh_rsqrt": "off"}),
    "throttling barrier (insertion build)": ({"bh_build": "insertion"}, {"bh_build": "insertion", "bh_throttle": "off"}),
    "wait-free pre-pass (summarize)": ({"bh_build": "insertion"}, {"bh_build": "insertion", "bh_waitfree": "off"}),
    "combined memory fence (insertion build)": ({"bh_build": "insertion"},
                                                {"bh_build": "insertion", "bh_combined_fence": "off"}),
    "sorting of bodies (warp walk)": ({"bh_traversal": "warp"}, {"bh_traversal": "warp", "bh_sort": "off"}),
    "warp-synchronous walk vs per-thread": ({"bh_traversal": "warp"}, {"bh_traversal": "thread"}),
    "group interaction lists vs warp walk (ours)": ({}, {"bh_traversal": "warp"}),
    "sorting of bodies (group lists)": ({}, {"bh_sort": "off"}),
    "Morton build vs insertion build (ours)": ({}, {"bh_build": "insertion"}),
}
# The bhswitches table's columns: printed header -> JSON key (app/bench/modes.cpp).
BHSWITCHES_COLUMNS = {
    "switch": "switch", "tutorial 50k/500k/5M": "tutorial", "kernel": "kernel", "on ms": "kernel_on_ms",
    "off ms": "kernel_off_ms", "kernel x": "kernel_speedup", "step on ms": "step_on_ms",
    "step off ms": "step_off_ms", "step x": "step_speedup",
}
BASE_SETTINGS = "base-settings.json"

# The Barnes-Hut tour's steps, measured by `bench --compare` (--tour-commands).
TOUR_FILE = "assets/tour/barneshut.json"
TOUR_STEP_LOG = re.compile(r"tour-barneshut-step-(\d+)\.log$")
# The scene, N and seed every step runs on; theta is each step's own (the tour's "settings"), TOUR_THETA only
# for a tour that declares none.
TOUR_SCENE, TOUR_N, TOUR_SEED, TOUR_THETA = "collision", 1048576, 1, 0.65


class Failure(Exception):
    pass


def header_facts(path):
    """(commit, gpu, command words) from a log's first two lines: "# nbodylab COMMIT on GPU, DATE" and
    "# COMMAND"; None for what they do not say."""
    commit = gpu = None
    words = []
    with open(path, encoding="utf-8", errors="replace") as f:
        first, second = f.readline(), f.readline()
    m = re.match(r"# nbodylab (\S+) on (.+?), \d{4}-\d\d-\d\d", first)
    if m:
        commit, gpu = m.group(1), m.group(2)
        if second.startswith("# "):
            words = shlex.split(second[2:])
    return commit, gpu, words


class Run:
    """One GPU run kept under benchmarks/: its folder, and the commit and GPU of what it holds. A folder
    may hold runs of several commits (benchmarks/<gpu>/<date>/): a log that names its own commit and GPU
    in its first line speaks for itself (log_facts); the folder's commit.txt, the @COMMIT given and
    info.log speak for the files that do not."""

    def __init__(self, spec):
        folder, _, commit = spec.partition("@")
        self.dir = os.path.relpath(os.path.join(ROOT, folder) if not os.path.isabs(folder) else folder, ROOT)
        if not os.path.isdir(os.path.join(ROOT, self.dir)):
            raise Failure(f"{folder}: no such folder")
        commit_file = os.path.join(ROOT, self.dir, "commit.txt")
        if not commit and os.path.exists(commit_file):
            commit = open(commit_file).read().strip()
        self.commit = commit[:7] if commit else None
        self.gpu = self._gpu()

    def _gpu(self):
        info = os.path.join(ROOT, self.dir, "info.log")
        if os.path.exists(info):
            for line in open(info):
                if line.startswith("GPU: "):
                    return line[len("GPU: "):].strip()
        return None

    def facts(self, log):
        """(commit, gpu) of one of the run's files: its own first line's, else the run's."""
        commit, gpu, _ = header_facts(os.path.join(ROOT, log)) if log.endswith(".log") else (None, None, [])
        commit = (commit or "")[:7] or self.commit
        gpu = gpu or self.gpu
        if not commit:
            raise Failure(f"{log}: names no commit, and its folder has no commit.txt; give the folder as "
                          f"{self.dir}@COMMIT")
        if not gpu:
            raise Failure(f"{log}: names no GPU, and its folder has no info.log with a 'GPU: ' line")
        return commit, gpu

    def path(self, name):
        return os.path.join(self.dir, name)

    def has(self, name):
        return os.path.exists(os.path.join(ROOT, self.dir, name))

    def spec(self):
        return f"{self.dir}@{self.commit}" if self.commit else self.dir


def short_n(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n >= 1 << 10 and n % (1 << 10) == 0:
        return f"{n >> 10}k"
    return f"{n:,}"


def speedup(x):
    return f"{x:,.0f}x" if x >= 100 else f"{x:.2f}x"


def scene_facts(notes):
    """scene, n and seed from a bench table's first note ("plummer scene, n = 65536, ..., seed 1, ...")."""
    for note in notes:
        m = re.match(r"(\w+) scene, n = (\d+)", note)
        if m:
            seed = re.search(r"\bseed (\d+)", note)
            return m.group(1), int(m.group(2)), int(seed.group(1)) if seed else None
    return None, None, None


def load_table(run, name, index=0, count=1):
    tables = json.load(open(os.path.join(ROOT, run.path(name))))
    if len(tables) != count:
        raise Failure(f"{run.path(name)}: expected {count} table(s), found {len(tables)}")
    return tables[index]


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


def config(algorithm, scene, n, seed, toggles, source, theta=None, varied=None):
    c = {"algorithm": algorithm, "scene": scene, "bodies": n}
    if seed is not None:
        c["seed"] = seed
    if theta is not None:
        c["theta"] = theta
    c["toggles"] = dict(sorted(toggles.items()))
    if varied:
        c["varied"] = varied
    c["source"] = source
    return c


def figure(run, log, toggle, what, value, cfg, baseline=None, kernel="", note=""):
    commit, gpu = run.facts(log)
    f = {"toggle": toggle, "what": what, "value": value, "gpu": gpu, "commit": commit, "log": log}
    if kernel:
        f["kernel"] = kernel
    f["config"] = cfg
    if baseline is not None:
        f["baseline"] = {"toggles": dict(sorted(baseline.items()))}
    if note:
        f["note"] = note
    return f


def allpairs_toggles(variant, where):
    """The all-pairs toggles of a variant as the program describes it."""
    toggles = {}
    for word in variant.split():
        key, _, value = word.partition("=")
        if word in ALLPAIRS_WORDS:
            key, value = ALLPAIRS_WORDS[word]
        elif key in ("unroll", "bodies_per_thread", "block_size") and value.isdigit():
            pass
        else:
            raise Failure(f"{where}: cannot read '{word}' of the variant '{variant}'")
        toggles[key] = value
    for (key, value), inert in INERT.items():
        if toggles.get(key) == value:
            for k in inert:
                if k in toggles:
                    raise Failure(f"{where}: the variant '{variant}' names {k}, which its {value} makes inert")
                toggles[k] = ANY
    return toggles


def ladder_figures(runs):
    out = []
    for file in LADDER_FILES:
        run, name = first_run(runs, file)
        if not run:
            continue
        table = load_table(run, name)
        scene, n, seed = scene_facts(table["notes"])
        rows = {r["name"]: r for r in table["rows"]}
        ordered = [r for r in table["rows"] if r["rung"] != "best"]
        where = run.path(name)
        source = f"{where}: each rung's variant and the table's notes"

        def cfg(row):
            return config("allpairs", scene, n, seed, allpairs_toggles(row["variant"], where), source)

        def built_on(row):
            """The rung this one is compared with: the last earlier rung that is not a side trip."""
            i = ordered.index(row)
            return next(r for r in reversed(ordered[:i]) if "side trip" not in r["name"])

        for toggle, rung, what in LADDER:
            row = rows.get(rung)
            if row is None:
                raise Failure(f"{where}: no rung '{rung}'")
            out.append(figure(run, where, toggle, f"{what} (ladder rung {row['rung']})",
                              f"{speedup(row['speedup'])} at n = {short_n(n)}", cfg(row),
                              cfg(built_on(row))["toggles"], "force"))
        fp32, fp64 = rows["4 bodies/thread"], rows["fp64 (side trip)"]
        out.append(figure(run, where, "precision", "force error RMS, fp64 vs fp32 (ladder rungs 16 and 13)",
                          f"{fp64['error_rms']:.1e} vs {fp32['error_rms']:.1e} at n = {short_n(n)}", cfg(fp64),
                          cfg(fp32)["toggles"], "force"))
    return out


def sweep_figures(runs):
    out = []
    for file in SWEEP_FILES:
        run, name = first_run(runs, file)
        if not run:
            continue
        table = load_table(run, name)
        scene, n, seed = scene_facts(table["notes"])
        where = run.path(name)
        others = next((note.split(": ", 1)[1] for note in table["notes"] if note.startswith("the other toggles: ")), None)
        if others is None:
            raise Failure(f"{where}: no note 'the other toggles: ...'")
        toggles = {k: v for k, v in allpairs_toggles(others, where).items() if k not in SWEPT}
        cfg = config("allpairs", scene, n, seed, toggles, f"{where}: the note naming the other toggles", varied=SWEPT)
        fastest = {}  # bodies per thread -> its fastest row over unroll x block size
        for row in table["rows"]:
            bpt = int(row["bodies_per_thread"])
            if bpt not in fastest or row["ms"] < fastest[bpt]["ms"]:
                fastest[bpt] = row
        blocked = [b for b in sorted(fastest) if b >= 4]
        if blocked:
            out.append(figure(run, where, "unroll",
                              "fastest unroll factor with " + ", ".join(map(str, blocked)) +
                              " bodies/thread (sweep over unroll x block size)",
                              ", ".join(str(int(fastest[b]["unroll"])) for b in blocked) + f" at n = {short_n(n)}",
                              cfg, kernel="force"))
        if 4 in fastest and 8 in fastest:
            out.append(figure(run, where, "bodies_per_thread",
                              "8 vs 4 bodies/thread, each at its fastest unroll and block size (sweep)",
                              f"{speedup(fastest[4]['ms'] / fastest[8]['ms'])} at n = {short_n(n)}", cfg, kernel="force"))
    return out


def bhswitches_figures(runs):
    out = []
    for run in runs:
        name = next((n for n in ("bhswitches.json", "bench-bhswitches.log") if run.has(n)), None)
        if not name:
            continue
        if not run.has(BASE_SETTINGS):
            raise Failure(f"{run.dir}: {name} needs {BASE_SETTINGS} beside it: the settings the run started from")
        base = json.load(open(os.path.join(ROOT, run.path(BASE_SETTINGS))))
        table = load_table(run, name) if name.endswith(".json") else printed_table(run, name, BHSWITCHES_COLUMNS)
        scene, n, seed = scene_facts(table["notes"])
        if n is not None and (n != base["bodies"] or scene != base["scene"]):
            raise Failure(f"{run.path(name)}: its note says {scene}, n = {n}; {BASE_SETTINGS} says otherwise")
        source = f"{run.path(BASE_SETTINGS)} and the row's change (app/bench/modes.cpp)"
        rows = {r["switch"]: r for r in table["rows"]}
        for toggle, switch in BHSWITCHES:
            row = rows.get(switch)
            if row is None:
                raise Failure(f"{run.path(name)}: no switch '{switch}'")
            on, off = BHSWITCH_ROWS[switch]
            kernel = row["kernel"]
            if kernel == "step":
                value = f"whole step {speedup(row['step_speedup'])} ({row['step_on_ms']:.2f} vs {row['step_off_ms']:.2f} ms)"
            else:
                value = f"{kernel} {speedup(row['kernel_speedup'])}, whole step {speedup(row['step_speedup'])}"
            cfg = config("barneshut", base["scene"], base["bodies"], base.get("seed"), {**base["toggles"], **on}, source,
                         theta=base.get("theta"))
            out.append(figure(run, run.path(name), toggle, switch, f"{value} at n = {short_n(base['bodies'])}", cfg,
                              {**base["toggles"], **off}, "" if kernel == "step" else kernel,
                              base.get("note", "")))
    return out


# ---- the Barnes-Hut tour, step by step ----

def tour_steps():
    """(number, title, switch, value, kernel, toggles, settings) of each Barnes-Hut tour step, its toggles and
    settings (theta) those of the start with every step's changes up to it, as sim/tour.cpp reads them. A note
    (a step with "row") changes nothing: its switch is None."""
    tour = json.load(open(os.path.join(ROOT, TOUR_FILE), encoding="utf-8"))
    start = tour.get("start", {})
    toggles = {k: toggle_text(v) for k, v in start.get("toggles", {}).items()}
    settings = dict(start.get("settings", {}))
    out = []
    for i, step in enumerate(tour["steps"]):
        if "switch" in step:
            toggles = {**toggles, step["switch"]: toggle_text(step["value"])}
        settings = {**settings, **step.get("settings", {})}
        out.append((i + 1, step["title"], step.get("switch"), toggle_text(step.get("value")), step.get("kernel", ""),
                    dict(toggles), dict(settings)))
    return out


def toggle_text(value):
    """A toggle's value as the CLI writes it: on/off, a choice's name, a number."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return None if value is None else str(value)


def options_of(words):
    """The options of a bench command line: {option: value}, with --compare's two sets as a pair."""
    out = {}
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--compare":
            out["--compare"] = (words[i + 1], words[i + 2])
            i += 3
        elif w.startswith("-") and i + 1 < len(words) and not words[i + 1].startswith("--"):
            out[w] = words[i + 1]
            i += 2
        else:
            i += 1
    return out


def changes_of(text):
    return dict(item.split("=", 1) for item in text.split(",") if item)


def tour_step_figures(runs):
    out = []
    steps = {s[0]: s for s in tour_steps()}
    for run in runs:
        for log in sorted(glob.glob(os.path.join(ROOT, run.dir, "tour-barneshut-step-*.log"))):
            number = int(TOUR_STEP_LOG.search(log).group(1))
            rel = os.path.relpath(log, ROOT)
            _, _, words = header_facts(log)
            options = options_of(words)
            if "--compare" not in options:
                raise Failure(f"{rel}: its second line names no `bench --compare` command")
            toggles = {k.lstrip("-").replace("-", "_"): v for k, v in options.items()
                       if k.startswith("--bh")}
            theta = options.get("--theta")
            a_changes, b_changes = changes_of(options["--compare"][0]), changes_of(options["--compare"][1])
            a_theta, b_theta = a_changes.pop("theta", theta), b_changes.pop("theta", theta)
            a = {**toggles, **a_changes}
            b = {**toggles, **b_changes}
            changed = sorted(k for k in a if a[k] != b.get(k))
            if len(changed) != 1:
                raise Failure(f"{rel}: A and B differ in {changed or 'nothing'}; a tour step changes one switch")
            step = steps.get(number)
            if step is None:
                raise Failure(f"{rel}: the tour has no step {number}")
            _, title, switch, value, kernel, _, settings = step
            if "theta" in settings and (a_theta is None or float(a_theta) != float(settings["theta"])):
                raise Failure(f"{rel}: A runs theta {a_theta}; tour step {number} runs theta {settings['theta']}")
            json_file = log[:-len(".log")] + ".json"
            if not os.path.exists(json_file):
                raise Failure(f"{rel}: no {os.path.basename(json_file)} beside it (bench --json)")
            times, forces = json.load(open(json_file))
            rows = {r["stage"]: r for r in times["rows"]}
            if "total" not in rows:
                raise Failure(f"{os.path.relpath(json_file, ROOT)}: no 'total' row")
            n = int(re.search(r"\((?:[^,]+), (?:[^,]+), (\d+) bodies\)", times["title"]).group(1))
            parts = []  # this step's speed-up over the one before: B's time over A's, with both times
            for stage, words in ((kernel, kernel), ("total", "whole step")):
                if stage and stage in rows and rows[stage].get("a_ms"):
                    a_ms, b_ms = rows[stage]["a_ms"], rows[stage]["b_ms"]
                    parts.append(f"{words} {speedup(b_ms / a_ms)} ({a_ms:.3f} ms against {b_ms:.3f} before)")
            errors = {r["quantity"]: r["value"] for r in forces["rows"]}
            if "A vs direct sum: per-body p99" in errors and "B vs direct sum: per-body p99" in errors:
                parts.append(f"per-body p99 error {errors['A vs direct sum: per-body p99']:.2g} vs "
                             f"{errors['B vs direct sum: per-body p99']:.2g}")
            what = f"{changed[0]} {a[changed[0]]} vs {b[changed[0]]}: Barnes-Hut tour step {number}, {title}"
            cfg = config("barneshut", options.get("--scene"), n, int(options.get("--seed", 1)), a,
                         f"{rel}: its command line", theta=float(a_theta) if a_theta is not None else None)
            out.append(figure(run, rel, changed[0], what, ", ".join(parts) + f" at n = {short_n(n)}", cfg, b, kernel))
    return out


def tour_commands(binary, out_dir, n):
    """A shell script that measures every Barnes-Hut tour step against the one before it on this GPU:
    `bench --compare` with every toggle and the theta of the step on its command line, one log and one JSON
    per step. A note changes nothing and is not run; a step that changes only a setting has no toggle to
    file its figure under (assets/measured/figures.json files figures by toggle) and is not run either."""
    lines = ["#!/bin/bash",
             "# The Barnes-Hut tour's steps, each against the step before it (A = the step, B = the one before),",
             f"# on the same bodies every step (bench --compare). Written by scripts/measured_figures.py --tour-commands",
             f"# from {TOUR_FILE}; then: scripts/measured_figures.py --run {out_dir} --run ... (see BENCHMARKS.md).",
             "set -u",
             f"bin={shlex.quote(binary)}",
             f"out={shlex.quote(out_dir)}",
             'mkdir -p "$out"',
             'commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo "${COMMIT:?set COMMIT to the commit of the binary}")',
             'gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)',
             '"$bin" info > "$out/info.log" 2>&1',
             'run() {  # run NAME ARGS...: the log starts with the commit, the GPU and the command',
             '  local name=$1; shift',
             '  { echo "# nbodylab $commit on $gpu, $(date -u \'+%Y-%m-%d %H:%M UTC\')"; echo "# $*"; } > "$out/$name.log"',
             '  "$@" >> "$out/$name.log" 2>&1 || echo "$name failed: see $out/$name.log"',
             '}']
    previous = None
    for number, title, switch, value, kernel, toggles, settings in tour_steps():
        if previous is not None and not switch:
            lines.append(f"# step {number}: {title}: switches nothing, nothing to measure")
        elif previous is not None:
            prev_toggles, prev_settings = previous
            opts = " ".join(f"--{k} {v}" for k, v in sorted(toggles.items()))
            theta = settings.get("theta", TOUR_THETA)
            a, b = [f"{switch}={value}"], [f"{switch}={prev_toggles[switch]}"]
            if prev_settings.get("theta", TOUR_THETA) != theta:
                a.append(f"theta={theta}")
                b.append(f"theta={prev_settings.get('theta', TOUR_THETA)}")
            name = f"tour-barneshut-step-{number:02d}"
            lines.append(f"# step {number}: {title}")
            lines.append(f'run {name} "$bin" bench --algo barneshut --backend gpu --scene {TOUR_SCENE} -n {n} '
                         f'--seed {TOUR_SEED} --theta {theta} --steps 20 --warmup 2 --error-sample 1000 {opts} '
                         f'--compare {",".join(a)} {",".join(b)} --json "$out/{name}.json"')
        previous = (toggles, settings)
    return "\n".join(lines) + "\n"


def generate(runs):
    figures = ladder_figures(runs) + sweep_figures(runs) + bhswitches_figures(runs) + tour_step_figures(runs)
    first_seen = {}
    for f in figures:
        first_seen.setdefault(f["toggle"], len(first_seen))
    figures.sort(key=lambda f: first_seen[f["toggle"]])  # a toggle's figures together, each in its order
    return {
        "about": "What each kernel toggle measured on a GPU and the configuration it was measured in, for the "
                 "panel's tooltips, the tour and BENCHMARKS.md. Written by scripts/measured_figures.py from the kept "
                 "logs named in each figure; regenerate, do not edit.",
        "runs": [{"dir": r.dir, "commit": r.commit, "gpu": r.gpu} if r.commit else {"dir": r.dir} for r in runs],
        "figures": figures,
    }


def figures_json(data):
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def config_words(c):
    """A configuration in a few words, for the BENCHMARKS.md table: scene, N, and how cells open."""
    words = f"{c['scene']}, {c['bodies']:,}"
    if c["algorithm"] == "barneshut":
        t = c["toggles"]
        if t.get("bh_opening") == "relative":
            words += f", relative opening {t.get('bh_tolerance')}e-4"
        elif "theta" in c:
            words += f", θ {c['theta']:g}"
    return words


def markdown_section(data):
    """The figures as a table, one row per comparison, configuration and run (its values and logs joined,
    as the panel shows them), then the notes."""
    rows, notes = {}, {}
    for f in data["figures"]:
        if TOUR_STEP_LOG.search(f["log"]):
            continue  # the tour's steps have their own table (docs/window.md, written from the same data)
        key = (f["toggle"], f["what"], f["gpu"], f["commit"], f["config"]["scene"], f["config"]["algorithm"],
               json.dumps(f["config"]["toggles"], sort_keys=True))
        row = rows.setdefault(key, {"values": [], "logs": [], "configs": []})
        row["values"].append(f["value"])
        if f["log"] not in row["logs"]:
            row["logs"].append(f["log"])
        words = config_words(f["config"])
        if words not in row["configs"]:
            row["configs"].append(words)
        if f.get("note"):
            notes.setdefault(f["log"], f["note"])
    lines = [BEGIN, "",
             "| toggle | comparison | measured | configuration | GPU, commit | logs |",
             "| --- | --- | --- | --- | --- | --- |"]
    for (toggle, what, gpu, commit, *_), row in rows.items():
        logs = ", ".join(f"`{log}`" for log in row["logs"])
        lines.append(f"| `{toggle}` | {what} | {', '.join(row['values'])} | {'; '.join(row['configs'])} | {gpu}, {commit} "
                     f"| {logs} |")
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


# ---- tables in the documents that come from logs ----

def summary_of(path):
    """A plain `bench` log's Summary and per-stage tables: {quantity: text} and {stage: ms}."""
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    summary, stages = {}, {}
    for line in text.split("\n"):
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) == 2:
            summary.setdefault(cells[0], cells[1])
        if len(cells) >= 5 and re.fullmatch(r"[0-9.]+", cells[1]):
            stages.setdefault(cells[0], float(cells[1]))
    return summary, stages


def sci(text):
    """1.471e-03 -> 1.47·10⁻³, as the documents write errors."""
    mantissa, exponent = f"{float(text):.2e}".split("e")
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{mantissa}·10{str(int(exponent)).translate(sup)}"


def relative_opening_table():
    """docs/barneshut.md: the relative test against the angle on the H200, from the Barnes-Hut part of one
    GPU suite run (bench-bh-*.log: the defaults, and --bh_opening geometric)."""
    folder = "benchmarks/h200/2026-11-25"
    cases = [("Plummer 1M", "1m"), ("Plummer 4M", "4m"), ("Plummer 10M", "10m"), ("collision 1M", "collision-1m")]
    lines = ["| case | by angle, θ 0.65 | relative, 80·10⁻⁴ (the default) | logs |", "| --- | --- | --- | --- |"]
    for name, key in cases:
        cells = []
        for log in (f"{folder}/bench-bh-{key}-angle.log", f"{folder}/bench-bh-{key}.log"):
            s, _ = summary_of(log)
            cells.append(f"{float(s['ms per step (median)']):.3f} ms, {float(s['interactions per step']):.3e} interactions, "
                         f"p99 {sci(s['force error / RMS accel: 99th percentile'])}, "
                         f"max {sci(s['force error / RMS accel: max'])}")
        lines.append(f"| {name} | {cells[0]} | **{cells[1]}** | `{folder}/bench-bh-{key}-angle.log`, "
                     f"`{folder}/bench-bh-{key}.log` |")
    return "\n".join(lines)


# (document, marker name, what writes the table between the markers)
DOC_TABLES = [("docs/barneshut.md", "relative-opening", relative_opening_table)]


def doc_markers(name, writer):
    return (f"<!-- {name}:begin (written by {writer}; do not edit by hand) -->", f"<!-- {name}:end -->")


def with_doc_table(markdown, file, name, table, writer="scripts/measured_figures.py"):
    begin, end = doc_markers(name, writer)
    b = markdown.find(f"<!-- {name}:begin")
    e = markdown.find(end)
    if b < 0 or e < b:
        raise Failure(f"{file}: no table between the markers\n  {begin}\n  {end}")
    return markdown[:b] + begin + "\n\n" + table + "\n\n" + markdown[e:]


def differences(path, expected):
    actual = open(os.path.join(ROOT, path), encoding="utf-8").read() if os.path.exists(os.path.join(ROOT, path)) else ""
    if actual == expected:
        return ""
    return "".join(difflib.unified_diff(actual.splitlines(True), expected.splitlines(True),
                                        f"{path} (committed)", f"{path} (from the logs)"))


def outputs(data):
    """{file: its text as the logs give it}."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import tour_table  # the documents' tour tables, from these figures
    out = {FIGURES_FILE: figures_json(data)}
    out[tour_table.DOC] = tour_table.with_tables(open(os.path.join(ROOT, tour_table.DOC), encoding="utf-8").read(),
                                                 data["figures"])
    out[BENCHMARKS_MD] = with_section(open(os.path.join(ROOT, BENCHMARKS_MD), encoding="utf-8").read(),
                                      markdown_section(data))
    for file, name, table in DOC_TABLES:
        text = out.get(file) or open(os.path.join(ROOT, file), encoding="utf-8").read()
        out[file] = with_doc_table(text, file, name, table())
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", action="append", default=[], metavar="DIR[@COMMIT]",
                        help="a GPU run kept under benchmarks/ (repeat; earlier runs win)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate and compare with the committed files instead of writing them")
    parser.add_argument("--tour-commands", action="store_true",
                        help="print the shell script that measures every Barnes-Hut tour step on a GPU")
    parser.add_argument("--bin", default="build/nbodylab", help="--tour-commands: the nbodylab binary")
    parser.add_argument("--out", default="benchmarks/h100/2026-11-27", help="--tour-commands: where the logs go")
    parser.add_argument("-n", type=int, default=TOUR_N, help="--tour-commands: bodies (default: the lab's on a GPU)")
    args = parser.parse_args()
    try:
        if args.tour_commands:
            sys.stdout.write(tour_commands(args.bin, args.out, args.n))
            return 0
        specs = args.run
        if not specs:
            if not args.check:
                raise Failure("name at least one --run")
            committed = json.load(open(os.path.join(ROOT, FIGURES_FILE)))
            specs = [f"{r['dir']}@{r['commit']}" if r.get("commit") else r["dir"] for r in committed["runs"]]
        data = generate([Run(spec) for spec in specs])
        texts = outputs(data)
        if args.check:
            diff = "".join(differences(path, text) for path, text in texts.items())
            if diff:
                sys.stdout.write(diff)
                raise Failure("the committed figures differ from what the logs give: run "
                              "scripts/measured_figures.py " + " ".join(f"--run {s}" for s in specs))
            print(f"{', '.join(texts)} match the logs ({len(data['figures'])} figures)")
            return 0
        for path, text in texts.items():
            os.makedirs(os.path.dirname(os.path.join(ROOT, path)) or ROOT, exist_ok=True)
            open(os.path.join(ROOT, path), "w", encoding="utf-8").write(text)
        print(f"wrote {', '.join(texts)} ({len(data['figures'])} figures)")
        return 0
    except (Failure, OSError, ValueError, KeyError) as e:
        print(f"measured_figures: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
