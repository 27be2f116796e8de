"""The batch runner: many games of one setting, in parallel, reproducible, resumable.

A run is a setting (coltsim.setting), a master seed and a number of games.  Games are cut into
chunks of consecutive game indices; each chunk is played in a joblib worker (loky processes,
threads, or a Dask cluster) by coltsim.runs.chunk.  Game ``g`` depends only on (seed, g), so
the data never depends on the number of workers, the chunk size or the backend.

Two public functions, one per job:

- :func:`simulate` plays in memory and returns the :class:`~coltsim.results.Results`;
- :func:`simulate_to_folder` writes each finished chunk at once (coltsim.runs.storage), so
  memory stays bounded and an interrupted run, started again with the same arguments, verifies
  the chunks on disk and computes only those missing or damaged; it returns a :class:`RunInfo`.
  :func:`repair_folder` does the same for every setting a folder records.

The manifest records the hash of the compiled sources (``engine``): results made by other
compiled code are never mixed in one folder.  While it writes a folder a run holds the folder's
lock (coltsim.runs.lock); its loky worker processes ignore Ctrl-C and exit when its main
process is gone (coltsim._process.worker_started, their initializer).
"""
from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import socket
import struct
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import __version__
from .. import constants as K
from .._jit import announce_compile, compiled
from .._process import worker_started, workers_starting
from .._sources import source_hash
from ..playout import compile_unit, first_start, kernel_parts
from ..policies import catalog
from ..results import Results
from ..setting import FieldError, Setting, changed_file, make_setting
from . import chunk as C
from . import load, storage
from .progress import RunProgress
from .options import (
    CHUNK_SECONDS, available_cores, check_backend, check_chunk_size, check_folder, check_games,
    check_games_in_memory, check_seed, check_storable, check_workers, default_chunk_size,
)


SCHEDULER_TIMEOUT = 10.0  # seconds to connect to a Dask scheduler and hear from it


def manifest_header() -> dict:
    """What a manifest records about the code that made the results."""
    return {"format": storage.MANIFEST_FORMAT, "coltsim_version": __version__,
            "rules_version": K.RULES_VERSION, "engine": source_hash()}


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
def _backend_context(backend: str, workers: int):
    """joblib's configuration for the run's own machine: loky's processes (each ignoring
    Ctrl-C and watching this process: _process.worker_started) or threads."""
    from joblib import parallel_config

    workers_start = dict(initializer=worker_started, initargs=(os.getpid(),)) \
        if backend == "loky" else {}
    return parallel_config(backend=backend, n_jobs=workers, **workers_start)


@contextlib.contextmanager
def _dask_client(scheduler):
    """The Dask client of a run: one connected to ``scheduler``, or the current one."""
    import distributed

    if scheduler is None:
        try:
            client = distributed.get_client()
        except ValueError as e:
            raise ValueError("backend 'dask' needs scheduler='tcp://HOST:PORT' or a running "
                             "dask.distributed Client") from e
        yield client
        return
    try:
        client = distributed.Client(scheduler, set_as_default=False,
                                    timeout=f"{SCHEDULER_TIMEOUT}s")
    except OSError as e:  # (TimeoutError too)
        raise FieldError("scheduler", f"cannot reach the Dask scheduler {scheduler}: "
                                      f"{e}") from None
    try:
        yield client
    finally:
        client.close()


