"""The book's figures beyond its examples, as Markdown for the site and the PDFs: the components section (a picture
and the count of every kind of component), the setup diagram and the key to the diagrams.

The engine drew them at the gate (rulepress/verify/figures.py) in each language; here they are placed: the
components section after the text of the rule ``BookFigures.components_after`` names, the key to the diagrams
once, under the components (where a reader learns the pieces the diagrams draw; in print, before the book's first
diagram when there is no components section), folded on each example page of the site, and the setup diagram after
the section ``setup_after`` names.  ``source`` says where a figure's SVG is (a site file, or a PDF's data URI).
Once, not under every diagram and not in every chapter: the symbols are the same on every page.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from rulepress.render.strings import Strings
from rulepress.verify.figures import BookFigures

Source = Callable[[str, str], str]  # (figure name, its SVG) -> what an <img src> says


def _in(values: dict[str, str], lang: str) -> str:
    return values.get(lang) or next(iter(values.values()), "")


def figure_files(figures: BookFigures, lang: str) -> dict[str, str]:
    """Each figure's SVG by its file name (the site writes them under ``<book>/figures/``)."""
    files = {f"component-{index + 1}.svg": _in(shown.svgs, lang) for index, shown in enumerate(figures.components)}
    if figures.setup:
        files["setup.svg"] = _in(figures.setup, lang)
    if figures.legend:
        files["legend.svg"] = _in(figures.legend, lang)
    return files


def components_markdown(figures: BookFigures, t: Strings, source: Source) -> str:
    """The components section: each kind of component's picture, with its count and name under it."""
    if not figures.components:
        return ""
    lang = t.lang
    rows: list[list[str]] = []
    for index, shown in enumerate(figures.components):
        name, note = _in(shown.names, lang), _in(shown.notes, lang)
        svg = _in(shown.svgs, lang)
        said = t("component_count", count=shown.count, name=name)
        alt = said + (f" ({note})" if note else "")
        caption = (f'<span class="count">{html.escape(said)}</span>'
                   + (f" · {html.escape(note)}" if note else ""))
        # Two small pictures share a row; a sheet (a wide picture) takes one of its own.
        size = "wide" if _width_mm(svg) > 60 else "small"
        figure = (f'<figure class="{size}"><img alt="{html.escape(alt)}" '
                  f'src="{source(f"component-{index + 1}.svg", svg)}" /><figcaption>{caption}</figcaption></figure>')
        if size == "small" and rows and len(rows[-1]) == 1 and 'class="small"' in rows[-1][0]:
            rows[-1].append(figure)
        else:
            rows.append([figure])
    parts = [f'<section class="components-sheet" aria-label="{html.escape(t("components_pictures"))}">']
    parts += [f'<div class="components-row">{"".join(row)}</div>' for row in rows]  # no space between two
    parts.append("</section>")
    return "\n".join(parts) + "\n"


def _width_mm(svg: str) -> float:
    """A drawing's printed width (its ``width="…mm"``), for the components section's layout."""
    found = re.search(r'<svg[^>]*\swidth="([\d.]+)mm"', svg)
    return float(found.group(1)) if found else 120.0


def setup_markdown(figures: BookFigures, t: Strings, source: Source) -> str:
    """The position after setup, drawn by the engine."""
    if not figures.setup:
        return ""
    lang = t.lang
    alt = t("diagram_alt", caption=_in(figures.setup_captions, lang)) + " " + _in(figures.setup_alts, lang)
    return (f'<figure class="setup-diagram"><img alt="{html.escape(alt.strip())}" '
            f'src="{source("setup.svg", _in(figures.setup, lang))}" />'
            f"<figcaption>{html.escape(_in(figures.setup_captions, lang))}</figcaption></figure>\n")


def legend_markdown(figures: BookFigures, t: Strings, source: Source, folded: bool = False) -> str:
    """The key to the diagrams: a figure (print, once per chapter), or folded in a details block (the site's
    example pages)."""
    if not figures.legend:
        return ""
    lang = t.lang
    img = (f'<img alt="{html.escape(_in(figures.legend_alts, lang))}" '
           f'src="{source("legend.svg", _in(figures.legend, lang))}" />')
    if folded:
        return (f'<details class="legend"><summary>{html.escape(t("mark_legend_title"))}</summary>{img}</details>\n')
    return f'<figure class="legend">{img}</figure>\n'


def keyed_with_components(figures: BookFigures) -> bool:
    """Whether the key to the diagrams is printed under the components section (else before the first diagram)."""
    return bool(figures.components_after and figures.components and figures.legend)


def placed(figures: BookFigures, t: Strings, source: Source) -> dict[str, str]:
    """What goes after which rule: the components section with the key, and the setup diagram (rule ID -> HTML)."""
    found: dict[str, str] = {}
    if figures.components_after and figures.components:
        found[figures.components_after] = components_markdown(figures, t, source) + legend_markdown(figures, t, source)
    if figures.setup_after and figures.setup:
        found[figures.setup_after] = found.get(figures.setup_after, "") + setup_markdown(figures, t, source)
    return found
