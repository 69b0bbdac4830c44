"""``rulepress lint BOOK``: mechanical checks of a book's text against its data.

Each check returns :class:`~rulepress.analyze.analysis.Finding` objects naming file, line and rule; the
severity comes from the kind (:data:`SEVERITY`).  An error that a designer question on the same rule already
tracks is still listed, but only untracked errors make ``rulepress lint`` fail.

Provenance lives next to the rules, in ``rules_src/<book>/provenance.yaml``, read and checked when the book
loads (:mod:`rulepress.load.provenance`: rule ID -> ``source``, ``questions``, ``added``); lint lists the rules
without an entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rulepress.analyze.findings import Finding, tracking
from rulepress.errors import relative
from rulepress.load.book import Book
from rulepress.load.provenance import provenance_path
from rulepress.load.rules import CROSS_REF, HEADING, Rule
from rulepress.load.yamlsrc import line_of

SEVERITY = {
    "range-overlap": "error", "range-gap": "error", "component-unnamed": "warning",
    "number-not-from-data": "warning", "glossary-unused": "warning", "glossary-before-definition": "warning",
    "component-data-unused": "warning", "rule-unreferenced": "warning", "xref-cycle": "warning",
    "no-provenance": "warning",
}

TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#[^}]*\}|\[\[[^\]]*\]\]|`[^`]*`")
NUMBER = re.compile(r"(?<![\w.\-–])(\d+)(?![\w.]\d|\w)")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
STOPWORDS = {"and", "or", "to", "the", "of", "in", "on", "at", "is", "are", "with", "from", "for"}
WORD_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def finding(kind: str, message: str, rules: list[str], file: str, line: int | None) -> Finding:
    return Finding(kind, message, rules, file, line, SEVERITY[kind])


def lint(book: Book, exercised: set[str] | None = None) -> list[Finding]:
    """Every lint finding of ``book``; ``exercised`` names rules replay or simulation made happen."""
    sources = chapter_sources(book)
    found = (range_tables(book, sources) + digits_not_from_data(book, sources) + glossary_use(book)
             + component_names(book, sources) + unreferenced_rules(book, exercised or set())
             + reference_cycles(book) + provenance_gaps(book))
    for item in found:
        item.tracked_by = tracking(book, item.subject) if item.subject else []
    return found


# -- the chapters as written (before templates), line by line, with the rule each line belongs to -------------

def chapter_sources(book: Book) -> list[tuple[str, int, str, str]]:
    """``(file, line, text, rule ID)`` for every line of every chapter source, fenced code left out."""
    lines = []
    for chapter in book.chapters:
        path = book.root / chapter.file
        try:
            text = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        starts = sorted((r.line, r.id) for r in chapter.rules)
        fenced = False
        for number, line in enumerate(text, start=1):
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
                continue
            owner = next((rid for start, rid in reversed(starts) if start <= number), chapter.id)
            if not fenced:
                lines.append((chapter.file, number, line, owner))
    return lines


def _leaves(data: Any, path: str = "") -> Iterator[tuple[str, Any, Any, Any]]:
    """``(dotted path, value, container, key)`` for every scalar of the component data."""
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        here = f"{path}.{key}" if path else str(key)
        if isinstance(value, dict | list):
            yield from _leaves(value, here)
        else:
            yield here, value, data, key


def _tables(data: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every mapping or list of at least two entries, all of them ranges (a numeric ``low``/``high`` or
    ``min``/``max``; ``high: null`` is open-ended).  The top level is not a table: its ranges (players, play
    time) measure different things."""
    items = list(data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ())
    entries = [v for _, v in items if isinstance(v, dict)]
    if path and len(entries) >= 2 and len(entries) == len(items) and all(_bounds(v) is not None for v in entries):
        yield path, data
    for key, value in items:
        if isinstance(value, dict | list):
            yield from _tables(value, f"{path}.{key}" if path else str(key))


