"""`rulepress serve`: what a change reaches, where a problem shows, and the author's loop in a real browser."""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulepress.cli import main
from rulepress.serve import banner, watcher
from rulepress.serve.session import Session

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update"]
FAILED = ("mini-last-stone (examples/mini/mini-last-stone.yaml): step 4 (line 11) checkpoint 'end': winner expected "
          "'Ann', got 'Ben' [illustrates rule 1.1, mini.play.take, rule 1.2, mini.play.win]")


@pytest.fixture(autouse=True)
def cached_and_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    """What tests/conftest.py turns off for the other tests' builds (they patch the PDF writer in-process)."""
    monkeypatch.delenv("RULEPRESS_CACHE", raising=False)
    monkeypatch.delenv("RULEPRESS_JOBS", raising=False)

# -- what a change reaches ------------------------------------------------------------------------------------


def test_a_change_reaches_its_own_book_and_an_engine_every_book_using_it() -> None:
    engines = {"moths": "moths_engine", "lantern": "shared", "last": "shared"}
    assert watcher.reach(["rules_src/moths/chapters/play.md"], engines).books == {"moths"}
    assert watcher.reach(["examples/last/ll-one.yaml"], engines).books == {"last"}
    shared = watcher.reach(["engine/shared/game.py"], engines)
    assert (shared.books, shared.engines, shared.site) == ({"lantern", "last"}, {"shared"}, False)
    theme = watcher.reach(["site_src/overrides/main.html"], engines)
    assert (theme.books, theme.site) == (set(), True)
    assert watcher.reach(["README.md", "engine/README.md"], engines).books == set()


def test_a_change_to_mkdocs_yml_or_a_folder_it_names_is_the_sites(mini: Path) -> None:
    """The preview follows what the site is made from as the build's key does: mkdocs.yml, its docs_dir, its
    theme's custom_dir (a save there used to leave the preview as it was)."""
    (mini / "mkdocs.yml").write_text("docs_dir: pages\ntheme:\n  custom_dir: looks\n")
    (mini / "pages").mkdir()
    (mini / "pages" / "extra.md").write_text("# Extra\n")
    (mini / "looks").mkdir()
    (mini / "looks" / "main.html").write_text("{% extends 'base.html' %}\n")
    tops = watcher.site_tops(mini)
    assert {"mkdocs.yml", "pages", "looks"} <= set(tops)
    before = watcher.stamp(mini)
    assert {"mkdocs.yml", "pages/extra.md", "looks/main.html"} <= set(before)
    (mini / "pages" / "extra.md").write_text("# Extra, edited\n")
    changed = watcher.changed(before, watcher.stamp(mini))
    assert changed == ["pages/extra.md"] and watcher.reach(changed, {}, tops).site
    assert watcher.reach(["mkdocs.yml"], {}, tops).site and watcher.reach(["looks/main.html"], {}, tops).site
    assert not watcher.reach(["pagesx/a.md"], {}, tops).site


