#!/usr/bin/env python3
"""scripts/check_layout.py passes on the repository and fails on each kind of violation it names."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import check_layout  # noqa: E402


def repository(files: dict[str, str]) -> pathlib.Path:
    root = pathlib.Path(tempfile.mkdtemp())
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    return root


class CheckLayoutTest(unittest.TestCase):
    def test_the_repository_follows_its_rules(self):
        self.assertEqual(check_layout.check(ROOT), [])

    def test_cuda_including_render_is_refused(self):
        root = repository({"cuda/a.hpp": '#include "render/camera.hpp"\n', "render/camera.hpp": ""})
        self.assertEqual(len(check_layout.check(root)), 1)

    def test_a_front_end_including_another_is_refused(self):
        root = repository({"app/lab/lab.cpp": '#include "app/bench/bench.hpp"\n#include "app/core/simulation.hpp"\n'})
        problems = check_layout.check(root)
        self.assertEqual(len(problems), 1)
        self.assertIn("app/lab/lab.cpp:1", problems[0])

    def test_core_including_a_front_end_is_refused(self):
        root = repository({"app/core/teaching/tour.hpp": '#include "app/bench/bench.hpp"\n'})
        self.assertEqual(len(check_layout.check(root)), 1)

    def test_a_crowded_folder_is_refused(self):
        root = repository({f"cuda/file{i}.cpp": "" for i in range(36)})
        self.assertEqual(len(check_layout.check(root)), 1)


if __name__ == "__main__":
    unittest.main()
