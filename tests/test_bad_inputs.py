"""The bad-input corpus (issue 9): every hand-made fault in ``tests/corpus/*.yaml`` is refused clearly.

Each case is data: a copy of a project (the small fixture, or the real books), one fault made in it, a command,
and the exact outcome.  Whatever the case says, every run must also: print no traceback, finish within its time
bound, execute nothing (no marker file appears), fetch nothing (no socket connection or name lookup), read nothing
from outside the project (a secret file beside it never shows up in the output) and leave every file of the
project -- ``site/`` (a stand-in for the last good build), the sources, anything the case added -- byte-identical.
The format of a case is in ``tests/corpus/README.md`` and checked against :data:`CASE_SCHEMA` before it runs.

Most cases run in this process through ``rulepress.cli.main`` (fast); cases that could hang, kill or exit the
process (``subprocess: true``) run ``rulepress`` in a child with the same network guard.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from rulepress.cli import main
from rulepress.load import sandbox

from .conftest import ROOT, make_project

CORPUS = Path(__file__).parent / "corpus"
SECRET = "H7-OUTSIDE-SECRET-3141"  # the content of files beside the project: must never reach the output
MARKER_NAME = "EXECUTED"  # an injection case tries to create this file; it must never exist
SITE_FILES = {"index.html": "<p>the last good build</p>\n", ".rulepress-site": "rulepress-site 1\n",
              "pdf/mini-print.pdf": "%PDF-1.7 stand-in\n"}
REAL_PARTS = ("rules_src", "engine", "examples")
LEAKS = (SECRET, "root:x:0:0")  # a file from outside the project, or /etc/passwd, read into the output
DEFAULT_SECONDS = 30.0  # a bound for hangs: a loaded machine may take twice a quiet one
# Traced or mutated runs (nox -s mutants) are many times slower: they scale the bound, which only catches hangs.
SLOWDOWN = float(os.environ.get("RULEPRESS_TEST_SLOWDOWN", "1") or 1)

_PROBLEM = {
    "type": "object", "additionalProperties": False, "required": ["file", "message"],
    "properties": {"file": {"type": "string", "minLength": 1}, "line": {"type": ["integer", "null"], "minimum": 1},
                   "column": {"type": "integer", "minimum": 1}, "message": {"type": "string", "minLength": 2},
                   "rule": {"type": "string", "pattern": r"^[a-z]+(\.[a-z0-9-]+)+$"}},
}
_OPERATIONS = {"append": {"type": "string"}, "prepend": {"type": "string"}, "write": {"type": "string"},
               "write_bytes": {"type": "string"}, "symlink": {"type": "string"}, "fifo": {"const": True},
               "mkdir": {"const": True}, "delete": {"const": True}}
_EDIT = {  # exactly one operation on one file
    "type": "object", "additionalProperties": False, "required": ["file"],
    "properties": {"file": {"type": "string", "minLength": 1}, "replace": {"type": "string", "minLength": 1},
                   "with": {"type": "string"}, "all": {"const": True}, "repeat": {"type": "integer", "minimum": 2},
                   **_OPERATIONS},
    "oneOf": [{"required": ["replace", "with"]}] + [{"required": [name]} for name in _OPERATIONS],
}
CASE_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object", "additionalProperties": False, "required": ["name", "kind", "edits", "expect"],
        "properties": {
            "name": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
            "kind": {"type": "string", "minLength": 3},
            "project": {"enum": ["mini", "real"]},
            "command": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "env": {"type": "object", "additionalProperties": {"type": "string"}},
            "subprocess": {"type": "boolean"},
            "exit": {"type": "integer"},
            "seconds": {"type": "number", "exclusiveMinimum": 0},
            "edits": {"type": "array", "items": _EDIT},
            "expect": {"type": "array", "items": _PROBLEM, "minItems": 1},
            "absent": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "xfail": {"type": "string", "minLength": 10},
        },
    },
}


@dataclass
class Case:
    name: str
    source: str  # the corpus file it comes from
    data: dict[str, Any]

    @property
    def command(self) -> list[str]:
        return list(self.data.get("command", ["verify"]))


def load_corpus() -> list[Case]:
    cases: list[Case] = []
    for path in sorted(CORPUS.glob("*.yaml")):
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))
        jsonschema.validate(entries, CASE_SCHEMA)  # a typo in a case must not quietly weaken it
        cases.extend(Case(entry["name"], path.name, entry) for entry in entries)
    names = [case.name for case in cases]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    assert not duplicates, f"case names used twice: {duplicates}"
    return cases


CASES = load_corpus()


def _params() -> Iterator[Any]:
    for case in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=case.data["xfail"])] if "xfail" in case.data else []
        yield pytest.param(case, id=case.name, marks=marks)


# --- the project copy and the fault -------------------------------------------------------------------------------

@dataclass
class Places:
    root: Path
    outside: Path  # beside the project: a secret an escape would read
    marker: Path  # an injection would create it

    def fill(self, text: str) -> str:
        return (text.replace("@ROOT@", str(self.root)).replace("@OUTSIDE@", str(self.outside))
                .replace("@PARENT@", str(self.root.parent)).replace("@MARKER@", str(self.marker)))


def make_places(base: Path, project: str) -> Places:
    root = base / "project"
    if project == "real":
        root.mkdir()
        for part in REAL_PARTS:
            shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("mkdocs.yml", "rulepress.yaml"):
            shutil.copy(ROOT / name, root / name)
    else:
        make_project(root)
    for name, text in SITE_FILES.items():  # the last good build, which nothing may touch
        (root / "site" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "site" / name).write_text(text, encoding="utf-8")
    outside = base / "outside"
    outside.mkdir()
    for name in ("secret.txt", "secret.md", "secret.yaml"):
        (outside / name).write_text(f"x: {SECRET}\n", encoding="utf-8")
    (outside / "secret_engine").mkdir()
    (outside / "secret_engine" / "__init__.py").write_text(f"BOOK_ID = '{SECRET}'\n", encoding="utf-8")
    return Places(root, outside, base / MARKER_NAME)


def apply_edit(places: Places, edit: dict[str, Any]) -> None:
    path = places.root / places.fill(edit["file"])
    repeat = int(edit.get("repeat", 1))
    if "replace" in edit:
        text = path.read_text(encoding="utf-8")
        old, new = places.fill(edit["replace"]), places.fill(edit["with"])
        assert old in text, f"case edit: {old!r} is not in {edit['file']}"
        path.write_text(text.replace(old, new, -1 if edit.get("all") else 1), encoding="utf-8")
    elif "append" in edit:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(places.fill(edit["append"]) * repeat)
    elif "prepend" in edit:
        path.write_text(places.fill(edit["prepend"]) * repeat + path.read_text(encoding="utf-8"), encoding="utf-8")
    elif "write" in edit:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(places.fill(edit["write"]) * repeat, encoding="utf-8")
    elif "write_bytes" in edit:  # the text's code points 0-255 are the bytes
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(places.fill(edit["write_bytes"]).encode("latin-1") * repeat)
    elif "symlink" in edit:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        path.symlink_to(places.fill(edit["symlink"]))
    elif "fifo" in edit:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        os.mkfifo(path)
    elif "mkdir" in edit:
        path.unlink(missing_ok=True)
        path.mkdir(parents=True, exist_ok=True)
    else:
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()


def fingerprint(root: Path) -> dict[str, str]:
    """sha256 of every file (a symlink's target, a FIFO's kind) under ``root``, but rulepress's own cache."""
    prints: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in (".rulepress-cache", "__pycache__"))
        for name in sorted(files) + [d for d in dirs if (here / d).is_symlink()]:
            path = here / name
            shown = str(path.relative_to(root))
            if path.is_symlink():
                prints[shown] = f"symlink -> {os.readlink(path)}"
            elif path.is_file():
                prints[shown] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                prints[shown] = "special file"
        prints.update({str((here / d).relative_to(root)) + "/": "folder" for d in dirs})
    return prints


