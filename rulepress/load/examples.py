"""Worked examples (examples/<book>/*.yaml): load and validate them, without running anything."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulepress.errors import SourceError
from rulepress.load import orphans, schema, textpolicy
from rulepress.load.book import Book
from rulepress.load.confine import shown as shown_path
from rulepress.load.problems import Collector
from rulepress.load.rules import rule_hint
from rulepress.load.yamlsrc import line_of, load_yaml, plain


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

    @property
    def caption(self) -> str | None:
        """A checkpoint's diagram caption (``diagram: <caption>`` or ``{caption: ...}``); None without one."""
        return caption_of(self.data.get("diagram"))

    @property
    def draws(self) -> bool:
        """A checkpoint that draws its position (``diagram:`` a caption, ``true`` or a mapping)."""
        return bool(self.data.get("diagram")) or isinstance(self.data.get("diagram"), dict)


def caption_of(diagram: Any) -> str | None:
    """The caption a checkpoint's ``diagram:`` gives: the text itself, or its mapping's ``caption``."""
    if isinstance(diagram, str):
        return diagram
    if isinstance(diagram, dict) and isinstance(diagram.get("caption"), str):
        return str(diagram["caption"])
    return None


@dataclass
class Example:
    id: str
    book: str
    file: str
    title: str
    rules: list[str]
    source: str  # "seed", "authored", "recorded" (rulepress record) or "external" (source_ref names it)
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
    seat: str | None = None  # the player the example is told from ('as:'), None: no one (the public view)
    designer: bool = False  # 'designer: true': printed in the designer edition alone (rulepress/audience.py)

    def line(self, key: str) -> int | None:
        return line_of(self.raw, key)

    def diagram_seat(self, step: Step) -> str | None:
        """Whose view a checkpoint's diagram shows: its own ``as:``, else the example's (None: the public view)."""
        diagram = step.data.get("diagram")
        own = diagram.get("as") if isinstance(diagram, dict) else None
        return str(own) if own is not None else self.seat


def load_examples(book: Book) -> list[Example]:
    """Every example of ``book``; raises SourceError (one problem) or SourceErrors (all of them, up to
    problems.MAX_PROBLEMS) when any example or the examples folder itself is bad."""
    found = Collector()
    examples = collect_examples(book, found)
    found.raise_if_any()
    return examples


def collect_examples(book: Book, found: Collector) -> list[Example]:
    """Every example of ``book`` that loads, in print order; the problems of the others go to ``found``."""
    folder = book.root / "examples" / book.id
    if not folder.is_dir():
        return []
    found.extend(orphans.stray_examples(folder, book.root))
    examples: list[Example] = []
    # IDs are unique because each must equal its file's name (load_example checks it).
    for path in sorted(folder.glob("*.yaml")):
        try:
            examples.append(load_example(path, book))
        except SourceError as error:
            found.add(error)
    # Print order follows the rules: by the number of the first rule each example illustrates.
    return sorted(examples, key=lambda e: (_number_key(book.rules[e.rules[0]].number), e.title))


def _number_key(number: str) -> tuple[int, ...]:
    return tuple(int(part) for part in number.split("."))


def load_example(path: Path, book: Book) -> Example:
    """One example, checked against schemas/example.yaml and then against the book's rule IDs."""
    shown = shown_path(path, book.root)
    raw = load_yaml(path, shown, root=book.root)
    found = Collector()
    found.extend(schema.validate(raw, "example", shown, book.prefix))
    found.raise_if_any()
    if raw["id"] != path.stem:
        found.add(SourceError(shown, line_of(raw, "id"), f"example ID '{raw['id']}' differs from its file name "
                                                         f"'{path.name}' (name the file <id>.yaml)"))
    rules = raw["rules"]
    for index, rule_id in enumerate(rules):
        if rule_id not in book.rules:
            found.add(SourceError(shown, line_of(rules, index), f"unknown rule ID '{rule_id}' in book "
                                                                f"'{book.id}'{rule_hint(rule_id, book.rules)}",
                                  rule=rule_id))
    start = raw["start"]
    refused = start.get("refused")
    if refused is not None and refused not in book.rules:
        found.add(SourceError(shown, line_of(start, "refused"), f"'refused' names unknown rule ID '{refused}'"
                                                                f"{rule_hint(refused, book.rules)}", rule=refused))
    found.extend(_player_problems(raw, shown, book, refused is None))
    steps = [] if refused is not None else _steps(raw["steps"], shown, book, found)
    found.extend(_seat_problems(raw, shown))
    found.extend(textpolicy.field_errors(raw, shown, "example", plain=("title", "summary"), template=("text",)))
    found.raise_if_any()
    source = raw.get("source", "authored")
    source_kind, source_ref = ((source, "") if isinstance(source, str) else
                               ("seed", source["seed"]) if "seed" in source else ("external", source["external"]))
    return Example(raw["id"], book.id, shown, raw["title"], list(rules), source_kind, source_ref,
                   list(raw.get("players", [])), plain(raw.get("options") or {}), raw.get("seed", 0), plain(start),
                   steps, raw.get("text") or "", line_of(raw, "text"), raw.get("summary") or "", raw, raw.get("as"),
                   bool(raw.get("designer", False)))


