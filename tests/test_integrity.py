"""Results you can trust after crashes, races and damage; every bad input a clear message.

One test (or a few) per case of issue 12: a damaged, deleted or duplicated chunk; reports of
damaged data, of an experiment that changed, into a folder coltsim did not write; two runs into
one folder, leftover temporaries, a failed run, stale locks; kill -9 and Ctrl-C of a run with its
worker processes checked gone and nothing left in /dev/shm; the inputs that gave tracebacks; the
limits; a truncated trace.
"""
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pandas as pd
import pandas.testing as pdt
import pytest

import coltsim
from coltsim.cli import main
from coltsim.runs import storage
from coltsim.runs.lock import FolderLocked, StaleLockWarning, folder_lock
from coltsim.runs.runner import repair_folder
from coltsim.setting import make_setting
from tests.tables import SEARCH, SEARCH_PARAMS

P4 = make_setting(4, policies="random")  # the fastest: these tests are about the folder
GAMES, CHUNK = 2000, 500


@pytest.fixture(scope="module")
def baseline():
    return coltsim.simulate(P4, GAMES, seed=3, workers=1, progress=False)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    path = tmp_path_factory.mktemp("finished") / "run"
    coltsim.simulate_to_folder(P4, GAMES, path, seed=3, chunk_size=CHUNK, workers=1,
                               progress=False)
    return path


@pytest.fixture
def folder(tmp_path, finished):
    """A finished run of four chunks (a copy of one)."""
    shutil.copytree(finished, tmp_path / "run")
    return tmp_path / "run"


def resume(folder, **kwargs):
    return coltsim.simulate_to_folder(P4, GAMES, folder, seed=3, workers=1, progress=False,
                                      **kwargs)


def chunk(folder, table, c):
    return storage.chunk_path(folder, table, P4.id, c)


def assert_same(a, b):
    pdt.assert_frame_equal(a.players, b.players)
    pdt.assert_frame_equal(a.games, b.games)


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    return err


# --- 1. damaged data ----------------------------------------------------------------------------

def test_a_truncated_chunk_is_refused_then_recomputed(folder, baseline):
    path = chunk(folder, "players", 2)
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(storage.ResultsError, match=rf"{path}: damaged, its content differs from "
                                                   r"the manifest's record \(chunk 2 .*games "
                                                   r"1,000 to 1,499\); recompute it"):
        coltsim.load_results(folder)
    with pytest.warns(storage.RepairWarning, match=rf"{path}: damaged.*; recomputing it"):
        info = resume(folder)
    assert (info.chunks_run, info.games_run) == (1, CHUNK)
    assert_same(coltsim.load_results(folder), baseline)


def test_a_chunk_overwritten_by_another_valid_chunk_is_refused(folder, baseline):
    """The copy is a whole, readable chunk of the same run: only its record tells."""
    for table in storage.TABLES:
        shutil.copy(chunk(folder, table, 1), chunk(folder, table, 2))
    with pytest.raises(storage.ResultsError, match="chunk-000002.parquet: damaged"):
        coltsim.load_results(folder)
    with pytest.warns(storage.RepairWarning):
        assert resume(folder).chunks_run == 1
    games = coltsim.load_results(folder).games["game"]
    assert list(games) == list(range(GAMES))  # every game once
    assert_same(coltsim.load_results(folder), baseline)


def test_a_deleted_chunk_is_refused_then_recomputed(folder, baseline):
    chunk(folder, "games", 3).unlink()
    with pytest.raises(storage.ResultsError, match=r"chunk-000003.parquet: missing \(chunk 3 of "
                                                   r"setting .*, games 1,500 to 1,999\)"):
        coltsim.load_results(folder)
    with pytest.warns(storage.RepairWarning, match="missing"):
        assert resume(folder).chunks_run == 1
    assert_same(coltsim.load_results(folder), baseline)


def test_records_that_count_a_game_twice_are_refused(folder, baseline):
    """A manifest edited to record a chunk twice (under two numbers) holds games twice."""
    manifest = json.loads((folder / "manifest.json").read_text())
    records = manifest["settings"][P4.id]["chunks"]
    records.append({**records[1], "chunk": 9})
    shutil.copy(chunk(folder, "players", 1), chunk(folder, "players", 9))
    shutil.copy(chunk(folder, "games", 1), chunk(folder, "games", 9))
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(storage.ResultsError, match="chunks 1 and 9 of setting .* both hold game "
                                                   "500"):
        coltsim.load_results(folder)
    with pytest.warns(storage.RepairWarning, match=r"chunk 9 of setting .* \(games 500 to 999\) "
                                                   "holds games another chunk holds or the run "
                                                   "does not have; its record is dropped"):
        assert resume(folder).chunks_run == 0
    assert_same(coltsim.load_results(folder), baseline)


def edit_manifest(folder, edit) -> None:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    edit(manifest["settings"][P4.id])
    path.write_text(json.dumps(manifest))


def chunk_record(c: int, **changes):
    """An edit of chunk ``c``'s record (chunk 1 holds games 500 to 999)."""
    return lambda entry: entry["chunks"][c].update(changes)


def record_rows(c: int, table: str, rows: int):
    return lambda entry: entry["chunks"][c]["files"][table].update(rows=rows)


@pytest.mark.parametrize("edit, problem", [
    (chunk_record(1, n_games=250), "it holds 2,000 rows, not the 1,000 of its record's 250 games"),
    (chunk_record(1, n_games=1000), "it holds 2,000 rows, not the 4,000 of its record's 1,000"),
    (chunk_record(1, first_game=750), "it holds games 500 to 999, its record games 750 to 1,249"),
    (chunk_record(1, first_game=250), "it holds games 500 to 999, its record games 250 to 749"),
    (chunk_record(3, first_game=1000), "it holds games 1,500 to 1,999, its record games 1,000 to"),
    (record_rows(2, "players", 1000), "it holds 2,000 rows, its record 1,000"),
], ids=["range shortened", "range lengthened", "range shifted", "range overlapping",
        "range of another chunk", "rows"])
