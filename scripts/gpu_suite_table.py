#!/usr/bin/env python3
"""The GPU suite's table of runs (scripts/gpu_suite.py runs it; scripts/gpu-suite.sh is the front door).

Every run of the suite is a Run below: its name (also its log's, $OUT/NAME.log), the part it belongs
to, the nbodylab command or test binary it runs, and the summary rows it feeds, each a Row with the
figure it reads from the run's files and the target that figure is held to. runs(ctx) returns the whole
table in the order the runs go; what a run needs of the one before it (a kernel cache folder, a saved
state, a figure) is in its before/after hooks and its command function, next to it.
"""
import glob
import json
import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import stall_figures

# The parts in the order they run; those marked default run when PARTS is not given.
PARTS = {
    "tests": "every test binary in the bundle, the gpu-labelled ones included (TESTS_FROM=NAME starts there)",
    "allpairs": "generated code, the SM clock, the 64k ladder (FULL=1: the 1M ladder, sweeps and scaling)",
    "barneshut": "the defaults at 1M, 4M, 10M and on the collision, opened by angle, monopoles, switches",
    "render": "headless render at 1M (interop and host copy), 10M, all-pairs, a few frames",
    "splat": "sprites against splat, sequential against overlapped frames, at 1M and 10M; pictures",
    "stallbh": "the stall measurement, Barnes-Hut half alone",
    "stalllists": "the stall measurement with a Barnes-Hut switch of two builds of nearly one speed",
    "stall": "the stall measurement: the lab while a toggle switches every second (about 4 minutes)",
    "sanitizer": "compute-sanitizer memcheck and racecheck on a small Barnes-Hut run, both builds",
    "ab": "A/B on the same state: all-pairs variants, a ladder rung, Barnes-Hut walks and opening angles",
    "profile": "Nsight Compute on the Barnes-Hut force kernel at 1M (PROFILE_MOMENTS, PROFILE_ARGS)",
    "bhsweep": "the force pass's shapes at 1M (BHSWEEP, BHSWEEP_N)",
    "collshapes": "the force pass's shapes on the collision at 1M and 10M beside the Plummer sphere",
    "groups": "where the group walk's time goes on the collision (bench groups)",
    "geometry": "hard geometry: tests, 20 seeds of the huge dynamic range, both builds at 1M and 10k",
    "long": "a long collision run at 1M (LONG_STEPS) and its end state with and without its ejecta",
    "teach": "both guided tours offscreen with their live scripts; the 10M picture check",
    "picture": "the default collision at 1M through the image check at t = 3, 6, 12",
    "merger": "the 65,536-body collision stepped from the tails bookmark to t = 70",
    "compare": "the bundled baseline build against this one, alternating A B A B (BASELINE_BIN at build)",
    "pace": "the lab never waits for a step: Sort off and all-pairs at 1M offscreen, drag, switch back",
    "kernelab": "kernel folders side by side with one binary (KERNELAB, KERNELAB_CASES)",
}
DEFAULT_PARTS = ["tests", "allpairs", "barneshut", "render", "stall", "sanitizer"]
LABEL_WIDTH = 58


# ---------------------------------------------------------------------------------------------------
# Reading figures out of a run's files. Each returns text; "n/a" when the file or the figure is not there.

def number_text(v):
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def table_figure(path, title, key_column, key, column):
    """The value in `column` of the row whose `key_column` is `key`, in the first bench table whose title
    holds `title` (a bench --json file: a list of tables with "title" and "rows")."""
    try:
        with open(path) as f:
            tables = json.load(f)
        for table in tables:
            if title in table["title"]:
                for row in table["rows"]:
                    cell = row.get(key_column)
                    # A number column reads 8.0 in the JSON where the caller names row 8.
                    if str(cell) == key or (isinstance(cell, float) and f"{cell:g}" == key):
                        return number_text(row.get(column))
    except Exception:
        return "n/a"
    return "n/a"


def json_figure(path, *keys, digits=None):
    """A value of a JSON object file (a render --report), by its keys from the top."""
    try:
        with open(path) as f:
            v = json.load(f)
        for k in keys:
            v = v[k]
        return str(round(v, digits)) if digits is not None else number_text(v)
    except Exception:
        return "n/a"


Text = Callable[[Path], str]  # what a summary row prints, from the run's folder


def table(file, title, key_column, key, column) -> Text:
    return lambda out: table_figure(out / file, title, key_column, key, column)


def value(file, *keys, digits=None) -> Text:
    return lambda out: json_figure(out / file, *keys, digits=digits)


def joined(template, *parts: Text) -> Text:
    return lambda out: template.format(*(p(out) for p in parts))


def bench_ms(file):  # a bench run's step time, its Barnes-Hut stages summed
    return table(file, "Per stage", "stage", "total", "ms")


def error_p99(file):
    return table(file, "Summary", "quantity", "force error: 99th percentile", "value")


def error_max(file):
    return table(file, "Summary", "quantity", "force error: max", "value")


def frame_line(file) -> Text:
    def text(out):
        try:
            with open(out / file) as f:
                j = json.load(f)
            return "%.2f / %.2f ms (%.1f FPS); sim %.2f, render %.2f, splat %.2f ms" % (
                j["frame_interval"]["median_ms"], j["frame_interval"]["p95_ms"], j["fps"], j["simulate"]["median_ms"],
                j["render"]["median_ms"], j["splat"]["median_ms"])
        except Exception:
            return "n/a"
    return text


def bhsweep_line(path) -> str:
    try:
        with open(path) as f:
            tables = json.load(f)

        def val(title, key_col, key, col):
            for t in tables:
                if title in t["title"]:
                    for r in t["rows"]:
                        if str(r.get(key_col)) == key:
                            return r.get(col)
        total = val("Per stage", "stage", "total", "ms")
        force = val("Per stage", "stage", "force", "ms")
        p99 = val("Summary", "quantity", "force error: 99th percentile", "value")
        worst = val("Summary", "quantity", "force error: max", "value")
        inter = val("Summary", "quantity", "interactions per step", "value")
        n = val("Summary", "quantity", "bodies", "value")
        per_body = float(inter) / float(n)
        return "%.3f / %.3f ms, p99 %.2e, max %.2e, %.0f" % (total, force, float(p99), float(worst), per_body)
    except Exception:
        return "n/a"


def stall_line(file, swap=False) -> Text:
    def text(out):
        try:
            with open(out / file) as f:
                figures = json.load(f)
            return stall_figures.swap_row(figures) if swap else stall_figures.row(figures)
        except Exception:
            return "n/a"
    return text


# ---------------------------------------------------------------------------------------------------
# The table.

@dataclass
class Row:
    """One line of the summary: a label and the figure(s) it prints, read from the run's folder."""
    label: str
    text: Text
    target: str = ""        # what the figure is held to, shown with the label: "<= 3.0"
    headline: bool = False  # printed even when its run did not run (as n/a, saying what produces it)
    needs: str = ""         # the file the row reads; a row whose file is absent is left out (headlines: n/a)
    group: str = ""         # rows printed together under a heading of their own (compare, kernelab)

    def label_text(self):
        return f"{self.label} (target {self.target})" if self.target else self.label


