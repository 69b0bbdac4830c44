"""`rulepress lint`: text against data, each finding with file, line and rule."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rulepress.analyze.analysis import Finding
from rulepress.analyze.lint import lint
from rulepress.cli import main
from rulepress.load.book import load_book


def _copy(root: Path, tmp_path: Path, book: str = "lantern") -> Path:
    project = tmp_path / "p"
    shutil.copytree(root / "rules_src" / book, project / "rules_src" / book)
    (project / "engine").mkdir()
    return project


def _untracked_table(project: Path) -> int:
    """A range table no rule prints (so no designer question tracks it), with a gap at 3-4; its last line."""
    path = project / "rules_src/lantern/components.yaml"
    path.write_text(path.read_text() + "\nluck:\n  low: {low: 0, high: 2}\n  high: {low: 5, high: null}\n")
    return len(path.read_text().splitlines())


def _kind(findings: list[Finding], kind: str) -> list[Finding]:
    return [f for f in findings if f.kind == kind]


def test_lantern_score_bands_overlap(root: Path) -> None:
    [overlap] = _kind(lint(load_book(root, "lantern")), "range-overlap")
    assert overlap.message == "score.bands: ranges 'heroic' (1-5) and 'master' (5-15) overlap at 5"
    assert (overlap.file, overlap.line, overlap.rules) == ("rules_src/lantern/components.yaml", 74,
                                                           ["ln.end.titles"])
    assert overlap.severity == "error"
    assert "ln.q4" in overlap.tracked_by


def test_range_gap(root: Path, tmp_path: Path) -> None:
    project = _copy(root, tmp_path)
    path = project / "rules_src/lantern/components.yaml"
    text = path.read_text().replace("master: {low: 5, high: 15", "master: {low: 7, high: 15")
    path.write_text(text.replace("size: 1 ", "size: -1 "))  # book.yaml's own check: master.low + size == 6
    findings = lint(load_book(project, "lantern"))
    assert _kind(findings, "range-overlap") == []
    [gap] = _kind(findings, "range-gap")
    assert gap.message == "score.bands: no range covers 6-6 (between 'heroic' and 'master')"
    assert (gap.file, gap.line) == ("rules_src/lantern/components.yaml", 74)


def test_bundled_books_have_no_range_gap(root: Path) -> None:
    for book in ("lantern-moths", "last-lantern"):
        assert _kind(lint(load_book(root, book)), "range-gap") == []


def test_digits_equal_to_data(root: Path, tmp_path: Path) -> None:
    project = _copy(root, tmp_path)
    path = project / "rules_src/lantern/chapters/end.md"
    lines = path.read_text().splitlines()
    lines.insert(5, "Roll all 6 dice again.")
    path.write_text("\n".join(lines) + "\n")
    found = [f for f in _kind(lint(load_book(project, "lantern")), "number-not-from-data") if f.line == 6]
    assert [f.message for f in found] == ["'6 dice' is written as digits but equals component data dice.count, "
                                          "dice.faces: print it with {{ dice.count }}"]
    assert found[0].rules == ["ln.end.win"] and found[0].file == "rules_src/lantern/chapters/end.md"


def test_glossary_unused_and_cycles(root: Path) -> None:
    findings = lint(load_book(root, "lantern"))
    [unused] = _kind(findings, "glossary-unused")
    assert unused.message == "glossary term 'Six-wild combination' is used by no rule"
    assert (unused.file, unused.line) == ("rules_src/lantern/glossary.yaml", 46)
    cycles = {f.message for f in _kind(findings, "xref-cycle")}
    assert ("cross-references go round in a circle: ln.setup.assign.campfire -> ln.sheet.campfire -> "
            "ln.setup.assign.campfire") in cycles


def test_glossary_used_before_definition(root: Path) -> None:
    findings = _kind(lint(load_book(root, "lantern")), "glossary-before-definition")
    magic = next(f for f in findings if "'Magic Spell'" in f.message)
    assert magic.message == ("'Magic Spell' is used in rule 2.1 (Symbols and circles) before rule 5.4, "
                             "ln.fight.magic-spell defines it")
    assert (magic.file, magic.line) == ("rules_src/lantern/chapters/sheet.md", 9)


def test_component_data_printed_by_no_rule(root: Path, tmp_path: Path) -> None:
    project = _copy(root, tmp_path)
    path = project / "rules_src/lantern/components.yaml"
    path.write_text(path.read_text() + "\nlanterns_extra: 3\n")
    [unused] = _kind(lint(load_book(project, "lantern")), "component-data-unused")
    assert unused.message == "component data 'lanterns_extra' is printed by no rule"
    assert unused.file == "rules_src/lantern/components.yaml"
    assert unused.line == len(path.read_text().splitlines())


def test_unreferenced_rule_unless_exercised(root: Path) -> None:
    book = load_book(root, "lantern")
    found = {f.rules[0] for f in _kind(lint(book), "rule-unreferenced")}
    assert "ln.fight.planning" in found
    assert "ln.fight.planning" not in {f.rules[0] for f in _kind(lint(book, {"ln.fight.planning"}),
                                                                  "rule-unreferenced")}


def test_rules_without_provenance(root: Path, tmp_path: Path) -> None:
    project = _copy(root, tmp_path)
    (project / "rules_src/lantern/provenance.yaml").write_text(
        "ln.end.titles:\n  source: \"SCORE: the title table\"\n  questions: [ln.q4]\n")
    gaps = {f.rules[0]: f for f in _kind(lint(load_book(project, "lantern")), "no-provenance")}
    assert "ln.end.titles" not in gaps
    loss = gaps["ln.end.loss"]
    assert loss.message == ("rule 6.2 (Defeat) says neither which source passage it carries over nor which designer "
                            "question decided it (rules_src/lantern/provenance.yaml)")
    assert (loss.file, loss.line) == ("rules_src/lantern/chapters/end.md", 8)


def test_cli_lint_json_and_exit_status(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The overlap is an error, but ln.q4 tracks it: the book still lints clean.
    assert main(["--root", str(root), "lint", "lantern", "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "range-overlap" in {r["kind"] for r in records}
    assert all({"file", "line", "rules", "severity", "tracked_by"} <= set(r) for r in records)


def test_cli_lint_fails_on_untracked_error(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _copy(root, tmp_path)
    (project / "engine").rmdir()
    shutil.copytree(root / "engine" / "lantern", project / "engine" / "lantern")
    shutil.copytree(root / "examples" / "lantern", project / "examples" / "lantern")
    line = _untracked_table(project)
    assert main(["--root", str(project), "lint", "lantern"]) == 1
    out = capsys.readouterr().out
    assert (f"rules_src/lantern/components.yaml:{line}: error range-gap: luck: no range covers 3-4 (between 'low' and "
            "'high') (untracked)") in out


def test_components_chapter_counts_without_data(root: Path) -> None:
    found = {f.line: f for f in _kind(lint(load_book(root, "last-lantern")), "component-unnamed")}
    bags = found[9]
    assert bags.message == "the components chapter counts '2 cloth bags' with no value from components.yaml"
    assert (bags.file, bags.rules) == ("rules_src/last-lantern/chapters/components.md", ["ll.components.list"])
    assert _kind(lint(load_book(root, "lantern-moths")), "component-unnamed") == []  # every count is templated


def test_gate_findings_split_by_severity_and_tracking(root: Path, tmp_path: Path) -> None:
    from rulepress.analyze.lint import gate_findings

    problems, warnings = gate_findings(load_book(root, "lantern"))
    assert problems == []  # the overlap is an error, but ln.q4 tracks it
    assert ("rules_src/lantern/components.yaml:74: range-overlap: score.bands: ranges 'heroic' (1-5) and 'master' "
            "(5-15) overlap at 5 [rule ln.end.titles]") in warnings
    project = _copy(root, tmp_path)
    line = _untracked_table(project)
    problems, _ = gate_findings(load_book(project, "lantern"))
    assert problems == [f"rules_src/lantern/components.yaml:{line}: range-gap: luck: no range covers 3-4 (between "
                        "'low' and 'high')"]
