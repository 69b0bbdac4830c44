"""Preflight: each check fails on the fault it is for, naming the file, the page and the PDF object.

The PDFs here are small ones made on the spot (WeasyPrint, or pikepdf for faults WeasyPrint never makes);
``test_print_editions.py`` runs the same checks on the real books, where they must all pass.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pikepdf
import pytest

from rulepress.cli import main
from rulepress.load.profile import shipped
from rulepress.proof import Proof
from rulepress.publish.build import build
from rulepress.publish.preflight import Finding, edition_of, preflight_pdf
from rulepress.render import pdf as _pdf
from rulepress.render import weasyprint_patches

weasyprint = _pdf.weasyprint  # imported there, after fontconfig is pointed at the shipped fonts
SWOP = Proof.of(shipped("swop"))
PROFILE = (f'@color-profile device-cmyk {{ src: url("{SWOP.path.as_uri()}"); '
           "components: cyan, magenta, yellow, black; }")
PAGE = '@page { size: A5; bleed: 3mm; margin: 20mm }'
BODY = 'html { font: 9pt "Rulepress Sans"; color: device-cmyk(0 0 0 1) }'
FONT = f'@font-face {{ font-family: "Rulepress Sans"; src: url("{_pdf.FONTS.as_uri()}/DejaVuSans.ttf") }}'


def make_pdf(target: Path, body: str, css: str = "", pages: int = 4, **options: object) -> Path:
    """A print-like PDF: ``pages`` pages of body text, ``body`` on the first."""
    fill = "".join('<p style="break-before: page">More rules text on this page.</p>' for _ in range(pages - 1))
    source = f"<html lang='en'><head><title>Test</title><style>{FONT}{PAGE}{BODY}{css}</style></head>" \
             f"<body><p>Rules text.</p>{body}{fill}</body></html>"
    weasyprint.HTML(string=source).write_pdf(target, **options)
    return target


def svg_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def label_svg(points: float) -> str:
    """A diagram 100 mm wide (1 unit = 1 mm) with one label of ``points`` pt at printed size."""
    size = points * 25.4 / 72
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="100mm" height="20mm" viewBox="0 0 100 20">'
            f'<text x="10" y="12" font-size="{size:.3f}" font-family="Rulepress Sans" '
            f'fill="device-cmyk(0 0 0 1)">Tile 12</text></svg>')


def print_pdf(target: Path, body: str = "", pages: int = 4) -> Path:
    return make_pdf(target, body, PROFILE, pages, pdf_variant="pdf/x-4")


def test_clean_print_pdf_passes(tmp_path: Path) -> None:
    path = print_pdf(tmp_path / "book.pdf", f'<img src="{svg_uri(label_svg(7))}" style="width: 100mm">')
    assert preflight_pdf(path) == []


def test_small_label_in_a_diagram_fails_naming_file_and_page(tmp_path: Path) -> None:
    body = f'<div style="break-before: page"><img src="{svg_uri(label_svg(4))}" style="width: 100mm"></div>'
    path = print_pdf(tmp_path / "book.pdf", body, pages=3)  # the diagram takes page 2 of 4
    findings = preflight_pdf(path)
    assert [(f.file, f.page, f.message) for f in findings] == [
        (str(path), 2, "4 pt, smaller than 6 pt at printed size")]
    assert findings[0].object.startswith("text in font /")
    assert str(findings[0]).startswith(f"{path}, page 2: text in font /")


def test_a_diagram_scaled_down_is_measured_at_its_printed_size(tmp_path: Path) -> None:
    # 8 pt as drawn, printed at half its width: 4 pt on paper.
    body = f'<img src="{svg_uri(label_svg(8))}" style="width: 50mm">'
    findings = preflight_pdf(print_pdf(tmp_path / "book.pdf", body))
    assert [(f.page, f.message) for f in findings] == [(1, "4 pt, smaller than 6 pt at printed size")]


def test_rgb_colour_fails_naming_file_page_and_operator(tmp_path: Path) -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="40mm" height="10mm" viewBox="0 0 40 10">'
           '<rect width="40" height="10" fill="#ff0000"/></svg>')
    path = print_pdf(tmp_path / "book.pdf", f'<div style="break-before: page"><img src="{svg_uri(svg)}"></div>',
                     pages=3)
    assert preflight_pdf(path) == [Finding(str(path), 2, "page content", "'1 0 0 rg' sets an RGB colour")]


def test_rich_four_colour_ink_over_the_limit_fails(tmp_path: Path) -> None:
    def patch(ink: str) -> str:
        svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="40mm" height="10mm" viewBox="0 0 40 10">'
               f'<rect width="40" height="10" fill="device-cmyk({ink})"/></svg>')
        return f'<div style="break-before: page"><img src="{svg_uri(svg)}"></div>'

    heavy = print_pdf(tmp_path / "heavy.pdf", patch("0.9 0.9 0.9 1"), pages=3)
    assert preflight_pdf(heavy) == [
        Finding(str(heavy), 2, "page content", "'0.9 0.9 0.9 1 scn' lays 370% of ink (at most 300%)")]
    light = print_pdf(tmp_path / "light.pdf", patch("0.6 0.5 0.5 1"), pages=3)  # 260%: a common rich black
    assert preflight_pdf(light) == []


def test_pdf_without_output_intent_fails(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "book.pdf", "")  # no pdf/x-4, no CMYK profile
    findings = preflight_pdf(path)
    assert Finding(str(path), None, "/OutputIntents", "no output intent (a PDF/X file must say which press "
                                                      "condition its CMYK is for)") in findings
    assert Finding(str(path), None, "XMP pdfxid:GTS_PDFXVersion", "no PDF/X-4 identification (found: none)") \
        in findings


def test_page_count_bleed_and_safe_area(tmp_path: Path) -> None:
    body = '<p style="position: absolute; top: -18mm; left: -18mm">Too close to the edge</p>'
    path = make_pdf(tmp_path / "book.pdf", body, PROFILE + "@page { bleed: 1mm }", pages=3,
                    pdf_variant="pdf/x-4")
    findings = preflight_pdf(path)
    assert Finding(str(path), None, "/Pages", "3 pages, not a multiple of 4 (folded sheets carry 4 pages)") \
        in findings
    assert Finding(str(path), 1, "/BleedBox", "bleed of 1.0 mm, less than 3 mm past the trim") in findings
    unsafe = [f for f in findings if "closer than 5 mm to the trim" in f.message]
    assert len(unsafe) == 1 and unsafe[0].page == 1 and unsafe[0].message.startswith("1 text run(s)")


def test_text_that_starts_inside_and_runs_on_past_the_trim_is_found(tmp_path: Path) -> None:
    """A run whose start is well inside but whose end is cut off (a table wider than its page) is as unsafe as
    one that starts outside: the message says how far it runs."""
    body = '<p style="white-space: nowrap">' + "a line of text far too long to fit its page " * 6 + "</p>"
    path = make_pdf(tmp_path / "book.pdf", body, PROFILE + "@page { bleed: 3mm }", pages=4, pdf_variant="pdf/x-4")
    unsafe = [f for f in preflight_pdf(path) if "closer than 5 mm to the trim" in f.message]
    assert [f.page for f in unsafe] == [1], unsafe
    assert re.search(r"the first at \d+\.\d mm, \d+\.\d mm from the trim's lower left corner, running on to "
                     r"\d{3}\.\d mm$", unsafe[0].message), unsafe[0].message
    assert unsafe[0].object.startswith("text in font /")
    fits = make_pdf(tmp_path / "fits.pdf", "<p>a line of text that fits</p>", PROFILE + "@page { bleed: 3mm }",
                    pages=4, pdf_variant="pdf/x-4")
    assert not [f for f in preflight_pdf(fits) if "closer than 5 mm to the trim" in f.message]


def _hand_made(target: Path, content: bytes, resources: dict[str, object]) -> Path:
    """A one-page PDF written with pikepdf: faults WeasyPrint never makes (unembedded fonts, RGB images)."""
    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(420, 595))
    page.obj.TrimBox = pikepdf.Array([9, 9, 411, 586])
    page.obj.BleedBox = pikepdf.Array([0, 0, 420, 595])
    page.obj.Resources = pdf.make_indirect(pikepdf.Dictionary(resources))
    page.obj.Contents = pdf.make_stream(content)
    pdf.save(target)
    return target


def test_unembedded_font_and_rgb_image_are_found(tmp_path: Path) -> None:
    pdf = pikepdf.new()
    image = pikepdf.Stream(pdf, b"\xff\x00\x00", Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Image, Width=1,
                           Height=1, ColorSpace=pikepdf.Name.DeviceRGB, BitsPerComponent=8)
    font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)
    page = pdf.add_blank_page(page_size=(420, 595))
    page.obj.TrimBox = pikepdf.Array([9, 9, 411, 586])
    page.obj.BleedBox = pikepdf.Array([0, 0, 420, 595])
    page.obj.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font),
                                            XObject=pikepdf.Dictionary(Im0=pdf.make_indirect(image)))
    page.obj.Contents = pdf.make_stream(b"BT /F1 10 Tf 100 300 Td (Rules) Tj ET q 50 0 0 50 100 100 cm /Im0 Do Q")
    path = tmp_path / "book-designer.pdf"
    pdf.save(path)
    assert preflight_pdf(path) == [Finding(str(path), 1, "font /F1 (/Helvetica)", "not embedded"),
                                   Finding(str(path), None, "/Pages",
                                           "1 pages, not a multiple of 4 (folded sheets carry 4 pages)")]
    findings = preflight_pdf(path, "print")
    assert Finding(str(path), 1, "image /Im0", "RGB image (convert it to CMYK)") in findings


def digital_pdf(target: Path, alt: str, screen: bool = True) -> Path:
    """A digital edition's PDF, written as the build writes one: from CMYK pages, in screen colours."""
    svg = label_svg(8)
    body = f'<h1 id="top">Rules</h1><img src="{svg_uri(svg)}" alt="{alt}"><p><a href="#top">Back</a></p>'
    if not screen:
        return make_pdf(target, body, "", pages=1, pdf_tags=True)
    with weasyprint_patches.in_screen_colours(SWOP):
        return make_pdf(target, body, "", pages=1, pdf_tags=True)