@dataclass
class Run:
    name: str     # the log is $OUT/NAME.log
    part: str
    argv: object  # the command's words (Context.cmd), or a function of the context returning them
    rows: list = field(default_factory=list)
    env: dict = field(default_factory=dict)
    only: Optional[Callable] = None    # f(ctx) -> bool: whether it runs at all (FULL=1, a tool present...)
    only_text: str = ""                # that condition, in words (for `list`)
    before: Optional[Callable] = None  # f(ctx) -> bool: set up; False skips the run (nothing recorded)
    after: Optional[Callable] = None   # f(ctx, rc): keep what it made (move a frame, compute figures)
    test: bool = False                 # a test binary: a failure fails the suite

    def command(self, ctx):
        return self.argv(ctx) if callable(self.argv) else list(self.argv)


class Context:
    """What the table is made from: the sizes (QUICK), the folders and the environment."""

    def __init__(self, env, root, bundle, out, display=False):
        self.env = env
        self.root, self.bundle, self.out = Path(root), Path(bundle), Path(out)
        self.quick = env.get("QUICK", "0") not in ("", "0")
        self.full = env.get("FULL", "0") not in ("", "0")
        self.parts = env.get("PARTS", "").split() or list(DEFAULT_PARTS)
        self.big, self.medium, self.huge = (262144, 1048576, 2000000) if self.quick else (1048576, 4194304, 10000000)
        self.tmp = Path(env.get("TMPDIR", "/tmp"))
        self.display = display  # `list`: commands with $BUNDLE and $OUT in place of this machine's paths
        self.scratch = {}       # what one run leaves for the next (a kernel cache folder)
        self.ok = {}            # run name -> whether it succeeded

    def path(self, p):
        if not self.display:
            return str(p)
        text = str(p)
        for real, shown in ((self.out, "$OUT"), (self.bundle, "$BUNDLE"), (self.root, ".")):
            text = text.replace(str(real), shown)
        return text

    @property
    def nbodylab(self):
        return self.path(self.bundle / "bin" / "nbodylab")

    def bin(self, name):
        return self.path(self.bundle / "bin" / name)

    def cmd(self, template, **extra):
        """A command written as a shell line: split into words as the shell would ('' is an empty word),
        then each word filled in from {nbodylab}, {bin} (the bundle's bin/), {out}, {root}, {baseline} (the
        bundled earlier build), {big}, {medium}, {huge} (the sizes) and `extra`."""
        fields = dict(nbodylab=self.nbodylab, bin=self.path(self.bundle / "bin"), out=self.path(self.out),
                      root=self.path(self.root), baseline=self.path(self.baseline()), big=self.big,
                      medium=self.medium, huge=self.huge, **extra)
        return [word.format(**fields) for word in shlex.split(template)]

    def baseline(self):
        return self.bundle / "baseline" / "nbodylab"

    def has_baseline(self):
        return self.display or os.access(self.baseline(), os.X_OK)

    def want(self, part):
        return part in self.parts


def move_last_frame(folder, to):
    """Keeps the last frame_*.png of `folder` as `to` and removes the folder."""
    frames = sorted(glob.glob(os.path.join(folder, "frame_*.png")))
    if frames:
        shutil.move(frames[-1], to)
        shutil.rmtree(folder, ignore_errors=True)


def take_last_frame_png(ctx, to):
    """A render run whose script takes a screenshot leaves last-frame.png where it ran (the root)."""
    shot = ctx.root / "last-frame.png"
    if shot.exists():
        shutil.move(str(shot), to)


def tests_part(ctx):
    pattern = str(ctx.bundle / "bin" / "*_test*")
    binaries = sorted(glob.glob(pattern)) if not ctx.display else [pattern]
    start = ctx.env.get("TESTS_FROM", "")
    runs = []
    for t in binaries:
        name = os.path.basename(t)
        if start and name < start:
            continue
        label = "test-<binary>" if ctx.display else f"test-{name}"
        runs.append(Run(label, "tests", [ctx.path(t), "--gtest_brief=1"], test=True))
    return runs


def allpairs_part(ctx):
    full = dict(only=lambda c: c.full, only_text="FULL=1")
    ladder = "{nbodylab} bench ladder --scene plummer -n {n} --json {out}/{file}"
    return [
        Run("kernels-list", "allpairs", ctx.cmd("{nbodylab} kernels --list --json {out}/kernels.json")),
        Run("bench-clock", "allpairs", ctx.cmd("{nbodylab} bench clock")),
        Run("bench-ladder-64k", "allpairs", ctx.cmd(ladder, n=65536, file="ladder-64k.json"),
            rows=[Row("all-pairs ladder best, n=65536: interactions/s",
                      table("ladder-64k.json", "ladder", "rung", "best", "interactions_per_s"), headline=True,
                      needs="ladder-64k.json")]),
        Run("bench-ladder-1m", "allpairs", ctx.cmd(ladder, n=ctx.big, file="ladder-1m.json"),
            rows=[Row(f"all-pairs ladder best, n={ctx.big}: interactions/s",
                      table("ladder-1m.json", "ladder", "rung", "best", "interactions_per_s"), headline=True,
                      needs="ladder-1m.json")], **full),
        Run("bench-sweep-64k", "allpairs",
            ctx.cmd("{nbodylab} bench sweep --scene plummer -n 65536 --unrolls 8,16,32,64 --block-sizes 128,256,512 "
                    "--bodies-per-thread-values 1,2,4,6,8 --json {out}/sweep-64k.json"), **full),
        Run("bench-sweep-1m", "allpairs",
            ctx.cmd("{nbodylab} bench sweep --scene plummer -n {big} --unrolls 16,32 --block-sizes 128,256 "
                    "--bodies-per-thread-values 4,6,8 --steps 3 --json {out}/sweep-1m.json"), **full),
        Run("bench-scaling", "allpairs", ctx.cmd("{nbodylab} bench scaling --scene plummer --json {out}/scaling.json"),
            **full),
    ]


