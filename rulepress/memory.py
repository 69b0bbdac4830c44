"""What each seat of a game has been shown, and still knows: the information states of an engine on the base class
(``rulepress guide engine``, "Memory"), on OpenSpiel's model (``InformationStateString``: what a player has seen so
far, perfect recall).

A game with an observer keeps one :class:`Memory` in its state, ``state.memory`` (the base class begins it when a
game is set up or described, and adds each step as ``apply`` makes it).  It holds:

* the **trail**: every step as it happened (the action and its events) and every reveal, in order.  Actions and
  events are kept as they were made; who acted, in what words, and each seat's view of the events (the observer's
  ``event_view``) are worked out only when a seat's information state is asked for, so that playing costs an
  append a step;
* what was **shown**: values of a place hidden from a seat that the seat was shown there (:func:`reveal`: a card
  taken from the discard pile, shown to everyone, now in its taker's hand; moths a wick captured from a face-up tile,
  now face down in a lantern), known there until they leave it (:func:`forget`);
* where the game began: how ``new_state`` set it up (:class:`Setup`, set up again when asked), or a copy of the
  described position; each seat's view of it is named by a digest in its information state.  A memory made for one
  seat (:meth:`Memory.seen_by`) keeps that seat's digest instead, never the position.

A memory belongs to one state: a copy of the state has a copy of it (:meth:`Memory.copy`, which shares the trail
until one of the two goes on: ``BaseGame.clone`` sees to it), so cloning costs nothing either.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from rulepress.protocol import HIDDEN, PUBLIC, Event

EVERYONE = PUBLIC
"""``reveal(..., to=EVERYONE)``: shown to every player (the default)."""

Known = Mapping[str, Mapping[str, tuple[Any, ...]]]
"""place -> seat (or :data:`EVERYONE`) -> the values the seat was shown there and has not seen leave it."""
Told = Callable[[Any], tuple[str | None, str]]
"""``told(action)``: who took ``action`` (None: the rules) and what it was, in the engine's words."""

_STEP, _SEEN, _SHOWN = "step", "seen", "shown"


@dataclass(frozen=True)
class Setup:
    """How ``new_state`` set a game up: the same players, seed and forced outcomes set it up again (a game is the same
    for the same seed), so a memory keeps these instead of a copy of the position."""

    players: tuple[str, ...]
    seed: int
    forced: tuple[Any, ...] = ()


class Sight(NamedTuple):
    """What a memory is told through: the observer's ``view`` and ``event_view`` (``see``), who took an action and
    in what words (``told``), and the game's ``new_state`` for a :class:`Setup` (``again``)."""

    view: Callable[[Any, str], Mapping[str, Any]]
    told: Told
    see: Callable[[Mapping[str, Any], str], Mapping[str, Any]] | None = None
    again: Callable[[Setup], Any] | None = None


