"""The benchmark scripts run (tiny sizes): they are measured by hand, so a broken import or a
changed default would otherwise go unnoticed until someone needs a figure.  Slow tier: each
script compiles kernels of its own (uncached, some of them) in a process of its own."""
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
