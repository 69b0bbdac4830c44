"""Engine decisions as data: declared with their designer question, checked by the gate, counted in simulations,
shown inside each rule; refusal rules probed in simulated play; every engine's inventory."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rulepress.analyze.cluster import pool
from rulepress.analyze.decided import decision_table
from rulepress.analyze.impact import simulate
from rulepress.analyze.refusals import near_misses, refusal_rules
from rulepress.protocol import Decision, OptionSpec, decided, option_decisions
from rulepress.render.markdown import Linker, chapter_markdown, coverage_markdown, decision_notes
from rulepress.verify.decisions import check_decisions, declared, read_facts
from rulepress.verify.gate import Report, load_checked_book, verify

from .conftest import checks_of

BOOKS = ("lantern-moths", "last-lantern", "lantern")
# The four decisions the engines made where the seeds are silent, that had no designer question before issue 20.
SILENT = {"lantern-moths": {"ghosts_are_moths": "lm.q20"},
          "last-lantern": {"shared_flowers": "ll.q40", "serpent_draws_this_round": "ll.q41",
                           "track_icon_again": "ll.q42"}}


@pytest.mark.parametrize("book_id", BOOKS)
def test_every_bundled_decision_names_a_question_and_is_marked(root: Path, book_id: str) -> None:
    check = load_checked_book(root, book_id)
    decisions = declared(check.engine)
    questions = {q.id for q in check.book.questions}
    assert decisions and all(d.question in questions for d in decisions)
    assert all(rule in check.book.rules for d in decisions for rule in d.rules)
    assert check_decisions(check.book, check.engine, root) == []  # no error, no decision left unmarked
    facts = read_facts(root / "engine" / check.book.engine_package, root)
    assert set(facts.marks) == {d.id for d in decisions}
    # Every option that answers a question is a decision (the challenges, with no question, are not).
    assert {s.name for s in check.engine.options if s.question} <= {d.id for d in decisions}


@pytest.mark.parametrize("book_id", sorted(SILENT))
def test_the_silent_decisions_have_their_questions(root: Path, book_id: str) -> None:
    check = load_checked_book(root, book_id)
    by_id = {d.id: d for d in declared(check.engine)}
    questions = {q.id: q for q in check.book.questions}
    for decision_id, question_id in SILENT[book_id].items():
        assert by_id[decision_id].question == question_id and by_id[decision_id].option is None
        assert questions[question_id].status == "open" and questions[question_id].option is None
        assert set(by_id[decision_id].rules) & set(questions[question_id].rules)


def test_option_decisions_skip_options_with_no_question() -> None:
    specs = (OptionSpec("glow", False, (False, True), "", ("x.a",), "a challenge"),
             OptionSpec("flip", True, (True, False), "x.q1", ("x.b",), "Tiles may be turned over."))
    assert option_decisions(specs) == (Decision("flip", "x.q1", ("x.b",), "Tiles may be turned over.", "flip"),)


def test_decided_counts_on_the_state_and_a_copy_keeps_its_own(root: Path) -> None:
    check = load_checked_book(root, "last-lantern")
    game = check.engine.make_game(check.book.components, {})
    state = game.new_state(["A", "B"], 3)
    decided(state, "flip")
    decided(state, "flip")
    twin = game.clone(state)
    decided(twin, "crossing")
    assert game.decisions_made(state) == {"flip": 2}
    assert game.decisions_made(twin) == {"flip": 2, "crossing": 1}


def _mini_engine(mini: Path, extra: str) -> None:
    """``extra`` before mini's declaration, which names its ``DECISIONS`` when ``extra`` defines them."""
    path = mini / "engine" / "mini" / "__init__.py"
    text = path.read_text(encoding="utf-8")
    mark = "# The engine's one declaration"
    text = text.replace(mark, extra + "\n\n" + mark)
    if "DECISIONS = " in extra:
        text = text.replace("    options=OPTIONS,\n", "    options=OPTIONS,\n    decisions=DECISIONS,\n")
    path.write_text(text, encoding="utf-8")


