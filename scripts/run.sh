#!/usr/bin/env bash
# Set up (missing packages, Release build) and open nbodylab on its default scene.
# Any arguments go to nbodylab, e.g.  scripts/run.sh bench --algo allpairs -n 65536
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec "${NBODYLAB_BUILD_DIR:-build}/nbodylab" "$@"
