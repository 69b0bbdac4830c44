"""The data codec (rulepress/codec.py): engine states, kept replays and parsed sources as JSON that runs nothing when
read.  Every bundled engine and sample is played at random and each position written and read back: the copy is the
same position (the same bytes again, snapshot, legal moves, and the same game from there on); and data that names
anything the codec was not given is refused without anything being imported or called."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rulepress import codec
from rulepress.codec import Codec, CodecError, state_codec
from rulepress.load.book import book_ids, load_book
from rulepress.verify.gate import load_book_engine

from .conftest import MINI, ROOT

PROJECTS = [ROOT, ROOT / "samples" / "tic-tac-toe", ROOT / "samples" / "kuhn-poker", MINI]


def _games() -> list[tuple[str, Any]]:
    found = []
    for root in PROJECTS:
        for book_id in book_ids(root):
            book = load_book(root, book_id)
            found.append((book_id, load_book_engine(book).make_game(book.components, {})))
    return found


GAMES = _games()


def _events(events: list[Any]) -> list[Any]:
    return [event.as_dict() if hasattr(event, "as_dict") else event for event in events]


@pytest.mark.parametrize(("book", "game"), GAMES, ids=[book for book, _ in GAMES])
def test_every_position_of_random_play_reads_back_as_the_same_position(book: str, game: Any) -> None:
    written = state_codec(game)
    rng = random.Random(book)
    low, high = getattr(game, "PLAYERS", (2, 2))
    for _ in range(4):
        players = [f"P{n}" for n in range(rng.randint(low, high))]
        state = game.new_state(players, rng.getrandbits(32))
        copy = written.loads(written.dumps(state))
        for _ in range(400):
            text = written.dumps(state)
            assert json.loads(text) is not None  # plain JSON
            copy = written.loads(text)
            assert written.dumps(copy) == text  # nothing lost, nothing added
            assert game.snapshot(copy) == game.snapshot(state)
            if game.is_terminal(state):
                assert game.is_terminal(copy) and game.result(copy) == game.result(state)
                break
            legal = game.legal_actions(state)
            assert game.legal_actions(copy) == legal
            move = rng.choice(legal)
            assert _events(game.apply(copy, move)) == _events(game.apply(state, move))  # the same game from here
            assert game.snapshot(copy) == game.snapshot(state)
            chance = getattr(state, "chance", None)
            if chance is not None:  # the same draws to come
                assert copy.chance.rng.getstate() == chance.rng.getstate() and copy.chance.drawn() == chance.drawn()


def test_a_position_names_its_classes_relative_to_the_engine() -> None:
    """So it reads the same under any package name the engine is imported as: the browser's referee imports it
    under another name than the build (issue 28: remade positions named a module the bundle did not hold)."""
    book, game = next((book, game) for book, game in GAMES if book == "lantern")
    text = state_codec(game).dumps(game.new_state(["Ann"], 1))
    assert '".state:LanternState"' in text and "rulepress_engines" not in text


def test_a_value_held_twice_is_held_twice_when_read() -> None:
    shared = [1, 2]
    value = {"a": shared, "b": shared, "c": (shared, {3, 4}), "d": [1, 2]}
    back = codec.loads(codec.dumps(value))
    assert back == value and back["a"] is back["b"] is back["c"][0] and back["d"] is not back["a"]
    loop: list[Any] = []
    loop.append(loop)
    again = codec.loads(codec.dumps(loop))
    assert again[0] is again


def test_every_plain_type_reads_back_as_itself() -> None:
    import datetime
    from collections import deque

    value = {1: "one", (2, 3): frozenset({"x"}), "#": b"\x00\xff", None: [float("nan"), float("inf"), -0.0],
             "when": datetime.date(2024, 2, 29), "at": datetime.datetime(2024, 1, 1, 12, tzinfo=datetime.UTC),
             "queue": deque([1, 2], maxlen=5), "flags": [True, 1, "1"], "big": 10**40}
    back = codec.loads(codec.dumps(value))
    assert repr(back) == repr(value) and type(back["queue"]) is deque and back["queue"].maxlen == 5
    assert [type(item) for item in back["flags"]] == [bool, int, str]


def test_a_set_of_strings_is_written_alike_in_every_process() -> None:
    """Python orders a set of strings differently in each process: the codec writes it in one order, so the same
    position is the same bytes (a kept replay and a fresh one publish alike)."""
    script = "from rulepress import codec; print(codec.dumps({'s': {'amber', 'rose', 'jade', 'violet', 'grey'}}))"
    outputs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": str(seed), "PATH": ""}).stdout for seed in (1, 2, 3, 4)}
    assert len(outputs) == 1


@pytest.mark.parametrize("data", [
    {"#": "object", "c": "os:system"}, {"#": "object", "c": "builtins:eval"},
    {"#": "object", "c": "subprocess:Popen", "v": {}}, {"#": "partial", "f": "os:system", "a": ["touch x"]},
    {"#": "partial", "f": "builtins:exec", "a": ["import os"]}, {"#": "enum", "c": "os:system", "v": "x"},
    {"#": "pickle", "v": "gASVAAAA"}, {"#": "ref", "v": 5}, {"#": "random", "v": [3, "AAAA", None]},
    {"#": "object", "c": ".game:os"}, {"#": "object", "c": ".:__builtins__"}, [{"#": "float", "v": "1e400"}],
])
def test_data_that_names_anything_else_is_refused_and_nothing_runs(data: Any, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _, game = next((book, game) for book, game in GAMES if book == "mini")
    with pytest.raises(CodecError):
        state_codec(game).decode(data)
    assert list(tmp_path.iterdir()) == []


def test_a_class_imported_into_an_engine_module_is_not_one_of_its_own() -> None:
    """``.game:Path`` names a class the engine's module imported (pathlib's): only classes defined in the engine's
    package are its own."""
    book, game = next((book, game) for book, game in GAMES if book == "tic-tac-toe")
    written = state_codec(game)
    module = type(game).__module__.rsplit(".", 1)[-1]
    for name in ("Any", "dataclass", "BaseGame", "Chance"):
        with pytest.raises(CodecError):
            written.decode({"#": "object", "c": f".{module}:{name}", "v": {}})


def test_what_is_not_data_does_not_encode() -> None:
    for value in (lambda: 1, open, object(), type, {"f": print}):
        with pytest.raises(CodecError):
            codec.dumps(value)
    with pytest.raises(CodecError):
        Codec().dumps(random)  # a module


def test_a_kept_replay_is_json_and_reads_back_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.verify.cached import RESULTS, cached_replay
    from rulepress.verify.gate import load_checked_book

    from .conftest import make_project

    monkeypatch.setenv("RULEPRESS_CACHE", "1")
    root = make_project(tmp_path / "project")
    check = load_checked_book(root, "mini")
    made = cached_replay(check.examples[0], check.book, check.engine)
    [entry] = (root / ".rulepress-cache" / "content" / "replay").glob("*/*")
    data = entry.read_bytes().split(b"\n", 1)[1]
    head, _, texts = data.partition(b"\n")
    assert json.loads(head)["v"]["#"] == "object" and b"<svg" in texts and b"\x80\x05" not in data
    again = RESULTS.unpack(data)
    assert again.frames == made.frames and again.checkpoints == made.checkpoints and again.status == "passed"
    assert cached_replay(check.examples[0], check.book, check.engine).frames == made.frames


def test_a_record_missing_a_field_is_not_read() -> None:
    from rulepress.verify.cached import RESULTS

    with pytest.raises(CodecError, match="lacks"):
        RESULTS.decode({"#": "object", "c": "replay:ExampleResult", "v": {"status": "passed"}})


def test_a_packed_value_keeps_its_long_texts_apart_and_whole() -> None:
    """The store's form (Codec.pack): long texts (a replay's SVG) after one line of JSON, copied as they are."""
    svg = '<svg xmlns="http://www.w3.org/2000/svg">' + "é\n\"x\"" * 300 + "</svg>"
    value = {"svgs": {"en": svg, "fr": svg + "!"}, "short": "a\nb", "list": [svg, 1]}
    packed = codec.PLAIN.pack(value)
    assert packed.count(b"\n") >= 1 and svg.encode() in packed and codec.PLAIN.unpack(packed) == value
    for broken in (packed[:-1], packed + b"x", b"not json\n", packed.replace(b'"t":[', b'"t":[1,', 1)):
        with pytest.raises(CodecError):
            codec.PLAIN.unpack(broken)