def barneshut_part(ctx):
    """The defaults (relative opening at 80e-4, adaptive quadrupoles) at three sizes with a time target and
    on the collision, the same opened by the angle 0.65 beside them, the tutorial's monopoles at theta 0.5."""
    def run(name, scene, n, steps, warmup, sample, extra="", rows=()):  # extra: the run's own options
        return Run(name, "barneshut",
                   ctx.cmd("{nbodylab} bench --algo barneshut --backend gpu --scene {scene} -n {n} " + extra +
                           " --steps {steps} --warmup {warmup} --error-sample {sample} --json {out}/{file}",
                           scene=scene, n=n, steps=steps, warmup=warmup, sample=sample,
                           file=name.removeprefix("bench-") + ".json"), rows=list(rows))

    def opened(size, how, label):  # the step time with the force error, one row per size and opening test
        file = f"bh-{size}{how}.json"
        return Row(f"Barnes-Hut {size}, {label}: ms/step",
                   joined("{} (p99 {}, max {})", bench_ms(file), error_p99(file), error_max(file)), needs=file)

    def headline(n, file, target):
        return [Row(f"Barnes-Hut n={n}, defaults: ms/step", bench_ms(file), target=target, headline=True, needs=file),
                Row(f"Barnes-Hut n={n}, defaults: force error p99 / max",
                    joined("{} / {}", error_p99(file), error_max(file)), target="<= 2e-3 / 2e-2", headline=True,
                    needs=file)]

    relative, angle = "relative 80e-4", "--bh_opening geometric"
    big, medium, huge = ctx.big, ctx.medium, ctx.huge
    return [
        run("bench-bh-1m", "plummer", big, 10, 2, 2000, rows=headline(big, "bh-1m.json", "<= 3.0") +
            [opened("1m", "", relative)]),
        run("bench-bh-4m", "plummer", medium, 5, 1, 2000,
            rows=[Row(f"Barnes-Hut n={medium}: ms/step", bench_ms("bh-4m.json"), target="<= 12", needs="bh-4m.json"),
                  opened("4m", "", relative)]),
        run("bench-bh-10m", "plummer", huge, 3, 1, 4000, rows=headline(huge, "bh-10m.json", "<= 25") +
            [opened("10m", "", relative)]),
        run("bench-bh-collision-1m", "collision", big, 10, 2, 2000, rows=[opened("collision-1m", "", relative)]),
        run("bench-bh-1m-angle", "plummer", big, 10, 2, 2000, angle, rows=[opened("1m", "-angle", "theta 0.65")]),
        run("bench-bh-4m-angle", "plummer", medium, 5, 1, 2000, angle, rows=[opened("4m", "-angle", "theta 0.65")]),
        run("bench-bh-10m-angle", "plummer", huge, 3, 1, 4000, angle, rows=[opened("10m", "-angle", "theta 0.65")]),
        run("bench-bh-collision-1m-angle", "collision", big, 10, 2, 2000, angle,
            rows=[opened("collision-1m", "-angle", "theta 0.65")]),
        run("bench-bh-1m-monopole", "plummer", big, 10, 2, 2000, angle + " --theta 0.5 --bh_moments monopole",
            rows=[Row(f"Barnes-Hut n={big}, monopoles at theta 0.5: ms/step",
                      joined("{} (p99 {})", bench_ms("bh-1m-monopole.json"), error_p99("bh-1m-monopole.json")),
                      needs="bh-1m-monopole.json")]),
        run("bench-bh-insertion-1m", "plummer", big, 5, 1, 1000, "--bh_build insertion --bh_traversal warp"),
        Run("bench-bhswitches", "barneshut",
            ctx.cmd("{nbodylab} bench bhswitches --scene plummer -n {big} --steps 3 --warmup 1 "
                    "--json {out}/bhswitches.json")),
        # 30 steps per point (its default), the faster of 1 and 4 bodies/thread on the all-pairs side.
        Run("bench-crossover", "barneshut",
            ctx.cmd("{nbodylab} bench crossover --scene plummer --json {out}/crossover.json")),
    ]


def render_part(ctx):
    big, huge = ctx.big, ctx.huge
    return [
        Run("render-1m", "render",
            ctx.cmd("{nbodylab} render --scene collision --algo barneshut -n {big} --frames 240 --size 1920x1080 "
                    "--benchmark --report {out}/render-1m.json"),
            rows=[Row(f"render n={big} 1920x1080 (interop): FPS, wall-clock interval", value("render-1m.json", "fps"),
                      needs="render-1m.json"),
                  Row(f"render n={big}: parts' sum as a rate (diagnostic)", value("render-1m.json", "interactive_fps"),
                      needs="render-1m.json"),
                  Row(f"render n={big}: vertex path", value("render-1m.json", "vertex_path"), needs="render-1m.json")]),
        Run("render-1m-host-copy", "render",
            ctx.cmd("{nbodylab} render --scene collision --algo barneshut -n {big} --frames 120 --size 1920x1080 "
                    "--benchmark --no-interop --report {out}/render-1m-host.json")),
        Run("render-10m", "render",
            ctx.cmd("{nbodylab} render --scene collision --algo barneshut -n {huge} --frames 40 --size 1920x1080 "
                    "--benchmark --report {out}/render-10m.json"),
            rows=[Row(f"render n={huge} 1920x1080: wall-clock",
                      joined("{} FPS; simulate {} ms, render {} ms", value("render-10m.json", "fps"),
                             value("render-10m.json", "simulate", "median_ms", digits=2),
                             value("render-10m.json", "render", "median_ms", digits=2)), needs="render-10m.json")]),
        Run("render-allpairs", "render",
            ctx.cmd("{nbodylab} render --scene collision --algo allpairs -n 131072 --frames 120 --size 1920x1080 "
                    "--benchmark --report {out}/render-allpairs.json")),
        # --overwrite: a re-run into the same $OUT replaces the earlier frames instead of being refused.
        Run("render-frames", "render",
            ctx.cmd("{nbodylab} render --scene collision --algo barneshut -n {big} --frames 3 --steps-per-frame 100 "
                    "--size 1280x720 --out {out}/frames --overwrite")),
    ]


def splat_part(ctx):
    """The renderers: sprites against splat, sequential against overlapped frames, at 1M and 10M
    (collision, 1080p, interop); a 10M frame splatted through the image check; a 1M frame of each."""
    runs = []
    for n in (ctx.big, ctx.huge):
        frames = 40 if n > ctx.big else 120
        for path in ("sprites", "splat"):
            for order in ("sequential", "overlapped"):
                name = f"frame-{n}-{path}-{order}"
                rows = [Row(f"frame n={n} {path} {order}: interval med/p95, sim, render, splat",
                            frame_line(name + ".json"), needs=name + ".json")]
                if n == ctx.big and order == "overlapped":
                    rows.insert(0, Row(f"render n={n} collision 1920x1080, {path}: FPS", value(name + ".json", "fps"),
                                       headline=True, needs=name + ".json"))
                sequential = " --sequential" if order == "sequential" else ""
                runs.append(Run(name, "splat",
                                ctx.cmd("{nbodylab} render --scene collision --algo barneshut -n {n} --frames {frames} "
                                        "--warmup 5 --size 1920x1080 --benchmark --renderer {path}" + sequential +
                                        " --report {out}/{name}.json", n=n, frames=frames, path=path, name=name),
                                rows=rows))
    # The 10M frame at t = 6 splatted, through the image check (the teach part draws it with sprites).
    runs.append(Run("picture-10m-splat", "splat",
                    ctx.cmd("{nbodylab} render --scene collision --algo barneshut -n {huge} --steps-per-frame 10 "
                            "--frames 61 --size 1920x1080 --renderer splat --check-picture --benchmark --warmup 2 "
                            "--report {out}/picture-10m-splat.json "
                            "--script {root}/assets/scripts/last-frame-screenshot.json"),
                    after=lambda c, rc: take_last_frame_png(c, c.out / "picture-10m-t6-splat.png")))
    # The lab with its panel at 1M, the defaults: frames handed over at 240 Hz (a 240 Hz display), where
    # every frame shows a new step when the step and the frame's drawing fit 4.17 ms; and as fast as it
    # can, where frames without a new state reuse the bodies.
    for name, refresh in (("lab-1m-240hz", "--refresh 240 "), ("lab-1m-unpaced", "")):
        runs.append(Run(name, "splat",
                        ctx.cmd("{nbodylab} --offscreen --size 1920x1080 " + refresh + "--backend gpu --scene collision "
                                "--algo barneshut -n {big} --frames 2400 --trace {out}/" + name + ".csv"),
                        after=lab_pace(name + ".csv", "--from", "2", "--to", "8"),
                        rows=[Row(f"{name}: display, steps", text_file(name + ".txt"), needs=name + ".txt")]))
    for path in ("sprites", "splat"):
        # The 1M frames at t = 6 (0, 3, 6), both renderers, through the image check.
        runs.append(Run(f"frame-picture-{path}", "splat",
                        ctx.cmd("{nbodylab} render --scene collision --algo barneshut -n {big} --frames 3 "
                                "--steps-per-frame 300 --size 1920x1080 --renderer {path} "
                                "--out {out}/frame-picture-{path} --overwrite --check-picture", path=path)))
    return runs


