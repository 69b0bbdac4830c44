"""The press and screen checks behind ``preflight_pdf``, one function per thing a printer or a reader would refuse.

Each check reads a :class:`~rulepress.publish.pdfread.Read` (the PDF read back once: PDFium's page objects and
qpdf's structure and colours) and returns findings naming the page and the PDF object.  What the pages say to a
reader (how full they are, running heads, references, engine marks) is checked in ``pagechecks``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator

import pikepdf

from rulepress.publish.pdfread import MM, SAFE_MM, SMALLEST_PT, Colour, Page, Read
from rulepress.publish.preflight import Finding

Check = Callable[[Read], list[Finding]]
BODY_PT = 8.0  # the size most text is set in must be at least this
BLEED_MM = 3.0


# -- print ------------------------------------------------------------------------------------------------


def page_count(read: Read) -> list[Finding]:
    name, count = read.name, len(read.pages)
    if count % 4:
        return [Finding(name, None, "/Pages", f"{count} pages, not a multiple of 4 (folded sheets carry 4 pages)")]
    return []


def pdfx_identification(read: Read) -> list[Finding]:
    """PDF/X-4 says so in the XMP metadata (``pdfxid:GTS_PDFXVersion``); X-1a/X-3 also in the Info dict."""
    pdf, name = read.pdf, read.name
    versions = []
    with pdf.open_metadata() as meta:
        versions += [str(meta.get(key, "")) for key in ("pdfxid:GTS_PDFXVersion", "pdfx:GTS_PDFXVersion")]
    info = pdf.trailer.get("/Info")
    if info is not None and "/GTS_PDFXVersion" in info:
        versions.append(str(info["/GTS_PDFXVersion"]))
    if not any(v.startswith("PDF/X-4") for v in versions):
        return [Finding(name, None, "XMP pdfxid:GTS_PDFXVersion", "no PDF/X-4 identification (found: "
                        f"{', '.join(v for v in versions if v) or 'none'})")]
    return []


def output_intent(read: Read) -> list[Finding]:
    pdf, name = read.pdf, read.name
    intents = pdf.Root.get("/OutputIntents")
    if not intents:
        return [Finding(name, None, "/OutputIntents", "no output intent (a PDF/X file must say which press "
                                                      "condition its CMYK is for)")]
    for index, intent in enumerate(intents):
        if intent.get("/S") == "/GTS_PDFX":
            profile = intent.get("/DestOutputProfile")
            if profile is None:
                return [Finding(name, None, f"/OutputIntents[{index}]", "GTS_PDFX intent without "
                                                                        "/DestOutputProfile")]
            if int(profile.get("/N", 0)) != 4:
                return [Finding(name, None, f"/OutputIntents[{index}] /DestOutputProfile",
                                f"profile has {profile.get('/N')} components, not 4 (CMYK)")]
            return []
    return [Finding(name, None, "/OutputIntents", "no /GTS_PDFX output intent")]


_DEVICE = {"/DeviceRGB": "rgb", "/CalRGB": "rgb", "/DeviceCMYK": "cmyk", "/DeviceGray": "gray", "/CalGray": "gray"}


def _model(space: object, resources: pikepdf.Dictionary) -> str:
    """A colour space's model, resolved through the resources: "rgb", "cmyk", "gray" or "" (another)."""
    if isinstance(space, pikepdf.Name):
        if str(space) in _DEVICE:
            return _DEVICE[str(space)]
        named = resources.get("/ColorSpace", {}).get(space)
        return _model(named, resources) if named is not None else ""
    if isinstance(space, pikepdf.Array) and len(space) > 0:
        family = space[0]
        if family == "/ICCBased":
            return {1: "gray", 3: "rgb", 4: "cmyk"}.get(int(space[1].get("/N", 0)), "")
        if str(family) in _DEVICE:
            return _DEVICE[str(family)]
        if family in ("/Indexed", "/Separation", "/DeviceN") and len(space) > 1:
            base = space[1] if family == "/Indexed" else space[2]
            return _model(base, resources)
    return ""


def _rgb_space(space: object, resources: pikepdf.Dictionary) -> bool:
    return _model(space, resources) == "rgb"


def _image_findings(name: str, number: int, resources: pikepdf.Dictionary) -> list[Finding]:
    found = []
    for key, xobject in resources.get("/XObject", {}).items():
        if xobject.get("/Subtype") == "/Image" and _rgb_space(xobject.get("/ColorSpace"), resources):
            found.append(Finding(name, number, f"image {key}", "RGB image (convert it to CMYK)"))
    return found


