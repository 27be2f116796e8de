"""The committed reports: which are stale (scripts/stale_reports.py), and whether the
quickstart report still reproduces from its experiment."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coltsim.runs.runner import engine_hash

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import stale_reports  # noqa: E402


def test_stale_reports_are_named(tmp_path, capsys):
    for name, engine in (("fresh", engine_hash()), ("old", "000000000000"), ("bare", None)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "report.md").write_text("# report\n")
        if engine is not None:
            (folder / "manifest.json").write_text(json.dumps({"engine": engine}))
    assert stale_reports.staleness(tmp_path, engine_hash()) == [
        ("bare", "unknown", None), ("fresh", "fresh", engine_hash()),
        ("old", "stale", "000000000000")]
    assert stale_reports.main([str(tmp_path)]) == 0
    assert "stale    old  (built by engine 000000000000" in capsys.readouterr().out
    assert stale_reports.main([str(tmp_path), "--strict"]) == 1
    shutil.rmtree(tmp_path / "old")
    shutil.rmtree(tmp_path / "bare")
    assert stale_reports.main([str(tmp_path), "--strict"]) == 0


def test_every_committed_report_records_its_engine():
    rows = stale_reports.staleness(ROOT / "reports", engine_hash())
    assert rows and all(state != "unknown" for _, state, _ in rows), rows


@pytest.mark.slow
def test_the_quickstart_report_reproduces(tmp_path):
    """50,000 greedy games from experiments/quickstart.toml give the committed report, word for
    word: if this fails, the games changed and the committed reports must be regenerated."""
    out = tmp_path / "quickstart"
    subprocess.run([sys.executable, "-m", "coltsim.cli", "run",
                    str(ROOT / "experiments" / "quickstart.toml"), "--out", str(out), "--quiet"],
                   check=True, cwd=tmp_path)
    committed = ROOT / "reports" / "quickstart"
    assert (out / "report.md").read_text() == (committed / "report.md").read_text()
    for table in sorted((committed / "tables").glob("*.csv")):
        assert (out / "tables" / table.name).read_text() == table.read_text(), table.name
