"""The mutation-testing driver (tools/mutants.py) and its pytest plugin: sampling, scoring, engine names.

Runs no mutant: mutmut itself is exercised by `nox -s mutants` (docs/MUTATION.md).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import ROOT


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"rulepress_tools_{name}", ROOT / "tools" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


M = _load("mutants")


def _mutant(path: str, function: str = "go", n: int = 1) -> object:
    module = path.removesuffix(".py").replace("/", ".").replace(".__init__", "")
    cls, _, name = function.rpartition(".")
    mangled = f"xǁ{cls}ǁ{name}" if cls else f"x_{name}"
    return M.Mutant(f"{module}.{mangled}__mutmut_{n}", path, M.group_of(path))


def test_keys_name_the_function_people_see() -> None:
    assert _mutant("engine/lantern/game.py", "LanternGame.apply", 7).function == "LanternGame.apply"
    assert _mutant("rulepress/verify/replay.py", "_check_step", 3).function == "_check_step"
    assert M.group_of("engine/lantern/game.py") == "engine/lantern"
    assert M.group_of("rulepress/verify/gate.py") == "rulepress/verify/gate.py"


def test_sample_spreads_over_modules_and_a_small_module_leaves_its_share_to_the_others() -> None:
    mutants = ([_mutant("rulepress/verify/gate.py", n=i) for i in range(2)]
               + [_mutant("engine/lantern/game.py", n=i) for i in range(50)]
               + [_mutant("engine/last_lantern/fog.py", n=i) for i in range(50)])
    chosen = M.sample(mutants, 12, seed=1)
    groups = sorted(m.group for m in chosen)
    assert groups.count("rulepress/verify/gate.py") == 2
    assert groups.count("engine/lantern") == 5 and groups.count("engine/last_lantern") == 5
    assert len(set(chosen)) == 12
    assert M.sample(mutants, 12, seed=1) == chosen
    assert M.sample(mutants, 12, seed=2) != chosen
    assert len(M.sample(mutants, 500, seed=1)) == 102


def test_a_module_glob_matching_nothing_names_the_mutated_files() -> None:
    mutants = [_mutant("engine/lantern/game.py"), _mutant("rulepress/verify/gate.py")]
    assert M.select(mutants, ["engine/lantern/*"]) == mutants[:1]
    with pytest.raises(M.MutantsError) as error:
        M.select(mutants, ["engine/lanterns/*"])
    assert str(error.value) == ("--module engine/lanterns/* matches no mutated file "
                                "(they are: engine/lantern/game.py, rulepress/verify/gate.py)")


def test_locate_numbers_the_changed_line_as_in_the_file() -> None:
    orig = ["@cache", "def go(x):", "    y = x + 1", "    return y < 3"]
    mutated = ["@cache", "def go(x):", "    y = x + 1", "    return y <= 3"]
    assert M.locate(orig, mutated, def_line=40) == M.Change(42, "return y < 3", "return y <= 3")
    assert M.locate(orig, orig, def_line=40) == M.Change(40, "", "")


def test_score_leaves_out_equivalents_counts_unreached_code_as_missed_and_shows_timeouts(tmp_path: Path) -> None:
    mutants = [_mutant("engine/lantern/game.py", "G.apply", n) for n in range(1, 6)]
    status = {mutants[0].key: "killed", mutants[1].key: "timeout", mutants[2].key: "survived",
              mutants[3].key: "no tests", mutants[4].key: "survived"}
    changes = {mutants[2].key: M.Change(10, "a < b", "a <= b"), mutants[3].key: M.Change(12, "x", "None"),
               mutants[4].key: M.Change(14, "n = 1", "n = 2")}
    (tmp_path / "eq.toml").write_text(textwrap.dedent("""
        [[equivalent]]
        path = "engine/lantern/game.py"
        function = "G.apply"
        before = "n = 1"
        after = "n = 2"
        why = "n is overwritten before it is read"
    """), encoding="utf-8")
    rows, survivors = M.score(mutants, status, M.load_equivalents(tmp_path / "eq.toml"),
                              describe=lambda m: changes[m.key])
    game, total = rows
    assert (game.killed, game.timeout, game.survived, game.no_tests, game.equivalent) == (1, 1, 1, 1, 1)
    assert game.score == pytest.approx(50.0) and total.score == pytest.approx(50.0)
    assert game.score_without_timeouts == pytest.approx(100 / 3)
    assert [(s["path"], s["line"], s["status"]) for s in survivors] == [
        ("engine/lantern/game.py", 10, "survived"), ("engine/lantern/game.py", 12, "no tests")]
    text = M.markdown(rows, survivors, "Mutation score (test)")
    assert "| `engine/lantern` | 1 | 1 | 1 | 1 | 1 | 0 | 50.0% | 33.3% |" in text
    assert "- `engine/lantern/game.py:10` G.apply (survived): `a < b` -> `a <= b`" in text


def test_an_equivalent_without_a_reason_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "eq.toml"
    path.write_text('[[equivalent]]\npath = "engine/lantern/game.py"\nfunction = "G.apply"\n'
                    'before = "n = 1"\nafter = "n = 2"\n', encoding="utf-8")
    with pytest.raises(M.MutantsError) as error:
        M.load_equivalents(path)
    assert str(error.value) == f"{path}: equivalent #1 lacks why"


def test_the_equivalents_on_file_load_and_name_files_that_exist() -> None:
    entries = M.load_equivalents()
    assert entries, "tools/equivalent_mutants.toml lists no mutant"
    for entry in entries:
        assert (ROOT / entry.path).is_file(), entry
        assert entry.before in (ROOT / entry.path).read_text(encoding="utf-8"), entry


def _python(code: str, root: Path) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter: aliasing engines rewrites sys.modules, which must not leak into this test run."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=root, capture_output=True, text=True,
                          timeout=120, check=False)


def test_plugin_makes_rulepress_engines_run_the_engine_modules_mutmut_names() -> None:
    done = _python("""
        import sys
        sys.path.insert(0, ".")
        from tools.mutmut_plugin import alias_engines
        from rulepress.project import default_root
        from rulepress.verify.engines import engine_module, load_engine, namespace_for
        names = alias_engines(default_root())
        engine = load_engine("lantern")
        named = namespace_for(default_root() / "engine" / "lantern", default_root()) + ".lantern.game"
        print(engine.module_name, engine_module(engine).LanternGame.__module__, named in names)
    """, ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["engine.lantern", "engine.lantern.game", "True"]


def test_plugin_refuses_a_root_other_than_the_one_rulepress_came_from(tmp_path: Path) -> None:
    (tmp_path / "engine").mkdir()
    done = _python(f"""
        import sys
        sys.path.insert(0, ".")
        from pathlib import Path
        from tools.mutmut_plugin import EngineAliasError, alias_engines
        try:
            alias_engines(Path({str(tmp_path)!r}))
        except EngineAliasError as error:
            print(error)
    """, ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{tmp_path} is not the project rulepress was imported from ({ROOT}")


# A file as mutmut 3.8.1 mutates it (mutmut.__main__.write_all_mutants_to_file), and the file it was made from.
MADE = ROOT / "tests" / "fixtures" / "mutmut" / "game.py.txt"
MUTATED = ROOT / "tests" / "fixtures" / "mutmut" / "game.mutated.py.txt"


def _words(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


def test_unmutate_gives_back_every_line_of_the_source_and_nothing_mutmut_added() -> None:
    plugin = _load("mutmut_plugin")
    mutated = MUTATED.read_text(encoding="utf-8")
    assert "XXsetup_ones_crossXX" in mutated and plugin.TRAMPOLINE_IMPORT in mutated  # what the fixture shows
    assert _words(plugin.unmutate(mutated)) == _words(MADE.read_text(encoding="utf-8"))


def test_the_gate_reads_a_mutated_engine_and_a_tests_copy_of_it_as_the_source_it_was_made_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In the mutated copy an engine's source holds every mutant's version of each function (``"XXgoalXX"``,
    ``decided(state, "SETUP_ONES_CROSS")``).  The checks that read the source (decision marks, rule IDs, catalog
    messages: rulepress.load.engine_source) read the file it was made from, for the copy's files and for any
    copy a test makes of them, at the source's lines; a test's edit of such a copy is read with the edit."""
    from rulepress.analyze.fingerprint import play_digests
    from rulepress.load import engine_source
    from rulepress.verify.decisions import read_facts

    plugin = _load("mutmut_plugin")
    made, mutated = MADE.read_text(encoding="utf-8"), MUTATED.read_text(encoding="utf-8")
    project = tmp_path / "project"
    for where, text in ((project / "engine/e", made), (project / "mutants/engine/e", mutated)):
        where.mkdir(parents=True)
        (where / "game.py").write_text(text, encoding="utf-8")
    (project / "mutants/engine/e/plain.py").write_text("X = 'XXnot mutmut''s XX'\n", encoding="utf-8")
    # As rulepress reads it (inside a mutation run the plugin has already pointed it at the sources)
    monkeypatch.setattr(engine_source, "read", getattr(engine_source.read, "original", engine_source.read))
    assert engine_source.read(project / "mutants/engine/e/game.py") == mutated  # before: as it is
    plugin.read_sources_as_made(project / "mutants")
    assert engine_source.read(project / "mutants/engine/e/game.py") == made
    copy = tmp_path / "test-copy" / "engine" / "e"
    copy.mkdir(parents=True)
    (copy / "game.py").write_text(mutated, encoding="utf-8")
    assert engine_source.read(copy / "game.py") == made
    facts = read_facts(copy, tmp_path / "test-copy")
    assert facts.marks == {"setup_ones_cross": ["engine/e/game.py:12"]}  # the source's line, no mutant's name
    # What decides play, for the saved simulations: the mutated copy's engine is the one they were made with (read
    # as it is, every saved analysis was stale there, and the designer editions said so at length: another layout).
    key = "engine/e/game.py"
    assert play_digests(project / "mutants", "e")[key] == play_digests(project, "e")[key]
    (copy / "game.py").write_text(mutated.replace('"ember"', '"embers"'), encoding="utf-8")  # a test's edit
    edited = engine_source.read(copy / "game.py")
    assert _words(edited) == _words(made.replace('"ember"', '"embers"'))
    assert engine_source.read(project / "mutants/engine/e/plain.py") == "X = 'XXnot mutmut''s XX'\n"
    wrapped = engine_source.read
    plugin.read_sources_as_made(project / "mutants")  # a second pytest run in mutmut's process: not wrapped twice
    assert engine_source.read is wrapped


