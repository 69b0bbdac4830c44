"""The content-hash cache: what an edit reaches is redone, the rest reused, and the output is the same bytes."""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulepress import account
from rulepress.analyze.impact import cached_impacts
from rulepress.analyze.report import cached_designer_markdown
from rulepress.errors import BuildRefused
from rulepress.publish import pdfpool
from rulepress.publish.build import Timings, build
from rulepress.publish.pdfstore import source_epoch
from rulepress.publish.preflight import cached_preflight
from rulepress.render.site import pages_key
from rulepress.store import FOLDER, KEEP, Store, key_of, prune
from rulepress.verify import cached
from rulepress.verify import replay as replay_module
from rulepress.verify.gate import BookCheck, load_checked_book, verify

from .conftest import SLOWDOWN


@pytest.fixture(autouse=True)
def cached_and_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    """What tests/conftest.py turns off for the other tests' builds (they patch the PDF writer in-process)."""
    monkeypatch.delenv("RULEPRESS_CACHE", raising=False)
    monkeypatch.delenv("RULEPRESS_JOBS", raising=False)

def digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_replay_is_reused_until_its_example_or_engine_changes(mini: Path) -> None:
    store = Store(mini)
    check = load_checked_book(mini, "mini")
    example = check.examples[0]
    fresh = replay_module.replay(example, check.book, check.engine)
    first = cached.cached_replay(example, check.book, check.engine, store=store)
    again = cached.cached_replay(example, check.book, check.engine, store=store)
    assert (store.misses, store.hits) == ({"replay": 1}, {"replay": 1})
    assert again.example is example and again == fresh == first  # every field: checkpoints, SVGs, prose

    _edit(mini / "examples/mini/mini-last-stone.yaml", "she takes 2", "she takes two")
    check = load_checked_book(mini, "mini")
    edited = cached.cached_replay(check.examples[0], check.book, check.engine, store=store)
    assert store.misses == {"replay": 2} and "she takes two" in edited.text

    engine = mini / "engine/mini/__init__.py"
    engine.write_text(engine.read_text(encoding="utf-8") + "\n# a comment is a change too\n", encoding="utf-8")
    cached.cached_replay(check.examples[0], check.book, check.engine, store=store)
    assert store.misses == {"replay": 3}


def test_a_failed_replay_is_never_kept(mini: Path) -> None:
    store = Store(mini)
    _edit(mini / "examples/mini/mini-last-stone.yaml", "winner: Ben}", "winner: Ann}")
    check = load_checked_book(mini, "mini")
    for _ in range(2):
        result = cached.cached_replay(check.examples[0], check.book, check.engine, store=store)
        assert result.status == "failed"
        assert "checkpoint 'end': winner expected 'Ann', got 'Ben'" in result.message
    assert store.hits == {} and not (mini / FOLDER / "replay").exists()


def test_a_damaged_entry_is_replayed_afresh(mini: Path) -> None:
    store = Store(mini)
    check = load_checked_book(mini, "mini")
    example = check.examples[0]
    cached.cached_replay(example, check.book, check.engine, store=store)
    key = cached.replay_key(example, check.book, check.engine, True, True, None)
    store.path("replay", key).write_bytes(b"not a pickle")
    assert cached.cached_replay(example, check.book, check.engine, store=store).ok


