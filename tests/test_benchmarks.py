"""The benchmark scripts run (tiny sizes): they are measured by hand, so a broken import or a
changed default would otherwise go unnoticed until someone needs a figure.  Slow tier: each
script compiles kernels of its own (uncached, some of them) in a process of its own; the check
that every script keys numba's cache reads their sources only (fast tier)."""
import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.parametrize("script, args", [
    ("engine_speed.py", ["--games", "2000", "--json"]),
    ("end_to_end.py", ["--games", "2000", "--workers", "1", "--quiet"]),
    ("state_copy.py", ["--copies", "1000", "--playouts", "20", "--json"]),
    ("bench_policies.py", ["--games", "200", "--rollout-games", "1", "--ismcts-budgets", "8",
                           "--json"]),
])
def test_benchmark_script_runs(script, args):
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result


# Scripts that run coltsim's compiled code only in processes they start, each with a cache of
# its own (they measure compiling).
COMPILE_IN_SUBPROCESSES = {"cold_quickstart.py", "compile_time.py"}


def test_every_benchmark_that_plays_keys_numbas_cache_before_numba_loads():
    """numba checks a cached kernel against its own file only: a benchmark run after an edit
    would play a kernel compiled before it (a stale constant of another file, an edited rule
    it inlined) with its own Python's cache.  Every script that imports coltsim imports
    benchmarks/keyed_cache.py first, which keys the cache as the program does."""
    unkeyed = []
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        if script.name == "keyed_cache.py":
            continue
        tree = ast.parse(script.read_text())
        imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
                   and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")]
        names = [a.name for n in imports if isinstance(n, ast.Import) for a in n.names] + \
                [n.module or "" for n in imports if isinstance(n, ast.ImportFrom)]
        plays = any(name.split(".")[0] == "coltsim" for name in names)
        first = imports[0] if imports else None
        keyed = isinstance(first, ast.Import) and first.names[0].name == "keyed_cache"
        if plays and not keyed and script.name not in COMPILE_IN_SUBPROCESSES:
            unkeyed.append(script.name)
    assert not unkeyed, f"benchmarks importing coltsim without keyed_cache first: {unkeyed}"
