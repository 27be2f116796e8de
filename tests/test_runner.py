"""The batch runner: same data whatever the workers, chunks and backend; resume; manifest;
Dask; the tidy tables; bad input."""
import itertools
import json

import numba
import numpy as np
import pandas.testing as pdt
import pytest

import coltsim
from coltsim import constants as K
from coltsim.cli import main
from coltsim.engine.scoring import RG_FAIL
from coltsim.policies import DEFAULT
from coltsim.results import STATIONS, game_columns, player_columns
from coltsim.runs import chunk, storage
from coltsim.setting import make_setting
from tests.tables import SEARCH, SEARCH_PARAMS

GAMES = 2000
P4 = make_setting(4)  # the default policy in every seat, bandits drawn per game


def simulate(games=GAMES, setting=P4, **kwargs):
    return coltsim.simulate(setting, games, progress=False, **kwargs)


def to_folder(folder, games=GAMES, setting=P4, **kwargs):
    return coltsim.simulate_to_folder(setting, games, folder, progress=False, **kwargs)


@pytest.fixture(scope="module")
def baseline():
    """2,000 four-player games in one chunk, in this process."""
    return simulate(seed=7, workers=1, chunk_size=GAMES)


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
    r = simulate(seed=7, workers=workers, chunk_size=chunk_size, backend=backend)
    assert_same(r, baseline)


def test_folder_holds_the_same_data_as_memory(baseline, tmp_path):
    info = to_folder(tmp_path, seed=7, chunk_size=600, workers=2)
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
    r = simulate(200, seed=8, workers=1)
    assert not r.players["score"].equals(baseline.players["score"][:800].reset_index(drop=True))


# --- resume -------------------------------------------------------------------------------------

def test_resume_after_lost_chunks(baseline, tmp_path):
    info = to_folder(tmp_path, seed=7, chunk_size=500, workers=1)
    sid = info.setting_id
    # A kill can leave: a chunk with no file, a chunk with only its players file, a temporary.
    storage.chunk_path(tmp_path, "players", sid, 1).unlink()
    storage.chunk_path(tmp_path, "games", sid, 1).unlink()
    storage.chunk_path(tmp_path, "games", sid, 3).unlink()
    tmp = storage.chunk_path(tmp_path, "games", sid, 2).with_name(".chunk-000002.parquet.ab.tmp")
    tmp.write_bytes(b"half a file")
    with pytest.raises(storage.ResultsError, match=r"players/.*/chunk-000001.parquet: missing "
                                                   r"\(chunk 1 .* games 500 to 999\)"):
        coltsim.load_results(tmp_path)

    with pytest.warns(storage.RepairWarning) as warned:
        again = to_folder(tmp_path, seed=7, workers=2)
    path = storage.chunk_path
    assert [str(w.message) for w in warned] == [
        f"{path(tmp_path, 'players', sid, 1)}: missing (chunk 1 of setting {sid}, games 500 to "
        "999); recomputing it",
        f"{path(tmp_path, 'games', sid, 3)}: missing (chunk 3 of setting {sid}, games 1,500 to "
        "1,999); recomputing it"]
    assert (again.chunks_run, again.games_run) == (2, 1000)
    assert not tmp.exists()
    assert_same(coltsim.load_results(tmp_path), baseline)
    done = to_folder(tmp_path, seed=7, workers=1)
    assert done.chunks_run == 0


def recorded_chunks(folder, setting_id):
    """Chunk numbers the manifest records as finished."""
    manifest = json.loads((folder / "manifest.json").read_text())
    return sorted(r["chunk"] for r in manifest["settings"][setting_id]["chunks"])