def _seat_problems(raw: Any, shown: str) -> list[SourceError]:
    """Every ``as:`` (the example's, each diagram's) names one of the example's players."""
    players = list(raw.get("players") or [])
    named = [(raw, "as", "the example")] + [
        (step["diagram"], "as", f"checkpoint '{step['checkpoint']}'s diagram") for step in raw.get("steps") or []
        if isinstance(step, dict) and isinstance(step.get("diagram"), dict) and "as" in step["diagram"]]
    problems = []
    for mapping, key, what in named:
        seat = mapping.get(key)
        if seat is not None and seat not in players:
            problems.append(SourceError(shown, line_of(mapping, key), f"{what} is told as '{seat}', who is not one of "
                                                                      f"its players ({', '.join(players) or 'none'})"))
    return problems


def _player_problems(raw: Any, shown: str, book: Book, count_matters: bool) -> list[SourceError]:
    """Players named twice, and a count the book is not played by; a setup the example expects to be
    refused (``start.refused``) may name any count, since that refusal is what it shows."""
    players = raw.get("players")
    if not players:
        return []
    problems = []
    for index, name in enumerate(players):
        if name in players[:index]:
            problems.append(SourceError(shown, line_of(players, index), f"players: '{name}' twice (each player "
                                                                        f"needs a name of their own)"))
    span = book.data.get("players")
    if count_matters and isinstance(span, dict) and not span["min"] <= len(players) <= span["max"]:
        wanted = str(span["min"]) if span["min"] == span["max"] else f"{span['min']} to {span['max']}"
        count = f"{len(players)} player" + ("s" if len(players) != 1 else "")
        problems.append(SourceError(shown, line_of(raw, "players"), f"players: {count}, but {book.id} is played by "
                                    f"{wanted} (book.yaml 'players'); an example of a refused setup says so with "
                                    f"'start: {{setup: true, refused: <rule>}}'"))
    return problems


def _steps(raw_steps: list[Any], shown: str, book: Book, found: Collector) -> list[Step]:
    """The steps, already shaped by the schema; here only what needs the book or the other steps."""
    steps = []
    checkpoints: dict[str, int | None] = {}
    for index, item in enumerate(raw_steps):
        step_line = line_of(raw_steps, index)
        kind = "action" if "do" in item else "checkpoint" if "checkpoint" in item else "chance"
        if kind == "checkpoint":
            name = item["checkpoint"]
            if name in checkpoints:
                found.add(SourceError(shown, step_line, f"checkpoint '{name}' appears twice (first at line "
                                                        f"{checkpoints[name]})"))
            checkpoints.setdefault(name, step_line)
            found.extend(textpolicy.field_errors(item, shown, f"checkpoint '{name}'", plain=("diagram",)))
            if isinstance(item.get("diagram"), dict):
                found.extend(textpolicy.field_errors(item["diagram"], shown, f"checkpoint '{name}' diagram",
                                                     plain=("caption",)))
        illegal = item.get("illegal")
        if illegal is not None and illegal not in book.rules:
            found.add(SourceError(shown, step_line, f"step {index + 1} expects a rejection by unknown rule ID "
                                                    f"'{illegal}'{rule_hint(illegal, book.rules)}", rule=illegal))
        if kind == "checkpoint":
            found.extend(_event_rule_problems(item, shown, book))
        steps.append(Step(index + 1, step_line, kind, plain(item)))
    return steps


def _expected_events(events: Any) -> list[tuple[Any, Any, int]]:
    """Each event a checkpoint's ``events`` expects, with the list holding it and its place there: the items of
    the list, and those of each ``any_order`` group in it."""
    listed = events if isinstance(events, list) else []
    found = []
    for index, item in enumerate(listed):
        group = item.get("any_order") if isinstance(item, dict) else None
        if isinstance(group, list):
            found.extend((event, group, place) for place, event in enumerate(group))
        else:
            found.append((item, listed, index))
    return found


def _event_rule_problems(checkpoint: dict[str, Any], shown: str, book: Book) -> list[SourceError]:
    """An expected event's ``rule`` is a rule ID of the book: a misspelt one would only show as an event that
    never happened."""
    problems = []
    for event, holder, index in _expected_events(checkpoint.get("events")):
        rule_id = event.get("rule") if isinstance(event, dict) else None
        if isinstance(rule_id, str) and rule_id not in book.rules:
            problems.append(SourceError(shown, line_of(holder, index), f"checkpoint '{checkpoint['checkpoint']}': "
                                        f"an expected event names unknown rule ID '{rule_id}'"
                                        f"{rule_hint(rule_id, book.rules)}", rule=rule_id))
    return problems