def stall_runs(ctx, part, name, algo, n, labels, toggling="toggle-every-second.json"):
    """The stall measurement of one configuration (docs/scripts.md): the whole lab offscreen, first steady
    for 31 s (as long as the toggling: the collision's frames slow down as it evolves), then with
    `toggling` twice, with an empty kernel cache (cold) and with the cache that run filled (disk). Their
    traces give stall-NAME.json (scripts/stall_figures.py)."""
    lab = "{nbodylab} --offscreen --size 1920x1080 --backend gpu --scene collision --algo {algo} -n {n} " \
          "--script {script} --trace {out}/stall-{name}-{kind}.csv"
    steady_script = ctx.out / "stall-steady.json"
    key = f"stall-{name}-cache"

    def fresh_cache(c):
        if key in c.scratch:
            shutil.rmtree(c.scratch[key], ignore_errors=True)
        c.scratch[key] = tempfile.mkdtemp(prefix="nbodylab-stall-cache.", dir=c.tmp)
        return True

    def steady_setup(c):
        steady_script.write_text('{"description": "steady: no changes for 31 s", "events": [{"time": 31, "action": '
                                 '"quit"}]}\n')
        return fresh_cache(c)

    def figures(c, rc):
        shutil.rmtree(c.scratch.pop(key, ""), ignore_errors=True)
        (c.out / f"stall-{name}.json").write_text(
            json.dumps(stall_figures.figures(str(c.out / f"stall-{name}")), indent=1) + "\n")

    def command(kind, script):
        return ctx.cmd(lab, algo=algo, n=n, script=ctx.path(script), name=name, kind=kind)

    cache = {"NBODYLAB_KERNEL_CACHE": lambda c: c.scratch.get(key, "")}
    what, swaps = labels  # the rows' labels: the configuration, and its swaps' own costs
    return [
        Run(f"stall-{name}-steady", part, command("steady", steady_script), env=cache, before=steady_setup),
        Run(f"stall-{name}-cold", part, command("cold", toggling), env=cache, before=fresh_cache),
        Run(f"stall-{name}-disk", part, command("disk", toggling), env=cache, after=figures,
            rows=[Row(f"stall, {what}", stall_line(f"stall-{name}.json"), needs=f"stall-{name}.json"),
                  Row(f"stall, {swaps}: the swap frames' own costs", stall_line(f"stall-{name}.json", True),
                      needs=f"stall-{name}.json")]),
    ]


def write_lists_script(path):
    """A lab script: the Barnes-Hut list capacity 512 <-> 256 every second for 30 s."""
    events = [{"time": t, "action": "set", "settings": {"toggles": {"bh_list_capacity": 512 if t % 2 else 256}}}
              for t in range(1, 31)]
    events += [{"time": 31, "action": "stats"}, {"time": 31, "action": "quit"}]
    with open(path, "w") as f:
        json.dump({"description": "Barnes-Hut lists of 512 <-> 256 every second for 30 s", "events": events}, f,
                  indent=1)


def stall_parts(ctx):
    big = ctx.big
    bh = (f"Barnes-Hut n={big}, rsqrtf off<->on every 1 s", f"Barnes-Hut n={big}")
    runs = stall_runs(ctx, "stallbh", "barneshut-1m", "barneshut", big, bh)
    for r in runs:  # the Barnes-Hut half alone, when the whole stall part does not run it
        r.only, r.only_text = (lambda c: not c.want("stall")), "without the stall part"
    # A Barnes-Hut switch whose two builds run at nearly the same speed (lists of 256 or 512: 5.16 and
    # 5.47 ms per step at 1M on the H200), so the whole run's p95 measures swaps, not the slower variant;
    # and the rsqrtf pair's own speeds on the same scene, to say what its toggling run's frames carry.
    lists_script = ctx.out / "toggle-lists.json"
    lists = stall_runs(ctx, "stalllists", "barneshut-1m-lists", "barneshut", big,
                       (f"Barnes-Hut n={big}, lists 512<->256 every 1 s", f"Barnes-Hut n={big} lists"), lists_script)
    lists[0].before = (lambda first: lambda c: write_lists_script(lists_script) or first(c))(lists[0].before)
    runs += lists
    for rs in ("1", "0"):
        file = f"bench-collision-1m-rsqrt{rs}.json"
        runs.append(Run(f"bench-collision-1m-rsqrt{rs}", "stalllists",
                        ctx.cmd("{nbodylab} bench --algo barneshut --backend gpu --scene collision -n {big} --bh_rsqrt "
                                "{rs} --steps 20 --warmup 2 --error-sample 1000 --json {out}/{file}", rs=rs, file=file),
                        rows=[Row(f"Barnes-Hut collision n={big}, bh_rsqrt {rs}: ms/step",
                                  joined("{} (force {} ms)",
                                         table(file, "Summary", "quantity", "ms per step (median)", "value"),
                                         table(file, "Per stage", "stage", "force", "ms")), needs=file)]))
    runs += stall_runs(ctx, "stall", "allpairs-65536", "allpairs", 65536,
                       ("all-pairs n=65536, unroll 8<->32 every 1 s", "all-pairs n=65536"))
    runs += stall_runs(ctx, "stall", "barneshut-1m", "barneshut", big, bh)
    # The swap path in isolation: every kernel of a swapped-in build loaded before its first launch, and the
    # swap frame waiting for no other GPU work (a gate kernel on another stream).
    runs.append(Run("stall-swap-test", "stall", ctx.cmd("{bin}/cuda_swap_gpu_test")))
    return runs


def sanitizer_part(ctx):
    def present(c):
        return c.display or shutil.which("compute-sanitizer") is not None

    runs = []
    for tool in ("memcheck", "racecheck"):
        for build in ("morton", "insertion"):
            runs.append(Run(f"sanitizer-{tool}-{build}", "sanitizer",
                            ctx.cmd("compute-sanitizer --tool {tool} --error-exitcode 9 {nbodylab} bench "
                                    "--algo barneshut --backend gpu --scene plummer -n 10000 --bh_build {build} "
                                    "--steps 2 --warmup 0 --error-sample 0", tool=tool, build=build),
                            only=present, only_text="where compute-sanitizer is"))
    # A NaN in the first step, both builds, every walk, under memcheck and racecheck: the test binary runs
    # itself under the sanitizer; the tests part runs it with the rest of the binary.
    runs.append(Run("sanitizer-hard-cases", "sanitizer",
                    ctx.cmd("{bin}/cuda_barneshut_gpu_test --gtest_filter=*UnderMemcheckAndRacecheck*"),
                    only=lambda c: present(c) and not c.want("tests"),
                    only_text="where compute-sanitizer is, without the tests part"))
    return runs


