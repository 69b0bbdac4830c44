"""Every shape fault in a source is one clear SourceError with file, line and, where there is one, the rule;
a load reports all of a book's problems (up to a cap), not only the first."""

from __future__ import annotations

import glob
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.errors import SourceError
from rulepress.load import checks, confine, schema
from rulepress.load.book import book_ids, load_book
from rulepress.load.examples import load_example, load_examples
from rulepress.load.problems import MAX_PROBLEMS, SourceErrors
from rulepress.load.yamlsrc import MAX_DEPTH, MAX_NODES, load_yaml, parse_yaml
from rulepress.verify.gate import verify

from .conftest import ROOT

BOOK = "rules_src/mini/book.yaml"
GLOSSARY = "rules_src/mini/glossary.yaml"
QUESTIONS = "rules_src/mini/questions.yaml"
CHANGELOG = "rules_src/mini/changelog.yaml"
PROSE = "rules_src/mini/prose_only.yaml"
COMPONENTS = "rules_src/mini/components.yaml"
EXAMPLE = "examples/mini/mini-last-stone.yaml"

Problem = tuple[str, int | None, str, str | None]


def _edit(project: Path, name: str, old: str, new: str) -> None:
    path = project / name
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def _problems(error: SourceError) -> list[Problem]:
    return [(str(e.file), e.line, e.message, e.rule) for e in getattr(error, "errors", [error])]


def _book_problems(project: Path) -> list[Problem]:
    with pytest.raises(SourceError) as caught:
        load_book(project, "mini")
    return _problems(caught.value)


def _example_problems(project: Path) -> list[Problem]:
    book = load_book(project, "mini")
    with pytest.raises(SourceError) as caught:
        load_examples(book)
    return _problems(caught.value)


# --- every real source passes its schema -------------------------------------------------------------------

def _prefix(book_folder: Path) -> str:
    return load_yaml(book_folder / "book.yaml", root=ROOT)["rule_prefix"]


SCHEMAS = ("book", "components", "glossary", "questions", "changelog", "prose_only")
BOOK_SOURCES = sorted(p for p in glob.glob(str(ROOT / "rules_src/*/*.yaml")) if Path(p).stem in SCHEMAS)


@pytest.mark.parametrize("path", BOOK_SOURCES, ids=lambda p: p[-40:])
def test_every_bundled_book_file_passes_its_schema(path: str) -> None:
    source = Path(path)
    data = load_yaml(source, root=ROOT)
    assert schema.validate(data, source.stem, path, _prefix(source.parent)) == []


@pytest.mark.parametrize("path", sorted(glob.glob(str(ROOT / "examples/*/*.yaml"))), ids=lambda p: Path(p).stem)
def test_every_bundled_example_passes_its_schema(path: str) -> None:
    source = Path(path)
    prefix = _prefix(ROOT / "rules_src" / source.parent.name)
    assert schema.validate(load_yaml(source, root=ROOT), "example", path, prefix) == []


# --- book.yaml -----------------------------------------------------------------------------------------------

def test_key_typos_in_book_yaml_are_all_reported_with_a_suggestion(mini: Path) -> None:
    _edit(mini, BOOK, "trim: A6", "trimm: A4\nsubtitel: Rules")
    assert _book_problems(mini) == [
        (BOOK, 7, "unknown key 'trimm' (did you mean 'trim'?)", None),
        (BOOK, 8, "unknown key 'subtitel' (did you mean 'subtitle'?)", None),
    ]


def test_size_without_a_unit(mini: Path) -> None:
    _edit(mini, BOOK, "trim: A6", "trim: {width: banana, height: 148mm}")
    assert _book_problems(mini) == [
        (BOOK, 7, "'trim.width' must be a size with a unit (mm, cm, in or pt), e.g. 148mm, not 'banana'", None)]


def test_unknown_trim_name(mini: Path) -> None:
    _edit(mini, BOOK, "trim: A6", "trim: A3")
    assert _book_problems(mini) == [(BOOK, 7, "'trim' must be one of A4, A5, A6, not 'A3'", None)]


