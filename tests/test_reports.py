"""The committed reports: their fingerprints, which are stale (scripts/stale_reports.py: their
sampled games played again), whether the quickstart report still reproduces from its experiment
byte for byte, and that no lock file is committed."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import coltsim
from coltsim.runs.fingerprint import SAMPLE_GAMES, digest
from coltsim.runs.load import load_results
from coltsim.study.experiment import loads_experiment
from coltsim.study.report import build_report
from coltsim.study.run import run_experiment

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import stale_reports  # noqa: E402



# Random players, two settings on the same deals (the rules differ): the cheapest report.
TINY = """
name = "tiny"
seed = 4
games = 300
analyses = ["balance"]

[sweep]
players = [4]
policies = ["random"]

[sweep.rules]
gunslinger_bonus = [1000, 0]
"""


@pytest.fixture(scope="module")
def tiny_report(tmp_path_factory):
    """A report made by `coltsim run` (its games saved to data/, then read back)."""
    folder = tmp_path_factory.mktemp("reports")
    path = folder / "tiny.toml"
    path.write_text(TINY)
    run_experiment(path, out=folder / "tiny", quiet=True)
    return folder / "tiny"


def test_a_report_records_a_fingerprint_of_each_settings_games(tiny_report):
    manifest = json.loads((tiny_report / "manifest.json").read_text())
    records = manifest["fingerprints"]
    assert [r["setting"] for r in records] == list(manifest["settings"])
    assert [(r["seed"], r["games"]) for r in records] == [(4, SAMPLE_GAMES)] * 2
    assert records[0]["sha256"] != records[1]["sha256"]  # the bonus changes the scores
    assert stale_reports.staleness(tiny_report) == (
        "fresh", "2 settings, 200 games played again: the same games")


def test_a_changed_game_makes_a_report_stale(tiny_report, tmp_path, capsys):
    """The report's data hold one game the current code does not play (game 37 of the first
    setting, one bandit's score one dollar off): its fingerprint, taken from those data, no
    longer matches the games played again."""
    changed = tmp_path / "reports" / "changed"
    shutil.copytree(tiny_report, changed)
    results = load_results(changed / "data")
    sid = results.settings["setting"].iloc[0]
    row = results.players.index[(results.players["setting"] == sid)
                                & (results.players["game"] == 37)][0]
    results.players.loc[row, "score"] += 1
    build_report(results, loads_experiment(TINY), changed)
    assert stale_reports.staleness(changed) == (
        "stale", f"setting {sid} plays other games now (its first 100 games of seed 4)")
    fresh = tmp_path / "reports" / "fresh"
    shutil.copytree(tiny_report, fresh)
    assert stale_reports.main([str(tmp_path / "reports")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in out] == [["stale", "changed"], ["fresh", "fresh"]]
    assert stale_reports.main([str(tmp_path / "reports"), "--strict"]) == 1
    shutil.rmtree(changed)
    assert stale_reports.main([str(tmp_path / "reports"), "--strict"]) == 0


def test_a_report_without_fingerprints_is_unknown_and_fails_the_strict_check(tiny_report,
                                                                              tmp_path):
    bare = tmp_path / "bare"
    shutil.copytree(tiny_report, bare)
    manifest = json.loads((bare / "manifest.json").read_text())
    del manifest["fingerprints"]
    (bare / "manifest.json").write_text(json.dumps(manifest))
    assert stale_reports.staleness(bare)[0] == "unknown"
    assert stale_reports.main([str(tmp_path), "--strict"]) == 1


def test_a_balance_search_records_each_variants_games_and_replays_them(tmp_path):
    from coltsim.study.tune.report import write_tune_report
    from coltsim.study.tune import tune

    setting = coltsim.make_setting(4, policies="random")
    result = tune(setting, "doc_bonus", [0, 2], games=60, max_games=60, seed=5)
    write_tune_report(result, tmp_path / "reports" / "tune_doc", name="tune_doc")
    records = json.loads((tmp_path / "reports" / "tune_doc" / "manifest.json").read_text()
                         )["fingerprints"]
    assert [(r["played"]["rules"]["doc_bonus"], r["seed"], r["games"]) for r in records] == \
        [(0, 5, 60), (2, 5, 60)]
    assert stale_reports.staleness(tmp_path / "reports" / "tune_doc") == (
        "fresh", "2 settings, 120 games played again: the same games")


def test_a_fingerprint_covers_every_game_of_its_sample_and_nothing_else():
    results = coltsim.simulate(coltsim.make_setting(4, policies="random"), 12, seed=2,
                               progress=False)
    sid = results.settings["setting"].iloc[0]
    base = digest(results, sid, 10)
    assert base == digest(results, sid, 10) and base != digest(results, sid, 9)
    later = results.games.index[results.games["game"] == 11][0]
    results.games.loc[later, "neutral_left"] += 1  # outside the sample
    assert digest(results, sid, 10) == base
    first = results.games.index[results.games["game"] == 9][0]
    results.games.loc[first, "neutral_left"] += 1
    assert digest(results, sid, 10) != base
    assert digest(results, sid, 13) is None  # the results do not hold 13 games


def test_every_committed_report_records_its_engine_and_fingerprints():
    for folder in stale_reports.report_folders(ROOT / "reports"):
        manifest = stale_reports.read_manifest(folder)
        assert manifest and manifest.get("engine"), folder
    missing = [f.name for f in stale_reports.report_folders(ROOT / "reports")
               if not stale_reports.read_manifest(f).get("fingerprints")]
    assert missing == [], missing  # every committed report can be played again


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
    # The manifest names the engine that made the report (a hash of the compiled sources): it
    # changes with any edit of them, also one that plays the same games, which is what this
    # test and scripts/stale_reports.py hold; every other byte must be the same.
    made_by = [json.loads(f.pop("manifest.json")) for f in (ours, committed)]
    for manifest in made_by:
        del manifest["engine"]
    assert made_by[0] == made_by[1]
    assert [name for name in ours if ours[name] != committed[name]] == []
