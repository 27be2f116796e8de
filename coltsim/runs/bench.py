"""Benchmarks: games per second of the compiled engine, and its compile time cold and cached.

``bench`` plays games with the batch kernel in this process, one block of games per core on as
many threads (the kernel releases the GIL), in batches of ``BATCH`` games into a result buffer
per thread (no disk, no fresh memory): the speed of the engine itself.  The compile times are
measured in fresh subprocesses: cold with an empty temporary numba cache, then cached with that
same cache.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..engine.scoring import RB_N, RG_N
from ..playout import batch_kernel, new_kernel_states
from ..setting import make_setting
from .chunk import call_kernel, resolve_seats
from .options import available_cores, check_games_in_memory, check_workers

# Run in a subprocess: time the import and first call of the batch kernel.
_COMPILE_SNIPPET = """
import time
t = time.perf_counter()
from coltsim.setting import make_setting
from coltsim.runs.runner import _Run, load_kernel
run = _Run.make(make_setting({players}, policies={policy!r}), 2, 0, None, 1, "loky", None, False)
load_kernel(run.job(None))
print(time.perf_counter() - t)
"""


def compile_seconds(players: int = 4, policy: str = "random",
                    cache_dir: str | None = None) -> float:
    """Seconds to import coltsim and play a first game in a fresh Python (``NUMBA_CACHE_DIR`` =
    ``cache_dir`` if given)."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    code = _COMPILE_SNIPPET.format(players=players, policy=policy)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=False)
    if out.returncode != 0:
        raise RuntimeError(f"compile benchmark failed: {out.stderr.strip().splitlines()[-1:]}")
    return float(out.stdout.strip().splitlines()[-1])


BATCH = 10_000  # games per call of the kernel


def bench(players: int = 4, games: int = 200_000, policy: str = "random",
          workers: int | None = None, seed: int = 0, compile_times: bool = True) -> dict:
    """Measure the engine; returns a JSON-ready dict.

    Figures are not rounded (``format_bench`` rounds them for reading).  Keys: ``games``,
    ``seconds``, ``games_per_second``, ``workers``,
    ``games_per_second_per_core``, ``players``, ``policy``, and with ``compile_times``
    ``compile_cold_seconds`` and ``compile_cached_seconds``.
    """
    setting = make_setting(players, policies=policy)
    games = check_games_in_memory(games)
    workers = check_workers(workers) or available_cores()
    seats = resolve_seats(setting)
    args = (setting.lineups(), seats.seat_policy, seats.params, seats.nets,
            setting.rules.to_array())
    # Each worker plays its block in batches into one result buffer of its own, written once
    # before the clock starts: the engine is timed, not the system zeroing fresh memory.
    size = min(BATCH, games)
    buffers = [(new_kernel_states(), np.zeros((size, setting.n_bandits, RB_N), np.int32),
                np.zeros((size, RG_N), np.int32)) for _ in range(workers)]
    # Load or compile before the clock starts.
    states, out_b, out_g = buffers[0]
    kernel = batch_kernel(seats.choosers, seats.functions)
    call_kernel(kernel, (states, seed, 0, *args, out_b[:1], out_g[:1]), setting.policies,
                seats.functions)
    bounds = [games * k // workers for k in range(workers + 1)]

    def block(k):
        states, out_b, out_g = buffers[k]
        for lo in range(bounds[k], bounds[k + 1], size):
            n = min(size, bounds[k + 1] - lo)
            kernel(states, seed, lo, *args, out_b[:n], out_g[:n])

    with ThreadPoolExecutor(workers) as pool:
        start = time.perf_counter()
        list(pool.map(block, range(workers)))
        seconds = time.perf_counter() - start
    result = {
        "games": games, "seconds": seconds, "games_per_second": games / seconds,
        "workers": workers, "games_per_second_per_core": games / seconds / workers,
        "players": setting.players, "policy": policy,
    }
    if compile_times:
        with tempfile.TemporaryDirectory(prefix="coltsim-numba-") as cache:
            result["compile_cold_seconds"] = compile_seconds(players, policy, cache)
            result["compile_cached_seconds"] = compile_seconds(players, policy, cache)
    return result


def format_bench(r: dict) -> str:
    lines = [
        f"{r['games']:,} {r['players']}-player games, policy {r['policy']}, {r['workers']} "
        f"core(s): {r['seconds']:.2f} s",
        f"  {r['games_per_second']:,.0f} games/s, {r['games_per_second_per_core']:,.0f} "
        f"games/s per core",
    ]
    if "compile_cold_seconds" in r:
        lines.append(f"  compile: {r['compile_cold_seconds']:.1f} s cold, "
                     f"{r['compile_cached_seconds']:.2f} s cached (import + first game)")
    return "\n".join(lines)
