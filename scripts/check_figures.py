#!/usr/bin/env python3
"""Checks that every measured figure in the project's texts appears in the kept log it cites.

    scripts/check_figures.py            README.md, BENCHMARKS.md, CHANGELOG.md and docs/*.md, and that
                                        benchmarks/ holds only what some file cites
    scripts/check_figures.py -v FILE..  the files named, listing every figure checked and how

The convention the texts follow:

Citing a log. A text names a log by its path under benchmarks/: a file, a folder (every file in it),
a pattern with "*", or alternatives in braces (benchmarks/h200/2026-11-25/{bench-bh-1m.log,bench-bh-4m.log}).
A figure is held to the logs cited in its own sentence; a sentence that cites none takes those of its
block (a paragraph, a list item, a table row), then of the caption (the paragraph just above its table
or list, or the item it is nested in), then of its section's heading. Fenced code blocks, headings,
table header rows and the table scripts/measured_figures.py writes (its own --check regenerates it) are
not read.

What is a figure. A number with a decimal point or an exponent (2.482, 1.4e-3, 1.4·10⁻³,
2.075 × 10¹²), or any number with a unit of measure after it (ms, s, FPS, MHz, GHz, GB/s, TB/s,
TFLOP/s, %, x, ×). Not figures: plain integers (counts of bodies, steps and samples, seeds, dates),
sizes (1M, 65k), anything inside `code` (commands, paths), numbers glued to a name (H100, sm_90, v4.5,
p99, 80GB), dimensions (1920x1080), a setting named just before the number (θ 0.65, theta 0.5,
tolerance 80e-4, relative 80·10⁻⁴, t = 6, softening 0.0063, share 0.3), a bound (≤ 2e-3, target 3.0,
a bound of 1.2x), and a version after a name (CUDA 13.0, Ubuntu 24.04).

When a figure matches. A cited log holds the same number in any common form after rounding to the
digits quoted: 1,048,576 = 1048576; 2.48 matches 2.482; 1.3e12 matches 1.318e+12; "1575.501 billion"
is 1.575501e12; a percentage also matches the fraction (83% and 0.83).

Derived figures. A ratio (x or ×) that no log holds is recomputed: two other figures of its sentence
group, each matched in a log, must give it as their quotient. Any other derived figure shows its
arithmetic right after it: "46.8 ms (= (0.5617 − 0.0935) × 1000 / (12 − 2))". The expression may use
+ − * / × and parentheses; each operand must be in the cited logs (or be a matched figure beside it),
except powers of ten (unit changes); the figure must equal the result to its digits.

How strict. In BENCHMARKS.md, CHANGELOG.md, docs/performance.md and README.md every figure must cite a
log; a block quoting figures others published says "published" and is not checked. In the other docs
only figures whose sentence (or table row) cites a log are held to it; the rest point to BENCHMARKS.md.
Every cited path must exist, and every file under benchmarks/ must be cited by some file of the
repository outside it (texts, tests, scripts, assets/measured/figures.json).

Exit status 0 when all holds, 1 with one line per failure otherwise. Python 3 standard library only.
"""
import argparse
import fnmatch
import math
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEXTS = ["README.md", "BENCHMARKS.md", "CHANGELOG.md", "docs/*.md"]
STRICT = {"README.md", "BENCHMARKS.md", "CHANGELOG.md", "docs/performance.md"}
# The table scripts/measured_figures.py writes into BENCHMARKS.md: its own --check regenerates it.
# Tables a script writes from the logs and regenerates under its own --check (measured_figures.py:
# measured-figures, relative-opening, tour-figures; tour_table.py: tour-predictions): not read here.
GENERATED_BEGIN = re.compile(r"<!-- (measured-figures|relative-opening|tour-figures|tour-predictions):begin")
LOG_SUFFIXES = (".log", ".txt", ".json", ".csv", ".md")  # what a cited folder contributes

SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
SUPER_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"

# A number as the texts write it: 1,048,576 / 2.482 / 1.4e-3 / 1.4·10⁻³ / 2.075 × 10¹².
NUMBER = re.compile(
    r"(?P<mant>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<exp>[eE][-+]?\d+|\s?[·×x]\s?10(?:[⁻⁺]?[" + SUPER_DIGITS + r"]+|\^-?\d+))?")
