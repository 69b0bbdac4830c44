"""How wide a line of diagram text is, in SVG units, in the shipped sans-serif font.

Engines lay out labels whose length depends on the language (``Path Astray`` / ``Chemin perdu``); estimating
with a fixed width per letter either wastes room in one language or lets a label run under a shape in another.
The widths are ``rulepress.fontmetrics``' (the gate measures every label with them too, ``rulepress.verify.labels``);
in the browser, ``render/browser/metrics.py`` stands in for this module with the same widths as a table.
"""

from __future__ import annotations

from rulepress.fontmetrics import FONTS, _advances, text_width

__all__ = ["FONTS", "_advances", "text_width"]