def _bounds(entry: dict[str, Any]) -> tuple[float, float] | None:
    for low, high in (("low", "high"), ("min", "max")):
        if isinstance(entry.get(low), int | float) and not isinstance(entry.get(low), bool) and high in entry:
            top = entry[high]
            if top is None:
                return float(entry[low]), float("inf")
            if isinstance(top, int | float) and not isinstance(top, bool):
                return float(entry[low]), float(top)
    return None


def _rules_using(path: str, sources: list[tuple[str, int, str, str]]) -> list[str]:
    """Rules whose source names the data at ``path`` (or its last part, as ``bands`` in ``score.bands[key]``)."""
    last = path.rsplit(".", 1)[-1]
    pattern = re.compile(rf"\b{re.escape(path)}\b|\.{re.escape(last)}\b")
    return list(dict.fromkeys(rule for _, _, text, rule in sources
                              if ("{{" in text or "{%" in text) and pattern.search(text)))


def range_tables(book: Book, sources: list[tuple[str, int, str, str]]) -> list[Finding]:
    """Numeric tables (entries with low/high) whose ranges overlap or leave a gap."""
    file = book.path("components.yaml")
    found = []
    for path, table in _tables(book.components):
        keys = table.keys() if isinstance(table, dict) else range(len(table))
        entries = sorted(((_bounds(table[k]), k) for k in keys if isinstance(table[k], dict)
                          and _bounds(table[k]) is not None), key=lambda item: (item[0][0], item[0][1]))
        rules = _rules_using(path, sources)
        for ((low1, high1), key1), ((low2, high2), key2) in zip(entries, entries[1:], strict=False):
            line = line_of(table, key2)
            if low2 <= high1:
                shared = f"{low2:g}" if min(high1, high2) == low2 else f"{low2:g}-{min(high1, high2):g}"
                found.append(finding("range-overlap", f"{path}: ranges '{key1}' ({_span(low1, high1)}) and "
                                                      f"'{key2}' ({_span(low2, high2)}) overlap at {shared}",
                                     rules, file, line))
            elif low2 > high1 + 1:
                found.append(finding("range-gap", f"{path}: no range covers {high1 + 1:g}-{low2 - 1:g} (between "
                                                  f"'{key1}' and '{key2}')", rules, file, line))
    return found


def _span(low: float, high: float) -> str:
    return f"{low:g} or more" if high == float("inf") else f"{low:g}-{high:g}"


def digits_not_from_data(book: Book, sources: list[tuple[str, int, str, str]]) -> list[Finding]:
    """A count written as digits ("4 players", "6 dice") that equals a component value whose data path
    names the same thing (``players.max``, ``dice.count``): it should be printed from the data, or text and
    data drift apart.  Numbers inside lists (die faces, zone numbers) and 0-2 are too common to tell anything."""
    values: dict[int, list[str]] = {}
    for path, value, container, _ in _leaves(book.components):
        if isinstance(value, int) and not isinstance(value, bool) and value > 2 and isinstance(container, dict) \
                and not re.search(r"\.\d+(\.|$)", path):
            values.setdefault(value, []).append(path)
    counted = re.compile(r"(?<![\w.\-–])(\d+)\s+([A-Za-z][a-z]+)")
    found = []
    for file, line, text, rule in sources:
        if HEADING.match(text) or text.lstrip().startswith("{##"):
            continue
        for match in counted.finditer(TEMPLATE.sub(" ", text)):
            noun = match.group(2).lower()[:4]
            if noun in STOPWORDS:
                continue
            paths = [p for p in values.get(int(match.group(1)), []) if noun in p.lower()]
            if paths:
                found.append(finding("number-not-from-data", f"'{match.group(0)}' is written as digits but equals "
                                                             f"component data {', '.join(paths[:3])}: print it "
                                                             f"with {{{{ {paths[0]} }}}}", [rule], file, line))
    return found


