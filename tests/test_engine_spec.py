"""One declared engine contract (issue 29 A): ``ENGINE = EngineSpec(...)``, checked as it loads, and the names an
engine uses checked as they are used (issue 32 A).

Each refusal is pinned whole (file, line, words) on a hand-made fault of the mini fixture, with its passing twin:
the fixture as it is loads, verifies, and every bundled engine and sample declares what its game is.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from rulepress.protocol import (
    OLD_EXPORTS,
    REQUIRED_FIELDS,
    SPEC_FIELDS,
    ChanceMode,
    EngineSpec,
    EngineSpecError,
    Event,
    Information,
    RuleViolation,
    UndeclaredName,
    Utility,
    decided,
)
from rulepress.verify.engines import forget_engine, load_engine
from rulepress.verify.gate import load_checked_book, verify

from .conftest import ROOT, make_project

INIT = "engine/mini/__init__.py"
GUIDE = ROOT / "rulepress" / "guides" / "engine.md"
PACKAGE = '(rulepress guide engine, "The package")'


def _edit(project: Path, old: str, new: str) -> int:
    """Replace ``old`` in mini's engine; returns the line ``new`` starts at."""
    path = project / INIT
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    return text[:text.index(old)].count("\n") + 1


def _line(project: Path, text: str) -> int:
    return (project / INIT).read_text(encoding="utf-8").splitlines().index(text) + 1


# --- the guide's table is the spec's fields --------------------------------------------------------------------

def test_the_engine_guide_lists_exactly_the_fields_in_order() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    listing = text[text.index("- `book_id` (required)"):]  # one item a field: "- `name` (required): what it is"
    listing = listing[:listing.index("\n\n")]
    items = re.findall(r"^- (.+?) \((required|optional)[^)]*\):", listing, re.M)
    rows = [re.findall(r"`([a-z_]+)`", names) + ["yes" if kind == "required" else "no"] for names, kind in items]
    listed = [name for *names, _ in rows for name in names]
    assert listed == list(SPEC_FIELDS)
    assert [name for *names, required in rows for name in names if required == "yes"] == list(REQUIRED_FIELDS)


def test_every_old_export_names_a_field() -> None:
    assert set(OLD_EXPORTS.values()) <= set(SPEC_FIELDS)


# --- the spec refuses what it cannot be, at the field's line ----------------------------------------------------

