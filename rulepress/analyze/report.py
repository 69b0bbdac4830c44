"""How an analysis is shown: findings as lines of text, the ``rulepress analyze`` command, and the designer
dashboard (findings ranked by severity with their evidence, balance tables and plots) built from the saved report.

The dashboard is written in the edition's language: the renderer passes its table of fixed words (``words``,
rulepress/render/strings/) and the book's rule labels; every sentence of it comes from that table and the
report's figures, none from the English messages the command line prints.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rulepress.analyze.analysis import DEFAULT_BUDGET, DEFAULT_GAMES, analyse, report_path, save, saved
from rulepress.analyze.findings import rank
from rulepress.analyze.fingerprint import changed_since, engine_fingerprint, play_digests
from rulepress.analyze.impact import metric_words
from rulepress.analyze.plan import TEXT, configs, who_plays
from rulepress.errors import SourceError
from rulepress.load.book import Book
from rulepress.store import Store, code_digest, declare, key_of

DESIGNER = declare("designer", keep=60)  # the designer pages' analysis section, kept under the saved analysis

Words = Callable[..., str]  # rulepress.render.strings.Strings: words(key, **values)


def print_findings(findings: list[dict[str, Any]]) -> None:
    """``file:line: severity kind: message [rules] (tracked by ... | untracked)``, one per line."""
    for item in findings:
        where = f"{item['file']}:{item['line']}" if item["line"] else item["file"]
        rules = f" [rule {', '.join(item['rules'])}]" if item["rules"] else ""
        tracked = f"tracked by {', '.join(item['tracked_by'])}" if item["tracked_by"] else "untracked"
        print(f"{where}: {item['severity']} {item['kind']}: {item['message']}{rules} ({tracked})")


def run_analyze(root: Path, args: Any) -> int:
    """``rulepress analyze BOOK [--games N] [--budget N] [--seed S] [--json] [--scheduler ADDR] [--workers N]``."""
    from tqdm import tqdm

    from rulepress.analyze.cluster import pool
    from rulepress.analyze.questions import _checks
    from rulepress.progress import wanted
    from rulepress.verify.replay import replay

    games = args.games if args.games is not None else DEFAULT_GAMES
    if games < 1:
        raise SourceError("--games", None, f"needs at least 1 game per configuration, not {games}")
    budget = getattr(args, "budget", None) or max(DEFAULT_BUDGET, games)
    if budget < games:
        raise SourceError("--budget", None, f"must be at least --games ({games}), not {budget}")
    check = _checks(root, args.book)[0]
    check.results = [replay(e, check.book, check.engine, draw=False) for e in check.examples]
    given = getattr(args, "players", None)
    chosen = [name.strip() for name in given.split(",") if name.strip()] if given else None
    chosen = who_plays(check, chosen, competent_too=True)  # by default competent players too, where installed
    total = sum(config.first(games) for config in configs(check, chosen))
    with pool(args.workers, args.scheduler) as workers, \
            tqdm(total=total, desc=f"{check.book.id}: analysing", unit="game", disable=args.json or not wanted(),
                 leave=False) as bar:
        def grow(more: int) -> None:
            bar.total += more
            bar.refresh()

        analysis = analyse(workers, root, check, games, args.seed, bar.update, budget, grow, chosen)
    path = save(root, analysis)
    if args.json:
        print(json.dumps(analysis, ensure_ascii=False, sort_keys=True))
        return 0
    played = sum(c["games"] for c in analysis["configs"])
    print(f"== {check.book.title}: {played} games in {len(analysis['configs'])} configurations ({games} each, up "
          f"to {budget} where a finding needed more; seed {args.seed}; saved to {path.relative_to(root)})")
    print_findings(rank(analysis["findings"]))
    for item in analysis["undecided"]:
        print(f"undecided at the budget: {item['message']}")
    for label, figures in analysis["balance"].items():
        print(f"-- balance, {label}: {balance_line(figures, analysis['alpha'])}")
    for row in analysis.get("play") or []:
        print(f"-- players, {row['label']}: {play_line(row, analysis['alpha'])}")
    untracked = sum(1 for f in analysis["findings"] if not f["tracked_by"] and f["severity"] != "info")
    print(f"{len(analysis['findings'])} findings, {untracked} untracked, {len(analysis['undecided'])} undecided")
    return 0


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def play_line(row: dict[str, Any], alpha: float) -> str:
    """What one player of the text's game showed, in a line: who it is, the skill gradient, ties, branching and
    the actions it never chose."""
    level = f"{100 * (1 - alpha):.4g}%"
    parts = [row["about"], f"{row['games']} games"]
    skill = row.get("skill")
    if skill:
        fair = f" against a fair share of {_pct(skill['fair'])}" if skill.get("fair") is not None else ""
        parts.append(f"its seat won {_pct(skill['rate'])} against {skill['against']} players{fair} ({level} "
                     f"interval {_pct(skill['ci95'][0])}-{_pct(skill['ci95'][1])})")
    elif row.get("win"):
        parts.append(f"won {_pct(row['win']['rate'])} ({level} interval {_pct(row['win']['ci95'][0])}-"
                     f"{_pct(row['win']['ci95'][1])})")
    for count, share in (row.get("win_by_players") or {}).items():
        parts.append(f"{count}p won {share['count']} of {share['games']}")
    for count, share in ((skill or {}).get("by_players") or {}).items():
        parts.append(f"{count}p its seat won {share['count']} of {share['games']}")
    for count, tie in (row.get("ties") or {}).items():
        if tie["games"]:
            drawn = (row.get("draws") or {}).get(count)
            parts.append(f"{count}p ties {_pct(tie['rate'])}" + (f", draws {_pct(drawn['rate'])}" if drawn else ""))
    for count, lead in (row.get("lead_changes") or {}).items():
        if lead["led_before_end"]["count"]:
            parts.append(f"{count}p lead changes {lead['mean']:.2f} a game ({level} interval {lead['ci95'][0]:.2f}-"
                         f"{lead['ci95'][1]:.2f}), never changed in {_pct(lead['never_changed']['rate'])}")
    if row.get("branching"):
        parts.append(f"{row['branching']['mean']:.1f} legal actions a decision")
    if row.get("never_chosen"):
        parts.append(f"never chose: {', '.join(row['never_chosen'])}")
    return "; ".join(parts)


def balance_line(figures: dict[str, Any], alpha: float = 0.05) -> str:
    """The balance figures of one configuration in a line of text; intervals at the analysis's level (``alpha``,
    5% spread over its looks: named as it is, 99% for 5 looks)."""
    parts = []
    for row in figures.get("seats", []):
        if row["p"] < 0.05 / max(len(figures["seats"]), 1):
            parts.append(f"{row['players']}p seat {row['seat']} wins {_pct(row['rate'])} (fair {_pct(row['fair'])})")
    if "win" in figures:
        win = figures["win"]
        parts.append(f"won {_pct(win['rate'])} ({100 * (1 - alpha):.4g}% CI {_pct(win['ci95'][0])}-"
                     f"{_pct(win['ci95'][1])})")
    length = figures["length"]
    parts.append(f"{length['metric']} {length['mean']:.1f} (quartiles {'/'.join(map(str, length['quartiles']))})")
    if "margin" in figures:
        parts.append(f"margin {figures['margin']['mean']:.1f}")
    ends = [f"{name} {_pct(e['rate'])}" for name, e in figures.get("ends", {}).items()]
    if ends:
        parts.append("ends: " + ", ".join(ends))
    return "; ".join(parts)


def cached_designer_markdown(root: Path, book_id: str, words: Words, book: Book | None = None, cmyk: bool = False,
                             heading: bool = True) -> str:
    """:func:`designer_markdown` (the saved analysis with its matplotlib plots: seconds a book, and matplotlib's
    memory), reused while the saved analysis, what decides play, the edition's language and rule titles, and
    rulepress are unchanged.

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
        return designer_markdown(root, book_id, words, book, cmyk=cmyk, heading=heading)
    store = Store(root)
    # The section says when play changed since the analysis: what decides play is part of the key.
    rules = json.dumps([(r.id, r.number, r.title) for r in book.rules.values()] if book else [])
    key = key_of(code_digest(), book_id, f"cmyk={cmyk} heading={heading} lang={getattr(words, 'lang', '')}", data,
                 json.dumps(play_digests(root, package, book_id), sort_keys=True) if package else "", rules)
    kept = store.load(DESIGNER, key, lambda text: text.decode())
    if kept is not None:
        return kept
    text = designer_markdown(root, book_id, words, book, cmyk=cmyk, heading=heading)
    store.put(DESIGNER, key, text.encode())
    return text