def test_gate_refuses_a_decision_without_question_and_an_undeclared_mark(mini: Path) -> None:
    _mini_engine(mini, "from rulepress.protocol import Decision, decided\n"
                       "DECISIONS = (Decision('who_starts', None, ('mini.play.take',), 'The first listed starts.'),\n"
                       "             Decision('pile', 'mini.q9', ('mini.play.nowhere',), 'The pile is 21.'))\n"
                       "def _mark(state):\n    decided(state, 'ghost')\n")
    report = verify(mini, draw=False)
    text = "\n".join(report.problems)
    assert "decision-no-question: engine decision 'who_starts' (The first listed starts.) names no designer " \
           "question" in text
    assert "engine/mini/__init__.py:" in text  # at the line that declares it
    assert "names designer question 'mini.q9', which rules_src/mini/questions.yaml does not have" in text
    assert "decision-unknown-rule: engine decision 'pile' names unknown rule ID 'mini.play.nowhere'" in text
    assert "decision-undeclared: decided(state, 'ghost') names no decision the engine declares" in text
    assert any("decision-unmarked: engine decision 'who_starts' is marked nowhere" in w for w in report.warnings)


def test_gate_names_decisions_that_are_not_decisions_and_does_not_crash(mini: Path) -> None:
    _mini_engine(mini, "DECISIONS = ('last_stone',)\n")
    report = verify(mini, draw=False)
    line = (mini / "engine/mini/__init__.py").read_text().splitlines().index("    decisions=DECISIONS,") + 1
    assert report.problems == [f"engine/mini/__init__.py:{line}: engine 'mini': EngineSpec.decisions must be a tuple "
                               f"of Decision or None, not tuple ('last_stone',) (rulepress guide engine, \"The "
                               f"package\")"]


def test_gate_passes_a_decision_with_its_question_and_mark(mini: Path) -> None:
    _mini_engine(mini, "from rulepress.protocol import Decision, decided, option_decisions\n"
                       "DECISIONS = (*option_decisions(OPTIONS),)\n"
                       "def _mark(state):\n    decided(state, 'last_stone')\n")
    report = verify(mini, draw=False)
    assert not [p for p in report.problems if "decision" in p]
    assert not [w for w in report.warnings if "decision" in w]
    assert report.ok


def test_a_simulation_counts_the_games_each_decision_mattered(root: Path) -> None:
    check = load_checked_book(root, "lantern-moths")
    with pool(0) as here:
        tally = simulate(here, root, check, {}, 40, policy="greedy", seed=4)
    # Every game of the text's rules ends with the fourth Dusk card, which decides lm.q6 each time.
    assert tally.decided["fourth_dusk_replacement"] == tally.fired["lm.night.fourth"] == 40
    assert tally.decided["deck_out"] == 0  # the deck never runs out first (lm.q18)
    rows = {row["id"]: row for row in decision_table(check.engine, [("greedy play", tally)])}
    assert rows["fourth_dusk_replacement"]["games"] == 40 and not rows["fourth_dusk_replacement"]["never"]
    assert rows["deck_out"]["never"] and rows["deck_out"]["question"] == "lm.q15"
    assert set(rows) == {d.id for d in declared(check.engine)}


def test_rules_show_the_decisions_inside_them(bundled: Report) -> None:
    report = checks_of(bundled, "last-lantern")
    trace = report.books[0].trace
    assert trace is not None
    inside = trace.rules["ll.challenge.blossoms.loss"].decisions
    assert [d["id"] for d in inside] == ["shared_flowers", "flowers_on_path"]  # ll.q40, then ll.q38
    assert inside[0]["question"] == "ll.q40" and inside[0]["marked"][0].startswith("engine/last_lantern/flow.py:")
    assert trace.rules["ll.challenge.blossoms.loss"].as_dict()["decisions"] == inside
    note = decision_notes(inside, report.books[0].book)[0]
    assert note.startswith('<p class="provenance decision">Engine decision: A flower on a shared grey column')
    assert "Asked in ll.q40." in note

    link = Linker(rule=lambda rule_id: f"#{rule_id}", example=lambda example_id: f"#{example_id}",
                  diagram=lambda example_id, checkpoint: f"{example_id}-{checkpoint}.svg", glossary=lambda: "glossary")
    table = coverage_markdown(report.books[0].book, trace, link)
    assert "decides shared_flowers (ll.q40)" in table
    # The designer edition prints the note under the rule; the player edition does not.
    book = report.books[0].book
    chapter = next(c for c in book.chapters if any(r.id == "ll.challenge.blossoms.loss" for r in c.rules))
    designer = chapter_markdown(chapter, book, link, designer=True, trace=trace)
    assert note in designer
    assert designer.index(note) > designer.index("ll.challenge.blossoms.loss")
    assert note not in chapter_markdown(chapter, book, link, trace=trace)


