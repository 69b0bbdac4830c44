"""A content-hash cache under ``.rulepress-cache/content/``: replays, the rendered site and the PDFs.

Every entry is found by the SHA-256 of everything its output depends on, never by a time stamp, so a
rebuild after an edit redoes only what the edit reaches and reuses the rest byte for byte:

- a parsed YAML file: its text (and rulepress's code);
- a replay (with its diagrams): the example file, the engine's source files, the book's ``book.yaml`` and
  ``components.yaml``, the options, the flags, and rulepress's own code;
- the site: each book's sources, examples and engine (its pages are made from them), the saved impacts,
  the project's ``mkdocs.yml`` and ``site_src/`` (the theme and plugin are rulepress's code) and the build
  date mkdocs stamps into ``sitemap.xml``.  A site
  whose inputs changed starts from the one kept last: only the pages whose Markdown changed are rendered
  again (rulepress/serve/quick.py), the same bytes as a full build, and a language's site whose generated files
  are all the same is not built at all.  Files a build did not write again are hard links between kept sites
  (never to a published one);
- a book's site pages in one language (``pages``): what its check was made from (``BookCheck.inputs``: its
  sources, examples and engine, when none changed while it was checked), its impact and the saved reports;
- the engine's rule-ID literals and parse check (``trace``), its narration catalogs' problems and a book's
  translations' findings (``findings``): the engine's files, or the book's check;
- the theme's compiled Jinja templates (``jinja``, Jinja's own bytecode cache, checked against each source);
- a player page's pass of the player-text check (``player``): its text, the rule prefix and the engine's files;
- a book's question impact (its examples replayed under every other answer): the book's sources but not its
  chapters' prose, its rules, examples and engine, and the saved simulations;
- the designer's analysis section (matplotlib plots): the saved analysis and the engine;
- a PDF: what its edition's HTML is made from (:func:`edition_inputs`), the layout it starts from, the book's
  source folder (images the HTML may fetch), the date stamped into it and rulepress's own code (which holds the
  template, fonts and profile);
- a PDF's preflight: its bytes and edition (only a pass is kept; a build's PDF workers preflight each PDF they
  make, and their passes are also remembered by the build's process, cache or not).

"rulepress's own code" is every file of the installed package, so changing rulepress invalidates all of it.
On top, a process remembers small pure results it made (:func:`remembered`): rendered rule-text templates
(their text over the same plain data), schema checks passed (the same data) and the entries above it read:
a serve session or a second build in one process asks for them again after every edit.
Only good results are kept: a failed replay, a refused site or a broken PDF is redone every time.
``RULEPRESS_CACHE=0`` turns the cache off (nothing read, nothing written).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from rulepress import environment
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


def sources_digest(folder: Path) -> str:
    """:func:`tree_digest`, and the names of the folders too (an empty translation folder is a warning)."""
    digest = hashlib.sha256(tree_digest(folder).encode())
    if folder.is_dir():
        for path in sorted(p for p in folder.rglob("*") if p.is_dir() and not _SKIP & set(p.parts)):
            digest.update(str(path.relative_to(folder)).encode() + b"\0")
    return digest.hexdigest()


def book_sources_digest(root: Path, book_id: str) -> str:
    """A book's sources and examples (its translations are inside them)."""
    return key_of(sources_digest(root / "rules_src" / book_id), sources_digest(root / "examples" / book_id))


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


def enabled() -> bool:
    """``RULEPRESS_CACHE=0`` turns every cache off, on disk and in this process."""
    return environment.cache_enabled()


class Cache:
    """Files under ``<root>/.rulepress-cache/content/<kind>/``, written atomically (a killed build leaves no half)."""

    def __init__(self, root: Path) -> None:
        self.folder = root / FOLDER
        self.enabled = enabled()  # RULEPRESS_CACHE=0: every output made afresh, none kept
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


# -- this process's memory of small pure results ------------------------------------------------------------

_MEMO: dict[tuple[str, str], Any] = {}
MEMO_SIZE = 20_000  # entries: rendered templates and passed schema checks are a few kB each at most
_NOTHING = object()


def remembered(kind: str, key: str, make: Callable[[], Any], keep: Callable[[Any], bool] = lambda value: True) -> Any:
    """``make()``, or what it gave for the same ``key`` before in this process (``keep(value)``: whether to).

    For results that are a function of their key alone and never changed by their users (a string, a bool, a
    tuple): a serve session or a process building again asks for them on every save, and a fresh process has
    them from the disk caches above them.  ``RULEPRESS_CACHE=0`` turns it off with the rest of the cache.
    """
    if not enabled():
        return make()
    found = _MEMO.get((kind, key), _NOTHING)
    if found is not _NOTHING:
        return found
    value = make()
    if keep(value):
        if len(_MEMO) >= MEMO_SIZE:  # the oldest first (dicts keep insertion order)
            del _MEMO[next(iter(_MEMO))]
        _MEMO[(kind, key)] = value
    return value


