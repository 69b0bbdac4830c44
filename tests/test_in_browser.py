"""The in-browser engine, checked without a browser: the frames the replay keeps, what the site's pages say of
them, the bundle Pyodide unpacks, the referee's answers against ``rulepress explain``'s, and nothing hidden from an
example's seat in the positions it may be tried from.  tests/test_site_stepper.py drives the same in Chromium."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import pytest

from rulepress import textwidth
from rulepress.analyze import explain
from rulepress.codec import state_codec
from rulepress.protocol import PUBLIC, observer_of
from rulepress.render import in_browser, stepper
from rulepress.render.browser.referee import Referee, words
from rulepress.render.strings import strings
from rulepress.verify import closure, diagram
from rulepress.verify.engines import forget_engine
from rulepress.verify.gate import BookCheck, load_checked_book, verify
from rulepress.verify.replay import replay
from tests.conftest import ROOT

BOOKS = ("lantern-moths", "last-lantern", "lantern")


@pytest.fixture(scope="module")
def checks() -> dict[str, BookCheck]:
    return {book: load_checked_book(ROOT, book) for book in BOOKS}


def _example(check: BookCheck, example_id: str):  # type: ignore[no-untyped-def]
    return next(e for e in check.examples if e.id == example_id)


def test_vendored_pyodide_is_the_npm_package_unchanged() -> None:
    folder = in_browser.pyodide_folder()
    listed = dict(reversed(line.split()) for line in (folder / "SOURCE.txt").read_text().splitlines()
                  if re.fullmatch(r"[0-9a-f]{64}  \S+", line))
    assert set(listed) >= set(in_browser.PYODIDE_FILES)
    for name, digest in listed.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name


def test_a_frame_per_action_each_a_checked_diagram(checks: dict[str, BookCheck]) -> None:
    check = checks["lantern-moths"]
    result = replay(_example(check, "lm-plant"), check.book, check.engine)
    assert result.ok
    assert len(result.frames) == len(result.transcript) + 1  # the start, then each action (allowed or refused)
    assert [frame.step for frame in result.frames[1:]] == [line.step for line in result.transcript]
    for frame in result.frames:
        assert set(frame.svgs) == set(frame.alts) == {"en"}
        assert all(diagram.problem(svg) is None for svg in frame.svgs.values())
        assert all(frame.alts.values())  # the engine's narration of the position
    assert [frame.narrations["en"] for frame in result.frames[1:]] == [line.narration for line in result.transcript]
    named = {name for frame in result.frames for name in frame.checkpoints}
    assert named == set(result.checkpoints)


def test_a_refused_step_keeps_the_position_before_it(checks: dict[str, BookCheck]) -> None:
    check = checks["lantern-moths"]
    example = next(e for e in check.examples if any(step.illegal for step in e.steps))
    result = replay(example, check.book, check.engine)
    at = next(i for i, frame in enumerate(result.frames) if frame.rejected_by)
    assert result.frames[at].rejected_by == next(step.illegal for step in example.steps if step.illegal)
    assert result.frames[at].position == result.frames[at - 1].position
    # The same position, drawn with the move refused struck out (rulepress/marks.py) and its moment.
    assert "rp-refused" in result.frames[at].svgs["en"] and "rp-refused" not in result.frames[at - 1].svgs["en"]
    assert result.frames[at].moments["en"].endswith("not allowed")


def test_translated_frames_are_drawn_and_told_in_french(checks: dict[str, BookCheck]) -> None:
    check = checks["last-lantern"]
    result = replay(check.examples[0], check.book, check.engine)
    assert all(set(frame.svgs) == {"en", "fr"} for frame in result.frames)
    assert any(frame.alts["fr"] != frame.alts["en"] for frame in result.frames)


def test_the_gate_refuses_a_frame_no_checkpoint_draws(mini: Path) -> None:
    """A diagram of a position between checkpoints is published too: it is checked as theirs are."""
    engine = mini / "engine" / "mini" / "__init__.py"
    source = engine.read_text()
    engine.write_text(source.replace('f"{stones}</svg>")', 'f"{stones}" + ("<script/>" if state.pile == 2 else "") '
                                                          '+ "</svg>")'))
    check = load_checked_book(mini, "mini")
    result = replay(check.examples[0], check.book, check.engine)
    assert result.status == "error"
    assert "the position after step 2" in result.message and "holds <script>" in result.message
    assert replay(check.examples[0], check.book, check.engine, draw=False).ok  # verify alone draws nothing


def test_the_page_block_is_text_and_attributes_only() -> None:
    """What a book says reaches the page as escaped text: a narration cannot close the list or open a script."""
    assert stepper.embedded_json({"a": "</script><b>&"}) == '{"a":"\\u003c/script\\u003e\\u003cb\\u003e\\u0026"}'
    assert json.loads(stepper.embedded_json({"a": "</script>\u2028"})) == {"a": "</script>\u2028"}


def test_the_block_names_each_frame_and_its_refusal(mini: Path) -> None:
    check = load_checked_book(mini, "mini")
    result = replay(check.examples[0], check.book, check.engine)
    t = strings("en")
    page = "mini/examples/mini-last-stone.md"
    block, files = stepper.example_block(result, check.book, t, page, None, True, check.proof)
    items = re.findall(r"<li[^>]*>.*?</li>", block)
    assert len(items) == len(result.frames) == 4
    assert 'data-rule="../rules/mini.play.html#mini.play.take"' in items[1]
    assert "Not allowed (rule 1.1)" in items[1]
    assert "The pile is empty" in items[3]  # the checkpoint's caption, with the position it shows
    [packed] = re.findall(r'data-frames="([^"]+)"', block)
    pack = stepper.decode_pack(packed)
    # Each piece of SVG is kept once: the frames after the first are mostly runs of the pieces it has.
    used = sum(length for runs in pack["frames"] for length in runs[1::2])
    assert len(pack["frames"]) == 4 and len(pack["pieces"]) < used / 2
    for item, frame in zip(items, result.frames, strict=True):
        number = re.search(r'data-frame="(\d+)"', item)
        assert number and stepper.unpack_frame(pack, int(number.group(1))) == check.proof.svg(frame.svgs["en"])
    # The frames' SVGs go along for the player-text check alone: the page carries them.
    assert {name for name in files if stepper.is_frame(name)} == {
        f"mini/frames/{stepper.frame_name(result.example.id, check.proof.svg(frame.svgs['en']))}"
        for frame in result.frames}
    positions = json.loads(files["mini/referee/mini-last-stone.json"])
    assert len(positions["positions"]) == 3  # the refused step opens the start's position again
    without, files = stepper.example_block(result, check.book, t, page, None, False, check.proof)
    assert "data-referee" not in without and not any("/referee/" in name for name in files)


def test_try_moves_false_leaves_the_engine_out(mini: Path) -> None:
    from rulepress.render import site
    from rulepress.verify.gate import verify

    book = mini / "rules_src" / "mini" / "book.yaml"
    report = verify(mini)
    assert any(name.startswith("mini/referee/") for name in site.pages(site.SiteInput(report)))
    book.write_text(book.read_text() + "try_moves: false\n")
    report = verify(mini)
    assert report.ok, report.failures()
    generated = site.pages(site.SiteInput(report))
    assert not any("/referee/" in name for name in generated)
    assert "data-rp-stepper" in generated["mini/examples/mini-last-stone.md"]  # stepping stays


def test_the_width_table_measures_as_fonttools_does(tmp_path: Path) -> None:
    """In the browser (no fontTools, no fonts) rulepress.textwidth reads the table the bundle carries beside it, and
    gives the widths it gives where rulepress is installed."""
    package = tmp_path / "standin"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / textwidth.TABLE).write_text(json.dumps(textwidth.table()))
    (package / "textwidth.py").write_bytes(Path(textwidth.__file__).read_bytes())
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("standin.textwidth")
        assert not module.FONTS.exists()  # no fonts beside the copy: fontTools would have nothing to read
        for text in ("Path Astray", "Chemin perdu", "Lueurs étranges", "ŒÆ ß ☃", ""):
            for bold in (False, True):
                assert module.text_width(text, 11, bold) == textwidth.text_width(text, 11, bold)
        assert module.advances.cache_info().currsize == 2  # both faces read from the table
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "standin" or n.startswith("standin.")]:
            del sys.modules[name]


def test_the_bundle_holds_the_engine_and_what_it_imports(checks: dict[str, BookCheck]) -> None:
    check = checks["last-lantern"]
    data = in_browser.bundle(check.engine, check.book)
    assert data == in_browser.bundle(check.engine, check.book)  # the same sources give the same bytes
    names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
    namespace = check.engine.module_name.rpartition(".")[0]
    assert f"{namespace}/last_lantern/__init__.py" in names
    assert f"{namespace}/last_lantern/locale/fr/LC_MESSAGES/narrate.po" in names
    assert {"rulepress/protocol.py", "rulepress/basegame.py", "rulepress/cmyk.py", "rulepress/i18n.py",
            "rulepress/textwidth.py", "rulepress/textwidth.json", "rulepress/render/browser/referee.py",
            "yaml/__init__.py", "babel/__init__.py", "babel/locale-data/fr.dat"} <= names
    assert not any(name.endswith((".so", ".pyc", ".ttf")) for name in names)  # nothing the browser cannot run
    assert not any(name.startswith("PIL/") or name.startswith("fontTools/") for name in names)
    # Only what the engine and the referee import, followed through rulepress: no render module but the referee.
    ours = sorted(name.removeprefix("rulepress/") for name in names if name.startswith("rulepress/")
                  and name.endswith(".py"))
    assert ours == closure.engine_closure(ROOT / "engine" / "last_lantern", namespace, closure.REFEREE).modules
    assert [name for name in ours if name.startswith("render/")] == [
        "render/__init__.py", "render/browser/__init__.py", "render/browser/referee.py"]


def test_a_bundle_is_kept_under_its_files_and_made_again_when_they_change(
        mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEPRESS_CACHE", "1")  # (the suite runs with the cache off)
    check = load_checked_book(mini, "mini")
    first = in_browser.bundle(check.engine, check.book)
    zips: list[object] = []
    real = zipfile.ZipFile
    monkeypatch.setattr(zipfile, "ZipFile", lambda *args, **kwargs: zips.append(args) or real(*args, **kwargs))
    assert in_browser.bundle(check.engine, check.book) == first and zips == []  # from the store, not zipped again
    engine = mini / "engine/mini/__init__.py"
    engine.write_text(engine.read_text() + "\n# a change\n")
    again = in_browser.bundle(check.engine, check.book)
    assert len(zips) == 1
    unpacked = real(io.BytesIO(again))
    assert unpacked.read(next(name for name in unpacked.namelist() if name.endswith("mini/__init__.py"))).endswith(
        b"# a change\n")
    monkeypatch.setenv("RULEPRESS_CACHE", "0")
    in_browser.bundle(check.engine, check.book)
    assert len(zips) == 2  # with the cache off, zipped afresh


def test_the_bundle_follows_what_an_engine_imports_and_nothing_more(mini: Path) -> None:
    check = load_checked_book(mini, "mini")
    names = set(zipfile.ZipFile(io.BytesIO(in_browser.bundle(check.engine, check.book))).namelist())
    assert "rulepress/basegame.py" not in names  # mini is not written on BaseGame, nor is the referee
    assert "rulepress/textwidth.py" not in names and "rulepress/textwidth.json" not in names
    engine = mini / "engine/mini/__init__.py"
    engine.write_text(engine.read_text().replace("from typing import Any\n",
                                                 "from typing import Any\n\nfrom rulepress import basegame\n"))
    forget_engine(mini, "mini")
    check = load_checked_book(mini, "mini")
    names = set(zipfile.ZipFile(io.BytesIO(in_browser.bundle(check.engine, check.book))).namelist())
    assert {"rulepress/basegame.py", "rulepress/cmyk.py"} <= names  # basegame's own imports come along


def test_a_symbolic_link_in_an_engine_folder_is_neither_published_nor_accepted(mini: Path, tmp_path: Path) -> None:
    """issue 28: ``zz_notes.po -> /etc/passwd`` in an engine's folder was published inside the referee's bundle."""
    secret = tmp_path / "outside.po"
    secret.write_text("msgid \"secret\"\nmsgstr \"the contents of a file outside the project\"\n")
    check = load_checked_book(mini, "mini")  # loaded before the link appears: the bundle still walks the folder
    (mini / "engine/mini/zz_notes.po").symlink_to(secret)
    (mini / "engine/mini/linked").symlink_to(tmp_path, target_is_directory=True)
    names = zipfile.ZipFile(io.BytesIO(in_browser.bundle(check.engine, check.book))).namelist()
    assert not any("zz_notes" in name or "linked" in name for name in names)
    assert any(name.endswith("/mini/__init__.py") for name in names)  # the engine's own files still are
    forget_engine(mini, "mini")
    report = verify(mini)
    assert report.problems[:1] == ["engine/mini/linked: a symbolic link in engine 'mini': an engine's files must be "
                                   "regular files inside its folder (copy the file in)"]


@pytest.mark.parametrize(("imports", "module", "needs"), [
    ("import numpy", "numpy", "numpy"),
    ("from numpy.linalg import norm", "numpy.linalg", "numpy"),
    ("import tkinter", "tkinter", "tkinter"),  # in CPython's standard library, not in Pyodide's
])
def test_an_engine_importing_what_the_browser_lacks_is_refused_at_its_line(mini: Path, imports: str, module: str,
                                                                             needs: str) -> None:
    """issue 28 D: such an engine built a site whose referee failed on a reader's first move."""
    engine = mini / "engine/mini/__init__.py"
    lines = engine.read_text().splitlines()
    at = lines.index("from typing import Any") + 1
    lines.insert(at, f"try:\n    {imports}\nexcept ImportError:  # here or not, the browser has none\n    pass")
    engine.write_text("\n".join(lines) + "\n")
    report = verify(mini, draw=False)
    found = [p for p in report.problems if "in-browser Python" in p]
    assert len(found) == 1, report.problems
    assert found[0].startswith(f"engine/mini/__init__.py:{at + 2}: engine 'mini' imports {module}")
    assert f"the in-browser Python (Pyodide {closure.pyodide_version()}) has no {needs}, so readers could not try " \
           f"moves on mini's site" in found[0]
    assert found[0].endswith("or set 'try_moves: false' in rules_src/mini/book.yaml")
    book = mini / "rules_src/mini/book.yaml"
    book.write_text(book.read_text() + "try_moves: false\n")
    assert not [p for p in verify(mini, draw=False).problems if "in-browser Python" in p]  # no referee: no check


