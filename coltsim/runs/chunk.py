"""The work of one chunk of a run, in a worker: play games ``first .. first + n - 1`` with the
compiled batch kernel and turn its result arrays into the two tables of coltsim.results.

A chunk is one call of ``coltsim.playout.batch_kernel`` (the games one after another, without
the GIL), or, when its games are slow, several calls in pieces that the runner joins into the
same tables; game ``g`` depends only on (seed, g), so the tables never depend on how a run is
cut into chunks or pieces or spread over workers.

A worker process of the run's machine (joblib's loky) watches the run's main process from its
start and exits within a fraction of a second once it is gone (coltsim._process.worker_started,
its initializer: coltsim.runs.runner).  In the coltsim program, a kernel called in the main
thread (a run with one worker, the first game that loads the kernel) runs in a helper thread, so
that Ctrl-C stops the run at once (coltsim._process.interruptible).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .. import constants as K
from .._process import interruptible
from ..engine.check import CHECK_NAMES
from ..engine.scoring import (
    RB_BONUS, RB_CHAR, RB_DRAWS, RB_FIZZLED, RB_GUNSLINGER, RB_JEWEL, RB_LOOT, RB_N, RB_NEUTRAL,
    RB_PLAYED, RB_PURSE, RB_RANK, RB_ROUND_LOOT, RB_RANSOM, RB_RECEIVED, RB_SCORE, RB_SHARED, RB_SHOTS, RB_STRONGBOX, RB_TEAM, RB_TEAM_SCORE,
    RB_WIN, RG_CARS, RG_FAIL, RG_FIRST_PLAYER, RG_GUNSLINGER_CHANGED, RG_N, RG_N_GUNSLINGERS,
    RG_N_WINNERS, RG_NEUTRAL_LEFT, RG_ROUNDS,
)
from ..playout import FAIL_ILLEGAL_OPTION, batch_kernel, new_kernel_states
from ..policies import Seats, resolve_policies
from ..results import card_categories
from . import storage

clock = time.perf_counter  # how a worker times its part of a run (tests give a clock of their own)
_CAR_LETTERS = np.frombuffer(("?" + "".join(K.CAR_NAMES[1:])).encode(), np.uint8)


@dataclass(frozen=True)
class ChunkJob:
    """Everything a worker needs to play chunks of one setting; small and picklable."""

    seed: int
    lineups: np.ndarray  # int64[L, bandits]
    seat_policy: np.ndarray  # int64[players]: each seat's index in choosers
    params: np.ndarray  # float64[players, N_PARAMS]
    nets: np.ndarray  # float32[players, width]: each seat's network (Seats.nets)
    opts: np.ndarray  # int64[N_OPTIONS]
    check: int
    setting_id: str
    players: int
    n_bandits: int
    policies: tuple
    rounds: int
    folder: str | None  # write the chunk there, or return its tables
    choosers: tuple = ()  # the table's compiled policies (Seats.choosers): its kernel
    functions: tuple = ()  # user policies, compiled into the batch kernel of each process
    token: str = ""  # names the run's temporary files
    holds: str = "{}"  # what the chunk files record of their games (storage.chunk_holds), JSON
    new_cards: tuple = ()  # names of a designer's round cards (rules option new_cards)
    # coltsim train's recorder, (share, explore, rounds, teacher) of policies/recording.py's
    # new_recorder: the decisions it records (learn/train.py); () records nothing.
    record: tuple = ()


def run_chunk(job: ChunkJob, chunk: int, first: int, n: int):
    """Play games ``first .. first + n - 1``; returns ``(chunk, first, n, failure, result)``,
    where failure is (game, code) of the first failed game or None, and result is the chunk's
    record (written to ``job.folder``, coltsim.runs.storage) or its two tables."""
    out_b, out_g = play_games(job, first, n)
    failed = first_failure(first, out_g)
    if failed is not None:
        return chunk, first, n, failed, None
    return chunk, first, n, None, finish_chunk(job, chunk, first, out_b, out_g)


def play_part(job: ChunkJob, chunk: int, first: int, n: int, whole: bool = True):
    """The runner's task: games ``first .. first + n - 1`` of chunk ``chunk``, the whole chunk
    (``whole``: :func:`run_chunk`'s result) or a piece of it (the kernel's two arrays, which the
    runner joins into its chunk with :func:`finish_chunk` once every piece is back), with the
    seconds this worker took, its kernel loaded first (from numba's cache, by a call playing
    no game): ``(chunk, first, n, failure, (seconds, result))``."""
    play_games(job, first, 0)
    start = clock()
    if whole:
        chunk, first, n, failed, result = run_chunk(job, chunk, first, n)
    else:
        result = play_games(job, first, n)
        failed = first_failure(first, result[1])
    return chunk, first, n, failed, (clock() - start, result)


def play_games(job: ChunkJob, first: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's arrays of games ``first .. first + n - 1``: ``out_b``, ``out_g``."""
    out_b = np.empty((n, job.n_bandits, RB_N), np.int32)
    out_g = np.empty((n, RG_N), np.int32)
    play_batch(job, first, out_b, out_g)
    return out_b, out_g


