"""Strength of the search policies per budget: one searching player against three greedy players.

    python scripts/search_strength.py [--games N] [--seed S] [--budgets B ...]
                                      [--rollout-budget B] [--also NAME ...]

4-player tables, seats rotated, identical deals (coltsim.runs.match): ``ismcts`` at each
budget and ``rollout`` at one, each against three ``greedy`` players, then each policy of
``--also`` (default ``planner`` and ``learned``, the fast players) the same way.  For every
table it prints the player's victory share per seat with its 95% interval over deals, and its
paired difference with the rollout table on the same deals (the deals and rotations are
identical, so the difference is measured far more sharply than the two shares), and the wall
time of the table (one thread), beside the reference game's games/s on one thread measured
before and after (benchmarks/reference.py).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from coltsim.analysis.stats import paired_difference
from coltsim.policies.catalog import param_vector
from coltsim.runs.match import Seat, play_seats, play_table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import reference  # noqa: E402  (benchmarks/reference.py: the reference game)


def table(name: str, params: dict, games: int, seed: int):
    """The share of ``name`` (with ``params``) against three greedy players (the one
    tournament, coltsim.runs.match: its estimate, with its share per deal) and the seconds
    taken."""
    me = Seat(name, tuple(param_vector(name, params)))
    t = time.perf_counter()
    share = play_table([me, "greedy", "greedy", "greedy"], games, seed, play_seats())[me]
    return share, share.per_deal, time.perf_counter() - t


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="deals per table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budgets", type=int, nargs="*", default=[32, 64, 128, 512])
    parser.add_argument("--rollout-budget", type=int, default=64)
    parser.add_argument("--also", nargs="*", default=["planner", "learned"],
                        help="other policies against three greedy (default: planner learned)")
    args = parser.parse_args(argv)
    specs = [("rollout", {"budget": args.rollout_budget})]
    specs += [("ismcts", {"budget": b}) for b in args.budgets]
    specs += [(name, {}) for name in args.also]
    before = reference.measure(200_000, threads=1)
    baseline = None
    print(f"{'policy':10s} {'budget':>6s} {'win':>6s} {'95% interval':>15s} "
          f"{'- rollout':>10s} {'95% interval':>17s} {'seconds':>8s}")
    for name, params in specs:
        share, per_deal, seconds = table(name, params, args.games, args.seed)
        if baseline is None:
            baseline = per_deal
        d = paired_difference(per_deal, baseline)
        print(f"{name:10s} {params.get('budget', ''):>6} {share.share:6.3f} "
              f"[{share.lo:.3f}, {share.hi:.3f}] {d.estimate:+10.3f} "
              f"[{d.lo:+.3f}, {d.hi:+.3f}] {seconds:8.0f}", flush=True)
    after = reference.measure(200_000, threads=1)
    if before is not None:
        print(f"reference game, one thread: {before['games_per_second']:,.0f} and "
              f"{after['games_per_second']:,.0f} games/s (before and after)")


if __name__ == "__main__":
    main()