@pytest.mark.parametrize(("old", "new", "message"), [
    ("    options=OPTIONS,\n", "    optoins=OPTIONS,\n", "EngineSpec has no field 'optoins' (did you mean 'options'?)"),
    ("    options=OPTIONS,\n", "    OPTIONS=OPTIONS,\n", "EngineSpec has no field 'OPTIONS' (did you mean 'options'? "
                                                         "OPTIONS was a loose export before EngineSpec)"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    IMPACT_POLICY='greedy',\n",
     "EngineSpec has no field 'IMPACT_POLICY' (did you mean 'default_policy'? IMPACT_POLICY was a loose export "
     "before EngineSpec)"),
    ("    min_num_players=2,\n", '    min_num_players="2",\n',
     "EngineSpec.min_num_players must be a whole number of players, at least 1, not str '2'"),
    ("    max_num_players=2,\n", "    max_num_players=1,\n",
     "EngineSpec.max_num_players (1) is under min_num_players (2)"),
    ('    chance_mode="deterministic",\n', '    chance_mode="determinstic",\n',
     "EngineSpec.chance_mode must be one of deterministic, explicit_stochastic, sampled_stochastic, not "
     "'determinstic' (did you mean 'deterministic'?)"),
    ('    information="perfect_information",\n', '    information="perfect",\n',
     "EngineSpec.information must be one of perfect_information, imperfect_information, not 'perfect' (did you "
     "mean 'perfect_information'?)"),
    ('    utility="zero_sum",\n', '    utility="solo",\n',
     "EngineSpec.utility 'solo' is for a game of one player, not of 2 to 2"),
    ("    options=OPTIONS,\n", "    options=[OPTIONS],\n",
     "EngineSpec.options must be a tuple of OptionSpec, not list [(OptionSpec(name='last_stone', default='win', "
     "choices=('..."),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    policies={'greedy': 'take two'},\n",
     "EngineSpec.policies['greedy'] must be a policy(game, state, rng) -> action"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    default_policy='greedy',\n",
     "EngineSpec.default_policy 'greedy' is not one of the policies (none declared)"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    bench_configs={'draw': {'last_stone': 'draw'}},\n",
     "EngineSpec.bench_configs['draw'] option last_stone cannot be 'draw' (choices: 'win', 'lose')"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    answer_bundles=('misere',),\n",
     "EngineSpec.answer_bundles names 'misere', which bench_configs do not have (default)"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    palette={'stone': (0, 0, 55)},\n",
     "EngineSpec.palette['stone'] must be four CMYK percentages (0-100)"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    notation={'pile': '(\\\\d'},\n",
     "EngineSpec.notation['pile'] is not a regular expression: missing ), unterminated subpattern at position 0"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    narration=print,\n",
     "EngineSpec.narration must be a module with narrate_action(game, state, action) and narrate_state(game, "
     "snapshot), not builtin_function_or_method <built-in function print>"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    inventory={'stone': [1]},\n",
     "EngineSpec.inventory must be a function or None, not dict {'stone': [1]}"),
    ("    book_id=BOOK_ID,\n", '    book_id="",\n', "EngineSpec.book_id must be a non-empty string, not str ''"),
    ("    make_game=make_game,\n", '    make_game="make_game",\n',
     "EngineSpec.make_game must be a function, not str 'make_game'"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    end_rules='mini.play.win',\n",
     "EngineSpec.end_rules must be a tuple of str, not str 'mini.play.win'"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    bench_extra=['solver: fast'],\n",
     "EngineSpec.bench_extra must be a function or None, not list ['solver: fast']"),
    ("    state_schema=STATE_SCHEMA,\n", "    state_schema='pile',\n",
     "EngineSpec.state_schema must be a mapping (a JSON Schema) or None, not str 'pile'"),
    ("    options=OPTIONS,\n", "    options=OPTIONS,\n    decisions=(OPTIONS[0],),\n",
     "EngineSpec.decisions must be a tuple of Decision or None, not tuple (OptionSpec(name='last_stone', "
     "default='win', choices=('w..."),
    ("    action_schema=ACTION_SCHEMA,\n", "    action_schema=[ACTION_SCHEMA],\n",
     "EngineSpec.action_schema must be a mapping (a JSON Schema) or None, not list [{'take': {'properties': "
     "{'stones': {'type': 'integer', '..."),
])
def test_a_wrong_field_is_refused_at_its_line(mini: Path, old: str, new: str, message: str) -> None:
    line = _edit(mini, old, new) + new.count("\n") - 1  # the field is the last line written
    assert verify(mini, draw=False).problems == [f"{INIT}:{line}: engine 'mini': {message} {PACKAGE}"]


def test_a_missing_field_is_refused_at_the_declaration(mini: Path) -> None:
    _edit(mini, '    utility="zero_sum",\n', "")
    line = _line(mini, "ENGINE = EngineSpec(")
    assert verify(mini, draw=False).problems == [f"{INIT}:{line}: engine 'mini': EngineSpec needs utility {PACKAGE}"]


def test_an_engine_with_the_old_loose_exports_is_told_to_declare_engine(mini: Path) -> None:
    path = mini / INIT
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:text.index("# The engine's one declaration")], encoding="utf-8")
    line = _line(mini, 'BOOK_ID = "mini"')
    assert verify(mini, draw=False).problems == [
        f"{INIT}:{line}: engine 'mini' has the loose exports BOOK_ID, make_game, OPTIONS, ACTION_SCHEMA, "
        f"STATE_SCHEMA, which rulepress no longer reads: declare them in one ENGINE = rulepress.protocol.EngineSpec("
        f"book_id=..., make_game=..., options=..., action_schema=..., state_schema=..., min_num_players=..., ...) "
        f"{PACKAGE}"]


def test_an_engine_that_declares_nothing_is_told_what_to_declare(mini: Path) -> None:
    (mini / INIT).write_text('"""Nothing yet."""\n', encoding="utf-8")
    assert verify(mini, draw=False).problems == [
        f"{INIT}: engine 'mini' declares no ENGINE = rulepress.protocol.EngineSpec(...) {PACKAGE}"]


def test_an_engine_whose_declaration_is_not_a_spec_is_refused(mini: Path) -> None:
    _edit(mini, "ENGINE = EngineSpec(\n", "ENGINE = dict(\n")
    assert verify(mini, draw=False).problems == [
        f"{INIT}:{_line(mini, 'ENGINE = dict(')}: engine 'mini': ENGINE must be a rulepress.protocol.EngineSpec, "
        f"not dict"]


