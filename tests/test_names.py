"""One verb family for caching (HOUSE.md, "Names"): what is cached says ``cache``/``cached``.

``store.cached_data`` (on disk and in the process), ``store.cached_in_process`` and ``store.clear_process_cache``,
``cached_replay``, ``cached_impacts`` / ``impacts_cached``, ``cached_site`` / ``cache_site``, ``cached_closure``.
The names the code used before (``kept_data``, ``keep_site``, ``impacts_kept``, ``remembered``, ...) are retired:
this test fails if one comes back, in the code, the tests, the tools or the docs.  What a seat *remembers* is
another thing (hidden information, rulepress/memory.py, the base class's ``remember``) and keeps its own words.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import rulepress.basegame
import rulepress.memory
import rulepress.store

from .conftest import ROOT

# retired name -> the name that replaced it
RETIRED = {
    "kept_data": "store.cached_data",
    "remembered": "store.cached_in_process",
    "keep_site": "sitestore.cache_site",
    "impacts_kept": "impact.impacts_cached",
    "kept_closure": "closure.cached_closure",
    "_KeptTemplates": "incremental._CachedTemplates",
    "_keep_compiled": "usercache.write",
    "GAMES_KEPT": "replay.GAMES_CACHED",
    "PLACEMENTS_KEPT": "last_lantern.legal.PLACEMENTS_CACHED",
    "REROLLS_KEPT": "lantern.solver.REROLLS_CACHED",
}
RETIRED_IN_STORE = {**{name: RETIRED[name] for name in ("kept_data", "remembered")},
                    "forget": "store.clear_process_cache"}
# A def or class named in an old family (``keep_x``, ``x_kept``, ``KeptX``, ``remembered``), retired or new.
OLD_FAMILY = re.compile(r"^_?(keep|kept)_|_kept$|^_?Kept[A-Z]|remembered")
CODE = [path for folder in ("rulepress", "engine", "samples", "tools", "benchmarks", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "vendor" not in path.relative_to(ROOT).parts and path != Path(__file__)] + [ROOT / "noxfile.py"]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "rulepress" / "guides").glob("*.md"))]
IN_PROSE = re.compile(r"\b(?:" + "|".join(name for name in RETIRED if name != "remembered") + r")\b"
                      r"|\bstore\.(?:remembered|forget)\b")


def retired_in_code(path: Path) -> list[str]:
    """``file:line: name`` for each retired name a Python file uses as a name (not in its strings or comments), and
    each def or class it names in an old caching family (not a test: its name is a sentence)."""
    source = path.read_text(encoding="utf-8")
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    found = [f"{where}:{token.start[0]}: {token.string} (now {RETIRED[token.string]})"
             for token in tokenize.generate_tokens(io.StringIO(source).readline)
             if token.type == tokenize.NAME and token.string in RETIRED]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "store" \
                and node.attr in RETIRED_IN_STORE:
            found.append(f"{where}:{node.lineno}: store.{node.attr} (now {RETIRED_IN_STORE[node.attr]})")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and OLD_FAMILY.search(node.name) \
                and node.name not in RETIRED and not node.name.startswith("test_"):  # a test's name is a sentence
            found.append(f"{where}:{node.lineno}: {node.name} (a caching name says cache/cached)")
    return found


def retired_in_prose(page: Path) -> list[str]:
    where = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    return [f"{where}:{number}: {match.group(0)}"
            for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
            for match in IN_PROSE.finditer(line)]


def test_no_retired_caching_name_in_the_code() -> None:
    found = [line for path in CODE for line in retired_in_code(path)]
    assert not found, "retired caching names:\n" + "\n".join(found)


def test_no_retired_caching_name_in_the_docs() -> None:
    found = [line for page in PAGES for line in retired_in_prose(page)]
    assert not found, "retired caching names:\n" + "\n".join(found)


def test_the_store_exports_only_the_cache_family() -> None:
    assert not [name for name in RETIRED_IN_STORE if hasattr(rulepress.store, name)]
    assert all(callable(getattr(rulepress.store, name)) for name in
               ("cached_data", "cached_in_process", "clear_process_cache"))


def test_what_a_seat_remembers_keeps_its_own_words() -> None:
    """Hidden information is not caching: the memory's verbs are not renamed with the cache's."""
    assert all(callable(getattr(rulepress.memory, name)) for name in ("reveal", "forget", "recall", "recall_pile"))
    assert callable(rulepress.basegame.BaseGame.remember)


def test_the_checks_find_a_retired_name(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text('"""kept_data in a docstring is prose."""\nfrom rulepress import store\n\n\n'
                      "def keep_pages() -> None:\n    store.kept_data(1)  # kept_data\n    store.forget()\n"
                      "    store.clear_process_cache()\n\n\ndef keep(x: int) -> int:\n    return x\n\n\n"
                      "def test_a_failed_replay_is_never_kept() -> None:\n    pass\n")
    assert sorted(retired_in_code(module)) == [
        f"{module}:5: keep_pages (a caching name says cache/cached)",
        f"{module}:6: kept_data (now store.cached_data)",
        f"{module}:6: store.kept_data (now store.cached_data)",
        f"{module}:7: store.forget (now store.clear_process_cache)",
    ]
    page = tmp_path / "page.md"
    page.write_text("Kept sites are `sitestore.cache_site`'s.\n"
                    "Old: `keep_site`, `store.remembered`; a seat remembered.\n")
    assert retired_in_prose(page) == [f"{page}:2: keep_site", f"{page}:2: store.remembered"]