def test_digital_pdf_with_alt_passes(tmp_path: Path) -> None:
    assert preflight_pdf(digital_pdf(tmp_path / "book-digital.pdf", "A diagram: the garden")) == []


def test_a_cmyk_colour_left_in_a_digital_edition_fails(tmp_path: Path) -> None:
    """Text and a diagram's label in device-cmyk, written without the screen colours: both are named."""
    path = digital_pdf(tmp_path / "book-digital.pdf", "A diagram", screen=False)
    findings = preflight_pdf(path)
    assert [(f.page, f.object, f.message) for f in findings] == [
        (1, "page content", "'/DeviceCMYK cs' selects a CMYK colour space")], findings
    assert SWOP.rgb((0, 0, 0, 100)) == "#231f20"  # what the screen colours set instead, as the site shows it


def test_screen_colours_set_the_palettes_rgb_for_every_ink(tmp_path: Path) -> None:
    path = digital_pdf(tmp_path / "book-digital.pdf", "A diagram")
    with pikepdf.open(path) as pdf:
        operators = [(str(op), [float(v) for v in operands]) for operands, op
                     in pikepdf.parse_content_stream(pdf.pages[0]) if str(op) in ("rg", "RG", "k", "K", "cs", "scn")]
    black = [round(int("231f20"[i:i + 2], 16) / 255, 4) for i in (0, 2, 4)]
    assert ("rg", black) in [(op, [round(v, 4) for v in values]) for op, values in operators]
    assert not [op for op, _ in operators if op in ("k", "K", "cs", "scn")]


