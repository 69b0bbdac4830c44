"""The preflight's reading of a PDF colour space (rulepress.publish.pdfchecks._model), one row per kind of space.

The print edition refuses RGB and the digital edition CMYK; both rest on this reading, through every way a PDF
names a space: a device name, a name in the page's resources, an ICC profile by its component count, and the
spaces built on another (Indexed on its base, Separation and DeviceN on their alternate).
"""

from __future__ import annotations

from typing import Any

import pikepdf
import pytest

from rulepress.publish.pdfchecks import _model

PDF = pikepdf.new()
Name = pikepdf.Name


def _icc(components: int) -> pikepdf.Stream:
    return pikepdf.Stream(PDF, b"", N=components)


RESOURCES = pikepdf.Dictionary(ColorSpace=pikepdf.Dictionary(
    Spot=pikepdf.Array([Name.Separation, Name("/Gold"), Name.DeviceCMYK, pikepdf.Dictionary()]),
    Screen=pikepdf.Array([Name.ICCBased, _icc(3)])))

ROWS: list[tuple[str, Any, str]] = [
    ("device rgb", Name.DeviceRGB, "rgb"),
    ("calibrated rgb", Name.CalRGB, "rgb"),
    ("device cmyk", Name.DeviceCMYK, "cmyk"),
    ("device gray", Name.DeviceGray, "gray"),
    ("calibrated gray", Name.CalGray, "gray"),
    ("a name in the resources", Name("/Screen"), "rgb"),
    ("a name the resources resolve to a separation", Name("/Spot"), "cmyk"),
    ("a name the resources lack", Name("/Elsewhere"), ""),
    ("icc with one component", pikepdf.Array([Name.ICCBased, _icc(1)]), "gray"),
    ("icc with three components", pikepdf.Array([Name.ICCBased, _icc(3)]), "rgb"),
    ("icc with four components", pikepdf.Array([Name.ICCBased, _icc(4)]), "cmyk"),
    ("icc with two components", pikepdf.Array([Name.ICCBased, _icc(2)]), ""),
    ("a device space in an array", pikepdf.Array([Name.DeviceRGB]), "rgb"),
    ("indexed on rgb", pikepdf.Array([Name.Indexed, Name.DeviceRGB, 1, b"\x00\x00\x00\xff\xff\xff"]), "rgb"),
    ("indexed on cmyk icc", pikepdf.Array([Name.Indexed, pikepdf.Array([Name.ICCBased, _icc(4)]), 0, b""]), "cmyk"),
    ("separation with an rgb alternate", pikepdf.Array([Name.Separation, Name("/Red"), Name.DeviceRGB,
                                                        pikepdf.Dictionary()]), "rgb"),
    ("devicen with a cmyk alternate", pikepdf.Array([Name.DeviceN, pikepdf.Array([Name("/A")]), Name.DeviceCMYK,
                                                     pikepdf.Dictionary()]), "cmyk"),
    ("a separation with no alternate", pikepdf.Array([Name.Separation]), ""),
    ("pattern", Name.Pattern, ""),
    ("an empty array", pikepdf.Array([]), ""),
    ("lab", pikepdf.Array([Name.Lab, pikepdf.Dictionary()]), ""),
]


@pytest.mark.parametrize(("space", "model"), [(space, model) for _, space, model in ROWS],
                         ids=[name for name, _, _ in ROWS])
def test_a_colour_space_is_read_as_its_model(space: Any, model: str) -> None:
    assert _model(space, RESOURCES) == model
