"""The figures designers compare, from the games of one configuration or several: win rate per seat for each player
count against that count's fair share, a difficulty table per setting (challenge), game lengths, how games end
(every ending, the ones never reached at 0%), which rules' events go with winning, and what the policy never does.
Every share carries its interval at the analysis's level."""

from __future__ import annotations

import math
from typing import Any

from rulepress.analyze import stats
from rulepress.analyze.impact import impact_policy
from rulepress.analyze.plan import Config, possible
from rulepress.analyze.tally import Tally, quantile
from rulepress.verify.gate import BookCheck

PREDICTORS = 6  # rules listed as going with winning


def share(successes: int, trials: int, alpha: float = stats.ALPHA) -> dict[str, Any]:
    low, high = stats.proportion_interval(successes, trials, alpha)
    # "ci95" is the interval at the analysis's level (``level``: 1 - alpha, 99% for 5 looks), named so since the
    # saved reports' first version.
    return {"count": successes, "games": trials, "rate": successes / trials if trials else 0.0, "ci95": [low, high],
            "level": round(1 - alpha, 6)}


def seat_table(tally: Tally, alpha: float = stats.ALPHA) -> list[dict[str, Any]]:
    """Each seat at each player count: its wins against its fair share (the count's winners per game divided by its
    players: 1/n without ties), with an interval and the exact two-sided p-value of the difference."""
    rows = []
    for players in sorted(tally.count_games):
        games = tally.count_games[players]
        fair = tally.winners[players] / (players * games) if games else 0.0
        for seat in range(players):
            wins = tally.seat_wins[players, seat]
            row = share(wins, games, alpha)
            rows.append({"players": players, "seat": seat + 1, "wins": wins, **row, "fair": fair,
                         "p": stats.binomial_p(wins, games, fair)})
    return rows


def balance(tally: Tally, check: BookCheck | None, alpha: float = stats.ALPHA,
            config: Config | None = None) -> dict[str, Any]:
    """One configuration's figures: seats per player count (competitive), the win rate overall and per player count
    (solo, cooperative), length, how games end, margin."""
    found: dict[str, Any] = {"games": tally.games, "finished": tally.finished}
    if tally.count_games:
        found["seats"] = seat_table(tally, alpha)
        found["ties"] = {str(n): share(tally.ties[n], tally.count_games[n], alpha) for n in sorted(tally.count_games)}
        found["draws"] = draws(tally, alpha)
        if tally.leads:
            found["lead_changes"] = decisiveness(tally, alpha)
    elif "won" in tally.flag_games:
        found["win"] = share(tally.flags["won"], tally.flag_games["won"], alpha)
        counts = sorted(set(tally.players))
        if len(counts) > 1:
            found["win_by_players"] = {
                str(n): share(sum(1 for p, o in zip(tally.players, tally.outcomes, strict=True) if p == n and o == 1),
                              sum(1 for p, o in zip(tally.players, tally.outcomes, strict=True) if p == n and o >= 0),
                              alpha) for n in counts}
    length = "rounds" if "rounds" in tally.histograms else "actions"
    histogram = tally.histograms.get(length, {})
    mean, error = tally.mean(length)
    z = stats.z_for(alpha)
    found["length"] = {"metric": length, "mean": mean, "ci95": [mean - z * error, mean + z * error],
                       "quartiles": [quantile(histogram, q) for q in (0.25, 0.5, 0.75)],
                       "range": [min(histogram, default=0), max(histogram, default=0)],
                       "histogram": {str(k): v for k, v in sorted(histogram.items())}}
    if check is not None:
        found["ends"] = ends(tally, check, alpha, config)
    if "margin" in tally.numbers:
        mean, error = tally.mean("margin")
        found["margin"] = {"mean": mean, "ci95": [mean - z * error, mean + z * error],
                           "histogram": {str(k): v for k, v in sorted(tally.histograms.get("margin", {}).items())}}
    return found


def draws(tally: Tally, alpha: float = stats.ALPHA) -> dict[str, dict[str, Any]]:
    """Per player count, the competitive games no one won (a drawn game; a shared win is a tie, ``ties``)."""
    counts: dict[int, list[int]] = {}
    for players, outcome in zip(tally.players, tally.outcomes, strict=True):
        if tally.count_games[players]:
            entry = counts.setdefault(players, [0, 0])
            entry[0] += outcome == 0  # the winning seats' bit mask: 0 when no seat won
            entry[1] += 1
    return {str(n): share(drawn, games, alpha) for n, (drawn, games) in sorted(counts.items())}


def decisiveness(tally: Tally, alpha: float = stats.ALPHA) -> dict[str, dict[str, Any]]:
    """Per player count, in games whose result gives a score to lead by: how often the lead changed hands a game
    (the mean, with its normal interval at ``1 - alpha``, and the histogram), the share of games it never did, and
    the share in which anyone led alone before the last turn (none: the score is given only at the end, so "never
    changed" says nothing there)."""
    z = stats.z_for(alpha)
    found = {}
    for players in sorted({n for n, _ in tally.leads}):
        counts = {changes: games for (n, changes), games in tally.leads.items() if n == players}
        games = sum(counts.values())
        mean, error = stats.mean_difference(games, float(sum(c * g for c, g in counts.items())),
                                            float(sum(c * c * g for c, g in counts.items())))
        found[str(players)] = {"games": games, "mean": mean, "ci95": [max(mean - z * error, 0.0), mean + z * error],
                               "level": round(1 - alpha, 6), "never_changed": share(counts.get(0, 0), games, alpha),
                               "led_before_end": share(tally.led_early[players], games, alpha),
                               "histogram": {str(c): g for c, g in sorted(counts.items())}}
    return found


