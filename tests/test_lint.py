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


def _append(project: Path, book: str, chapter: str, text: str) -> int:
    """A paragraph at the end of a chapter (its last rule's text); its line."""
    path = project / "rules_src" / book / "chapters" / chapter
    lines = path.read_text().rstrip("\n").splitlines() + ["", text]
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def test_bundled_books_earn_only_the_findings_judged_right(root: Path) -> None:
    """docs/ANALYSIS.md judges every finding of the three books; these are all of them (the four noisy kinds are
    gone: 57 of 61 wrong or noise findings came from them)."""
    found = {book: sorted((f.kind, f.subject) for f in lint(load_book(root, book)))
             for book in ("lantern-moths", "last-lantern", "lantern")}
    assert found == {
        "lantern-moths": [],
        "last-lantern": [("component-not-in-data", "component:character tokens"),
                         ("component-not-in-data", "component:character wheels"),
                         ("component-not-in-data", "component:cloth bags"),
                         ("component-not-in-data", "component:cover boards"),
                         ("outcome-unstated", "outcome:ll.ability.guiding-hand.empty"),
                         ("outcome-unstated", "outcome:ll.astray.place"),
                         ("outcome-unstated", "outcome:ll.fog.reveal.shared"),
                         ("word-undefined", "word:surrounded"), ("word-undefined", "word:touch")],
        "lantern": [("glossary-unused", "term:Six-wild combination"), ("range-overlap", "data:score.bands")]}


def test_a_count_that_contradicts_the_data(root: Path, tmp_path: Path) -> None:
    project = _copy(root, tmp_path)
    line = _append(project, "lantern", "end.md", "Roll all 5 dice again. Keep the 6 dice. It asks for three dice "
                                                 "showing one.")
    [wrong] = _kind(lint(load_book(project, "lantern")), "number-contradicts-data")
    assert wrong.message == "'all 5 dice' says 5, but the component data gives dice.count = 6"
    assert (wrong.file, wrong.line, wrong.rules, wrong.severity) == ("rules_src/lantern/chapters/end.md", line,
                                                                     ["ln.end.titles"], "error")
    assert wrong.subject == "data:dice.count"


def test_a_spatial_word_the_book_never_defines(root: Path, tmp_path: Path) -> None:
    [touch] = [f for f in lint(load_book(root, "last-lantern")) if f.subject == "word:touch"]
    assert touch.kind == "word-undefined" and touch.severity == "warning"
    assert touch.rules == ["ll.ability.fog", "ll.challenge.lake.place", "ll.challenge.basilisk.place",
                           "ll.summary.journey"]
    assert touch.message.startswith("'touch' relates pieces of the board in 4 place(s) (rule 6.5 (Through the Fog), ")
    assert touch.tracked_by == []  # ll.q18 names ll.challenge.lake.place, but it asks about another thing
    # Qualified at the place of use ("edge to edge"), a relation is no finding; defined once, none at all.
    project = _copy(root, tmp_path, "lantern-moths")
    line = _append(project, "lantern-moths", "turn.md", "A moth may hop to a tile next to its own tile.")
    [next_to] = _kind(lint(load_book(project, "lantern-moths")), "word-undefined")
    assert next_to.subject == "word:next to" and next_to.line == line
    assert next_to.tracked_by == ["lm.q1"]  # lm.q1 quotes "next to": tracked by subject
    _append(project, "lantern-moths", "turn.md", "Two tiles are next to each other when they share a side.")
    assert _kind(lint(load_book(project, "lantern-moths")), "word-undefined") == []


def test_a_range_that_does_not_say_whether_its_ends_count(root: Path, tmp_path: Path) -> None:
    project = _copy(root, tmp_path)
    _append(project, "lantern", "end.md", "Roll between 2 and 4 dice. Roll between 1 and 3 inclusive.")
    [between] = _kind(lint(load_book(project, "lantern")), "word-undefined")
    assert between.message == ("'between 2 and 4' does not say whether 2 and 4 are included: \"Roll between 2 and 4 "
                               "dice.\"")


def test_a_term_nothing_defines(root: Path, tmp_path: Path) -> None:
    project = _copy(root, tmp_path, "lantern-moths")
    line = _append(project, "lantern-moths", "turn.md", "Then put the Moon Token on a Garden tile.")
    [term] = _kind(lint(load_book(project, "lantern-moths")), "term-undefined")
    assert term.subject == "term:Moon Token" and term.line == line  # "Garden" is a glossary term: defined
    assert term.message == ("'Moon Token' is used in 1 place(s) (first in rule 4.7 (When no action is possible)) but "
                            "no glossary entry, rule title or component name defines it")


def test_a_consent_whose_refusal_the_text_never_settles(root: Path) -> None:
    found = {f.subject: f for f in _kind(lint(load_book(root, "last-lantern")), "outcome-unstated")}
    guiding = found["outcome:ll.ability.guiding-hand.empty"]
    assert guiding.severity == "warning" and guiding.rules == ["ll.ability.guiding-hand.empty"]
    assert (guiding.file, guiding.line) == ("rules_src/last-lantern/chapters/abilities.md", 57)
    assert guiding.message == ("rule 6.6.1 (From another player) rests on 'must agree' but never says what happens "
                               "when they do not agree: \"If that location is empty, take the Familiar from another "
                               "player instead (they must agree)\"")
    # Tracked by subject, each by the question that asks it (questions.yaml's tracks).
    assert {s: f.tracked_by for s, f in found.items()} == {"outcome:ll.ability.guiding-hand.empty": ["ll.q44"],
                                                           "outcome:ll.astray.place": ["ll.q27"],
                                                           "outcome:ll.fog.reveal.shared": ["ll.q17"]}
    # "if that player agrees. Otherwise they go without": the refusal is settled, no finding.
    assert "outcome:ll.fog.reveal.empty" not in found