def _mentions(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", re.IGNORECASE)


def glossary_use(book: Book) -> list[Finding]:
    """Glossary terms no rule uses, and terms used in a rule printed before the rule that defines them."""
    order = [r for chapter in book.chapters for r in chapter.rules]
    position = {r.id: n for n, r in enumerate(order)}
    found = []
    for term in book.glossary:
        patterns = [_mentions(t) for t in [term.term, *term.aliases]]
        uses = [(rule, line) for rule in order for line in _lines_matching(rule, patterns)]
        file = book.path("glossary.yaml")
        if not uses:
            found.append(finding("glossary-unused", f"glossary term '{term.term}' is used by no rule",
                                 [term.rule], file, term.line))
            continue
        first, line = uses[0]
        defining = position.get(term.rule)
        # An overview (the first chapter) names what later chapters define: that is its job.
        if (defining is not None and position[first.id] < defining and not _inside(first, term.rule)
                and first.chapter != order[0].chapter):
            found.append(finding("glossary-before-definition", f"'{term.term}' is used in {first.label} before "
                                                               f"{book.rule_label(term.rule)} defines it",
                                 [first.id, term.rule], first.file, line))
    return found


def _inside(rule: Rule, other: str) -> bool:
    """True when ``rule`` is a heading over ``other`` (a chapter introducing its own terms)."""
    return other.startswith(rule.id + ".")


def _lines_matching(rule: Rule, patterns: list[re.Pattern[str]]) -> Iterator[int]:
    for offset, text in enumerate(rule.body.splitlines()):
        if any(p.search(text) for p in patterns):
            yield rule.body_lines[offset] if offset < len(rule.body_lines) else rule.line + offset + 1


def component_names(book: Book, sources: list[tuple[str, int, str, str]]) -> list[Finding]:
    """The components chapter naming a count in words or digits with no data behind the line, and
    component data (top-level keys of components.yaml) that no rule text or glossary entry prints."""
    found = []
    prefix = f"{book.prefix}.components"
    # A list item of the components chapter that opens with a count: "- 6 Dusk cards", "- two dice".
    words = re.compile(rf"^\s*[-*+]\s+(?:\*\*)?(({'|'.join(WORD_COUNTS)}|\d+)\s+[^,;:.]{{1,30}})", re.IGNORECASE)
    for file, line, text, rule in sources:
        if not (rule == prefix or rule.startswith(prefix + ".")) or "{{" in text:
            continue
        match = words.match(TEMPLATE.sub(" ", text))
        if match:
            found.append(finding("component-unnamed", f"the components chapter counts '{match.group(1).strip()}' "
                                                      f"with no value from components.yaml",
                                 [rule], file, line))
    used: set[str] = set()
    for _, _, text, _ in sources:
        for block in re.findall(r"\{\{.*?\}\}|\{%.*?%\}", text):
            used.update(IDENTIFIER.findall(block))
    for term in book.glossary:
        used.update(IDENTIFIER.findall(" ".join(re.findall(r"\{\{.*?\}\}", term.definition))))
    for key in book.components:
        if key not in used and key not in ("players", "ages", "play_time"):
            found.append(finding("component-data-unused", f"component data '{key}' is printed by no rule",
                                 [prefix] if prefix in book.rules else [], book.path("components.yaml"),
                                 line_of(book.components, key)))
    return found


def unreferenced_rules(book: Book, exercised: set[str]) -> list[Finding]:
    """Rules (without rules under them) that nothing points to: no cross-reference, glossary term, designer
    question or example names them, and neither replay nor simulation made them happen."""
    referenced = {ref for rule in book.rules.values() for ref, _ in _refs(rule)}
    referenced |= {t.rule for t in book.glossary} | {r for q in book.questions for r in q.rules}
    found = []
    for rule in book.rules.values():
        if rule.children or rule.level == 1 or rule.id in referenced or rule.id in exercised:
            continue
        found.append(finding("rule-unreferenced", f"{rule.label} is never referenced and never exercised",
                             [rule.id], rule.file, rule.line))
    return found


def _refs(rule: Rule) -> list[tuple[str, int]]:
    found = []
    for offset, text in enumerate(rule.body.splitlines()):
        line = rule.body_lines[offset] if offset < len(rule.body_lines) else rule.line + offset + 1
        found += [(m.group(1), line) for m in CROSS_REF.finditer(text)]
    return found


def reference_cycles(book: Book) -> list[Finding]:
    """Rules that point at each other in a circle (A refers to B, B to A): each defined by the other."""
    graph = {rid: [ref for ref, _ in _refs(rule) if ref in book.rules and ref != rid]
             for rid, rule in book.rules.items()}
    found, reported = [], set()
    for start in sorted(graph):
        for cycle in _cycles_from(start, graph):
            key = frozenset(cycle)
            if key in reported:
                continue
            reported.add(key)
            rule = book.rules[cycle[0]]
            line = next((line for ref, line in _refs(rule) if ref == cycle[1]), rule.line)
            path = " -> ".join([*cycle, cycle[0]])
            found.append(finding("xref-cycle", f"cross-references go round in a circle: {path}", list(cycle),
                                 rule.file, line))
    return found


def _cycles_from(start: str, graph: dict[str, list[str]], longest: int = 4) -> Iterator[list[str]]:
    """Simple cycles through ``start`` whose other members sort after it (each cycle found once), up to
    ``longest`` rules: a longer circle is a reading path, not rules defining each other."""
    stack = [(start, [start])]
    while stack:
        node, path = stack.pop()
        for nxt in graph[node]:
            if nxt == start and len(path) > 1:
                yield path
            elif nxt > start and nxt not in path and len(path) < longest:
                stack.append((nxt, [*path, nxt]))


def provenance_gaps(book: Book) -> list[Finding]:
    """Every rule without rules under it that has no provenance entry: it says neither which source passage it
    carries over nor which designer question decided it.  (A provenance file that does not load stops the book
    loading, with file and line, before lint runs.)"""
    shown = relative(provenance_path(book), book.root)
    return [finding("no-provenance", f"{rule.label} says neither which source passage it carries over nor which "
                                     f"designer question decided it ({shown})", [rule.id], rule.file, rule.line)
            for rule in book.rules.values()
            if not rule.children and rule.level > 1 and rule.id not in book.provenance]


def exercised_rules(root: Path, check: Any) -> set[str]:
    """Rules the examples' replay or the saved simulation (reports/analysis) made happen."""
    from rulepress.analyze.analysis import saved  # noqa: PLC0415

    found = {rule for result in check.results for rule in result.exercised}
    analysis = saved(root, check.book.id) or {}
    for config in analysis.get("configs", []):
        found.update(rule for rule, games in config.get("fired", {}).items() if games)
    return found


def run_lint(root: Path, args: Any) -> int:
    """``rulepress lint [BOOK] [--json]``: exit 1 when an error is not tracked by a designer question."""
    import json

    from rulepress.analyze.questions import _checks
    from rulepress.analyze.report import print_findings
    from rulepress.verify.replay import replay

    status = 0
    for check in _checks(root, args.book):
        check.results = [replay(e, check.book, check.engine, draw=False) for e in check.examples]
        findings = [f.as_dict() for f in lint(check.book, exercised_rules(root, check))]
        if args.json:
            for item in findings:
                print(json.dumps({"book": check.book.id, **item}, ensure_ascii=False))
        else:
            print_findings(findings)
            errors = sum(f["severity"] == "error" for f in findings)
            print(f"{check.book.id}: {len(findings)} findings ({errors} errors, "
                  f"{sum(not f['tracked_by'] for f in findings)} untracked)")
        if any(f["severity"] == "error" and not f["tracked_by"] for f in findings):
            status = 1
    return status


def gate_findings(book: Book, exercised: set[str] | None = None) -> tuple[list[str], list[str]]:
    """Lint for the gate, as ``(problems, warnings)`` lines (``file:line: message [rule X]``): an error no
    designer question tracks stops the build; everything else is a warning."""
    problems, warnings = [], []
    for item in lint(book, exercised):
        where = f"{item.file}:{item.line}" if item.line else item.file
        text = f"{where}: {item.kind}: {item.message}" + (f" [rule {', '.join(item.rules)}]" if item.rules else "")
        (problems if item.severity == "error" and not item.tracked_by else warnings).append(text)
    return problems, warnings
