"""Simulations on Dask: a local cluster by default, or an existing scheduler (``--scheduler ADDRESS``).

Games are cut into chunks of :data:`CHUNK` games whatever the number of workers, and every game's seed is
derived from the run's seed, the configuration's label and the game's index alone (:func:`game_seed`), so a
run gives the same games, in the same order, on 1 worker, 2 workers or a cluster.  Results come back in
chunk order, so anything summed or averaged over them is identical too.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from rulepress.errors import SourceError

CHUNK = 100
"""Games per task: enough that scheduling (a few ms per task) stays under 1% of the work, few enough that two
workers share even a 1000-game run evenly."""

T = TypeVar("T")


def game_seed(base: int, label: str, index: int) -> int:
    """The seed of game ``index`` of configuration ``label``: independent of chunking and of workers."""
    digest = hashlib.sha256(f"{base}\x00{label}\x00{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # 63 bits: a valid seed for every engine


def chunks(games: int, size: int = CHUNK, first: int = 0) -> list[range]:
    """Game indices ``first..games-1`` in consecutive ranges of ``size`` (the last may be shorter): playing on
    from ``first`` gives the same games as playing them all at once."""
    return [range(start, min(start + size, games)) for start in range(first, games, size)]


class Pool:
    """Where chunks run: a Dask client, or this process when ``client`` is None (workers=0: tests, debugging)."""

    def __init__(self, client: Any | None, workers: int) -> None:
        self.client = client
        self.workers = workers

    def map(self, function: Callable[..., T], tasks: Sequence[tuple[Any, ...]],
            progress: Callable[[int], None] | None = None, sizes: Sequence[int] | None = None) -> list[T]:
        """``function(*task)`` for every task, results in task order; ``progress(size)`` as each finishes."""
        if self.client is None:
            results = []
            for number, task in enumerate(tasks):
                results.append(function(*task))
                if progress:
                    progress(sizes[number] if sizes else 1)
            return results
        from distributed import as_completed

        futures = [self.client.submit(function, *task, pure=False) for task in tasks]
        index = {future.key: number for number, future in enumerate(futures)}
        try:
            for future in as_completed(futures, loop=self.client.loop):
                if progress:
                    progress(sizes[index[future.key]] if sizes else 1)
            return self.client.gather(futures)
        finally:
            for future in futures:
                future.release()


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


@contextmanager
def pool(workers: int | None = None, scheduler: str | None = None) -> Iterator[Pool]:
    """A Dask pool: connect to ``scheduler`` (``tcp://host:port``) or start a local cluster of ``workers``
    processes (one thread each: the engines are pure Python, threads would only share the GIL).

    ``workers=0`` (and no scheduler) runs in this process, without Dask.  A scheduler that cannot be reached
    is a :class:`SourceError` naming the address, not a traceback.
    """
    if scheduler is None and workers == 0:
        yield Pool(None, 0)
        return
    from distributed import Client, LocalCluster

    for name in ("distributed", "distributed.worker", "distributed.scheduler", "distributed.nanny"):
        logging.getLogger(name).setLevel(logging.ERROR)  # a user sees findings, not cluster chatter
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=10, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise SourceError("--scheduler", None, f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        try:
            yield Pool(client, len(client.scheduler_info().get("workers", {})))
        finally:
            client.close()
        return
    count = workers or default_workers()
    # ":0": any free port for the scheduler's HTTP endpoint (None still tries 8787, which another run may hold).
    with LocalCluster(n_workers=count, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster, set_as_default=False) as client:
        yield Pool(client, count)