def test_pdfs_are_the_same_bytes_cold_in_one_process_in_parallel_and_from_the_cache(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = verify(mini, draw=True)
    calls: list[str] = []
    real = pdfpool.pdf.write_pdf
    monkeypatch.setattr(pdfpool.pdf, "write_pdf", lambda job, *a, **k: calls.append(job.edition) or real(job, *a, **k))
    runs = {}
    for name, workers in (("alone", 1), ("parallel", 3), ("cached", 3)):
        if name != "cached":
            shutil.rmtree(mini / ".rulepress-cache", ignore_errors=True)
        timings = Timings()
        pdfpool.render_editions(report, {}, tmp_path / name, timings, workers=workers)
        runs[name] = digests(tmp_path / name / "pdf")
        assert timings.pages == {"mini": 8, "mini-digital": 7, "mini-designer": 12}
    assert sorted(runs["alone"]) == ["mini-designer.pdf", "mini-digital.pdf", "mini.pdf"]
    assert runs["alone"] == runs["parallel"] == runs["cached"]
    # The digital edition is made with its print edition, from its layout; the parallel run's calls were in its
    # workers.
    assert calls == ["print", "designer"]


def test_designer_editions_wait_for_question_impacts_worked_out_meanwhile(mini: Path, tmp_path: Path) -> None:
    """A cold build renders the player editions while the impacts are worked out: the designer edition made once
    they arrive is the same bytes as one made with them from the start (its workers were forked before)."""
    report = verify(mini, draw=True)
    impacts = {check.book.id: cached_impacts(mini, check) for check in report.books}
    polls: list[int] = []

    def later() -> dict[str, object] | None:
        polls.append(len(polls))
        return impacts if len(polls) > 10 else None

    runs = {}
    for name, known, late, workers in (("known", impacts, None, 2), ("later", {}, later, 2), ("none", {}, None, 2),
                                       ("later-alone", {}, later, 1)):
        shutil.rmtree(mini / ".rulepress-cache", ignore_errors=True)
        polls.clear()
        timings = Timings()
        pdfpool.render_editions(report, known, tmp_path / name, timings, workers=workers, designer_impacts=late)
        runs[name] = digests(tmp_path / name / "pdf")
    assert runs["later"] == runs["known"] == runs["later-alone"]
    assert runs["none"]["mini-designer.pdf"] != runs["known"]["mini-designer.pdf"]  # the impacts show
    assert len(polls) > 10


def test_the_pdf_date_is_the_sources_not_the_clock(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source_epoch.cache_clear()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert source_epoch(mini) == 1700000000
    source_epoch.cache_clear()
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert source_epoch(mini) == 315532800  # not a git checkout: 1980-01-01
    source_epoch.cache_clear()


def test_what_weasyprint_says_in_a_worker_reaches_the_build_and_an_error_stops_it(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    report = verify(mini, draw=True)
    real = pdfpool.pdf.write_pdf

    def warns(job: pdfpool.pdf.PrintInput, *args: object, **kwargs: object) -> int:
        logging.getLogger("weasyprint").warning("Failed to load image at %s", f"{job.edition}.png")
        return real(job, *args, **kwargs)

    monkeypatch.setattr(pdfpool.pdf, "write_pdf", warns)
    with caplog.at_level(logging.WARNING, logger="weasyprint"):
        pdfpool.render_editions(report, {}, tmp_path / "warned", Timings(), workers=2)
    assert sorted(r.getMessage() for r in caplog.records if r.name == "weasyprint") == [
        "Failed to load image at designer.png", "Failed to load image at print.png"]  # the digital: with the print

    def fails(job: pdfpool.pdf.PrintInput, *args: object, **kwargs: object) -> int:
        raise ValueError(f"cannot lay out the {job.edition} edition")

    shutil.rmtree(mini / ".rulepress-cache")
    monkeypatch.setattr(pdfpool.pdf, "write_pdf", fails)
    with pytest.raises(BuildRefused) as refused:  # all start at once: whichever fails first, named with its file
        pdfpool.render_editions(report, {}, tmp_path / "failed", Timings(), workers=2)
    [problem] = refused.value.problems
    assert re.fullmatch(r"pdf/mini(-designer)?\.pdf \(rules_src/mini/book\.yaml\): rendering: ValueError: "
                        r"cannot lay out the (print|designer) edition", problem), problem
    assert not multiprocessing.active_children()  # the pool was ended, no worker left behind


def test_a_rebuild_redoes_only_what_an_edit_reaches_and_gives_the_bytes_of_a_cold_build(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mkdocs.commands import build as mkdocs_build

    done: list[str] = []
    for module, name in ((cached, "replay"), (pdfpool.pdf, "write_pdf"), (mkdocs_build, "build")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _real=real, _name=name, **k: done.append(_name) or _real(*a, **k))
    monkeypatch.setenv("RULEPRESS_JOBS", "1")  # in this process, where the calls are counted

    def built(name: str) -> dict[str, str]:
        done.clear()
        build(mini, site_dir=tmp_path / name)
        return digests(tmp_path / name)

    cold = built("cold")
    assert sorted(set(done)) == ["build", "replay", "write_pdf"]
    assert built("again") == cold and done == []  # nothing touched: nothing redone, every byte the same

    _edit(mini / "rules_src/mini/chapters/play.md", "On your turn take", "On your turn, take")
    warm = built("edited")
    assert sorted(done) == ["build", "write_pdf", "write_pdf"]  # the replay was reused; print (with digital), designer
    changed = sorted(path for path in warm if warm[path] != cold.get(path))
    assert "mini/rules/mini.play.html" in changed and "pdf/mini.pdf" in changed
    assert "mini/diagrams/mini-last-stone--end.svg" not in changed
    # Only the edited page was rendered again: the others are the cold build's files (copied, mtimes kept).
    for page in ("mini/glossary.html", "mini/examples/mini-last-stone.html"):
        assert (tmp_path / "edited" / page).stat().st_mtime_ns == (tmp_path / "cold" / page).stat().st_mtime_ns
    assert (tmp_path / "edited" / "mini/rules/mini.play.html").stat().st_mtime_ns != \
        (tmp_path / "cold" / "mini/rules/mini.play.html").stat().st_mtime_ns
    shutil.rmtree(mini / ".rulepress-cache")
    assert built("edited-cold") == warm  # every byte: the pages, the search index, the sitemap, the PDFs


def test_a_site_made_alongside_the_pdfs_is_the_bytes_of_one_made_first_and_refuses_alike(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.errors import BuildRefused

    monkeypatch.setenv("RULEPRESS_CACHE", "0")
    monkeypatch.setenv("RULEPRESS_JOBS", "1")  # one core: the site first, then the PDFs, in this process
    build(mini, site_dir=tmp_path / "first")
    monkeypatch.setenv("RULEPRESS_JOBS", "2")  # the site in a process of its own while the PDFs render
    before = set(multiprocessing.active_children())
    build(mini, site_dir=tmp_path / "alongside")
    assert digests(tmp_path / "alongside") == digests(tmp_path / "first")
    assert "pdf/mini.pdf" in digests(tmp_path / "first")
    _edit(mini / "rules_src/mini/chapters/play.md", "wins (see", "wins (rule mini.play.take, see")
    with pytest.raises(BuildRefused) as caught:  # found by the site's process: its problems, not "aborted"
        build(mini, site_dir=tmp_path / "alongside")
    assert len(caught.value.problems) == 1
    assert "rule ID 'mini.play.take' in the player edition" in caught.value.problems[0]
    assert set(multiprocessing.active_children()) <= before


def test_pdf_workers_die_with_a_build_killed_outright(mini: Path, tmp_path: Path) -> None:
    script = f"""
import os, time
from pathlib import Path
from rulepress.publish import pdfpool
from rulepress.publish.build import Timings
from rulepress.verify.gate import verify

def stuck(job, *args, **kwargs):
    Path({str(tmp_path)!r}, f"worker-{{os.getpid()}}").touch()
    time.sleep(120)

report = verify(Path({str(mini)!r}), draw=True)
pdfpool.pdf.write_pdf = stuck
pdfpool.render_editions(report, {{}}, Path({str(tmp_path)!r}) / "staging", Timings(), workers=2)
"""
    build = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob("worker-*")):
        assert time.monotonic() < deadline and build.poll() is None, "no worker started"
        time.sleep(0.2)
    worker = int(next(tmp_path.glob("worker-*")).name.removeprefix("worker-"))
    build.kill()
    build.wait()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{worker}").exists() and Path(f"/proc/{worker}/stat").read_text().split()[2] != "Z":
        assert time.monotonic() < deadline, f"PDF worker {worker} outlived its build"
        time.sleep(0.1)


def test_rulepress_cache_0_reads_and_keeps_nothing(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEPRESS_CACHE", "0")
    store = Store(mini)
    check = load_checked_book(mini, "mini")
    for _ in range(2):
        assert cached.cached_replay(check.examples[0], check.book, check.engine, store=store).ok
    assert (store.hits, store.misses) == ({}, {})  # not even asked
    assert not (mini / FOLDER).exists()


def test_pruning_keeps_the_entries_used_last(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(mini)
    monkeypatch.setitem(KEEP, "pdf", 2)
    for number in range(4):
        key = key_of(str(number))
        store.put("pdf", key, b"%PDF-", ".pdf")
        store.put("pdf", key, b"{}", ".json")
        stamp = 1_000_000 + number
        for suffix in (".pdf", ".json"):
            os.utime(store.path("pdf", key, suffix), (stamp, stamp))
    assert store.get("pdf", key_of("0"), ".json") == b"{}"  # used now: the newest
    prune(store, "pdf")
    left = sorted(p.name for p in (mini / FOLDER / "pdf").glob("*/*"))
    assert left == sorted(f"{key_of(str(n))}{s}" for n in (0, 3) for s in (".json", ".pdf"))


def test_question_impact_is_reused_until_the_book_or_its_examples_change(
        mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.analyze import impact

    store = Store(mini)
    check = verify(mini, draw=False).books[0]
    fresh = impact.saved_impacts(mini, check)
    assert fresh["mini.q1"]["alternatives"][0]["examples_changed"] != []  # the example's winner changes
    assert cached_impacts(mini, check, store) == fresh
    calls: list[str] = []
    monkeypatch.setattr(impact, "saved_impacts", lambda root, c: calls.append(c.book.id) or fresh)
    assert cached_impacts(mini, check, store) == fresh and calls == []
    _edit(mini / "rules_src/mini/chapters/play.md", "On your turn take", "On your turn, take")
    assert cached_impacts(mini, check, store) == fresh and calls == []  # replays never read the prose
    _edit(mini / "rules_src/mini/questions.yaml", "status: open", "status: answered")
    cached_impacts(mini, check, store)
    assert calls == ["mini"]


def test_a_pdf_worker_that_dies_fails_the_build_instead_of_hanging_it(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.errors import BuildRefused

    report = verify(mini, draw=True)
    before = set(multiprocessing.active_children())  # other tests in this process may have children of their own
    tests = os.getpid()

    def killed(*args: object, **kwargs: object) -> None:
        # In a PDF worker only: should it ever run here, the test fails saying so instead of killing the test run.
        assert os.getpid() != tests, "write_pdf ran in the build's own process, not in a PDF worker"
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(pdfpool.pdf, "write_pdf", killed)
    with pytest.raises(BuildRefused) as refused:  # naming the editions whose workers died (tests/test_faults.py)
        pdfpool.render_editions(report, {}, tmp_path / "staging", Timings(), workers=2)
    assert refused.value.problems and all(line.startswith("pdf ") and "killed by SIGKILL" in line
                                          for line in refused.value.problems), refused.value.problems
    deadline = time.monotonic() + 10  # the pool's workers are gone (reaping a killed pool takes a moment)
    while not set(multiprocessing.active_children()) <= before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert set(multiprocessing.active_children()) <= before


def test_a_preflight_pass_is_kept_for_the_same_bytes_and_a_finding_never(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.publish import preflight

    checked: list[str] = []
    found: list[preflight.Finding] = []
    monkeypatch.setattr(preflight, "preflight_pdf",
                        lambda path, edition=None, book=None, lang=None: checked.append(edition) or found)
    pdf_file = tmp_path / "mini-digital.pdf"
    pdf_file.write_bytes(b"%PDF-1.7 one")
    assert cached_preflight(pdf_file, mini) == [] and cached_preflight(pdf_file, mini) == []
    assert checked == ["digital"]
    pdf_file.write_bytes(b"%PDF-1.7 two")
    found.append(preflight.Finding(str(pdf_file), 1, "font X", "not embedded"))
    for _ in range(2):
        assert cached_preflight(pdf_file, mini) == found
    assert checked == ["digital"] * 3


def test_each_pdf_is_preflighted_in_its_worker_and_the_staged_check_reuses_the_pass(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.publish import preflight

    monkeypatch.setenv("RULEPRESS_CACHE", "0")  # cached by the build's process, with or without the cache
    report = verify(mini, draw=True)
    pdfpool.render_editions(report, {}, tmp_path / "staging", Timings(), workers=2)
    checked: list[str] = []
    monkeypatch.setattr(preflight, "preflight_pdf",
                        lambda path, edition=None, book=None, lang=None: checked.append(edition) or [])
    made = sorted((tmp_path / "staging" / "pdf").glob("*.pdf"))
    assert len(made) == 3
    book = report.books[0].book
    for path in made:
        assert cached_preflight(path, mini, book=book) == []
    assert checked == []  # every PDF passed in its worker: none read again
    made[0].write_bytes(made[0].read_bytes() + b"\n")
    assert cached_preflight(made[0], mini, book=book) == [] and checked == [preflight.edition_of(made[0])]


def test_the_designer_section_is_drawn_once_until_its_analysis_or_what_decides_play_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.analyze import report
    from rulepress.project import default_root
    from rulepress.render.strings import strings

    # What the section is made from, nothing of the checkout written.
    for folder in ("reports", "engine/lantern", "rules_src/lantern"):
        shutil.copytree(default_root() / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    # The copied report as made from the engine as it is now, whatever the checkout's saved one was made from.
    from rulepress.analyze.fingerprint import engine_fingerprint, play_digests
    saved_path = tmp_path / "reports/analysis/lantern.json"
    analysis = json.loads(saved_path.read_text(encoding="utf-8"))
    analysis["inputs"] = play_digests(tmp_path, analysis["engine_package"], "lantern")
    analysis["engine"] = engine_fingerprint(tmp_path, analysis["engine_package"], "lantern")
    saved_path.write_text(json.dumps(analysis), encoding="utf-8")
    drawn: list[str] = []
    real = report.designer_markdown
    monkeypatch.setattr(report, "designer_markdown", lambda *a, **k: drawn.append(a[1]) or real(*a, **k))
    en = strings("en")
    first = cached_designer_markdown(tmp_path, "lantern", en)
    assert "<svg" in first and drawn == ["lantern"]  # matplotlib's plots
    assert "from the engine as it is now" in first
    assert cached_designer_markdown(tmp_path, "lantern", en) == first and drawn == ["lantern"]
    assert cached_designer_markdown(tmp_path, "lantern", en, cmyk=True) != first and len(drawn) == 2
    assert cached_designer_markdown(tmp_path, "lantern", strings("fr")) != first and len(drawn) == 3
    engine = tmp_path / "engine/lantern/__init__.py"
    engine.write_text(engine.read_text(encoding="utf-8") + "\n# a comment decides no play\n", encoding="utf-8")
    assert cached_designer_markdown(tmp_path, "lantern", en) == first and len(drawn) == 3
    engine.write_text(engine.read_text(encoding="utf-8") + "\nPLAYS = 1\n", encoding="utf-8")
    stale = cached_designer_markdown(tmp_path, "lantern", en)
    assert "before its latest changes to `engine/lantern/__init__.py`" in stale and len(drawn) == 4


def test_a_parsed_yaml_file_is_kept_with_its_lines_and_a_refused_one_never(
        mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.errors import SourceError
    from rulepress.load import yamlsrc

    parsed: list[str] = []
    real = yamlsrc.parse_yaml
    monkeypatch.setattr(yamlsrc, "parse_yaml", lambda text, name: parsed.append(name) or real(text, name))
    path = mini / "rules_src/mini/book.yaml"
    first = yamlsrc.load_yaml(path, "book.yaml", root=mini)
    again = yamlsrc.load_yaml(path, "book.yaml", root=mini)
    assert again == first and again.lines == first.lines and again is not first and parsed == ["book.yaml"]
    bad = mini / "rules_src/mini/bad.yaml"
    bad.write_text("title: [1,\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(SourceError, match="malformed YAML"):
            yamlsrc.load_yaml(bad, "bad.yaml", root=mini)
    assert parsed == ["book.yaml", "bad.yaml", "bad.yaml"]


def test_progress_shows_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from rulepress import progress

    monkeypatch.delenv("RULEPRESS_PROGRESS", raising=False)
    assert list(progress.iterate(["a", "b"], "verify mini")) == ["a", "b"]
    assert capsys.readouterr().err == ""  # pytest's stderr is no terminal: nothing shown
    monkeypatch.setenv("RULEPRESS_PROGRESS", "1")
    assert list(progress.iterate(["a", "b"], "verify mini", unit="example")) == ["a", "b"]
    assert capsys.readouterr().err.startswith("\rverify mini:   0%|          | 0/2 [")  # then cleared
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    monkeypatch.setenv("RULEPRESS_PROGRESS", "0")
    assert not progress.wanted()


def test_a_language_site_an_edit_does_not_reach_is_left_as_it_is_and_the_bytes_are_a_cold_builds(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mkdocs.commands import build as mkdocs_build

    from rulepress.render import site

    shutil.copytree(Path(__file__).parent / "fixtures" / "translations", mini, dirs_exist_ok=True)  # mini in French
    runs: list[str] = []
    made: list[str] = []
    real_build, real_pages = mkdocs_build.build, site._book_pages
    monkeypatch.setattr(mkdocs_build, "build", lambda config, **k: runs.append(config.theme["language"])
                        or real_build(config, **k))
    monkeypatch.setattr(site, "_book_pages", lambda check, impact, lang=None: made.append(str(lang))
                        or real_pages(check, impact, lang))
    monkeypatch.setenv("RULEPRESS_JOBS", "1")  # in this process, where the calls are counted

    def built(name: str) -> dict[str, str]:
        runs.clear()
        made.clear()
        build(mini, site_dir=tmp_path / name)
        return digests(tmp_path / name)

    cold = built("cold")
    assert runs == ["en", "fr"] and made == ["None", "fr"]
    _edit(mini / "rules_src/mini/fr/chapters/play.md", "pierres du tas", "pierres, du tas")
    warm = built("edited")
    assert runs == ["fr"]  # the English site's files were all the same: mkdocs was not run for it
    assert "fr/mini/rules/mini.play.html" in [path for path in warm if warm[path] != cold[path]]
    assert (tmp_path / "edited/mini/rules/mini.play.html").stat().st_mtime_ns == \
        (tmp_path / "cold/mini/rules/mini.play.html").stat().st_mtime_ns
    (mini / "mkdocs.yml").write_text("site_name: Edited\n")  # what every page shows: every site again
    built("theme")
    assert runs == ["en", "fr"]
    shutil.rmtree(mini / ".rulepress-cache")
    assert built("edited-cold") == digests(tmp_path / "theme")  # every byte, both sites
    for name in ("cold", "edited", "theme"):
        shutil.rmtree(tmp_path / name)  # a published site shares no file with the cache (links would)
    assert all(p.stat().st_nlink == 1 or ".rulepress-cache" in str(p) for p in (tmp_path / "edited-cold").rglob("*")
               if p.is_file())


def test_a_books_pages_are_kept_under_the_files_its_check_was_made_from(
        mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check = verify(mini).books[0]
    assert check.inputs is not None and pages_key(check, None, None) == pages_key(check, None, None)
    assert pages_key(check, None, "fr") != pages_key(check, None, None)
    assert pages_key(check, {"q": 1}, None) != pages_key(check, None, None)
    _edit(mini / "examples/mini/mini-last-stone.yaml", "she takes 2", "she takes two")
    assert verify(mini).books[0].inputs not in (None, check.inputs)

    # A file saved while the book was being checked: the check may be of either version, so nothing is kept
    # under it (a serve session keeps a book's last good check while its files on disk say something else).
    real = cached.cached_replay

    saved: list[int] = []

    def replay_and_save(*args: object, **kwargs: object) -> object:
        if not saved:
            _edit(mini / "rules_src/mini/chapters/play.md", "On your turn take", "On your turn, take")
            saved.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("rulepress.verify.cached.cached_replay", replay_and_save)
    moving = verify(mini).books[0]
    assert moving.inputs is None and pages_key(moving, None, None) is None


def test_rendered_text_and_passed_schema_checks_are_cached_only_for_plain_inputs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.errors import SourceError
    from rulepress.load import rules, schema

    monkeypatch.setattr("rulepress.store._MEMO", {})  # this process's memory, as a fresh process has it
    renders: list[str] = []
    real_render = rules._render_now
    monkeypatch.setattr(rules, "_render_now", lambda text, *a: renders.append(text) or real_render(text, *a))
    context = {"pile": {"start": 21}, "flag": True}
    for _ in range(2):
        assert rules.render_template("{{ pile.start }} stones", context, "a.md") == "21 stones"
        assert rules.render_template("{{ flag }}", {"flag": 1}, "a.md") == "1"  # 1 is not True: another entry
        assert rules.render_template("{{ flag }}", context, "a.md") == "True"
    assert renders == ["{{ pile.start }} stones", "{{ flag }}", "{{ flag }}"]

    class Counted:  # a value that acts when printed (as a translation's tagged numbers do) is never skipped
        def __str__(self) -> str:
            renders.append("printed")
            return "7"

    renders.clear()
    for _ in range(2):
        assert rules.render_template("{{ n }}", {"n": Counted()}, "a.md") == "7"
        with pytest.raises(SourceError, match="unknown template variable"):  # an error is found every time
            rules.render_template("{{ nope }}", context, "b.md", 3)
    assert renders == ["{{ n }}", "printed", "{{ nope }}", "{{ n }}", "printed", "{{ nope }}"]

    checks: list[object] = []
    real_check = schema.validate_with
    monkeypatch.setattr(schema, "validate_with", lambda data, *a: checks.append(data) or real_check(data, *a))
    good = {"term": "Pile", "definition": "the stones", "rule": "mini.play.take"}
    bad = {"term": 3}
    for _ in range(2):
        assert schema.validate([good], "glossary", "g.yaml", "mini") == []
        assert schema.validate([bad], "glossary", "g.yaml", "mini")  # a problem is reported every time
    assert checks == [[good], [bad], [bad]]
    monkeypatch.setenv("RULEPRESS_CACHE", "0")  # nothing cached in the process either
    assert schema.validate([good], "glossary", "g.yaml", "mini") == [] and len(checks) == 4
    assert rules.render_template("{{ pile.start }} stones", context, "a.md") == "21 stones" and len(renders) == 7


def _more_examples(mini: Path, count: int) -> None:
    example = mini / "examples/mini/mini-last-stone.yaml"
    for n in range(2, count + 1):
        text = example.read_text(encoding="utf-8").replace("id: mini-last-stone", f"id: mini-last-stone-{n}", 1)
        (example.parent / f"mini-last-stone-{n}.yaml").write_text(text, encoding="utf-8")


def _cold_book(mini: Path, monkeypatch: pytest.MonkeyPatch, examples: int) -> BookCheck:
    """The mini book with ``examples`` examples, none of them in the store, and a second core to use."""
    monkeypatch.setenv("RULEPRESS_CACHE", "1")
    monkeypatch.setenv("RULEPRESS_JOBS", "2")
    _more_examples(mini, examples)
    return load_checked_book(mini, "mini")


def _replays_by_process(monkeypatch: pytest.MonkeyPatch, log: Path, in_helper: str = "") -> None:
    """Each replay's process noted in ``log``; ``in_helper``: "die" or "hang" in the forked one."""
    from rulepress.verify import cached

    real, verifier = cached.replay, os.getpid()

    def replay(*args: object, **kwargs: object) -> object:
        if in_helper == "die" and os.getpid() != verifier:
            os._exit(3)
        if in_helper == "hang" and os.getpid() != verifier:
            time.sleep(3600)
        with log.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(cached, "replay", replay)


def test_a_cold_verification_makes_half_the_replays_in_a_second_process(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check = _cold_book(mini, monkeypatch, 6)
    log = tmp_path / "replays"
    _replays_by_process(monkeypatch, log)
    account.taken()
    results = cached.replay_all(check.examples, check.book, check.engine)
    assert account.taken()["verify: replays made meanwhile (a forked process)"] > 0  # its CPU is accounted for
    assert [r.example.id for r in results] == [e.id for e in check.examples] and all(r.ok for r in results)
    made = log.read_text().split()
    assert len(made) == 6 and made.count(str(os.getpid())) == 3  # every other one was made meanwhile
    log.unlink()
    again = cached.replay_all(check.examples, check.book, check.engine)
    assert not log.exists()  # all from the store now: nothing replayed, nothing forked
    assert [r.checkpoints.keys() for r in again] == [r.checkpoints.keys() for r in results]


def test_a_helper_that_dies_costs_no_replay(mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check = _cold_book(mini, monkeypatch, 5)
    log = tmp_path / "replays"
    _replays_by_process(monkeypatch, log, "die")
    results = cached.replay_all(check.examples, check.book, check.engine)
    assert [r.example.id for r in results] == [e.id for e in check.examples] and all(r.ok for r in results)
    assert log.read_text().split() == [str(os.getpid())] * 5  # this process made them all


def test_a_helper_that_hangs_is_waited_for_about_as_long_as_its_share_takes(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    check = _cold_book(mini, monkeypatch, 5)
    log = tmp_path / "replays"
    _replays_by_process(monkeypatch, log, "hang")
    begun = time.monotonic()
    results = cached.replay_all(check.examples, check.book, check.engine)
    assert time.monotonic() - begun < 15  # not the replays' bounds (10 s each): about twice this process's share
    assert [r.example.id for r in results] == [e.id for e in check.examples] and all(r.ok for r in results)
    assert log.read_text().split() == [str(os.getpid())] * 5
    assert not multiprocessing.active_children()  # and it was ended


def test_the_site_phase_shows_its_pages_going_by(mini: Path) -> None:
    """The site phase is the build's longest quiet stretch: on a terminal it counts its pages (here forced on), on
    the line under the PDFs' bar.  The site is made in a process of its own, so the build runs as a user runs it."""
    env = {**os.environ, "RULEPRESS_PROGRESS": "1"}
    done = subprocess.run([sys.executable, "-m", "rulepress.cli", "--root", str(mini), "build"], env=env,
                          capture_output=True, text=True, timeout=300 * SLOWDOWN, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    started = re.findall(r"site: +0%\|\s*\| 0/(\d+) \[", done.stderr)
    pages = len(list((mini / "site").rglob("*.html")))
    assert len(started) == 1 and 3 <= int(started[0]) <= pages, done.stderr[-2000:]
