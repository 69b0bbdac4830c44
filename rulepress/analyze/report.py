"""How an analysis is shown: findings as lines of text, the ``rulepress analyze`` command, and the designer-page
section (findings, untracked first, and balance plots) built from the saved report."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from rulepress.analyze.analysis import analyse, configs, report_path, save, saved
from rulepress.analyze.impact import engine_fingerprint
from rulepress.errors import SourceError
from rulepress.store import Store, code_digest, declare, key_of, tree_digest

DESIGNER = declare("designer", keep=60)  # the designer pages' analysis section, kept under the saved analysis
GROUPED = 8  # a designer page lists up to this many findings of one kind one by one


def print_findings(findings: list[dict[str, Any]]) -> None:
    """``file:line: severity kind: message [rules] (tracked by ... | untracked)``, one per line."""
    for item in findings:
        where = f"{item['file']}:{item['line']}" if item["line"] else item["file"]
        rules = f" [rule {', '.join(item['rules'])}]" if item["rules"] else ""
        tracked = f"tracked by {', '.join(item['tracked_by'])}" if item["tracked_by"] else "untracked"
        print(f"{where}: {item['severity']} {item['kind']}: {item['message']}{rules} ({tracked})")


def run_analyze(root: Path, args: Any) -> int:
    """``rulepress analyze BOOK [--games N] [--seed S] [--json] [--scheduler ADDR] [--workers N]``."""
    from tqdm import tqdm

    from rulepress.analyze.cluster import pool
    from rulepress.analyze.questions import _checks
    from rulepress.progress import wanted
    from rulepress.verify.replay import replay

    if args.games < 1:
        raise SourceError("--games", None, f"needs at least 1 game per configuration, not {args.games}")
    check = _checks(root, args.book)[0]
    check.results = [replay(e, check.book, check.engine, draw=False) for e in check.examples]
    total = args.games * len(configs(check))
    with pool(args.workers, args.scheduler) as workers, \
            tqdm(total=total, desc=f"{check.book.id}: analysing", unit="game", disable=args.json or not wanted(),
                 leave=False) as bar:
        analysis = analyse(workers, root, check, args.games, args.seed, bar.update)
    path = save(root, analysis)
    if args.json:
        print(json.dumps(analysis, ensure_ascii=False, sort_keys=True))
        return 0
    print(f"== {check.book.title}: {args.games} games x {len(analysis['configs'])} configurations "
          f"(seed {args.seed}; saved to {path.relative_to(root)})")
    print_findings(analysis["findings"])
    for label, figures in analysis["balance"].items():
        print(f"-- balance, {label}: {balance_line(figures)}")
    untracked = sum(1 for f in analysis["findings"] if not f["tracked_by"] and f["severity"] != "info")
    print(f"{len(analysis['findings'])} findings, {untracked} untracked")
    return 0


def balance_line(figures: dict[str, Any]) -> str:
    """The balance figures of one configuration in a line of text."""
    parts = []
    if "first_player" in figures:
        first = figures["first_player"]
        parts.append(f"seat 1 wins {100 * first['rate']:.1f}% (fair {100 * first['fair']:.1f}%, advantage "
                     f"{100 * first['advantage']:+.1f} points, 95% CI {100 * first['ci95'][0]:+.1f} to "
                     f"{100 * first['ci95'][1]:+.1f})")
        parts.append(f"ties {100 * figures['ties']['rate']:.1f}%")
    if "win" in figures:
        win = figures["win"]
        parts.append(f"won {100 * win['rate']:.1f}% (95% CI {100 * win['ci95'][0]:.1f}-{100 * win['ci95'][1]:.1f})")
    length = figures["length"]
    parts.append(f"{length['metric']} {length['mean']:.1f} (quartiles {'/'.join(map(str, length['quartiles']))})")
    if "margin" in figures:
        parts.append(f"margin {figures['margin']['mean']:.1f}")
    if "ends" in figures:
        parts.append("ends: " + ", ".join(f"{name} {100 * e['rate']:.1f}%" for name, e in figures["ends"].items()))
    return "; ".join(parts)


def cached_designer_markdown(root: Path, book_id: str, cmyk: bool = False, heading: bool = True) -> str:
    """:func:`designer_markdown` (the saved analysis with its matplotlib plots: seconds a book, and matplotlib's
    memory), reused while the saved analysis, its engine and rulepress are unchanged.

    The site and the designer PDF show it on every build; without this every build would import matplotlib and
    draw every plot again.
    """
    saved_path = report_path(root, book_id)
    try:
        data = saved_path.read_bytes()
        package = str(json.loads(data).get("engine_package") or "")
    except (OSError, ValueError, AttributeError):
        data, package = b"", ""
    if not data:  # never analysed: an empty section, nothing to draw
        return designer_markdown(root, book_id, cmyk=cmyk, heading=heading)
    store = Store(root)
    # The section says when the engine changed since the analysis: the engine's code is part of the key.
    key = key_of(code_digest(), book_id, f"cmyk={cmyk} heading={heading}", data,
                 tree_digest(root / "engine" / package) if package else "")
    kept = store.load(DESIGNER, key, lambda text: text.decode())
    if kept is not None:
        return kept
    text = designer_markdown(root, book_id, cmyk=cmyk, heading=heading)
    store.put(DESIGNER, key, text.encode())
    return text


def designer_markdown(root: Path, book_id: str, cmyk: bool = False, heading: bool = True) -> str:
    """The saved analysis as a designer-page section: findings (untracked first) and balance plots (in
    ``device-cmyk`` colours for the designer PDF when ``cmyk``).  Empty when the book was never analysed
    (``rulepress analyze BOOK`` writes the report)."""
    from rulepress.analyze import plots

    analysis = saved(root, book_id)
    if not analysis:
        return ""
    title = "## What simulated play found\n\n" if heading else ""
    package = analysis.get("engine_package")
    stale = package is None or analysis.get("engine") != engine_fingerprint(root, package)
    lines = [f"{title}{analysis['games']} games per configuration, "
             f"{len(analysis['configs'])} configurations (seed {analysis['seed']}); `rulepress analyze {book_id}`."
             + (" **The engine has changed since: run it again.**" if stale else "") + "\n"]
    findings = sorted(analysis["findings"], key=lambda f: (bool(f["tracked_by"]), f["severity"] == "info"))
    kinds = Counter(f["kind"] for f in findings)
    for item in findings:
        if kinds[item["kind"]] > GROUPED:
            continue
        tracked = f"tracked by {', '.join(item['tracked_by'])}" if item["tracked_by"] else "**untracked**"
        where = f"{item['file']}:{item['line']}" if item["line"] else item["file"]
        rules = ", ".join(f"`{r}`" for r in item["rules"])
        lines.append(f"- *{item['kind']}* ({tracked}): {item['message']} ({rules + '; ' if rules else ''}`{where}`)")
    for kind, count in sorted(kinds.items()):
        if count > GROUPED:  # a long list of one kind (rules without provenance) reads better as one line
            rules = sorted({r for f in findings if f["kind"] == kind for r in f["rules"]})
            lines.append(f"- *{kind}*: {count} findings, on {', '.join(f'`{r}`' for r in rules)}")
    for label, figures in analysis["balance"].items():
        lines.append(f"\n### Balance: {label}\n\n{balance_line(figures)}\n")
        for svg in (plots.seat_win_rates(figures, f"Wins per seat, {label}"),
                    plots.length_histogram(figures, f"Game length, {label}"),
                    plots.end_shares(figures, f"How games end, {label}")):
            if svg:
                svg = "\n".join(line for line in svg.splitlines() if line.strip())  # one HTML block for Markdown
                lines.append(f'<div class="rp-plot">{plots.svg_cmyk(svg) if cmyk else svg}</div>\n')
    return "\n".join(lines) + "\n"
