"""Mutation testing of the engines and the gate with mutmut: pick mutants, run them, score what the tests caught.

    python tools/mutants.py                          # every mutant not yet decided (an overnight campaign)
    python tools/mutants.py --sample 200 --seed 1    # 200 mutants, spread evenly over the modules (CI)
    python tools/mutants.py --module 'engine/lantern/*' --sample 50
    python tools/mutants.py --report-only            # score the last run again (after editing the equivalents)

Run from anywhere (through ``nox -s mutants -- ARGS``); it works in the project root, where mutmut keeps its
``mutants/`` folder.  What is mutated and which tests run live in ``[tool.mutmut]`` of ``pyproject.toml``; the
mutants a person has judged equivalent (no test could tell them apart) in ``tools/equivalent_mutants.toml``.
The score is killed / (killed + survived + no tests), equivalent mutants left out: a mutant no test even reaches
counts as a survivor, because nothing would catch it.  See docs/MUTATION.md.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import fcntl
import fnmatch
import io
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "tools" / "equivalent_mutants.toml"
SAMPLE_FILE = Path("mutants") / "rulepress-sample.json"
REPORT_JSON = Path("mutants") / "rulepress-report.json"
REPORT_MD = Path("mutants") / "rulepress-report.md"
LOCK_FILE = Path("mutants") / "rulepress-campaign.lock"
RECORD = Path("mutants") / "rulepress-verdicts.json"  # every verdict, with its function's hash
MUTMUT_VERSION = "3.8.1"  # the driver reads mutmut's own files and calls its generation step: pinned
BATCH = 400  # mutant names per `mutmut run` call, far below the kernel's argument-length limit

# mutmut's statuses, as this report counts them
CAUGHT = {"killed", "segfault"}  # a test failed, or the run crashed
# mutmut's time limit is wall-clock, from test durations that leave fixture set-up out: on a loaded machine a
# mutant can "time out" without hanging.  Timeouts count as caught but are shown apart, and re-tested each run.
TIMEOUT = "timeout"
MISSED = {"survived", "no tests"}  # "no tests": no selected test reaches the code, so nothing would catch it
UNSCORED = {"not checked", "skipped", "suspicious", "check was interrupted by user", "caught by type check"}


class MutantsError(Exception):
    """Something the person running the campaign must fix; printed as one line, never a traceback."""


@contextlib.contextmanager
def campaign_lock(path: Path = LOCK_FILE) -> Iterator[None]:
    """One campaign per copy: two mutmut runs on the same ``mutants/`` overwrite each other's verdicts."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise MutantsError(f"a campaign is already running on {path.parent}/ ({holder}); "
                               "wait for it or stop it first") from None
        handle.truncate(0)
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        try:
            yield
        finally:
            handle.truncate(0)
            fcntl.flock(handle, fcntl.LOCK_UN)


@dataclass(frozen=True)
class Mutant:
    key: str  # mutmut's name, e.g. engine.lantern.game.xǁLanternGameǁapply__mutmut_7
    path: str  # the source file, relative to the project root
    group: str  # the module the score is reported for: a gate file, or an engine package

    @property
    def function(self) -> str:
        """``Class.method`` or ``function``: the name people see in the source.

        mutmut mangles it into the key: ``x_function`` or ``xǁClassǁmethod``, then ``__mutmut_<n>``.
        """
        mangled = self.key.partition("__mutmut_")[0].rpartition(".")[2]
        if mangled.startswith("xǁ"):
            _, cls, name = mangled.split("ǁ")
            return f"{cls}.{name}"
        return mangled.removeprefix("x_")


@dataclass(frozen=True)
class Change:
    """One mutation as a person reads it: where, and the line before and after."""

    line: int | None
    before: str
    after: str


def group_of(path: str) -> str:
    parts = Path(path).parts
    return "/".join(parts[:2]) if parts[0] == "engine" else path


# -- mutmut's side ----------------------------------------------------------------------------------------------------

def import_mutmut() -> None:
    try:
        from importlib.metadata import version

        found = version("mutmut")
    except Exception as exc:  # PackageNotFoundError, or a broken install: either way, say what to install
        raise MutantsError(f"mutmut is not installed: pip install mutmut=={MUTMUT_VERSION}") from exc
    if found != MUTMUT_VERSION:
        raise MutantsError(f"mutmut {found} is installed; this driver reads mutmut {MUTMUT_VERSION}'s files: "
                           f"pip install mutmut=={MUTMUT_VERSION}")


