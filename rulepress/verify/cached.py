"""What the gate keeps in the store (:mod:`rulepress.store`), and what each is made from.

- a replay, with its diagrams and narration in every language: the example file, the engine's files, the book's
  ``book.yaml`` and ``components.yaml``, the options and the flags (and rulepress's own code, as every key);
- the engine's narration catalogs' problems: the engine's files (its catalogs are inside it).

Only a replay that passed is kept: a failure may be a time limit on a loaded machine.  A replay is kept as data
(:mod:`rulepress.codec`: its records, their snapshots, diagrams and positions), never a pickle: reading the store
runs nothing, whatever it holds.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import signal
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from rulepress import account, environment, i18n
from rulepress.codec import Codec, CodecError
from rulepress.load.book import Book
from rulepress.load.examples import Example
from rulepress.protocol import EngineSpec
from rulepress.store import Store, cached_data, code_digest, declare, key_of, watched_digest
from rulepress.verify.frames import StepFrame
from rulepress.verify.limits import replay_seconds
from rulepress.verify.replay import Checkpoint, ExampleResult, TranscriptLine, replay

REPLAYS = declare("replay", keep=5000)
RESULTS = Codec({"replay:ExampleResult": ExampleResult, "replay:Checkpoint": Checkpoint,
                 "replay:TranscriptLine": TranscriptLine, "replay:StepFrame": StepFrame})
"""What a kept replay is written with: its own records and plain data (a frame's position is already JSON text)."""
CATALOGS = declare("catalogs", keep=100)


def replay_inputs(book: Book, engine: EngineSpec) -> str:
    """What every replay of a book reads besides its example: the engine's files, ``book.yaml`` and
    ``components.yaml`` (worked out once for all of a book's examples: it lists every engine file)."""
    source = book.root / "rules_src" / book.id
    inputs = [(source / name).read_bytes() if (source / name).is_file() else b"" for name in
              ("book.yaml", "components.yaml")]
    return key_of(watched_digest(book.root / "engine" / book.engine_package), *inputs)


def replay_key(example: Example, book: Book, engine: EngineSpec, draw: bool, prose: bool,
               options: Mapping[str, Any] | None, shared: str | None = None) -> str:
    """``shared``: :func:`replay_inputs` of the book, when the caller has it."""
    return key_of(code_digest(), example.file, (book.root / example.file).read_bytes(),  # a relative path
                  shared or replay_inputs(book, engine),
                  json.dumps(dict(options or {}), sort_keys=True, default=repr), f"draw={draw} prose={prose}")


def cached_replay(example: Example, book: Book, engine: EngineSpec, *, draw: bool = True, prose: bool = True,
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
            store.put(REPLAYS, key, RESULTS.pack(replace(result, example=None)))
        except CodecError:  # a snapshot holding what is not data is just not kept
            pass
    return result


MEANWHILE = 4  # replays the store lacks before half of them are made by a second process


def replay_all(examples: list[Example], book: Book, engine: EngineSpec, *, draw: bool = True,
               shared: str | None = None, shown: Callable[[Iterable[Example]], Iterable[Example]] = iter,
               ) -> list[ExampleResult]:
    """Every example's :func:`cached_replay`, in their order (``shown``: wraps the examples this process goes
    through, for a progress bar).

    When the store lacks several replays and this process may use a second core, a forked process makes every
    other one of them meanwhile, into the store: a cold verification then takes both cores (the build has
    nothing else to do until it is done).  This process makes the rest, waits, and takes those from the store;
    any that process did not leave there (it failed, or an example did not pass) it replays itself, so the
    results, and the messages of a failing example, are the same either way.
    """
    store = Store(book.root)
    missing = []
    if store.enabled and (environment.jobs() or len(os.sched_getaffinity(0))) > 1:
        for index, example in enumerate(examples):
            try:
                key = replay_key(example, book, engine, draw, True, None, shared)
            except OSError:
                continue
            if not store.path(REPLAYS, key).is_file():
                missing.append(index)
    theirs = set(missing[1::2]) if len(missing) >= MEANWHILE else set()
    helper = None
    before = _children_cpu()
    if theirs:
        helper = multiprocessing.get_context("fork").Process(
            target=_replay_into_store, args=([examples[i] for i in sorted(theirs)], book, engine, draw, shared),
            daemon=True)
        helper.start()
    results: dict[int, ExampleResult] = {}
    started = time.perf_counter()
    try:
        mine = [(index, example) for index, example in enumerate(examples) if index not in theirs]
        for index, example in zip([i for i, _ in mine], shown([example for _, example in mine]), strict=True):
            results[index] = cached_replay(example, book, engine, draw=draw, shared=shared, store=store)
        if helper is not None:
            # Its half takes about as long as this one's did.  Waited for twice that (and a little), never past
            # the replays' own bounds: a helper stuck (a lock another thread of a server held when it was forked)
            # costs a wait, then this process makes its replays too.
            spent = time.perf_counter() - started
            helper.join(timeout=min(2 * spent + 2.0, replay_seconds() * (len(theirs) + 1)))
    finally:
        if helper is not None and helper.is_alive():
            helper.terminate()
            helper.join()
        if helper is not None:  # reaped now: its CPU is this process's children's
            account.add({"verify: replays made meanwhile (a forked process)": _children_cpu() - before})
    for index in sorted(theirs):
        results[index] = cached_replay(examples[index], book, engine, draw=draw, shared=shared, store=store)
    return [results[index] for index in range(len(examples))]


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _replay_into_store(examples: list[Example], book: Book, engine: EngineSpec, draw: bool,
                       shared: str | None) -> None:
    """In the forked process: Ctrl-C is the verifying process's to handle (it ends this one), and nothing is said
    (whatever goes wrong is found again, and said, by the verifying process)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    for example in examples:
        cached_replay(example, book, engine, draw=draw, shared=shared)


def _result(data: bytes) -> ExampleResult:
    found = RESULTS.unpack(data)
    if not isinstance(found, ExampleResult):
        raise TypeError(f"a {type(found).__name__}, not a replay")
    return found


def catalog_problems(folder: Path, languages: list[str], root: Path) -> list[str]:
    """:func:`rulepress.i18n.catalog_problems` (Babel extracting every engine file), read again only when a file
    of the engine (its catalogs are inside it) changed."""
    key = key_of(str(folder), str(root), json.dumps(languages), watched_digest(folder))
    found: list[str] = cached_data(root, CATALOGS, key, lambda: i18n.catalog_problems(folder, languages, root))
    return found