def _operator_findings(name: str, page: Page, judge: Callable[[Colour], str]) -> list[Finding]:
    """What ``judge`` finds wrong with a page's colour operators (its own and its forms'), once per place."""
    findings: list[Finding] = []
    reported: set[tuple[str, str]] = set()
    for op in page.colours:
        what = judge(op)
        if what and (op.where, what) not in reported:
            reported.add((op.where, what))
            findings.append(Finding(name, page.number, op.where, what))
    return findings


def _values(op: Colour) -> str:
    return " ".join(f"{float(v):g}" for v in op.operands)  # type: ignore[arg-type]


def _rgb_operator(op: Colour) -> str:
    if op.operator in ("rg", "RG"):
        return f"'{_values(op)} {op.operator}' sets an RGB colour"
    if op.operator in ("cs", "CS") and _rgb_space(op.operands[0], op.resources):
        return f"'{op.operands[0]} {op.operator}' selects an RGB colour space"
    if op.operator == "sh":
        shading = op.resources.get("/Shading", {}).get(op.operands[0])
        if shading is not None and _rgb_space(shading.get("/ColorSpace"), op.resources):
            return f"shading {op.operands[0]} is RGB"
    return ""


def no_rgb(read: Read) -> list[Finding]:
    """No RGB colour anywhere a press would see it: operators, colour spaces, images, shadings, groups."""
    name = read.name
    findings: list[Finding] = []
    # WeasyPrint gives every page one document-wide resource dictionary (a book's 1,500 forms and images): its
    # images and patterns are checked, and reported, once, with the first page that has it.
    checked: set[tuple[int, int]] = set()
    for page, source in zip(read.pages, read.pdf.pages, strict=True):
        number = page.number
        findings += _operator_findings(name, page, _rgb_operator)
        resources = source.obj.get("/Resources", pikepdf.Dictionary())
        if resources.objgen == (0, 0) or resources.objgen not in checked:  # (0, 0): a page's own, direct
            checked.add(resources.objgen)
            findings += _image_findings(name, number, resources)
            for key, pattern in resources.get("/Pattern", {}).items():
                shading = pattern.get("/Shading")
                if shading is not None and _rgb_space(shading.get("/ColorSpace"), resources):
                    findings.append(Finding(name, number, f"pattern {key}", "RGB shading"))
        group = source.obj.get("/Group")
        if group is not None and _rgb_space(group.get("/CS"), resources):
            findings.append(Finding(name, number, "page /Group", "transparency blends in RGB"))
    return findings


TOTAL_INK_LIMIT = 3.0  # 300% of ink: what coated stock takes (FOGRA39 and SWOP printers ask for 300-330%)


def total_ink(read: Read) -> list[Finding]:
    """No CMYK colour (``k``/``K``, or four operands of ``scn``/``sc``) heavier than :data:`TOTAL_INK_LIMIT`."""
    name = read.name
    findings: list[Finding] = []
    for page in read.pages:
        number = page.number
        reported: set[str] = set()
        for op in page.colours:
            if op.operator not in ("k", "K", "scn", "SCN", "sc", "SC") or len(op.operands) != 4:
                continue
            try:
                values = [float(v) for v in op.operands]  # type: ignore[arg-type]
            except (TypeError, ValueError):  # a pattern name among the operands: not a colour
                continue
            if sum(values) > TOTAL_INK_LIMIT + 1e-6:
                shown = " ".join(f"{v:g}" for v in values)
                if shown not in reported:
                    reported.add(shown)
                    findings.append(Finding(name, number, op.where, f"'{shown} {op.operator}' lays "
                                            f"{100 * sum(values):.0f}% of ink (at most {100 * TOTAL_INK_LIMIT:.0f}%)"))
    return findings


def fonts_embedded(read: Read) -> list[Finding]:
    pdf, name = read.pdf, read.name
    findings = []
    seen: set[tuple[int, int]] = set()
    for number, page in enumerate(pdf.pages, start=1):
        fonts = page.obj.get("/Resources", {}).get("/Font", {})
        for key, font in fonts.items():
            if font.objgen in seen or font.get("/Subtype") == "/Type3":
                continue
            seen.add(font.objgen)
            descriptor = font.get("/FontDescriptor")
            if descriptor is None and "/DescendantFonts" in font:
                descriptor = font["/DescendantFonts"][0].get("/FontDescriptor")
            if descriptor is None or not any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")):
                findings.append(Finding(name, number, f"font {key} ({font.get('/BaseFont')})", "not embedded"))
    return findings


