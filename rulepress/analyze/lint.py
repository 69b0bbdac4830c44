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

from rulepress.analyze.findings import Finding, track
from rulepress.audience import unmarked
from rulepress.errors import relative
from rulepress.load.book import Book
from rulepress.load.provenance import QUOTE, provenance_path, unchecked
from rulepress.load.rules import HEADING, Rule
from rulepress.load.yamlsrc import line_of

SEVERITY = {
    "range-overlap": "error", "range-gap": "error", "number-contradicts-data": "error",
    "component-not-in-data": "warning", "glossary-unused": "warning", "component-data-unused": "warning",
    "word-undefined": "warning", "term-undefined": "warning", "outcome-unstated": "warning",
    "no-provenance": "warning", "quote-unchecked": "warning",
}

# Words that decide where a piece may go when they relate two pieces of the board ("each later tile must touch a
# tile already there"): a book must say what they mean (edge to edge? a corner?) once, or at each use.  Placement on
# the table ("beside the board", "next to its symbol") and the layout of paths ("neighbouring path") never decide a
# move in the three books, so those words are not checked (docs/ANALYSIS.md says how this was judged).
RELATIONS = {"adjacent": r"adjacent", "next to": r"next to", "touch": r"touch(?:es|ed|ing)?",
             "surrounded": r"surround(?:ed|s|ing)?", "diagonal": r"diagonal(?:ly)?"}
PIECES = r"(?:tiles?|spaces?|squares?|cells?|places?|zones?|columns?|lanes?|hex(?:es)?|cards?)"
# Saying at the place of use what the relation is.
QUALIFIED = re.compile(r"edge to edge|share[sd]? (?:a|an|one) (?:side|edge)|sharing (?:a|an) (?:side|edge)|corner|"
                       r"orthogonal|diagonal|\(edge\)", re.IGNORECASE)
# A sentence that defines the word: "Two places are orthogonally adjacent when they share a side".
DEFINES = re.compile(r"\b(?:are|is)\b[^.;]*\b(?:when|if) they\b|\bmeans\b", re.IGNORECASE)
# Counting words whose bounds a reader cannot tell: "between 2 and 4" (inclusive?).
BETWEEN = re.compile(r"\bbetween (\d+) and (\d+)\b(?! ?(?:inclusive|included|both included))", re.IGNORECASE)
# A count that claims the whole of something: "the 6 Dusk cards", "all 48 Tree tiles".
WHOLE = re.compile(r"\b(?:the|all|all the|all of the)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                   r"twelve)\s+([A-Za-z][a-z]+(?:\s+[A-Za-z][a-z]+)?)", re.IGNORECASE)
# A Title Case phrase in the middle of a sentence: a game term ("Dusk card", "Path Astray").
TERM = re.compile(r"\b([A-Z][a-z]+(?:[ -][A-Z][a-z]+)*)\b")
# A condition that rests on what other people decide: another player's consent ("if that player agrees", "they must
# agree") or a decision the players take together ("they talk it over and decide", "in the order the players
# choose").  One player's own choice ("you may ...") needs no other branch (not doing it is the refusal); a consent
# refused or a joint decision not reached has none unless the book gives one.  Broader conditions ("if ...",
# "when ...", every "may") were judged and are almost all settled (docs/ANALYSIS.md says how), so they are not
# checked.
CONSENT = re.compile(r"\bif (?:that|the other|this|another|each|every) player\b[^.;]{0,20}\bagrees?\b|"
                     r"\bif (?:they|he|she|both|all) (?:all )?agrees?\b|\bmust (?:all )?agree\b|"
                     r"\b(?:they|the players|players|all players) (?:talk it over and |discuss and )?"
                     r"(?:decide|agree)\b|"
                     r"\b(?:talk it over|discuss it)\b|\bin the order (?:the|all the) players choose\b|"
                     r"\b(?:the|all the) players (?:choose|decide|agree)\b", re.IGNORECASE)
# Saying what happens when they do not: "Otherwise they go without", "if they cannot agree, the start player decides".
REFUSAL = re.compile(r"\botherwise\b|\bif not\b|\bdisagree|\brefuses?\b|\brefused\b|"
                     r"\b(?:do|does|did|can|could|will|would) not (?:agree|decide|choose)\b|"
                     r"\b(?:cannot|can't|don't|doesn't|won't) (?:agree|decide|choose)\b|\bno agreement\b",
                     re.IGNORECASE)

TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#[^}]*\}|\[\[[^\]]*\]\]|`[^`]*`")
NUMBER = re.compile(r"(?<![\w.\-–])(\d+)(?![\w.]\d|\w)")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
WORD_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
NUMBER_WORDS = {word: n for n, word in enumerate(WORD_COUNTS, start=1)}