def generate() -> list[Mutant]:
    """Write mutants/ (only files changed since the last run are mutated again) and list every mutant."""
    from mutmut.__main__ import copy_also_copy_files, copy_src_dir, create_mutants

    Path("mutants").mkdir(exist_ok=True)
    unmutated_copies(Path("."), Path("mutants"))
    with contextlib.redirect_stdout(io.StringIO()):  # mutmut prints every file it copies
        copy_src_dir()
        copy_also_copy_files()
        create_mutants(1)
    settings = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    refresh_copies(Path("."), Path("mutants"), settings.get("source_paths", []),
                   ["tests", *settings.get("also_copy", [])])
    return [mutant for mutant, _ in verdicts()]


def unmutated_copies(root: Path, target: Path) -> list[str]:
    """Remove the copy of every file to be mutated that holds no mutants, so that mutmut mutates it; returns them.

    mutmut copies every source file into the copy and later mutates only files newer than their copy: a file
    added to ``only_mutate`` after a run had copied it as it is would never be mutated (its copy is newer)."""
    from mutmut.configuration import config

    removed = []
    for source in config().source_paths:
        for path in sorted((root / source).rglob("*.py")):
            copy = target / path.relative_to(root)
            if config().should_mutate(str(path.relative_to(root))) and copy.is_file() \
                    and b"__mutmut_" not in copy.read_bytes():
                copy.unlink()
                removed.append(str(path.relative_to(root)))
    return removed


def refresh_copies(root: Path, target: Path, sources: Iterable[str], copied: Iterable[str]) -> list[str]:
    """Bring the copy in ``target`` up to date with everything mutmut does not mutate; returns what changed.

    mutmut mutates a changed Python source again, but copies any other file (a template, a schema, a test, an
    example) only when the copy lacks it: after a pull, a run would test today's code against yesterday's
    templates and tests, and fail in its clean run.  The sources' other files and every file of the copied
    folders are refreshed here, and their links to folders made again: mutmut walks past a link to a folder
    (``rulepress/samples -> ../samples``, how the wheel ships the samples), so the copy's wheel had no samples.
    """
    changed = []
    for folder, every in [(name, False) for name in sources] + [(name, True) for name in copied]:
        base = root / folder
        entries = sorted(base.rglob("*")) if base.is_dir() else []
        for link in (entry for entry in entries if entry.is_symlink() and entry.is_dir()):
            copy = target / link.relative_to(root)
            if not copy.is_symlink() or os.readlink(copy) != os.readlink(link):
                if copy.is_symlink() or copy.is_file():
                    copy.unlink()
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.symlink_to(os.readlink(link))
                changed.append(str(link.relative_to(root)))
        files = [base] if base.is_file() else [p for p in entries if p.is_file()]
        for path in files:
            if "__pycache__" in path.parts or (not every and path.suffix == ".py"):
                continue
            copy = target / path.relative_to(root)
            if not copy.exists() or copy.read_bytes() != path.read_bytes():
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, copy)
                changed.append(str(path.relative_to(root)))
    return changed


def verdicts() -> list[tuple[Mutant, str]]:
    """Every mutant mutmut knows, with its status ("not checked" until run), and the verdicts it forgot.

    mutmut 3.8.1 can reset the exit codes of mutants it was not asked to run (seen after a campaign was stopped
    and started again: 129 kills gone), so every verdict is also kept in :data:`RECORD` with the hash of its
    function, and given back while that function is unchanged.
    """
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.stats import status_by_exit_code
    from mutmut.utils.file_utils import walk_mutatable_files

    seen: dict[str, tuple[str, str]] = {}
    paths: dict[str, str] = {}
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        for key, code in data.exit_code_by_key.items():
            seen[key] = (status_by_exit_code[code], data.hash_by_function_name.get(function_of(key), ""))
            paths[key] = str(path)
    record = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.is_file() else {}
    statuses, record = cached_verdicts(seen, record)
    RECORD.write_text(json.dumps(record, sort_keys=True), encoding="utf-8")
    return [(Mutant(key, paths[key], group_of(paths[key])), status) for key, status in statuses.items()]


def function_of(key: str) -> str:
    """mutmut's name of the function a mutant is in: ``engine.lantern.solver.x__serve__mutmut_1`` -> ``x__serve``."""
    return key.rsplit(".", 1)[-1].rsplit("__mutmut_", 1)[0]


