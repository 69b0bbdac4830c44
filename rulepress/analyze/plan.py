"""What ``rulepress analyze`` plays: every configuration, and which one each is compared with.

* every player with the text's options: random play, each of the engine's ``policies`` and, with OpenSpiel installed,
  a competent player with no policy code (MCTS, or IS-MCTS for a game with hidden information: ``competent``),
  that player against random ones and against a weaker search (``WEAKER`` simulations a decision): the skill
  gradient; ``analyze --players`` names them instead;
* every option set of the engine's ``bench_configs`` that is the text's own game (a challenge, an expansion),
  under its ``default_policy``;
* every option set that bundles answers other than the text's (Lantern Moths' ``alternatives``): played, but never
  counted as the text's game.  A set is such a bundle when the engine names it in ``answer_bundles``, or when it
  sets an option that answers a designer question to anything but its default;
* every answer of every designer question with an engine option, in each setting where the question matters: the
  question's ``simulated_with`` in questions.yaml, else each of the text's option sets whose options bear on the
  rules the question's option bears on (a challenge question is played in its challenge), else the text's game.
  Each answer is compared game by game with the same setting under the assumed answer (its *baseline*).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rulepress.analyze.impact import TEXT, alternatives, impact_policy
from rulepress.errors import SourceError
from rulepress.load.book import Question
from rulepress.protocol import EngineSpec, Information
from rulepress.verify.gate import BookCheck

COMPETENT = 50  # simulations a decision of the default competent player
WEAKER = 10  # and of the weaker player it meets for the skill gradient (a fifth of its search: playing better)
COMPETENT_GAMES = 40  # a competent player's first games (a search a decision costs ~100-1000 random games)
COMPETENT_BUDGET = 160  # and the most it plays while a finding is undecided
VERSUS = " vs "  # "ismcts:50 vs random": the first player in one seat (turn about), the second in every other


@dataclass(frozen=True)
class Config:
    """One way of playing the book: a policy, the engine options and player counts it plays under."""

    label: str
    policy: str
    options: dict[str, Any] = field(default_factory=dict)
    question: str | None = None
    answer: str | None = None
    role: str = "policy"  # policy | variant | bundle | baseline | answer
    setting: str = TEXT  # where it is played: the text's game, a challenge ("glow-shrooms"), player counts
    players: tuple[int, ...] = ()  # () = every player count the book allows
    baseline: str | None = None  # an answer's comparison: the label of its setting under the assumed answer

    @property
    def competent(self) -> bool:
        """Played by a search (``mcts:N``, ``ismcts:N``, alone or against another player): costly per game."""
        return "mcts:" in self.policy

    def first(self, games: int) -> int:
        """How many games this configuration plays first."""
        return min(games, COMPETENT_GAMES) if self.competent else games

    def cap(self, budget: int) -> int:
        """The most games it plays."""
        return min(budget, COMPETENT_BUDGET) if self.competent else budget

    @property
    def seats(self) -> list[str]:
        """The players of each seat's kind: one (every seat the same) or ``[strong, other]``."""
        return self.policy.split(VERSUS)

    @property
    def default(self) -> bool:
        """The text's own rules with every option at its default, all player counts."""
        return not self.options and not self.players

    @property
    def text(self) -> bool:
        """Plays the rules as the text gives them (its options, a challenge, a player count), not another answer."""
        return self.role in ("policy", "variant", "baseline")

    @property
    def play(self) -> tuple[dict[str, Any], str, list[int] | None]:
        return dict(self.options), self.policy, list(self.players) or None


def _specs(engine: EngineSpec) -> dict[str, Any]:
    return {spec.name: spec for spec in engine.options}


def bundles(engine: EngineSpec) -> set[str]:
    """The engine's option sets that are not the text's game: named in ``answer_bundles``, or setting an option
    that answers a designer question to something other than its default."""
    specs = _specs(engine)
    found = set(engine.answer_bundles)
    for name, options in engine.bench_configs.items():
        for option, value in (options or {}).items():
            spec = specs.get(option)
            if spec is not None and spec.question and value != spec.default:
                found.add(name)
    return found


def variants(engine: EngineSpec) -> dict[str, dict[str, Any]]:
    """The engine's option sets that play the text's own game under other options (challenges, expansions)."""
    skip = bundles(engine)
    return {name: dict(options) for name, options in engine.bench_configs.items()
            if options and name not in skip}


def _bears_on(rules: tuple[str, ...], targets: tuple[str, ...]) -> bool:
    return any(rule == target or rule.startswith(target + ".") for rule in rules for target in targets)


def settings(check: BookCheck, question: Question) -> list[tuple[dict[str, Any], tuple[int, ...]]]:
    """Where ``question`` is simulated: ``(options, player counts)`` for each setting (see the module's text)."""
    engine = check.engine
    specs = _specs(engine)
    shown = check.book.path("questions.yaml")
    if question.simulated_with:
        found = []
        for entry in question.simulated_with:
            options = dict(entry.get("options") or {})
            for name, value in options.items():
                spec = specs.get(name)
                if spec is None:
                    raise SourceError(shown, question.line, f"question {question.id}: simulated_with names the "
                                                            f"option '{name}', which the engine does not have "
                                                            f"(options: {', '.join(sorted(specs))})")
                if value not in spec.choices:
                    raise SourceError(shown, question.line, f"question {question.id}: simulated_with gives "
                                                            f"{name} = {value!r}, not one of {list(spec.choices)}")
            found.append((options, tuple(int(p) for p in entry.get("players") or ())))
        return found
    spec = specs.get(question.option or "")
    rules = tuple(spec.rules) if spec is not None else tuple(question.rules)
    found = []
    for options in variants(engine).values():
        targets = tuple(r for name in options if name in specs for r in specs[name].rules)
        if _bears_on(rules, targets):
            found.append((options, ()))
    return found or [({}, ())]