def test_a_record_that_lies_about_its_file_is_damage_not_data(folder, baseline, edit, problem):
    """The files are whole (their SHA-256 matches): only what they hold tells."""
    edit_manifest(folder, edit)
    with pytest.raises(storage.ResultsError, match=r"chunk-00000\d.parquet: does not match the "
                                                   r"manifest's record \(chunk \d of setting .*"
                                                   + re.escape(problem)):
        coltsim.load_results(folder)
    with pytest.warns(storage.RepairWarning, match=re.escape(problem) + ".*; recomputing it"):
        info = resume(folder)
    assert (info.chunks_run, info.games_run) == (1, CHUNK)
    assert_same(coltsim.load_results(folder), baseline)  # every game once


def test_an_edited_seed_is_refused_and_repair_recomputes_every_chunk(folder, capsys):
    edit_manifest(folder, lambda entry: entry.update(seed=4))
    with pytest.raises(storage.ResultsError, match="players/.*/chunk-000000.parquet: does not "
                                                   "match .*: it holds seed 3, the manifest "
                                                   "records 4"):
        coltsim.load_results(folder)
    assert main(["simulate", "--games", str(GAMES), "--seed", "3", "--policies", "random",
                 "--out", str(folder), "--quiet"]) == 2  # the run's own seed: not the record's
    assert "seed is 4 there but 3 here" in one_line(capsys)
    with pytest.warns(storage.RepairWarning, match="it holds seed 3, the manifest records 4"):
        (info,) = repair_folder(folder, workers=1, progress=False)
    assert info.chunks_run == 4  # recomputed with the seed the manifest records
    assert_same(coltsim.load_results(folder),
                coltsim.simulate(P4, GAMES, seed=4, workers=1, progress=False))


def test_an_edited_game_count_is_told_in_order_and_repair_mends_it(folder, baseline):
    """The manifest says 1,500 games where the chunks hold 2,000: the line says so (never a
    range that runs backwards) and what mends it, which does (issue 38, 9)."""
    edit_manifest(folder, lambda entry: entry.update(games=1500))
    with pytest.raises(storage.ResultsError) as e:
        coltsim.load_results(folder)
    text = str(e.value)
    assert f"setting {P4.id} records 1,500 games, but its chunks hold games 0 to 1,999" in text
    assert "--repair" in text and "to 1,499 of" not in text
    with pytest.warns(storage.RepairWarning, match="holds games .* the run does not have"):
        repair_folder(folder, workers=1, progress=False)
    results = coltsim.load_results(folder)
    assert_same(results, coltsim.simulate(P4, 1500, seed=3, workers=1, progress=False))


def test_a_setting_recorded_under_another_id_is_refused(folder):
    """Another setting's chunks, recorded (files and all) as this one's."""
    other = make_setting(4, policies="greedy")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["settings"] = {other.id: manifest["settings"][P4.id]}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    for table in storage.TABLES:
        (folder / table / P4.id).rename(folder / table / other.id)
    with pytest.raises(storage.ResultsError, match=f"it holds setting '{P4.id}', the manifest "
                                                   f"records '{other.id}'"):
        coltsim.load_results(folder)


@pytest.mark.parametrize("setting", [
    make_setting(3, lineup="all", policies="weighted", params={"weighted": {"fire": 0.5}},
                 label="fewer shots"),
    make_setting(4, policies=SEARCH, rules={"advanced": True},
                 params={**SEARCH_PARAMS, "rollout": {"budget": 2, "horizon": 2}}),
    make_setting(2, lineup="belle,random,random,doc"),
    make_setting(5, policies="aggressive", rules={"gunslinger_bonus": 0}, setting_id="mine"),
])
def test_repair_plays_again_what_the_manifest_records(tmp_path, setting):
    coltsim.simulate_to_folder(setting, 20, tmp_path, chunk_size=10, workers=1, progress=False)
    before = coltsim.load_results(tmp_path)
    storage.chunk_path(tmp_path, "games", setting.id, 1).unlink()
    with pytest.warns(storage.RepairWarning, match="missing"):
        infos = repair_folder(tmp_path, workers=1, progress=False)
    assert [(i.setting_id, i.chunks_run) for i in infos] == [(setting.id, 1)]
    assert_same(coltsim.load_results(tmp_path), before)


@pytest.mark.parametrize("manifest, message", [
    ({"format": storage.MANIFEST_FORMAT, "settings": 5},
     "settings must be an object of settings by id, got 5"),
    ([1, 2], "it is not a JSON object"),
    ({"format": storage.MANIFEST_FORMAT, "settings": {"../x": {}}}, "'../x' is not a setting id"),
    ({"format": storage.MANIFEST_FORMAT, "settings": {"s": {"players": 4}}},
     "settings.s: seed must be a whole number"),
    ({"format": 2, "settings": {}}, "format 2 was written by another version of coltsim"),
])
def test_a_manifest_coltsim_cannot_read_is_one_line(tmp_path, capsys, manifest, message):
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(storage.ResultsError, match=message):
        coltsim.load_results(tmp_path)
    assert main(["simulate", "--games", "10", "--out", str(tmp_path), "--quiet"]) == 2
    assert message in one_line(capsys)


# --- 2. reports state exactly what they contain -------------------------------------------------

