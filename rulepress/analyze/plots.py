"""SVG plots of an analysis (matplotlib, Agg backend, no fonts fetched): the designer pages embed them."""

from __future__ import annotations

import hashlib
import io
import re
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display, ever: builds run headless

import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

plt.rcParams["svg.hashsalt"] = "rulepress"  # stable element IDs: the same analysis gives the same SVG
plt.rcParams["svg.fonttype"] = "none"  # text stays text (searchable, small)
plt.rcParams["font.sans-serif"] = ["DejaVu Sans"]  # the font the editions embed


def _own_ids(svg: str, title: str) -> str:
    """Every ``id`` (and reference to one) prefixed from the plot's title: matplotlib numbers its elements the
    same way in every figure, and several plots share one page."""
    prefix = "rp" + hashlib.sha1(title.encode()).hexdigest()[:8] + "-"
    svg = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", svg)
    return re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', svg)


def _attributes(svg: str) -> str:
    """``style="fill: #fff; stroke: #000"`` as presentation attributes (``fill="#fff" stroke="#000"``): WeasyPrint
    reads inline SVG's style attributes as HTML CSS too, and warns about every SVG property in them."""
    def one(match: re.Match[str]) -> str:
        pairs = [part.split(":", 1) for part in match.group(1).split(";") if ":" in part]
        return " ".join(f'{name.strip()}="{value.strip()}"' for name, value in pairs)

    return re.sub(r'style="([^"]*)"', one, svg)


def _svg(figure: Any, title: str) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": "rulepress"})
    plt.close(figure)
    text = buffer.getvalue()
    text = text[text.index("<svg"):]  # no XML prolog or doctype: the SVG is inlined in HTML
    # matplotlib's <style> holds a "*" rule: inlined, it would reach every SVG of the page.
    return _attributes(_own_ids(re.sub(r"<style[^>]*>.*?</style>", "", text, flags=re.S), title))


_HEX = re.compile(r"#([0-9a-fA-F]{6})\b")


def svg_cmyk(svg: str) -> str:
    """The same plot for press (the print and designer PDFs are CMYK throughout): every ``#rrggbb`` colour as
    ``device-cmyk()``, by the naive conversion (k from the darkest channel), enough for charts."""
    def one(match: re.Match[str]) -> str:
        red, green, blue = (int(match.group(1)[i:i + 2], 16) / 255 for i in (0, 2, 4))
        black = 1 - max(red, green, blue)
        if black >= 1:
            return "device-cmyk(0 0 0 1)"
        ink = [(1 - channel - black) / (1 - black) for channel in (red, green, blue)]
        return "device-cmyk(" + " ".join(f"{v:.3g}" for v in (*ink, black)) + ")"

    # The PDFs name the shipped DejaVu Sans "Rulepress Sans" (@font-face): the same file, under the one name the
    # editions may embed.
    return _HEX.sub(one, svg).replace("DejaVu Sans", "Rulepress Sans")


def length_histogram(balance: dict[str, Any], title: str, games: str = "games") -> str:
    """How long games last (rounds, or actions when the game has no rounds)."""
    length = balance["length"]
    values = sorted((int(k), v) for k, v in length["histogram"].items())
    figure, axes = plt.subplots(figsize=(4, 2.4))
    axes.bar([k for k, _ in values], [v for _, v in values], color="#4a6fa5")
    axes.set_xlabel(length["metric"])
    axes.set_ylabel(games)
    axes.set_title(title, fontsize=10)
    return _svg(figure, title)


def seat_win_rates(balance: dict[str, Any], title: str, fair_label: str = "fair share") -> str | None:
    """Win rate per seat for each player count, with 95% intervals, against that count's fair share."""
    seats = balance.get("seats")
    if not seats:
        return None
    names = [f"{row['players']}p·{row['seat']}" for row in seats]
    rates = [100 * row["rate"] for row in seats]
    low = [max(0.0, 100 * (row["rate"] - row["ci95"][0])) for row in seats]
    high = [max(0.0, 100 * (row["ci95"][1] - row["rate"])) for row in seats]
    figure, axes = plt.subplots(figsize=(4.6, 2.4))
    axes.bar(range(len(names)), rates, yerr=[low, high], capsize=3, color="#c9a227")
    for index, row in enumerate(seats):
        axes.hlines(100 * row["fair"], index - 0.45, index + 0.45, colors="#555555", linestyles="--", linewidth=1,
                    label=fair_label if index == 0 else None)
    axes.set_xticks(range(len(names)), names, fontsize=7)
    axes.set_ylabel("%")
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=7)
    return _svg(figure, title)


def difficulty_chart(rows: list[dict[str, Any]], title: str) -> str | None:
    """Win rate per setting (the base game, each challenge) with 95% intervals."""
    if len(rows) < 2:
        return None
    names = [row["setting"][:28] for row in rows]
    shares = {name: row["win"] for name, row in zip(names, rows, strict=True)}
    low, high = _error_bars(shares, names)
    figure, axes = plt.subplots(figsize=(4.6, 0.8 + 0.32 * len(rows)))
    axes.barh(names, [100 * shares[n]["rate"] for n in names], xerr=[low, high], capsize=3, color="#4a6fa5")
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel("%")
    axes.set_title(title, fontsize=10)
    return _svg(figure, title)


def _error_bars(shares: dict[str, Any], names: list[str]) -> tuple[list[float], list[float]]:
    """Distances from each rate to its 95% interval, in percent; never negative (a rate of exactly 0 or 1 can sit
    a rounding error outside its interval, which matplotlib refuses)."""
    low = [max(0.0, 100 * (shares[n]["rate"] - shares[n]["ci95"][0])) for n in names]
    high = [max(0.0, 100 * (shares[n]["ci95"][1] - shares[n]["rate"])) for n in names]
    return low, high


def end_shares(balance: dict[str, Any], title: str, names_of: dict[str, str] | None = None) -> str | None:
    """How games end, as shares with 95% intervals: every ending, those never reached at 0%."""
    ends = balance.get("ends")
    if not ends:
        return None
    names = list(ends)
    rates = [100 * ends[n]["rate"] for n in names]
    low, high = _error_bars(ends, names)
    figure, axes = plt.subplots(figsize=(4, 0.8 + 0.4 * len(names)))
    shown = [(names_of or {}).get(n, n)[:40] for n in names]
    axes.barh(shown, rates, xerr=[low, high], capsize=3, color="#7a9e7e")
    axes.invert_yaxis()
    axes.set_xlabel("games %")
    axes.set_xlim(0, 100)
    axes.set_title(title, fontsize=10)
    return _svg(figure, title)