def skill_by_players(tally: Tally, flag: str, alpha: float = stats.ALPHA,
                     competitive: bool = True) -> dict[str, dict[str, Any]]:
    """Per player count, how often the seat of the stronger player (``flag``, a yes/no metric per game) won, with
    its interval; ``fair``: that count's share of one seat (1/n) in a competitive game, None otherwise (everyone
    wins or loses together)."""
    column = tally.values.get(flag)
    if column is None:
        return {}
    counts: dict[int, list[int]] = {}
    for players, value in zip(tally.players, column, strict=True):
        if not math.isnan(value):
            entry = counts.setdefault(players, [0, 0])
            entry[0] += value == 1.0
            entry[1] += 1
    return {str(n): {**share(won, games, alpha), "fair": 1 / n if competitive else None}
            for n, (won, games) in sorted(counts.items())}


def ends(tally: Tally, check: BookCheck, alpha: float = stats.ALPHA, config: Config | None = None) -> dict[str, Any]:
    """How games ended, by end rule (the engine's ``END_RULES``): every one that can end a game of ``config`` (a
    challenge's loss needs the challenge), those never reached at 0%, and the games no end rule names ("other":
    unfinished, or an ending whose event names an ordinary rule)."""
    found = {}
    named = 0
    for rule_id in check.engine.end_rules:
        if rule_id in check.book.rules and (config is None or possible(check, config, rule_id)):
            found[rule_id] = share(tally.fired[rule_id], tally.games, alpha)
            named += tally.fired[rule_id]
    if found and tally.games > named:
        found["other"] = share(tally.games - named, tally.games, alpha)
    return found


def wins_by_players(tally: Tally, alpha: float = stats.ALPHA) -> dict[str, dict[str, Any]]:
    """A solo or cooperative game's win rate at each player count (its games of that count), with its interval."""
    counts: dict[int, list[int]] = {}
    for players, outcome in zip(tally.players, tally.outcomes, strict=True):
        if outcome >= 0:
            entry = counts.setdefault(players, [0, 0])
            entry[0] += outcome == 1
            entry[1] += 1
    return {str(n): share(won, games, alpha) for n, (won, games) in sorted(counts.items())}


def difficulty(check: BookCheck, runs: list[tuple[Config, Tally]], alpha: float = stats.ALPHA) -> list[dict[str, Any]]:
    """Per setting of the text's game under the engine's main policy (the base game, each challenge): the win rate
    with its interval and the mean length, easiest first (solo and cooperative games)."""
    main = impact_policy(check.engine)[0]
    rows = []
    for config, tally in runs:
        if not config.text or config.policy != main or config.role == "baseline" or "won" not in tally.flag_games:
            continue
        length = "rounds" if "rounds" in tally.histograms else "actions"
        rows.append({"setting": config.setting, "label": config.label, "players": list(config.players),
                     "win": share(tally.flags["won"], tally.flag_games["won"], alpha),
                     "by_players": wins_by_players(tally, alpha),
                     "length": tally.mean(length)[0], "length_metric": length,
                     "ends": ends(tally, check, alpha, config)})
    return sorted(rows, key=lambda row: -row["win"]["rate"])


def predictors(check: BookCheck, tally: Tally | None, alpha: float = stats.ALPHA) -> list[dict[str, Any]]:
    """The rules whose events best go with winning under the main policy in the text's game: the correlation of
    how often a rule's event named a player (competitive: centred within each game, against winning) or happened in
    a game (solo, cooperative: against the win), with its interval; only those beyond noise after correction."""
    if tally is None:
        return []
    rows = []
    ends = set(check.engine.end_rules)  # an ending is the outcome itself, not a predictor of it
    for rule_id in sorted(tally.links):
        if rule_id not in check.book.rules or rule_id in ends:
            continue
        _, sxy, sxx, syy = tally.link_sums(rule_id)
        # Seats of one game are not independent of each other: the interval counts games, not seats.
        games = tally.games
        r, low, high = stats.correlation(games, sxy, sxx, syy, alpha)
        if games < 4 or sxx <= 0 or abs(r) >= 0.999:
            continue  # |r| = 1: the rule happens exactly when the game is won (scoring a win): the outcome itself
        z = math.atanh(max(-0.999999, min(0.999999, r))) * math.sqrt(games - 3)
        rows.append({"rule": rule_id, "r": r, "ci95": [low, high], "games": games, "p": stats.normal_p(z, 1.0)})
    for row, p in zip(rows, stats.corrected([row["p"] for row in rows]), strict=True):
        row["p_adjusted"] = p
    rows = [row for row in rows if row["p_adjusted"] < alpha]
    return sorted(rows, key=lambda row: (-abs(row["r"]), row["rule"]))[:PREDICTORS]


def limits(check: BookCheck, runs: list[tuple[Config, Tally]]) -> dict[str, Any]:
    """What the main policy never does in the text's game, though random play does: actions it never chooses and
    rules it never makes happen.  What the analysis says about those rests on random play alone."""
    main = impact_policy(check.engine)[0]
    policy = [t for c, t in runs if c.text and c.policy == main and not c.players]
    chance = [t for c, t in runs if c.policy == "random"]
    if not policy or not chance or main == "random":
        return {"policy": main, "never_chosen": [], "never_happens": []}
    chosen = set().union(*(t.chosen for t in policy))
    offered = set().union(*(t.offered for t in chance))
    fired = set().union(*(t.fired for t in policy))
    by_chance = set().union(*(t.fired for t in chance))
    return {"policy": main, "games": sum(t.games for t in policy),
            "never_chosen": sorted(offered - chosen),
            "never_happens": sorted(r for r in by_chance - fired if r in check.book.rules)}