def experiment(tmp_path, policy="random", games=300, name="tiny", seed=3,
               analyses=("balance",)) -> Path:
    toml = tmp_path / f"{name}-{policy}-{seed}.toml"
    toml.write_text(f'name = "{name}"\nseed = {seed}\ngames = {games}\n'
                    f'analyses = {list(analyses)!r}\n'.replace("'", '"')
                    + f'[sweep]\nplayers = [3]\npolicies = ["{policy}"]\n')
    return toml


# A file of the user's in every sub-folder of a report folder, and one beside the report.
USER_FILES = {"notes.md": "my notes", "figures/my_poster.png": "my poster",
              "tables/my_analysis.csv": "a,b\n1,2\n", "data/my_extra.txt": "mine"}


def add_user_files(report: Path) -> None:
    for name, text in USER_FILES.items():
        (report / name).write_text(text)


def kept_user_files(report: Path) -> int:
    return sum((report / name).is_file() and (report / name).read_text() == text
               for name, text in USER_FILES.items())


@pytest.fixture(scope="module")
def made_report(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("made")
    out = tmp_path / "report"
    assert main(["run", str(experiment(tmp_path)), "--out", str(out), "--quiet",
                 "--workers", "1"]) == 0
    return out


@pytest.fixture
def report(tmp_path, made_report):
    """The report of ``experiment()`` (a copy of one)."""
    shutil.copytree(made_report, tmp_path / "report")
    return tmp_path / "report"


def files_of(folder: Path) -> dict:
    """Every file below ``folder`` (relative names) with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("damage", ["truncate", "delete"])
def test_a_report_of_damaged_data_is_an_error_until_repaired(report, capsys, damage):
    md = (report / "report.md").read_text()
    (path,) = (report / "data" / "players").glob("*/chunk-000000.parquet")
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:50])
    else:
        path.unlink()
    assert main(["report", str(report)]) == 2
    err = one_line(capsys)
    assert str(path) in err and ("damaged" if damage == "truncate" else "missing") in err
    assert (report / "report.md").read_text() == md  # no smaller report
    assert main(["report", str(report), "--repair", "--workers", "1"]) == 0
    assert "recomputing it" in capsys.readouterr().err
    assert (report / "report.md").read_text() == md


@pytest.mark.parametrize("other, there", [
    (dict(policy="greedy"), "the report of experiment 'tiny' with other settings (p3-random-"),
    (dict(name="other"), "the report of experiment 'tiny', not of experiment 'other'"),
    (dict(seed=4), "the report of experiment 'tiny' with another seed (setting p3-random-"),
], ids=["other settings", "other name", "other seed"])
def test_another_experiment_into_a_report_folder_is_refused(tmp_path, report, capsys, other,
                                                            there):
    before = files_of(report)
    assert main(["run", str(experiment(tmp_path, **other)), "--out", str(report), "--quiet",
                 "--workers", "1"]) == 2
    err = one_line(capsys)
    assert f"holds {there}" in err and "; --replace replaces it, or choose another folder" in err
    assert files_of(report) == before  # byte for byte


def test_replace_removes_the_report_and_its_data_first(tmp_path, report):
    """What coltsim wrote goes (the files its manifests list); 4 of 4 files of the user's stay,
    one in every sub-folder."""
    add_user_files(report)
    old_chunks = sorted((report / "data").rglob("*.parquet"))
    assert main(["run", str(experiment(tmp_path, "greedy")), "--out", str(report), "--quiet",
                 "--workers", "1", "--replace"]) == 0
    results = coltsim.load_results(report / "data")
    assert list(results.settings["policies"]) == ["greedy,greedy,greedy"]  # the old data: gone
    assert list(pd.read_csv(report / "tables" / "settings.csv")["policies"]) == \
        ["greedy,greedy,greedy"]
    assert old_chunks and not any(p.exists() for p in old_chunks)
    assert kept_user_files(report) == 4


def test_replace_removes_a_report_of_an_earlier_coltsim(tmp_path, report):
    """Its data of another format (and a report manifest that lists no files): their chunks and
    the report go, the user's files stay."""
    add_user_files(report)
    data_manifest = report / "data" / "manifest.json"
    old = json.loads(data_manifest.read_text())
    data_manifest.write_text(json.dumps({**old, "format": 4}))
    manifest = json.loads((report / "manifest.json").read_text())
    del manifest["files"]
    (report / "manifest.json").write_text(json.dumps(manifest))
    old_chunks = sorted((report / "data").rglob("*.parquet"))
    assert main(["run", str(experiment(tmp_path, "greedy")), "--out", str(report), "--quiet",
                 "--workers", "1", "--replace"]) == 0
    assert old_chunks and not any(p.exists() for p in old_chunks)
    assert list(coltsim.load_results(report / "data").settings["policies"]) == \
        ["greedy,greedy,greedy"]
    assert kept_user_files(report) == 4


def test_replace_refuses_data_without_a_manifest_before_removing_anything(tmp_path, report,
                                                                          capsys):
    """``data/`` holding chunks but no manifest: coltsim cannot tell its files from the user's
    there, so ``--replace`` says so and what to do before it removes anything; done, it
    replaces the report (issue 38, 4)."""
    (report / "data" / "manifest.json").unlink()
    before = files_of(report)
    replace = ["run", str(experiment(tmp_path, "greedy")), "--out", str(report), "--quiet",
               "--workers", "1", "--replace"]
    assert main(replace) == 2
    err = one_line(capsys)
    assert f"{report / 'data'} holds files but no manifest.json" in err and "move" in err
    assert files_of(report) == before
    shutil.rmtree(report / "data")
    assert main(replace) == 0
    assert list(coltsim.load_results(report / "data").settings["policies"]) == \
        ["greedy,greedy,greedy"]


def test_a_folder_where_a_report_file_goes_is_named_and_the_report_stays(tmp_path, report,
                                                                        capsys):
    """``report.md`` made a folder, then the report grown: the refusal names report.md (not a
    temporary) and what to do, and every file of the report stays the old one (issue 38, 3)."""
    (report / "report.md").unlink()
    (report / "report.md").mkdir()
    old = {k: v for k, v in files_of(report).items() if not k.startswith("data/")}
    grow = ["run", str(experiment(tmp_path)), "--out", str(report), "--quiet", "--workers", "1",
            "--games", "400"]
    assert main(grow) == 2
    err = one_line(capsys)
    assert f"{report / 'report.md'} is a folder" in err and ".tmp" not in err
    assert {k: v for k, v in files_of(report).items() if not k.startswith("data/")} == old
    assert not [p for p in report.rglob(".*") if p.name != ".lock"]
    (report / "report.md").rmdir()
    assert main(grow) == 0
    assert "400 games" in (report / "report.md").read_text()


def test_another_network_at_the_same_path_is_refused_not_mixed_in(tmp_path, capsys):
    """A report of ``learned`` with a weights file, grown after another network was saved at
    that path: refused in one line naming the file, the report untouched; the manifest and the
    report's settings name the network it played by its SHA-256 (issue 38, 1)."""
    import hashlib

    from coltsim.policies.weights import HEADER, NET_FILE, load_net, save_net

    weights = tmp_path / "W" / "weights.npz"
    weights.parent.mkdir()
    weights.write_bytes(NET_FILE.read_bytes())
    sha = hashlib.sha256(weights.read_bytes()).hexdigest()
    toml = experiment(tmp_path, "learned", games=100)
    toml.write_text(toml.read_text() + f'[policy_params.learned]\nweights = "{weights}"\n')
    out = tmp_path / "wm"
    assert main(["run", str(toml), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    capsys.readouterr()
    (entry,) = json.loads((out / "manifest.json").read_text())["settings"].values()
    assert entry["files"] == {"learned.weights": {"path": str(weights), "sha256": sha}}
    assert f"learned.weights {weights} `{sha[:12]}`" in (out / "report.md").read_text()
    net, about = load_net(weights)
    net[HEADER] += 0.5  # another network
    save_net(weights, net, about)
    before = files_of(out)
    assert main(["run", str(toml), "--out", str(out), "--quiet", "--workers", "1", "--games",
                 "150"]) == 2
    err = one_line(capsys)
    assert f"played with another {weights} (learned.weights: SHA-256 {sha[:12]} recorded" in err
    assert "put back that file to grow it" in err
    assert files_of(out) == before
    # A damaged chunk is played again with the network the manifest records, or not at all.
    (chunk,) = (out / "data" / "players").glob("*/chunk-000000.parquet")
    chunk.unlink()
    assert main(["report", str(out), "--repair", "--workers", "1"]) == 2
    assert f"its games were played with another {weights} (learned.weights" in one_line(capsys)
    weights.write_bytes(NET_FILE.read_bytes())
    assert main(["report", str(out), "--repair", "--workers", "1"]) == 0
    assert files_of(out) == before


def test_report_of_a_folder_without_games_names_the_folder_given_and_what_to_do(
        tmp_path, made_report, capsys):
    """Not a report folder, or a report without its games (as a committed one): the line
    names the folder the user gave, never its data/, and the command that makes the games
    (issue 38, 9)."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("mine")
    assert main(["report", str(notes)]) == 2
    err = one_line(capsys)
    assert f"{notes} is not a report folder of coltsim" in err and "data" not in err
    committed = tmp_path / "committed"
    shutil.copytree(made_report, committed, ignore=shutil.ignore_patterns("data"))
    assert main(["report", str(committed)]) == 2
    err = one_line(capsys)
    command = f"coltsim run {committed / 'experiment.toml'} --out {committed}"
    assert "the games of this report are not saved beside it" in err and command in err
    assert main(command.split()[1:] + ["--quiet", "--workers", "1"]) == 0
    assert main(["report", str(committed)]) == 0


def test_a_run_of_a_bundled_report_says_so_first(tmp_path, made_report, monkeypatch, capsys):
    from coltsim.study import folder

    monkeypatch.setattr(folder, "REPOSITORY", tmp_path)  # a checkout: experiments/, reports/
    (tmp_path / "experiments").mkdir()
    shutil.copytree(made_report, tmp_path / "reports" / "tiny")
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(experiment(tmp_path)), "--out", "reports/tiny", "--workers",
                 "1"]) == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        "coltsim run: warning: this run rewrites reports/tiny, a report committed with coltsim "
        "(git checkout reports/tiny restores it)")


def test_run_out_refuses_a_folder_coltsim_did_not_write(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "report.md").write_text("my own notes\n")
    assert main(["run", str(experiment(tmp_path)), "--out", str(mine), "--quiet"]) == 2
    assert "holds files coltsim did not write (report.md)" in one_line(capsys)
    assert (mine / "report.md").read_text() == "my own notes\n"
    assert sorted(p.name for p in mine.iterdir()) == ["report.md"]
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["run", str(experiment(tmp_path)), "--out", str(afile), "--quiet"]) == 2
    assert "is a file; give a folder for the report" in one_line(capsys)


def test_a_rerun_replaces_coltsims_files_only(tmp_path):
    """The previous report's files that the new one has not go (its manifest lists them); 4 of
    4 files of the user's stay, one in every sub-folder, though the rerun grows the report."""
    report = tmp_path / "report"
    assert main(["run", str(experiment(tmp_path, analyses=("balance", "seats"))), "--out",
                 str(report), "--quiet", "--workers", "1"]) == 0
    seats = sorted(p.name for p in (report / "figures").glob("seats_*.png"))
    assert seats
    add_user_files(report)
    assert main(["run", str(experiment(tmp_path)), "--out", str(report), "--quiet",
                 "--workers", "1", "--games", "400"]) == 0
    assert not list((report / "figures").glob("seats_*.png"))
    assert "400 games" in (report / "report.md").read_text()
    assert kept_user_files(report) == 4
    listed = json.loads((report / "manifest.json").read_text())["files"]
    assert sorted(listed) == sorted(p.relative_to(report).as_posix()
                                    for p in report.rglob("*") if p.is_file()
                                    and p.name not in ("manifest.json", ".lock")
                                    and p.relative_to(report).parts[0] != "data"
                                    and p.relative_to(report).as_posix() not in USER_FILES)


def test_a_report_folder_is_not_a_results_folder(report, capsys):
    before = files_of(report)
    assert main(["simulate", "--games", "10", "--out", str(report), "--quiet"]) == 2
    assert f"{report} is a report folder (its results are in {report / 'data'})" in \
        one_line(capsys)
    shutil.rmtree(report / "data")  # as a committed report: its data are not committed
    assert main(["simulate", "--games", "10", "--out", str(report), "--quiet"]) == 2
    assert "manifest.json is the manifest of a report (of experiment 'tiny'), not of a " \
           "results folder" in one_line(capsys)
    assert files_of(report) == {k: v for k, v in before.items() if not k.startswith("data/")}


def test_a_report_rendered_again_is_the_same_bytes(report):
    before = files_of(report)
    assert main(["report", str(report)]) == 0
    assert files_of(report) == before


@pytest.mark.slow
def test_rerunning_the_quickstart_writes_the_same_bytes(tmp_path):
    """At a small game count, twice: every file of the two folders (report and data), byte for
    byte: the tables at their stated precision, the figures without a version stamp."""
    quickstart = Path(__file__).resolve().parents[1] / "experiments" / "quickstart.toml"
    for out in ("a", "b"):
        assert main(["run", str(quickstart), "--games", "200", "--out", str(tmp_path / out),
                     "--quiet", "--workers", "1"]) == 0
    a, b = files_of(tmp_path / "a"), files_of(tmp_path / "b")
    assert a.keys() == b.keys() and len([n for n in a if n.startswith("figures/")]) > 5
    assert [name for name in a if a[name] != b[name]] == []


# --- 3. one writer per folder -------------------------------------------------------------------

def cli_run(out, games, *extra):
    """``coltsim simulate`` of P4 in a process of its own (and its own process group)."""
    args = [sys.executable, "-m", "coltsim.cli", "simulate", "--games", str(games), "--seed", "3",
            "--policies", "random", "--out", str(out), "--quiet", *extra]
    return subprocess.Popen(args, start_new_session=True, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for(condition, proc, seconds=120):
    deadline = time.monotonic() + seconds
    while not condition():
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_two_runs_into_one_folder(tmp_path, capsys, baseline):
    """The second stops with one line naming the first; the first is not disturbed."""
    out = tmp_path / "run"
    first = cli_run(out, 100_000, "--workers", "1", "--chunk-size", "2000")
    try:
        wait_for(lambda: (out / ".lock").exists() and (out / ".lock").read_text().strip(), first)
        assert main(["simulate", "--games", "100000", "--seed", "3", "--out", str(out),
                     "--workers", "1", "--chunk-size", "2000", "--quiet"]) == 2
        err = one_line(capsys)
        assert f"is being written by another coltsim run (process {first.pid} on host " in err
        with pytest.raises(FolderLocked):
            resume(out)
    finally:
        _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    r = coltsim.load_results(out)
    assert list(r.games["game"]) == list(range(100_000))
    pdt.assert_frame_equal(r.games[:GAMES], baseline.games)
    assert (out / ".lock").read_text() == ""  # released


def test_two_reports_into_one_folder(tmp_path, report, capsys):
    """A report folder held by one run (its lock, from another process) refuses a second
    `coltsim run` and a `coltsim report` in one line each, and is left as it was."""
    def files():
        return {k: v for k, v in files_of(report).items() if k != ".lock"}

    before = files()
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\n"
        "from coltsim.runs.lock import folder_lock\n"
        "from pathlib import Path\n"
        f"with folder_lock(Path({str(report)!r})):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["run", str(experiment(tmp_path)), "--out", str(report), "--quiet",
                     "--workers", "1"]) == 2
        assert f"is being written by another coltsim run (process {holder.pid} on host " in \
            one_line(capsys)
        assert main(["report", str(report)]) == 2
        assert f"(process {holder.pid} on host " in one_line(capsys)
    finally:
        holder.kill()
        holder.wait()
    assert files() == before


def test_a_lock_held_in_this_process_is_respected(tmp_path):
    with folder_lock(tmp_path):
        with pytest.raises(FolderLocked, match="being written by another coltsim run "
                                               rf"\(process {os.getpid()} on host"):
            resume(tmp_path)
    assert resume(tmp_path).games_run == GAMES


def test_a_lock_taken_by_a_run_that_has_not_named_itself_yet_is_told_in_words(tmp_path):
    """The race of issue 38 (9): the lock held, its file still empty (the other run took it a
    moment ago, or is leaving it): no "process None on host None"."""
    fcntl = pytest.importorskip("fcntl")
    with open(tmp_path / ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(FolderLocked) as e:
            with folder_lock(tmp_path):
                pass
    text = str(e.value)
    assert "None" not in text and "\n" not in text
    assert text.startswith(f"{tmp_path} is being written by another coltsim run (it is starting "
                           "or ending") and "wait for it to finish" in text


def test_a_stale_lock_is_taken_over(tmp_path, baseline):
    dead = subprocess.Popen(["true"])
    dead.wait()
    (tmp_path / ".lock").write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname(),
                                                "started": "yesterday"}))
    with pytest.warns(StaleLockWarning, match=rf"a previous run \(process {dead.pid} on host "
                                              r".*, started yesterday\) stopped without "
                                              "finishing; its lock is taken over"):
        resume(tmp_path, chunk_size=CHUNK)
    assert_same(coltsim.load_results(tmp_path), baseline)


