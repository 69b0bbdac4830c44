"""What a site needs to run a book's engine in the browser: the bundle Pyodide unpacks, the referee's settings, the
positions each example's frames kept, and Pyodide itself (vendored: nothing is fetched from the network).

The engine runs unchanged.  The bundle holds its package (code and narration catalogs: its regular files only, never
a symbolic link) under the name the build imported it as, and the parts of rulepress it and the referee import:
worked out from their imports (rulepress/verify/closure.py), never listed by hand, and only from rulepress's base
layer, whose libraries the browser has or the bundle carries (pure-Python Babel for the catalogs, with the locale
data of the book's languages only; PyYAML's reader for a move a reader writes).  The text widths the engines lay
labels out with (``rulepress/textwidth.py``) go along as a table, its fonts and fontTools stay behind.  The referee
itself is ``rulepress/render/browser/referee.py``.  The gate has already refused an engine that imports what the
browser lacks (``closure.browser_problems``).

An example's positions are gzipped in the site too (:func:`is_positions`).  Pyodide goes into the site lighter than it
is vendored (:func:`site_file`): its interpreter (``pyodide.asm.wasm``,
``pyodide.asm.mjs``) gzipped, which the page unpacks as it starts it (theme/assets/stepper.js), and its lock without
the packages it lists, none of which the site carries or loads.  Any static host serves these as plain files.

Colours on screen come from the book's own output intent (its proof, ``BookCheck.proof``): the build converts every
ink the book's diagrams and palette use, and the referee maps the diagrams it draws through that table.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import io
import json
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rulepress import i18n, store, textwidth, usercache
from rulepress.data import package_path
from rulepress.load.book import Book
from rulepress.proof import Proof
from rulepress.protocol import EngineSpec
from rulepress.render import palette
from rulepress.verify.closure import REFEREE, SHIPPED, cached_closure
from rulepress.verify.engines import engine_files
from rulepress.verify.replay import ExampleResult

PYODIDE = "assets/vendor/pyodide"  # in the site (the root site's; a language's site points there)
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
PACKED = ("pyodide.asm.wasm", "pyodide.asm.mjs")  # gzipped in the site (``<name>.gz``): the page unpacks them
_EPOCH = (1980, 1, 1, 0, 0, 0)  # every entry's date: the same sources give the same bundle, byte for byte


def wanted(book: Book) -> bool:
    """Whether the book's site pages let a reader try moves (``try_moves`` in book.yaml, on by default)."""
    return book.data.get("try_moves", True) is not False


def pyodide_folder() -> Path:
    return package_path("render", "theme", *PYODIDE.split("/"))


def site_file(name: str) -> tuple[str, bytes] | None:
    """A vendored Pyodide file as the site carries it: its name there and its bytes, or None to copy it as it is."""
    if name in PACKED:
        return f"{name}.gz", _packed(name)
    if name == "pyodide-lock.json":  # what the loader reads at start: the version, and no package to fetch
        lock = json.loads((pyodide_folder() / name).read_text(encoding="utf-8"))
        return name, json.dumps({"info": lock["info"], "packages": {}}, sort_keys=True).encode()
    return None


BUNDLES = store.declare("bundle", keep=30)  # a referee's bundle, kept under its files
PACKED_KIND = "pyodide"  # the user's cache's kind (rulepress/usercache.py): made from installed files only
PACKED_MOST = 64 * 1024 * 1024


@functools.cache  # once a process: the build and every rebuild of rulepress serve
def _packed(name: str) -> bytes:
    # Gzipping the interpreter took half a second of every site process (a one-rule edit's too); it is a function
    # of rulepress's installed files, so it is kept between processes as the installed themes' templates are.
    if not store.enabled():
        return gzipped((pyodide_folder() / name).read_bytes())
    key = store.key_of(store.code_digest(), zlib.ZLIB_RUNTIME_VERSION, name)  # another zlib, other bytes
    packed = usercache.read(PACKED_KIND, key, PACKED_MOST)
    if packed is None:
        packed = gzipped((pyodide_folder() / name).read_bytes())
        usercache.write(PACKED_KIND, key, packed, keep=2 * len(PACKED))
    return packed


def gzipped(data: bytes) -> bytes:
    """``data`` gzipped with no date in its header: the same sources, the same site."""
    return gzip.compress(data, compresslevel=6, mtime=0)