def test_stamp_sees_edits_additions_and_removals_but_not_bytecode(mini: Path) -> None:
    before = watcher.stamp(mini)
    rule = mini / "rules_src/mini/chapters/play.md"
    rule.write_text(rule.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    (mini / "engine/mini/__pycache__").mkdir(exist_ok=True)
    (mini / "engine/mini/__pycache__/x.pyc").write_bytes(b"\0")
    (mini / "examples/mini/.swap.yaml.swp").write_bytes(b"\0")
    (mini / "examples/mini/mini-last-stone.yaml").unlink()
    assert watcher.changed(before, watcher.stamp(mini)) == ["examples/mini/mini-last-stone.yaml",
                                                           "rules_src/mini/chapters/play.md"]


def test_only_writing_a_source_is_a_save() -> None:
    from watchdog import events

    from rulepress.serve.server import is_save

    play = "/p/rules_src/mini/chapters/play.md"
    assert is_save(events.FileModifiedEvent(play)) and is_save(events.FileClosedEvent(play))
    assert is_save(events.FileDeletedEvent(play)) and is_save(events.FileMovedEvent(play + ".tmp", play))
    assert not is_save(events.FileOpenedEvent(play))  # the build reads every source
    assert not is_save(events.FileClosedNoWriteEvent(play))
    assert not is_save(events.FileModifiedEvent("/p/engine/mini/__pycache__/game.cpython-311.pyc"))
    assert not is_save(events.FileModifiedEvent("/p/rules_src/mini/chapters/.play.md.swp"))
    assert is_save(events.FileMovedEvent("/p/rules_src/mini/chapters/.play.md.swp", play))  # an editor's save
    assert not is_save(events.DirModifiedEvent("/p/rules_src/mini/chapters"))


# -- where a problem shows --------------------------------------------------------------------------------------


CHAPTERS = {"rules_src/mini/chapters/play.md": "mini/rules/mini.play.html"}


@pytest.mark.parametrize(("problem", "pages"), [
    (FAILED, ["mini/examples/mini-last-stone.html"]),
    ("rules_src/mini/chapters/play.md:5: unknown rule ID 'mini.nope'", ["mini/rules/mini.play.html"]),
    ("rules_src/mini/glossary.yaml:3: term 'pile' defined twice", ["mini/glossary.html"]),
    ("rules_src/mini/questions.yaml:2: question q1 names engine option 'x'", ["mini/designer/questions.html"]),
    ("rules_src/mini/book.yaml:9: engine 'nope' not found", ["mini/*"]),
    ("engine/mini/__init__.py:101: engine 'mini' cannot be imported: ValueError: boom", ["mini/*"]),
    ("rendering failed: TemplateSyntaxError: unexpected '}'", ["mini/*"]),
])
def test_each_problem_is_placed_on_the_page_it_concerns(problem: str, pages: list[str]) -> None:
    assert banner.pages_of(problem, "mini", CHAPTERS, {"mini": "mini"}) == pages


def test_a_problem_of_no_book_is_on_every_page() -> None:
    assert banner.pages_of("mkdocs: theme template missing", None, {}, {}) == ["*"]
    assert banner.banner_html("other/glossary.html", [("mkdocs: theme template missing", ["*"])]) != ""


def test_the_banner_shows_the_message_escaped_and_points_the_book_s_other_pages_to_it() -> None:
    placed = [(FAILED, ["mini/examples/mini-last-stone.html"])]
    on_page = banner.banner_html("mini/examples/mini-last-stone.html", placed)
    assert "1 problem(s) on this page" in on_page
    assert FAILED.replace("'", "&#x27;") in on_page
    elsewhere = banner.banner_html("mini/rules/mini.play.html", placed)
    assert '<a style="color:inherit" href="../examples/mini-last-stone.html">' in elsewhere
    assert "on this page" not in elsewhere
    assert banner.banner_html("index.html", placed) == ""
    assert banner.banner_html("other/index.html", placed) == ""


def test_the_banner_goes_right_after_the_body_tag() -> None:
    assert banner.inject(b'<html><body class="x"><p>page</p></body>', "<div>B</div>") == \
        b'<html><body class="x"><div>B</div><p>page</p></body>'
    assert banner.inject(b"<p>no body</p>", "<div>B</div>") == b"<div>B</div><p>no body</p>"
    assert banner.inject(b"<body><p>fine</p>", "") == b"<body><p>fine</p>"


# -- the session: last good pages, problems, engines imported afresh ------------------------------------------


def test_a_broken_engine_keeps_the_last_good_site_until_it_is_fixed(mini: Path, tmp_path: Path) -> None:
    said: list[str] = []
    session = Session(mini, tmp_path / "serve", say=said.append)
    session.start()
    first = session.site
    assert (first / "mini/rules/mini.play.html").is_file() and session.problems == {"mini": [], "": []}
    engine = mini / "engine/mini/__init__.py"
    good = engine.read_text(encoding="utf-8")
    lines = len(good.splitlines())
    engine.write_text(good + 'raise ValueError("boom")\n', encoding="utf-8")
    assert session.update()
    broken = f"engine/mini/__init__.py:{lines + 1}: engine 'mini' cannot be imported: ValueError: boom"
    assert session.problems["mini"] == [broken]
    assert f"  - {broken}" in said
    assert session.site == first and (first / "mini/rules/mini.play.html").is_file()  # the last good site stays
    assert session.placed() == [(broken, ["mini/*"])]
    rule = mini / "rules_src/mini/chapters/play.md"  # a rule edit must not pass on the old engine's modules
    rule.write_text(rule.read_text(encoding="utf-8").replace("On your turn", "On each turn"), encoding="utf-8")
    assert session.update()
    assert session.problems["mini"] == [broken]
    engine.write_text(good, encoding="utf-8")
    assert session.update()
    assert session.problems == {"mini": [], "": []} and session.site != first
    assert session.previous == first and first.is_dir()  # kept one build longer, for requests that looked it up
    assert "On each turn" in (session.site / "mini/rules/mini.play.html").read_text(encoding="utf-8")
    assert not session.update()  # nothing changed since


def test_a_quick_rebuild_renders_only_changed_pages_and_equals_a_full_build(mini: Path, tmp_path: Path) -> None:
    from rulepress.analyze.impact import saved_impacts
    from rulepress.publish.build import render_site
    from rulepress.verify.gate import Report

    session = Session(mini, tmp_path / "serve", say=lambda line: None)
    session.start()
    glossary = session.site / "mini/glossary.html"
    made = glossary.stat().st_mtime_ns
    _edit(mini / "rules_src/mini/chapters/play.md", "On your turn take", "On your turn, quickly, take")
    assert session.update()
    assert session.renderer.rendered == {"mini/rules/mini.play.html"}  # only the page whose Markdown changed
    assert (session.site / "mini/glossary.html").stat().st_mtime_ns == made  # copied, not rendered again
    checks = [session.checks["mini"]]
    render_site(mini, Report(books=checks), {"mini": saved_impacts(mini, checks[0])}, tmp_path / "full")
    quick, full = digests(session.site), digests(tmp_path / "full")
    differ = sorted(path for path in full.keys() | quick.keys() if quick.get(path) != full.get(path))
    assert differ == []  # every byte, the search index's order too

    def entries(site: Path) -> list[str]:
        index = json.loads((site / "search/search_index.json").read_text(encoding="utf-8"))
        return sorted(json.dumps(doc, sort_keys=True) for doc in index["docs"])

    assert entries(session.site) == entries(tmp_path / "full")
    assert any("quickly" in entry for entry in entries(session.site))
    _edit(mini / "examples/mini/mini-last-stone.yaml", "title: Taking the last stone", "title: The last stone")
    assert session.update()
    assert session.renderer.rendered is None  # the navigation changed: every page was rendered


def test_a_save_that_changed_nothing_does_not_reload_the_browser(mini: Path, tmp_path: Path) -> None:
    from rulepress.serve.server import PreviewServer

    session = Session(mini, tmp_path / "serve", say=lambda line: None)
    session.start()
    server = PreviewServer(session, "127.0.0.1", _free_port())
    try:
        server._wanted_epoch = server._visible_epoch + 1  # as mkdocs' build loop does before calling rebuild
        server.rebuild()  # a second event of a save already seen
        assert server._wanted_epoch == server._visible_epoch
        _edit(mini / "rules_src/mini/chapters/play.md", "On your turn take", "On your turn, take")
        server._wanted_epoch = server._visible_epoch + 1
        server.rebuild()
        assert server._wanted_epoch == server._visible_epoch + 1  # a real change: the browsers reload
        assert server.root == str(session.site)
    finally:
        server.server_close()


def digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


# -- the command line ----------------------------------------------------------------------------------------


def test_serve_refuses_an_unknown_book_and_a_busy_port_before_building(
        mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(mini), "serve", "--book", "nope"]) == 1
    assert capsys.readouterr().err == "rulepress serve: rules_src/nope: no such book (books: mini)\n"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["--root", str(mini), "serve", "--port", str(port)]) == 1
    assert capsys.readouterr().err == (f"rulepress serve: port {port} on 127.0.0.1 is in use or not allowed; "
                                       "choose another with --port\n")
    cache = mini / ".rulepress-cache"  # nothing was built (reading the list of books may keep its parsed YAML)
    assert {path.relative_to(cache).parts[:2] for path in cache.rglob("*") if path.is_file()} <= {("content", "yaml")}