def test_a_spec_takes_its_fields_by_name_only() -> None:
    with pytest.raises(EngineSpecError, match=r"EngineSpec takes its fields by name"):
        EngineSpec("mini")  # type: ignore[misc]


def test_a_copy_of_a_spec_is_the_same_declaration() -> None:
    spec = load_engine("tic_tac_toe", ROOT / "samples" / "tic-tac-toe")
    twin = copy.copy(spec)
    assert twin is not spec and twin.module_name == spec.module_name and twin.make_game is spec.make_game
    assert [getattr(twin, name) for name in SPEC_FIELDS] == [getattr(spec, name) for name in SPEC_FIELDS]


# --- the spec against its book and its game ----------------------------------------------------------------------

def test_the_declared_players_are_the_books(mini: Path) -> None:
    book = mini / "rules_src/mini/book.yaml"
    book.write_text(book.read_text().replace("players: {min: 2, max: 2}", "players: {min: 2, max: 3}"))
    assert verify(mini, draw=False).problems == [
        f"{INIT}:{_line(mini, '    min_num_players=2,')}: engine 'mini' declares 2 to 2 players (min_num_players, "
        f"max_num_players), where rules_src/mini/book.yaml says 2 to 3"]


def test_the_end_rules_are_rules_of_the_book(mini: Path) -> None:
    line = _edit(mini, "    options=OPTIONS,\n", "    options=OPTIONS,\n    end_rules=('mini.play.won',),\n") + 1
    assert verify(mini, draw=False).problems == [
        f"{INIT}:{line}: engine 'mini': end_rules names 'mini.play.won', which book mini does not have (did you mean "
        "'mini.play.win'?)"]


def test_the_declared_information_is_the_games(mini: Path) -> None:
    _edit(mini, '    information="perfect_information",\n', '    information="imperfect_information",\n')
    line = _line(mini, '    information="imperfect_information",')
    assert verify(mini, draw=False).problems == [
        f"{INIT}:{line}: engine 'mini': information is "
        f"'imperfect_information', but the game has no observer (a seat that cannot see a part of the state is "
        f"imperfect information)"]


def test_the_declared_chance_is_a_basegames(tmp_path: Path) -> None:
    project = make_project(tmp_path / "ttt", ROOT / "samples" / "tic-tac-toe")
    init = project / "engine/tic_tac_toe/__init__.py"
    init.write_text(init.read_text().replace('chance_mode="deterministic"', 'chance_mode="explicit_stochastic"'))
    line = init.read_text().splitlines().index('    chance_mode="explicit_stochastic",') + 1
    assert verify(project, draw=False).problems == [
        f"engine/tic_tac_toe/__init__.py:{line}: engine 'tic_tac_toe': chance_mode is 'explicit_stochastic', but "
        f"the game's CHANCE is False"]


@pytest.mark.parametrize(("added", "field", "message"), [
    ("    PLAYERS = (2, 3)\n", "min_num_players", "min_num_players and max_num_players say 2 to 2 players, but the "
                                               "game's PLAYERS is (2, 3)"),
    ("    OPTIONS = (OptionSpec('misere', False, (False, True), None, ('ttt.play.turn',), 'three in a row loses'),)\n",
     "options", "options are not the game's OPTIONS (declare the same tuple in both)"),
])
def test_a_basegames_players_and_options_are_the_declarations(tmp_path: Path, added: str, field: str,
                                                                message: str) -> None:
    """A BaseGame says its player counts and options again (``PLAYERS``, ``OPTIONS``): the gate holds them to the
    EngineSpec, at the field's line (the declaration's first line for a field it leaves at its default)."""
    project = make_project(tmp_path / "ttt", ROOT / "samples" / "tic-tac-toe")
    game = project / "engine/tic_tac_toe/game.py"
    text = game.read_text()
    marker = "    def __init__(self, components"
    assert text.count(marker) == 1
    text = text.replace(marker, added + marker)
    game.write_text(text.replace("from rulepress.basegame import",
                                 "from rulepress.protocol import OptionSpec\nfrom rulepress.basegame import", 1))
    lines = (project / "engine/tic_tac_toe/__init__.py").read_text().splitlines()
    line = next((i for i, text in enumerate(lines, 1) if text.startswith(f"    {field}=")),
                lines.index("ENGINE = EngineSpec(") + 1)
    problems = verify(project, draw=False).problems
    assert f"engine/tic_tac_toe/__init__.py:{line}: engine 'tic_tac_toe': {message}" in problems, problems


