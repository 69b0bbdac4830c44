"""What the gate leaves out to cost less, it leaves out only where nothing depends on it: full garbage collections
held off while it runs (and given back after, whatever happens), and no digest of a book's files when nothing is
kept under it (RULEPRESS_CACHE=0)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from rulepress.verify import gate
from rulepress.verify.gate import FULL_COLLECTIONS_HELD, full_collections_held, verify


def test_full_collections_are_held_while_the_gate_runs_and_given_back(
        mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = gc.get_threshold()
    seen: list[tuple[int, int, int]] = []
    real = gate.load_every_example

    def loading(book: object) -> object:
        seen.append(gc.get_threshold())
        return real(book)  # type: ignore[arg-type]

    monkeypatch.setattr(gate, "load_every_example", loading)
    report = verify(mini, draw=False)
    assert report.ok, report.failures()
    assert seen == [(before[0], before[1], max(before[2], FULL_COLLECTIONS_HELD))]
    assert gc.get_threshold() == before


def test_the_thresholds_come_back_after_a_failure_and_after_the_last_of_two_blocks() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), full_collections_held():
        raise RuntimeError("a verification that crashed")
    assert gc.get_threshold() == before
    with full_collections_held():
        with full_collections_held():  # a serve session's verification while another runs
            assert gc.get_threshold()[2] == max(before[2], FULL_COLLECTIONS_HELD)
        assert gc.get_threshold()[2] == max(before[2], FULL_COLLECTIONS_HELD)  # the outer one still runs
    assert gc.get_threshold() == before


def test_with_nothing_kept_no_digest_of_the_books_files_is_made(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    real = gate.book_sources_digest
    monkeypatch.setattr(gate, "book_sources_digest", lambda root, book: made.append(book) or real(root, book))
    monkeypatch.setenv("RULEPRESS_CACHE", "0")
    uncached = verify(mini, draw=False)
    assert made == [] and uncached.ok and uncached.books[0].inputs is None
    monkeypatch.setenv("RULEPRESS_CACHE", "1")
    cached = verify(mini, draw=False)
    assert made == ["mini", "mini"] and cached.books[0].inputs is not None  # before and after: nothing changed
    assert [r.record() for r in uncached.results] == [r.record() for r in cached.results]