def ab_part(ctx):
    """A/B on the same state: B's forces computed from A's state every step."""
    runs = []
    for name, algo, n, steps, warmup, a, b in (
            ("ab-unroll", "allpairs", 65536, 40, 3, "unroll=8", "unroll=128"),
            ("ab-rung10", "allpairs", 65536, 40, 3, "", "rung=10"),
            ("ab-bh-walk", "barneshut", ctx.big, 20, 2, "bh_traversal=group", "bh_traversal=warp"),
            ("ab-bh-theta", "barneshut", ctx.big, 20, 2, "bh_opening=geometric,theta=0.5",
             "bh_opening=geometric,theta=0.7")):
        file = name + ".json"
        speedup = [table(file, "A/B on the same state", "stage", "force", column)
                   for column in ("speedup", "speedup_low", "speedup_high")]
        difference = table(file, "A/B forces", "quantity", "B vs A: ||aB - aA|| / ||aA|| (median)", "value")
        runs.append(Run(name, "ab",
                        ctx.cmd("{nbodylab} bench --algo {algo} --backend gpu --scene plummer -n {n} --steps {steps} "
                                "--warmup {warmup} --compare '{a}' '{b}' --json {out}/{file}", algo=algo, n=n,
                                steps=steps, warmup=warmup, a=a, b=b, file=file),
                        rows=[Row(f"{name}: A/B speed-up, force (or step total)",
                                  joined("{} (95%: {} .. {}); B vs A force {}", *speedup, difference), needs=file)]))
    return runs


def profile_part(ctx):
    """Nsight Compute on the Barnes-Hut force kernel at 1M: where its time goes (issue slots, stall
    reasons, occupancy, shared-memory traffic). --clock-control none: the card's clocks as found."""
    def present(c):
        return c.display or shutil.which("ncu") is not None

    runs = []
    for moments in ctx.env.get("PROFILE_MOMENTS", "monopole").split():
        report = ctx.out / f"ncu-force-1m-{moments}"
        source = ctx.out / f"ncu-force-1m-{moments}-source.csv"
        extra = shlex.split(ctx.env.get("PROFILE_ARGS", ""))
        if moments != "monopole":
            extra += ["--bh_moments", moments]

        def export_source(c, report=report, source=source):  # the report's SASS lines with their counters, as CSV
            with open(source, "w") as csv_file, open(str(source).replace(".csv", ".err"), "w") as err:
                return subprocess.run(["ncu", "-i", f"{report}.ncu-rep", "--page", "source", "--csv", "--print-source",
                                       "sass"], stdout=csv_file, stderr=err).returncode == 0

        runs.append(Run(f"ncu-force-1m-{moments}", "profile",
                        ctx.cmd("ncu --clock-control none --kernel-name bh_force --launch-skip 3 --launch-count 1 "
                                "--set full --import-source no --export {report} --force-overwrite {nbodylab} bench "
                                "--algo barneshut --backend gpu --scene plummer -n {big} --steps 2 --warmup 1 "
                                "--error-sample 0", report=ctx.path(report)) + extra,
                        only=present, only_text="where ncu is"))
        runs.append(Run(f"ncu-hotspots-1m-{moments}", "profile",
                        ctx.cmd("python3 {root}/scripts/ncu_hotspots.py {source}", source=ctx.path(source)),
                        before=export_source, only=present, only_text="where ncu is"))
    return runs


def bhsweep_part(ctx):
    """The force pass's shapes at 1M: moment order x group size x list capacity x theta, each a plain
    bench run. BHSWEEP="monopole 64 256 0.5;adaptive 64 256 0.65" (semicolons between shapes) replaces
    the list; BHSWEEP_N the bodies."""
    shapes = ["monopole 32 512 0.5", "monopole 64 512 0.5", "monopole 64 256 0.5", "monopole 96 256 0.5",
              "monopole 128 256 0.5", "monopole 64 256 0.55", "adaptive 64 256 0.6", "adaptive 64 256 0.65",
              "adaptive 64 256 0.7", "adaptive 128 256 0.65", "adaptive 64 512 0.65", "quadrupole 64 256 0.65",
              "quadrupole 64 256 0.7"]
    if ctx.env.get("BHSWEEP"):
        shapes = [shape for shape in ctx.env["BHSWEEP"].split(";") if shape.strip()]
    n = ctx.env.get("BHSWEEP_N") or str(ctx.big)
    runs = []
    for shape in shapes:
        moments, size, lists, theta = shape.split()
        name = f"bhsweep-{n}-{moments}-{size}-{lists}-{theta}"
        runs.append(Run(name, "bhsweep",
                        ctx.cmd("{nbodylab} bench --algo barneshut --backend gpu --scene plummer -n {n} "
                                "--theta {theta} --bh_moments {moments} --bh_group_size {size} "
                                "--bh_list_capacity {lists} --steps 5 --warmup 1 --error-sample 1000 "
                                "--json {out}/{name}.json", n=n, theta=theta,
                                moments=moments, size=size, lists=lists, name=name),
                        rows=[Row(f"{name}: total/force ms, p99, max, inter./body",
                                  (lambda file: lambda out: bhsweep_line(out / file))(name + ".json"),
                                  needs=name + ".json")]))
    return runs


def collshapes_part(ctx):
    """The force pass's shapes on the lab's default scene (the collision: two disks, tails, ejecta) next
    to the Plummer sphere the defaults were chosen on, at 1M and 10M."""
    runs = []
    for n in (ctx.big, ctx.huge):
        steps = 8 if n > ctx.big else 20
        for size, lists in (("64", "256"), ("32", "512"), ("32", "256"), ("96", "256")):
            name = f"coll-{n}-monopole-{size}-{lists}"
            file = name + ".json"
            runs.append(Run(name, "collshapes",
                            ctx.cmd("{nbodylab} bench --algo barneshut --backend gpu --scene collision -n {n} "
                                    "--bh_moments monopole --bh_group_size {size} --bh_list_capacity {lists} --steps "
                                    "{steps} --warmup 2 --error-sample 1000 --json {out}/{file}", n=n, size=size,
                                    lists=lists, steps=steps, file=file),
                            rows=[Row(f"{name}: ms/step, force ms",
                                      joined("{}, {}",
                                             table(file, "Summary", "quantity", "ms per step (median)", "value"),
                                             table(file, "Per stage", "stage", "force", "ms")), needs=file)]))
        runs.append(Run(f"plummer-{n}-monopole-64-256", "collshapes",
                        ctx.cmd("{nbodylab} bench --algo barneshut --backend gpu --scene plummer -n {n} "
                                "--steps {steps} --warmup 2 --error-sample 1000 --json {out}/plummer-{n}.json",
                                n=n, steps=steps)))
    return runs


