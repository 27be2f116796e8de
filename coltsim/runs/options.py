"""How games are run, checked once: the seed, the number of games, the workers, the backend, the
chunk size, and what the results tables can store.

The runner, experiments, tournaments, traces and the command line all check these values here;
every problem is a :class:`coltsim.setting.FieldError` naming the field.  Plain Python: checking
a run loads no compiled code.
"""
from __future__ import annotations

import os

import numpy as np

from ..setting import FieldError, Setting

BACKENDS = ("loky", "threading", "dask")  # joblib processes, threads, a Dask cluster
MAX_GAMES = 10**12
DEFAULT_CHUNK_SIZE = 50_000
MAX_CHUNK_SIZE = 10_000_000
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


def check_chunk_size(chunk_size) -> int | None:
    """Games per chunk; None: the default (or, resuming, the saved run's)."""
    return None if chunk_size is None else check_count(chunk_size, "chunk_size", MAX_CHUNK_SIZE)


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def check_workers(workers) -> int | None:
    """Parallel workers: a positive integer, or None for every available core."""
    if workers is not None and (not _is_int(workers) or workers < 1):
        raise FieldError("workers", f"must be a positive integer (leave it out for every "
                                    f"core), got {workers!r}")
    return None if workers is None else int(workers)


def check_backend(backend, scheduler=None) -> str:
    """``loky`` (processes), ``threading`` or ``dask`` (with ``scheduler`` or a running
    ``dask.distributed`` client)."""
    if backend not in BACKENDS:
        raise FieldError("backend", f"unknown backend {backend!r}; allowed: "
                                    f"{', '.join(BACKENDS)}")
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