# Units of measure that make any number a figure; checked right after the number.
UNIT = re.compile(r"\s?(?P<unit>ms\b|µs\b|us\b|s\b|FPS\b|MHz\b|GHz\b|GB/s|TB/s|TFLOP/s|GFLOP/s|%|×|x\b)")
SIZE = re.compile(r"[kKMG]\b")
# Settings and bounds named right before a number: the number is not a measurement.
NOT_MEASURED_BEFORE = re.compile(
    r"(?:θ|theta|tolerance|relative(?: opening)?(?: at)?|relative,|CUDA|NVRTC|driver|version|tested with|CC|"
    r"\bt|softening|eps|ε|share|at most|at least|within|target|targets|limit|bound|needs|[≤≥<>])"
    r"\s*(?:=|≈|of)?\s*$", re.IGNORECASE)
CITATION = re.compile(r"benchmarks/[A-Za-z0-9_.\-/*{},]*[A-Za-z0-9_/*}]")
DERIVED = re.compile(r"\s*\(=\s*(?P<expr>[^()]*(?:\([^()]*\)[^()]*)*)\)")
LOG_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass
class Figure:
    text: str      # as quoted
    value: float
    half: float    # half a unit of the last digit quoted
    unit: str
    start: int     # offset in the block's plain text
    end: int
    derived: str = ""  # the expression after "(= ...)", if any
    line: int = 0      # in the text file


@dataclass
class Block:
    file: str
    line: int
    kind: str      # paragraph | item | row | heading
    text: str
    logs: list = field(default_factory=list)
    lead: "Block" = None
    section: list = field(default_factory=list)  # headings above, nearest first
    indent: int = 0
    parent: "Block" = None


def parse_number(mant, exp):
    """(value, half a unit of the last digit) of a quoted number."""
    digits = mant.replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    power = 0
    if exp:
        e = exp.strip().lstrip("eE")
        if e[:1] in "·×x":
            e = e[1:].strip()[2:].lstrip("^")  # after the "10"
        power = int(e.translate(SUPER))
    value = float(digits) * 10.0 ** power
    half = 0.5 * 10.0 ** (power - decimals)
    return value, half


def strip_code_and_links(text):
    """Blanks inline code and link targets (same length, so offsets hold)."""
    text = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), text)
    text = re.sub(r"\]\([^)]*\)", lambda m: "]" + " " * (len(m.group(0)) - 1), text)
    return text


def figures_in(text):
    """The figures of a block's text (code and link targets already blanked)."""
    out = []
    for m in NUMBER.finditer(text):
        s, e = m.start(), m.end()
        before = text[max(0, s - 1):s]
        if before and (before.isalnum() or before in "_.^/"):
            continue  # part of a name: H100, sm_90, v4.5, p99, r1-P1
        if before == "-" and s >= 2 and text[s - 2].isalnum():
            continue  # run-885a6ec, 2026-11-27: a name or a date, not a minus sign
        mant, exp = m.group("mant"), m.group("exp") or ""
        after = text[e:]
        if re.match(r"[x×]\d", after):
            continue  # 1920x1080: a dimension
        if SIZE.match(after):
            continue  # 1M, 65k: a size
        unit_m = UNIT.match(after)
        unit = unit_m.group("unit") if unit_m else ""
        if re.match(r"[A-Za-z_]", after) and not unit:
            continue  # glued to a word: 80GB, 4th, 3D
        if not unit and "." not in mant and not exp:
            continue  # a plain integer: a count, a date, a seed
        if NOT_MEASURED_BEFORE.search(text[max(0, s - 24):s]):
            continue
        if not unit and not exp and re.search(r"\b[A-Z][A-Za-z]+\s$", text[max(0, s - 24):s]):
            continue  # a version after a name: Ubuntu 24.04, CUDA 13.0
        value, half = parse_number(mant, exp)
        end = e + (unit_m.end() if unit_m else 0)
        derived = ""
        d = DERIVED.match(text[end:])
        if d:
            derived = d.group("expr")
            end += d.end()
        out.append(Figure(text[s:e], value, half, unit.replace("×", "x"), s, end, derived))
    # Numbers inside a derivation are its operands, not figures of their own.
    spans = [(f.start, f.end) for f in out if f.derived]
    return [f for f in out if f.derived or not any(a < f.start < b for a, b in spans)]


