"""Chapters: Markdown templates whose headings carry immutable rule IDs.

A heading ``## Light {#lm.turn.light}`` opens a rule; its body runs to the next heading.  Displayed
numbers (3.4) are derived from the order of chapters and headings, never written by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from rulepress.errors import SourceError

RULE_ID = re.compile(r"^[a-z]+(\.[a-z0-9-]+)+$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{#([^}\s]+)\})?\s*$")
CROSS_REF = re.compile(r"\[\[([^\]\s]+)\]\]")
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass
class Rule:
    id: str
    title: str
    level: int
    number: str
    file: str
    line: int
    chapter: str
    body: str = ""
    children: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"rule {self.number} ({self.title})"


@dataclass
class Chapter:
    id: str
    title: str
    number: str
    file: str
    rules: list[Rule]


class DataEnvironment(jinja2.Environment):
    """Looks keys up before attributes: in component data ``colours.values`` is a key, not dict.values."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if isinstance(obj, dict) and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


def template_environment() -> jinja2.Environment:
    # Jinja comments move to {## ##} so that "{#rule.id}" heading attributes stay plain text.
    return DataEnvironment(
        undefined=jinja2.StrictUndefined,
        comment_start_string="{##",
        comment_end_string="##}",
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_template(text: str, context: dict[str, Any], file: str, first_line: int | None = 1) -> str:
    """Render ``text`` (which starts at ``first_line`` of ``file``); errors name the file's own line."""
    env = template_environment()

    def at(line: int | None) -> int | None:
        return None if line is None or first_line is None else first_line + line - 1

    try:
        return env.from_string(text).render(**context)
    except jinja2.TemplateSyntaxError as exc:
        unclosed = _unclosed_tag(text, exc.lineno)
        if unclosed:
            raise SourceError(file, at(unclosed), "template error: a '{{' is never closed with '}}'") from exc
        raise SourceError(file, at(exc.lineno), f"template error: {exc.message}") from exc
    except jinja2.UndefinedError as exc:
        line = _template_line(exc)
        used = re.findall(r"\{\{.*?\}\}", text.splitlines()[line - 1]) if line else []
        where = f" in {', '.join(used)}" if used else ""
        raise SourceError(file, at(line), f"unknown template variable{where}: {exc.message}") from exc
    except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError) as exc:
        raise SourceError(file, at(_template_line(exc)), f"template error: {exc}") from exc


def _unclosed_tag(text: str, upto: int) -> int | None:
    """Jinja notices an unclosed ``{{`` only where parsing breaks; point at the tag itself."""
    for number, line in enumerate(text.splitlines()[:upto], start=1):
        if line.rfind("{{") > line.rfind("}}"):
            return number
    return None


def _template_line(exc: BaseException) -> int | None:
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def parse_chapter(text: str, file: str, chapter_number: int, prefix: str) -> Chapter:
    """Split a rendered chapter into its rules, numbering them from ``chapter_number``."""
    rules: list[Rule] = []
    chapter: Rule | None = None
    current: Rule | None = None
    body: list[str] = []
    counters = [0, 0]
    in_fence = False

    def close() -> None:
        if current is not None:
            current.body = "\n".join(body).rstrip("\n")
        body.clear()

    for index, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(line)
        if not match or len(match.group(1)) > 3:
            body.append(line)
            continue
        level, title, rule_id = len(match.group(1)), match.group(2).strip(), match.group(3)
        if rule_id is None:
            raise SourceError(file, index, f"heading '{title}' has no rule ID; write it as "
                                           f"'{match.group(1)} {title} {{#{prefix}.…}}'")
        if not RULE_ID.match(rule_id) or not rule_id.startswith(prefix + "."):
            raise SourceError(file, index, f"'{rule_id}' is not a valid rule ID (lower case, dot separated, "
                                           f"starting with '{prefix}.')", rule=rule_id)
        close()
        if level == 1:
            if chapter is not None:
                raise SourceError(file, index, "a chapter file holds one level-1 heading", rule=rule_id)
            number = str(chapter_number)
        elif chapter is None:
            raise SourceError(file, index, "the chapter's level-1 heading must come first", rule=rule_id)
        elif level == 2:
            counters[0] += 1
            counters[1] = 0
            number = f"{chapter_number}.{counters[0]}"
        else:
            if counters[0] == 0:
                raise SourceError(file, index, "a level-3 rule needs a level-2 rule above it", rule=rule_id)
            counters[1] += 1
            number = f"{chapter_number}.{counters[0]}.{counters[1]}"
        current = Rule(rule_id, title, level, number, file, index, chapter=(chapter.id if chapter else rule_id))
        if level == 1:
            chapter = current
        else:
            parent = next(r for r in reversed(rules) if r.level < level)
            parent.children.append(rule_id)
        rules.append(current)
    close()
    if in_fence:
        raise SourceError(file, None, "a code fence is never closed")
    if chapter is None:
        raise SourceError(file, 1, "a chapter must start with a level-1 heading carrying its rule ID")
    return Chapter(chapter.id, chapter.title, chapter.number, file, rules)


def find_cross_refs(rule: Rule) -> list[tuple[str, int]]:
    """Every ``[[rule.id]]`` in a rule's body, with its line in the chapter file."""
    found = []
    for offset, line in enumerate(rule.body.splitlines(), start=1):
        for match in CROSS_REF.finditer(line):
            found.append((match.group(1), rule.line + offset))
    return found


def load_chapter(path: Path, shown_as: str, context: dict[str, Any], number: int, prefix: str) -> Chapter:
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(shown_as, None, f"cannot read chapter: {exc}") from exc
    return parse_chapter(render_template(source, context, shown_as), shown_as, number, prefix)
