"""The default player at every table a designer sets: ``learned`` (DEFAULT) in one seat against
planners, and one planner against a table of ``learned``; the strongest searches against it.

    python benchmarks/default_players.py [--group default] [--deals 300] [--seed 777]
                                         [--weights FILE] [--results FILE] [--top PARAMS]

``--group default``: for each table of ``CASES`` (a player count and rule options), the share of
``learned`` in one seat against planners in every other, every seat rotation of the same deals,
with a 95% interval over deals (coltsim.tournament), beside the fair share; then, at 4 players,
the share of one planner against three ``learned`` (the default as the table).  ``--group
top``: the ladder's top rung at each count (coltsim.policies.top_rung, its leaf the same
network) in one seat against ``learned`` at 3 to 6 players (``--players``; ``--top PARAMS``, a
JSON object, changes some of its parameters: the configurations a top rung is chosen from).  ``--group exploit``: ``ismcts``
of 256 playouts modelling ``learned`` (its opponents and playouts) in one seat against three
``learned``.
``--weights`` plays a weights file of coltsim train instead of the shipped network; each row
names the network by its SHA-256.
Each line is appended to ``--results`` (JSON lines) as it finishes; one already there is not
played again.  Not a test: minutes to an hour on 2 cores, with the deals.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import json
from pathlib import Path

import coltsim
from coltsim.policies import top_rung
from coltsim.policies.weights import NET_FILE, load_net

RESULTS = Path(__file__).resolve().parent / "results" / "default_players.jsonl"
CASES = ((4, {}), (3, {}), (5, {}), (6, {}), (2, {}), (4, {"rounds": 3}),
         (4, {"draw_count": 2}), (4, {"gunslinger_bonus": 0}), (4, {"hand_size": 4}),
         (4, {"advanced": True}))
TABLE = 4  # players of the table of learned one planner plays against
EXPLOIT = {"budget": 256, "opponents": "learned", "playout": "learned"}  # the rest: defaults


def share(policy: str, against: str, players: int, rules: dict, deals: int, seed: int,
          params: dict) -> dict:
    """``policy``'s share in one seat against ``against`` in every other."""
    table = coltsim.make_setting(players, policies=[policy] + [against] * (players - 1),
                                 rules=rules, params=params)
    frame = coltsim.tournament(table, deals, seed, workers=2, chunk_size=25)
    row = frame[frame.policy == policy].iloc[0]
    return {"share": row.win_rate, "low": row.ci_low, "high": row.ci_high,
            "fair": row.fair_share, "ratio": row.win_rate / row.fair_share,
            "games": int(row.games)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group", choices=("default", "top", "exploit"), default="default")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--weights", type=Path, help="a weights file (default: the shipped one)")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--top", type=json.loads, default={},
                        help='--group top: parameters changed, e.g. \'{"opponents": "learned"}\'')
    parser.add_argument("--players", default="3,4,5,6", help="--group top: the player counts")
    args = parser.parse_args(argv)
    weights = args.weights or NET_FILE
    net = load_net(weights)[1]["sha256"]
    files = {"weights": str(weights)} if args.weights else {}
    params = {"learned": files}
    rows = list(map(json.loads, args.results.open())) if args.results.exists() else []
    key = ("policy", "against", "players", "rules", "deals", "seed", "net", "params")
    done = {tuple(json.dumps(r.get(k), sort_keys=True) for k in key) for r in rows}
    plays = {"default": [("learned", "planner", p, r) for p, r in CASES]
             + [("planner", "learned", TABLE, {})],
             "top": [("ismcts", "learned", int(p), {}) for p in args.players.split(",")],
             "exploit": [("ismcts", "learned", TABLE, {})]}[args.group]
    for policy, against, players, rules in plays:
        if args.group == "top":
            params["ismcts"] = dict(top_rung(players)[1], **args.top, **files)
        elif args.group == "exploit":
            params["ismcts"] = dict(EXPLOIT, **files)
        row = {"policy": policy, "against": against, "players": players, "rules": rules,
               "deals": args.deals, "seed": args.seed, "net": net}
        if policy == "ismcts":
            row["params"] = {k: v for k, v in params["ismcts"].items() if k != "weights"}
        if tuple(json.dumps(row.get(k), sort_keys=True) for k in key) in done:
            continue
        row.update(share(policy, against, players, rules, args.deals, args.seed, params))
        args.results.parent.mkdir(parents=True, exist_ok=True)
        with args.results.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"{policy} against {against} at {players} players {rules or ''}: "
              f"{row['share']:.3f} ({row['low']:.3f} to {row['high']:.3f}), "
              f"{row['ratio']:.2f} x the fair share", flush=True)


if __name__ == "__main__":
    main()