def kept_data(root: Path, kind: str, key: str, make: Callable[[], Any]) -> Any:
    """``make()`` (plain data), kept under ``kind`` on disk and in this process; each call returns a fresh copy,
    so its user may change it.  Errors are not kept: ``make()`` raises again."""
    key = key_of(code_digest(), key)
    store = Cache(root)

    def load() -> bytes:
        data = store.get(kind, key)
        if data is None:
            data = pickle.dumps(make(), protocol=5)
            store.put(kind, key, data)
        return data

    return pickle.loads(remembered(kind, key, load))


class _NotPlain(Exception):
    pass


class _PlainPickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        # Called only for what pickle does not write natively: anything but exact dicts, lists, tuples, sets,
        # strings, bytes, numbers, booleans and None.  Such a value may act when used (a template context's
        # recording values, see rulepress/load/translations.py), so no result made with it is remembered.
        raise _NotPlain


def plain_digest(value: Any) -> str | None:
    """SHA-256 of ``value`` when it is plain data (types told apart: ``1`` is not ``True`` nor ``"1"``), else
    None.  Pickled, with no Python walk over the value: it is asked for on every template the books render."""
    buffer = io.BytesIO()
    try:
        _PlainPickler(buffer, protocol=5).dump(value)
    except (_NotPlain, pickle.PicklingError, TypeError, RecursionError):
        return None
    return hashlib.sha256(buffer.getvalue()).hexdigest()


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


def replay_inputs(book: Book, engine: ModuleType) -> str:
    """What every replay of a book reads besides its example: the engine's files, ``book.yaml`` and
    ``components.yaml`` (worked out once for all of a book's examples: it lists every engine file)."""
    source = book.root / "rules_src" / book.id
    inputs = [(source / name).read_bytes() if (source / name).is_file() else b"" for name in
              ("book.yaml", "components.yaml")]
    return key_of(engine_digest(engine_folder(engine, book)), *inputs)


def replay_key(example: Example, book: Book, engine: ModuleType, draw: bool, prose: bool,
               options: Mapping[str, Any] | None, shared: str | None = None) -> str:
    """``shared``: :func:`replay_inputs` of the book, when the caller has it."""
    return key_of(code_digest(), example.file, (book.root / example.file).read_bytes(),  # a relative path
                  shared or replay_inputs(book, engine),
                  json.dumps(dict(options or {}), sort_keys=True, default=repr), f"draw={draw} prose={prose}")


def cached_replay(example: Example, book: Book, engine: ModuleType, *, draw: bool = True, prose: bool = True,
                  options: Mapping[str, Any] | None = None, store: Cache | None = None,
                  shared: str | None = None) -> ExampleResult:
    """:func:`~rulepress.verify.replay.replay`, reusing the result of the same inputs when it passed
    (``shared``: :func:`replay_inputs` of the book, when the caller has it)."""
    store = store or Cache(book.root)
    try:
        key = replay_key(example, book, engine, draw, prose, options, shared)
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


# -- the gate's other checks ------------------------------------------------------------------------------------


def catalog_problems(folder: Path, languages: list[str], root: Path) -> list[str]:
    """:func:`rulepress.i18n.catalog_problems` (Babel extracting every engine file), read again only when a file
    of the engine (its catalogs are inside it) changed."""
    from rulepress import i18n

    key = key_of(str(folder), str(root), json.dumps(languages), engine_digest(folder))
    found: list[str] = kept_data(root, "findings", key, lambda: i18n.catalog_problems(folder, languages, root))
    return found


def translation_findings(check: BookCheck) -> tuple[list[str], list[str]]:
    """:func:`rulepress.analyze.translations.gate_findings` of a book (every translation loaded and compared with
    its source), worked out again only when the book's sources or examples changed (translations live there)."""
    from rulepress.analyze import translations

    book = check.book
    if check.inputs is None:  # a file changed while the book was checked: nothing to keep it under
        return translations.gate_findings(book, check.examples)
    errors, warnings = kept_data(book.root, "findings", key_of("translations", check.inputs),
                                 lambda: translations.gate_findings(book, check.examples))
    return list(errors), list(warnings)


