"""The batch runner: many games of one setting, in parallel, reproducible, resumable.

A run is a setting (players, bandit line-up, policies and their parameters, rule options), a
master seed and a number of games.  Games are cut into chunks of consecutive game indices; each
chunk is one call of the compiled batch kernel (``coltsim.playout.batch_kernel``: the games one
after another, without the GIL) in a joblib worker (loky processes, threads, or a Dask
cluster).  Game ``g`` depends only on (seed, g), so the data never depends on the number of
workers, the chunk size or the backend.

With an output folder, each finished chunk is written at once as two Parquet files (written
under a temporary name, then renamed), so memory stays bounded and an interrupted run, started
again with the same arguments, computes only the missing chunks.  ``manifest.json`` records what
each setting of the folder is (see ``coltsim.results`` for the layout and the tables); a run whose
arguments differ from the manifest is refused, and so is one made by other compiled code (the
manifest records the hash of the compiled sources, ``engine``).  Several settings (different
``setting_id``) can share one folder: that is how an experiment stores its sweep.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import itertools
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import __version__
from . import constants as K
from . import results as R
from .engine.scoring import RB_N, RG_FAIL, RG_N
from .engine.state import N_PARAMS
from .playout import FAIL_ILLEGAL_OPTION, batch_kernel
from .policies import resolve_policies
from .rules import Rules
from .setting import bandits_per_player, check_players, check_rules, check_seed, lineup_codes

BACKENDS = ("loky", "threading", "dask")
DEFAULT_CHUNK_SIZE = 50_000
MAX_CHUNK_SIZE = 10_000_000
MANIFEST_FORMAT = 1
LINEUP_RANDOM = "random"
LINEUP_ALL = "all"
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.=+-]{0,99}$")


def _engine_hash() -> str:
    """Hash of the compiled sources: results of two runs can be mixed only if it is equal."""
    from ._jit import source_hash

    return source_hash()


# ----------------------------------------------------------------------------------------------
# Settings

@dataclass(frozen=True)
class Setting:
    """One validated setting: what is played, without the seed and the number of games.

    Build it with ``make_setting``.  ``bandits`` is ``"random"`` (every bandit drawn per game),
    ``"all"`` (every ordered line-up of characters in turn: game ``g`` plays line-up
    ``g % n_lineups``) or a tuple of character names, one per bandit, where ``"random"`` draws
    that bandit.  ``policies`` holds one label per player (a built-in name or
    ``"package.module:function"``), ``policy_ids`` their ids for the kernels, ``params`` the
    resolved parameter rows (None: all zeros) and ``functions`` the user policies' compiled
    functions (``coltsim.policies.resolve_policies``).
    """

    id: str
    players: int
    bandits: str | tuple
    policies: tuple
    rules: Rules
    params: tuple | None = None
    policy_ids: tuple = ()
    functions: tuple = dataclasses.field(default=(), compare=False)

    @property
    def n_bandits(self) -> int:
        return self.players * bandits_per_player(self.players)

    def as_dict(self) -> dict:
        """JSON-ready description, as recorded in the manifest."""
        return {
            "players": self.players,
            "bandits": self.bandits if isinstance(self.bandits, str) else list(self.bandits),
            "policies": list(self.policies),
            "params": None if self.params is None else [list(p) for p in self.params],
            "rules": self.rules.as_dict(),
        }

    def lineups(self) -> np.ndarray:
        """``int64[L, bandits]``: game ``g`` plays row ``g % L``; -1 = drawn at random."""
        if self.bandits == LINEUP_ALL:
            return np.array(list(itertools.permutations(range(K.N_CHARACTERS), self.n_bandits)),
                            np.int64)
        if self.bandits == LINEUP_RANDOM:
            return np.full((1, self.n_bandits), -1, np.int64)
        return lineup_codes(self.players, list(self.bandits))[None, :]

    def seat_policy(self) -> np.ndarray:
        return np.array(self.policy_ids, np.int64)

    def params_array(self) -> np.ndarray:
        if self.params is None:
            return np.zeros((self.players, N_PARAMS), np.float64)
        return np.array(self.params, np.float64)


def _check_params(params, players: int):
    if params is None:
        return None
    try:
        a = np.asarray(params, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"params must be a {players} x {N_PARAMS} array of numbers: {e}") from e
    if a.shape != (players, N_PARAMS):
        raise ValueError(f"params must have shape ({players}, {N_PARAMS}) (one row of "
                         f"{N_PARAMS} parameters per player), got {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError("params must be finite numbers")
    return a


def _check_bandits(players: int, bandits):
    if bandits is None or (isinstance(bandits, str) and bandits.strip().lower() == LINEUP_RANDOM):
        return LINEUP_RANDOM
    if isinstance(bandits, str) and bandits.strip().lower() == LINEUP_ALL:
        return LINEUP_ALL
    codes = lineup_codes(players, bandits)  # validates
    if (codes < 0).all():
        return LINEUP_RANDOM
    return tuple(K.BANDIT_NAMES[c] if c >= 0 else LINEUP_RANDOM for c in codes)


def make_setting(players: int = 4, bandits=None, policies=None, rules=None, params=None,
                 setting_id: str | None = None) -> Setting:
    """Validate a setting; every problem is a one-line ``ValueError``.

    Parameters
    ----------
    players : int
        2 to 6 (2 = the two-bandit variant).
    bandits : None, "random", "all", list of str or comma-separated str
        The line-up: drawn per game (None / "random"), every ordered line-up in turn ("all"),
        or one character per bandit ("random" entries are drawn).
    policies : str, list of str or compiled functions
        One policy for every player or one per player (default "random"): built-in names or
        user policies ``"package.module:function"``.
    rules : Rules or dict, optional
    params : array-like float, shape (players, N_PARAMS), or dict, optional
        Per-player parameter rows, or parameters by policy name, e.g.
        ``{"rollout": {"budget": 128}}`` (default: each policy's defaults).
    setting_id : str, optional
        Name of the setting in results and folders; by default ``<players>p-<hash>`` of the
        setting, so the same setting always gets the same id.
    """
    players = check_players(players)
    bandits = _check_bandits(players, bandits)
    if params is not None and not isinstance(params, dict):
        params = _check_params(params, players)
    seats = resolve_policies(players, policies, params)
    rules = check_rules(rules, players)
    if rules.neutral_bullets > 127:
        raise ValueError(f"rule option neutral_bullets must be at most 127 for simulate (results "
                         f"store neutral_left as int8), got {rules.neutral_bullets}")
    matrix = np.asarray(seats.params, np.float64)
    params = None if not matrix.any() else tuple(tuple(float(x) for x in row) for row in matrix)
    s = Setting("", players, bandits, tuple(seats.names), rules, params,
                tuple(int(i) for i in seats.seat_policy), tuple(seats.functions))
    if setting_id is None:
        text = json.dumps(s.as_dict(), sort_keys=True)
        setting_id = f"{players}p-{hashlib.sha1(text.encode()).hexdigest()[:8]}"
    elif not isinstance(setting_id, str) or not _ID_PATTERN.match(setting_id):
        raise ValueError(f"setting_id must be 1-100 letters, digits or _.=+- (starting with a "
                         f"letter or digit), got {setting_id!r}")
    return dataclasses.replace(s, id=setting_id)


# ----------------------------------------------------------------------------------------------
# The work of one chunk (runs in a worker)

@dataclass(frozen=True)
class _Job:
    """Everything a worker needs; small and picklable."""

    seed: int
    lineups: np.ndarray
    seat_policy: np.ndarray
    params: np.ndarray
    opts: np.ndarray
    check: int
    setting_id: str
    players: int
    n_bandits: int
    policies: tuple
    rounds: int
    folder: str | None  # write the chunk there, or return its tables
    functions: tuple = ()  # user policies, compiled into the batch kernel of each process


def _run_chunk(job: _Job, chunk: int, first: int, n: int):
    """Play games ``first .. first + n - 1``; returns (chunk, n, failure, tables)."""
    out_b = np.empty((n, job.n_bandits, RB_N), np.int32)
    out_g = np.empty((n, RG_N), np.int32)
    kernel = batch_kernel(job.functions)  # plays the games one after another, without the GIL
    kernel(job.seed, first, job.lineups, job.seat_policy, job.params, job.opts, job.check, out_b,
           out_g)
    failed = np.flatnonzero(out_g[:, RG_FAIL])
    if failed.size:
        g = int(failed[0])
        return chunk, n, (first + g, int(out_g[g, RG_FAIL])), None
    tables = R.chunk_tables(first, out_b, out_g, job.setting_id, job.players, list(job.policies),
                            job.rounds)
    if job.folder is not None:
        R.write_chunk(job.folder, job.setting_id, chunk, tables)
        tables = None
    return chunk, n, None, tables


# ----------------------------------------------------------------------------------------------
# Backends

def _available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _check_backend(backend, workers, scheduler):
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")
    if workers is not None and (isinstance(workers, bool)
                                or not isinstance(workers, (int, np.integer)) or workers < 1):
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if scheduler is not None and backend != "dask":
        raise ValueError("scheduler is only used with backend 'dask'")
    if backend == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError as e:
            raise ValueError("backend 'dask' needs dask.distributed: "
                             "pip install 'coltsim[dask]'") from e
        return backend, (-1 if workers is None else int(workers))
    if workers is None:
        workers = _available_cores()
    return backend, int(workers)


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


def _failure_message(seed: int, game: int, code: int) -> str:
    from .engine.check import CHECK_NAMES

    if code == FAIL_ILLEGAL_OPTION:
        return f"a user policy chose an option that does not exist (seed {seed}, game {game})"
    name = CHECK_NAMES[code] if 0 <= code < len(CHECK_NAMES) else str(code)
    return f"engine invariant broken: {name} (seed {seed}, game {game}); please report this game"


def _play_chunks(job: _Job, chunks, chunk_size: int, games: int, backend: str, workers: int,
                 scheduler, on_done) -> None:
    """Run ``chunks`` over the workers; ``on_done(chunk, n, tables)`` as each one finishes."""
    from joblib import Parallel, delayed

    tasks = (delayed(_run_chunk)(job, c, c * chunk_size, min(chunk_size, games - c * chunk_size))
             for c in chunks)
    with _backend_context(backend, workers, scheduler):
        results = Parallel(return_as="generator_unordered", batch_size=1,
                           pre_dispatch="2*n_jobs")(tasks)
        try:
            for chunk, n, failed, tables in results:
                if failed is not None:
                    raise RuntimeError(_failure_message(job.seed, *failed))
                on_done(chunk, n, tables)
        finally:
            results.close()


# ----------------------------------------------------------------------------------------------
# Manifest

def _manifest_header() -> dict:
    return {"format": MANIFEST_FORMAT, "coltsim_version": __version__,
            "rules_version": K.RULES_VERSION, "engine": _engine_hash()}


def _write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)


def _first_difference(old, new, prefix: str = ""):
    """Name of the first field where ``old`` and ``new`` (JSON values) differ, with both values."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            if old.get(key) != new.get(key):
                return _first_difference(old.get(key), new.get(key), f"{prefix}{key}.")
        return None
    return prefix.rstrip("."), old, new


@contextlib.contextmanager
def _folder_lock(folder: Path):
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(folder / ".lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _prepare_folder(folder: Path, setting: Setting, seed: int, games: int,
                    chunk_size: int | None) -> int:
    """Create or check the manifest for this run; returns the chunk size to use."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    with _folder_lock(folder):
        manifest = R.read_manifest(folder)
        if manifest is None:
            others = [p.name for p in folder.iterdir() if p.name != ".lock"]
            if others:
                raise ValueError(f"{folder} is not empty and holds no {R.MANIFEST}; "
                                 f"choose a new or empty folder")
            manifest = {**_manifest_header(), "settings": {}}
        else:
            old = {k: manifest.get(k) for k in _manifest_header()}
            diff = _first_difference(old, _manifest_header())
            if diff:
                _mismatch(folder, *diff)
        entry = manifest["settings"].get(setting.id)
        if entry is not None and chunk_size is None:
            chunk_size = entry.get("chunk_size")
        new = json.loads(json.dumps({**setting.as_dict(), "seed": seed, "games": games,
                                     "chunk_size": chunk_size or DEFAULT_CHUNK_SIZE}))
        if entry is not None:
            diff = _first_difference(entry, new)
            if diff:
                field, was, now = diff
                _mismatch(folder, f"settings.{setting.id}.{field}", was, now)
            return entry["chunk_size"]
        manifest["settings"][setting.id] = new
        _write_json_atomic(folder / R.MANIFEST, manifest)
        return new["chunk_size"]


def _mismatch(folder: Path, field: str, was, now):
    raise ValueError(f"{folder / R.MANIFEST} does not match this run: {field} is {was!r} there "
                     f"but {now!r} here; use a new folder, or the same arguments to resume")


def _remove_temporaries(folder: Path, setting_id: str) -> None:
    for table in R.TABLES:
        for tmp in (folder / table / setting_id).glob(".chunk-*.tmp"):
            tmp.unlink(missing_ok=True)


# ----------------------------------------------------------------------------------------------
# The public entry point

@dataclass(frozen=True)
class RunInfo:
    """What a run to a folder did (``simulate`` with ``folder``)."""

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


def _check_count(value, name: str, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= hi:
        raise ValueError(f"{name} must be an integer from 1 to {hi:,}, got {value!r}")
    return int(value)


def simulate(games: int, players: int = 4, bandits=None, policies=None, rules=None, *,
             params=None, seed: int = 0, folder=None, setting_id: str | None = None,
             chunk_size: int | None = None, workers: int | None = None, backend: str = "loky",
             scheduler: str | None = None, check: bool = False, quiet: bool = False,
             progress=None):
    """Play ``games`` games of one setting in parallel.

    Parameters
    ----------
    games : int
        Number of games; they are games ``0 .. games - 1`` of ``seed``.
    players, bandits, policies, rules, params, setting_id
        The setting; see ``make_setting``.  ``bandits="all"`` plays every ordered line-up of
        characters in turn.
    seed : int
        Master seed: game ``g`` depends only on (seed, g) and the setting.
    folder : path, optional
        Write the results there (Parquet, one file per finished chunk, and ``manifest.json``)
        and return a ``RunInfo``; rerunning with the same arguments resumes.  Without a folder
        the results are returned in memory (only for runs that fit in memory).
    chunk_size : int, optional
        Games per chunk (default 50,000, or the manifest's when resuming).
    workers : int, optional
        Parallel workers (default: every available core; with Dask, every worker thread).
    backend : "loky" (processes, default), "threading" or "dask"
    scheduler : str, optional
        With ``backend="dask"``: the scheduler address ``tcp://HOST:PORT`` (default: the
        current ``dask.distributed`` client).
    check : bool
        Check the engine's invariants after every step (slower).
    quiet : bool
        No progress bar.
    progress : tqdm-like, optional
        Report progress to this bar (``update(games)``) instead of an own one, e.g. one bar
        over all settings of an experiment.

    Returns
    -------
    Results (players, games, settings DataFrames) without ``folder``; RunInfo with one.
    """
    setting = make_setting(players, bandits, policies, rules, params, setting_id)
    games = _check_count(games, "games", 2**62)
    seed = check_seed(seed)
    if chunk_size is not None:
        chunk_size = _check_count(chunk_size, "chunk_size", MAX_CHUNK_SIZE)
    backend, workers = _check_backend(backend, workers, scheduler)
    if folder is not None:
        folder = Path(folder)
        chunk_size = _prepare_folder(folder, setting, seed, games, chunk_size)
        _remove_temporaries(folder, setting.id)
    chunk_size = chunk_size or DEFAULT_CHUNK_SIZE
    n_chunks = -(-games // chunk_size)
    # Workers write their own chunks when they share our file system; Dask's send them back.
    write_in_workers = folder is not None and backend != "dask"
    job = _Job(seed, setting.lineups(), setting.seat_policy(), setting.params_array(),
               setting.rules.to_array(), int(bool(check)), setting.id, setting.players,
               setting.n_bandits, setting.policies, setting.rules.rounds,
               str(folder) if write_in_workers else None, setting.functions)
    if folder is None:
        todo = list(range(n_chunks))
    else:
        todo = [c for c in range(n_chunks) if not R.chunk_done(folder, setting.id, c)]
    games_todo = sum(min(chunk_size, games - c * chunk_size) for c in todo)

    from tqdm.auto import tqdm

    bar = progress
    if bar is None:
        bar = tqdm(total=games, initial=games - games_todo, unit="game", unit_scale=True,
                   desc=setting.id, disable=quiet, smoothing=0.05, mininterval=0.5)
    else:
        bar.update(games - games_todo)
    collected: dict = {}

    def on_done(chunk, n, tables):
        if tables is not None:
            if folder is not None:
                R.write_chunk(folder, setting.id, chunk, tables)
            else:
                collected[chunk] = tables
        bar.update(n)

    start = time.perf_counter()
    try:
        if todo and backend == "loky" and workers > 1 and not job.functions:
            # Load or compile the kernel here once, so that the worker processes load it from
            # the cache rather than each compiling it.
            _run_chunk(dataclasses.replace(job, folder=None), 0, 0, 1)
        if todo:
            _play_chunks(job, todo, chunk_size, games, backend, workers, scheduler, on_done)
    finally:
        if progress is None:
            bar.close()
    seconds = time.perf_counter() - start
    if folder is not None:
        return RunInfo(folder, setting.id, games, n_chunks, len(todo), games_todo, seconds)
    order = sorted(collected)
    players_df, games_df = R.to_frames([collected[c][0] for c in order],
                                       [collected[c][1] for c in order], [setting.id],
                                       list(dict.fromkeys(setting.policies)), setting.rules.rounds)
    manifest = {"settings": {setting.id: {**setting.as_dict(), "seed": seed, "games": games,
                                          "chunk_size": chunk_size}}}
    return R.Results(players_df, games_df, R.settings_frame(manifest))
