"""``rulepress new BOOK``: a skeleton book that passes ``rulepress verify`` at once, and never overwrites."""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from rulepress.cli import main
from rulepress.guides import GUIDES, guide_text
from rulepress.publish.build import build
from rulepress.scaffold import SAMPLES, TEMPLATES, ScaffoldError, names_for, sample_files, skeleton
from rulepress.verify.engines import load_engine
from rulepress.verify.gate import verify

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "tic-tac-toe"
SKELETON = ["rules_src/moth-race/book.yaml", "rules_src/moth-race/chapters/play.md",
            "rules_src/moth-race/components.yaml", "rules_src/moth-race/prose_only.yaml",
            "rules_src/moth-race/provenance.yaml",
            "engine/moth_race/__init__.py", "engine/moth_race/game.py",
            "examples/moth-race/moth-race-first-race.yaml", "examples/moth-race/moth-race-two-players.yaml"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_new_then_verify_in_an_existing_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = shutil.copytree(SAMPLE, tmp_path / "project")
    code, out, _ = run(capsys, "--root", str(project), "new", "moth-race")
    assert code == 0
    assert out.splitlines()[:-1] == [f"wrote {path}" for path in SKELETON]
    code, out, _ = run(capsys, "--root", str(project), "verify")
    assert code == 0, out
    assert "ok   moth-race/moth-race-first-race" in out and "ok   moth-race/moth-race-two-players" in out
    assert out.rstrip().endswith("5 passed, 0 failed")  # the sample's three examples still pass too
    report = verify(project, ["moth-race"], draw=True)
    [check] = report.books
    assert check.trace is not None and check.trace.unexercised() == []  # every rule shown by an example
    assert check.results[-1].checkpoints["end"].svg.startswith("<svg")


def test_new_starts_a_project_in_an_empty_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--root", str(tmp_path), "new", "first-game", "--title", "First: a game")
    assert code == 0
    assert out.splitlines()[:3] == ["wrote rulepress.yaml", "wrote README.md", "wrote .gitignore"]
    readme = (tmp_path / "README.md").read_text()
    assert readme.startswith("# First: a game\n")
    for name in GUIDES:  # the guides it names are the ones the installed rulepress prints
        assert f"`rulepress guide {name}`" in readme
    assert "docs/" not in readme and "docs/" not in out
    assert "title: \"First: a game\"\n" in (tmp_path / "rules_src/first-game/book.yaml").read_text()
    assert "rule_prefix: fg\n" in (tmp_path / "rules_src/first-game/book.yaml").read_text()
    code, out, _ = run(capsys, "--root", str(tmp_path), "verify")
    assert code == 0, out
    assert out.rstrip().endswith("2 passed, 0 failed")


def test_the_skeleton_example_fails_when_the_rules_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "--root", str(tmp_path), "new", "first-game")
    components = tmp_path / "rules_src/first-game/components.yaml"
    components.write_text(components.read_text().replace("most: 2", "most: 3"))
    code, out, _ = run(capsys, "--root", str(tmp_path), "verify")
    assert code == 1
    assert ("     first-game-first-race (examples/first-game/first-game-first-race.yaml): step 1 (line 8) "
            "checkpoint 'before': legal_actions expected 2, got 3 [illustrates rule 1.2, fg.play.add, rule 1.3, "
            "fg.play.win]\n") in out


