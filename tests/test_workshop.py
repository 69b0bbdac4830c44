"""Player books that speak to players: the workshop (designer questions, what an edition leaves out, how an example
was built) is the designer's alone, marked in the sources the way a designer marks their own book
(rulepress/audience.py, `rulepress guide formats`, "For the designer alone"); the back cover's turn summary is
drawn from the book's rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulepress.audience import DESIGNER, PLAYERS, SITE, designer_only, for_audience
from rulepress.errors import SourceError
from rulepress.load.book import load_book
from rulepress.load.examples import load_examples
from rulepress.render import markdown as render
from rulepress.render import turn_summary
from rulepress.render.languages import translations
from rulepress.render.strings import strings
from rulepress.verify.gate import Report

from .conftest import ROOT, checks_of


def test_a_passage_for_the_designer_leaves_the_players_text_whole() -> None:
    text = ("Roll again once[ (designer question\nln.q8 asks whether twice)]{.designer}. Keep it.\n\n"
            "[Designer question ln.q5 asks which reading [[ln.end.loss]] means.]{.designer} Then lose.\n\n"
            "The original text says so.\n{: .designer}\n\nLast.")
    assert for_audience(text, PLAYERS) == "Roll again once. Keep it.\n\nThen lose.\n\n\nLast."
    marked = for_audience(text, DESIGNER)
    assert '<span class="designer"> (designer question\nln.q8 asks whether twice)</span>. Keep it.' in marked
    assert "{: .designer}" in marked  # the block keeps its attribute list: class="designer" in the edition
    assert for_audience(text, SITE) == marked
    assert for_audience("no workshop here", PLAYERS) == "no workshop here"


def test_a_code_fence_keeps_its_lines() -> None:
    text = "```\n{: .designer}\n```\n\nKept."
    assert for_audience(text, PLAYERS) == text


@pytest.mark.parametrize("wording, wanted", [
    ("Only once (designer question\nln.q8 asks whether a second roll may be rolled again). Next.", "Only once. Next."),
    ("Two circles (designer question ln.q15). Next.", "Two circles. Next."),
    ("Open (ln.q1, ln.q2). Next.", "Open. Next."),
])
def test_a_question_named_in_parentheses_never_reaches_a_players_book(wording: str, wanted: str) -> None:
    """The template that printed "(designer question a designer question asks whether…)" (Lantern p8, issue 27):
    a line break between "designer question" and the ID is one mention; a player's book drops the parenthesis."""
    book = load_book(ROOT, "lantern")
    assert render.designer_refs(wording, book, players=True) == wanted
    site = render.designer_refs(wording, book)
    assert "designer question a designer question" not in site and "ln.q" not in site


def test_the_french_question_is_named_once(bundled: Report) -> None:
    """French p63 read "La question au concepteur une question de l'auteur demande si…": the language's own
    phrase goes with the ID."""
    report = checks_of(bundled, "last-lantern")  # the French book is what is read here
    french = translations(report)["fr"][0].book
    text = "La question au concepteur ll.q19 demande si les Lucioles comptent."
    assert render.designer_refs(text, french) == "Une question de l'auteur demande si les Lucioles comptent."
    assert render.designer_refs("Voir ll.q19.", french) == f"Voir {strings('fr')('a_designer_question')}."


def test_examples_for_the_designer_alone() -> None:
    """Marked (designer: true), naming only the designer's rules, or showing another answer than the book
    assumes ("(the other answer)", through a question's engine option): none is in a player's book."""
    found = {}
    for book_id in ("lantern-moths", "last-lantern", "lantern"):
        book = load_book(ROOT, book_id)
        found.update({e.id: book_id for e in load_examples(book) if designer_only(e, book)})
    # lm-deck-out-refill-next-round, lm-hand-limit and ln-concede show questions lm.q3's, lm.q11's and ln.q6's
    # other answers (their options): the players' books assume the first.  ln-campfire-ahead refuses a described
    # sheet the rules cannot reach, which no player writes.
    assert set(found) == {"lm-draw", "lm-five-players", "lm-solo", "lm-refill-card-by-card", "ll-purple-pair",
                          "ln-score-on-loss", "lm-deck-out-refill-next-round", "lm-hand-limit", "ln-concede",
                          "ln-campfire-ahead"}