# ---- the texts as blocks ----

def blocks_of(file, text):
    lines = text.split("\n")
    blocks, headings = [], {}
    fenced = generated = False
    generated_end = ""
    current = None
    last_para = None       # the paragraph just above a table or list (its caption)
    list_stack = []        # open list items, outermost first
    in_table = False
    table_lead = None
    i = 0

    def section():
        return [headings[k] for k in sorted(headings, reverse=True)]

    def close():
        nonlocal current, last_para
        if current is not None:
            blocks.append(current)
            if current.kind == "paragraph":
                last_para = current
        current = None

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            close()
            fenced = not fenced
            i += 1
            continue
        begun = GENERATED_BEGIN.search(stripped)
        if begun:
            generated, generated_end = True, f"<!-- {begun.group(1)}:end -->"
        if generated:
            generated = generated_end not in stripped
            i += 1
            continue
        if fenced or stripped.startswith("<!--"):
            i += 1
            continue
        if not stripped:
            close()
            if in_table:
                in_table = False
            i += 1
            continue
        if stripped.startswith("#"):
            close()
            level = len(stripped) - len(stripped.lstrip("#"))
            headings = {k: v for k, v in headings.items() if k < level}
            h = Block(file, i + 1, "heading", stripped)
            h.logs = citations(stripped)
            headings[level] = h
            last_para, list_stack, in_table = None, [], False
            i += 1
            continue
        if stripped.startswith("|"):
            close()
            if not in_table:
                in_table = True
                table_lead = last_para
                # the header row and the rule under it
                i += 2 if i + 1 < len(lines) and re.match(r"^\s*\|[\s:|-]+\|\s*$", lines[i + 1]) else 1
                continue
            row = Block(file, i + 1, "row", stripped, citations(stripped), table_lead, section())
            blocks.append(row)
            i += 1
            continue
        item = re.match(r"^(\s*)([-*+]|\d+\.)\s+", line)
        if item:
            close()
            indent = len(item.group(1))
            while list_stack and list_stack[-1].indent >= indent:
                list_stack.pop()
            current = Block(file, i + 1, "item", line, lead=last_para, section=section(), indent=indent)
            current.parent = list_stack[-1] if list_stack else None
            list_stack.append(current)
            i += 1
            continue
        if current is None:
            if not line.startswith(" ") or not list_stack:
                list_stack = []
            current = Block(file, i + 1, "paragraph", line, section=section())
            if list_stack:  # an indented paragraph that continues a list item
                current.kind, current.lead, current.parent = "item", list_stack[-1].lead, list_stack[-1]
        else:
            current.text += "\n" + line
        i += 1
    close()
    for b in blocks:
        if b.kind in ("paragraph", "item"):
            b.logs = citations(b.text)
    return blocks


def citations(text):
    out = []
    for m in CITATION.finditer(text):
        path = m.group(0).rstrip(".,")
        brace = re.search(r"\{([^{}]*)\}", path)
        if brace:
            for alt in brace.group(1).split(","):
                out.append(path[:brace.start()] + alt + path[brace.end():])
        else:
            out.append(path)
    return out


def scope(block):
    """The logs a block's figures are checked against: its own, else its caption's, else its section's."""
    if block.logs:
        return block.logs, block
    b = block.parent
    while b is not None:
        if b.logs:
            return b.logs, b
        b = b.parent
    if block.lead is not None and block.lead.logs:
        return block.lead.logs, block.lead
    for h in block.section:
        if h.logs:
            return h.logs, h
    return [], None


# ---- the logs ----

