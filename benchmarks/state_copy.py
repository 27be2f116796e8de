"""Cost of the search primitives: copying a state, and playing a game out from a copy.

    python benchmarks/state_copy.py [--copies N] [--playouts N]

A look-ahead policy copies the game (or a world sampled from its observation) into a scratch
state and plays it out.  This times, on one thread:

- one ``copy_state`` (one record assignment);
- one playout from a copy of a game in the middle of round 2, with every seat random, and with
  every seat greedy (the copy included);

beside one game of the reference game on one thread (benchmarks/reference.py, before and
after: ``reference_game_us``), to which each is also given as a ratio.  Processor time of this
thread, so another job on the machine changes it less than it changes the wall time.  Not a
test: run it by hand on a quiet machine.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import json
import time

import numpy as np
import reference  # benchmarks/reference.py (the script's folder is on the path)

from coltsim._jit import njit
from coltsim.engine.flow import advance, apply
from coltsim.engine.rng import RNG_DECIDE, randint
from coltsim.engine.setup import setup_game
from coltsim.engine.state import (
    G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_ROUND, STATE_DTYPE, alloc_states, copy_state,
    init_table,
)
from coltsim.policies.heuristic import greedy_policy
from coltsim.rules import Rules

PLAYERS = 4


@njit
def _copies(states, n):
    for i in range(n):
        copy_state(states, 1 + (i & 1), states[0])


@njit
def _play_greedy(st):
    while advance(st):
        p = st.game[G_PEND_PLAYER]
        n = st.game[G_PEND_N]
        apply(st, greedy_policy(st, st.game[G_PEND_KIND], st.options[:n], st.params[p],
                                st.rng[RNG_DECIDE + p:RNG_DECIDE + p + 1]))


@njit
def _play_random(st):
    while advance(st):
        apply(st, randint(st.rng, RNG_DECIDE + st.game[G_PEND_PLAYER], st.game[G_PEND_N]))


@njit
def _midgame(states, lineup):
    """Deal game 0 and play it at random into round 2 (index 1), in states[0]."""
    st = states[0]
    setup_game(st, 7, 0, lineup)
    while advance(st) and st.game[G_ROUND] < 1:
        apply(st, randint(st.rng, RNG_DECIDE + st.game[G_PEND_PLAYER], st.game[G_PEND_N]))


@njit
def _playouts(states, n, greedy):
    for _ in range(n):
        copy_state(states, 1, states[0])
        if greedy:
            _play_greedy(states[1])
        else:
            _play_random(states[1])


def measure(copies: int = 2_000_000, playouts: int = 20_000) -> dict:
    before = reference.measure(200_000, threads=1)
    states = alloc_states(3)
    init_table(states[0], PLAYERS, Rules().to_array(), np.zeros(PLAYERS, np.int64),
               np.zeros((PLAYERS, 1)))
    _midgame(states, np.full(PLAYERS, -1, np.int64))
    _copies(states, 10)
    t = time.thread_time()
    _copies(states, copies)
    copy_ns = (time.thread_time() - t) / copies * 1e9
    result = {"state_bytes": STATE_DTYPE.itemsize, "copy_ns": copy_ns}
    for name, greedy in (("random", False), ("greedy", True)):
        _playouts(states, 2, greedy)
        t = time.thread_time()
        _playouts(states, playouts, greedy)
        result[f"playout_{name}_us"] = (time.thread_time() - t) / playouts * 1e6
    after = reference.measure(200_000, threads=1)
    if before is not None:
        game_us = [1e6 / r["games_per_second"] for r in (before, after)]
        result["reference_game_us"] = game_us
        mean = sum(game_us) / 2
        for key in ("copy_ns", "playout_random_us", "playout_greedy_us"):
            scale = 1e-3 if key.endswith("_ns") else 1.0
            result[key.replace("_us", "").replace("_ns", "") + "_ratio"] = \
                result[key] * scale / mean
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=2_000_000)
    parser.add_argument("--playouts", type=int, default=20_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    r = measure(args.copies, args.playouts)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"state: {r['state_bytes']:,} bytes; one copy: {r['copy_ns']:.0f} ns")
        print(f"playout from mid-round 2 (copy included): random {r['playout_random_us']:.1f} us,"
              f" greedy {r['playout_greedy_us']:.1f} us")
        if "reference_game_us" in r:
            ref = r["reference_game_us"]
            print(f"reference game, one thread: {ref[0]:.2f} and {ref[1]:.2f} us a game (before "
                  f"and after); ratios: copy {r['copy_ratio']:.3f}, random playout "
                  f"{r['playout_random_ratio']:.2f}, greedy playout "
                  f"{r['playout_greedy_ratio']:.2f}")


if __name__ == "__main__":
    main()