def test_the_copy_gets_every_file_mutmut_does_not_mutate_up_to_date(tmp_path: Path) -> None:
    root, copy = tmp_path / "project", tmp_path / "project" / "mutants"
    for name, text in {"pkg/code.py": "x = 1\n", "pkg/page.html": "new", "tests/test_a.py": "new",
                       "examples/e.yaml": "new", "README.md": "new"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    for name, text in {"pkg/code.py": "x = 1  # mutated\n", "pkg/page.html": "old", "tests/test_a.py": "old"}.items():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / name).write_text(text)
    changed = M.refresh_copies(root, copy, ["pkg"], ["tests", "examples", "README.md", "missing"])
    assert changed == ["pkg/page.html", "tests/test_a.py", "examples/e.yaml", "README.md"]
    assert (copy / "pkg/code.py").read_text() == "x = 1  # mutated\n"  # mutmut's own: never overwritten
    assert [(copy / name).read_text() for name in ("pkg/page.html", "tests/test_a.py", "README.md")] == ["new"] * 3
    assert M.refresh_copies(root, copy, ["pkg"], ["tests", "examples", "README.md"]) == []


def test_the_copy_gets_the_sources_links_to_folders(tmp_path: Path) -> None:
    """``rulepress/samples -> ../samples`` is how the wheel ships the samples: mutmut's copy lacked it, so the wheel a
    test built from the copy had no samples (``rulepress new --from kuhn-poker``: "invalid choice")."""
    root, copy = tmp_path / "project", tmp_path / "project" / "mutants"
    (root / "samples" / "kuhn").mkdir(parents=True)
    (root / "samples" / "kuhn" / "book.yaml").write_text("id: kuhn\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "samples").symlink_to("../samples")
    (copy / "pkg").mkdir(parents=True)
    assert M.refresh_copies(root, copy, ["pkg"], ["samples"]) == ["pkg/samples", "samples/kuhn/book.yaml"]
    assert os.readlink(copy / "pkg" / "samples") == "../samples"
    assert (copy / "pkg" / "samples" / "kuhn" / "book.yaml").read_text() == "id: kuhn\n"
    assert M.refresh_copies(root, copy, ["pkg"], ["samples"]) == []


def test_a_second_campaign_on_the_same_copy_is_refused(tmp_path: Path) -> None:
    lock = tmp_path / "mutants" / "rulepress-campaign.lock"
    with M.campaign_lock(lock):
        with pytest.raises(M.MutantsError, match=rf"already running on .*mutants/ \(pid {os.getpid()}\)"):
            with M.campaign_lock(lock):
                pass
    with M.campaign_lock(lock):  # released afterwards
        pass


def test_a_verdict_mutmut_forgot_is_given_back_while_its_function_is_unchanged() -> None:
    assert M.function_of("engine.lantern.solver.x__serve__mutmut_12") == "x__serve"
    assert M.function_of("engine.lantern.solver.x\u01c1Solver\u01c1solve__mutmut_3") == "x\u01c1Solver\u01c1solve"
    record = {"a.x_f__mutmut_1": ["killed", "h1"], "a.x_g__mutmut_1": ["survived", "h2"],
              "a.x_h__mutmut_1": ["killed", "old"]}
    seen = {"a.x_f__mutmut_1": ("not checked", "h1"),  # forgotten: given back
            "a.x_g__mutmut_1": ("killed", "h2"),  # decided again: today's verdict wins
            "a.x_h__mutmut_1": ("not checked", "new"),  # its function changed: to be run again
            "a.x_k__mutmut_1": ("timeout", "h4")}
    statuses, kept = M.cached_verdicts(seen, record)
    assert statuses == {"a.x_f__mutmut_1": "killed", "a.x_g__mutmut_1": "killed", "a.x_h__mutmut_1": "not checked",
                        "a.x_k__mutmut_1": "timeout"}
    assert kept["a.x_g__mutmut_1"] == ["killed", "h2"] and kept["a.x_k__mutmut_1"] == ["timeout", "h4"]
    assert kept["a.x_h__mutmut_1"] == ["killed", "old"]  # kept, but never matches the new hash


def test_mutation_runs_take_every_test_the_suite_runs_and_no_list_of_names() -> None:
    """No hand-kept selection: mutmut runs pytest's own test paths, and nothing in its arguments picks or drops
    a test by name (a test that cannot run there carries the outside_mutmut marker instead)."""
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    mutmut = data["mutmut"]
    assert mutmut["pytest_add_cli_args_test_selection"] == data["pytest"]["ini_options"]["testpaths"]
    arguments = mutmut["pytest_add_cli_args"] + mutmut["pytest_add_cli_args_test_selection"]
    assert not [a for a in arguments if a.startswith(("--deselect", "-k", "--ignore", "-m")) or a.endswith(".py")]


def test_every_file_of_the_project_a_test_reads_is_in_the_mutated_copy() -> None:
    """The stats run is the whole suite inside mutmut's copy: a file of the project's root that a test reads
    (``ROOT / "constraints.txt"``) and the copy lacks stops it (the sixth stop, seed 1389390472).  mutmut copies
    its source paths, pyproject.toml and ``also_copy``; the tests' own folder is copied by the driver."""
    import re
    import tomllib

    mutmut = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    copied = {*mutmut["source_paths"], *mutmut["also_copy"], "pyproject.toml", "tests"}
    named = {found for path in sorted((ROOT / "tests").glob("*.py"))
             for found in re.findall(r'ROOT / "([\w.-]+)"', path.read_text(encoding="utf-8"))}
    assert {"constraints.txt", "pyproject.toml", "samples"} <= named
    assert sorted(named - copied) == []


def test_the_plugin_leaves_out_exactly_the_tests_marked_outside_mutmut() -> None:
    plugin = _load("mutmut_plugin")

    class Item:
        def __init__(self, name: str, marked: bool) -> None:
            self.name, self.marked = name, marked

        def get_closest_marker(self, name: str) -> object | None:
            return object() if self.marked and name == plugin.OUTSIDE else None

    class Hook:
        left_out: list[Item] = []

        def pytest_deselected(self, items: list[Item]) -> None:
            self.left_out += items

    class Config:
        hook = Hook()

    items = [Item("a", False), Item("ctrl-c", True), Item("b", False)]
    plugin.pytest_collection_modifyitems(Config(), items)  # type: ignore[arg-type]
    assert [item.name for item in items] == ["a", "b"]
    assert [item.name for item in Config.hook.left_out] == ["ctrl-c"]


# mutmut 3.8.1's (the pinned version's) record of the mutant under test, as mutmut/mutation/trampoline.py has it.
TRAMPOLINE_STATE = '''
import os
_mutant_under_test = None
def set_mutant_under_test(name):
    global _mutant_under_test
    _mutant_under_test = name
    if name is not None:
        os.environ["MUTANT_UNDER_TEST"] = name
def get_mutant_under_test():
    if "MUTANT_UNDER_TEST" in os.environ:
        return os.environ["MUTANT_UNDER_TEST"]
    return _mutant_under_test if _mutant_under_test is not None else ""
'''


@pytest.mark.outside_mutmut(reason="puts a stand-in for mutmut's trampoline module first on its child's path, where "
                                    "the mutated copy's modules import mutmut's own")
@pytest.mark.parametrize(("under_test", "here", "child"), [
    ("stats", "stats", "None"),  # the stats run: counted here, the code as it is in a child
    ("engine.lantern.game.x_apply__mutmut_3", "engine.lantern.game.x_apply__mutmut_3",
     "engine.lantern.game.x_apply__mutmut_3")])  # a mutant run: the mutant everywhere
def test_in_the_stats_run_a_tests_child_process_runs_the_code_as_it_is(
        tmp_path: Path, under_test: str, here: str, child: str) -> None:
    fake = tmp_path / "mutmut" / "mutation"
    fake.mkdir(parents=True)
    (tmp_path / "mutmut" / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "trampoline.py").write_text(TRAMPOLINE_STATE)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        import os, subprocess, sys
        sys.path[:0] = [{str(tmp_path)!r}, "."]
        from mutmut.mutation import trampoline
        from tools.mutmut_plugin import stats_stay_in_this_process
        trampoline.set_mutant_under_test({under_test!r})
        print(stats_stay_in_this_process(), trampoline.get_mutant_under_test())
        print(subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('MUTANT_UNDER_TEST'))"],
                             capture_output=True, text=True, check=True).stdout.strip())
    """)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(under_test == "stats"), here, child]
