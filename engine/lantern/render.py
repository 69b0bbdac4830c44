"""The diagram: the dice showing and the adventure sheet, circles drawn and crossed."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from .sheet import POOLS
from .state import FIGHT, OVER, SETUP, LanternState

if TYPE_CHECKING:
    from .game import LanternGame

FONT = 'font-family="Rulepress Sans, DejaVu Sans, sans-serif"'
WIDTH = 480
INK = "#222"
FAINT = "#bbb"
ACCENT = "#b5651d"

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
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{fill}" {FONT}>{escape(content)}</text>')


def _die(x: float, y: float, size: float, face: int | str, highlight: bool = False) -> str:
    stroke = ACCENT if highlight else INK
    parts = [f'<rect x="{x:.1f}" y="{y:.1f}" width="{size}" height="{size}" rx="{size / 6:.1f}" fill="#fff" '
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
    parts = [f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r}" fill="#fff" stroke="{INK}" stroke-width="1.3"/>']
    if state == "crossed":
        d = r * 0.75
        parts.append(f'<path d="M{cx - d:.1f},{cy - d:.1f}L{cx + d:.1f},{cy + d:.1f}M{cx + d:.1f},{cy - d:.1f}'
                     f'L{cx - d:.1f},{cy + d:.1f}" stroke="{ACCENT}" stroke-width="1.8"/>')
    return "".join(parts)


def render_svg(game: LanternGame, state: LanternState, caption: str | None = None) -> str:
    sheet = game.sheet
    names = sheet.names
    out: list[str] = []
    y = 14.0
    # Dice.
    if state.phase == SETUP:
        label = f"Setup roll (sum {sum(state.setup_roll)}); unassigned dice:"
    elif state.zone and state.dice:
        label = f"Dice showing in zone {state.zone}:"
    else:
        label = "No dice showing"
    out.append(_text(12, y + 4, label, 11, weight="bold"))
    y += 12
    size = 36
    for i, face in enumerate(state.dice):
        out.append(_die(12 + i * (size + 10), y, size, face))
    if state.phase == SETUP and state.assigned:
        x = 12 + max(len(state.dice), 1) * (size + 10)
        out.append(_text(x, y + 10, "Assigned:", 9, weight="bold"))
        for k, (target, value) in enumerate(state.assigned.items()):
            out.append(_text(x + (k // 3) * 110, y + 22 + (k % 3) * 10, f"{names[target]} {value}", 8))
    y += size + 18 if state.dice or state.assigned else 10
    # Zone heading.
    zone = sheet.zone(state.zone) if state.zone else None
    if zone is not None:
        need = "rest: no combination" if zone.notation is None else f"needs {zone.notation}"
        head = f"Zone {zone.number}: {zone.name} ({zone.enemy}), {need}" if zone.enemy else \
            f"Zone {zone.number}: {zone.name}, {need}"
        out.append(_text(12, y, head, 11, weight="bold"))
        out.append(_text(WIDTH - 12, y, STEP_LABEL.get(state.phase, ""), 10, "end", fill="#555"))
        y += 14
        if state.phase == FIGHT and zone.combination is not None:
            verdict = game.solver.solve(state.dice, zone.combination, game.budget(state), rerolls=False)
            out.append(_text(12, y, f"Solver: this roll needs {verdict.needs}", 10, fill=ACCENT))
            y += 14
    y += 4
    # Abilities and Constitution: seven printed slots each.
    r = 7.5
    slots = max(sheet.cap, max(state.drawn))
    for i, name in enumerate(POOLS):
        out.append(_text(12, y + 4, names[name], 11))
        for k in range(slots):
            kind = "crossed" if k < state.crossed[i] else "drawn" if k < state.drawn[i] else "empty"
            out.append(_circle(140 + k * 21, y, r, kind))
        out.append(_text(140 + slots * 21 + 4, y + 4, f"{state.left(i)} left", 10))
        y += 22
    y += 4
    # Experience rows.
    out.append(_text(12, y + 4, names["experience"], 11, weight="bold"))
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
    for k in range(state.campfire):
        out.append(_circle(140 + k * 19, y, 6.5, "crossed" if state.campfire_used else "drawn"))
    if not state.campfire:
        out.append(_text(140, y + 4, "no circles drawn yet", 10, fill="#777"))
    y += 24
    # Zones strip.
    box = (WIDTH - 24) / len(sheet.zones)
    for z in sheet.zones:
        x = 12 + (z.number - 1) * box
        current = z.number == state.zone and state.phase != SETUP
        out.append(f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{box - 2:.1f}" height="70" rx="4" fill="#fff" '
                   f'stroke="{ACCENT if current else INK}" stroke-width="{2.2 if current else 0.8}"/>')
        out.append(_text(x + box / 2, y + 12, str(z.number), 10, "middle", "bold"))
        if z.notation is None:
            out.append(_text(x + box / 2, y + 32, names["campfire"], 8.5, "middle"))
        else:
            mini, gap = 13, 3
            left = x + (box - 3 * mini - 2 * gap) / 2
            for k, token in enumerate(z.notation.split()):
                face: int | str = int(token) if token.isdigit() else token
                out.append(_die(left + (k % 3) * (mini + gap), y + 17 + (k // 3) * (mini + gap), mini, face))
        cleared = z.number <= state.zones_cleared
        out.append(_circle(x + box / 2, y + 58, 6, "crossed" if cleared else "drawn"))
    y += 80
    # Outcome and caption.
    if state.phase == OVER:
        score = game.score(state)
        line = "Victory: the Dragon is defeated" if state.outcome == "won" else f"Defeat: {state.end_reason}"
        if score is not None:
            line += f"; score {score} ({game.title(state)})"
        out.append(_text(12, y, line, 11, weight="bold", fill=ACCENT))
        y += 16
    if caption:
        out.append(_text(WIDTH / 2, y, caption, 10, "middle", fill="#444"))
        y += 14
    height = int(y + 6)
    body = "".join(out)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="120mm" height="{height * 120 / WIDTH:.1f}mm" '
            f'viewBox="0 0 {WIDTH} {height}" role="img"><title>{escape(caption or "Lantern sheet")}</title>'
            f'<rect width="{WIDTH}" height="{height}" fill="#fdfaf3"/>{body}</svg>')

