"""Rule provenance: every rule of every book says where it comes from, and the loader refuses bad entries."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulepress.analyze import lint
from rulepress.errors import SourceError
from rulepress.load.book import Book, book_ids, load_book
from rulepress.load.problems import SourceErrors
from rulepress.load.provenance import QUOTE, Provenance, load_provenance, missing, quote_found, seed_text, unchecked

from .conftest import ROOT

SHOWN = "rules_src/mini/provenance.yaml"
SEEDS = ROOT.parent / "shared" / "seeds"  # the seeds as given, beside the project here (the copies are checked)
SEED_FILES = {"lantern-moths": "000_f1a6bcade2f264b1.txt", "last-lantern": "002_4bfe3d7e1019daeb.txt",
              "lantern": "003_84bd05a3e0a36db3.txt"}


@pytest.fixture(scope="module")
def books() -> dict[str, Book]:
    return {book: load_book(ROOT, book) for book in book_ids(ROOT)}


def _mini(project: Path, text: str) -> Book:
    (project / "rules_src" / "mini" / "provenance.yaml").write_text(text, encoding="utf-8")
    return load_book(project, "mini")


def _refused(project: Path, text: str) -> list[tuple[str, int | None, str, str | None]]:
    with pytest.raises(SourceError) as caught:
        load_provenance(_mini(project, text))
    error = caught.value
    every = error.errors if isinstance(error, SourceErrors) else [error]
    return [(str(e.file), e.line, e.message, e.rule) for e in every]


# --- the bundled books -------------------------------------------------------------------------------------


def test_every_rule_of_every_book_has_provenance(books: dict[str, Book]) -> None:
    assert set(books) == {"lantern", "lantern-moths", "last-lantern"}
    for book in books.values():
        assert missing(book, load_provenance(book)) == [], book.id


def test_rule_counts_are_the_books(books: dict[str, Book]) -> None:
    # Guards the test above against a book that silently lost its chapters.
    assert {book: len(b.rules) for book, b in books.items()} == {"lantern": 39, "lantern-moths": 58,
                                                                  "last-lantern": 118}


def test_added_rules_all_name_a_question_of_their_book(books: dict[str, Book]) -> None:
    added = {}
    for book in books.values():
        known = {q.id for q in book.questions}
        entries = load_provenance(book)
        added[book.id] = sorted(rule for rule, entry in entries.items() if entry.added)
        for rule in added[book.id]:
            assert entries[rule].questions, rule
            assert set(entries[rule].questions) <= known, rule
    # The data marks added rules in every book; an empty list would mean the flag is never used.
    assert all(added.values()), added
    assert "ln.end.titles" in added["lantern"]  # the score-band tie-break the seed does not give
    assert "lm.round.refill" in added["lantern-moths"]  # the end-of-round draw order
    assert "ll.challenge.branches.loss" in added["last-lantern"]  # victory at 5 or fewer


def test_new_questions_are_linked_from_provenance(books: dict[str, Book]) -> None:
    linked = {q for book in books.values() for entry in load_provenance(book).values() for q in entry.questions}
    assert {"ln.q17", "lm.q19", "ll.q33", "ll.q34", "ll.q35", "ll.q36", "ll.q37", "ll.q38", "ll.q39"} <= linked


def test_every_bundled_book_names_its_seed_and_every_quote_is_checked(books: dict[str, Book]) -> None:
    """Each bundled book names its seed (book.yaml ``source: seed.txt``, a copy of the source text): its quotes are
    checked as it loads, so none goes unchecked and every one is the seed's own words."""
    for book in books.values():
        assert book.data["source"] == "seed.txt" and unchecked(book) is None
        if SEEDS.is_dir():  # the copy is the seed's text, byte for byte
            assert (book.folder / "seed.txt").read_bytes() == (SEEDS / SEED_FILES[book.id]).read_bytes()
        seed = seed_text(book)
        assert seed is not None
        quotes = [quote for entry in book.provenance.values() for quote in QUOTE.findall(entry.source or "")]
        assert quotes and all(quote_found(quote, seed) for quote in quotes)


