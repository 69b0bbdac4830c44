"""The player edition speaks to players: engines narrate, and no rule ID or engine notation gets through."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulepress.load.book import load_book
from rulepress.project import find_root
from rulepress.protocol import narrator_of
from rulepress.render import markdown as render
from rulepress.render import site
from rulepress.render.player_text import check_player_text
from rulepress.verify.engines import load_engine
from rulepress.verify.gate import BookCheck, Report
from rulepress.verify.replay import make_game

from .conftest import checks_of

ROOT = find_root(Path(__file__).parent)


@pytest.fixture(scope="module")
def report(bundled: Report) -> Report:
    return bundled  # read only


def _check(report: Report, book_id: str) -> BookCheck:
    return next(check for check in report.books if check.book.id == book_id)


def _print_linker() -> render.Linker:  # the print edition's links (rulepress/render/pdf.py)
    return render.Linker(rule=lambda r: f"#{r}", example=lambda e: f"#{e}",
                         diagram=lambda e, c: f"file:///diagrams/{render.diagram_name(e, c)}", glossary=lambda: "")


def test_every_site_player_page_is_clean(report: Report) -> None:
    pages = site.pages(site.SiteInput(report))  # raises PlayerTextError on any finding
    books = {check.book.id: check.book for check in report.books}
    player = [path for path in pages if site.is_player_page(path) and "/" in path]
    assert len(player) > 90
    assert [p for path in player for p in check_player_text(pages[path], books[path.split("/")[0]], path)] == []


def test_every_print_player_page_is_clean(report: Report) -> None:
    link = _print_linker()
    problems = []
    for check in report.books:
        book = check.book
        for chapter in book.chapters:
            problems += check_player_text(render.chapter_markdown(chapter, book, link), book, chapter.id)
        for result in check.results:
            problems += check_player_text(render.example_markdown(result, book, link), book, result.example.id)
    assert problems == []


def test_an_injected_rule_id_is_caught_with_file_and_line(report: Report) -> None:
    book = _check(report, "lantern-moths").book
    text = "# Light\n\nSee [rule 4.4](turn.md#lm.turn.light){.rule-ref}.\n\nThen light (rule lm.turn.light).\n"
    assert check_player_text(text, book, "lm.turn.md") == [
        "lm.turn.md:5: rule ID 'lm.turn.light' in the player edition of Lantern Moths "
        "(…Then light (rule lm.turn.light).…); it belongs in the designer edition"]


def test_engine_notation_is_caught_in_markdown_and_html(report: Report) -> None:
    book = _check(report, "last-lantern").book
    markdown = "Milo lays Tree tile T05 on lane a, steps 1 to 2.\n<del>abandoned T43 onto e10 e11 e12 e13 f12</del>\n"
    assert check_player_text(markdown, book, "ll-x.md") == [
        "ll-x.md:2: list of spaces 'e10 e11 e12 e13 f12' in the player edition of Last Lantern "
        "(…abandoned T43 onto e10 e11 e12 e13 f12…); it belongs in the designer edition"]
    html = ('<!DOCTYPE html>\n<html><body>\n<p>Fine.</p>\n<img alt="Milo: Familiars R1 S0 O0" src="x.svg">\n'
            '<p><code>### / .#.</code></p>\n<p>Solver: this roll needs luck</p>\n</body></html>\n')
    assert check_player_text(html, book, "page.html") == [
        "page.html:4: Familiar counts 'R1 S0' in the player edition of Last Lantern (…Milo: Familiars R1 S0 O0…); "
        "it belongs in the designer edition",
        "page.html:5: tile shape '### / .#.' in the player edition of Last Lantern (…### / .#.…); "
        "it belongs in the designer edition",
        "page.html:6: solver output 'Solver:' in the player edition of Last Lantern (…Solver: this roll needs luck…); "
        "it belongs in the designer edition"]


def test_links_and_anchors_are_not_text(report: Report) -> None:
    book = _check(report, "lantern").book
    text = ('## 4.2 Enter {#ln.play.enter data-rule=\'ln.play.enter\'}\n\n'
            '[rule 4.2<span class="ref-title"> (Enter)</span>](ln.play.md#ln.play.enter){.rule-ref}\n')
    assert check_player_text(text, book) == []


def test_the_site_refuses_a_player_page_with_a_rule_id(report: Report, monkeypatch: pytest.MonkeyPatch) -> None:
    original = site._book_pages

    def leaky(check: BookCheck, impact: object, lang: str | None = None) -> dict[str, str]:
        files = original(check, impact, lang)  # type: ignore[arg-type]
        if check.book.id == "lantern":
            files["lantern/glossary.md"] += "\nAsk about ln.play.enter.\n"
        return files

    assert site.player_text_problems(report) == []
    monkeypatch.setattr(site, "_book_pages", leaky)
    lantern = checks_of(report, "lantern")  # the leak is Lantern's: its site alone is made again
    with pytest.raises(site.PlayerTextError) as caught:
        site.pages(site.SiteInput(lantern))
    assert len(caught.value.problems) == 1
    assert caught.value.problems[0].startswith("site page lantern/glossary.md:")
    assert ": rule ID 'ln.play.enter' in the player edition of Lantern (…Ask about ln.play.enter.…)" in \
        caught.value.problems[0]
    assert site.player_text_problems(lantern) == caught.value.problems  # the publish stage's check finds it alike


@pytest.mark.parametrize("book_id", ["lantern-moths", "last-lantern", "lantern"])
def test_every_action_of_every_example_is_narrated(report: Report, book_id: str) -> None:
    check = _check(report, book_id)
    engine = load_engine(check.book.engine_package, ROOT)
    assert narrator_of(make_game(engine, check.book, {})) is engine.narration
    silent = [f"{r.example.id} step {line.step}" for r in check.results for line in r.transcript
              if line.step > 0 and not line.narration]
    assert silent == []


def test_narration_in_the_rulebook_words(report: Report) -> None:
    def lines(book_id: str, example_id: str) -> list[str]:
        result = next(r for r in _check(report, book_id).results if r.example.id == example_id)
        return [line.narration for line in result.transcript]

    assert lines("last-lantern", "ll-basilisk-abandoned")[1:] == [
        "Tree tile T43 is abandoned onto lane e, steps 10 to 13; lane f, step 12.",
        "Tree tile T43 is abandoned onto lane e, steps 10 to 13; lane f, step 11."]
    assert lines("lantern-moths", "lm-flip") == [
        "Ann turns over the face-down tile at a1.", "Ann turns over the rose tile at b2.",
        "Ann turns over the face-down tile at b1.", "Ann turns over the face-down tile at a1."]
    assert "You use Counterattack to turn a 4 into a 3." in lines("lantern", "ln-counterattack-up-or-down")


def test_designer_edition_keeps_notation_the_player_edition_drops(report: Report) -> None:
    check = _check(report, "last-lantern")
    result = next(r for r in check.results if r.example.id == "ll-seed-basilisk")
    link = _print_linker()
    player = render.example_markdown(result, check.book, link)
    designer = render.example_markdown(result, check.book, link, designer=True)
    assert "from the rulebook (VI. Basilisk (example))" in designer
    assert "from the rulebook" not in player
    assert "✔ Verified: replayed against the rules engine</p>" in player  # the site's page
    printed = render.example_markdown(result, check.book, link, verified=False)  # the player's PDFs
    assert "Verified" not in printed and "Verified: replayed" in render.example_markdown(
        result, check.book, link, designer=True, verified=False)


def test_each_caption_once_below_its_diagram(report: Report) -> None:
    check = _check(report, "lantern-moths")
    result = next(r for r in check.results if r.example.id == "lm-flip")
    text = render.example_markdown(result, check.book, _print_linker())
    caption = "After two flips the garden shows three tiles"
    assert text.count(caption) == 1
    # Its moment first ("After steps 1–4", rulepress/change.py), then the example's caption.
    moment = '<span class="moment">After steps 1–4</span>'
    assert text.index("![") < text.index(f"<figcaption>{moment}: {caption}</figcaption>")


def test_cross_references_read_rule_and_title_on_the_web(report: Report) -> None:
    book = _check(report, "lantern-moths").book
    rule = book.rules["lm.turn.plant"]
    text = render.resolve_refs("see [[lm.turn.plant]].", book, _print_linker())
    assert text == (f'see [rule {rule.number}<span class="ref-title"> (Plant)</span>](#lm.turn.plant)'
                    "{.rule-ref}.")


def test_terms_are_not_linked_inside_the_book_title_or_other_names(report: Report) -> None:
    book = _check(report, "lantern-moths").book
    linked = render.link_terms("Lantern Moths is a game. A Ghost Moth flies to a Lantern.", book, _print_linker())
    assert linked.startswith("Lantern Moths is a game.")
    assert "[Ghost Moth]" in linked and "[Lantern](#term-lantern){.term}." in linked
    assert "[Lantern](#term-lantern){.term} Moths" not in linked


def test_designer_question_ids_read_as_words_for_players(report: Report) -> None:
    book = _check(report, "lantern").book
    text = "A lost game has no score (designer question ln.q12). Designer question ln.q5 asks. Open (ln.q1, ln.q2)."
    assert render.designer_refs(text, book) == ("A lost game has no score (a designer question). "
                                               "A designer question asks. Open.")


def test_notation_in_a_diagram_is_caught(report: Report) -> None:
    book = _check(report, "last-lantern").book
    svg = ('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg">\n<text>Round 3</text>\n'
           "<text>Coco: Familiars R0 S0 O1 · lanterns crossed [1, 2]</text>\n</svg>\n")
    assert check_player_text(svg, book, "d.svg") == [
        "d.svg:4: Familiar counts 'R0 S0' in the player edition of Last Lantern (…Coco: Familiars R0 S0 O1 · "
        "lanterns crossed [1, 2]…); it belongs in the designer edition",
        "d.svg:4: list in brackets '[1, 2]' in the player edition of Last Lantern (…s R0 S0 O1 · "
        "lanterns crossed [1, 2]…); it belongs in the designer edition"]


def test_a_credit_to_an_outside_source_is_not_notation() -> None:
    book = load_book(ROOT, "last-lantern")
    html = ('<!DOCTYPE html>\n<html><body>\n<p class="credit">Source: open_spiel/tic_tac_toe.txt '
            '(<span class="url">https://example.org/open_spiel</span>)</p>\n<p>Then ll.fog.draw.</p>\n</body></html>\n')
    problems = check_player_text(html, book, "page.html")
    assert len(problems) == 1 and problems[0].startswith("page.html:4: rule ID 'll.fog.draw'")
    markdown = '<p class="credit">Source: open_spiel/tic_tac_toe.txt</p>\n\nsee ll.fog.draw\n'
    assert [p.split(":")[1] for p in check_player_text(markdown, book, "page.md")] == ["3"]


def test_a_tile_shape_is_drawn_as_rows_of_squares() -> None:
    picture = render.shape_pictures("A `### / .#.` tile")
    assert picture.startswith('A <span class="shape" role="img" aria-label="a shape of 4 squares">')
    rows = picture.split('<span class="row">')[1:]
    assert [row.count('class="sq"') for row in rows] == [3, 1]
    assert [row.count('class="gap"') for row in rows] == [0, 2]


def test_notation_is_caught_through_soft_hyphens_and_ties(report: Report) -> None:
    """The PDFs' HTML carries break points (U+00AD) and tied references: the check still reads the words."""
    book = _check(report, "lantern").book
    page = "<!DOCTYPE html><html><body><p>cer\u00adtain: 3 dice, rule\u00a0ln.play</p></body></html>"
    hidden = check_player_text(page, book, "x")
    assert any("solver verdict" in message for message in hidden), hidden
    assert any("rule ID 'ln.play'" in message for message in hidden), hidden
