"""Compile time: what a first start compiles, part by part (the engine, each policy's chooser, a
table's kernel), beside the reference game's compile measured in the same run; ``--record``
writes it to ``coltsim/compile_times.json``, which the compile notice quotes.

    python benchmarks/compile_time.py [--record] [--machine TEXT] [--cold NAME ...] [--json]

Each figure is a fresh Python process that imports coltsim and plays a first game of a 4-player
table, as ``coltsim run`` does before its progress bar (coltsim.runs.bench.compile_seconds),
minus the same start once its cache holds it.  The tables play, one after another in one empty
``NUMBA_CACHE_DIR``, so that each compiles one new part and its kernel: random players (the
engine), greedy (``weighted``), planner, learned, rollout and ismcts (their models, greedy, are
compiled by then), and last a table of greedy beside random, whose parts are all compiled (the
kernel alone).  Then each table of ``--cold`` (default: DEFAULT, the quickstart's, and the
planner) starts from an empty cache, whole, as a check of the parts: the notice quotes the sum
of a first start's parts (coltsim._jit.compile_estimate).  The
reference game (benchmarks/reference.py) compiles on every run; it runs before and after, and
every part is recorded as a ratio to the mean of its two compiles.  Not a test: run it by hand,
on a machine as quiet as you can find, and commit the file it writes.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import tempfile

import numba
import reference  # benchmarks/reference.py (the script's folder is on the path)

from coltsim import _jit
from coltsim.runs.bench import compile_seconds
from coltsim.runs.options import available_cores
from coltsim.setting import DEFAULT_POLICY

# (table, the part its first start compiles beside its kernel), in the order they are played
SEQUENCE = (("random", "engine"), ("greedy", "weighted"), ("planner", "planner"),
            ("learned", "learned"), ("rollout", "rollout"), ("ismcts", "ismcts"),
            (["greedy", "random", "random", "random"], "kernel"))
MACHINE = "the project's 2-core machine"


def measure(cold=(DEFAULT_POLICY, "planner")) -> dict:
    load = [os.getloadavg()[0]]
    before = reference.measure(100_000)
    first, cached = {}, {}
    with tempfile.TemporaryDirectory(prefix="coltsim-numba-") as cache:
        for table, part in SEQUENCE:
            first[part] = compile_seconds(4, table, cache)
            cached[part] = compile_seconds(4, table, cache)
    compiles = {part: first[part] - cached[part] for part in first}
    seconds = {part: t - (compiles["kernel"] if part != "kernel" else 0.0)
               for part, t in compiles.items()}
    checks = {}
    for table in cold:
        with tempfile.TemporaryDirectory(prefix="coltsim-numba-") as cache:
            start = compile_seconds(4, table, cache)
            again = compile_seconds(4, table, cache)
        checks[table] = {"parts": parts_of(table), "cold_seconds": start - again,
                         "start_seconds": start}
    after = reference.measure(100_000)
    load.append(os.getloadavg()[0])
    result = {"command": "python benchmarks/compile_time.py --record",
              "measured": datetime.date.today().isoformat(), "cores": available_cores(),
              "numba": numba.__version__, "python": platform.python_version(),
              "load_average": load, "seconds": seconds, "first_starts": first,
              "cached_starts": cached, "checks": checks}
    if before is not None:
        ref = (before["compile_seconds"] + after["compile_seconds"]) / 2
        result["reference_compiles"] = [before["compile_seconds"], after["compile_seconds"]]
        result["reference_seconds"] = ref
        result["ratios"] = {part: max(0.0, t) / ref for part, t in seconds.items()}
        for check in checks.values():
            check["ratio"] = check["cold_seconds"] / ref
            check["sum_seconds"] = sum(result["ratios"][p] for p in check["parts"]) * ref
    return result


def parts_of(table: str) -> list:
    """The parts a first start of ``table`` (all four seats) compiles, as the notice names
    them."""
    parts = ["engine", {"greedy": "weighted"}.get(table, table), "kernel"]
    if table in ("rollout", "ismcts"):
        parts.append("weighted")
    return parts


def _rounded(x):
    """Measured seconds and ratios at 3 decimals (more would be noise), in any nesting."""
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_rounded(v) for v in x]
    return round(x, 3) if isinstance(x, float) else x


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true",
                        help=f"write the ratios to {_jit.COMPILE_TIMES.name} (the notice's)")
    parser.add_argument("--machine", default=MACHINE,
                        help=f"the machine as the notice names it (default: {MACHINE!r})")
    parser.add_argument("--cold", nargs="*", default=[DEFAULT_POLICY, "planner"],
                        help="tables whose first start from an empty cache is measured whole")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    r = measure(args.cold)
    if args.json:
        print(json.dumps(r))
    else:
        ref = r.get("reference_compiles")
        print("reference game compile: " + (f"{ref[0]:.1f} s and {ref[1]:.1f} s (before and "
                                            "after)" if ref else "not found, no ratios")
              + f"; load average {r['load_average'][0]:.1f} and {r['load_average'][1]:.1f}")
        for part, t in r["seconds"].items():
            ratio = f" = {r['ratios'][part]:.2f} x the reference" if ref else ""
            print(f"  {part:9s} {t:6.1f} s{ratio}  (first start {r['first_starts'][part]:.1f} "
                  f"s, cached {r['cached_starts'][part]:.1f} s)")
        for table, check in r["checks"].items():
            said = f"; its parts one after another {check['sum_seconds']:.0f} s" if ref else ""
            print(f"  a first start of {table} from an empty cache: compiling "
                  f"{check['cold_seconds']:.1f} s (start {check['start_seconds']:.1f} s){said}")
    if args.record:
        if "ratios" not in r:
            raise SystemExit("no reference game: nothing to record (the ratios need it)")
        record = {"machine": args.machine, **{k: _rounded(r[k]) for k in (
            "command", "measured", "cores", "numba", "python", "load_average",
            "reference_compiles", "reference_seconds", "ratios", "seconds", "checks")}}
        _jit.COMPILE_TIMES.write_text(json.dumps(record, indent=2) + "\n")
        print(f"recorded in {_jit.COMPILE_TIMES}")


if __name__ == "__main__":
    main()
