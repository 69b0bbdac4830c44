"""rulepress as a designer gets it: the wheel built from this checkout, installed (not editable) into a fresh
virtual environment outside the repository, then used in an empty folder: ``rulepress new my-game --template
cards``, ``verify``, ``build``, ``preflight`` and ``pytest``, which collects the new book's examples through the
installed plugin; then ``rulepress new --from kuhn-poker`` and ``verify`` (the samples ship in the wheel).

Only rulepress comes from the wheel.  Its dependencies are the ones this test runs with, linked into the new
environment's site-packages one entry at a time (rulepress's own left out), so the test needs no network and no
download; ``nox -s installed`` does the same with the dependencies installed from the index.  The new
environment's ``sys.path`` is its own: nothing of the repository is on it, and ``import rulepress`` finds the
wheel's files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from .conftest import ROOT

SOURCES = ("pyproject.toml", "README.md", "rulepress")


def build_wheel(work: Path) -> Path:
    """The wheel of this checkout, built from a copy (setuptools writes build/ and egg-info beside the sources),
    with the setuptools this environment has (no build isolation: nothing is downloaded)."""
    source = work / "source"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--wheel-dir", str(work / "dist"), str(source)], check=True, cwd=work,
                   capture_output=True)
    [wheel] = (work / "dist").glob("rulepress-*.whl")
    return wheel


def fresh_environment(work: Path, wheel: Path) -> Path:
    """A new virtual environment holding the wheel, and this environment's other packages by link."""
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    target = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                 check=True, capture_output=True, text=True).stdout.strip())
    for folder in {Path(sysconfig.get_paths()["purelib"]), Path(sysconfig.get_paths()["platlib"])}:
        for entry in folder.iterdir():
            lowered = entry.name.lower()
            # rulepress's own (the editable install and its metadata) and .pth hooks stay out: the wheel is it.
            if "rulepress" in lowered or entry.suffix == ".pth" or (target / entry.name).exists():
                continue
            (target / entry.name).symlink_to(entry)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True)
    return venv


def test_a_new_user_makes_builds_and_tests_a_book(tmp_path_factory: pytest.TempPathFactory) -> None:
    work = tmp_path_factory.mktemp("installed")
    timings: dict[str, float] = {}
    start = time.perf_counter()
    venv = fresh_environment(work, build_wheel(work))
    timings["wheel and environment"] = time.perf_counter() - start
    bin_folder = venv / "bin"
    env = {name: value for name, value in os.environ.items()
           if name not in ("PYTHONPATH", "RULEPRESS_ROOT", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = f"{bin_folder}{os.pathsep}{env.get('PATH', '')}"
    folder = work / "my-game"
    folder.mkdir()

    def run(*command: str) -> str:
        begun = time.perf_counter()
        done = subprocess.run(list(command), cwd=folder, env=env, capture_output=True, text=True, timeout=300)
        timings[" ".join(Path(part).name for part in command[:2])] = time.perf_counter() - begun
        assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    where = run(str(bin_folder / "python"), "-c", "import json, sys, rulepress; "
                "print(json.dumps([rulepress.__file__, sys.path]))")
    import json

    module, path = json.loads(where)
    assert Path(module).is_relative_to(venv)  # the wheel's rulepress, not this checkout's
    assert not [entry for entry in path if entry and Path(entry).resolve().is_relative_to(ROOT.resolve())], path
    assert shutil.which("rulepress", path=str(bin_folder)) == str(bin_folder / "rulepress")

    out = run("rulepress", "new", "my-game", "--template", "cards")  # the templates are package data
    assert "wrote rulepress.yaml" in out and "wrote README.md" in out
    assert "rulepress guide engine" in (folder / "README.md").read_text()
    out = run("rulepress", "verify")
    assert out.rstrip().endswith("2 passed, 0 failed")
    out = run("rulepress", "build")
    pdfs = sorted(path.name for path in (folder / "site" / "pdf").glob("*.pdf"))
    assert pdfs == ["my-game-designer.pdf", "my-game-digital.pdf", "my-game.pdf"], out
    assert (folder / "site" / "my-game" / "index.html").is_file()
    assert (folder / "site" / "assets" / "vendor" / "iframe-worker" / "shim.js").is_file()  # package data
    out = run("rulepress", "preflight")
    assert [line.split()[0] for line in out.splitlines()] == ["ok"] * 3, out
    out = run(str(bin_folder / "python"), "-m", "pytest", "-p", "no:cacheprovider", "-v")
    assert "examples/my-game/my-game-showdown.yaml::my-game-showdown PASSED" in out, out
    assert "examples/my-game/my-game-two-players.yaml::my-game-two-players PASSED" in out, out
    assert "rules_src/my-game/book.yaml::my-game PASSED" in out, out
    assert " 3 passed" in out, out
    out = run("rulepress", "new", "--from", "kuhn-poker")  # the samples too
    assert "wrote examples/kuhn-poker/kp-check-then-call.yaml" in out
    assert run("rulepress", "verify").rstrip().endswith("6 passed, 0 failed")
    print("new user's sequence:", ", ".join(f"{step} {seconds:.1f} s" for step, seconds in timings.items()))