def test_word_where_a_number_is_expected(mini: Path) -> None:
    _edit(mini, BOOK, "players: {min: 2, max: 2}", "players:\n  min: two\n  max: 2")
    assert _book_problems(mini) == [(BOOK, 5, "'players.min' must be a whole number, not 'two'", None)]


def test_missing_required_key(mini: Path) -> None:
    _edit(mini, BOOK, "engine: mini\n", "")
    assert _book_problems(mini) == [(BOOK, 1, "missing key 'engine'", None)]


def test_book_yaml_that_is_not_a_mapping(mini: Path) -> None:
    (mini / BOOK).write_text("- id: mini\n")
    assert _book_problems(mini) == [
        (BOOK, 1, "the file must be a mapping of book data (id, title, edition, players, engine, rule_prefix, "
                  "chapters, ...), not a list", None)]


def test_unlisted_chapter_is_an_orphan(mini: Path) -> None:
    (mini / "rules_src/mini/chapters/extra.md").write_text("# Extra {#mini.extra}\n")
    assert _book_problems(mini) == [
        (BOOK, 10, "chapter file 'rules_src/mini/chapters/extra.md' is not listed under 'chapters' (the build "
                  "would ignore it: list it or delete it)", None)]


def test_misspelt_book_file_is_an_orphan(mini: Path) -> None:
    (mini / "rules_src/mini/glosary.yaml").write_text("[]\n")
    assert _book_problems(mini) == [
        ("rules_src/mini/glosary.yaml", None, "unknown file in the book folder (did you mean 'glossary.yaml'?); "
                                              "the build would ignore it", None)]


def test_missing_chapter_file(mini: Path) -> None:
    _edit(mini, BOOK, "chapters: [play.md]", "chapters: [play.md, rules.md]")
    assert _book_problems(mini) == [(BOOK, 10, "chapter file 'rules.md': file not found", None)]


# --- glossary, questions, change log, prose-only, components ---------------------------------------------------

def test_glossary_faults_are_all_reported(mini: Path) -> None:
    _edit(mini, GLOSSARY, "  rule: mini.play.take", "  rule: [mini.play.take]\n  alias: [Piles]\n  aliases: Piles")
    assert _book_problems(mini) == [
        (GLOSSARY, 3, "'rule' of entry 1 must be one rule ID of this book (mini.chapter.rule), not a list", None),
        (GLOSSARY, 4, "unknown key 'alias' in entry 1 (did you mean 'aliases'?)", None),
        (GLOSSARY, 5, "'aliases' of entry 1 must be a list of phrases, e.g. [Dusk cards], not 'Piles'", None),
    ]


def test_glossary_rule_id_with_the_wrong_prefix_names_the_rule(mini: Path) -> None:
    _edit(mini, GLOSSARY, "  rule: mini.play.take", "  rule: lm.play.take")
    assert _book_problems(mini) == [
        (GLOSSARY, 3, "'rule' of entry 1 must be one rule ID of this book (mini.chapter.rule), not 'lm.play.take'",
         "lm.play.take")]


def test_duplicate_glossary_term(mini: Path) -> None:
    _edit(mini, GLOSSARY, "- term: Pile", "- term: Pile\n  definition: All the stones.\n  rule: mini.play.take\n"
                                          "- term: pile")
    assert _book_problems(mini) == [(GLOSSARY, 4, "glossary term 'pile' appears twice (first at line 1)", None)]


def test_glossary_names_an_unknown_rule(mini: Path) -> None:
    _edit(mini, GLOSSARY, "  rule: mini.play.take", "  rule: mini.play.took")
    assert _book_problems(mini) == [
        (GLOSSARY, 3, "glossary term 'Pile' names unknown rule ID 'mini.play.took' (did you mean 'mini.play.take'?)",
         "mini.play.took")]


