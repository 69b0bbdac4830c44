"""Extract the engines' narration into message catalogs and bring every translation up to date.

    python tools/catalogs.py                    # every engine: write locale/narrate.pot, update each <lang>/.po
    python tools/catalogs.py --engine last_lantern --init de   # start a German catalog from the template
    python tools/catalogs.py --check            # change nothing; exit 1 when a template or catalog is out of date

(``nox -s catalogs -- ARGS``.)  Messages are extracted with Babel's Python extractor (``rulepress.i18n.extract``:
``_``, ``ngettext``, ``pgettext``, ``N_``, ``NP_`` ...).  Updating a catalog is Babel's ``Catalog.update``: a new
message arrives untranslated, a changed one arrives as a *fuzzy* guess from its old translation, and a message
the engine no longer says is dropped.  Each of those is then reported by ``rulepress verify`` until a translator
has dealt with it (``rulepress.i18n.catalog_problems``).  Locations are file names without line numbers, so
editing an engine does not rewrite its catalogs.
"""

from __future__ import annotations

import argparse
import sys
from io import BytesIO, StringIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from rulepress.i18n import DOMAIN, LOCALE_FOLDER, catalog_path, extract, template_path
from rulepress.load import po

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 100  # wider than gettext's 76: most narration messages then fit on one line


def template(folder: Path) -> Catalog:
    """Every message the engine in ``folder`` says, untranslated."""
    pot = Catalog(domain=DOMAIN, project=f"{folder.name} engine narration", version="1", charset="utf-8",
                  msgid_bugs_address="", fuzzy=False)
    for said in extract(folder).values():
        msgid: str | tuple[str, ...] = said.ids if len(said.ids) > 1 else said.ids[0]
        pot.add(msgid, "" if len(said.ids) == 1 else ("",) * len(said.ids), [(f, None) for f in said.files],
                auto_comments=list(said.comments), context=said.context)
    return pot


def _po_bytes(catalog: Catalog, *, keep_dates_of: Catalog | None = None) -> bytes:
    if keep_dates_of is not None:  # a rerun that changes no message leaves the file as it is
        catalog.creation_date = keep_dates_of.creation_date
        catalog.revision_date = keep_dates_of.revision_date
    out = BytesIO()
    write_po(out, catalog, width=WIDTH, include_lineno=False, ignore_obsolete=True)
    return out.getvalue()


def _read(path: Path, lang: str | None = None) -> Catalog | None:
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    po.check(text, str(path))  # as the gate reads it: a string left open is an error, not a shorter message
    return read_po(StringIO(text), locale=lang, abort_invalid=True)


def _write(path: Path, data: bytes, check: bool, changed: list[str]) -> None:
    if path.is_file() and path.read_bytes() == data:
        return
    changed.append(str(path.relative_to(ROOT)))
    if not check:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def update_engine(folder: Path, check: bool, init: list[str]) -> list[str]:
    """Write the engine's template and update (or start, for ``init``) each catalog; the files that changed."""
    changed: list[str] = []
    pot = template(folder)
    if not len(pot):
        return changed
    pot_path = template_path(folder)
    old_pot = _read(pot_path)
    same = old_pot is not None and _messages(old_pot) == _messages(pot)
    _write(pot_path, _po_bytes(pot, keep_dates_of=old_pot if same else None), check, changed)
    langs = sorted({p.name for p in (folder / LOCALE_FOLDER).glob("*") if p.is_dir()} | set(init))
    for lang in langs:
        path = catalog_path(folder, lang)
        catalog = _read(path, lang)
        if catalog is None:
            if lang not in init:
                continue
            catalog = Catalog(locale=lang, domain=DOMAIN, project=pot.project, charset="utf-8", fuzzy=False)
        catalog.update(pot, update_header_comment=False)
        _write(path, _po_bytes(catalog), check, changed)
    return changed


def _messages(catalog: Catalog) -> list[tuple[object, ...]]:
    """What a catalog says, without its dates: to tell a real change from a rerun."""
    return [(m.context, m.id, m.string, tuple(sorted(m.flags)), tuple(m.locations), tuple(m.auto_comments))
            for m in list(catalog)[1:]]  # [0] is the header, dates included


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", action="append", help="engine package (default: every engine)")
    parser.add_argument("--init", action="append", default=[], metavar="LANG", help="start a catalog for LANG")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when something is stale")
    args = parser.parse_args(argv)
    names = args.engine or sorted(p.name for p in (ROOT / "engine").iterdir() if (p / "__init__.py").is_file())
    changed = []
    for name in names:
        folder = ROOT / "engine" / name
        if not (folder / "__init__.py").is_file():
            parser.error(f"no engine engine/{name}")
        changed += update_engine(folder, args.check, args.init)
    for path in changed:
        print(f"{'out of date' if args.check else 'wrote'}: {path}")
    if args.check and changed:
        print("run `nox -s catalogs` (python tools/catalogs.py) and translate what it marks", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