def setting_name(engine: EngineSpec, options: dict[str, Any], players: tuple[int, ...]) -> str:
    """``glow-shrooms``, ``glow-shrooms + frozen-lake``, ``the text's game at 4 players``."""
    named = []
    rest = dict(options)
    for name, set_options in variants(engine).items():
        if set_options and all(rest.get(k) == v for k, v in set_options.items()):
            named.append(name)
            for key in set_options:
                rest.pop(key, None)
    named += [f"{key}={value}" for key, value in sorted(rest.items())]
    text = " + ".join(named) or TEXT
    if players:
        text += f" at {'/'.join(map(str, players))} players"
    return text


def openspiel_installed() -> bool:
    from importlib.util import find_spec

    return find_spec("pyspiel") is not None


def game_of(check: BookCheck) -> Any:
    """The book's game with the text's options (what its observer and players are read from)."""
    return check.engine.make_game(check.book.components, {})


def competent(check: BookCheck) -> str:
    """The default competent player: IS-MCTS where a seat is hidden something (an observer), else MCTS."""
    hidden = check.engine.information == Information.IMPERFECT_INFORMATION  # the gate holds it to the observer
    return f"{'ismcts' if hidden else 'mcts'}:{COMPETENT}"


def who_plays(check: BookCheck, given: list[str] | None = None, competent_too: bool = False) -> list[str]:
    """The players the text's game is played by: ``given`` (``analyze --players``), else random play and the book's
    own policies, and with ``competent_too`` (the command's default) and OpenSpiel installed, the competent player
    alone, against random players and against a weaker search (the skill gradient)."""
    engine = check.engine
    own = list(engine.policies)
    if given is None:
        found = ["random", *own]
        if competent_too and openspiel_installed():
            strong = competent(check)
            weaker = f"{strong.partition(':')[0]}:{WEAKER}"
            found += [strong, f"{strong}{VERSUS}random", f"{strong}{VERSUS}{weaker}"] if _seats(check) > 1 \
                else [strong]
        return found
    for name in given:
        for part in name.split(VERSUS):
            rollout = part.partition("+")[2] if _searcher(part) else ""
            if rollout and rollout not in own:
                raise SourceError("--players", None, f"{part}: the book has no policy {rollout!r} for the playouts "
                                                     f"(policies: {', '.join(own) or 'none'})")
            if part != "random" and part not in own and not _searcher(part):
                raise SourceError("--players", None, f"unknown player {part!r} (players: random, "
                                                     f"{', '.join(own + ['mcts:N', 'ismcts:N'])})")
            if _searcher(part) and not openspiel_installed():
                raise SourceError("--players", None, f"{part} needs OpenSpiel: pip install 'rulepress[openspiel]'")
    return list(dict.fromkeys(given))


def _searcher(name: str) -> bool:
    import re

    found = re.fullmatch(r"(mcts|ismcts):[1-9][0-9]{0,5}(?:\+(.+))?", name)
    return found is not None


def _seats(check: BookCheck) -> int:
    data = check.book.data.get("players")
    return int(data["max"]) if isinstance(data, dict) else int(data or 1)


def configs(check: BookCheck, given: list[str] | None = None) -> list[Config]:
    """Every configuration to play, the text's game first; each answer after the baseline it is compared with."""
    engine = check.engine
    main = impact_policy(engine)[0]
    found = [Config(f"{policy} play", policy) for policy in who_plays(check, given)]
    skip = bundles(engine)
    searchers = [config.policy for config in found if config.competent and VERSUS not in config.policy]
    for name, options in engine.bench_configs.items():
        if options:
            role = "bundle" if name in skip else "variant"
            found.append(Config(f"option set {name}", main, dict(options), role=role,
                                setting=name if role == "variant" else f"{name} (not the text)"))
            if role == "variant":  # the text's challenges played competently too: is one unwinnable, or the bot?
                found += [Config(f"option set {name} ({player})", player, dict(options), role=role, setting=name)
                          for player in searchers]
    for question in check.book.questions:
        if question.option is None or question.status == "dropped":
            continue
        for options, players in settings(check, question):
            base = _baseline(found, engine, main, options, players)
            for answer in alternatives(question):
                label = f"{question.id} = {answer}" + ("" if base.default else f" ({base.setting})")
                found.append(Config(label, main, {**options, question.option: question.option_value(answer)},
                                    question.id, answer, "answer", base.setting, players, base.label))
    return found


def _baseline(found: list[Config], engine: EngineSpec, policy: str, options: dict[str, Any],
              players: tuple[int, ...]) -> Config:
    """The configuration playing ``options`` and ``players`` with the text's answers, added when missing."""
    for config in found:
        if config.text and config.policy == policy and config.options == options and config.players == players:
            return config
    name = setting_name(engine, options, players)
    config = Config(name, policy, dict(options), role="baseline", setting=name, players=players)
    found.append(config)
    return config


def possible(check: BookCheck, config: Config, rule_id: str) -> bool:
    """Whether ``rule_id`` can happen in a game of ``config``: a rule inside a challenge's rules (an option that
    answers no question, whose rules contain it) needs the challenge's option on."""
    for spec in check.engine.options:
        if not spec.question and any(rule_id == r or rule_id.startswith(r + ".") for r in spec.rules):
            return config.options.get(spec.name, spec.default) != spec.default
    return True
