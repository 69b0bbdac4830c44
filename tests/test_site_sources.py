"""A project's own site sources (issue 28): its mkdocs.yml, the folders it names and their files are content like the
rest.  They are checked at their lines before anything reads them (the cases are in tests/corpus/site_config.yaml),
nothing of them runs, nothing outside the project is published by any path, and every file of them is in the kept
site's key, so an edit is published."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rulepress.errors import BuildRefused
from rulepress.load import mkdocs_yml, site_content
from rulepress.load.site_folders import site_problems
from rulepress.publish.build import build
from rulepress.publish.sitestore import theme_digest

from .conftest import ROOT


def refused(root: Path) -> list[str]:
    with pytest.raises(BuildRefused) as error:
        build(root)
    return error.value.problems


def test_the_bundled_books_and_samples_pass_their_own_checks() -> None:
    for root in (ROOT, ROOT / "samples" / "tic-tac-toe", ROOT / "samples" / "kuhn-poker"):
        assert site_problems(root) == []


def test_an_edited_page_of_a_docs_dir_is_published(mini: Path) -> None:
    """``docs_dir: pages`` (the README allows it): the kept site's key holds every file of the folder, so an edit of
    ``pages/extra.md`` is published instead of the site kept before it."""
    (mini / "mkdocs.yml").write_text("docs_dir: pages\nnav:\n  - Extra: extra.md\n")
    (mini / "pages").mkdir()
    (mini / "pages" / "extra.md").write_text("# Extra\n\nThe first words.\n")
    build(mini)
    assert "The first words." in (mini / "site" / "extra.html").read_text()
    before = theme_digest(mini)
    (mini / "pages" / "extra.md").write_text("# Extra\n\nThe second words.\n")
    assert theme_digest(mini) != before
    build(mini)
    assert "The second words." in (mini / "site" / "extra.html").read_text()
    (mini / "pages" / "new.css").write_text("body {}\n")  # a file no page names yet is an input too
    assert theme_digest(mini) != before


def test_an_edited_template_of_a_custom_dir_is_published(mini: Path) -> None:
    (mini / "mkdocs.yml").write_text("theme:\n  custom_dir: looks\n")
    (mini / "looks").mkdir()
    main = mini / "looks" / "main.html"
    main.write_text('{% extends "base.html" %}\n{% block content %}{{ super() }}<p>first look</p>{% endblock %}\n')
    build(mini)
    assert "first look" in (mini / "site" / "index.html").read_text()
    main.write_text(main.read_text().replace("first look", "second look"))
    build(mini)
    assert "second look" in (mini / "site" / "index.html").read_text()


def test_a_projects_template_runs_in_the_sandbox(mini: Path, tmp_path: Path) -> None:
    """mkdocs renders a theme's templates in a plain Jinja environment: a project's own (its custom_dir) reached any
    Python from there.  They run in Jinja's sandbox: refused at the template's line, nothing run."""
    marker = tmp_path / "EXECUTED"
    (mini / "mkdocs.yml").write_text("theme:\n  custom_dir: overrides\n")
    (mini / "overrides").mkdir()
    (mini / "overrides" / "main.html").write_text(
        '{% extends "base.html" %}\n{% block content %}{{ super() }}\n'
        f"{{{{ cycler.__init__.__globals__.os.system('touch {marker}') }}}}{{% endblock %}}\n")
    assert refused(mini) == ["overrides/main.html:3: mkdocs: SecurityError: access to attribute '__init__' of 'type' "
                             "object is unsafe."]
    assert not marker.exists() and not (mini / "site").exists()


def test_a_snippet_from_outside_the_project_is_never_published(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``pymdownx.snippets`` with no base_path reads the pages folder only (its own default, the folder the command
    runs in, is never used), and never a path outside it."""
    (mini / "mkdocs.yml").write_text("nav:\n  - Extra: extra.md\nmarkdown_extensions:\n  - pymdownx.snippets\n")
    (mini / "site_src").mkdir()
    (mini / "site_src" / "extra.md").write_text('# Extra\n\n--8<-- "/etc/passwd"\n\n--8<-- "../../../../etc/passwd"\n'
                                                '\n--8<-- "part.txt"\n')
    (mini / "site_src" / "part.txt").write_text("An included part.\n")
    monkeypatch.chdir("/")  # pymdownx's own default reads from the current folder
    build(mini)
    page = (mini / "site" / "extra.html").read_text()
    assert "An included part." in page and "root:x:0:0" not in page


