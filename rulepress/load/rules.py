"""Chapters: Markdown templates whose headings carry immutable rule IDs.

A heading ``## Light {#lm.turn.light}`` opens a rule; its body runs to the next heading.  Displayed
numbers (3.4) are derived from the order of chapters and headings, never written by hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import SecurityError

from rulepress import store
from rulepress.errors import SourceError
from rulepress.load import confine, textpolicy
from rulepress.load.sandbox import content_environment, split_marked
from rulepress.protocol import closest_rule

RULE_ID = re.compile(r"[a-z]+(\.[a-z0-9-]+)+")  # matched whole (fullmatch): "$" would let "x.y\n" by
# "## Not included {#lm.excluded .designer}": a rule ID, and classes of which ``.designer`` is the one read (the
# rule and its sub-rules are the designer's alone, rulepress/audience.py).
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{#([^}\s]+)((?:\s+\.[a-z][a-z0-9-]*)*)\s*\})?\s*$")
CROSS_REF = re.compile(r"\[\[([^\]\s]+)\]\]")
HEADING_CLASSES = ("designer", "aid")
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
    body_lines: list[int] = field(default_factory=list)  # the line in ``file`` of each line of ``body``
    designer: bool = False  # for the designer alone (``{#id .designer}``, or under such a rule): no player book has it
    classes: tuple[str, ...] = ()  # its heading's classes, without their dots (``{#id .aid}``: ("aid",))

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


def render_template(text: str, context: dict[str, Any], file: str, first_line: int | None = 1,
                    rule: str | None = None) -> str:
    """Render the rule text ``text`` (which starts at ``first_line`` of ``file``) in the sandbox.

    Errors are :class:`SourceError` naming the file's own line.  The text, before and after rendering, must
    also pass the content policy (:func:`rulepress.load.textpolicy.check_markdown`).
    """
    textpolicy.check_markdown(text, file, first_line, rule, template=True)
    rendered = _render(text, context, file, first_line, mark_lines=False)
    textpolicy.check_markdown(rendered, file, first_line, rule)
    return rendered


def render_chapter(text: str, context: dict[str, Any], file: str) -> tuple[str, list[int]]:
    """Render a chapter; also give, for each rendered line, its line in ``file`` (loops make them differ)."""
    textpolicy.check_markdown(text, file, 1, template=True)
    rendered, lines = split_marked(_render(text, context, file, 1, mark_lines=True))
    textpolicy.check_markdown(rendered, file, 1, lines=lines)
    return rendered, lines


def _render(text: str, context: dict[str, Any], file: str, first_line: int | None, mark_lines: bool) -> str:
    """The rendered text; the same text over the same plain context is rendered once per process (a serve session
    or a rebuild loads every chapter again after each edit; the output is a function of these alone)."""
    digest = store.plain_digest(context) if store.enabled() else None
    if digest is None:  # a context whose values act when printed (or nothing cached): render it every time
        return _render_now(text, context, file, first_line, mark_lines)
    # Not the file nor the line: they only place an error, and errors are never cached.
    return str(store.cached_in_process("template", store.key_of(text, digest, f"marks={mark_lines}"),
                                lambda: _render_now(text, context, file, first_line, mark_lines)))


def _render_now(text: str, context: dict[str, Any], file: str, first_line: int | None, mark_lines: bool) -> str:
    env = content_environment()

    def at(line: int | None) -> int | None:
        return None if line is None or first_line is None else first_line + line - 1

    try:
        return env.render_text(text, context, mark_lines)
    except jinja2.TemplateSyntaxError as exc:
        unclosed = _unclosed_tag(text, exc.lineno)
        if unclosed:
            raise SourceError(file, at(unclosed), "template error: a '{{' is never closed with '}}'") from exc
        unbalanced = "Unexpected end of template" in str(exc.message) or "needs to be closed" in str(exc.message)
        block = _unclosed_block(env, text, exc.lineno) if unbalanced else None
        if block:
            tag, line = block
            raise SourceError(file, at(line), f"template error: '{{% {tag} %}}' is never closed with "
                                              f"'{{% end{tag} %}}'") from exc
        raise SourceError(file, at(exc.lineno), f"template error: {exc.message}") from exc
    except SecurityError as exc:  # before UndefinedError: an unsafe attribute is an undefined raising this
        raise SourceError(file, at(_template_line(exc)), f"template refused: {exc}") from exc
    except jinja2.UndefinedError as exc:
        line = _template_line(exc)
        shown = text.splitlines()[line - 1] if line and line <= len(text.splitlines()) else ""
        used = re.findall(r"\{\{.*?\}\}", shown)
        where = f" in {', '.join(used)}" if used else ""
        raise SourceError(file, at(line), f"unknown template variable{where}: {exc.message}") from exc
    except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError, LookupError, AttributeError,
            RecursionError) as exc:
        raise SourceError(file, at(_template_line(exc)), f"template error: {type(exc).__name__}: {exc}") from exc


def _unclosed_tag(text: str, upto: int) -> int | None:
    """Jinja notices an unclosed ``{{`` only where parsing breaks; point at the tag itself."""
    for number, line in enumerate(text.splitlines()[:upto], start=1):
        if line.rfind("{{") > line.rfind("}}"):
            return number
    return None


BLOCK_TAGS = ("for", "if", "with", "filter", "set", "macro", "call", "block", "autoescape")


def _unclosed_block(env: jinja2.Environment, text: str, upto: int) -> tuple[str, int] | None:
    """The innermost block left open by line ``upto``: Jinja reports it where parsing stops, often far below."""
    stack: list[tuple[str, int]] = []
    try:
        tokens = [(line, kind, value) for line, kind, value in env.lex(text) if kind != "whitespace" and line <= upto]
    except jinja2.TemplateSyntaxError:
        return None
    for index, (line, kind, _) in enumerate(tokens[:-1]):
        if kind != "block_begin" or tokens[index + 1][1] != "name":
            continue
        tag = tokens[index + 1][2]
        rest = [v for _, k, v in tokens[index + 2:index + 40] if k == "block_end" or v == "="][:1]
        if tag in BLOCK_TAGS and not (tag == "set" and rest == ["="]):  # {% set x = 1 %} closes itself
            stack.append((tag, line))
        elif tag.startswith("end") and stack and stack[-1][0] == tag[3:]:
            stack.pop()
    return stack[-1] if stack else None


def _template_line(exc: BaseException) -> int | None:
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")


def _paragraph_text(line: str) -> bool:
    """A line a setext underline would turn into a heading: text, not a blank, a list item, a table or a quote."""
    stripped = line.strip()
    return bool(stripped) and not re.match(r"([-*+>|#]|\d+[.)])(\s|$)", stripped) and not line.startswith("    ")


def parse_chapter(text: str, file: str, chapter_number: int, prefix: str, lines: list[int] | None = None) -> Chapter:
    """Split a rendered chapter into its rules, numbering them from ``chapter_number``.

    ``lines`` gives the source line of each line of ``text`` (from :func:`render_chapter`); without it the
    text is taken to be the source itself.
    """
    rules: list[Rule] = []
    chapter: Rule | None = None
    current: Rule | None = None
    body: list[str] = []
    body_lines: list[int] = []
    counters = [0, 0]
    fence_line: int | None = None

    def close() -> None:
        if current is not None:
            current.body = "\n".join(body).rstrip("\n")
            current.body_lines = body_lines[:len(current.body.splitlines())]
        body.clear()
        body_lines.clear()

    previous, previous_index = "", 0
    for rendered, line in enumerate(text.splitlines(), start=1):
        index = lines[rendered - 1] if lines is not None and rendered <= len(lines) else rendered
        if FENCE.match(line):
            fence_line = index if fence_line is None else None
        if fence_line is None and SETEXT.match(line) and _paragraph_text(previous):
            # An underlined ("setext") heading would be a rule with no ID: ask for the one form that carries it.
            marks = "#" if line.lstrip().startswith("=") else "##"
            raise SourceError(file, previous_index, f"heading '{previous.strip()}' has no rule ID; write it as "
                                                    f"'{marks} {previous.strip()} {{#{prefix}.…}}'")
        previous, previous_index = line, index
        match = None if fence_line is not None else HEADING.match(line)
        if not match or len(match.group(1)) > 3:
            body.append(line)
            body_lines.append(index)
            continue
        level, title, rule_id = len(match.group(1)), match.group(2).strip(), match.group(3)
        if rule_id is None:
            raise SourceError(file, index, f"heading '{title}' has no rule ID; write it as "
                                           f"'{match.group(1)} {title} {{#{prefix}.…}}'")
        if not RULE_ID.fullmatch(rule_id) or not rule_id.startswith(prefix + "."):
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
        classes = tuple(name.lstrip(".") for name in (match.group(4) or "").split())
        if level > 1 and "aid" in classes:
            raise SourceError(file, index, "'.aid' marks a chapter (a player aid, kept whole on a page of its own): "
                                           "put it on the chapter's level-1 heading", rule=rule_id)
        unknown = [name for name in classes if name not in HEADING_CLASSES]
        if unknown:
            raise SourceError(file, index, f"unknown heading class '.{unknown[0]}' (known: "
                                           f"{', '.join('.' + name for name in HEADING_CLASSES)})", rule=rule_id)
        current = Rule(rule_id, title, level, number, file, index, chapter=(chapter.id if chapter else rule_id),
                       designer="designer" in classes, classes=classes)
        if level == 1:
            chapter = current
        else:
            parent = next(r for r in reversed(rules) if r.level < level)
            parent.children.append(rule_id)
            current.designer = current.designer or parent.designer
        rules.append(current)
    close()
    if fence_line is not None:
        raise SourceError(file, fence_line, "this code fence is never closed")
    if chapter is None:
        raise SourceError(file, 1, "a chapter must start with a level-1 heading carrying its rule ID")
    return Chapter(chapter.id, chapter.title, chapter.number, file, rules)


def rule_hint(rule_id: object, known: Iterable[str]) -> str:
    """What follows a message naming a rule ID the book does not have: the one it was most likely meant as
    (`` (did you mean 'lm.turn.light'?)``), or nothing.  Every place a rule ID is written says it this way."""
    close = closest_rule(rule_id, known)
    return f" (did you mean '{close}'?)" if close else ""


def find_cross_refs(rule: Rule) -> list[tuple[str, int]]:
    """Every ``[[rule.id]]`` in a rule's body, with its line in the chapter file."""
    found = []
    for offset, line in enumerate(rule.body.splitlines(), start=1):
        where = rule.body_lines[offset - 1] if offset <= len(rule.body_lines) else rule.line + offset
        for match in CROSS_REF.finditer(line):
            found.append((match.group(1), where))
    return found


# "[[" that does not open a well-formed reference: spaces inside, or never closed on its line.
_BROKEN_REF = re.compile(r"\[\[(?![^\]\s]+\]\])[^\n]{0,40}")


def broken_cross_refs(rule: Rule) -> list[tuple[str, int]]:
    """Every malformed ``[[…`` in a rule's body (it would print as text), with its line in the chapter file."""
    found = []
    for offset, line in enumerate(rule.body.splitlines(), start=1):
        where = rule.body_lines[offset - 1] if offset <= len(rule.body_lines) else rule.line + offset
        for match in _BROKEN_REF.finditer(line):
            shown = match.group(0)
            end = shown.find("]]")
            unclosed = re.match(r"\[\[\s*[\w.-]*", shown)
            found.append((shown[:end + 2] if end >= 0 else unclosed.group(0) if unclosed else "[[", where))
    return found


def load_chapter(root: Path, path: Path, shown_as: str, context: dict[str, Any], number: int, prefix: str) -> Chapter:
    """Read a chapter confined to the project ``root`` (a regular file of bounded size, UTF-8 with the line of a
    bad byte), render it in the sandbox and split it into rules."""
    source = confine.read_text(root, path, shown_as)
    text, lines = render_chapter(source, context, shown_as)
    return parse_chapter(text, shown_as, number, prefix, lines)
