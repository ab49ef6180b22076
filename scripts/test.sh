#!/usr/bin/env bash
# Set up (missing packages, Release build) and run the whole test suite. GPU tests (ctest label `gpu`)
# skip cleanly on a machine without an NVIDIA GPU. Extra arguments go to ctest (e.g. -L gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd "${NBODYLAB_BUILD_DIR:-build}"
ctest --output-on-failure -j "$(nproc)" "$@"
