#!/usr/bin/env bash
# Optional, after run.sh or test.sh: install nbodylab like a program, so it runs from any folder without
# the source tree. The same set-up and Release build first (setup.sh; a build folder of a clone that has
# moved since is configured afresh), then one of:
#   scripts/install.sh              into ~/.local (bin/nbodylab, share/nbodylab/...; no root needed)
#   scripts/install.sh PREFIX       into PREFIX (e.g. /usr/local; through sudo when it is not writable;
#                                   a relative PREFIX is relative to the folder you run this from)
#   scripts/install.sh --deb        build a .deb in build/ instead (install it with apt, see the end)
set -euo pipefail
prefix=${1:-$HOME/.local}
[[ $prefix == --deb ]] || prefix=$(realpath -m -- "$prefix")  # before the cd below
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir=$(realpath -m -- "${NBODYLAB_BUILD_DIR:-build}")

if [[ $prefix == --deb ]]; then
  (cd "$build_dir" && cpack -G DEB >/dev/null)
  deb=$(ls -t "$build_dir"/nbodylab_*.deb | head -n 1)
  echo "nbodylab install: built $deb"
  echo "install it with:  sudo apt-get install $deb"
  exit 0
fi

sudo=()
mkdir -p "$prefix" 2>/dev/null || true
if [[ ! -w $prefix ]]; then
  echo "nbodylab install: $prefix is not writable; using sudo"
  sudo=(sudo)
fi
"${sudo[@]}" cmake --install "$build_dir" --prefix "$prefix" --strip >/dev/null
echo "nbodylab install: $prefix/bin/nbodylab, its kernels, shaders and assets under $prefix/share/nbodylab"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "add $prefix/bin to PATH to run it as plain 'nbodylab'" ;;
esac
"$prefix/bin/nbodylab" info | sed 's/^/  /'
