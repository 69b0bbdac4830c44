"""Translated editions: French typography, the fixed-word tables, and one build of a small book with a French
translation (site under fr/, PDFs <book>-fr*.pdf), read back."""

from __future__ import annotations

import functools
import json
import re
import shutil
from pathlib import Path

import pikepdf
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from rulepress.errors import SourceError
from rulepress.load.book import load_book
from rulepress.load.examples import load_examples
from rulepress.load.translations import source_items, text_hash
from rulepress.publish.pdfchecks import english_left
from rulepress.publish.preflight import preflight_pdf
from rulepress.render import strings as tables
from rulepress.render.typography import NBSP, NNBSP, sort_key, typeset, typeset_html
from rulepress.verify.gate import verify

from .conftest import MINI, make_project

# -- typography ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "printed"), [
    ("Attention ! Voici : le jeu ; fin?", f"Attention{NNBSP}! Voici{NBSP}: le jeu{NNBSP}; fin{NNBSP}?"),
    ('Il dit "stop" et part.', f"Il dit «{NBSP}stop{NBSP}» et part."),
    ("« déjà »", f"«{NBSP}déjà{NBSP}»"),
    ("à 10:30, voir https://exemple.fr/a?b=1 !", f"à 10:30, voir https://exemple.fr/a?b=1{NNBSP}!"),
    ("Quoi ?!", f"Quoi{NNBSP}?!"),
    ("(?)", "(?)"),
])
def test_french_spacing_and_quotes(text: str, printed: str) -> None:
    assert typeset(text, "fr") == printed


def test_only_text_nodes_change() -> None:
    page = ('<p title="a : b">voir <code>x ; y</code> : ici, <a href="p.html?q=1">Quoi ?</a></p>'
            '<pre>a ! b</pre><p>Mot <em>!</em></p><svg><text>a : b</text></svg><p>"<em>mot</em>"</p>')
    assert typeset_html(page, "fr") == (
        f'<p title="a : b">voir <code>x ; y</code>{NBSP}: ici, <a href="p.html?q=1">Quoi{NNBSP}?</a></p>'
        f'<pre>a ! b</pre><p>Mot<em>{NNBSP}!</em></p><svg><text>a : b</text></svg>'
        f"<p>«{NBSP}<em>mot</em>{NBSP}»</p>")


def test_other_languages_are_left_as_written() -> None:
    page = '<p>Take 2 ; "then" stop : now!</p>'
    assert typeset_html(page, "en") == page


_PROSE = st.text(alphabet=st.sampled_from(list('ab é1 ;:!?"«»()\n.,') + [NBSP, NNBSP]), max_size=40)


@settings(max_examples=300)
@given(_PROSE)
def test_typography_is_idempotent(text: str) -> None:
    once = typeset(text, "fr")
    assert typeset(once, "fr") == once
    page = typeset_html(f"<p>{text}</p>", "fr")
    assert typeset_html(page, "fr") == page


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("abcé 1.,()-\n'")), max_size=40))
def test_text_without_french_punctuation_is_unchanged(text: str) -> None:
    assert typeset(text, "fr") == text


_INLINE_TAGS = st.sampled_from(["", "<em>", "</em>", "<b>", "</b>", "<p>", "</p>", "<code>", "</code>", "<br>"])


@settings(max_examples=300)
@given(st.lists(st.tuples(_INLINE_TAGS, _PROSE), max_size=6))
def test_typography_is_idempotent_across_inline_tags(parts: list[tuple[str, str]]) -> None:
    """Spacing carries across inline tags ("mot <em>!</em>"): a second pass must find nothing more to do."""
    page = "".join(tag + text.replace("<", "").replace("&", "") for tag, text in parts)
    once = typeset_html(page, "fr")
    assert typeset_html(once, "fr") == once
    assert _TAG_RE.findall(once) == _TAG_RE.findall(page)


_TAG_RE = re.compile(r"<[^>]*>")
_URLS = st.sampled_from(["https://x.fr/a?b=1;c", "http://ex.org/p:q!", "mailto:a@b.fr?subject=x"])


@st.composite
def _pages(draw: st.DrawFn) -> tuple[str, list[str], list[str]]:
    """A page of prose, links, code and a diagram; also its verbatim parts and its URLs written in the text."""
    parts, verbatim, urls = [], [], []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["text", "link", "code", "svg", "url"]))
        text = draw(_PROSE).replace("<", "").replace("&", "")
        if kind == "text":
            parts.append(f"<p>{text}</p>")
        elif kind == "link":
            parts.append(f'<a href="{draw(_URLS)}" title="{text.replace(chr(34), "")}">{text}</a>')
        elif kind == "code":
            verbatim.append(f"<code>{text}</code>")
            parts.append(verbatim[-1])
        elif kind == "svg":
            verbatim.append(f'<svg viewBox="0 0 1 1"><text x="0">{text}</text></svg>')
            parts.append(verbatim[-1])
        else:
            urls.append(draw(_URLS))
            parts.append(f"<p>voir {urls[-1]} {text}</p>")
    return "".join(parts), verbatim, urls