# -- a book's site pages ----------------------------------------------------------------------------------------


def pages_key(check: BookCheck, impact: Any, lang: str | None) -> str | None:
    """What a book's site pages in ``lang`` are made from (rulepress/render/site.py): its check (see
    ``BookCheck.inputs``), its question impact and the saved reports (the designer's analysis); None when the check
    cannot say what it was made from."""
    if check.inputs is None:
        return None
    return key_of(code_digest(), check.inputs, str(lang), json.dumps(impact, sort_keys=True, default=repr),
                  tree_digest(check.book.root / "reports"), " ".join(r.status for r in check.results))


# -- question impact ------------------------------------------------------------------------------------------


def cached_impacts(root: Path, check: BookCheck, store: Cache | None = None) -> dict[str, Any]:
    """:func:`~rulepress.analyze.impact.saved_impacts` (every example replayed under every other answer of every
    question: most of a rebuild's verification), reused while the book, its examples, its engine and the saved
    simulations are unchanged.  An answer whose replay hit the time limit is not kept: a loaded machine's."""
    from rulepress.analyze.impact import saved_impacts

    store = store or Cache(root)
    key = _impact_key(root, check)
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


def impacts_kept(root: Path, check: BookCheck, store: Cache | None = None) -> bool:
    """Whether :func:`cached_impacts` would answer from the cache (a build then needs not wait for it)."""
    store = store or Cache(root)
    return store.enabled and store.get("impact", _impact_key(root, check)) is not None


def _impact_key(root: Path, check: BookCheck) -> str:
    from rulepress.analyze.analysis import report_path  # the saved analysis holds each answer's simulated play

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
    return key


# -- the designer's analysis section ---------------------------------------------------------------------------


def cached_designer_markdown(root: Path, book_id: str, words: Any, book: Book | None = None, cmyk: bool = False,
                             heading: bool = True) -> str:
    """:func:`~rulepress.analyze.report.designer_markdown` (the saved analysis with its matplotlib plots: seconds
    a book, and matplotlib's memory), reused while the saved analysis, what decides play, the edition's language and
    rule titles, and rulepress are unchanged.

    The site and the designer PDF show it on every build; without this every build would import matplotlib and
    draw every plot again.
    """
    from rulepress.analyze.analysis import report_path
    from rulepress.analyze.fingerprint import play_digests
    from rulepress.analyze.report import designer_markdown

    saved = report_path(root, book_id)
    try:
        data = saved.read_bytes()
        package = str(json.loads(data).get("engine_package") or "")
    except (OSError, ValueError, AttributeError):
        data, package = b"", ""
    if not data:  # never analysed: an empty section, nothing to draw
        return designer_markdown(root, book_id, words, book, cmyk=cmyk, heading=heading)
    store = Cache(root)
    # The section says when play changed since the analysis: what decides play is part of the key.
    rules = json.dumps([(r.id, r.number, r.title) for r in book.rules.values()] if book else [])
    key = key_of(code_digest(), book_id, f"cmyk={cmyk} heading={heading} lang={getattr(words, 'lang', '')}", data,
                 json.dumps(play_digests(root, package, book_id), sort_keys=True) if package else "", rules)
    kept = store.get("designer", key)
    if kept is not None:
        return kept.decode()
    text = designer_markdown(root, book_id, words, book, cmyk=cmyk, heading=heading)
    store.put("designer", key, text.encode())
    return text


# -- PDFs ---------------------------------------------------------------------------------------------------


@cache
def source_epoch(root: Path) -> int:
    """The date stamped into PDFs: ``$SOURCE_DATE_EPOCH``, else the project's last commit, else 1980-01-01.

    Never "now": two builds of the same sources must give the same bytes (reproducible-builds.org).
    """
    given = environment.source_date_epoch()
    if given is not None:
        return given
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

    edition = edition_of(path)
    return cached_read_back(path, root, edition, lambda: preflight_pdf(path, edition), store)


def cached_read_back(path: Path, root: Path, label: str, check: Callable[[], list[Any]],
                     store: Cache | None = None) -> list[Any]:
    """``check()`` of the PDF at ``path`` (a read-back named ``label``: the edition's preflight, a translation's
    English-left check), skipped for the same bytes that passed it before, in this process or on disk."""
    store = store or Cache(root)
    key = preflight_key(path.read_bytes(), label)
    if key in _PASSED or store.get("preflight", key) is not None:
        return []
    findings = check()
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

    # The theme and the plugin are rulepress's code; the project adds its own pages (site_src/) and mkdocs.yml.
    parts: list[str | bytes] = [code_digest(), get_build_date(), tree_digest(root / "site_src"),
                                (root / "mkdocs.yml").read_bytes() if (root / "mkdocs.yml").is_file() else b"",
                                json.dumps(impacts, sort_keys=True, default=repr)]
    for check in report.books:
        book = check.book
        parts += [book.id, tree_digest(root / "rules_src" / book.id), tree_digest(root / "examples" / book.id),
                  engine_digest(engine_folder(check.engine, book)), " ".join(r.status for r in check.results)]
    return key_of(*parts)