def test_the_import_mutmut_adds_to_a_file_it_mutates_is_not_the_engines(mini: Path) -> None:
    """In ``nox -s mutants`` every mutated file (rulepress.protocol among them) starts with mutmut's trampoline import;
    the browser check took it for the engine's and refused the site of every test project. One written by hand is
    still the engine's, and refused."""
    trampoline = "from mutmut.mutation.trampoline import wrap_in_trampoline as _mutmut_mutated, MutantDict\n"
    engine = mini / "engine/mini/__init__.py"
    text = engine.read_text()
    engine.write_text(text.replace("from typing import Any\n", "from typing import Any\n" + trampoline))
    found = closure.engine_closure(mini / "engine/mini", "ns")
    assert "mutmut" not in found.libraries and not found.outside
    engine.write_text(text.replace("from typing import Any\n",
                                   "from typing import Any\n" + trampoline.replace(" as _mutmut_mutated", "")))
    found = closure.engine_closure(mini / "engine/mini", "ns2")
    assert [(imp.module, needs) for imp, needs in found.outside] == [("mutmut.mutation.trampoline",
                                                                       "mutmut.mutation.trampoline")]


def test_an_engine_importing_a_stage_of_rulepress_is_refused_at_its_line(mini: Path) -> None:
    """An engine imports rulepress's base layer only: the render stage's palette converts through the book's proof
    (LittleCMS, which the browser lacks), and is no module an engine may import however little it takes of it."""
    engine = mini / "engine/mini/__init__.py"
    text = engine.read_text()
    engine.write_text(text.replace("from typing import Any\n", "from typing import Any\n\n"
                                   "from rulepress.render.palette import css  # noqa: F401\n"))
    line = text.splitlines().index("from typing import Any") + 3
    problems = verify(mini, draw=False).problems
    assert problems == [f"engine/mini/__init__.py:{line}: engine 'mini' imports rulepress.render.palette: an engine "
                        f"imports only rulepress's base modules (rulepress.protocol, basegame, memory, change, marks, "
                        f"figures, cmyk, textwidth, i18n, errors), which its book's site can run too"]


