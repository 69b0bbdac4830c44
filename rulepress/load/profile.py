"""A print edition's output intent: the CMYK ICC profile of the printer, named in book.yaml ``output_intent``.

Two profiles ship in ``rulepress/color/`` (sources and licences in its ``SOURCE.md``): ``swop`` (the default, US
web offset) and ``fogra39`` (ISO 12647-2 coated, what European printers usually ask for). A book may instead
name its printer's own file in its folder (``output_intent: press/printer.icc``): it is read like any other
source (inside the project, a regular file, at most ``MAX_PROFILE_BYTES``) and must be an ICC output profile
for CMYK that LittleCMS can open, or the book does not load.
"""

from __future__ import annotations

import io
import re
import struct
from importlib.resources import files
from pathlib import Path
from typing import Any

from rulepress.errors import SourceError
from rulepress.load import confine
from rulepress.load.yamlsrc import line_of

SHIPPED = {"swop": "artifex-cmyk-swop.icc", "fogra39": "fogra39-rulepress.icc"}
DEFAULT = "swop"
MAX_PROFILE_BYTES = 8 * 1024 * 1024  # printers' profiles run to a few MB; nothing larger is a profile
HEADER = 128
SAFE_PATH = re.compile(r"^(?!/)(?!.*(^|/)\.\.(/|$))[^\\]+\.(icc|icm)$")  # as schemas/book.yaml: no '..', not absolute


def shipped(name: str) -> Path:
    """The path of a profile shipped with rulepress (package data)."""
    return Path(str(files("rulepress") / "color" / SHIPPED[name]))


def output_intent(book: Any) -> Path:
    """The CMYK profile ``book``'s print editions are made for (a translation prints with its source's)."""
    name = book.data.get("output_intent", DEFAULT)
    if name in SHIPPED:
        return shipped(name)
    return Path(book.root) / "rules_src" / book.id / name


def check_profile(data: bytes, shown: str) -> str | None:
    """What is wrong with ``data`` as a CMYK output profile (None when nothing is): the ICC header's signature,
    size, class, colour space and connection space, a tag table inside the file, and LittleCMS opening it."""
    if len(data) < HEADER + 4:
        return f"is {len(data)} bytes, too short for an ICC profile"
    size, = struct.unpack(">I", data[:4])
    if data[36:40] != b"acsp":
        return "is not an ICC profile (no 'acsp' signature at byte 36)"
    if size != len(data):
        return f"declares {size} bytes in its header but has {len(data)}: the file is cut or padded"
    if data[12:16] != b"prtr":
        return f"is a '{data[12:16].decode('latin-1').strip()}' profile, not an output (printer, 'prtr') profile"
    if data[16:20] != b"CMYK":
        return f"describes '{data[16:20].decode('latin-1').strip()}' colours, not CMYK"
    if data[20:24] not in (b"Lab ", b"XYZ "):
        return f"has the connection space '{data[20:24].decode('latin-1').strip()}', not Lab or XYZ"
    count, = struct.unpack(">I", data[HEADER:HEADER + 4])
    if HEADER + 4 + 12 * count > len(data):
        return f"declares {count} tags, more than the file holds"
    tags = {}
    for number in range(count):
        signature, offset, length = struct.unpack(">4sII", data[HEADER + 4 + 12 * number:HEADER + 16 + 12 * number])
        if offset + length > len(data):
            return f"tag '{signature.decode('latin-1')}' lies outside the file"
        tags[signature] = length
    if b"A2B0" not in tags:
        return "has no A2B0 table (CMYK to Lab): it cannot say what the inks look like"
    from PIL import ImageCms

    try:
        ImageCms.getOpenProfile(io.BytesIO(data))
    except (ImageCms.PyCMSError, OSError) as exc:
        return f"cannot be read as an ICC profile ({exc})"
    return None


def check_output_intent(book: Any, shown_book: str) -> list[SourceError]:
    """The problems of ``book``'s ``output_intent`` (none for a shipped profile)."""
    name = book.data.get("output_intent", DEFAULT)
    if not isinstance(name, str) or name in SHIPPED or not SAFE_PATH.match(name):
        return []  # the schema reports a wrong type or path
    line = line_of(book.data, "output_intent")
    path = output_intent(book)
    shown = confine.shown(path, book.root)
    try:
        data = confine.read_bytes(book.root, path, shown, MAX_PROFILE_BYTES)
    except SourceError as exc:
        return [SourceError(shown_book, line, f"output_intent '{name}': {shown} {exc.message}")]
    problem = check_profile(data, shown)
    if problem:
        return [SourceError(shown_book, line, f"output_intent '{name}': {shown} {problem} (name a CMYK output "
                                              f"profile from your printer, or one of {', '.join(SHIPPED)})")]
    return []
