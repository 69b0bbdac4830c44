"""A content-hash cache under ``.rulepress-cache/content/``: replays, the rendered site and the PDFs.

Every entry is found by the SHA-256 of everything its output depends on, never by a time stamp, so a
rebuild after an edit redoes only what the edit reaches and reuses the rest byte for byte:

- a parsed YAML file: its text (and rulepress's code);
- a replay (with its diagrams): the example file, the engine's source files, the book's ``book.yaml`` and
  ``components.yaml``, the options, the flags, and rulepress's own code;
- the site: each book's sources, examples and engine (its pages are made from them), the saved impacts,
  ``mkdocs.yml``, ``site_src/``, the hooks file and the build date mkdocs stamps into ``sitemap.xml``.  A site
  whose inputs changed starts from the one kept last: only the pages whose Markdown changed are rendered
  again (rulepress/serve/quick.py), the same bytes as a full build;
- a book's question impact (its examples replayed under every other answer): the book's sources but not its
  chapters' prose, its rules, examples and engine, and the saved simulations;
- the designer's analysis section (matplotlib plots): the saved analysis and the engine;
- a PDF: what its edition's HTML is made from (:func:`edition_inputs`), the layout it starts from, the book's
  source folder (images the HTML may fetch), the date stamped into it and rulepress's own code (which holds the
  template, fonts and profile);
- a PDF's preflight: its bytes and edition (only a pass is kept; a build's PDF workers preflight each PDF they
  make, and their passes are also remembered by the build's process, cache or not).

"rulepress's own code" is every file of the installed package, so changing rulepress invalidates all of it.
Only good results are kept: a failed replay, a refused site or a broken PDF is redone every time.
``RULEPRESS_CACHE=0`` turns the cache off (nothing read, nothing written).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from rulepress.load.book import Book
from rulepress.load.examples import Example
from rulepress.verify.replay import ExampleResult, engine_folder, replay

if TYPE_CHECKING:
    from rulepress.verify.gate import BookCheck, Report

FOLDER = ".rulepress-cache/content"
PACKAGE = Path(__file__).resolve().parent  # rulepress/
_SKIP = {"__pycache__"}


def _files(folder: Path) -> list[Path]:
    """Every file under ``folder`` in a stable order, without bytecode."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*") if p.is_file() and not _SKIP & set(p.parts) and p.suffix != ".pyc")


def tree_digest(folder: Path) -> str:
    """SHA-256 over the relative names and contents of every file under ``folder``."""
    digest = hashlib.sha256()
    for path in _files(folder):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@cache
def code_digest() -> str:
    """rulepress's own files (code, templates, fonts, colour profile) and the Python running them."""
    return hashlib.sha256((tree_digest(PACKAGE) + sys.version).encode()).hexdigest()


