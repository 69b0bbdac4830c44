"""What each seat sees: the gate's proof that an edition prints nothing hidden from the seat it is told from.

A game with an observer (``protocol.Observer``) says, for each seat, what of a state that seat sees.  An example
is told from one seat (``as: Ann``) or from none (the public view, what every player sees), and each of its diagrams
from the example's seat or its own (``diagram: {caption: ..., as: Ben}``).  Two checks hold the printed book to it:

* a **diagram** (its SVG, its ``<desc>``, and the alternative text narrated from the seat's view) must not change
  when only what its seat cannot see changes: each hidden part is dealt again (``Observer.resample``) and the
  diagram drawn again; one that changes shows something the seat cannot see;
* the **prose** is rendered twice, over the replay's snapshots and over the seat's views of them: where the two
  differ, the text prints a value hidden from its seat.

Either failure names the example, the checkpoint or line, the seat and what was hidden.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Any

from rulepress.protocol import PUBLIC, Game, Observer
from rulepress.verify import diagram

VIEW_KEYS = ("views", "public_view", "information_state")  # what a checkpoint may expect of the observer


def who(seat: str) -> str:
    """A seat as a message names it."""
    return "everyone (the public view)" if seat == PUBLIC else seat


def diagram_leak(game: Game, observer: Observer, state: Any, seat: str, caption: str | None, svg: str,
                 view: Mapping[str, Any], change: Any = None) -> str | None:
    """Why the diagram drawn for ``seat`` shows something the seat cannot see, or None when it shows nothing of the
    kind: each hidden part is dealt again, and the view and the drawing must stay as they are."""
    for part, seen_by in observer.hidden.items():
        rng = random.Random(f"{part}/{seat}")  # the same replay makes the same check
        twin = observer.resample(state, seat, part, rng)
        changed = first_change(view, observer.view(twin, seat))
        if changed is not None:
            return (f"the observer's view for {who(seat)} changes when only {part} ({seen_by}) is dealt again "
                    f"({changed}): a view shows only what its seat sees")
        if diagram.render(game, twin, caption, seat, change) != svg:
            return (f"the diagram drawn for {who(seat)} changes when only {part} ({seen_by}) is dealt again: it "
                    f"shows what {who(seat)} cannot see; draw it from the seat's view (`rulepress guide engine`, "
                    f"\"Hidden information\")")
    return None


def prose_leak(printed: str, seen: str) -> tuple[int, str] | None:
    """Where the prose rendered over the snapshots (``printed``) differs from the same prose over the seat's views
    (``seen``): the line of the text it is on (from 0) and the first word that differs, in context.  None when the
    two read the same."""
    if printed == seen:
        return None
    words, views = re.split(r"(\s+)", printed), re.split(r"(\s+)", seen)
    at = next((i for i, (a, b) in enumerate(zip(words, views, strict=False)) if a != b), min(len(words), len(views)))
    # The first word that differs: where one text only runs on, past the space the other ends before.
    shown = next((word for word in words[at:] if word.strip()), "(the end)")
    instead = next((word for word in views[at:] if word.strip()), "(the end)")
    before = "".join(words[:at])
    context = before.split()[-4:]
    return before.count("\n"), f"'{shown}' (after '{' '.join(context)}'), where the seat's view has '{instead}'"


def first_change(before: Any, after: Any, path: str = "") -> str | None:
    """The first path at which two plain values differ, as ``path: old -> new``."""
    if before == after:
        return None
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in [*before, *(k for k in after if k not in before)]:
            inner = f"{path}.{key}" if path else str(key)
            if key not in after or key not in before:
                return f"{inner}: {before.get(key, '(none)')!r} -> {after.get(key, '(gone)')!r}"
            found = first_change(before[key], after[key], inner)
            if found is not None:
                return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            found = first_change(old, new, f"{path}.{index}" if path else str(index))
            if found is not None:
                return found
    return f"{path or 'value'}: {before!r} -> {after!r}"