def test_resume_after_a_run_that_raised(baseline, tmp_path, monkeypatch):
    written = []
    real_write = storage.write_chunk

    def failing_write(folder, sid, chunk, first, tables, token):
        if len(written) == 2:
            raise KeyboardInterrupt  # as a Ctrl-C would, part way through
        written.append(chunk)
        return real_write(folder, sid, chunk, first, tables, token)

    monkeypatch.setattr(storage, "write_chunk", failing_write)
    with pytest.raises(KeyboardInterrupt):
        to_folder(tmp_path, seed=7, chunk_size=400, workers=1)
    monkeypatch.setattr(storage, "write_chunk", real_write)
    assert recorded_chunks(tmp_path, P4.id) == [0, 1]  # recorded when the run stopped
    with pytest.raises(storage.ResultsError, match=r"unfinished: games 800 to 1,999 of 2,000 "
                                                   r"are in no finished chunk"):
        coltsim.load_results(tmp_path)
    again = to_folder(tmp_path, seed=7, chunk_size=400, workers=1)
    assert again.chunks_run == 3
    assert_same(coltsim.load_results(tmp_path), baseline)


def test_a_run_of_a_few_thousand_games_has_work_for_every_core(tmp_path):
    """A setting's games are cut into 16 chunks or more (of 500 games or more) by default, so
    that 3,000 games of a search are not one chunk, played by one worker while the others
    wait; a chunk keeps at most 50,000 games in a worker's memory."""
    from coltsim.runs.options import default_chunk_size

    assert [default_chunk_size(n) for n in (40, 3000, 8000, 50_000, 10**9)] == [
        500, 500, 500, 3125, 50_000]
    r4 = make_setting(4, policies="random")
    info = to_folder(tmp_path, 3000, r4, seed=7, workers=2)
    assert (info.chunks, info.games_run) == (6, 3000)
    assert coltsim.load_results(tmp_path).manifest["settings"][r4.id]["chunk_size"] == 500
    assert simulate(3000, r4, seed=7, workers=2).manifest["settings"][r4.id]["chunk_size"] == 500
    # Grown to 20,000 games, the 17,000 new ones are cut as a run of 20,000 would be (1,250 a
    # chunk), not in 34 chunks of the first run's 500; the chunks held stay.
    info = to_folder(tmp_path, 20_000, r4, seed=7, workers=2)
    chunks = coltsim.load_results(tmp_path).manifest["settings"][r4.id]["chunks"]
    sizes = sorted((r["first_game"], r["n_games"]) for r in chunks)
    assert sizes[:6] == [(g, 500) for g in range(0, 3000, 500)]
    assert sizes[6] == (3000, 750) and {n for g, n in sizes[7:]} == {1250}
    assert info.chunks_run == len(chunks) - 6 == 14


# --- manifest -----------------------------------------------------------------------------------

@pytest.mark.parametrize("change, field", [
    ({"seed": 8}, "seed"),
    ({"setting": make_setting(4, policies="weighted", rules={"neutral_bullets": -1},
                              setting_id="base")},
     "rules.neutral_bullets"),
    ({"setting": make_setting(4, policies="weighted", setting_id="base",
                              params={"weighted": {"fire": 0.5}})}, "params"),
])
def test_manifest_mismatch_is_refused(tmp_path, change, field):
    kwargs = dict(seed=7, chunk_size=500, workers=1, setting=make_setting(4, policies="weighted",
                                                                            setting_id="base"))
    to_folder(tmp_path, 1000, **kwargs)
    games = change.pop("games", 1000)
    with pytest.raises(ValueError, match=rf"manifest.json does not match this run: "
                                         rf"settings\.base\.{field} is"):
        to_folder(tmp_path, games, **{**kwargs, **change})