# -- the designer dashboard --------------------------------------------------------------------------------------

def _number(value: float, words: Words, digits: int = 1) -> str:
    text = f"{value:.{digits}f}"
    return text.replace(".", ",") if getattr(words, "lang", "en") == "fr" else text


def _share(value: float, words: Words) -> str:
    text = _number(100 * value, words)
    return f"{text}\u202f%" if getattr(words, "lang", "en") == "fr" else f"{text}%"


def _setting(text: Any, words: Words) -> str:
    """A setting's name in the edition's language ("the text's game" is a phrase; challenge names are the
    engine's option sets, the same in every language)."""
    return str(text).replace(TEXT, words("analysis_text_game"))


def _label(record: dict[str, Any], words: Words) -> str:
    """A configuration's name in the edition's language: "greedy play", a setting, or an answer."""
    if record.get("role") == "policy":
        return words("analysis_policy_play", policy=record["policy"])
    if record.get("role") in ("variant", "baseline"):
        return _setting(record.get("setting", record["label"]), words)
    return _setting(record["label"], words)


def _finding_line(item: dict[str, Any], words: Words, label: Callable[[str], str]) -> str:
    """A finding in the edition's language: its kind's sentence over its subject and evidence."""
    evidence = item.get("evidence") or {}
    kind, _, name = item.get("subject", "").partition(":")
    subject = label(name) if kind == "rule" else name
    key = f"finding_{item['kind'].replace('-', '_')}"
    values = {"subject": subject, "games": evidence.get("games", ""),
              "count": evidence.get("happened", evidence.get("changed", "")),
              "bound": _share(evidence.get("bound", 0.0), words),
              "setting": _setting(evidence.get("setting", evidence.get("settings", "")), words)}
    low, high = (evidence.get("ci95") or [0.0, 0.0])[:2]
    values.update(low=_share(low, words), high=_share(high, words), elsewhere="; ".join(
        f"{_setting(label.removeprefix('option set '), words)} ({_share(k / n, words)})"
        for label, (k, n) in (evidence.get("elsewhere") or {}).items() if n))
    values["moves"] = "; ".join(f"{metric_words(m['metric'], words)} {_number(m['before'], words, 2)} → "
                                f"{_number(m['after'], words, 2)}"
                                for m in (evidence.get("moves") or [])[:3])
    if item["kind"] == "seat-advantage":
        values.update(subject=evidence.get("seat", ""), count=evidence.get("players", ""),
                      games=evidence.get("games", ""), bound=_share(evidence.get("rate", 0.0), words),
                      setting=_share(evidence.get("fair", 0.0), words))
    try:
        text = words(key, **values)
        if evidence.get("played_by"):
            text += " " + words("analysis_played_by", players=", ".join(evidence["played_by"]))
    except KeyError:
        text = item["message"]
    tracked = (words("analysis_tracked", questions=", ".join(item["tracked_by"])) if item["tracked_by"]
               else f"**{words('analysis_untracked')}**")
    where = f"{item['file']}:{item['line']}" if item["line"] else item["file"]
    return f"- *{words('severity_' + item['severity'])}* ({tracked}): {text} (`{where}`)"