@pytest.mark.parametrize("template", TEMPLATES)
def test_each_template_verifies_at_once(template: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--root", str(tmp_path), "new", "first-game", "--template", template)
    assert code == 0 and f"replace the {template} skeleton with your game" in out
    code, out, _ = run(capsys, "--root", str(tmp_path), "verify")
    assert code == 0, out
    assert out.rstrip().endswith("2 passed, 0 failed")  # one example played, one setup refused
    [check] = verify(tmp_path, ["first-game"], draw=True).books
    assert check.trace is not None and check.trace.unexercised() == []  # every rule shown by an example
    # The templates' engines are .py-tpl files the repository's ruff never reads: the written engine is held to it.
    ruff = Path(sys.executable).parent / "ruff"
    if ruff.is_file():
        done = subprocess.run([str(ruff), "check", "--isolated", "--line-length", "120", "--target-version", "py311",
                               "--select", "E,F,W,I,UP,B", str(tmp_path / "engine")], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout


def test_the_default_template_is_the_race(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "--root", str(tmp_path / "a"), "new", "first-game")
    run(capsys, "--root", str(tmp_path / "b"), "new", "first-game", "--template", "race")
    assert _every_file(tmp_path / "a") == _every_file(tmp_path / "b")


def test_the_dice_template_rolls_through_chance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The die is drawn through the state's Chance: the example's forced outcome decides the game (a 3 instead of
    Ben's 6 leaves him short of the target), and the engine declares its chance."""
    run(capsys, "--root", str(tmp_path), "new", "dice-race", "--template", "dice")
    assert load_engine("dice_race", tmp_path).chance_mode.value == "explicit_stochastic"
    example = tmp_path / "examples/dice-race/dice-race-first-race.yaml"
    assert "  - chance: [6]\n" in example.read_text()
    example.write_text(example.read_text().replace("  - chance: [6]\n", "  - chance: [3]\n"))
    code, out, _ = run(capsys, "--root", str(tmp_path), "verify")
    assert code == 1
    assert "checkpoint 'end': scores expected {'Ann': 9, 'Ben': 11}, got {'Ann': 9, 'Ben': 8}" in out


def test_the_cards_template_hides_each_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hidden hand: the engine has an observer, the deal is forced, and the example's ``views`` checkpoint is
    checked (Ben told Ann's card fails)."""
    run(capsys, "--root", str(tmp_path), "new", "high-card", "--template", "cards")
    spec = load_engine("high_card", tmp_path)
    assert spec.information.value == "imperfect_information"
    assert spec.make_game({"deck": {"size": 5}}).observer is not None
    example = tmp_path / "examples/high-card/high-card-showdown.yaml"
    text = example.read_text()
    assert "  chance: [4, 2]" in text and "      views.Ben.cards: {Ann: hidden, Ben: 2}\n" in text
    example.write_text(text.replace("views.Ben.cards: {Ann: hidden, Ben: 2}", "views.Ben.cards: {Ann: 4, Ben: 2}"))
    code, out, _ = run(capsys, "--root", str(tmp_path), "verify")
    assert code == 1
    assert ("checkpoint 'dealt': views.Ben.cards expected {'Ann': 4, 'Ben': 2}, got {'Ann': 'hidden', 'Ben': 2} "
            "(at 'Ann': expected 4, got 'hidden')") in out


@pytest.mark.parametrize("sample", SAMPLES)
def test_new_from_a_sample_copies_it_and_verifies(sample: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``--from`` copies a shipped sample under its own ID: in a new folder the whole project, as the repository's
    samples/ holds it (the one copy: rulepress/samples links to it)."""
    code, out, _ = run(capsys, "--root", str(tmp_path), "new", "--from", sample)
    assert code == 0, out
    assert out.splitlines()[:3] == ["wrote rulepress.yaml", "wrote README.md", "wrote .gitignore"]
    source = SAMPLE.parent / sample
    for path in [*source.glob("rules_src/**/*.*"), *source.glob("engine/*/*.py"), *source.glob("examples/**/*.yaml"),
                 source / "README.md"]:
        assert (tmp_path / path.relative_to(source)).read_text() == path.read_text()
    assert "samples/" not in (tmp_path / "README.md").read_text().split("```sh")[1]  # its commands run here
    code, out, _ = run(capsys, "--root", str(tmp_path), "verify")
    assert code == 0 and out.rstrip().endswith(f"{len(list(source.glob('examples/*/*.yaml')))} passed, 0 failed")


def test_new_from_a_sample_keeps_a_readme_already_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "README.md").write_text("# Mine\n")
    code, out, _ = run(capsys, "--root", str(tmp_path), "new", "--from", "tic-tac-toe")
    assert code == 0 and "wrote README.md" not in out and (tmp_path / "README.md").read_text() == "# Mine\n"


def test_new_from_a_sample_adds_its_book_to_a_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "--root", str(tmp_path), "new", "first-game")
    readme = (tmp_path / "README.md").read_text()
    code, out, _ = run(capsys, "--root", str(tmp_path), "new", "--from", "kuhn-poker")
    assert code == 0 and "wrote README.md" not in out and (tmp_path / "README.md").read_text() == readme
    code, out, _ = run(capsys, "--root", str(tmp_path), "verify")
    assert code == 0 and out.rstrip().endswith("6 passed, 0 failed")
    code, _, err = run(capsys, "--root", str(tmp_path), "new", "--from", "kuhn-poker")
    assert code == 1 and err == ("rulepress new: rules_src/kuhn-poker already exists: choose another book ID "
                                 "(nothing was written)\n")


@pytest.mark.parametrize(("args", "message"), [
    (["new", "x", "--template", "poker"], "argument --template: invalid choice: 'poker' (choose from 'race', "
                                          "'dice', 'cards')"),
    (["new", "--from", "chess"], "argument --from: invalid choice: 'chess' (choose from 'kuhn-poker', "
                                 "'tic-tac-toe')"),
])
def test_an_unknown_template_or_sample_lists_the_choices(args: list[str], message: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--root", str(tmp_path / "project"), *args])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "project").exists()
    with pytest.raises(ScaffoldError, match=r"no template 'poker' \(templates: race, dice, cards\)"):
        skeleton(names_for("x"), "poker")
    with pytest.raises(ScaffoldError, match=r"no sample 'chess' \(samples: kuhn-poker, tic-tac-toe\)"):
        sample_files("chess", new_project=True)


@pytest.mark.parametrize("args", [["new", "other", "--from", "kuhn-poker"], ["new", "--from", "kuhn-poker",
                                                                            "--prefix", "k"],
                                  ["new", "--from", "tic-tac-toe", "--template", "dice"],
                                  ["new", "--from", "tic-tac-toe", "--title", "Noughts"], ["new"]])
def test_new_says_what_goes_with_what(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--root", str(tmp_path), *args)
    assert code == 2 and err.startswith("rulepress new: ") and "--from" in err
    assert list(tmp_path.iterdir()) == []


def test_the_templates_and_samples_are_package_data() -> None:
    """What ``new`` reads it reads through importlib.resources, as from the wheel; and every such file matches
    the package data pyproject.toml declares (the wheel holds it: tests/test_installed.py builds one)."""
    shipped = resources.files("rulepress")
    assert sorted(entry.name for entry in (shipped / "templates").iterdir()) == sorted(TEMPLATES)
    assert SAMPLES == ("kuhn-poker", "tic-tac-toe")
    declared = tomllib.loads((SAMPLE.parent.parent / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["rulepress"]
    paths = [f"templates/{template}/{path}" for template in TEMPLATES
             for path in _files_under(shipped / "templates" / template)]
    for sample in SAMPLES:
        _, files = sample_files(sample, new_project=True)
        paths += [f"samples/{sample}/{path}" for path in files]
    assert paths and [path for path in paths if not any(fnmatch.fnmatch(path, glob) for glob in declared)] == []


def _files_under(folder: resources.abc.Traversable, under: str = "") -> list[str]:
    found = []
    for entry in folder.iterdir():
        if entry.is_dir():
            found += _files_under(entry, f"{under}{entry.name}/")
        else:
            found.append(f"{under}{entry.name}")
    return found


def _every_file(folder: Path) -> dict[str, str]:
    return {path.relative_to(folder).as_posix(): path.read_text() for path in folder.rglob("*") if path.is_file()}


def test_new_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = shutil.copytree(SAMPLE, tmp_path / "project")
    code, _, err = run(capsys, "--root", str(project), "new", "tic-tac-toe")
    assert code == 1
    assert err == "rulepress new: rules_src/tic-tac-toe already exists: choose another book ID (nothing was written)\n"
    code, _, err = run(capsys, "--root", str(project), "new", "tick-tock-toe")  # initials: ttt, the sample's
    assert code == 1
    assert err == ("rulepress new: rule prefix 'ttt' is already used by rules_src/tic-tac-toe/book.yaml: choose "
                   "another with --prefix (nothing was written)\n")
    assert not (project / "rules_src/tick-tock-toe").exists() and not (project / "engine/tick_tock_toe").exists()
    assert run(capsys, "--root", str(project), "new", "tick-tock-toe", "--prefix", "tick")[0] == 0


def _every_path(folder: Path) -> set[str]:
    return {path.relative_to(folder).as_posix() for path in folder.rglob("*")}


@pytest.mark.parametrize("way", ["engine-linked-out", "rules-src-linked-out", "examples-a-file", "book-folder-a-fifo",
                                 "engine-package-dangling", "a-loop"])
def test_new_checks_every_way_before_it_writes_and_leaves_nothing_behind(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], way: str) -> None:
    """Issue 28: with ``engine/`` a symlink to another folder, ``rulepress new`` wrote there; with ``examples`` a
    file it left a partial skeleton.  Now every way down is checked first, and nothing is written."""
    import os

    project = shutil.copytree(SAMPLE, tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if way == "engine-linked-out":
        shutil.move(str(project / "engine"), str(elsewhere / "engine"))
        (project / "engine").symlink_to(elsewhere / "engine")
    elif way == "rules-src-linked-out":
        shutil.move(str(project / "rules_src"), str(elsewhere / "rules_src"))
        (project / "rules_src").symlink_to(elsewhere / "rules_src")
    elif way == "examples-a-file":
        shutil.rmtree(project / "examples")
        (project / "examples").write_text("not a folder\n")
    elif way == "book-folder-a-fifo":
        os.mkfifo(project / "examples" / "moth-race")
    elif way == "engine-package-dangling":
        (project / "engine" / "moth_race").symlink_to(tmp_path / "gone")
    else:
        (project / "examples" / "loop").symlink_to(project / "examples" / "loop")
        (project / "rules_src" / "moth-race").symlink_to(project / "examples" / "loop")
    before, outside = _every_path(project), _every_path(elsewhere)
    code, out, err = run(capsys, "--root", str(project), "new", "moth-race")
    assert code == 1 and out == "" and err.startswith("rulepress new: ") and err.endswith("(nothing was written)\n")
    assert "Traceback" not in err
    assert _every_path(project) == before and _every_path(elsewhere) == outside


def test_new_removes_what_it_wrote_when_a_write_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A full disk half way through: what was written is removed again, folders too."""
    import os

    from rulepress import scaffold

    project = shutil.copytree(SAMPLE, tmp_path / "project")
    before = _every_path(project)
    real, calls = os.open, []

    def full_disk(path: object, flags: int, *args: object, **kwargs: object) -> int:
        if flags & os.O_CREAT and str(path).startswith(str(project)):
            calls.append(path)
            if len(calls) == 5:
                raise OSError(28, "No space left on device", str(path))
        return real(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(scaffold.os, "open", full_disk)
    code, _, err = run(capsys, "--root", str(project), "new", "moth-race")
    assert code == 1 and "No space left on device (nothing was written)" in err
    assert _every_path(project) == before


@pytest.mark.parametrize(("book", "prefix", "message"), [
    ("Tic_Tac", None, "'Tic_Tac' cannot be a book ID: use lower case letters, digits and '-', starting with a "
                      "letter (e.g. tic-tac-toe)"),
    ("9lives", None, "'9lives' cannot be a book ID: use lower case letters, digits and '-', starting with a "
                     "letter (e.g. tic-tac-toe)"),
    ("moth-race", "m2", "'m2' cannot be a rule prefix: use lower case letters only (--prefix)"),
])
def test_bad_names(book: str, prefix: str | None, message: str) -> None:
    with pytest.raises(ScaffoldError) as error:
        names_for(book, prefix)
    assert str(error.value) == message


def test_new_in_an_empty_folder_without_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("RULEPRESS_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "new", "my-game")[0] == 0
    assert (tmp_path / "rulepress.yaml").is_file() and (tmp_path / "rules_src/my-game/book.yaml").is_file()
    code, out, _ = run(capsys, "verify")
    assert code == 0 and out.rstrip().endswith("2 passed, 0 failed")


def test_a_second_book_builds_beside_the_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Inside a project (from a subfolder), `new` adds a book, and what it wrote builds at once: both books' site
    and their three PDFs each, preflighted by the build, and the project's own files left as they were."""
    project = shutil.copytree(SAMPLE, tmp_path / "project")
    readme = (project / "README.md").read_text()
    monkeypatch.delenv("RULEPRESS_ROOT", raising=False)
    monkeypatch.chdir(project / "engine")
    code, out, _ = run(capsys, "new", "moth-race")
    assert code == 0 and out.splitlines()[:-1] == [f"wrote {path}" for path in SKELETON]  # no second README
    assert (project / "README.md").read_text() == readme
    build(project)
    pdfs = sorted(path.name for path in (project / "site" / "pdf").glob("*.pdf"))
    assert pdfs == ["moth-race-designer.pdf", "moth-race-digital.pdf", "moth-race.pdf", "tic-tac-toe-designer.pdf",
                    "tic-tac-toe-digital.pdf", "tic-tac-toe.pdf"]
    assert (project / "site" / "moth-race" / "examples" / "moth-race-first-race.html").is_file()
    assert (project / "site" / "tic-tac-toe" / "index.html").is_file()


def test_the_sample_builds_its_site_and_pdfs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """samples/tic-tac-toe, as it is in the repository, through the command line a designer uses."""
    project = shutil.copytree(SAMPLE, tmp_path / "tic-tac-toe", ignore=shutil.ignore_patterns("site", ".rulepress-*"))
    code, out, err = run(capsys, "--root", str(project), "build")
    assert code == 0, err
    assert sorted(path.name for path in (project / "site" / "pdf").glob("*.pdf")) == [
        "tic-tac-toe-designer.pdf", "tic-tac-toe-digital.pdf", "tic-tac-toe.pdf"]
    home = (project / "site" / "tic-tac-toe" / "index.html").read_text()
    assert "Tic-tac-toe" in home and "assets/rulepress.css" in home
    code, out, _ = run(capsys, "--root", str(project), "preflight")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == ["ok"] * 3


@pytest.mark.parametrize("name", sorted(GUIDES))
def test_guide_prints_the_guide_shipped_with_rulepress(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "guide", name)
    assert code == 0 and out == guide_text(name) and out.startswith("# ") and len(out) > 2000
    # One source: the repository's docs/ page points at the packaged guide rather than keeping a copy.
    pointer = (SAMPLE.parent.parent / "docs" / f"{name.upper()}.md").read_text()
    assert f"`rulepress guide {name}`" in pointer and f"rulepress/guides/{name}.md" in pointer
    assert len(pointer) < 400


@pytest.mark.parametrize("name", sorted(GUIDES))
def test_a_guide_names_only_what_an_installed_user_has(name: str) -> None:
    """Issue 29: the engine guide sent a user of the wheel to samples/ and docs/, which it lacks.  A guide points
    at other guides (`rulepress guide NAME`) and at `rulepress new --from`; the repository's own tests it cites
    say whose they are."""
    import re

    text = re.sub(r"\s+", " ", guide_text(name))  # "rulepress's own" may end a line, its `tests/...` begin the next
    assert re.findall(r"(?<![\w/])(?:docs|samples)/", text) == []
    assert re.findall(r"(?<!rulepress's own `)(?<![\w/])tests/", text) == []


def test_guide_names_what_there_is(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["guide", "engines"])
    assert exit_.value.code == 2
    assert "invalid choice: 'engines' (choose from 'engine', 'formats', 'analysis', 'translations')" in \
        capsys.readouterr().err