def test_a_deterministic_engine_that_draws_is_refused(mini: Path) -> None:
    _edit(mini, "        state.pile -= stones\n", "        state.pile -= stones\n        state.chance.randint(1, 6)\n")
    [result] = verify(mini, draw=False).results
    assert result.status == "error"
    assert result.message.startswith("mini-last-stone (examples/mini/mini-last-stone.yaml): end (after step 4): the "
                                     "engine declares chance_mode 'deterministic', but this game drew ")
    _edit(mini, '    chance_mode="deterministic",\n', '    chance_mode="explicit_stochastic",\n')  # the twin
    forget_engine(mini, "mini")
    assert verify(mini, draw=False).ok


@pytest.mark.parametrize(("package", "kind"), [
    ("lantern", (1, 1, ChanceMode.EXPLICIT_STOCHASTIC, Information.PERFECT_INFORMATION, Utility.SOLO)),
    ("lantern_moths", (2, 4, ChanceMode.EXPLICIT_STOCHASTIC, Information.IMPERFECT_INFORMATION, Utility.GENERAL_SUM)),
    ("last_lantern", (2, 4, ChanceMode.EXPLICIT_STOCHASTIC, Information.IMPERFECT_INFORMATION, Utility.IDENTICAL)),
    ("kuhn_poker", (2, 2, ChanceMode.EXPLICIT_STOCHASTIC, Information.IMPERFECT_INFORMATION, Utility.ZERO_SUM)),
    ("tic_tac_toe", (2, 2, ChanceMode.DETERMINISTIC, Information.PERFECT_INFORMATION, Utility.ZERO_SUM)),
])
def test_every_bundled_engine_and_sample_says_what_game_it_is(package: str, kind: tuple[object, ...]) -> None:
    root = ROOT if (ROOT / "engine" / package).is_dir() else ROOT / "samples" / package.replace("_", "-")
    spec = load_engine(package, root)
    assert (spec.min_num_players, spec.max_num_players, spec.chance_mode, spec.information, spec.utility) == kind
    assert spec.game_type()["chance_mode"] == kind[2] and spec.game_type()["short_name"] == spec.book_id


# --- names checked as they are used (issue 32 A) ------------------------------------------------------------------

def test_a_misspelt_decision_is_refused_as_it_is_marked() -> None:
    """The mutant issue 32 found: ``decided(state, "SETUP_ONES_CROSS")`` passed at run time."""
    check = load_checked_book(ROOT, "lantern")
    spec, state = check.engine, check.engine.make_game(check.book.components).new_state(["Ann"], 1)
    with pytest.raises(UndeclaredName) as refused:
        decided(state, "SETUP_ONES_CROSS")
    assert str(refused.value) == ("decided(state, 'SETUP_ONES_CROSS'): engine lantern has no decision "
                                  "'SETUP_ONES_CROSS' (did you mean 'setup_ones_cross'?)")
    before = dict(state.decisions)
    decided(state, "setup_ones_cross")  # the twin: counted
    assert state.decisions == {**before, "setup_ones_cross": before.get("setup_ones_cross", 0) + 1}
    assert "setup_ones_cross" in {d.id for d in spec.decisions or ()}


def test_a_misspelt_option_is_refused_as_it_is_read() -> None:
    check = load_checked_book(ROOT, "lantern")
    options = check.engine.make_game(check.book.components).options
    reads = (lambda: options["los_rule"], lambda: options.get("los_rule", "certain"), lambda: "los_rule" in options)
    for read in reads:
        with pytest.raises(UndeclaredName, match=r"^the engine's options has no option 'los_rule' \(did you mean "
                                                 r"'loss_rule'\?\)$"):
            read()
    assert options["loss_rule"] == options.get("loss_rule") and "loss_rule" in options  # the twins