# --- running rulepress --------------------------------------------------------------------------------------------

CHILD = textwrap.dedent("""\
    import socket, sys
    def _refuse(*args, **kwargs):  # record the address, then fail as an offline machine would
        with open({log!r}, "a") as log:
            log.write(repr([a for a in args if not isinstance(a, socket.socket)][0]) + "\\n")
        raise OSError("network access refused by the bad-input corpus")
    socket.socket.connect = socket.socket.connect_ex = _refuse
    socket.getaddrinfo = socket.create_connection = _refuse
    sys.path[:] = [entry for entry in sys.path if entry not in ("", ".")]  # as the console script runs
    from rulepress.cli import main
    sys.exit(main(sys.argv[1:]))
    """)


@dataclass
class Outcome:
    code: int
    output: str
    seconds: float
    connections: list[str]


def run_in_process(case: Case, places: Places, monkeypatch: pytest.MonkeyPatch,
                   capfd: pytest.CaptureFixture[str]) -> Outcome:
    connections: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        connections.append(repr([arg for arg in args if not isinstance(arg, socket.socket)][0]))
        raise OSError("network access refused by the bad-input corpus")

    for name in ("connect", "connect_ex"):
        monkeypatch.setattr(socket.socket, name, refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    for key, value in case.data.get("env", {}).items():
        monkeypatch.setenv(key, places.fill(value))
    monkeypatch.delenv("RULEPRESS_ROOT", raising=False)
    # The template's wall-clock limit is a backstop behind its operation count; a slowed run (SLOWDOWN) scales it like
    # every other time bound, so a case that expects the count is not beaten to it by the clock.
    monkeypatch.setattr(sandbox, "MAX_SECONDS", sandbox.MAX_SECONDS * SLOWDOWN)
    monkeypatch.chdir(places.root)
    capfd.readouterr()
    pipe = signal.getsignal(signal.SIGPIPE)  # main() resets SIGPIPE for the command line; not for pytest's process
    start = time.monotonic()
    try:
        code = main(["--root", str(places.root)] + [places.fill(arg) for arg in case.command])
    except SystemExit as exit_:  # argparse, or an exit nothing caught: the code is what a shell would see
        code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        signal.signal(signal.SIGPIPE, pipe)
    seconds = time.monotonic() - start
    captured = capfd.readouterr()
    return Outcome(code, captured.out + captured.err, seconds, connections)


def run_in_child(case: Case, places: Places, bound: float) -> Outcome:
    log = places.root.parent / "connections.log"
    code = CHILD.format(log=str(log))
    env = {key: value for key, value in os.environ.items() if key != "RULEPRESS_ROOT"}
    env.update({key: places.fill(value) for key, value in case.data.get("env", {}).items()})
    start = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-c", code, "--root", str(places.root)]
                              + [places.fill(arg) for arg in case.command],
                              cwd=places.root, env=env, capture_output=True, text=True, timeout=bound + 20,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"{case.name}: still running after {bound + 20:.0f} s (a hang); output so far:\n"
                    f"{hung.stdout!r}\n{hung.stderr!r}")
    seconds = time.monotonic() - start
    connections = log.read_text().splitlines() if log.exists() else []
    return Outcome(done.returncode, done.stdout + done.stderr, seconds, connections)


