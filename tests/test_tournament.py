"""Tournaments: rotated seats, common deals, shares and intervals, ladder files."""
from pathlib import Path

import numpy as np
import pytest

from coltsim.engine.scoring import RB_WIN, RG_CARS, RG_FIRST_PLAYER, RG_N_WINNERS, RG_ROUNDS
from coltsim.policies import DEFAULT, resolve_policies
from coltsim.policies import LADDER as POLICY_LADDER
from coltsim.policies.kernels import user_kernel
from coltsim.rules import Rules
from coltsim.tournament import _play_rotations, load_ladder, main, tournament

LADDER = Path(__file__).resolve().parents[1] / "experiments" / "policy_ladder.toml"
GVR = ["greedy", "random", "random", "random"]


def test_the_module_is_callable():
    import coltsim.tournament

    df = coltsim.tournament(["greedy", "random", "random"], games=3)
    assert list(df["policy"]) == ["greedy", "random"]


def test_identical_players_share_victories_exactly_fairly():
    df = tournament(["random"] * 4, games=10)
    assert len(df) == 1
    row = df.iloc[0]
    assert (row["seats"], row["games"]) == (4, 40)
    assert row["win_rate"] == pytest.approx(0.25) and row["fair_share"] == 0.25
    assert row["ci_low"] == pytest.approx(0.25) and row["ci_high"] == pytest.approx(0.25)


def test_shares_add_up_and_the_stronger_policy_is_found():
    df = tournament(GVR, games=30, seed=2).set_index("policy")
    assert (df["win_rate"] * df["seats"]).sum() == pytest.approx(1.0)
    g = df.loc["greedy"]
    assert g["ci_low"] <= g["win_rate"] <= g["ci_high"]
    assert g["ci_low"] > 0.25 and g["mean_score"] > df.loc["random", "mean_score"]


def _rotations(lineup, games=12, seed=5):
    players = len(lineup)
    seats = resolve_policies(players, lineup)
    lineups = np.full((1, players), -1, np.int64)
    return _play_rotations(user_kernel(seats.functions), seed, games, lineups, seats,
                           Rules().to_array(), 1, 5)


def test_every_rotation_and_every_table_plays_the_same_deals():
    ob1, og1 = _rotations(GVR)
    ob2, og2 = _rotations(["random", "greedy", "greedy", "random"])
    deal = np.r_[RG_FIRST_PLAYER, RG_CARS:RG_ROUNDS + 5]
    for og in (og1, og2):
        for r in range(4):
            assert np.array_equal(og[r][:, deal], og1[0][:, deal])
    # Policy e of the line-up sits at seat (e + r) % players in rotation r: greedy (entry 0)
    # wins most games from seat r.
    for r in range(4):
        assert ob1[r, :, r, RB_WIN].mean() > 0.6
        assert og1[r, :, RG_N_WINNERS].min() >= 1


def test_tables_by_label_and_threads_give_the_same_numbers():
    a = tournament({"one": GVR, "two": GVR}, games=8, seed=3)
    b = tournament({"one": GVR}, games=8, seed=3, n_jobs=2)
    one = a[a["table"] == "one"].reset_index(drop=True)
    two = a[a["table"] == "two"].drop(columns="table").reset_index(drop=True)
    assert one.drop(columns="table").equals(two)
    assert one.equals(b)


def test_bandits_rules_and_two_players():
    df = tournament(["greedy", "random"], games=6, rules={"advanced": True})
    assert list(df["fair_share"]) == [0.5, 0.5]
    assert (df["win_rate"]).sum() == pytest.approx(1.0)
    df = tournament(GVR, games=4, bandits="ghost,belle,tuco,doc")
    assert len(df) == 2


@pytest.mark.parametrize("kwargs, message", [
    ({"tables": GVR, "games": 1}, "games must be an integer >= 2"),
    ({"tables": GVR, "n_jobs": 0}, "n_jobs must be an integer >= 1"),
    ({"tables": ["greedy", "clever", "random"]}, "unknown policy 'clever'"),
    ({"tables": ["greedy"] * 7}, "players must be an integer from 2 to 6"),
    ({"tables": GVR, "params": {"rollout": {"depth": 3}}}, "has no parameter 'depth'"),
    ({"tables": {}}, "at least one table"),
])
def test_bad_arguments_say_what_is_wrong(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tournament(**kwargs)


def test_the_bundled_ladder_file():
    spec = load_ladder(LADDER)
    assert spec["name"] == "policy_ladder" and spec["games"] >= 2000
    tables = [t["policies"] for t in spec["tables"].values()]
    # every rung of coltsim.policies.LADDER against three of the rung below, then DEFAULT
    # against three greedy players
    names = [name for name, _ in POLICY_LADDER]
    assert tables[:-1] == [[upper] + [lower] * 3 for lower, upper in zip(names, names[1:])]
    assert tables[-1] == [DEFAULT] + ["greedy"] * 3
    for name, params in POLICY_LADDER:
        for key, value in params.items():
            assert spec["params"][name][key] == value


def test_ladder_command_line(tmp_path, capsys):
    path = tmp_path / "mini.toml"
    path.write_text('name = "mini"\nseed = 1\ngames = 4\n\n[[settings]]\nplayers = 3\n'
                    'policies = ["cautious", "aggressive", "random"]\n')
    csv = tmp_path / "out.csv"
    assert main([str(path), "--csv", str(csv)]) == 0
    out = capsys.readouterr().out
    assert "cautious" in out and "aggressive" in out
    assert csv.read_text().startswith("table,policy,seats,games,win_rate")
    assert main([str(tmp_path / "missing.toml")]) == 2
    assert "cannot read the experiment" in capsys.readouterr().err
