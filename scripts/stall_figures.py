#!/usr/bin/env python3
"""The stall measurement's figures (docs/scripts.md), from the three frame traces of one configuration.

The GPU suite's stall runs (scripts/gpu_suite.py) run the whole lab offscreen three times with --trace:
steady (no changes), then with a script that switches a toggle every second twice: with an empty kernel
cache (each value's first switch compiles: cold) and again with the cache that run filled (its first
switch loads from disk). From PREFIX-steady.csv, PREFIX-cold.csv and PREFIX-disk.csv this computes:

- steady and toggling frame intervals (median, p95, every frame after the first, which carries the
  start-up), the ratio the target bounds (toggling p95 over steady p95, target <= 1.5), and the slowest
  toggling frame over the steady median;
- for each swap, the worst frame from the toggle's release to the swap over the same variant's local
  steady frames (the target's "no frame longer than 1.5x a steady one"), and the same statistic on
  windows of the steady run as the noise floor;
- request-to-swap latencies: cold (the first swap with an empty cache), warm (the later swaps: the build
  is in memory) and from disk (the first swap of the second run);
- the swap frames' own costs: the swap call, the old build's teardown, the swap frame's simulate and
  vertex times against the steady run's medians.

    scripts/stall_figures.py PREFIX            the figures as JSON (the suite writes PREFIX.json)
    scripts/stall_figures.py --row FILE.json   the summary line of those figures
    scripts/stall_figures.py --swap-row FILE.json   the summary line of the swaps' own costs
"""
import csv
import json
import statistics
import sys


def quantile(values, p):
    if not values:
        return None
    v = sorted(values)
    i = p * (len(v) - 1)
    lo = int(i)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def read_trace(prefix, kind):
    try:
        with open(f"{prefix}-{kind}.csv") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def interval(row):
    return float(row["interval_ms"])


def intervals(trace):
    return [interval(x) for x in trace[1:]]  # the first frame carries the start-up


def accepted_swaps(trace):
    return [float(x["swap_latency_s"]) for x in trace if x["swap"] == "accepted"]


def swap_windows(trace):
    """(release, swap) frame indices: a script entry released a toggle, the swap happened later."""
    out, release = [], None
    for i, x in enumerate(trace):
        if x["script"]:
            release = i
        if x["swap"] == "accepted" and release is not None:
            out.append((release, i))
            release = None
    return out


def local_worst(trace, k=10):
    """Per swap window, the worst frame from the release to the frame after the swap over the median of
    up to k frames before the release (for the frames the old variant draws) and of up to k frames after
    the swap (for the swap frame and the one after). A whole-run median would charge a slower variant, or
    a denser moment of the collision, to the swap."""
    windows, result = swap_windows(trace), []
    for j, (release, swap) in enumerate(windows):
        lo = max(1, release - k, windows[j - 1][1] + 2 if j > 0 else 1)
        hi = min(swap + 2 + k, windows[j + 1][0] if j + 1 < len(windows) else len(trace))
        before = [interval(x) for x in trace[lo:release]]
        after = [interval(x) for x in trace[swap + 2 : hi]]
        if len(before) < 3 or len(after) < 3:
            continue
        b, a = statistics.median(before), statistics.median(after)
        result.append(
            max(
                [interval(trace[i]) / b for i in range(release, swap)]
                + [interval(trace[i]) / a for i in range(swap, min(swap + 2, len(trace)))]
            )
        )
    return result


def noise(trace, span, k=10):
    """The same statistic on windows of `span` frames of a steady run, one every 60 frames."""
    return [
        max(interval(trace[i]) / statistics.median(interval(x) for x in trace[s - k : s]) for i in range(s, s + span))
        for s in range(k + 1, len(trace) - span - k, 60)
    ]


def number(row, key):
    v = row.get(key)
    return float(v) if v not in (None, "") else None


