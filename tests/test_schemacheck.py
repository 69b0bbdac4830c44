"""The schemas' yes/no tests (rulepress/load/schemacheck.py) answer as jsonschema does, keyword by keyword and on
every bundled source and engine step shape, damaged in many ways; and what the gate says of a bad source, with the
test in front of jsonschema, is word for word and line for line what jsonschema alone makes of it."""

from __future__ import annotations

import copy
import glob
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.load import schema
from rulepress.load.book import book_ids
from rulepress.load.schemacheck import TYPES, compiled
from rulepress.load.yamlsrc import load_yaml, parse_yaml
from rulepress.verify import steps
from rulepress.verify.gate import load_checked_book
from rulepress.verify.replay import make_game

from .conftest import ROOT

SOURCE_SCHEMAS = ("book", "components", "glossary", "questions", "changelog", "prose_only")


def _slow(data: Any, shape: dict[str, Any], shown: str, prefix: str | None, monkeypatch: pytest.MonkeyPatch) -> list:
    """What validate_with says with jsonschema alone (no test in front of it)."""
    real = schema._validator
    with monkeypatch.context() as patched:
        patched.setattr(schema, "_validator", lambda shape, prefix: (real(shape, prefix)[0], lambda value: False))
        return schema.validate_with(data, shape, shown, prefix)


def _answer(test: Any, data: Any) -> Any:
    """Whether ``data`` passes, or the kind of exception asking raised (a key that is no text, against a pattern)."""
    try:
        return bool(test(data))
    except Exception as exc:  # both must raise it (validate_with then asks jsonschema, which raises it again)
        return type(exc)


def _same(data: Any, shape: dict[str, Any], prefix: str | None = None) -> None:
    validator = schema.Validator(shape, format_checker=schema._format_checker(prefix))
    assert _answer(compiled(validator), data) == _answer(validator.is_valid, data), (shape, data)


# --- keyword by keyword, where Python and JSON Schema part ways ---------------------------------------------------

VALUES: list[Any] = [None, True, False, 0, 1, -1, 1.0, 2.5, math.nan, math.inf, 10**30, "", "a", "é", "ab\n", "1",
                     [], [1], [1, True], [1, 1.0], [[1], [True]], [{"a": 1}, {"a": 1}], {}, {"a": 1}, {"b": "x"},
                     {"a": 1, "b": 2, "c": [1]}, {1: "one"}, {"do": "take"}, {"do": "pass", "n": 3}, {"do": 3}]