def test_engines_importing_only_what_the_browser_has_pass(checks: dict[str, BookCheck]) -> None:
    for check in checks.values():
        assert closure.browser_problems(check.book, check.engine) == [], check.book.id
    assert closure.carried("math") and closure.carried("json") and closure.carried("random")  # built in, stdlib
    assert closure.carried("yaml") and closure.carried("babel")  # carried by the bundle
    assert not closure.carried("numpy") and not closure.carried("fontTools")


def _referee(check: BookCheck, results: list) -> Referee:  # type: ignore[type-arg]
    config = json.loads(stepper.referee_config(results, check.book, check.engine, strings("en"),
                                               f"{check.book.id}/examples", check.proof))
    return Referee(config, str(ROOT / "engine"))


def _open(referee: Referee, result, index: int) -> dict:  # type: ignore[no-untyped-def,type-arg]
    kept = in_browser.positions(result)
    frame = result.frames[index]
    return json.loads(referee.open(json.dumps({"options": kept["options"],
                                               "position": kept["positions"][kept["opens"][index]],
                                               "player": frame.player, "seat": frame.seat})))


@pytest.mark.parametrize(("book", "example", "written", "before"), [
    ("lantern-moths", "lm-plant", "{do: pass}", 1),
    ("last-lantern", "ll-first-tile-path", "{do: done}", 1),
    ("lantern", "ln-critical-strike", "{do: leave}", 1),
])
def test_the_referee_lists_and_refuses_as_explain_does(checks: dict[str, BookCheck], book: str, example: str,
                                                       written: str, before: int) -> None:
    """The moves in the same words, a legal one played, a refusal citing the rule ``explain --action`` names."""
    check = checks[book]
    chosen = _example(check, example)
    result = replay(chosen, check.book, check.engine)
    referee = _referee(check, [result])
    shown = _open(referee, result, before - 1)
    position = explain.position_before(check.book, check.engine, chosen, before)
    legal = position.game.legal_actions(position.state)
    player = result.frames[before - 1].player
    if player is not None:  # a seat: only its moves (explain --as lists the same)
        legal = [m for m in legal if position.game.action_step(position.state, m).get("player") == player]
    if observer_of(position.game) is None:
        assert [m["words"] for m in shown["moves"]] == [explain.words(position.game, position.state, m) for m in legal]
    else:  # what the seat cannot see is dealt again: as many moves, the seat's own
        assert len(shown["moves"]) == len(legal)
    played = json.loads(referee.play(0))
    assert played["ok"] and played["narration"] == shown["moves"][0]["words"] and played["depth"] == 1
    assert diagram.problem(played["svg"]) is None and "device-cmyk" not in played["svg"] and played["alt"]
    assert json.loads(referee.back())["depth"] == 0
    refused = json.loads(referee.judge(written))
    verdict = explain.judge(position, check.engine, {k: v for k, v in explain.given.yaml_text(written, "x").items()})
    assert not verdict.allowed and refused["ok"] is False
    rule = check.book.rules[verdict.rule or ""]
    assert refused["rule"]["number"] == rule.number and refused["rule"]["title"] == rule.title
    assert refused["message"] == re.sub(r"\s*\(rule [a-z][a-z0-9.-]*\)", "", verdict.message)


