"""What a site needs to run a book's engine in the browser: the bundle Pyodide unpacks, the referee's settings, the
positions each example's frames kept, and Pyodide itself (vendored: nothing is fetched from the network).

The engine runs unchanged.  The bundle holds its package (code and narration catalogs) under the name the build
imported it as, and the parts of rulepress it imports: the protocol and the base class, the narration catalogs'
reader (``i18n``, with the pure-Python Babel it reads ``.po`` files with, and the locale data of the book's
languages only), the palette's inks (``render/palette.py``, which converts no colour there) and a stand-in
for ``render/metrics.py``, whose fontTools stays behind: the widths it reads from the shipped fonts go along as a
table (``browser/metrics.py``).  PyYAML's pure-Python reader reads a move a reader writes.  The referee itself is
``rulepress/render/browser/referee.py``.

Colours on screen come from the book's own output intent (its proof, ``BookCheck.proof``): the build converts every
ink the book's diagrams and palette use, and the referee maps the diagrams it draws through that table.
"""

from __future__ import annotations

import importlib.util
import io
import json
import zipfile
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from rulepress import i18n
from rulepress.data import package_path
from rulepress.load.book import Book
from rulepress.proof import Proof
from rulepress.render import metrics, palette
from rulepress.verify.replay import ExampleResult, engine_folder

PYODIDE = "assets/vendor/pyodide"  # in the site (the root site's; a language's site points there)
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
RULEPRESS_MODULES = ("__init__.py", "protocol.py", "basegame.py", "change.py", "marks.py", "figures.py", "codec.py",
                     "cmyk.py", "i18n.py", "errors.py",
                     "data.py", "load/__init__.py", "load/confine.py", "load/engine_source.py", "load/po.py",
                     "render/__init__.py", "render/palette.py", "render/browser/__init__.py",
                     "render/browser/referee.py")
STAND_INS = {"render/metrics.py": "render/browser/metrics.py"}  # in the bundle: from the package
LIBRARIES = ("babel", "yaml")  # pure Python (PyYAML without its C reader, Babel without most locale data)
_EPOCH = (1980, 1, 1, 0, 0, 0)  # every entry's date: the same sources give the same bundle, byte for byte


def wanted(book: Book) -> bool:
    """Whether the book's site pages let a reader try moves (``try_moves`` in book.yaml, on by default)."""
    return book.data.get("try_moves", True) is not False


def pyodide_folder() -> Path:
    return package_path("render", "theme", *PYODIDE.split("/"))


def bundle(engine: ModuleType, book: Book) -> bytes:
    """The zip Pyodide unpacks: the engine, the parts of rulepress it needs, Babel and PyYAML, the width table."""
    files: dict[str, bytes] = {}
    base = package_path()
    for name in RULEPRESS_MODULES:
        files[f"rulepress/{name}"] = (base / name).read_bytes()
    for target, source in STAND_INS.items():
        files[f"rulepress/{target}"] = (base / source).read_bytes()
    files["rulepress/render/advances.json"] = json.dumps(advance_table(), sort_keys=True).encode()
    for library in LIBRARIES:
        files.update(_library(library, i18n.book_languages(book.data)))
    folder = engine_folder(engine, book)
    namespace = engine.__name__.rpartition(".")[0]
    for path in _sources(folder):
        files[f"{namespace}/{folder.name}/{path.relative_to(folder).as_posix()}"] = path.read_bytes()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            entry = zipfile.ZipInfo(name, _EPOCH)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, files[name])
    return out.getvalue()


def _sources(folder: Path) -> list[Path]:
    """The engine's code and catalogs (what it reads at run time), without bytecode."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix in (".py", ".po"))


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


def advance_table() -> dict[str, Any]:
    """The shipped fonts' advance widths as ``rulepress.render.metrics`` reads them, for its browser stand-in."""
    table = {}
    for key, bold in (("regular", False), ("bold", True)):
        widths, missing, per_em = metrics._advances(bold)
        table[key] = {"widths": {str(code): width for code, width in sorted(widths.items())}, "missing": missing,
                      "per_em": per_em}
    return table


def screen_colours(svgs: Iterable[str], engine: ModuleType, screen: Proof) -> dict[str, str]:
    """Each ink written in ``svgs`` and in the game's palette (``device-cmyk(...)`` as written) -> its screen colour
    through the book's proof ``screen``."""
    inks = [*palette.HOUSE.values(), *palette.game_palette(engine).values()]
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
