"""The cold quickstart: ``coltsim run experiments/quickstart.toml --games 500`` from an empty
numba cache (every compile included), as a whole process, with the reference game's compile
measured before and after it in the same run, and their ratio (benchmarks/results/first_start.jsonl
keeps the figures; docs/benchmarks.md shows them).

    python benchmarks/cold_quickstart.py [--games 500] [--runs N] [--json]

Each run uses a new empty ``NUMBA_CACHE_DIR`` and a new output folder; the ratio is to the mean
of the reference game's two compile times around it.  Not a test: run it by hand.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import reference  # benchmarks/reference.py (the script's folder is on the path)

ROOT = Path(__file__).resolve().parents[1]


def cold_seconds(games: int) -> float:
    """Seconds of one ``coltsim run`` of the quickstart with ``games`` games, cache empty."""
    with tempfile.TemporaryDirectory(prefix="coltsim-cold-") as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba"), "MPLBACKEND": "Agg"}
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "coltsim.cli", "run",
                        str(ROOT / "experiments" / "quickstart.toml"), "--games", str(games),
                        "--out", str(Path(tmp) / "report"), "--quiet"],
                       env=env, check=True, capture_output=True, cwd=tmp)
        return time.perf_counter() - start


def measure(games: int) -> dict:
    before = reference.measure(100_000)
    seconds = cold_seconds(games)
    after = reference.measure(100_000)
    result = {"games": games, "cold_seconds": seconds}
    if before is not None:
        ref = [before["compile_seconds"], after["compile_seconds"]]
        result["reference_compile_seconds"] = ref
        result["ratio"] = seconds / (sum(ref) / 2)
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    for _ in range(args.runs):
        r = measure(args.games)
        if args.json:
            print(json.dumps(r), flush=True)
            continue
        ref = r.get("reference_compile_seconds")
        print(f"cold quickstart ({args.games} games): {r['cold_seconds']:.1f} s"
              + (f"; reference game compile {ref[0]:.1f} s and {ref[1]:.1f} s: "
                 f"{r['ratio']:.1f} times" if ref else "; no reference game, no ratio"),
              flush=True)


if __name__ == "__main__":
    main()
