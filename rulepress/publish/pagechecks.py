"""What a book's pages promise a reader, read back from the built PDF (``pdfread``) as an editor pages through it.

- no inner page under 40% filled by ink (a box's sides running on to the next page are none), unless a chapter
  ends on it (``mostly_empty``);
- no reference broken over a line or a page turn: "(rule 8.3, p. 11)" is set whole (``split_references``);
- every page reference names the page it links to: its folio (``references_right``);
- no example comes before the first page of a rule it names from its chapter (``examples_before_rules``);
- each running head names the chapter in force at the top of its page (``running_heads``);
- a player's edition holds no engine ID, rule ID, engine notation, "verified" badge or word of the workshop
  ("designer question", "edition", "engine"...: each language's list, ``workshop_pattern``) (``player_marks``);
- the print and digital editions place every element alike relative to the text block (``register``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rulepress.publish.pdfread import FILL, MM, Page, Read
from rulepress.publish.preflight import Finding

if TYPE_CHECKING:
    from rulepress.load.book import Book

# FILL (pdfread): an inner page's ink reaches at least this far down its text block, unless a chapter ends there.


# -- pages that flow --------------------------------------------------------------------------------------


def opening(page: Page) -> str | None:
    """The chapter whose heading opens ``page``: a level-1 bookmark with nothing of the text block above it."""
    for heading in page.headings:
        if heading.level != 1:
            continue
        above = [box for box in page.inside if box.y0 > heading.y + 0.5]
        if not above:
            return heading.title
        break  # the page's first chapter heading has something above it: no chapter opens the page
    return None


def chapter_ends(read: Read) -> set[int]:
    """The pages a chapter (or a part) ends on: the page before one a chapter opens, before one without a running
    head (a page left for notes, the back cover), and the last."""
    pages = read.pages
    ends = {len(pages)}
    for before, page in zip(pages, pages[1:], strict=False):
        if opening(page) is not None or not page.head:
            ends.add(before.number)
    return ends


def mostly_empty(read: Read) -> list[Finding]:
    """No inner page (between the covers) is under :data:`FILL` full, except the last page of a chapter."""
    ends = chapter_ends(read)
    return [Finding(read.name, page.number, "text block",
                    f"filled to {page.fill:.0%} of its height, under {FILL:.0%}: only a chapter's last page may be "
                    "(an example or a table pushed to the next page?)")
            for page in read.pages[1:-1] if page.fill < FILL and page.number not in ends]


# -- examples after their rules ----------------------------------------------------------------------------


def _examples(book: Book) -> list[tuple[str, str, list[str], bool]]:
    """The book's examples: ID, title, the rules each names, whether the designer's alone (None read: none)."""
    from rulepress.audience import designer_only
    from rulepress.errors import SourceError
    from rulepress.load.examples import load_examples

    try:
        return [(e.id, e.title, list(e.rules), designer_only(e, book)) for e in load_examples(book)]
    except (SourceError, OSError):  # the gate refuses bad examples first; a PDF checked on its own goes without
        return []


def examples_before_rules(read: Read, book: Book | None) -> list[Finding]:
    """No example is printed before the page a rule it names from its own chapter begins on (the chapter of its
    first rule; a rule of another chapter is a cross-reference, printed with its page).  Pages come from the
    PDF's named destinations: each rule's heading and each example carry their ID."""
    if book is None:
        return []
    pages = read.destinations()
    findings = []
    for example, title, rules, designer in _examples(book):
        if example not in pages or (designer and read.edition != "designer"):
            continue
        # A player's book names only the rules it prints (rulepress/audience.py: player_rules).
        named = [rule for rule in rules if rule in book.rules and (read.edition == "designer"
                                                                   or not book.rules[rule].designer)]
        if not named:
            continue
        chapter = book.rules[named[0]].chapter
        for rule in named:
            begins = pages.get(rule)
            if book.rules[rule].chapter == chapter and begins is not None and begins > pages[example]:
                shown = book.rules[rule]
                findings.append(Finding(read.name, pages[example], "example",
                                        f"'{title}' names rule {shown.number} ({shown.title}), which begins on "
                                        f"page {begins}, after it: an example follows every rule it names from its "
                                        "chapter (book.yaml examples: beside-rules places it so)"))
                break
    return findings


# -- references whole -------------------------------------------------------------------------------------

# A cross-reference as the books print it: "rule 8.3, p. 11" (French "règle 8.3, p. 11"), "(rule 4.4)" in an
# example's steps, or a page alone ("p. 11").  A rule number alone is no reference: a table's row starts with one
# ("its own rule" / "5.1 Using Abilities"), as does a line after a heading that ends in "rules".
_REFERENCE = re.compile(r"\(?\b(?:rules?|règles?)\s+\d+(?:\.\d+)*,\s*p\.\s*\d+\)?|"
                        r"\((?:rules?|règles?)\s+\d+(?:\.\d+)*\)|\bp\.\s*\d+\)?")
_LEFT_OPEN = re.compile(r"(?:\((?:rules?|règles?)|\bp\.)$")  # "(rule" or "p." ending a line


def _broken(before: str, after: str) -> str | None:
    """The reference the break between lines ``before`` and ``after`` falls inside, if any."""
    before, after = before.rstrip(), after.lstrip()
    if _LEFT_OPEN.search(before):
        return f"{before[-20:]} / {after[:12]}"
    text = f"{before} {after}"
    for match in _REFERENCE.finditer(text, max(0, len(before) - 40)):
        if match.start() < len(before) < match.end() - 1:
            return f"{before[match.start():]} / {after[:match.end() - len(before) - 1]}"
    return None


def split_references(read: Read) -> list[Finding]:
    """No reference is split over two lines or a page turn (a line ending "(rule" or "p.", a number on the next)."""
    findings = []
    last: tuple[Page, str] | None = None
    for page in read.pages:
        lines = page.lines
        if last is not None and lines:
            broken = _broken(last[1], lines[0])
            if broken:
                findings.append(Finding(read.name, last[0].number, "last line", f"reference '{broken}' broken "
                                        "across the page turn (tie it with no-break spaces)"))
        for number, (before, after) in enumerate(zip(lines, lines[1:], strict=False), start=1):
            broken = _broken(before, after)
            if broken:
                findings.append(Finding(read.name, page.number, f"line {number}",
                                        f"reference '{broken}' broken across two lines (tie it with no-break spaces)"))
        last = (page, lines[-1]) if lines and page.head else None  # covers and pages for notes hold no reference
    return findings


# A page reference's number, as the books print it: after "p." ("rule 8.3, p. 11", a glossary term's "p. 7") or
# after a contents entry's leader ("1.3 Goal ........ 5"); the last thing the link's text holds.
_PAGE_NUMBER = re.compile(r"(?:\bp\.|\.\s?\.)\s*(\d+)\)?$")
_LEADER = re.compile(r"(?:\s?\.){3,}")


def references_right(read: Read) -> list[Finding]:
    """Every page reference names the page its link goes to, by the folio printed there (the page's number in
    the file where it prints none).  WeasyPrint 70 left stale numbers when a heading moved late in its
    repagination (``rulepress.render.weasyprint_patches.references_twice``)."""
    folios = {page.number: page.foot if page.foot.isdigit() else str(page.number) for page in read.pages}
    findings = []
    for page in read.pages:
        seen = set()
        for link in page.links:
            shown = _PAGE_NUMBER.search(link.text)
            if shown is None or shown.group(1) == folios.get(link.target) or (shown.group(1), link.target) in seen:
                continue
            # WeasyPrint gives a reference a link for each of its boxes (its words, a leader, its number): the first
            # covers them all.
            seen.add((shown.group(1), link.target))
            text = " ".join(_LEADER.sub(" … ", link.text).split())
            findings.append(Finding(read.name, page.number, "page reference",
                                    f"'{text[-50:]}' names page {shown.group(1)}, but its link goes to page "
                                    f"{folios.get(link.target, link.target)}"))
    return findings


# -- running heads ----------------------------------------------------------------------------------------


def running_heads(read: Read) -> list[Finding]:
    """A page's running head names the chapter in force at its top: the one whose heading opens the page, else
    the last one begun on an earlier page, never one that starts lower down."""
    findings = []
    current = ""
    for page in read.pages:
        wanted = opening(page) or current
        if page.head and wanted and " ".join(page.head.split()) != wanted:
            lower = [h.title for h in page.headings if h.level == 1 and h.title == page.head]
            why = " (it starts lower on this page)" if lower else ""
            findings.append(Finding(read.name, page.number, "running head",
                                    f"'{page.head}', but the chapter in force at the top of the page is "
                                    f"'{wanted}'{why}"))
        chapters = [h.title for h in page.headings if h.level == 1]
        current = chapters[-1] if chapters else current
    return findings


# -- player editions --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    """Something a player's edition must not print, by name."""

    name: str
    pattern: re.Pattern[str]


