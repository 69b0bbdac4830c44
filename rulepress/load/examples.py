"""Worked examples (examples/<book>/*.yaml): load and validate them, without running anything."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulepress.errors import SourceError, relative
from rulepress.load.book import Book
from rulepress.load.yamlsrc import line_of, load_yaml, plain

EXAMPLE_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
KNOWN_KEYS = {"id", "title", "rules", "source", "players", "options", "seed", "start", "steps", "text",
              "summary"}
STEP_KINDS = ("checkpoint", "chance", "do")


@dataclass
class Step:
    index: int
    line: int | None
    kind: str  # "action", "checkpoint" or "chance"
    data: dict[str, Any]

    @property
    def illegal(self) -> str | None:
        value = self.data.get("illegal")
        return str(value) if value is not None else None


@dataclass
class Example:
    id: str
    book: str
    file: str
    title: str
    rules: list[str]
    source: str  # "seed" or "authored"
    source_ref: str
    players: list[str]
    options: dict[str, Any]
    seed: int
    start: dict[str, Any]
    steps: list[Step]
    text: str
    text_line: int | None
    summary: str = ""
    raw: Any = field(default=None, repr=False)

    def line(self, key: str) -> int | None:
        return line_of(self.raw, key)


def load_examples(book: Book) -> list[Example]:
    folder = book.root / "examples" / book.id
    if not folder.is_dir():
        return []
    examples = [load_example(path, book) for path in sorted(folder.glob("*.yaml"))]
    seen: dict[str, str] = {}
    for example in examples:
        if example.id in seen:
            raise SourceError(example.file, example.line("id"),
                              f"example ID '{example.id}' is also used by {seen[example.id]}")
        seen[example.id] = example.file
    # Print order follows the rules: by the number of the first rule each example illustrates.
    return sorted(examples, key=lambda e: (_number_key(book.rules[e.rules[0]].number), e.title))


def _number_key(number: str) -> tuple[int, ...]:
    return tuple(int(part) for part in number.split("."))


def load_example(path: Path, book: Book) -> Example:
    shown = relative(path, book.root)
    raw = load_yaml(path, shown)
    if not isinstance(raw, dict):
        raise SourceError(shown, 1, "an example must be a mapping (id, title, rules, start, steps, ...)")
    unknown = sorted(set(raw) - KNOWN_KEYS)
    if unknown:
        raise SourceError(shown, line_of(raw, unknown[0]), f"unknown key '{unknown[0]}' in an example "
                                                           f"(known: {', '.join(sorted(KNOWN_KEYS))})")
    refused = raw.get("start", {}).get("refused") if isinstance(raw.get("start"), dict) else None
    for key in ("id", "title", "rules", "start") + (() if refused else ("steps",)):
        if key not in raw:
            raise SourceError(shown, 1, f"an example needs '{key}'")
    example_id = str(raw["id"])
    if not EXAMPLE_ID.match(example_id):
        raise SourceError(shown, line_of(raw, "id"), f"example ID '{example_id}' must be lower case words "
                                                     "joined by '-'")
    rules = raw["rules"]
    if not isinstance(rules, list) or not rules:
        raise SourceError(shown, line_of(raw, "rules"), "'rules' must list the rule IDs the example illustrates")
    for index, rule_id in enumerate(rules):
        if rule_id not in book.rules:
            raise SourceError(shown, line_of(rules, index), f"unknown rule ID '{rule_id}' in book "
                                                            f"'{book.id}'", rule=str(rule_id))
    source, source_ref = _source(raw, shown)
    start = raw["start"]
    if not isinstance(start, dict) or len({"setup", "state"} & start.keys()) != 1:
        raise SourceError(shown, line_of(raw, "start"), "'start' needs exactly one of 'setup: true' or "
                                                        "'state: {...}'")
    if refused is not None and refused not in book.rules:
        raise SourceError(shown, line_of(start, "refused"), f"'refused' names unknown rule ID '{refused}'",
                          rule=str(refused))
    if refused is not None and raw.get("steps"):
        raise SourceError(shown, line_of(raw, "steps"), "an example whose start is refused has no steps")
    players = raw.get("players", [])
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise SourceError(shown, line_of(raw, "players"), "'players' must be a list of names")
    options = raw.get("options") or {}
    if not isinstance(options, dict):
        raise SourceError(shown, line_of(raw, "options"), "'options' must be a mapping")
    seed = raw.get("seed", 0)
    if not isinstance(seed, int):
        raise SourceError(shown, line_of(raw, "seed"), "'seed' must be a whole number")
    steps = [] if refused else _steps(raw["steps"], shown, book, line_of(raw, "steps"))
    text = raw.get("text", "")
    return Example(example_id, book.id, shown, str(raw["title"]), [str(r) for r in rules], source, source_ref,
                   list(players), plain(options), seed, plain(start), steps, str(text or ""),
                   line_of(raw, "text"), str(raw.get("summary", "") or ""), raw)


def _source(raw: dict[str, Any], shown: str) -> tuple[str, str]:
    source = raw.get("source", "authored")
    if source == "authored":
        return "authored", ""
    if isinstance(source, dict) and set(source) == {"seed"}:
        return "seed", str(source["seed"])
    raise SourceError(shown, line_of(raw, "source"), "'source' must be 'authored' or {seed: \"where in the seed\"}")


def _steps(raw_steps: Any, shown: str, book: Book, line: int | None) -> list[Step]:
    if not isinstance(raw_steps, list) or not raw_steps:
        raise SourceError(shown, line, "'steps' must be a non-empty list")
    steps = []
    checkpoint_names: set[str] = set()
    for index, item in enumerate(raw_steps):
        step_line = line_of(raw_steps, index)
        if not isinstance(item, dict):
            raise SourceError(shown, step_line, f"step {index + 1} must be a mapping")
        kinds = [k for k in STEP_KINDS if k in item]
        if len(kinds) != 1:
            raise SourceError(shown, step_line, f"step {index + 1} needs exactly one of 'do' (an action), "
                                                "'checkpoint' or 'chance'")
        kind = {"do": "action"}.get(kinds[0], kinds[0])
        if kind == "checkpoint":
            name = str(item["checkpoint"])
            if name in checkpoint_names:
                raise SourceError(shown, step_line, f"checkpoint '{name}' appears twice")
            checkpoint_names.add(name)
            extra = set(item) - {"checkpoint", "expect", "events", "diagram", "note"}
            if extra:
                raise SourceError(shown, step_line, f"unknown key '{sorted(extra)[0]}' in checkpoint '{name}'")
            if "expect" in item and not isinstance(item["expect"], dict):
                raise SourceError(shown, step_line, f"checkpoint '{name}': 'expect' must be a mapping")
            if "events" in item and not isinstance(item["events"], list):
                raise SourceError(shown, step_line, f"checkpoint '{name}': 'events' must be a list")
        if kind == "chance" and not isinstance(item["chance"], list):
            raise SourceError(shown, step_line, "'chance' must be a list of outcomes")
        illegal = item.get("illegal")
        if illegal is not None and illegal not in book.rules:
            raise SourceError(shown, step_line, f"step {index + 1} expects a rejection by unknown rule ID "
                                                f"'{illegal}'", rule=str(illegal))
        steps.append(Step(index + 1, step_line, kind, plain(item)))
    return steps
