"""Finding the project as git finds a repository: from any subfolder, up to ``rulepress.yaml``; ``--root`` for working
from outside; an explicit ``--root`` beats ``$RULEPRESS_ROOT``; a bad value of either is one line naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulepress.cli import main

from .conftest import make_project


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("RULEPRESS_ROOT", raising=False)
    return make_project(tmp_path / "game")


@pytest.mark.parametrize("where", [".", "rules_src/mini/chapters", "engine/mini", "examples/mini", "site/pdf"])
def test_every_command_works_from_any_subfolder(project: Path, where: str, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (project / where).mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(project / where)
    code, out, _ = run(capsys, "verify")
    assert code == 0 and out.rstrip().endswith("1 passed, 0 failed"), out
    code, out, _ = run(capsys, "rules", "mini")
    assert code == 0 and "mini.play.take" in out


def test_the_nearest_project_wins(project: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    inner = project / "drafts" / "second"
    inner.mkdir(parents=True)
    monkeypatch.chdir(inner)
    assert run(capsys, "new", "side-game")[0] == 0  # no project in drafts/second: the enclosing one gets the book
    assert (project / "rules_src/side-game/book.yaml").is_file() and not (inner / "rulepress.yaml").exists()
    monkeypatch.chdir(project / "rules_src")
    code, out, _ = run(capsys, "verify")
    assert code == 0 and out.rstrip().endswith("3 passed, 0 failed"), out


def test_outside_a_project_the_message_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("RULEPRESS_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "verify")
    assert (code, out) == (1, "")
    assert err == (f"rulepress: no rulepress project (a folder holding rulepress.yaml) at or above {tmp_path.resolve()}"
                   ": run 'rulepress new BOOK' to start one, or name one with --root\n")


def test_root_names_a_project_from_outside(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "--root", str(project), "verify")
    assert code == 0 and out.rstrip().endswith("1 passed, 0 failed")


def test_an_explicit_root_beats_the_environment(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    other = make_project(tmp_path / "other")
    example = other / "examples/mini/mini-last-stone.yaml"
    example.write_text(example.read_text().replace("winner: Ben", "winner: Ann"))  # `other` fails its verify
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RULEPRESS_ROOT", str(other))
    assert run(capsys, "verify")[0] == 1  # the variable, when nothing else says
    assert run(capsys, "--root", str(project), "verify")[0] == 0  # --root, over the variable
    monkeypatch.chdir(project / "rules_src")
    assert run(capsys, "verify")[0] == 1  # the variable, over the folder the command runs in


@pytest.mark.parametrize(("value", "said"), [
    ("@missing", "no such folder (unset RULEPRESS_ROOT or point it at a project's root folder)"),
    ("@file", "not a folder (unset RULEPRESS_ROOT or point it at a project's root folder)"),
    ("@empty", "not a rulepress project (no rulepress.yaml or rules_src/ in it; unset RULEPRESS_ROOT or point it "
               "at a project's root folder)"),
])
def test_a_bad_rulepress_root_is_one_line_naming_it(project: Path, tmp_path: Path, value: str, said: str,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    places = {"@missing": tmp_path / "nowhere", "@file": tmp_path / "a-file", "@empty": tmp_path / "empty"}
    places["@file"].write_text("")
    places["@empty"].mkdir()
    monkeypatch.setenv("RULEPRESS_ROOT", str(places[value]))
    monkeypatch.chdir(project)  # inside a project: the variable is still what was asked for, and it is wrong
    for command in (["verify"], ["build"], ["new", "other-game"]):
        code, out, err = run(capsys, *command)
        assert (code, out, err) == (1, "", f"rulepress: RULEPRESS_ROOT={places[value]}: {said}\n"), command
    assert not (project / "rules_src/other-game").exists()


def test_a_bad_root_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--root", str(tmp_path / "nowhere"), "verify")
    assert (code, out) == (1, "")
    assert err == f"rulepress: --root {tmp_path / 'nowhere'}: no such folder (name a project's root folder)\n"
