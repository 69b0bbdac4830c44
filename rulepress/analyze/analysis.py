"""``rulepress analyze BOOK``: what simulated play says is wrong or undetermined in a rulebook.

N games are played per policy (random and every engine policy, with the text's options), per answer of every
designer question with an engine option, and per option set the engine exports (``BENCH_CONFIGS``), under the
engine's ``IMPACT_POLICY``.  From which rules fired, which components were used, which choices were made and
how games ended come the findings; from the games' metrics come the balance figures.  The lint findings
(:mod:`rulepress.analyze.lint`, the text against its data) join them, so one run reports both.  Every finding
names the rules it concerns and the designer questions that already track it ("untracked" when none does).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulepress.analyze import refusals
from rulepress.analyze.cluster import Pool
from rulepress.analyze.decided import decision_table
from rulepress.analyze.impact import (
    alternatives,
    engine_fingerprint,
    example_changes,
    impact_policy,
    measurable_moves,
    simulate_many,
)
from rulepress.analyze.tally import Tally, quantile, wilson
from rulepress.load.book import Book
from rulepress.verify.gate import BookCheck
from rulepress.verify.trace import engine_rule_literals

REPORTS = Path("reports") / "analysis"
NEARLY_DEAD = 0.001  # a rule firing in under 0.1% of a configuration's games is nearly dead there
# Engine lines that name a rule without making it happen: refusals, and an option's list of the rules it bears on.
INERT = ("RuleViolation", "DescriptionError", "raise ", "refuse", "OptionSpec")


@dataclass(frozen=True)
class Config:
    """One way of playing the book: a policy and the engine options it plays under."""

    label: str
    policy: str
    options: dict[str, Any] = field(default_factory=dict)
    question: str | None = None
    answer: str | None = None
    variant: bool = False  # an option set the engine exports (a challenge, an expansion): off in the text's game

    @property
    def default(self) -> bool:
        return not self.options


@dataclass
class Finding:
    kind: str
    message: str
    rules: list[str]
    file: str
    line: int | None
    severity: str = "warning"
    tracked_by: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "severity": self.severity, "message": self.message, "rules": self.rules,
                "file": self.file, "line": self.line, "tracked_by": self.tracked_by,
                "untracked": not self.tracked_by}


def configs(check: BookCheck) -> list[Config]:
    """Every configuration to play, the text's options first; an answer equal to the defaults is not repeated."""
    engine = check.engine
    policies = ["random", *getattr(engine, "POLICIES", {})]
    found = [Config(f"{policy} play", policy) for policy in policies]
    main = impact_policy(engine)[0]
    for question in check.book.questions:
        if question.option is None or question.status == "dropped":
            continue
        for answer in alternatives(question):
            found.append(Config(f"{question.id} = {answer}", main, {question.option: question.option_value(answer)},
                                question.id, answer))
    for name, options in (getattr(engine, "BENCH_CONFIGS", None) or {}).items():
        if options and all(c.options != options or c.policy != main for c in found):
            found.append(Config(f"option set {name}", main, dict(options), variant=True))
    return found


