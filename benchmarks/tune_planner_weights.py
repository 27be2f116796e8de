"""Tune the planner's weights (its parameters, not the rules: that is ``coltsim tune``) by
self-play, for the default rules or any other rule options.

    python benchmarks/tune_planner_weights.py [--generations 50] [--games 600] [--players 4]
        [--rules '{"gunslinger_bonus": 0}'] [--start weights.json] [--out weights.json]

An antithetic evolution strategy on common deals: each generation draws ``--pairs`` random
directions in weight space (scaled per weight by ``SCALE``), plays the weights moved both ways
along each, and steps along the directions that won more.  A candidate's score is its share of
victories against three copies of the current weights plus its share against three greedy
players, over the same ``--games`` deals (each deal once per seat rotation: the one tournament,
coltsim.runs.match) for every candidate of a generation.  The output file holds the final
weights by name (give them to the policy as ``params={"planner": {...}}``), the rules they were
tuned for, and the trajectory.  About 8 s
per generation of 600 deals on one core; the bundled defaults (``planner.DEFAULT_WEIGHTS``) came
from 170 generations at 4 players with the default rules.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import json
import time

import numpy as np

from coltsim.engine.state import N_PARAMS
from coltsim.policies import planner as PL
from coltsim.rules import Rules
from coltsim.runs.match import Seat, play_seats, play_table

NAMES = PL.PARAM_NAMES
# Step scale of each weight, and its bounds.
SCALE = np.array([0.15, 0.1, 0.15, 20, 0.2, 0.15, 30, 10, 30, 30, 10, 0.1])
LOW = np.array([0, 0, 0, 0, 0.02, 0, -50, -20, -100, 0, -20, 0])
HIGH = np.array([2, 2, 1, 300, 3, 1, 400, 200, 400, 400, 100, 1])


def planner_seat(weights) -> Seat:
    """The planner with ``weights`` (its first parameters; the rest of its row 0)."""
    row = np.zeros(N_PARAMS)
    row[:len(weights)] = weights
    return Seat("planner", tuple(float(x) for x in row))


def share(first: np.ndarray, others, games: int, seed: int, players: int, rules: Rules) -> float:
    """Victory share of weights ``first`` in one seat against ``others`` in every other seat
    (weights, or a built-in policy name), each deal played in every seat rotation: the one
    tournament (coltsim.runs.match), every seat with its own parameter row."""
    me = planner_seat(first)
    them = others if isinstance(others, str) else planner_seat(others)
    return play_table([me] + [them] * (players - 1), games, seed, play_seats(rules))[me].share


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generations", type=int, default=50)
    parser.add_argument("--games", type=int, default=600, help="deals per candidate and opponent")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rules", default="{}", help="rule options as JSON")
    parser.add_argument("--pairs", type=int, default=4, help="directions tried per generation")
    parser.add_argument("--sigma", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--start", help="weights file to start from (default: the defaults)")
    parser.add_argument("--out", default="planner_weights.json")
    args = parser.parse_args(argv)
    rules = Rules.from_dict(json.loads(args.rules))
    theta = PL.DEFAULT_WEIGHTS[:len(NAMES)].copy()
    if args.start:
        start = json.loads(open(args.start).read())["weights"]
        theta = np.array([start[name] for name in NAMES])
    rng = np.random.default_rng(args.seed)
    trajectory = []
    for g in range(args.generations):
        t0 = time.perf_counter()
        seed = args.seed + g  # new deals every generation, the same for all its candidates
        directions = rng.standard_normal((args.pairs, len(theta)))
        score = np.zeros((args.pairs, 2))
        for k, d in enumerate(directions):
            for j, sign in enumerate((1, -1)):
                cand = np.clip(theta + sign * args.sigma * d * SCALE, LOW, HIGH)
                score[k, j] = (share(cand, theta, args.games, seed, args.players, rules)
                               + share(cand, "greedy", args.games, seed + 1, args.players,
                                       rules))
        grad = ((score[:, 0] - score[:, 1])[:, None] * directions).sum(axis=0)
        grad /= 2 * args.pairs * args.sigma
        # A step of at most 0.3 sigma along the best-estimated weight, smaller when unsure.
        top = np.abs(grad).max()
        step = 0.6 * args.sigma * grad / max(top, 1e-12) * min(1.0, top / 0.02)
        theta = np.clip(theta + step * SCALE, LOW, HIGH)
        trajectory.append([round(float(v), 4) for v in theta])
        print(f"{g} {time.perf_counter() - t0:.1f}s score {score.mean():.4f} "
              + " ".join(f"{n}={v:.3g}" for n, v in zip(NAMES, theta)), flush=True)
        # The weights to use: the mean of the last third of the trajectory (the steps are noisy).
        final = np.mean(trajectory[-max(1, len(trajectory) // 3):], axis=0)
        with open(args.out, "w") as f:
            json.dump({"weights": dict(zip(NAMES, [round(float(v), 4) for v in final])),
                       "rules": rules.as_dict(), "players": args.players,
                       "generations": g + 1, "games": args.games, "trajectory": trajectory},
                      f, indent=1)


if __name__ == "__main__":
    main()