def test_a_lock_of_another_host_is_refused_with_what_to_do(tmp_path, capsys):
    lock = tmp_path / ".lock"
    lock.write_text(json.dumps({"pid": 1, "host": "elsewhere", "started": "today"}))
    assert main(["simulate", "--games", "10", "--out", str(tmp_path), "--quiet"]) == 2
    assert (f"held by process 1 on host elsewhere, started today, which this host cannot "
            f"check; if that run has stopped, delete {lock}") in one_line(capsys)
    lock.unlink()
    assert main(["simulate", "--games", "10", "--out", str(tmp_path), "--quiet",
                 "--workers", "1"]) == 0


def test_leftover_temporaries_do_not_block_a_folder(tmp_path, baseline):
    """A dead run's temporary manifest in an empty folder, and its half-written chunk."""
    (tmp_path / ".manifest.json.1234.tmp").write_text("{")
    info = resume(tmp_path, chunk_size=CHUNK)
    tmp = chunk(tmp_path, "games", 1).with_name(".chunk-000001.parquet.99-ab.tmp")
    tmp.write_bytes(b"half")
    resume(tmp_path)
    assert info.chunks_run == 4 and not tmp.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lock", "games", "manifest.json",
                                                          "players"]


def test_a_failed_run_leaves_the_folder_usable(tmp_path, baseline):
    """A Dask run without a scheduler fails after the manifest is written: nothing was
    computed, so a run with other arguments may use the folder."""
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match="backend 'dask' needs scheduler"):
        coltsim.simulate_to_folder(P4, 10, tmp_path, backend="dask", progress=False)
    assert resume(tmp_path, chunk_size=CHUNK).chunks_run == 4
    assert_same(coltsim.load_results(tmp_path), baseline)


