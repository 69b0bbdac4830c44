"""Whether data passes a JSON Schema, answered by plain Python functions made once per schema.

jsonschema finds every error of a value, and makes a validator (``evolve``) for every subschema it descends into:
most of its time when nothing is wrong, which is what nearly every source of a book is.  :func:`compiled` turns a
schema into one test per subschema, made once, that says only yes or no, with the same answer as jsonschema's own
``is_valid`` (the keywords below, each as jsonschema 4's Draft 2020-12 decides it).  When the test says no,
rulepress/load/schema.py asks jsonschema for the errors, so every message, line and column is the one it always was;
when it says yes, jsonschema would have found none.

A keyword the test does not know (``contains``, ``unevaluatedProperties``, a ``$ref`` other than to one of the
schema's own ``$defs``, ...) leaves its whole subschema to jsonschema, and a schema that names a resource (``$id``,
anchors) is left whole to jsonschema.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any

from jsonschema._utils import equal, uniq

Check = Callable[[Any], bool]
"""Whether a value passes one (sub)schema."""

_RESOURCES = ("$id", "$anchor", "$dynamicAnchor")  # a $ref into these resolves against a resource of its own
_LOCAL = re.compile(r"#/\$defs/[A-Za-z0-9_]+")  # a definition's name with nothing a JSON pointer escapes


class _Theirs(Exception):
    """A subschema left whole to jsonschema."""


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) or isinstance(value, float) and value.is_integer()


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


TYPES: dict[str, Check] = {
    "array": lambda value: isinstance(value, list), "boolean": lambda value: isinstance(value, bool),
    "integer": _is_integer, "null": lambda value: value is None, "number": _is_number,
    "object": lambda value: isinstance(value, dict), "string": lambda value: isinstance(value, str)}
"""Draft 2020-12's types as jsonschema's type checker tells them (a bool is no number; ``1.0`` is an integer)."""


def _yes(value: Any) -> bool:
    return True


def _no(value: Any) -> bool:
    return False


def compiled(validator: Any) -> Check:
    """The test of ``validator``'s schema (a jsonschema validator, with its format checker and extra keywords:
    ``x-by-key``; what it does not know, it leaves to the validator)."""
    schema = validator.schema
    if _names_resource(schema):
        return validator.is_valid  # type: ignore[no-any-return]
    return _Compiler(validator).check(schema)


def _names_resource(node: Any) -> bool:
    if isinstance(node, Mapping):
        return any(key in node for key in _RESOURCES) or any(_names_resource(value) for value in node.values())
    if isinstance(node, list):
        return any(_names_resource(item) for item in node)
    return False


class _Compiler:
    def __init__(self, validator: Any) -> None:
        self.validator = validator
        self.known = validator.VALIDATORS  # every keyword jsonschema acts on; any other key says nothing
        self.made: dict[int, tuple[Any, Check]] = {}  # by subschema (held: ids are not reused meanwhile)
        self.makers: dict[str, Callable[[Any, Mapping[str, Any]], Check | None]] = {
            "type": self.type, "properties": self.properties, "additionalProperties": self.additional,
            "patternProperties": self.patterns, "required": self.required, "items": self.items,
            "minItems": _counted(list, min_count=True), "maxItems": _counted(list, min_count=False),
            "minLength": _counted(str, min_count=True), "maxLength": _counted(str, min_count=False),
            "minProperties": _counted(dict, min_count=True), "maxProperties": _counted(dict, min_count=False),
            "pattern": self.pattern, "format": self.format, "enum": self.enum, "const": self.const,
            "minimum": self.minimum, "maximum": self.maximum, "uniqueItems": self.unique,
            "propertyNames": self.names, "dependentSchemas": self.dependent, "if": self.if_,
            "anyOf": self.any_of, "oneOf": self.one_of, "allOf": self.all_of, "not": self.not_,
            "$ref": self.ref, "x-by-key": self.by_key}

    def check(self, schema: Any) -> Check:
        """The test of one subschema, made once however many places share it."""
        kept = self.made.get(id(schema))
        if kept is not None and kept[0] is schema:
            return kept[1]
        made = self._make(schema)
        self.made[id(schema)] = (schema, made)
        return made

    def _make(self, schema: Any) -> Check:
        if schema is True:
            return _yes
        if schema is False:
            return _no
        if not isinstance(schema, dict):  # not a schema: jsonschema says what it makes of it
            return self.validator.evolve(schema=schema).is_valid  # type: ignore[no-any-return]
        keywords = [key for key in schema if key in self.known]
        try:
            if any(key not in self.makers for key in keywords):  # contains, unevaluated*, ...: all of it theirs
                raise _Theirs
            tests = [test for key in keywords if (test := self.makers[key](schema[key], schema)) is not None]
        except _Theirs:
            return self.validator.evolve(schema=schema).is_valid  # type: ignore[no-any-return]
        if not tests:
            return _yes
        return _every(tests)

    def ref(self, ref: Any, schema: Mapping[str, Any]) -> Check:
        """A ``$ref`` to a definition of the schema's own (``#/$defs/name``: one that refers to itself, which
        load/schema.py's inlining leaves), its test made when first asked (so a definition may refer to itself);
        any other reference is jsonschema's."""
        defs = self.validator.schema.get("$defs") if isinstance(self.validator.schema, dict) else None
        if not (isinstance(ref, str) and _LOCAL.fullmatch(ref) and isinstance(defs, dict) and ref[8:] in defs):
            raise _Theirs
        target, made = defs[ref[8:]], []

        def test(value: Any) -> bool:
            if not made:
                made.append(self.check(target))
            return made[0](value)
        return test

    def type(self, types: Any, schema: Mapping[str, Any]) -> Check:
        kinds = [types] if isinstance(types, str) else list(types)
        if not all(isinstance(kind, str) and kind in TYPES for kind in kinds):  # jsonschema raises UnknownType
            return self.validator.evolve(schema={"type": types}).is_valid  # type: ignore[no-any-return]
        tests = [TYPES[kind] for kind in kinds]
        if len(tests) == 1:
            return tests[0]
        return lambda value: any(test(value) for test in tests)

    def properties(self, properties: Mapping[str, Any], schema: Mapping[str, Any]) -> Check:
        tests = [(name, self.check(sub)) for name, sub in properties.items()]

        def test(value: Any) -> bool:
            if isinstance(value, dict):
                for name, sub in tests:
                    if name in value and not sub(value[name]):
                        return False
            return True
        return test

    def additional(self, extra: Any, schema: Mapping[str, Any]) -> Check | None:
        if extra is True:
            return None
        known = schema.get("properties", {})
        patterns = "|".join(schema.get("patternProperties", {}))  # one pattern, as jsonschema joins them
        joined = re.compile(patterns) if patterns else None

        def extras(value: dict[Any, Any]) -> list[Any]:
            return [key for key in value if key not in known and not (joined is not None and joined.search(key))]
        if isinstance(extra, dict):
            sub = self.check(extra)
            return lambda value: not isinstance(value, dict) or all(sub(value[key]) for key in extras(value))
        if extra:  # a truthy non-schema allows anything, as jsonschema reads it
            return None
        return lambda value: not isinstance(value, dict) or not extras(value)

    def patterns(self, patterns: Mapping[str, Any], schema: Mapping[str, Any]) -> Check:
        tests = [(re.compile(pattern), self.check(sub)) for pattern, sub in patterns.items()]

        def test(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            return all(sub(item) for pattern, sub in tests for key, item in value.items() if pattern.search(key))
        return test

    def required(self, names: Any, schema: Mapping[str, Any]) -> Check:
        return lambda value: not isinstance(value, dict) or all(name in value for name in names)

    def items(self, items: Any, schema: Mapping[str, Any]) -> Check:
        # (With ``prefixItems``, a keyword not made here, the whole schema is jsonschema's: every item is one.)
        if items is False:
            return lambda value: not isinstance(value, list) or not value
        sub = self.check(items)

        def test(value: Any) -> bool:
            if isinstance(value, list):
                for item in value:
                    if not sub(item):
                        return False
            return True
        return test

    def pattern(self, pattern: str, schema: Mapping[str, Any]) -> Check:
        found = re.compile(pattern)
        return lambda value: not isinstance(value, str) or found.search(value) is not None

    def format(self, name: Any, schema: Mapping[str, Any]) -> Check | None:
        checker = self.validator.format_checker
        if checker is None:
            return None
        return lambda value: bool(checker.conforms(value, name))

    def enum(self, choices: Any, schema: Mapping[str, Any]) -> Check:
        # Against text, jsonschema's equal() is ==, which a set of the choices that are plain text answers at once.
        words = frozenset(choice for choice in choices if type(choice) is str)
        others = [choice for choice in choices if type(choice) is not str]

        def test(value: Any) -> bool:
            if type(value) is str:
                return value in words or any(choice == value for choice in others)
            return any(equal(choice, value) for choice in choices)
        return test

    def const(self, wanted: Any, schema: Mapping[str, Any]) -> Check:
        return lambda value: bool(equal(value, wanted))

    def minimum(self, least: Any, schema: Mapping[str, Any]) -> Check:
        return lambda value: not _is_number(value) or not value < least

    def maximum(self, most: Any, schema: Mapping[str, Any]) -> Check:
        return lambda value: not _is_number(value) or not value > most

    def unique(self, wanted: Any, schema: Mapping[str, Any]) -> Check | None:
        if not wanted:
            return None
        return lambda value: not isinstance(value, list) or bool(uniq(value))

    def names(self, names: Any, schema: Mapping[str, Any]) -> Check:
        sub = self.check(names)
        return lambda value: not isinstance(value, dict) or all(sub(key) for key in value)

    def dependent(self, schemas: Mapping[str, Any], schema: Mapping[str, Any]) -> Check:
        tests = [(name, self.check(sub)) for name, sub in schemas.items()]
        return lambda value: not isinstance(value, dict) or all(sub(value) for name, sub in tests if name in value)

    def if_(self, condition: Any, schema: Mapping[str, Any]) -> Check:
        when = self.check(condition)
        then = self.check(schema["then"]) if "then" in schema else _yes
        otherwise = self.check(schema["else"]) if "else" in schema else _yes
        return lambda value: then(value) if when(value) else otherwise(value)

    def any_of(self, branches: Any, schema: Mapping[str, Any]) -> Check:
        tests = [self.check(branch) for branch in branches]
        return lambda value: any(test(value) for test in tests)

    def one_of(self, branches: Any, schema: Mapping[str, Any]) -> Check:
        tests = [self.check(branch) for branch in branches]
        return lambda value: sum(1 for test in tests if test(value)) == 1

    def all_of(self, branches: Any, schema: Mapping[str, Any]) -> Check:
        return _every([self.check(branch) for branch in branches])

    def not_(self, refused: Any, schema: Mapping[str, Any]) -> Check:
        sub = self.check(refused)
        return lambda value: not sub(value)

    def by_key(self, spec: Mapping[str, Any], schema: Mapping[str, Any]) -> Check:
        """rulepress's ``x-by-key`` (load/schema.py's ``_by_key``): a mapping is checked against the case its key
        names."""
        key = spec["key"]
        cases = {name: self.check(case) for name, case in spec["cases"].items()}

        def test(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            name = value.get(key)
            return not (isinstance(name, str) and name in cases) or cases[name](value)
        return test


def _every(tests: list[Check]) -> Check:
    """All of ``tests`` (a loop: the calls a generator adds are most of what such a test costs)."""
    if len(tests) == 1:
        return tests[0]

    def test(value: Any) -> bool:
        for one in tests:
            if not one(value):
                return False
        return True
    return test


def _counted(kind: type, *, min_count: bool) -> Callable[[Any, Mapping[str, Any]], Check]:
    """``minItems``/``maxItems``, ``minLength``/``maxLength``, ``minProperties``/``maxProperties``: the length of a
    value of ``kind`` (code points for text, as Python and jsonschema count)."""
    def make(bound: Any, schema: Mapping[str, Any]) -> Check:
        if min_count:
            return lambda value: not isinstance(value, kind) or not len(value) < bound
        return lambda value: not isinstance(value, kind) or not len(value) > bound
    return make
