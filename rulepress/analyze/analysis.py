"""``rulepress analyze BOOK``: what simulated play says is wrong or undetermined in a rulebook.

The configurations come from :mod:`rulepress.analyze.plan`.  Every configuration first plays ``games`` games; then,
while a finding is undecided (its interval straddles the threshold that matters), the configurations it rests on
play on, doubling, up to ``budget`` games each.  A finding is reported only once decided, with its evidence (games,
counts, intervals); what is still undecided when the budget is spent is listed as such, never as a finding.  Tests
run at 5% divided by the number of looks, corrected for their number (:mod:`rulepress.analyze.stats`).

The lint findings (:mod:`rulepress.analyze.lint`, the text against its data) join them, so one run reports both.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulepress.analyze import balance as figures
from rulepress.analyze import refusals, stats
from rulepress.analyze.cluster import Pool
from rulepress.analyze.decided import decision_table
from rulepress.analyze.findings import Finding, track
from rulepress.analyze.fingerprint import engine_fingerprint, play_digests
from rulepress.analyze.impact import example_changes, impact_policy, simulate_many
from rulepress.analyze.lint import lint
from rulepress.analyze.plan import Config, configs, possible
from rulepress.analyze.tally import Tally
from rulepress.load.book import Book
from rulepress.verify.decisions import declared
from rulepress.verify.gate import BookCheck
from rulepress.verify.trace import engine_rule_literals

REPORTS = Path("reports") / "analysis"
RARE = 0.01  # a rule (ending, component, choice) in under 1% of a setting's games is nearly dead there
CHANGED = 0.01  # an answer changing under 1% of games: the policy (almost) never meets the situation
SEAT_MARGIN = 0.05  # a seat within 5 points of its fair share is fair
SHARE_MARGIN = 0.02  # an answer moving a win rate by under 2 points does not matter
LENGTH_MARGIN = 0.02  # nor one moving the game's length by under 2%
DEFAULT_GAMES = 500
DEFAULT_BUDGET = 8000
# Engine lines that name a rule without making it happen: refusals, and an option's list of the rules it bears on.
INERT = ("RuleViolation", "DescriptionError", "raise ", "refuse", "OptionSpec")


@dataclass
class Run:
    config: Config
    tally: Tally


@dataclass
class Verdicts:
    findings: list[Finding]
    undecided: list[dict[str, Any]]  # what the budget did not decide: {"subject", "message", "configs"}
    examples: set[str] = field(default_factory=set)  # questions an answer of which changes an example
    answers: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # question -> each answer's comparison

    def wanting(self) -> set[str]:
        return {label for item in self.undecided for label in item["configs"]}


def analyse(workers: Pool, root: Path, check: BookCheck, games: int = DEFAULT_GAMES, seed: int = 0,
            progress: Callable[[int], None] | None = None, budget: int | None = None,
            grow: Callable[[int], None] | None = None, players: list[str] | None = None) -> dict[str, Any]:
    """Play every configuration, on until every finding is decided or ``budget`` games per configuration are
    played, and return the analysis as plain data (what ``--json`` prints and is saved).  ``grow(n)`` is told
    of ``n`` more games to come each time the analysis plays on.  ``players``: who plays the text's game
    (``analyze --players``; by default random play, the book's policies and a competent player, plan.players).
    A competent player's configurations play fewer games (``Config.first`` and ``Config.cap``): a search costs
    hundreds of random games a decision."""
    budget = max(budget or max(games, DEFAULT_BUDGET), games)
    every = configs(check, players)
    looks = 1 + max(0, math.ceil(math.log2(budget / games))) if games else 1
    alpha = stats.ALPHA / looks
    runs = [Run(c, Tally()) for c in every]
    _play(workers, root, check, [(run, 0, run.config.first(games)) for run in runs], progress, seed)
    while True:
        verdicts = evaluate(root, check, runs, alpha)
        wanted = [(run, run.tally.games, min(2 * run.tally.games, run.config.cap(budget))) for run in runs
                  if run.config.label in verdicts.wanting() and run.tally.games < run.config.cap(budget)]
        if not wanted:
            break
        if grow:
            grow(sum(to - first for _, first, to in wanted))
        _play(workers, root, check, wanted, progress, seed)
    found = verdicts.findings
    name_players(found, [run.config for run in runs], impact_policy(check.engine)[0])
    found += lint(check.book)
    track(check.book, found)
    return {"book": check.book.id, "engine": engine_fingerprint(root, check.book.engine_package, check.book.id),
            "inputs": play_digests(root, check.book.engine_package, check.book.id),
            "engine_package": check.book.engine_package, "seed": seed, "games": games, "budget": budget,
            "alpha": alpha, "looks": looks, "policy": impact_policy(check.engine)[0],
            "configs": [_config_record(run) for run in runs],
            "balance": {run.config.label: figures.balance(run.tally, check, alpha, run.config) for run in runs
                        if run.config.text},
            "difficulty": figures.difficulty(check, [(r.config, r.tally) for r in runs], alpha),
            "play": play_figures(check, runs, alpha),
            "predictors": figures.predictors(check, _main(check, runs).tally if _main(check, runs) else None, alpha),
            "limits": figures.limits(check, [(r.config, r.tally) for r in runs]),
            "findings": [f.as_dict() for f in found], "undecided": verdicts.undecided,
            "questions": verdicts.answers,
            "decisions": decision_table(check.engine, [(run.config.label, run.tally) for run in runs]),
            "refusals": refusal_table(root, check, runs)}


def play_figures(check: BookCheck, runs: list[Run], alpha: float) -> list[dict[str, Any]]:
    """What a designer asks of each player of the text's game (its own rules, every player count) and of each
    challenge played competently: who it is, the skill gradient (how often the first player's seat wins against
    the other players, against its fair share, overall and at each player count), seats, ties, draws, lead
    changes a game (decisiveness), length, legal actions per decision, and the actions it never chose though they
    were legal."""
    rows = []
    for run in runs:
        config, tally = run.config, run.tally
        if not tally.games or not (config.role == "policy" or config.role == "variant" and config.competent):
            continue  # each player of the text's game, and each challenge played competently
        row: dict[str, Any] = {"player": config.policy, "label": config.label, "games": tally.games,
                               "setting": config.setting, "about": _about(check, config.policy)}
        row.update({key: value for key, value in figures.balance(tally, check, alpha, config).items()
                    if key in ("seats", "ties", "draws", "lead_changes", "length", "win", "win_by_players")})
        flag = "first player's seat won"
        if tally.flag_games[flag]:
            seats = sorted(set(tally.players))
            competitive = "won" not in tally.flag_games
            fair = sum(1 / n for n in tally.players) / len(tally.players) if competitive else None
            row["skill"] = {**figures.share(tally.flags[flag], tally.flag_games[flag], alpha), "fair": fair,
                            "strong": config.seats[0], "against": config.seats[1], "players": seats,
                            "by_players": figures.skill_by_players(tally, flag, alpha, competitive)}
        if "branching" in tally.numbers:
            mean, error = tally.mean("branching")
            row["branching"] = {"mean": mean, "error": error}
        if tally.offered:
            row["never_chosen"] = sorted(kind for kind, games in tally.offered.items() if games and
                                         not tally.chosen[kind])
        rows.append(row)
    return rows


def _about(check: BookCheck, policy: str) -> str:
    """A player in a sentence: what search it is (and what it falls back to), or whose policy."""
    if "mcts:" not in policy:
        return "uniformly random legal actions" if policy == "random" else f"the book's own policy '{policy}'"
    from rulepress.analyze.plan import game_of
    from rulepress.openspiel.players import describe, parse

    game, said = game_of(check), []
    for part in policy.split(" vs "):
        searcher = parse(part)
        said.append(describe(searcher, game) if searcher else part)
    return " against ".join(said)


def name_players(found: list[Finding], played: list[Config], main: str) -> None:
    """Every simulation finding says who played the games it rests on (``evidence["played_by"]``, and in its
    message): the configurations its evidence names, else the policy that plays every setting and answer
    (``main``)."""
    labels = {config.label: config.policy for config in played}
    for finding in found:
        evidence = finding.evidence
        if "played_by" not in evidence:
            named = [labels[v] for v in _strings(evidence) if v in labels]
            if finding.kind == "seat-advantage" or finding.subject.startswith("seat:"):
                named = [labels[finding.subject.split(":", 1)[1].rsplit("/", 2)[0]]]
            evidence["played_by"] = list(dict.fromkeys(named)) or [main]
        if "[played by" not in finding.message:
            finding.message += f" [played by {', '.join(evidence['played_by'])}]"


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _play(workers: Pool, root: Path, check: BookCheck, wanted: list[tuple[Run, int, int]],
          progress: Callable[[int], None] | None, seed: int) -> None:
    """Play games ``first..to-1`` of each run's configuration and add them to its tally: every run of the same
    range at once (every chunk submitted together)."""
    ranges: dict[tuple[int, int], list[Run]] = {}
    for run, first, to in wanted:
        if to > first:
            ranges.setdefault((first, to), []).append(run)
    for (first, to), group in ranges.items():
        more = simulate_many(workers, root, check, [run.config.play for run in group], to, progress, seed,
                             first=first)
        for run, tally in zip(group, more, strict=True):
            run.tally.merge(tally)


def evaluate(root: Path, check: BookCheck, runs: list[Run], alpha: float) -> Verdicts:
    """Every finding the games so far decide, and what they leave undecided."""
    verdicts = Verdicts([], [], _examples_changed(check))
    rare_rules(root, check, runs, alpha, verdicts)
    unreached_ends(check, runs, alpha, verdicts)
    rare_endings(check, runs, alpha, verdicts)
    unused_components(check, runs, alpha, verdicts)
    unmade_choices(check, runs, alpha, verdicts)
    unwinnable_settings(check, runs, alpha, verdicts)
    difficulty_by_players(check, runs, alpha, verdicts)
    seat_advantages(check, runs, alpha, verdicts)
    question_effects(check, runs, alpha, verdicts)
    unprovoked_refusals(root, check, runs, alpha, verdicts)
    return verdicts


_CHANGED: dict[int, set[str]] = {}


def _examples_changed(check: BookCheck) -> set[str]:
    """The questions some answer of which changes an example's replay (worked out once per check: the replays do
    not depend on the games played)."""
    if id(check) not in _CHANGED:
        _CHANGED.clear()
        _CHANGED[id(check)] = {q.id for q in check.book.questions if q.option and q.status != "dropped"
                               and any(example_changes(check, q, a) for a in q.answers if a != q.assumed)}
    return _CHANGED[id(check)]


def _main(check: BookCheck, runs: list[Run]) -> Run | None:
    main = impact_policy(check.engine)[0]
    return next((run for run in runs if run.config.default and run.config.policy == main), None)


def _config_record(run: Run) -> dict[str, Any]:
    config, tally = run.config, run.tally
    return {"label": config.label, "policy": config.policy, "options": config.options, "question": config.question,
            "answer": config.answer, "role": config.role, "setting": config.setting, "players": list(config.players),
            "baseline": config.baseline, "games": tally.games, "finished": tally.finished,
            "fired": dict(sorted(tally.fired.items())), "touched": dict(sorted(tally.touched.items())),
            "offered": dict(sorted(tally.offered.items())), "chosen": dict(sorted(tally.chosen.items())),
            "decided": dict(sorted(tally.decided.items())), "probed": tally.probed,
            "refused": dict(sorted(tally.refused.items())), "summary": tally.summary(),
            "histograms": {k: {str(v): n for v, n in sorted(h.items())} for k, h in sorted(tally.histograms.items())}}


def _where(book: Book, rule_id: str) -> tuple[str, int | None]:
    rule = book.rules.get(rule_id)
    return (rule.file, rule.line) if rule else (book.path("components.yaml"), None)


def _level(level: float) -> str:
    """How sure a bound is: its one-sided level, corrected for the looks and the number of things tested (the
    analysis's 5% spread over them), named as it is so a reader who recomputes it gets the same number."""
    return f"one-sided at {100 * (1 - level):.4g}% confidence"


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%" if value >= 0.001 or value == 0 else f"{100 * value:.2f}%"


# -- rare things: rules, endings, components, choices --------------------------------------------------------------

@dataclass
class Rarity:
    """How often something happened in each setting of the text's game, and what that decides."""

    counts: list[tuple[Config, int, int]]  # (config, games it happened in, games)
    others: list[tuple[Config, int, int]]  # the same under other answers and bundles
    level: float  # the one-sided level of each bound (corrected for how many things are tested)

    @property
    def rare(self) -> bool:
        return all(stats.upper_bound(k, n, self.level) < RARE for _, k, n in self.counts)

    @property
    def common(self) -> bool:
        return any(stats.lower_bound(k, n, self.level) > RARE for _, k, n in self.counts)

    @property
    def unsure(self) -> list[str]:
        """The settings whose games cannot yet tell rare from not."""
        return [c.label for c, k, n in self.counts
                if stats.upper_bound(k, n, self.level) >= RARE and stats.lower_bound(k, n, self.level) <= RARE]

    def evidence(self) -> dict[str, Any]:
        worst = max(self.counts, key=lambda item: stats.upper_bound(item[1], item[2], self.level))
        return {"games": sum(n for _, _, n in self.counts), "happened": sum(k for _, k, _ in self.counts),
                "settings": len(self.counts), "threshold": RARE,
                "bound": stats.upper_bound(worst[1], worst[2], self.level), "bound_setting": worst[0].label,
                "elsewhere": {c.label: [k, n] for c, k, n in self.others if k}}

    def elsewhere(self) -> str:
        return ", ".join(f"{c.label} ({_pct(k / n)} of {n})" for c, k, n in self.others if k and n)


def _rarity(runs: list[Run], count: Callable[[Tally], int], family: int, alpha: float,
            where: Callable[[Config], bool] = lambda c: True) -> Rarity:
    level = alpha / max(family, 1)
    text = [(r.config, count(r.tally), r.tally.games) for r in runs if r.config.text and where(r.config)]
    other = [(r.config, count(r.tally), r.tally.games) for r in runs if not r.config.text and where(r.config)]
    return Rarity(text, other, level)


def by_player(rarity: Rarity) -> dict[str, Rarity]:
    """``rarity`` split by who played (a configuration's policy), in the order the configurations come."""
    found: dict[str, Rarity] = {}
    for config, k, n in rarity.counts:
        found.setdefault(config.policy, Rarity([], [], rarity.level)).counts.append((config, k, n))
    return found


def depends_on_play(verdicts: Verdicts, rarity: Rarity, subject: str, what: str, kind: str, rules: list[str],
                    file: str, line: int | None) -> bool:
    """When ``what`` is rare under one player and common under another, say so (both figures), never as a fact
    about the rules: True when it did."""
    groups = by_player(rarity)
    rare = [name for name, group in groups.items() if group.counts and group.rare]
    common = [name for name, group in groups.items() if group.counts and group.common]
    if not rare or not common:
        return False

    def figure(name: str) -> str:
        k = sum(c for _, c, _ in groups[name].counts)
        n = sum(g for _, _, g in groups[name].counts)
        return f"{name} play {k} of {n} games ({_pct(k / n if n else 0)})"

    verdicts.findings.append(Finding(
        "depends-on-play", f"{what}: depends on how people play: {'; '.join(figure(name) for name in rare)} (under "
                           f"{RARE:.0%} of games), but {'; '.join(figure(name) for name in common)}",
        rules, file, line, "info", subject=subject,
        evidence={"rare_under": rare, "common_under": common, "played_by": rare + common, "kind": kind,
                  "figures": {name: [sum(c for _, c, _ in groups[name].counts),
                                     sum(g for _, _, g in groups[name].counts)] for name in rare + common}}))
    return True


def _rare_finding(verdicts: Verdicts, rarity: Rarity, subject: str, never: str, seldom: str, only: str,
                  kind_never: str, kind_rare: str, rules: list[str], file: str, line: int | None) -> None:
    """Add the finding ``rarity`` decides, or what it leaves undecided; one rare for one player and common for
    another is ``depends-on-play``."""
    if not rarity.counts:
        return
    if depends_on_play(verdicts, rarity, subject, subject.split(":", 1)[1], kind_never, rules, file, line):
        return
    if rarity.common:
        return
    evidence = {**rarity.evidence(), "played_by": list(by_player(rarity))}
    bound = f"in at most {_pct(evidence['bound'])} of games ({_level(rarity.level)})"
    if not rarity.rare:
        verdicts.undecided.append({"subject": subject, "configs": rarity.unsure, "games": evidence["games"],
                                   "count": evidence["happened"],
                                   "message": f"{subject.split(':', 1)[1]}: {evidence['happened']} of "
                                              f"{evidence['games']} games so far, not enough to tell under {RARE:.0%} "
                                              "of games from over"})
        return
    games = evidence["games"]
    if evidence["happened"] == 0 and not evidence["elsewhere"]:
        message, kind = f"{never} in {games} games of the text's game ({evidence['settings']} settings): it happens " \
                        f"{bound}", kind_never
    elif evidence["happened"] == 0:
        message, kind = f"{never} in {games} games of the text's game ({evidence['settings']} settings); {only}: " \
                        f"{rarity.elsewhere()}", kind_rare
    else:
        message, kind = f"{seldom} in {evidence['happened']} of {games} games of the text's game: it happens " \
                        f"{bound}" + (f"; {only}: {rarity.elsewhere()}" if evidence["elsewhere"] else ""), kind_rare
    verdicts.findings.append(Finding(kind, message, rules, file, line, subject=subject, evidence=evidence))


def _refusal_only(root: Path, places: list[str]) -> bool:
    """True when every engine line naming the rule refuses something or describes an option (the rule can
    never fire as an event in play, where policies only choose legal actions).  The line above counts too:
    a refusal's arguments are often wrapped onto the next line."""
    for place in places:
        file, _, line = place.rpartition(":")
        try:
            lines = (root / file).read_text(encoding="utf-8").splitlines()
            text = " ".join(lines[max(int(line) - 2, 0):int(line)])
        except (OSError, ValueError):
            return False
        if file.endswith("/options.py"):
            continue
        if not any(word in text for word in INERT):
            return False
    return True


def _engine_rules(root: Path, check: BookCheck) -> list[str]:
    """The rules the engine makes happen (an event, not only a refusal), leaves only, endings left out."""
    book = check.book
    ends = set(check.engine.end_rules)
    literals = engine_rule_literals(root / "engine" / book.engine_package, book.prefix, root)
    return [rule for rule, places in sorted(literals.items())
            if rule in book.rules and rule not in ends and not book.rules[rule].children
            and not _refusal_only(root, places)]


def rare_rules(root: Path, check: BookCheck, runs: list[Run], alpha: float, verdicts: Verdicts) -> None:
    """Rules the engine makes happen that (nearly) never happen in the text's game, each setting of it: in under
    1% of games, one-sided at 5% spread over the looks and corrected for the number of rules tested."""
    book = check.book
    rules = _engine_rules(root, check)
    for rule_id in rules:
        rarity = _rarity(runs, lambda t, r=rule_id: t.fired[r], len(rules), alpha,
                         lambda c, r=rule_id: possible(check, c, r))
        label = book.rules[rule_id].label
        file, line = _where(book, rule_id)
        _rare_finding(verdicts, rarity, f"rule:{rule_id}", f"{label} never happened", f"{label} happened only",
                      "it happens only under other answers", "dead-rule", "nearly-dead-rule", [rule_id], file, line)


def unreached_ends(check: BookCheck, runs: list[Run], alpha: float, verdicts: Verdicts) -> None:
    """End conditions (the engine's ``END_RULES``) that (nearly) no game of the text's game reaches."""
    book = check.book
    ends = [r for r in check.engine.end_rules if r in book.rules]
    for rule_id in ends:
        rarity = _rarity(runs, lambda t, r=rule_id: t.fired[r], len(ends), alpha,
                         lambda c, r=rule_id: possible(check, c, r))
        label = book.rules[rule_id].label
        file, line = _where(book, rule_id)
        _rare_finding(verdicts, rarity, f"rule:{rule_id}", f"the end condition {label} was never reached",
                      f"the end condition {label} was reached only", "it is reached only under other answers",
                      "end-never-reached", "end-never-reached", [rule_id], file, line)


def rare_endings(check: BookCheck, runs: list[Run], alpha: float, verdicts: Verdicts) -> None:
    """An end condition the main policy's games of the text's game (no challenge) reach in under 1% of games, though
    some setting reaches it more often (an ending no setting reaches is ``end-never-reached``): a way the game ends
    that players will almost never see."""
    book = check.book
    main = _main(check, runs)
    ends = [r for r in check.engine.end_rules if r in book.rules]
    reported = {f.subject for f in verdicts.findings} | {u["subject"] for u in verdicts.undecided}
    if main is None:
        return
    for rule_id in ends:
        if f"rule:{rule_id}" in reported or not possible(check, main.config, rule_id):
            continue
        happened, games = main.tally.fired[rule_id], main.tally.games
        rarity = Rarity([(main.config, happened, games)], [], alpha / max(len(ends), 1))
        if rarity.common:
            continue
        evidence = {**rarity.evidence(), "setting": main.config.setting}
        subject = f"end:{rule_id}"
        if not rarity.rare:
            verdicts.undecided.append({"subject": subject, "configs": [main.config.label], "games": games,
                                       "count": happened, "message": f"{rule_id}: {happened} of {games} games"})
            continue
        file, line = _where(book, rule_id)
        verdicts.findings.append(Finding(
            "end-rare", f"{book.rules[rule_id].label} ends {happened} of {games} games of the text's game "
                        f"({main.config.policy} play): at most {_pct(evidence['bound'])} of games "
                        f"({_level(rarity.level)})",
            [rule_id], file, line, subject=subject, evidence=evidence))


def refusal_table(root: Path, check: BookCheck, runs: list[Run]) -> dict[str, Any]:
    """Each refusal rule of the engine (rulepress.analyze.refusals): where it is raised, the literals of its
    condition, in how many probed games an action no legal action was provoked it (in all, and by who played), and
    at positions of which of the book's examples."""
    book = check.book
    folder = root / "engine" / book.engine_package
    places = refusals.refusal_rules(folder, root, book.prefix)
    probed = sum(run.tally.probed for run in runs)
    by_player: dict[str, list[Run]] = {}
    for run in runs:
        if run.tally.probed:
            by_player.setdefault(run.config.policy, []).append(run)
    shown = _examples_provoking(root, check)
    condition = refusals.conditions(folder, book.prefix)
    return {rule: {"engine": where, "probed_games": probed, "provoked_in": sum(r.tally.refused[rule] for r in runs),
                   "condition": [v for v in condition.get(rule, []) if isinstance(v, str | int)],
                   "by_player": {name: [sum(r.tally.refused[rule] for r in group), sum(r.tally.probed for r in group)]
                                 for name, group in by_player.items()},
                   "examples": shown[0].get(rule, []), "examples_probed": shown[1]}
            for rule, where in sorted(places.items()) if rule in book.rules}


_PROVOKING: dict[int, tuple[dict[str, list[str]], int]] = {}


def _examples_provoking(root: Path, check: BookCheck) -> tuple[dict[str, list[str]], int]:
    """The examples at a position of which each refusal rule refuses an unlisted action, and how many examples
    were walked (worked out once per check: the examples do not depend on the games played)."""
    if id(check) not in _PROVOKING:
        _PROVOKING.clear()
        inventory = check.engine.inventory
        named = {n for names in (inventory(check.book.components) if inventory else {}).values() for n in names
                 if isinstance(n, str | int)}
        values = [*refusals.condition_values(root / "engine" / check.book.engine_package), *sorted(named, key=repr)]
        found = refusals.from_examples(check.book, check.engine, check.examples, list(dict.fromkeys(values)))
        _PROVOKING[id(check)] = found, len(check.examples)
    return _PROVOKING[id(check)]


def unprovoked_refusals(root: Path, check: BookCheck, runs: list[Run], alpha: float, verdicts: Verdicts) -> None:
    """Refusal rules no near miss of any probed game provoked, and that never fired as an event either: what they
    forbid is never within one change of what the simulated players do (reported, not skipped as dead rules are)."""
    del alpha  # a count of probes, not a rate: nothing to test
    for rule_id, entry in refusal_table(root, check, runs).items():
        if entry["provoked_in"] or any(run.tally.fired[rule_id] for run in runs) or not entry["probed_games"]:
            continue
        file, line = _where(check.book, rule_id)
        players = list(entry["by_player"])
        probes = "; ".join(f"{name} play {games} probed games" for name, (_, games) in entry["by_player"].items())
        if entry["examples"]:  # the book shows the situation; the players never come to it
            shown = ", ".join(entry["examples"][:3]) + (" ..." if len(entry["examples"]) > 3 else "")
            verdicts.findings.append(Finding(
                "refusal-only-in-examples", f"{check.book.rules[rule_id].label} refuses actions at positions of the "
                f"book's examples ({shown}), but no simulated player came to such a position ({probes}): what the "
                "games say about the rule rests on the examples alone (the limit of the evidence)", [rule_id], file,
                line, "info", subject=f"refusal:{rule_id}",
                evidence={"probed_games": entry["probed_games"], "provoked_in": 0, "examples": entry["examples"],
                          "played_by": players, "by_player": entry["by_player"]}))
            continue
        arose = {d.id: sum(run.tally.decided[d.id] for run in runs) for d in declared(check.engine)
                 if rule_id in d.rules}
        arose = {name: games for name, games in arose.items() if games}
        if arose:
            said = ", ".join(f"decision {name} took effect in {games} games" for name, games in arose.items())
            why = (f"yet a decision bearing on it does take effect in play ({said}): the probes (one game in "
                   f"{refusals.PROBED_GAMES}) never met a position it refuses, so this says nothing about the rule")
        else:
            why = "the situation it forbids may never arise"
        verdicts.findings.append(Finding(
            "refusal-never-provoked", f"{check.book.rules[rule_id].label} refuses actions that no simulated player "
            f"came one change away from taking, nor one with a value no legal action had or its condition names "
            f"({entry['probed_games']} games probed, every policy and answer: {probes}), at no position of the "
            f"book's {entry['examples_probed']} examples either: {why}", [rule_id], file, line, "info",
            subject=f"refusal:{rule_id}", evidence={"probed_games": entry["probed_games"], "provoked_in": 0,
                                                     "situation_arose": arose, "played_by": players,
                                                     "by_player": entry["by_player"],
                                                     "examples_probed": entry["examples_probed"]}))


def unused_components(check: BookCheck, runs: list[Run], alpha: float, verdicts: Verdicts) -> None:
    """Components the engine says exist (``inventory``) that (nearly) no game of the text's game uses."""
    inventory = check.engine.inventory
    if inventory is None:
        return
    book = check.book
    rules = [r for r in book.rules if r.startswith(f"{book.prefix}.components")][:1]
    file, line = _where(book, rules[0]) if rules else (book.path("components.yaml"), None)
    items = [(kind, str(name)) for kind, names in inventory(book.components).items() for name in names]
    for kind, name in items:
        rarity = _rarity(runs, lambda t, key=f"{kind}:{name}": t.touched[key], len(items), alpha)
        _rare_finding(verdicts, rarity, f"component:{kind}:{name}", f"the {kind} {name} was never used",
                      f"the {kind} {name} was used only", "it is used only under other answers", "component-unused",
                      "component-unused", rules, file, line)


def unmade_choices(check: BookCheck, runs: list[Run], alpha: float, verdicts: Verdicts) -> None:
    """Actions legal in random play that the engine's policies (nearly) never choose: the limit of what their
    games can say about the rules behind them (a note, not a problem of the book)."""
    offered = set().union(*(r.tally.offered for r in runs if r.config.policy == "random"))
    policy_runs = [r for r in runs if r.config.policy != "random" and r.config.text]
    if not policy_runs:
        return
    kind_rule: dict[str, str] = {}
    for run in runs:
        for kind, rule in run.tally.kind_rule.items():
            kind_rule.setdefault(kind, rule)
    policies = ", ".join(sorted({r.config.policy for r in policy_runs}))
    random_games = sum(r.tally.games for r in runs if r.config.policy == "random")
    random_offered = {kind: sum(r.tally.offered[kind] for r in runs if r.config.policy == "random")
                      for kind in offered}
    for kind in sorted(offered):
        rarity = Rarity([(r.config, r.tally.chosen[kind], r.tally.games) for r in policy_runs], [],
                        alpha / max(len(offered), 1))
        if rarity.common:
            continue
        rule_id = kind_rule.get(kind)
        file, line = _where(check.book, rule_id) if rule_id else (check.book.path("book.yaml"), None)
        evidence = {**rarity.evidence(), "random_games": random_games, "offered": random_offered[kind]}
        if not rarity.rare:
            verdicts.undecided.append({"subject": f"action:{kind}", "configs": rarity.unsure,
                                       "games": evidence["games"], "count": evidence["happened"],
                                       "message": f"{policies} play chose '{kind}' in {evidence['happened']} of "
                                                  f"{evidence['games']} games so far"})
            continue
        chose = "never chooses" if not evidence["happened"] else f"chooses only in {evidence['happened']} of"
        verdicts.findings.append(Finding(
            "choice-never-made", f"{policies} play {chose} '{kind}' in {evidence['games']} games (legal in "
                                 f"{random_offered[kind]} of {random_games} random games): what its games say about "
                                 f"{check.book.rule_label(rule_id) if rule_id else 'this action'} rests on random "
                                 "play alone (the limit of the evidence)",
            [rule_id] if rule_id else [], file, line, "info", subject=f"action:{kind}", evidence=evidence))


def unwinnable_settings(check: BookCheck, runs: list[Run], alpha: float, verdicts: Verdicts) -> None:
    """A setting of the text's game (the base game, a challenge) that (nearly) no one wins (solo and cooperative
    games): under 1% of games for every player that played it, corrected for the settings tested.  A setting
    that one player never wins and another does is ``depends-on-play``, with both figures."""
    mine = [r for r in runs if r.config.text and r.config.role != "baseline" and "won" in r.tally.flag_games
            and " vs " not in r.config.policy]
    by_setting: dict[str, list[Run]] = {}
    for run in mine:
        by_setting.setdefault(run.config.setting, []).append(run)
    level = alpha / max(len(by_setting), 1)
    for setting, group in by_setting.items():
        rarity = Rarity([(r.config, r.tally.flags["won"], r.tally.flag_games["won"]) for r in group], [], level)
        subject = f"setting:{setting}"
        if depends_on_play(verdicts, rarity, subject, f"{setting}: winning", "setting-never-won", [],
                           check.book.path("book.yaml"), None) or rarity.common:
            continue
        wins, games = sum(k for _, k, _ in rarity.counts), sum(n for _, _, n in rarity.counts)
        evidence = {**rarity.evidence(), "setting": setting, "played_by": [c.policy for c, _, _ in rarity.counts]}
        if not rarity.rare:
            verdicts.undecided.append({"subject": subject, "configs": rarity.unsure, "games": games,
                                       "count": wins, "message": f"{setting}: {wins} of {games} games won "
                                                                 "so far"})
            continue
        said = ", ".join(f"{c.policy} play won {k} of {n} games" for c, k, n in rarity.counts)
        verdicts.findings.append(Finding(
            "setting-never-won", f"{setting}: {said} (at most {_pct(evidence['bound'])} of games, "
                                 f"{_level(level)})", [], check.book.path("book.yaml"), None,
            subject=subject, evidence=evidence))


def difficulty_by_players(check: BookCheck, runs: list[Run], alpha: float, verdicts: Verdicts) -> None:
    """A solo or cooperative setting (nearly) never won at some player counts though won at others: "basilisk:
    cooperative play won 0 of 5,333 games at 3-4 players" is a finding, whoever plays (each player's games
    apart), where pooling the counts would hide it."""
    mine = [r for r in runs if r.config.text and r.config.role != "baseline" and "won" in r.tally.flag_games
            and len({n for n in r.tally.players}) > 1]
    level = alpha / max(len(mine), 1)
    for run in mine:
        table = figures.wins_by_players(run.tally, level)
        hard = [n for n, row in table.items() if stats.upper_bound(row["count"], row["games"], level) < RARE]
        easier = [n for n, row in table.items() if stats.lower_bound(row["count"], row["games"], level) > RARE]
        if not hard or not easier:
            continue
        won = sum(table[n]["count"] for n in hard)
        games = sum(table[n]["games"] for n in hard)
        bound = max(stats.upper_bound(table[n]["count"], table[n]["games"], level) for n in hard)
        others = ", ".join(f"{_pct(table[n]['rate'])} of {table[n]['games']} at {n} players" for n in easier)
        counts = "-".join(hard) if len(hard) > 1 and int(hard[-1]) - int(hard[0]) == len(hard) - 1 else \
            ", ".join(hard)
        verdicts.findings.append(Finding(
            "hard-at-player-count", f"{run.config.setting}: {run.config.policy} play won {won} of {games} games at "
                                    f"{counts} players (at most {_pct(bound)} at each, {_level(level)}), against "
                                    f"{others}", [], check.book.path("book.yaml"), None,
            subject=f"difficulty:{run.config.setting}/{run.config.policy}",
            evidence={"setting": run.config.setting, "played_by": [run.config.policy], "by_players": table,
                      "hard_at": hard, "won_at": easier}))


# -- seats ---------------------------------------------------------------------------------------------------------

def seat_advantages(check: BookCheck, runs: list[Run], alpha: float, verdicts: Verdicts) -> None:
    """A seat winning more or less than its fair share at one player count (that count's winners per game
    divided by its players), in the text's game under the engine's policies, beyond noise after correcting for every
    seat tested; undecided while its interval reaches past the fair share by more than 5 points."""
    book = check.book
    rules = [r for r in book.rules if "start" in r.rsplit(".", 1)[-1]]
    file, line = _where(book, rules[0]) if rules else (book.path("book.yaml"), None)
    tests = []
    for run in runs:
        if not run.config.default or run.config.policy == "random" or " vs " in run.config.policy:
            continue  # random play's seats are in the tables; a designer's seat question is about real play (and
            # a player against others takes each seat in turn: its seats say nothing of the game's)
        for seat in figures.seat_table(run.tally, alpha):
            tests.append((run, seat))
    adjusted = stats.corrected([seat["p"] for _, seat in tests])
    for (run, seat), p in zip(tests, adjusted, strict=True):
        subject = f"seat:{run.config.label}/{seat['players']}/{seat['seat']}"
        low, high = seat["ci95"]
        evidence = {**seat, "p_adjusted": p}
        if p < alpha:
            verdicts.findings.append(Finding(
                "seat-advantage", f"under {run.config.label} with {seat['players']} players seat {seat['seat']} wins "
                                  f"{_pct(seat['rate'])} of {seat['games']} games against a fair share of "
                                  f"{_pct(seat['fair'])} ({_two_sided(alpha)} interval {_pct(low)} to {_pct(high)}; "
                                  f"adjusted p = "
                                  f"{p:.2g})", rules, file, line, subject=subject, evidence=evidence))
        elif low < seat["fair"] - SEAT_MARGIN or high > seat["fair"] + SEAT_MARGIN:
            verdicts.undecided.append({"subject": subject, "configs": [run.config.label],
                                       "games": seat["games"], "count": seat["wins"],
                                       "message": f"under {run.config.label} with {seat['players']} players seat "
                                                  f"{seat['seat']} wins {_pct(seat['rate'])} of {seat['games']} "
                                                  f"games (fair {_pct(seat['fair'])}; interval {_pct(low)} to "
                                                  f"{_pct(high)})"})


# -- questions -----------------------------------------------------------------------------------------------------

@dataclass
class Comparison:
    """One answer in one setting against the same setting under the assumed answer, game by game."""

    answer: Run
    baseline: Run
    games: int
    changed: int
    tests: list[dict[str, Any]]  # {"metric", "before", "after", "difference", "ci95", "p", "key", "margin"}


def compare(answer: Run, baseline: Run, alpha: float) -> Comparison:
    a, b = answer.tally, baseline.tally
    n = min(a.games, b.games)
    changed = sum(1 for i in range(n) if a.traces[i] != b.traces[i])
    z = stats.z_for(alpha)
    tests = []
    for name, after, before, margin in _paired(a, b, n):
        diffs = [x - y for x, y in zip(after, before, strict=True)]
        total, squares = float(sum(diffs)), float(sum(d * d for d in diffs))
        mean, error = stats.mean_difference(len(diffs), total, squares)
        base = sum(before) / len(before) if before else 0.0
        tests.append({"metric": name, "before": base, "after": base + mean, "difference": mean,
                      "ci95": [mean - z * error, mean + z * error], "p": stats.normal_p(mean, error), "key": True,
                      "margin": margin if margin is not None else LENGTH_MARGIN * abs(base), "games": len(diffs)})
    keys = {"rounds", "actions", "won", "players"}  # the length and the win are tested above; players is set
    for key in sorted(set(a.values) & set(b.values) - keys):
        pairs = [(x, y) for x, y in zip(a.values[key][:n], b.values[key][:n], strict=True)
                 if not (math.isnan(x) or math.isnan(y))]
        tests.append(_paired_test(f"{key} mean", [x for x, _ in pairs], [y for _, y in pairs], z))
    for key in sorted(set(a.labels) & set(b.labels)):
        rows = [(x, y) for x, y in zip(a.labels[key][:n], b.labels[key][:n], strict=True) if x and y]
        for word in sorted({w for row in rows for w in row}):
            tests.append(_paired_test(f"{key}={word} %", [100.0 * (x == word) for x, _ in rows],
                                      [100.0 * (y == word) for _, y in rows], z))
    return Comparison(answer, baseline, n, changed, tests)


def _paired_test(metric: str, after: list[float], before: list[float], z: float) -> dict[str, Any]:
    diffs = [x - y for x, y in zip(after, before, strict=True)]
    mean, error = stats.mean_difference(len(diffs), float(sum(diffs)), float(sum(d * d for d in diffs)))
    base = sum(before) / len(before) if before else 0.0
    # A move a designer would notice: 2 points of a share, 2% of a mean (a paired test detects far less).
    margin = 100 * SHARE_MARGIN if metric.endswith("%") else max(LENGTH_MARGIN * abs(base), 0.01)
    return {"metric": metric, "before": base, "after": base + mean, "difference": mean,
            "ci95": [mean - z * error, mean + z * error], "p": stats.normal_p(mean, error), "key": False,
            "margin": margin, "games": len(diffs)}


def _paired(a: Tally, b: Tally, n: int) -> Iterable[tuple[str, list[int], list[int], float | None]]:
    """The figures a designer compares, game by game: the win (solo, cooperative) or each seat's win
    (competitive), and the length."""
    if a.count_games or b.count_games:
        seats = max(max(a.players[:n], default=0), max(b.players[:n], default=0))
        for seat in range(seats):
            rows = [i for i in range(n) if a.players[i] > seat]
            yield (f"seat {seat + 1} wins", [(a.outcomes[i] >> seat) & 1 for i in rows],
                   [(b.outcomes[i] >> seat) & 1 for i in rows], SHARE_MARGIN)
    elif any(value >= 0 for value in a.outcomes[:n]):
        rows = [i for i in range(n) if a.outcomes[i] >= 0 and b.outcomes[i] >= 0]
        yield "won", [a.outcomes[i] for i in rows], [b.outcomes[i] for i in rows], SHARE_MARGIN
    yield "length", list(a.lengths[:n]), list(b.lengths[:n]), None


def question_effects(check: BookCheck, runs: list[Run], alpha: float, verdicts: Verdicts) -> None:
    """Per question with an option, each answer in each setting where it matters, against the assumed answer:
    how many games it changes, and which figures move beyond noise (corrected over every figure of every answer).
    A question whose answers change no game is one the policy never meets (the limit of the evidence); one whose
    answers change games but no figure by more than a designer would notice has no effect."""
    by_label = {run.config.label: run for run in runs}
    comparisons = [compare(run, by_label[run.config.baseline], alpha) for run in runs
                   if run.config.role == "answer" and run.config.baseline in by_label]
    every = [test for comparison in comparisons for test in comparison.tests]
    for test, p in zip(every, stats.corrected([t["p"] for t in every]), strict=True):
        test["p_adjusted"] = p
    book = check.book
    for question in book.questions:
        mine = [c for c in comparisons if c.answer.config.question == question.id]
        if not mine:
            continue
        file, line = book.path("questions.yaml"), question.line
        states = []
        examples = question.id in verdicts.examples
        for comparison in mine:
            config = comparison.answer.config
            moved = sorted((t for t in comparison.tests if t["p_adjusted"] < alpha and _beyond(t)),
                           key=lambda t: t["p_adjusted"])
            evidence = {"games": comparison.games, "changed": comparison.changed, "setting": config.setting,
                        "answer": config.answer, "moves": moved[:5]}
            verdicts.answers.setdefault(question.id, []).append(evidence)
            level = alpha / max(len(comparisons), 1)
            rarely = stats.upper_bound(comparison.changed, comparison.games, level) < CHANGED
            often = stats.lower_bound(comparison.changed, comparison.games, level) > CHANGED
            if rarely:  # the situation (almost) never arises: whatever moves, the games say little about it
                states.append("unmet")
            elif moved:
                states.append("moves")
                verdicts.findings.append(Finding(
                    "question-moves", f"{question.id}: answering '{config.answer}' instead of '{question.assumed}' "
                                      f"({config.setting}, {comparison.games} games) changes {comparison.changed} "
                                      f"games; moves most: {'; '.join(_move(t, alpha) for t in moved[:3])}",
                    list(question.rules), file, line, "info", subject=f"question:{question.id}", evidence=evidence))
            elif often and all(t["ci95"][0] >= -t["margin"] and t["ci95"][1] <= t["margin"]
                               for t in comparison.tests if t["key"]):
                states.append("quiet")
            else:
                states.append("undecided")
            if states[-1] == "undecided":
                verdicts.undecided.append({
                    "subject": f"question:{question.id}", "configs": [config.label, config.baseline],
                    "games": comparison.games, "count": comparison.changed,
                    "message": f"{question.id} = {config.answer} ({config.setting}): {comparison.changed} of "
                               f"{comparison.games} games change, no figure decided yet"})
        games = min(c.games for c in mine)
        settings = ", ".join(sorted({c.answer.config.setting for c in mine}))
        changed = sum(c.changed for c in mine)
        evidence = {"games": games, "settings": settings, "changed": changed,
                    "bound": max(stats.upper_bound(c.changed, c.games) for c in mine)}
        if all(state == "unmet" for state in states):  # what simulation cannot say, examples or not
            verdicts.findings.append(Finding(
                "question-unexercised", f"{question.id}: in {games} games per answer ({settings}, "
                                        f"{impact_policy(check.engine)[0]} play) the answers other than "
                                        f"'{question.assumed}' changed {changed} game(s) (at most "
                                        f"{_pct(evidence['bound'])} of games, one-sided at 95%): the policy (almost) "
                                        "never meets "
                                        "the situation, so simulation says little about this question "
                                        "(the limit of the evidence, not a sign that it does not matter)",
                list(question.rules), file, line, "info", subject=f"question:{question.id}", evidence=evidence))
        elif not ("undecided" in states or "moves" in states or examples):
            verdicts.findings.append(Finding(
                "question-no-effect", f"{question.id}: no answer other than '{question.assumed}' changes an example, "
                                      f"and none moves the win rate by {SHARE_MARGIN:.0%} or the length by "
                                      f"{LENGTH_MARGIN:.0%} ({games} games per answer, {settings}): the question may "
                                      "not matter in play",
                list(question.rules), file, line, "warning", subject=f"question:{question.id}", evidence=evidence))


def _beyond(test: dict[str, Any]) -> bool:
    """The interval lies wholly past what a designer would notice, one way: a move decided with room to spare (one
    within the margin is quiet; one whose interval straddles it is undecided and plays on)."""
    low, high = test["ci95"]
    return low > test["margin"] or high < -test["margin"]


def _move(test: dict[str, Any], alpha: float) -> str:
    low, high = test["ci95"]
    level = _two_sided(alpha)
    if test["metric"].endswith("wins") or test["metric"] == "won":
        return (f"{test['metric']} {_pct(test['before'])} -> {_pct(test['after'])} (difference "
                f"{100 * test['difference']:+.1f} points, {level} interval {100 * low:+.1f} to {100 * high:+.1f})")
    return (f"{test['metric']} {test['before']:.2f} -> {test['after']:.2f} (difference {test['difference']:+.2f}, "
            f"{level} interval {low:+.2f} to {high:+.2f})")


def _two_sided(alpha: float) -> str:
    """The level of a two-sided interval at ``alpha`` (5% spread over the analysis's looks: 99% over 5 looks)."""
    return f"{100 * (1 - alpha):.4g}%"


def report_path(root: Path, book_id: str) -> Path:
    return root / REPORTS / f"{book_id}.json"


def save(root: Path, analysis: dict[str, Any]) -> Path:
    path = report_path(root, analysis["book"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(analysis, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def saved(root: Path, book_id: str) -> dict[str, Any] | None:
    """The saved analysis of a book, or None (never run, or unreadable)."""
    try:
        found = json.loads(report_path(root, book_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None