def test_a_rule_id_with_a_near_one_gets_a_did_you_mean_where_no_near_one_gets_none(mini: Path) -> None:
    """One helper (protocol.closest_rule) says "did you mean" wherever a rule ID is written: a cross-reference, a
    question's rules and its tracks.  'mini.play.steal' is near no rule: no guess, whatever IDs share its prefix."""
    _edit(mini, "rules_src/mini/chapters/play.md", "[[mini.play.take]]", "[[mini.play.tkae]]")
    _edit(mini, QUESTIONS, "  rules: [mini.play.win]",
          "  rules: [mini.play.wim, mini.play.steal]\n"
          "  tracks: [rule:mini.play.tkae, word:pile, outcome:mini.pley.win]")
    assert _book_problems(mini) == [
        ("rules_src/mini/chapters/play.md", 9, "cross-reference to unknown rule ID 'mini.play.tkae' (did you mean "
                                               "'mini.play.take'?)", "mini.play.win"),
        (QUESTIONS, 3, "question mini.q1 names unknown rule ID 'mini.play.wim' (did you mean 'mini.play.win'?)",
         "mini.play.wim"),
        (QUESTIONS, 3, "question mini.q1 names unknown rule ID 'mini.play.steal'", "mini.play.steal"),
        (QUESTIONS, 4, "question mini.q1's track 'rule:mini.play.tkae' names unknown rule ID 'mini.play.tkae' (did you "
                       "mean 'mini.play.take'?)", "mini.play.tkae"),
        (QUESTIONS, 4, "question mini.q1's track 'outcome:mini.pley.win' names unknown rule ID 'mini.pley.win' (did "
                       "you mean 'mini.play.win'?)", "mini.pley.win"),
    ]


def test_question_key_typo_and_unquoted_yes(mini: Path) -> None:
    _edit(mini, QUESTIONS, "  option: last_stone", "  optoin: last_stone")
    _edit(mini, QUESTIONS, "assumed: win", "assumed: yes")
    assert _book_problems(mini) == [
        (QUESTIONS, 5, "'assumed' of entry 1 must be an answer name as text (quote yes/no: unquoted they read as "
                       "true/false), not true", None),
        (QUESTIONS, 7, "unknown key 'optoin' in entry 1 (did you mean 'option'?)", None),
    ]


def test_question_status_and_assumed_answer(mini: Path) -> None:
    _edit(mini, QUESTIONS, "status: open", "status: closed")
    assert _book_problems(mini) == [
        (QUESTIONS, 6, "'status' of entry 1 must be one of open, answered, dropped, not 'closed'", None)]
    _edit(mini, QUESTIONS, "status: closed", "status: open")
    _edit(mini, QUESTIONS, "assumed: win", "assumed: draw")
    assert _book_problems(mini) == [
        (QUESTIONS, 5, "question mini.q1: assumed answer 'draw' is not one of ['lose', 'win']", None)]


def test_changelog_rules_given_as_a_string(mini: Path) -> None:
    _edit(mini, CHANGELOG, "rules: [mini.play.take]", "rules: mini.play.take")
    assert _book_problems(mini) == [
        (CHANGELOG, 4, "'entries[1].rules' of entry 1 must be a list of rule IDs, e.g. [mini.turn], not "
                       "'mini.play.take'", None)]


def test_prose_only_needs_a_reason(mini: Path) -> None:
    (mini / PROSE).write_text("mini.play.take:\n")
    assert _book_problems(mini) == [
        (PROSE, 1, "'mini.play.take' must be the reason no engine code enforces the rule, not empty", None)]


def test_components_shadowing_book_and_reconstructed_without_question(mini: Path) -> None:
    _edit(mini, COMPONENTS, "take: {max: 3}", "take: {max: 3, reconstructed: true}\nbook: 1")
    assert _book_problems(mini) == [
        (COMPONENTS, 2, "missing key 'question' in 'take'", None),
        (COMPONENTS, 3, "key 'book' must be a template variable name (letters, digits and '_'; not 'book', which "
                        "names book.yaml)", None),
    ]