# --- 4. crashes leave nothing behind ------------------------------------------------------------

def descendants(pid: int) -> list[int]:
    """Live (not zombie) processes below ``pid``."""
    children: dict = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def shm_entries(pid: int) -> list[str]:
    """What joblib keeps in /dev/shm for a run (semaphores, folders), named by its pid."""
    return [n for n in os.listdir("/dev/shm") if f"_{pid}_" in n or f"-{pid}-" in n]


def assert_gone(workers: list, pid: int, seconds: float) -> None:
    """The worker processes of run ``pid`` and its entries in /dev/shm go within ``seconds``."""
    gone = time.monotonic() + seconds
    while any(map(alive, workers)) or shm_entries(pid):
        assert time.monotonic() < gone, ([p for p in workers if alive(p)], shm_entries(pid))
        time.sleep(0.05)


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or not Path("/dev/shm").is_dir(),
                    reason="needs Linux /proc and /dev/shm")
@pytest.mark.parametrize("how", ["kill -9 of the main process", "Ctrl-C"])
def test_an_interrupted_run_stops_its_workers_and_leaks_nothing(tmp_path, baseline, how):
    """(``baseline`` compiles the kernel first: the subprocess loads it from the cache.)"""
    out = tmp_path / "run"
    games, chunk_size = 100_000, 2500
    proc = cli_run(out, games, "--workers", "2", "--chunk-size", str(chunk_size))
    try:
        wait_for(lambda: len(list(out.glob("games/*/chunk-*.parquet"))) >= 3, proc)
        workers = descendants(proc.pid)
        assert len(workers) >= 2 and shm_entries(proc.pid)
    finally:
        if how == "Ctrl-C":  # the terminal signals the whole process group
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
    assert_gone(workers, proc.pid, seconds=10)
    if how == "Ctrl-C":
        assert proc.returncode == 130
        assert err == (f"coltsim simulate: interrupted; finished chunks are kept in {out}: run "
                       "the same command again to resume\n")
    with pytest.raises(storage.ResultsError, match="unfinished"):
        coltsim.load_results(out)
    with warnings.catch_warnings(record=True) as warned:  # the killed run left its lock
        warnings.simplefilter("always")
        info = coltsim.simulate_to_folder(P4, games, out, seed=3, workers=1, progress=False)
    assert [w.category for w in warned] == ([] if how == "Ctrl-C" else [StaleLockWarning])
    assert 0 < info.chunks_run < games // chunk_size
    r = coltsim.load_results(out, columns=["score"])
    assert list(r.games["game"]) == list(range(games))
    pdt.assert_series_equal(r.players["score"][:4 * GAMES], baseline.players["score"])


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists() or not Path("/dev/shm").is_dir(),
                    reason="needs Linux /proc and /dev/shm")