def finding(kind: str, message: str, rules: list[str], file: str, line: int | None, subject: str,
            evidence: dict[str, Any] | None = None) -> Finding:
    return Finding(kind, message, rules, file, line, SEVERITY[kind], subject=subject, evidence=evidence or {})


def lint(book: Book) -> list[Finding]:
    """Every lint finding of ``book``, each with the designer questions that track its subject."""
    sources = chapter_sources(book)
    found = (range_tables(book, sources) + numbers_against_data(book, sources) + glossary_use(book)
             + component_names(book, sources) + undefined_words(book) + undefined_terms(book)
             + unstated_outcomes(book) + provenance_gaps(book) + unchecked_quotes(book))
    return track(book, found)


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
                                     rules, file, line, f"data:{path}"))
            elif low2 > high1 + 1:
                found.append(finding("range-gap", f"{path}: no range covers {high1 + 1:g}-{low2 - 1:g} (between "
                                                  f"'{key1}' and '{key2}')", rules, file, line, f"data:{path}"))
    return found


def _span(low: float, high: float) -> str:
    return f"{low:g} or more" if high == float("inf") else f"{low:g}-{high:g}"


def _count(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text.lower()]


def _stem(noun: str) -> str:
    noun = noun.lower()
    for plural, single in (("ves", "f"), ("ies", "y"), ("ces", "ce"), ("es", "e"), ("s", "")):
        if noun.endswith(plural) and len(noun) > len(plural) + 2:
            return noun[: -len(plural)] + single
    return noun


def numbers_against_data(book: Book, sources: list[tuple[str, int, str, str]]) -> list[Finding]:
    """A count written in the text that claims the whole of something ("the 6 Dusk cards", "all 48 Tree tiles")
    where the component data holds that thing's number (a path ending in its name, or its ``total``/``count``)
    with another value: text and data disagree.  A number that agrees, or that counts a part ("three dice showing
    one number"), says nothing."""
    values: dict[str, int] = {}
    for path, value, container, _ in _leaves(book.components):
        if isinstance(value, int) and not isinstance(value, bool) and isinstance(container, dict):
            values[path.lower()] = value
    found = []
    for file, line, text, rule in sources:
        if HEADING.match(text):
            continue
        for match in WHOLE.finditer(TEMPLATE.sub(" ", text)):
            written = _count(match.group(1))
            nouns = match.group(2).split()
            names = [_stem(" ".join(nouns)).replace(" ", "_"), _stem(nouns[0])] if len(nouns) > 1 else [
                _stem(nouns[0])]
            for size, name in zip((len(nouns), 1), names, strict=False):
                paths = [p for p in values if p == name or p.endswith("." + name) or p in (
                    f"{name}.total", f"{name}.count", f"{name}s.total", f"{name}s.count")]
                if not paths:
                    continue
                if all(values[p] != written for p in paths):
                    path = paths[0]
                    said = match.group(0)[:match.start(2) - match.start(0)] + " ".join(nouns[:size])
                    found.append(finding("number-contradicts-data",
                                         f"'{said}' says {written}, but the component data gives "
                                         f"{path} = {values[path]}", [rule], file, line, f"data:{path}",
                                         {"written": written, "data": values[path]}))
                break
    return found