@settings(max_examples=200)
@given(_pages())
def test_typography_never_touches_markup_code_or_urls(page: tuple[str, list[str], list[str]]) -> None:
    source, verbatim, urls = page
    done = typeset_html(source, "fr")
    assert _TAG_RE.findall(done) == _TAG_RE.findall(source)  # every tag and attribute, byte for byte
    for part in verbatim:
        assert part in done
    for url in urls:
        assert url in done
    assert typeset_html(done, "fr") == done


def test_french_alphabetical_order_files_accents_with_their_letter() -> None:
    words = ["zèbre", "Étoile", "eau", "écluse", "Ecole", "abri"]
    assert sorted(words, key=lambda w: sort_key(w, "fr")) == ["abri", "eau", "écluse", "Ecole", "Étoile", "zèbre"]
    assert sorted(words, key=lambda w: sort_key(w, "en")) == sorted(words, key=str.lower)  # as before


def test_player_text_check_sees_through_french_spacing() -> None:
    from rulepress.render.player_text import check_player_text

    book = load_book(MINI, "mini")
    page = typeset_html("<!DOCTYPE html><html><body><p>Puis do: take, player: ann, et voilà !</p></body></html>", "fr")
    assert f"do{NBSP}: take" in page
    assert any("example step" in problem for problem in check_player_text(page, book, "pdf/mini-fr.pdf"))


# -- the fixed words -----------------------------------------------------------------------------------------


def test_every_table_has_the_english_keys_and_placeholders() -> None:
    english = tables.strings("en")
    for lang in tables.available():
        table = tables.strings(lang)
        assert set(table.table) == set(english.table), lang
    assert tables.strings("fr")("rule_ref", number="4.4") == "règle 4.4"
    assert "Contents" in tables.english_words("fr") and "Worked examples" in tables.english_words("fr")
    assert tables.english_words("en") == []


def test_a_broken_table_is_reported_at_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(tables.FOLDER / "en.yaml", tmp_path / "en.yaml")
    french = (tables.FOLDER / "fr.yaml").read_text(encoding="utf-8")
    broken = french.replace("rule_ref: règle {number}", "rule_ref: règle {numero}")
    (tmp_path / "fr.yaml").write_text(broken, encoding="utf-8")
    monkeypatch.setattr(tables, "FOLDER", tmp_path)
    tables._load.cache_clear()
    try:
        with pytest.raises(SourceError) as caught:
            tables.strings("fr")
        line = broken.splitlines().index("rule_ref: règle {numero}") + 1
        assert caught.value.file == "rulepress/render/strings/fr.yaml" and caught.value.line == line
        assert "'rule_ref' must use the placeholders ['number']" in caught.value.message
        with pytest.raises(SourceError, match="no table .* for language 'de'"):
            tables.strings("de")
    finally:
        tables._load.cache_clear()


# -- one build with a French translation --------------------------------------------------------------------

FRENCH = {
    "book.yaml": {"title": "Mini Pierres", "subtitle": "Règles"},
    "chapters/play.md": (
        "# Jouer {#mini.play}\n\n"
        "## Prendre des pierres {#mini.play.take}\n\n"
        'À votre tour, prenez de 1 à {{ take.max }} pierres du "tas" de {{ pile.start }}.\n\n'
        "## Gagner {#mini.play.win}\n\n"
        "Qui prend la dernière pierre gagne ! (voir [[mini.play.take]]).\n"),
    "glossary.yaml": [{"term": "Tas", "source": "Pile", "definition": "Les pierres qui restent à prendre.",
                       "rule": "mini.play.take"}],
}
EXAMPLE = {"title": "Prendre la dernière pierre",
           "text": "Ann ne peut pas prendre 4 ; elle en prend 2. Ben prend les {{ cp.end.pile + 2 }} dernières "
                   "et {{ result.winner }} gagne !\n",
           "captions": {"end": "Le tas est vide"}}
STALE = "rule:mini.play.win"  # recorded against an older source text: the designer edition marks it