def test_a_component_number_that_is_not_finite_is_refused_at_its_line(mini: Path) -> None:
    """NaN passes a minimum and a maximum (every comparison with it is false): the data must be finite."""
    _edit(mini, COMPONENTS, "take: {max: 3}", "take: {max: .nan}\nstones: [1, -.inf]")
    problems = _book_problems(mini)
    assert [(file, line, message.split(", not ")[0]) for file, line, message, _ in problems] == [
        (COMPONENTS, 2, "'take.max' must be a finite number (not .nan or .inf)"),
        (COMPONENTS, 3, "'stones[2]' must be a finite number (not .nan or .inf)"),
        (COMPONENTS, 3, "'stones[2]' must be at least -1000000")]


def test_problems_across_files_are_reported_together(mini: Path) -> None:
    _edit(mini, BOOK, "trim: A6", "trimm: A6")
    _edit(mini, GLOSSARY, "  rule: mini.play.take", "  rule: mini.play.took")
    (mini / "rules_src/mini/chapters/extra.md").write_text("# Extra {#mini.extra}\n")
    with pytest.raises(SourceErrors) as caught:
        load_book(mini, "mini")
    assert [(file, line) for file, line, _, _ in _problems(caught.value)] == [(BOOK, 7), (BOOK, 10), (GLOSSARY, 3)]
    assert str(caught.value).splitlines()[0] == f"{BOOK}:7:1: unknown key 'trimm' (did you mean 'trim'?)"


def test_problems_are_capped(mini: Path) -> None:
    entries = "".join(f"- term: T{n}\n  definition: d\n  rule: mini.play.took\n" for n in range(MAX_PROBLEMS + 7))
    (mini / GLOSSARY).write_text(entries)
    with pytest.raises(SourceErrors) as caught:
        load_book(mini, "mini")
    assert len(caught.value.errors) == MAX_PROBLEMS and caught.value.more == 7
    assert caught.value.lines()[-1] == "... and 7 more problem(s) not shown"


def test_verify_lists_every_source_problem_on_its_own_line(mini: Path) -> None:
    _edit(mini, BOOK, "trim: A6", "trimm: A6\nsubtitel: Rules")
    assert verify(mini).problems == [f"{BOOK}:7:1: unknown key 'trimm' (did you mean 'trim'?)",
                                     f"{BOOK}:8:1: unknown key 'subtitel' (did you mean 'subtitle'?)"]


def test_order_that_is_not_a_number(mini: Path) -> None:
    _edit(mini, BOOK, "trim: A6", "trim: A6\norder: first")
    assert book_ids(mini) == ["mini"]  # sorting the books must not fail before the schema can say why
    assert _book_problems(mini) == [(BOOK, 8, "'order' must be a whole number, not 'first'", None)]


def test_option_values_naming_no_answer(mini: Path) -> None:
    _edit(mini, QUESTIONS, "  option: last_stone", "  option: last_stone\n  option_values: {win: true, los: false}")
    assert _book_problems(mini) == [
        (QUESTIONS, 8, "question mini.q1: option_values names 'los', which is not one of its answers "
                       "['lose', 'win']", None)]


def test_duplicate_question_id(mini: Path) -> None:
    text = (mini / QUESTIONS).read_text()
    (mini / QUESTIONS).write_text(text + text.replace("assumed: win", "assumed: lose"))
    assert _book_problems(mini) == [(QUESTIONS, 9, "designer question 'mini.q1' appears twice (first at line 1)",
                                     None)]


