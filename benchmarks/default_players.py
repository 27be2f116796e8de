"""The default player at every player count: ``learned`` (DEFAULT) in one seat against planners.

    python benchmarks/default_players.py [--deals 300] [--seed 777] [--policy learned]
                                         [--results FILE]

For each table of ``CASES`` (a player count and rule options): the share of ``--policy`` in one
seat against planners in every other, every seat rotation of the same deals, with a 95% interval
over deals (coltsim.tournament), beside a fair share.  ``learned``'s network was trained at 4
players; this is what says where it may serve as the default (docs/strength-history.md, "learned
as the default").  Each line is appended to ``--results`` (JSON lines) as it finishes; one already there
is not played again.  Not a test: about two minutes on 2 cores.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import coltsim

RESULTS = Path(__file__).resolve().parent / "results" / "default_players.jsonl"
CASES = ((3, {}), (4, {}), (4, {"advanced": True}), (5, {}), (6, {}), (2, {}))


def share(policy: str, players: int, rules: dict, deals: int, seed: int) -> dict:
    """``policy``'s share in one seat against planners at ``players`` players."""
    table = coltsim.make_setting(players, policies=[policy] + ["planner"] * (players - 1),
                                 rules=rules)
    frame = coltsim.tournament(table, deals, seed, workers=2, chunk_size=25)
    row = frame[frame.policy == policy].iloc[0]
    return {"share": row.win_rate, "low": row.ci_low, "high": row.ci_high,
            "fair": row.fair_share, "games": int(row.games)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--policy", default="learned")
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    rows = list(map(json.loads, args.results.open())) if args.results.exists() else []
    key = ("policy", "players", "rules", "deals", "seed")
    done = {tuple(json.dumps(r[k], sort_keys=True) for k in key) for r in rows}
    for players, rules in CASES:
        row = {"policy": args.policy, "players": players, "rules": rules, "deals": args.deals,
               "seed": args.seed}
        if tuple(json.dumps(row[k], sort_keys=True) for k in key) in done:
            continue
        row.update(share(args.policy, players, rules, args.deals, args.seed))
        args.results.parent.mkdir(parents=True, exist_ok=True)
        with args.results.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"{args.policy} at {players} players {rules or ''}: {row['share']:.3f} "
              f"({row['low']:.3f} to {row['high']:.3f}), fair {row['fair']:.3f}", flush=True)


if __name__ == "__main__":
    main()