def check_scheduler(address: str) -> None:
    """Whether a Dask scheduler answers at ``address`` (``tcp://HOST:PORT`` or ``HOST:PORT``;
    other protocols are left to dask), within ``SCHEDULER_TIMEOUT`` seconds: a
    :class:`coltsim.FieldError` if nothing listens or answers there, or something else does.

    A Dask scheduler greets a client first, with one message (the length of its frames as 8
    bytes, then a small msgpack mapping naming its compression); this reads it and answers with
    the same greeting, so the scheduler sees a client that connects and leaves.  Without this,
    dask would wait for ever on a peer that says nothing (a web server), or read a reply that
    is not its own as a frame length (exabytes)."""
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return
    host, _, port = rest.rpartition(":")
    host = host.strip("[]")  # an IPv6 address
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise FieldError("scheduler", f"must be an address such as \"tcp://host:8786\", got "
                                      f"{address!r}")

    def not_dask(what: str) -> FieldError:
        return FieldError("scheduler", f"{address} is not a Dask scheduler: {what}")

    def receive(sock, n: int) -> bytes:
        data = b""
        while len(data) < n:
            part = sock.recv(n - len(data))
            if not part:
                raise not_dask(f"it closed the connection after {len(data)} bytes"
                               if data else "it closed the connection without a word")
            data += part
        return data

    try:
        sock = socket.create_connection((host, int(port)), timeout=SCHEDULER_TIMEOUT)
    except ConnectionResetError as e:  # it accepted, then reset the connection at once
        raise not_dask(f"it closed the connection ({e.strerror})") from None
    except OSError as e:  # nothing listens, no answer, no such host
        raise FieldError("scheduler", f"cannot reach the Dask scheduler {address}: "
                                      f"{e.strerror or e}") from None
    with sock:
        try:
            head = receive(sock, 8)
            (size,) = struct.unpack("<Q", head)
            if size > 1 << 16:
                raise not_dask(f"it answered {head!r}")
            greeting = receive(sock, size)
            if b"compression" not in greeting:
                raise not_dask(f"it answered {(head + greeting)[:24]!r}")
            sock.sendall(head + greeting)
        except TimeoutError:
            raise not_dask(f"it said nothing within {SCHEDULER_TIMEOUT:g} s (a Dask scheduler "
                           "greets its clients at once)") from None
        except OSError as e:
            raise not_dask(f"it closed the connection ({e.strerror or e})") from None


def play_chunks(task, job, todo: list, backend: str, workers: int, scheduler, on_done) -> None:
    """Run the chunks ``todo`` (chunk, first game, games, and any further arguments of
    ``task``) over the workers, each one ``task(job, chunk, first, n, ...) -> (chunk, first, n,
    failure, result)`` (chunk.play_part, or learn.train's recording); ``on_done(chunk, first,
    n, result)`` as each one finishes."""
    if backend == "dask":
        with _dask_client(scheduler) as client:
            _play_on_dask(client, task, job, todo, workers, on_done)
        return
    from joblib import Parallel, delayed

    tasks = (delayed(task)(job, *part) for part in todo)
    with _backend_context(backend, workers):
        with workers_starting():  # (the first tasks are dispatched, and the workers started)
            results = Parallel(return_as="generator_unordered", batch_size=1,
                               pre_dispatch="2*n_jobs")(tasks)
        try:
            for chunk, first, n, failed, result in results:
                if failed is not None:
                    raise C.failure(job.seed, *failed)
                on_done(chunk, first, n, result)
        finally:
            # A run that stops early (Ctrl-C, a failed chunk) cancels the chunks left: joblib's
            # advice to "adjust the input task iterator" then is a second line saying nothing.
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "[^\n]*You could benefit from adjusting the "
                                        "input task iterator", UserWarning)
                results.close()


def _play_on_dask(client, task, job, todo: list, workers: int, on_done) -> None:
    """:func:`play_chunks` on a Dask cluster, through its client rather than joblib (whose Dask
    backend plays in this process when the cluster has one thread): at most ``workers`` chunks
    at once (-1: twice the cluster's threads), the others submitted as those finish."""
    from distributed import as_completed

    waiting = iter(todo)
    at_once = workers if workers > 0 else 2 * max(1, sum(client.nthreads().values()))
    submitted = []

    def submit(*part):
        future = client.submit(task, job, *part, pure=False)
        submitted.append(future)
        return future

    finished = as_completed([submit(*t) for t in itertools.islice(waiting, at_once)],
                            loop=client.loop)  # (the client need not be the default one)
    try:
        for future in finished:
            chunk, first, n, failed, result = future.result()
            if failed is not None:
                raise C.failure(job.seed, *failed)
            on_done(chunk, first, n, result)
            following = next(waiting, None)
            if following is not None:
                finished.add(submit(*following))
    finally:  # a run that stops early cancels the chunks left
        client.cancel(submitted)


def chunk_job(setting: Setting, seed: int) -> C.ChunkJob:
    """The job of playing chunks of ``setting`` under ``seed`` in this process
    (``chunk.run_chunk`` returns their tables rather than writing them)."""
    return _Run.make(setting, 1, seed, None, 1, "loky", None, False).job(None)


def load_kernel(job: C.ChunkJob, say=None, workers: int = 2) -> None:
    """Load the kernel of ``job``'s table from numba's cache, or compile it (saying so first,
    with ``say``), by playing one game of it.  A first start of the engine compiles its parts
    side by side in up to ``workers`` worker processes first (playout.first_start)."""
    parts = kernel_parts("batch", job.choosers)
    with announce_compile(parts, say):
        if not compiled(parts[0]):
            from joblib import Parallel, delayed

            for units in first_start(job.choosers):
                with _backend_context("loky", min(len(units), workers)), workers_starting():
                    Parallel()(delayed(compile_unit)(unit) for unit in units)
        C.run_chunk(dataclasses.replace(job, folder=None), 0, 0, 1)