def test_a_move_that_does_not_parse_is_said_so(checks: dict[str, BookCheck]) -> None:
    check = checks["lantern"]
    result = replay(check.examples[0], check.book, check.engine)
    referee = _referee(check, [result])
    _open(referee, result, 0)
    for written, said in (("{do: fly}", "the engine cannot read this move"), ("[1, 2", "not a move written"),
                          ("just words", "a mapping with 'do'"), ("x" * 3000, "at most 2000 characters")):
        answer = json.loads(referee.judge(written))
        assert answer["ok"] is False and said in answer["message"], answer


def truth_game(check: BookCheck) -> Any:
    return check.engine.make_game(check.book.components, {})


def test_a_seat_position_holds_nothing_the_seat_cannot_see(checks: dict[str, BookCheck]) -> None:
    """Told from Ann's seat, the position behind a frame shows Ann what the true one shows her, and the rest is dealt
    again: the page's data cannot give away the other hands, the deck or the draws to come."""
    check = checks["lantern-moths"]
    told = [e for e in check.examples if e.seat is not None]
    assert told
    for example in told[:4]:
        result = replay(example, check.book, check.engine)
        for index, frame in enumerate(result.frames):
            assert frame.seat == example.seat and frame.player == example.seat
            kept = state_codec(truth_game(check)).loads(frame.position or "")
            truth = explain.position_before(check.book, check.engine, example,
                                            frame.step + 1 if index else 1)
            observer = observer_of(truth.game)
            assert observer is not None
            if truth.before == (frame.step + 1 if index else 1):
                assert observer.view(kept, example.seat) == observer.view(truth.state, example.seat)
            assert kept.chance.drawn() == [] and kept.chance.unused() == []  # no past, nothing forced
            others = [p for p in example.players if p != example.seat]
            hands = [truth.state.hands[truth.state.players.index(p)] for p in others]
            if any(hands):
                dealt = [kept.hands[kept.players.index(p)] for p in others]
                assert dealt != hands or kept.deck != truth.state.deck


