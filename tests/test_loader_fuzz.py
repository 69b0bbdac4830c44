"""Fuzzing the loaders tests/test_schemas.py does not damage: prose_only.yaml and the chapters (Markdown that is a
Jinja template over components.yaml).  Random damage or random template pieces end in a loaded book or one
SourceError that renders, naming the damaged file -- never another exception, never a hang."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.errors import SourceError
from rulepress.load.book import load_book
from rulepress.load.problems import SourceErrors

from .conftest import make_project

CHAPTER = "rules_src/mini/chapters/play.md"
PROSE = "rules_src/mini/prose_only.yaml"
SECONDS = 5.0  # one load of the mini book takes ~0.05 s; the sandbox's own time limit is 2 s per template

# Pieces of rule text: valid ones, broken ones and attacks, so that combinations reach the template sandbox, the
# markup policy and the chapter parser in states no hand-written test thought of.
PIECES = [
    "{{ take.max }}", "{{ pile.start * 2 }}", "{{ take.max ", "{% for i in range(3) %}", "{% endfor %}",
    "{% if pile.rows > 2 %}", "{% else %}", "{% endif %}", "{% set n = 5 %}", "{{ n }}", "{## note ##}",
    "{{ range(10**10) | list }}", "{{ 'x' * 10**8 }}", "{{ ''.__class__ }}", "{{ cycler }}", "{{ 1 // 0 }}",
    "{% include 'play.md' %}", "{% raw %}", "{% endraw %}", "{{ [1][3] }}", "{{ take | attr('__dict__') }}",
    "## Rule {#mini.play.extra}", "## No id", "# Chapter {#mini.other}", "[[mini.play.take]]", "[[ mini.x ]]",
    "[link](javascript:alert(1))", "![img](http://example.com/x.png)", "<script>", "<sup>2</sup>", "<b>",
    "<!-- c -->", "{: onclick=x }", "Setext\n-----", "```", "\u0000", "\t", "é", "\n", "\n\n", "text ",
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("loader-fuzz") / "project")


def _load_cleanly(project: Path) -> None:
    """Load the book: success, or SourceError(s) that render and name a file of the book (the damaged one, or one
    whose reference the damage broke)."""
    start = time.monotonic()
    try:
        load_book(project, "mini")
    except SourceError as error:
        for one in error.errors if isinstance(error, SourceErrors) else [error]:
            assert str(one) and str(one.file).startswith("rules_src/mini/"), str(one)
    assert time.monotonic() - start < SECONDS


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(st.sampled_from(PIECES), min_size=1, max_size=12), where=st.integers(0, 400))
def test_random_template_pieces_in_a_chapter_load_or_fail_cleanly(project: Path, pieces: list[str],
                                                                   where: int) -> None:
    path = project / CHAPTER
    original = path.read_text(encoding="utf-8")
    cut = where % (len(original) + 1)
    path.write_text(original[:cut] + " ".join(pieces) + original[cut:], encoding="utf-8")
    try:
        _load_cleanly(project)
    finally:
        path.write_text(original, encoding="utf-8")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300))
def test_random_bytes_as_prose_only_load_or_fail_cleanly(project: Path, data: bytes) -> None:
    path = project / PROSE
    original = path.read_bytes()
    path.write_bytes(data)
    try:
        _load_cleanly(project)
    finally:
        path.write_bytes(original)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from(list("{}[]:-#\n '\"abc.1_|>&*!%@`mini.play.take")), max_size=120))
def test_random_yaml_as_prose_only_load_or_fail_cleanly(project: Path, text: str) -> None:
    path = project / PROSE
    original = path.read_bytes()
    path.write_text(text, encoding="utf-8")
    try:
        _load_cleanly(project)
    finally:
        path.write_bytes(original)


def test_the_fuzzed_loaders_do_refuse_a_known_bad_input(project: Path) -> None:
    """The property above would hold for a loader that accepts everything; this shows these refuse."""
    path = project / CHAPTER
    original = path.read_text(encoding="utf-8")
    path.write_text(original.replace("{{ take.max }}", "{{ 1 // 0 }}"), encoding="utf-8")
    try:
        with pytest.raises((SourceError, SourceErrors)) as caught:
            load_book(project, "mini")
        assert f"{CHAPTER}:5: template error: ZeroDivisionError" in str(caught.value)
    finally:
        path.write_text(original, encoding="utf-8")