def time_one_game(job: C.ChunkJob) -> float:
    """Seconds game 0 of ``job`` takes in this process, its kernel loaded (by chunk.clock)."""
    start = C.clock()
    C.play_games(dataclasses.replace(job, folder=None), 0, 1)
    return C.clock() - start


def pieces(todo: list, games_per_piece: int | None) -> list:
    """The parts of the chunks ``todo`` (chunk, first game, games) the workers play, each
    ``(chunk, first game, games, whole)``: a chunk of more than ``games_per_piece`` games
    (None: no limit) in pieces of that many."""
    parts = []
    for c, first, n in todo:
        if games_per_piece is None or n <= games_per_piece:
            parts.append((c, first, n, True))
        else:
            parts += [(c, lo, min(games_per_piece, first + n - lo), False)
                      for lo in range(first, first + n, games_per_piece)]
    return parts


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
    def make(cls, setting, games, seed, chunk_size, workers, backend, scheduler, check,
             in_memory: bool = False):
        if not isinstance(setting, Setting):
            raise ValueError(f"setting must be a coltsim Setting (coltsim.make_setting), "
                             f"got {setting!r}")
        check_storable(setting)
        backend = check_backend(backend, scheduler)
        if scheduler is not None:
            check_scheduler(scheduler)
        workers = check_workers(workers, backend)
        if workers is None:
            workers = -1 if backend == "dask" else available_cores()
        games = (check_games_in_memory if in_memory else check_games)(games)
        return cls(setting, games, check_seed(seed), check_chunk_size(chunk_size), workers,
                   backend, scheduler, bool(check))

    def job(self, folder: Path | None, token: str = "") -> C.ChunkJob:
        s = self.setting
        seats = C.resolve_seats(s)
        return C.ChunkJob(self.seed, s.lineups(), seats.seat_policy, seats.params, seats.nets,
                          s.rules.to_array(), int(self.check), s.id, s.players, s.n_bandits,
                          s.policies, s.rules.rounds, None if folder is None else str(folder),
                          seats.choosers, seats.functions, token,
                          json.dumps(storage.chunk_holds(s.id, self.seed, s.as_dict())),
                          tuple(c.name for c in s.rules.new_cards))

    def play(self, job: C.ChunkJob, todo: list, progress, on_done) -> None:
        """Play the chunks ``todo`` (chunk, first game, games), counting games on a progress
        bar (its own, or the one given: a :class:`~coltsim.runs.progress.RunProgress` or any
        object with ``update(games)``), after saying so if the engine must be compiled.

        A chunk whose games take longer than ``CHUNK_SECONDS`` (by one game timed here first)
        is played in pieces of about that long, joined into the same chunk once all are back,
        so that the bar moves every few seconds; the bar's time left comes from this setting's
        own speed (coltsim.runs.progress)."""
        from tqdm.auto import tqdm

        say = (lambda text: tqdm.write(text, file=sys.stderr)) if progress else None
        first_game = None
        if todo and job.functions:
            if say:
                say(f"compiling a kernel with your policies "
                    f"({', '.join(p for p in self.setting.policies if ':' in p)}): "
                    "policies given as functions are compiled in every run")
        elif todo and self.backend != "dask":
            # Load or compile the kernel here once, so that the worker processes load it from
            # the cache rather than each compiling it, and the bar's rate leaves it out.
            load_kernel(job, say, self.workers if self.backend == "loky" else 1)
            if max(n for _, _, n in todo) > 1:
                first_game = time_one_game(job)
        games_todo = sum(n for _, _, n in todo)
        own_bar = isinstance(progress, bool)
        if own_bar:
            bar = RunProgress(self.games, initial=self.games - games_todo, desc=self.name(),
                              enabled=progress)
        else:
            bar = progress
            if hasattr(bar, "unpause"):
                bar.unpause()  # its clock leaves out the time spent compiling
        parts = pieces(todo, None if first_game is None else
                       max(1, int(CHUNK_SECONDS / max(first_game, 1e-9))))
        timed = isinstance(bar, RunProgress)
        if timed:  # (no more workers at once than parts to play)
            bar.start(self.setting.id, games_todo,
                      min(self.workers, len(parts)) if self.workers > 0 else -1, first_game)
        chunks = {c: (first, n) for c, first, n in todo}
        waiting: dict = {}  # chunk -> {first game: arrays} of its pieces back so far

        def done(chunk, first, n, result):
            seconds, result = result
            if n != chunks[chunk][1]:  # a piece
                back = waiting.setdefault(chunk, {})
                back[first] = result
                if sum(len(g) for _, g in back.values()) == chunks[chunk][1]:
                    arrays = [back[lo] for lo in sorted(waiting.pop(chunk))]
                    result = C.finish_chunk(job, chunk, chunks[chunk][0],
                                            np.concatenate([b for b, _ in arrays]),
                                            np.concatenate([g for _, g in arrays]))
                    on_done(chunk, *chunks[chunk], result)
            else:
                on_done(chunk, first, n, result)
            if timed:
                bar.played(self.setting.id, n, seconds)
            else:
                bar.update(n)

        # One part to play is played in this process, whose kernel is loaded already (in a
        # thread, so that Ctrl-C is heard): worker processes would each load it again first.
        backend = "threading" if len(parts) == 1 and self.backend == "loky" else self.backend
        try:
            if parts:
                play_chunks(C.play_part, job, parts, backend, self.workers, self.scheduler,
                            done)
        finally:
            if own_bar:
                bar.close()

    def name(self) -> str:
        """The setting for people: its label, else its player count and policies."""
        s = self.setting
        policies = s.policies[0] if len(set(s.policies)) == 1 else " vs ".join(s.policies)
        return s.label or f"{s.players} players, {policies}"


