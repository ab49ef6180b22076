#!/usr/bin/env python3
"""Checks scripts/check_figures.py: the project's texts pass it with more than zero figures checked;
a copy of them with one quoted figure changed fails it, naming that figure; numbers match a log in any
common form after rounding; derived figures are recomputed; sizes, settings, dates and versions are
not taken for measurements. Python 3 standard library only (python3 -m unittest, or run directly)."""
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
spec = importlib.util.spec_from_file_location("check_figures", os.path.join(ROOT, "scripts", "check_figures.py"))
cf = importlib.util.module_from_spec(spec)
sys.modules["check_figures"] = cf
spec.loader.exec_module(cf)


def figures(text):
    return [(f.text, f.unit) for f in cf.figures_in(cf.strip_code_and_links(text))]


class Repository(unittest.TestCase):
    def test_the_texts_pass_and_figures_are_checked(self):
        files = cf.text_files(ROOT, cf.TEXTS)
        self.assertIn("BENCHMARKS.md", files)
        result = cf.check_texts(ROOT, files)
        self.assertEqual(result.errors, [])
        self.assertGreater(len(result.checked), 0)
        checked_files = {file for file, *_ in result.checked}
        for name in ("BENCHMARKS.md", "CHANGELOG.md", "README.md", "docs/performance.md"):
            self.assertIn(name, checked_files, f"no figure of {name} was checked")

    def test_benchmarks_holds_only_what_is_cited(self):
        self.assertEqual(cf.uncited(ROOT), [])


