"""The CPU account `nox -s bench` reads a cold build by (rulepress/account.py): each second in one part, the
processes that work for a build send theirs back."""

from __future__ import annotations

import time
from pathlib import Path

from rulepress import account
from rulepress.publish import pdfpool
from rulepress.publish.build import Timings
from rulepress.verify.gate import verify


def _spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_a_part_inside_another_is_taken_out_of_it() -> None:
    account.taken()
    with account.part("outer"):
        _spin(0.05)
        with account.part("inner"):
            _spin(0.1)
        with account.part("inner"):
            _spin(0.05)
    found = account.taken()
    assert set(found) == {"outer", "inner"}
    assert 0.04 < found["outer"] < 0.1 and 0.14 < found["inner"] < 0.25, found
    account.add({"inner": 1.0, "elsewhere": 2.0})
    account.add({"inner": 0.5})
    assert account.taken() == {"inner": 1.5, "elsewhere": 2.0} and account.taken() == {}


def test_the_pdf_workers_send_their_account_back(mini: Path, tmp_path: Path) -> None:
    """Rendered in two worker processes, the editions' parts (WeasyPrint's, ours, the preflight's) reach the
    build's account, with each worker's start-up and its time between jobs."""
    report = verify(mini, draw=True)
    account.taken()
    begun = time.process_time()
    pdfpool.render_editions(report, {}, tmp_path / "staging", Timings(), workers=2)
    own = time.process_time() - begun
    found = account.taken()
    for part in ("PDF: WeasyPrint lays out", "PDF: WeasyPrint writes", "PDF: pages generated (the edition's HTML)",
                 "preflight: PDFium reads (page objects, text, bookmarks)",
                 "PDF workers: start-up (fork, WeasyPrint imported)"):
        assert found.get(part, 0.0) > 0, (part, found)
    assert "PDF workers: between jobs (the pool's plumbing, results sent back)" in found
    assert sum(found.values()) > own  # the workers' seconds, not this process's alone