# An engine's slug for a component with a number: "rose-2" (the player's words: "a rose moth worth 2").
ENGINE_ID = re.compile(r"(?<![\w-])[a-z]+(?:-[a-z]+)*-\d+(?![\w-])")
# A rule ID of any book when no book is known: "lm.turn.light" (a prefix of two to eight letters, a dot, a word).
ANY_RULE_ID = re.compile(r"\b[a-z]{2,8}\.[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*\b")
BADGE = "\u2714"  # the heavy check mark of the site's and the designer edition's "✔ Verified"


def _phrase(text: str) -> str:
    """A fixed phrase of the renderer ("✔ Verified: replayed against the rules engine") as a pattern of its words,
    its check mark apart, with any spacing between them (French sets a no-break space before the colon)."""
    words = text.replace(BADGE, " ").replace(":", " : ").split()
    return r"\s*".join(re.escape(word) for word in words)


def player_marks_for(book: Book | None = None) -> tuple[Mark, ...]:
    """What :func:`player_marks` looks for: the badge in every language the renderer speaks, engine IDs, the
    book's rule IDs (any book's without one) and the workshop's words in the book's language (every language's
    without a book: :func:`workshop_pattern`).  An engine's notation ("a1 b2 c3") is the player-text check's, on
    the pages' HTML before they are laid out (``rulepress.render.player_text``), where a credit's verbatim
    citation can be told apart from running text."""
    key = (book.prefix, getattr(book, "language", "en")) if book is not None else None
    if key not in _MARKS:
        _MARKS[key] = _marks(*(key or (None, None)))
    return _MARKS[key]