@pytest.mark.parametrize("chunk_size", [None, 700])
def test_a_grown_run_holds_what_a_fresh_run_would(tmp_path, chunk_size):
    """2,000 games grown to 4,000 are the 4,000 games of a fresh run, row for row (the default
    chunk size of the first run, 500, cuts the second run too; 700 leaves a short chunk in the
    middle)."""
    grown, fresh = tmp_path / "grown", tmp_path / "fresh"
    to_folder(grown, 2000, seed=3, chunk_size=chunk_size, workers=2)
    info = to_folder(grown, 4000, seed=3, workers=2)
    assert (info.games, info.games_run) == (4000, 2000)
    to_folder(fresh, 4000, seed=3, chunk_size=chunk_size, workers=2)
    a, b = coltsim.load_results(grown), coltsim.load_results(fresh)
    assert_same(a, b)
    assert a.players["game"].max() == 3999 and len(a.games) == 4000
    assert a.manifest["settings"][P4.id]["games"] == 4000
    again = to_folder(grown, 4000, seed=3, workers=2)
    assert again.games_run == 0


def test_a_run_never_shrinks(tmp_path):
    to_folder(tmp_path, 600, seed=3, workers=1)
    with pytest.raises(storage.ResultsError, match=r"holds a run of 600 games, this one asks for "
                                                   r"500; a run grows but never shrinks: ask "
                                                   r"for 600 games or more"):
        to_folder(tmp_path, 500, seed=3, workers=1)
    assert len(coltsim.load_results(tmp_path).games) == 600


def test_chunk_records_carry_their_game_range_so_a_run_can_grow():
    """Chunks are planned around the recorded ones, whatever their numbers: a fresh run on the
    grid of the chunk size, a lost chunk under its own number, more games after a short last
    chunk under new numbers."""
    def records(*spans):
        return {c: {"chunk": c, "first_game": f, "n_games": n} for c, f, n in spans}

    assert storage.chunks_to_play(120, 50, {}) == [(0, 0, 50), (1, 50, 50), (2, 100, 20)]
    assert storage.chunks_to_play(120, 50, records((0, 0, 50), (2, 100, 20))) == [(1, 50, 50)]
    assert storage.chunks_to_play(120, 50, records((0, 0, 20))) == [(1, 20, 30), (2, 50, 50),
                                                                  (3, 100, 20)]
    assert storage.chunks_to_play(120, 50, records((0, 0, 50), (1, 50, 50), (2, 100, 20))) == []


def test_a_new_label_is_recorded_not_refused(tmp_path):
    to_folder(tmp_path, 300, setting=make_setting(4, setting_id="s"), workers=1)
    info = to_folder(tmp_path, 300, setting=make_setting(4, setting_id="s", label="four"),
                     workers=1)
    assert info.chunks_run == 0
    r = coltsim.load_results(tmp_path)
    assert list(r.settings["label"]) == ["four"] and len(r.games) == 300


def test_manifest_version_mismatch_is_refused(tmp_path):
    to_folder(tmp_path, 100, workers=1)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["rules_version"] = "0"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="rules_version is '0' there but"):
        to_folder(tmp_path, 100, workers=1)
    manifest["format"] = 1  # written by an older coltsim: refused with what to do
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="format 1 was written by another version"):
        coltsim.load_results(tmp_path)


def test_folder_without_manifest_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"holds files coltsim did not write \(notes.txt\) and "
                                         "no manifest.json"):
        to_folder(tmp_path, 100, workers=1)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]  # not even a lock file
    with pytest.raises(ValueError, match="not a coltsim results folder"):
        coltsim.load_results(tmp_path)


def test_several_settings_share_a_folder(tmp_path):
    three_rounds = make_setting(5, rules=coltsim.Rules(rounds=3), setting_id="five")
    a = to_folder(tmp_path, 300, make_setting(3, setting_id="three"), seed=1, workers=1)
    b = to_folder(tmp_path, 200, three_rounds, seed=1, workers=1)
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
    alone = simulate(200, three_rounds, seed=1, workers=1)
    pdt.assert_series_equal(only.players["score"], alone.players["score"])
    with pytest.raises(ValueError, match="no setting 'six'"):
        coltsim.load_results(tmp_path, settings="six")


