"""Compile time: the quickstart's first start with an empty numba cache, its start with the cache
filled, and the reference game's compile, measured in one go, with their ratios.

    python benchmarks/compile_time.py [--policies NAME ...] [--runs N] [--json]

For each policy (default: the quickstart's, coltsim.policies.DEFAULT, then ``random`` and
``greedy``) a fresh Python process imports coltsim and plays a first game of a 4-player table
with that policy in every seat, as ``coltsim run`` does before its progress bar: once with an
empty ``NUMBA_CACHE_DIR`` (cold: the engine and the policy are compiled) and once more with the
same folder (cached).  The reference game (benchmarks/reference.py) compiles on every run; it
runs before and after, and the ratios are to the mean of its two compile times.  The cold figure
of each part is what ``coltsim._jit.COMPILE_SECONDS`` quotes in the compile notice.  Not a test:
run it by hand on a quiet machine.
"""
from __future__ import annotations

import argparse
import json
import tempfile

import reference  # benchmarks/reference.py (the script's folder is on the path)

from coltsim.policies import DEFAULT
from coltsim.runs.bench import compile_seconds


def measure(policies) -> dict:
    before = reference.measure(100_000)
    rows = []
    for policy in policies:
        with tempfile.TemporaryDirectory(prefix="coltsim-numba-") as cache:
            cold = compile_seconds(4, policy, cache)
            cached = compile_seconds(4, policy, cache)
        rows.append({"policy": policy, "cold_seconds": cold, "cached_seconds": cached})
    after = reference.measure(100_000)
    result = {"policies": rows}
    if before is not None:
        ref = (before["compile_seconds"] + after["compile_seconds"]) / 2
        result["reference_compile_seconds"] = [before["compile_seconds"],
                                               after["compile_seconds"]]
        for row in rows:
            row["cold_ratio"] = row["cold_seconds"] / ref
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", nargs="*", default=[DEFAULT, "random", "greedy"])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    for _ in range(args.runs):
        r = measure(args.policies)
        if args.json:
            print(json.dumps(r))
            continue
        ref = r.get("reference_compile_seconds")
        print("reference game compile: " + (f"{ref[0]:.1f} s and {ref[1]:.1f} s (before and "
                                            "after)" if ref else "not found, no ratios"))
        for row in r["policies"]:
            ratio = f" = {row['cold_ratio']:.1f} x the reference" if ref else ""
            print(f"  {row['policy']:10s} cold {row['cold_seconds']:5.1f} s{ratio}; "
                  f"cached {row['cached_seconds']:.2f} s")


if __name__ == "__main__":
    main()
