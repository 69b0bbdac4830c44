"""An example's frames: the position after every step, drawn and told, for the site's step-through.

The book prints an example's diagrams at its checkpoints only; the site lets a reader step through it, so the
replay keeps one frame per step as well: the start, then each action (allowed, or refused, when the position stays
as it was).  A frame holds the diagram in each language of the book, its text alternative (the engine's narration
of the position) and the narration of the step that led to it, all from the one replay, so they are verified like
the rest: each diagram is checked as a checkpoint's is (:mod:`rulepress.verify.diagram`, and for a seat,
:func:`rulepress.verify.hidden.diagram_leak`).

A frame also keeps the position itself (``Game`` state, as data: :func:`rulepress.codec.state_codec`), from which
a reader may try a move in the browser (rulepress/render/browser/referee.py).  With hidden information the position
is what the example's seat knows: every part hidden from that seat is dealt again (``Observer.resample``) and chance
starts afresh, so that neither the page nor the state behind it holds what the seat cannot see; only that seat's
moves may be tried.  Told from no seat, it is what everyone sees, with what no one sees dealt again: a move tried
there is one the player to move could make in a game that looks the same to everyone.
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET  # noqa: N817 - the usual name; the SVG passed diagram.problem
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rulepress import i18n
from rulepress.change import Change
from rulepress.codec import CodecError, state_codec
from rulepress.protocol import PUBLIC, Chance, Game, Observer, narrator_of
from rulepress.verify import diagram, hidden


@dataclass
class StepFrame:
    """The position after one step (``step`` 0: the start), as the site's step-through shows it."""

    step: int
    svgs: dict[str, str]  # the diagram in each language of the book (source first), CMYK as engines draw
    alts: dict[str, str]  # its text alternative in each language: the engine's narration of the position
    narrations: dict[str, str] = field(default_factory=dict)  # what the step did, in each language ("" at the start)
    rejected_by: str | None = None  # the rule that refused the step (the position stays as it was)
    checkpoints: list[str] = field(default_factory=list)  # the checkpoints reached here (their captions go with it)
    seat: str | None = None  # whose view it shows (a player or PUBLIC), with an observer
    position: str | None = None  # the state a reader may try a move in (state_codec's JSON), as ``seat`` knows it
    player: str | None = None  # the seat whose moves may be tried there (None: the moves of whoever is to move)
    moments: dict[str, str] = field(default_factory=dict)  # what it shows ("After step 3"), in each language


class FrameError(Exception):
    """A frame's diagram the gate refuses (the message says what is wrong)."""


def make_frame(game: Game, state: Any, step: int, languages: list[str], observer: Observer | None,
               seat: str | None, drawn_by: str, change: Callable[[str], Change | None] | None = None,
               book: str = "") -> StepFrame:
    """The frame of ``state`` after step ``step``: drawn and told in every language, checked as every diagram is.

    ``seat``: the seat the example is told from (None: no one); ``change``: what the step changed, worded in a
    language (verify/changes.py); ``book``: the book's ID, for the messages.  Raises :class:`FrameError` for a
    diagram that is not plain, self-contained SVG, whose labels or marks do not keep clear of each other, that does
    not mark what its step changed, or that shows what its seat cannot see."""
    shown_seat = (seat or PUBLIC) if observer is not None else None
    view = observer.view(state, shown_seat) if observer is not None and shown_seat is not None else None
    changes = {lang: change(lang) if change is not None else None for lang in languages}
    svgs = i18n.in_languages(languages, lambda: diagram.render(game, state, None, shown_seat,
                                                               changes[i18n.current_language()]))
    position = "the starting position" if step == 0 else f"the position after step {step}"
    for lang, svg in svgs.items():
        wrong = diagram.checked(svg, changes[lang], book=book, lang=lang)
        if wrong is not None:
            shown = "" if lang == languages[0] else f" ({lang})"
            raise FrameError(f"the diagram{shown} of {position} from {drawn_by} {wrong}")
    if observer is not None and shown_seat is not None and view is not None:
        leak = hidden.diagram_leak(game, observer, state, shown_seat, None, svgs[languages[0]], view,
                                   changes[languages[0]])
        if leak is not None:
            raise FrameError(f"{position}: {leak} ({drawn_by})")
    narrator = narrator_of(game)
    told = view if view is not None else game.snapshot(state)
    alts = (i18n.in_languages(languages, lambda: narrator.narrate_state(game, told)) if narrator is not None
            else {lang: _described(svg) for lang, svg in svgs.items()})
    frame = StepFrame(step, svgs, alts, seat=shown_seat, player=seat if observer is not None else None,
                      moments={lang: said.moment for lang, said in changes.items() if said is not None})
    known = state if observer is None or shown_seat is None else seat_position(game, observer, state, shown_seat, step)
    try:
        frame.position = state_codec(game).dumps(known)
    except CodecError:  # a state holding a lambda or a lock: no trying
        frame.position = None
    return frame


def _described(svg: str) -> str:
    """The diagram's own ``<desc>`` (an engine without a narrator words its text alternative there); none for an SVG
    that does not parse (the gate refused it above; without that check WeasyPrint still refuses it)."""
    try:
        found = ET.fromstring(svg).find(f"{diagram.SVG_NAMESPACE}desc")
    except ET.ParseError:
        return ""
    return " ".join((found.text or "").split()) if found is not None else ""


def seat_position(game: Game, observer: Observer, state: Any, seat: str, step: int) -> Any:
    """A copy of ``state`` holding only what ``seat`` knows: each hidden part dealt again (the same replay deals
    the same), and a chance that remembers no draw and forces none (its past would tell the deck's order)."""
    twin = game.clone(state)
    for part in observer.hidden:
        twin = observer.resample(twin, seat, part, random.Random(f"frame/{step}/{part}/{seat}"))
    if isinstance(getattr(twin, "chance", None), Chance):
        twin.chance = Chance(random.Random(f"frame/{step}/chance/{seat}").getrandbits(64))
    return twin