def test_sigterm_is_handled_as_ctrl_c_is(tmp_path, baseline):
    """SIGTERM to the main process only (as a service manager sends it): the workers stop at
    once, one line, exit status 143, the finished chunks kept."""
    out = tmp_path / "run"
    proc = cli_run(out, 10**7, "--workers", "2", "--chunk-size", "2500")
    try:
        wait_for(lambda: len(list(out.glob("games/*/chunk-*.parquet"))) >= 3, proc)
        workers = descendants(proc.pid)
        assert len(workers) >= 2
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert_gone(workers, proc.pid, seconds=2)
    assert (proc.returncode, err) == (143, f"coltsim simulate: terminated; finished chunks are "
                                           f"kept in {out}: run the same command again to "
                                           "resume\n")
    with pytest.raises(storage.ResultsError, match="unfinished"):
        coltsim.load_results(out)


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0, 0.1, 0.3])
def test_ctrl_c_as_the_program_ends_is_no_traceback(tmp_path, baseline, delay):
    """Ctrl-C just after a run printed its summary, while joblib stops its workers: the run is
    done, its exit status stays 0 (it was a traceback of the main process or of a worker)."""
    proc = subprocess.Popen([sys.executable, "-m", "coltsim.cli", "simulate", "--games", "400",
                             "--chunk-size", "100", "--policies", "random", "--workers", "2",
                             "--out", str(tmp_path / "run")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})  # as on a terminal
    summary = proc.stdout.readline()
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGINT)  # as the terminal does
    _, err = proc.communicate(timeout=60)
    assert summary.startswith("400 games in ")
    assert proc.returncode == 0 and "Traceback" not in err, (proc.returncode, err)
    assert len(coltsim.load_results(tmp_path / "run").games) == 400


