#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages nbodylab builds from and its tests use (only the missing ones),
# checks for the CUDA Toolkit, and configures + builds the Release build in ./build (again from scratch
# when the clone has moved since). Used by run.sh, test.sh, install.sh and CI.
#   scripts/setup.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config git
  libglfw3-dev libglm-dev libimgui-dev libstb-dev python3-glad
  nlohmann-json3-dev libcli11-dev libgtest-dev zlib1g-dev libhdf5-dev python3-h5py
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
  xvfb xauth fonts-dejavu-core
  ffmpeg lintian
  clang-format
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "nbodylab setup: installing ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then
    sudo=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo)
  elif command -v sudo >/dev/null; then
    echo "nbodylab setup: installing packages needs root; sudo will ask for your password"
    sudo=(sudo)
  else
    echo "nbodylab setup: these packages are missing and this user cannot install them:" >&2
    echo "  ${missing[*]}" >&2
    echo "ask an administrator to run:  apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CUDA Toolkit (nvcc, cudart, NVRTC) does not come from Debian's main archive.
if ! command -v nvcc >/dev/null; then
  if [[ -x /usr/local/cuda/bin/nvcc ]]; then
    export PATH=/usr/local/cuda/bin:$PATH
  else
    echo "nbodylab setup: the CUDA Toolkit (nvcc, NVRTC) was not found." >&2
    echo "Install it from https://developer.nvidia.com/cuda-downloads (or your distribution's" >&2
    echo "nvidia-cuda-toolkit package) and put its bin/ folder on PATH." >&2
    exit 1
  fi
fi

[[ ${1:-} == --no-build ]] && exit 0

build_dir=${NBODYLAB_BUILD_DIR:-build}
# A build folder configured elsewhere (this clone moved or copied) would build and package the other
# place's sources: its CMakeCache.txt names the folders it was made for. Configure it afresh here.
if [[ -f $build_dir/CMakeCache.txt ]]; then
  made_for=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build_dir/CMakeCache.txt")
  made_in=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$build_dir/CMakeCache.txt")
  if [[ $(realpath -m -- "$made_for") != "$(pwd -P)" || $(realpath -m -- "$made_in") != "$(cd "$build_dir" && pwd -P)" ]]; then
    echo "nbodylab setup: $build_dir was configured for $made_for (built in $made_in): this clone was moved or copied; configuring it afresh"
    rm -rf "$build_dir/CMakeCache.txt" "$build_dir/CMakeFiles" "$build_dir/build.ninja" "$build_dir/CPackConfig.cmake" \
      "$build_dir/CPackSourceConfig.cmake" "$build_dir/_CPack_Packages"
  fi
fi
if [[ ! -f $build_dir/build.ninja ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build_dir"
