"""The committed reports: which are stale (scripts/stale_reports.py), whether the quickstart
report still reproduces from its experiment byte for byte, and that no lock file is committed."""
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


def test_no_lock_file_is_committed_or_committable():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    files = subprocess.run(["git", "ls-files", "reports"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    assert files and not [f for f in files if Path(f).name == ".lock"]
    assert subprocess.run(["git", "check-ignore", "-q", "reports/quickstart/.lock"],
                          cwd=ROOT).returncode == 0


def committed_files(folder: Path) -> dict:
    """The files of a committed report (not its data, nor its lock) with their bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != ".lock" and p.relative_to(folder).parts[0] != "data"}


@pytest.mark.slow
def test_the_quickstart_report_reproduces(tmp_path):
    """50,000 games from experiments/quickstart.toml give the committed report byte for byte
    (tables, figures, pages, manifest): if this fails, the games changed and the committed
    reports must be regenerated."""
    out = tmp_path / "quickstart"
    subprocess.run([sys.executable, "-m", "coltsim.cli", "run",
                    str(ROOT / "experiments" / "quickstart.toml"), "--out", str(out), "--quiet"],
                   check=True, cwd=tmp_path)
    ours, committed = committed_files(out), committed_files(ROOT / "reports" / "quickstart")
    assert ours.keys() == committed.keys()
    assert [name for name in ours if ours[name] != committed[name]] == []
