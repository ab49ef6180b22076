#!/usr/bin/env bash
# Formats every C++ and CUDA source the repository tracks in place, as .clang-format says: the files
# scripts/check_format.sh checks (its --list), with the same clang-format.
exec "$(dirname "$0")/check_format.sh" --fix
