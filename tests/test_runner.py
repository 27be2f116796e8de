"""The batch runner: same data whatever the workers, chunks and backend; resume; manifest;
Dask; the tidy tables; bad input."""
import itertools
import json
import os
import signal
import subprocess
import sys
import time

import numba
import numpy as np
import pandas.testing as pdt
import pytest

import coltsim
from coltsim import constants as K
from coltsim import results as R
from coltsim import runner
from coltsim.cli import main
from coltsim.engine.scoring import RG_FAIL
from coltsim.engine.state import N_PARAMS
from coltsim.policies import DEFAULT

GAMES = 2000


@pytest.fixture(scope="module")
def baseline():
    """2,000 four-player games in one chunk, in this process."""
    return coltsim.simulate(GAMES, seed=7, workers=1, chunk_size=GAMES, quiet=True)


def assert_same(a, b):
    pdt.assert_frame_equal(a.players, b.players)
    pdt.assert_frame_equal(a.games, b.games)


# --- reproducibility ----------------------------------------------------------------------------

@pytest.mark.parametrize("workers, chunk_size, backend", [
    (2, 300, "loky"),
    (2, 700, "threading"),
    (1, 450, "loky"),
])
def test_same_data_whatever_workers_chunks_and_backend(baseline, workers, chunk_size, backend):
    r = coltsim.simulate(GAMES, seed=7, workers=workers, chunk_size=chunk_size, backend=backend,
                         quiet=True)
    assert_same(r, baseline)


def test_folder_holds_the_same_data_as_memory(baseline, tmp_path):
    info = coltsim.simulate(GAMES, seed=7, folder=tmp_path, chunk_size=600, workers=2, quiet=True)
    assert (info.chunks, info.chunks_run, info.games_run) == (4, 4, GAMES)
    assert_same(coltsim.load_results(tmp_path), baseline)
    files = sorted(p.name for p in (tmp_path / "games" / info.setting_id).iterdir())
    assert files == [f"chunk-{c:06d}.parquet" for c in range(4)]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["rules_version"] == coltsim.RULES_VERSION
    assert manifest["coltsim_version"] == coltsim.__version__
    entry = manifest["settings"][info.setting_id]
    assert (entry["seed"], entry["games"], entry["chunk_size"]) == (7, GAMES, 600)
    assert entry["rules"] == coltsim.Rules().as_dict()


def test_other_seed_gives_other_games(baseline):
    r = coltsim.simulate(200, seed=8, workers=1, quiet=True)
    assert not r.players["score"].equals(baseline.players["score"][:800].reset_index(drop=True))


# --- resume -------------------------------------------------------------------------------------