# --- component arithmetic ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("expr", "message"), [
    ("pile.start // 0 == 1", "cannot evaluate: division by zero"),
    ("pile.start % (pile.rows - 3) == 1", "cannot evaluate: division by zero"),
    ("len(pile) == pile.x[3]", "no field 'x' in pile"),
    ("pile.start == 10**10**10", "'10 ** 10 ** 10' is not allowed in a check"),
    ("pile.start * pile.start * 10000000000000000000000000000 > 1",
     "a value passes 1e+30; no component count is that large"),
    ("min([]) == 0", "cannot evaluate: min() arg is an empty sequence"),
    ("len(pile.start) == 1", "cannot evaluate: object of type 'int' has no len()"),
    ("'ab' * 1000000000 == 1", "arithmetic needs numbers, not 'ab'"),
    ("-" * 60 + "1 == 1", "the expression nests 62 levels deep, more than 50"),
    ("(" * 300 + "1" + ")" * 300 + " == 1", "the expression is 606 characters long, more than 500"),
    ("pile.start ==", "cannot parse 'pile.start ==': invalid syntax"),
])
def test_bad_component_check_is_a_clean_error(mini: Path, expr: str, message: str) -> None:
    _edit(mini, BOOK, "- expr: pile.start == pile.rows * pile.per_row", f"- expr: \"{expr}\"")
    assert _book_problems(mini) == [(BOOK, 12, f"check '{expr}': {message}", None)]


def test_checks_evaluate_never_raises_anything_else() -> None:
    data = {"a": {"b": [1, 2, 3]}, "z": 0}
    for expr in ("a.b[9]", "a.b < 1", "max(a.b, key=len)", "a.b[0:2]", "sum(a)", "z.q", "\x00"):
        with pytest.raises(checks.CheckError):
            checks.evaluate(expr, data)


# --- examples ---------------------------------------------------------------------------------------------------

def test_example_faults_are_all_reported(mini: Path) -> None:
    _edit(mini, EXAMPLE, "title:", "seed: seven\ntitle:")
    _edit(mini, EXAMPLE, "  - checkpoint: end", "  - checkpoint: end\n    expekt: {pile: 0}")
    assert _example_problems(mini) == [
        (EXAMPLE, 2, "'seed' must be a whole number from 0 to 18446744073709551615 (2**64 - 1), not 'seven'", None),
        (EXAMPLE, 13, "unknown key 'expekt' in 'steps[4]' (did you mean 'expect'?)", None),
    ]


def test_step_with_two_kinds(mini: Path) -> None:
    _edit(mini, EXAMPLE, "  - checkpoint: end", "  - checkpoint: end\n    do: take")
    assert _example_problems(mini) == [
        (EXAMPLE, 11, "'steps[4]' needs exactly one of 'do' (an action), 'checkpoint' or 'chance'", None),
        (EXAMPLE, 12, "unknown key 'do' in 'steps[4]' (known keys: checkpoint, expect, events, diagram, note)",
         None),
    ]


def test_start_with_setup_and_state(mini: Path) -> None:
    _edit(mini, EXAMPLE, "  state: {pile: 4}", "  state: {pile: 4}\n  setup: true")
    assert _example_problems(mini) == [
        (EXAMPLE, 6, "'start' needs exactly one of 'setup: true' or 'state: {...}'", None)]


def test_example_id_must_match_its_file_name(mini: Path) -> None:
    _edit(mini, EXAMPLE, "id: mini-last-stone", "id: mini-last")
    assert _example_problems(mini) == [
        (EXAMPLE, 1, "example ID 'mini-last' differs from its file name 'mini-last-stone.yaml' (name the file "
                     "<id>.yaml)", None)]


def test_unknown_rule_in_illegal_step(mini: Path) -> None:
    _edit(mini, EXAMPLE, "illegal: mini.play.take", "illegal: mini.play.took")
    assert _example_problems(mini) == [
        (EXAMPLE, 8, "step 1 expects a rejection by unknown rule ID 'mini.play.took' (did you mean 'mini.play.take'?)",
         "mini.play.took")]


