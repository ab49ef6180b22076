#!/usr/bin/env bash
# bundle-libs.sh DIR BINARY...
#
# Makes DIR/lib hold what a GPU machine without package access needs to run these binaries: the GL
# dispatch libraries of Debian's glvnd packages (libEGL, libGL, libGLdispatch, libOpenGL, libGLX,
# libGLESv2; that machine's NVIDIA driver brings the vendor side), and every shared library a BINARY
# loads that the GPU machine has anyway only if it is part of the C/C++ runtime or the CUDA driver and
# toolkit. The packages are downloaded, not installed. On the GPU machine:
#   export LD_LIBRARY_PATH=DIR/lib:$LD_LIBRARY_PATH
# (scripts/gpu-suite.sh run does that, and points EGL at the NVIDIA vendor file where it finds one).
set -euo pipefail
if (($# < 1)); then
  echo "usage: $0 DIR [BINARY...]" >&2
  exit 2
fi
dir=$1
shift
mkdir -p "$dir/lib"
work=$(mktemp -d)
chmod a+rwx "$work"  # apt-get download writes as the _apt user where it can
trap 'rm -rf "$work"' EXIT

# The glvnd dispatch libraries, unpacked from their .deb files.
glvnd=(libglvnd0 libegl1 libgl1 libglx0 libopengl0 libgles2)
(cd "$work" && apt-get download "${glvnd[@]}" >/dev/null)
for package in "$work"/*.deb; do
  dpkg-deb --extract "$package" "$work/unpacked"
done
while IFS= read -r -d '' library; do
  cp --dereference "$library" "$dir/lib/"
done < <(find "$work/unpacked" -name 'lib*.so.*' \( -type f -o -type l \) -print0)

# What the binaries load, less what every machine that runs CUDA programs has.
provided='^(linux-vdso|ld-linux|libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|libcuda|libcudart|libnvrtc|libnvidia)[.-]'
for binary in "$@"; do
  ldd "$binary" | while read -r name arrow path _; do
    [[ $arrow == "=>" && $path == /* ]] || continue
    [[ $name =~ $provided ]] && continue
    cp --dereference "$path" "$dir/lib/$name"
  done
done
echo "bundled libraries: $(du -sh "$dir/lib" | cut -f1) in $dir/lib"