def cached_verdicts(seen: dict[str, tuple[str, str]], record: dict[str, list[str]]) -> tuple[dict[str, str],
                                                                                         dict[str, list[str]]]:
    """Each mutant's status, a forgotten one ("not checked") taken from ``record`` when its function's hash is
    the one recorded; and the record with today's verdicts in it."""
    statuses = {}
    kept = dict(record)
    for key, (status, digest) in seen.items():
        if status == "not checked" and key in record and record[key][1] == digest:
            status = record[key][0]
        elif status != "not checked" and status not in UNSCORED:
            kept[key] = [status, digest]
        statuses[key] = status
    return statuses, kept


def run_mutmut(keys: list[str], max_children: int) -> None:
    exe = Path(sys.executable).with_name("mutmut")
    command = str(exe) if exe.exists() else shutil.which("mutmut")
    if not command:
        raise MutantsError(f"no mutmut command next to {sys.executable} or on PATH")
    for start in range(0, len(keys), BATCH):
        batch = keys[start:start + BATCH]
        print(f"mutmut: mutants {start + 1}-{start + len(batch)} of {len(keys)}", flush=True)
        done = subprocess.run([command, "run", "--max-children", str(max_children), *batch], check=False)
        if done.returncode != 0:
            raise MutantsError(f"mutmut run stopped with exit code {done.returncode} (its output is above)")


def change_of(mutant: Mutant) -> Change:
    """The first changed line of a mutant, numbered as in the source file."""
    import libcst as cst
    from mutmut.mutation.diff_apply import (
        read_functions_from_index,
        read_mutant_function,
        read_mutants_module,
        read_original_function,
    )

    functions = read_functions_from_index(mutant.key, mutant.path)
    if functions is None:  # no line index (an older mutants/): read the whole mutated file
        module = read_mutants_module(mutant.path)
        functions = (read_original_function(module, mutant.key), read_mutant_function(module, mutant.key))
    orig, mutated = (cst.Module([function]).code.strip().split("\n") for function in functions)
    return locate(orig, mutated, function_line(mutant))


def locate(orig: list[str], mutated: list[str], def_line: int | None) -> Change:
    """The first line where ``mutated`` differs from ``orig`` (a function's text, decorators first).

    ``def_line`` is where the function's ``def`` is in the file: it anchors the text to the file's numbering.
    """
    opcode = next((op for op in difflib.SequenceMatcher(a=orig, b=mutated, autojunk=False).get_opcodes()
                   if op[0] != "equal"), None)
    if opcode is None:
        return Change(def_line, "", "")
    _, i1, i2, j1, j2 = opcode
    before = orig[i1].strip() if i1 < i2 else ""
    after = mutated[j1].strip() if j1 < j2 else ""
    def_at = next((i for i, line in enumerate(orig) if line.lstrip().startswith(("def ", "async def "))), None)
    if def_at is None or def_line is None:
        return Change(def_line, before, after)
    return Change(def_line + i1 - def_at, before, after)


def function_line(mutant: Mutant) -> int | None:
    """Where the mutated function's ``def`` is in the source file."""
    cls, _, name = mutant.function.rpartition(".")
    tree = ast.parse(Path(mutant.path).read_text(encoding="utf-8"))
    scope: Iterable[ast.stmt] = tree.body
    if cls:
        scope = next((node.body for node in tree.body if isinstance(node, ast.ClassDef) and node.name == cls), [])
    for node in scope:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node.lineno
    return None


# -- choosing mutants -------------------------------------------------------------------------------------------------

def select(mutants: list[Mutant], modules: list[str]) -> list[Mutant]:
    if not modules:
        return mutants
    chosen = [m for m in mutants if any(fnmatch.fnmatch(m.path, pattern) for pattern in modules)]
    if not chosen:
        raise MutantsError(f"--module {' '.join(modules)} matches no mutated file "
                           f"(they are: {', '.join(sorted({m.path for m in mutants}))})")
    return chosen