def test_a_designer_rule_and_its_sub_rules() -> None:
    book = load_book(ROOT, "lantern-moths")
    assert [r.id for r in book.rules.values() if r.designer] == ["lm.excluded", "lm.excluded.five",
                                                                 "lm.excluded.solo"]


def _chapter(mini: Path, text: str) -> None:
    (mini / "rules_src" / "mini" / "chapters" / "play.md").write_text(text, encoding="utf-8")


BASE = ("# Playing {#mini.play}\n\n## Taking stones {#mini.play.take}\n\nTake 1 to {{ take.max }} stones from the "
        "pile of {{ pile.start }}.\n\n## Winning {#mini.play.win}\n\nWhoever takes the last stone wins.\n\n")


@pytest.mark.parametrize("extra, message", [
    ("## Left out {#mini.play.out .designer}\n\nNo solo game.\n\n## More {#mini.play.more}\n\nSee "
     "[[mini.play.out]].\n", r"cross-reference to 'mini\.play\.out', a rule for the designer alone, in text the "
     r"player's books print: mark the passage \[\.\.\.\]\{\.designer\}, or the rule"),
    ("## Summary {#mini.play.summary .aid}\n\nAll of it.\n", r"'\.aid' marks a chapter"),
    ("## Summary {#mini.play.summary .aside}\n\nAll of it.\n", r"unknown heading class '\.aside' \(known: "
     r"\.designer, \.aid\)"),
])
def test_a_wrong_mark_names_its_line(mini: Path, extra: str, message: str) -> None:
    _chapter(mini, BASE + extra)
    with pytest.raises(SourceError) as refused:
        load_book(mini, "mini")
    assert re.search(message, str(refused.value)), str(refused.value)
    assert "rules_src/mini/chapters/play.md:" in str(refused.value)


def test_a_reference_inside_the_designers_passage_is_fine(mini: Path) -> None:
    _chapter(mini, BASE + "## Left out {#mini.play.out .designer}\n\nNo solo game.\n\n## More {#mini.play.more}\n\n"
             "Play on.[ (See [[mini.play.out]].)]{.designer}\n")
    book = load_book(mini, "mini")
    assert book.rules["mini.play.out"].designer and not book.rules["mini.play.more"].designer


def test_a_turn_summary_naming_a_designer_rule_is_refused(mini: Path) -> None:
    _chapter(mini, BASE + "## Left out {#mini.play.out .designer}\n\nNo solo game.\n")
    path = mini / "rules_src" / "mini" / "book.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "turn_summary:\n  - heading: mini.play.take\n"
                    "    rules: [mini.play.out]\n", encoding="utf-8")
    with pytest.raises(SourceError) as refused:
        load_book(mini, "mini")
    assert "turn_summary names 'mini.play.out', a rule for the designer alone" in str(refused.value)


def test_the_turn_summary_is_the_rules_first_sentences() -> None:
    """Lantern Moths' back cover: each group a rule's title and first sentence, each line a rule's title and
    first sentence, with its page once the body is laid out."""
    book = load_book(ROOT, "lantern-moths")
    groups = turn_summary.turn_summary(book, strings("en"), {"lm.turn.draw": 11})
    assert [g.title for g in groups] == ["Two actions", "When a round ends", "The fourth Dusk card"]
    assert groups[0].lead == "On your turn you take 2 actions."
    draw = groups[0].lines[0]
    assert (draw.title, draw.page, draw.html) == ("Draw", 11, "Take the top card of the deck or the top card of "
                                                               "the discard pile into your hand.")
    html = turn_summary.summary_html(groups, strings("en"))
    assert "p.&#160;11" in html and "designer" not in html


def test_a_round_summary_prints_its_lists_and_a_book_without_one_gets_its_chapters() -> None:
    book = load_book(ROOT, "last-lantern")
    groups = turn_summary.turn_summary(book, strings("en"))
    fog = groups[0].lines[0]
    assert fog.title == "Voices in the Fog" and fog.html.startswith("<ul><li>Draw 3 Tree tiles (4 with 4 players).")
    glance = turn_summary.at_a_glance(load_book(ROOT, "lantern-moths"))
    assert glance[0].title == "1 Overview" and glance[0].compact
    assert "Not included" not in [line.title for group in glance for line in group.lines]  # the designer's
