#!/usr/bin/env python3
"""scripts/lab_pace.py on a made-up trace: the window's frame interval and step rate, each span of
--windows with its own frames and steps per second, a missed target's exit status, a span of 0
seconds refused, and the frames that drew (a drag frame that drew nothing counts as one that did not
turn the camera)."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "lab_pace.py")
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as folder:
    trace = os.path.join(folder, "lab.csv")
    # 2 s of frames every 10 ms; steps every 10 ms in the first second, every 20 ms in the second.
    with open(trace, "w") as f:
        f.write("frame,wall_s,interval_ms\n")
        for i in range(201):
            f.write(f"{i},{i * 0.01:.3f},10.0\n")
    with open(os.path.join(folder, "lab-steps.csv"), "w") as f:
        f.write("step,wall_s,ms,kernel_ms,force_slices,variant,abandoned\n")
        t, k = 0.005, 0
        while t < 2.0:
            f.write(f"{k},{t:.3f},5.0,4.0,1,v,0\n")
            t += 0.01 if t < 1.0 else 0.02
            k += 1
    out = run(trace, "--from", "0", "--to", "2", "--windows", "1")
    check(out.returncode == 0, f"exit {out.returncode}: {out.stderr}")
    spans = [line for line in out.stdout.splitlines() if line.strip().startswith("span")]
    check(len(spans) == 2, f"two spans of a second: {spans}")
    if len(spans) == 2:
        # The first frame carries the start-up and is left out: 99 in the first second.
        check("99.0 frames/s" in spans[0] and "100.0 steps/s" in spans[0], spans[0])
        check("100.0 frames/s" in spans[1] and "50.0 steps/s" in spans[1], spans[1])
        check("interval p95 10.00 ms" in spans[0], spans[0])
    missed = run(trace, "--from", "0", "--to", "2", "--bench-ms", "5", "--rate-min", "0.9")
    check(missed.returncode == 1 and "MISSED" in missed.stdout, f"a missed rate: {missed.stdout}")
    refused = run(trace, "--windows", "0")
    check(refused.returncode == 2 and "--windows" in refused.stderr, f"a span of 0 s: {refused.stderr}")

    # Frames with a drawn column: every third draws (30 ms apart), except during a drag from frame 10,
    # whose frames all draw and turn the camera, but frame 20 drew nothing.
    drawn_trace = os.path.join(folder, "drawn.csv")
    with open(drawn_trace, "w") as f:
        f.write("frame,wall_s,interval_ms,script,camera_yaw_deg,drawn\n")
        for i in range(60):
            dragging = 10 <= i < 25
            drawn = (dragging and i != 20) or (not dragging and i % 3 == 0)
            f.write(f"{i},{i * 0.01:.3f},10.0,{'drag' if i == 10 else ''},{i if dragging else 0},{int(drawn)}\n")
    out = run(drawn_trace, "--from", "0.3", "--to", "0.59")
    line = next((l for l in out.stdout.splitlines() if l.startswith("frames drawn")), "")
    check("10 of 30" in line and "longest between two drawn 30.0 ms" in line, f"frames drawn: {out.stdout}")
    dragged = run(drawn_trace, "--drag", "--drag-frames", "13")
    check(dragged.returncode == 1 and "still: [20]" in dragged.stdout, f"an undrawn drag frame: {dragged.stdout}")

for f in failures:
    print("FAIL:", f)
print(f"lab_pace: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
