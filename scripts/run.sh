#!/usr/bin/env bash
# Set up (missing packages, Release build) and open nbodylab on its default scene.
# Any arguments go to nbodylab, e.g.  scripts/run.sh bench --algo allpairs -n 65536
# nbodylab runs in the folder you start this from: relative paths you give (--load snap.hdf5, --save
# out.hdf5, --out frames/) and what it writes unasked (F12 screenshots, bookmarks, recordings, saved
# settings) are there, not in the checkout. NBODYLAB_BUILD_DIR names a build folder of the checkout, as
# for setup.sh (a relative one is relative to the checkout).
set -euo pipefail
checkout=$(cd "$(dirname "$0")/.." && pwd)
"$checkout/scripts/setup.sh"
build_dir=${NBODYLAB_BUILD_DIR:-build}
[[ $build_dir == /* ]] || build_dir=$checkout/$build_dir
exec "$build_dir/nbodylab" "$@"
