#!/usr/bin/env python3
"""Checks scripts/measured_figures.py: every figure it writes names the configuration it was measured in;
the GPU runs it lists for the Barnes-Hut tour name every toggle of each step, and logs of those runs,
once kept, become figures whose configuration is that step's and whose baseline is the step before;
a log from another configuration does not. Python 3 standard library only."""
import importlib.util
import json
import os
import shlex
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def load_script(root):
    spec = importlib.util.spec_from_file_location(f"measured_figures_{abs(hash(root))}",
                                                  os.path.join(root, "scripts", "measured_figures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.ROOT = root
    return module


mf = load_script(ROOT)


class CommittedFigures(unittest.TestCase):
    def test_every_figure_names_its_configuration(self):
        data = json.load(open(os.path.join(ROOT, mf.FIGURES_FILE)))
        self.assertGreater(len(data["figures"]), 0)
        for f in data["figures"]:
            c = f["config"]
            self.assertIn(c["algorithm"], ("allpairs", "barneshut"), f["what"])
            self.assertTrue(c["scene"] and c["bodies"] > 0 and c["toggles"] and c["source"], f["what"])


class TourCommands(unittest.TestCase):
    def test_one_compare_per_step_that_switches_with_every_toggle_and_the_theta_of_the_step(self):
        steps = mf.tour_steps()
        script = mf.tour_commands("nbodylab", "out", 1048576)
        lines = [l for l in script.split("\n") if l.startswith("run ")]
        switching = [s for s in steps[1:] if s[2]]
        self.assertEqual(len(lines), len(switching), "one run per step after the first that turns a switch")
        self.assertLess(len(switching), len(steps) - 1, "the notes switch nothing and are not run")
        for line, (number, _, switch, value, _, toggles, settings) in zip(lines, switching):
            words = shlex.split(line)
            options = mf.options_of(words)
            named = {k[2:]: v for k, v in options.items() if k.startswith("--bh")}
            self.assertEqual(named, toggles, f"step {number} runs exactly its toggles")
            self.assertEqual(float(options["--theta"]), settings["theta"], f"step {number} runs its theta")
            self.assertEqual(options["--compare"][0], f"{switch}={value}")
            self.assertNotEqual(options["--compare"][1], options["--compare"][0])
            self.assertEqual(words[1], f"tour-barneshut-step-{number:02d}")
        for number, title, switch, *_ in steps[1:]:
            if not switch:
                self.assertIn(f"# step {number}: {title}: switches nothing", script)


class TourRuns(unittest.TestCase):
    """A copy of the repository's scripts and tour with made-up logs of one tour step's run."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        for rel in ["scripts", "assets/tour"]:
            shutil.copytree(os.path.join(ROOT, rel), os.path.join(self.tmp, rel))
        self.mf = load_script(self.tmp)
        self.run_dir = os.path.join(self.tmp, "benchmarks", "h100", "2000-01-01")
        os.makedirs(self.run_dir)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write_step(self, number, command):
        name = f"tour-barneshut-step-{number:02d}"
        with open(os.path.join(self.run_dir, name + ".log"), "w") as f:
            f.write(f"# nbodylab 0123456789ab on NVIDIA H100 80GB HBM3, 2000-01-01 00:00 UTC\n# {command}\n(the tables)\n")
        times = {"title": "A/B on the same state: A = x, B = y (barneshut, Barnes-Hut on NVIDIA H100 80GB HBM3, 1048576 bodies)",
                 "rows": [{"stage": "force", "a_ms": 10.0, "b_ms": 20.0}, {"stage": "total", "a_ms": 12.0, "b_ms": 24.0}]}
        forces = {"title": "A/B forces", "rows": [{"quantity": "A vs direct sum: per-body p99", "value": 1.4e-3},
                                                  {"quantity": "B vs direct sum: per-body p99", "value": 1.5e-3}]}
        json.dump([times, forces], open(os.path.join(self.run_dir, name + ".json"), "w"))

    def rsqrt_step(self):
        """The rsqrtf step's number and its run's command line, as --tour-commands writes it."""
        number = next(s[0] for s in self.mf.tour_steps() if s[2] == "bh_rsqrt")
        line = next(l for l in self.mf.tour_commands("nbodylab", "out", 1048576).split("\n")
                    if l.startswith(f"run tour-barneshut-step-{number:02d} "))
        return number, shlex.split(line)[2:]

    def test_a_step_run_becomes_a_figure_of_that_steps_configuration(self):
        steps = self.mf.tour_steps()
        number, words = self.rsqrt_step()
        self.write_step(number, " ".join(words))
        figures = self.mf.tour_step_figures([self.mf.Run(os.path.relpath(self.run_dir, self.tmp))])
        self.assertEqual(len(figures), 1)
        f = figures[0]
        _, _, switch, value, kernel, toggles, settings = steps[number - 1]
        self.assertEqual((f["toggle"], f["kernel"], f["commit"], f["gpu"]), (switch, kernel, "0123456", "NVIDIA H100 80GB HBM3"))
        self.assertEqual(f["config"]["toggles"], toggles)
        self.assertEqual(f["baseline"]["toggles"], steps[number - 2][5])
        self.assertEqual((f["config"]["scene"], f["config"]["bodies"], f["config"]["theta"]),
                         ("collision", 1048576, settings["theta"]))
        self.assertTrue(f["value"].startswith("force 2.00x (10.000 ms against 20.000 before), whole step 2.00x "
                                              "(12.000 ms against 24.000 before)"), f["value"])

    def test_a_run_at_another_theta_is_refused(self):
        number, words = self.rsqrt_step()
        words[words.index("--theta") + 1] = "0.9"
        self.write_step(number, " ".join(words))
        with self.assertRaises(self.mf.Failure) as e:
            self.mf.tour_step_figures([self.mf.Run(os.path.relpath(self.run_dir, self.tmp))])
        self.assertIn(f"A runs theta 0.9; tour step {number} runs theta", str(e.exception))

    def test_a_run_that_changes_two_switches_is_refused(self):
        number, words = self.rsqrt_step()
        at = words.index("--compare")
        words[at + 2] += ",bh_sort=off"
        self.write_step(number, " ".join(words))
        with self.assertRaises(self.mf.Failure) as e:
            self.mf.tour_step_figures([self.mf.Run(os.path.relpath(self.run_dir, self.tmp))])
        self.assertIn("a tour step changes one switch", str(e.exception))


if __name__ == "__main__":
    unittest.main()