def key_of(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


class Cache:
    """Files under ``<root>/.rulepress-cache/content/<kind>/``, written atomically (a killed build leaves no half)."""

    def __init__(self, root: Path) -> None:
        self.folder = root / FOLDER
        self.enabled = os.environ.get("RULEPRESS_CACHE", "1") != "0"  # 0: every output made afresh, none kept
        self.hits: dict[str, int] = {}
        self.misses: dict[str, int] = {}

    def path(self, kind: str, key: str, suffix: str = "") -> Path:
        return self.folder / kind / key[:2] / f"{key}{suffix}"

    def get(self, kind: str, key: str, suffix: str = "") -> bytes | None:
        if not self.enabled:
            self.misses[kind] = self.misses.get(kind, 0) + 1
            return None
        try:
            path = self.path(kind, key, suffix)
            data = path.read_bytes()
            os.utime(path)  # used now: pruning keeps what was used last
        except OSError:
            self.misses[kind] = self.misses.get(kind, 0) + 1
            return None
        self.hits[kind] = self.hits.get(kind, 0) + 1
        return data

    def put(self, kind: str, key: str, data: bytes, suffix: str = "") -> None:
        if not self.enabled:
            return
        target = self.path(kind, key, suffix)
        scratch = None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, scratch = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(scratch, target)
        except OSError:  # a full or read-only disk costs speed, never the build
            if scratch is not None:
                Path(scratch).unlink(missing_ok=True)


# -- parsed YAML ------------------------------------------------------------------------------------------


def cached_parse(root: Path, text: str, parse: Callable[[], Any]) -> Any:
    """``parse()`` of a project's YAML ``text`` (:func:`rulepress.load.yamlsrc.parse_yaml`, pure Python and with
    every line remembered: most of loading the books), reused for the same text.  Only a good parse is kept (a
    refused file raises each time), and each call returns a fresh copy, as parsing does."""
    store = Cache(root)
    key = key_of(code_digest(), text)
    data = store.get("yaml", key)
    if data is not None:
        try:
            return pickle.loads(data)
        except Exception:  # an entry from an older rulepress or a damaged file: parse afresh
            pass
    value = parse()
    try:
        store.put("yaml", key, pickle.dumps(value, protocol=5))
    except Exception:  # a value that does not pickle is just not kept
        pass
    return value


# -- replays ------------------------------------------------------------------------------------------------


@cache
def _engine_digest(folder: Path, stamp: tuple[tuple[str, int, int], ...]) -> str:
    return tree_digest(folder)


def engine_digest(folder: Path) -> str:
    """The engine's files, re-read only when one of their sizes or mtimes changed (a serve session edits them)."""
    stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in _files(folder))
    return _engine_digest(folder, stamp)


def replay_key(example: Example, book: Book, engine: ModuleType, draw: bool, prose: bool,
               options: Mapping[str, Any] | None) -> str:
    source = book.root / "rules_src" / book.id
    inputs = [(source / name).read_bytes() if (source / name).is_file() else b"" for name in
              ("book.yaml", "components.yaml")]
    return key_of(code_digest(), example.file, (book.root / example.file).read_bytes(),  # a relative path
                  engine_digest(engine_folder(engine, book)), *inputs,
                  json.dumps(dict(options or {}), sort_keys=True, default=repr), f"draw={draw} prose={prose}")


def cached_replay(example: Example, book: Book, engine: ModuleType, *, draw: bool = True, prose: bool = True,
                  options: Mapping[str, Any] | None = None, store: Cache | None = None) -> ExampleResult:
    """:func:`~rulepress.verify.replay.replay`, reusing the result of the same inputs when it passed."""
    store = store or Cache(book.root)
    try:
        key = replay_key(example, book, engine, draw, prose, options)
    except OSError:  # the example vanished under us: replay reports it
        return replay(example, book, engine, draw=draw, prose=prose, options=options)
    data = store.get("replay", key)
    if data is not None:
        try:
            kept: ExampleResult = pickle.loads(data)
            return replace(kept, example=example)
        except Exception:  # an entry from an older rulepress or a damaged file: replay afresh
            pass
    result = replay(example, book, engine, draw=draw, prose=prose, options=options)
    if result.ok:  # a failure may be a time limit on a loaded machine: never remember one
        try:
            store.put("replay", key, pickle.dumps(replace(result, example=None), protocol=5))
        except Exception:  # an engine snapshot that does not pickle is just not cached
            pass
    return result


# -- question impact ------------------------------------------------------------------------------------------


def cached_impacts(root: Path, check: BookCheck, store: Cache | None = None) -> dict[str, Any]:
    """:func:`~rulepress.analyze.impact.saved_impacts` (every example replayed under every other answer of every
    question: most of a rebuild's verification), reused while the book, its examples, its engine and the saved
    simulations are unchanged.  An answer whose replay hit the time limit is not kept: a loaded machine's."""
    from rulepress.analyze.impact import report_path, saved_impacts

    store = store or Cache(root)
    book = check.book
    saved = report_path(root, book.id)
    # Not the chapters' text (replays never read it: a rule edit must not replay every answer again), but the
    # rules it defines, which replay messages may name.
    sources = hashlib.sha256()
    folder = root / "rules_src" / book.id
    for path in _files(folder):
        if path.relative_to(folder).parts[0] != "chapters":
            sources.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    rules = json.dumps([(r.id, r.number, r.title, r.level, r.chapter) for r in book.rules.values()])
    key = key_of(code_digest(), book.id, sources.hexdigest(), rules,
                 tree_digest(root / "examples" / book.id), engine_digest(engine_folder(check.engine, book)),
                 saved.read_bytes() if saved.is_file() else b"", " ".join(r.status for r in check.results))
    data = store.get("impact", key)
    if data is not None:
        try:
            kept: dict[str, Any] = json.loads(data)
            return kept
        except ValueError:  # a damaged entry: work it out again
            pass
    impacts = saved_impacts(root, check)
    text = json.dumps(impacts, sort_keys=True, ensure_ascii=False)
    if json.loads(text) == impacts and "engine did not answer within" not in text:  # plain data, no time-out
        store.put("impact", key, text.encode())
    return impacts