# --- the checks ---------------------------------------------------------------------------------------------------

def where(problem: dict[str, Any], places: Places) -> str:
    place = places.fill(problem["file"])
    if problem.get("line"):
        place += f":{problem['line']}"
        if problem.get("column"):
            place += f":{problem['column']}"
    return place + ":"


def names_place(problem: dict[str, Any], places: Places, line: str) -> bool:
    """``line`` names the problem's file and line: ``file:12:`` (``file:12:3:`` with a column), or as the replay
    reports an example, ``... (file): step 2 (line 12)`` / ``... (file:12)``."""
    file = places.fill(problem["file"])
    if where(problem, places) in line:
        if problem.get("line") is None:  # no line expected: the place must not claim one (``file:12:``)
            return not line.split(f"{file}:", 1)[1][:1].isdigit()
        return True
    number = problem.get("line")
    return (number is not None and "column" not in problem and f"({file})" in line
            and (f"(line {number})" in line or f"{file}:{number})" in line))


def matching_line(problem: dict[str, Any], places: Places, output: str) -> str | None:
    """The output line that reports ``problem``: its place, its message and its rule, all on one line."""
    message = places.fill(problem["message"])
    rule = f"[rule {problem['rule']}]" if problem.get("rule") else None
    for line in output.splitlines():
        if message in line and (rule is None or rule in line) and names_place(problem, places, line):
            return line
    return None