class InjectedErrors(unittest.TestCase):
    """A temporary copy of the texts, with benchmarks/ linked in, and one figure changed."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        os.symlink(os.path.join(ROOT, "benchmarks"), os.path.join(self.tmp, "benchmarks"))
        self.files = cf.text_files(ROOT, cf.TEXTS)
        for f in self.files:
            os.makedirs(os.path.dirname(os.path.join(self.tmp, f)), exist_ok=True)
            shutil.copy(os.path.join(ROOT, f), os.path.join(self.tmp, f))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def change(self, file, line, old, new):
        path = os.path.join(self.tmp, file)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        self.assertIn(old, lines[line - 1])
        lines[line - 1] = lines[line - 1].replace(old, new, 1)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))

    def first_checked(self, file, how):
        """The first figure the check matched in `file` in the way `how` says, with its line."""
        result = cf.check_texts(ROOT, [file])
        for f, line, text, unit, matched in result.checked:
            if f == file and how(text, unit, matched):
                return line, text
        self.fail(f"no figure of {file} was checked that way")

    def test_a_changed_millisecond_figure_fails(self):
        line, text = self.first_checked("BENCHMARKS.md", lambda t, u, m: m == "log" and u == "ms"
                                        and re.fullmatch(r"\d+\.\d{3}", t) is not None)
        wrong = f"{float(text) * 1.37:.3f}"
        self.change("BENCHMARKS.md", line, text, wrong)
        result = cf.check_texts(self.tmp, self.files)
        self.assertTrue(any(e.startswith(f"BENCHMARKS.md:{line}: {wrong}") for e in result.errors), result.errors)
        self.assertEqual(len(result.errors), 1, result.errors)

    def test_a_changed_derived_ratio_fails(self):
        line, text = self.first_checked("BENCHMARKS.md", lambda t, u, m: u == "x" and m.startswith("= ") and "(" not in m)
        wrong = f"{float(text) + 0.3:.{len(text.split('.')[1]) if '.' in text else 0}f}"
        self.change("BENCHMARKS.md", line, text + "×", wrong + "×")
        result = cf.check_texts(self.tmp, self.files)
        self.assertTrue(any(e.startswith(f"BENCHMARKS.md:{line}: {wrong}") for e in result.errors), result.errors)

    def test_a_wrong_derivation_fails(self):
        line, text = self.first_checked("BENCHMARKS.md", lambda t, u, m: u == "ms" and m.startswith("= ") and "(" in m)
        self.change("BENCHMARKS.md", line, text + " ms (=", f"{float(text) + 5:.1f} ms (=")
        result = cf.check_texts(self.tmp, self.files)
        self.assertTrue(any("its derivation" in e for e in result.errors), result.errors)

    def test_a_figure_in_the_changelog_without_a_log_fails(self):
        with open(os.path.join(self.tmp, "CHANGELOG.md"), "a", encoding="utf-8") as f:
            f.write("\n- Something got faster: 3.21 ms a step.\n")
        result = cf.check_texts(self.tmp, ["CHANGELOG.md"])
        self.assertTrue(any("3.21 ms: cites no log" in e for e in result.errors), result.errors)

    def test_a_missing_log_fails(self):
        with open(os.path.join(self.tmp, "docs", "performance.md"), "a", encoding="utf-8") as f:
            f.write("\nIt took 1.5 ms (`benchmarks/h100/2000-01-01/none.log`).\n")
        result = cf.check_texts(self.tmp, ["docs/performance.md"])
        self.assertTrue(any("none.log: no such file" in e for e in result.errors), result.errors)


class Matching(unittest.TestCase):
    def test_forms_and_rounding(self):
        log = [v for v in (1048576.0, 2.482, 1.318e12, 1.575501e12, 0.8311)]
        for text in ["1,048,576 ms", "2.48 ms", "2.482 ms", "1.3e12", "1.318 × 10¹²", "1.32·10¹²", "1.5755e12",
                     "83%"]:
            f = cf.figures_in(text)[0]
            self.assertTrue(cf.matches(f.value, f.half, log, f.unit == "%"), text)
        for text in ["2.49 ms", "2.4821 ms", "1.4e12", "84%"]:
            f = cf.figures_in(text)[0]
            self.assertFalse(cf.matches(f.value, f.half, log, f.unit == "%"), text)

    def test_log_numbers_in_any_form(self):
        tmp = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(tmp, "benchmarks"))
            with open(os.path.join(tmp, "benchmarks", "a.log"), "w") as f:
                f.write("bodies 1,048,576\n= 1575.501 billion interactions per second\nms 2.482e+00 x\n")
            values = cf.Logs(tmp).numbers("benchmarks/a.log")
            for v in (1048576, 1575.501e9, 2.482):
                self.assertTrue(any(abs(x - v) <= 1e-9 * v for x in values), v)
        finally:
            shutil.rmtree(tmp)

    def test_derivations(self):
        self.assertAlmostEqual(cf.evaluate("(0.5617 − 0.0935) × 1000 / (12 − 2)", lambda v, h: True), 46.82)
        with self.assertRaises(ValueError):
            cf.evaluate("0.5617 / 7", lambda v, h: v != 7)
        self.assertAlmostEqual(cf.evaluate("2.5 / 1000", lambda v, h: v == 2.5), 0.0025)  # powers of ten are free


class WhatIsAFigure(unittest.TestCase):
    def test_measurements(self):
        self.assertEqual(figures("takes 2.482 ms at a p99 of 1.4e-3 and 1.4·10⁻³"),
                         [("2.482", "ms"), ("1.4e-3", ""), ("1.4·10⁻³", "")])
        self.assertEqual(figures("1.32× faster, 55.1 FPS, 83%"), [("1.32", "x"), ("55.1", "FPS"), ("83", "%")])
        self.assertEqual(figures("| 2.454 (1.617) | 1.423e9 |"), [("2.454", ""), ("1.617", ""), ("1.423e9", "")])

    def test_not_measurements(self):
        for text in ["1M bodies, 65k, 10M", "at θ 0.5 and theta 0.65", "tolerance 80e-4, relative 80·10⁻⁴",
                     "on 2026-11-27 at 21:45", "commit 058f1d4", "H100 80GB HBM3, sm_90", "ECL-BH v4.5",
                     "CUDA 13.0, Ubuntu 24.04", "1920x1080 and 1920×1080", "p99 ≤ 2e-3, target 3.0",
                     "1,048,576 bodies, 24,000 steps, 512 sampled", "`bench -n 1048576 --theta 0.5`",
                     "t = 6", "softening 0.0063"]:
            self.assertEqual(figures(text), [], text)


if __name__ == "__main__":
    unittest.main()