def test_a_joint_decision_with_no_rule_when_players_disagree(root: Path, tmp_path: Path) -> None:
    project = _copy(root, tmp_path, "lantern-moths")
    line = _append(project, "lantern-moths", "turn.md", "Then the players decide together who starts the next round.")
    [joint] = _kind(lint(load_book(project, "lantern-moths")), "outcome-unstated")
    assert (joint.subject, joint.line, joint.tracked_by) == ("outcome:lm.turn.stuck", line, [])
    assert "rests on 'the players decide'" in joint.message
    # Settled in a rule it links, no finding; and in the rule itself (a tie-break for disagreement).
    linked = _copy(root, tmp_path / "linked", "lantern-moths")
    _append(linked, "lantern-moths", "turn.md", "Then the players decide who starts next ([[lm.setup.start]]).")
    assert len(_kind(lint(load_book(linked, "lantern-moths")), "outcome-unstated")) == 1
    _append(linked, "lantern-moths", "setup.md", "If they do not agree, the youngest player starts.")
    assert _kind(lint(load_book(linked, "lantern-moths")), "outcome-unstated") == []
    _append(project, "lantern-moths", "turn.md", "If they cannot agree, the start player decides.")
    assert _kind(lint(load_book(project, "lantern-moths")), "outcome-unstated") == []


@pytest.mark.parametrize("text", ["You may take the grey tile if you like.",
                                  "If nobody can remember, the youngest starts.", "Each player chooses a location.",
                                  "If another player agrees, swap hands. If not, keep yours."])
def test_own_choices_and_settled_consents_are_no_finding(root: Path, tmp_path: Path, text: str) -> None:
    project = _copy(root, tmp_path, "lantern-moths")
    _append(project, "lantern-moths", "turn.md", text)
    assert _kind(lint(load_book(project, "lantern-moths")), "outcome-unstated") == []


def test_glossary_unused(root: Path) -> None:
    [unused] = _kind(lint(load_book(root, "lantern")), "glossary-unused")
    assert unused.message == "glossary term 'Six-wild combination' is used by no rule"
    assert (unused.file, unused.line) == ("rules_src/lantern/glossary.yaml", 46)


def test_component_data_printed_by_no_rule(root: Path, tmp_path: Path) -> None:
    project = _copy(root, tmp_path)
    path = project / "rules_src/lantern/components.yaml"
    path.write_text(path.read_text() + "\nlanterns_extra: 3\n")
    [unused] = _kind(lint(load_book(project, "lantern")), "component-data-unused")
    assert unused.message == "component data 'lanterns_extra' is printed by no rule"
    assert unused.file == "rules_src/lantern/components.yaml"
    assert unused.line == len(path.read_text().splitlines())


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
    assert all({"file", "line", "rules", "severity", "tracked_by", "subject"} <= set(r) for r in records)


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
    found = {f.subject: f for f in _kind(lint(load_book(root, "last-lantern")), "component-not-in-data")}
    assert set(found) == {"component:cover boards", "component:cloth bags", "component:character tokens",
                          "component:character wheels"}  # "1 Canopy game board": one board is never in doubt
    bags = found["component:cloth bags"]
    assert bags.message == "the components chapter counts '2 cloth bags' with a number the component data does not hold"
    assert (bags.file, bags.line, bags.rules) == ("rules_src/last-lantern/chapters/components.md", 9,
                                                  ["ll.components.list"])
    assert _kind(lint(load_book(root, "lantern-moths")), "component-not-in-data") == []  # every count is templated


def test_tracked_by_subject_not_by_shared_rules(root: Path) -> None:
    [overlap] = _kind(lint(load_book(root, "lantern")), "range-overlap")
    assert overlap.rules == ["ln.end.titles"]
    assert overlap.tracked_by == ["ln.q4"]  # ln.q12 names ln.end.titles too, but asks whether a loss is scored


def test_gate_findings_split_by_severity_and_tracking(root: Path, tmp_path: Path) -> None:
    from rulepress.analyze.lint import gate_findings, summary

    problems, warnings = gate_findings(load_book(root, "lantern"))
    assert problems == []  # the overlap is an error, but ln.q4 tracks it: the designer knows, no warning either
    assert warnings == ["rules_src/lantern/glossary.yaml:46: glossary-unused: glossary term 'Six-wild combination' "
                        "is used by no rule [rule ln.fight.six-wild]"]
    project = _copy(root, tmp_path)
    line = _untracked_table(project)
    problems, _ = gate_findings(load_book(project, "lantern"))
    assert problems == [f"rules_src/lantern/components.yaml:{line}: range-gap: luck: no range covers 3-4 (between "
                        "'low' and 'high')"]
    _, more = gate_findings(load_book(root, "last-lantern"))
    # 'surrounded' is ll.q23's subject: tracked, so not a warning.
    assert summary(warnings + more) == ("lint: 6 warning(s) no designer question tracks (component-not-in-data 4, "
                                        "glossary-unused 1, word-undefined 1); `rulepress lint` lists them")
    assert summary([]) is None