def designer_markdown(root: Path, book_id: str, words: Words, book: Book | None = None, cmyk: bool = False,
                      heading: bool = True) -> str:
    """The saved analysis as the designer dashboard: whether its figures are current, findings ranked by severity
    (untracked first within each) with their evidence, what stayed undecided, and the balance tables and plots.
    Empty when the book was never analysed (``rulepress analyze BOOK`` writes the report)."""
    from rulepress.analyze import plots

    analysis = saved(root, book_id)
    if not analysis or "inputs" not in analysis:
        return ""
    t = words

    def name(rule_id: str) -> str:  # "rule 6.4 (The deck runs out)", in the edition's language
        rule = book.rules.get(rule_id) if book is not None else None
        return f"{t('rule_ref', number=rule.number)} ({rule.title})" if rule else rule_id

    lines = [f"## {t('simulated_play')}\n"] if heading else []
    lines.append(t("analysis_intro", level=f"{100 * (1 - analysis.get('alpha', 0.05)):.4g}",
                   looks=analysis.get("looks", 1), games=analysis["games"],
                   budget=analysis.get("budget", analysis["games"]),
                   configs=len(analysis["configs"]), seed=analysis["seed"],
                   policy=t("analysis_policy_play", policy=analysis.get("policy", "")),
                   book=book_id))
    package = analysis.get("engine_package") or ""
    changed = changed_since(analysis["inputs"], root, package, book_id) if package else ["engine"]
    current = package and analysis.get("engine") == engine_fingerprint(root, package, book_id)
    lines.append(t("analysis_current") if current else
                 t("analysis_stale", files=", ".join(f"`{path}`" for path in changed) or "?", book=book_id))
    lines.append(f"\n### {t('analysis_findings')}\n")
    ranked = rank(analysis["findings"])
    lines += [_finding_line(item, t, name) for item in ranked] or [t("analysis_none")]
    if analysis.get("undecided"):
        lines.append(f"\n### {t('analysis_undecided')}\n")
        lines += ["- " + t("analysis_undecided_item", subject=f"`{item['subject']}`", count=item.get("count", ""),
                           games=item.get("games", "")) for item in analysis["undecided"]]
    lines += _difficulty(analysis, t, cmyk, plots)
    lines += _players(analysis, t)
    # The main policy's games of the text's game in full; the settings (challenges) are the difficulty table's rows.
    for record in analysis["configs"]:
        if record.get("role") == "policy" and record["policy"] == analysis.get("policy") \
                and record["label"] in analysis["balance"]:
            lines += _balance(_label(record, t), analysis["balance"][record["label"]], t, name, cmyk, plots)
    lines += _predictors(analysis, t, name)
    limits = analysis.get("limits") or {}
    if limits.get("never_chosen") or limits.get("never_happens"):
        lines.append(f"\n### {t('analysis_limits')}\n")
        if limits.get("never_chosen"):
            lines.append("- " + t("analysis_never_chosen", policy=t("analysis_policy_play", policy=limits["policy"]),
                                  actions=", ".join(f"`{a}`" for a in limits["never_chosen"])))
        if limits.get("never_happens"):
            lines.append("- " + t("analysis_never_happens", policy=t("analysis_policy_play", policy=limits["policy"]),
                                  rules=", ".join(name(r) for r in limits["never_happens"])))
    return "\n".join(lines) + "\n"


