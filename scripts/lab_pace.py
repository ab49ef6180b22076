#!/usr/bin/env python3
"""The lab's two paces from its trace (`nbodylab --offscreen --trace FILE.csv`, and FILE-steps.csv beside
it): the display's frame interval and the simulation's steps per second over a window of the session,
the camera's pose in every frame of a drag, and how long a switch took to show a state stepped by the
variant it asked for. Each figure is printed with its target when one is given; exit 1 when a target
is missed.

  scripts/lab_pace.py TRACE.csv [--from S] [--to S] [--bench-ms MS] [--p95-max MS] [--rate-min SHARE]
                                [--drag] [--switch N] [--switch-max S] [--windows S]

--from/--to   the window (seconds since the first frame) the intervals and the step rate are taken over
--bench-ms    `nbodylab bench`'s ms per step for the variant that runs in the window: the step rate is
              compared with 1000 / that (--rate-min: the least share it may keep)
--drag        every frame of the script's drag (from its third frame, when the button is down, to its
              last) must draw with another camera than the frame before
A trace with a `drawn` column also gets how many frames of the window drew (a frame whose picture would
be the one on screen draws nothing) and the longest time between two that did.
--switch N    the N-th `set` of the script (1: the first): seconds from it to the first frame that draws a
              state stepped by the variant that ran after it (--switch-max: the most it may take)
--windows S   also the window cut into spans of S seconds: frames and finished steps per second in each,
              and its frame intervals' p95 (where a rate dips, and for how long)
"""
import argparse
import csv
import pathlib
import statistics
import sys


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace")
    p.add_argument("--from", dest="start", type=float, default=None)
    p.add_argument("--to", dest="end", type=float, default=None)
    p.add_argument("--bench-ms", type=float)
    p.add_argument("--p95-max", type=float)
    p.add_argument("--rate-min", type=float)
    p.add_argument("--drag", action="store_true")
    p.add_argument("--drag-frames", type=int, default=120)
    p.add_argument("--switch", type=int)
    p.add_argument("--switch-max", type=float)
    p.add_argument("--windows", type=float)
    a = p.parse_args()
    if a.windows is not None and a.windows <= 0:
        p.error("--windows takes a span of more than 0 seconds")

    frames = read(a.trace)
    trace = pathlib.Path(a.trace)
    steps_file = trace.with_name(trace.stem + "-steps" + trace.suffix)
    steps = read(steps_file) if steps_file.exists() else []
    failed = []

    def verdict(name, ok, text):
        print(f"{name:28s} {text}  {'ok' if ok else 'MISSED'}")
        if not ok:
            failed.append(name)

    start = a.start if a.start is not None else float(frames[1]["wall_s"])
    end = a.end if a.end is not None else float(frames[-1]["wall_s"])
    window = [r for r in frames[1:] if start <= float(r["wall_s"]) <= end]
    intervals = [float(r["interval_ms"]) for r in window]
    if intervals:
        med, p95, top = statistics.median(intervals), quantile(intervals, 0.95), max(intervals)
        text = f"median {med:.2f} ms  p95 {p95:.2f} ms  max {top:.2f} ms  ({len(intervals)} frames, {start:g}-{end:g} s)"
        if a.p95_max is not None:
            verdict("display frame interval", p95 <= a.p95_max, text + f"; p95 target <= {a.p95_max:g} ms")
        else:
            print(f"{'display frame interval':28s} {text}")
    if window and window[0].get("drawn", "") != "":
        # A frame whose picture would be the one on screen draws nothing (the lab at a display's pace).
        drawn_at = [float(r["wall_s"]) for r in window if r["drawn"] == "1"]
        gaps = [b - a for a, b in zip(drawn_at, drawn_at[1:])]
        longest = f"; longest between two drawn {1000 * max(gaps):.1f} ms" if gaps else ""
        others = " (the others' picture was the one on screen)" if len(drawn_at) < len(window) else ""
        print(f"{'frames drawn':28s} {len(drawn_at)} of {len(window)}{others}{longest}")
    done = [s for s in steps if s["abandoned"] == "0" and start <= float(s["wall_s"]) <= end]
    if len(done) >= 2:
        span = float(done[-1]["wall_s"]) - float(done[0]["wall_s"])
        rate = (len(done) - 1) / span if span > 0 else 0.0
        step_ms = statistics.median(float(s["ms"]) for s in done)
        text = f"{rate:.3g} steps/s, median {step_ms:.2f} ms a step ({len(done)} steps; {done[-1]['variant']})"
        if a.bench_ms:
            share = rate / (1000.0 / a.bench_ms)
            text += f"; bench {1000.0 / a.bench_ms:.3g} steps/s ({a.bench_ms:g} ms), kept {share:.2f}"
            ok = a.rate_min is None or share >= a.rate_min
            verdict("simulation steps", ok, text + (f"; target >= {a.rate_min:g}" if a.rate_min else ""))
        else:
            print(f"{'simulation steps':28s} {text}")
    else:
        print(f"{'simulation steps':28s} {len(done)} finished in the window")
    if a.windows:
        t = start
        while t < end:
            span_end = min(t + a.windows, end)
            width = span_end - t
            spans = [float(r["interval_ms"]) for r in window if t <= float(r["wall_s"]) < span_end]
            finished = sum(1 for s in done if t <= float(s["wall_s"]) < span_end)
            p95 = f"{quantile(spans, 0.95):.2f} ms" if spans else "-"
            print(f"{'  span':28s} {t:6.2f}-{span_end:6.2f} s: {len(spans) / width:6.1f} frames/s, "
                  f"{finished / width:6.1f} steps/s, interval p95 {p95}")
            t = span_end
    abandoned = [s for s in steps if s["abandoned"] == "1"]
    if abandoned:
        print(f"{'abandoned steps':28s} {len(abandoned)} (" + ", ".join(f"{float(s['ms']):.0f} ms of {s['variant']}" for s in abandoned) + ")")

    if a.drag:
        index = next((i for i, r in enumerate(frames) if "drag" in r["script"].split("+")), None)
        if index is None:
            verdict("camera during the drag", False, "the trace has no drag")
        else:
            moving = range(index + 3, min(len(frames), index + 2 + a.drag_frames))
            still = [i for i in moving if frames[i]["camera_yaw_deg"] == frames[i - 1]["camera_yaw_deg"]
                     or frames[i].get("drawn", "") == "0"]
            verdict("camera during the drag", not still,
                    f"{len(moving) - len(still)} of {len(moving)} frames turned it" + (f" (still: {still[:8]})" if still else ""))

    if a.switch:
        sets = [r for r in frames if "set" in r["script"].split("+")]
        if len(sets) < a.switch:
            verdict("switch", False, f"the script has {len(sets)} set entries")
        else:
            at = float(sets[a.switch - 1]["wall_s"])
            after = [s for s in steps if s["abandoned"] == "0" and float(s["wall_s"]) > at]
            # The variant the switch asked for: the one the last step of the session ran.
            wanted = steps[-1]["variant"] if steps else ""
            first = next((s for s in after if s["variant"] == wanted), None)
            if first is None:
                verdict("switch", False, "no step of the restored variant after the set")
            else:
                step_index = int(first["step"])
                frame = next((r for r in frames if int(r["steps_completed"]) > step_index and float(r["wall_s"]) >= float(first["wall_s"])
                              and r.get("drawn", "") != "0"), None)
                if frame is None:
                    verdict("switch", False, "no frame drew the restored variant's state")
                else:
                    seconds = float(frame["wall_s"]) - at
                    ok = a.switch_max is None or seconds <= a.switch_max
                    verdict("switch to a drawn state", ok,
                            f"{seconds:.3f} s from the set at {at:.2f} s to frame {frame['frame']} ({wanted})" +
                            (f"; target <= {a.switch_max:g} s" if a.switch_max is not None else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