def sample(mutants: list[Mutant], size: int, seed: int) -> list[Mutant]:
    """``size`` mutants spread evenly over the modules, so that each module's score rests on some mutants.

    A module with fewer mutants than its share gives the rest to the others.
    """
    rng = random.Random(seed)
    by_group: dict[str, list[Mutant]] = defaultdict(list)
    for mutant in sorted(mutants, key=lambda m: m.key):
        by_group[mutant.group].append(mutant)
    groups = sorted(by_group, key=lambda g: len(by_group[g]))  # small modules first: they may leave some over
    chosen: list[Mutant] = []
    left = min(size, len(mutants))
    for index, group in enumerate(groups):
        share = min(len(by_group[group]), -(-left // (len(groups) - index)))
        chosen += rng.sample(by_group[group], share)
        left -= share
    return chosen


# -- scoring ----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Equivalent:
    path: str
    function: str
    before: str
    after: str
    why: str


def load_equivalents(path: Path = EQUIVALENTS) -> list[Equivalent]:
    """The survivors a person has shown no test could catch, matched by file, function and changed line."""
    if not path.exists():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise MutantsError(f"{path}: {exc}") from exc
    found = []
    for index, entry in enumerate(data.get("equivalent", []), start=1):
        missing = [k for k in ("path", "function", "before", "after", "why") if not str(entry.get(k, "")).strip()]
        if missing:
            raise MutantsError(f"{path}: equivalent #{index} lacks {', '.join(missing)}")
        found.append(Equivalent(**{k: str(entry[k]).strip() for k in ("path", "function", "before", "after", "why")}))
    return found


@dataclass
class Row:
    group: str
    killed: int = 0
    timeout: int = 0
    survived: int = 0
    no_tests: int = 0
    equivalent: int = 0
    unscored: int = 0

    @property
    def scored(self) -> int:
        return self.killed + self.timeout + self.survived + self.no_tests

    @property
    def score(self) -> float | None:
        """Timeouts counted as caught."""
        return 100.0 * (self.killed + self.timeout) / self.scored if self.scored else None

    @property
    def score_without_timeouts(self) -> float | None:
        """Timeouts left out, in case they were the machine's slowness rather than a hang."""
        judged = self.scored - self.timeout
        return 100.0 * self.killed / judged if judged else None


def score(chosen: list[Mutant], status: dict[str, str], equivalents: list[Equivalent],
          describe: Callable[[Mutant], Change] = change_of) -> tuple[list[Row], list[dict]]:
    """Per-module rows (and a total) and the survivors, each with its file, line and change."""
    rows: dict[str, Row] = {}
    survivors = []
    for mutant in sorted(chosen, key=lambda m: (m.path, m.key)):
        row = rows.setdefault(mutant.group, Row(mutant.group))
        state = status.get(mutant.key, "not checked")
        if state in CAUGHT:
            row.killed += 1
            continue
        if state == TIMEOUT:
            row.timeout += 1
            continue
        if state in UNSCORED:
            row.unscored += 1
            continue
        change = describe(mutant)
        match = next((e for e in equivalents if e.path == mutant.path and e.function == mutant.function
                      and e.before == change.before and e.after == change.after), None)
        if match:
            row.equivalent += 1
            continue
        if state == "no tests":
            row.no_tests += 1
        else:
            row.survived += 1
        survivors.append({"key": mutant.key, "path": mutant.path, "function": mutant.function, "status": state,
                          **asdict(change)})
    total = Row("total")
    for row in rows.values():
        for name in ("killed", "timeout", "survived", "no_tests", "equivalent", "unscored"):
            setattr(total, name, getattr(total, name) + getattr(row, name))
    return [*sorted(rows.values(), key=lambda r: r.group), total], survivors


def markdown(rows: list[Row], survivors: list[dict], header: str) -> str:
    lines = [header, "", "| module | killed | timeout | survived | no tests | equivalent | not run | score | "
             "score without timeouts |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        shown = ["n/a" if value is None else f"{value:.1f}%" for value in (row.score, row.score_without_timeouts)]
        name = f"**{row.group}**" if row.group == "total" else f"`{row.group}`"
        lines.append(f"| {name} | {row.killed} | {row.timeout} | {row.survived} | {row.no_tests} | "
                     f"{row.equivalent} | {row.unscored} | {shown[0]} | {shown[1]} |")
    if survivors:
        lines += ["", "Survivors (not judged equivalent):", ""]
        for s in survivors:
            where = f"{s['path']}:{s['line']}" if s["line"] else s["path"]
            lines.append(f"- `{where}` {s['function']} ({s['status']}): `{s['before']}` -> `{s['after']}`")
    return "\n".join(lines) + "\n"


def report(chosen: list[Mutant], description: str) -> tuple[Row, str]:
    status = {mutant.key: state for mutant, state in verdicts()}
    rows, survivors = score(chosen, status, load_equivalents())
    text = markdown(rows, survivors, f"Mutation score ({description})")
    REPORT_MD.write_text(text, encoding="utf-8")
    table = [{**asdict(row), "score": row.score, "score_without_timeouts": row.score_without_timeouts} for row in rows]
    REPORT_JSON.write_text(json.dumps({"description": description, "rows": table, "survivors": survivors}, indent=2),
                           encoding="utf-8")
    return rows[-1], text


# -- command line -----------------------------------------------------------------------------------------------------

def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="nox -s mutants --", description=__doc__.split("\n\n")[0])
    env = os.environ.get
    parser.add_argument("--sample", type=int, default=int(env("MUTANTS_SAMPLE", "0")),
                        help="test this many mutants, spread over the modules (0: all; env MUTANTS_SAMPLE)")
    parser.add_argument("--seed", type=int, default=int(env("MUTANTS_SEED", "0")),
                        help="which sample (env MUTANTS_SEED)")
    parser.add_argument("--module", action="append", default=env("MUTANTS_MODULE", "").split(), metavar="GLOB",
                        help="only files matching, e.g. 'engine/lantern/*' (repeatable; env MUTANTS_MODULE)")
    parser.add_argument("--rerun", action="store_true", help="test killed mutants again too (survivors always are)")
    parser.add_argument("--max-children", type=int, default=1, help="parallel mutants (default 1)")
    parser.add_argument("--fail-under", type=float, default=None, metavar="PERCENT",
                        help="exit 1 when the total score is below this")
    parser.add_argument("--report-only", action="store_true", help="score the last chosen mutants again, run none")
    parser.add_argument("--list", action="store_true", help="print the chosen mutants and run none")
    parser.add_argument("--deselect", action="append", default=[], metavar="NODEID",
                        help="leave out a test that fails on the unmutated tree (mutmut stops at any failing test); "
                             "named in the report")
    args = parser.parse_args(argv)
    if args.sample < 0 or args.max_children < 1:
        parser.error("--sample must be >= 0 and --max-children >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    os.chdir(ROOT)
    stack = contextlib.ExitStack()
    try:
        import_mutmut()
        if args.report_only:
            if not SAMPLE_FILE.exists():
                raise MutantsError(f"{SAMPLE_FILE} does not exist: run mutants first")
            saved = json.loads(SAMPLE_FILE.read_text(encoding="utf-8"))
            known = {m.key: m for m, _ in verdicts()}
            chosen = [known[k] for k in saved["keys"] if k in known]
            description = saved["description"]
        else:
            stack.enter_context(campaign_lock())  # generation writes mutants/ too
            print("generating mutants (only changed files are mutated again)", flush=True)
            chosen = select(generate(), args.module)
            if args.sample:
                chosen = sample(chosen, args.sample, args.seed)
            where = ", ".join(args.module) or "all mutated files"
            description = (f"sample of {len(chosen)}, seed {args.seed}, {where}" if args.sample
                           else f"all {len(chosen)} mutants of {where}")
            if args.deselect:
                description += f"; tests left out: {', '.join(args.deselect)}"
            if args.list:
                for mutant in chosen:
                    print(mutant.key)
                return 0
            SAMPLE_FILE.write_text(json.dumps({"description": description, "keys": [m.key for m in chosen]}),
                                   encoding="utf-8")
            status = {m.key: s for m, s in verdicts()}
            todo = [m.key for m in chosen if args.rerun or status.get(m.key) not in CAUGHT]  # timeouts again too
            counts = Counter(m.group for m in chosen)
            print(f"{len(chosen)} mutants ({', '.join(f'{g}: {n}' for g, n in sorted(counts.items()))}); "
                  f"{len(chosen) - len(todo)} already killed, {len(todo)} to run", flush=True)
            if todo:
                # Traced and mutated code runs many times slower than usual: the gate's time limits, meant to
                # catch engines that never answer, would fail healthy imports and replays under mutmut.
                # mutmut's own timeout still stops a mutant that loops forever.
                for variable in ("RULEPRESS_IMPORT_TIMEOUT", "RULEPRESS_REPLAY_TIMEOUT"):
                    os.environ.setdefault(variable, "300")
                os.environ.setdefault("RULEPRESS_TEST_SLOWDOWN", "30")  # every bound a test sets (tests/conftest.py)
                if args.deselect:  # mutmut passes no arguments of ours to pytest; pytest reads this everywhere
                    deselect = " ".join(shlex.quote(f"--deselect={node}") for node in args.deselect)
                    os.environ["PYTEST_ADDOPTS"] = f"{os.environ.get('PYTEST_ADDOPTS', '')} {deselect}".strip()
                run_mutmut(todo, args.max_children)
        total, text = report(chosen, description)
        print(text)
        print(f"written: {REPORT_MD}, {REPORT_JSON}")
    except MutantsError as exc:
        print(f"mutants: {exc}", file=sys.stderr)
        return 2
    finally:
        stack.close()
    if args.fail_under is not None and (total.score or 0.0) < args.fail_under:
        print(f"mutants: score {total.score or 0.0:.1f}% is below {args.fail_under}%", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
