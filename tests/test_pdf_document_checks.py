"""Three of the PDF checks as tables of documents made for them (rulepress.publish.pdfchecks): the title a
viewer shows, fonts embedded (a composite font's through its descendant), and bookmarks."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pikepdf
import pytest

from rulepress.publish import pdfchecks
from rulepress.publish.preflight import Finding

Name = pikepdf.Name


def _pdf(info: dict[str, Any] | None = None, shows_title: bool | None = None, font: Any = None,
         bookmarks: bool = False) -> Any:
    pdf = pikepdf.new()
    pdf.add_blank_page()
    if info is not None:
        pdf.trailer.Info = pdf.make_indirect(pikepdf.Dictionary({f"/{k}": pikepdf.String(v) for k, v in info.items()}))
    if shows_title is not None:
        pdf.Root.ViewerPreferences = pikepdf.Dictionary(DisplayDocTitle=shows_title)
    if font is not None:
        pdf.pages[0].obj.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font(pdf)))
    if bookmarks:
        first = pdf.make_indirect(pikepdf.Dictionary(Title="Rules"))
        pdf.Root.Outlines = pdf.make_indirect(pikepdf.Dictionary(First=first, Last=first, Count=1))
    return SimpleNamespace(pdf=pdf, name="book.pdf")


def _descriptor(pdf: pikepdf.Pdf, embedded: bool) -> pikepdf.Object:
    entries = {"FontFile2": pdf.make_stream(b"font")} if embedded else {}
    return pdf.make_indirect(pikepdf.Dictionary(Type=Name.FontDescriptor, **entries))


def _simple(embedded: bool) -> Callable[[pikepdf.Pdf], pikepdf.Object]:
    return lambda pdf: pdf.make_indirect(pikepdf.Dictionary(
        Type=Name.Font, Subtype=Name.TrueType, BaseFont=Name("/Serif"), FontDescriptor=_descriptor(pdf, embedded)))


def _composite(embedded: bool) -> Callable[[pikepdf.Pdf], pikepdf.Object]:
    return lambda pdf: pdf.make_indirect(pikepdf.Dictionary(
        Type=Name.Font, Subtype=Name.Type0, BaseFont=Name("/Sans"), DescendantFonts=pikepdf.Array([
            pdf.make_indirect(pikepdf.Dictionary(Type=Name.Font, Subtype=Name.CIDFontType2,
                                                 FontDescriptor=_descriptor(pdf, embedded)))])))


def _type3(pdf: pikepdf.Pdf) -> pikepdf.Object:
    return pdf.make_indirect(pikepdf.Dictionary(Type=Name.Font, Subtype=Name.Type3))


NO_TITLE = Finding("book.pdf", None, "/Info /Title", "no document title")
NOT_SHOWN = Finding("book.pdf", None, "/ViewerPreferences /DisplayDocTitle",
                    "not true: viewers will show the file name instead of the title")

ROWS: list[tuple[str, Callable[[Any], list[Finding]], Any, list[Finding]]] = [
    ("a titled document that shows it", pdfchecks.title_shown, _pdf({"Title": "Mini Stones"}, True), []),
    ("no information at all", pdfchecks.title_shown, _pdf(), [NO_TITLE, NOT_SHOWN]),
    ("a blank title", pdfchecks.title_shown, _pdf({"Title": "  ", "Author": "x"}, True), [NO_TITLE]),
    ("a title viewers do not show", pdfchecks.title_shown, _pdf({"Title": "Mini Stones"}, False), [NOT_SHOWN]),
    ("an embedded simple font", pdfchecks.fonts_embedded, _pdf(font=_simple(True)), []),
    ("a simple font not embedded", pdfchecks.fonts_embedded, _pdf(font=_simple(False)),
     [Finding("book.pdf", 1, "font /F1 (/Serif)", "not embedded")]),
    ("a composite font embedded in its descendant", pdfchecks.fonts_embedded, _pdf(font=_composite(True)), []),
    ("a composite font whose descendant is not", pdfchecks.fonts_embedded, _pdf(font=_composite(False)),
     [Finding("book.pdf", 1, "font /F1 (/Sans)", "not embedded")]),
    ("a type 3 font is drawn, not embedded", pdfchecks.fonts_embedded, _pdf(font=_type3), []),
    ("bookmarks", pdfchecks.links_resolve, _pdf(bookmarks=True), []),
    ("no bookmarks", pdfchecks.links_resolve, _pdf(), [Finding("book.pdf", None, "/Outlines", "no bookmarks")]),
]


@pytest.mark.parametrize(("check", "read", "findings"), [(c, r, f) for _, c, r, f in ROWS],
                         ids=[name for name, _, _, _ in ROWS])
def test_a_document_check_finds_exactly_what_is_wrong(check: Callable[[Any], list[Finding]], read: Any,
                                                      findings: list[Finding]) -> None:
    assert check(read) == findings