def test_refusal_rules_are_read_from_the_engine_and_probed_in_play(root: Path) -> None:
    check = load_checked_book(root, "lantern-moths")
    rules = refusal_rules(root / "engine" / "lantern_moths", root, "lm")
    assert rules["lm.edge.own-wicks"][0].startswith("engine/lantern_moths/turn.py:")
    assert "lm.round.capture" not in rules  # it only ever fires as an event
    with pool(0) as here:
        tally = simulate(here, root, check, {}, 100, policy="greedy", seed=1)
    assert tally.probed == 2  # games 0 and 50
    assert tally.refused["lm.turn.plant"] > 0  # a plant of a card onto another tile is a near miss
    assert tally.refused["lm.edge.own-wicks"] == 0


def test_a_refusal_nothing_provokes_is_reported(root: Path) -> None:
    from rulepress.analyze.analysis import Run, Verdicts, unprovoked_refusals
    from rulepress.analyze.plan import Config

    check = load_checked_book(root, "lantern-moths")
    with pool(0) as here:
        tally = simulate(here, root, check, {}, 60, policy="greedy", seed=1)
    verdicts = Verdicts([], [])
    unprovoked_refusals(root, check, [Run(Config("greedy play", "greedy"), tally)], 0.05, verdicts)
    found = {f.rules[0]: f for f in verdicts.findings}
    # Lighting beside one's own wick is refused at an example's position, never at a probed game's.
    assert found["lm.edge.own-wicks"].kind == "refusal-only-in-examples"
    assert found["lm.edge.own-wicks"].evidence["examples"] and found["lm.edge.own-wicks"].severity == "info"
    assert all("2 games probed" in f.message and "greedy play 2 probed games" in f.message
               for f in found.values() if f.kind == "refusal-never-provoked")  # Lantern's cap: test_analysis_refusals
    assert "lm.turn.plant" not in found


def test_near_misses_are_unlisted_and_one_field_away(root: Path) -> None:
    check = load_checked_book(root, "lantern-moths")
    game = check.engine.make_game(check.book.components, {})
    state = game.new_state(["A", "B"], 2)
    legal = game.legal_actions(state)
    misses = near_misses(legal, random.Random(0))
    assert misses and not set(misses) & set(legal)
    def apart(one: tuple, other: tuple) -> int:  # type: ignore[type-arg]
        return sum(a != b for a, b in zip(one, other, strict=True))

    assert all(min(apart(miss, action) for action in legal) == 1 for miss in misses)


@pytest.mark.parametrize("book_id", BOOKS)
def test_every_engine_reports_its_inventory(root: Path, book_id: str) -> None:
    check = load_checked_book(root, book_id)
    inventory = check.engine.inventory(check.book.components)
    assert all(names for names in inventory.values())
    with pool(0) as here:
        tally = simulate(here, root, check, {}, 30, policy=check.engine.default_policy, seed=0)
    used = {name.split(":", 1)[0] for name in tally.touched}
    assert used == set(inventory) - ({"serpent"} if book_id == "last-lantern" else set())  # Serpents: a challenge
    if book_id == "last-lantern":
        assert len(inventory["tile"]) == 48 + 12 + 6 and inventory["familiar"] == ["rabbit", "snail", "owl", "wolf"]


def test_gate_finds_a_question_the_engine_decides_without_a_decision(root: Path, tmp_path: Path) -> None:
    """A designer question with ``source: engine`` and no Decision naming it is ``decision-missing``; a decision
    inside a prose-only rule is ``decision-prose-only``."""
    import shutil

    from rulepress.load.book import load_book
    from rulepress.verify.decisions import check_decisions
    from rulepress.verify.engines import load_engine

    for folder in ("rules_src/lantern", "engine/lantern", "examples/lantern"):
        shutil.copytree(root / folder, tmp_path / folder)
    (tmp_path / "rulepress.yaml").write_text("")
    options = tmp_path / "engine/lantern/options.py"
    text = options.read_text()
    options.write_text(text.replace('Decision("row_circle_lost", "ln.q18",', 'Decision("row_circle_lost", "ln.q1",'))
    book = load_book(tmp_path, "lantern")
    problems = check_decisions(book, load_engine(book.engine_package, tmp_path), tmp_path)
    assert [(p.kind, p.file, p.line) for p in problems if p.kind == "decision-missing"] == \
        [("decision-missing", book.path("questions.yaml"), next(q.line for q in book.questions if q.id == "ln.q18"))]
    prose = (tmp_path / "rules_src/lantern/prose_only.yaml")
    prose.write_text(prose.read_text() + "ln.play.campfire: pretend it is prose only\n")
    book = load_book(tmp_path, "lantern")
    kinds = {p.kind for p in check_decisions(book, load_engine(book.engine_package, tmp_path), tmp_path)}
    assert "decision-prose-only" in kinds