def test_nothing_outside_the_project_is_published_whatever_names_it(mini: Path, tmp_path: Path) -> None:
    """The last word, at publication: a file mkdocs would copy whose real path leaves the project (or the themes
    rulepress and mkdocs-material ship) stops the build, however it got there."""
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import File, Files

    from rulepress.render.mkdocs_plugin import _published_from_inside

    (mini / "site_src").mkdir()
    (mini / "site_src" / "ok.txt").write_text("ours\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("not ours\n")
    (mini / "site_src" / "leak.txt").symlink_to(secret)
    config = MkDocsConfig(config_file_path=str(mini / "mkdocs.yml"))
    config.load_dict({"site_name": "x", "docs_dir": str(mini / "site_src"), "site_dir": str(tmp_path / "out")})
    assert not config.validate()[0]
    fine = Files([File("ok.txt", str(mini / "site_src"), str(tmp_path / "out"), False)])
    _published_from_inside(fine, config)
    leak = Files([File("leak.txt", str(mini / "site_src"), str(tmp_path / "out"), False)])
    with pytest.raises(PluginError, match=f"leak.txt: its file is {secret}, outside the project"):
        _published_from_inside(leak, config)
    os.mkfifo(mini / "site_src" / "pipe.txt")
    with pytest.raises(PluginError, match="pipe.txt: not a regular file"):
        _published_from_inside(Files([File("pipe.txt", str(mini / "site_src"), str(tmp_path / "out"), False)]),
                               config)


@pytest.mark.parametrize(("value", "why"), [
    ("x.css", None), ("assets/house.css", None), ("a-b_c.1.js", None),
    ("https://cdn.example/x.css", "'https:' is fetched from elsewhere"),
    ("HTTP://cdn.example/x.css", "'http:' is fetched from elsewhere"),
    ("//cdn.example/x.css", "another host's"), ("\\\\cdn.example/x.css", "another host's"),
    ("/\\cdn.example/x.css", "another host's"), ("\\/cdn.example/x.css", "another host's"),
    (" //cdn.example/x.css", "another host's"), ("\t//cdn.example/x.css", "another host's"),
    ("&#47;&#47;cdn.example/x.css", "another host's"), ("&sol;&sol;cdn.example/x.css", "another host's"),
    ("java\nscript:alert(1)", "runs a script"), ("javascript:alert(1)", "runs a script"),
    ("data:text/javascript,alert(1)", "'data:' address"), ("/etc/passwd", "absolute path"),
    ("a\\b.css", "reads '\\' as '/'"), ('x.css" onload="y', "break out"), ("x.css?v=1", "query"),
    ("../x.css", "'..'"), ("a/../../x.css", "'..'"), ("x .css", "spaces"),
])
def test_what_a_browser_reads_as_a_file_of_the_site(value: str, why: str | None) -> None:
    found = mkdocs_yml.site_path_problem(value)
    assert (found is None) if why is None else (found is not None and why in found), found


@pytest.mark.parametrize(("css", "refused"), [
    ("a { background: url(img/a.png) }", False), ("a { background: url('data:image/png;base64,AA') }", False),
    ("a { background: url(#gradient) }", False), ("@import url(https://x.example/y.css);", True),
    ("@import 'https://x.example/y.css';", True), ("a { background: url(//x.example/a.png) }", True),
    ("a { background: url(\\2f\\2fx.example/a.png) }", True), ("a { background: url( \"/\\x.example\" ) }", True),
    ("a { background: url(\\68ttps://x.example/a.png) }", True), ("/* url(https://x.example) */ a {}", False),
    ("a { src: url(data:text/html,<script>) }", True),
])
def test_a_stylesheet_fetches_nothing_from_elsewhere(css: str, refused: bool) -> None:
    if refused:
        with pytest.raises(Exception, match="in a stylesheet"):
            site_content.check_style(css, "x.css", 1)
    else:
        site_content.check_style(css, "x.css", 1)


def test_compiled_templates_are_kept_only_for_the_installed_themes_and_sealed(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Jinja's compiled templates are code: never in a project's cache.  Those of the installed themes (as
    Python's own __pycache__) are kept in the user's cache, sealed with the store's key; a project's own
    templates are compiled afresh each time; a kept one that is not sealed with the key is compiled again."""
    import jinja2

    from rulepress import usercache
    from rulepress.publish import incremental
    from rulepress.render.site_config import overrides_folder

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    cache = incremental._CachedTemplates("an environment")
    env = jinja2.Environment(bytecode_cache=cache, loader=jinja2.FileSystemLoader(
        [str(mini / "overrides"), str(overrides_folder())]))
    (mini / "overrides").mkdir()
    (mini / "overrides" / "own.html").write_text("<p>{{ 1 + 1 }}</p>\n")
    shipped = sorted(path.relative_to(overrides_folder()).as_posix() for path in overrides_folder().rglob("*.html"))[0]
    env.get_template(shipped)
    env.get_template("own.html")
    kept_folder = tmp_path / "home" / usercache.FOLDER / incremental.TEMPLATES
    kept = [path for path in kept_folder.rglob("*") if path.is_file()]
    assert len(kept) == 1  # the installed theme's only
    assert not (mini / ".rulepress-cache").exists()
    incremental.COMPILED.clear()  # a new process: the installed theme's template is read back from the user's cache
    source = (overrides_folder() / shipped).read_text()
    again = incremental._CachedTemplates("an environment")
    assert again.get_bucket(env, shipped, str(overrides_folder() / shipped), source).code is not None
    assert again.get_bucket(env, "own.html", str(mini / "overrides" / "own.html"), "<p>{{ 1 + 1 }}</p>\n").code is None
    kept[0].write_bytes(b"rulepress-entry hmac-sha256 " + kept[0].read_bytes()[28:-1] + b"!")  # not its seal
    incremental.COMPILED.clear()
    bucket = cache.get_bucket(env, shipped, str(overrides_folder() / shipped), (overrides_folder() / shipped)
                              .read_text())
    cache.load_bytecode(bucket)
    assert bucket.code is None  # not loaded: compiled again