def _mentions(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", re.IGNORECASE)


def glossary_use(book: Book) -> list[Finding]:
    """Glossary terms that no rule uses: the term never links to its rule, or the rules say it another way."""
    order = [r for chapter in book.chapters for r in chapter.rules]
    found = []
    for term in book.glossary:
        patterns = [_mentions(t) for t in [term.term, *term.aliases]]
        if not any(p.search(rule.body) for rule in order for p in patterns):
            found.append(finding("glossary-unused", f"glossary term '{term.term}' is used by no rule",
                                 [term.rule], book.path("glossary.yaml"), term.line, f"term:{term.term}"))
    return found


def _line_in(rule: Rule, offset: int) -> int:
    return rule.body_lines[offset] if offset < len(rule.body_lines) else rule.line + offset + 1


def _sentences(rule: Rule) -> Iterator[tuple[str, int]]:
    """Each sentence of a rule's text with the line it starts on (links and code left out; a passage marked for the
    designer alone read as words, rulepress/audience.py)."""
    lines = unmarked(rule.body).splitlines()
    text, starts = "", []
    for offset, line in enumerate(lines):
        starts.append((len(text), _line_in(rule, offset)))
        text += re.sub(r"\[\[[^\]]*\]\]|`[^`]*`", " ", line) + " "
    position = 0
    for piece in re.split(r"(?<=[.!?])\s+|\n", text):
        at = text.find(piece, position)
        position = at + len(piece)
        line = next((number for start, number in reversed(starts) if start <= at), rule.line)
        if piece.strip():
            yield piece.strip(), line


def undefined_words(book: Book) -> list[Finding]:
    """A word that decides how two pieces of the board relate ("touch", "adjacent", "next to", "surrounded") used
    where the sentence does not say what it means (edge to edge, a corner) and the book never defines it; and a
    range "between N and M" that does not say whether N and M are in it.  One finding per word, at its first use,
    with every use listed."""
    rules = [r for chapter in book.chapters for r in chapter.rules]
    glossary = " | ".join(f"{t.term} | {' | '.join(t.aliases)}" for t in book.glossary)  # a term names the word
    found = []
    for word, form in RELATIONS.items():
        used = re.compile(rf"\b{form}\b", re.IGNORECASE)
        relation = re.compile(rf"\b{PIECES}\b[^.;:]{{0,60}}?\b{form}\b[^.;:]{{0,30}}?\b{PIECES}\b|"
                              rf"\b{form}\b[^.;:]{{0,30}}?\b{PIECES}\b", re.IGNORECASE)
        if used.search(glossary):
            continue
        uses, defined = [], False
        for rule in rules:
            for sentence, line in _sentences(rule):
                if not used.search(sentence):
                    continue
                if DEFINES.search(sentence) and QUALIFIED.search(sentence):
                    defined = True
                elif relation.search(sentence) and not QUALIFIED.search(sentence):
                    uses.append((rule, line, sentence))
        if uses and not defined:
            first, line, sentence = uses[0]
            where = ", ".join(dict.fromkeys(rule.label for rule, _, _ in uses))
            found.append(finding("word-undefined", f"'{word}' relates pieces of the board in {len(uses)} place(s) "
                                                   f"({where}) without saying what it means (edge to edge? at a "
                                                   f"corner too?), and the book never defines it: "
                                                   f"\"{sentence[:90]}\"",
                                 list(dict.fromkeys(rule.id for rule, _, _ in uses)), first.file, line,
                                 f"word:{word}", {"uses": len(uses)}))
    for rule in rules:
        for sentence, line in _sentences(rule):
            for match in BETWEEN.finditer(sentence):
                found.append(finding("word-undefined", f"'{match.group(0)}' does not say whether {match.group(1)} "
                                                       f"and {match.group(2)} are included: \"{sentence[:90]}\"",
                                     [rule.id], rule.file, line, f"word:{match.group(0)}"))
    return found


def unstated_outcomes(book: Book) -> list[Finding]:
    """A condition whose outcome the text never states: a rule that rests on another player's consent or on a decision
    the players take together, where neither that rule nor a rule it links says what happens when the consent is
    refused or the players do not agree.  One finding per rule, at the sentence that sets the condition."""
    found = []
    for rule in (r for chapter in book.chapters for r in chapter.rules):
        linked = [book.rules[target] for target in re.findall(r"\[\[([^\]|#]+)", rule.body) if target in book.rules]
        if any(REFUSAL.search(other.body) for other in [rule, *linked]):
            continue
        for sentence, line in _sentences(rule):
            match = CONSENT.search(sentence)
            if match:
                found.append(finding("outcome-unstated", f"{rule.label} rests on '{match.group(0)}' but never says "
                                                         f"what happens when they do not agree: \"{sentence[:90]}\"",
                                     [rule.id], rule.file, line, f"outcome:{rule.id}"))
                break
    return found


def _strings(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for value in data.values():
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)
    elif isinstance(data, str):
        yield data


def undefined_terms(book: Book) -> list[Finding]:
    """A game term (a Title Case phrase inside a sentence: "Dusk card", "Path Astray") that nothing defines: no
    glossary term or alias, no rule title, no name in the component data and not the book's title contains it."""
    known = " | ".join([*(t.term for t in book.glossary), *(a for t in book.glossary for a in t.aliases),
                        *(r.title for r in book.rules.values()), *_strings(book.components), book.title]).lower()
    uses: dict[str, list[tuple[Rule, int]]] = {}
    for chapter in book.chapters:
        for rule in chapter.rules:
            for sentence, line in _sentences(rule):
                for part in re.split(r"[:;(),*_|\[\]\"“”]|\s[-–]\s", sentence):
                    part = part.strip()
                    for match in TERM.finditer(part):
                        if match.start() == 0:  # a sentence's (or a list item's) first word
                            continue
                        uses.setdefault(match.group(1), []).append((rule, line))
    found = []
    for term, places in uses.items():
        words = term.lower().split()
        if term.lower() in known or _stem(term) in known or " ".join(map(_stem, words)) in known:
            continue
        rule, line = places[0]
        found.append(finding("term-undefined", f"'{term}' is used in {len(places)} place(s) (first in "
                                               f"{rule.label}) but no glossary entry, rule title or component "
                                               "name defines it", [rule.id], rule.file, line, f"term:{term}",
                             {"uses": len(places)}))
    return found


def component_names(book: Book, sources: list[tuple[str, int, str, str]]) -> list[Finding]:
    """The components chapter counting a thing (more than one of it) with a number written out, not printed from
    the component data: a count the data does not hold, so nothing checks it against the engine or the box.  And
    component data (top-level keys of components.yaml) that no rule text or glossary entry prints."""
    found = []
    prefix = f"{book.prefix}.components"
    # A list item of the components chapter: "- 6 Dusk cards", "- two dice and 2 cloth bags".
    item = re.compile(r"^\s*[-*+]\s+(.*)$")
    counted = re.compile(rf"(?<![\w.])({'|'.join(WORD_COUNTS)}|\d+)\s+([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){{0,2}})",
                         re.IGNORECASE)
    for file, line, text, rule in sources:
        match = item.match(text)
        if not (rule == prefix or rule.startswith(prefix + ".")) or match is None:
            continue
        for part in re.split(r"\band\b|[,;:(]", TEMPLATE.sub(" {} ", match.group(1))):
            count = counted.match(part.strip())
            if count is None or _count(count.group(1)) < 2:
                continue  # one board is never in doubt; a count of 2 or more is a number to keep right
            thing = count.group(2).strip()
            found.append(finding("component-not-in-data", f"the components chapter counts '{count.group(1)} "
                                                          f"{thing}' with a number the component data does not hold",
                                 [rule], file, line, f"component:{thing.lower()}", {"count": _count(count.group(1))}))
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
                                 line_of(book.components, key), f"data:{key}"))
    return found


