"""The reference game (``../shared/bench/reference_game.py``): a simplified Colt-Express-like
numba kernel that every speed, compile and suite time of coltsim is quoted against, measured in
the same run.  It stays where it is (it is not part of coltsim): when the path does not exist,
the benchmarks print coltsim's figures alone and say so.

    python benchmarks/reference.py [--games N] [--threads N] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "shared" / "bench" / "reference_game.py"


def available() -> bool:
    return SCRIPT.exists()


def measure(games: int = 1_000_000, threads: int | None = None) -> dict | None:
    """Run the reference game once in a fresh process: its compile seconds (it compiles on every
    run), its games/s on every core (or on ``threads`` of numba's threads: 1 beside coltsim's
    one-thread figures) and its thread count; None when it is not there."""
    if not available():
        return None
    env = dict(os.environ, **({"NUMBA_NUM_THREADS": str(threads)} if threads else {}))
    out = subprocess.run([sys.executable, str(SCRIPT), str(games)], capture_output=True,
                         text=True, check=True, env=env).stdout
    compile_s = float(re.search(r"compile ([\d.]+)s", out).group(1))
    m = re.search(r"= ([\d,]+) games/s on (\d+) threads", out)
    return {"compile_seconds": compile_s, "games_per_second": float(m.group(1).replace(",", "")),
            "threads": int(m.group(2))}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--threads", type=int, help="numba threads (default: every core)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    r = measure(args.games, args.threads)
    if r is None:
        print(f"no reference game at {SCRIPT}")
    elif args.json:
        print(json.dumps(r))
    else:
        print(f"reference game: compile {r['compile_seconds']:.2f} s, "
              f"{r['games_per_second']:,.0f} games/s on {r['threads']} threads")


if __name__ == "__main__":
    main()
