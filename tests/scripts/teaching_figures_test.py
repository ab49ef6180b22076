#!/usr/bin/env python3
"""Every number a class is shown with a unit of measure (2.05x, 3.8 ms, 40%, 7201 GFLOP/s, 55 FPS; not
plain seconds, which the texts use for settings and durations) in the teaching texts has a source a
reader can check.

The texts and what a figure in them must be:

- The texts the program shows: the tour steps (assets/tour/*.json), the toggles' and settings' help
  (sim/toggles.hpp, sim/settings_table.hpp), the ladder's words (sim/ladder.hpp) and the string
  literals of the panel and the tour window (app/lab/panel.cpp, app/lab/tour_view.cpp). They quote no
  measured figure at all: what a GPU measured reaches the screen from assets/measured/figures.json at
  run time, for the configuration on screen. A figure they do quote is the tutorial's, tagged in its
  sentence with where the tutorial has it, "[tutorial: Part II, Kernel Speedups]"; the program shows the
  tag as "(the tutorial, Part II, Kernel Speedups)". The toggles' `tutorial` field is the tutorial's by
  definition (the panel labels it so) and needs no tag.
- The documents (docs/*.md, README.md): a figure cites the kept log it comes from in its sentence,
  block, caption or section (scripts/check_figures.py's rule, here for every document), or cites
  BENCHMARKS.md and appears there (whose figures check_figures.py holds to their logs), or carries the
  tutorial's tag. Tables between "<!-- ...:begin" and "<!-- ...:end -->" markers are written by a
  script from the logs, and checked by that script's --check.

Settings and bounds are not measurements (theta 0.5, at most 2x, target 3.0): check_figures.py's rule.

Run directly with a folder to report on another checkout's texts: teaching_figures_test.py --report DIR.
Python 3 standard library only.
"""
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
_spec = importlib.util.spec_from_file_location("check_figures", os.path.join(ROOT, "scripts", "check_figures.py"))
cf = importlib.util.module_from_spec(_spec)
sys.modules["check_figures"] = cf
_spec.loader.exec_module(cf)

TUTORIAL_TAG = re.compile(r"\[tutorial:[^\]]+\]")
BENCHMARKS_MD = "BENCHMARKS.md"
GENERATED = re.compile(r"<!-- ([a-z-]+):begin.*?<!-- \1:end -->", re.S)
DOCS = ["README.md", "docs/*.md"]
CODE_TEXTS = ["sim/toggles.hpp", "sim/settings_table.hpp", "sim/ladder.hpp", "app/lab/panel.cpp", "app/lab/tour_view.cpp"]


# A confidence level names an interval, not a measurement: "95% interval", "95%% confidence".
NOT_MEASURED_AFTER = re.compile(r"%{1,2}\s*(?:confidence|interval)\b")


def readable(text):
    """The text as check_figures.py should read it, offsets kept: an arrow "3.65 -> 2.45 ms" is not a bound,
    and a range of decimals "1.13-1.29x" holds two figures (the dash is not a minus glued to a name)."""
    text = text.replace("->", "\u2192 ")
    return re.sub(r"(\d\.\d+)-(?=\d)", "\\1\u2013", text)


def unit_figures(text):
    """The figures of a text that carry a unit of measure (check_figures.py's reading of a number)."""
    plain = readable(cf.strip_code_and_links(text))
    return [f for f in cf.figures_in(plain)
            if f.unit and f.unit != "s" and not NOT_MEASURED_AFTER.match(plain, f.start + len(f.text))]


def tagged(text, figure):
    """Whether the sentence holding `figure` carries the tutorial's tag."""
    for a, b in cf.sentences(text):
        if a <= figure.start < b:
            return TUTORIAL_TAG.search(text[a:b]) is not None
    return False


# ---- the texts the program shows ----

def c_literals(source):
    """(line, text) of each string literal of a C++ source, adjacent literals joined into one."""
    out = []
    pattern = re.compile(r'"((?:[^"\\\n]|\\.)*)"|//[^\n]*|/\*.*?\*/|\'(?:[^\'\\\n]|\\.)*\'', re.S)
    last_end, current, line = None, None, 0
    for m in pattern.finditer(source):
        if m.group(1) is None:
            continue  # a comment or a character
        gap = source[last_end:m.start()] if last_end is not None else "x"
        if current is not None and gap.strip() == "":
            current += m.group(1)
        else:
            if current is not None:
                out.append((line, current))
            current, line = m.group(1), source.count("\n", 0, m.start()) + 1
        last_end = m.end()
    if current is not None:
        out.append((line, current))
    return [(n, t.replace('\\"', '"').replace("\\n", "\n")) for n, t in out]


def split_top_level(body):
    """The comma-separated fields of an initializer's body, commas inside strings or braces left alone."""
    fields, depth, start, i = [], 0, 0, 0
    while i < len(body):
        c = body[i]
        if c == '"':
            i += 1
            while body[i] != '"':
                i += 2 if body[i] == "\\" else 1
        elif c in "{(":
            depth += 1
        elif c in "})":
            depth -= 1
        elif c == "," and depth == 0:
            fields.append(body[start:i])
            start = i + 1
        i += 1
    fields.append(body[start:])
    return fields


