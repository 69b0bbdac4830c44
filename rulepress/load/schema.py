"""Validate source data against the JSON Schemas in ``schemas/`` and turn each error into a SourceError.

The schemas (Draft 2020-12, written as YAML) say what shape each source file has. Two extensions, ignored by
JSON Schema itself, make the messages readable: ``x-expect`` says in words what a value should be (``{prefix}``
becomes the book's rule prefix), and ``x-message`` replaces the message of an ``anyOf``/``not`` rule.
Book-specific formats (rule IDs with the book's prefix) are checked by a format checker built per call.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import pickle
import re
from collections.abc import Iterator, Mapping
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import ValidationError

from rulepress import store
from rulepress.errors import SourceError, excerpt
from rulepress.load.schemacheck import Check, compiled
from rulepress.load.yamlsrc import column_of, line_of, parse_yaml, plain

# Matched whole (fullmatch), as every ID and name is: "$" matches before a final newline, so "mini\n" would pass.
SIZE = re.compile(r"[0-9]+(\.[0-9]+)?(mm|cm|in|pt)")
EXAMPLE_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
ANY_RULE_ID = re.compile(r"[a-z]+(\.[a-z0-9-]+)+")
TYPE_WORDS = {"string": "text", "integer": "a whole number", "number": "a number", "array": "a list",
              "object": "a mapping", "boolean": "true or false", "null": "empty"}


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema ``schemas/<name>.yaml``, parsed like any source so a key written twice is an error, not a
    definition silently replaced by the later one.  The schemas are rulepress's own, never a project's: that each
    is a valid Draft 2020-12 schema is held by tests/test_schemas.py, not checked again in every process (a tenth of
    a one-rule edit's verification)."""
    text = resources.files("rulepress.load").joinpath("schemas", f"{name}.yaml").read_text(encoding="utf-8")
    return _inlined(plain(parse_yaml(text, f"rulepress/load/schemas/{name}.yaml")))


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with each ``{$ref: "#/$defs/name"}`` (a reference and nothing beside it) replaced by the definition
    it names: the same checks, without a lookup each time a value is checked against it (every step of every
    example).  A definition that refers to itself, directly or not, keeps its references."""
    defs = schema.get("$defs", {})
    done: dict[str, Any] = {}

    def resolve(node: Any, seen: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if len(node) == 1 and isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs \
                and "/" not in ref[8:] and ref[8:] not in seen:
            name = ref[8:]
            if name not in done:
                done[name] = resolve(defs[name], (*seen, name))
            return done[name]
        return {key: resolve(value, seen) for key, value in node.items()}

    return dict(resolve(schema, ()))


def _by_key(validator: Any, spec: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]) -> Iterator[Any]:
    """``x-by-key: {key: do, cases: {name: schema, ...}}``: a mapping whose ``key`` is one of the names is checked
    against that name's schema.  What ``allOf`` of one ``if: {properties: {do: {const: name}}}, then: schema`` per
    name says, in one look instead of one per name (an engine declares dozens of actions, a book has hundreds of
    steps)."""
    if validator.is_type(instance, "object"):
        name = instance.get(spec["key"])
        if isinstance(name, str) and name in spec["cases"]:
            yield from validator.descend(instance, spec["cases"][name], schema_path=name)


_ANY_OF = Draft202012Validator.VALIDATORS["anyOf"]
_NOT = Draft202012Validator.VALIDATORS["not"]
_PRESENCES: dict[int, tuple[Any, tuple[tuple[str, ...], ...] | None]] = {}


def _presences(part: Any) -> tuple[tuple[str, ...], ...] | None:
    """The key sets that ``part`` of a schema requires, one of which must be all there, when requiring keys is all
    it says: ``{required: [a, b]}``, ``[{required: [a]}, {required: [b]}]`` (an ``anyOf``'s branches) or
    ``{anyOf: [...]}`` of those (as the schemas say "exactly one of"); else None.  Worked out once per part of a
    schema (held, so its id is not reused by another while kept)."""
    found = _PRESENCES.get(id(part))
    if found is None or found[0] is not part:
        branches = part if isinstance(part, list) else part.get("anyOf", [part]) if isinstance(part, dict) and (
            part.keys() == {"anyOf"} or part.keys() == {"required"}) else None
        shapes = tuple(tuple(branch["required"]) for branch in branches) if isinstance(branches, list) and all(
            isinstance(branch, dict) and branch.keys() == {"required"} and isinstance(branch["required"], list)
            for branch in branches) else None
        found = _PRESENCES[id(part)] = (part, shapes)
    return found[1]


def _holds(shapes: tuple[tuple[str, ...], ...], instance: Any) -> bool:
    """Whether one of the key sets is all in ``instance`` (``required`` holds for anything not a mapping)."""
    return not isinstance(instance, dict) or any(all(key in instance for key in keys) for keys in shapes)


def _any_of(validator: Any, branches: Any, instance: Any, schema: Mapping[str, Any]) -> Iterator[Any]:
    """``anyOf``, decided at once when its branches only require keys and one holds (every step of every example
    asks which of 'do', 'checkpoint' or 'chance' it has): JSON Schema's own ``anyOf`` finds the same, after making
    an error for each branch before it.  When none holds, that ``anyOf`` makes the error, as it always did."""
    shapes = _presences(branches)
    if shapes is not None and _holds(shapes, instance):
        return
    yield from _ANY_OF(validator, branches, instance, schema)


def _not(validator: Any, refused: Any, instance: Any, schema: Mapping[str, Any]) -> Iterator[Any]:
    """``not``, decided at once for a ``not: {anyOf: [{required: ...}, ...]}`` or ``not: {required: [...]}`` that
    does not hold; otherwise JSON Schema's own ``not`` (and its error)."""
    shapes = _presences(refused)
    if shapes is not None and not _holds(shapes, instance):
        return
    yield from _NOT(validator, refused, instance, schema)


Validator = validators.extend(Draft202012Validator, {"x-by-key": _by_key, "anyOf": _any_of, "not": _not})
"""Draft 2020-12 with ``x-by-key``, and ``anyOf``/``not`` of required keys decided at once: what every schema here
is checked with."""


def rule_id_pattern(prefix: str | None) -> re.Pattern[str]:
    if prefix is None:
        return ANY_RULE_ID
    return re.compile(rf"{re.escape(prefix)}(\.[a-z0-9-]+)+")


@lru_cache(maxsize=16)
def _format_checker(prefix: str | None) -> FormatChecker:
    checker = FormatChecker(formats=())
    rule_id = rule_id_pattern(prefix)
    question_id = re.compile(rf"{re.escape(prefix)}\.q[0-9]+" if prefix else r"[a-z]+\.q[0-9]+")
    checker.checks("rule-id")(lambda value: not isinstance(value, str) or bool(rule_id.fullmatch(value)))
    checker.checks("question-id")(lambda value: not isinstance(value, str) or bool(question_id.fullmatch(value)))
    checker.checks("example-id")(lambda value: not isinstance(value, str) or bool(EXAMPLE_ID.fullmatch(value)))
    # NaN passes minimum and maximum (every comparison with it is false), and .inf is no count of anything.
    checker.checks("finite")(lambda value: not isinstance(value, float) or math.isfinite(value))
    checker.checks("size")(lambda value: not isinstance(value, str) or bool(SIZE.fullmatch(value)))
    return checker


def validate(data: Any, name: str, shown: str, prefix: str | None = None) -> list[SourceError]:
    """Every way ``data`` (as loaded by yamlsrc, with line numbers) breaks schema ``name``, sorted by line.

    Data that passed once in this process passes again without a second look (most of loading a book is this,
    and a serve session or a rebuild loads every unchanged file again); problems are found afresh each time."""
    if not store.enabled():  # nothing is cached: no digest to work out
        return validate_with(data, load_schema(name), shown, prefix)
    try:
        digest = hashlib.sha256(pickle.dumps(data, protocol=5)).hexdigest()  # the values, types and lines
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):  # data that does not pickle (never
        # from yamlsrc): checked every time
        return validate_with(data, load_schema(name), shown, prefix)
    found: list[SourceError] = []

    def passes() -> bool:
        found.extend(validate_with(data, load_schema(name), shown, prefix))
        return not found

    store.cached_in_process("schema", store.key_of(name, str(prefix), digest), passes, cache_if=bool)
    return found