def test_a_public_example_of_a_hidden_game_is_tried_as_everyone_sees_it(checks: dict[str, BookCheck]) -> None:
    check = checks["lantern-moths"]
    example = next(e for e in check.examples if e.seat is None and "refused" not in e.start)
    result = replay(example, check.book, check.engine)
    assert all(frame.seat == PUBLIC and frame.player is None for frame in result.frames)
    kept = state_codec(truth_game(check)).loads(result.frames[0].position or "")
    assert kept.chance.drawn() == []


def test_rulepress_serve_gives_pyodide_the_types_browsers_require() -> None:
    """A browser imports a module script only as JavaScript and compiles WebAssembly as it streams only from
    ``application/wasm``: the preview server says both."""
    from rulepress.serve.server import PreviewServer

    assert PreviewServer._guess_type("assets/vendor/pyodide/pyodide.asm.wasm") == "application/wasm"
    assert "javascript" in PreviewServer._guess_type("assets/vendor/pyodide/pyodide.mjs")
    assert "javascript" in PreviewServer._guess_type("assets/vendor/pyodide/pyodide.asm.mjs")


def test_the_french_site_tries_moves_in_french(checks: dict[str, BookCheck]) -> None:
    """The referee narrates in its site's language, from the engine's own catalog, as explain's words would be."""
    from rulepress.i18n import language

    check = checks["last-lantern"]
    example = _example(check, "ll-first-tile-path")
    result = replay(example, check.book, check.engine)
    config = json.loads(stepper.referee_config([result], check.book, check.engine, strings("fr"), "x", check.proof))
    referee = Referee(config, str(ROOT / "engine"))
    shown = _open(referee, result, 0)
    position = explain.position_before(check.book, check.engine, example, 1)
    with language("fr"):
        french = [explain.words(position.game, position.state, m) for m in position.game.legal_actions(position.state)]
    assert [m["words"] for m in shown["moves"]] == french
    with language("en"):
        assert french != [explain.words(position.game, position.state, m)
                          for m in position.game.legal_actions(position.state)]


def test_a_seat_may_try_only_its_own_moves(checks: dict[str, BookCheck]) -> None:
    """Told from Ann's seat, Ben's move written by hand is refused without being judged: whether the rules allow it
    could tell what Ben holds."""
    check = checks["lantern-moths"]
    result = replay(_example(check, "lm-plant"), check.book, check.engine)
    referee = _referee(check, [result])
    _open(referee, result, 0)
    assert result.frames[0].player == "Ann"
    answer = json.loads(referee.judge("{player: Ben, do: pass}"))
    assert answer == {"ok": False, "message": "this example is told from Ann's seat: only Ann's moves can be tried "
                                              "here"}
    assert json.loads(referee.judge("{player: Ann, do: pass}")).get("message") != answer["message"]


