"""The French designer edition is French throughout: the designer questions with their impact, the dashboard, the
coverage and change-log pages take every fixed word from the French table (rulepress/render/strings/fr.yaml), so
none of the English table's phrases shows (the check the French player editions' read-back makes)."""

from __future__ import annotations

import re
from pathlib import Path

from rulepress.analyze.impact import saved_impacts
from rulepress.analyze.report import designer_markdown
from rulepress.load.translations import load_translation
from rulepress.render import markdown as render
from rulepress.render.strings import english_words, strings
from rulepress.verify.gate import load_checked_book
from rulepress.verify.trace import build_trace


def _english(text: str) -> list[str]:
    return [phrase for phrase in english_words("fr")
            if re.search(r"(?<!\w)" + r"\s+".join(map(re.escape, phrase.split())) + r"(?!\w)", text)]


def test_the_designer_parts_of_the_french_edition_show_no_english_fixed_words(root: Path) -> None:
    check = load_checked_book(root, "last-lantern")
    french = load_translation(check.book, "fr")
    link = render.Linker(rule=lambda r: f"#{r}", example=lambda e: f"#{e}", diagram=lambda e, c: "",
                         glossary=lambda: "#glossary")
    impacts = saved_impacts(root, check)
    parts = {"questions": render.questions_markdown(french, link, impacts),
             "dashboard": designer_markdown(root, "last-lantern", strings("fr"), french),
             "coverage": render.coverage_markdown(french, build_trace(check, root), link),
             "change log": render.changelog_markdown(french, link)}
    assert parts["dashboard"].startswith("## Ce qu'ont révélé les parties simulées")
    assert "*État :* **ouverte**" in parts["questions"] and "**Effet**" in parts["questions"]
    # The change log has no translation file: its entries are the source's, marked as not translated; its own
    # fixed words (the headings, the mark) are French.
    assert "Non traduit" in parts["change log"]
    parts["change log"] = "\n".join(line for line in parts["change log"].splitlines() if not line[:1].isdigit())
    for name, text in parts.items():
        assert _english(text) == [], name
    # The English edition of the same parts, for contrast: the check has teeth.
    assert _english(render.questions_markdown(check.book, link, impacts))
