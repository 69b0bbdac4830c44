"""Translated editions (load/translations.py, analyze/translation_status.py): the model over the source's structure,
numbers from one place, staleness against git history, and ``rulepress translations``.

The fixture is the mini book with a French translation (tests/fixtures/translations/ laid over tests/fixtures/mini/),
complete and current: each test damages one thing and looks for the one report it should cause."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.cli import main
from rulepress.errors import BuildRefused, SourceError
from rulepress.load.book import Book, load_book
from rulepress.load.checks import evaluate
from rulepress.load.examples import load_examples
from rulepress.load.orphans import undeclared_translations
from rulepress.load.problems import SourceErrors, lines_of
from rulepress.load.translation_checks import compare_text, literal_numbers
from rulepress.load.translation_terms import DataWord, needs_term
from rulepress.load.translations import (
    languages,
    load_translation,
    raw_sections,
    text_hash,
    translate_examples,
)
from rulepress.publish.build import gate
from rulepress.verify.gate import load_book_engine
from rulepress.verify.replay import _prose, replay

from .conftest import make_project

OVERLAY = Path(__file__).parent / "fixtures" / "translations"
CHAPTER = "rules_src/mini/fr/chapters/play.md"
GLOSSARY = "rules_src/mini/fr/glossary.yaml"
EXAMPLE = "examples/mini/fr/mini-last-stone.yaml"
SOURCES = "rules_src/mini/fr/sources.yaml"


def make_translated(target: Path) -> Path:
    project = make_project(target)
    shutil.copytree(OVERLAY, project, dirs_exist_ok=True)
    return project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_translated(tmp_path / "project")


def edit(project: Path, name: str, old: str, new: str) -> None:
    path = project / name
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def problems(project: Path) -> list[str]:
    """Every problem of loading the French edition and its examples (none: an empty list)."""
    book = load_book(project, "mini")
    try:
        translate_examples(load_examples(book), load_translation(book, "fr"))
    except SourceError as error:
        return lines_of(error)
    return []


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


# -- the model ---------------------------------------------------------------------------------------------------

def test_the_french_edition_has_the_sources_structure_and_its_own_words(project: Path) -> None:
    source = load_book(project, "mini")
    assert languages(source) == ("en", ["fr"])
    book = load_translation(source, "fr")
    assert (book.id, book.language, book.title) == ("mini", "fr", "Mini Pierres")
    assert [(r.id, r.number) for r in book.rules.values()] == [(r.id, r.number) for r in source.rules.values()]
    take = book.rules["mini.play.take"]
    assert take.title == "Prendre des pierres"
    assert "de 1 à 3 pierres du tas de 12" in take.body  # rendered over the same components
    assert take.file == CHAPTER and take.line == 3
    assert book.components is source.components and book.games is source.games
    assert [t.term for t in book.glossary] == ["Tas"] and book.glossary[0].rule == "mini.play.take"
    assert book.questions[0].answers == {"win": "la dernière pierre gagne", "lose": "la dernière pierre perd"}
    assert book.questions[0].option == "last_stone" and book.questions[0].assumed == "win"
    assert set(book.status.values()) == {"current"}
    assert source.language == "en" and source.title == "Mini Stones"  # the source is left as it was


def test_a_french_example_prints_the_numbers_of_the_one_replay(project: Path) -> None:
    source = load_book(project, "mini")
    examples = load_examples(source)
    book = load_translation(source, "fr")
    (french,) = translate_examples(examples, book)
    assert french.steps is examples[0].steps  # shared: the same replay
    assert french.title == "Prendre la dernière pierre" and french.caption("end") == "Le tas est vide"
    assert french.status == "current" and book.status["example:mini-last-stone"] == "current"
    result = replay(examples[0], source, load_book_engine(source), draw=False)
    assert result.status == "passed"
    assert "takes the last 2 and Ben wins" in result.text
    assert "Ben prend les 2 dernières et\nBen gagne." in _prose(french, result)


def test_raw_sections_and_hashes_ignore_wrapping() -> None:
    text = "# A {#x.a}\n\nOne\ntwo.\n\n```\n## not a rule {#x.b}\n```\n## B {#x.c}\nthree\n"
    sections = raw_sections(text)
    assert list(sections) == ["x.a", "x.c"] and sections["x.c"].line == 9
    assert text_hash("One\ntwo.") == text_hash("One two.") != text_hash("One three.")


def test_literal_numbers_skip_templates_ids_and_names() -> None:
    assert literal_numbers("take {{ 3 }} tiles; T03 and a1 {#ll.q2} [[ll.x2]] ll.q7, 2 or 3 players") == {"2", "3"}


# -- numbers from one place --------------------------------------------------------------------------------------

def test_a_dropped_number_is_refused_naming_the_rule(project: Path) -> None:
    edit(project, CHAPTER, "de 1 à {{ take.max }} pierres", "de 1 à trois pierres")
    assert problems(project) == [f"{CHAPTER}:3: rule 1.1: the translation drops {{{{ take.max }}}} of its source "
                                 "(numbers come from one place: keep every {{ … }} of the source) "
                                 "[rule mini.play.take]"]


def test_an_added_number_is_refused_at_its_line(project: Path) -> None:
    edit(project, CHAPTER, "gagne (voir", "gagne ({{ pile.rows }} rangées ; voir")
    assert problems(project) == [f"{CHAPTER}:9: rule 1.2: the translation adds {{{{ pile.rows }}}}, which its "
                                 "source does not use [rule mini.play.win]"]


def test_a_hard_coded_number_is_refused_naming_the_rule(project: Path) -> None:
    edit(project, CHAPTER, "du tas de {{ pile.start }}", "du tas de 12")
    found = problems(project)
    assert len(found) == 2
    assert "drops {{ pile.start }}" in found[0]
    assert found[1] == (f"{CHAPTER}:5: rule 1.1: hard-coded number '12' (the source does not write it: take it "
                        "from the data with the source's {{ … }}) [rule mini.play.take]")


def test_numbers_the_source_writes_out_may_be_written_out(project: Path) -> None:
    # "1" is in the source's own words ("take 1 to ..."); quoted words inside an expression may be translated.
    assert compare_text("take 1 to {{ n ~ ' stones' }}", "prenez 1 à {{ n ~ ' pierres' }}", "f", 1, "r") == []


def test_an_example_translation_keeps_its_sources_replay_numbers(project: Path) -> None:
    edit(project, EXAMPLE, "{{ result.winner }} gagne", "Ben gagne après 12 pierres")
    found = problems(project)
    assert f"{EXAMPLE}:3: example 'mini-last-stone' text: the translation drops {{{{ result.winner }}}}" in found[0]
    assert found[1].startswith(f"{EXAMPLE}:4: example 'mini-last-stone' text: hard-coded number '12'")


# -- structure -----------------------------------------------------------------------------------------------------

def test_a_missing_rule_prints_the_source_and_is_reported(project: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    edit(project, CHAPTER, "## Gagner {#mini.play.win}\n\nQui prend la dernière pierre gagne (voir "
                           "[[mini.play.take]]).\n", "")
    source = load_book(project, "mini")
    book = load_translation(source, "fr")
    assert book.status["rule:mini.play.win"] == "missing"
    assert book.rules["mini.play.win"].title == "Winning" and book.rules["mini.play.win"].number == "1.2"
    code, out = run(capsys, "--root", str(project), "translations", "mini")
    assert code == 1
    assert "fr): 6 current, 0 stale, 1 missing" in out
    assert "missing  rule 1.2 mini.play.win (Winning)  [rule:mini.play.win]" in out
    assert "source rules_src/mini/chapters/play.md:7, translation rules_src/mini/fr/chapters/play.md" in out


def test_a_missing_chapter_file_makes_each_of_its_rules_missing(project: Path) -> None:
    (project / CHAPTER).unlink()
    book = load_translation(load_book(project, "mini"), "fr")
    assert [book.status[f"rule:{r}"] for r in book.rules] == ["missing"] * 3
    assert book.rules["mini.play.take"].file == "rules_src/mini/chapters/play.md"


@pytest.mark.parametrize(("old", "new", "message"), [
    ("## Gagner {#mini.play.win}", "## Gagner {#mini.play.won}",
     f"{CHAPTER}:7: heading with unknown rule ID 'mini.play.won' in this chapter (did you mean 'mini.play.win'? the "
     "source has no such rule: translate its headings with their IDs, add none)"),
    ("## Gagner {#mini.play.win}", "### Gagner {#mini.play.win}",
     f"{CHAPTER}:7: level-3 heading; the source's is level 2"),
    ("# Jouer {#mini.play}", "# Jouer", f"{CHAPTER}:1: heading 'Jouer' has no rule ID"),
    ("(voir [[mini.play.take]])", "(voir [[mini.play.takes]])",
     f"{CHAPTER}:9: cross-reference to unknown rule ID 'mini.play.takes' (did you mean 'mini.play.take'?)"),
])
def test_headings_keep_the_sources_ids_and_levels(project: Path, old: str, new: str, message: str) -> None:
    edit(project, CHAPTER, old, new)
    found = problems(project)
    assert any(line.startswith(message) for line in found), found


def test_rules_out_of_order_are_refused(project: Path) -> None:
    path = project / CHAPTER
    head, take, win = path.read_text(encoding="utf-8").split("\n## ")
    path.write_text("\n## ".join([head, win.rstrip("\n") + "\n", take]), encoding="utf-8")
    assert any("rule out of order: the source has 'mini.play.take' here" in line for line in problems(project))


def test_glossary_and_example_translations_name_what_exists(project: Path) -> None:
    edit(project, GLOSSARY, "source: Pile", "source: Piles")
    edit(project, EXAMPLE, "  end: Le tas", "  ending: Le tas")
    (project / "examples/mini/fr/mini-first-stone.yaml").write_text("title: Une autre\n", encoding="utf-8")
    assert problems(project) == [f"{GLOSSARY}:4: 'source: Piles' is not a term of the source glossary (did you "
                                 "mean 'Pile'?)"]
    edit(project, GLOSSARY, "source: Piles", "source: Pile")  # the examples are checked once the book loads
    assert problems(project) == [
        "examples/mini/fr/mini-first-stone.yaml: no source example 'mini-first-stone' (did you mean "
        "'mini-last-stone'?)",
        f"{EXAMPLE}:6: caption for checkpoint 'ending': the checkpoint is not a checkpoint of 'mini-last-stone' (did "
        "you mean 'end'?) [rule mini.play.take]"]


def test_a_glossary_entry_points_to_its_source_terms_rule(project: Path) -> None:
    edit(project, GLOSSARY, "rule: mini.play.take", "rule: mini.play.nope")
    assert problems(project) == [f"{GLOSSARY}:3: glossary term 'Tas' points to 'mini.play.nope' (no such rule); its "
                                 "source term points to 'mini.play.take' [rule mini.play.nope]"]


@pytest.mark.parametrize(("name", "old", "new", "message"), [
    (GLOSSARY, "  definition:", "  defintion:", "unknown key 'defintion' in entry 1 (did you mean 'definition'?)"),
    (EXAMPLE, "captions:", "caption:", "unknown key 'caption' (did you mean 'captions'?)"),
    ("rules_src/mini/fr/book.yaml", "title:", "titel:", "unknown key 'titel' (did you mean 'title'?)"),
    ("rules_src/mini/fr/questions.yaml", "  answers:", "  answer:", "unknown key 'answer' in entry 1 (did you mean "
                                                                    "'answers'?)"),
    (SOURCES, "rule:mini.play:", "rules:mini.play:", "key 'rules:mini.play' must be an item: rule:<id>"),
    (SOURCES, "bfe2a0d3cc11", "bfe2a0d3cc1", "'rule:mini.play' must be a source hash"),
])
def test_schema_typos_are_refused_with_a_hint(project: Path, name: str, old: str, new: str, message: str) -> None:
    edit(project, name, old, new)
    found = problems(project)
    assert any(line.startswith(f"{name}:") and message in line for line in found), found


def test_stray_and_undeclared_translation_files_are_reported(project: Path) -> None:
    (project / "rules_src/mini/fr/glosary.yaml").write_text("[]\n", encoding="utf-8")
    assert problems(project) == ["rules_src/mini/fr/glosary.yaml: unknown file in the translation folder (did you "
                                 "mean 'glossary.yaml'?); the build would ignore it"]
    (project / "rules_src/mini/fr/glosary.yaml").unlink()
    (project / "examples/mini/de").mkdir()
    assert load_examples(load_book(project, "mini"))  # a language folder is not a stray example
    assert [str(e) for e in undeclared_translations(project, "mini", ["fr"])] == [
        "examples/mini/de: a translation into 'de' that rules_src/mini/book.yaml does not declare (add 'de' to its "
        "'translations', or delete the folder); the build would ignore it"]


def test_undeclared_language_in_book_yaml_is_refused(project: Path) -> None:
    edit(project, "rules_src/mini/book.yaml", "translations: [fr]", "translations: [french]")
    with pytest.raises(SourceError) as caught:
        load_book(project, "mini")
    assert "'translations[1]' must be a language code" in str(caught.value)


# -- words of the component data ----------------------------------------------------------------------------------

TERMS = "rules_src/mini/fr/terms.yaml"


def _stones(project: Path, terms: str) -> None:
    """Words in the mini book's data, printed and compared by both languages' rule 1.1; French display words."""
    edit(project, "rules_src/mini/components.yaml", "take: {max: 3}", "take: {max: 3}\nstone: {colour: grey, "
                                                                      "kinds: [granite, slate], id: basalt}")
    edit(project, "rules_src/mini/book.yaml", "    why: the pile is laid out in rows",
         "    why: the pile is laid out in rows\n  - expr: stone.colour == 'grey'\n    why: the stones are grey")
    edit(project, "rules_src/mini/chapters/play.md", "{{ pile.start }}.", "{{ pile.start }}.\nThey are "
         "{{ stone.colour }}{% if stone.colour == 'grey' %} and round{% endif %}: "
         "{{ stone.kinds | join(', ') | capitalize }}.")
    edit(project, CHAPTER, "{{ pile.start }}.", "{{ pile.start }}.\nElles sont {{ stone.colour }}{% if "
         "stone.colour == 'grey' %} et rondes{% endif %} :\n{{ stone.kinds | join(', ') | capitalize }}.")
    (project / TERMS).write_text(terms, encoding="utf-8")


def test_data_words_print_translated_while_checks_see_the_source(project: Path) -> None:
    _stones(project, "# display words\ngrey: grises\ngranite: granit\nslate: ardoise\n")
    source = load_book(project, "mini")  # its check (stone.colour == 'grey') passes on the source's data
    book = load_translation(source, "fr")
    # Translated where printed; compared as the source's value ({% if %}); keys and IDs untouched.
    assert "Elles sont grises et rondes :\nGranit, ardoise." in book.rules["mini.play.take"].body
    assert "They are grey and round: Granite, slate." in source.rules["mini.play.take"].body
    assert book.components is source.components
    colour = book.components["stone"]["colour"]
    assert (colour, type(colour)) == ("grey", str) and evaluate("stone.colour == 'grey'", book.components)
    assert not [key for key in book.status if key.startswith("term:")]


def test_a_data_word_without_a_display_word_is_missing_where_it_is_printed(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _stones(project, "grey: grises\ngranite: granit\n")  # slate dropped
    book = load_translation(load_book(project, "mini"), "fr")
    assert "Granit, slate." in book.rules["mini.play.take"].body  # the source's word, capitalized like the rest
    assert [key for key, state in book.status.items() if key.startswith("term:")] == ["term:slate"]
    assert book.status["term:slate"] == "missing"
    code, out = run(capsys, "--root", str(project), "translations", "mini")
    assert code == 1
    assert "missing  data word 'slate'  [term:slate]" in out
    assert f"source rules_src/mini/components.yaml:3, translation {CHAPTER}:7" in out
    assert f"give its display word in {TERMS} ('slate: …')" in out
    code, out = run(capsys, "--root", str(project), "verify")
    assert f"WARN {CHAPTER}:7: data word 'slate' is missing in the 'fr' translation" in out
    assert main(["--root", str(project), "translations", "mini", "--mark", "term:slate"]) == 1
    assert "'term:slate': a display word has no source version to mark" in capsys.readouterr().err


def test_a_data_word_compared_but_never_printed_needs_no_display_word(project: Path) -> None:
    _stones(project, "granite: granit\nslate: ardoise\n")
    edit(project, CHAPTER, "Elles sont {{ stone.colour }}", "Elles sont {{ stone.colour | length }}")
    edit(project, "rules_src/mini/chapters/play.md", "They are {{ stone.colour }}", "They are "
                                                                                  "{{ stone.colour | length }}")
    book = load_translation(load_book(project, "mini"), "fr")
    assert "Elles sont 4 et rondes" in book.rules["mini.play.take"].body
    assert "term:grey" not in book.status


def test_which_data_values_are_words() -> None:
    words = ["poppy", "the 2-player cover board", "Glühwürmchen"]
    names = ["T03", "d4", "M1", "a", "#..", "x.1..2x", "ll.q1", "", 3, True, None]
    assert [value for value in words + names if needs_term(value)] == words
    assert not needs_term("basalt", "id")
    word = DataWord("coquelicot", "poppy")
    assert word == "poppy" and "poppy" == word and word in ["poppy"] and {"poppy": 1}[word] == 1
    assert str(word) == "coquelicot" and word.upper() == "COQUELICOT" and word != "coquelicot"


@pytest.mark.parametrize(("terms", "message"), [
    ("slat: ardoise\n", f"{TERMS}:1: 'slat' is not a word of rules_src/mini/components.yaml (did you mean "
                         "'slate'?)"),
    ("basalt: basalte\n", f"{TERMS}:1: 'basalt' is not a word of rules_src/mini/components.yaml"),  # an id: value
    ("slate: <b>ardoise</b>\n", f"{TERMS}:1: the display word of 'slate' is plain text"),
    ("slate: [ardoise]\n", f"{TERMS}:1"),
    # the schema's pattern ends in \Z: "$" would let the last newline of "slate: |" through
    ("slate: |\n  ardoise\n", f"{TERMS}:1:1: 'slate' must be the display word, as one line of text, not 'ardoise\\n'"),
])
def test_bad_terms_are_refused_at_their_line(project: Path, terms: str, message: str) -> None:
    _stones(project, terms)
    found = problems(project)
    assert any(line.startswith(message) for line in found), found


def test_the_translation_may_say_its_language_and_must_say_it_right(project: Path) -> None:
    fr = "rules_src/mini/fr/book.yaml"
    edit(project, fr, "title:", "language: fr\ntitle:")
    assert problems(project) == []
    edit(project, fr, "language: fr", "language: de")
    assert problems(project) == [f"{fr}:1: language 'de' in the 'fr' translation's folder (the folder names the "
                                 "language: write 'language: fr')"]
    edit(project, fr, "language: de", "language: french")
    assert any(line.startswith(f"{fr}:1") and "language code" in line for line in problems(project))


# -- staleness and the command -------------------------------------------------------------------------------------

def _commit_then_edit_take(project: Path) -> None:
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "v1")
    edit(project, "rules_src/mini/chapters/play.md", "On your turn take", "On your turn you take")
    git(project, "commit", "-qam", "v2")


def test_editing_one_source_rule_makes_exactly_its_translation_stale(project: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "--root", str(project), "translations", "mini")
    assert (code, out.splitlines()[0]) == (0, "mini (fr): 7 current, 0 stale, 0 missing")
    _commit_then_edit_take(project)
    code, out = run(capsys, "--root", str(project), "translations", "mini", "--lang", "fr")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "mini (fr): 6 current, 1 stale, 0 missing"
    assert lines[1] == "  stale    rule 1.1 mini.play.take (Taking stones)  [rule:mini.play.take]"
    assert "source changes since: ## Taking stones {#mini.play.take} On your turn {+you+} take 1 to" in lines[3]
    code, out = run(capsys, "--root", str(project), "translations", "mini", "--json")
    record = json.loads(out)
    assert (code, list(record), record["book"]) == (1, ["book", "languages"], "mini")
    french = record["languages"]["fr"]
    assert (french["current"], french["stale"], french["missing"]) == (6, 1, 0)
    (item,) = french["items"]
    assert set(item) == {"lang", "key", "status", "label", "file", "line", "translation", "diff", "note"}
    assert (item["key"], item["status"], item["file"], item["line"]) == ("rule:mini.play.take", "stale",
                                                                         "rules_src/mini/chapters/play.md", 3)
    assert item["translation"] == f"{CHAPTER}:3" and "{+you+}" in item["diff"]
    code, out = run(capsys, "--root", str(project), "translations", "mini", "--mark", "rule:mini.play.take")
    assert (code, out) == (0, f"{SOURCES}: marked 1 item(s) as translated from today's source\n")
    assert run(capsys, "--root", str(project), "translations", "mini")[0] == 0


def test_an_uncommitted_source_edit_diffs_against_head(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "v1")
    edit(project, "rules_src/mini/glossary.yaml", "still to be taken", "left to take")
    code, out = run(capsys, "--root", str(project), "translations", "mini")
    assert code == 1 and "stale    glossary term 'Pile'  [glossary:Pile]" in out
    assert "source changes since: Pile The stones [-still-] {+left+} to [-be taken.-] {+take.+}" in out


def test_a_version_not_in_history_is_said_so(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(project, SOURCES, "rule:mini.play.win: 5dc1533f8843", "rule:mini.play.win: abcdefabcdef")
    code, out = run(capsys, "--root", str(project), "translations", "mini")
    assert code == 1 and "the source version abcdefabcdef was not found" in out


def test_mark_refuses_unknown_and_untranslated_items(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(project), "translations", "mini", "--mark", "rule:mini.play.tak"]) == 1
    assert "no item 'rule:mini.play.tak' in the source (did you mean 'rule:mini.play.take'?)" in \
        capsys.readouterr().err
    (project / SOURCES).write_text("{}\n", encoding="utf-8")
    (project / EXAMPLE).unlink()
    code, out = run(capsys, "--root", str(project), "translations", "mini")
    assert code == 1 and "0 current, 6 stale, 1 missing" in out
    assert main(["--root", str(project), "translations", "mini", "--mark", "example:mini-last-stone"]) == 1
    assert "'example:mini-last-stone' is not translated yet" in capsys.readouterr().err
    assert run(capsys, "--root", str(project), "translations", "mini", "--mark-all")[0] == 0
    code, out = run(capsys, "--root", str(project), "translations", "mini")
    assert code == 1 and "6 current, 0 stale, 1 missing" in out


def test_verify_warns_of_stale_items_and_strict_refuses(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(project, SOURCES, "rule:mini.play.win: 5dc1533f8843\n", "")
    code, out = run(capsys, "--root", str(project), "verify")
    assert code == 0
    assert f"WARN {SOURCES}: 1 translated item(s) with no recorded source version, so stale" in out
    code, out = run(capsys, "--root", str(project), "verify", "--strict")
    assert code == 1 and f"ERR  {SOURCES}: 1 translated item(s)" in out
    edit(project, CHAPTER, "du tas de {{ pile.start }}", "du tas de 12")
    code, out = run(capsys, "--root", str(project), "verify")
    assert code == 1 and "hard-coded number '12'" in out


# -- robustness ----------------------------------------------------------------------------------------------------

FILES = [CHAPTER, GLOSSARY, EXAMPLE, SOURCES, TERMS, "rules_src/mini/fr/book.yaml", "rules_src/mini/fr/questions.yaml"]
PIECES = ["{{ take.max }}", "{{ pile.start", "{% for i in range(3) %}", "## X {#mini.play.x}", "# Y {#mini.play}",
          "[[mini.play.win]]", "12", "- ", ": ", "\n", "  ", "source: ", "captions:", "{", "]", "'", "\u0000", "é",
          "term: T\n", "rule: mini.play.win", "&a [*a]", "!!python/object:os.system", "\t", "\xff"]
SECONDS = 5.0


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Book]:
    project = make_translated(tmp_path_factory.mktemp("translation-fuzz") / "project")
    return project, load_book(project, "mini")


def _loads_cleanly(project: Path, source: Book) -> None:
    start = time.monotonic()
    try:
        translate_examples(load_examples(source), load_translation(source, "fr"))
    except SourceError as error:
        for one in error.errors if isinstance(error, SourceErrors) else [error]:
            assert str(one) and str(one.file).startswith(("rules_src/mini/fr/", "examples/mini/fr/")), str(one)
    assert time.monotonic() - start < SECONDS


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(FILES), pieces=st.lists(st.sampled_from(PIECES), min_size=1, max_size=8),
       where=st.integers(0, 400), cut=st.integers(0, 40))
def test_damaged_translation_files_load_or_fail_cleanly(fuzzed: tuple[Path, Book], which: str, pieces: list[str],
                                                         where: int, cut: int) -> None:
    project, source = fuzzed
    path = project / which
    original = path.read_bytes()
    text = original.decode("utf-8")
    at = where % (len(text) + 1)
    path.write_text(text[:at] + "".join(pieces) + text[at + cut:], encoding="utf-8")
    try:
        _loads_cleanly(project, source)
    finally:
        path.write_bytes(original)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(FILES), data=st.binary(max_size=200))
def test_random_bytes_as_a_translation_file_fail_cleanly(fuzzed: tuple[Path, Book], which: str, data: bytes) -> None:
    project, source = fuzzed
    path = project / which
    original = path.read_bytes()
    path.write_bytes(data)
    try:
        _loads_cleanly(project, source)
    finally:
        path.write_bytes(original)


def test_the_fuzzed_loader_does_refuse_a_known_bad_input(fuzzed: tuple[Path, Book]) -> None:
    """The properties above would hold for a loader accepting everything: this one refuses."""
    project, source = fuzzed
    path = project / CHAPTER
    original = path.read_bytes()
    path.write_text(original.decode().replace("{{ take.max }}", "{{ 1 // 0 }}"), encoding="utf-8")
    try:
        with pytest.raises(SourceError) as caught:
            load_translation(source, "fr")
        assert f"{CHAPTER}:5: template error: ZeroDivisionError" in str(caught.value)
    finally:
        path.write_bytes(original)


def test_the_build_gate_refuses_stale_translations_only_when_strict(project: Path) -> None:
    edit(project, SOURCES, "rule:mini.play.win: 5dc1533f8843\n", "")
    report = gate(project, strict=False)
    assert any("1 translated item(s) with no recorded source version" in w for w in report.warnings)
    with pytest.raises(BuildRefused) as refused:
        gate(project, strict=True)
    assert any(p.startswith(f"{SOURCES}: 1 translated item(s)") for p in refused.value.problems)


def test_the_build_gate_lists_a_translation_error_once(project: Path) -> None:
    edit(project, CHAPTER, "du tas de {{ pile.start }}", "du tas de {{ pile.start }}, soit 12")
    with pytest.raises(BuildRefused) as refused:
        gate(project, strict=False)
    assert [p for p in refused.value.problems if "hard-coded number '12'" in p] == [
        f"{CHAPTER}:5: rule 1.1: hard-coded number '12' (the source does not write it: take it from the data with the "
        "source's {{ … }}) [rule mini.play.take]"]


def test_a_chapter_file_the_source_does_not_have_is_reported(project: Path) -> None:
    (project / "rules_src/mini/fr/chapters/jeu.md").write_text("# Jeu {#mini.play}\n", encoding="utf-8")
    assert problems(project) == ["rules_src/mini/fr/chapters/jeu.md: not a chapter of the source (a translated "
                                 "chapter has the source chapter's file name); the build would ignore it"]


def test_cover_texts_translate_entry_for_entry(project: Path) -> None:
    edit(project, "rules_src/mini/book.yaml", "chapters:", "cover:\n  blurb: Take stones.\n  components:\n"
                                                           "    - \"{{ pile.start }} stones\"\n    - a bag\nchapters:")
    fr = project / "rules_src/mini/fr/book.yaml"
    fr.write_text(fr.read_text(encoding="utf-8") + "cover:\n  components:\n    - \"{{ pile.rows }} pierres\"\n",
                  encoding="utf-8")
    assert problems(project) == [
        "rules_src/mini/fr/book.yaml:3: cover components: 1 entries, the source has 2 (translate each, in the same "
        "order)",
        "rules_src/mini/fr/book.yaml:4: cover components entry 1: the translation drops {{ pile.start }} of its "
        "source (numbers come from one place: keep every {{ … }} of the source)",
        "rules_src/mini/fr/book.yaml:4: cover components entry 1: the translation adds {{ pile.rows }}, which its "
        "source does not use"]
    fr.write_text(fr.read_text(encoding="utf-8").replace("pile.rows }} pierres\"\n", "pile.start }} pierres\"\n"
                                                         "    - un sac\n"), encoding="utf-8")
    book = load_translation(load_book(project, "mini"), "fr")
    assert book.data["cover"] == {"blurb": "Take stones.", "components": ["{{ pile.start }} pierres", "un sac"]}
    assert book.status["book:cover"] == "stale"  # translated, never marked


def test_a_changed_cover_alt_makes_the_translated_cover_stale(project: Path) -> None:
    """The artwork's alternative text is one of the cover's words: rewording it in the source makes the
    translation's cover stale until it is marked again."""
    edit(project, "rules_src/mini/book.yaml", "chapters:", "cover:\n  alt: A pile of stones\nchapters:")
    fr = project / "rules_src/mini/fr/book.yaml"
    fr.write_text(fr.read_text(encoding="utf-8") + "cover:\n  alt: Un tas de pierres\n", encoding="utf-8")
    assert main(["--root", str(project), "translations", "mini", "--lang", "fr", "--mark", "book:cover"]) == 0
    assert load_translation(load_book(project, "mini"), "fr").status["book:cover"] == "current"
    edit(project, "rules_src/mini/book.yaml", "alt: A pile of stones", "alt: Two piles of stones")
    assert load_translation(load_book(project, "mini"), "fr").status["book:cover"] == "stale"