def first_failure(first: int, out_g: np.ndarray) -> tuple[int, int] | None:
    """(game, code) of the first failed game of ``out_g`` (games from ``first``), or None."""
    failed = np.flatnonzero(out_g[:, RG_FAIL])
    if not failed.size:
        return None
    g = int(failed[0])
    return first + g, int(out_g[g, RG_FAIL])


def finish_chunk(job: ChunkJob, chunk: int, first: int, out_b: np.ndarray, out_g: np.ndarray):
    """The chunk's tables from the kernel's arrays of its games (played at once or in pieces:
    the same tables), written to ``job.folder`` (its record) or returned."""
    tables = chunk_tables(first, out_b, out_g, job.setting_id, job.players, list(job.policies),
                          job.rounds, job.holds, job.new_cards)
    if job.folder is not None:
        return storage.write_chunk(job.folder, job.setting_id, chunk, first, tables, job.token)
    return tables


def resolve_seats(setting) -> Seats:
    """The policies of every seat of ``setting``, ready for the kernels
    (``coltsim.policies.resolve_policies``); a user policy that is not a function numba can
    compile is a ``ValueError`` naming it."""
    try:
        return resolve_policies(setting.players, setting.policy_specs(), setting.policy_params())
    except ValueError:
        raise
    except Exception as e:  # numba's errors have many types, all of them the policy's fault
        raise _user_policy_error(setting.policies, e) from None


def play_batch(job: ChunkJob, first: int, out_b: np.ndarray, out_g: np.ndarray,
               rec=None) -> None:
    """Play games ``first .. first + len(out_g) - 1`` of ``job`` into ``out_b`` and ``out_g``
    with its table's kernel (the games one after another, without the GIL), recording
    decisions into the recorder ``rec`` if given.  A user policy that numba cannot compile (or
    that fails while playing) is the user's mistake, a ``ValueError`` naming it among the job's
    policies."""
    args = (new_kernel_states(), job.seed, first, job.lineups, job.seat_policy, job.params,
            job.nets, job.opts, out_b, out_g, rec)
    call_kernel(batch_kernel(job.choosers, job.functions, job.check), args, job.policies,
                job.functions)


def seat_shares(out_b: np.ndarray, out_g: np.ndarray, players: int) -> np.ndarray:
    """Each seat's share of the victory in each game, ``float64[games, players]`` (a victory
    shared by ``m`` teams counts ``1/m``): its first bandit's (the two-player game seats two
    bandits a player, ``b // 2`` the seat of bandit ``b``, each with its team's result)."""
    first = np.arange(players) * (out_b.shape[1] // players)
    return out_b[:, first, RB_WIN] / np.maximum(out_g[:, None, RG_N_WINNERS], 1)


def call_kernel(kernel, args, policies, functions) -> None:
    """``kernel(*args)``; with user policies at the table (``functions``), an error compiling
    or playing them is a ``ValueError`` naming them among ``policies``."""
    if not functions:
        interruptible(kernel, *args)
        return
    try:
        interruptible(kernel, *args)
    except Exception as e:
        raise _user_policy_error(policies, e) from None


def _user_policy_error(policies, e: Exception) -> ValueError:
    users = ", ".join(p for p in dict.fromkeys(policies) if ":" in p)
    first_line = (str(e).strip().splitlines() or [""])[0][:200]
    return ValueError(f"policies: user policy {users} cannot be played ({type(e).__name__}: "
                      f"{first_line}); a policy is a numba function of (obs, kind, options, "
                      "params, rng) returning an option index (docs/policies.md)")


def failure(seed: int, game: int, code: int) -> Exception:
    """The error of a failed game: a user policy's mistake (``ValueError``), or a broken
    engine invariant (``RuntimeError``, a bug of coltsim)."""
    if code == FAIL_ILLEGAL_OPTION:
        return ValueError(f"a user policy chose an option that does not exist (seed {seed}, "
                          f"game {game})")
    name = CHECK_NAMES[code] if 0 <= code < len(CHECK_NAMES) else str(code)
    return RuntimeError(f"engine invariant broken: {name} (seed {seed}, game {game}); please "
                        "report this game")


# --- engine arrays -> Arrow tables ---------------------------------------------------------------
def _narrow(a: np.ndarray, dtype) -> np.ndarray:
    """``a`` as the small integer ``dtype``; an out-of-range value is an engine bug, not data."""
    info = np.iinfo(dtype)
    if a.size and (a.min() < info.min or a.max() > info.max):
        raise RuntimeError(f"result value out of range for {np.dtype(dtype).name}: "
                           f"{a.min()}..{a.max()}")
    return a.astype(dtype)


def _category(codes: np.ndarray, names) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(_narrow(codes, np.int8)),
                                          pa.array(list(names), pa.string()))


