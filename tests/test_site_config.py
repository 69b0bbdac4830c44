"""The site's configuration: a project needs no mkdocs.yml; its own is merged over the packaged defaults; what would
make the site depend on the network is refused at its line; what mkdocs, its plugins or the theme say is wrong is
shown in their own words, with the file."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from mkdocs.config import load_config

from rulepress.errors import BuildRefused
from rulepress.publish.build import build, checked_site_config
from rulepress.render.mkdocs_plugin import RulepressPlugin
from rulepress.render.site_config import site_config, theme_folder


def refused(root: Path) -> list[str]:
    with pytest.raises(BuildRefused) as error:
        build(root)
    assert not (root / "site").exists()  # nothing published
    return error.value.problems


def config_refused(root: Path) -> list[str]:
    """What the build refuses on before it renders anything (checked_site_config), without the build around it."""
    with pytest.raises(BuildRefused) as error:
        checked_site_config(root)
    return error.value.problems


def test_a_project_needs_no_mkdocs_yml(mini: Path) -> None:
    assert not (mini / "mkdocs.yml").exists()
    merged = site_config(mini)
    assert merged["theme"]["name"] == "material" and merged["theme"]["font"] is False
    assert merged["plugins"] == ["search", "offline", "rulepress"]
    assert merged["docs_dir"] == str(theme_folder())
    config = load_config(io.BytesIO(b"{}"), config_file_path=str(mini / "mkdocs.yml"), **merged)
    # `- rulepress` names the plugin through its entry point (mkdocs.plugins), not a path into any checkout.
    assert isinstance(config.plugins["rulepress"], RulepressPlugin)
    assert set(config.plugins) >= {"material/search", "material/offline", "rulepress"}


def test_a_projects_own_mkdocs_yml_is_merged_over_the_defaults(mini: Path) -> None:
    (mini / "mkdocs.yml").write_text(
        "site_name: Moth Garden Games\n"
        "theme:\n  palette: {primary: teal}\n"
        "extra_css: [house.css]\n"
        "nav:\n  - About us: about.md\n"
        "markdown_extensions: [footnotes]\n")
    (mini / "site_src").mkdir()
    (mini / "site_src" / "about.md").write_text("# About us\n\nWe make small games.[^1]\n\n[^1]: Very small.\n")
    (mini / "site_src" / "house.css").write_text(".md-typeset h1 { letter-spacing: 0.02em; }\n")
    build(mini)
    site = mini / "site"
    home = (site / "index.html").read_text()
    assert "<title>Moth Garden Games</title>" in home
    assert 'data-md-color-primary="teal"' in home
    assert 'href="assets/rulepress.css"' in home and 'href="house.css"' in home  # the defaults' CSS and its own
    assert "assets/vendor/iframe-worker/shim.js" in home and (site / "assets/vendor/iframe-worker/shim.js").is_file()
    assert "fonts.googleapis" not in home and "fonts.gstatic" not in home
    about = (site / "about.html").read_text()
    assert 'class="footnote"' in about  # its own Markdown extension, beside the defaults'
    assert 'href="about.html"' in home  # its page follows the books' in the navigation
    assert (site / "mini" / "rules" / "mini.play.html").is_file()  # and the books are all there


@pytest.mark.parametrize(("text", "place", "said"), [
    ("site_name: X\ntheme:\n  font:\n    text: Roboto\n", "3:3",
     "'theme.font' must be false (web fonts are fetched from Google Fonts, and the site must work offline; leave "
     "theme.font out), not a mapping"),
    ("plugins:\n  - search\n  - offline:\n      enabled: false\n", "3",
     "plugins: 'offline' may not be disabled: it gives search and navigation from file:// without a server"),
    ("plugins:\n  - material/search: {enabled: false}\n", "2", "plugins: 'search' may not be disabled: it gives "
                                                               "the site's search"),
    ("theme: readthedocs\n", "1:1", "'theme' must be material (rulepress's site is built on mkdocs-material; leave "
                                    "it out), not 'readthedocs'"),
    ("extra_css:\n  - https://cdn.example.org/x.css\n", "2",
     "extra_css[1]: 'https://cdn.example.org/x.css' is not a file of the project ('https:' is fetched from "
     "elsewhere), and the site fetches nothing: put the file in site_src/ and name it by its path there"),
    ("extra:\n  polyfills: [//cdn.example.org/shim.js]\n", "2",
     "extra.polyfills[1]: '//cdn.example.org/shim.js' is not a file of the project (a browser reads it as another "
     "host's), and the site fetches nothing: put the file in site_src/ and name it by its path there"),
    ("site_dir: public\n", "1:1", "'site_dir' may not be set: rulepress build publishes into site/ (or --site-dir "
                                  "DIR), checked and swapped in whole"),
    ("site_name: X\nextra: [a, b]\n", "2:1", "'extra' must be a mapping (generator, polyfills, social, homepage, "
                                             "status), not a list"),
    ("plugins: search\n", "1:1", "'plugins' must be a list of plugins (rulepress ships search, offline and "
                                 "rulepress, which it names itself), not 'search'"),
    ("site_name: X\nuse_directory_urls: maybe\n", "2:1",
     "'use_directory_urls' must be false (rulepress's pages are files, so the site works from file:// too; leave it "
     "out), not 'maybe'"),
    ("hooks:\n  - rulepress/render/mkdocs_hooks.py\n", "2:3",
     "'hooks' may not be set: hooks are Python files run at every build, and a project's site runs nothing of its "
     "own"),
    ("markdown_extensions: [no_such_extension]\n", "1",
     "markdown_extensions[1]: 'no_such_extension' is not a Markdown extension a rulepress site may use "
     "(Python-Markdown's and pymdown-extensions' that run and fetch nothing)"),
])
def test_what_a_project_may_not_change_is_refused_at_its_line(mini: Path, text: str, place: str, said: str) -> None:
    (mini / "mkdocs.yml").write_text(text)
    assert config_refused(mini) == [f"mkdocs.yml:{place}: {said}"]
    assert refused(mini) == [f"mkdocs.yml:{place}: {said}"]  # the build, which says every problem of the file


@pytest.mark.parametrize(("text", "said"), [
    ("markdown_extensions:\n  - toc: {baselevel: zz}\n",
     "mkdocs.yml:1: mkdocs: Config value 'markdown_extensions': Failed to load extension 'toc'. ValueError: invalid "
     "literal for int() with base 10: 'zz' (the value: [{'toc': {'baselevel': 'zz'}}])"),
])
def test_mkdocs_says_what_is_wrong_with_the_file_and_line(mini: Path, text: str, said: str) -> None:
    (mini / "mkdocs.yml").write_text(text)
    assert config_refused(mini) == [said]


def test_a_theme_named_as_a_string_is_merged_too(mini: Path) -> None:
    (mini / "mkdocs.yml").write_text("theme: material\n")
    assert site_config(mini)["theme"]["font"] is False and checked_site_config(mini)["theme"]["name"] == "material"


def test_the_build_refuses_a_bad_mkdocs_yml_before_it_renders(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rulepress.publish import pdfpool

    monkeypatch.setattr(pdfpool, "render_editions", lambda *a, **k: pytest.fail("a PDF was rendered"))
    (mini / "mkdocs.yml").write_text("theme:\n  font: {text: Roboto}\n")
    assert refused(mini) == ["mkdocs.yml:2:3: 'theme.font' must be false (web fonts are fetched from Google Fonts, "
                             "and the site must work offline; leave theme.font out), not a mapping"]
    (mini / "mkdocs.yml").write_text("markdown_extensions:\n  - toc: {baselevel: zz}\n")
    assert refused(mini) == ["mkdocs.yml:1: mkdocs: Config value 'markdown_extensions': Failed to load extension "
                             "'toc'. ValueError: invalid literal for int() with base 10: 'zz' (the value: [{'toc': "
                             "{'baselevel': 'zz'}}])"]


def test_a_plugins_and_a_templates_errors_come_through(mini: Path) -> None:
    (mini / "site_src" / "assets").mkdir(parents=True)
    (mini / "site_src" / "assets" / "rulepress.css").write_text("body {}\n")
    assert refused(mini) == ["mkdocs: rulepress: site_src/assets/rulepress.css: rulepress ships a file of this name; "
                             "give yours another name (and list it under extra_css or extra_javascript)"]
    (mini / "site_src" / "assets" / "rulepress.css").unlink()
    (mini / "mkdocs.yml").write_text("theme:\n  custom_dir: overrides\n")
    (mini / "overrides").mkdir()
    (mini / "overrides" / "main.html").write_text('{% extends "base.html" %}\n{% block content %}{{ page.x }\n')
    [problem] = refused(mini)
    assert problem == "overrides/main.html:2: mkdocs: TemplateSyntaxError: unexpected '}'"


def test_what_weasyprint_says_comes_through_with_the_pdf(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import weasyprint.document

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("no room for the page's boxes")

    monkeypatch.setattr(weasyprint.document, "layout_document", broken)
    assert refused(mini) == ["pdf/mini.pdf (rules_src/mini/book.yaml): WeasyPrint: ValueError: no room for the "
                             "page's boxes"]
