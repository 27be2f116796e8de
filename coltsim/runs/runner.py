"""The batch runner: many games of one setting, in parallel, reproducible, resumable.

A run is a setting (coltsim.setting), a master seed and a number of games.  Games are cut into
chunks of consecutive game indices; each chunk is played in a joblib worker (loky processes,
threads, or a Dask cluster) by coltsim.runs.chunk.  Game ``g`` depends only on (seed, g), so
the data never depends on the number of workers, the chunk size or the backend.

Two public functions, one per job:

- :func:`simulate` plays in memory and returns the :class:`~coltsim.results.Results`;
- :func:`simulate_to_folder` writes each finished chunk at once (coltsim.runs.storage), so
  memory stays bounded and an interrupted run, started again with the same arguments, computes
  only the missing chunks; it returns a :class:`RunInfo`.

The manifest records the hash of the compiled sources (``engine``): results made by other
compiled code are never mixed in one folder.
"""
from __future__ import annotations

import contextlib
import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path


from .. import __version__
from .. import constants as K
from ..policies import resolve_policies
from ..results import Results
from ..setting import Setting
from . import chunk as C
from . import storage
from .options import (
    DEFAULT_CHUNK_SIZE, available_cores, check_backend, check_chunk_size, check_games, check_seed,
    check_storable, check_workers,
)


def engine_hash() -> str:
    """Hash of the compiled sources: results of two runs can be mixed only if it is equal."""
    from .._sources import source_hash

    return source_hash()


def manifest_header() -> dict:
    """What a manifest records about the code that made the results."""
    return {"format": storage.MANIFEST_FORMAT, "coltsim_version": __version__,
            "rules_version": K.RULES_VERSION, "engine": engine_hash()}


@dataclass(frozen=True)
class RunInfo:
    """What :func:`simulate_to_folder` did."""

    folder: Path
    setting_id: str
    games: int
    chunks: int
    chunks_run: int  # chunks computed by this call (the others were already on disk)
    games_run: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games_run / self.seconds if self.seconds > 0 else float("nan")


# --- backends -----------------------------------------------------------------------------------
@contextlib.contextmanager
def _backend_context(backend: str, workers: int, scheduler):
    from joblib import parallel_config

    if backend != "dask":
        with parallel_config(backend=backend, n_jobs=workers):
            yield
        return
    import distributed

    if scheduler is None:
        try:
            distributed.get_client()
        except ValueError as e:
            raise ValueError("backend 'dask' needs scheduler='tcp://HOST:PORT' or a running "
                             "dask.distributed Client") from e
        client = None
    else:
        try:
            client = distributed.Client(scheduler, set_as_default=False, timeout="20s")
        except OSError as e:
            raise ValueError(f"cannot reach the Dask scheduler {scheduler}: {e}") from e
    try:
        with parallel_config(backend="dask", n_jobs=workers,
                             **({} if client is None else {"client": client})):
            yield
    finally:
        if client is not None:
            client.close()


def _play_chunks(job: C.ChunkJob, chunks, chunk_size: int, games: int, backend: str,
                 workers: int, scheduler, on_done) -> None:
    """Run ``chunks`` over the workers; ``on_done(chunk, n, tables)`` as each one finishes."""
    from joblib import Parallel, delayed

    tasks = (delayed(C.run_chunk)(job, c, c * chunk_size, min(chunk_size, games - c * chunk_size))
             for c in chunks)
    with _backend_context(backend, workers, scheduler):
        results = Parallel(return_as="generator_unordered", batch_size=1,
                           pre_dispatch="2*n_jobs")(tasks)
        try:
            for chunk, n, failed, tables in results:
                if failed is not None:
                    raise C.failure(job.seed, *failed)
                on_done(chunk, n, tables)
        finally:
            results.close()


# --- a run --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Run:
    """A checked run: the setting, how it is played and where it goes."""

    setting: Setting
    games: int
    seed: int
    chunk_size: int | None
    workers: int
    backend: str
    scheduler: str | None
    check: bool

    @classmethod
    def make(cls, setting, games, seed, chunk_size, workers, backend, scheduler, check):
        if not isinstance(setting, Setting):
            raise ValueError(f"setting must be a coltsim Setting (coltsim.make_setting), "
                             f"got {setting!r}")
        check_storable(setting)
        backend = check_backend(backend, scheduler)
        workers = check_workers(workers)
        if workers is None:
            workers = -1 if backend == "dask" else available_cores()
        return cls(setting, check_games(games), check_seed(seed), check_chunk_size(chunk_size),
                   workers, backend, scheduler, bool(check))

    def job(self, folder: Path | None) -> C.ChunkJob:
        s = self.setting
        seats = resolve_policies(s.players, s.policy_specs(), s.policy_params())
        return C.ChunkJob(self.seed, s.lineups(), seats.seat_policy, seats.params,
                          s.rules.to_array(), int(self.check), s.id, s.players, s.n_bandits,
                          s.policies, s.rules.rounds, None if folder is None else str(folder),
                          seats.functions)

    def play(self, job: C.ChunkJob, chunk_size: int, todo: list, progress, on_done) -> None:
        """Play the chunks ``todo``, counting games on a progress bar."""
        from tqdm.auto import tqdm

        games_todo = sum(min(chunk_size, self.games - c * chunk_size) for c in todo)
        own_bar = isinstance(progress, bool)
        if own_bar:
            bar = tqdm(total=self.games, initial=self.games - games_todo, unit="game",
                       unit_scale=True, desc=self.setting.label or self.setting.id,
                       disable=not progress, smoothing=0.05, mininterval=0.5)
        else:
            bar = progress
            bar.update(self.games - games_todo)

        def done(chunk, n, tables):
            on_done(chunk, tables)
            bar.update(n)

        try:
            if todo and self.backend == "loky" and self.workers > 1 and not job.functions:
                # Load or compile the kernel here once, so that the worker processes load it
                # from the cache rather than each compiling it.
                C.run_chunk(dataclasses.replace(job, folder=None), 0, 0, 1)
            if todo:
                _play_chunks(job, todo, chunk_size, self.games, self.backend, self.workers,
                             self.scheduler, done)
        finally:
            if own_bar:
                bar.close()


