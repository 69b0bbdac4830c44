"""Every refusal of the gate's checks, held to its whole message: one table of bad inputs per check.

``tests/corpus/checks/<check>.yaml`` is a check's table: the functions it holds (``module:function``), and rows,
each a bad input (edits to a copy of the mini project, as in the bad-input corpus, and the engine's declarations;
or the check's argument itself) with the check's whole answer: every message, with its file and line, in order.
A compiler's test suite pins each diagnostic's text and position; so do these tables.

Two tests hold the tables to the code, so a new refusal cannot land without its row:

* every refusal site of a table's functions (a ``raise``, a returned message, a problem appended: read with
  ``ast``) is reached by one of the table's rows (a line tracer records what ran);
* every ``check_*`` function of ``rulepress/verify`` has a table.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import pytest
import yaml

from rulepress.errors import SourceError
from rulepress.load.book import load_book
from rulepress.load.examples import load_examples
from rulepress.verify import decisions, diagram, gate, steps
from rulepress.verify.gate import load_checked_book

from .conftest import ROOT
from .test_bad_inputs import apply_edit, make_places

TABLES = Path(__file__).parent / "corpus" / "checks"
MINI_ENGINE = "engine/mini/__init__.py"


@dataclass(frozen=True)
class Table:
    check: str
    functions: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    source: str


def _tables() -> list[Table]:
    found = []
    for path in sorted(TABLES.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        found.append(Table(data["check"], tuple(data["functions"]), tuple(data["rows"]),
                           str(path.relative_to(ROOT))))
    return found


TABLE_LIST = _tables()


# --- building a bad input -----------------------------------------------------------------------------------------

def declare_engine(path: Path, declared: dict[str, list[str] | str]) -> None:
    """Give the engine at ``path`` these fields of its EngineSpec, in place of its own, as Python expressions: a list
    is a tuple of its items (``options``, each an OptionSpec; ``decisions``, each a Decision), a string the value
    itself (``palette: "{'slate': (0, 0, 0, 80)}"``).  A field of its
    ``ENGINE = EngineSpec(...)`` that names a module-level value (``options=OPTIONS``) has that value rewritten, where
    it stands; a field given there is rewritten in place; a field it lacks is added after its last one.  Rewritten
    text keeps its number of lines, so the lines below stay where they were.  The one place that knows how an engine
    declares them."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    lines = text.split("\n")
    [engine] = [node.value for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and any(isinstance(t, ast.Name) and t.id == "ENGINE" for t in node.targets)]
    fields = {keyword.arg: keyword for keyword in engine.keywords}
    bound = {target.id: node for node in tree.body if isinstance(node, ast.Assign) for target in node.targets
             if isinstance(target, ast.Name)}
    added = []
    for name, items in declared.items():
        value = items if isinstance(items, str) else f"({''.join(f'{item}, ' for item in items)})"
        field = fields.get(name)
        if field is None:
            added.append(f"    {name}={value},")
        elif isinstance(field.value, ast.Name) and field.value.id in bound:
            node = bound[field.value.id]
            _replace(lines, node.lineno, node.end_lineno or node.lineno, f"{field.value.id} = {value}")
        else:
            _replace(lines, field.lineno, field.end_lineno or field.lineno, f"    {name}={value},")
    last = max(keyword.end_lineno or keyword.lineno for keyword in engine.keywords)
    lines[last:last] = added
    text = "\n".join(lines)
    names = [name for name in ("Decision", "decided") if name not in text.split("from rulepress.protocol import ")[1]
             .split("\n")[0]]
    if names:
        text = text.replace("from rulepress.protocol import ", f"from rulepress.protocol import {', '.join(names)}, ",
                            1)
    path.write_text(text, encoding="utf-8")


def _replace(lines: list[str], first: int, last: int, written: str) -> None:
    """Lines ``first`` to ``last`` (from 1) become ``written`` and blank lines, as many lines as they were."""
    lines[first - 1:last] = [written] + [""] * (last - first)


def _unchecked(root: Path) -> Any:
    """The mini book loaded as the gate's verify loads it, before its cover artwork is checked."""
    book = load_book(root, "mini")
    return gate.BookCheck(book, gate.load_book_engine(book), load_examples(book))


def _project_check(call: Callable[[Any, Path], list[str]],
                   load: Callable[[Path], Any] | None = None) -> Callable[[dict[str, Any], Path], Any]:
    def run(row: dict[str, Any], base: Path) -> Any:
        places = make_places(base, "mini")
        if "declare" in row:
            declare_engine(places.root / MINI_ENGINE, row["declare"])
        for edit in row.get("edits", []):
            apply_edit(places, edit)
        return call((load or (lambda root: load_checked_book(root, "mini")))(places.root), places.root)
    return run


def _refused(run: Callable[[], list[str]]) -> list[str]:
    """A check that refuses by raising: its SourceError as the gate prints it."""
    try:
        return run()
    except SourceError as error:
        return [str(error)]