def simulate(setting: Setting, games: int, *, seed: int = 0, chunk_size: int | None = None,
             workers: int | None = None, backend: str = "loky", scheduler: str | None = None,
             check: bool = False, progress=True) -> Results:
    """Play games ``0 .. games - 1`` of ``setting`` in parallel, in memory.

    Parameters
    ----------
    setting : Setting
        What is played (``coltsim.make_setting``).
    games : int
        1 to 10,000,000 (``simulate_to_folder`` plays up to a billion).
    seed : int
        Master seed: game ``g`` depends only on (seed, g) and the setting.
    chunk_size : int, optional
        Games per chunk (default: 16 chunks or more, of 500 to 50,000 games:
        coltsim.runs.options.default_chunk_size).
    workers : int, optional
        Parallel workers (default: every available core; with Dask, every worker thread).
    backend : "loky" (processes, default), "threading" or "dask"
    scheduler : str, optional
        With ``backend="dask"``: the scheduler address ``tcp://HOST:PORT`` (default: the
        current ``dask.distributed`` client).
    check : bool
        Check the engine's invariants after every step (slower).
    progress : bool, RunProgress or tqdm-like
        Show a progress bar (default; its time left from this setting's own speed), not
        (False), or report to this bar the games played as they finish: a
        :class:`coltsim.runs.progress.RunProgress` over several settings (an experiment's, a
        tournament's), told each setting's speed too, or any object with ``update(games)``.

    Returns
    -------
    Results
        The ``players``, ``games`` and ``settings`` tables and the manifest of the run (only for
        runs that fit in memory: :func:`simulate_to_folder` writes the others to disk).
    """
    run = _Run.make(setting, games, seed, chunk_size, workers, backend, scheduler, check,
                    in_memory=True)
    chunk_size = run.chunk_size or default_chunk_size(run.games)
    collected: dict = {}
    run.play(run.job(None), storage.chunks_to_play(run.games, chunk_size, {}), progress,
             lambda c, first, n, tables: collected.__setitem__(first, tables))
    order = sorted(collected)
    s = run.setting
    players, games_df = load.to_frames([collected[c][0] for c in order],
                                          [collected[c][1] for c in order], [s.id],
                                          list(dict.fromkeys(s.policies)), s.rules.rounds,
                                          tuple(c.name for c in s.rules.new_cards))
    manifest = {**manifest_header(), "settings": {
        s.id: storage.manifest_entry(s, run.seed, run.games, chunk_size)}}
    return Results(players, games_df, load.settings_frame(manifest), manifest)


