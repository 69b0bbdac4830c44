"""``rulepress new BOOK``: a skeleton book that passes ``rulepress verify`` at once, and never overwrites."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rulepress.cli import main
from rulepress.guides import GUIDES, guide_text
from rulepress.publish.build import build
from rulepress.scaffold import ScaffoldError, names_for
from rulepress.verify.gate import verify

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "tic-tac-toe"
SKELETON = ["rules_src/moth-race/book.yaml", "rules_src/moth-race/components.yaml",
            "rules_src/moth-race/chapters/play.md", "rules_src/moth-race/prose_only.yaml",
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


def test_guide_names_what_there_is(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["guide", "engines"])
    assert exit_.value.code == 2
    assert "invalid choice: 'engines' (choose from 'engine', 'formats', 'analysis', 'translations')" in \
        capsys.readouterr().err
