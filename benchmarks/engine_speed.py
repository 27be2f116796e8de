"""Engine speed: play 1,000,000 four-player games in memory on every core, beside the reference
game, and print both and their ratio.

    python benchmarks/engine_speed.py [--games N] [--players N] [--policy NAME] [--workers N]
                                      [--reference-games N] [--json]

One call of the batch kernel per batch, one block of games per core, no disk: the speed of the
rules engine itself (``coltsim bench`` does the same, plus compile times).  The reference game
(``../shared/bench/reference_game.py``, benchmarks/reference.py) runs before and after coltsim,
and the ratio is to the mean of its two runs, so that a machine whose speed drifts during the
run is seen (both reference figures are printed).  Not a test: run it by hand on a quiet machine.
"""
import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import json

import reference  # benchmarks/reference.py (the script's folder is on the path)

from coltsim.runs.bench import bench, format_bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="random")
    parser.add_argument("--workers", type=int, help="cores (default: every core)")
    parser.add_argument("--reference-games", type=int, default=1_000_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    before = reference.measure(args.reference_games)
    r = bench(players=args.players, games=args.games, policy=args.policy, workers=args.workers,
              compile_times=False)
    after = reference.measure(args.reference_games)
    if before is not None:
        ref = (before["games_per_second"] + after["games_per_second"]) / 2
        r["reference_games_per_second"] = [before["games_per_second"], after["games_per_second"]]
        r["ratio_to_reference"] = r["games_per_second"] / ref
    if args.json:
        print(json.dumps(r))
        return
    print(format_bench(r))
    if before is None:
        print(f"  (no reference game at {reference.SCRIPT}: no ratio)")
    else:
        print(f"  reference game: {before['games_per_second']:,.0f} and "
              f"{after['games_per_second']:,.0f} games/s on {before['threads']} threads "
              f"(before and after); coltsim / reference = {r['ratio_to_reference']:.3f}")


if __name__ == "__main__":
    main()
