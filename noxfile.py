"""Tasks: `nox -s build` (verify, then site and PDFs), `nox -s tests`, `nox -s bench`, `nox -s lint`."""

from __future__ import annotations

import ctypes.util
import os
import shutil

import nox

nox.options.sessions = ["build"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"

# WeasyPrint draws text with Pango and subsets fonts with HarfBuzz: the system libraries the project needs.
SYSTEM_PACKAGES = [
    "libpango-1.0-0", "libpangoft2-1.0-0", "libharfbuzz0b", "libharfbuzz-subset0", "libfontconfig1",
]
LIBRARIES = ["pango-1.0", "pangoft2-1.0", "harfbuzz-subset", "fontconfig"]


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
    session.install("-e", ".")
    session.run("rulepress", "build", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """Example replays, engine properties, loaders, the build gate, the PDFs and the site in a browser."""
    system_packages(session, browser=True)
    session.install("-e", ".[test]")
    session.run("ruff", "check", "rulepress", "engine", "tests", "noxfile.py", "benchmarks", "samples", "tools")
    # Both cores; the modules that read the one full build of the bundled books run last and share that one build
    # between the workers (tests/conftest.py, real_site).
    session.run("pytest", "-n", "auto", *session.posargs)


@nox.session
def killed(session: nox.Session) -> None:
    """Kill 200 builds at random moments (SIGKILL/SIGTERM/SIGINT): site/ is always a complete good build.

    ``RULEPRESS_KILL_CAMPAIGN`` sets the number of kills, ``RULEPRESS_KILL_SEED`` replays a campaign.
    """
    system_packages(session)
    session.install("-e", ".[test]")
    kills = os.environ.get("RULEPRESS_KILL_CAMPAIGN", "200")
    session.run("pytest", "-q", "-s", "-p", "no:cacheprovider", "tests/test_killed_builds.py", *session.posargs,
                env={"RULEPRESS_KILL_CAMPAIGN": kills})


@nox.session
def damaged(session: nox.Session) -> None:
    """Damage the store at random 200 times (cut, flipped, garbled, deleted, a folder in the way, unreadable): every
    build still succeeds and publishes a cold build's bytes.  ``RULEPRESS_DAMAGE_CAMPAIGN`` sets the number."""
    system_packages(session)
    session.install("-e", ".[test]")
    count = os.environ.get("RULEPRESS_DAMAGE_CAMPAIGN", "200")
    session.run("pytest", "-q", "-p", "no:cacheprovider", "tests/test_cache_damage.py", "--hypothesis-show-statistics",
                *session.posargs, env={"RULEPRESS_DAMAGE_CAMPAIGN": count})


@nox.session
def bench(session: nox.Session) -> None:
    """Medians over several runs: verify, build (site and each PDF), engine throughput, memory."""
    system_packages(session)
    session.install("-e", ".")
    session.run("python", "benchmarks/bench.py", *session.posargs)


@nox.session
def catalogs(session: nox.Session) -> None:
    """Extract the engines' narration into locale/narrate.pot and update each translation's .po (tools/catalogs.py).

    ``nox -s catalogs -- --check`` changes nothing and fails when one is out of date; ``-- --engine NAME --init
    LANG`` starts a catalog for a new language."""
    session.install("-e", ".")
    session.run("python", "tools/catalogs.py", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("ruff==0.17.5")
    session.run("ruff", "check", ".")


@nox.session
def mutants(session: nox.Session) -> None:
    """Mutation score of the engines and the gate (mutmut; docs/MUTATION.md): `nox -s mutants -- --sample 200`."""
    system_packages(session)
    session.install("-e", ".[test]", "mutmut==3.8.1")
    session.run("python", "tools/mutants.py", *session.posargs)
