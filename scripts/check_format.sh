#!/usr/bin/env bash
# Checks that every C++ and CUDA source the repository tracks (*.cpp *.hpp *.h *.cu *.cuh) is formatted
# as .clang-format says: `clang-format --dry-run --Werror`, which names each file and line it would
# change and exits non-zero. scripts/format.sh formats them in place (the same list). The programs kept
# under benchmarks/ beside the logs they wrote stay as they ran. clang-format 14 (Debian 12's) is the
# reference: another version may lay a line out differently; CLANG_FORMAT picks the binary.
#
#   scripts/check_format.sh           check (the ctest format_check runs this)
#   scripts/check_format.sh --list    the files it checks
#   scripts/check_format.sh --fix     format them in place (what scripts/format.sh does)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
case $mode in
  check | --list | --fix) ;;
  *)
    echo "usage: $0 [--list|--fix]" >&2
    exit 2
    ;;
esac

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh' ':!:benchmarks/*')
else  # an exported tree: the same files, found on disk
  mapfile -t files < <(find . \( -path ./benchmarks -o -path './build*' -o -path ./.git \) -prune -o -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -printf '%P\n' | sort)
fi
if [[ $mode == --list ]]; then
  printf '%s\n' "${files[@]}"
  exit 0
fi

clang_format=${CLANG_FORMAT:-}
if [[ -z $clang_format ]]; then
  for candidate in clang-format-14 clang-format; do
    if command -v "$candidate" >/dev/null; then
      clang_format=$candidate
      break
    fi
  done
fi
if [[ -z $clang_format ]] || ! command -v "$clang_format" >/dev/null; then
  echo "check_format: no clang-format found (Debian: apt-get install clang-format; scripts/setup.sh does)" >&2
  exit 2
fi
version=$("$clang_format" --version | grep -o 'version [0-9]*' | grep -o '[0-9]*' || true)
[[ $version == 14 ]] || echo "check_format: $clang_format is version ${version:-unknown}; the reference is 14" >&2

if [[ $mode == --fix ]]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$clang_format" -i --style=file
  echo "formatted ${#files[@]} files with $clang_format"
  exit 0
fi
if printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$clang_format" --dry-run --Werror --style=file; then
  echo "${#files[@]} files formatted as .clang-format says ($clang_format)"
else
  echo "check_format: the files above are not formatted as .clang-format says; scripts/format.sh formats them" >&2
  exit 1
fi