def groups_part(ctx):
    """Where the group walk's time goes on the collision: each force group's walk replayed on the host."""
    return [Run(f"groups-{n}-{g}", "groups",
                ctx.cmd("{nbodylab} bench groups --backend gpu --scene collision -n {n} --bh_group_size {g} --steps 1 "
                        "--warmup 1 --top 15 --json {out}/groups-{n}-{g}.json", n=n, g=g))
            for g in ("64", "32") for n in (ctx.big, ctx.huge)]


def geometry_part(ctx):
    """Hard geometry as tests (both builds, operation counts and error against the sphere), and the
    clump-in-a-halo case on 20 fresh seeds (it failed for a few seeds before cells' moments were summed
    from their children)."""
    runs = [Run("geometry-tests", "geometry", ctx.cmd("{bin}/cuda_barneshut_geometry_gpu_test --gtest_brief=1"),
                only=lambda c: not c.want("tests"), only_text="without the tests part"),
            Run("geometry-huge-range-20-seeds", "geometry",
                ctx.cmd("{bin}/cuda_barneshut_gpu_test --gtest_filter=*HugeDynamicRange* --gtest_repeat=20 "
                        "--gtest_brief=1"))]
    geometry = "{nbodylab} bench geometry --backend gpu -n {n} --bh_build {build} --steps 5 --warmup 1 " \
               "--error-sample 1000 --json {out}/{file}"
    for build in ("morton", "insertion"):
        file = f"geometry-1m-{build}.json"
        runs.append(Run(f"geometry-1m-{build}", "geometry", ctx.cmd(geometry, n=1048575, build=build, file=file),
                        rows=[Row(f"geometry 1M {build}: far outlier",
                                  joined("{} x Plummer (ms); line err/RMS p99 {} x",
                                         table(file, "hard geometry", "case", "far outlier", "ms_ratio"),
                                         table(file, "hard geometry", "case", "line", "error_p99_ratio")),
                                  needs=file)]))
        runs.append(Run(f"geometry-10k-{build}", "geometry",
                        ctx.cmd(geometry, n=10000, build=build, file=f"geometry-10k-{build}.json")))
    return runs


def long_part(ctx):
    """A long collision run whose step time must stay within +5% as ejecta spread; then where the
    slowdown comes from: the end state as it is, and without its farthest 1% (the ejecta, which widen the
    box), at the run's softening and time step."""
    end_state, trimmed = ctx.tmp / "nbl-long-end.tipsy", ctx.tmp / "nbl-long-end-99.tipsy"
    runs = [Run("long-collision-1m", "long",
                ctx.cmd("{nbodylab} bench --algo barneshut --backend gpu --scene collision -n {big} --steps {steps} "
                        "--warmup 0 --error-sample 1000 --save {end} --json {out}/long-collision-1m.json",
                        steps=ctx.env.get("LONG_STEPS", "24000"), end=ctx.path(end_state)),
                rows=[Row("long collision 1M: last eighth / first",
                          table("long-collision-1m.json", "Over the run", "part", "8", "ratio"), target="<= 1.05",
                          needs="long-collision-1m.json")]),
            Run("long-trim", "long", ctx.cmd("python3 scripts/tipsy_trim.py {end} 99 {trimmed}",
                                             end=ctx.path(end_state), trimmed=ctx.path(trimmed)),
                only=lambda c: c.display or end_state.exists(), only_text="when the long run saved its end state")]

    def eps(c):  # the long run's softening, as its JSON states it
        return "$EPS" if c.display else table_figure(c.out / "long-collision-1m.json", "Summary", "quantity",
                                                     "softening", "value")

    after_trim = dict(only=lambda c: c.display or c.ok.get("long-trim", False), only_text="after long-trim")
    for state in (end_state, trimmed):
        stem = state.name.removesuffix(".tipsy")
        file = f"long-end-{stem}.json"
        load = "--scene collision --load {state} --eps {eps} --dt 0.01"
        bench = "{nbodylab} bench --algo barneshut --backend gpu " + load + \
                " --steps 20 --warmup 2 --error-sample 1000 --json {out}/{file}"
        # Which force groups' walks the end state's time goes to (the costliest, replayed on the host).
        groups = "{nbodylab} bench groups --backend gpu " + load + \
                 " --steps 1 --warmup 1 --top 12 --json {out}/long-groups-{stem}.json"
        runs.append(Run(f"long-end-{stem}", "long",
                        (lambda s: lambda c: c.cmd(bench, state=c.path(s), eps=eps(c), file=file))(state),
                        rows=[Row(f"long collision 1M: end state ({stem})",
                                  joined("{} ms/step, {} interactions/step",
                                         table(file, "Summary", "quantity", "ms per step (median)", "value"),
                                         table(file, "Summary", "quantity", "interactions per step", "value")),
                                  needs=file)], **after_trim))
        runs.append(Run(f"long-groups-{stem}", "long",
                        (lambda s, st: lambda c: c.cmd(groups, state=c.path(s), eps=eps(c), stem=st))(state, stem),
                        **after_trim))
    return runs


def teach_part(ctx):
    """Both guided tours in the offscreen lab with their live scripts (each step's live A/B speed-up is
    printed by the script's `stats`), each under a time limit: a tour that stops making progress must not
    take the rest of the run. The image check on a 10M frame at t = 6, beside the earlier renderer (the
    bundled baseline: additive sprites at a fixed exposure) on the same 1M frame."""
    tour = "timeout 300 {nbodylab} --offscreen --size 1920x1080 --backend gpu --algo {algo} -n {n} " \
           "--script tour-{algo}-live.json --trace {out}/tour-{algo}.csv"
    baseline = dict(only=lambda c: c.has_baseline(), only_text="with a baseline bundled")
    def predictions(algo):  # the live scripts export the predict-then-measure table where the lab started
        def move(c, rc):
            for ext in (".csv", ".md"):
                made = c.root / f"tour-{algo}-predictions{ext}"
                if made.exists():
                    shutil.move(str(made), c.out / made.name)
        return move
    return [
        Run("tour-allpairs", "teach", ctx.cmd(tour, algo="allpairs", n=65536), after=predictions("allpairs")),
        Run("tour-barneshut", "teach", ctx.cmd(tour, algo="barneshut", n=ctx.big), after=predictions("barneshut")),
        Run("picture-10m", "teach",
            ctx.cmd("{nbodylab} render --scene collision --algo barneshut -n {huge} --steps-per-frame 10 --frames 61 "
                    "--size 1920x1080 --check-picture --benchmark --warmup 2 --report {out}/picture-10m.json "
                    "--script {root}/assets/scripts/last-frame-screenshot.json"),
            after=lambda c, rc: take_last_frame_png(c, c.out / "picture-10m-t6.png")),
        Run("picture-1m-baseline", "teach",
            ctx.cmd("{baseline} render --scene collision --algo barneshut -n {big} --steps-per-frame 10 --frames 61 "
                    "--size 1920x1080 --out {out}/old-1m/"),
            env={"NBODYLAB_ROOT": lambda c: str(c.bundle / "baseline" / "root")},
            after=lambda c, rc: move_last_frame(c.out / "old-1m", c.out / "picture-1m-t6-baseline.png"), **baseline),
        Run("picture-1m-baseline-check", "teach", ctx.cmd("{nbodylab} picture {out}/picture-1m-t6-baseline.png"),
            **baseline),
    ]