def toggle_rows(source):
    """(line, help, tutorial) of each ToggleDef row of sim/toggles.hpp: its last two fields."""
    out = []
    for m in re.finditer(r"ToggleDef\{", source):
        depth, i = 1, m.end()
        while depth:
            c = source[i]
            if c == '"':
                i += 1
                while source[i] != '"':
                    i += 2 if source[i] == "\\" else 1
            depth += c == "{"
            depth -= c == "}"
            i += 1
        fields = split_top_level(source[m.end():i - 1])
        joined = ["".join(re.findall(r'"((?:[^"\\]|\\.)*)"', f)) for f in fields[-2:]]
        out.append((source.count("\n", 0, m.start()) + 1, joined[0], joined[1]))
    return out


def program_texts(root):
    """(where, text) of every text the program shows a class, the toggles' tutorial fields left out."""
    out = []
    for name in sorted(os.listdir(os.path.join(root, "assets", "tour"))):
        if not name.endswith(".json"):
            continue
        tour = json.load(open(os.path.join(root, "assets", "tour", name), encoding="utf-8"))
        for key in ("title", "intro"):
            out.append((f"assets/tour/{name}: {key}", tour.get(key, "")))
        for i, step in enumerate(tour.get("steps", [])):
            for key, value in step.items():
                if isinstance(value, str) and key not in ("switch", "kernel", "rung"):
                    out.append((f"assets/tour/{name}: step {i + 1} {key}", value))
    for rel in CODE_TEXTS:
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            continue
        source = open(path, encoding="utf-8").read()
        if rel == "sim/toggles.hpp":
            for line, help_text, _tutorial in toggle_rows(source):
                out.append((f"{rel}:{line} help", help_text))
            continue
        for line, text in c_literals(source):
            out.append((f"{rel}:{line}", text))
    return out


def check_program_texts(root):
    """(figures found, errors) of the texts the program shows."""
    found, errors = [], []
    for where, text in program_texts(root):
        for f in unit_figures(text):
            found.append((where, f.text + f.unit))
            if not tagged(text, f):
                errors.append(f"{where}: {f.text}{f.unit}: a measured figure in a text the program shows (take it "
                              "from assets/measured/figures.json for the configuration on screen, or tag the "
                              "tutorial's: [tutorial: Part ..., slide title])")
    return found, errors


# ---- the documents ----

def blank_generated(text):
    """The text with the generated tables blanked, line numbers kept."""
    return GENERATED.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def cell_of(row, offset):
    """The cell of a Markdown table row that holds `offset`."""
    start = row.rfind("|", 0, offset) + 1
    end = row.find("|", offset)
    return row[start:end if end >= 0 else len(row)]


def check_documents(root, files=None):
    """(figures found, errors) of the documents."""
    files = files if files is not None else cf.text_files(root, DOCS)
    logs = cf.Logs(root)
    benchmarks_numbers = None
    found, errors = [], []
    for rel in files:
        text = blank_generated(open(os.path.join(root, rel), encoding="utf-8").read())
        for block in cf.blocks_of(rel, text):
            if block.kind == "heading":
                continue
            plain = readable(cf.strip_code_and_links(block.text))
            figs = unit_figures(block.text)
            if not figs:
                continue
            spans = [(0, len(plain))] if block.kind == "row" else cf.sentences(plain)
            fallback, scope_block = cf.scope(block)
            groups = {}
            for f in figs:
                f.line = block.line + plain.count("\n", 0, f.start)
                found.append((f"{rel}:{f.line}", f.text + f.unit))
                sentence = next((block.text[a:b] for a, b in spans if a <= f.start < b), "")
                # In a table row the tag covers its own cell; elsewhere, its sentence.
                tagged_span = cell_of(block.text, f.start) if block.kind == "row" else sentence
                if TUTORIAL_TAG.search(tagged_span):
                    continue
                own = cf.citations(sentence)
                cites_benchmarks = not own and (BENCHMARKS_MD in sentence or (not fallback and BENCHMARKS_MD in block.text))
                cited = own or ([] if cites_benchmarks else fallback)
                if cited:
                    groups.setdefault(tuple(cited), []).append(f)
                    continue
                if cites_benchmarks:
                    if benchmarks_numbers is None:
                        benchmarks_numbers = logs.numbers(BENCHMARKS_MD)
                    if not cf.matches(f.value, f.half, benchmarks_numbers, f.unit == "%"):
                        errors.append(f"{rel}:{f.line}: {f.text} {f.unit}: cites BENCHMARKS.md, which does not have it")
                    continue
                errors.append(f"{rel}:{f.line}: {f.text} {f.unit}: cites no log (name the kept log under benchmarks/, "
                              "or BENCHMARKS.md where it quotes the figure, or tag the tutorial's)")
            for cited, group in groups.items():
                result = cf.Result()
                cf.check_figures(block, list(cited), group, logs, result)
                errors += result.errors
    return found, list(dict.fromkeys(errors))