@pytest.mark.parametrize("command", ["run", "report", "tournament", "simulate", "trace", "show",
                                     "bench"])
def test_ctrl_c_is_one_line_and_130_in_every_command(monkeypatch, capsys, command):
    import coltsim.cli as cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, f"_{command}", interrupted)
    argv = {"run": ["run", "x.toml", "--out", "o"], "report": ["report", "r"],
            "tournament": ["tournament", "x.toml"], "simulate": ["simulate", "--games", "5",
                                                                 "--out", "o"],
            "trace": ["trace"], "show": ["show", "g.jsonl"], "bench": ["bench"]}[command]
    assert main(argv) == 130
    err = one_line(capsys)
    assert err.startswith(f"coltsim {command}: interrupted")


# --- 5. one line for every bad input ------------------------------------------------------------

def trace_file(tmp_path, edit=None) -> Path:
    out = tmp_path / "game.jsonl"
    assert main(["trace", "--seed", "7", "--out", str(out)]) == 0
    if edit is not None:
        lines = [json.loads(x) for x in out.read_text().splitlines()]
        out.write_text("".join(json.dumps(x) + "\n" for x in edit(lines)))
    return out


def without_bandits(lines):
    del lines[0]["bandits"]
    return lines


@pytest.mark.parametrize("argv, message", [
    (["simulate", "--games", "10", "--rules", "null", "--out", "{d}"],
     "--rules must be a JSON object"),
    (["simulate", "--games", "10", "--rules", '{"abilities":5}', "--out", "{d}"],
     "rules: rule option abilities must be a list of names, got 5"),
    (["simulate", "--games", "10", "--policies", "json:loads", "--out", "{d}", "--workers", "1",
      "--quiet"],
     "policies: user policy json:loads cannot be played"),
    (["trace", "--out", "{d}"], "is a folder; give a file name"),
    (["trace", "--out", "{d}/missing/game.jsonl"], "missing does not exist"),  # before compiling
    (["simulate", "--games", "10", "--out", "{file}/sub"], "Not a directory"),
    (["simulate", "--games", "4611686018427387904", "--out", "{d}"],
     "games: must be an integer from 1 to 1,000,000,000"),
    (["simulate", "--games", "10", "--workers", "100000", "--out", "{d}"],
     "(4 per available core)"),
    (["simulate", "--games", "10", "--params", '{"rollout": {"budget": 1e300}}', "--policies",
      "rollout", "--out", "{d}"], "budget must be at most 100,000, got 1e+300"),
    (["simulate", "--games", "50000", "--chunk-size", "1", "--out", "{d}"],
     "make more than 20,000 chunks; use chunk_size >= 3"),
    (["simulate", "--games", "1e3", "--out", "{d}"], "argument --games: invalid int value"),
    (["bench", "--workers", "0"], "workers: must be an integer from 1"),
    (["nonsense"], "invalid choice: 'nonsense'"),
])
def test_inputs_that_gave_tracebacks_give_one_line(tmp_path, capsys, argv, message):
    (tmp_path / "file").write_text("x")
    (tmp_path / "d").mkdir()
    argv = [a.replace("{d}", str(tmp_path / "d")).replace("{file}", str(tmp_path / "file"))
            for a in argv]
    assert main(argv) == 2
    assert message in one_line(capsys)


