"""End to end: simulate 1,000,000 four-player games to a Parquet folder, timed, beside the
reference game.

    python benchmarks/end_to_end.py [--games N] [--policy random] [--params JSON] [--workers N]
                                    [--backend loky|threading] [--chunk-size N] [--out FOLDER]
                                    [--keep] [--reference-games N]

Times ``coltsim.simulate_to_folder`` from the call to the last chunk on disk (warm numba cache: a tiny
run in a subprocess loads or compiles the kernel before the clock starts), then reports the
folder's size and the cores it kept busy: the processor time of this process and of its worker
processes (stopped, so that it is counted) over the wall time.  The reference game
(benchmarks/reference.py, on every core) runs before and after; ``ratio_to_reference`` is the
games/s over the mean of its two.  For peak memory, run it under ``/usr/bin/time -v`` (maximum
resident set size), e.g. with ``--games 10000000``.  Not a test: run it by hand on a quiet
machine.
"""
import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import reference  # benchmarks/reference.py (the script's folder is on the path)

import coltsim


def _cpu_seconds() -> float:
    """Processor time of this process and of its children that have ended."""
    own, children = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                      resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="random", help="policy of every seat (default random: "
                                                           "the engine and the storage)")
    parser.add_argument("--params", default="{}", help='its parameters as JSON, e.g. '
                                                       '\'{"ismcts": {"budget": 64}}\'')
    parser.add_argument("--reference-games", type=int, default=200_000)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--backend", default="loky")
    parser.add_argument("--chunk-size", type=int)
    parser.add_argument("--out", help="results folder (default: a temporary one, removed)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()

    # Warm the kernel cache in a subprocess, so that this process stays as lean as a real run's.
    params = json.loads(args.params)
    setting = coltsim.make_setting(args.players, policies=args.policy, params=params)
    subprocess.run([sys.executable, "-c", f"import coltsim; coltsim.simulate(coltsim.make_setting("
                    f"{args.players}, policies={args.policy!r}, params={params!r}), 1, "
                    "workers=1, progress=False)"], check=True)
    before = reference.measure(args.reference_games)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="coltsim-bench-"))
    try:
        cpu, start = _cpu_seconds(), time.perf_counter()
        info = coltsim.simulate_to_folder(setting, args.games, out, workers=args.workers,
                                          backend=args.backend, chunk_size=args.chunk_size,
                                          progress=not args.quiet)
        seconds = time.perf_counter() - start
        if args.backend == "loky":  # its workers' time is counted once they have ended
            from joblib.externals.loky import get_reusable_executor

            get_reusable_executor().shutdown(wait=True)
        cpu = _cpu_seconds() - cpu
        after = reference.measure(args.reference_games)
        size = sum(p.stat().st_size for p in out.rglob("*.parquet"))
        workers = args.workers or len(os.sched_getaffinity(0))
        r = {
            "games": info.games_run, "seconds": round(seconds, 2),
            "games_per_second": round(info.games_run / seconds, 2), "workers": workers,
            "games_per_second_per_core": round(info.games_run / seconds / workers, 2),
            "cores_busy": round(cpu / seconds, 2),
            "policy": args.policy, "params": params, "backend": args.backend,
            "chunks": info.chunks, "megabytes_on_disk": round(size / 1e6, 1),
            "load_average": os.getloadavg()[0], "folder": str(out),
        }
        if before is not None:
            ref = (before["games_per_second"] + after["games_per_second"]) / 2
            r["reference_games_per_second"] = [before["games_per_second"],
                                               after["games_per_second"]]
            r["ratio_to_reference"] = info.games_run / seconds / ref
        print(json.dumps(r))
    finally:
        if not args.out and not args.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
