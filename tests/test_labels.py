"""Every text label of a diagram measured against its box (rulepress/verify/labels.py), in the shipped font's widths:
the French "Chemin perdu" that ran under the Path Astray track's first box (issue 27) is refused, naming the label,
the language and the diagram; labels that fit pass, in every bundled diagram and language."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from rulepress.textwidth import text_width
from rulepress.verify import diagram, labels
from rulepress.verify.gate import Report

from .conftest import checks_of

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" width="480" height="120" viewBox="0 0 480 120">'
TRACK = '<rect x="78" y="10" width="42" height="18" fill="#f0e1d3"/><rect x="122" y="10" width="42" height="18" ' \
        'fill="#f0e1d3"/>'


def svg(body: str) -> ET.Element:
    return ET.fromstring(HEAD + '<rect width="480" height="120" fill="#ffffff"/>' + body + "</svg>")


def title(words: str) -> str:
    return f'<text x="8" y="22" font-size="10" font-weight="bold">{words}</text>'


def test_a_title_that_runs_on_to_the_box_beside_it_fails() -> None:
    assert text_width("Chemin perdu", 10, bold=True) > 70 > text_width("Path Astray", 10, bold=True)
    found = labels.overflow(svg(title("Chemin perdu") + TRACK))
    assert found is not None and found.startswith("has a label 'Chemin perdu' (10 units, bold) that runs on to a box "
                                                  "beside it (x 78–120, y 10–28)"), found
    assert labels.overflow(svg(title("Path Astray") + TRACK)) is None


def test_a_name_wider_than_its_square_fails_and_one_across_its_tiles_squares_passes() -> None:
    square = '<rect x="100" y="40" width="22" height="22" fill="#ad9e85"/>'
    beside = '<rect x="122" y="40" width="22" height="22" fill="#ad9e85"/>'  # the same tile's next square
    name = '<text x="102" y="49" font-size="10">M04</text>'
    found = labels.overflow(svg(square + '<rect x="122" y="40" width="22" height="22" fill="#dddddd"/>' + name))
    assert found is not None and "'M04' (10 units) that runs out of its box (x 100–122, y 40–62)" in found
    assert labels.overflow(svg(square + beside + name)) is None


@pytest.mark.parametrize("body", [
    '<g transform="translate(200 50)"><rect x="0" y="0" width="40" height="20" fill="#123"/>'
    '<text x="20" y="14" font-size="10" text-anchor="middle">abc</text></g>',  # through a group's transform
    '<rect x="10" y="40" width="80" height="40" fill="#123"/><rect x="14" y="44" width="72" height="32" '
    'fill="none" stroke="#999"/><text x="16" y="54" font-size="10">a1 label</text>',  # a frame is no box
    '<text x="470" y="100" font-size="10" text-anchor="end">right edge</text>',
])
def test_labels_that_fit_pass(body: str) -> None:
    assert labels.overflow(svg(body)) is None


def test_a_label_out_of_the_drawing_fails() -> None:
    found = labels.overflow(svg('<text x="440" y="100" font-size="10">over the edge</text>'))
    assert found is not None and "runs out of the drawing" in found


def test_the_gate_refuses_it_through_the_diagram_check() -> None:
    """diagram.problem reads every label back as the gate receives each diagram, in every language."""
    text = HEAD + title("Chemin perdu") + TRACK + "</svg>"
    problem = diagram.problem(text)
    assert problem is not None and "label 'Chemin perdu'" in problem


def test_every_bundled_diagram_fits_in_every_language(bundled: Report) -> None:
    """The gate passed: every checkpoint's diagram, in English and in French, and every step-through frame, was
    measured (the French Last Lantern's track title among them)."""
    report = checks_of(bundled, "last-lantern")
    drawn = [svg for check in report.books for result in check.results for cp in result.checkpoints.values()
             for svg in (cp.svgs or {}).values()]
    french = [svg for svg in drawn if "Chemin perdu" in svg]
    assert french and all(labels.overflow(ET.fromstring(svg)) is None for svg in drawn)


def test_the_marks_labels_are_measured_against_the_marks_not_the_position_under_them() -> None:
    """A step's number sits on its own disc over the drawing (rulepress/marks.py): it fits its disc, whatever tile is
    under it; a number drawn over another mark's disc does not."""
    tile = '<rect x="100" y="40" width="44" height="22" fill="#ad9e85"/><text x="110" y="55" font-size="10">M04</text>'
    number = ('<g class="rp-mark rp-changed"><circle cx="{x}" cy="44" r="8" fill="#e84226"/>'
              '<text x="{x}" y="47.6" font-size="10" text-anchor="middle" font-weight="bold">2</text></g>')
    assert labels.overflow(svg(tile + number.format(x=100))) is None
    refused = '<g class="rp-mark rp-refused"><circle cx="107" cy="44" r="8" fill="#ffffff"/></g>'  # a ringed number
    over = svg(tile + refused + number.format(x=100))
    found = labels.overflow(over)
    assert found is not None and "label '2'" in found, found