def test_pyodide_is_carried_once_and_only_when_a_book_tries_moves(mini: Path, tmp_path: Path) -> None:
    """The root site carries Pyodide for every book and language; a site where no book lets readers try moves
    carries none of it (nor the referee's files)."""
    from rulepress.publish.build import render_site
    from rulepress.verify.gate import verify

    report = verify(mini, draw=True)
    assert report.ok, report.failures()
    render_site(mini, report, {}, tmp_path / "with")
    carried = tmp_path / "with" / in_browser.PYODIDE
    for name in in_browser.PACKED:  # the interpreter gzipped, which the page unpacks to the vendored file
        assert not (carried / name).exists()
        vendored = (in_browser.pyodide_folder() / name).read_bytes()
        assert gzip.decompress((carried / f"{name}.gz").read_bytes()) == vendored
    lock = json.loads((carried / "pyodide-lock.json").read_text())
    assert lock["packages"] == {} and lock["info"]["python"] == "3.14.2"  # none is carried: none is listed
    # What no reader's browser asks for stays out: the theme's source maps, the search's other languages.
    assert not list((tmp_path / "with").rglob("*.map"))
    lunr = tmp_path / "with" / "assets" / "javascripts" / "lunr"
    assert not lunr.exists() or not list(lunr.rglob("*.js")), "an English site searches with lunr's own English"
    assert (tmp_path / "with" / "mini" / "referee" / "bundle.zip").is_file()
    book = mini / "rules_src" / "mini" / "book.yaml"
    book.write_text(book.read_text() + "try_moves: false\n")
    report = verify(mini, draw=True)
    render_site(mini, report, {}, tmp_path / "without")
    assert (tmp_path / "without" / "mini" / "examples" / "mini-last-stone.html").is_file()
    assert not (tmp_path / "without" / "assets" / "vendor" / "pyodide").exists()
    assert not (tmp_path / "without" / "mini" / "referee").exists()


def test_pyodide_gzipped_is_kept_for_the_user_and_made_again_when_not_sealed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gzipping the interpreter is kept between processes in the user's cache (never a project's), sealed: a kept
    file whose bytes no longer match their seal is made again; with the cache off nothing is kept."""
    from rulepress import usercache

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RULEPRESS_CACHE", "1")  # (the suite runs with the cache off)
    name = in_browser.PACKED[1]  # the smaller: pyodide.asm.mjs
    vendored = (in_browser.pyodide_folder() / name).read_bytes()
    kept_folder = tmp_path / "home" / usercache.FOLDER / in_browser.PACKED_KIND
    in_browser._packed.cache_clear()
    try:
        assert gzip.decompress(in_browser._packed(name)) == vendored
        kept = [path for path in kept_folder.rglob("*") if path.is_file()]
        assert len(kept) == 1
        in_browser._packed.cache_clear()  # a new process reads what was kept, not the vendored file
        gzip_as_built = in_browser.gzipped
        monkeypatch.setattr(in_browser, "gzipped", lambda data: pytest.fail("gzipped again though it was kept"))
        assert gzip.decompress(in_browser._packed(name)) == vendored
        monkeypatch.setattr(in_browser, "gzipped", gzip_as_built)
        blob = kept[0].read_bytes()
        kept[0].write_bytes(blob[:-1] + bytes([blob[-1] ^ 1]))  # damaged: made again, and kept whole again
        in_browser._packed.cache_clear()
        assert gzip.decompress(in_browser._packed(name)) == vendored
        assert kept[0].read_bytes() == blob
        monkeypatch.setenv("RULEPRESS_CACHE", "0")
        kept[0].unlink()
        in_browser._packed.cache_clear()
        assert gzip.decompress(in_browser._packed(name)) == vendored
        assert not [path for path in kept_folder.rglob("*") if path.is_file()]
    finally:
        in_browser._packed.cache_clear()


def test_an_example_refused_at_its_setup_has_no_step_through(mini: Path) -> None:
    """No position, no frames: the page gets no step-through (an empty one showed an image with no text
    alternative, which axe-core reports as critical)."""
    check = load_checked_book(mini, "mini")
    result = replay(check.examples[0], check.book, check.engine)
    result.frames = []
    assert stepper.example_block(result, check.book, strings("en"), "mini/examples/mini-last-stone.md", None,
                                 True, check.proof) == ("", {})


def _seat_told_at_its_end(checks: dict[str, BookCheck]) -> tuple[Referee, dict, Any]:  # type: ignore[type-arg]
    """lm-plant, told from Ann's seat, opened at its last step: Ann has taken her two actions, it is Ben's turn."""
    check = checks["lantern-moths"]
    result = replay(_example(check, "lm-plant"), check.book, check.engine)
    referee = _referee(check, [result])
    return referee, _open(referee, result, len(result.frames) - 1), observer_of(truth_game(check))


def test_the_other_seats_turn_is_said_and_what_was_dealt_again(checks: dict[str, BookCheck]) -> None:
    """Where the example's seat has nothing to do the panel says whose turn it is, and what the build dealt again
    for Ann is said in the book's words; what she sees is never said to be dealt again."""
    _, shown, _ = _seat_told_at_its_end(checks)
    assert shown["ok"] and shown["moves"] == [] and shown["turn"] == "Ben" and shown["player"] == "Ann"
    assert "You cannot see Ben's hand: it is dealt again for this try." in shown["dealt"]
    assert "You cannot see the order of the deck: it is shuffled again for this try." in shown["dealt"]
    assert not any("Ann's" in said for said in shown["dealt"])


