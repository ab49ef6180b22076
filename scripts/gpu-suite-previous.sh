#!/usr/bin/env bash
# The suite's previous driver, kept unchanged for one side-by-side run against scripts/gpu-suite.sh
# (same bundle, same parts: their summaries must agree). Use its `run` phase only; build with the new
# driver. Delete it after that run.
# The GPU run in one go: build for the GPU, run every test (the `gpu`-labelled ones included), run the
# benchmarks, print a summary table last. Logs and JSON results land in $OUT (default ./gpu-results).
#
#   scripts/gpu-suite.sh            build here, then run here (a workstation with an NVIDIA GPU)
#   scripts/gpu-suite.sh build      build only, into gpu-bundle/ (binaries + the shared libraries they
#                                   need, so a GPU machine without these packages can run them)
#   scripts/gpu-suite.sh run        run from gpu-bundle/ (on the GPU machine)
#   QUICK=1 scripts/gpu-suite.sh run   fewer and smaller benchmarks
#   PARTS="tests barneshut" scripts/gpu-suite.sh run   only some parts (tests allpairs barneshut render
#                                   sanitizer ab geometry long stall stallbh stalllists collshapes groups compare teach picture merger
#                                   splat profile bhsweep kernelab;
#                                   default: tests allpairs
#                                   barneshut render sanitizer), e.g. to fit a time limit
#   FULL=1 scripts/gpu-suite.sh run  also the 1M ladder, the sweeps and the scaling run (minutes more)
#   PARTS=stall scripts/gpu-suite.sh run   the stall measurement alone (about 3 minutes): the
#                                   lab offscreen while a toggle switches every second for 30 s, at
#                                   65,536 bodies all-pairs and 1,048,576 Barnes-Hut (collision)
#   GPU_TESTS_ONLY=1 scripts/gpu-suite.sh build   bundle only the tests labelled gpu (CI runs the rest):
#                                   about half the size, for a GPU machine with a transfer limit
#   BASELINE_BIN=path/to/nbodylab scripts/gpu-suite.sh build   also bundle an earlier build; the
#                                   `compare` part then times both in one run, alternating A B A B
#   KERNELAB="A=dir B=dir ..." PARTS=kernelab scripts/gpu-suite.sh run   kernel folders side by side
#                                   with one binary (each made by `nbodylab kernels --export DIR`, then
#                                   edited; `name=` alone: the built-in kernels), Barnes-Hut at the
#                                   defaults, every folder in turn, twice; KERNELAB_CASES picks the
#                                   cases (default "plummer-1m plummer-4m plummer-10m collision-1m")
#
# Build for another GPU with CUDA_ARCH=80 (default 90: the H100 the figures in BENCHMARKS.md come from).
# Kept under benchmarks/, a run's $OUT feeds scripts/measured_figures.py (the panel's measured figures);
# $OUT/commit.txt says which commit its binaries were built at.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
root_dir=$root
phase=${1:-all}
bundle=$root/gpu-bundle
out=${OUT:-$root/gpu-results}