def simulate(setting: Setting, games: int, *, seed: int = 0, chunk_size: int | None = None,
             workers: int | None = None, backend: str = "loky", scheduler: str | None = None,
             check: bool = False, progress=True) -> Results:
    """Play games ``0 .. games - 1`` of ``setting`` in parallel, in memory.

    Parameters
    ----------
    setting : Setting
        What is played (``coltsim.make_setting``).
    games : int
    seed : int
        Master seed: game ``g`` depends only on (seed, g) and the setting.
    chunk_size : int, optional
        Games per chunk (default 50,000).
    workers : int, optional
        Parallel workers (default: every available core; with Dask, every worker thread).
    backend : "loky" (processes, default), "threading" or "dask"
    scheduler : str, optional
        With ``backend="dask"``: the scheduler address ``tcp://HOST:PORT`` (default: the
        current ``dask.distributed`` client).
    check : bool
        Check the engine's invariants after every step (slower).
    progress : bool or tqdm-like
        Show a progress bar (default), not (False), or report to this bar (``update(games)``),
        e.g. one bar over all settings of an experiment.

    Returns
    -------
    Results
        The ``players``, ``games`` and ``settings`` tables and the manifest of the run (only for
        runs that fit in memory: :func:`simulate_to_folder` writes the others to disk).
    """
    run = _Run.make(setting, games, seed, chunk_size, workers, backend, scheduler, check)
    chunk_size = run.chunk_size or DEFAULT_CHUNK_SIZE
    job = run.job(None)
    collected: dict = {}
    run.play(job, chunk_size, list(range(-(-run.games // chunk_size))), progress,
             lambda c, tables: collected.__setitem__(c, tables))
    order = sorted(collected)
    s = run.setting
    players, games_df = storage.to_frames([collected[c][0] for c in order],
                                          [collected[c][1] for c in order], [s.id],
                                          list(dict.fromkeys(s.policies)), s.rules.rounds)
    manifest = {**manifest_header(), "settings": {
        s.id: storage.manifest_entry(s, run.seed, run.games, chunk_size)}}
    return Results(players, games_df, storage.settings_frame(manifest), manifest)


def simulate_to_folder(setting: Setting, games: int, folder, *, seed: int = 0,
                       chunk_size: int | None = None, workers: int | None = None,
                       backend: str = "loky", scheduler: str | None = None, check: bool = False,
                       progress=True) -> RunInfo:
    """Play games ``0 .. games - 1`` of ``setting`` into ``folder``.

    Each finished chunk is written at once as two Parquet files (coltsim.runs.storage), with
    ``manifest.json``; run again with the same arguments to resume: only the missing chunks are
    played.  Read the results with ``coltsim.load_results(folder)``.  ``folder`` must be new,
    empty, or hold runs made with the same arguments; the other arguments are those of
    :func:`simulate` (``chunk_size`` defaults to the saved run's when resuming).

    Returns
    -------
    RunInfo
    """
    run = _Run.make(setting, games, seed, chunk_size, workers, backend, scheduler, check)
    folder = Path(folder)
    chunk_size = storage.prepare_folder(folder, run.setting, run.seed, run.games,
                                        run.chunk_size, manifest_header(), DEFAULT_CHUNK_SIZE)
    storage.remove_temporaries(folder, run.setting.id)
    n_chunks = -(-run.games // chunk_size)
    todo = [c for c in range(n_chunks) if not storage.chunk_done(folder, run.setting.id, c)]
    # Workers write their own chunks when they share our file system; Dask's send them back.
    job = run.job(folder if run.backend != "dask" else None)

    def on_done(chunk, tables):
        if tables is not None:
            storage.write_chunk(folder, run.setting.id, chunk, tables)

    start = time.perf_counter()
    run.play(job, chunk_size, todo, progress, on_done)
    games_run = sum(min(chunk_size, run.games - c * chunk_size) for c in todo)
    return RunInfo(folder, run.setting.id, run.games, n_chunks, len(todo), games_run,
                   time.perf_counter() - start)
