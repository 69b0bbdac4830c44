"""Environment variables are inputs (issue 21): rulepress/environment.py reads every one, a bad value is one line
naming the variable and what it accepts, before any work, and an explicit option beats the environment."""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import pytest

from rulepress import environment
from rulepress.cli import main
from rulepress.errors import SourceError
from rulepress.verify.limits import EngineFault, engine_guard

PACKAGE = Path(environment.__file__).parent
ENVIRONMENT_DOC = (PACKAGE.parent / "docs" / "ENVIRONMENT.md").read_text(encoding="utf-8")  # the table of variables
OTHERS = {"RULEPRESS_ROOT"}  # the project root's variable is read where the root is found (rulepress/project.py)

GOOD = {"SOURCE_DATE_EPOCH": [("0", 0), ("1700000000", 1700000000), ("4294967295", 4294967295)],
        "RULEPRESS_CACHE": [("0", False), ("1", True)],
        "RULEPRESS_JOBS": [("1", 1), ("1024", 1024)],
        "RULEPRESS_IMPORT_TIMEOUT": [("0", 0.0), ("0.001", 0.001), ("2.5", 2.5), ("86400", 86400.0)],
        "RULEPRESS_REPLAY_TIMEOUT": [("0", 0.0), ("10", 10.0)],
        "RULEPRESS_PROGRESS": [("0", False), ("1", True)]}
BAD = {"SOURCE_DATE_EPOCH": ["-1", "abc", "1e9", " 12", "4294967296", "253402300799", "١٢٣", "12.0"],
       "RULEPRESS_CACHE": ["maybe", "2", "true", "off"],
       "RULEPRESS_JOBS": ["lots", "0", "-2", "1025", "1.5"],
       "RULEPRESS_IMPORT_TIMEOUT": ["-5", "nan", "inf", "1e-9", "86401", "soon"],
       "RULEPRESS_REPLAY_TIMEOUT": ["1e-9", "-0.5", "1e999"],
       "RULEPRESS_PROGRESS": ["yes", "2"]}


def test_every_variable_has_good_and_bad_values_here() -> None:
    assert set(GOOD) == set(BAD) == set(environment.VARIABLES)


@pytest.mark.parametrize(("name", "text", "value"), [(n, t, v) for n, pairs in GOOD.items() for t, v in pairs])
def test_a_good_value_is_read(monkeypatch: pytest.MonkeyPatch, name: str, text: str, value: object) -> None:
    monkeypatch.setenv(name, text)
    assert environment.value(name) == value
    environment.check()


@pytest.mark.parametrize(("name", "text"), [(n, t) for n, texts in BAD.items() for t in texts])
def test_a_bad_value_is_one_line_naming_the_variable_and_what_it_accepts(
        monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> None:
    monkeypatch.setenv(name, text)
    with pytest.raises(SourceError) as refused:
        environment.check()
    said = str(refused.value)
    assert said.startswith(f"${name}: '") and "is not accepted: " + environment.VARIABLES[name].accepts in said
    assert "\n" not in said


def test_empty_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in environment.VARIABLES:
        monkeypatch.setenv(name, "")
    assert environment.source_date_epoch() is None and environment.cache_enabled() and environment.jobs() is None
    assert environment.replay_seconds(10.0) == 10.0 and environment.progress() is None


def test_the_command_line_refuses_a_bad_variable_before_any_work(
        mini: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "-1")
    assert main(["--root", str(mini), "build"]) == 1
    assert capsys.readouterr().err == ("rulepress: $SOURCE_DATE_EPOCH: '-1' is not accepted: a whole number of "
                                       "seconds since 1970-01-01 UTC, 0 to 4294967295\n")
    assert not (mini / ".rulepress-cache").exists() and not (mini / "site").exists()  # not even the build's lock


def test_an_explicit_option_beats_the_environment(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from contextlib import contextmanager

    from rulepress.analyze import cluster

    asked: list[int | None] = []

    @contextmanager
    def pool(workers: int | None = None, scheduler: str | None = None):  # type: ignore[no-untyped-def]
        asked.append(workers)
        raise SourceError("--jobs", None, "stop here")
        yield

    monkeypatch.setattr(cluster, "pool", pool)
    monkeypatch.setenv("RULEPRESS_JOBS", "2")
    assert main(["--root", str(mini), "questions", "--impact", "--jobs", "3"]) == 1
    assert main(["--root", str(mini), "questions", "--impact"]) == 1
    monkeypatch.delenv("RULEPRESS_JOBS")
    assert main(["--root", str(mini), "questions", "--impact"]) == 1
    assert asked == [3, 2, None]  # the option, else the environment, else one per core


def test_the_environment_page_names_every_variable_and_only_those() -> None:
    named = set(re.findall(r"`((?:RULEPRESS_[A-Z_]+|SOURCE_DATE_EPOCH))", ENVIRONMENT_DOC))
    assert named - OTHERS == set(environment.VARIABLES)
    for name in [*environment.VARIABLES, *OTHERS]:
        assert re.search(rf"^\| `{name}` \|", ENVIRONMENT_DOC, re.M), f"{name} has no row in docs/ENVIRONMENT.md"


def test_only_the_environment_module_reads_the_environment() -> None:
    """No other module reads one of these variables itself (it would skip the check or read it differently)."""
    readers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "environment.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in environment.VARIABLES:
                readers.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert readers == []


def test_the_environment_module_knows_no_stage() -> None:
    tree = ast.parse(Path(environment.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert {name for name in imported if name and name.startswith("rulepress")} == {"rulepress.errors"}


def test_a_time_limit_shorter_than_the_guard_s_own_setting_up_is_a_fault_never_a_traceback(tmp_path: Path) -> None:
    """The alarm of a 1 ns limit fires inside the guard's __enter__, outside the ``with``: it is fired again inside
    the guarded code (today's engines take longer than a millisecond), where it becomes the engine's fault."""
    kinds = []
    for _ in range(40):
        try:
            with engine_guard(tmp_path, tmp_path, 1e-9):
                end = time.monotonic() + 0.005
                while time.monotonic() < end:
                    pass
            kinds.append("done")
        except EngineFault as fault:
            kinds.append(fault.kind)
    assert kinds == ["timeout"] * 40


@pytest.mark.parametrize("epoch", ["0", "4294967295"])
def test_a_build_works_at_both_ends_of_the_dates_it_accepts(mini: Path, monkeypatch: pytest.MonkeyPatch,
                                                            epoch: str) -> None:
    """The whole range $SOURCE_DATE_EPOCH accepts builds: its last second (2106-02-07T06:28:15Z, what the
    sitemap's gzip stamp holds) as its first; 253402300799, once accepted, failed the site without naming it."""
    import gzip

    from rulepress.publish.build import build

    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    monkeypatch.setenv("RULEPRESS_CACHE", "0")
    build(mini)
    with gzip.open(mini / "site" / "sitemap.xml.gz") as sitemap:
        sitemap.read()
    import pypdf

    created = pypdf.PdfReader(mini / "site" / "pdf" / "mini.pdf").metadata.creation_date
    assert created is not None and created.year == (1970 if epoch == "0" else 2106)