def text_sizes(read: Read) -> list[Finding]:
    """No text below 6 pt at printed size, and body text (the most used size) at 8 pt or more."""
    findings = []
    used: Counter[float] = Counter()
    for page in read.pages:
        small = [run for run in page.runs if run.size < SMALLEST_PT - 0.05]
        for size, font in sorted({(round(run.size, 1), run.font) for run in small}):
            findings.append(Finding(read.name, page.number, f"text in font {font}",
                                    f"{size:g} pt, smaller than {SMALLEST_PT:g} pt at printed size"))
        for run in page.runs:
            used[round(run.size, 1)] += run.length
    if used:
        body, _ = used.most_common(1)[0]
        if body < BODY_PT:
            findings.append(Finding(read.name, None, "body text",
                                    f"most text is set at {body:g} pt, below {BODY_PT:g} pt"))
    return findings


def _box(page: pikepdf.Page, key: str) -> tuple[float, float, float, float] | None:
    box = page.obj.get(key)
    if box is None:
        return None
    x0, y0, x1, y1 = (float(v) for v in box)
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def boxes(read: Read) -> list[Finding]:
    """Every page has a TrimBox and a BleedBox at least 3 mm past the trim on every side."""
    findings = []
    for number, page in enumerate(read.pdf.pages, start=1):
        trim, bleed = _box(page, "/TrimBox"), _box(page, "/BleedBox")
        if trim is None or bleed is None:
            missing = " and ".join(k for k, b in (("/TrimBox", trim), ("/BleedBox", bleed)) if b is None)
            findings.append(Finding(read.name, number, missing, "missing (the printer cannot place the page)"))
            continue
        margins = (trim[0] - bleed[0], trim[1] - bleed[1], bleed[2] - trim[2], bleed[3] - trim[3])
        if min(margins) < BLEED_MM * MM - 0.1:
            findings.append(Finding(read.name, number, "/BleedBox", f"bleed of {min(margins) / MM:.1f} mm, less "
                                                                    f"than {BLEED_MM:g} mm past the trim"))
    return findings


def safe_area(read: Read) -> list[Finding]:
    """Text stays at least 5 mm inside the trim: where a text run begins (its baseline origin) and where it ends
    (a run that starts inside and runs on past the edge, as a table wider than its page sets its cells, is cut
    off just the same)."""
    findings = []
    inset = SAFE_MM * MM
    for page in read.pages:
        outside = [run for run in page.runs if not (inset - 0.5 <= run.x <= page.width - inset + 0.5
                                                    and inset - 0.5 <= run.y <= page.height - inset + 0.5
                                                    and run.x + run.length * run.size <= page.width - inset + 0.5)]
        if outside:
            first = outside[0]
            end = first.x + first.length * first.size
            runs_on = f", running on to {end / MM:.1f} mm" if end > page.width - inset + 0.5 else ""
            findings.append(Finding(read.name, page.number, f"text in font {first.font}",
                                    f"{len(outside)} text run(s) closer than {SAFE_MM:g} mm to the trim, the first "
                                    f"at {first.x / MM:.1f} mm, {first.y / MM:.1f} mm from the trim's lower left "
                                    f"corner{runs_on}"))
    return findings


# -- digital ----------------------------------------------------------------------------------------------


def no_cmyk_left(read: Read) -> list[Finding]:
    """No CMYK colour operator in a digital edition: it is written from the print edition's layout with every
    ink converted to its screen colour (``rulepress.render.weasyprint_patches.in_screen_colours``), or laid out from
    its own sRGB HTML; one left would show a viewer's guess at the inks instead.  (A book's own CMYK raster image
    stays as it is: viewers convert it.)"""
    return [finding for page in read.pages for finding in _operator_findings(read.name, page, _cmyk_operator)]


def _cmyk_operator(op: Colour) -> str:
    if op.operator in ("k", "K"):
        return f"'{_values(op)} {op.operator}' sets a CMYK colour"
    if op.operator in ("cs", "CS") and _model(op.operands[0], op.resources) == "cmyk":
        return f"'{op.operands[0]} {op.operator}' selects a CMYK colour space"
    return ""


def tagged(read: Read) -> list[Finding]:
    pdf, name = read.pdf, read.name
    findings = []
    if "/StructTreeRoot" not in pdf.Root:
        findings.append(Finding(name, None, "/StructTreeRoot", "not a tagged PDF (no structure tree)"))
    mark = pdf.Root.get("/MarkInfo")
    if mark is None or not bool(mark.get("/Marked", False)):
        findings.append(Finding(name, None, "/MarkInfo", "/Marked is not true"))
    if not str(pdf.Root.get("/Lang", "")).strip():
        findings.append(Finding(name, None, "/Lang", "no document language"))
    return findings


def title_shown(read: Read) -> list[Finding]:
    pdf, name = read.pdf, read.name
    findings = []
    info = pdf.trailer.get("/Info")
    title = str(info.get("/Title", "")).strip() if info is not None else ""
    if not title:
        findings.append(Finding(name, None, "/Info /Title", "no document title"))
    preferences = pdf.Root.get("/ViewerPreferences")
    if preferences is None or not bool(preferences.get("/DisplayDocTitle", False)):
        findings.append(Finding(name, None, "/ViewerPreferences /DisplayDocTitle",
                                "not true: viewers will show the file name instead of the title"))
    return findings