def dumps(value: Any) -> str:
    """Plain data as one line of JSON, the same for the same value in every process (keys sorted)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def digest(value: Any) -> str:
    """A short name for plain data: two different views never share one (in practice)."""
    return hashlib.sha256(dumps(value).encode()).hexdigest()[:16]


class Memory:
    """What each seat has been shown (the module's docstring), for one state."""

    __slots__ = ("begun", "start", "log", "size", "known", "digests")

    def __init__(self, begun: Any = None, start: Mapping[str, str] | None = None,
                 log: list[tuple[Any, ...]] | None = None, size: int | None = None, known: Known | None = None) -> None:
        self.begun = begun  # where the game began: a Setup, or a copy of the position; None in a seat's memory
        self.start: Mapping[str, str] = start or {}  # seat -> the digest of its view of it, in a seat's memory
        # The trail, in the order things happened: ("step", action, events), ("seen", actor, words, events) in a
        # seat's memory, ("shown", place, values, seats or None).  This memory's are the first ``size``: the list is
        # shared with its copies, and the first of them to go on appends to it (one that goes on another way copies
        # it first), so that neither a step nor a copy copies the trail.
        self.log: list[tuple[Any, ...]] = [] if log is None else log
        self.size = len(self.log) if size is None else size
        self.known: Known = known or {}  # replaced, never changed in place: copies share it
        self.digests: dict[str, str] = {}  # seat -> its digest of ``begun``, once worked out (shared with copies)

    def copy(self) -> Memory:
        """A memory for a copy of the state: the same so far, going on on its own."""
        twin = Memory(self.begun, self.start, self.log, self.size, self.known)
        twin.digests = self.digests  # the same start
        return twin

    __copy__ = copy

    def __deepcopy__(self, memo: Any) -> Memory:
        return self.copy()  # what it holds never changes in place: a deep copy is a copy

    def __reduce__(self) -> tuple[Any, ...]:  # a pickle holds this memory's trail, not what copies added after it
        known = {place: dict(by) for place, by in self.known.items()}
        return (Memory, (self.begun, dict(self.start), self.trail(), None, known))

    def __eq__(self, other: object) -> bool:  # two memories of the same steps (a state and its decoded copy)
        return isinstance(other, Memory) and (self.start, self.trail(), self.known) == (other.start, other.trail(),
                                                                                        other.known)

    def __repr__(self) -> str:
        shown = sum(len(values) for by in self.known.values() for values in by.values())
        return f"Memory({self.size} entries, {shown} values known)"

    def trail(self) -> list[tuple[Any, ...]]:
        """This memory's entries, in the order they happened."""
        return self.log[:self.size]

    # --- what a seat knows ------------------------------------------------------------------------------

    def knows(self, seat: str, place: str) -> list[Any]:
        """The values ``seat`` was shown at ``place`` and has not seen leave it: every seat's, then its own."""
        by = self.known.get(place)
        if not by:
            return []
        shown = list(by.get(EVERYONE, ()))
        if seat != EVERYONE:
            shown += by.get(seat, ())
        return shown

    def began(self, seat: str, sight: Sight) -> str:
        """The digest of ``seat``'s view of the position the game began from (set up again, for a :class:`Setup`)."""
        if self.begun is None:
            return self.start.get(seat, "-")
        found = self.digests.get(seat)
        if found is None:
            begun = self.begun
            if isinstance(begun, Setup):
                if sight.again is None:
                    return "-"
                begun = sight.again(begun)
            found = self.digests[seat] = digest(sight.view(begun, seat))
        return found

    def information_state(self, seat: str, now: Mapping[str, Any], sight: Sight) -> str:
        """OpenSpiel's information-state string of ``seat``: who it is, a digest of the position the game began from
        as it saw it, one line for each step (its own actions in the engine's words, everyone's events as it saw
        them) followed by what the step showed it, then ``now``, its view of the position."""
        lines = [f"seat: {seat or 'everyone'}", f"start: {self.began(seat, sight)}"]
        shown: list[str] = []  # what a step showed, told after the step (it is recorded as it happens, before it)
        for actor, words, events, reveal in self._seen(seat, sight):
            if reveal is None:
                said = {"you": words} if seat and actor == seat else {"by": actor} if actor else {"rules": words}
                lines += [dumps(said) + " " + dumps(events), *shown]
                shown = []
            else:
                shown.append(f"shown {reveal[1]}: {dumps(list(reveal[2]))}")
        lines += [*shown, "now: " + dumps(now)]
        return "\n".join(lines)

    def _seen(self, seat: str, sight: Sight) -> Iterator[tuple[Any, ...]]:
        """Each entry as ``seat`` saw it: (actor, words, events, None) for a step, (None, None, None, the entry) for
        what it was shown; what it was not shown is left out."""
        see = sight.see
        for entry in self.trail():
            kind = entry[0]
            if kind == _SHOWN:
                if entry[3] is None or seat in entry[3]:
                    yield None, None, None, entry
                continue
            if kind == _STEP:
                actor, words = sight.told(entry[1])
                events = entry[2]
            else:
                actor, words, events = entry[1], entry[2], entry[3]
            seen = [_as_dict(event) if see is None else dict(see(_as_dict(event), seat)) for event in events]
            yield actor, words if actor is None or actor == seat else "", seen, None

    def seen_by(self, seat: str, sight: Sight) -> Memory:
        """What ``seat`` knows of this memory, and nothing more: the steps with their events as it saw them, its own
        actions' words and not the others', what it was shown, the digest of its view of the start, never the start
        itself.  A state dealt again for a seat keeps this (a position published for the seat holds nothing the seat
        cannot know)."""
        log = [(_SEEN, actor, words, tuple(events)) if reveal is None else reveal
               for actor, words, events, reveal in self._seen(seat, sight)]
        known = {place: {who: shown for who, shown in by.items() if who in (EVERYONE, seat)}
                 for place, by in self.known.items()}
        return Memory(None, {seat: self.began(seat, sight)}, log, len(log), {p: s for p, s in known.items() if s})

    # --- going on -----------------------------------------------------------------------------------------

    def _append(self, entry: tuple[Any, ...]) -> None:
        log = self.log
        if len(log) != self.size:  # a copy went on from here already: this one goes on another way
            log = self.log = log[:self.size]
        log.append(entry)
        self.size += 1

    def step(self, action: Any, events: Iterable[Event]) -> None:
        """One more step: ``action`` was taken (who took it and in what words is worked out when an information state
        is asked for) and ``events`` happened."""
        self._append((_STEP, action, tuple(events)))

    def reveal(self, place: str, values: Iterable[Any], to: str | Iterable[str] = EVERYONE) -> None:
        """``values`` were shown at ``place`` to ``to`` (a seat, several, or :data:`EVERYONE`)."""
        shown = tuple(values)
        if not shown:
            return
        seats = None if to == EVERYONE else frozenset([to] if isinstance(to, str) else to)
        by = dict(self.known.get(place, {}))
        for seat in [EVERYONE] if seats is None else sorted(seats):
            by[seat] = (*by.get(seat, ()), *shown)
        self.known = {**self.known, place: by}
        self._append((_SHOWN, place, shown, seats))

    def forget(self, place: str, values: Iterable[Any]) -> None:
        """``values`` left ``place``: each seat knows one fewer of each there (the one shown last: a pile loses its
        top).  A value some seat knew there as everyone did is taken from what everyone knew, so a seat that was also
        shown one of its own keeps that one."""
        was = self.known.get(place)
        if not was:
            return  # nothing was shown there: the usual case, kept cheap
        by = dict(was)
        for value in values:
            if value in by.get(EVERYONE, ()):
                by[EVERYONE] = _without(by[EVERYONE], value)
                continue
            for seat, shown in by.items():
                if value in shown:
                    by[seat] = _without(shown, value)
        kept = {seat: shown for seat, shown in by.items() if shown}
        self.known = {**{p: s for p, s in self.known.items() if p != place}, **({place: kept} if kept else {})}


def reveal(state: Any, place: str, values: Iterable[Any], to: str | Iterable[str] = EVERYONE) -> None:
    """Say, in an engine's ``perform``, that ``values`` were shown at ``place`` (a dotted path of the snapshot:
    ``hands.Ann``) to ``to`` (every seat by default): they stay known there until :func:`forget` says they left it.
    Nothing for a state that keeps no memory (a game without an observer)."""
    memory = getattr(state, "memory", None)
    if isinstance(memory, Memory):
        memory.reveal(place, values, to)


def forget(state: Any, place: str, values: Iterable[Any]) -> None:
    """Say that ``values`` left ``place`` (a card played from a hand, the top card drawn from a pile): what each seat
    was shown there is no longer known there.  Call it for every value that leaves a place something was revealed
    at; a value nobody was shown there changes nothing."""
    memory = getattr(state, "memory", None)
    if isinstance(memory, Memory) and place in memory.known:
        memory.forget(place, values)


def recall(state: Any, seat: str, place: str, value: Any) -> Any:
    """``value`` (the snapshot's at ``place``, which ``seat`` cannot see) as the seat knows it: of a list, the values
    it was shown there and that are there still, in the order shown, then :data:`HIDDEN` for each of the rest (the
    list keeps its length); of anything else, the value if the seat was shown it there, else :data:`HIDDEN`."""
    memory = getattr(state, "memory", None)
    known = memory.knows(seat, place) if isinstance(memory, Memory) else []
    if isinstance(value, list | tuple):
        left, shown = list(value), []
        for item in known:
            if item in left:
                left.remove(item)
                shown.append(item)
        return shown + [HIDDEN] * len(left)
    if isinstance(value, Mapping):
        return {key: HIDDEN for key in value}
    return value if value in known else HIDDEN


def recall_pile(state: Any, seat: str, place: str, cards: Sequence[Any], face_up: int = 1) -> list[Any]:
    """A pile that grows and shrinks at its top (a discard pile), top first, as ``seat`` knows it: its ``face_up``
    top cards as they are, and under them each card the seat saw go onto the pile, in its place (what went on last
    lies on top), the rest :data:`HIDDEN`."""
    memory = getattr(state, "memory", None)
    known = list(reversed(memory.knows(seat, place))) if isinstance(memory, Memory) else []
    return [card if i < face_up or (i < len(known) and known[i] == card) else HIDDEN for i, card in enumerate(cards)]


def _as_dict(event: Any) -> dict[str, Any]:
    return event.as_dict() if isinstance(event, Event) else dict(event)


def _without(values: tuple[Any, ...], value: Any) -> tuple[Any, ...]:
    at = len(values) - 1 - values[::-1].index(value)
    return values[:at] + values[at + 1:]
