"""Strength against cost of the search configurations: the tables of docs/strength-history.md.

    python benchmarks/search_cost.py [--deals 500] [--speed-games 24] [--seed 4242]
                                     [--only LABEL ...] [--results FILE]

For every configuration of ``CONFIGS`` (an ``ismcts`` parameter set): its victory share in one
seat against three planners, and against three DEFAULT (``learned``; a line of its own) (4
players, seats rotated, the same deals: coltsim.tournament, a 95% interval over deals), then its
games/s with the configuration in every seat on every core (the workers' start and the kernel's
load left out by a first short run), beside the reference game's games/s on every core measured
just before and after (benchmarks/reference.py): the ratio is the figure to compare between
machines (issue 28's bar for the top rung: 6e-5).  Each configuration's line is appended to
``--results`` (JSON lines) as it finishes; a configuration already there is not played again,
so a stopped run resumes.  Not a test: it takes about an hour on 2 cores.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import json
import time
from pathlib import Path

import reference  # benchmarks/reference.py (the script's folder is on the path)

import coltsim
from coltsim.setting import DEFAULT_POLICY

RESULTS = Path(__file__).resolve().parent / "results" / "search_cost.jsonl"
PLAYERS = 4
# label -> ismcts parameters.  "top64" is the ladder's top rung before issue 28.
PLANNERS = {"opponents": "planner", "playout": "planner"}
CONFIGS = {
    "top64": {"budget": 64, **PLANNERS, "horizon": 2},
    "h1-score-16": {"budget": 16, **PLANNERS, "horizon": 1},
    "h1-learned-16": {"budget": 16, **PLANNERS, "horizon": 1, "leaf": "learned"},
    "h1-learned-32": {"budget": 32, **PLANNERS, "horizon": 1, "leaf": "learned"},
    "h1-learned-64": {"budget": 64, **PLANNERS, "horizon": 1, "leaf": "learned"},
    "h2-learned-16": {"budget": 16, **PLANNERS, "horizon": 2, "leaf": "learned"},
    "greedy-h1-learned-64": {"budget": 64, "opponents": "planner", "playout": "greedy",
                             "horizon": 1, "leaf": "learned"},
    "greedy-all-h1-learned-64": {"budget": 64, "opponents": "greedy", "playout": "greedy",
                                 "horizon": 1, "leaf": "learned"},
    "h1-learned-24": {"budget": 24, **PLANNERS, "horizon": 1, "leaf": "learned"},
    "w4-h1-learned-32": {"budget": 32, **PLANNERS, "horizon": 1, "leaf": "learned", "width": 4},
    "w3-h1-learned-24": {"budget": 24, **PLANNERS, "horizon": 1, "leaf": "learned", "width": 3},
    "w4-h1-learned-24": {"budget": 24, **PLANNERS, "horizon": 1, "leaf": "learned", "width": 4},
    "w4-h1-learned-28": {"budget": 28, **PLANNERS, "horizon": 1, "leaf": "learned", "width": 4},
    "w4-h1-learned-40": {"budget": 40, **PLANNERS, "horizon": 1, "leaf": "learned", "width": 4},
    "w4-h1-learned-48": {"budget": 48, **PLANNERS, "horizon": 1, "leaf": "learned", "width": 4},
    "w4-h1-learned-64": {"budget": 64, **PLANNERS, "horizon": 1, "leaf": "learned", "width": 4},
    # the opponents modelled as the default, the playouts as planners
    "lo-w4-h1-learned-32": {"budget": 32, "opponents": "learned", "playout": "planner",
                            "horizon": 1, "leaf": "learned", "width": 4},
    "lo-w4-h1-learned-64": {"budget": 64, "opponents": "learned", "playout": "planner",
                            "horizon": 1, "leaf": "learned", "width": 4},
    # only the game's last rounds searched (``rounds``), the network playing the others
    "r1-lo-w4-h1-learned-64": {"budget": 64, "opponents": "learned", "playout": "planner",
                               "horizon": 1, "leaf": "learned", "width": 4, "rounds": 1},
    "r2-lo-w4-h1-learned-64": {"budget": 64, "opponents": "learned", "playout": "planner",
                               "horizon": 1, "leaf": "learned", "width": 4, "rounds": 2},
    "r1-lo-w4-h1-learned-256": {"budget": 256, "opponents": "learned", "playout": "planner",
                                "horizon": 1, "leaf": "learned", "width": 4, "rounds": 1},
    "r1-lo-w4-h1-learned-80": {"budget": 80, "opponents": "learned", "playout": "planner",
                               "horizon": 1, "leaf": "learned", "width": 4, "rounds": 1},
    "r1-lo-w3-h1-learned-64": {"budget": 64, "opponents": "learned", "playout": "planner",
                               "horizon": 1, "leaf": "learned", "width": 3, "rounds": 1},
    "r1-w4-h1-learned-128": {"budget": 128, **PLANNERS, "horizon": 1, "leaf": "learned",
                             "width": 4, "rounds": 1},
    "r1-w4-h1-learned-256": {"budget": 256, **PLANNERS, "horizon": 1, "leaf": "learned",
                             "width": 4, "rounds": 1},
    "r2-w4-h1-learned-64": {"budget": 64, **PLANNERS, "horizon": 1, "leaf": "learned",
                            "width": 4, "rounds": 2},
    "r2-lo-w4-h1-learned-32": {"budget": 32, "opponents": "learned", "playout": "planner",
                               "horizon": 1, "leaf": "learned", "width": 4, "rounds": 2},
    "r2-lo-w4-h1-learned-128": {"budget": 128, "opponents": "learned", "playout": "planner",
                                "horizon": 1, "leaf": "learned", "width": 4, "rounds": 2},
}


def share(params: dict, opponent: str, deals: int, seed: int) -> dict:
    """The search's share in one seat against three ``opponent`` players."""
    table = coltsim.make_setting(PLAYERS, policies=["ismcts"] + [opponent] * (PLAYERS - 1),
                                 params={"ismcts": params})
    frame = coltsim.tournament(table, deals, seed, workers=2, chunk_size=25)
    row = frame[frame.policy == "ismcts"].iloc[0]
    return {"share": row.win_rate, "low": row.ci_low, "high": row.ci_high}