@pytest.mark.parametrize(("old", "new", "what", "name", "meant"), [
    ('        events = [Event("take", "mini.play.take", {"player": player, "stones": stones})]\n',
     '        events = [Event("take", "mini.play." + "tkae", {"player": player, "stones": stones})]\n',
     "rule", "mini.play.tkae", "book mini has no rule 'mini.play.tkae' (did you mean 'mini.play.take'?)"),
    ('            raise RuleViolation("mini.play.take", f"take 1 to {self.most} stones, and no more than remain")\n',
     '            raise RuleViolation("mini.play" + ".takes", f"take 1 to {self.most} stones")\n',
     "rule", "mini.play.takes", "book mini has no rule 'mini.play.takes' (did you mean 'mini.play.take'?)"),
    ('            state.winner = player if self.options["last_stone"] == "win" else other\n',
     '            state.winner = player if self.options["last_" + "stones"] == "win" else other\n',
     "option", "last_stones", "the engine's options has no option 'last_stones' (did you mean 'last_stone'?)"),
    ('        state.pile -= stones\n',
     '        state.pile -= stones\n        decided(state, "last_" + "stone" + "s")\n',
     "decision", "last_stones", "decided(state, 'last_stones'): engine mini has no decision 'last_stones' (did "
                                "you mean 'last_stone'?)"),
])
def test_a_computed_name_the_book_or_engine_does_not_declare_fails_the_example_at_the_engine_line(
        mini: Path, old: str, new: str, what: str, name: str, meant: str) -> None:
    """Computed, so that no reading of the source can see it: only the check made as it is used does."""
    _edit(mini, "from rulepress.protocol import Chance, DescriptionError, EngineSpec, Event, OptionSpec, "
                "RuleViolation\n",
          "from rulepress.protocol import Chance, DescriptionError, EngineSpec, Event, OptionSpec, RuleViolation, "
          "decided, resolve_options\n")
    _edit(mini, '        self.options = {"last_stone": "win", **options}\n',
          "        self.options = resolve_options(OPTIONS, options)\n")
    line = _edit(mini, old, new) + new.count("\n") - 1
    if what == "decision":
        _edit(mini, "    chance: Chance\n", "    chance: Chance\n    decisions: dict[str, int] = dataclasses.field("
                                            "default_factory=dict)\n")
        _edit(mini, "from dataclasses import dataclass\n", "import dataclasses\nfrom dataclasses import dataclass\n")
        line += 2
    report = verify(mini, draw=False)
    assert report.problems == []
    [result] = report.results
    assert result.status == "error"
    assert f"the engine failed: UndeclaredName: {meant} (in {INIT}:{line}, function apply)" in result.message, \
        result.message


def test_the_names_as_declared_pass(mini: Path) -> None:
    """The twin: the same code with the declared names verifies (and a mark of a declared decision counts)."""
    _edit(mini, "from rulepress.protocol import Chance, DescriptionError, EngineSpec, Event, OptionSpec, "
                "RuleViolation\n",
          "from rulepress.protocol import Chance, DescriptionError, EngineSpec, Event, OptionSpec, RuleViolation, "
          "decided, resolve_options\n")
    _edit(mini, '        self.options = {"last_stone": "win", **options}\n',
          "        self.options = resolve_options(OPTIONS, options)\n")
    _edit(mini, "        state.pile -= stones\n", '        state.pile -= stones\n        if state.pile == 0:\n'
                                                  '            decided(state, "last_" + "stone")\n')
    _edit(mini, "    chance: Chance\n", "    chance: Chance\n    decisions: dict[str, int] = dataclasses.field("
                                        "default_factory=dict)\n")
    _edit(mini, "from dataclasses import dataclass\n", "import dataclasses\nfrom dataclasses import dataclass\n")
    report = verify(mini, draw=False)
    assert report.ok, report.failures()


def test_rule_ids_are_checked_only_for_an_engine_whose_book_the_gate_declared() -> None:
    """A test's own Event, or rulepress's, names what it likes: only engine code of a loaded book is held to it."""
    load_checked_book(ROOT, "lantern")  # declares Lantern's rules
    assert Event("take", "not.a.rule").rule == "not.a.rule"
    assert RuleViolation("not.a.rule", "said").rule == "not.a.rule"


def test_a_rule_named_through_mutmuts_trampoline_is_still_the_engines() -> None:
    """docs/MUTATION.md: in the mutated copy every function of rulepress.protocol is called through mutmut's
    trampoline; the check looks past it to the engine code that named the rule, or no mutant run could refuse."""
    engine = load_checked_book(ROOT, "lantern").engine  # declares Lantern's rules
    trampoline: dict[str, Any] = {"__name__": "mutmut.mutation.trampoline"}
    exec(compile("def trampoline(make, *args):\n    return make(*args)\n", "trampoline.py", "exec"), trampoline)
    engine_code: dict[str, Any] = {"__name__": f"{engine.module_name}.rules", "through": trampoline["trampoline"],
                                   "RuleViolation": RuleViolation}
    exec(compile("def refuse():\n    return through(RuleViolation, 'ln.no.such-rule', 'said')\n",
                 "engine/lantern/rules.py", "exec"), engine_code)
    with pytest.raises(UndeclaredName, match="book lantern has no rule 'ln.no.such-rule'"):
        engine_code["refuse"]()