def test_a_quote_the_seed_does_not_hold_is_refused_at_its_line(mini: Path) -> None:
    (mini / "rules_src" / "mini" / "seed.txt").write_text("Play: take stones from the pile,\none to three; the "
                                                          "last stone wins the game.\n", encoding="utf-8")
    _set_source(mini, "seed.txt")
    text = ("mini.play:\n  source: \"Play: 'take stones ... one to three'\"\n"
            "mini.play.win:\n  questions: [mini.q1]\n  source: \"Play: 'the first stone wins'\"\n")
    assert _refused(mini, text) == [(SHOWN, 5, "the quote 'the first stone wins' is not in the source text (seed.txt, "
                                     "book.yaml's source): quote its own words", "mini.play.win")]
    book = _mini(mini, text.replace("first", "LAST"))  # case and line breaks aside, the seed's words: it loads
    assert book.provenance["mini.play.win"].source_line == 5 and lint.unchecked_quotes(book) == []
    with pytest.raises(SourceError, match="'one to three ... take stones' is not in the source text"):
        _mini(mini, text.replace("first", "last").replace("'take stones ... one to three'",
                                                          "'one to three ... take stones'"))  # in the seed's order


def test_a_quote_that_cannot_be_checked_gets_a_warning(mini: Path) -> None:
    text = "mini.play:\n  source: \"Play: 'take stones'\"\n"
    book = _mini(mini, text)  # book.yaml names no seed
    [found] = lint.unchecked_quotes(book)
    assert (found.kind, found.severity, found.file, found.line) == ("quote-unchecked", "warning", SHOWN, 2)
    assert found.message == ("the quote 'take stones' could not be checked: book.yaml names no source text to check "
                             "it against (source: seed.txt)")
    _set_source(mini, "seed.txt")  # named, but not there
    [found] = lint.unchecked_quotes(_mini(mini, text))
    assert found.message.endswith("could not be checked: book.yaml's source, rules_src/mini/seed.txt, is not there")
    _, warnings = lint.gate_findings(_mini(mini, text))
    assert any("quote-unchecked" in line for line in warnings)


def test_a_seed_outside_the_book_or_not_a_text_is_refused(mini: Path) -> None:
    for named in ("../../../etc/passwd.txt", "/etc/seed.txt", "seed.pdf"):
        _set_source(mini, named)
        with pytest.raises(SourceError, match="'source' must be the source text the rules come from"):
            load_book(mini, "mini")


def _set_source(project: Path, name: str) -> None:
    path = project / "rules_src" / "mini" / "book.yaml"
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("source:")]
    path.write_text("\n".join(lines + [f"source: {name}"]) + "\n", encoding="utf-8")


# --- the loader, on the mini fixture (rules mini.play, mini.play.take, mini.play.win; question mini.q1) ------


def test_a_good_file_loads_with_lines(mini: Path) -> None:
    book = _mini(mini, "mini.play:\n  source: \"Play: 'take stones'\"\n"
                       "mini.play.win:\n  source: \"Play: 'the last stone wins'\"\n  questions: [mini.q1]\n"
                       "  added: true\n")
    entries = load_provenance(book)
    assert entries == {
        "mini.play": Provenance("mini.play", "Play: 'take stones'", (), False, 1),
        "mini.play.win": Provenance("mini.play.win", "Play: 'the last stone wins'", ("mini.q1",), True, 3),
    }
    assert missing(book, entries) == ["mini.play.take"]


def test_no_file_means_every_rule_is_missing(mini: Path) -> None:
    (mini / "rules_src" / "mini" / "provenance.yaml").unlink()
    book = load_book(mini, "mini")
    assert load_provenance(book) == {}
    assert missing(book, {}) == ["mini.play", "mini.play.take", "mini.play.win"]


def test_unknown_rule_id(mini: Path) -> None:
    text = "mini.play:\n  source: Play\nmini.play.lose:\n  source: Play\n"
    assert _refused(mini, text) == [(SHOWN, 3, "unknown rule ID 'mini.play.lose'", "mini.play.lose")]
    text = "mini.play:\n  source: Play\nmini.play.wins:\n  source: Play\n"
    assert _refused(mini, text) == [(SHOWN, 3, "unknown rule ID 'mini.play.wins' (did you mean 'mini.play.win'?)",
                                     "mini.play.wins")]


