#!/usr/bin/env bash
# The GPU run in one go: build for the GPU, run every test (the `gpu`-labelled ones included), run the
# benchmarks, print a summary table last. Logs and JSON results land in $OUT (default ./gpu-results).
# What runs is a table of named runs in scripts/gpu_suite.py; `--list` prints it: the parts (and which
# run by default), each run's command and log, and the summary rows it feeds with their targets.
#
#   scripts/gpu-suite.sh            build here, then run here (a workstation with an NVIDIA GPU)
#   scripts/gpu-suite.sh build      build only, into gpu-bundle/ (binaries + the shared libraries they
#                                   need, so a GPU machine without these packages can run them)
#   scripts/gpu-suite.sh run        run from gpu-bundle/ (on the GPU machine)
#   scripts/gpu-suite.sh --list     the table of runs
#   scripts/gpu-suite.sh summary DIR        the summary of a finished run's $OUT, running nothing
#   scripts/gpu-suite.sh compare DIR DIR    two runs' headline figures side by side, and whether they
#                                   agree within 3% (--tolerance PERCENT)
#   PARTS="tests barneshut" scripts/gpu-suite.sh run   only some parts (--list names them), e.g. to fit
#                                   a time limit; PARTS=stall: the stall measurement alone (about 4 min)
#   QUICK=1 scripts/gpu-suite.sh run   smaller bodies counts (262,144 for 1M, 1M for 4M, 2M for 10M)
#   FULL=1 scripts/gpu-suite.sh run    also the 1M ladder, the sweeps and the scaling run (minutes more)
#   TESTS_FROM=NAME ... run         the tests part from that binary on (alphabetical): the rest of a run
#                                   a time limit cut short
#   GPU_TESTS_ONLY=1 scripts/gpu-suite.sh build   bundle only the tests labelled gpu (CI runs the rest):
#                                   about half the size, for a GPU machine with a transfer limit
#   BASELINE_BIN=path/to/nbodylab scripts/gpu-suite.sh build   also bundle an earlier build; the
#                                   `compare` part then times both in one run, alternating A B A B
#   KERNELAB="A=dir B=dir ..." PARTS=kernelab scripts/gpu-suite.sh run   kernel folders side by side
#                                   with one binary (each made by `nbodylab kernels --export DIR`, then
#                                   edited; `name=` alone: the built-in kernels), Barnes-Hut at the
#                                   defaults, every folder in turn, twice; KERNELAB_CASES picks the
#                                   cases (default "plummer-1m plummer-4m plummer-10m collision-1m")
#   BHSWEEP, BHSWEEP_N, LONG_STEPS, PROFILE_MOMENTS, PROFILE_ARGS: the bhsweep, long and profile parts
#
# Build for another GPU with CUDA_ARCH=80 (default 90: the H100 the figures in BENCHMARKS.md come from),
# into GPU_BUILD_DIR (default build-gpu/). Kept under benchmarks/<gpu>/<date>/, a run's $OUT feeds
# scripts/measured_figures.py (the panel's measured figures); $OUT/commit.txt says which commit its
# binaries were built at.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bundle=$root/gpu-bundle

build() {
  set -e
  scripts/setup.sh --no-build
  local dir=${GPU_BUILD_DIR:-$root/build-gpu}
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >/dev/null
  cmake --build "$dir"
  rm -rf "$bundle"
  mkdir -p "$bundle/bin"
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
    local base_src
    base_src=$(git -C "$(dirname "$BASELINE_BIN")" rev-parse --show-toplevel)
    git -C "$base_src" rev-parse --short=12 HEAD >"$bundle/BASELINE_COMMIT" 2>/dev/null || echo unknown >"$bundle/BASELINE_COMMIT"
    mkdir -p "$bundle/baseline/root/cuda"
    cp "$BASELINE_BIN" "$bundle/baseline/nbodylab"
    strip "$bundle/baseline/nbodylab"
    cp -r "$base_src/cuda/kernels" "$bundle/baseline/root/cuda/"
    cp -r "$base_src/physics" "$base_src/shaders" "$base_src/assets" "$bundle/baseline/root/"
  fi
  strip "$bundle"/bin/*
  # The GL loaders (glvnd) and every library the binaries link that a bare CUDA machine lacks.
  scripts/bundle-libs.sh "$bundle" "$bundle"/bin/* >/dev/null
  du -sh "$bundle" | sed 's/^/gpu bundle: /'
  set +e
}

run() {
  export NBODYLAB_ROOT=$root
  export LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  export NBODYLAB_KERNEL_CACHE=${TMPDIR:-/tmp}/nbodylab-kernel-cache  # not under $OUT: thousands of files
  export NBODYLAB_BIN=$bundle/bin/nbodylab
  [[ -d /usr/local/nvidia/share/glvnd/egl_vendor.d ]] &&
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  BUNDLE=$bundle python3 scripts/gpu_suite.py run
}

case ${1:-all} in
  build) build ;;
  run) run ;;
  all) build && run ;;
  --list | list) python3 scripts/gpu_suite.py list ;;
  summary | compare) python3 scripts/gpu_suite.py "$@" ;;
  *)
    echo "usage: $0 [build|run|--list|summary DIR|compare DIR DIR]" >&2
    exit 2
    ;;
esac