def _plot(svg: str | None, cmyk: bool, plots: Any) -> list[str]:
    if not svg:
        return []
    svg = "\n".join(line for line in svg.splitlines() if line.strip())  # one HTML block for Markdown
    return [f'<div class="rp-plot">{plots.svg_cmyk(svg) if cmyk else svg}</div>\n']


def _difficulty(analysis: dict[str, Any], t: Words, cmyk: bool, plots: Any) -> list[str]:
    rows = analysis.get("difficulty") or []
    if not rows:
        return []
    lines = [f"\n### {t('analysis_difficulty')}\n", t("analysis_difficulty_columns"), "|---|---|---|---|---|"]
    for row in rows:
        win = row["win"]
        lines.append(f"| {_setting(row['setting'], t)} | {win['games']} | {_share(win['rate'], t)} | "
                     f"{_share(win['ci95'][0], t)}–{_share(win['ci95'][1], t)} | {_number(row['length'], t)} |")
    lines.append("")
    shown = [{**row, "setting": _setting(row["setting"], t)} for row in rows]
    return lines + _plot(plots.difficulty_chart(shown, t("analysis_difficulty")), cmyk, plots)


def _players(analysis: dict[str, Any], t: Words) -> list[str]:
    """Who played the text's game, and what a designer asks of each: the skill gradient (the first player's seat
    against the others), ties, length, legal actions a decision, and the actions never chosen."""
    rows = analysis.get("play") or []
    if not rows:
        return []
    lines = [f"\n### {t('analysis_play')}\n", t("analysis_play_columns"), "|---|---|---|---|---|---|"]
    for row in rows:
        skill = row.get("skill")
        if skill:
            fair = "" if skill.get("fair") is None else f" / {_share(skill['fair'], t)}"
            won = f"{_share(skill['rate'], t)}{fair} ({_share(skill['ci95'][0], t)}–{_share(skill['ci95'][1], t)})"
        elif row.get("win"):
            won = _share(row["win"]["rate"], t)
        else:
            won = "–"
        branching = _number(row["branching"]["mean"], t) if row.get("branching") else "–"
        never = ", ".join(f"`{kind}`" for kind in row.get("never_chosen") or []) or "–"
        lines.append(f"| {row['label']} | {row['about']} | {row['games']} | {won} | {branching} | {never} |")
    return lines + [""] + _skill(rows, t) + _decisiveness(rows, t)