def check_all(root):
    found_p, errors_p = check_program_texts(root)
    found_d, errors_d = check_documents(root)
    return found_p, found_d, errors_p + errors_d


class TheTexts(unittest.TestCase):
    def test_every_figure_has_a_source(self):
        found_program, found_docs, errors = check_all(ROOT)
        self.assertEqual(errors, [])
        self.assertGreater(len(found_program), 0, "no figure found in the texts the program shows")
        self.assertGreater(len(found_docs), 0, "no figure found in the documents")
        self.assertTrue(any(w.startswith("assets/tour/") for w, _ in found_program), "no figure in the tours")


class InjectedFigures(unittest.TestCase):
    """A copy of the texts with one untagged figure added fails, naming it; tagged, it passes."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        for rel in ["assets/tour", "sim", "app/lab", "docs", "scripts"]:
            shutil.copytree(os.path.join(ROOT, rel), os.path.join(self.tmp, rel),
                            ignore=shutil.ignore_patterns("*.png", "screenshots"))
        for rel in ["README.md", BENCHMARKS_MD]:
            shutil.copy(os.path.join(ROOT, rel), os.path.join(self.tmp, rel))
        os.symlink(os.path.join(ROOT, "benchmarks"), os.path.join(self.tmp, "benchmarks"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def edit_tour_step(self, sentence):
        path = os.path.join(self.tmp, "assets", "tour", "barneshut.json")
        tour = json.load(open(path, encoding="utf-8"))
        tour["steps"][6]["text"] += " " + sentence
        json.dump(tour, open(path, "w", encoding="utf-8"), indent=2)

    def test_an_untagged_speedup_in_a_tour_step_fails(self):
        self.edit_tour_step("The H100 gains 2.05x in the force kernel.")
        found_program, _, errors = check_all(self.tmp)
        self.assertTrue(any("step 7 text: 2.05x" in e for e in errors), errors)
        self.assertEqual(len(errors), 1, errors)

    def test_the_same_figure_tagged_as_the_tutorials_passes(self):
        self.edit_tour_step("The tutorial measured 1.46x at 5M bodies [tutorial: Part II, Kernel Speedups].")
        _, _, errors = check_all(self.tmp)
        self.assertEqual(errors, [])

    def test_an_untagged_speedup_in_a_toggle_help_fails(self):
        path = os.path.join(self.tmp, "sim", "toggles.hpp")
        source = open(path, encoding="utf-8").read()
        source = source.replace('"Hardware reciprocal square root in the force walk.', '"Hardware reciprocal square root '
                                'in the force walk: 2.05x on the H100.', 1)
        open(path, "w", encoding="utf-8").write(source)
        _, _, errors = check_all(self.tmp)
        self.assertTrue(any("sim/toggles.hpp" in e and "2.05x" in e for e in errors), errors)

    def test_an_uncited_figure_in_a_document_fails(self):
        with open(os.path.join(self.tmp, "docs", "barneshut.md"), "a", encoding="utf-8") as f:
            f.write("\nThe warp walk gains 2.05x here.\n")
        _, _, errors = check_all(self.tmp)
        self.assertTrue(any("docs/barneshut.md" in e and "2.05 x: cites no log" in e for e in errors), errors)

    def test_a_figure_citing_benchmarks_md_must_be_there(self):
        with open(os.path.join(self.tmp, "docs", "barneshut.md"), "a", encoding="utf-8") as f:
            f.write("\nThe warp walk gains 123.45x here (BENCHMARKS.md).\n")
        _, _, errors = check_all(self.tmp)
        self.assertTrue(any("123.45 x: cites BENCHMARKS.md" in e for e in errors), errors)


class Reading(unittest.TestCase):
    def test_adjacent_literals_are_one_text(self):
        self.assertEqual(c_literals('f("a 1.5x "\n  "b"); // "2x"\n g("c");'), [(1, "a 1.5x b"), (3, "c")])

    def test_a_toggle_rows_help_and_tutorial_fields(self):
        rows = toggle_rows('ToggleDef{"k", "K", A::b, "G", K::flag, 1, 0, 1, 1, kNo, "M",\n'
                           '  "help, with a comma " "and more.", "1.43x (50k), 1.46x (5M)"},')
        self.assertEqual(rows, [(1, "help, with a comma and more.", "1.43x (50k), 1.46x (5M)")])

    def test_settings_and_bounds_are_not_figures(self):
        self.assertEqual(unit_figures("at most 2x the sphere, theta 0.5, a 95% interval, 10-90%"), [])
        self.assertEqual([f.text for f in unit_figures("3.81x faster, 1.2 ms")], ["3.81", "1.2"])

    def test_arrows_and_ranges_hold_figures(self):
        self.assertEqual([f.text for f in unit_figures("3.65 -> 2.45 ms, 1.13-1.29x")], ["2.45", "1.29"])


def report(root):
    found_p, found_d, errors = check_all(root)
    print(f"teaching figures in {root}: {len(found_p)} in the texts the program shows, {len(found_d)} in the documents; "
          f"{len(errors)} without a source")
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--report":
        sys.exit(report(sys.argv[2]))
    unittest.main()