def judge(case: Case, places: Places, outcome: Outcome, before: dict[str, str]) -> list[str]:
    """Everything wrong with ``outcome``: the case's own expectations and the checks every case gets."""
    bound = float(case.data.get("seconds", DEFAULT_SECONDS)) * SLOWDOWN
    failures = []
    if "Traceback" in outcome.output:
        failures.append("a traceback")
    if outcome.seconds > bound:
        failures.append(f"took {outcome.seconds:.1f} s, the bound is {bound:g} s")
    if places.marker.exists():
        failures.append(f"the input ran code (it created {places.marker})")
    if outcome.connections:
        failures.append(f"the run went online: {outcome.connections}")
    absent = LEAKS + tuple(places.fill(text) for text in case.data.get("absent", []))
    failures += [f"{text!r} in the output" for text in absent if text in outcome.output]
    if outcome.code != case.data.get("exit", 1):
        failures.append(f"exit {outcome.code}, expected {case.data.get('exit', 1)}")
    for problem in case.data["expect"]:
        if not matching_line(problem, places, outcome.output):
            failures.append(f"no line names {where(problem, places)} with {places.fill(problem['message'])!r}"
                            + (f" and [rule {problem['rule']}]" if problem.get("rule") else ""))
    after = fingerprint(places.root)
    changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    if changed:
        failures.append(f"the run changed files of the project: {changed}")
    staging = places.root / ".rulepress-cache" / "staging"
    if staging.is_dir() and any(staging.iterdir()):  # a refused build cleans up after itself
        failures.append(f"staging left behind: {sorted(path.name for path in staging.iterdir())}")
    return failures


@pytest.mark.parametrize("case", list(_params()))
def test_bad_input_is_refused_clearly(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capfd: pytest.CaptureFixture[str]) -> None:
    places = make_places(tmp_path, case.data.get("project", "mini"))
    for edit in case.data["edits"]:
        apply_edit(places, edit)
    before = fingerprint(places.root)
    if case.data.get("subprocess", False):
        outcome = run_in_child(case, places, float(case.data.get("seconds", DEFAULT_SECONDS)) * SLOWDOWN)
    else:
        outcome = run_in_process(case, places, monkeypatch, capfd)
    failures = judge(case, places, outcome, before)
    if failures:
        pytest.fail(f"{case.name} ({case.source}): " + "; ".join(failures)
                    + f"\nexit {outcome.code} after {outcome.seconds:.1f} s; output:\n{outcome.output}", pytrace=False)


# --- the runner's own teeth: each universal check fails when it should ---------------------------------------------

def test_corpus_is_big_enough_and_covers_every_kind() -> None:
    kinds = {case.data["kind"] for case in CASES}
    assert len(CASES) >= 200, len(CASES)
    assert {"key-typo", "wrong-type", "missing-key", "bad-format", "duplicate", "unknown-rule", "yaml-syntax",
            "yaml-bomb", "encoding", "confinement", "template-attack", "markup", "orphan", "engine-fault",
            "example-fault", "site-dir", "environment", "command-line", "name-not-whole", "catalog", "huge-number",
            "long-value"} <= kinds, sorted(kinds)


def test_a_case_with_a_misspelt_key_is_refused() -> None:
    bad = [{"name": "x", "kind": "key-typo", "edits": [], "expect": [{"file": "a", "message": "abc"}],
            "exepct": []}]
    with pytest.raises(jsonschema.ValidationError, match="exepct"):
        jsonschema.validate(bad, CASE_SCHEMA)