def theme_digest(root: Path) -> str:
    """What every page shows besides its own Markdown: rulepress (its theme and plugin), the project's mkdocs.yml
    and its own pages."""
    return key_of(code_digest(), tree_digest(root / "site_src"),
                  (root / "mkdocs.yml").read_bytes() if (root / "mkdocs.yml").is_file() else b"")


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
        keep_site(store, key, staging, logged.harmless(), renderer.state, previous)
        prune_now(store)
    return logged


PRUNE_EVERY = 300.0  # seconds: pruning lists every entry, and one build after another need not each do it


def prune_now(store: Cache) -> None:
    """Prune every kind (see :data:`KEEP`), at most once every :data:`PRUNE_EVERY` seconds: the cache stays
    bounded, and an author's rebuild after each edit does not list thousands of entries every time."""
    stamp = store.folder / ".pruned"
    try:
        if time.time() - stamp.stat().st_mtime < PRUNE_EVERY:
            return
    except OSError:  # never pruned
        pass
    for kind in KEEP:
        if kind != "site":  # pruned as each site is kept
            prune(store, kind)
    _empty(store.folder / TRASH)  # left by builds that were stopped before they emptied it
    try:
        stamp.touch()
    except OSError:
        pass


def keep_site(store: Cache, key: str, staging: Path, warnings: list[str], state: dict[str, Any] | None = None,
              previous: Path | None = None) -> None:
    """Copy the rendered site into the cache (then the few newest are kept: each is a whole site), with the
    ``state`` the next build's incremental rendering starts from.

    A file the build did not write again (the same size and mtime as in ``previous``, the kept site it started
    from) is a hard link to that site's file instead of a copy: kept sites are only ever read.  Never a link to
    the staged file itself, which is published, and a published site is anyone's to change."""
    folder = store.path("site", key)
    scratch = folder.with_name(f".tmp-{key}-{os.getpid()}")

    def keep(source: str, target: str) -> None:
        if previous is not None:
            before = previous / Path(source).relative_to(staging)
            try:
                now, then = os.stat(source), before.stat()
                if (now.st_size, now.st_mtime_ns) == (then.st_size, then.st_mtime_ns):
                    os.link(before, target)
                    return
            except OSError:  # not in the previous site, or no links here: a copy
                pass
        shutil.copy2(source, target)

    try:
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.parent.mkdir(parents=True, exist_ok=True)
        # mtimes kept: a dirty build compares them.  Not the PDFs the build renders meanwhile (into .pdf/).
        shutil.copytree(staging, scratch, copy_function=keep, ignore=shutil.ignore_patterns(".pdf"))
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(scratch, folder)
        if state:
            store.put("site", key, json.dumps(state, ensure_ascii=False).encode(), ".state")
        store.put("site", key, json.dumps({"warnings": warnings}).encode(), ".json")  # last: marks it whole
        prune(store, "site")
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)


# Entries of each kind kept: a site is a whole copy of the site, a PDF about 1 MB, the others a few kB.
KEEP = {"site": 3, "pdf": 60, "replay": 5000, "impact": 100, "preflight": 200, "designer": 60, "yaml": 5000,
        "trace": 100, "findings": 200, "pages": 60, "player": 5000}


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
            if part.is_dir():  # a whole site: set aside now, deleted by empty_trash once the build is done
                try:
                    (store.folder / TRASH).mkdir(parents=True, exist_ok=True)
                    part.rename(store.folder / TRASH / f"{part.name}-{os.getpid()}-{time.monotonic_ns()}")
                except OSError:
                    shutil.rmtree(part, ignore_errors=True)
            else:
                part.unlink(missing_ok=True)


TRASH = ".trash"


def empty_trash(root: Path) -> None:
    """Delete the kept sites :func:`prune` set aside (hundreds of files each: not while the author waits)."""
    _empty(root / FOLDER / TRASH)


def _empty(folder: Path) -> None:
    if folder.is_dir():
        for entry in folder.iterdir():
            shutil.rmtree(entry, ignore_errors=True)