def simulate_to_folder(setting: Setting, games: int, folder, *, seed: int = 0,
                       chunk_size: int | None = None, workers: int | None = None,
                       backend: str = "loky", scheduler: str | None = None, check: bool = False,
                       progress=True) -> RunInfo:
    """Play games ``0 .. games - 1`` of ``setting`` into ``folder``.

    Each finished chunk is written at once as two Parquet files (coltsim.runs.storage) and
    recorded in ``manifest.json`` with its game range, row counts and content hash.  Run again
    with the same arguments to resume: the recorded chunks are verified and only the missing or
    damaged ones are played (a :class:`coltsim.runs.storage.RepairWarning` says which).  Read
    the results with ``coltsim.load_results(folder)``.  ``folder`` must be new, empty, or hold
    runs made with the same arguments (a setting none of whose chunks finished is simply run
    anew); the other arguments are those of :func:`simulate`, with up to a billion games
    (``chunk_size`` defaults to the saved run's when resuming).

    **Growing a run**: asked for more games than the folder holds of the same setting and seed,
    it plays games ``N .. games - 1`` only, so the folder then holds exactly what a fresh run of
    ``games`` games would; fewer games than the folder holds are refused.

    Only one run writes a folder at a time: another run into it raises
    :class:`coltsim.runs.lock.FolderLocked` (a ``ValueError``) naming the one writing it.

    Returns
    -------
    RunInfo
    """
    run = _Run.make(setting, games, seed, chunk_size, workers, backend, scheduler, check)
    sid = run.setting.id
    out = storage.RunFolder(folder)
    # Workers write their own chunks when they share our file system; Dask's send them back.
    # (The policies are resolved here, before the folder is touched.)
    job = run.job(out.path if run.backend != "dask" else None, out.token)
    with out:
        chunk_size = out.prepare(run.setting, run.seed, run.games, run.chunk_size,
                                 manifest_header(), default_chunk_size(run.games))
        kept = out.kept(sid)
        todo = storage.chunks_to_play(run.games, chunk_size, kept)

        def on_done(chunk, first, n, result):
            if not isinstance(result, dict):
                result = storage.write_chunk(out.path, sid, chunk, first, result, out.token)
            out.add(sid, result)

        start = time.perf_counter()
        run.play(job, todo, progress, on_done)
    return RunInfo(out.path, sid, run.games, len(kept) + len(todo), len(todo),
                   sum(n for _, _, n in todo), time.perf_counter() - start)


def repair_folder(folder, settings=None, *, workers: int | None = None, backend: str = "loky",
                  progress=True) -> list[RunInfo]:
    """Verify every chunk of a results folder and recompute those missing or damaged (and
    finish unfinished runs), from what the manifest records of each setting.

    ``settings`` limits it to these setting ids.  Policies given to ``simulate_to_folder`` as
    functions must be importable by their recorded name (``module:function``).
    """
    folder = check_folder(folder)
    manifest = storage.read_manifest(folder)
    if manifest is None:
        raise storage.ResultsError(f"{folder} holds no {storage.MANIFEST}: not a coltsim "
                                   "results folder")
    infos = []
    for sid, entry in manifest["settings"].items():
        if settings is None or sid in settings:
            infos.append(simulate_to_folder(
                setting_from_entry(sid, entry), entry["games"], folder, seed=entry["seed"],
                chunk_size=entry["chunk_size"], workers=workers, backend=backend,
                progress=progress))
    return infos


def setting_from_entry(setting_id: str, entry: dict) -> Setting:
    """The setting a manifest's entry records (what ``Setting.as_dict`` wrote), with its id."""
    params = {}
    for policy, row in zip(entry["policies"], entry["params"] or ()):
        spec = catalog.POLICIES[policy].params if policy in catalog.POLICIES else ()
        defaults = catalog.param_vector(policy)
        changed = {}
        for i, name in enumerate(catalog.param_names(policy)):
            if row[i] != defaults[i]:
                p = spec[i] if spec else None
                changed[name] = (p.choices[int(row[i]) % len(p.choices)] if p and p.choices else
                                 int(row[i]) if p and p.whole else row[i])
        if changed:
            params.setdefault(policy, changed)
    for key, record in entry.get("files", {}).items():  # the files a parameter names
        policy, _, name = key.rpartition(".")
        if policy in catalog.POLICIES:
            params.setdefault(policy, {})[name] = record["path"]
    setting = make_setting(entry["players"], entry["lineup"], entry["policies"], entry["rules"],
                           params, entry.get("label"), setting_id)
    changed = changed_file(entry.get("files", {}), setting.file_records())
    if changed:
        raise storage.ResultsError(f"setting {setting_id} was played with another {changed}; "
                                   "put back the file it played to play it again")
    if setting.as_dict() != {k: entry.get(k) for k in setting.as_dict()}:
        raise storage.ResultsError(f"setting {setting_id}: this coltsim cannot play again what "
                                   "the manifest records (its policies' parameters differ); run "
                                   "it again into a new folder")
    return setting
