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
        opened = ImageCms.getOpenProfile(io.BytesIO(data))
    except (ImageCms.PyCMSError, OSError) as exc:
        return f"cannot be read as an ICC profile ({exc})"
    return behaviour_problem(opened)


# Known inks and what any CMYK press profile must make of them on screen (sRGB, 0-255), and known screen colours
# and the ink it must lay down for them: a profile whose tables are zeroed, scrambled or inverted gives nonsense.
_INKS = {"paper": (0, 0, 0, 0), "black": (0, 0, 0, 255), "rich black": (255, 255, 255, 255),
         "cyan": (255, 0, 0, 0), "magenta": (0, 255, 0, 0), "yellow": (0, 0, 255, 0)}
_SMALLEST = {"cyan": 0, "magenta": 1, "yellow": 2}  # the channel each process ink takes away from white light


def _lightness(rgb: tuple[int, int, int]) -> float:
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]


def behaviour_problem(opened: Any) -> str | None:
    """What is wrong with what the profile does (None when nothing is), found by using it as the build does: the
    inks on paper as a screen shows them (the digital edition's colours) and screen colours as inks (the other
    way): paper must be light and black dark, each process ink must take away its own third of the light, and
    white must need almost no ink where black needs much."""
    from PIL import Image, ImageCms

    screen = ImageCms.createProfile("sRGB")
    try:
        forward = ImageCms.buildTransform(opened, screen, "CMYK", "RGB", renderingIntent=1)
        backward = ImageCms.buildTransform(screen, opened, "RGB", "CMYK", renderingIntent=1)
    except (ImageCms.PyCMSError, OSError, ValueError) as exc:
        return f"cannot convert colours ({exc})"
    inks = Image.new("CMYK", (len(_INKS), 1))
    inks.putdata(list(_INKS.values()))
    shown = dict(zip(_INKS, ImageCms.applyTransform(inks, forward).get_flattened_data(), strict=True))
    lightness = {name: _lightness(rgb) for name, rgb in shown.items()}

    def said(name: str) -> str:
        return "#{:02x}{:02x}{:02x}".format(*shown[name])

    if lightness["paper"] < 180:
        return f"shows bare paper as {said('paper')}, not white: its tables give nonsense (is the file damaged?)"
    if lightness["black"] > 120 or lightness["rich black"] > 90 or lightness["paper"] - lightness["black"] < 100:
        return (f"shows black ink as {said('black')} beside paper {said('paper')}: its tables give nonsense (is the "
                "file damaged?)")
    for name, channel in _SMALLEST.items():
        rgb = shown[name]
        if any(rgb[channel] > rgb[other] - 30 for other in range(3) if other != channel):
            return f"shows {name} ink as {said(name)}: its tables give nonsense (is the file damaged?)"
    colours = Image.new("RGB", (2, 1))
    colours.putdata([(255, 255, 255), (0, 0, 0)])
    white, black = (sum(ink) for ink in ImageCms.applyTransform(colours, backward).get_flattened_data())
    if white > 0.1 * 4 * 255 or black < 2.0 * 255:
        return (f"lays down {white / 2.55:.0f}% ink for white and {black / 2.55:.0f}% for black: its tables for "
                "screen colours give nonsense (is the file damaged?)")
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
