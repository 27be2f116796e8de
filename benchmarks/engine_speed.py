"""Engine speed: play 1,000,000 four-player random games in memory, print games/s per core.

    python benchmarks/engine_speed.py [--games N] [--players N] [--policy NAME] [--workers N]

One call of the batch kernel, one block of games per core, no disk: the speed of the rules
engine itself (``coltsim bench`` does the same, plus compile times).  Not a test: run it by hand
on a quiet machine.
"""
import argparse
import json

from coltsim.runs.bench import bench, format_bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="random")
    parser.add_argument("--workers", type=int, help="cores (default: every core)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    r = bench(players=args.players, games=args.games, policy=args.policy, workers=args.workers,
              compile_times=False)
    print(json.dumps(r) if args.json else format_bench(r))


if __name__ == "__main__":
    main()