# -- the designer's analysis section ---------------------------------------------------------------------------


def cached_designer_markdown(root: Path, book_id: str, cmyk: bool = False, heading: bool = True) -> str:
    """:func:`~rulepress.analyze.report.designer_markdown` (the saved analysis with its matplotlib plots: seconds
    a book, and matplotlib's memory), reused while the saved analysis, its engine and rulepress are unchanged.

    The site and the designer PDF show it on every build; without this every build would import matplotlib and
    draw every plot again.
    """
    from rulepress.analyze.analysis import report_path

    saved = report_path(root, book_id)
    try:
        data = saved.read_bytes()
        package = str(json.loads(data).get("engine_package") or "")
    except (OSError, ValueError, AttributeError):
        data, package = b"", ""
    if not data:  # never analysed: an empty section, nothing to draw
        from rulepress.analyze.report import designer_markdown

        return designer_markdown(root, book_id, cmyk=cmyk, heading=heading)
    store = Cache(root)
    # The section says when the engine changed since the analysis: the engine's code is part of the key.
    key = key_of(code_digest(), book_id, f"cmyk={cmyk} heading={heading}", data,
                 tree_digest(root / "engine" / package) if package else "")
    kept = store.get("designer", key)
    if kept is not None:
        return kept.decode()
    from rulepress.analyze.report import designer_markdown

    text = designer_markdown(root, book_id, cmyk=cmyk, heading=heading)
    store.put("designer", key, text.encode())
    return text


# -- PDFs ---------------------------------------------------------------------------------------------------


