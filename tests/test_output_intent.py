"""A book names its printer's CMYK profile (book.yaml ``output_intent``): shipped ones by name, its own as a file
checked like any other source. (The real build's PDFs carrying them: tests/test_book_pages.py.)"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import ImageCms

from rulepress.errors import SourceError
from rulepress.load import profile
from rulepress.load.book import load_book


def _set(project: Path, line: str) -> None:
    path = project / "rules_src" / "mini" / "book.yaml"
    path.write_text(path.read_text() + line + "\n")


def _problem(project: Path) -> str:
    with pytest.raises(SourceError) as caught:  # one problem, or SourceErrors (a SourceError) for several
        load_book(project, "mini")
    return str(caught.value)


def _srgb() -> bytes:
    out = io.BytesIO()
    out.write(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(profile.SHIPPED))
def test_shipped_profiles_are_cmyk_output_profiles(name: str) -> None:
    data = profile.shipped(name).read_bytes()
    assert profile.check_profile(data, name) is None
    assert len(data) < 200_000  # small files, committed once (rulepress/color/SOURCE.md)


def test_fogra39_is_what_its_source_says() -> None:
    data = profile.shipped("fogra39").read_bytes()
    described = ImageCms.getProfileDescription(ImageCms.getOpenProfile(io.BytesIO(data)))
    assert "FOGRA39" in described
    assert b"Zlib" in data and b"FOGRA39L" in data  # its copyright tag names the data and the licence
    source = (profile.shipped("fogra39").parent / "SOURCE.md").read_text()
    import hashlib

    assert hashlib.sha256(data).hexdigest() in source


@pytest.mark.parametrize("change, message", [
    (lambda d: b"x" * 200, "not an ICC profile"),
    (lambda d: d[:-100], "declares"),
    (lambda d: _srgb(), "not an output (printer, 'prtr') profile"),
    (lambda d: d[:16] + b"RGB " + d[20:], "not CMYK"),
    (lambda d: d[:20] + b"RGB " + d[24:], "connection space"),
    (lambda d: d[:128] + (10**6).to_bytes(4, "big") + d[132:], "more than the file holds"),
    (lambda d: b"\x00" * 4, "too short"),
    (lambda d: (len(d) - 100).to_bytes(4, "big") + d[4:-100], "lies outside the file"),
])
def test_a_bad_profile_is_named(change: object, message: str) -> None:
    data = change(profile.shipped("fogra39").read_bytes())  # type: ignore[operator]
    if message not in ("not an ICC profile", "too short", "declares", "lies outside the file"):
        data = len(data).to_bytes(4, "big") + data[4:]  # the header's size kept right: the next check speaks
    found = profile.check_profile(data, "p.icc")
    assert found is not None and message in found, found


def _luts(data: bytes, change: Callable[[bytearray, int, int], None]) -> bytes:
    """``data`` with ``change(profile, start, end)`` applied to each A2B/B2A table's grid and output curves (the
    header and the tag table intact: LittleCMS opens it as it did)."""
    import struct

    changed = bytearray(data)
    count, = struct.unpack(">I", data[128:132])
    for number in range(count):
        signature, offset, length = struct.unpack(">4sII", data[132 + 12 * number:144 + 12 * number])
        if signature[:3] not in (b"A2B", b"B2A"):
            continue
        kind, inputs = data[offset:offset + 4], data[offset + 8]
        if kind == b"mft2":
            entries, = struct.unpack(">H", data[offset + 48:offset + 50])
            start = offset + 52 + 2 * entries * inputs
        else:
            assert kind == b"mft1", kind
            start = offset + 48 + 256 * inputs
        change(changed, start, offset + length)
    return bytes(changed)


def _zeroed(profile_bytes: bytearray, start: int, end: int) -> None:
    profile_bytes[start:end] = bytes(end - start)


def _reversed(profile_bytes: bytearray, start: int, end: int) -> None:
    profile_bytes[start:end] = profile_bytes[start:end][::-1]  # every grid point's colour in another's place


@pytest.mark.parametrize("name", sorted(profile.SHIPPED))
@pytest.mark.parametrize("change, message", [
    (_zeroed, "shows bare paper as #003bc3, not white: its tables give nonsense (is the file damaged?)"),
    (_reversed, "its tables give nonsense"),
])
def test_a_profile_that_gives_nonsense_is_refused(name: str, change: Callable[[bytearray, int, int], None],
                                                  message: str) -> None:
    """Header and tag table intact, LittleCMS opens it: its colour tables zeroed or scrambled are found by using it
    (the paper, the inks, black and white converted both ways), and refused."""
    data = _luts(profile.shipped(name).read_bytes(), change)
    ImageCms.getOpenProfile(io.BytesIO(data))  # it opens
    found = profile.check_profile(data, "p.icc")
    assert found is not None and message in found, found


def test_a_book_prints_with_its_printers_own_profile(mini: Path) -> None:
    own = mini / "rules_src" / "mini" / "press" / "printer.icc"
    own.parent.mkdir()
    own.write_bytes(profile.shipped("fogra39").read_bytes())
    _set(mini, "output_intent: press/printer.icc")
    book = load_book(mini, "mini")
    assert profile.output_intent(book) == own


def test_a_books_profile_that_is_not_cmyk_is_refused_with_its_line(mini: Path) -> None:
    own = mini / "rules_src" / "mini" / "screen.icc"
    own.write_bytes(_srgb())
    _set(mini, "output_intent: screen.icc")
    problem = _problem(mini)
    lines = (mini / "rules_src" / "mini" / "book.yaml").read_text().splitlines()
    assert f"rules_src/mini/book.yaml:{len(lines)}" in problem
    assert "output_intent 'screen.icc'" in problem and "not an output (printer, 'prtr') profile" in problem


def test_a_missing_or_outside_profile_is_refused(mini: Path, tmp_path: Path) -> None:
    _set(mini, "output_intent: gone.icc")
    assert "file not found" in _problem(mini)
    outside = tmp_path / "elsewhere.icc"
    outside.write_bytes(profile.shipped("fogra39").read_bytes())
    os.symlink(outside, mini / "rules_src" / "mini" / "gone.icc")
    assert "outside the project root" in _problem(mini)


def test_an_oversized_profile_is_refused(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (mini / "rules_src" / "mini" / "big.icc").write_bytes(profile.shipped("fogra39").read_bytes())
    _set(mini, "output_intent: big.icc")
    monkeypatch.setattr(profile, "MAX_PROFILE_BYTES", 1000)
    assert "more than the 1000 bytes" in _problem(mini)


@pytest.mark.parametrize("line, expected", [("output_intent: ../../secret.icc", "output_intent"),
                                            ("output_intent: fogra51", "output_intent"),
                                            ("examples: sideways", "examples")])
def test_the_schema_refuses_other_values(mini: Path, line: str, expected: str) -> None:
    _set(mini, line)
    problem = _problem(mini)
    assert expected in problem and "book.yaml" in problem