# Each table's check, called as the gate calls it, with its answer as the gate prints it.
CALLS: dict[str, Callable[[dict[str, Any], Path], Any]] = {
    # as the gate's verify calls it: on a BookCheck of the book, engine and examples, with the artwork not yet read
    "check_cover": _project_check(lambda check, root: gate.check_cover(check), load=_unchecked),
    "check_options": _project_check(lambda check, root: gate.check_options(check)),
    "check_decisions": _project_check(
        lambda check, root: [f"{p.severity}: {p}" for p in decisions.check_decisions(check.book, check.engine, root)]),
    "load_book_engine": lambda row, base: _refused(lambda: _project_check(lambda check, root: [])(row, base)),
    # as the gate's verify calls it, once the engine is loaded and held to its book
    "check_game": _project_check(lambda check, root: gate.check_game(check.book, check.engine)),
    "diagram_problem": lambda row, base: diagram.problem(row["svg"] if "svg" in row else row["value"]),
    "check_declaration": lambda row, base: steps.check_declaration(
        steps.Declared(row.get("actions"), row.get("state"), MINI_ENGINE)),
}


def _expected(row: dict[str, Any]) -> Any:
    return row["problems"] if "problems" in row else row["problem"]


def _failures(table: Table, base: Path) -> Iterator[str]:
    for row in table.rows:
        got = CALLS[table.check](row, base / row["name"])
        if got != _expected(row):
            yield f"{row['name']}: expected {_expected(row)!r},\n     got {got!r}"


@pytest.mark.parametrize("table", TABLE_LIST, ids=[t.check for t in TABLE_LIST])
def test_every_row_gets_its_whole_message(table: Table, tmp_path: Path) -> None:
    failures = list(_failures(table, tmp_path))
    assert not failures, f"{table.source}:\n" + "\n".join(failures)


def test_every_table_names_its_check_and_rows_once() -> None:
    assert {t.check for t in TABLE_LIST} == set(CALLS)
    for table in TABLE_LIST:
        names = [row["name"] for row in table.rows]
        assert len(names) == len(set(names)), f"{table.source}: a row name twice"
        assert any(_expected(row) in (None, []) for row in table.rows), \
            f"{table.source}: no row the check lets pass (a check refusing everything would go unnoticed)"


# --- the tables held to the code ------------------------------------------------------------------------------------

def _function(name: str) -> Any:
    module, _, attribute = name.partition(":")
    found = importlib.import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


def _refusals(function: Any) -> dict[int, str]:
    """Line -> source of every place ``function`` refuses: a raise, a returned message (not None, not an empty
    list, not a variable holding what was found), a problem appended or extended, a problem made."""
    path = Path(inspect.getsourcefile(function) or "")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    [node] = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function.__name__
              and n.lineno == function.__code__.co_firstlineno]
    found = {}
    for inner in ast.walk(node):
        value = inner.value if isinstance(inner, ast.Return | ast.Expr) else None
        if isinstance(inner, ast.Raise) or (
                isinstance(inner, ast.Return) and value is not None and not isinstance(value, ast.Name)
                and not (isinstance(value, ast.Constant) and value.value is None)
                and not (isinstance(value, ast.List | ast.Tuple) and not value.elts)
                and not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "bool")
                and isinstance(value, ast.JoinedStr | ast.Constant | ast.List | ast.ListComp | ast.Call)) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr in ("append", "extend", "add")):
            found[inner.lineno] = ast.unparse(inner).split("\n")[0][:100]
    return found


def _traced(codes: set[CodeType], run: Callable[[], Any]) -> set[tuple[str, int]]:
    """(file, line) of every line run inside ``codes`` (and the code objects nested in them) while ``run`` runs."""
    files = {code.co_filename: code for code in codes}
    spans = [(code.co_filename, code.co_firstlineno, max(line for _, _, line in code.co_lines() if line))
             for code in codes]
    seen: set[tuple[str, int]] = set()

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            seen.add((frame.f_code.co_filename, frame.f_lineno))
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        if code.co_filename in files and any(code.co_filename == f and first <= code.co_firstlineno <= last
                                             for f, first, last in spans):
            return local
        return None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        run()
    finally:
        sys.settrace(previous)
    return seen


# In mutmut's copy the checks' source holds every mutant's version of each function, and the functions are
# trampolines: the sites read there are not the code that runs.  The rows themselves run there (the test above).
@pytest.mark.outside_mutmut(reason="reads the checks' source with ast, which in mutmut's copy holds every mutant")
@pytest.mark.parametrize("table", TABLE_LIST, ids=[t.check for t in TABLE_LIST])
def test_every_refusal_of_the_check_has_a_row(table: Table, tmp_path: Path) -> None:
    functions = [_function(name) for name in table.functions]
    seen = _traced({f.__code__ for f in functions}, lambda: list(_failures(table, tmp_path)))
    missing = [f"{Path(inspect.getsourcefile(f) or '').relative_to(ROOT)}:{line} {f.__name__}: {text}"
               for f in functions for line, text in sorted(_refusals(f).items())
               if (f.__code__.co_filename, line) not in seen]
    assert not missing, f"{table.source}: no row reaches these refusals (add one, with its whole message):\n" + \
        "\n".join(missing)


def _checks() -> list[str]:
    """Every ``check_*`` function of rulepress/verify, as ``module:function``."""
    found = []
    for path in sorted((ROOT / "rulepress" / "verify").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = f"rulepress.verify.{path.stem}"
        found += [f"{module}:{node.name}" for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name.startswith("check_")]
    return found


def test_every_check_of_the_gate_has_a_table() -> None:
    tabled = {name for table in TABLE_LIST for name in table.functions}
    assert [name for name in _checks() if name not in tabled] == []