def every_seat_speed(params: dict, games: int) -> dict:
    """Games/s with the search in every seat on every core, and the reference game's around it."""
    setting = coltsim.make_setting(PLAYERS, policies="ismcts", params={"ismcts": params})
    chunk = max(1, games // 4)
    coltsim.simulate(setting, 2, seed=1, workers=2, chunk_size=1, progress=False)  # load
    before = reference.measure(1_000_000)
    start = time.perf_counter()
    coltsim.simulate(setting, games, seed=2, workers=2, chunk_size=chunk, progress=False)
    rate = games / (time.perf_counter() - start)
    after = reference.measure(1_000_000)
    out = {"games_per_second": rate}
    if before is not None:
        ref = (before["games_per_second"] + after["games_per_second"]) / 2
        out.update(reference_games_per_second=[before["games_per_second"],
                                               after["games_per_second"]],
                   ratio=rate / ref)
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--speed-games", type=int, default=24)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--only", nargs="*", choices=sorted(CONFIGS), default=None)
    parser.add_argument("--measure", nargs="*", choices=["strength", "speed"],
                        default=["strength", "speed"],
                        help="the shares (any machine) or the speed (a quiet one)")
    parser.add_argument("--weights", type=Path, default=None,
                        help="the network of every configuration (a coltsim train weights "
                             "file; default: each configuration's)")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    rows = list(map(json.loads, args.results.open())) if args.results.exists() else []
    done = {(r["label"], r["kind"], r.get("deals"), r.get("seed"), r.get("games")) for r in rows}
    for label in args.only or CONFIGS:
        params = CONFIGS[label]
        if args.weights is not None:
            params = {**params, "weights": str(args.weights)}
            label = f"{label}@{args.weights.stem}"
        if "strength" in args.measure and (label, "strength", args.deals, args.seed,
                                           None) not in done:
            row = {"label": label, "kind": "strength", "params": params, "deals": args.deals,
                   "seed": args.seed, "vs_planner": share(params, "planner", args.deals,
                                                          args.seed)}
            _append(args.results, row)
            _say(label, row["vs_planner"], "planners", args.deals)
        if "strength" in args.measure and DEFAULT_POLICY != "planner" and (
                label, f"vs_{DEFAULT_POLICY}", args.deals, args.seed, None) not in done:
            row = {"label": label, "kind": f"vs_{DEFAULT_POLICY}", "params": params,
                   "deals": args.deals, "seed": args.seed,
                   "vs_default": share(params, DEFAULT_POLICY, args.deals, args.seed)}
            _append(args.results, row)
            _say(label, row["vs_default"], f"{DEFAULT_POLICY} (DEFAULT)", args.deals)
        if "speed" in args.measure and (label, "speed", None, None,
                                        args.speed_games) not in done:
            row = {"label": label, "kind": "speed", "params": params, "games": args.speed_games,
                   **every_seat_speed(params, args.speed_games)}
            _append(args.results, row)
            print(f"{label}: every seat {row['games_per_second']:.2f} games/s"
                  + (f" = {row['ratio']:.2e} of the reference" if "ratio" in row else ""),
                  flush=True)


def _say(label: str, s: dict, against: str, deals: int) -> None:
    print(f"{label}: {s['share']:.3f} ({s['low']:.3f} to {s['high']:.3f}) against three "
          f"{against} on {deals} deals x {PLAYERS}", flush=True)


def _append(path: Path, row: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(json.dumps(row) + "\n")

if __name__ == "__main__":
    main()
