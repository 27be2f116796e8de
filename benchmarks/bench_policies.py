"""Speed of the policies, on one thread, beside the reference game on one thread.

    python benchmarks/bench_policies.py [--games N] [--learned-games N] [--rollout-games N]
                                        [--ismcts-budgets B ...] [--json]

Prints games per second of 4-player games with every seat ``random``, every seat ``greedy``
(and one greedy among three random), every seat ``planner`` and every seat ``learned``,
decisions per second of ``rollout`` at its default budget and of ``ismcts`` at each budget of
``--ismcts-budgets`` (one searching seat against three greedy), and the one-off compile time of a
kernel specialised on a user policy.  The reference game (benchmarks/reference.py) runs on one
of numba's threads before and after, and every rate is also given as a ratio to the mean of its
two rates, the compile as a ratio to the mean of its two compiles (``*_ratio``): the figures to
compare between machines.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import json
import time

import numba
import numpy as np
import reference  # benchmarks/reference.py (the script's folder is on the path)

from coltsim.engine.flow import advance, apply
from coltsim.engine.scoring import RB_N, RG_N
from coltsim.engine.setup import setup_game
from coltsim.engine.state import G_PEND_PLAYER, init_table
from coltsim.playout import Table, batch_kernel, choose, new_kernel_states
from coltsim.policies import resolve_policies
from coltsim.policies.catalog import DEFAULT_BUDGET
from coltsim.rules import Rules

PLAYERS = 4


def _play(kernel, seats, games, seed=0, first=0):
    out_b = np.zeros((games, PLAYERS, RB_N), np.int32)
    out_g = np.zeros((games, RG_N), np.int32)
    lineups = np.full((1, PLAYERS), -1, np.int64)
    t = time.perf_counter()
    kernel(new_kernel_states(), seed, first, lineups, seats.seat_policy, seats.params,
           seats.nets, Rules().to_array(), out_b, out_g)
    return time.perf_counter() - t, out_g


def games_per_second(policies, games):
    seats = resolve_policies(PLAYERS, policies)
    kernel = batch_kernel(seats.choosers, seats.functions)
    _play(kernel, seats, 4)  # compile or load from the cache
    seconds, _ = _play(kernel, seats, games, first=10_000)
    return games / seconds


@numba.njit
def _count_seat0_decisions(table, states, seed, first, games, lineup, nets):
    """Play games of ``table`` (a playout.Table) on ``states[0]`` (``states[1:]``: the
    choosers' scratch); returns how many decisions seat 0 made."""
    st = states[0]
    n = 0
    for g in range(first, first + games):
        setup_game(st, seed, g, lineup)
        while advance(st):
            n += st.game[G_PEND_PLAYER] == 0
            apply(st, choose(table, st, states[1:], nets))
    return n


def search_decisions_per_second(name, params, games):
    """Decisions of the searching seat per second, one ``name`` (with ``params``) against three
    greedy (the greedy seats' decisions take microseconds and are counted in the time)."""
    seats = resolve_policies(PLAYERS, [name, "greedy", "greedy", "greedy"], {name: params})
    states = new_kernel_states()
    init_table(states[0], PLAYERS, Rules().to_array(), seats.seat_policy, seats.params)
    lineup = np.full(PLAYERS, -1, np.int64)
    table = Table(seats.choosers)
    _count_seat0_decisions(table, states, 0, 0, 1, lineup, seats.nets)
    t = time.perf_counter()
    n = _count_seat0_decisions(table, states, 0, 20_000, games, lineup, seats.nets)
    seconds = time.perf_counter() - t
    return n / seconds, seconds / games


def user_compile_seconds():
    """Compile time of a kernel specialised on a new user policy (a fresh function object)."""
    src = ("def user_policy(obs, kind, options, params, rng):\n"
           "    return greedy_policy(obs, kind, options, params, rng)\n")
    ns = {}
    exec(src, {"greedy_policy": __import__("coltsim.policies.heuristic",
                                           fromlist=["greedy_policy"]).greedy_policy}, ns)
    fn = numba.njit(ns["user_policy"])
    seats = resolve_policies(PLAYERS, [fn, "greedy", "random", "random"])
    t = time.perf_counter()
    kernel = batch_kernel(seats.choosers, seats.functions)
    _play(kernel, seats, 1)
    return time.perf_counter() - t


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--learned-games", type=int, default=2_000)
    parser.add_argument("--rollout-games", type=int, default=10)
    parser.add_argument("--ismcts-budgets", type=int, nargs="*", default=[32, 64, 128, 512])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    before = reference.measure(200_000, threads=1)
    result = {
        "players": PLAYERS,
        "random_games_per_second": games_per_second("random", args.games),
        "greedy_games_per_second": games_per_second("greedy", args.games),
        "greedy_vs_3_random_games_per_second": games_per_second(
            ["greedy", "random", "random", "random"], args.games),
        "planner_games_per_second": games_per_second("planner", args.games),
        "learned_games_per_second": games_per_second("learned", args.learned_games),
        "rollout_budget": DEFAULT_BUDGET,
    }
    dps, spg = search_decisions_per_second("rollout", {}, args.rollout_games)
    result["rollout_decisions_per_second"] = dps
    result["rollout_seconds_per_game"] = spg
    for budget in args.ismcts_budgets:  # fewer games at a larger budget: about as long each
        games = max(2, args.rollout_games * 64 // budget)
        dps, spg = search_decisions_per_second("ismcts", {"budget": budget}, games)
        result[f"ismcts_{budget}_decisions_per_second"] = dps
        result[f"ismcts_{budget}_seconds_per_game"] = spg
    result["user_policy_compile_seconds"] = user_compile_seconds()
    after = reference.measure(200_000, threads=1)
    if before is not None:
        ref = (before["games_per_second"] + after["games_per_second"]) / 2
        result["reference_games_per_second_one_thread"] = [before["games_per_second"],
                                                           after["games_per_second"]]
        for key in [k for k in result if k.endswith("_per_second")]:
            result[key.replace("_per_second", "_ratio")] = result[key] / ref
        compiles = [before["compile_seconds"], after["compile_seconds"]]
        result["reference_compile_seconds"] = compiles
        result["user_policy_compile_ratio"] = result["user_policy_compile_seconds"] / (
            sum(compiles) / 2)
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:40s} {v:,.3g}" if isinstance(v, float) and v < 10 else
                  f"{k:40s} {v:,.1f}" if isinstance(v, float) else f"{k:40s} {v}")
        if before is None:
            print(f"(no reference game at {reference.SCRIPT}: no ratios)")


if __name__ == "__main__":
    main()
