"""The checks of a translated text against its source (docs/TRANSLATIONS.md, "Checks").

A translation carries only words: every ``{{ … }}`` of a source item appears in its translation (numbers come from
one place), no number is written out in digits that the source does not write, and a translated chapter keeps the
source's headings (rule IDs, levels, order). Each function returns or collects :class:`SourceError`s naming the
translation's file, line and rule; :mod:`rulepress.load.translations` calls them while it loads a translation.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from rulepress.errors import SourceError
from rulepress.load.problems import Collector
from rulepress.load.rules import Chapter, Rule
from rulepress.protocol import closest_rule

# What a translation may write as digits without its source writing them: none of these is a number of the game.
_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{##.*?##\}", re.S)
_EXPRESSION = re.compile(r"\{\{(.*?)\}\}", re.S)
_NOT_NUMBERS = re.compile(r"\{#[^}\s]+\}|\[\[[^\]\s]+\]\]|\b[A-Za-z]+\d+[A-Za-z]*\b|\b[a-z]+(\.[a-z0-9-]+)+\b")
_DIGITS = re.compile(r"\d+")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def expressions(text: str) -> Counter[str]:
    """The ``{{ … }}`` expressions of a template, spaced alike; quoted words inside may be translated."""
    return Counter(_expression_key(match.group(1)) for match in _EXPRESSION.finditer(text))


def _expression_key(expression: str) -> str:
    return " ".join(_STRING.sub('""', expression).split())


def _spelled(text: str) -> dict[str, str]:
    """Each expression key with its spelling in ``text`` (for messages)."""
    return {_expression_key(m.group(1)): m.group(0) for m in _EXPRESSION.finditer(text)}


def literal_numbers(text: str) -> set[str]:
    """The digit sequences ``text`` writes out: outside template code, heading IDs, cross-references, names like
    T03 or a1 and rule IDs."""
    return {digits.lstrip("0") or "0" for digits in _DIGITS.findall(_NOT_NUMBERS.sub(" ", _TEMPLATE.sub(" ", text)))}


def compare_text(source: str, translated: str, shown: str, first_line: int | None, what: str,
                 rule: str | None = None) -> list[SourceError]:
    """The translation of one item keeps every ``{{ … }}`` of its source and writes out no number of its own."""
    problems = []
    wanted, got = expressions(source), expressions(translated)
    spelled = {**_spelled(source), **_spelled(translated)}
    dropped = sorted((wanted - got).elements())
    added = sorted((got - wanted).elements())
    if dropped:
        problems.append(SourceError(shown, first_line, f"{what}: the translation drops {_names(dropped, spelled)} "
                                                       "of its source (numbers come from one place: keep every "
                                                       "{{ … }} of the source)", rule))
    for key in dict.fromkeys(added):
        problems.append(SourceError(shown, _line_of_text(translated, spelled[key], first_line),
                                    f"{what}: the translation adds {spelled[key]}, which its source does not "
                                    "use", rule))
    allowed = literal_numbers(source)
    code = _NOT_NUMBERS.sub(lambda m: " " * len(m.group(0)), _TEMPLATE.sub(lambda m: " " * len(m.group(0)),
                                                                              translated))
    reported: set[str] = set()
    for match in _DIGITS.finditer(code):
        number = match.group(0).lstrip("0") or "0"
        if number in allowed or number in reported:
            continue
        reported.add(number)
        line = None if first_line is None else first_line + translated.count("\n", 0, match.start())
        problems.append(SourceError(shown, line, f"{what}: hard-coded number '{match.group(0)}' (the source does "
                                                 "not write it: take it from the data with the source's {{ … }})",
                                    rule))
    return problems


def _names(keys: list[str], spelled: dict[str, str]) -> str:
    counted = Counter(keys)
    return ", ".join(spelled[k] + (f" ({n} times)" if n > 1 else "") for k, n in counted.items())


def _line_of_text(text: str, needle: str, first_line: int | None) -> int | None:
    index = text.find(needle)
    return None if first_line is None or index < 0 else first_line + text.count("\n", 0, index)


def check_rules(original: Chapter, loaded: Chapter, owner: dict[str, Chapter],
                found: Collector) -> dict[str, Rule]:
    """The translated rules of one chapter file that match the source's; each mismatch reported."""
    wanted = {rule.id: rule for rule in original.rules}
    kept: dict[str, Rule] = {}
    for rule in loaded.rules:
        if rule.id in kept:
            found.add(SourceError(rule.file, rule.line, "rule ID used twice in the translation", rule=rule.id))
        elif rule.id not in wanted:
            elsewhere = owner.get(rule.id)
            close = closest_rule(rule.id, wanted)
            hint = (f"it belongs in chapter file '{Path(elsewhere.file).name}'" if elsewhere else
                    ("" if close is None else f"did you mean '{close}'? ")
                    + "the source has no such rule: translate its headings with their IDs, add none")
            found.add(SourceError(rule.file, rule.line, f"heading with unknown rule ID '{rule.id}' in this chapter "
                                                        f"({hint})", rule=rule.id))
        elif rule.level != wanted[rule.id].level:
            found.add(SourceError(rule.file, rule.line, f"level-{rule.level} heading; the source's is level "
                                                        f"{wanted[rule.id].level} (keep the source's structure)",
                                  rule=rule.id))
        else:
            kept[rule.id] = rule
    order = [rule_id for rule_id in wanted if rule_id in kept]
    for position, rule_id in enumerate(kept):
        if order[position] != rule_id:
            rule = kept[rule_id]
            found.add(SourceError(rule.file, rule.line, f"rule out of order: the source has '{order[position]}' "
                                                        f"here (keep the source's order)", rule=rule_id))
            break
    return kept