def provenance_gaps(book: Book) -> list[Finding]:
    """Every rule without rules under it that has no provenance entry: it says neither which source passage it carries
    over nor which designer question decided it.  (A provenance file that does not load stops the book loading, with
    file and line, before lint runs.)"""
    shown = relative(provenance_path(book), book.root)
    return [finding("no-provenance", f"{rule.label} says neither which source passage it carries over nor which "
                                     f"designer question decided it ({shown})", [rule.id], rule.file, rule.line,
                    f"rule:{rule.id}")
            for rule in book.rules.values()
            if not rule.children and rule.level > 1 and rule.id not in book.provenance]


def unchecked_quotes(book: Book) -> list[Finding]:
    """Every quote of the book's provenance that could not be checked against its seed (book.yaml names none, or
    it is not there): when it can be, a quote the seed does not hold stops the book loading instead."""
    why = unchecked(book)
    if why is None:
        return []
    shown = relative(provenance_path(book), book.root)
    return [finding("quote-unchecked", f"the quote '{quote}' could not be checked: {why}", [entry.rule], shown,
                    entry.source_line or entry.line, f"quote:{entry.rule}:{number}")
            for entry in book.provenance.values() for number, quote in enumerate(QUOTE.findall(entry.source or ""))]


def run_lint(root: Path, args: Any) -> int:
    """``rulepress lint [BOOK] [--json]``: exit 1 when an error is not tracked by a designer question."""
    import json

    from rulepress.analyze.questions import _checks
    from rulepress.analyze.report import print_findings

    status = 0
    for check in _checks(root, args.book):
        findings = [f.as_dict() for f in lint(check.book)]
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


def gate_findings(book: Book) -> tuple[list[str], list[str]]:
    """Lint for the gate, as ``(problems, warnings)`` lines (``file:line: kind: message [rule X]``): an error no
    designer question tracks stops the build; an untracked warning is a warning; what a question tracks, and notes,
    are the designer's already and not repeated."""
    problems, warnings = [], []
    for item in lint(book):
        where = f"{item.file}:{item.line}" if item.line else item.file
        text = f"{where}: {item.kind}: {item.message}" + (f" [rule {', '.join(item.rules)}]" if item.rules else "")
        if item.severity == "error" and not item.tracked_by:
            problems.append(text)
        elif item.severity != "info" and not item.tracked_by:
            warnings.append(text)
    return problems, warnings


def summary(warnings: list[str]) -> str | None:
    """One line for a build's output: how many lint warnings of each kind, and the command that lists them."""
    kinds: dict[str, int] = {}
    for line in warnings:
        kind = line.split(": ", 2)[1] if line.count(": ") >= 2 else "lint"
        kinds[kind] = kinds.get(kind, 0) + 1
    if not kinds:
        return None
    counts = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    return f"lint: {len(warnings)} warning(s) no designer question tracks ({counts}); `rulepress lint` lists them"