def _skill(rows: list[dict[str, Any]], t: Words) -> list[str]:
    """The skill gradient at each player count: how often the stronger player's seat won against random play and
    against a weaker search, against the seat's fair share (none in a cooperative game: everyone wins together)."""
    found = [(row, count, share) for row in rows for count, share in
             ((row.get("skill") or {}).get("by_players") or {}).items()]
    if not found:
        return []
    lines = [f"\n### {t('analysis_skill')}\n", t("analysis_skill_columns"), "|---|---|---|---|---|---|---|"]
    for row, count, share in found:
        skill = row["skill"]
        fair = "–" if share.get("fair") is None else _share(share["fair"], t)
        lines.append(f"| {_setting(row.get('setting', ''), t)} | {skill['strong']} | {skill['against']} | {count} | "
                     f"{share['count']} / {share['games']} ({_share(share['rate'], t)}) | {fair} | "
                     f"{_share(share['ci95'][0], t)}–{_share(share['ci95'][1], t)} |")
    return lines + [""]


def _decisiveness(rows: list[dict[str, Any]], t: Words) -> list[str]:
    """Per player and player count: lead changes a game (the lead held by the engine's score after each turn), the
    share of games whose lead never changed hands, and the ties (a shared win) and draws (no winner)."""
    found = [(row, count) for row in rows if row.get("lead_changes") or row.get("ties")
             for count in sorted(set(row.get("lead_changes") or {}) | set(row.get("ties") or {}), key=int)]
    if not found:
        return []
    lines = [f"\n### {t('analysis_decisive')}\n", t("analysis_decisive_columns"), "|---|---|---|---|---|---|---|"]
    for row, count in found:
        lead = (row.get("lead_changes") or {}).get(count)
        if lead:
            low, high = lead["ci95"]
            changes = f"{_number(lead['mean'], t, 2)} ({_number(low, t, 2)}–{_number(high, t, 2)})"
            never = _share(lead["never_changed"]["rate"], t)
            if not lead["led_before_end"]["count"]:
                changes = never = t("analysis_scored_at_end")
        else:
            changes = never = "–"
        tie, drawn = (row.get("ties") or {}).get(count), (row.get("draws") or {}).get(count)
        lines.append(f"| {row['label']} | {count} | {(lead or tie or {}).get('games', '–')} | {changes} | {never} | "
                     f"{_share(tie['rate'], t) if tie else '–'} | {_share(drawn['rate'], t) if drawn else '–'} |")
    return lines + [""]


def _balance(config_label: str, figures: dict[str, Any], t: Words, name: Callable[[str], str], cmyk: bool,
             plots: Any) -> list[str]:
    lines = []
    if figures.get("seats"):
        lines += [f"\n### {t('analysis_seats', label=config_label)}\n", t("analysis_seat_columns"),
                  "|---|---|---|---|---|---|"]
        for row in figures["seats"]:
            lines.append(f"| {row['players']} | {row['seat']} | {row['games']} | {_share(row['rate'], t)} | "
                         f"{_share(row['fair'], t)} | {_share(row['ci95'][0], t)}–{_share(row['ci95'][1], t)} |")
        lines.append("")
        lines += _plot(plots.seat_win_rates(figures, t("analysis_seats", label=config_label), t("fair_share")), cmyk,
                       plots)
    length = figures["length"]
    lines.append("\n" + t("analysis_length", label=config_label, mean=_number(length["mean"], t),
                          metric=t(f"metric_{length['metric']}"), quartiles="/".join(map(str, length["quartiles"])),
                          low=length["range"][0], high=length["range"][1]) + "\n")
    lines += _plot(plots.length_histogram(figures, f"{config_label}: {t('metric_' + length['metric'])}",
                                          t("games_word")), cmyk, plots)
    if figures.get("ends"):
        lines += [f"\n### {t('analysis_ends', label=config_label)}\n", t("analysis_ends_columns"), "|---|---|---|---|"]
        names = {}
        for rule, end in figures["ends"].items():
            names[rule] = t("analysis_other_end") if rule == "other" else name(rule)
            lines.append(f"| {names[rule]} | {end['count']} | {_share(end['rate'], t)} | "
                         f"{_share(end['ci95'][0], t)}–{_share(end['ci95'][1], t)} |")
        lines.append("")
        lines += _plot(plots.end_shares(figures, t("analysis_ends", label=config_label), names), cmyk, plots)
    return lines


def _predictors(analysis: dict[str, Any], t: Words, name: Callable[[str], str]) -> list[str]:
    rows = analysis.get("predictors") or []
    if not rows:
        return []
    lines = [f"\n### {t('analysis_predictors', label=t('analysis_policy_play', policy=analysis.get('policy', '')))}\n"]
    lines += ["- " + t("analysis_predictor", rule=name(row["rule"]), r=_number(row["r"], t, 2),
                       low=_number(row["ci95"][0], t, 2), high=_number(row["ci95"][1], t, 2)) for row in rows]
    return lines