class Logs:
    def __init__(self, root):
        self.root = root
        self.values = {}

    def files(self, citation):
        """The files a citation names (relative paths), or [] when it names nothing."""
        path = os.path.join(self.root, citation)
        if any(c in citation for c in "*?["):
            base = citation.split("*")[0].rsplit("/", 1)[0]
            found = []
            for dirpath, _, names in os.walk(os.path.join(self.root, base)):
                for n in names:
                    rel = os.path.relpath(os.path.join(dirpath, n), self.root)
                    if fnmatch.fnmatch(rel, citation) or fnmatch.fnmatch(rel, citation.rstrip("/") + "/*"):
                        found.append(rel)
            return sorted(found)
        if os.path.isdir(path):
            found = []
            for dirpath, _, names in os.walk(path):
                found += [os.path.relpath(os.path.join(dirpath, n), self.root) for n in names]
            return sorted(found)
        return [citation] if os.path.isfile(path) else []

    def numbers(self, rel):
        if rel not in self.values:
            vals = []
            if rel.endswith(LOG_SUFFIXES) or "." not in os.path.basename(rel):
                try:
                    with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                        text = f.read()
                except OSError:
                    text = ""
                for m in LOG_NUMBER.finditer(text):
                    for tok in {m.group(0), m.group(0).replace(",", "")} | set(m.group(0).split(",")):
                        try:
                            v = abs(float(tok.replace(",", "")))
                        except ValueError:
                            continue
                        vals.append(v)
                        if re.match(r"\s*billion", text[m.end():m.end() + 9]):
                            vals.append(v * 1e9)
            self.values[rel] = sorted(set(vals))
        return self.values[rel]


def matches(fig_value, half, values, percent=False):
    tol = half * (1 + 1e-9) + 1e-300
    targets = [fig_value] + ([fig_value / 100.0] if percent else [])
    for t, h in zip(targets, [tol, tol / 100.0]):
        for v in values:
            if abs(v - t) <= h:
                return True
    return False


def evaluate(expr, known):
    """The value of a derivation. Every operand must satisfy known(value, half), except powers of ten
    (1, 10, 1000: unit changes, percentages)."""
    src = expr.replace("−", "-").replace("×", "*").replace("÷", "/").replace("·", "*")
    if not re.fullmatch(r"[\d.,eE+\-*/() \t]+", src):
        raise ValueError(f"cannot read the derivation '{expr}'")
    src = re.sub(r"(?<=\d),(?=\d{3})", "", src)
    for m in re.finditer(r"(\d+(?:\.\d+)?)([eE][-+]?\d+)?", src):
        value, half = parse_number(m.group(1), m.group(2) or "")
        if value > 0 and math.log10(value) == int(math.log10(value)) and "." not in m.group(1):
            continue
        if not known(value, half):
            raise ValueError(f"operand {m.group(0)} of '{expr}' is in no cited log")
    return eval(src, {"__builtins__": {}}, {})  # digits and operators only (checked above)


@dataclass
class Result:
    checked: list = field(default_factory=list)   # (file, line, figure as quoted, unit, how it matched)
    errors: list = field(default_factory=list)


SENTENCE_END = re.compile(r"[.!?;]\)?(?=\s+[A-Z(`*\"'“])")


def sentences(text):
    """(start, end) of each sentence of a block's text; a table row is one sentence."""
    out, start = [], 0
    for m in SENTENCE_END.finditer(text):
        out.append((start, m.end()))
        start = m.end()
    out.append((start, len(text)))
    return out


def check_block(block, logs, result, strict):
    plain = strip_code_and_links(block.text)
    figs = figures_in(plain)
    if not figs:
        return
    spans = [(0, len(plain))] if block.kind == "row" else sentences(plain)
    fallback, _ = scope(block)
    groups = {}  # cited logs -> the figures held to them
    for f in figs:
        f.line = block.line + plain.count("\n", 0, f.start)
        own = next((citations(block.text[a:b]) for a, b in spans if a <= f.start < b), [])
        cited = own or (fallback if strict else [])
        if not cited:
            if strict and "published" not in block.text:
                result.errors.append(f"{block.file}:{f.line}: {f.text}{f.unit and ' ' + f.unit}: cites no log "
                                     f"(name one under benchmarks/ in its sentence, {block.kind} or caption)")
            continue
        groups.setdefault(tuple(cited), []).append(f)
    for cited, group in groups.items():
        check_figures(block, list(cited), group, logs, result)