def test_taking_the_other_seat_deals_again_only_what_it_cannot_see(checks: dict[str, BookCheck]) -> None:
    referee, _, observer = _seat_told_at_its_end(checks)
    before = referee.line[-1].state
    taken = json.loads(referee.take_seat())
    after = referee.line[-1].state
    assert taken["player"] == "Ben" and taken["turn"] is None and taken["moves"], "Ben's own moves, listed"
    assert taken["line"] == ["You take Ben's seat"] and taken["path"] == "as:Ben" and taken["depth"] == 1
    assert observer.view(after, "Ben") == observer.view(before, "Ben")  # all Ben sees stays as it was
    assert after.hands[before.players.index("Ben")] == before.hands[before.players.index("Ben")]
    assert "You cannot see Ann's hand: it is dealt again for this try." in taken["dealt"]
    assert not any("Ben's" in said for said in taken["dealt"])
    assert diagram.problem(taken["svg"]) is None
    assert json.loads(referee.judge("{player: Ann, do: pass}"))["message"].startswith(
        "this example is told from Ben's seat")  # the seat taken is the one whose moves are tried now
    back = json.loads(referee.back())
    assert back["player"] == "Ann" and back["turn"] == "Ben" and back["ahead"] == 1


def test_the_engine_plays_the_other_seats_by_its_policy(checks: dict[str, BookCheck]) -> None:
    """Ben's turn played by the engine's declared policy (Lantern Moths' greedy), move by move, until Ann's turn."""
    referee, _, _ = _seat_told_at_its_end(checks)
    check = checks["lantern-moths"]
    played = json.loads(referee.auto())
    assert played["ok"] and played["turn"] is None and played["player"] == "Ann" and played["moves"]
    assert played["line"] and all(said.startswith("Ben ") for said in played["line"])
    assert played["path"] == "/".join(["auto"] * len(played["line"]))
    game = referee.game
    assert game is not None
    for before, entry in zip(referee.line, referee.line[1:], strict=False):  # each the policy's choice from its seed
        import random

        chosen = check.engine.policies["greedy"](game, game.clone(before.state),
                                                 random.Random(f"try/{referee.line.index(before) + 1}/Ben"))
        assert entry.said == words(game, before.state, chosen)
    assert json.loads(referee.auto())["ok"] is False  # Ann's turn: nothing for the engine to play


def test_undo_redo_and_a_line_played_again_from_its_link(checks: dict[str, BookCheck]) -> None:
    check = checks["lantern-moths"]
    result = replay(_example(check, "lm-plant"), check.book, check.engine)
    referee = _referee(check, [result])
    _open(referee, result, 0)
    first = json.loads(referee.play(3))
    second = json.loads(referee.play(0))
    assert second["depth"] == 2 and second["line"] == [first["narration"], second["narration"]]
    assert second["path"] == "3/0"
    undone = json.loads(referee.back())
    assert undone["depth"] == 1 and undone["ahead"] == 1 and undone["svg"] == first["svg"]
    redone = json.loads(referee.forward())
    assert redone["svg"] == second["svg"] and redone["ahead"] == 0 and redone["narration"] == second["narration"]
    assert json.loads(referee.go(0))["ahead"] == 2 and json.loads(referee.go(2))["svg"] == second["svg"]
    referee.back()
    other = json.loads(referee.play(1))  # another move: what redo held is gone
    assert other["ahead"] == 0 and other["path"] == "3/1"
    _open(referee, result, len(result.frames) - 1)
    auto = json.loads(referee.auto())
    _open(referee, result, len(result.frames) - 1)
    again = json.loads(referee.follow(auto["path"] + "/0"))  # the same draws: the same position, then Ann's move
    assert again["line"][:-1] == auto["line"] and again["depth"] == len(auto["line"]) + 1
    assert json.loads(referee.follow("as:Ben/99/0"))["path"] == "as:Ben"  # a link holds as far as its line does