def chunk_tables(first_game: int, out_b: np.ndarray, out_g: np.ndarray, setting_id: str,
                 players: int, policies: list[str], rounds: int,
                 holds: str = "{}", new_cards=()) -> tuple[pa.Table, pa.Table]:
    """The ``players`` and ``games`` tables of games ``first_game ..`` from the kernel's output,
    each with ``holds`` (what they hold, storage.chunk_holds) as its ``storage.HOLDS`` metadata.

    out_b : int32[games, bandits, RB_N]     out_g : int32[games, RG_N]
    """
    n, n_bandits = out_b.shape[:2]
    b = out_b.reshape(n * n_bandits, -1)
    game = np.arange(first_game, first_game + n, dtype=np.int64)
    setting = _category(np.zeros(n, np.int8), [setting_id])
    first = out_g[:, RG_FIRST_PLAYER]
    seat = b[:, RB_TEAM]
    policy_names = list(dict.fromkeys(policies))
    policy_of_seat = np.array([policy_names.index(p) for p in policies], np.int8)

    def i8(col):
        return pa.array(_narrow(b[:, col], np.int8))

    def i32(col):
        return pa.array(b[:, col].astype(np.int32))

    def flag(col):
        return pa.array(b[:, col] != 0)

    pcols = {
        "game": pa.array(np.repeat(game, n_bandits)),
        "setting": _category(np.zeros(n * n_bandits, np.int8), [setting_id]),
        "players": pa.array(np.full(n * n_bandits, players, np.int8)),
        "seat": i8(RB_TEAM),
        "bandit_index": pa.array(np.tile(np.arange(n_bandits, dtype=np.int8), n)),
        "bandit": _category(b[:, RB_CHAR], K.BANDIT_NAMES),
        "policy": _category(policy_of_seat[seat], policy_names),
        "order": pa.array(_narrow((seat - np.repeat(first, n_bandits)) % players, np.int8)),
        "purse": i32(RB_PURSE), "jewel": i32(RB_JEWEL), "strongbox": i32(RB_STRONGBOX),
        "ransom": i32(RB_RANSOM), "loot": i32(RB_LOOT),
        "shots": i8(RB_SHOTS), "bullets_received": i8(RB_RECEIVED),
        "neutral_received": i8(RB_NEUTRAL), "gunslinger": flag(RB_GUNSLINGER),
        "bonus": i32(RB_BONUS), "score": i32(RB_SCORE), "team_score": i32(RB_TEAM_SCORE),
        "rank": i8(RB_RANK), "win": flag(RB_WIN), "shared_win": flag(RB_SHARED),
        # How it played: its action cards resolved, by kind, and its player's draws.
        "moves": i8(RB_PLAYED + K.MOVE), "floor_changes": i8(RB_PLAYED + K.FLOOR),
        "fires": i8(RB_PLAYED + K.FIRE), "robberies": i8(RB_PLAYED + K.ROB),
        "punches": i8(RB_PLAYED + K.PUNCH), "marshal_moves": i8(RB_PLAYED + K.MARSHAL),
        "draws": i8(RB_DRAWS), "fizzled": i8(RB_FIZZLED),
    }
    for r in range(rounds):  # the score after each round (coltsim.results)
        pcols[f"score_after_{r + 1}"] = i32(RB_ROUND_LOOT + r)
    # A victory shared by m teams counts 1/m for each: the mean is the win rate.
    pcols["win_share"] = pa.array(np.where(b[:, RB_WIN] != 0, 1.0 / np.repeat(
        np.maximum(out_g[:, RG_N_WINNERS], 1), n_bandits), 0.0))

    n_cars = 4 if players == 2 else players
    letters = np.ascontiguousarray(_CAR_LETTERS[out_g[:, RG_CARS:RG_CARS + n_cars]])
    gcols = {
        "game": pa.array(game),
        "setting": setting,
        "players": pa.array(np.full(n, players, np.int8)),
        "first_player": pa.array(_narrow(first, np.int8)),
    }
    round_cards, stations = card_categories(new_cards)
    new = K.FIRST_NEW_CARD
    for r in range(rounds - 1):
        c = out_g[:, RG_ROUNDS + r]
        gcols[f"round_{r + 1}"] = _category(np.where(c < new, c, c - new + K.N_ROUND_CARDS),
                                            round_cards)
    c = out_g[:, RG_ROUNDS + rounds - 1]
    gcols["station"] = _category(np.where(c < new, c - K.FIRST_STATION,
                                          c - new + K.N_STATION_CARDS), stations)
    gcols["cars"] = pa.array(letters.view(f"S{n_cars}").ravel()).cast(pa.string())
    gcols["n_winners"] = pa.array(_narrow(out_g[:, RG_N_WINNERS], np.int8))
    gcols["n_gunslingers"] = pa.array(_narrow(out_g[:, RG_N_GUNSLINGERS], np.int8))
    gcols["gunslinger_changed_winner"] = pa.array(out_g[:, RG_GUNSLINGER_CHANGED] != 0)
    gcols["neutral_left"] = pa.array(_narrow(out_g[:, RG_NEUTRAL_LEFT], np.int8))
    metadata = {storage.HOLDS: holds}
    return pa.table(pcols, metadata=metadata), pa.table(gcols, metadata=metadata)