def _translate(project: Path) -> None:
    """The mini book in French: every item translated, one of them stale, the designer question missing."""
    book_file = project / "rules_src" / "mini" / "book.yaml"
    book_file.write_text(book_file.read_text(encoding="utf-8") + "translations: [fr]\n", encoding="utf-8")
    folder = project / "rules_src" / "mini" / "fr"
    for name, content in FRENCH.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else yaml.safe_dump(content, allow_unicode=True),
                        encoding="utf-8")
    examples = project / "examples" / "mini" / "fr"
    examples.mkdir(parents=True)
    (examples / "mini-last-stone.yaml").write_text(yaml.safe_dump(EXAMPLE, allow_unicode=True), encoding="utf-8")
    source = load_book(project, "mini")
    items = source_items(source, load_examples(source))
    recorded = {key: text_hash(text) for key, (text, _, _) in items.items() if not key.startswith("question:")}
    recorded[STALE] = "0" * 12
    (folder / "sources.yaml").write_text(yaml.safe_dump(recorded), encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rulepress.publish.build import build

    project = make_project(tmp_path_factory.mktemp("translated") / "project")
    _translate(project)
    with (project / "rules_src" / "mini" / "book.yaml").open("a") as book:
        book.write("examples: chapter\n")  # the examples in a chapter of their own (the bundled books: beside-rules)
    target = project.parent / "site"
    build(project, site_dir=target)
    return target


@functools.cache
def pdf_text(path: Path) -> str:
    """The PDF's text, ordinary spaces and line breaks collapsed (no-break spaces kept: they are under test) and
    words hyphenated across lines joined again."""
    text = " ".join(page.extract_text() or "" for page in PdfReader(path).pages)
    return re.sub(r"[ \t\r\n]+", " ", text).replace("\u2010 ", "")


def test_french_site_has_its_language_search_and_switcher(built: Path) -> None:
    home = (built / "fr" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="fr"' in home and "Livres de règles" in home
    assert '<html lang="en"' in (built / "index.html").read_text(encoding="utf-8")
    search = json.loads((built / "fr" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert search["config"]["lang"] == ["fr"]
    assert json.loads((built / "search" / "search_index.json").read_text(encoding="utf-8"))["config"]["lang"] == ["en"]
    # Each page's switcher leads to the same page in the other language.
    french = (built / "fr" / "mini" / "rules" / "mini.play.html").read_text(encoding="utf-8")
    english = (built / "mini" / "rules" / "mini.play.html").read_text(encoding="utf-8")
    to_english = re.search(r'<a href="([^"]+)" hreflang="en" class="md-select__link"', french)
    to_french = re.search(r'<a href="([^"]+)" hreflang="fr" class="md-select__link"', english)
    assert to_english and to_french
    page = built / "fr" / "mini" / "rules"
    assert (page / to_english.group(1)).resolve() == (built / "mini" / "rules" / "mini.play.html").resolve()
    assert (built / "mini" / "rules" / to_french.group(1)).resolve() == (page / "mini.play.html").resolve()
    # The theme's <link rel="alternate"> name each language's home, where its sitemap.xml is.
    home = re.search(r'<link rel="alternate" href="([^"]+)" hreflang="fr">', english)
    assert home and (built / "mini" / "rules" / home.group(1)).resolve() == (built / "fr" / "index.html").resolve()
    assert (built / "fr" / "sitemap.xml").is_file()
    # The theme's own words are French, and the page's text is set in French typography.
    assert "Rechercher" in french
    assert f"gagne{NNBSP}!" in french and f"«{NBSP}tas{NBSP}»" in french
    assert not re.search(r"<code>[^<]*\u202f", french)


def test_french_pdfs_are_named_tagged_and_pass_preflight(built: Path) -> None:
    folder = built / "pdf"
    for name in ("mini", "mini-fr"):
        for suffix in ("", "-digital", "-designer"):
            assert (folder / f"{name}{suffix}.pdf").is_file()
    for suffix in ("", "-digital"):
        assert preflight_pdf(folder / f"mini-fr{suffix}.pdf") == []
    with pikepdf.open(folder / "mini-fr-digital.pdf") as digital:
        assert str(digital.Root.Lang) == "fr"
    with pikepdf.open(folder / "mini-digital.pdf") as digital:
        assert str(digital.Root.Lang) == "en"


def test_french_pdf_prints_french_words_and_typography(built: Path) -> None:
    text = pdf_text(built / "pdf" / "mini-fr.pdf")
    assert "Sommaire" in text and "Exemples commentés" in text and "Glossaire" in text
    assert f"gagne{NNBSP}!" in text
    assert re.search(r"Tas, \d", text), "the index gives the pages the term is used on"
    assert english_left(str(built / "pdf" / "mini-fr.pdf"), "fr") == []
    # The check does refuse English: the English edition read as if it were French.
    found = english_left(str(built / "pdf" / "mini.pdf"), "fr")
    assert any("'Contents'" in finding.message for finding in found)


def test_designer_edition_marks_stale_and_missing_items(built: Path) -> None:
    designer = pdf_text(built / "pdf" / "mini-fr-designer.pdf")
    assert "Traduction à revoir" in designer  # the stale rule
    assert "Non traduit" in designer  # the designer question nobody translated
    assert designer.index("Traduction à revoir") > designer.index("Gagner")
    for player in ("mini-fr.pdf", "mini-fr-digital.pdf"):
        assert "Traduction à revoir" not in pdf_text(built / "pdf" / player)


def test_both_languages_print_the_numbers_of_the_one_replay(built: Path) -> None:
    report = verify(built.parent / "project", ["mini"])
    result = report.books[0].results[0]
    last = str(result.checkpoints["end"].snapshot["pile"] + 2)
    winner = str(result.result["winner"])
    english = pdf_text(built / "pdf" / "mini.pdf")
    french = pdf_text(built / "pdf" / "mini-fr.pdf")
    assert f"Ben takes the last {last} and {winner} wins" in english
    assert f"Ben prend les {last} dernières et {winner} gagne" in french