def test_help_for_a_badly_written_move_is_in_the_books_own_form(checks: dict[str, BookCheck]) -> None:
    check = checks["lantern-moths"]
    result = replay(_example(check, "lm-plant"), check.book, check.engine)
    referee = _referee(check, [result])
    shown = _open(referee, result, 0)
    answer = json.loads(referee.judge("plant my rose moth"))
    assert answer["message"] == f"a move is written as an example's step, a mapping with 'do', e.g. " \
                                f"'{shown['moves'][0]['step']}'"
    assert shown["moves"][0]["step"].startswith("{player: Ann, do: ")
    assert "mark" not in answer["message"]  # not another game's example


def test_without_the_engines_words_a_part_dealt_again_is_said_by_its_name(checks: dict[str, BookCheck],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine with no ``narrate_dealt_again``: each part whose dealing again changes the position is named."""
    narrate = checks["lantern-moths"].engine.narration
    assert narrate is not None
    monkeypatch.delattr(narrate, "narrate_dealt_again")
    _, shown, _ = _seat_told_at_its_end(checks)
    assert "You cannot see hands: it is dealt again for this try." in shown["dealt"]
    assert not any("draws" in said for said in shown["dealt"])  # the seed of draws to come shows in no position


def test_an_engine_with_no_policy_plays_the_other_seats_at_random(checks: dict[str, BookCheck]) -> None:
    from types import SimpleNamespace

    referee, _, _ = _seat_told_at_its_end(checks)
    referee.engine = SimpleNamespace(default_policy=None, policies={})  # type: ignore[assignment]
    played = json.loads(referee.auto())
    assert played["ok"] and played["line"] and played["turn"] is None
    assert json.loads(referee.follow(played["path"]))["line"] == played["line"]  # the same seeds, the same moves


@pytest.mark.parametrize(("book", "example"), [("lantern-moths", "lm-plant"), ("last-lantern", "ll-first-tile-path"),
                                               ("lantern", "ln-critical-strike")])
def test_each_move_names_the_places_of_the_board_it_uses(checks: dict[str, BookCheck], book: str,
                                                         example: str) -> None:
    """The base class maps each place of the drawing to the moves that use it: the referee gives each move its
    places and where the diagram draws them, inside its canvas, so that a click on the board picks the move."""
    check = checks[book]
    result = replay(_example(check, example), check.book, check.engine)
    referee = _referee(check, [result])
    shown = _open(referee, result, 0)
    width, height = (float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', shown["svg"]).groups())
    placed = [move for move in shown["moves"] if move.get("places")]
    assert placed, f"{book}: no move names a place of the board"
    for place, (x, y, w, h) in shown["places"].items():
        assert 0 <= x and x + w <= width and 0 <= y and y + h <= height, place
    game, state = referee.game, referee.line[-1].state
    legal = referee._legal(game, state)
    places = game.drawn_places(state, referee.seat)
    for move, action in zip(shown["moves"], legal, strict=False):
        assert set(move.get("places", [])) == set(game.action_places(state, action, places)) & set(places)


def test_a_card_and_its_tile_pick_one_move(checks: dict[str, BookCheck]) -> None:
    check = checks["lantern-moths"]
    result = replay(_example(check, "lm-plant"), check.book, check.engine)
    referee = _referee(check, [result])
    shown = _open(referee, result, 0)
    [chosen] = [m for m in shown["moves"] if {"hands.Ann.rose-2", "garden.b2"} <= set(m.get("places", []))]
    assert chosen["words"] == "Ann plants a rose moth worth 2 on the rose tile at b2"
    assert len([m for m in shown["moves"] if "garden.b2" in m.get("places", [])]) > 1  # the tile alone is not enough


def test_a_move_the_engine_cannot_read_is_helped_in_the_books_words(checks: dict[str, BookCheck]) -> None:
    """An unknown card: the one meant, with the rulebook's name for it, and a move of the same kind legal here."""
    check = checks["lantern-moths"]
    result = replay(_example(check, "lm-plant"), check.book, check.engine)
    referee = _referee(check, [result])
    shown = _open(referee, result, 0)
    answer = json.loads(referee.judge("{player: Ann, do: plant, card: rose-9, tile: b2}"))
    assert "did you mean rose-3 (a rose moth worth 3)?" in answer["message"]
    planted = next(m["step"] for m in shown["moves"] if "do: plant" in m["step"])
    assert answer["message"].endswith(f"(a move here is written like '{planted}')")
    assert "jade-2" not in answer["message"]  # not every card of the deck by its engine ID


def test_a_public_example_says_what_no_one_sees_is_dealt_again(checks: dict[str, BookCheck]) -> None:
    """Told from no seat (the page gives no seat), what nobody sees was dealt again by the build: said so."""
    check = checks["last-lantern"]
    result = replay(_example(check, "ll-first-tile-path"), check.book, check.engine)
    referee = _referee(check, [result])
    kept = in_browser.positions(result)
    shown = json.loads(referee.open(json.dumps({"options": kept["options"], "position": kept["positions"][0],
                                                "player": None, "seat": None})))
    assert shown["dealt"] == ["You cannot see the order of the tile bag: it is shuffled again for this try."]

