"""Which steps each diagram of a replay illustrates, and what each of them changed (rulepress/change.py's data).

The replay tells this module each step as it happens (:meth:`Changes.step`): what changed is found by comparing
the position before and after it, as each seat a diagram is drawn for sees it (the whole snapshot without an
observer), so a diagram never marks a change its seat could not see.  A checkpoint's diagram illustrates:

* the steps since the previous diagram, when one of them changed the position ("After steps 1–4"), and with them
  the refused moves tried from the position drawn (after the last change, or after the diagram before anything
  changed it again; a move refused earlier was tried from another position, which the step list tells);
* otherwise the steps up to the next diagram or the example's end, still to come ("Before steps 1–5").

A refused move is drawn on one diagram only, the first that illustrates it; each step of the site's step-through
shows that one step ("After step 3", "Step 2, not allowed").  Steps are numbered as the example's list of steps
numbers them (render/markdown.py): the diagrams' callouts say the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rulepress.change import Change, Difference, StepChange, differences, mark_words, moment

Seat = str | None  # a seat a diagram is drawn for (a player or PUBLIC); None without an observer
_NOT_ACTION = ("illegal", "note", "expect", "events", "checkpoint", "diagram")


@dataclass
class StepRecord:
    number: int  # as the list of steps numbers it
    step: dict[str, Any]  # what the example's step says, its action's keys only
    refused_by: str | None  # the rule ID that refused it
    rule_number: str | None  # that rule as the book numbers it ("4.4")
    narrations: dict[str, str]  # the step in players' words, in each language
    changed: dict[Seat, tuple[Difference, ...]] = field(default_factory=dict)


@dataclass
class Changes:
    """The steps of one replay and what each changed, for the seats its diagrams are drawn for."""

    seats: list[Seat]
    view: Callable[[Any, Seat], Any]  # a seat's view of a state (the snapshot, without an observer)
    setup: bool = False  # the example starts from a game's setup ("After setup")
    records: list[StepRecord] = field(default_factory=list)
    _last: dict[Seat, Any] = field(default_factory=dict)
    _shown: set[int] = field(default_factory=set)  # refused steps already drawn on a diagram

    def start(self, state: Any) -> None:
        self._last = {seat: self.view(state, seat) for seat in self.seats}

    def step(self, data: Mapping[str, Any], state: Any, refused_by: str | None, rule_number: str | None,
             narrations: Mapping[str, str]) -> StepRecord:
        """Record the step just replayed (``state``: the position after it)."""
        record = StepRecord(len(self.records) + 1, {k: v for k, v in data.items() if k not in _NOT_ACTION},
                            refused_by, rule_number, dict(narrations))
        for seat in self.seats:
            if refused_by is not None:  # a refused step leaves the position as it was (replay checks it)
                record.changed[seat] = ()
                continue
            now = self.view(state, seat)
            record.changed[seat] = tuple(differences(self._last.get(seat), now))
            self._last[seat] = now
        self.records.append(record)
        return record

    def for_diagram(self, done: int, before: int, after: int) -> tuple[list[StepRecord], bool, list[int]]:
        """What the diagram drawn after ``done`` steps illustrates, the previous diagram having been drawn after
        ``before`` steps and the next after ``after`` (the example's length if none): its steps, whether they are
        to come, and the steps its moment names."""
        def unseen(records: list[StepRecord]) -> list[StepRecord]:
            return [r for r in records if r.refused_by is None or r.number not in self._shown]

        led, following = unseen(self.records[before:done]), unseen(self.records[done:after])
        if any(r.refused_by is None for r in led):
            last = max(i for i, r in enumerate(led) if r.refused_by is None)
            tried = led[last + 1:]  # moves refused from this very position: before it, or after it ...
            for record in following:  # ... before anything changed it
                if record.refused_by is None:
                    break
                tried.append(record)
            # A move refused before the last change was tried from another position: the step list tells it.
            chosen = [r for r in led[:last + 1] if r.refused_by is None] + tried
            coming, named = False, [r.number for r in self.records[before:done]]
        elif following:  # nothing changed since the last diagram: the position the next steps start from
            chosen, coming = led + following, True
            named = [r.number for r in chosen]
        else:
            chosen, coming, named = led, False, [r.number for r in led]
        self._shown.update(r.number for r in chosen if r.refused_by is not None)
        return chosen, coming, named

    def change(self, records: list[StepRecord], coming: bool, named: list[int], seat: Seat, lang: str) -> Change:
        """The :class:`Change` of ``records`` as ``seat`` sees it, worded in ``lang``; ``named``: the steps its
        moment names (none: the start, or the setup)."""
        words = mark_words(lang)
        refused = len(records) == 1 and records[0].refused_by is not None and not coming
        said = moment(words, named, coming, self.setup, refused)
        steps = tuple(StepChange(r.number, r.step, r.changed.get(seat, ()), r.rule_number, r.narrations.get(lang, ""))
                      for r in records)
        return Change(said, steps, coming, words)