def test_show_rejects_a_trace_that_is_not_whole(tmp_path, capsys):
    cut = trace_file(tmp_path, lambda lines: lines[:len(lines) // 2])  # at a line boundary
    capsys.readouterr()  # a first trace in a fresh cache says it compiles the engine
    assert main(["show", str(cut)]) == 2
    assert (f"{cut}: not a whole coltsim trace: line {sum(1 for _ in open(cut))}: the trace "
            "stops there, without its end line (cut short?)") in one_line(capsys)
    bare = trace_file(tmp_path, without_bandits)
    capsys.readouterr()
    assert main(["show", str(bare)]) == 2
    assert "line 1: setup line has no 'bandits'" in one_line(capsys)
    assert main(["show", str(trace_file(tmp_path))]) == 0


DEEP = "[" * 20_000 + "]" * 20_000  # deeper than Python's parsers go


@pytest.mark.parametrize("where", ["--rules", "--params", "experiment file", "trace line",
                                   "manifest"])
def test_deep_nesting_in_any_input_is_one_line(tmp_path, capsys, where):
    message = "nested too deeply"
    if where in ("--rules", "--params"):
        argv = ["trace", where, DEEP]
    elif where == "experiment file":
        toml = tmp_path / "deep.toml"
        toml.write_text(f'name = "deep"\nseed = 1\n[sweep]\nplayers = {DEEP}\n')
        argv, message = ["run", str(toml), "--out", str(tmp_path / "r")], f"{toml}: {message}"
    elif where == "trace line":
        trace = tmp_path / "deep.jsonl"
        trace.write_text(DEEP + "\n")
        argv, message = ["show", str(trace)], f"{trace}: line 1: {message}"
    else:
        (tmp_path / "manifest.json").write_text(DEEP)
        argv = ["simulate", "--games", "5", "--out", str(tmp_path)]
    assert main(argv) == 2
    assert message in one_line(capsys)


def test_a_long_value_is_shortened_in_the_error_line(tmp_path, capsys):
    toml = tmp_path / "long.toml"
    toml.write_text('name = "long"\nseed = 1\ngames = 10\n[[settings]]\nplayers = 3\nlabel = "'
                    + "y" * 5000 + '"\n')
    assert main(["run", str(toml), "--out", str(tmp_path / "r")]) == 2
    err = one_line(capsys)
    assert "settings[0].label: must be one line of text (at most 100 characters), got 'yyy" in err
    assert " characters left out ...] yyy" in err and err.endswith("yyy'\n")
    assert len(err) < 560


def test_help_is_whole(capsys):
    import coltsim.cli as cli

    assert main(["--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    for paragraph in cli.__doc__.split("\n\n"):
        assert " ".join(paragraph.split()) in shown


@contextlib.contextmanager
def peer(answer):
    """A TCP server on a free local port that treats each connection with ``answer``."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve():
        with contextlib.suppress(OSError):
            while True:
                conn, _ = server.accept()
                with conn:
                    answer(conn)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()


def web_server(conn):  # waits for a request, then answers it
    conn.recv(1 << 16)
    conn.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n")


def silent(conn):
    time.sleep(1)


def resets(conn):
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def nobody() -> str:
    """A local address where nothing listens (a port bound, never listened on, let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{sock.getsockname()[1]}"


@pytest.mark.parametrize("answer, problem", [
    (web_server, "{address} is not a Dask scheduler: it said nothing within 0.3 s"),
    (silent, "{address} is not a Dask scheduler: it said nothing within 0.3 s"),
    (resets, "{address} is not a Dask scheduler: it closed the connection"),
    (lambda conn: conn.sendall(b"HTTP/1.0 200 OK\r\n\r\nhello"),
     "{address} is not a Dask scheduler: it answered b'HTTP/1.0'"),
    (None, "cannot reach the Dask scheduler {address}: Connection refused"),
], ids=["web server", "silent", "accepts and resets", "speaks first", "nothing listens"])
def test_a_dask_scheduler_that_is_not_one_is_one_line(tmp_path, capsys, monkeypatch, answer,
                                                       problem):
    pytest.importorskip("distributed")
    from coltsim.runs import runner

    monkeypatch.setattr(runner, "SCHEDULER_TIMEOUT", 0.3)
    with contextlib.ExitStack() as stack:
        address = nobody() if answer is None else stack.enter_context(peer(answer))
        start = time.monotonic()
        assert main(["simulate", "--games", "10", "--out", str(tmp_path), "--backend", "dask",
                     "--scheduler", address, "--quiet"]) == 2
        assert time.monotonic() - start < 5
    assert (f"coltsim simulate: error: scheduler: {problem.format(address=address)}"
            in one_line(capsys))
    assert list(tmp_path.iterdir()) == []  # refused before the folder is touched


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs POSIX file size limits")
def test_a_full_disk_while_writing_the_report_leaves_the_old_one(report, capsys):
    """A write that fails part way (a file size limit: as a full disk, it fails in write)."""
    import resource

    before = files_of(report)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before["report.html"]) // 2, hard))
    try:
        status = main(["report", str(report)])
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert status == 2
    assert (f"coltsim report: error: {report / 'report.html'}: File too large; nothing was "
            "written, the folder is as it was") in one_line(capsys)
    assert files_of(report) == before  # nothing torn, no temporary left, the lock released


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_folder_is_one_line(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    assert main(["simulate", "--games", "10", "--out", str(locked / "run")]) == 2
    assert "Permission denied" in one_line(capsys)


def test_an_experiment_file_may_start_with_a_byte_order_mark(tmp_path):
    toml = experiment(tmp_path)
    toml.write_bytes(b"\xef\xbb\xbf" + toml.read_bytes())
    assert coltsim.load_experiment(toml).name == "tiny"


@pytest.mark.parametrize("call, error", [
    (lambda: coltsim.simulate(5, 10), "setting must be a coltsim Setting"),
    (lambda: coltsim.simulate_to_folder(P4, 10, 123), "folder: must be a folder path, got 123"),
    (lambda: coltsim.load_results(123), "folder: must be a folder path"),
    (lambda: coltsim.Rules(cars=5), "rule option cars must be a list of names"),
    (lambda: make_setting(4, lineup=5), "lineup: 5 is not a line-up"),
    (lambda: make_setting(4, policies=5), "policies: 5 is not a policy list"),
    (lambda: make_setting("4"), "players: '4' is not a player count"),
    (lambda: coltsim.simulate(P4, 10, workers=10**5), "workers: must be an integer from 1"),
])
def test_the_python_api_raises_value_error_for_bad_values(call, error):
    with pytest.raises(ValueError) as info:
        call()
    assert error in str(info.value) and "\n" not in str(info.value)