SCHEMAS: list[Any] = [
    True, False, {}, {"type": "integer"}, {"type": "number"}, {"type": ["string", "null"]}, {"type": "boolean"},
    {"type": "object"}, {"type": "array"}, {"type": "whatever"}, {"enum": [1, "a", None]}, {"enum": [True]},
    {"enum": [[1, 1]]}, {"enum": ["a", "é"]}, {"const": 1}, {"const": False}, {"const": [1, True]}, {"const": {"a": 1}},
    {"minimum": 0}, {"maximum": 1}, {"minimum": 0, "maximum": 2}, {"multipleOf": 2}, {"exclusiveMinimum": 0},
    {"minLength": 1}, {"maxLength": 1}, {"pattern": "^a"}, {"pattern": "b\\Z"}, {"minItems": 1}, {"maxItems": 1},
    {"uniqueItems": True}, {"uniqueItems": False}, {"items": {"type": "integer"}}, {"items": False},
    {"prefixItems": [{"type": "integer"}], "items": False}, {"contains": {"type": "boolean"}},
    {"required": ["a"]}, {"minProperties": 1}, {"maxProperties": 1}, {"properties": {"a": {"type": "string"}}},
    {"properties": {"a": {"type": "integer"}}, "additionalProperties": False},
    {"additionalProperties": {"type": "integer"}}, {"patternProperties": {"^[ab]$": {"type": "integer"}},
                                                    "additionalProperties": False},
    {"propertyNames": {"pattern": "^[a-c]$"}}, {"propertyNames": {"type": "string"}},
    {"dependentSchemas": {"a": {"required": ["b"]}}}, {"dependentRequired": {"a": ["b"]}},
    {"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"type": "array"}},
    {"if": {"type": "string"}, "then": {"minLength": 2}}, {"then": {"type": "string"}}, {"else": False},
    {"anyOf": [{"type": "string"}, {"required": ["a"]}]}, {"oneOf": [{"type": "integer"}, {"type": "number"}]},
    {"allOf": [{"type": "object"}, {"required": ["a"]}]}, {"not": {"type": "object"}},
    {"not": {"anyOf": [{"required": ["a", "b"]}, {"required": ["c"]}]}},
    {"x-by-key": {"key": "do", "cases": {"take": {"required": ["n"]}, "pass": {"properties": {"n": {"maximum": 2}}}}}},
    {"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}},
    {"$defs": {"tree": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}, "$ref": "#/$defs/tree"},
    {"$defs": {"a/b": {"type": "integer"}}, "items": {"$ref": "#/$defs/a~1b"}}, {"$ref": "#/$defs/nowhere"},
    {"$defs": {"n": {"type": "string"}}, "$ref": "#/properties/a", "properties": {"a": {"$ref": "#/$defs/n"}}},
    {"$id": "https://example.com/s", "properties": {"a": {"type": "integer"}}},
    {"format": "rule-id"}, {"format": "finite"}, {"format": "no-such-format"},
    {"title": "only words", "x-expect": "anything", "x-message": "never said"},
]


@pytest.mark.parametrize("shape", SCHEMAS, ids=repr)
def test_each_keyword_answers_as_jsonschema_does(shape: Any) -> None:
    for value in VALUES:
        _same(value, shape, "mini")


def test_types_are_jsonschemas() -> None:
    checker = schema.Validator.TYPE_CHECKER
    for name, test in TYPES.items():
        for value in VALUES:
            assert test(value) is checker.is_type(value, name), (name, value)


# --- every bundled source and engine step shape, whole and damaged ------------------------------------------------

def _prefix(book_folder: Path) -> str:
    return str(load_yaml(book_folder / "book.yaml", root=ROOT)["rule_prefix"])


def _sources() -> list[tuple[str, str, str | None]]:
    """(file, schema name, prefix) of every bundled source."""
    found = [(path, Path(path).stem, _prefix(Path(path).parent))
             for path in sorted(glob.glob(str(ROOT / "rules_src/*/*.yaml"))) if Path(path).stem in SOURCE_SCHEMAS]
    found += [(path, "example", _prefix(ROOT / "rules_src" / Path(path).parent.name))
              for path in sorted(glob.glob(str(ROOT / "examples/*/*.yaml")))]
    return found


SOURCES = _sources()


def _step_shapes() -> list[tuple[dict[str, Any], str, list[Any]]]:
    """Each bundled engine's declared example schema (verify/steps.py), its book's prefix and its examples' data."""
    found = []
    for book_id in book_ids(ROOT):
        check = load_checked_book(ROOT, book_id)
        declared = steps.declared(check.engine, make_game(check.engine, check.book, {}), ROOT)
        if declared.actions is None and declared.state is None:
            continue
        shape = steps._checked(declared)[1]
        assert shape is not None
        found.append((shape, check.book.prefix, [example.raw for example in check.examples]))
    return found


def _places(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``data``."""
    found = [path]
    if isinstance(data, dict):
        found += [p for key, value in data.items() for p in _places(value, (*path, key))]
    elif isinstance(data, list):
        found += [p for index, value in enumerate(data) for p in _places(value, (*path, index))]
    return found


REPLACEMENTS = st.sampled_from([None, True, 0, -3, 2.5, math.nan, "", "x", "Mini.turn", "mini.turn", "take",
                                "setup", [], ["x"], [1, 1], {}, {"do": "take"}, {"checkpoint": "c"}, {"zz": 1}])


def _damaged(data: Any, picks: list[tuple[int, str, Any]]) -> Any:
    """``data`` with values replaced, keys removed, keys added, as ``picks`` say."""
    data = copy.deepcopy(data)
    for where, how, shared in picks:
        new = copy.deepcopy(shared)  # never the strategy's own value, nor one already placed in ``data``
        places = _places(data)
        path = places[where % len(places)]
        if not path:
            continue
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        last = path[-1]
        if how == "replace":
            parent[last] = new
        elif how == "remove" and isinstance(parent, dict):
            del parent[last]
        elif how == "remove":
            parent.pop(last)
        elif isinstance(parent[last], dict):
            parent[last]["do" if isinstance(new, str) else "player"] = new
        elif isinstance(parent[last], list):
            parent[last].append(new)
    return data


PICKS = st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(["replace", "remove", "add"]), REPLACEMENTS),
                 min_size=1, max_size=3)


@pytest.mark.parametrize(("path", "name", "prefix"), SOURCES, ids=lambda value: str(value)[-40:])
def test_every_bundled_source_passes_both_ways(path: str, name: str, prefix: str | None) -> None:
    _same(load_yaml(Path(path), root=ROOT), schema.load_schema(name), prefix)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=st.sampled_from(SOURCES), picks=PICKS)
def test_damaged_sources_are_told_as_jsonschema_alone_tells_them(
        source: tuple[str, str, str | None], picks: list[tuple[int, str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    path, name, prefix = source
    data = _damaged(load_yaml(Path(path), root=ROOT), picks)
    shape = schema.load_schema(name)
    _same(data, shape, prefix)
    assert schema.validate_with(data, shape, path, prefix) == _slow(data, shape, path, prefix, monkeypatch)


STEP_SHAPES = _step_shapes()


def test_every_engine_declares_a_step_shape_here() -> None:
    assert len(STEP_SHAPES) >= 3  # the bundled books: the damage below reaches each engine's own shapes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.integers(0, 10**6), example=st.integers(0, 10**6), picks=PICKS)
def test_damaged_steps_are_told_as_jsonschema_alone_tells_them(which: int, example: int,
                                                               picks: list[tuple[int, str, Any]],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    shape, prefix, examples = STEP_SHAPES[which % len(STEP_SHAPES)]
    original = examples[example % len(examples)]
    _same(original, shape, prefix)
    data = _damaged(original, picks)
    _same(data, shape, prefix)
    assert schema.validate_with(data, shape, "x.yaml", prefix) == _slow(data, shape, "x.yaml", prefix, monkeypatch)


# --- the errors themselves ----------------------------------------------------------------------------------------

def test_a_bad_example_is_told_word_for_word_and_at_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    text = ("id: Bad_Id\ntitle: ''\nrules: [mini.turn, other.rule]\nstart: {setup: true, state: {}}\nsteps:\n"
            "  - {player: Ann, do: take, checkpoint: c}\n  - {chance: []}\n  - {checkpoint: end, expect: 3}\n"
            "seed: -1\nsourse: authored\n")
    data = parse_yaml(text, "examples/mini/bad.yaml")
    shape = schema.load_schema("example")
    told = schema.validate_with(data, shape, "examples/mini/bad.yaml", "mini")
    assert told == _slow(data, shape, "examples/mini/bad.yaml", "mini", monkeypatch)
    assert [(problem.line, problem.message) for problem in told] == [
        (1, "'id' must be an example ID: lower case words joined by '-', not 'Bad_Id'"),
        (2, "'title' must be text, not ''"),
        (3, "'rules[2]' must be a rule ID of this book (mini.chapter.rule), not 'other.rule'"),
        (4, "'start' needs exactly one of 'setup: true' or 'state: {...}'"),
        (6, "'steps[1]' needs exactly one of 'do' (an action), 'checkpoint' or 'chance'"),
        (6, "unknown key 'do' in 'steps[1]' (known keys: checkpoint, expect, events, diagram, note)"),
        (6, "unknown key 'player' in 'steps[1]' (known keys: checkpoint, expect, events, diagram, note)"),
        (7, "'steps[2].chance' must not be empty"),
        (8, "'steps[3].expect' must be a mapping of dotted snapshot paths to values, not the number 3"),
        (9, "'seed' must be at least 0, not the number -1"),
        (10, "unknown key 'sourse' (did you mean 'source'?)"),
    ]


@pytest.mark.parametrize("name", [*SOURCE_SCHEMAS, "example"])
def test_a_passing_source_never_reaches_jsonschema(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the test in front: a source with nothing wrong is not walked by jsonschema at all (the
    components' definitions that refer to themselves included)."""
    path, name, prefix = max((source for source in SOURCES if source[1] == name),
                             key=lambda source: Path(source[0]).stat().st_size)  # the largest of its kind
    data, shape = load_yaml(Path(path), root=ROOT), schema.load_schema(name)
    walked: list[Any] = []
    monkeypatch.setattr(schema.Validator, "iter_errors", lambda self, value: walked.append(value) or iter(()))
    assert schema.validate_with(data, shape, path, prefix) == [] and walked == []
    broken = "a source that is one line of text"  # every source is a mapping or a list
    schema.validate_with(broken, shape, path, prefix)
    assert walked == [broken]
