"""Rule text stays text: raw HTML beyond a typographic allowlist, images, attribute lists and links that leave the
book are refused, naming file, line and column; plain-text fields hold no markup at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulepress.errors import SourceError
from rulepress.load.book import load_book
from rulepress.load.examples import load_example
from rulepress.load.problems import SourceErrors
from rulepress.load.rules import render_template
from rulepress.load.textpolicy import check_markdown, check_plain, url_problem

FILE = "rules_src/mini/chapters/play.md"
ALLOWED = "(allowed: <abbr title>, <br>, <kbd>, <sub>, <sup>)"
LINKS = ("links in rule text may only be cross-references ([[rule.id]]), relative links inside the book or #anchors "
         "(the build never goes online)")


def _refused(text: str, first_line: int = 1, **kwargs: object) -> SourceError:
    with pytest.raises(SourceError) as caught:
        check_markdown(text, FILE, first_line, **kwargs)  # type: ignore[arg-type]
    assert caught.value.file == FILE
    return caught.value


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_script_tag() -> None:
    error = _refused("Take stones.\n\nThen <script>alert(1)</script> wins.", first_line=10)
    assert error.line == 12
    assert error.message == f"raw HTML <script> is not allowed in rule text {ALLOWED} (column 6)"


def test_event_handler_on_an_image() -> None:
    error = _refused("x <img src=x onerror=alert(1)>")
    assert error.message == f"raw HTML <img> is not allowed in rule text {ALLOWED} (column 3)"


def test_event_handler_on_an_allowed_tag() -> None:
    error = _refused('A <abbr title="Victory points" onerror="alert(1)">VP</abbr>', first_line=4)
    assert error.line == 4
    assert error.message == f"<abbr> with attribute 'onerror' is not allowed in rule text {ALLOWED} (column 3)"


def test_style_attribute() -> None:
    error = _refused('<sup style="position:fixed">1</sup>')
    assert error.message == f"<sup> with attribute 'style' is not allowed in rule text {ALLOWED} (column 1)"


def test_javascript_link() -> None:
    error = _refused("See\n[the rules](javascript:alert(document.cookie)) now", first_line=7)
    assert error.line == 8
    assert error.message == ("link to 'javascript:alert(document.cookie': 'javascript:' links are not allowed; "
                             f"{LINKS} (column 13)")


def test_entity_hidden_javascript_link() -> None:
    error = _refused("[x](jav&#x09;ascript:alert(1))")
    assert error.message.startswith("link to 'jav&#x09;ascript:alert(1': 'javascript:' links are not allowed")


def test_attachment_link_to_a_local_file() -> None:
    error = _refused("Rules: <a rel=attachment href=file:///etc/passwd>passwd</a>")
    assert error.message == f"raw HTML <a> is not allowed in rule text {ALLOWED} (column 8)"


def test_remote_image() -> None:
    error = _refused("A picture:\n\n![moth](http://example.com/moth.png)", first_line=2)
    assert error.line == 4
    assert error.message == "images are not allowed in rule text: diagrams come from the engine (column 1)"


def test_html_image_to_remote_host() -> None:
    error = _refused('<img src="https://example.com/track.gif">')
    assert error.message == f"raw HTML <img> is not allowed in rule text {ALLOWED} (column 1)"


@pytest.mark.parametrize("url", ["https://example.com/", "http://x", "file:///etc/passwd", "data:text/html,hi",
                                 "//example.com/x", "/etc/passwd", "../../../etc/passwd", "\\\\host\\share"])
def test_links_that_leave_the_book(url: str) -> None:
    error = _refused(f"[x]({url})")
    assert error.message.startswith(f"link to '{url}': ")
    assert error.message.endswith(f"; {LINKS} (column 5)")


def test_reference_link_definition() -> None:
    error = _refused("[x][ref]\n\n[ref]: https://example.com")
    assert error.line == 3
    assert error.message == f"link to 'https://example.com': 'https:' links are not allowed; {LINKS} (column 8)"


def test_autolink() -> None:
    error = _refused("mail <https://example.com>")
    assert error.message == f"link <https://example.com>: 'https:' links are not allowed; {LINKS} (column 6)"


def test_attribute_list_event_handler() -> None:
    error = _refused('A paragraph.\n{: onclick="alert(1)" }', first_line=3)
    assert error.line == 4
    assert error.message == ("attribute list '{: onclick=\"alert(1)\" }' is not allowed in rule text: it would set "
                             "HTML attributes (column 1)")


@pytest.mark.parametrize("text", ["<!-- hidden -->", "<!DOCTYPE html>", "<?php echo 1 ?>", "<![CDATA[x]]>"])
def test_comments_and_declarations(text: str) -> None:
    error = _refused(f"ok {text}")
    assert error.message.startswith("an HTML ")
    assert error.message.endswith("is not allowed in rule text; write notes to yourself as {## … ##} (column 4)")


def test_allowed_typography_and_links_pass() -> None:
    check_markdown('E = mc<sup>2</sup>, H<sub>2</sub>O, <abbr title="Victory points">VP</abbr>,<br>'
                   "<kbd>Space</kbd>, [[lm.turn.light]], [scoring](#scoring), [setup](setup.md#deal), "
                   "3 < 4 and 5 > 2, {#lm.turn}, [x]{.term}", FILE, 1)


def test_rendered_lines_map_to_the_source() -> None:
    error = _refused("a\nb\n<iframe src=x>", lines=[3, 9, 9])
    assert error.line == 9


def test_template_source_skips_jinja_tags() -> None:
    check_markdown("{% if a < b and c > d %}x{% endif %} {{ a<b }}", FILE, 1, template=True)


def test_script_built_by_a_template_is_refused_after_rendering() -> None:
    with pytest.raises(SourceError) as caught:
        render_template("Intro\n{{ '<scr' ~ 'ipt>' }}alert(1)", {}, FILE, 5)
    assert caught.value.line == 6
    assert caught.value.message == f"raw HTML <script> is not allowed in rule text {ALLOWED} (column 1)"


def test_script_from_component_data_is_refused() -> None:
    with pytest.raises(SourceError) as caught:
        render_template("Cards: {{ deck.name }}", {"deck": {"name": "<img src=x onerror=alert(1)>"}}, FILE, 2)
    assert caught.value.line == 2
    assert caught.value.message == f"raw HTML <img> is not allowed in rule text {ALLOWED} (column 8)"


def test_script_in_a_chapter_is_a_load_error(mini: Path) -> None:
    _edit(mini / "rules_src/mini/chapters/play.md", "Whoever takes", "Whoever <script>x</script> takes")
    with pytest.raises(SourceError) as caught:
        load_book(mini, "mini")
    assert (caught.value.file, caught.value.line) == (FILE, 9)
    assert caught.value.message == f"raw HTML <script> is not allowed in rule text {ALLOWED} (column 9)"


def test_script_in_a_book_title() -> None:
    with pytest.raises(SourceError) as caught:
        check_plain("Moths <script>alert(1)</script>", "rules_src/mini/book.yaml", 2, "the book title")
    assert (caught.value.file, caught.value.line) == ("rules_src/mini/book.yaml", 2)
    assert caught.value.message == "the book title is plain text: HTML (<script…) is not allowed (column 7)"


@pytest.mark.parametrize("text", ["a <b>bold</b>", "x<br>", "<!-- c -->"])
def test_plain_fields_hold_no_tags_at_all(text: str) -> None:
    with pytest.raises(SourceError) as caught:
        check_plain(text, "rules_src/mini/questions.yaml", 5, "question text")
    assert caught.value.message.startswith("question text is plain text: HTML (")


def test_plain_fields_hold_no_links() -> None:
    with pytest.raises(SourceError) as caught:
        check_plain("Is [this](javascript:x) legal?", "rules_src/mini/questions.yaml", 5, "question text")
    assert caught.value.message == ("question text is plain text: links, images and attribute lists are not allowed "
                                    "(column 9)")


def test_plain_text_passes() -> None:
    check_plain("Does a tie (3 < 4 > 2) share the pot, see [[lm.turn]]?", "rules_src/mini/questions.yaml", 5,
                "question text")


@pytest.mark.parametrize(("url", "problem"), [
    ("#anchor", None), ("", None), ("setup.md", None), ("chapters/setup.md#deal", None),
    ("JaVaScRiPt:alert(1)", "'javascript:' links are not allowed"),
    (" \tjavascript:x", "'javascript:' links are not allowed"),
    ("<file:///etc/passwd>", "'file:' links are not allowed"),
    ("a/../../b", "links may not leave the book ('..')"),
])
def test_url_problem(url: str, problem: str | None) -> None:
    assert url_problem(url) == problem


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>/!-?[]()\"'= abscriptimg:#{}.\n&;")), max_size=60))
def test_random_markup_only_raises_source_errors(text: str) -> None:
    for check in (lambda: check_markdown(text, FILE, 1), lambda: check_plain(text, FILE, 1, "title")):
        try:
            check()
        except SourceError as error:
            assert error.file == FILE
            assert error.line is not None and 1 <= error.line <= text.count("\n") + 1


def _load_error(mini: Path) -> SourceError:
    with pytest.raises(SourceError) as caught:
        load_book(mini, "mini")
    return caught.value


def test_book_title_script_is_a_load_error(mini: Path) -> None:
    _edit(mini / "rules_src/mini/book.yaml", "title: Mini Stones", "title: Mini <script>alert(1)</script>")
    error = _load_error(mini)
    assert (error.file, error.line) == ("rules_src/mini/book.yaml", 2)
    assert error.message == "book title is plain text: HTML (<script…) is not allowed (column 6)"


def test_question_text_tag_is_a_load_error(mini: Path) -> None:
    _edit(mini / "rules_src/mini/questions.yaml", "question: Does", "question: <b>Does</b>")
    error = _load_error(mini)
    assert (error.file, error.line) == ("rules_src/mini/questions.yaml", 2)
    assert error.message == "designer question is plain text: HTML (<b…) is not allowed (column 1)"


def test_question_answer_link_is_a_load_error(mini: Path) -> None:
    _edit(mini / "rules_src/mini/questions.yaml", "win: the last stone wins", "win: '[wins](javascript:x)'")
    error = _load_error(mini)
    assert (error.file, error.line) == ("rules_src/mini/questions.yaml", 4)
    assert error.message == f"link to 'javascript:x': 'javascript:' links are not allowed; {LINKS} (column 8)"


def test_change_log_why_image_is_a_load_error(mini: Path) -> None:
    _edit(mini / "rules_src/mini/changelog.yaml", "why: The game is new.", "why: New ![x](http://example.com/x.png)")
    error = _load_error(mini)
    assert (error.file, error.line) == ("rules_src/mini/changelog.yaml", 5)
    assert error.message == "images are not allowed in rule text: diagrams come from the engine (column 5)"


def test_glossary_term_tag_is_a_load_error(mini: Path) -> None:
    _edit(mini / "rules_src/mini/glossary.yaml", "term: Pile", "term: Pile<br>")
    error = _load_error(mini)
    assert (error.file, error.line) == ("rules_src/mini/glossary.yaml", 1)
    assert error.message == "glossary term is plain text: HTML (<br…) is not allowed (column 5)"


def _example_error(mini: Path) -> SourceError:
    book = load_book(mini, "mini")
    with pytest.raises(SourceError) as caught:
        load_example(mini / "examples/mini/mini-last-stone.yaml", book)
    assert caught.value.file == "examples/mini/mini-last-stone.yaml"
    return caught.value


def test_example_text_onerror_is_a_load_error(mini: Path) -> None:
    path = mini / "examples/mini/mini-last-stone.yaml"
    _edit(path, "text: |\n  Ann", "text: |\n  See <img src=x onerror=alert(1)>.\n  Ann")
    error = _example_error(mini)
    assert error.line == path.read_text().splitlines().index("  See <img src=x onerror=alert(1)>.") + 1
    assert error.message == f"raw HTML <img> is not allowed in rule text {ALLOWED} (column 5)"


def test_example_caption_script_is_a_load_error(mini: Path) -> None:
    path = mini / "examples/mini/mini-last-stone.yaml"
    _edit(path, "diagram: The pile is empty", "diagram: <script>x</script>")
    error = _example_error(mini)
    assert error.line == path.read_text().splitlines().index("    diagram: <script>x</script>") + 1
    assert error.message == "checkpoint 'end' diagram is plain text: HTML (<script…) is not allowed (column 1)"


def test_example_title_link_is_a_load_error(mini: Path) -> None:
    _edit(mini / "examples/mini/mini-last-stone.yaml", "title: Taking the last stone",
          "title: '[Taking](https://example.com)'")
    error = _example_error(mini)
    assert error.line == 2
    assert error.message == "example title is plain text: links, images and attribute lists are not allowed (column 8)"


def test_book_fact_and_edition_tags_are_load_errors(mini: Path) -> None:
    _edit(mini / "rules_src/mini/book.yaml", 'ages: "6+"', 'ages: "<i>6+</i>"')
    _edit(mini / "rules_src/mini/changelog.yaml", "- edition: v1", "- edition: <u>v1</u>")
    with pytest.raises(SourceErrors) as caught:
        load_book(mini, "mini")
    assert [(e.file, e.line, e.message) for e in caught.value.errors] == [
        ("rules_src/mini/book.yaml", 5, "book ages is plain text: HTML (<i…) is not allowed (column 1)"),
        ("rules_src/mini/changelog.yaml", 1, "change-log edition is plain text: HTML (<u…) is not allowed (column 1)")]


def test_answer_name_with_markup_is_a_load_error(mini: Path) -> None:
    _edit(mini / "rules_src/mini/questions.yaml", "{win: the last", "{'win` <script>': the last")
    _edit(mini / "rules_src/mini/questions.yaml", "assumed: win", "assumed: 'win` <script>'")
    error = _load_error(mini)
    assert (error.file, error.line) == ("rules_src/mini/questions.yaml", 4)
    assert error.message == "answer name is plain text: HTML (<script…) is not allowed (column 6)"
