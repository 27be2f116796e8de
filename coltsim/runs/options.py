"""How games are run, checked once: the seed, the number of games, the workers, the backend, the
chunk size, the output folder, and what the results tables can store.

The runner, experiments, tournaments, traces and the command line all check these values here;
every problem is a :class:`coltsim.setting.FieldError` naming the field and, for a number, its
bounds.  The upper bounds keep a typing slip from starting a run that can never finish or that
exhausts the machine: a billion games per setting (2.5 hours of random players on 2 cores,
20,000 chunks of the default size), 20,000 chunks per setting (the manifest records each), ten
million games in memory (a few GB of tables), and four workers per available core of this
machine (processes or threads beyond that only cost memory).

Plain Python: checking a run loads no compiled code.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..setting import FieldError, Setting
from ..words import did_you_mean

BACKENDS = ("loky", "threading", "dask")  # joblib processes, threads, a Dask cluster
MAX_GAMES = 10**9  # per setting
MAX_GAMES_IN_MEMORY = 10**7  # coltsim.simulate keeps every row in memory
# A run's chunks by default: at least CHUNKS_WANTED of them, so that the games of one setting
# keep every core of the machine busy to the end (a chunk is one worker's), of at least
# MIN_CHUNK_SIZE games (a run grown from a small first one stays under MAX_CHUNKS) and at most
# DEFAULT_CHUNK_SIZE (memory per worker).
DEFAULT_CHUNK_SIZE = 50_000
MIN_CHUNK_SIZE = 500
CHUNKS_WANTED = 16
MAX_CHUNK_SIZE = 10_000_000
# A chunk whose games take longer than CHUNK_SECONDS on one worker is played in pieces of about
# that long (the runner times one game first), so that a progress bar moves every few seconds
# whatever the policies; its file is the same.
CHUNK_SECONDS = 5.0
MAX_CHUNKS = 20_000  # per setting: the manifest records every chunk (a few MB)
WORKERS_PER_CORE = 4  # the most local workers (processes or threads) per available core
MAX_DASK_WORKERS = 10_000  # tasks in flight on a Dask cluster
MAX_STORED_NEUTRAL_BULLETS = 127  # the games table stores neutral_left as int8


def _is_int(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, np.integer))


def check_seed(seed, field: str = "seed") -> int:
    """A master seed (or a game index): an integer from 0 to 2**63 - 1."""
    if not _is_int(seed) or not 0 <= seed < 2**63:
        raise FieldError(field, f"must be an integer from 0 to 2**63 - 1, got {seed!r}")
    return int(seed)


def check_count(value, field: str, hi: int) -> int:
    """An integer from 1 to ``hi``."""
    if not _is_int(value) or not 1 <= value <= hi:
        raise FieldError(field, f"must be an integer from 1 to {hi:,}, got {value!r}")
    return int(value)


def check_games(games) -> int:
    return check_count(games, "games", MAX_GAMES)


def check_games_in_memory(games) -> int:
    """Games of a run kept in memory (``coltsim.simulate``)."""
    if _is_int(games) and MAX_GAMES_IN_MEMORY < games <= MAX_GAMES:
        raise FieldError("games", f"at most {MAX_GAMES_IN_MEMORY:,} games are kept in memory, "
                                  f"got {games:,}; write more to disk with "
                                  "coltsim.simulate_to_folder")
    return check_games(games)


def check_chunk_size(chunk_size) -> int | None:
    """Games per chunk; None: the default (or, resuming, the saved run's)."""
    return None if chunk_size is None else check_count(chunk_size, "chunk_size", MAX_CHUNK_SIZE)


def default_chunk_size(games: int) -> int:
    """The chunk size of a new run of ``games`` games: ``CHUNKS_WANTED`` chunks or more, each of
    ``MIN_CHUNK_SIZE`` to ``DEFAULT_CHUNK_SIZE`` games (the chunking never changes a game).

    >>> default_chunk_size(3_000), default_chunk_size(50_000), default_chunk_size(10**7)
    (500, 3125, 50000)
    """
    return min(DEFAULT_CHUNK_SIZE, max(MIN_CHUNK_SIZE, -(-games // CHUNKS_WANTED)))


def check_chunk_count(games: int, chunk_size: int) -> None:
    """At most ``MAX_CHUNKS`` chunks per setting."""
    if -(-games // chunk_size) > MAX_CHUNKS:
        least = -(-games // MAX_CHUNKS)
        raise FieldError("chunk_size", f"{games:,} games in chunks of {chunk_size:,} make more "
                                       f"than {MAX_CHUNKS:,} chunks; use chunk_size >= {least:,}")


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def max_workers(backend: str = "loky") -> int:
    """The most workers a run may ask for: ``WORKERS_PER_CORE`` per available core of this
    machine (processes or threads), or ``MAX_DASK_WORKERS`` tasks on a Dask cluster."""
    return MAX_DASK_WORKERS if backend == "dask" else WORKERS_PER_CORE * available_cores()


def check_workers(workers, backend: str = "loky") -> int | None:
    """Parallel workers: an integer from 1 to :func:`max_workers`, or None for every available
    core."""
    if workers is None:
        return None
    hi = max_workers(backend)
    if not _is_int(workers) or not 1 <= workers <= hi:
        where = ("on a Dask cluster" if backend == "dask" else
                 f"on this machine ({WORKERS_PER_CORE} per available core)")
        raise FieldError("workers", f"must be an integer from 1 to {hi:,} {where}; leave it out "
                                    f"for every core, got {workers!r}")
    return int(workers)


def check_folder(folder, field: str = "folder") -> Path:
    """A folder path: a non-empty string or ``os.PathLike``."""
    if isinstance(folder, os.PathLike) or (isinstance(folder, str) and folder.strip()
                                           and "\0" not in folder):
        return Path(folder)
    raise FieldError(field, f"must be a folder path, got {folder!r}")


def check_backend(backend, scheduler=None) -> str:
    """``loky`` (processes), ``threading`` or ``dask`` (with ``scheduler`` or a running
    ``dask.distributed`` client)."""
    if backend not in BACKENDS:
        raise FieldError("backend", f"unknown backend {backend!r}; allowed: "
                                    f"{', '.join(BACKENDS)}{did_you_mean(backend, BACKENDS)}")
    if scheduler is not None:
        if backend != "dask":
            raise FieldError("scheduler", f"only used with backend 'dask' (backend is "
                                          f"{backend!r})")
        if not isinstance(scheduler, str) or not scheduler:
            raise FieldError("scheduler", f"must be an address such as \"tcp://host:8786\", "
                                          f"got {scheduler!r}")
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise FieldError("backend", "'dask' needs dask.distributed: "
                                        "pip install 'coltsim[dask]'") from None
    return backend


def check_storable(setting: Setting) -> None:
    """What the results tables cannot hold (a trace can still play it)."""
    n = setting.rules.neutral_bullets
    if n > MAX_STORED_NEUTRAL_BULLETS:
        raise FieldError("rules", f"rule option neutral_bullets must be at most "
                                  f"{MAX_STORED_NEUTRAL_BULLETS} for a run (results store "
                                  f"neutral_left as int8), got {n}")
