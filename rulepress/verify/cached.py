"""What the gate keeps in the store (:mod:`rulepress.store`), and what each is made from.

- a replay, with its diagrams and narration in every language: the example file, the engine's files, the book's
  ``book.yaml`` and ``components.yaml``, the options and the flags (and rulepress's own code, as every key);
- the engine's narration catalogs' problems: the engine's files (its catalogs are inside it).

Only a replay that passed is kept: a failure may be a time limit on a loaded machine.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from rulepress import i18n
from rulepress.load.book import Book
from rulepress.load.examples import Example
from rulepress.store import Store, code_digest, declare, kept_data, key_of, watched_digest
from rulepress.verify.replay import ExampleResult, engine_folder, replay

REPLAYS = declare("replay", keep=5000)
CATALOGS = declare("catalogs", keep=100)


def replay_inputs(book: Book, engine: ModuleType) -> str:
    """What every replay of a book reads besides its example: the engine's files, ``book.yaml`` and
    ``components.yaml`` (worked out once for all of a book's examples: it lists every engine file)."""
    source = book.root / "rules_src" / book.id
    inputs = [(source / name).read_bytes() if (source / name).is_file() else b"" for name in
              ("book.yaml", "components.yaml")]
    return key_of(watched_digest(engine_folder(engine, book)), *inputs)


def replay_key(example: Example, book: Book, engine: ModuleType, draw: bool, prose: bool,
               options: Mapping[str, Any] | None, shared: str | None = None) -> str:
    """``shared``: :func:`replay_inputs` of the book, when the caller has it."""
    return key_of(code_digest(), example.file, (book.root / example.file).read_bytes(),  # a relative path
                  shared or replay_inputs(book, engine),
                  json.dumps(dict(options or {}), sort_keys=True, default=repr), f"draw={draw} prose={prose}")


def cached_replay(example: Example, book: Book, engine: ModuleType, *, draw: bool = True, prose: bool = True,
                  options: Mapping[str, Any] | None = None, store: Store | None = None,
                  shared: str | None = None) -> ExampleResult:
    """:func:`~rulepress.verify.replay.replay`, reusing the result of the same inputs when it passed
    (``shared``: :func:`replay_inputs` of the book, when the caller has it)."""
    store = store or Store(book.root)
    if not store.enabled:  # RULEPRESS_CACHE=0: no key to work out
        return replay(example, book, engine, draw=draw, prose=prose, options=options)
    try:
        key = replay_key(example, book, engine, draw, prose, options, shared)
    except OSError:  # the example vanished under us: replay reports it
        return replay(example, book, engine, draw=draw, prose=prose, options=options)
    found = store.load(REPLAYS, key, _result)
    if found is not None:
        return replace(found, example=example)
    result = replay(example, book, engine, draw=draw, prose=prose, options=options)
    if result.ok:  # a failure may be a time limit on a loaded machine: never remember one
        try:
            store.put(REPLAYS, key, pickle.dumps(replace(result, example=None), protocol=5))
        except Exception:  # an engine snapshot that does not pickle is just not cached
            pass
    return result


def _result(data: bytes) -> ExampleResult:
    found = pickle.loads(data)
    if not isinstance(found, ExampleResult):
        raise TypeError(f"a {type(found).__name__}, not a replay")
    return found


def catalog_problems(folder: Path, languages: list[str], root: Path) -> list[str]:
    """:func:`rulepress.i18n.catalog_problems` (Babel extracting every engine file), read again only when a file
    of the engine (its catalogs are inside it) changed."""
    key = key_of(str(folder), str(root), json.dumps(languages), watched_digest(folder))
    found: list[str] = kept_data(root, CATALOGS, key, lambda: i18n.catalog_problems(folder, languages, root))
    return found