def test_unknown_question_id(mini: Path) -> None:
    text = "mini.play.win:\n  source: Play\n  questions:\n    - mini.q1\n    - mini.q9\n"
    assert _refused(mini, text) == [(SHOWN, 5, "unknown question ID 'mini.q9'", "mini.play.win")]


def test_added_without_a_question(mini: Path) -> None:
    text = "mini.play.take:\n  source: Play\n  added: true\n"
    assert _refused(mini, text) == [
        (SHOWN, 3, "'added: true' needs a designer question recording why the rule was added", "mini.play.take")]


def test_neither_source_nor_questions(mini: Path) -> None:
    for text in ("mini.play.take:\n  added: false\n", "mini.play.take:\n  questions: []\n"):
        assert _refused(mini, text) == [
            (SHOWN, 1, "neither a source passage nor a designer question: say where the rule comes from",
             "mini.play.take")]


def test_unknown_key(mini: Path) -> None:
    text = "mini.play.take:\n  source: Play\n  sources: Play again\n"
    assert _refused(mini, text) == [
        (SHOWN, 3, "unknown key 'sources' (allowed: source, questions, added)", "mini.play.take")]


def test_wrong_types(mini: Path) -> None:
    cases = {
        "mini.play: Play\n": (1, "an entry must be a mapping with 'source', 'questions' and/or 'added'"),
        "mini.play:\n  source: ''\n": (2, "'source' must be a non-empty text: the seed's section and a short quote"),
        "mini.play:\n  source: Play\n  questions: mini.q1\n": (3, "'questions' must be a list of question IDs"),
        "mini.play:\n  source: Play\n  added: yes please\n": (3, "'added' must be true or false"),
    }
    for text, (line, message) in cases.items():
        assert _refused(mini, text) == [(SHOWN, line, message, "mini.play")], text


def test_not_a_mapping(mini: Path) -> None:
    assert _refused(mini, "- mini.play\n") == [
        (SHOWN, 1, "provenance must be a mapping from rule ID to its entry (source, questions, added)", None)]


def test_quote_too_long(mini: Path) -> None:
    quote = "one two three four five six seven eight nine ten eleven twelve thirteen"
    text = f"mini.play:\n  source: \"Play: '{quote}'\"\n"
    assert _refused(mini, text) == [
        (SHOWN, 2, f"the quote '{quote}' has 13 words: quote at most 12, enough to find the passage in the seed",
         "mini.play")]
    # Twelve words pass; an ellipsis is not a word, and an apostrophe inside a word does not end the quote.
    book = _mini(mini, "mini.play:\n  source: \"Play: 'one two three four five ... six seven eight nine ten "
                       "eleven player's'\"\n")
    assert load_provenance(book)["mini.play"].source.endswith("player's'")


def test_every_problem_is_reported_at_once(mini: Path) -> None:
    text = ("mini.nope:\n  source: Play\n"
            "mini.play.take:\n  source: Play\n  added: true\n"
            "mini.play.win:\n  source: Play\n  questions: [mini.q7]\n  colour: red\n")
    assert _refused(mini, text) == [
        (SHOWN, 1, "unknown rule ID 'mini.nope'", "mini.nope"),
        (SHOWN, 5, "'added: true' needs a designer question recording why the rule was added", "mini.play.take"),
        (SHOWN, 9, "unknown key 'colour' (allowed: source, questions, added)", "mini.play.win"),
        (SHOWN, 8, "unknown question ID 'mini.q7'", "mini.play.win"),
    ]


def test_malformed_yaml_names_the_line(mini: Path) -> None:
    problems = _refused(mini, "mini.play:\n  source: [unclosed\n")
    assert len(problems) == 1
    file, line, message, rule = problems[0]
    assert (file, rule) == (SHOWN, None)
    assert line == 3 and message.startswith("malformed YAML")


def test_the_book_folder_accepts_provenance_yaml(mini: Path) -> None:
    # Without it in orphans.BOOK_FILES the book load reports the file as a stray.
    _mini(mini, "mini.play:\n  source: Play\n")