build() {
  set -e
  scripts/setup.sh --no-build
  local dir=${GPU_BUILD_DIR:-$root/build-gpu}
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >/dev/null
  cmake --build "$dir"
  rm -rf "$bundle"
  mkdir -p "$bundle/bin"
  if [[ -n ${BASELINE_BIN:-} ]]; then
    git -C "$(dirname "$BASELINE_BIN")" rev-parse --short=12 HEAD >"$bundle/BASELINE_COMMIT" 2>/dev/null || echo unknown >"$bundle/BASELINE_COMMIT"
  fi
  cp "$dir/nbodylab" "$bundle/bin/"
  local commit  # the commit the binaries were built from, so every log of the run can name it
  commit=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  git -C "$root" diff --quiet HEAD 2>/dev/null || commit+="-dirty"
  echo "$commit" >"$bundle/commit.txt"
  if ((${GPU_TESTS_ONLY:-0})); then
    # The tests CI cannot run (ctest label gpu) and nothing else: a smaller bundle for a carry limit.
    find "$dir/tests" -maxdepth 2 -type f \( -name '*gpu_test*' -o -name 'app_interop_tests' \) -executable \
      -exec cp {} "$bundle/bin/" \;
  else
    find "$dir/tests" -maxdepth 2 -type f -name '*_test*' -executable -exec cp {} "$bundle/bin/" \;
  fi
  if [[ -n ${BASELINE_BIN:-} ]]; then
    # The baseline runs with its own kernel sources, shaders and assets (NVRTC compiles them at run
    # time): its checkout is the one the binary was built in.
    local base_src; base_src=$(git -C "$(dirname "$BASELINE_BIN")" rev-parse --show-toplevel)
    mkdir -p "$bundle/baseline/root/cuda"
    cp "$BASELINE_BIN" "$bundle/baseline/nbodylab"
    strip "$bundle/baseline/nbodylab"
    cp -r "$base_src/cuda/kernels" "$bundle/baseline/root/cuda/"
    cp -r "$base_src/physics" "$base_src/shaders" "$base_src/assets" "$bundle/baseline/root/"
  fi
  strip "$bundle"/bin/*
  # The GL loaders (glvnd) and every library the binaries link that a bare CUDA machine lacks.
  bash "${FETCH_GL_RUNTIME:-../shared/tools/fetch-gl-runtime.sh}" "$bundle" "$bundle"/bin/* >/dev/null
  du -sh "$bundle" | sed 's/^/gpu bundle: /'
  set +e
}

declare -a summary_rows=()
row() { summary_rows+=("$(printf '%-58s %s' "$1" "$2")"); }

# Runs a command, logs it, records pass/fail; never stops the suite.
step() {
  local name=$1
  shift
  local log="$out/$name.log"
  echo "=== $name: $*"
  local start=$SECONDS
  {
    echo "# nbodylab $commit on $gpu, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# $*"
  } >"$log"
  "$@" >>"$log" 2>&1
  local rc=$?
  tail -n 40 "$log"
  local took=$((SECONDS - start))
  if ((rc == 0)); then row "$name" "ok (${took}s)"; else row "$name" "FAILED rc=$rc (${took}s, see $name.log)"; fi
  return $rc
}

# A figure out of a bench JSON file: table title substring, row key column value, column.
figure() {
  python3 - "$@" <<'EOF' 2>/dev/null || echo "n/a"
import json, sys
path, title, key_column, key, column = sys.argv[1:6]
for table in json.load(open(path)):
    if title in table["title"]:
        for row in table["rows"]:
            cell = row.get(key_column)
            # A number column reads 8.0 in the JSON where the caller names row 8.
            if str(cell) == key or (isinstance(cell, float) and f"{cell:g}" == key):
                v = row.get(column)
                print(f"{v:.4g}" if isinstance(v, float) else v)
                sys.exit(0)
print("n/a")
EOF
}

# One top-level value out of a JSON object file.
json_value() {
  python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(f"{v:.4g}" if isinstance(v,float) else v)' "$@" 2>/dev/null || echo "n/a"
}

want() { [[ " ${PARTS:-tests allpairs barneshut render stall sanitizer} " == *" $1 "* ]]; }

# The stall measurement (docs/scripts.md): the whole lab offscreen (panel, build queue,
# interop), first steady for 10 s, then with assets/scripts/toggle-every-second.json (a toggle switches
# every second for 30 s) twice: with an empty kernel cache (each value's first switch compiles: cold)
# and again with the cache that run filled (its first switch loads from disk). Each run's --trace CSV
# gives the frame intervals and each swap's request-to-swap latency; stall_figures() reduces them.
stall() {
  local name=$1 algo=$2 n=$3 toggling=${4:-toggle-every-second.json}
  local cache; cache=$(mktemp -d "${TMPDIR:-/tmp}/nbodylab-stall-cache.XXXXXX")
  local steady_script=$out/stall-steady.json
  # As long as the toggling runs: the collision's frames slow down as it evolves (1M, H200: about 23 ms
  # at first, 50 ms after 30 s), so a shorter steady run would charge that drift to the toggles.
  echo '{"description": "steady: no changes for 31 s", "events": [{"time": 31, "action": "quit"}]}' >"$steady_script"
  local -a lab=("$bundle/bin/nbodylab" --offscreen --size 1920x1080 --backend gpu --scene collision --algo "$algo" -n "$n")
  NBODYLAB_KERNEL_CACHE=$cache step "stall-$name-steady" "${lab[@]}" --script "$steady_script" --trace "$out/stall-$name-steady.csv"
  rm -rf "$cache"; mkdir -p "$cache"
  NBODYLAB_KERNEL_CACHE=$cache step "stall-$name-cold" "${lab[@]}" --script "$toggling" \
    --trace "$out/stall-$name-cold.csv"
  NBODYLAB_KERNEL_CACHE=$cache step "stall-$name-disk" "${lab[@]}" --script "$toggling" \
    --trace "$out/stall-$name-disk.csv"
  rm -rf "$cache"
  stall_figures "$out/stall-$name" >"$out/stall-$name.json"
}

# The figures of one stall configuration from its three traces, as JSON: steady and toggling frame
# intervals (median, p95, every frame after the first), the ratio the target bounds (toggling p95 over
# steady p95, target <= 1.5), the slowest toggling frame over the steady median (the target's "no frame
# longer than 1.5x a steady one"), and request-to-swap latencies: cold (the first swap with an empty
# cache: compile and check), warm (the later swaps: the build is in memory) and from disk (the first
# swap of the second run, whose cache the first one filled).
stall_figures() {
  python3 - "$1" <<'EOF'
import csv, json, statistics, sys
prefix = sys.argv[1]
def rows(kind):
    try:
        with open(f"{prefix}-{kind}.csv") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []
def q(values, p):
    if not values: return None
    v = sorted(values); i = p * (len(v) - 1); lo = int(i); hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)
def intervals(r): return [float(x["interval_ms"]) for x in r[1:]]  # the first frame carries the start-up
def swaps(r): return [float(x["swap_latency_s"]) for x in r if x["swap"] == "accepted"]
steady, cold, disk = rows("steady"), rows("cold"), rows("disk")
s, t = intervals(steady), intervals(cold)
fig = {"steady_frames": len(s), "toggling_frames": len(t),
       "steady_median_ms": q(s, 0.5), "steady_p95_ms": q(s, 0.95),
       "toggling_median_ms": q(t, 0.5), "toggling_p95_ms": q(t, 0.95), "toggling_max_ms": max(t) if t else None}
if fig["steady_p95_ms"] and fig["toggling_p95_ms"]:
    fig["p95_ratio"] = fig["toggling_p95_ms"] / fig["steady_p95_ms"]
if fig["steady_median_ms"] and t:
    fig["max_over_steady_median"] = max(t) / fig["steady_median_ms"]
# The target "from release to swap, no frame longer than 1.5x a steady one", with "steady" taken from the
# same run and variant around each swap: the median of up to 10 frames before the release (after the
# previous swap) for the frames the old variant draws, and of up to 10 frames after the swap (before the
# next release) for the swap frame and the one after. A whole-run median would charge a slower variant
# (1/sqrt against rsqrtf), or a denser moment of the collision, to the swap. The same statistic on
# windows of the steady run is the noise floor.
def iv(x): return float(x["interval_ms"])
def windows(r):
    out, release = [], None
    for i, x in enumerate(r):
        if x["script"]: release = i
        if x["swap"] == "accepted" and release is not None:
            out.append((release, i)); release = None
    return out
def local_worst(r, k=10):
    w, res = windows(r), []
    for j, (rel, sw) in enumerate(w):
        lo = max(1, rel - k, w[j - 1][1] + 2 if j > 0 else 1)
        hi = min(sw + 2 + k, w[j + 1][0] if j + 1 < len(w) else len(r))
        before, after = [iv(x) for x in r[lo:rel]], [iv(x) for x in r[sw + 2:hi]]
        if len(before) < 3 or len(after) < 3: continue
        b, a = statistics.median(before), statistics.median(after)
        res.append(max([iv(r[i]) / b for i in range(rel, sw)] + [iv(r[i]) / a for i in range(sw, min(sw + 2, len(r)))]))
    return res
def noise(r, span, k=10):
    return [max(iv(r[i]) / statistics.median(iv(x) for x in r[s - k:s]) for i in range(s, s + span))
            for s in range(k + 1, len(r) - span - k, 60)]
lw = local_worst(cold) + local_worst(disk)
if lw:
    spans = [sw - rel + 2 for rel, sw in windows(cold) + windows(disk)]
    nz = noise(steady, int(statistics.median(spans))) if steady else []
    fig["swap_windows"] = len(lw)
    fig["swap_window_worst_median"] = statistics.median(lw)
    fig["swap_window_worst_p90"] = q(lw, 0.9)
    fig["swap_window_worst_max"] = max(lw)
    fig["swap_windows_over_1_5"] = sum(1 for x in lw if x > 1.5)
    if nz:
        fig["steady_window_worst_p90"] = q(nz, 0.9)
        fig["steady_window_worst_max"] = max(nz)
c, d = swaps(cold), swaps(disk)
fig["swaps"] = len(c)
fig["refused"] = sum(1 for x in cold if x["swap"] == "refused")
fig["cold_swap_s"] = c[0] if c else None
fig["warm_swap_median_s"] = statistics.median(c[1:]) if len(c) > 1 else None
fig["warm_swap_max_s"] = max(c[1:]) if len(c) > 1 else None
fig["disk_first_swap_s"] = d[0] if d else None
# The swap frames' own costs (trace columns swap_ms and teardown_ms, absent from traces before them): the
# frame loop's time in the swap call and, of that, the old build's teardown; and the rest of the swap
# frame, where the new kernels run for the first time (simulate_ms, vertices_ms), against the steady run.
def num(x, k):
    v = x.get(k)
    return float(v) if v not in (None, "") else None
accepted = [x for x in cold + disk if x["swap"] == "accepted"]
def over_swaps(k): return [v for v in (num(x, k) for x in accepted) if v is not None]
def put(name, values):
    if values:
        fig[name + "_median_ms"] = statistics.median(values)
        fig[name + "_max_ms"] = max(values)
# The swap frame's interval over the median of the next 10 frames, which the new variant draws before the
# next release: the swap's own cost, apart from how fast the new variant is (1/sqrtf against rsqrtf).
own = []
for r in (cold, disk):
    for rel, sw in windows(r):
        nxt = [iv(x) for x in r[sw + 1:sw + 11] if not x["script"]]
        if len(nxt) >= 5: own.append(iv(r[sw]) / statistics.median(nxt))
if own:
    fig["swap_frame_over_next_median"] = statistics.median(own)
    fig["swap_frame_over_next_p95"] = q(own, 0.95)
    fig["swap_frame_over_next_max"] = max(own)
fig["swap_frames"] = len(accepted)
fig["swaps_costed"] = len(over_swaps("swap_ms"))  # traces made before the swap_ms column have none
put("swap_call", over_swaps("swap_ms"))
put("swap_teardown", over_swaps("teardown_ms"))
put("swap_frame_simulate", over_swaps("simulate_ms"))
put("swap_frame_vertices", over_swaps("vertices_ms"))
for k in ("simulate_ms", "vertices_ms"):
    steady_values = [v for v in (num(x, k) for x in steady[1:]) if v is not None]
    if steady_values: fig["steady_" + k.replace("_ms", "") + "_median_ms"] = statistics.median(steady_values)
print(json.dumps(fig, indent=1))
EOF
}

# One summary line of a stall configuration, from its JSON; with "swap" as the second argument, the line
# of the accepted swaps' own costs instead (the swap call, the old build's teardown, and the swap frame's
# simulate and vertex times against the steady run's medians).
stall_row() {
  python3 - "$1" "${2:-}" <<'EOF' 2>/dev/null || echo "n/a"
import json, sys
f = json.load(open(sys.argv[1]))
if sys.argv[2] == "swap":
    def mm(k): return "n/a" if f.get(k + "_median_ms") is None else f"{f[k + '_median_ms']:.2f}/{f[k + '_max_ms']:.2f} ms"
    def one(k): return "n/a" if f.get(k) is None else f"{f[k]:.2f} ms"
    print(f"{f.get('swap_frames', 0)} accepted swaps (cold and disk runs), median/max: swap call {mm('swap_call')} "
          f"({f.get('swaps_costed', 0)} timed), "
          f"of which the old build's teardown {mm('swap_teardown')}; swap frame simulate {mm('swap_frame_simulate')} "
          f"(steady median {one('steady_simulate_median_ms')}), vertices {mm('swap_frame_vertices')} "
          f"(steady median {one('steady_vertices_median_ms')})"
          + (f"; swap frame / the new variant's next 10 frames: median {f['swap_frame_over_next_median']:.2f}x, "
             f"p95 {f['swap_frame_over_next_p95']:.2f}x, max {f['swap_frame_over_next_max']:.2f}x"
             if f.get("swap_frame_over_next_median") else ""))
    sys.exit(0)
def ms(k): return "n/a" if f.get(k) is None else f"{f[k]:.2f}"
def s(k): return "n/a" if f.get(k) is None else f"{f[k]:.3f} s"
ratio = "n/a" if f.get("p95_ratio") is None else f"{f['p95_ratio']:.2f}x"
worst = "n/a" if f.get("max_over_steady_median") is None else f"{f['max_over_steady_median']:.2f}x"
print(f"steady {ms('steady_median_ms')}/{ms('steady_p95_ms')} ms, toggling {ms('toggling_median_ms')}/{ms('toggling_p95_ms')} ms "
      f"(median/p95); p95 ratio {ratio} (target <= 1.5x); slowest frame {worst} the steady median; "
      f"swap cold {s('cold_swap_s')}, warm {s('warm_swap_median_s')} (median of {max(f.get('swaps', 0) - 1, 0)}), "
      f"from disk {s('disk_first_swap_s')}" + (f"; {f['refused']} refused" if f.get("refused") else "")
      + (f"; release-to-swap worst frame / the variant's local steady: median {f['swap_window_worst_median']:.2f}x, "
         f"p90 {f['swap_window_worst_p90']:.2f}x, max {f['swap_window_worst_max']:.2f}x, "
         f"{f['swap_windows_over_1_5']} of {f['swap_windows']} windows over 1.5x "
         f"(steady run, same windows: p90 {f.get('steady_window_worst_p90', 0):.2f}x, max {f.get('steady_window_worst_max', 0):.2f}x)"
         if f.get("swap_windows") else ""))
EOF
}


# The baseline build against this one, same machine, same run: each measurement alternates A B A B,
# so drift in clocks or temperature hits both alike. Prints one row per figure with both medians.
compare() {
  local base=$bundle/baseline/nbodylab now=$bundle/bin/nbodylab n=$1
  [[ -x $base ]] || { row "compare" "no baseline bundled (BASELINE_BIN at build)"; return; }
  local -a figures=()
  for round in 1 2; do
    for who in base now; do
      local bin=$base; [[ $who == now ]] && bin=$now
      local root=$bundle/baseline/root; [[ $who == now ]] && root=$root_dir
      export NBODYLAB_ROOT=$root
      step "compare-$who-ladder-$round" "$bin" bench ladder --scene plummer -n 65536 --json "$out/compare-$who-ladder-$round.json"
      step "compare-$who-bh-$round" "$bin" bench --algo barneshut --backend gpu --scene plummer -n "$n" --theta 0.5 \
        --steps 10 --warmup 2 --error-sample 1000 --json "$out/compare-$who-bh-$round.json"
      step "compare-$who-render-$round" "$bin" render --scene collision --algo barneshut -n "$n" --frames 120 \
        --size 1920x1080 --benchmark --report "$out/compare-$who-render-$round.json"
    done
  done
  export NBODYLAB_ROOT=$root_dir
  for who in base now; do
    for round in 1 2; do
      figures+=("$(printf '%-8s round %s  ladder best %s /s  BH step %s ms (p99 %s)  render frame %s FPS' "$who" "$round" \
        "$(figure "$out/compare-$who-ladder-$round.json" ladder rung best interactions_per_s)" \
        "$(figure "$out/compare-$who-bh-$round.json" "Per stage" stage total ms)" \
        "$(figure "$out/compare-$who-bh-$round.json" Summary quantity "force error: 99th percentile" value)" \
        "$(json_value "$out/compare-$who-render-$round.json" interactive_fps)")")
    done
  done
  compare_rows=("${figures[@]}")
}
declare -a compare_rows=()

# Kernel folders, one binary: each case twice, every folder in turn (A B C A B C), so drift shows as a
# round-to-round change rather than as a difference between folders.
kernelab() {
  local -A args=([plummer-1m]="--scene plummer -n 1048576 --steps 10 --warmup 2"
                 [plummer-4m]="--scene plummer -n 4194304 --steps 5 --warmup 1"
                 [plummer-10m]="--scene plummer -n 10000000 --steps 3 --warmup 1"
                 [collision-1m]="--scene collision -n 1048576 --steps 10 --warmup 2")
  local -a figures=()
  for name in ${KERNELAB_CASES:-plummer-1m plummer-4m plummer-10m collision-1m}; do
    [[ -n ${args[$name]:-} ]] || { row "kernelab-$name" "FAILED: no such case (${!args[*]})"; continue; }
    for round in 1 2; do
      for entry in ${KERNELAB:-built-in=}; do
        local who=${entry%%=*} dir=${entry#*=}
        local -a kernels=(); [[ -n $dir ]] && kernels=(--kernels "$dir")
        local json=$out/kernelab-$who-$name-$round.json
        # shellcheck disable=SC2086  # the case's options are words
        step "kernelab-$who-$name-$round" "$bundle/bin/nbodylab" bench --algo barneshut --backend gpu ${args[$name]} \
          --error-sample 1000 "${kernels[@]}" --json "$json"
        figures+=("$(printf '%-13s %-12s round %s  %s ms/step  force %s ms  p99 %s' "$name" "$who" "$round" \
          "$(figure "$json" "Per stage" stage total ms)" "$(figure "$json" "Per stage" stage force ms)" \
          "$(figure "$json" Summary quantity "force error: 99th percentile" value)")")
      done
    done
  done
  kernelab_rows=("${figures[@]}")
}
declare -a kernelab_rows=()

run() {
  mkdir -p "$out"
  export NBODYLAB_ROOT=$root
  export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  export NBODYLAB_KERNEL_CACHE=${TMPDIR:-/tmp}/nbodylab-kernel-cache  # not under $out: thousands of files
  export NBODYLAB_BIN=$bundle/bin/nbodylab
  [[ -d /usr/local/nvidia/share/glvnd/egl_vendor.d ]] &&
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  local bin=$bundle/bin
  # Every log of the run names the commit the binaries were built from and the GPU (step() heads them).
  commit=$(cat "$bundle/commit.txt" 2>/dev/null || echo unknown)
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
  gpu=${gpu:-no GPU}
  echo "$commit" >"$out/commit.txt"  # scripts/measured_figures.py reads it
  echo "nbodylab GPU suite: commit $commit on $gpu, $(date -u +%Y-%m-%dT%H:%MZ)" | tee "$out/run.txt"
  [[ -f $bundle/BASELINE_COMMIT ]] && echo "baseline build: commit $(cat "$bundle/BASELINE_COMMIT")" | tee -a "$out/run.txt"
  local quick=${QUICK:-0}
  local big=1048576 medium=4194304 huge=10000000
  ((quick)) && big=262144 medium=1048576 huge=2000000

  step info "$bin/nbodylab" info
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >"$out/nvidia-smi.txt" 2>&1

  # Tests: every binary, GPU tests included (they skip only without a device).
  local failed=0
  if want tests; then
    # TESTS_FROM=NAME starts at that binary (alphabetical): the rest of a run a time limit cut short.
    for t in "$bin"/*_test*; do
      [[ -n ${TESTS_FROM:-} && $(basename "$t") < $TESTS_FROM ]] && continue
      step "test-$(basename "$t")" "$t" --gtest_brief=1 || failed=1
    done
  fi

  if want allpairs; then
  step kernels-list "$bin/nbodylab" kernels --list --json "$out/kernels.json"
  step bench-clock "$bin/nbodylab" bench clock
  step bench-ladder-64k "$bin/nbodylab" bench ladder --scene plummer -n 65536 --json "$out/ladder-64k.json"
  if ((${FULL:-0})); then
  step bench-ladder-1m "$bin/nbodylab" bench ladder --scene plummer -n "$big" --json "$out/ladder-1m.json"
  step bench-sweep-64k "$bin/nbodylab" bench sweep --scene plummer -n 65536 --unrolls 8,16,32,64 \
    --block-sizes 128,256,512 --bodies-per-thread-values 1,2,4,6,8 --json "$out/sweep-64k.json"
  step bench-sweep-1m "$bin/nbodylab" bench sweep --scene plummer -n "$big" --unrolls 16,32 --block-sizes 128,256 \
    --bodies-per-thread-values 4,6,8 --steps 3 --json "$out/sweep-1m.json"
  step bench-scaling "$bin/nbodylab" bench scaling --scene plummer --json "$out/scaling.json"
  fi
  fi
  if want barneshut; then
  # The defaults (relative opening at 80e-4, adaptive quadrupoles) at the three sizes with a time target and on the
  # collision, the same opened by the angle 0.65 beside them, and the tutorial's monopoles at theta 0.5.
  step bench-bh-1m "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$big" \
    --steps 10 --warmup 2 --error-sample 2000 --json "$out/bh-1m.json"
  step bench-bh-4m "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$medium" \
    --steps 5 --warmup 1 --error-sample 2000 --json "$out/bh-4m.json"
  step bench-bh-10m "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$huge" \
    --steps 3 --warmup 1 --error-sample 4000 --json "$out/bh-10m.json"
  step bench-bh-collision-1m "$bin/nbodylab" bench --algo barneshut --backend gpu --scene collision -n "$big" \
    --steps 10 --warmup 2 --error-sample 2000 --json "$out/bh-collision-1m.json"
  step bench-bh-1m-angle "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$big" \
    --bh_opening geometric --steps 10 --warmup 2 --error-sample 2000 --json "$out/bh-1m-angle.json"
  step bench-bh-4m-angle "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$medium" \
    --bh_opening geometric --steps 5 --warmup 1 --error-sample 2000 --json "$out/bh-4m-angle.json"
  step bench-bh-10m-angle "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$huge" \
    --bh_opening geometric --steps 3 --warmup 1 --error-sample 4000 --json "$out/bh-10m-angle.json"
  step bench-bh-collision-1m-angle "$bin/nbodylab" bench --algo barneshut --backend gpu --scene collision -n "$big" \
    --bh_opening geometric --steps 10 --warmup 2 --error-sample 2000 --json "$out/bh-collision-1m-angle.json"
  step bench-bh-1m-monopole "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$big" \
    --bh_opening geometric --theta 0.5 --bh_moments monopole --steps 10 --warmup 2 --error-sample 2000 \
    --json "$out/bh-1m-monopole.json"
  step bench-bh-insertion-1m "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$big" \
    --bh_build insertion --bh_traversal warp --steps 5 --warmup 1 --error-sample 1000 --json "$out/bh-insertion-1m.json"
  step bench-bhswitches "$bin/nbodylab" bench bhswitches --scene plummer -n "$big" --steps 3 --warmup 1 \
    --json "$out/bhswitches.json"
  # 30 steps per point (its default), the faster of 1 and 4 bodies/thread on the all-pairs side.
  step bench-crossover "$bin/nbodylab" bench crossover --scene plummer --json "$out/crossover.json"
  fi
  if want render; then
  step render-1m "$bin/nbodylab" render --scene collision --algo barneshut -n "$big" --frames 240 --size 1920x1080 \
    --benchmark --report "$out/render-1m.json"
  step render-1m-host-copy "$bin/nbodylab" render --scene collision --algo barneshut -n "$big" --frames 120 \
    --size 1920x1080 --benchmark --no-interop --report "$out/render-1m-host.json"
  step render-10m "$bin/nbodylab" render --scene collision --algo barneshut -n "$huge" --frames 40 --size 1920x1080 \
    --benchmark --report "$out/render-10m.json"
  step render-allpairs "$bin/nbodylab" render --scene collision --algo allpairs -n 131072 --frames 120 --size 1920x1080 \
    --benchmark --report "$out/render-allpairs.json"
  # --overwrite: a re-run into the same $OUT replaces the earlier frames instead of being refused.
  step render-frames "$bin/nbodylab" render --scene collision --algo barneshut -n "$big" --frames 3 --steps-per-frame 100 \
    --size 1280x720 --out "$out/frames" --overwrite

  fi
  # The renderers: sprites against splat, sequential against overlapped frames, at 1M and 10M (collision,
  # 1080p, interop); and a 1M frame of each renderer to compare by eye.
  if want splat; then
    for n in "$big" "$huge"; do
      frames=120; ((n > big)) && frames=40
      for path in sprites splat; do
        for order in sequential overlapped; do
          flag=""; [[ $order == sequential ]] && flag="--sequential"
          step "frame-$n-$path-$order" "$bin/nbodylab" render --scene collision --algo barneshut -n "$n" --frames "$frames" \
            --warmup 5 --size 1920x1080 --benchmark --renderer "$path" $flag --report "$out/frame-$n-$path-$order.json"
        done
      done
    done
    # The 10M frame at t = 6 splatted, through the image check (the teach part draws it with sprites).
    step picture-10m-splat "$bin/nbodylab" render --scene collision --algo barneshut -n "$huge" --steps-per-frame 10 \
      --frames 61 --size 1920x1080 --renderer splat --check-picture --benchmark --warmup 2 \
      --report "$out/picture-10m-splat.json" --script "$root/assets/scripts/last-frame-screenshot.json"
    [[ -f last-frame.png ]] && mv last-frame.png "$out/picture-10m-t6-splat.png"
    for path in sprites splat; do
      step "frame-picture-$path" "$bin/nbodylab" render --scene collision --algo barneshut -n "$big" --frames 2 \
        --steps-per-frame 300 --size 1920x1080 --renderer "$path" --out "$out/frame-picture-$path" --overwrite --check-picture
    done
  fi
  if want stallbh; then stall barneshut-1m barneshut "$big"; fi  # the Barnes-Hut half alone
  if want stalllists; then
    # A Barnes-Hut switch whose two builds run at nearly the same speed (lists of 256 or 512: 5.16 and
    # 5.47 ms per step at 1M on the H200), so the whole run's p95 measures swaps, not the slower variant;
    # and the rsqrtf pair's own speeds on the same scene, to say what its toggling run's frames carry.
    python3 - "$out/toggle-lists.json" <<'EOF'
import json, sys
events = [{"time": t, "action": "set", "settings": {"toggles": {"bh_list_capacity": 512 if t % 2 else 256}}}
          for t in range(1, 31)]
events += [{"time": 31, "action": "stats"}, {"time": 31, "action": "quit"}]
json.dump({"description": "Barnes-Hut lists of 512 <-> 256 every second for 30 s", "events": events},
          open(sys.argv[1], "w"), indent=1)
EOF
    stall barneshut-1m-lists barneshut "$big" "$out/toggle-lists.json"
    for rs in 1 0; do
      step "bench-collision-1m-rsqrt$rs" "$bin/nbodylab" bench --algo barneshut --backend gpu --scene collision \
        -n "$big" --bh_rsqrt "$rs" --steps 20 --warmup 2 --error-sample 1000 --json "$out/bench-collision-1m-rsqrt$rs.json"
    done
  fi
  if want stall; then
    stall allpairs-65536 allpairs 65536
    stall barneshut-1m barneshut "$big"
    # The swap path in isolation: every kernel of a swapped-in build loaded before its first launch, and
    # the swap frame waiting for no other GPU work (a gate kernel on another stream).
    step stall-swap-test "$bin/cuda_swap_gpu_test"
  fi
  # compute-sanitizer on a small Barnes-Hut run (both builds, every traversal).
  if want sanitizer && command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
      for build in morton insertion; do
        step "sanitizer-$tool-$build" compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/nbodylab" bench \
          --algo barneshut --backend gpu --scene plummer -n 10000 --bh_build "$build" --steps 2 --warmup 0 --error-sample 0
      done
    done
    # A NaN in the first step, both builds, every walk, under memcheck and racecheck: the
    # test binary runs itself under the sanitizer (BarnesHutGpu.HardCasesAreCleanUnderMemcheckAndRacecheck).
    # (the tests part runs it with the rest of the binary: only here when that part is left out)
    want tests || step sanitizer-hard-cases "$bin/cuda_barneshut_gpu_test" --gtest_filter='*UnderMemcheckAndRacecheck*'
  fi

  # A/B on the same state: two all-pairs variants, a ladder rung against the default, two
  # Barnes-Hut walks and two opening angles; B's forces computed from A's state every step.
  if want ab; then
    step ab-unroll "$bin/nbodylab" bench --algo allpairs --backend gpu --scene plummer -n 65536 --steps 40 --warmup 3 \
      --compare "unroll=8" "unroll=128" --json "$out/ab-unroll.json"
    step ab-rung10 "$bin/nbodylab" bench --algo allpairs --backend gpu --scene plummer -n 65536 --steps 40 --warmup 3 \
      --compare "" "rung=10" --json "$out/ab-rung10.json"
    step ab-bh-walk "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$big" --steps 20 --warmup 2 \
      --compare "bh_traversal=group" "bh_traversal=warp" --json "$out/ab-bh-walk.json"
    step ab-bh-theta "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$big" --steps 20 --warmup 2 \
      --compare "bh_opening=geometric,theta=0.5" "bh_opening=geometric,theta=0.7" --json "$out/ab-bh-theta.json"
  fi

  # Barnes-Hut on hard geometry: each case against the Plummer sphere it is made from, both
  # builds, at 1M (the far outlier's target) and 10k (coincident bodies), and a long collision run
  # whose step time must stay within +5% as ejecta spread.
  # Nsight Compute on the Barnes-Hut force kernel at 1M: where its time goes (issue slots,
  # stall reasons, occupancy, shared-memory traffic). --clock-control none: the card's clocks as found.
  if want profile && command -v ncu >/dev/null; then
    for moments in ${PROFILE_MOMENTS:-monopole}; do
      step "ncu-force-1m-$moments" ncu --clock-control none --kernel-name bh_force --launch-skip 3 --launch-count 1 \
        --set full --import-source no --export "$out/ncu-force-1m-$moments" --force-overwrite \
        "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$big" --steps 2 --warmup 1 \
        --error-sample 0 ${PROFILE_ARGS:-} $( [[ $moments != monopole ]] && echo "--bh_moments $moments" )
      ncu -i "$out/ncu-force-1m-$moments.ncu-rep" --page source --csv --print-source sass \
        >"$out/ncu-force-1m-$moments-source.csv" 2>"$out/ncu-force-1m-$moments-source.err" &&
        step "ncu-hotspots-1m-$moments" python3 "$root/scripts/ncu_hotspots.py" "$out/ncu-force-1m-$moments-source.csv"
    done
  fi
  # The force pass's shapes at 1M: moment order x group size x list capacity x theta, each a
  # plain bench run (time per step and force error against the double direct sum on 1000 bodies).
  if want bhsweep; then
    # BHSWEEP="monopole 64 256 0.5;adaptive 64 256 0.65" (semicolons between shapes) replaces the list.
    local -a shapes=("monopole 32 512 0.5" "monopole 64 512 0.5" "monopole 64 256 0.5"
      "monopole 96 256 0.5" "monopole 128 256 0.5" "monopole 64 256 0.55" "adaptive 64 256 0.6"
      "adaptive 64 256 0.65" "adaptive 64 256 0.7" "adaptive 128 256 0.65" "adaptive 64 512 0.65"
      "quadrupole 64 256 0.65" "quadrupole 64 256 0.7")
    [[ -n ${BHSWEEP:-} ]] && IFS=';' read -r -a shapes <<<"$BHSWEEP"
    local n_sweep=${BHSWEEP_N:-$big}
    for shape in "${shapes[@]}"; do
      read -r moments size list theta <<<"$shape"
      step "bhsweep-$n_sweep-$moments-$size-$list-$theta" "$bin/nbodylab" bench --algo barneshut --backend gpu \
        --scene plummer -n "$n_sweep" --theta "$theta" --bh_moments "$moments" --bh_group_size "$size" \
        --bh_list_capacity "$list" --steps 5 --warmup 1 --error-sample 1000 \
        --json "$out/bhsweep-$n_sweep-$moments-$size-$list-$theta.json"
    done
  fi
  if want collshapes; then
    # The force pass's shapes on the lab's default scene (the collision: two disks, tails, ejecta) next
    # to the Plummer sphere the defaults were chosen on, at 1M and 10M.
    for n_shape in "$big" "$huge"; do
      local shape_steps=20; ((n_shape > big)) && shape_steps=8
      for shape in "64 256" "32 512" "32 256" "96 256"; do
        read -r size list <<<"$shape"
        step "coll-$n_shape-monopole-$size-$list" "$bin/nbodylab" bench --algo barneshut --backend gpu --scene collision \
          -n "$n_shape" --bh_moments monopole --bh_group_size "$size" --bh_list_capacity "$list" --steps "$shape_steps" \
          --warmup 2 --error-sample 1000 --json "$out/coll-$n_shape-monopole-$size-$list.json"
      done
      step "plummer-$n_shape-monopole-64-256" "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer \
        -n "$n_shape" --steps "$shape_steps" --warmup 2 --error-sample 1000 --json "$out/plummer-$n_shape.json"
    done
  fi
  if want groups; then
    # Where the group walk's time goes on the collision: each force group's walk replayed on the host.
    for g in 64 32; do
      for n_groups in "$big" "$huge"; do
        step "groups-$n_groups-$g" "$bin/nbodylab" bench groups --backend gpu --scene collision -n "$n_groups" \
          --bh_group_size "$g" --steps 1 --warmup 1 --top 15 --json "$out/groups-$n_groups-$g.json"
      done
    done
  fi
  if want geometry; then
    # Hard geometry as tests (both builds, operation counts and error against the sphere), and the
    # clump-in-a-halo case on 20 fresh seeds (it failed for a few seeds before cells' moments were
    # summed from their children).
    want tests || step geometry-tests "$bin/cuda_barneshut_geometry_gpu_test" --gtest_brief=1  # else in the tests part
    step geometry-huge-range-20-seeds "$bin/cuda_barneshut_gpu_test" --gtest_filter='*HugeDynamicRange*' \
      --gtest_repeat=20 --gtest_brief=1
    for build in morton insertion; do
      step "geometry-1m-$build" "$bin/nbodylab" bench geometry --backend gpu -n 1048575 --bh_build "$build" \
        --steps 5 --warmup 1 --error-sample 1000 --json "$out/geometry-1m-$build.json"
      step "geometry-10k-$build" "$bin/nbodylab" bench geometry --backend gpu -n 10000 --bh_build "$build" \
        --steps 5 --warmup 1 --error-sample 1000 --json "$out/geometry-10k-$build.json"
    done
  fi
  if want long; then
    local end_state=${TMPDIR:-/tmp}/nbl-long-end.tipsy trimmed=${TMPDIR:-/tmp}/nbl-long-end-99.tipsy
    step long-collision-1m "$bin/nbodylab" bench --algo barneshut --backend gpu --scene collision -n "$big" \
      --steps "${LONG_STEPS:-24000}" --warmup 0 --error-sample 1000 --save "$end_state" --json "$out/long-collision-1m.json"
    # Where the slowdown comes from: the end state as it is, and without its farthest 1% (the ejecta,
    # which widen the box), at the run's softening and time step.
    if [[ -f $end_state ]] && step long-trim python3 scripts/tipsy_trim.py "$end_state" 99 "$trimmed"; then
      local eps; eps=$(figure "$out/long-collision-1m.json" Summary quantity softening value)
      for state in "$end_state" "$trimmed"; do
        step "long-end-$(basename "$state" .tipsy)" "$bin/nbodylab" bench --algo barneshut --backend gpu --scene collision \
          --load "$state" --eps "$eps" --dt 0.01 --steps 20 --warmup 2 --error-sample 1000 \
          --json "$out/long-end-$(basename "$state" .tipsy).json"
        # Which force groups' walks the end state's time goes to (the costliest, replayed on the host).
        step "long-groups-$(basename "$state" .tipsy)" "$bin/nbodylab" bench groups --backend gpu --scene collision \
          --load "$state" --eps "$eps" --dt 0.01 --steps 1 --warmup 1 --top 12 \
          --json "$out/long-groups-$(basename "$state" .tipsy).json"
      done
    fi
  fi

  # Teaching: both guided tours run in the offscreen lab with their scripts (each step's live
  # A/B speed-up against the previous step is printed by the script's `stats` before the next step);
  # the image check on a 10M frame at t = 6, beside the earlier renderer at 1M.
  if want teach; then
    # Each under a time limit: a tour that stops making progress must not take the rest of the run.
    # The live scripts step by the clock (6 and 8 s): the lab never waits for a build, and at 100 FPS a
    # 60-frame step ends before its build and its A/B's are in (as it did on the H200).
    step tour-allpairs timeout 300 "$bin/nbodylab" --offscreen --size 1920x1080 --backend gpu --algo allpairs -n 65536 \
      --script tour-allpairs-live.json --trace "$out/tour-allpairs.csv"
    step tour-barneshut timeout 300 "$bin/nbodylab" --offscreen --size 1920x1080 --backend gpu --algo barneshut -n "$big" \
      --script tour-barneshut-live.json --trace "$out/tour-barneshut.csv"
    step picture-10m "$bin/nbodylab" render --scene collision --algo barneshut -n "$huge" --steps-per-frame 10 \
      --frames 61 --size 1920x1080 --check-picture --benchmark --warmup 2 --report "$out/picture-10m.json" \
      --script "$root/assets/scripts/last-frame-screenshot.json"
    [[ -f last-frame.png ]] && mv last-frame.png "$out/picture-10m-t6.png"
    # The earlier renderer (the bundled baseline: additive sprites at a fixed exposure) on the same 1M frame at t = 6, for the image
    # check side by side with docs/screenshots/h100-collision-1m-t6.png; only the last frame is kept.
    if [[ -x $bundle/baseline/nbodylab ]]; then
      NBODYLAB_ROOT=$bundle/baseline/root step picture-1m-baseline "$bundle/baseline/nbodylab" render --scene collision \
        --algo barneshut -n "$big" --steps-per-frame 10 --frames 61 --size 1920x1080 --out "$out/old-1m/"
      local last; last=$(ls "$out/old-1m/"frame_*.png 2>/dev/null | tail -n 1)
      [[ -n $last ]] && mv "$last" "$out/picture-1m-t6-baseline.png" && rm -rf "$out/old-1m"
      step picture-1m-baseline-check "$bin/nbodylab" picture "$out/picture-1m-t6-baseline.png"
    fi
  fi
  # The default collision at 1M through the image check at its first passage (t = 3), with its tails
  # out (t = 6) and later (t = 12): the README's and docs/screenshots' pictures. Only the last frame
  # of each is kept.
  if want picture; then
    for t in 3 6 12; do
      step "picture-1m-t$t" "$bin/nbodylab" render --scene collision --algo barneshut -n "$big" \
        --frames $((t / 3 + 1)) --steps-per-frame 300 --size 1920x1080 --out "$out/picture-1m-t$t/" --overwrite \
        --check-picture
      local last; last=$(ls "$out/picture-1m-t$t/"frame_*.png 2>/dev/null | tail -n 1)
      [[ -n $last ]] && mv "$last" "$out/picture-1m-t$t.png" && rm -rf "$out/picture-1m-t$t"
    done
  fi
  # The default collision (65,536 bodies) stepped from the tails bookmark (t = 6) in segments of 4 time
  # units to t = 70: the last frame and the state of each, to pick the merger bookmark from.
  if want merger; then
    local from=$root/assets/bookmarks/collision-tails.tipsy.gz
    mkdir -p "$out/merger"
    for t in 10 14 18 22 26 30 34 38 42 46 50 54 58 62 66 70; do
      step "merger-to-t$t" "$bin/nbodylab" render --settings "$root/assets/bookmarks/collision-tails.json" \
        --load "$from" --backend gpu --steps-per-frame 100 --frames 5 --size 960x540 --out "$out/merger/t$t/" \
        --overwrite --save "$out/merger/collision-t$t.tipsy"
      local last; last=$(ls "$out/merger/t$t/"frame_*.png 2>/dev/null | tail -n 1)
      [[ -n $last ]] && mv "$last" "$out/merger/t$t.png" && rm -rf "$out/merger/t$t"
      from=$out/merger/collision-t$t.tipsy
    done
  fi

  if want compare; then compare "$big"; fi
  if want kernelab; then kernelab; fi

  echo
  echo "================ summary ================"
  cat "$out/run.txt"
  printf '%s\n' "${summary_rows[@]}"
  echo "-----------------------------------------"
  printf '%-58s %s\n' "all-pairs best, n=65536: interactions/s" "$(figure "$out/ladder-64k.json" "ladder" rung best interactions_per_s)"
  printf '%-58s %s\n' "all-pairs best, n=$big: interactions/s" "$(figure "$out/ladder-1m.json" "ladder" rung best interactions_per_s)"
  printf '%-58s %s\n' "Barnes-Hut n=$big: ms/step (target <= 3.0)" "$(figure "$out/bh-1m.json" "Per stage" stage total ms)"
  printf '%-58s %s / %s\n' "Barnes-Hut n=$big: force error p99 / max (<= 2e-3 / 2e-2)" \
    "$(figure "$out/bh-1m.json" "Summary" quantity "force error: 99th percentile" value)" \
    "$(figure "$out/bh-1m.json" "Summary" quantity "force error: max" value)"
  printf '%-58s %s\n' "Barnes-Hut n=$medium: ms/step (target <= 12)" "$(figure "$out/bh-4m.json" "Per stage" stage total ms)"
  printf '%-58s %s\n' "Barnes-Hut n=$huge: ms/step (target <= 25)" "$(figure "$out/bh-10m.json" "Per stage" stage total ms)"
  for size in 1m 4m 10m collision-1m; do
    for how in "" -angle; do
      [[ -f $out/bh-$size$how.json ]] || continue
      local opening="relative 80e-4"; [[ -n $how ]] && opening="theta 0.65"
      printf '%-58s %s (p99 %s, max %s)\n' "Barnes-Hut $size, $opening: ms/step" \
        "$(figure "$out/bh-$size$how.json" "Per stage" stage total ms)" \
        "$(figure "$out/bh-$size$how.json" "Summary" quantity "force error: 99th percentile" value)" \
        "$(figure "$out/bh-$size$how.json" "Summary" quantity "force error: max" value)"
    done
  done
  printf '%-58s %s (p99 %s)\n' "Barnes-Hut n=$big, monopoles at theta 0.5: ms/step" \
    "$(figure "$out/bh-1m-monopole.json" "Per stage" stage total ms)" \
    "$(figure "$out/bh-1m-monopole.json" "Summary" quantity "force error: 99th percentile" value)"
  printf '%-58s %s\n' "render n=$big 1920x1080 (interop): FPS, wall-clock interval" "$(json_value "$out/render-1m.json" fps)"
  printf '%-58s %s\n' "render n=$big: parts' sum as a rate (diagnostic)" "$(json_value "$out/render-1m.json" interactive_fps)"
  [[ -f $out/render-10m.json ]] && printf '%-58s %s FPS; simulate %s ms, render %s ms\n' "render n=$huge 1920x1080: wall-clock" "$(json_value "$out/render-10m.json" fps)" \
    "$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["simulate"]["median_ms"],2))' "$out/render-10m.json" 2>/dev/null)" \
    "$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["render"]["median_ms"],2))' "$out/render-10m.json" 2>/dev/null)"
  [[ -f $out/render-1m.json ]] && printf '%-58s %s\n' "render n=$big: vertex path" "$(json_value "$out/render-1m.json" vertex_path)"
  for build in morton insertion; do
    [[ -f $out/geometry-1m-$build.json ]] || continue
    printf '%-58s %s x Plummer (ms); line err/RMS p99 %s x\n' "geometry 1M $build: far outlier" \
      "$(figure "$out/geometry-1m-$build.json" "hard geometry" case "far outlier" ms_ratio)" \
      "$(figure "$out/geometry-1m-$build.json" "hard geometry" case "line" error_p99_ratio)"
  done
  [[ -f $out/long-collision-1m.json ]] && printf '%-58s %s\n' "long collision 1M: last eighth / first (target <= 1.05)" \
    "$(figure "$out/long-collision-1m.json" "Over the run" part 8 ratio)"
  for state in nbl-long-end nbl-long-end-99; do
    [[ -f $out/long-end-$state.json ]] && printf '%-58s %s ms/step, %s interactions/step\n' "long collision 1M: end state ($state)" \
      "$(figure "$out/long-end-$state.json" Summary quantity "ms per step (median)" value)" \
      "$(figure "$out/long-end-$state.json" Summary quantity "interactions per step" value)"
  done
  for ab in ab-unroll ab-rung10 ab-bh-walk ab-bh-theta; do
    [[ -f $out/$ab.json ]] || continue
    printf '%-58s %s (95%%: %s .. %s); B vs A force %s\n' "$ab: A/B speed-up, force (or step total)" \
      "$(figure "$out/$ab.json" "A/B on the same state" stage force speedup)" \
      "$(figure "$out/$ab.json" "A/B on the same state" stage force speedup_low)" \
      "$(figure "$out/$ab.json" "A/B on the same state" stage force speedup_high)" \
      "$(figure "$out/$ab.json" "A/B forces" quantity "B vs A: ||aB - aA|| / ||aA|| (median)" value)"
  done
  for f in "$out"/bhsweep-*.json; do
    [[ -f $f ]] || continue
    printf '%-58s %s\n' "$(basename "$f" .json): total/force ms, p99, max, inter./body" \
      "$(python3 -c '
import json, sys
tables = json.load(open(sys.argv[1]))
def val(title, key_col, key, col):
    for t in tables:
        if title in t["title"]:
            for r in t["rows"]:
                if str(r.get(key_col)) == key: return r.get(col)
total = val("Per stage", "stage", "total", "ms"); force = val("Per stage", "stage", "force", "ms")
p99 = val("Summary", "quantity", "force error: 99th percentile", "value"); mx = val("Summary", "quantity", "force error: max", "value")
inter = val("Summary", "quantity", "interactions per step", "value"); n = val("Summary", "quantity", "bodies", "value")
print("%.3f / %.3f ms, p99 %.2e, max %.2e, %.0f" % (total, force, float(p99), float(mx), float(inter) / float(n)))' "$f" 2>/dev/null)"
  done
  if want splat; then
    for n in "$big" "$huge"; do
      for path in sprites splat; do
        for order in sequential overlapped; do
          f=$out/frame-$n-$path-$order.json
          [[ -f $f ]] || continue
          printf '%-58s %s\n' "frame n=$n $path $order: interval med/p95, sim, render, splat" \
            "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("%.2f / %.2f ms (%.1f FPS); sim %.2f, render %.2f, splat %.2f ms" % (j["frame_interval"]["median_ms"], j["frame_interval"]["p95_ms"], j["fps"], j["simulate"]["median_ms"], j["render"]["median_ms"], j["splat"]["median_ms"]))' "$f" 2>/dev/null)"
        done
      done
    done
  fi
  if want collshapes; then
    for f in "$out"/coll-*.json; do
      [[ -f $f ]] || continue
      printf '%-58s %s\n' "$(basename "$f" .json): ms/step, force ms" \
        "$(figure "$f" Summary quantity "ms per step (median)" value), $(figure "$f" "Per stage" stage force ms)"
    done
  fi
  if want stalllists; then
    printf '%-58s %s\n' "stall, Barnes-Hut n=$big, lists 512<->256 every 1 s" "$(stall_row "$out/stall-barneshut-1m-lists.json")"
    printf '%-58s %s\n' "stall, Barnes-Hut n=$big lists: the swap frames' own costs" "$(stall_row "$out/stall-barneshut-1m-lists.json" swap)"
    for rs in 1 0; do
      printf '%-58s %s\n' "Barnes-Hut collision n=$big, bh_rsqrt $rs: ms/step" "$(figure "$out/bench-collision-1m-rsqrt$rs.json" Summary quantity "ms per step (median)" value) (force $(figure "$out/bench-collision-1m-rsqrt$rs.json" "Per stage" stage force ms) ms)"
    done
  fi
  if want stallbh && ! want stall; then
    printf '%-58s %s\n' "stall, Barnes-Hut n=$big, rsqrtf off<->on every 1 s" "$(stall_row "$out/stall-barneshut-1m.json")"
    printf '%-58s %s\n' "stall, Barnes-Hut n=$big: the swap frames' own costs" "$(stall_row "$out/stall-barneshut-1m.json" swap)"
  fi
  if want stall; then
    printf '%-58s %s\n' "stall, all-pairs n=65536, unroll 8<->32 every 1 s" "$(stall_row "$out/stall-allpairs-65536.json")"
    printf '%-58s %s\n' "stall, all-pairs n=65536: the swap frames' own costs" "$(stall_row "$out/stall-allpairs-65536.json" swap)"
    printf '%-58s %s\n' "stall, Barnes-Hut n=$big, rsqrtf off<->on every 1 s" "$(stall_row "$out/stall-barneshut-1m.json")"
    printf '%-58s %s\n' "stall, Barnes-Hut n=$big: the swap frames' own costs" "$(stall_row "$out/stall-barneshut-1m.json" swap)"
  fi
  if ((${#compare_rows[@]})); then
    echo "----------------- baseline (base) vs this build (now), n=$big -----------------"
    printf '%s\n' "${compare_rows[@]}"
  fi
  if ((${#kernelab_rows[@]})); then
    echo "----------------- kernel folders side by side: ${KERNELAB:-built-in=} -----------------"
    printf '%s\n' "${kernelab_rows[@]}"
  fi
  return $failed
}

case $phase in
  build) build ;;
  run) run ;;
  all) build && run ;;
  *) echo "usage: $0 [build|run]" >&2; exit 2 ;;
esac
