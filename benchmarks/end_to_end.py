"""End to end: simulate 1,000,000 four-player games to a Parquet folder, timed.

    python benchmarks/end_to_end.py [--games N] [--policy random] [--workers N]
                                    [--backend loky|threading] [--chunk-size N] [--out FOLDER]
                                    [--keep]

Times ``coltsim.simulate_to_folder`` from the call to the last chunk on disk (warm numba cache: a tiny
run in a subprocess loads or compiles the kernel before the clock starts), then reports the
folder's size.
For peak memory, run it under ``/usr/bin/time -v`` (maximum resident set size), e.g. with
``--games 10000000``.  Not a test: run it by hand on a quiet machine.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import coltsim


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="random", help="policy of every seat (default random: "
                                                           "the engine and the storage)")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--backend", default="loky")
    parser.add_argument("--chunk-size", type=int)
    parser.add_argument("--out", help="results folder (default: a temporary one, removed)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()

    # Warm the kernel cache in a subprocess, so that this process stays as lean as a real run's.
    setting = coltsim.make_setting(args.players, policies=args.policy)
    subprocess.run([sys.executable, "-c", f"import coltsim; coltsim.simulate(coltsim.make_setting("
                    f"{args.players}, policies={args.policy!r}), 10, workers=1, progress=False)"],
                   check=True)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="coltsim-bench-"))
    try:
        start = time.perf_counter()
        info = coltsim.simulate_to_folder(setting, args.games, out, workers=args.workers,
                                          backend=args.backend, chunk_size=args.chunk_size,
                                          progress=not args.quiet)
        seconds = time.perf_counter() - start
        size = sum(p.stat().st_size for p in out.rglob("*.parquet"))
        workers = args.workers or len(os.sched_getaffinity(0))
        print(json.dumps({
            "games": info.games_run, "seconds": round(seconds, 2),
            "games_per_second": round(info.games_run / seconds, 1), "workers": workers,
            "games_per_second_per_core": round(info.games_run / seconds / workers, 1),
            "policy": args.policy, "backend": args.backend, "chunks": info.chunks,
            "megabytes_on_disk": round(size / 1e6, 1),
            "folder": str(out),
        }))
    finally:
        if not args.out and not args.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
