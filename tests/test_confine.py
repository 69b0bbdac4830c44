"""Sources are read only from inside the project, only from regular files, within a size limit, as UTF-8;
anything else is one SourceError naming the file (and, for bad bytes, line and column), never a hang."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulepress.errors import SourceError
from rulepress.load import confine
from rulepress.load.book import load_book
from rulepress.load.examples import load_examples
from rulepress.load.yamlsrc import load_yaml

BOOK = "rules_src/mini/book.yaml"
GLOSSARY = "rules_src/mini/glossary.yaml"
CHAPTER = "rules_src/mini/chapters/play.md"


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """A read that blocks (a FIFO opened for reading waits for a writer) fails the test instead of hanging it."""
    def timeout(signum: int, frame: object) -> None:
        raise TimeoutError("the load blocked")
    previous = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _errors(project: Path) -> list[SourceError]:
    with pytest.raises(SourceError) as caught:
        load_book(project, "mini")
    return list(getattr(caught.value, "errors", [caught.value]))


def _problems(project: Path) -> list[tuple[str, int | None, str]]:
    return [(str(e.file), e.line, e.message) for e in _errors(project)]


def _outside(tmp_path: Path, name: str, source: Path) -> Path:
    """A copy of ``source`` outside the project, so only where it lives is wrong with it."""
    target = tmp_path / "outside" / name
    target.parent.mkdir(exist_ok=True)
    shutil.copy(source, target)
    return target


# --- confinement ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["../../../outside.md", "/etc/passwd.md", "sub/../../chapters/play.md"])
def test_chapter_names_leaving_the_chapters_folder_are_refused(mini: Path, name: str) -> None:
    path = mini / BOOK
    path.write_text(path.read_text().replace("chapters: [play.md]", f"chapters: [play.md, '{name}']"))
    assert _problems(mini) == [
        (BOOK, 10, f"'chapters[2]' must be a .md file name under chapters/ (no absolute path, no '..'), not "
                   f"'{name}'")]


def test_chapter_symlink_pointing_outside_the_project_is_refused(mini: Path, tmp_path: Path) -> None:
    chapter = mini / CHAPTER
    target = _outside(tmp_path, "play.md", chapter)
    chapter.unlink()
    chapter.symlink_to(target)
    assert _problems(mini) == [
        (BOOK, 10, f"chapter file 'play.md': resolves to {target.resolve()}, outside the project root "
                   f"{mini.resolve()}")]


def test_symlink_inside_the_project_is_allowed(mini: Path) -> None:
    chapter = mini / CHAPTER
    shared = mini / "shared" / "play.md"
    shared.parent.mkdir()
    chapter.rename(shared)
    chapter.symlink_to(Path("../../../shared/play.md"))
    assert [c.file for c in load_book(mini, "mini").chapters] == [CHAPTER]


def test_yaml_symlink_pointing_outside_the_project_is_refused(mini: Path, tmp_path: Path) -> None:
    glossary = mini / GLOSSARY
    target = _outside(tmp_path, "glossary.yaml", glossary)
    glossary.unlink()
    glossary.symlink_to(target)
    assert _problems(mini) == [
        (GLOSSARY, None, f"resolves to {target.resolve()}, outside the project root {mini.resolve()}")]


def test_example_symlink_pointing_outside_the_project_is_refused(mini: Path, tmp_path: Path) -> None:
    example = mini / "examples/mini/mini-last-stone.yaml"
    target = _outside(tmp_path, "mini-last-stone.yaml", example)
    example.unlink()
    example.symlink_to(target)
    book = load_book(mini, "mini")
    with pytest.raises(SourceError) as caught:
        load_examples(book)
    assert (caught.value.file, caught.value.line, caught.value.message) == (
        "examples/mini/mini-last-stone.yaml", None,
        f"resolves to {target.resolve()}, outside the project root {mini.resolve()}")


def test_symlink_loop_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    with pytest.raises(SourceError) as caught:
        confine.read_text(tmp_path, tmp_path / "a.yaml", "a.yaml")
    assert caught.value.file == "a.yaml" and caught.value.message.startswith("cannot resolve path: ")


def test_confined_resolves_relative_paths_against_the_root(tmp_path: Path) -> None:
    (tmp_path / "inside.yaml").write_text("a: 1\n")
    assert confine.confined(tmp_path, Path("inside.yaml")) == (tmp_path / "inside.yaml").resolve()
    with pytest.raises(confine.PathRefused) as caught:
        confine.confined(tmp_path / "sub", Path("../inside.yaml"))
    assert caught.value.reason == (f"resolves to {(tmp_path / 'inside.yaml').resolve()}, outside the project root "
                                   f"{(tmp_path / 'sub').resolve()}")


def test_load_yaml_without_a_root_stays_in_the_files_folder(tmp_path: Path) -> None:
    (tmp_path / "real.yaml").write_text("a: 1\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "link.yaml").symlink_to(tmp_path / "real.yaml")
    with pytest.raises(SourceError) as caught:
        load_yaml(tmp_path / "sub" / "link.yaml", "link.yaml")
    assert caught.value.message == (f"resolves to {(tmp_path / 'real.yaml').resolve()}, outside the project root "
                                    f"{(tmp_path / 'sub').resolve()}")
    assert load_yaml(tmp_path / "sub" / "link.yaml", "link.yaml", root=tmp_path) == {"a": 1}


# --- only regular files -----------------------------------------------------------------------------------------

def test_fifo_in_place_of_a_source_is_refused_without_blocking(mini: Path) -> None:
    glossary = mini / GLOSSARY
    glossary.unlink()
    os.mkfifo(glossary)
    assert _problems(mini) == [(GLOSSARY, None, "is a FIFO (named pipe), not a regular file")]


def test_fifo_in_place_of_a_chapter_is_refused_without_blocking(mini: Path) -> None:
    chapter = mini / CHAPTER
    chapter.unlink()
    os.mkfifo(chapter)
    assert _problems(mini) == [(BOOK, 10, "chapter file 'play.md': is a FIFO (named pipe), not a regular file")]


def test_directory_in_place_of_a_source_is_refused(mini: Path) -> None:
    questions = mini / "rules_src/mini/questions.yaml"
    questions.unlink()
    questions.mkdir()
    assert _problems(mini) == [("rules_src/mini/questions.yaml", None, "is a directory, not a regular file")]


def test_device_is_refused() -> None:
    with pytest.raises(SourceError) as caught:
        confine.read_text(Path("/dev"), Path("/dev/zero"), "zero.yaml")
    assert (caught.value.file, caught.value.line, caught.value.message) == (
        "zero.yaml", None, "is a device, not a regular file")


def test_missing_book_yaml(mini: Path) -> None:
    with pytest.raises(SourceError) as caught:
        load_book(mini, "nope")
    assert (caught.value.file, caught.value.message) == ("rules_src/nope/book.yaml", "no book 'nope' (missing "
                                                                                     "book.yaml)")


# --- size and encoding ------------------------------------------------------------------------------------------

def test_oversized_source_is_refused(mini: Path) -> None:
    glossary = mini / GLOSSARY
    size = confine.MAX_SOURCE_BYTES + 10
    glossary.write_text("#" * (size - 1) + "\n")
    assert _problems(mini) == [
        (GLOSSARY, None, f"file is {size} bytes, more than the {confine.MAX_SOURCE_BYTES} bytes a source file may "
                         "have")]


def test_size_limit_is_a_parameter(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("0123456789")
    assert confine.read_text(tmp_path, tmp_path / "a.yaml", "a.yaml", max_bytes=10) == "0123456789"
    with pytest.raises(SourceError) as caught:
        confine.read_text(tmp_path, tmp_path / "a.yaml", "a.yaml", max_bytes=9)
    assert caught.value.message == "file is 10 bytes, more than the 9 bytes a source file may have"


def test_non_utf8_byte_is_reported_with_line_and_column(mini: Path) -> None:
    glossary = mini / GLOSSARY
    glossary.write_bytes(glossary.read_bytes().replace(b"The stones", b"The st\xf6nes"))
    assert [(str(e.file), e.line, e.column, e.message) for e in _errors(mini)] == [
        (GLOSSARY, 2, 21, "byte 0xf6 is not valid UTF-8 (save the file as UTF-8)")]
    assert str(_errors(mini)[0]).startswith(f"{GLOSSARY}:2:21: byte 0xf6")


def test_non_utf8_in_book_yaml_is_reported_with_its_line(mini: Path) -> None:
    book = mini / BOOK
    book.write_bytes(book.read_bytes().replace(b"Mini Stones", b"Mini \xe9\xe9 Stones"))
    assert [(str(e.file), e.line, e.column, e.message) for e in _errors(mini)] == [
        (BOOK, 2, 13, "byte 0xe9 is not valid UTF-8 (save the file as UTF-8)")]


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert load_yaml(tmp_path / "a.yaml", root=tmp_path) == {"a": 1}


# -- folders read whole (issue 21) -----------------------------------------------------------------------------


def _tree(root: Path) -> Path:
    """A project with pages and theme overrides of its own, as its mkdocs.yml names them."""
    from tests.conftest import make_project

    make_project(root)
    (root / "site_src" / "assets").mkdir(parents=True)
    (root / "site_src" / "assets" / "house.css").write_text("body {}\n")
    (root / "site_src" / "overrides").mkdir()
    (root / "site_src" / "overrides" / "main.html").write_text("{% extends 'base.html' %}\n")
    (root / "mkdocs.yml").write_text("site_name: Mini\ndocs_dir: site_src\ntheme:\n  name: material\n"
                                     "  custom_dir: site_src/overrides\n")
    return root / "site_src"


def test_a_folder_the_site_copies_is_confined(tmp_path: Path) -> None:
    from rulepress.load.confine import tree_problems

    root = tmp_path / "project"
    folder = _tree(root)
    assert tree_problems(root, folder) == []
    (folder / "assets" / "copy.css").symlink_to("house.css")  # a symlink that stays inside: read as its file
    (folder / "assets" / "same").symlink_to(root / "site_src" / "overrides")  # a folder inside, walked once
    assert tree_problems(root, folder) == []
    (folder / "assets" / "same").unlink()
    (folder / "assets" / "leak.txt").symlink_to("/etc/passwd")
    (folder / "assets" / "loop").symlink_to("..")
    os.mkfifo(folder / "overrides" / "pipe.html")
    (folder / "overrides" / "big.js").write_bytes(b"x" * 5000)
    found = [str(problem) for problem in tree_problems(root, folder, max_file_bytes=4000)]
    assert sorted(found) == [
        f"site_src/assets/leak.txt: a symlink that resolves to /etc/passwd, outside the project root {root}",
        "site_src/assets/loop: a symlink to a folder that holds it (mkdocs would walk it forever)",
        "site_src/overrides/big.js: file is 5000 bytes, more than the 4000 bytes a file the site copies may have",
        "site_src/overrides/pipe.html: is a FIFO (named pipe), not a regular file"]
    assert [str(p) for p in tree_problems(root, folder, max_files=3)][-1] == (
        "site_src: holds more than 3 files or 134217728 bytes, more than a folder the build copies may")


def test_the_site_folders_are_those_mkdocs_yml_names_and_its_tags_never_run(tmp_path: Path) -> None:
    from rulepress.load import site_folders

    root = tmp_path / "project"
    _tree(root)
    assert site_folders.folders(root) == [root / "site_src", root / "site_src/overrides"]
    config = root / "mkdocs.yml"
    config.write_text(config.read_text() + "markdown_extensions_x:\n  - !!python/name:os.system\n"
                      "  - !!python/object/apply:os.system ['touch EXECUTED']\nsite_url: !ENV [SITE, x]\n")
    assert site_folders.folders(root) == [root / "site_src", root / "site_src/overrides"]
    assert not (root / "EXECUTED").exists() and not (Path.cwd() / "EXECUTED").exists()
    config.write_text("site_name: x\n")  # no docs_dir: the packaged default, site_src/
    assert site_folders.folders(root) == [root / "site_src"] and site_folders.problems(root) == []
    config.unlink()  # no mkdocs.yml at all: the same default
    assert site_folders.folders(root) == [root / "site_src"]
