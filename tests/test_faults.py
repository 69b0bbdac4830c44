"""Faults name what they hit: a disk that is full or a file too large names the file, a killed PDF worker its
edition, and a site that cannot be replaced is found before any work starts (issue 21).

The disk faults are real ones in a child process (a file-size limit makes ``write()`` fail with no file name, as a
full disk does); the killed worker is a real SIGKILL.  About 15 s together.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rulepress.errors import BuildRefused, os_problem
from rulepress.publish import pdfpool
from rulepress.publish.build import build

CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))  # Python ignores SIGXFSZ: write() fails, EFBIG
from rulepress.cli import main
sys.exit(main(["--root", sys.argv[1], "build"]))
"""


def test_an_os_error_names_what_it_hit() -> None:
    assert os_problem(OSError(errno.ENOSPC, "No space left on device"), "site/pdf/x.pdf") == (
        "No space left on device (while writing site/pdf/x.pdf)")
    assert os_problem(PermissionError(errno.EACCES, "Permission denied", "/x/y")) == "/x/y: Permission denied"
    assert os_problem(OSError(errno.EXDEV, "Invalid cross-device link", "a", None, "b")) == (
        "a -> b: Invalid cross-device link")


@pytest.mark.parametrize(("jobs", "limit"), [("2", 400_000), ("1", 150_000)])  # a PDF worker's write; the site's
def test_a_write_that_fails_names_the_file_and_publishes_nothing(mini: Path, jobs: str, limit: int) -> None:
    site = mini / "site"
    site.mkdir()
    (site / ".rulepress-site").write_text("rulepress-site 1\n")
    (site / "index.html").write_text("the last good build")
    env = {**os.environ, "RULEPRESS_JOBS": jobs, "RULEPRESS_CACHE": "0"}
    done = subprocess.run([sys.executable, "-P", "-c", CHILD.format(limit=limit), str(mini)], capture_output=True,
                          text=True, env=env, cwd=mini.parent, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "Traceback" not in output and "[Errno" not in output, output
    lines = [line for line in output.splitlines() if "File too large" in line]
    assert lines and all(str(mini) in line for line in lines), output  # each names a file or folder of the build
    assert (site / "index.html").read_text() == "the last good build"


def test_a_killed_pdf_worker_names_its_edition(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = pdfpool.pdf.write_pdf
    tests = os.getpid()

    def killed_when_designer(job: Any, *args: Any, **kwargs: Any) -> int:
        if job.edition == "designer":
            # In a PDF worker only: run anywhere else, it must fail the test, never kill the test run's process.
            assert os.getpid() != tests, "write_pdf ran in the build's own process, not in a PDF worker"
            time.sleep(0.2)
            os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's OOM killer would
        return int(real(job, *args, **kwargs))

    monkeypatch.setenv("RULEPRESS_JOBS", "2")
    monkeypatch.setattr(pdfpool.pdf, "write_pdf", killed_when_designer)
    with pytest.raises(BuildRefused) as refused:
        build(mini)
    assert refused.value.problems == ["pdf mini-designer (designer edition of mini): the worker process rendering "
                                      "it was killed by SIGKILL (out of memory?); nothing was published"]
    assert not (mini / "site").exists()


def _read_only(folder: Path) -> bool:
    """Make ``folder`` read-only for this process: its mode for a user, a read-only bind mount for root."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return True
    made = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if made.returncode != 0:
        return False
    if subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], capture_output=True).returncode != 0:
        subprocess.run(["umount", str(folder)], capture_output=True)
        return False
    return True


def _writable(folder: Path) -> None:
    if os.geteuid() != 0:
        folder.chmod(0o755)
    else:
        subprocess.run(["umount", str(folder)], capture_output=True, check=True)


def test_a_site_that_cannot_be_replaced_is_found_before_any_work(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = mini / "site"
    site.mkdir()
    (site / ".rulepress-site").write_text("rulepress-site 1\n")
    (site / "index.html").write_text("the last good build")
    from rulepress.publish import build as build_module

    gated: list[bool] = []
    monkeypatch.setattr(build_module, "gate", lambda *args, **kwargs: gated.append(True))  # the work
    if not _read_only(site):
        pytest.skip("no way to make a folder read-only here (root without mount)")
    try:
        start = time.perf_counter()
        with pytest.raises(BuildRefused) as refused:
            build(mini)
        seconds = time.perf_counter() - start
    finally:
        _writable(site)
    [problem] = refused.value.problems
    assert problem.startswith(f"{site}: cannot be written (") and problem.endswith(
        f"so the build could not publish {site}; nothing was built")
    assert gated == [] and seconds < 2
    assert sorted(p.name for p in site.iterdir()) == [".rulepress-site", "index.html"]
