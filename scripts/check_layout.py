#!/usr/bin/env python3
"""Checks the folder rules docs/architecture.md states, on the tracked sources:

- which layer may include which (physics <- sim <- cuda <- render <- app/core <- the front ends);
- no front end of app/ (lab, bench, render, cli) includes another, and app/core includes none of them;
- no folder of sources holds more than 35 files at its top.

Prints each violation as FILE:LINE and exits 1 when there is one. Usage: scripts/check_layout.py [ROOT]
"""
import pathlib
import re
import subprocess
import sys

MAX_FILES_AT_TOP = 35
SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".cu", ".cuh"}
FRONT_ENDS = ("app/lab", "app/bench", "app/render", "app/cli")

# Which top-level folders each folder may include from ("" is the repository root: physics/, sim/...).
ALLOWED = {
    "physics": {"physics"},
    "sim": {"physics", "sim"},
    "cuda": {"physics", "sim", "cuda"},
    "render": {"physics", "sim", "cuda", "render"},
    "app": {"physics", "sim", "cuda", "render", "app"},
    "tests": {"physics", "sim", "cuda", "render", "app", "tests"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def owner(path: str) -> str:
    for front in FRONT_ENDS:
        if path.startswith(front + "/"):
            return front
    if path.startswith("app/core/"):
        return "app/core"
    return path.split("/", 1)[0]


def tracked_files(root: pathlib.Path) -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line]


def check(root: pathlib.Path) -> list[str]:
    problems = []
    files = tracked_files(root)
    for path in files:
        if pathlib.PurePosixPath(path).suffix not in SOURCE_SUFFIXES:
            continue
        top = path.split("/", 1)[0]
        if top not in ALLOWED:
            continue
        text = (root / path).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or "/" not in match.group(1):
                continue  # a file beside the includer, or a system header
            target = match.group(1)
            target_top = target.split("/", 1)[0]
            if target_top not in ALLOWED:
                continue  # glad/, CLI/ and other library headers
            where = f"{path}:{number}"
            if target_top not in ALLOWED[top]:
                problems.append(f"{where}: {top}/ must not include {target}")
                continue
            mine, theirs = owner(path), owner(target)
            if mine in FRONT_ENDS and theirs in FRONT_ENDS and mine != theirs:
                problems.append(f"{where}: the front end {mine}/ must not include another front end's {target}")
            if mine in ("app/core", "app") and theirs in FRONT_ENDS and path != "app/main.cpp":
                problems.append(f"{where}: {mine}/ must not include the front end header {target}")
            if path == "app/main.cpp" and theirs in FRONT_ENDS:
                problems.append(f"{where}: main.cpp dispatches through app/core/commands.hpp, not {target}")
    counts: dict[str, int] = {}
    for path in files:
        parent = str(pathlib.PurePosixPath(path).parent)
        if parent.split("/", 1)[0] in ALLOWED and parent != "tests":
            counts[parent] = counts.get(parent, 0) + 1
    for folder, count in sorted(counts.items()):
        if folder.split("/", 1)[0] in ("cuda", "app") and count > MAX_FILES_AT_TOP:
            problems.append(f"{folder}/: {count} files at its top (at most {MAX_FILES_AT_TOP}: group them in folders)")
    return problems


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_layout: {len(problems)} violation(s) of the folder rules (docs/architecture.md)")
        return 1
    print("check_layout: the folder rules hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