def analyse(workers: Pool, root: Path, check: BookCheck, games: int, seed: int = 0,
            progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play every configuration and return the analysis as plain data (what ``--json`` prints and is saved)."""
    every = configs(check)
    tallies = simulate_many(workers, root, check, [(c.options, c.policy) for c in every], games, progress, seed)
    runs = list(zip(every, tallies, strict=True))
    from rulepress.analyze.lint import lint  # lint builds on this module's Finding

    findings = (dead_rules(root, check, runs) + unreached_ends(check, runs) + unused_components(check, runs)
                + unmade_choices(check, runs) + question_effects(check, runs) + seat_advantages(check, runs)
                + unprovoked_refusals(root, check, runs))
    # The text checked against its data, with "exercised" now including what play made happen.
    exercised = {rule for result in check.results for rule in result.exercised}
    findings += lint(check.book, exercised | {rule for _, tally in runs for rule in tally.fired})
    for finding in findings:
        if not finding.tracked_by:
            finding.tracked_by = tracking(check.book, finding.rules)
    return {"book": check.book.id, "engine": engine_fingerprint(root, check.book.engine_package),
            "engine_package": check.book.engine_package, "seed": seed,
            "games": games, "configs": [_config_record(config, tally) for config, tally in runs],
            "balance": {config.label: balance(tally) for config, tally in runs if config.default},
            "decisions": decision_table(check.engine, [(config.label, tally) for config, tally in runs]),
            "refusals": refusal_table(root, check, runs),
            "findings": [f.as_dict() for f in findings]}


def _config_record(config: Config, tally: Tally) -> dict[str, Any]:
    return {"label": config.label, "policy": config.policy, "options": config.options, "question": config.question,
            "answer": config.answer, "games": tally.games, "finished": tally.finished,
            "fired": dict(sorted(tally.fired.items())), "touched": dict(sorted(tally.touched.items())),
            "offered": dict(sorted(tally.offered.items())), "chosen": dict(sorted(tally.chosen.items())),
            "decided": dict(sorted(tally.decided.items())),
            "summary": tally.summary(), "histograms": {k: {str(v): n for v, n in sorted(h.items())}
                                                       for k, h in sorted(tally.histograms.items())}}


def _where(book: Book, rule_id: str) -> tuple[str, int | None]:
    rule = book.rules.get(rule_id)
    return (rule.file, rule.line) if rule else (book.path("components.yaml"), None)


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


def _engine_literals(root: Path, book: Book) -> dict[str, list[str]]:
    return engine_rule_literals(root / "engine" / book.engine_package, book.prefix, root)


def dead_rules(root: Path, check: BookCheck, runs: list[tuple[Config, Tally]]) -> list[Finding]:
    """Rules the engine makes happen that never fired, or fired in under 0.1% of the games of every
    configuration they could: named with the configurations under which that holds."""
    book = check.book
    ends = set(getattr(check.engine, "END_RULES", ()))
    findings = []
    for rule_id, places in sorted(_engine_literals(root, book).items()):
        if rule_id not in book.rules or rule_id in ends or book.rules[rule_id].children:
            continue
        if _refusal_only(root, places):
            continue  # a refusal never fires in play: policies only choose legal actions
        rates = [(config, tally.fired[rule_id] / max(tally.games, 1)) for config, tally in runs]
        file, line = _where(book, rule_id)
        label = book.rules[rule_id].label
        fired_in = [config.label for config, rate in rates if rate > 0]
        total = sum(t.games for _, t in runs)
        if not fired_in:
            findings.append(Finding("dead-rule", f"{label} never fired in {total} simulated games "
                                                 f"({len(runs)} configurations: every policy and answer)",
                                    [rule_id], file, line))
            continue
        rare = [config.label for config, rate in rates if rate < NEARLY_DEAD]
        if len(rare) == len(rates):
            findings.append(Finding("nearly-dead-rule", f"{label} fired in under 0.1% of the games of every "
                                                        f"configuration (it did fire under: {', '.join(fired_in)})",
                                    [rule_id], file, line))
        elif all(config.label in rare for config, _ in rates if config.default or config.variant):
            findings.append(Finding("nearly-dead-rule", f"{label} fired in under 0.1% of the games under the "
                                                        f"text's options; only under: {', '.join(fired_in)}",
                                    [rule_id], file, line))
    return findings


def refusal_table(root: Path, check: BookCheck, runs: list[tuple[Config, Tally]]) -> dict[str, Any]:
    """Each refusal rule of the engine (rulepress.analyze.refusals): where it is raised, and in how many of the
    probed games a near miss provoked it."""
    book = check.book
    places = refusals.refusal_rules(root / "engine" / book.engine_package, root, book.prefix)
    probed = sum(tally.probed for _, tally in runs)
    return {rule: {"engine": where, "probed_games": probed, "provoked_in": sum(t.refused[rule] for _, t in runs)}
            for rule, where in sorted(places.items()) if rule in book.rules}


def unprovoked_refusals(root: Path, check: BookCheck, runs: list[tuple[Config, Tally]]) -> list[Finding]:
    """Refusal rules no near miss of any probed game provoked, and that never fired as an event either: what they
    forbid is never within one change of what the simulated players do (reported, not skipped as dead rules are)."""
    findings = []
    for rule_id, entry in refusal_table(root, check, runs).items():
        if entry["provoked_in"] or any(tally.fired[rule_id] for _, tally in runs) or not entry["probed_games"]:
            continue
        file, line = _where(check.book, rule_id)
        findings.append(Finding("refusal-never-provoked", f"{check.book.rules[rule_id].label} refuses actions that "
                                                          f"no simulated player came one change away from taking "
                                                          f"({entry['probed_games']} games probed, every policy and "
                                                          f"answer): the situation it forbids may never arise",
                                [rule_id], file, line, "info"))
    return findings


def unreached_ends(check: BookCheck, runs: list[tuple[Config, Tally]]) -> list[Finding]:
    """End conditions (the engine's ``END_RULES``) no game reached, and those reached only under other answers."""
    findings = []
    for rule_id in getattr(check.engine, "END_RULES", ()):
        if rule_id not in check.book.rules:
            continue
        file, line = _where(check.book, rule_id)
        label = check.book.rules[rule_id].label
        reached = [config.label for config, tally in runs if tally.fired[rule_id]]
        default_games = sum(t.games for c, t in runs if c.default)
        if not reached:
            findings.append(Finding("end-never-reached", f"end condition {label} was never reached in "
                                                         f"{sum(t.games for _, t in runs)} simulated games; "
                                                         f"games ended by: {_ends(check, runs)}",
                                    [rule_id], file, line))
        elif not any(config.default or config.variant for config, _ in runs if config.label in reached):
            findings.append(Finding("end-never-reached", f"end condition {label} was never reached in "
                                                         f"{default_games} games under the text's options "
                                                         f"(only under: {', '.join(reached)})",
                                    [rule_id], file, line))
    return findings


def _ends(check: BookCheck, runs: list[tuple[Config, Tally]]) -> str:
    """How the games ended, as shares of every game played: ``rule 6.3 (The fourth Dusk card) 100.0%``."""
    total = sum(t.games for _, t in runs) or 1
    shares = []
    for rule_id in getattr(check.engine, "END_RULES", ()):
        count = sum(t.fired[rule_id] for _, t in runs)
        if count and rule_id in check.book.rules:
            shares.append(f"{check.book.rules[rule_id].label} {100 * count / total:.1f}%")
    return ", ".join(shares) or "none (no game finished)"


def unused_components(check: BookCheck, runs: list[tuple[Config, Tally]]) -> list[Finding]:
    """Components the engine says exist (``inventory``) that no event of any game used."""
    inventory = getattr(check.engine, "inventory", None)
    if inventory is None:
        return []
    used = set().union(*(t.touched for _, t in runs))
    findings = []
    rules = [r for r in check.book.rules if r.startswith(f"{check.book.prefix}.components")][:1]
    file, line = _where(check.book, rules[0]) if rules else (check.book.path("components.yaml"), None)
    for kind, names in inventory(check.book.components).items():
        unused = [str(n) for n in names if f"{kind}:{n}" not in used]
        if unused:
            findings.append(Finding("component-unused", f"{kind} never used in any simulated game: "
                                                        f"{', '.join(unused)}", rules, file, line))
    return findings


def unmade_choices(check: BookCheck, runs: list[tuple[Config, Tally]]) -> list[Finding]:
    """Actions legal in random play that no engine policy ever chose: a choice no reasonable player makes."""
    offered = set().union(*(t.offered for c, t in runs if c.policy == "random"))
    policy_runs = [t for c, t in runs if c.policy != "random"]
    if not policy_runs:
        return []
    chosen = set().union(*(t.chosen for t in policy_runs))
    kind_rule: dict[str, str] = {}
    for _, tally in runs:
        for kind, rule in tally.kind_rule.items():
            kind_rule.setdefault(kind, rule)
    findings = []
    for kind in sorted(offered - chosen):
        rule_id = kind_rule.get(kind)
        file, line = _where(check.book, rule_id) if rule_id else (check.book.path("book.yaml"), None)
        policies = sorted({c.policy for c, _ in runs if c.policy != "random"})
        findings.append(Finding("choice-never-made", f"the action '{kind}' is legal in random play but "
                                                     f"{', '.join(policies)} play never chooses it",
                                [rule_id] if rule_id else [], file, line))
    return findings


def question_effects(check: BookCheck, runs: list[tuple[Config, Tally]]) -> list[Finding]:
    """Per question with an option: answers that change no example and no metric beyond noise, and the
    metrics that move most between answers."""
    main = impact_policy(check.engine)[0]
    baseline = next((t for c, t in runs if c.default and c.policy == main), None)
    if baseline is None:
        return []
    base = baseline.summary()
    findings = []
    for question in check.book.questions:
        if question.option is None or question.status == "dropped":
            continue
        answers = [(c, t) for c, t in runs if c.question == question.id]
        file, line = check.book.path("questions.yaml"), question.line
        quiet = []
        for config, tally in answers:
            moved = measurable_moves(base, tally.summary())
            changed = example_changes(check, question, config.answer or "")
            if not moved and not changed:
                quiet.append(config.answer or "")
            elif moved:
                top = sorted(moved, key=lambda text: -_z(base, tally.summary(), text.split(":")[0]))[:3]
                findings.append(Finding("question-moves", f"{question.id}: answering '{config.answer}' instead "
                                                          f"of '{question.assumed}' moves most: {'; '.join(top)}",
                                        list(question.rules), file, line, "info", [question.id]))
        if answers and len(quiet) == len(answers):
            findings.append(Finding("question-no-effect", f"{question.id}: no answer other than "
                                                          f"'{question.assumed}' changes an example or a simulated "
                                                          f"metric beyond noise ({baseline.games} games each, "
                                                          f"{main} play): the question may not matter in play",
                                    list(question.rules), file, line, "warning", [question.id]))
    return findings


def seat_advantages(check: BookCheck, runs: list[tuple[Config, Tally]]) -> list[Finding]:
    """The first seat winning more or less than its fair share (the mean of 1/players) beyond its 95% interval,
    under the text's options.  The rules named are those whose ID says who starts (``...start...``)."""
    book = check.book
    rules = [r for r in book.rules if "start" in r.rsplit(".", 1)[-1]]
    file, line = _where(book, rules[0]) if rules else (book.path("book.yaml"), None)
    findings = []
    for config, tally in runs:
        if not config.default or not tally.seat_games:
            continue
        first = balance(tally)["first_player"]
        low, high = first["ci95"]
        if low > 0 or high < 0:
            findings.append(Finding("first-player", f"under {config.label} the first player wins "
                                                    f"{100 * first['rate']:.1f}% of {tally.seat_games[0]} games "
                                                    f"against a fair share of {100 * first['fair']:.1f}% (95% "
                                                    f"interval of the difference {100 * low:+.1f} to "
                                                    f"{100 * high:+.1f} points)", rules, file, line))
    return findings


def _z(before: dict[str, Any], after: dict[str, Any], key: str) -> float:
    """How many standard errors a metric moved (means only; a share's move counts in points)."""
    delta = abs(after.get(key, 0.0) - before.get(key, 0.0))
    error = (before.get(f"{key} ±", 0.0) ** 2 + after.get(f"{key} ±", 0.0) ** 2) ** 0.5
    return delta / error if error else delta


def balance(tally: Tally) -> dict[str, Any]:
    """Win rate per seat and first-player advantage (competitive games), win rate (solo and cooperative),
    length, how games end, decisiveness: each with a 95% interval."""
    found: dict[str, Any] = {"games": tally.games, "finished": tally.finished}
    if tally.seat_games:
        seats = {}
        for seat in sorted(tally.seat_games):
            low, high = wilson(tally.seat_wins[seat], tally.seat_games[seat])
            seats[f"seat {seat + 1}"] = {"games": tally.seat_games[seat], "wins": tally.seat_wins[seat],
                                         "rate": tally.seat_wins[seat] / tally.seat_games[seat],
                                         "ci95": [low, high]}
        found["seats"] = seats
        fair = tally.fair_share / max(tally.seat_games[0], 1)
        first = seats["seat 1"]
        found["first_player"] = {"rate": first["rate"], "fair": fair, "advantage": first["rate"] - fair,
                                 "ci95": [first["ci95"][0] - fair, first["ci95"][1] - fair]}
        found["ties"] = {"games": tally.ties, "rate": tally.ties / max(tally.seat_games[0], 1),
                         "ci95": list(wilson(tally.ties, tally.seat_games[0]))}
    elif "won" in tally.flag_games:
        wins, played = tally.flags["won"], tally.flag_games["won"]
        found["win"] = {"rate": wins / played, "ci95": list(wilson(wins, played))}
    length = "rounds" if "rounds" in tally.histograms else "actions"
    histogram = tally.histograms.get(length, {})
    mean, error = tally.mean(length)
    found["length"] = {"metric": length, "mean": mean, "ci95": [mean - 1.96 * error, mean + 1.96 * error],
                       "quartiles": [quantile(histogram, q) for q in (0.25, 0.5, 0.75)],
                       "histogram": {str(k): v for k, v in sorted(histogram.items())}}
    for key in ("end_reason", "reason"):
        if key in tally.words:
            total = sum(tally.words[key].values())
            found["ends"] = {word: {"games": n, "rate": n / total, "ci95": list(wilson(n, total))}
                             for word, n in sorted(tally.words[key].items(), key=lambda i: (-i[1], i[0]))}
            break
    if "margin" in tally.numbers:
        mean, error = tally.mean("margin")
        found["margin"] = {"mean": mean, "ci95": [mean - 1.96 * error, mean + 1.96 * error],
                           "histogram": {str(k): v for k, v in sorted(tally.histograms.get("margin", {}).items())}}
    return found


def tracking(book: Book, rules: list[str]) -> list[str]:
    """The designer questions (not dropped) on any of ``rules`` or on a section above one of them (a question
    on a whole chapter is too broad to count as tracking one rule in it)."""
    wanted = set()
    for rule_id in rules:
        parts = rule_id.split(".")
        wanted |= {".".join(parts[:n]) for n in range(3, len(parts) + 1)}
    return [q.id for q in book.questions if q.status != "dropped" and wanted & set(q.rules)]


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
        return json.loads(report_path(root, book_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