def validate_with(data: Any, schema: dict[str, Any], shown: str, prefix: str | None = None) -> list[SourceError]:
    """Every way ``data`` breaks ``schema`` (already checked with ``Draft202012Validator.check_schema``), as
    :func:`validate` says it: an engine's declared step shapes are checked this way (verify/steps.py)."""
    validator, passes = _validator(schema, prefix)
    try:
        if passes(data):  # nothing wrong (nearly every source): jsonschema, asked for errors, would find none
            return []
    except Exception:  # a test that cannot answer (a key that is no text, against a pattern): jsonschema does
        pass
    found: dict[tuple[int, str], SourceError] = {}
    for error in validator.iter_errors(data):
        for problem in _problems(error, data, shown, prefix):
            found.setdefault((problem.line or 0, problem.message), problem)
    return [found[key] for key in sorted(found)]


_VALIDATORS: dict[tuple[int, str | None], tuple[dict[str, Any], tuple[Any, Check]]] = {}


def _validator(schema: dict[str, Any], prefix: str | None) -> tuple[Any, Check]:
    """The validator of ``schema`` for a book's ``prefix`` and its yes/no test (load/schemacheck.py), made once:
    every example of a book is checked against the same few schemas, and a validator keeps what it resolved
    (``$ref``s) from one instance to the next."""
    key = (id(schema), prefix)
    found = _VALIDATORS.get(key)
    if found is None or found[0] is not schema:  # (the schema is held: its id is not reused while it is here)
        if len(_VALIDATORS) >= 64:
            del _VALIDATORS[next(iter(_VALIDATORS))]
        validator = Validator(schema, format_checker=_format_checker(prefix))
        found = _VALIDATORS[key] = (schema, (validator, compiled(validator)))
    return found[1]


