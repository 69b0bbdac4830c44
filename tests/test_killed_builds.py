"""Builds killed at random moments (SIGKILL, SIGTERM, SIGINT) never publish a partial site and leave nothing behind.

Three kills, one of each signal, run in the main suite; ``RULEPRESS_KILL_CAMPAIGN=200`` (``nox -s killed``) runs
a longer campaign, ``RULEPRESS_KILL_SEED`` replays one.  Publishing swaps in a new folder, so the inode of
``site/`` says whether a killed build got as far as publishing: if not, ``site/`` must hash exactly as the last good
build did; if it did (the signal came after the swap), the new site must be just as complete as the last one.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from pypdf import PdfReader

from tests.conftest import make_project
from tests.test_build import tree_digest

KILLS = int(os.environ.get("RULEPRESS_KILL_CAMPAIGN", "3"))
SEED = int(os.environ.get("RULEPRESS_KILL_SEED", "20261130"))
SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)
# How each signal may end a build that published nothing: handled (130/143), before Python or rulepress set up
# its handler (-2/-15), by SIGKILL (-9).  One that published was done (0), or the signal came after ``build()``
# had returned and restored the default handlers (-9, -15, -2, or 130 while printing the summary); never 1 or 70.
STOPPED = {signal.SIGKILL: {-9}, signal.SIGTERM: {143, -15}, signal.SIGINT: {130, -2}}
PUBLISHED = {0, -9, -15, -2, 130}
PROJECT_ENTRIES = {"engine", "examples", "rules_src", "rulepress.yaml", "site", ".rulepress-cache"}


def start_build(project: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "rulepress", "--root", str(project), "build", "--wait", "120"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def staging_left(project: Path) -> list[str]:
    staging = project / ".rulepress-cache" / "staging"
    return sorted(p.name for p in staging.iterdir()) if staging.is_dir() else []


def survivors(project: Path) -> list[int]:
    """Processes still running a build of ``project`` (forked PDF workers share their parent's command line)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if os.fsencode(str(project)) in command and b"build" in command and state != "Z":
            found.append(int(proc.name))
    return found


def no_survivors(project: Path, grace: float = 5.0) -> list[int]:
    deadline = time.monotonic() + grace
    while (left := survivors(project)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def complete_like(site: Path, good: dict[str, str], pages: dict[str, int]) -> None:
    """A newly published site has the last good one's files, the same HTML and PDFs with the same pages.

    (PDF/X files carry a fresh document ID and date each build, so PDFs are compared by what they hold.)
    """
    digest = tree_digest(site)
    assert set(digest) == set(good)
    assert {k: v for k, v in digest.items() if not k.endswith(".pdf")} == {
        k: v for k, v in good.items() if not k.endswith(".pdf")}
    assert pdf_pages(site) == pages


def pdf_pages(site: Path) -> dict[str, int]:
    return {p.name: len(PdfReader(p).pages) for p in sorted((site / "pdf").glob("*.pdf"))}


def test_killed_builds_never_publish_a_partial_site(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    site = project / "site"
    start = time.monotonic()
    first = start_build(project)
    out, err = first.communicate(timeout=300)
    duration = time.monotonic() - start
    assert first.returncode == 0, err
    good, pages = tree_digest(site), pdf_pages(site)
    assert "pdf/mini-designer.pdf" in good and ".rulepress-site" in good

    rng = random.Random(SEED)
    outcomes: dict[tuple[str, int], int] = {}
    for kill in range(KILLS):
        signum = SIGNALS[kill % len(SIGNALS)]
        delay = rng.uniform(0.0, duration * 1.1)
        inode = site.stat().st_ino
        before = staging_left(project)  # a SIGKILLed build's, which the next build that gets going sweeps
        build = start_build(project)
        time.sleep(delay)
        build.send_signal(signum)
        out, err = build.communicate(timeout=300)
        code = build.returncode
        published = site.stat().st_ino != inode
        context = f"kill {kill} (seed {SEED}): {signum.name} after {delay:.2f} s, exit {code}\n{err}"
        outcomes[signum.name, code] = outcomes.get((signum.name, code), 0) + 1
        if published:
            assert code in PUBLISHED, context
            complete_like(site, good, pages)
            good = tree_digest(site)
        else:
            assert code in STOPPED[signum], context
            assert tree_digest(site) == good, context
        assert set(os.listdir(project)) <= PROJECT_ENTRIES, context
        assert no_survivors(project) == [], context  # no worker outlives a killed build
        if code in (130, 143) and not published:  # handled: cleaned up at once, one line on stderr, no traceback
            assert err == ("rulepress: interrupted\n" if code == 130 else "rulepress: terminated\n"), context
            assert set(staging_left(project)) <= set(before), context  # its own; an older one waits for a sweep
        if code == -15:  # SIGTERM before the handler existed: before this build made a staging folder too
            assert set(staging_left(project)) <= set(before), context
    print(f"{KILLS} kills, seed {SEED}: {sorted(outcomes.items())}")

    final = start_build(project)
    out, err = final.communicate(timeout=300)
    assert final.returncode == 0, err
    complete_like(site, good, pages)
    assert staging_left(project) == []
    assert set(os.listdir(project)) <= PROJECT_ENTRIES
    assert not [name for name in os.listdir(project / ".rulepress-cache") if name.startswith("crash-")]
