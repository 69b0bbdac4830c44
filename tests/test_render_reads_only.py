"""Data flows forward: every source, translations included, is loaded and checked by the gate, and the render stage
only reads what the gate handed it (docs/ARCHITECTURE.md, "How data flows")."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import rulepress
from rulepress.publish import pdfpool
from rulepress.render import pdf, site
from rulepress.verify.gate import verify

from .test_translations import CHAPTER, EXAMPLE, edit, make_translated

PACKAGE = Path(rulepress.__file__).parent
LOAD = f"{PACKAGE / 'load'}{os.sep}"
OWN_TABLES = f"{PACKAGE / 'render' / 'strings'}{os.sep}"  # rulepress's fixed words: package data, not a source


def _method_of_the_model(frame: FrameType) -> bool:
    """A method or property of a class the load stage made (``Book.title``, ``Question.order``): reading the
    model, not loading anything."""
    qualname = frame.f_code.co_qualname
    return "." in qualname and isinstance(frame.f_globals.get(qualname.split(".")[0]), type)


def entered_load(work: Any) -> Counter[str]:
    """Every function of rulepress/load/ that ``work()`` calls from outside load/ (what load/ calls inside itself
    is its own business), by module and name, with the caller."""
    entered: Counter[str] = Counter()

    def called(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or not frame.f_code.co_filename.startswith(LOAD):
            return
        caller = frame.f_back
        while caller is not None and not caller.f_code.co_filename.startswith(str(PACKAGE)):
            caller = caller.f_back  # a library's frame (PyYAML's, Jinja's): who in rulepress asked
        if caller is None or caller.f_code.co_filename.startswith(LOAD):
            return
        if _method_of_the_model(frame) or caller.f_code.co_filename.startswith(OWN_TABLES):
            return
        where = os.path.relpath(caller.f_code.co_filename, PACKAGE)
        entered[f"load/{os.path.relpath(frame.f_code.co_filename, LOAD)}:{frame.f_code.co_qualname} "
                f"(from {where}:{caller.f_code.co_qualname})"] += 1

    sys.setprofile(called)
    try:
        work()
    finally:
        sys.setprofile(None)
    return entered


def test_the_render_stage_enters_no_loader(tmp_path: Path) -> None:
    """The site's pages in every language, the PDF pool's jobs, every edition's HTML and a translated print
    edition laid out and written with its digital one: no function of load/ runs (the translations, the cover's
    texts and artwork, the profile are the gate's, on its report), only the loaded model's own accessors."""
    project = make_translated(tmp_path / "project")
    report = verify(project, draw=True)
    assert report.ok, report.failures()
    assert set(report.books[0].translations) == {"fr"}

    def render() -> None:
        for lang in [None, *site.site_languages(report)]:
            site.pages(site.SiteInput(report, {}, lang))
            site.nav(report, lang)
        jobs = pdfpool._jobs(report, {}, tmp_path / "staging")
        for job in jobs:
            pdf.print_html(job.printing)
        french = next(job for job in jobs if job.lang == "fr" and job.edition == "print")
        assert french.digital is not None
        screen = jobs[french.digital]
        pdf.write_pdf(french.printing, french.target, None, pdf.Digital(screen.printing, screen.target))
        assert screen.target.is_file()

    assert entered_load(render) == {}


def test_the_trace_sees_a_loader(tmp_path: Path) -> None:
    """The check can fail: over the gate's own work, making the translations, it names the loaders it enters."""
    from rulepress.verify import translated

    project = make_translated(tmp_path / "project")
    check = verify(project, draw=True).books[0]
    entered = entered_load(lambda: translated.translate(check))
    assert any(key.startswith("load/translations.py:load_translation_details (from verify/translated.py:")
               for key in entered), entered


@pytest.mark.parametrize("file, bad, said", [
    (CHAPTER, "{{ take.max }} pierre", "{{ take.max pierre"),  # a template that does not close
    (EXAMPLE, "{{ result.winner }} gagne", "{{ result.winner.score.points }} gagne"),  # not in the replay
])
def test_a_bad_translation_fails_at_verify_with_its_file_and_line(tmp_path: Path, file: str, bad: str,
                                                                 said: str) -> None:
    """Found by the gate, where every source is checked: `rulepress verify` names the file and the line (a
    translated example's text is rendered over the replay there too), and the book's other checks go on (the
    translation is left out, never rendered)."""
    project = make_translated(tmp_path / "project")
    edit(project, file, bad, said)
    line = next(number for number, text in enumerate((project / file).read_text().splitlines(), 1)
                if said in text)
    report = verify(project, draw=False)
    assert not report.ok
    assert [problem for problem in report.problems if problem.startswith(f"{file}:{line}:")], report.problems
    assert report.books and report.books[0].translations == {}


def test_the_plugin_instance_is_handed_the_site_input(tmp_path: Path) -> None:
    """No module global: the build hands each language's input to the rulepress plugin of the configuration it
    loaded, and a plain `mkdocs build` (nothing handed over) verifies the books itself."""
    from rulepress.publish.build import render_site
    from rulepress.render.mkdocs_plugin import RulepressPlugin, plugin_of

    assert not hasattr(site, "PREPARED")
    project = make_translated(tmp_path / "project")
    report = verify(project, draw=True)
    handed: dict[str | None, Any] = {}

    def prepare(lang: str | None, config: Any) -> bool | None:
        plugin = plugin_of(config)
        assert isinstance(plugin, RulepressPlugin)
        handed[lang] = plugin.prepared
        return None  # nothing to build: the hand-over is what is looked at

    render_site(project, report, {}, tmp_path / "site", prepare=prepare)
    assert set(handed) == {None, "fr"}
    assert all(given.report is report and given.lang == lang for lang, given in handed.items())