def figures(prefix):
    steady, cold, disk = read_trace(prefix, "steady"), read_trace(prefix, "cold"), read_trace(prefix, "disk")
    s, t = intervals(steady), intervals(cold)
    fig = {
        "steady_frames": len(s),
        "toggling_frames": len(t),
        "steady_median_ms": quantile(s, 0.5),
        "steady_p95_ms": quantile(s, 0.95),
        "toggling_median_ms": quantile(t, 0.5),
        "toggling_p95_ms": quantile(t, 0.95),
        "toggling_max_ms": max(t) if t else None,
    }
    if fig["steady_p95_ms"] and fig["toggling_p95_ms"]:
        fig["p95_ratio"] = fig["toggling_p95_ms"] / fig["steady_p95_ms"]
    if fig["steady_median_ms"] and t:
        fig["max_over_steady_median"] = max(t) / fig["steady_median_ms"]
    worst = local_worst(cold) + local_worst(disk)
    if worst:
        spans = [swap - release + 2 for release, swap in swap_windows(cold) + swap_windows(disk)]
        floor = noise(steady, int(statistics.median(spans))) if steady else []
        fig["swap_windows"] = len(worst)
        fig["swap_window_worst_median"] = statistics.median(worst)
        fig["swap_window_worst_p90"] = quantile(worst, 0.9)
        fig["swap_window_worst_max"] = max(worst)
        fig["swap_windows_over_1_5"] = sum(1 for x in worst if x > 1.5)
        if floor:
            fig["steady_window_worst_p90"] = quantile(floor, 0.9)
            fig["steady_window_worst_max"] = max(floor)
    c, d = accepted_swaps(cold), accepted_swaps(disk)
    fig["swaps"] = len(c)
    fig["refused"] = sum(1 for x in cold if x["swap"] == "refused")
    fig["cold_swap_s"] = c[0] if c else None
    fig["warm_swap_median_s"] = statistics.median(c[1:]) if len(c) > 1 else None
    fig["warm_swap_max_s"] = max(c[1:]) if len(c) > 1 else None
    fig["disk_first_swap_s"] = d[0] if d else None
    # The swap frame's interval over the median of the next 10 frames, which the new variant draws before
    # the next release: the swap's own cost, apart from how fast the new variant is.
    own = []
    for trace in (cold, disk):
        for release, swap in swap_windows(trace):
            following = [interval(x) for x in trace[swap + 1 : swap + 11] if not x["script"]]
            if len(following) >= 5:
                own.append(interval(trace[swap]) / statistics.median(following))
    if own:
        fig["swap_frame_over_next_median"] = statistics.median(own)
        fig["swap_frame_over_next_p95"] = quantile(own, 0.95)
        fig["swap_frame_over_next_max"] = max(own)
    accepted = [x for x in cold + disk if x["swap"] == "accepted"]

    def over_swaps(key):
        return [v for v in (number(x, key) for x in accepted) if v is not None]

    def put(name, values):
        if values:
            fig[name + "_median_ms"] = statistics.median(values)
            fig[name + "_max_ms"] = max(values)

    fig["swap_frames"] = len(accepted)
    fig["swaps_costed"] = len(over_swaps("swap_ms"))  # traces made before the swap_ms column have none
    put("swap_call", over_swaps("swap_ms"))
    put("swap_teardown", over_swaps("teardown_ms"))
    put("swap_frame_simulate", over_swaps("simulate_ms"))
    put("swap_frame_vertices", over_swaps("vertices_ms"))
    for key in ("simulate_ms", "vertices_ms"):
        steady_values = [v for v in (number(x, key) for x in steady[1:]) if v is not None]
        if steady_values:
            fig["steady_" + key.replace("_ms", "") + "_median_ms"] = statistics.median(steady_values)
    return fig


def row(f):
    """One summary line: frame intervals, the p95 ratio, the swap latencies and the swap windows."""

    def ms(k):
        return "n/a" if f.get(k) is None else f"{f[k]:.2f}"

    def s(k):
        return "n/a" if f.get(k) is None else f"{f[k]:.3f} s"

    ratio = "n/a" if f.get("p95_ratio") is None else f"{f['p95_ratio']:.2f}x"
    worst = "n/a" if f.get("max_over_steady_median") is None else f"{f['max_over_steady_median']:.2f}x"
    text = (
        f"steady {ms('steady_median_ms')}/{ms('steady_p95_ms')} ms, toggling {ms('toggling_median_ms')}/"
        f"{ms('toggling_p95_ms')} ms (median/p95); p95 ratio {ratio} (target <= 1.5x); slowest frame {worst} the "
        f"steady median; swap cold {s('cold_swap_s')}, warm {s('warm_swap_median_s')} (median of "
        f"{max(f.get('swaps', 0) - 1, 0)}), from disk {s('disk_first_swap_s')}"
    )
    if f.get("refused"):
        text += f"; {f['refused']} refused"
    if f.get("swap_windows"):
        text += (
            f"; release-to-swap worst frame / the variant's local steady: median "
            f"{f['swap_window_worst_median']:.2f}x, p90 {f['swap_window_worst_p90']:.2f}x, max "
            f"{f['swap_window_worst_max']:.2f}x, {f['swap_windows_over_1_5']} of {f['swap_windows']} windows over "
            f"1.5x (steady run, same windows: p90 {f.get('steady_window_worst_p90', 0):.2f}x, max "
            f"{f.get('steady_window_worst_max', 0):.2f}x)"
        )
    return text


def swap_row(f):
    """One summary line of the accepted swaps' own costs."""

    def mm(k):
        return "n/a" if f.get(k + "_median_ms") is None else f"{f[k + '_median_ms']:.2f}/{f[k + '_max_ms']:.2f} ms"

    def one(k):
        return "n/a" if f.get(k) is None else f"{f[k]:.2f} ms"

    text = (
        f"{f.get('swap_frames', 0)} accepted swaps (cold and disk runs), median/max: swap call {mm('swap_call')} "
        f"({f.get('swaps_costed', 0)} timed), of which the old build's teardown {mm('swap_teardown')}; swap frame "
        f"simulate {mm('swap_frame_simulate')} (steady median {one('steady_simulate_median_ms')}), vertices "
        f"{mm('swap_frame_vertices')} (steady median {one('steady_vertices_median_ms')})"
    )
    if f.get("swap_frame_over_next_median"):
        text += (
            f"; swap frame / the new variant's next 10 frames: median {f['swap_frame_over_next_median']:.2f}x, "
            f"p95 {f['swap_frame_over_next_p95']:.2f}x, max {f['swap_frame_over_next_max']:.2f}x"
        )
    return text


def main(argv):
    if len(argv) == 3 and argv[1] in ("--row", "--swap-row"):
        with open(argv[2]) as file:
            f = json.load(file)
        print(row(f) if argv[1] == "--row" else swap_row(f))
    elif len(argv) == 2 and not argv[1].startswith("-"):
        print(json.dumps(figures(argv[1]), indent=1))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