def test_refused_start_with_steps_and_an_unknown_rule(mini: Path) -> None:
    _edit(mini, EXAMPLE, "  state: {pile: 4}", "  state: {pile: 4}\n  refused: mini.play.took")
    assert _example_problems(mini) == [
        (EXAMPLE, 1, "an example whose start is refused has no steps (remove 'steps')", None)]
    text = (mini / EXAMPLE).read_text()
    (mini / EXAMPLE).write_text(text[:text.index("steps:")])
    assert _example_problems(mini) == [
        (EXAMPLE, 7, "'refused' names unknown rule ID 'mini.play.took' (did you mean 'mini.play.take'?)",
         "mini.play.took")]


def test_an_expected_events_rule_must_be_a_rule_of_the_book(mini: Path) -> None:
    _edit(mini, EXAMPLE, "      - {kind: win, player: Ben}", "      - {kind: win, rule: mini.play.winn}\n"
                                                             "      - any_order:\n"
                                                             "          - {kind: take, rule: mini.play.take}\n"
                                                             "          - {kind: take, rule: mini.play.tak}")
    assert _example_problems(mini) == [
        (EXAMPLE, 14, "checkpoint 'end': an expected event names unknown rule ID 'mini.play.winn' (did you mean "
                      "'mini.play.win'?)", "mini.play.winn"),
        (EXAMPLE, 17, "checkpoint 'end': an expected event names unknown rule ID 'mini.play.tak' (did you mean "
                      "'mini.play.take'?)", "mini.play.tak"),
    ]


@pytest.mark.parametrize(("events", "problems"), [
    ("      - any_order: [{kind: win}]\n", []),
    ("      - any_order: []\n", [(14, "'steps[4].events[1].any_order' must not be empty")]),
    ("      - {any_order: [{kind: win}], kind: take}\n",
     [(14, "unknown key 'kind' in 'steps[4].events[1]' (known keys: any_order)")]),
    ("      - any_order:\n          - any_order: [{kind: win}]\n",
     [(15, "'steps[4].events[1].any_order[1]' is a group inside a group: list its events in the outer any_order")]),
    ("      - any_order: [win]\n",
     [(14, "'steps[4].events[1].any_order[1]' must be an event mapping, e.g. {kind: capture, tile: b2}, not 'win'")]),
    ("    events: {any_order: [{kind: win}]}\n",
     [(13, "'steps[4].events' must be a list of events, e.g. [{kind: light, player: Ann}] (a group in any order: "
           "{any_order: [...]}), not a mapping")]),
])
def test_an_any_order_group_is_a_list_of_events(mini: Path, events: str, problems: list[tuple[int, str]]) -> None:
    old = "    events:\n      - {kind: win, player: Ben}\n"
    _edit(mini, EXAMPLE, old, events if events.startswith("    events") else "    events:\n" + events)
    if not problems:
        assert load_examples(load_book(mini, "mini"))
        return
    assert _example_problems(mini) == [(EXAMPLE, line, message, None) for line, message in problems]


def test_checkpoint_named_twice(mini: Path) -> None:
    _edit(mini, EXAMPLE, "  - checkpoint: end", "  - checkpoint: end\n  - checkpoint: end")
    assert _example_problems(mini) == [(EXAMPLE, 12, "checkpoint 'end' appears twice (first at line 11)", None)]


def test_problems_of_several_examples_are_reported_together(mini: Path) -> None:
    other = mini / "examples/mini/mini-other.yaml"
    other.write_text((mini / EXAMPLE).read_text().replace("id: mini-last-stone", "id: mini-other")
                     .replace("players: [Ann, Ben]", "players: Ann"))
    _edit(mini, EXAMPLE, "title:", "seed: 1.5\ntitle:")
    assert _example_problems(mini) == [
        (EXAMPLE, 2, "'seed' must be a whole number from 0 to 18446744073709551615 (2**64 - 1), not the number 1.5",
         None),
        ("examples/mini/mini-other.yaml", 4, "'players' must be a list of player names, e.g. [Ann, Ben], not 'Ann'",
         None),
    ]


def test_other_files_among_examples(mini: Path) -> None:
    (mini / "examples/mini/notes.txt").write_text("todo\n")
    assert _example_problems(mini) == [
        ("examples/mini/notes.txt", None, "not an example (examples are <id>.yaml files); the build would ignore it",
         None)]