def test_digital_figure_without_alt_fails(tmp_path: Path) -> None:
    path = digital_pdf(tmp_path / "book-digital.pdf", "")
    findings = preflight_pdf(path)
    assert [(f.file, f.page, f.message) for f in findings] == [(str(path), 1, "/Figure without /Alt text")]
    assert findings[0].object.startswith("structure element /Document[0]/") and \
        findings[0].object.endswith("/Figure[0]")


def test_digital_broken_link_and_missing_tags_fail(tmp_path: Path) -> None:
    path = digital_pdf(tmp_path / "book-digital.pdf", "A diagram")
    with pikepdf.open(path, allow_overwriting_input=True) as pdf:
        annots = pdf.pages[0].obj.Annots
        annots[0].Dest = pikepdf.String("nowhere")
        del pdf.Root.ViewerPreferences
        del pdf.Root.MarkInfo
        pdf.save(path)
    assert preflight_pdf(path) == [
        Finding(str(path), None, "/MarkInfo", "/Marked is not true"),
        Finding(str(path), None, "/ViewerPreferences /DisplayDocTitle",
                "not true: viewers will show the file name instead of the title"),
        Finding(str(path), 1, "/Annots[0]", "link to 'nowhere', which is no destination in the file"),
    ]


def test_edition_from_file_name() -> None:
    assert [edition_of(Path(n)) for n in ("a.pdf", "a-digital.pdf", "a-designer.pdf")] == \
        ["print", "digital", "designer"]


def test_cli_preflight(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = print_pdf(tmp_path / "good.pdf")
    bad = make_pdf(tmp_path / "bad.pdf", "", pages=3)
    assert main(["preflight", str(good)]) == 0
    assert capsys.readouterr().out == f"ok   {good}\n"
    assert main(["preflight", str(good), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"ok   {good}"
    assert f"{bad}: /Pages: 3 pages, not a multiple of 4 (folded sheets carry 4 pages)" in out
    assert main(["preflight", str(tmp_path / "missing.pdf")]) == 1
    assert capsys.readouterr().err == f"rulepress: {tmp_path / 'missing.pdf'}: file not found\n"
    (tmp_path / "junk.pdf").write_bytes(b"not a PDF")
    assert main(["preflight", str(tmp_path / "junk.pdf")]) == 1
    assert "junk.pdf: file: cannot be read as a PDF" in capsys.readouterr().out


def test_rgb_colour_in_an_engine_refuses_the_build(mini: Path) -> None:
    """An engine that draws in RGB (here a grey board under the fixture's stones) publishes nothing."""
    engine = mini / "engine/mini/__init__.py"
    source = engine.read_text()
    assert 'f"{stones}</svg>"' in source
    board = 'f\'<rect width="260" height="40" fill="#777777"/>{stones}</svg>\''
    engine.write_text(source.replace('f"{stones}</svg>"', board))
    from rulepress.errors import BuildRefused

    with pytest.raises(BuildRefused) as refused:
        build(mini, site_dir=mini / "site")
    rgb = [p for p in refused.value.problems if "rg' sets an RGB colour" in p]
    assert rgb and all(p.startswith("pdf/mini.pdf (the print edition of mini), page ") for p in rgb), \
        refused.value.problems
    assert "'0.466667 0.466667 0.466667 rg' sets an RGB colour" in rgb[0]
    assert not (mini / "site").exists()
