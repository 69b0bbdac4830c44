"""``rulepress new BOOK``: a working skeleton of a new book that passes ``rulepress verify`` and builds at once.

It writes the book data, one chapter, an engine on :class:`rulepress.basegame.BaseGame` and two worked examples,
one played and one refused setup (a two-player race to a target count, small enough to read in a minute and
replace with the real game).  In a folder that is no project yet it also starts one: the marker file
(``rulepress.yaml``), a README naming the guides and a ``.gitignore`` for what the build writes.  Inside a project
the book is one more.  Nothing existing is ever overwritten.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

import yaml

from rulepress.errors import excerpt, os_problem
from rulepress.project import MARKER

BOOK_ID = re.compile(r"[a-z][a-z0-9-]*")  # matched whole: "$" would let a name ending in a newline by
PREFIX = re.compile(r"[a-z]+")
MOST_ID = 64  # characters of a book ID: it names folders and files (examples/<id>/<id>-first-race.yaml)


class ScaffoldError(Exception):
    """The skeleton cannot be written (a bad name, or a file that already exists): nothing was written."""


@dataclass(frozen=True)
class Names:
    book: str  # the book ID: rules_src/<book>/, examples/<book>/
    package: str  # engine/<package>/
    prefix: str  # every rule ID starts with "<prefix>."
    title: str


def names_for(book: str, prefix: str | None = None, title: str | None = None) -> Names:
    """The names a book ID implies; raises ScaffoldError naming what is wrong with a bad one."""
    if not BOOK_ID.fullmatch(book):
        raise ScaffoldError(f"{excerpt(book)} cannot be a book ID: use lower case letters, digits and '-', "
                            "starting with a letter (e.g. tic-tac-toe)")
    if len(book) > MOST_ID:
        raise ScaffoldError(f"{excerpt(book)} cannot be a book ID: at most {MOST_ID} characters (it names folders "
                            "and files)")
    chosen = prefix if prefix is not None else "".join(part[0] for part in book.split("-") if part)
    if not PREFIX.fullmatch(chosen):
        raise ScaffoldError(f"{excerpt(chosen)} cannot be a rule prefix: use lower case letters only (--prefix)")
    shown = title or " ".join(part.capitalize() for part in book.split("-"))
    return Names(book, book.replace("-", "_"), chosen, shown)


def skeleton(names: Names) -> dict[str, str]:
    """Every file of the skeleton, by its path under the project root."""
    fill = {"book": names.book, "package": names.package, "prefix": names.prefix,
            "title_yaml": yaml.safe_dump(names.title, default_style='"').strip()}
    files = {
        f"rules_src/{names.book}/book.yaml": BOOK_YAML,
        f"rules_src/{names.book}/components.yaml": COMPONENTS_YAML,
        f"rules_src/{names.book}/chapters/play.md": CHAPTER,
        f"rules_src/{names.book}/prose_only.yaml": PROSE_ONLY,
        f"rules_src/{names.book}/provenance.yaml": PROVENANCE,
        f"engine/{names.package}/__init__.py": ENGINE_INIT,
        f"engine/{names.package}/game.py": ENGINE_GAME,
        f"examples/{names.book}/{names.book}-first-race.yaml": EXAMPLE,
        f"examples/{names.book}/{names.book}-two-players.yaml": EXAMPLE_REFUSED,
    }
    return {path: Template(text).substitute(fill) for path, text in files.items()}


def write_skeleton(root: Path, names: Names) -> list[Path]:
    """Write the skeleton under ``root`` (created when missing) and return the files written.

    Everything is checked before anything is written: the book, its engine and its examples must not exist, no
    other book of the project may use the rule prefix, and every file's way down from ``root`` must be folders
    of the project (a symlink leading out of it, ``engine/`` linked elsewhere, or a file where a folder goes is
    refused).  If writing fails all the same (a full disk), what was written is removed again: a refusal leaves
    nothing behind.
    """
    for folder in (f"rules_src/{names.book}", f"engine/{names.package}", f"examples/{names.book}"):
        if os.path.lexists(root / folder):
            raise ScaffoldError(f"{folder} already exists: choose another book ID (nothing was written)")
    for other in sorted((root / "rules_src").glob("*/book.yaml")) if (root / "rules_src").is_dir() else []:
        try:
            data = yaml.safe_load(other.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError, ValueError):
            continue  # a broken book is verify's to report, not ours
        if isinstance(data, dict) and data.get("rule_prefix") == names.prefix:
            raise ScaffoldError(f"rule prefix '{names.prefix}' is already used by {other.relative_to(root)}: "
                                f"choose another with --prefix (nothing was written)")
    files = skeleton(names)
    if not (root / MARKER).is_file():  # a new project: what makes the folder one, and its first README
        files = {**project_files(names, existing=root), **files}
    for path in files:
        _check_way(root, path)
    made: list[Path] = []  # each folder and file written, in order, to be removed again if a later one fails
    try:
        for path, text in files.items():
            target = root / path
            _folders(target.parent, made)
            handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
            made.append(target)
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
    except OSError as exc:
        _remove(made)
        raise ScaffoldError(f"{os_problem(exc)} (nothing was written)") from None
    except BaseException:
        _remove(made)
        raise
    return [path for path in made if path.is_file() and not path.is_symlink()]


def _check_way(root: Path, path: str) -> None:
    """Refuse the file ``path`` (under ``root``) unless every part of its way that exists is a folder inside the
    project and the file itself is not there; and unless the system takes each name (a 250-letter book ID would
    make ``examples/<book>/<book>-first-race.yaml`` a name too long)."""
    try:
        longest = os.pathconf(_existing(root), "PC_NAME_MAX")
    except (OSError, ValueError):
        longest = 255
    base = root.resolve()
    here = root
    parts = Path(path).parts
    for index, part in enumerate(parts):
        if len(part.encode("utf-8")) > longest:
            raise ScaffoldError(f"{excerpt(part)} is longer than a file name may be here ({longest} bytes): "
                                "choose a shorter book ID (nothing was written)")
        here = here / part
        if not os.path.lexists(here):
            continue
        shown = "/".join(parts[:index + 1])
        if index == len(parts) - 1:
            raise ScaffoldError(f"{shown} already exists (nothing was written)")
        try:
            resolved = here.resolve()
        except (OSError, RuntimeError):  # a symlink loop
            raise ScaffoldError(f"{shown} is a symlink that cannot be followed (nothing was written)") from None
        if not resolved.is_relative_to(base):
            raise ScaffoldError(f"{shown} is a symlink to {resolved}, outside the project: rulepress new writes "
                                "only inside it (nothing was written)")
        if not here.is_dir():
            raise ScaffoldError(f"{shown} is a file, where the book's folders go (nothing was written)")


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _folders(folder: Path, made: list[Path]) -> None:
    """Make ``folder`` and its missing parents, each recorded in ``made``."""
    missing = []
    while not os.path.lexists(folder):
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir()
        made.append(path)


def _remove(made: list[Path]) -> None:
    for path in reversed(made):
        try:
            path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
        except OSError:
            pass


def project_files(names: Names, existing: Path) -> dict[str, str]:
    """The files a new project starts with (those ``existing`` does not hold yet)."""
    files = {MARKER: MARKER_TEXT, "README.md": Template(README).substitute(book=names.book, title=names.title),
             ".gitignore": GITIGNORE}
    return {path: text for path, text in files.items() if not (existing / path).exists()}


MARKER_TEXT = """\
# This folder is a rulepress project: books in rules_src/, their engines in engine/, their examples in examples/.
# rulepress commands find it from any subfolder (as git finds .git); the file's content is not read.
"""

GITIGNORE = """\
/site/
.rulepress-cache/
.pytest_cache/
__pycache__/
"""

README = """\
# $title