def is_positions(path: str) -> bool:
    """Whether a generated file is an example's positions (``<book>/referee/<example>.json``), which the site
    carries gzipped (``.json.gz``, unpacked by the page, theme/assets/stepper.js): they repeat a game's state step
    after step."""
    parts = path.split("/")
    return len(parts) == 3 and parts[1] == "referee" and parts[2].endswith(".json") and parts[2] != "config.json"


def bundle(engine: EngineSpec, book: Book) -> bytes:
    """The zip Pyodide unpacks: the engine, the parts of rulepress it and the referee import, the libraries those
    need, the width table."""
    folder = book.root / "engine" / book.engine_package
    namespace = engine.module_name.rpartition(".")[0]
    needs = cached_closure(folder, namespace, REFEREE)
    files: dict[str, bytes] = {}
    base = package_path()
    for name in needs.modules:
        files[f"rulepress/{name}"] = (base / name).read_bytes()
    if "textwidth.py" in needs.modules:
        files[f"rulepress/{textwidth.TABLE}"] = json.dumps(textwidth.table(), sort_keys=True).encode()
    for library in sorted(needs.libraries & set(SHIPPED)):
        files.update(_library(library, i18n.book_languages(book.data)))
    for path in engine_files(folder, book.root, skip_links=True):  # its regular files: never a link out of it
        if path.suffix in (".py", ".po"):
            files[f"{namespace}/{folder.name}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
    # The zip is a function of its files alone, and compressing them was a quarter of a one-rule edit's site step:
    # it is kept under their names and bytes, the Python and zlib that zip them (a kept site holds the same zip).
    key = store.key_of(store.code_digest(), zlib.ZLIB_RUNTIME_VERSION,
                       *(part for name in sorted(files) for part in (name, files[name])))
    kept = store.Store(book.root)
    packed = kept.get(BUNDLES, key, ".zip")
    if packed is None:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for name in sorted(files):
                entry = zipfile.ZipInfo(name, _EPOCH)
                entry.external_attr = 0o644 << 16
                entry.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(entry, files[name])
        packed = out.getvalue()
        kept.put(BUNDLES, key, packed, ".zip")
    return packed


def _library(name: str, languages: Iterable[str]) -> dict[str, bytes]:
    """A pure-Python library's modules as installed (its C speed-ups stay behind; each falls back without them)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"rulepress needs {name} installed to pack the in-browser engine")
    folder = Path(spec.origin).parent
    files = {f"{name}/{p.relative_to(folder).as_posix()}": p.read_bytes() for p in sorted(folder.rglob("*.py"))
             if "__pycache__" not in p.parts}
    if name == "babel":  # what reading a catalog's header parses: the languages' data and the plural rules
        data = ["global.dat", "locale-data/root.dat"]
        data += [f"locale-data/{lang.split('-')[0].split('_')[0]}.dat" for lang in languages]
        files.update({f"babel/{item}": (folder / item).read_bytes() for item in data if (folder / item).is_file()})
    return files


def screen_colour_map(svgs: Iterable[str], engine: EngineSpec, screen: Proof) -> dict[str, str]:
    """Each ink written in ``svgs`` and in the game's palette (``device-cmyk(...)`` as written) -> its screen colour
    through the book's proof ``screen``."""
    inks = [*palette.HOUSE.values(), *palette.game_palette(engine.palette).values()]
    written = {palette.device_cmyk(colour) for colour in inks}
    for svg in svgs:
        written.update(match.group(0) for match in palette.DEVICE_CMYK.finditer(svg))
    return {ink: screen.written(ink) for ink in sorted(written)}


def positions(result: ExampleResult) -> dict[str, Any]:
    """An example's positions for the referee: the distinct states of its frames (:mod:`rulepress.codec`'s data, which
    the referee reads without running anything), and which each frame opens (None where its state could not be
    kept), with the options its game is made with."""
    kept: list[Any] = []
    index: dict[str, int] = {}
    opens: list[int | None] = []
    for frame in result.frames:
        if frame.position is None:
            opens.append(None)
            continue
        if frame.position not in index:
            index[frame.position] = len(kept)
            kept.append(json.loads(frame.position))
        opens.append(index[frame.position])
    return {"options": result.example.options, "positions": kept, "opens": opens}