def _structure(node: pikepdf.Object, path: str) -> Iterator[tuple[pikepdf.Dictionary, str]]:
    kids = node.get("/K") if isinstance(node, pikepdf.Dictionary) else None
    children = list(kids) if isinstance(kids, pikepdf.Array) else [kids] if kids is not None else []
    for index, kid in enumerate(children):
        if isinstance(kid, pikepdf.Dictionary) and "/S" in kid:
            here = f"{path}/{str(kid['/S'])[1:]}[{index}]"
            yield kid, here
            yield from _structure(kid, here)


def _page_of(pdf: pikepdf.Pdf, element: pikepdf.Dictionary) -> int | None:
    page = element.get("/Pg")
    if page is None:
        return None
    for number, candidate in enumerate(pdf.pages, start=1):
        if candidate.obj.objgen == page.objgen:
            return number
    return None


def figures_have_alt(read: Read) -> list[Finding]:
    pdf, name = read.pdf, read.name
    root = pdf.Root.get("/StructTreeRoot")
    if root is None:
        return []  # reported by ``tagged``
    return [Finding(name, _page_of(pdf, element), f"structure element {path}", "/Figure without /Alt text")
            for element, path in _structure(root, "") if element.get("/S") == "/Figure"
            and not str(element.get("/Alt", "")).strip()]


def _destinations(pdf: pikepdf.Pdf) -> set[str]:
    names: set[str] = set()
    tree = pdf.Root.get("/Names", {}).get("/Dests")
    if tree is not None:
        names.update(str(key) for key, _ in pikepdf.NameTree(tree).items())
    old = pdf.Root.get("/Dests")
    if old is not None:
        names.update(str(key)[1:] for key in old.keys())
    return names


def links_resolve(read: Read) -> list[Finding]:
    """Every internal link (GoTo action or /Dest) lands somewhere: a named destination that exists."""
    pdf, name = read.pdf, read.name
    findings = []
    known = _destinations(pdf)
    pages = {page.obj.objgen for page in pdf.pages}
    for number, page in enumerate(pdf.pages, start=1):
        for index, annot in enumerate(page.obj.get("/Annots", [])):
            if annot.get("/Subtype") != "/Link":
                continue
            action = annot.get("/A")
            target = annot.get("/Dest")
            if action is not None and action.get("/S") == "/GoTo":
                target = action.get("/D")
            if target is None:
                continue
            if isinstance(target, pikepdf.Array):
                if len(target) == 0 or target[0].objgen not in pages:
                    findings.append(Finding(name, number, f"/Annots[{index}]", "link to a page not in the file"))
            elif str(target).lstrip("/") not in known:
                findings.append(Finding(name, number, f"/Annots[{index}]",
                                        f"link to '{target}', which is no destination in the file"))
    if not pdf.Root.get("/Outlines", {}).get("/First"):
        findings.append(Finding(name, None, "/Outlines", "no bookmarks"))
    return findings


CHECKS: dict[str, tuple[Check, ...]] = {
    "print": (pdfx_identification, output_intent, no_rgb, total_ink, fonts_embedded, text_sizes, safe_area, boxes,
              page_count),
    "digital": (tagged, title_shown, figures_have_alt, links_resolve, no_cmyk_left, fonts_embedded, text_sizes),
    "designer": (fonts_embedded, text_sizes, boxes, page_count),
}


def check(read: Read) -> list[Finding]:
    findings: list[Finding] = []
    for one in CHECKS[read.edition]:
        findings += one(read)
    return findings


# -- translated editions ------------------------------------------------------------------------------------


def english_left(read: Read, lang: str) -> list[Finding]:
    """A ``lang`` edition's text, read back, shows none of the English fixed words ("Contents", "Worked
    examples", "at a glance"...): a string the renderer did not take from the language's table. Run on the
    player editions of a translation with nothing missing (a missing item prints the source's words)."""
    from rulepress.render.strings import english_words

    phrases = [(phrase, re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, phrase.split())) + r"(?!\w)"))
               for phrase in english_words(lang)]
    findings = []
    for page in read.pages:
        text = " ".join([page.head, page.text, page.foot])  # words hyphenated across lines joined, as read
        for phrase, pattern in phrases:
            if pattern.search(text):
                message = f"English '{phrase}' in the '{lang}' edition (take it from rulepress/render/strings/)"
                findings.append(Finding(read.name, page.number, "page text", message))
    return findings