def test_a_killed_session_s_folder_is_removed_by_the_next_start_and_a_live_one_s_kept(tmp_path: Path) -> None:
    from rulepress.serve.server import sweep_stale

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # reaped: its pid names no process now
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        cache = tmp_path / ".rulepress-cache"
        for pid in (dead.pid, live.pid):
            (cache / f"serve-{pid}" / "site-1").mkdir(parents=True)
        (cache / "content").mkdir()
        assert sweep_stale(cache) == [cache / f"serve-{dead.pid}"]
        assert sorted(p.name for p in cache.iterdir()) == ["content", f"serve-{live.pid}"]
    finally:
        live.kill()
        live.wait()


# -- the whole loop in a real browser ---------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def _serving(root: Path, port: int, log: Path) -> Iterator[str]:
    with log.open("w") as out:
        server = subprocess.Popen([sys.executable, "-m", "rulepress", "--root", str(root), "serve", "--port",
                                   str(port), "--no-pdf"], stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(url + "index.html", timeout=5).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"rulepress serve did not start:\n{log.read_text()}") from None
                time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_edit_a_rule_see_it_break_an_example_see_the_banner_fix_it_see_it_go(
        mini: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    playwright = pytest.importorskip("playwright.sync_api", reason="installed by `nox -s tests`")
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: `nox -s tests` installs it (Debian package chromium)")
    log = tmp_path / "serve.log"
    example = mini / "examples/mini/mini-last-stone.yaml"
    with _serving(mini, _free_port(), log) as url, playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page()
        fetched: list[str] = []
        page.on("request", lambda request: fetched.append(request.url))
        page.goto(url + "mini/rules/mini.play.html")
        assert "On your turn take 1 to 3 stones" in page.inner_text("article")

        _edit(mini / "rules_src/mini/chapters/play.md", "On your turn take", "On your turn, quickly, take")
        page.wait_for_function("document.querySelector('article').innerText.includes('quickly')", timeout=90_000)

        page.goto(url + "mini/examples/mini-last-stone.html")
        _edit(example, "winner: Ben}", "winner: Ann}")
        page.wait_for_selector("#rulepress-problems", timeout=90_000)
        shown = page.inner_text("#rulepress-problems")
        assert "Taking the last stone" in page.inner_text("article")  # the last good page, under the banner
        page.goto(url + "mini/rules/mini.play.html")
        pointer = page.inner_text("#rulepress-problems")

        _edit(example, "winner: Ann}", "winner: Ben}")
        page.goto(url + "mini/examples/mini-last-stone.html")
        page.wait_for_selector("#rulepress-problems", state="detached", timeout=90_000)
        browser.close()
    assert main(["--root", str(mini), "verify"]) == 0
    _edit(example, "winner: Ben}", "winner: Ann}")
    assert main(["--root", str(mini), "verify"]) == 1
    cli = capsys.readouterr().out
    assert f"     {FAILED}\n" in cli  # what `rulepress verify` prints, word for word
    assert shown == f"rulepress: 1 problem(s) on this page; what you see is the last good build.\n{FAILED}"
    assert pointer == "Problems on other pages of this book:\nmini/examples/mini-last-stone.html"
    assert f"  - {FAILED}\n" in log.read_text()  # and the terminal says the same
    remote = [u for u in fetched if not u.startswith((url, "data:", "blob:", "about:"))]
    assert not remote, f"the preview fetched {remote}"


def test_a_book_s_pdfs_follow_in_the_background_and_stay_linked_until_new_ones_arrive(
        mini: Path, tmp_path: Path) -> None:
    said: list[str] = []
    session = Session(mini, tmp_path / "serve", say=said.append, pdfs=True)
    names = ["mini-designer.pdf", "mini-digital.pdf", "mini.pdf"]

    def arrived(count: int) -> dict[str, bytes]:
        deadline = time.monotonic() + 240
        while said.count("PDFs of mini ready") < count:
            assert time.monotonic() < deadline, said
            time.sleep(0.2)
        return {p.name: p.read_bytes() for p in sorted((session.site / "pdf").glob("*.pdf"))}

    try:
        session.start()
        first = arrived(1)
        assert sorted(first) == names and all(data.startswith(b"%PDF-") for data in first.values())
        _edit(mini / "rules_src/mini/chapters/play.md", "On your turn take", "On your turn, take")
        assert session.update()
        linked = {p.name: p.read_bytes() for p in sorted((session.site / "pdf").glob("*.pdf"))}
        assert linked == first  # the new site links the last PDFs at once
        second = arrived(2)
        assert sorted(second) == names and second["mini.pdf"] != first["mini.pdf"]
    finally:
        session.stop()
    assert not (tmp_path / "serve" / "pdf-jobs").exists() or not any((tmp_path / "serve" / "pdf-jobs").iterdir())