_MARKS: dict[tuple[str, str] | None, tuple[Mark, ...]] = {}
WORKSHOP = "workshop word"


def workshop_pattern(lang: str | None) -> re.Pattern[str]:
    """The workshop's words a player's book must not print (``workshop_words`` in
    rulepress/render/strings/<lang>.yaml, every language's when ``lang`` is None): each at the start of a word, in
    any case, with any ending, its words apart by any spacing (a line may break between them)."""
    from rulepress.render.strings import available, strings

    words = {word.strip() for one in ([lang] if lang else available())
             for word in strings(one)("workshop_words").split(";") if word.strip()}
    # Longest first, so a phrase wins over a word it starts with; then by spelling, so that the pattern (and the
    # preflight label it is kept under) is the same in every process, whatever order the set came in.
    phrases = sorted(words, key=lambda phrase: (-len(phrase), phrase))
    return re.compile(r"(?<!\w)(?:" + "|".join(r"\s+".join(re.escape(part) for part in phrase.split())
                                                for phrase in phrases) + r")\w*", re.IGNORECASE)


def _marks(prefix: str | None, lang: str | None) -> tuple[Mark, ...]:
    from rulepress.render.strings import available, strings

    phrases = "|".join(_phrase(strings(lang)(key)) for lang in available() for key in ("verified", "verified_title"))
    rule_id = re.compile(rf"\b{re.escape(prefix)}\.[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\b") if prefix else ANY_RULE_ID
    return (Mark("verified badge", re.compile(f"{BADGE}(?:\\s*(?:{phrases}))?|{phrases}")),
            Mark("engine ID", ENGINE_ID), Mark("rule ID", rule_id), Mark(WORKSHOP, workshop_pattern(lang)))


def _untypeset(text: str) -> str:
    """French typography's no-break spaces (before ": ; ! ?", inside « ») read as the plain spaces patterns expect."""
    return re.sub("[\u00a0\u202f]+(?=[;:!?»])|(?<=«)[\u00a0\u202f]+", "", text).replace("\u00a0", " ").replace(
        "\u202f", " ")


def _found(page: Page, marks: tuple[Mark, ...]) -> Iterator[tuple[str, str, str]]:
    """Each mark on the page, with 30 characters either side; a passage once, by the first mark that finds it (a
    badge's "replayed against the rules engine" is the badge, not workshop words)."""
    text = _untypeset(" ".join([page.head, page.text, page.foot]))
    taken: list[tuple[int, int]] = []
    for mark in marks:
        for match in mark.pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append(match.span())
            start, end = max(0, match.start() - 30), min(len(text), match.end() + 30)
            yield mark.name, match.group(0), text[start:end]


def player_marks(read: Read, marks: tuple[Mark, ...]) -> list[Finding]:
    """No page of a player's edition prints an engine ID, a rule ID or a "verified" badge: they belong on the site
    and in the designer edition."""
    findings = []
    for page in read.pages:
        seen: set[tuple[str, str]] = set()
        for name, what, context in _found(page, marks):
            if (name, what) in seen:
                continue
            seen.add((name, what))
            where = (": the workshop is the designer's alone; mark its passage in the source [...]{.designer}, or "
                     "the rule or example (rulepress guide formats, 'For the designer alone')" if name == WORKSHOP
                     else ": it belongs in the designer edition")
            findings.append(Finding(read.name, page.number, "page text", f"{name} '{what}' in a player's edition "
                                    f"(…{' '.join(context.split())}…){where}"))
    return findings