def test_default_setting_id_is_stable_and_distinct():
    a = make_setting(4)
    assert a.id == make_setting(4, policies=DEFAULT, lineup="random").id
    assert a.id == make_setting(4, label="another name").id
    assert a.id.startswith(f"p4-{DEFAULT}-")
    assert a.id != make_setting(4, rules={"neutral_bullets": 5}).id
    assert a.id != make_setting(4, lineup="all").id
    assert make_setting(4, policies="greedy,random,random,random").id.startswith("p4-mixed-")


def test_a_setting_is_the_content_of_the_files_it_plays(tmp_path, monkeypatch):
    """A weights file and a user policy's module are part of the setting by their SHA-256: the
    same path with another content is another setting (issue 38, 1); a setting that plays no
    file keeps the id it always had (the committed reports' ids)."""
    import hashlib

    weights = tmp_path / "weights.npz"
    weights.write_bytes(b"one network")
    one = make_setting(4, params={"learned": {"weights": str(weights)}})
    weights.write_bytes(b"another network")
    other = make_setting(4, params={"learned": {"weights": str(weights)}})
    assert one.id != other.id and one != other
    assert other.as_dict()["files"] == {"learned.weights": {
        "path": str(weights), "sha256": hashlib.sha256(b"another network").hexdigest()}}
    assert make_setting(4).id == "p4-learned-1dc804" and "files" not in make_setting(4).as_dict()
    with pytest.raises(coltsim.FieldError) as e:
        make_setting(4, params={"learned": {"weights": str(tmp_path / "none.npz")}})
    assert str(e.value) == (f"params.learned.weights: {tmp_path / 'none.npz'}: No such file or "
                            "directory; name a file that can be read")
    module = tmp_path / "my_bots_38.py"
    module.write_text("def pick(obs, kind, options, params, rng):\n    return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    policies = ["my_bots_38:pick", "random", "random"]
    first = make_setting(3, policies=policies)
    module.write_text("def pick(obs, kind, options, params, rng):\n    return 1\n")
    assert make_setting(3, policies=policies).id != first.id
    assert first.file_records()["my_bots_38:pick"]["path"] == str(module)


def test_progress_goes_to_a_given_bar(tmp_path):
    """An experiment passes one bar for all its settings: every game played is counted once
    (games already on disk are not played, so not counted)."""
    class Bar:
        n = 0

        def update(self, k):
            self.n += k

    bar = Bar()
    coltsim.simulate_to_folder(P4, 700, tmp_path, chunk_size=200, workers=1, progress=bar)
    assert bar.n == 700
    storage.chunk_path(tmp_path, "games", P4.id, 2).unlink()
    with pytest.warns(storage.RepairWarning, match="chunk-000002.parquet: missing"):
        coltsim.simulate_to_folder(P4, 700, tmp_path, workers=1, progress=bar)
    assert bar.n == 900


# --- Dask ---------------------------------------------------------------------------------------

def test_dask_local_cluster_gives_the_same_data(baseline, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        r = simulate(seed=7, chunk_size=300, backend="dask", scheduler=cluster.scheduler_address)
        assert_same(r, baseline)
        info = to_folder(tmp_path, seed=7, chunk_size=900, backend="dask",
                         scheduler=cluster.scheduler_address)
        assert info.chunks_run == 3
    assert_same(coltsim.load_results(tmp_path), baseline)


# --- the tables ---------------------------------------------------------------------------------

PLAYER_DTYPES = dict(player_columns(5))


def test_player_table_schema_and_consistency(baseline):
    p, g = baseline.players, baseline.games
    assert {c: str(t) for c, t in p.dtypes.items()} == PLAYER_DTYPES
    assert list(g.columns) == [c for c, _ in game_columns(5)]
    assert {c: str(t) for c, t in g.dtypes.items()} == dict(game_columns(5))
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
    assert (p["score_after_5"] == p["loot"]).all()  # the last round's score: the loot
    assert (p["score_after_1"] >= 0).all() and p["score_after_1"].lt(p["loot"]).any()
    resolved = p[["moves", "floor_changes", "fires", "robberies", "punches", "marshal_moves"]]
    assert p["fizzled"].between(0, resolved.sum(axis=1)).all() and p["fizzled"].any()
    assert (p["shots"] <= p["fires"]).all()  # a Fire that resolves fires, unless it fizzles
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
    assert g["station"].isin(STATIONS).all()
    assert g["neutral_left"].between(0, 13).all()
    assert (p["policy"] == DEFAULT).all()
    assert list(baseline.settings["setting"]) == list(p["setting"].cat.categories)


@pytest.mark.parametrize("players", [2, 4])
def test_win_share_splits_a_shared_victory(players, baseline):
    from coltsim.analysis import balance
    from coltsim.analysis.frames import team_rows, win_share

    r = baseline if players == 4 else simulate(GAMES, make_setting(2), workers=1)
    p = r.players
    share = p["win_share"].to_numpy()
    assert (share == win_share(p)).all()
    # One victory per game, split between the winning seats (counted once per seat).
    per_game = np.bincount(p["game"][team_rows(p)], weights=share[team_rows(p)])
    assert np.allclose(per_game, 1.0)
    winners = np.repeat(r.games["n_winners"].to_numpy(), len(p) // len(r.games))
    assert p["shared_win"].any()
    assert (share[p["shared_win"]] == 1.0 / winners[p["shared_win"]]).all()
    assert (share[~p["win"]] == 0).all()
    # A naive mean in a notebook agrees with the report's win rate.
    rates = balance.win_rates(r).set_index("bandit")["rate"]
    naive = p.groupby("bandit", observed=True)["win_share"].mean()
    assert np.allclose(naive[rates.index], rates)


@pytest.mark.parametrize("players, rules", [(4, {}), (2, {}), (5, {"advanced": True})])
def test_how_each_bandit_played_matches_its_trace(players, rules):
    """The players table's action counts are the game's: every card resolved, by kind, and every
    turn its player drew, as the game's trace shows them (a few games of the default policy)."""
    from coltsim.traces.trace import trace_game

    setting = make_setting(players, rules=rules)
    p = simulate(6, setting, seed=4, workers=1).players
    columns = {"move": "moves", "floor": "floor_changes", "rob": "robberies", "punch": "punches",
               "marshal": "marshal_moves"}
    for game in range(6):
        lines = trace_game(setting, seed=4, game_index=game)
        rows = p[p["game"] == game].set_index("bandit_index")
        for card, column in columns.items():
            counted = np.bincount([x["bandit"] for x in lines
                                   if x["type"] == "action" and x["card"] == card],
                                  minlength=len(rows))
            assert list(rows[column]) == list(counted), (game, column)
        draws = np.bincount([x["player"] for x in lines
                             if x["type"] == "plan" and x["choice"] == "draw"], minlength=players)
        assert list(rows["draws"]) == list(draws[rows["seat"]]), game
    assert p["moves"].sum() > 0 and p["draws"].sum() > 0


def test_two_players_have_two_bandits_each():
    r = simulate(300, make_setting(2), workers=1)
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
    fixed = simulate(50, make_setting(3, lineup=["doc", "ghost", "tuco"]), workers=1).players
    assert list(fixed["bandit"][:6]) == ["doc", "ghost", "tuco"] * 2
    assert fixed.groupby("bandit_index")["bandit"].nunique().eq(1).all()
    partly = simulate(200, make_setting(3, lineup="belle,random,random"), workers=1).players
    assert (partly["bandit"][partly["bandit_index"] == 0] == "belle").all()
    assert partly["bandit"][partly["bandit_index"] == 1].nunique() == 5
    every = list(itertools.permutations(K.BANDIT_NAMES, 3))
    r = simulate(len(every) + 10, make_setting(3, lineup="all"), workers=2, chunk_size=40)
    played = [tuple(r.players["bandit"][3 * g:3 * g + 3]) for g in range(len(r.games))]
    assert played == (every + every)[:len(played)]
    assert r.settings["lineup"].iloc[0] == "all"


def test_policies_and_params_are_recorded():
    params = {**SEARCH_PARAMS, "rollout": {"budget": 2}}
    r = simulate(4, make_setting(4, policies=SEARCH, params=params), workers=1)
    assert list(r.players["policy"][:4]) == SEARCH
    rows = json.loads(r.settings["params"].iloc[0])
    assert rows[1][:3] == [2.0, 0.0, 0.0]  # rollout: budget, playout, horizon
    assert r.manifest["settings"][r.settings["setting"].iloc[0]]["params"] == rows


def test_each_seat_plays_its_own_policy():
    """greedy wins most games against three random players (about 94%, docs/strength-history.md)."""
    r = simulate(300, make_setting(4, policies="random,greedy,random,random"), workers=2,
                 chunk_size=100, backend="threading")
    p = r.players
    assert list(p["policy"][:4]) == ["random", "greedy", "random", "random"]
    assert list(p["policy"].cat.categories) == ["random", "greedy"]
    wins = p.groupby("policy", observed=True)["win"].mean()
    assert wins["greedy"] > 0.7 > 0.15 > wins["random"]
    assert r.settings["policies"].iloc[0] == "random,greedy,random,random"


def test_policy_parameters_by_name_are_resolved_and_recorded():
    plain = make_setting(4, policies="weighted")
    tuned = make_setting(4, policies="weighted", params={"weighted": {"fire": 0.0}})
    assert plain.param_rows() is not None and plain.param_rows() != tuned.param_rows()
    assert plain.id != tuned.id
    assert make_setting(4, policies="random").param_rows() is None  # it reads no parameters
    # Parameters of a policy nobody plays are checked, then left out of the setting.
    assert make_setting(4, params={"rollout": {"budget": 8}}) == make_setting(4)
    r = simulate(20, tuned, workers=1)
    assert np.array(json.loads(r.settings["params"].iloc[0])) == pytest.approx(
        np.array(tuned.param_rows()))


@numba.njit
def first_option(obs, kind, options, params, rng):
    """A user policy for the runner tests: always the first legal option."""
    return 0


@pytest.mark.slow
def test_user_policy_in_worker_processes(baseline):
    """A user policy is compiled into the batch kernel of each worker process (~15 s each)."""
    table = make_setting(4, policies=[first_option, "random", "random", "random"])
    one = simulate(200, table, workers=1)
    label = f"{__name__}:first_option"
    assert list(one.players["policy"][:2]) == [label, "random"]
    two = simulate(200, table, workers=2, chunk_size=100)
    assert_same(one, two)
    plain = simulate(200, workers=1)
    assert not one.players["score"].equals(plain.players["score"])


def test_checked_run_and_rule_options():
    six = make_setting(6, policies="random",  # the checking kernel of test_properties
                       rules={"neutral_bullets": -1, "gunslinger_bonus": 0, "rounds": 2})
    r = simulate(200, six, check=True, workers=1)
    assert (r.games["neutral_left"] == -1).all()
    assert r.players["gunslinger"].any() and (r.players["bonus"] == 0).all()
    assert list(r.games.columns[4:6]) == ["round_1", "station"]
    assert r.games["cars"].str.len().eq(6).all()


def test_a_failed_game_stops_the_run_and_is_not_written(tmp_path, monkeypatch):
    real = chunk.batch_kernel

    def failing_kernel(choosers, functions, check):
        kernel = real(choosers, functions, check)

        def play(states, seed, first, lineups, seat_policy, params, nets, opts, out_b, out_g,
                 rec=None):
            kernel(states, seed, first, lineups, seat_policy, params, nets, opts, out_b, out_g,
                   rec)
            if first <= 250 < first + len(out_g):
                out_g[250 - first, RG_FAIL] = 3  # as the invariant check would
        return play

    monkeypatch.setattr(chunk, "batch_kernel", failing_kernel)
    with pytest.raises(RuntimeError, match=r"invariant broken: loot_place \(seed 0, game 250\)"):
        to_folder(tmp_path, 500, chunk_size=100, workers=1)
    assert recorded_chunks(tmp_path, P4.id) == [0, 1]
    assert not (tmp_path / "games" / P4.id / "chunk-000002.parquet").exists()


# --- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("setting, kwargs, message", [
    ({}, dict(games=0), "games: must be an integer from 1"),
    ({}, dict(games=2.5), "games: must be an integer"),
    ({"players": 7}, {}, "players: 7 is not a player count; allowed: 2, 3, 4, 5, 6"),
    ({"lineup": "ghost,belle"}, {}, "lineup: must name 4 bandits"),
    ({"lineup": "everyone"}, {}, "lineup: must name 4 bandits"),
    ({"lineup": 5}, {}, "lineup: 5 is not a line-up"),
    ({"policies": "clever"}, {}, "policies: unknown policy 'clever'"),
    ({"policies": "random,greedy"}, {}, "policies: 2 policies for 4 players"),
    ({"params": {"greedy": {"depth": 3}}}, {}, "params.greedy: policy 'greedy' has no "
                                                "parameter 'depth'"),
    ({"params": {"rollout": {"budget": -1}}}, {}, "budget must be a whole number >= 0"),
    ({"params": {"nobody": {}}}, {}, "params.nobody: unknown policy"),
    ({"params": [[1.0] * 16] * 4}, {}, "params: must map policy names"),
    ({}, dict(seed=-1), "seed: must be an integer"),
    ({}, dict(backend="spark"), "backend: unknown backend 'spark'"),
    ({}, dict(workers=0), "workers: must be an integer from 1 to"),
    ({}, dict(workers=-1), "leave it out for every core"),
    ({}, dict(workers="2"), "workers: must be an integer from 1 to"),
    ({}, dict(workers=100_000), r"from 1 to \d+ on this machine \(4 per available core\)"),
    ({}, dict(games=10**7 + 1), "at most 10,000,000 games are kept in memory"),
    ({}, dict(scheduler="tcp://127.0.0.1:1"), "scheduler: only used with backend 'dask'"),
    ({}, dict(chunk_size=0), "chunk_size: must be an integer from 1"),
    ({"setting_id": "a/b"}, {}, "setting_id: must be"),
    ({"label": ""}, {}, "label: must be one line of text"),
    ({"rules": {"neutral_bullets": 200}}, {}, "neutral_bullets must be at most 127"),
    ({"rules": {"bullet": 3}}, {}, "rules: unknown rule option 'bullet'"),
    ({"rules": {"cars": 5}}, {}, "rule option cars must be a list of names"),
    ({"rules": [1]}, {}, "rules: must be a coltsim.Rules or a dict"),
])
def test_bad_input_is_a_clear_value_error(setting, kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        coltsim.simulate(make_setting(**setting), **{"games": 10, "progress": False, **kwargs})
    assert isinstance(info.value, coltsim.FieldError) and "\n" not in str(info.value)


def test_simulate_takes_a_setting():
    with pytest.raises(ValueError, match="setting must be a coltsim Setting"):
        coltsim.simulate({"players": 4}, 10)


def test_dask_without_scheduler_is_refused():
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match="backend 'dask' needs scheduler"):
        simulate(10, backend="dask")


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
    assert "a run grows but never shrinks: ask for 2,000 games or more" in capsys.readouterr().err


def test_cli_bench_json(capsys):
    assert main(["bench", "--games", "2000", "--workers", "1", "--no-compile", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["games"] == 2000 and r["workers"] == 1 and r["players"] == 4
    # Unrounded figures: each follows from the others exactly (JSON keeps every float's digits).
    assert r["games_per_second"] == pytest.approx(2000 / r["seconds"], rel=1e-12)
    assert r["games_per_second_per_core"] == pytest.approx(r["games_per_second"], rel=1e-12)
    assert main(["bench", "--players", "9", "--no-compile"]) == 2