def test_matching_needs_place_message_and_rule_on_one_line(tmp_path: Path) -> None:
    places = Places(tmp_path, tmp_path, tmp_path / MARKER_NAME)
    output = "rulepress: rules_src/mini/book.yaml:3:1: unknown key 'subtitel' [rule mini.play]\nother line\n"
    problem = {"file": "rules_src/mini/book.yaml", "line": 3, "column": 1, "message": "unknown key 'subtitel'",
               "rule": "mini.play"}
    assert matching_line(problem, places, output)
    assert not matching_line({**problem, "line": 4}, places, output)
    assert not matching_line({**problem, "rule": "mini.other"}, places, output)
    assert not matching_line({**problem, "message": "other line"}, places, output)
    assert not matching_line({"file": "rules_src/mini/book.yaml", "line": None, "message": "unknown"}, places, output)
    replayed = "     ex (examples/mini/ex.yaml): step 2 (line 9): illegal move 'Ann takes 5' [illustrates mini.play]\n"
    example = {"file": "examples/mini/ex.yaml", "line": 9, "message": "illegal move 'Ann takes 5'"}
    assert matching_line(example, places, replayed)
    assert not matching_line({**example, "line": 8}, places, replayed)
    assert not matching_line({**example, "file": "examples/mini/other.yaml"}, places, replayed)


def test_fingerprint_sees_every_change(tmp_path: Path) -> None:
    places = make_places(tmp_path, "mini")
    before = fingerprint(places.root)
    (places.root / "site" / "index.html").write_text("changed")
    (places.root / "site" / "pdf" / "mini-print.pdf").unlink()
    (places.root / "site" / "new.html").write_text("new")
    after = fingerprint(places.root)
    assert sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k)) == [
        "site/index.html", "site/new.html", "site/pdf/mini-print.pdf"]


def test_network_guard_catches_a_connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capfd: pytest.CaptureFixture[str]) -> None:
    """An engine that goes online on import is caught by the in-process guard (and the run still refuses)."""
    case = Case("probe", "-", {"command": ["verify"]})
    places = make_places(tmp_path, "mini")
    engine = places.root / "engine/mini/__init__.py"
    future = "from __future__ import annotations\n"
    call = "import socket; socket.create_connection(('127.0.0.1', 9))\n"
    engine.write_text(engine.read_text().replace(future, future + call))
    outcome = run_in_process(case, places, monkeypatch, capfd)
    assert outcome.connections == ["('127.0.0.1', 9)"]
    assert ("engine/mini/__init__.py:4: engine 'mini' cannot be imported: OSError: network access refused"
            in outcome.output)


def test_child_guard_catches_a_connection(tmp_path: Path) -> None:
    case = Case("probe", "-", {"command": ["verify"]})
    places = make_places(tmp_path, "mini")
    engine = places.root / "engine/mini/__init__.py"
    future = "from __future__ import annotations\n"
    call = "import socket; socket.socket().connect(('127.0.0.1', 9))\n"
    engine.write_text(engine.read_text().replace(future, future + call))
    outcome = run_in_child(case, places, 30)
    assert outcome.connections == ["('127.0.0.1', 9)"]
    assert outcome.code == 1


def test_judge_sees_code_run_files_changed_and_tracebacks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that executes injected code, touches site/ and prints a traceback fails on each count."""
    monkeypatch.setattr(sys.modules[__name__], "SLOWDOWN", 1.0)
    case = Case("probe", "-", {"expect": [{"file": "rules_src/mini/book.yaml", "line": 2, "message": "bad"}]})
    places = make_places(tmp_path, "mini")
    before = fingerprint(places.root)
    places.marker.write_text("ran")
    (places.root / "site" / "index.html").write_text("replaced")
    (places.root / ".rulepress-cache" / "staging" / "123-abcd").mkdir(parents=True)
    output = f"Traceback (most recent call last):\nrules_src/mini/book.yaml:2: bad\n{SECRET}\n"
    failures = judge(case, places, Outcome(0, output, 99.0, ["('example.com', 80)"]), before)
    assert failures == ["a traceback", "took 99.0 s, the bound is 30 s",
                        f"the input ran code (it created {places.marker})",
                        "the run went online: [\"('example.com', 80)\"]", f"{SECRET!r} in the output",
                        "exit 0, expected 1", "the run changed files of the project: ['site/index.html']",
                        "staging left behind: ['123-abcd']"]
    clean = make_places(tmp_path / "clean", "mini")
    assert judge(case, clean, Outcome(1, "ERR  rules_src/mini/book.yaml:2: bad\n", 0.1, []),
                 fingerprint(clean.root)) == []