# -- register ---------------------------------------------------------------------------------------------

Placed = tuple[tuple[str, float, float, float, float], ...]  # a page's objects from the text block's top left
Placement = tuple[Placed, ...]  # every page's
TOLERANCE = 0.3  # points: what two layouts of the same page may differ by (rounding)


def placement(read: Read) -> Placement:
    """Every page's text-block objects, from the text block's top left corner (the print edition's gutter and the
    digital edition's centred block taken off): what :func:`register` compares."""
    from rulepress.render.pdf import gutter_mm, margins

    if read.edition == "digital":
        inner = outer = sum(margins(gutter_mm(len(read.pages)))) / 2  # the same text block, centred
    else:
        inner, outer = margins(gutter_mm(len(read.pages)))
    placed = []
    for page in read.pages:
        left = (inner if page.number % 2 else outer) * MM  # odd pages are right-hand: the gutter on their left
        top = page.block[1]
        placed.append(tuple(sorted((box.kind, box.x0 - left, top - box.y1, box.x1 - left, top - box.y0)
                                   for box in page.inside)))
    return tuple(placed)


Box5 = tuple[str, float, float, float, float]
_AROUND = tuple((a, b, c, d) for a in (0, -1, 1) for b in (0, -1, 1) for c in (0, -1, 1) for d in (0, -1, 1))


def _alike(one: Box5, other: Box5) -> bool:
    return one[0] == other[0] and all(abs(v - w) <= TOLERANCE for v, w in zip(one[1:], other[1:], strict=True))


def _unmatched(ours: Placed, theirs: Placed) -> tuple[list[Box5], int]:
    """Our boxes the other page has nowhere (within :data:`TOLERANCE` on every side), and how many of its boxes
    are left over once ours are matched."""
    if len(ours) == len(theirs) and all(map(_alike, ours, theirs)):  # both sorted: nearly every page
        return [], 0
    index: dict[tuple[object, ...], list[Box5]] = {}
    for box in theirs:
        index.setdefault((box[0], *(round(v) for v in box[1:])), []).append(box)
    misplaced = []
    for box in ours:
        quantised = [round(v) for v in box[1:]]
        match = next(((key, other) for offsets in _AROUND
                      for key in [(box[0], *(q + o for q, o in zip(quantised, offsets, strict=True)))]
                      for other in index.get(key, []) if _alike(box, other)), None)
        if match is None:
            misplaced.append(box)
        else:
            index[match[0]].remove(match[1])
    return misplaced, sum(len(boxes) for boxes in index.values())


def _describe(box: Box5, theirs: Placed) -> str:
    kind, x0, y0, x1, y1 = box
    where = f"{kind} of {(x1 - x0) / MM:.1f} × {(y1 - y0) / MM:.1f} mm at {x0 / MM:.1f} mm, {y0 / MM:.1f} mm"
    same = [t for t in theirs
            if t[0] == kind and abs((t[3] - t[1]) - (x1 - x0)) < 1 and abs((t[4] - t[2]) - (y1 - y0)) < 1]
    if not same:
        return f"{where}, which the digital edition does not have"
    nearest = min(same, key=lambda t: abs(t[1] - x0) + abs(t[2] - y0))
    dx, dy = (x0 - nearest[1]) / MM, (y0 - nearest[2]) / MM
    return f"{where}, {dx:+.1f} mm across and {dy:+.1f} mm down from the digital edition's"


def register(press: Read | Placement, screen: Read | Placement, name: str = "") -> list[Finding]:
    """The print edition places every object of every body page where the digital edition has it, relative to the
    text block (covers apart): the gutter moves whole pages, never a table's background off its table."""
    ours = press if isinstance(press, tuple) else placement(press)
    theirs = screen if isinstance(screen, tuple) else placement(screen)
    name = name or (press.name if isinstance(press, Read) else "")
    findings = []
    for number, (one, other) in enumerate(zip(ours[1:len(theirs) - 1], theirs[1:-1], strict=False), start=2):
        misplaced, extra = _unmatched(one, other)
        if not misplaced and not extra:
            continue
        first = _describe(misplaced[0], other) if misplaced else f"the digital edition has {extra} more"
        findings.append(Finding(name, number, "page objects", f"{len(misplaced)} of {len(one)} out of register with "
                                f"the digital edition relative to the text block; first: {first}"))
    return findings


def check(read: Read, book: Book | None = None) -> list[Finding]:
    """Every page check of ``read``'s edition (a player's edition is searched for ``book``'s marks)."""
    findings = mostly_empty(read) + split_references(read) + references_right(read) + running_heads(read)
    findings += examples_before_rules(read, book)
    if read.edition != "designer":
        findings += player_marks(read, player_marks_for(book))
    return findings
