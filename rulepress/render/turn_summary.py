"""The back cover's player aid: a turn summary drawn from the book's own rules.

book.yaml ``turn_summary`` lists groups, each a rule whose title heads it (its first sentence opening it) and the
rules it sums up, each printed as its number, its title and its first sentence (all of its list, for a rule
written as a list: a round summary's phase), with the page it starts on.  Everything comes from the rule text of
the edition's language, the designer's passages left out: a translation has its summary without a word of its
own.  A book without ``turn_summary`` gets its chapters and their sections' titles: the game at a glance.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

import markdown as markdown_lib

from rulepress.audience import PLAYERS, for_audience
from rulepress.load.book import Book
from rulepress.load.rules import CROSS_REF, Rule
from rulepress.render.markdown import designer_refs
from rulepress.render.strings import Strings


@dataclass
class Line:
    number: str
    title: str
    rule: str  # its ID (the anchor a page number is read from)
    html: str  # its first sentence, or its list, as HTML ("" for a title alone)
    page: int | None = None


@dataclass
class Group:
    title: str
    lead: str  # HTML: the heading rule's first sentence ("" for none)
    lines: list[Line] = field(default_factory=list)
    compact: bool = False  # the titles alone, run on one after the other (the default summary)


def turn_summary(book: Book, t: Strings, pages: dict[str, int] | None = None) -> list[Group]:
    """The groups the back cover prints; ``pages``: each rule's page, once the body is laid out."""
    pages = pages or {}
    data = book.data.get("turn_summary")
    if not data:
        return at_a_glance(book, pages)
    groups = []
    for entry in data:
        heading = book.rules[entry["heading"]]
        lines = [_line(book.rules[rule_id], book, t, pages) for rule_id in entry.get("rules") or []]
        groups.append(Group(heading.title, _first_sentence(heading, book, t), lines))
    return groups


def at_a_glance(book: Book, pages: dict[str, int] | None = None) -> list[Group]:
    """The game at a glance: each chapter a player's book prints, with its sections' titles (and pages)."""
    pages = pages or {}
    groups = []
    for chapter in book.chapters:
        head = chapter.rules[0]
        if head.designer:
            continue
        lines = [Line(rule.number, rule.title, rule.id, "", pages.get(rule.id)) for rule in chapter.rules
                 if rule.level == 2 and not rule.designer]
        groups.append(Group(f"{chapter.number} {chapter.title}", "", lines, compact=True))
    return groups


def _line(rule: Rule, book: Book, t: Strings, pages: dict[str, int]) -> Line:
    items = _list_items(rule, book, t)
    text = "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>" if items else _first_sentence(
        rule, book, t)
    return Line(rule.number, rule.title, rule.id, text, pages.get(rule.id))


def _player_text(rule: Rule, book: Book, t: Strings) -> str:
    def ref(match: re.Match[str]) -> str:
        target = book.rules.get(match.group(1))
        return t("rule_ref", number=target.number) if target else match.group(0)

    text = designer_refs(for_audience(rule.body, PLAYERS), book, players=True)
    return CROSS_REF.sub(ref, text)


def _inline(text: str) -> str:
    """One line of Markdown as inline HTML (emphasis, code), without its paragraph."""
    out = markdown_lib.markdown(text.strip(), extensions=["attr_list"])
    return re.sub(r"^<p>|</p>$", "", out.strip())


_BLOCKS = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"^(.+?[.!?])(?=\s+[^\s]|$)", re.DOTALL)


def _first_sentence(rule: Rule, book: Book, t: Strings) -> str:
    """The rule's first sentence of its own words: a flavour paragraph (all in italics), a table or a list is
    passed over."""
    for block in _BLOCKS.split(_player_text(rule, book, t)):
        block = " ".join(block.split())
        if not block or block.startswith(("|", "#", "-", "*", "<", "{")) or re.fullmatch(r"\*[^*].*\*", block):
            continue
        found = _SENTENCE.match(block)
        return _inline(found.group(1) if found else block)
    return ""


def _list_items(rule: Rule, book: Book, t: Strings) -> list[str]:
    """The items of a rule written as a list alone (nothing but the list), as inline HTML."""
    text = _player_text(rule, book, t).strip()
    lines = text.splitlines()
    if not lines or not re.match(r"^[*-]\s", lines[0]):
        return []
    items: list[str] = []
    for line in lines:
        if re.match(r"^[*-]\s", line):
            items.append(line[2:].strip())
        elif line.strip() and items:
            items[-1] += " " + line.strip()
        elif line.strip():
            return []
    return [_inline(item) for item in items]


def summary_html(groups: list[Group], t: Strings) -> str:
    """The summary as the back cover's HTML (the template's ``turn_summary``)."""
    parts = []
    for group in groups:
        parts.append(f'<div class="summary-group"><h3>{html.escape(group.title)}</h3>')
        if group.lead:
            parts.append(f'<p class="lead">{group.lead}</p>')
        if group.compact:
            parts.append('<p class="glance">' + " · ".join(
                html.escape(line.title) + (f' <span class="page">{line.page}</span>' if line.page else "")
                for line in group.lines) + "</p>")
        else:
            for line in group.lines:
                page = f' <span class="page">{html.escape(t("page_abbrev"))}&#160;{line.page}</span>' if line.page \
                    else ""
                parts.append(f'<div class="summary-line"><p><b>{html.escape(line.title)}</b>{page}'
                             + (f" {line.html}</p>" if not line.html.startswith("<ul>") else f"</p>{line.html}")
                             + "</div>")
        parts.append("</div>")
    return "".join(parts)
