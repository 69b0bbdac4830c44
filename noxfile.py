"""Tasks: `nox -s build` (verify, then site and PDFs), `nox -s tests`, `nox -s bench`, `nox -s lint`, and more.

Every session installs with ``-c constraints.txt``: the exact versions CI tests (pyproject.toml gives users ranges)."""

from __future__ import annotations

import ctypes.util
import os
import shutil
import tempfile
from pathlib import Path

import nox

nox.options.sessions = ["build"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"

# WeasyPrint draws text with Pango and subsets fonts with HarfBuzz: the system libraries the project needs.
SYSTEM_PACKAGES = [
    "libpango-1.0-0", "libpangoft2-1.0-0", "libharfbuzz0b", "libharfbuzz-subset0", "libfontconfig1",
]
LIBRARIES = ["pango-1.0", "pangoft2-1.0", "harfbuzz-subset", "fontconfig"]
PINS = ("-c", "constraints.txt")  # the exact versions CI tests


def system_packages(session: nox.Session, browser: bool = False) -> None:
    """Install what pip cannot: Pango for WeasyPrint and, for the site tests, Debian's Chromium."""
    missing = [] if all(ctypes.util.find_library(name) for name in LIBRARIES) else list(SYSTEM_PACKAGES)
    if browser and not shutil.which("chromium"):
        missing.append("chromium")
    if not missing:
        return
    if not shutil.which("apt-get"):
        session.error(f"install {' '.join(missing)} with your package manager")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = {"DEBIAN_FRONTEND": "noninteractive"}
    session.run(*sudo, "apt-get", "update", "-qq", external=True, env=env)
    session.run(*sudo, "apt-get", "install", "-y", "-qq", *missing, external=True, env=env)


@nox.session
def build(session: nox.Session) -> None:
    """Verify every book, then build site/ and every PDF (published atomically)."""
    system_packages(session)
    session.install(*PINS, "-e", ".")
    session.run("rulepress", "build", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """Example replays, engine properties, loaders, the build gate, the PDFs and the site in a browser."""
    system_packages(session, browser=True)
    session.install(*PINS, "-e", ".[test,openspiel]")
    session.run("ruff", "check", "rulepress", "engine", "tests", "noxfile.py", "benchmarks", "samples", "tools")
    # Both cores; the modules that read the one full build of the bundled books run last and share that one build
    # between the workers (tests/conftest.py, real_site).  Each module runs on one worker: its module-scoped
    # fixtures (a browser, a build, an analysis) are made once, not once on each worker.
    session.run("pytest", "-n", "auto", "--dist", "loadfile", *session.posargs)


@nox.session
def browser(session: nox.Session) -> None:
    """The site's step-through and the in-browser engine in Chromium for every book: each stepped through to its end,
    frame by frame against the replay, and a legal and an illegal move tried in each (tests/test_site_stepper.py; the
    main suite runs one book's)."""
    system_packages(session, browser=True)
    session.install(*PINS, "-e", ".[test]")
    session.run("pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "tests/test_site_stepper.py", *session.posargs,
                env={"RULEPRESS_BROWSER_CAMPAIGN": "1"})


@nox.session
def killed(session: nox.Session) -> None:
    """Kill 200 builds at random moments (SIGKILL/SIGTERM/SIGINT): site/ is always a complete good build.

    ``RULEPRESS_KILL_CAMPAIGN`` sets the number of kills, ``RULEPRESS_KILL_SEED`` replays a campaign.
    """
    system_packages(session)
    session.install(*PINS, "-e", ".[test]")
    kills = os.environ.get("RULEPRESS_KILL_CAMPAIGN", "200")
    session.run("pytest", "-q", "-s", "-p", "no:cacheprovider", "tests/test_killed_builds.py", *session.posargs,
                env={"RULEPRESS_KILL_CAMPAIGN": kills})


# The reference the engines' speed goals are measured against (benchmarks/against_openspiel.py): OpenSpiel's Python
# tic-tac-toe, from its wheel; and the players of `analyze --players` (rulepress/openspiel/, the extra).
OPENSPIEL = ".[openspiel]"


@nox.session
def competent(session: nox.Session) -> None:
    """OpenSpiel through the adapter at length (tests/test_openspiel.py's long campaign): MCTS against MCTS on
    tic-tac-toe over 200 games (at least 95% draws), CFR on Kuhn poker to 1,000 iterations, and OpenSpiel's random
    simulation with serialisation at every player count of every book (the main suite plays a small sample)."""
    session.install(*PINS, "-e", ".[test,openspiel]")
    session.run("pytest", "-q", "-p", "no:cacheprovider", "tests/test_openspiel.py", *session.posargs,
                env={"RULEPRESS_OPENSPIEL_CAMPAIGN": "1"})


@nox.session
def information(session: nox.Session) -> None:
    """The information-state properties at length (tests/test_information_states.py): 300 examples of each, over whole
    games, for every engine with an observer (the main suite tries a few).  ``RULEPRESS_INFORMATION_CAMPAIGN`` sets
    the number."""
    session.install(*PINS, "-e", ".[test]")
    count = os.environ.get("RULEPRESS_INFORMATION_CAMPAIGN", "300")
    session.run("pytest", "-q", "-p", "no:cacheprovider", "tests/test_information_states.py",
                "--hypothesis-show-statistics", *session.posargs, env={"RULEPRESS_INFORMATION_CAMPAIGN": count})


@nox.session
def axe(session: nox.Session) -> None:
    """axe-core on every page of the built site, at a desk's and a phone's width (the main suite reads a sample
    holding every kind of page): no serious or critical violation."""
    system_packages(session, browser=True)
    session.install(*PINS, "-e", ".[test]")
    session.run("pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "tests/test_site_accessibility.py",
                *session.posargs, env={"RULEPRESS_AXE": "all"})


@nox.session
def analysis(session: nox.Session) -> None:
    """Every book analysed at the defaults (500 games, up to 8000) with two seeds: the same findings in both."""
    session.install(*PINS, "-e", ".[test,openspiel]")
    env = {"RULEPRESS_ANALYSIS_GAMES": os.environ.get("RULEPRESS_ANALYSIS_GAMES", "500"),
           "RULEPRESS_ANALYSIS_BUDGET": os.environ.get("RULEPRESS_ANALYSIS_BUDGET", "8000"),
           "RULEPRESS_ANALYSIS_BOOKS": os.environ.get("RULEPRESS_ANALYSIS_BOOKS", "lantern-moths,last-lantern,lantern"),
           "RULEPRESS_ANALYSIS_WORKERS": os.environ.get("RULEPRESS_ANALYSIS_WORKERS", "2")}
    session.run("pytest", "-q", "-s", "-p", "no:cacheprovider", "tests/test_analysis_campaign.py", *session.posargs,
                env=env)


@nox.session
def damaged(session: nox.Session) -> None:
    """Damage the store at random 200 times (cut, flipped, garbled, deleted, a folder in the way, unreadable): every
    build still succeeds and publishes a cold build's bytes.  ``RULEPRESS_DAMAGE_CAMPAIGN`` sets the number."""
    system_packages(session)
    session.install(*PINS, "-e", ".[test]")
    count = os.environ.get("RULEPRESS_DAMAGE_CAMPAIGN", "200")
    session.run("pytest", "-q", "-p", "no:cacheprovider", "tests/test_cache_damage.py", "--hypothesis-show-statistics",
                *session.posargs, env={"RULEPRESS_DAMAGE_CAMPAIGN": count})


@nox.session
def reproducible(session: nox.Session) -> None:
    """Every bundled book built whole (site and PDFs) in two folders, each by its own process: the same bytes (the
    main suite builds the fixture's site twice and compares a bundled book's pages and referee)."""
    system_packages(session)
    session.install(*PINS, "-e", ".[test]")
    session.run("pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "tests/test_reproducible.py", *session.posargs,
                env={"RULEPRESS_REPRODUCIBLE": "all"})


@nox.session
def bench(session: nox.Session) -> None:
    """Medians over several runs: verify, build (site and each PDF), engine throughput against OpenSpiel, memory.

    ``nox -s bench -- --only gate`` runs the gate as books grow alone (1,000 examples in 5 s without the cache),
    ``-- --only openspiel`` the engines against OpenSpiel's tic-tac-toe alone; ``-- --only analysis`` estimates a
    full analysis of each book at 100,000 games per configuration against its 30-minute goal; ``-- --only author``
    the author's loop alone (the cold build against the bare tools, its CPU by part, the preflight's CPU);
    ``-- --only browser`` the in-browser engine's budgets in Chromium and the site's size with and without it
    (benchmarks/browser.py)."""
    system_packages(session, browser=True)
    session.install(*PINS, "-e", OPENSPIEL, "playwright")
    session.run("python", "benchmarks/bench.py", *session.posargs)


@nox.session
def catalogs(session: nox.Session) -> None:
    """Extract the engines' narration into locale/narrate.pot and update each translation's .po (tools/catalogs.py).

    ``nox -s catalogs -- --check`` changes nothing and fails when one is out of date; ``-- --engine NAME --init
    LANG`` starts a catalog for a new language."""
    session.install(*PINS, "-e", ".")
    session.run("python", "tools/catalogs.py", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install(*PINS, "ruff")
    session.run("ruff", "check", ".")


@nox.session
def mutants(session: nox.Session) -> None:
    """Mutation score of the engines and the gate (mutmut; docs/MUTATION.md): `nox -s mutants -- --sample 200`."""
    system_packages(session)
    session.install(*PINS, "-e", ".[test]", "mutmut==3.8.1")
    session.run("python", "tools/mutants.py", *session.posargs)


@nox.session(venv_backend="none")
def installed(session: nox.Session) -> None:
    """rulepress as a designer installs it: the wheel, with its dependencies from the index, in a fresh virtualenv
    outside the repository; then `rulepress new my-game`, verify, build, preflight and pytest in an empty folder.

    (tests/test_installed.py does the same in the main suite, with the test environment's dependencies linked in
    rather than installed, so that it needs no download.)"""
    system_packages(session)
    work = Path(tempfile.mkdtemp(prefix="rulepress-installed-"))
    session.run("python", "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(work / "dist"), ".", external=True)
    [wheel] = (work / "dist").glob("rulepress-*.whl")
    session.run("python", "-m", "venv", str(work / "venv"), external=True)
    python = str(work / "venv" / "bin" / "python")
    session.run(python, "-m", "pip", "install", "--quiet", *PINS, str(wheel), "pytest", external=True)
    folder = work / "my-game"
    folder.mkdir()
    session.chdir(folder)
    env = {"PATH": f"{work / 'venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": ""}
    for command in (["rulepress", "new", "my-game"], ["rulepress", "verify"], ["rulepress", "build"],
                    ["rulepress", "preflight"], [python, "-m", "pytest", "-v"]):
        session.run(*command, external=True, env=env)
    shutil.rmtree(work)