def _problems(error: ValidationError, data: Any, shown: str, prefix: str | None) -> list[SourceError]:
    path = list(error.absolute_path)
    parent, key = _parent(data, path)
    line = line_of(parent, key, default=1) if path else line_of(data, default=1)
    column = column_of(parent, key) if path else column_of(data)
    where = _path_text(path)
    kind = error.validator
    instance = error.instance
    if kind == "additionalProperties" and isinstance(instance, dict):
        return _unknown_keys(error, instance, where, shown)
    if "propertyNames" in error.relative_schema_path:
        # The error's instance is the offending key; its line is the key's own.
        container = _at(data, path)
        return [SourceError(shown, line_of(container, error.instance, 1),
                            f"key {error.instance!r}{_in(where)} must be {_expect(error.schema, prefix)}",
                            column=column_of(container, error.instance))]
    # Problems of a whole mapping or list are placed where it starts (its first key), not at the key naming it.
    container_line = line_of(instance, default=line)
    container_column = column_of(instance) if hasattr(instance, "line") else column
    if kind == "required" and isinstance(instance, dict):
        return [SourceError(shown, container_line, f"missing key '{name}'{_in(where)}", column=container_column)
                for name in error.validator_value if name not in instance]
    subject = where or "the file"
    rule = instance if error.schema.get("format") == "rule-id" and isinstance(instance, str) else None
    if "x-message" in error.schema and kind in ("anyOf", "oneOf", "not", "minItems", "maxItems"):
        message = error.schema["x-message"]
        return [SourceError(shown, container_line, f"{where} {message}" if where else message,
                            column=container_column)]
    if kind in ("type", "format", "pattern", "minLength", "const"):
        message = f"{subject} must be {_expect(error.schema, prefix)}, not {_describe(instance)}"
    elif kind == "enum":
        choices = ", ".join(str(value) for value in error.validator_value)
        words = [str(value) for value in error.validator_value]
        close = difflib.get_close_matches(instance, words, n=1, cutoff=0.6) if isinstance(instance, str) else []
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        message = f"{subject} must be one of {choices}, not {_describe(instance)}{hint}"
    elif kind == "minItems":
        message = f"{subject} must not be empty"
    elif kind == "minimum":
        message = f"{subject} must be at least {error.validator_value}, not {_describe(instance)}"
    elif kind == "maximum":
        message = f"{subject} must be at most {error.validator_value}, not {_describe(instance)}"
    elif kind == "uniqueItems":
        message = f"{subject} lists the same entry twice"
    else:
        message = f"{subject}: {error.message}"
    return [SourceError(shown, line, message, rule if kind in ("type", "format", "pattern", "minLength", "const")
                        else None, column=column)]


def _unknown_keys(error: ValidationError, instance: dict[Any, Any], where: str, shown: str) -> list[SourceError]:
    known = list(error.schema.get("properties", {}))
    patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
    problems = []
    for key in instance:
        if key in known or (isinstance(key, str) and any(p.search(key) for p in patterns)):
            continue
        close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"known keys: {', '.join(known)}"
        problems.append(SourceError(shown, line_of(instance, key, default=None),
                                    f"unknown key '{key}'{_in(where)} ({hint})", column=column_of(instance, key)))
    return problems


def _at(data: Any, path: list[Any]) -> Any:
    for part in path:
        data = data[part]
    return data


def _parent(data: Any, path: list[Any]) -> tuple[Any, Any]:
    if not path:
        return None, None
    return _at(data, path[:-1]), path[-1]


def _path_text(path: list[Any]) -> str:
    """Where in the file, in words: ``'players.min'``, ``'aliases' of entry 2``, ``'steps[3].expect'``.

    Positions count from 1, as a reader counts; a file that is a list names its items "entry N".
    """
    entry = ""
    if path and isinstance(path[0], int):
        entry, path = f"entry {path[0] + 1}", path[1:]
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part + 1}]"
        else:
            text += ("." if text else "") + str(part)
    if text and entry:
        return f"'{text}' of {entry}"
    return f"'{text}'" if text else entry


def _in(where: str) -> str:
    return f" in {where}" if where else ""


def _expect(schema: dict[str, Any], prefix: str | None) -> str:
    if "x-expect" in schema:
        return str(schema["x-expect"]).replace("{prefix}", prefix or "<prefix>")
    if "const" in schema:
        return repr(schema["const"])
    kinds = schema.get("type", "string")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return " or ".join(TYPE_WORDS.get(kind, kind) for kind in kinds)


def _describe(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        digits = str(value)
        return f"the number {digits}" if len(digits) <= 20 else f"the number {digits[:12]}… ({len(digits)} digits)"
    if isinstance(value, str):
        return excerpt(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"