def test_resume_after_lost_chunks(baseline, tmp_path):
    info = coltsim.simulate(GAMES, seed=7, folder=tmp_path, chunk_size=500, workers=1, quiet=True)
    sid = info.setting_id
    # A kill can leave: a chunk with no file, a chunk with only its players file, a temporary.
    R.chunk_path(tmp_path, "players", sid, 1).unlink()
    R.chunk_path(tmp_path, "games", sid, 1).unlink()
    R.chunk_path(tmp_path, "games", sid, 3).unlink()
    tmp = R.chunk_path(tmp_path, "games", sid, 2).with_name(".chunk-000002.parquet.ab.tmp")
    tmp.write_bytes(b"half a file")
    partial = coltsim.load_results(tmp_path)
    assert sorted(set(partial.games["game"] // 500)) == [0, 2]
    assert len(partial.players) == 4 * len(partial.games)

    again = coltsim.simulate(GAMES, seed=7, folder=tmp_path, workers=2, quiet=True)
    assert (again.chunks_run, again.games_run) == (2, 1000)
    assert not tmp.exists()
    assert_same(coltsim.load_results(tmp_path), baseline)
    done = coltsim.simulate(GAMES, seed=7, folder=tmp_path, workers=1, quiet=True)
    assert done.chunks_run == 0


def test_resume_after_a_run_that_raised(baseline, tmp_path, monkeypatch):
    written = []
    real_write = R.write_chunk

    def failing_write(folder, sid, chunk, tables):
        if len(written) == 2:
            raise KeyboardInterrupt  # as a Ctrl-C would, part way through
        written.append(chunk)
        real_write(folder, sid, chunk, tables)

    monkeypatch.setattr(R, "write_chunk", failing_write)
    with pytest.raises(KeyboardInterrupt):
        coltsim.simulate(GAMES, seed=7, folder=tmp_path, chunk_size=400, workers=1, quiet=True)
    monkeypatch.setattr(R, "write_chunk", real_write)
    assert len(coltsim.load_results(tmp_path).games) == 800
    again = coltsim.simulate(GAMES, seed=7, folder=tmp_path, chunk_size=400, workers=1, quiet=True)
    assert again.chunks_run == 3
    assert_same(coltsim.load_results(tmp_path), baseline)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_resume_after_kill_or_ctrl_c(tmp_path, baseline, sig):
    """Kill a command-line run (SIGKILL to it and its workers, or a Ctrl-C) part way, then
    finish it.  (``baseline`` compiles the kernel first: the subprocess loads it from the cache.)"""
    games, chunk = 24_000, 1000
    args = [sys.executable, "-m", "coltsim.cli", "simulate", "--games", str(games), "--seed", "3",
            "--chunk-size", str(chunk), "--workers", "2", "--out", str(tmp_path), "--quiet"]
    proc = subprocess.Popen(args, start_new_session=True, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 300
        while len(list(tmp_path.glob("games/*/chunk-*.parquet"))) < 3:
            assert proc.poll() is None, "the run ended before it could be interrupted"
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        if sig == signal.SIGKILL:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        assert "interrupted; finished chunks are kept" in err
    assert len(coltsim.load_results(tmp_path).games) < games
    info = coltsim.simulate(games, seed=3, folder=tmp_path, workers=2, quiet=True)
    assert 0 < info.chunks_run < games // chunk
    whole = coltsim.simulate(games, seed=3, workers=2, chunk_size=8000, quiet=True)
    assert_same(coltsim.load_results(tmp_path), whole)


# --- manifest -----------------------------------------------------------------------------------

@pytest.mark.parametrize("change, field", [
    ({"seed": 8}, "seed"),
    ({"games": 1500}, "games"),
    ({"chunk_size": 250}, "chunk_size"),
    ({"rules": coltsim.Rules(neutral_bullets=-1)}, "rules.neutral_bullets"),
    ({"policies": "random,random,random,random", "params": np.ones((4, N_PARAMS))}, "params"),
])
def test_manifest_mismatch_is_refused(tmp_path, change, field):
    kwargs = dict(seed=7, folder=tmp_path, chunk_size=500, workers=1, quiet=True,
                  setting_id="base", policies="random")
    coltsim.simulate(1000, **kwargs)
    games = change.pop("games", 1000)
    with pytest.raises(ValueError, match=rf"manifest.json does not match this run: "
                                         rf"settings\.base\.{field} is"):
        coltsim.simulate(games, **{**kwargs, **change})


def test_manifest_version_mismatch_is_refused(tmp_path):
    coltsim.simulate(100, folder=tmp_path, workers=1, quiet=True)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["rules_version"] = "0"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="rules_version is '0' there but"):
        coltsim.simulate(100, folder=tmp_path, workers=1, quiet=True)


def test_folder_without_manifest_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not empty and holds no manifest.json"):
        coltsim.simulate(100, folder=tmp_path, workers=1, quiet=True)
    with pytest.raises(ValueError, match="not a coltsim results folder"):
        coltsim.load_results(tmp_path)


def test_several_settings_share_a_folder(tmp_path):
    a = coltsim.simulate(300, players=3, seed=1, folder=tmp_path, workers=1, quiet=True,
                         setting_id="three")
    b = coltsim.simulate(200, players=5, seed=1, folder=tmp_path, workers=1, quiet=True,
                         rules=coltsim.Rules(rounds=3), setting_id="five")
    assert (a.setting_id, b.setting_id) == ("three", "five")
    r = coltsim.load_results(tmp_path)
    assert list(r.settings["setting"]) == ["three", "five"]
    assert list(r.settings["rounds"]) == [5, 3]
    assert r.games.groupby("setting", observed=True).size().to_dict() == {"three": 300, "five": 200}
    assert r.players.groupby("setting", observed=True).size().to_dict() == {"three": 900,
                                                                            "five": 1000}
    five = r.games[r.games["setting"] == "five"]
    assert five["round_3"].isna().all() and five["round_2"].notna().all()
    only = coltsim.load_results(tmp_path, settings="five", columns=["score"])
    assert list(only.players.columns) == ["game", "setting", "score"]
    assert len(only.games) == 200
    alone = coltsim.simulate(200, players=5, seed=1, workers=1, quiet=True,
                             rules=coltsim.Rules(rounds=3), setting_id="five")
    pdt.assert_series_equal(only.players["score"], alone.players["score"])
    with pytest.raises(ValueError, match="no setting 'six'"):
        coltsim.load_results(tmp_path, settings="six")


def test_default_setting_id_is_stable_and_distinct():
    a = runner.make_setting(4)
    assert a.id == runner.make_setting(4, policies=DEFAULT, bandits="random").id
    assert a.id.startswith("4p-")
    assert a.id != runner.make_setting(4, rules={"neutral_bullets": 5}).id
    assert a.id != runner.make_setting(4, bandits="all").id


def test_progress_goes_to_a_given_bar(tmp_path):
    """An experiment passes one bar for all its settings: every game is counted once."""
    class Bar:
        n = 0

        def update(self, k):
            self.n += k

    bar = Bar()
    coltsim.simulate(700, folder=tmp_path, chunk_size=200, workers=1, progress=bar)
    assert bar.n == 700
    R.chunk_path(tmp_path, "games", runner.make_setting(4).id, 2).unlink()
    coltsim.simulate(700, folder=tmp_path, workers=1, progress=bar)
    assert bar.n == 1400


# --- Dask ---------------------------------------------------------------------------------------

def test_dask_local_cluster_gives_the_same_data(baseline, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        r = coltsim.simulate(GAMES, seed=7, chunk_size=300, backend="dask",
                             scheduler=cluster.scheduler_address, quiet=True)
        assert_same(r, baseline)
        info = coltsim.simulate(GAMES, seed=7, chunk_size=900, backend="dask", folder=tmp_path,
                                scheduler=cluster.scheduler_address, quiet=True)
        assert info.chunks_run == 3
    assert_same(coltsim.load_results(tmp_path), baseline)


# --- the tables ---------------------------------------------------------------------------------

PLAYER_DTYPES = dict(R.PLAYER_COLUMNS)


def test_player_table_schema_and_consistency(baseline):
    p, g = baseline.players, baseline.games
    assert {c: str(t) for c, t in p.dtypes.items()} == PLAYER_DTYPES
    assert list(g.columns) == [c for c, _ in R.game_columns(5)]
    assert {c: str(t) for c, t in g.dtypes.items()} == dict(R.game_columns(5))
    assert len(p) == 4 * GAMES and list(g["game"]) == list(range(GAMES))
    assert (p["game"].to_numpy() == np.repeat(np.arange(GAMES), 4)).all()
    assert (p["bandit_index"] == p["seat"]).all()
    assert list(p["bandit"].cat.categories) == list(K.BANDIT_NAMES)
    assert (p.groupby("game")["bandit"].nunique() == 4).all()
    first = np.repeat(g["first_player"].to_numpy(), 4)
    assert ((p["seat"] - first) % 4 == p["order"]).all()
    assert (p["order"][p["seat"] == first] == 0).all()
    assert (p["purse"] + p["jewel"] + p["strongbox"] + p["ransom"] == p["loot"]).all()
    assert (p["loot"] + p["bonus"] == p["score"]).all()
    assert (p["score"] == p["team_score"]).all()
    assert ((p["bonus"] > 0) == p["gunslinger"]).all()
    assert (p["win"] == (p["rank"] == 1)).all()
    assert p["shots"].between(0, K.BULLETS_PER_BANDIT).all()
    winners = p.groupby("game")["win"].sum().to_numpy()
    assert (winners == g["n_winners"]).all() and (winners >= 1).all()
    assert (p["shared_win"] == (p["win"] & np.repeat(winners > 1, 4))).all()
    assert (p.groupby("game")["gunslinger"].sum().to_numpy() == g["n_gunslingers"]).all()
    best = p.groupby("game")["score"].max().to_numpy()
    assert (p["score"][p["win"]].to_numpy() == np.repeat(best, winners)).all()
    # The bonus changed the winner exactly when the winners by loot alone differ.
    assert g["gunslinger_changed_winner"].any() and not g["gunslinger_changed_winner"].all()
    assert g["cars"].str.len().eq(4).all()
    assert g["cars"].map(lambda s: len(set(s)) == 4 and set(s) <= set("ABCDEF")).all()
    rounds = g[[f"round_{r}" for r in range(1, 5)]].to_numpy()
    assert all(len(set(row)) == 4 for row in rounds[:50])
    assert g["station"].isin(R.STATIONS).all()
    assert g["neutral_left"].between(0, 13).all()
    assert (p["policy"] == DEFAULT).all()
    assert list(baseline.settings["setting"]) == list(p["setting"].cat.categories)


def test_two_players_have_two_bandits_each():
    r = coltsim.simulate(300, players=2, workers=1, quiet=True)
    p = r.players
    assert len(p) == 4 * 300
    assert (p["seat"] == p["bandit_index"] // 2).all()
    assert (p["order"] == (p["seat"] - np.repeat(r.games["first_player"], 4).to_numpy()) % 2).all()
    team = p.groupby(["game", "seat"])["score"].sum().to_numpy()
    assert (team == p.groupby(["game", "seat"])["team_score"].first().to_numpy()).all()
    assert not p["gunslinger"].any()
    assert r.games["cars"].str.len().eq(4).all()
    assert r.settings["advanced"].iloc[0]


def test_lineups_fixed_partly_random_and_all():
    fixed = coltsim.simulate(50, players=3, bandits=["doc", "ghost", "tuco"], workers=1,
                             quiet=True).players
    assert list(fixed["bandit"][:6]) == ["doc", "ghost", "tuco"] * 2
    assert fixed.groupby("bandit_index")["bandit"].nunique().eq(1).all()
    partly = coltsim.simulate(200, players=3, bandits="belle,random,random", workers=1,
                              quiet=True).players
    assert (partly["bandit"][partly["bandit_index"] == 0] == "belle").all()
    assert partly["bandit"][partly["bandit_index"] == 1].nunique() == 5
    every = list(itertools.permutations(K.BANDIT_NAMES, 3))
    r = coltsim.simulate(len(every) + 10, players=3, bandits="all", workers=2, chunk_size=40,
                         quiet=True)
    played = [tuple(r.players["bandit"][3 * g:3 * g + 3]) for g in range(len(r.games))]
    assert played == (every + every)[:len(played)]
    assert r.settings["lineup"].iloc[0] == "all"


def test_policies_and_params_are_recorded():
    params = np.arange(3 * N_PARAMS, dtype=float).reshape(3, N_PARAMS)
    r = coltsim.simulate(20, players=3, policies="random", params=params, workers=1,
                         quiet=True)
    assert list(r.players["policy"].cat.categories) == ["random"]
    assert json.loads(r.settings["params"].iloc[0]) == params.tolist()


def test_each_seat_plays_its_own_policy():
    """greedy wins most games against three random players (about 94%, docs/policies.md)."""
    r = coltsim.simulate(300, policies="random,greedy,random,random", workers=2, chunk_size=100,
                         backend="threading", quiet=True)
    p = r.players
    assert list(p["policy"][:4]) == ["random", "greedy", "random", "random"]
    assert list(p["policy"].cat.categories) == ["random", "greedy"]
    wins = p.groupby("policy", observed=True)["win"].mean()
    assert wins["greedy"] > 0.7 > 0.15 > wins["random"]
    assert r.settings["policies"].iloc[0] == "random,greedy,random,random"


def test_policy_parameters_by_name_are_resolved_and_recorded():
    plain = runner.make_setting(4, policies="weighted")
    tuned = runner.make_setting(4, policies="weighted", params={"weighted": {"fire": 0.0}})
    assert plain.params is not None and plain.params != tuned.params
    assert plain.id != tuned.id
    assert runner.make_setting(4, policies="random").params is None  # it reads no parameters
    r = coltsim.simulate(20, policies="weighted", params={"weighted": {"fire": 0.0}}, workers=1,
                         quiet=True)
    assert np.array(json.loads(r.settings["params"].iloc[0])) == pytest.approx(
        np.array(tuned.params))


@numba.njit
def first_option(obs, kind, options, params, rng):
    """A user policy for the runner tests: always the first legal option."""
    return 0


@pytest.mark.slow
def test_user_policy_in_worker_processes(baseline):
    """A user policy is compiled into the batch kernel of each worker process (~15 s each)."""
    one = coltsim.simulate(200, policies=[first_option, "random", "random", "random"],
                           workers=1, quiet=True)
    label = f"{__name__}:first_option"
    assert list(one.players["policy"][:2]) == [label, "random"]
    two = coltsim.simulate(200, policies=[first_option, "random", "random", "random"],
                           workers=2, chunk_size=100, quiet=True)
    assert_same(one, two)
    plain = coltsim.simulate(200, workers=1, quiet=True)
    assert not one.players["score"].equals(plain.players["score"])


def test_checked_run_and_rule_options():
    r = coltsim.simulate(200, players=6, check=True, workers=1, quiet=True,
                         rules={"neutral_bullets": -1, "gunslinger_bonus": 0, "rounds": 2})
    assert (r.games["neutral_left"] == -1).all()
    assert r.players["gunslinger"].any() and (r.players["bonus"] == 0).all()
    assert list(r.games.columns[4:6]) == ["round_1", "station"]
    assert r.games["cars"].str.len().eq(6).all()


def test_a_failed_game_stops_the_run_and_is_not_written(tmp_path, monkeypatch):
    real = runner.batch_kernel

    def failing_kernel(functions):
        kernel = real(functions)

        def play(seed, first, *args):
            kernel(seed, first, *args)
            out_g = args[-1]
            if first <= 250 < first + len(out_g):
                out_g[250 - first, RG_FAIL] = 3  # as the invariant check would
        return play

    monkeypatch.setattr(runner, "batch_kernel", failing_kernel)
    with pytest.raises(RuntimeError, match=r"invariant broken: loot_place \(seed 0, game 250\)"):
        coltsim.simulate(500, folder=tmp_path, chunk_size=100, workers=1, quiet=True)
    assert sorted(set(coltsim.load_results(tmp_path).games["game"] // 100)) == [0, 1]


# --- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(games=0), "games must be an integer from 1"),
    (dict(games=2.5), "games must be an integer"),
    (dict(players=7), "players must be an integer from 2 to 6"),
    (dict(bandits="ghost,belle"), "bandits must name 4 bandits"),
    (dict(bandits="everyone"), "bandits must name 4 bandits"),
    (dict(policies="clever"), "unknown policy 'clever'"),
    (dict(seed=-1), "seed must be an integer"),
    (dict(backend="spark"), "unknown backend 'spark'"),
    (dict(workers=0), "workers must be a positive integer"),
    (dict(workers="2"), "workers must be a positive integer"),
    (dict(scheduler="tcp://127.0.0.1:1"), "scheduler is only used with backend 'dask'"),
    (dict(chunk_size=0), "chunk_size must be an integer from 1"),
    (dict(setting_id="a/b"), "setting_id must be"),
    (dict(params=np.zeros((3, N_PARAMS))), r"params must have shape \(4, 16\)"),
    (dict(params=np.full((4, N_PARAMS), np.nan)), "params must be finite"),
    (dict(rules={"neutral_bullets": 200}), "neutral_bullets must be at most 127"),
    (dict(rules={"bullets": 3}), "unknown rule option 'bullets'"),
])
def test_bad_input_is_a_clear_value_error(kwargs, message):
    kwargs = {"games": 10, "quiet": True, **kwargs}
    with pytest.raises(ValueError, match=message):
        coltsim.simulate(**kwargs)


def test_dask_without_scheduler_is_refused():
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match="backend 'dask' needs scheduler"):
        coltsim.simulate(10, backend="dask", quiet=True)


# --- command line -------------------------------------------------------------------------------

def test_cli_simulate_and_resume(tmp_path, capsys, baseline):
    args = ["simulate", "--games", str(GAMES), "--seed", "7", "--out", str(tmp_path),
            "--workers", "1", "--chunk-size", "1000", "--quiet"]
    assert main(args) == 0
    assert capsys.readouterr().out == ""
    assert_same(coltsim.load_results(tmp_path), baseline)
    assert main(args[:-1]) == 0
    assert "0 games in" in capsys.readouterr().out
    assert main(args[:2] + ["100"] + args[3:]) == 2
    assert "games is 2000 there but 100 here" in capsys.readouterr().err


def test_cli_bench_json(capsys):
    assert main(["bench", "--games", "2000", "--workers", "1", "--no-compile", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["games"] == 2000 and r["workers"] == 1 and r["players"] == 4
    assert r["games_per_second"] == pytest.approx(2000 / r["seconds"], rel=1e-3)
    assert main(["bench", "--players", "9", "--no-compile"]) == 2
