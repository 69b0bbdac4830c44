"""The diagram: the dice showing and the adventure sheet, circles drawn and crossed."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from rulepress.basegame import SMALLEST, Figure, painter
from rulepress.marks import Box
from rulepress.textwidth import text_width

from .sheet import POOLS
from .state import OVER, SETUP, LanternState

if TYPE_CHECKING:
    from .game import LanternGame

WIDTH = 480  # units across; the book prints the diagram across its text block (about 115 mm)

# The game's palette, defined once, in CMYK percentages: the print edition uses it as it is
# (device-cmyk), the web and the digital edition get RGB from it through the print profile.
# Text and thin lines are black ink only (K), never a four-colour black.
PALETTE: dict[str, tuple[float, float, float, float]] = {
    "ink": (0, 0, 0, 100),
    "muted": (0, 0, 0, 70),
    "faint": (0, 0, 0, 27),
    "paper": (0, 0, 0, 0),
    "sheet": (0, 1, 5, 0),
    "accent": (25, 70, 100, 10),  # the sheet's rust red: crosses, the current zone
    "mark": (0, 90, 100, 0),  # the marks that show a move: outlines, arrows, numbers
    "cover": (30, 80, 100, 45),
    "cover_ink": (0, 3, 15, 0),
}

paint = painter(PALETTE)

INK = paint("ink")
FAINT = paint("faint")
ACCENT = paint("accent")
MUTED = paint("muted")
PAPER = paint("paper")

STEP_LABEL = {"enter": "step 1: enter", "fight": "step 2: fight", "leave": "step 3: leave", "over": "over"}

# Pip positions on a unit die (0..1), per face.
PIPS = {
    1: ((.5, .5),),
    2: ((.27, .27), (.73, .73)),
    3: ((.27, .27), (.5, .5), (.73, .73)),
    4: ((.27, .27), (.73, .27), (.27, .73), (.73, .73)),
    5: ((.27, .27), (.73, .27), (.5, .5), (.27, .73), (.73, .73)),
    6: ((.27, .25), (.73, .25), (.27, .5), (.73, .5), (.27, .75), (.73, .75)),
}


def _text(x: float, y: float, content: str, size: float = 11, anchor: str = "start", weight: str = "normal",
          fill: str = INK) -> str:
    size = max(size, SMALLEST)
    bold = ' font-weight="bold"' if weight == "bold" else ""  # the font is named once, on the diagram (FRAME)
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}"{bold} fill="{fill}">'
            f'{escape(content)}</text>')


def _fit(text: str, size: float, width: float) -> list[str]:
    """``text`` in lines no wider than ``width`` units (DejaVu Sans Bold averages 0.63 em a character)."""
    per_line = max(int(width / (size * 0.63)), 1)
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= per_line:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _die(x: float, y: float, size: float, face: int | str, highlight: bool = False) -> str:
    stroke = ACCENT if highlight else INK
    parts = [f'<rect x="{x:.1f}" y="{y:.1f}" width="{size}" height="{size}" rx="{size / 6:.1f}" fill="{PAPER}" '
             f'stroke="{stroke}" stroke-width="{2 if highlight else 1.2}"/>']
    if isinstance(face, int):
        r = size * 0.09
        parts += [f'<circle cx="{x + px * size:.1f}" cy="{y + py * size:.1f}" r="{r:.1f}" fill="{INK}"/>'
                  for px, py in PIPS[face]]
    else:
        parts.append(_text(x + size / 2, y + size * 0.68, face, size * 0.55, "middle", "bold"))
    return "".join(parts)


def _circle(cx: float, cy: float, r: float, state: str) -> str:
    """A sheet circle: 'empty' (a printed slot), 'drawn', or 'crossed' (drawn and crossed out)."""
    if state == "empty":
        return (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r}" fill="none" stroke="{FAINT}" stroke-width="0.8" '
                f'stroke-dasharray="2 2"/>')
    parts = [f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r}" fill="{PAPER}" stroke="{INK}" stroke-width="1.3"/>']
    if state == "crossed":
        d = r * 0.75
        parts.append(f'<path d="M{cx - d:.1f},{cy - d:.1f}L{cx + d:.1f},{cy + d:.1f}M{cx + d:.1f},{cy - d:.1f}'
                     f'L{cx - d:.1f},{cy + d:.1f}" fill="none" stroke="{ACCENT}" stroke-width="1.8"/>')
    return "".join(parts)


def draw(game: LanternGame, state: LanternState, sheet_only: bool = False) -> Figure:
    """The dice showing and the adventure sheet; ``sheet_only``: a blank sheet, nothing rolled (the components
    page's picture)."""
    sheet = game.sheet
    names = sheet.names
    out: list[str] = []
    places: dict[str, Box] = {}
    y = 14.0
    # Dice.
    if state.phase == SETUP:
        label = f"Setup roll (sum {sum(state.setup_roll)}); unassigned dice:"
    elif state.zone and state.dice:
        label = f"Dice showing in zone {state.zone}:"
    else:
        label = "No dice showing"
    if sheet_only:
        y = -8.0
    else:
        out.append(_text(12, y + 4, label, 11, weight="bold"))
    y += 12
    size = 36
    for i, face in enumerate(state.dice):
        out.append(_die(12 + i * (size + 10), y, size, face))
        places.setdefault(f"dice.{face}", Box(12 + i * (size + 10), y, size, size))
    # No dice: the words that say so are what changed (an empty row of dice would be drawn over the zone's title).
    places["dice"] = Box(10, y - 2, max(len(state.dice), 1) * (size + 10) - 6, size + 4) if state.dice else \
        Box(10, y - 18, text_width(label, 11, bold=True) + 4, 14)
    places["setup.unassigned"] = places["setup.rolled"] = places["dice"]
    if state.phase == SETUP and state.assigned:
        x = 12 + max(len(state.dice), 1) * (size + 10)
        out.append(_text(x, y + 10, "Assigned:", 10, weight="bold"))
        for k, (target, value) in enumerate(state.assigned.items()):
            out.append(_text(x + (k // 3) * 110, y + 23 + (k % 3) * 11, f"{names[target]} {value}", 10))
            places[f"setup.assigned.{target}"] = Box(x - 2 + (k // 3) * 110, y + 14 + (k % 3) * 11, 106, 11)
    # Room for the dice, or for the setup's assignments beside them (after setup they are not drawn: no blank band).
    y += size + 18 if state.dice or (state.phase == SETUP and state.assigned) else 10
    # Zone heading.
    zone = sheet.zone(state.zone) if state.zone else None
    if zone is not None:
        need = "rest: no combination" if zone.notation is None else f"needs {zone.notation}"
        head = f"Zone {zone.number}: {zone.name} ({zone.enemy}), {need}" if zone.enemy else \
            f"Zone {zone.number}: {zone.name}, {need}"
        out.append(_text(12, y, head, 11, weight="bold"))
        out.append(_text(WIDTH - 12, y, STEP_LABEL.get(state.phase, ""), 10, "end", fill=MUTED))
        y += 14
    y += 4
    # Abilities and Constitution: seven printed slots each.
    r = 7.5
    slots = max(sheet.cap, max(state.drawn))
    for i, name in enumerate(POOLS):
        out.append(_text(12, y + 4, names[name], 11))
        places[f"circles.{name}"] = Box(132, y - 10, slots * 21 + 50, 20)
        for k in range(slots):
            kind = "crossed" if k < state.crossed[i] else "drawn" if k < state.drawn[i] else "empty"
            out.append(_circle(140 + k * 21, y, r, kind))
        out.append(_text(140 + slots * 21 + 4, y + 4, f"{state.left(i)} left", 10))
        y += 22
    y += 4
    # Experience rows.
    out.append(_text(12, y + 4, names["experience"], 11, weight="bold"))
    places["experience"] = Box(20, y + 8, max(sheet.row_circles) * 19 + 48, 18 * len(sheet.row_names))
    y += 18
    remaining = state.experience
    for row_name, circles in zip(sheet.row_names, sheet.row_circles, strict=True):
        out.append(_text(24, y + 4, row_name, 11))
        for k in range(circles):
            out.append(_circle(60 + k * 19, y, 6.5, "crossed" if k < remaining else "drawn"))
        remaining -= min(circles, remaining)
        y += 18
    # Campfire scroll.
    y += 4
    out.append(_text(12, y + 4, f"{names['campfire']} scroll", 11, weight="bold"))
    places["campfire"] = Box(130, y - 9, max(state.campfire, 5) * 19 + 4, 18)
    for k in range(state.campfire):
        out.append(_circle(140 + k * 19, y, 6.5, "crossed" if state.campfire_used else "drawn"))
    if not state.campfire:
        out.append(_text(140, y + 4, "no circles drawn yet", 10, fill=MUTED))
    y += 24
    # Zones strip.
    box = (WIDTH - 24) / len(sheet.zones)
    places["zones_cleared"] = places["zone"] = Box(12, y, WIDTH - 24, 78)
    for z in sheet.zones:
        x = 12 + (z.number - 1) * box
        places[f"zones.{z.number}"] = Box(x + 1, y, box - 2, 78)
        current = z.number == state.zone and state.phase != SETUP
        out.append(f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{box - 2:.1f}" height="78" rx="4" fill="{PAPER}" '
                   f'stroke="{ACCENT if current else INK}" stroke-width="{2.2 if current else 0.8}"/>')
        out.append(_text(x + box / 2, y + 12, str(z.number), 10, "middle", "bold"))
        if z.notation is None:
            out.append(_text(x + box / 2, y + 36, names["campfire"], 10, "middle"))
        else:
            mini, gap = 17, 2  # a face letter of SMALLEST units fits a 17-unit die
            left = x + (box - 3 * mini - 2 * gap) / 2
            for k, token in enumerate(z.notation.split()):
                face: int | str = int(token) if token.isdigit() else token
                out.append(_die(left + (k % 3) * (mini + gap), y + 17 + (k // 3) * (mini + gap), mini, face))
        cleared = z.number <= state.zones_cleared
        out.append(_circle(x + box / 2, y + 66, 6, "crossed" if cleared else "drawn"))
    y += 88
    # Outcome (the caption is the book's to print, under the figure: it is not drawn here).
    said = [label + (" " + " ".join(map(str, state.dice)) if state.dice else "")]
    if zone is not None:
        said.append(head)
    said += [f"{names[name]}: {state.left(i)} left" for i, name in enumerate(POOLS)]
    said.append(f"zones cleared: {state.zones_cleared}")
    if state.phase == OVER:
        score = game.score(state)
        lines = ["Victory: the Dragon is defeated" if state.outcome == "won" else f"Defeat: {state.end_reason}"]
        if score is not None:
            lines.append(f"Score {score} ({game.title(state)})")
        for line in lines:
            for part in _fit(line, 11, WIDTH - 24):
                out.append(_text(12, y, part, 11, weight="bold"))
                y += 15
            said.append(line)
        y += 1
    if state.zone and state.phase != SETUP:  # entering or leaving a zone changes the zone shown: that zone's box
        places["zone"] = places.get(f"zones.{state.zone}", places["zone"])
    return Figure(out, int(y + 6), "; ".join(said) + ".", background=paint("sheet"), places=places)


ACTION_POOLS = {"strike": "critical_strike", "counter": "counterattack", "spell": "magic_spell",
                "constitution": "constitution"}


def attempt_places(step: dict, places: dict[str, Box]) -> list[str]:
    """A refused step's source and target: the die it names and the circles it would cross, a bonus's ability, a
    die assigned at setup and where it goes, or the zones strip."""
    do = str(step.get("do"))
    die = step.get("die")
    dice = step.get("dice")
    source = f"dice.{die}" if die is not None else (f"dice.{dice[0]}" if isinstance(dice, list) and dice else None)
    target = None
    if do in ACTION_POOLS:
        target = f"circles.{ACTION_POOLS[do]}"
    elif do == "bonus":
        target = f"circles.{step.get('ability')}"
    elif do == "assign":
        target = f"setup.assigned.{step.get('to')}" if f"setup.assigned.{step.get('to')}" in places else None
    elif do in ("enter", "leave", "concede"):
        target = "zone"
    return [p for p in (source, target) if p is not None and p in places]