def check_figures(block, cited, figs, logs, result):
    files = []
    for c in cited:
        named = logs.files(c)
        if not named:
            result.errors.append(f"{block.file}:{block.line}: {c}: no such file or folder")
        files += named
    values = sorted(set(v for f in files for v in logs.numbers(f)))
    if not values:
        return  # only images are cited (or nothing that exists): nothing to hold the figures to

    def in_logs(value, half):
        return matches(value, half, values)

    verified = []
    pending = []
    for f in figs:
        if f.derived:
            pending.append(f)
        elif matches(f.value, f.half, values, f.unit == "%"):
            verified.append(f)
            result.checked.append((block.file, f.line, f.text, f.unit, "log"))
        else:
            pending.append(f)
    for f in pending:
        if f.derived:
            def known(value, half):
                return in_logs(value, half) or any(abs(g.value - value) <= half + g.half for g in verified)
            try:
                got = evaluate(f.derived, known)
            except (ValueError, SyntaxError, ZeroDivisionError) as e:
                result.errors.append(f"{block.file}:{f.line}: {f.text}: {e}")
                continue
            if matches(f.value, f.half, [abs(got)], f.unit == "%"):
                verified.append(f)
                result.checked.append((block.file, f.line, f.text, f.unit, f"= {f.derived}"))
            else:
                result.errors.append(f"{block.file}:{f.line}: {f.text} {f.unit}: its derivation "
                                     f"'{f.derived}' gives {got:.6g}")
            continue
        if f.unit == "x":
            pair = next(((a, b) for a in verified for b in verified
                         if a is not b and b.value and matches(f.value, f.half, [a.value / b.value])), None)
            if pair:
                result.checked.append((block.file, f.line, f.text, f.unit, f"= {pair[0].text} / {pair[1].text}"))
                continue
        result.errors.append(f"{block.file}:{f.line}: {f.text}{(' ' + f.unit) if f.unit else ''} is in none of "
                             f"{', '.join(cited)}")


def text_files(root, patterns):
    out = []
    for p in patterns:
        if any(c in p for c in "*?["):
            d = os.path.join(root, os.path.dirname(p))
            if os.path.isdir(d):
                out += sorted(os.path.relpath(os.path.join(d, n), root) for n in os.listdir(d)
                              if fnmatch.fnmatch(n, os.path.basename(p)))
        elif os.path.exists(os.path.join(root, p)):
            out.append(p)
    return out


def check_texts(root, files):
    logs = Logs(root)
    result = Result()
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        strict = rel in STRICT
        for b in blocks_of(rel, text):
            for c in b.logs:
                if not logs.files(c):
                    result.errors.append(f"{rel}:{b.line}: {c}: no such file or folder")
            if b.kind != "heading":
                check_block(b, logs, result, strict)
    result.errors = list(dict.fromkeys(result.errors))
    return result


def repository_files(root):
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root, capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")]
        files += [os.path.relpath(os.path.join(dirpath, n), root) for n in names]
    return files


def uncited(root):
    """Files under benchmarks/ that no file outside it names."""
    logs = Logs(root)
    files = repository_files(root)
    kept = sorted(f for f in files if f.startswith("benchmarks/") and os.path.exists(os.path.join(root, f)))
    named = set()
    for f in files:
        if f.startswith("benchmarks/") or f.endswith((".png", ".jpg", ".tipsy", ".gz")):
            continue
        try:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        for c in citations(text):
            named.update(logs.files(c))
    return [f for f in kept if f not in named]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="texts to check (default: README.md, BENCHMARKS.md, "
                        "CHANGELOG.md, docs/*.md)")
    parser.add_argument("--root", default=ROOT, help="the repository (default: this script's)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every checked figure")
    args = parser.parse_args()
    files = args.files or text_files(args.root, TEXTS)
    result = check_texts(args.root, files)
    if not args.files:
        result.errors += [f"{f}: under benchmarks/ but cited nowhere outside it (keep only what backs a figure)"
                          for f in uncited(args.root)]
    if args.verbose:
        for file, line, text, unit, how in result.checked:
            print(f"{file}:{line}: {text}{(' ' + unit) if unit else ''} ({how})")
    for e in result.errors:
        print(e)
    print(f"check_figures: {len(result.checked)} figures checked in {len(files)} texts, "
          f"{len(result.errors)} failures", file=sys.stderr)
    return 1 if result.errors else 0


if __name__ == "__main__":
    sys.exit(main())
