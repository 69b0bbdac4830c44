"""The text of an engine's Python files, as the checks that read them without running them see it.

The gate reads an engine's source for what running it cannot show: where each ``decided(state, "id")`` mark sits
(rulepress.verify.decisions), the rule IDs its code names (rulepress.verify.trace), the messages it marks for
translation (rulepress.i18n), and what decides play, whether the saved simulations are current
(rulepress.analyze.fingerprint).  Each reads through :func:`read` and nothing else, so one seam says what "the
engine's source" is.  The mutation tests need that seam: their copy of an engine holds every mutant's version of
each function, which is not the engine (tools/mutmut_plugin.py replaces :func:`read` with one that gives the
source the mutants were made from).
"""

from __future__ import annotations

from pathlib import Path


def read(path: Path, errors: str = "replace") -> str:
    """The file's text.  A stray byte that is not UTF-8 is replaced (the import check names it: load.confine), or
    with ``errors="strict"`` raises UnicodeDecodeError."""
    return Path(path).read_text(encoding="utf-8", errors=errors)