@cache
def source_epoch(root: Path) -> int:
    """The date stamped into PDFs: ``$SOURCE_DATE_EPOCH``, else the project's last commit, else 1980-01-01.

    Never "now": two builds of the same sources must give the same bytes (reproducible-builds.org).
    """
    env = os.environ.get("SOURCE_DATE_EPOCH")
    if env and env.isdigit():
        return int(env)
    try:
        done = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct"], capture_output=True,
                              text=True, timeout=10, check=False)
        if done.returncode == 0 and done.stdout.strip().isdigit():
            return int(done.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return 315532800


def edition_inputs(check: BookCheck, name: str, impact: Any) -> str:
    """What an edition's HTML is made from, hashed instead of the HTML itself (making the HTML of every edition
    to hash it costs this process seconds and tens of MB): as for the site, the book's sources (translations
    included), its examples and engine, the saved reports (the designer's analysis and impact), the impact
    passed in, the examples' statuses and rulepress's own code (the template, its strings, fonts, colours)."""
    book = check.book
    root = book.root
    return key_of(name, tree_digest(root / "rules_src" / book.id), tree_digest(root / "examples" / book.id),
                  engine_digest(engine_folder(check.engine, book)), tree_digest(root / "reports"),
                  json.dumps(impact, sort_keys=True, default=repr), " ".join(r.status for r in check.results))


def pdf_key(html_text: str, edition: str, settled: Any, book: Book, epoch: int) -> str:
    """``html_text``: the edition's HTML, or :func:`edition_inputs`."""
    from importlib.metadata import version  # not WeasyPrint itself: the build's process need not load it

    layout = json.dumps(settled.__dict__ if settled is not None else None, sort_keys=True)
    return key_of(code_digest(), version("weasyprint"), edition, html_text, layout,
                  tree_digest(book.root / "rules_src" / book.id), str(epoch))


_PASSED: set[str] = set()  # preflight keys passed in this process, kept even with the cache off (see below)


def preflight_key(data: bytes, edition: str) -> str:
    return key_of(code_digest(), edition, hashlib.sha256(data).hexdigest())


def preflight_passed(key: str, store: Cache) -> None:
    """Remember that the PDF of ``key`` passed: a build's PDF workers preflight each PDF as soon as it is made
    (in parallel), and the build's own check of the staged PDFs then finds it here instead of reading it again."""
    _PASSED.add(key)
    store.put("preflight", key, b"passed")


def cached_preflight(path: Path, root: Path, store: Cache | None = None) -> list[Any]:
    """:func:`~rulepress.publish.preflight.preflight_pdf` (reading every page back: seconds a PDF), skipped for
    the same bytes of the same edition that passed before.  Findings are never kept: they name the staged file."""
    from rulepress.publish.preflight import edition_of, preflight_pdf

    store = store or Cache(root)
    edition = edition_of(path)
    key = preflight_key(path.read_bytes(), edition)
    if key in _PASSED or store.get("preflight", key) is not None:
        return []
    findings = preflight_pdf(path, edition)
    if not findings:
        preflight_passed(key, store)
    return findings


def get_pdf(store: Cache, key: str) -> tuple[bytes, dict[str, Any]] | None:
    meta = store.get("pdf", key, ".json")
    if meta is None:
        return None
    data = store.get("pdf", key, ".pdf")
    return None if data is None else (data, json.loads(meta))


def put_pdf(store: Cache, key: str, pdf: Path, meta: dict[str, Any]) -> None:
    store.put("pdf", key, pdf.read_bytes(), ".pdf")
    store.put("pdf", key, json.dumps(meta, sort_keys=True).encode(), ".json")  # last: it marks the entry whole


# -- the site -----------------------------------------------------------------------------------------------


class Replayed:
    """What a cached site's mkdocs run warned about, answering as the build's log collector does."""

    def __init__(self, warnings: list[str]) -> None:
        self.warnings = warnings

    def fatal(self, tool: str) -> list[str]:
        return []  # a site with a fatal warning was refused, never kept

    def harmless(self) -> list[str]:
        return list(self.warnings)


def site_key(root: Path, report: Report, impacts: Mapping[str, Any]) -> str:
    """The site's inputs: each book's sources, examples and engine, the impacts, the theme and mkdocs' date.

    The pages are a function of these (a replay, of its example, engine and components), so hashing them is
    enough, and much cheaper than generating every page to hash it.
    """
    from mkdocs.utils import get_build_date

    hooks = root / "rulepress" / "render" / "mkdocs_hooks.py"  # a project may carry its own copy
    parts: list[str | bytes] = [code_digest(), get_build_date(), tree_digest(root / "site_src"),
                                (root / "mkdocs.yml").read_bytes() if (root / "mkdocs.yml").is_file() else b"",
                                hooks.read_bytes() if hooks.is_file() else b"",
                                json.dumps(impacts, sort_keys=True, default=repr)]
    for check in report.books:
        book = check.book
        parts += [book.id, tree_digest(root / "rules_src" / book.id), tree_digest(root / "examples" / book.id),
                  engine_digest(engine_folder(check.engine, book)), " ".join(r.status for r in check.results)]
    return key_of(*parts)


def theme_digest(root: Path) -> str:
    """What every page shows besides its own Markdown: rulepress, mkdocs.yml, the theme's files, the hooks."""
    hooks = root / "rulepress" / "render" / "mkdocs_hooks.py"  # a project may carry its own copy
    return key_of(code_digest(), tree_digest(root / "site_src"),
                  (root / "mkdocs.yml").read_bytes() if (root / "mkdocs.yml").is_file() else b"",
                  hooks.read_bytes() if hooks.is_file() else b"")


def latest_site(store: Cache) -> tuple[Path, dict[str, Any]] | tuple[None, None]:
    """The kept site used last and the state its build left (see rulepress/serve/quick.py), if any."""
    if not store.enabled:
        return None, None
    found = []
    for marker in store.folder.glob("site/*/*.json"):
        try:
            found.append((marker.stat().st_mtime, marker))
        except OSError:  # pruned by another build meanwhile
            continue
    for _, marker in sorted(found, reverse=True):
        try:
            state = json.loads(marker.with_suffix(".state").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if marker.with_suffix("").is_dir() and isinstance(state, dict):
            return marker.with_suffix(""), state
    return None, None


def cached_site(root: Path, report: Report, impacts: dict[str, Any], staging: Path,
                render: Callable[..., Any], store: Cache | None = None) -> Any:
    """``render(root, report, impacts, staging)`` (the build's mkdocs run), or a copy of the site the same inputs
    gave last time.  Returns what was warned about, as ``render`` does.

    When the inputs changed, the site kept last is the start: only the pages whose Markdown changed are rendered
    again (:mod:`rulepress.serve.quick`, as the preview does; the same bytes as a full build), unless a
    navigation or the theme changed.
    """
    from rulepress.render import site as site_pages
    from rulepress.serve.quick import Renderer

    store = store or Cache(root)
    key = site_key(root, report, impacts)
    folder = store.path("site", key)
    meta = store.get("site", key, ".json")
    if meta is not None and store.enabled and folder.is_dir():
        shutil.copytree(folder, staging, dirs_exist_ok=True)
        site_pages.TIMING.clear()
        return Replayed(list(json.loads(meta)["warnings"]))
    previous, state = latest_site(store)
    renderer = Renderer(state)
    logged = renderer.render(root, report, impacts, previous, staging, render=render, fingerprint=theme_digest(root))
    if store.enabled and not logged.fatal("mkdocs"):
        keep_site(store, key, staging, logged.harmless(), renderer.state)
        for kind in ("pdf", "replay", "impact", "preflight", "designer", "yaml"):  # once a build: stays bounded
            prune(store, kind)
    return logged


def keep_site(store: Cache, key: str, staging: Path, warnings: list[str], state: dict[str, Any] | None = None) -> None:
    """Copy the rendered site into the cache (then the few newest are kept: each is a whole site), with the
    ``state`` the next build's incremental rendering starts from."""
    folder = store.path("site", key)
    scratch = folder.with_name(f".tmp-{key}-{os.getpid()}")
    try:
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.parent.mkdir(parents=True, exist_ok=True)
        # mtimes kept: a dirty build compares them.  Not the PDFs the build renders meanwhile (into .pdf/).
        shutil.copytree(staging, scratch, copy_function=shutil.copy2, ignore=shutil.ignore_patterns(".pdf"))
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(scratch, folder)
        if state:
            store.put("site", key, json.dumps(state, ensure_ascii=False).encode(), ".state")
        store.put("site", key, json.dumps({"warnings": warnings}).encode(), ".json")  # last: marks it whole
        prune(store, "site")
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)


# Entries of each kind kept: a site is a whole copy of the site, a PDF about 1 MB, the others a few kB.
KEEP = {"site": 3, "pdf": 60, "replay": 5000, "impact": 100, "preflight": 200, "designer": 60, "yaml": 5000}


def prune(store: Cache, kind: str) -> None:
    """Drop all but the ``KEEP[kind]`` entries of ``kind`` used last (a hit touches its entry)."""
    marker = ".json" if kind in ("site", "pdf") else ""  # a site's or a PDF's .json is written last: it marks it
    entries = []
    for path in store.folder.glob(f"{kind}/*/*"):
        if not path.name.startswith(".tmp-") and path.suffix == marker:
            try:
                entries.append((path.stat().st_mtime, path))
            except OSError:  # pruned by another build meanwhile
                continue
    for _, path in sorted(entries, reverse=True)[KEEP[kind]:]:
        for part in (path, path.with_suffix(""), path.with_suffix(".pdf"), path.with_suffix(".state")):
            if part.is_dir():
                shutil.rmtree(part, ignore_errors=True)
            else:
                part.unlink(missing_ok=True)

