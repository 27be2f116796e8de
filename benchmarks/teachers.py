"""The teacher search at every player count: which ``ismcts`` configuration ``coltsim train
--teacher`` should label decisions with (coltsim/learn/config.py, ``TEACHERS``).

    python benchmarks/teachers.py PLAYERS [CONFIG ...] [--deals 100] [--seed 4242]
                                  [--results FILE]

For each configuration of ``CONFIGS`` named (default: all), the share of one ``ismcts`` seat of
64 playouts (planners as its models, every option searched) against planners in every other
seat, every seat rotation of the same deals, with a 95% interval over deals
(coltsim.tournament), and its ratio to the fair share.  Each line is appended to ``--results``
(JSON lines) as it finishes; one already there is not played again.  Not a test: minutes per
configuration on 2 cores.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import json
import time
from pathlib import Path

import coltsim

RESULTS = Path(__file__).resolve().parent / "results" / "teachers.jsonl"
BASE = {"budget": 64, "opponents": "planner", "playout": "planner", "width": 0}
CONFIGS = {  # label -> how a playout ends and is valued
    "h1L": {"horizon": 1, "leaf": "learned"},  # the round's end, the shipped network's value
    "h1": {"horizon": 1, "leaf": "score"},  # the round's end, scored as the game would end
    "h2": {"horizon": 2, "leaf": "score"},  # two rounds, scored
    "h0": {"horizon": 0, "leaf": "score"},  # the game's end
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("players", type=int)
    parser.add_argument("configs", nargs="*", default=list(CONFIGS),
                        help=f"of {', '.join(CONFIGS)} (default: all)")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    unknown = [c for c in args.configs if c not in CONFIGS]
    if unknown:
        parser.error(f"unknown configuration {unknown[0]!r}; allowed: {', '.join(CONFIGS)}")
    rows = list(map(json.loads, args.results.open())) if args.results.exists() else []
    done = {(r["players"], r["config"], r["deals"], r["seed"]) for r in rows}
    for label in args.configs:
        if (args.players, label, args.deals, args.seed) in done:
            continue
        start = time.perf_counter()
        table = coltsim.make_setting(
            args.players, policies=["ismcts"] + ["planner"] * (args.players - 1),
            params={"ismcts": {**BASE, **CONFIGS[label]}})
        frame = coltsim.tournament(table, args.deals, args.seed, workers=2, chunk_size=25,
                                   progress=False)
        r = frame[frame.policy == "ismcts"].iloc[0]
        row = {"players": args.players, "config": label, "params": {**BASE, **CONFIGS[label]},
               "deals": args.deals, "seed": args.seed, "share": r.win_rate, "lo": r.ci_low,
               "hi": r.ci_high, "fair": r.fair_share, "ratio": r.win_rate / r.fair_share,
               "seconds": round(time.perf_counter() - start)}
        args.results.parent.mkdir(parents=True, exist_ok=True)
        with args.results.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"{label} at {args.players} players: {row['share']:.3f} ({row['lo']:.3f} to "
              f"{row['hi']:.3f}), {row['ratio']:.2f} x the fair share", flush=True)


if __name__ == "__main__":
    main()
