"""Who a passage is for: the player's books print the rules; the workshop (designer questions, what an edition
leaves out, notes on how an example was built) is the designer's alone.

A designer marks the workshop in their own sources (``rulepress guide formats``, "For the designer alone"):

- a rule and its sub-rules: ``## Not included {#lm.excluded .designer}``;
- a block (a paragraph, a list) ending in a line ``{: .designer}`` (Python-Markdown's attribute list);
- a passage inside a paragraph, in rule text or an example's text: ``[(designer question lm.q3 asks …)]{.designer}``;
- an example: ``designer: true``.  An example is the designer's too when every rule it names is, or when its
  ``options`` give a designer question's engine option another answer than the one the book assumes (it shows
  "the other answer").

The player's books (print and digital) leave all of it out; the designer edition prints it, marked; the site
keeps it, marked, beside the rule IDs and badges it shows anyway.  What is left is read back from the built PDFs
for the workshop's words (``rulepress.publish.pagechecks.workshop_words``).
"""

from __future__ import annotations

import re
from typing import Any

# A loaded book and example (rulepress.load's Book and Example), by their fields alone: a base-layer module names
# no stage, not even for its type hints (tests/test_import_direction.py).
Book = Any
Example = Any

PLAYERS, SITE, DESIGNER = "players", "site", "designer"
AUDIENCES = (PLAYERS, SITE, DESIGNER)

# "[…]{.designer}": the brackets may hold cross-references ("[[lm.turn]]") and one level of other brackets.
_SPAN = re.compile(r"\[((?:[^\[\]]|\[\[[^\[\]\s]*\]\]|\[[^\[\]]*\])*)\]\{:?\s*\.designer\s*\}")
_BLOCK_MARK = re.compile(r"^[ \t]*\{:?[ \t]*\.designer[ \t]*\}[ \t]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def for_audience(text: str, audience: str) -> str:
    """Markdown ``text`` as ``audience`` reads it: the player's books without the designer's passages and blocks;
    the designer edition and the site with them, marked (class ``designer``)."""
    if "designer" not in text:
        return text
    if audience == PLAYERS:
        return _without_spans(_without_blocks(text))
    return _SPAN.sub(lambda m: f'<span class="designer">{m.group(1)}</span>', text)


def unmarked(text: str) -> str:
    """``text`` as the designer reads it, without the markup: each passage's words in place of ``[…]{.designer}``,
    each block's ``{: .designer}`` line left blank (the lines keep their numbers, for the lint's messages)."""
    if "designer" not in text:
        return text
    text = _SPAN.sub(lambda m: m.group(1), text)
    return "\n".join("" if _BLOCK_MARK.match(line) else line for line in text.split("\n"))


def _without_spans(text: str) -> str:
    """Every ``[…]{.designer}`` dropped with the space that set it off: the space before it when punctuation or
    more words follow ("a job[ (…)]{.designer}." reads "a job."), the space after it when it opens a line."""
    out, last = [], 0
    for match in _SPAN.finditer(text):
        before = text[last:match.start()]
        after = text[match.end():match.end() + 1]
        at_line_start = not before.rstrip(" \t") or before.rstrip(" \t").endswith("\n")
        if after in _CLOSING:
            out.append(before.rstrip())
        else:
            out.append(before if at_line_start else before.rstrip(" \t"))
        last = match.end()
        if at_line_start and after not in _CLOSING:
            while last < len(text) and text[last] in " \t":
                last += 1
    out.append(text[last:])
    return "".join(out)


_CLOSING = tuple(".,;:!?)")


def _without_blocks(text: str) -> str:
    """Every block whose last line is ``{: .designer}`` dropped, from the blank line before it (fences kept)."""
    lines = text.split("\n")
    kept: list[str] = []
    block_start = 0  # index in ``kept`` where the current block began
    fenced = False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
        if not fenced and _BLOCK_MARK.match(line):
            del kept[block_start:]
            block_start = len(kept)
            continue
        kept.append(line)
        if not fenced and not line.strip():
            block_start = len(kept)
    return "\n".join(kept)


def question_assumed_options(book: Book) -> dict[str, Any]:
    """Each designer question's engine option and the value the book assumes for it (its assumed answer's)."""
    found: dict[str, Any] = {}
    for question in book.questions:
        if not question.option:
            continue
        found[question.option] = question.option_value(question.assumed)
    return found


def designer_only(example: Example, book: Book) -> bool:
    """Whether only the designer edition prints ``example`` (see the module's docstring)."""
    if example.designer:
        return True
    rules = [book.rules[r] for r in example.rules if r in book.rules]
    if rules and all(rule.designer for rule in rules):
        return True
    assumed = question_assumed_options(book)
    return any(name in assumed and not _same(value, assumed[name]) for name, value in example.options.items())


def _same(one: Any, other: Any) -> bool:
    if isinstance(one, bool) or isinstance(other, bool):
        return one is other or (isinstance(one, str) and str(other).lower() == one.lower())
    return bool(one == other or str(one) == str(other))


def player_rules(example: Example, book: Book) -> list[str]:
    """The rules a player's book names for ``example``: those it prints (not the designer's)."""
    return [r for r in example.rules if r in book.rules and not book.rules[r].designer]
