#!/usr/bin/env bash
# The GPU run in one go: build for the GPU, run every test (the `gpu`-labelled ones included), run the
# benchmarks, print a summary table last. Logs and JSON results land in $OUT (default ./gpu-results).
#
#   scripts/gpu-suite.sh            build here, then run here (a workstation with an NVIDIA GPU)
#   scripts/gpu-suite.sh build      build only, into gpu-bundle/ (binaries + the shared libraries they
#                                   need, so a GPU machine without these packages can run them)
#   scripts/gpu-suite.sh run        run from gpu-bundle/ (on the GPU machine)
#   QUICK=1 scripts/gpu-suite.sh run   fewer and smaller benchmarks
#   PARTS="tests barneshut" scripts/gpu-suite.sh run   only some parts (tests allpairs barneshut render
#                                   sanitizer; default all), e.g. to fit a time limit per call
#
# Build for another GPU with CUDA_ARCH=80 (default 90: the H100 the figures in BENCHMARKS.md come from).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
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
  cp "$dir/nbodylab" "$bundle/bin/"
  # The commit the bundle was built from (with "-dirty" for uncommitted changes): every log names it.
  echo "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo -dirty)" \
    >"$bundle/COMMIT"
  find "$dir/tests" -maxdepth 2 -type f -name '*_test*' -executable -exec cp {} "$bundle/bin/" \;
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
            if str(row.get(key_column)) == key:
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

want() { [[ " ${PARTS:-tests allpairs barneshut render sanitizer} " == *" $1 "* ]]; }

run() {
  mkdir -p "$out"
  export NBODYLAB_ROOT=$root
  export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  export NBODYLAB_KERNEL_CACHE=${TMPDIR:-/tmp}/nbodylab-kernel-cache  # not under $out: thousands of files
  export NBODYLAB_BIN=$bundle/bin/nbodylab
  [[ -d /usr/local/nvidia/share/glvnd/egl_vendor.d ]] &&
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  local bin=$bundle/bin
  commit=$(cat "$bundle/COMMIT" 2>/dev/null || git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
  gpu=${gpu:-no GPU}
  echo "nbodylab $commit on $gpu" >"$out/commit.txt"
  local quick=${QUICK:-0}
  local big=1048576 huge=10000000
  ((quick)) && big=262144 huge=2000000

  step info "$bin/nbodylab" info
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >"$out/nvidia-smi.txt" 2>&1

  # Tests: every binary, GPU tests included (they skip only without a device).
  local failed=0
  if want tests; then
    for t in "$bin"/*_test*; do
      step "test-$(basename "$t")" "$t" --gtest_brief=1 || failed=1
    done
  fi

  if want allpairs; then
  step kernels-list "$bin/nbodylab" kernels --list --json "$out/kernels.json"
  step bench-clock "$bin/nbodylab" bench clock
  step bench-ladder-64k "$bin/nbodylab" bench ladder --scene plummer -n 65536 --json "$out/ladder-64k.json"
  step bench-ladder-1m "$bin/nbodylab" bench ladder --scene plummer -n "$big" --json "$out/ladder-1m.json"
  step bench-sweep-64k "$bin/nbodylab" bench sweep --scene plummer -n 65536 --unrolls 8,16,32,64 \
    --block-sizes 128,256,512 --bodies-per-thread-values 1,2,4,6,8 --json "$out/sweep-64k.json"
  step bench-sweep-1m "$bin/nbodylab" bench sweep --scene plummer -n "$big" --unrolls 16,32 --block-sizes 128,256 \
    --bodies-per-thread-values 4,6,8 --steps 3 --json "$out/sweep-1m.json"
  step bench-scaling "$bin/nbodylab" bench scaling --scene plummer --json "$out/scaling.json"
  fi
  if want barneshut; then
  step bench-bh-1m "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$big" --theta 0.5 \
    --steps 10 --warmup 2 --error-sample 2000 --json "$out/bh-1m.json"
  step bench-bh-10m "$bin/nbodylab" bench --algo barneshut --backend gpu --scene plummer -n "$huge" --theta 0.5 \
    --steps 3 --warmup 1 --error-sample 1000 --json "$out/bh-10m.json"
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
  step render-allpairs "$bin/nbodylab" render --scene collision --algo allpairs -n 131072 --frames 120 --size 1920x1080 \
    --benchmark --report "$out/render-allpairs.json"
  # --overwrite: a re-run into the same $OUT replaces the earlier frames instead of being refused.
  step render-frames "$bin/nbodylab" render --scene collision --algo barneshut -n "$big" --frames 3 --steps-per-frame 100 \
    --size 1280x720 --out "$out/frames" --overwrite

  fi
  # compute-sanitizer on a small Barnes-Hut run (both builds, every traversal).
  if want sanitizer && command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
      for build in morton insertion; do
        step "sanitizer-$tool-$build" compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/nbodylab" bench \
          --algo barneshut --backend gpu --scene plummer -n 10000 --bh_build "$build" --steps 2 --warmup 0 --error-sample 0
      done
    done
  fi

  echo
  echo "================ summary ================"
  echo "nbodylab $commit on $gpu"
  printf '%s\n' "${summary_rows[@]}"
  echo "-----------------------------------------"
  printf '%-58s %s\n' "all-pairs best, n=65536: interactions/s" "$(figure "$out/ladder-64k.json" "ladder" rung best interactions_per_s)"
  printf '%-58s %s\n' "all-pairs best, n=$big: interactions/s" "$(figure "$out/ladder-1m.json" "ladder" rung best interactions_per_s)"
  printf '%-58s %s\n' "Barnes-Hut n=$big: ms/step (target <= 9)" "$(figure "$out/bh-1m.json" "Per stage" stage total ms)"
  printf '%-58s %s\n' "Barnes-Hut n=$big: force error p99 (target <= 0.02)" "$(figure "$out/bh-1m.json" "Summary" quantity "force error: 99th percentile" value)"
  printf '%-58s %s\n' "Barnes-Hut n=$huge: ms/step (target <= 120)" "$(figure "$out/bh-10m.json" "Per stage" stage total ms)"
  printf '%-58s %s\n' "render n=$big 1920x1080 (interop): interactive FPS (target >= 60)" "$(json_value "$out/render-1m.json" interactive_fps)"
  printf '%-58s %s\n' "render n=$big: vertex path" "$(json_value "$out/render-1m.json" vertex_path)"
  return $failed
}

case $phase in
  build) build ;;
  run) run ;;
  all) build && run ;;
  *) echo "usage: $0 [build|run]" >&2; exit 2 ;;
esac