def test_example_saved_as_yml(mini: Path) -> None:
    (mini / "examples/mini/mini-other.yml").write_text((mini / EXAMPLE).read_text())
    assert _example_problems(mini) == [
        ("examples/mini/mini-other.yml", None, "examples end in .yaml: rename it to 'mini-other.yaml' (the build "
                                               "would ignore it)", None)]


def test_examples_folder_for_a_book_that_does_not_exist(mini: Path) -> None:
    (mini / "examples/mimi").mkdir()
    problems = verify(mini).problems
    assert problems[0] == ("examples/mimi: examples folder for a book that does not exist: no "
                           "rules_src/mimi/book.yaml (did you mean 'mini'?)")


# --- YAML limits -------------------------------------------------------------------------------------------------

def _bomb(levels: int) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for n in range(1, levels):
        refs = ", ".join([f"*a{n - 1}"] * 9)
        lines.append(f"a{n}: &a{n} [{refs}]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused(mini: Path) -> None:
    (mini / COMPONENTS).write_text(_bomb(9))
    assert _book_problems(mini) == [
        (COMPONENTS, 6, f"malformed YAML: more than {MAX_NODES} values once aliases are expanded (an alias "
                        "bomb?)", None)]


def test_deep_nesting_is_refused(mini: Path) -> None:
    (mini / COMPONENTS).write_text("x: " + "[" * 10_000 + "]" * 10_000 + "\n")
    assert _book_problems(mini) == [
        (COMPONENTS, 1, f"malformed YAML: nesting deeper than {MAX_DEPTH} levels", None)]


def test_alias_loop_is_refused() -> None:
    with pytest.raises(SourceError) as caught:
        parse_yaml("a: &x [1, *x]\n", "loop.yaml")
    assert (caught.value.line, caught.value.column, caught.value.message) == (
        1, 4, "malformed YAML: an alias refers to a value that contains it")
    assert str(caught.value) == "loop.yaml:1:4: malformed YAML: an alias refers to a value that contains it"


def test_number_too_long_to_read() -> None:
    with pytest.raises(SourceError) as caught:
        parse_yaml("a: 1\nb: " + "9" * 5000 + "\n", "big.yaml")
    assert caught.value.line == 2 and caught.value.message.startswith("malformed YAML: cannot read this value: ")


@settings(max_examples=300, deadline=1000)
@given(st.binary(max_size=300))
def test_yaml_loader_on_arbitrary_bytes(data: bytes) -> None:
    try:
        parse_yaml(confine.decode(data, "any.yaml"), "any.yaml")
    except SourceError as error:
        assert error.file == "any.yaml"


# --- fuzzing: damage a valid file; the load ends in success or a SourceError, never anything else -----------------

DAMAGE = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10_000), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.integers(0, 10_000), st.just(0)),
    st.tuples(st.just("insert"), st.integers(0, 10_000), st.sampled_from(range(8))),
)
INSERTS = [b"- x\n", b"  a: &a [*a]\n", b"x: [[[\n", b"trimm: A5\n", b"\xff\xfe\n", b"  - {do: 1}\n", b"? [a]\n: 1\n",
           b"rule: [mini.play.take]\n"]


def _damage(data: bytes, how: tuple[str, int, int]) -> bytes:
    kind, where, what = how
    where = where % (len(data) + 1)
    if kind == "flip":
        if not data:
            return data
        where = min(where, len(data) - 1)
        return data[:where] + bytes([data[where] ^ what]) + data[where + 1:]
    if kind == "cut":
        return data[:where]
    line_start = data.rfind(b"\n", 0, where) + 1
    return data[:line_start] + INSERTS[what] + data[line_start:]


@pytest.fixture(scope="module")
def fuzz_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from .conftest import make_project
    return make_project(tmp_path_factory.mktemp("fuzz") / "project")