def picture_part(ctx):
    """The default collision at 1M through the image check at its first passage (t = 3), with its tails
    out (t = 6) and later (t = 12): the README's and docs/screenshots' pictures; the last frame of each."""
    return [Run(f"picture-1m-t{t}", "picture",
                ctx.cmd("{nbodylab} render --scene collision --algo barneshut -n {big} --frames {frames} "
                        "--steps-per-frame 300 --size 1920x1080 --out {out}/picture-1m-t{t}/ --overwrite "
                        "--check-picture",
                        frames=t // 3 + 1, t=t),
                after=(lambda t: lambda c, rc: move_last_frame(c.out / f"picture-1m-t{t}",
                                                               c.out / f"picture-1m-t{t}.png"))(t))
            for t in (3, 6, 12)]


def merger_part(ctx):
    """The default collision (65,536 bodies) stepped from the tails bookmark (t = 6) in segments of 4 time
    units to t = 70: the last frame and the state of each, to pick the merger bookmark from."""
    runs = []
    previous = ctx.path(ctx.root / "assets/bookmarks/collision-tails.tipsy.gz")
    for t in range(10, 71, 4):
        runs.append(Run(f"merger-to-t{t}", "merger",
                        ctx.cmd("{nbodylab} render --settings {root}/assets/bookmarks/collision-tails.json --load "
                                "{previous} --backend gpu --steps-per-frame 100 --frames 5 --size 960x540 --out "
                                "{out}/merger/t{t}/ --overwrite --save {out}/merger/collision-t{t}.tipsy",
                                previous=previous, t=t),
                        before=lambda c: (c.out / "merger").mkdir(parents=True, exist_ok=True) or True,
                        after=(lambda t: lambda c, rc: move_last_frame(c.out / "merger" / f"t{t}",
                                                                       c.out / "merger" / f"t{t}.png"))(t)))
        previous = ctx.path(ctx.out / "merger" / f"collision-t{t}.tipsy")
    return runs


def lab_pace(trace, *args) -> Callable:
    """An after-hook: scripts/lab_pace.py on a lab trace, its report into TRACE.txt (a row reads it)."""
    def after(c, rc):
        out = c.out / trace
        bench = [a for a in args if callable(a)]
        words = [a(c) if callable(a) else a for a in args]
        if bench and "n/a" in words:
            words = [w for w in words if w != "n/a"]
        result = subprocess.run(["python3", str(c.root / "scripts" / "lab_pace.py"), str(out), *words],
                                capture_output=True, text=True)
        out.with_suffix(".txt").write_text(result.stdout + result.stderr)
    return after


def text_file(file) -> Text:
    def text(out):
        try:
            return " | ".join(line.strip() for line in (out / file).read_text().splitlines() if line.strip())
        except Exception:
            return "n/a"
    return text


def pace_part(ctx):
    """The lab never waits for a simulation step (docs/scripts.md, "Measuring the never-freeze targets"):
    offscreen at 1920x1080 on the 1M collision with Sort bodies off (a step of over a second), and with
    all-pairs at 1M (half a second), the camera dragged meanwhile; bench's step time for each variant in
    the same run. scripts/lab_pace.py reads each trace against the targets."""
    lab = "{nbodylab} --offscreen --size 1920x1080 --refresh 60 --backend gpu --scene collision -n {big} "
    def bench_ms_of(file):
        return lambda c: "--bench-ms=" + table_figure(c.out / file, "Per stage", "stage", "total", "ms")
    def summary_of(file, quantity):
        return table_figure(ctx.out / file, "Summary", "quantity", quantity, "value")
    runs = [
        Run("pace-bench-sort-off", "pace",
            ctx.cmd("{nbodylab} bench --algo barneshut --backend gpu --scene collision -n {big} --bh_sort off "
                    "--steps 3 --warmup 1 --json {out}/pace-bench-sort-off.json")),
        # An unsorted walk's cost follows the state (where the bodies are, in their stored order): the lab
        # reaches the window's state after 2 s of sorted steps, so bench also times Sort off on that
        # state, saved by the same script stopped where the window starts (dt and softening as the scene's).
        Run("pace-state", "pace",
            ctx.cmd(lab + "--algo barneshut --script {root}/assets/scripts/slow-variant.json --frames 480 "
                    "--save {out}/pace-state.tipsy")),
        Run("pace-bench-sort-off-state", "pace",
            lambda c: c.cmd("{nbodylab} bench --algo barneshut --backend gpu --load {out}/pace-state.tipsy --bh_sort off "
                            "--dt {dt} --eps {eps} --steps 3 --warmup 1 --json {out}/pace-bench-sort-off-state.json",
                            dt=summary_of("pace-bench-sort-off.json", "dt"),
                            eps=summary_of("pace-bench-sort-off.json", "softening")),
            after=lambda c, rc: (c.out / "pace-state.tipsy").unlink(missing_ok=True),
            rows=[Row("bench, Sort off: ms a step from the scene (t = 0) / on the lab's state at 8 s",
                      lambda out: table_figure(out / "pace-bench-sort-off.json", "Per stage", "stage", "total", "ms") +
                      " / " + table_figure(out / "pace-bench-sort-off-state.json", "Per stage", "stage", "total", "ms"),
                      needs="pace-bench-sort-off-state.json")]),
        Run("pace-sort-off", "pace",
            ctx.cmd(lab + "--algo barneshut --script {root}/assets/scripts/slow-variant.json --trace {out}/pace-sort-off.csv"),
            after=lab_pace("pace-sort-off.csv", "--from", "8", "--to", "16", bench_ms_of("pace-bench-sort-off-state.json"),
                           "--p95-max", "25", "--rate-min", "0.9", "--drag", "--switch", "2", "--switch-max", "1.5"),
            rows=[Row("lab, 1M collision, Sort off: display, steps, drag, switch back", text_file("pace-sort-off.txt"),
                      needs="pace-sort-off.txt")]),
        Run("pace-sort-off-whole", "pace",
            ctx.cmd(lab + "--algo barneshut --slice-ms 0 --script {root}/assets/scripts/slow-variant.json "
                    "--trace {out}/pace-sort-off-whole.csv"),
            after=lab_pace("pace-sort-off-whole.csv", "--from", "8", "--to", "16",
                           bench_ms_of("pace-bench-sort-off-state.json"), "--drag", "--switch", "2"),
            rows=[Row("the same with whole launches (--slice-ms 0): the GPU's own time-slicing",
                      text_file("pace-sort-off-whole.txt"), needs="pace-sort-off-whole.txt")]),
        Run("pace-bench-allpairs", "pace",
            ctx.cmd("{nbodylab} bench --algo allpairs --backend gpu --scene collision -n {big} --steps 2 --warmup 1 "
                    "--json {out}/pace-bench-allpairs.json")),
        Run("pace-allpairs", "pace",
            ctx.cmd(lab + "--algo allpairs --script {root}/assets/scripts/orbit-while-stepping.json "
                    "--trace {out}/pace-allpairs.csv"),
            after=lab_pace("pace-allpairs.csv", "--from", "4", "--to", "12", bench_ms_of("pace-bench-allpairs.json"),
                           "--p95-max", "25", "--rate-min", "0.9", "--drag"),
            rows=[Row("lab, all-pairs at 1M: display, steps, drag", text_file("pace-allpairs.txt"),
                      needs="pace-allpairs.txt")]),
        Run("pace-allpairs-whole", "pace",
            ctx.cmd(lab + "--algo allpairs --slice-ms 0 --script {root}/assets/scripts/orbit-while-stepping.json "
                    "--trace {out}/pace-allpairs-whole.csv"),
            after=lab_pace("pace-allpairs-whole.csv", "--from", "4", "--to", "12", bench_ms_of("pace-bench-allpairs.json"),
                           "--drag"),
            rows=[Row("the same with whole launches (--slice-ms 0)", text_file("pace-allpairs-whole.txt"),
                      needs="pace-allpairs-whole.txt")]),
    ]
    return runs


def compare_part(ctx):
    """The baseline build against this one, same machine, same run: each measurement alternates A B A B,
    so drift in clocks or temperature hits both alike. The baseline runs with its own kernel sources,
    shaders and assets (bundled from the checkout it was built in). The measurements are the headline
    figures: the ladder's best at 65,536 bodies, the best all-pairs variant at 1M, Barnes-Hut at the
    defaults at 1M and 10M, the rendered frame at 1M, and the lab's default frame at 1M offscreen."""
    has = dict(only=lambda c: c.has_baseline(), only_text="with a baseline bundled (BASELINE_BIN at build)")
    measurements = {
        "ladder": "{binary} bench ladder --scene plummer -n 65536 --no-clock --json {out}/compare-{who}-ladder-{round}.json",
        "ap1m": "{binary} bench --algo allpairs --backend gpu --scene plummer -n {big} --steps 3 --warmup 1 "
                "--json {out}/compare-{who}-ap1m-{round}.json",
        "bh": "{binary} bench --algo barneshut --backend gpu --scene plummer -n {big} --steps 10 "
              "--warmup 2 --error-sample 1000 --json {out}/compare-{who}-bh-{round}.json",
        "bh10m": "{binary} bench --algo barneshut --backend gpu --scene plummer -n {huge} --steps 5 "
                 "--warmup 1 --error-sample 1000 --json {out}/compare-{who}-bh10m-{round}.json",
        "render": "{binary} render --scene collision --algo barneshut -n {big} --frames 120 --size 1920x1080 "
                  "--benchmark --report {out}/compare-{who}-render-{round}.json",
        "lab": "{binary} --offscreen --size 1920x1080 --backend gpu --scene collision --algo barneshut -n {big} "
               "--frames 600 --trace {out}/compare-{who}-lab-{round}.csv",
    }
    runs = []
    for round_ in (1, 2):
        for who in ("base", "now"):
            binary = ctx.path(ctx.baseline()) if who == "base" else ctx.nbodylab
            root = (lambda c: str(c.bundle / "baseline" / "root")) if who == "base" else (lambda c: str(c.root))
            for what, command in measurements.items():
                after = lab_pace(f"compare-{who}-lab-{round_}.csv") if what == "lab" else None
                runs.append(Run(f"compare-{who}-{what}-{round_}", "compare",
                                ctx.cmd(command, binary=binary, who=who, round=round_), env={"NBODYLAB_ROOT": root},
                                after=after, **has))
    # The rows, base's two rounds and then now's, under a heading of their own.
    for who in ("base", "now"):
        for round_ in (1, 2):
            p = f"compare-{who}"
            text = joined("ladder best {} /s  all-pairs 1M {} /s  BH 1M {} ms (p99 {})  BH 10M {} ms  render {} FPS"
                          "  lab frame: {}",
                          table(f"{p}-ladder-{round_}.json", "ladder", "rung", "best", "interactions_per_s"),
                          table(f"{p}-ap1m-{round_}.json", "Summary", "quantity", "interactions/s (whole step)", "value"),
                          bench_ms(f"{p}-bh-{round_}.json"), error_p99(f"{p}-bh-{round_}.json"),
                          bench_ms(f"{p}-bh10m-{round_}.json"), value(f"{p}-render-{round_}.json", "fps"),
                          text_file(f"{p}-lab-{round_}.txt"))
            runs[-1].rows.append(Row(f"{who:<8} round {round_}", text, needs=f"{p}-ladder-{round_}.json",
                                     group=f"baseline (base) vs this build (now), n={ctx.big}"))
    return runs


def kernelab_part(ctx):
    """Kernel folders, one binary: each case twice, every folder in turn (A B C A B C), so drift shows as a
    round-to-round change rather than as a difference between folders. KERNELAB="name=dir ..." (a folder
    made by `nbodylab kernels --export DIR`, then edited; `name=` alone: the built-in kernels)."""
    cases = {"plummer-1m": "--scene plummer -n 1048576 --steps 10 --warmup 2",
             "plummer-4m": "--scene plummer -n 4194304 --steps 5 --warmup 1",
             "plummer-10m": "--scene plummer -n 10000000 --steps 3 --warmup 1",
             "collision-1m": "--scene collision -n 1048576 --steps 10 --warmup 2"}
    folders = ctx.env.get("KERNELAB", "built-in=").split()
    group = f"kernel folders side by side: {' '.join(folders)}"
    runs = []
    for case in ctx.env.get("KERNELAB_CASES", "plummer-1m plummer-4m plummer-10m collision-1m").split():
        if case not in cases:
            runs.append(Run(f"kernelab-{case}", "kernelab", [], before=lambda c, case=case: c.note(
                f"kernelab-{case}", f"FAILED: no such case ({' '.join(cases)})")))
            continue
        for round_ in (1, 2):
            for entry in folders:
                who, _, folder = entry.partition("=")
                file = f"kernelab-{who}-{case}-{round_}.json"
                kernels = " --kernels {folder}" if folder else ""
                runs.append(Run(f"kernelab-{who}-{case}-{round_}", "kernelab",
                                ctx.cmd("{nbodylab} bench --algo barneshut --backend gpu " + cases[case] +
                                        " --error-sample 1000" + kernels + " --json {out}/{file}", folder=folder,
                                        file=file),
                                rows=[Row(f"{case:<13} {who:<12} round {round_}",
                                          joined("{} ms/step  force {} ms  p99 {}", bench_ms(file),
                                                 table(file, "Per stage", "stage", "force", "ms"), error_p99(file)),
                                          needs=file, group=group)]))
    return runs


def runs(ctx):
    """The whole table, in the order the runs go."""
    table_ = [Run("info", "always", ctx.cmd("{nbodylab} info"))]
    for make in (tests_part, allpairs_part, barneshut_part, render_part, splat_part, stall_parts, sanitizer_part,
                 ab_part, profile_part, bhsweep_part, collshapes_part, groups_part, geometry_part, long_part,
                 teach_part, picture_part, merger_part, compare_part, pace_part, kernelab_part):
        table_ += make(ctx)
    return table_