A rulebook made with rulepress: the rules in `rules_src/$book/`, the engine that plays them in `engine/`, and
the worked examples in `examples/$book/`, each replayed against the engine on every build.

```sh
rulepress verify          # replay every example against the engine
rulepress build           # then the website in site/ and three PDF editions in site/pdf/
rulepress preflight       # read the PDFs back as a printer would
pytest                    # the examples as tests, one per example ID (pip install pytest; your CI)
rulepress serve           # a live preview while you write
```

The guides ship with rulepress; print them with `rulepress guide NAME`:

- `rulepress guide engine`: writing the engine (replace the skeleton's race with your game)
- `rulepress guide formats`: the book's files (book.yaml, components, chapters, examples, questions...)
- `rulepress guide analysis`: simulated play and the text checked against its data
- `rulepress guide translations`: translated editions

A second book goes beside this one: `rulepress new OTHER-BOOK` from anywhere in this folder. The site's settings
need no file; a `mkdocs.yml` here adds to them (site name, colours, extra pages in `site_src/`, extra CSS).
"""

BOOK_YAML = """\
id: $book
title: $title_yaml
edition: "0.1"
players: {min: 2, max: 2}
ages: "6+"
play_time: "5 min"
trim: A5
engine: $package
rule_prefix: $prefix
chapters:
  - play.md
checks:                    # arithmetic on components.yaml that must hold (rulepress guide formats)
  - expr: race.most < race.target
    why: nobody can win on the very first turn
"""

COMPONENTS_YAML = """\
# The numbers the chapters print and the engine plays by (one place for both).
race: {target: 10, most: 2}
"""

CHAPTER = """\
# Playing {#$prefix.play}

## Players {#$prefix.play.players}

Two players race to bring the count to {{ race.target }}. The first player listed starts.

## Adding {#$prefix.play.add}

The count starts at 0. On your turn, add 1 to {{ race.most }} to it. The count may never pass
{{ race.target }}.

## Winning {#$prefix.play.win}

Whoever brings the count to exactly {{ race.target }} wins (see [[$prefix.play.add]]).
"""

PROSE_ONLY = """\
# Rules no engine code enforces, each with the reason (rulepress guide formats).
{}
"""

PROVENANCE = """\
# Where each rule comes from (rulepress guide formats): the source passage it carries over, or the designer question
# that records why it was added. This skeleton's rules are its own: replace them with your game's.
$prefix.play:
  source: "written for this skeleton"
$prefix.play.players:
  source: "written for this skeleton"
$prefix.play.add:
  source: "written for this skeleton"
$prefix.play.win:
  source: "written for this skeleton"
"""

ENGINE_INIT = '''\
"""The engine of rules_src/$book/ (rulepress guide engine): ``ENGINE`` declares it, ``game.py`` plays it."""

from rulepress.protocol import EngineSpec

from .game import ACTION_SCHEMA, BOOK_ID, Game

# Everything the engine is, in one place (rulepress guide engine, "The package"): a misspelt field is refused at
# its line.  The kind of game is OpenSpiel's: say it as it is, the build holds the game and the book to it.
ENGINE = EngineSpec(
    book_id=BOOK_ID,
    make_game=Game,  # Game(components, options) is the game
    min_num_players=2,  # as book.yaml's players
    max_num_players=2,
    chance_mode="deterministic",  # nothing is drawn (dice or cards: "explicit_stochastic", drawn through Chance)
    information="perfect_information",  # everyone sees everything (a hidden hand: "imperfect_information")
    utility="zero_sum",  # one wins, the other loses ("general_sum" for scores, "identical" if cooperative)
    action_schema=ACTION_SCHEMA,
)
__all__ = ["ENGINE", "Game"]
'''

ENGINE_GAME = '''\
"""The rules of rules_src/$book/, on rulepress.basegame (rulepress guide engine).

``moves`` lists what could be done now, ``check`` refuses what the rules forbid (naming the rule) and
``perform`` carries out the rest, saying what happened.  Replace the race with your game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rulepress.basegame import BaseGame, ComponentPicture, Figure, Move, cmyk, shape, text
from rulepress.marks import Box
from rulepress.protocol import Chance, DescriptionError, Event, RuleViolation

BOOK_ID = "$book"
FILLED = cmyk(0, 55, 100, 0)  # the diagram's colours: CMYK percentages, converted for screens by the build
# What a step may say (rulepress guide engine): the build refuses a misspelt key or a word for a number at its line.
# Shape only: "amount: 9" is a whole number, so it reaches check() and is refused by the rule that forbids it.
ACTION_SCHEMA = {"add": {"properties": {"amount": {"type": "integer", "x-expect": "a whole number"}},
                         "required": ["amount"]}}


@dataclass
class State:
    players: list[str]
    count: int = 0
    turns: int = 0
    winner: str | None = None

    @property
    def current(self) -> str:
        return self.players[self.turns % len(self.players)]


class Game(BaseGame):
    book_id = BOOK_ID
    PLAYERS_RULE = "$prefix.play.players"
    STATE_KEYS = ("count", "turn")
    ACTIONS = {"add": {"amount": None}}  # {do: add, amount: 2}; any whole number parses, check() judges it
    CHANCE = False  # nothing is drawn at random: start() and describe() get no Chance
    HEIGHT = 90

    def __init__(self, components: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> None:
        super().__init__(components, options)
        self.target, self.most = int(components["race"]["target"]), int(components["race"]["most"])

    def start(self, players: list[str], chance: None) -> State:
        return State(players)

    def describe(self, description: Mapping[str, Any], players: list[str], chance: None) -> State:
        """``{count: 7, turn: Ben}``: the count so far and whose turn it is (default: the first player)."""
        count, turn = description.get("count", 0), description.get("turn", players[0])
        if not isinstance(count, int) or not 0 <= count < self.target:
            raise DescriptionError("start.state.count", f"the count is a whole number from 0 to {self.target - 1}")
        if turn not in players:
            raise DescriptionError("start.state.turn", f"unknown player {turn!r} (players: {', '.join(players)})")
        return State(players, count, players.index(turn))

    def moves(self, state: State) -> list[Move]:
        return [Move.of(state.current, "add", amount=amount) for amount in range(1, self.most + 1)]

    def check(self, state: State, move: Move) -> None:
        if state.winner is not None:
            raise RuleViolation("$prefix.play.win", f"the race is over: {state.winner} has won")
        if move.player != state.current:
            raise RuleViolation("$prefix.play.add", f"it is {state.current}'s turn, not {move.player}'s")
        amount = move["amount"]
        if not isinstance(amount, int) or not 1 <= amount <= self.most:
            raise RuleViolation("$prefix.play.add", f"add 1 to {self.most}, not {amount!r}")
        if state.count + amount > self.target:
            raise RuleViolation("$prefix.play.add", f"the count may not pass {self.target}")

    def perform(self, state: State, move: Move) -> list[Event]:
        state.count += move["amount"]
        events = [Event("add", "$prefix.play.add", {"player": move.player, "amount": move["amount"],
                                                    "count": state.count})]
        if state.count == self.target:
            state.winner = move.player
            events.append(Event("win", "$prefix.play.win", {"player": move.player}))
        state.turns += 1
        return events

    def snapshot(self, state: State) -> dict[str, Any]:
        return {"count": state.count, "left": self.target - state.count, "winner": state.winner,
                "turn": None if state.winner else state.current}

    def result(self, state: State) -> dict[str, Any]:
        return {"winner": state.winner}

    def draw(self, state: State) -> Figure:
        """The count as a track of boxes.  ``places`` says where each part of the snapshot is drawn: the marks
        that show what a step changed (an outline and the step's number) go there."""
        side = min(40, (self.WIDTH - 20) / self.target)
        status = f"{state.winner} wins" if state.winner else f"Count {state.count}: {state.current} to play"
        parts = [text(10, 20, status, 14, anchor="start", weight="bold")]
        for box in range(self.target):
            x = 10 + box * side
            fill = FILLED if box < state.count else "none"
            parts += [shape("rect", fill=fill, x=x, y=34, width=side - 4, height=side - 4),
                      text(x + (side - 4) / 2, 34 + side + 10, str(box + 1), 10)]
        track = Box(10, 34, self.target * side - 4, side - 4)
        return Figure(parts, places={"count": track, "left": track, "winner": Box(6, 6, 200, 20)})

    def component_pictures(self) -> list[ComponentPicture]:
        """The book's components section: each kind of component, how many the box holds, and its picture."""
        track = [shape("rect", x=1 + box * 22, y=1, width=18, height=18) for box in range(self.target)]
        return [ComponentPicture("Race track", 1, Figure(track, height=20, width=self.target * 22),
                                 f"{self.target} boxes: the count so far")]
'''

EXAMPLE = """\
id: $book-first-race
title: Reaching the target exactly
rules: [$prefix.play.add, $prefix.play.win]
players: [Ann, Ben]
start:
  state: {count: 7, turn: Ann}
steps:
  - checkpoint: before
    expect: {count: 7, left: 3, turn: Ann, legal_actions: 2}
  - {player: Ann, do: add, amount: 3, illegal: $prefix.play.add}
  - {player: Ann, do: add, amount: 1}
  - {player: Ben, do: add, amount: 2}
  - checkpoint: end
    expect: {count: 10, winner: Ben, legal_actions: 0}
    events:
      - {kind: win, player: Ben}
    diagram: Ben brings the count to the target
text: |
  With the count at {{ cp.before.count }}, Ann may not add {{ cp.before.left }}: it is more than a turn allows.
  She adds 1; Ben adds 2, brings the count to {{ cp.end.count }} and wins the race.
"""

EXAMPLE_REFUSED = """\
id: $book-two-players
title: Two players only
rules: [$prefix.play.players]
players: [Ann, Ben, Cat]
start:
  setup: true
  refused: $prefix.play.players
"""