@pytest.mark.parametrize("name", [BOOK, GLOSSARY, QUESTIONS, COMPONENTS, CHANGELOG, EXAMPLE])
@settings(max_examples=50, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=st.lists(DAMAGE, min_size=1, max_size=3))
def test_damaged_sources_load_or_fail_cleanly(fuzz_project: Path, name: str, how: list[tuple[str, int, int]]) -> None:
    path = fuzz_project / name
    original = path.read_bytes()
    data = original
    for step in how:
        data = _damage(data, step)
    path.write_bytes(data)
    try:
        book = load_book(fuzz_project, "mini")
        load_examples(book)
        if name == EXAMPLE:
            load_example(path, book)
    except SourceError as error:
        assert str(error)  # renders; any other exception fails the test
    finally:
        path.write_bytes(original)


def _patterns(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
        return found + [p for value in node.values() for p in _patterns(value)] + [
            key for key in node.get("patternProperties", {})]
    if isinstance(node, list):
        return [p for value in node for p in _patterns(value)]
    return []


def test_no_schema_pattern_lets_a_final_newline_through() -> None:
    """jsonschema searches a pattern with Python's re, where "$" also matches before a final newline: every
    anchored pattern ends in \\Z instead (issue 21), and the ID formats are matched whole."""
    names = [Path(path).stem for path in glob.glob(str(ROOT / "rulepress/load/schemas/*.yaml"))]
    patterns = [(name, pattern) for name in names for pattern in _patterns(schema.load_schema(name))]
    assert patterns and [p for p in patterns if p[1].endswith("$") or "$|" in p[1]] == []
    checker = schema._format_checker("mini")
    for fmt, good in (("rule-id", "mini.play"), ("question-id", "mini.q1"), ("example-id", "mini-x"),
                      ("size", "148mm")):
        assert checker.conforms(good, fmt) and not checker.conforms(good + "\n", fmt), fmt


@pytest.mark.parametrize(("step", "calls", "message"), [
    ({"player": "Ann", "do": "take"}, [], None),
    ({"checkpoint": "the end", "expect": {"over": True}}, [], None),
    ({"player": "Ann"}, ["anyOf"], "'steps[1]' needs exactly one of 'do' (an action), 'checkpoint' or 'chance'"),
    ({"player": "Ann", "do": "take", "checkpoint": "the end"}, ["not"],
     "'steps[1]' needs exactly one of 'do' (an action), 'checkpoint' or 'chance'"),
])
def test_which_keys_a_step_has_is_decided_at_once_and_told_by_json_schema(
        step: dict, calls: list[str], message: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """'Exactly one of' (an anyOf of required keys, and a not of pairs) is decided by looking at the keys; JSON
    Schema's own keyword runs only where it makes the error, whose message is the schema's."""
    ran: list[str] = []
    for name in ("_ANY_OF", "_NOT"):
        real = getattr(schema, name)

        def counted(*args: object, _real: object = real, _name: str = name) -> object:
            ran.append("anyOf" if _name == "_ANY_OF" else "not")
            return _real(*args)  # type: ignore[operator]

        monkeypatch.setattr(schema, name, counted)
    data = parse_yaml("id: x\nsteps:\n  - placeholder\n", "x.yaml")
    data["steps"][0] = step
    problems = [problem.message for problem in schema.validate_with(data, schema.load_schema("example"), "x.yaml")
                if "steps[1]" in problem.message]
    assert sorted(set(ran)) == calls
    assert (message in problems) if message else problems == []


@pytest.mark.parametrize("name", sorted(path.stem for path in (ROOT / "rulepress/load/schemas").glob("*.yaml")))
def test_every_shipped_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    from jsonschema import Draft202012Validator

    from rulepress.load.yamlsrc import parse_yaml, plain

    text = (ROOT / "rulepress/load/schemas" / f"{name}.yaml").read_text(encoding="utf-8")
    Draft202012Validator.check_schema(plain(parse_yaml(text, f"rulepress/load/schemas/{name}.yaml")))
    schema.load_schema(name)  # and it loads
