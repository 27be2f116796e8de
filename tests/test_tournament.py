"""Tournaments: the one tournament (coltsim.runs.match: seat rotations, shares per deal,
the interval over deals) with any ``play``, rotated seats through the runner, common deals, and
the ``coltsim tournament`` command on experiment files."""
from pathlib import Path

import numpy as np
import pytest

import coltsim
from coltsim.analysis.frames import concat_results
from coltsim.analysis.shares import policy_shares
from coltsim.cli import main
from coltsim.policies import DEFAULT
from coltsim.policies import LADDER as POLICY_LADDER, top_rung
from coltsim.analysis.stats import deal_shares, share_estimate, wilson_interval
from coltsim.runs.match import Seat, play_seats, play_table
from coltsim.setting import make_setting, seatings
from coltsim.study.tournament import rotations, tournament

LADDER = Path(__file__).resolve().parents[1] / "experiments" / "policy_ladder.toml"
GVR = make_setting(4, policies=["greedy", "random", "random", "random"])


def play(settings, games, seed=0, **kwargs):
    return tournament(settings, games, seed, workers=1, backend="threading", **kwargs)


def test_rotations_seat_every_policy_everywhere_once():
    table = make_setting(4, policies=["greedy", "weighted", "random", "random"],
                         params={"weighted": {"fire": 0.0}}, label="t")
    rotated = rotations(table)
    assert rotated[0] == table
    assert [r.policies for r in rotated] == [
        ("greedy", "weighted", "random", "random"), ("random", "greedy", "weighted", "random"),
        ("random", "random", "greedy", "weighted"), ("weighted", "random", "random", "greedy")]
    assert all(r.policy_params() == table.policy_params() and r.label == "t" for r in rotated)
    # Rotations that seat the same policies are one setting, played once.
    assert len(rotations(make_setting(4, policies="random"))) == 1
    assert len(rotations(make_setting(4, policies="greedy,random,greedy,random"))) == 2


def test_seatings_rotate_any_entries_and_keep_each_seating_once():
    assert seatings(["new", "old", "old", "old"]) == [
        ("new", "old", "old", "old"), ("old", "new", "old", "old"), ("old", "old", "new", "old"),
        ("old", "old", "old", "new")]
    assert seatings(["a", "b", "a", "b"]) == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    assert seatings("xxx") == [("x", "x", "x")]


def test_the_one_tournament_averages_each_entrys_seats_then_the_deals():
    """A made-up ``play``: seat 0 wins every even deal, the last seat every odd one."""
    calls = []

    def play(seating, games, seed):
        calls.append((seating, games, seed))
        shares = np.zeros((games, len(seating)))
        shares[0::2, 0] = 1.0
        shares[1::2, -1] = 1.0
        return shares

    result = play_table(["new", "old", "old", "old"], 10, 7, play)
    assert [c[1:] for c in calls] == [(10, 7)] * 4  # every rotation: the same deals
    new, old = result["new"], result["old"]
    # "new" holds seat 0 in one rotation and seat 3 in another: a whole deal in 2 of 4.
    assert new.per_deal.tolist() == [0.25] * 10 and new.share == 0.25
    # every deal gave the same share, no spread: the Wilson interval over the 10 deals
    # (analysis.stats.share_estimate), not a single number
    assert new.lo == pytest.approx(wilson_interval(2.5, 10)[0]) and new.lo < 0.25 < new.hi
    assert (new.deals, new.rotations) == (10, 4)
    assert old.per_deal.tolist() == [0.25] * 10
    assert new.as_dict() == {"share": 0.25, "lo": new.lo, "hi": new.hi, "deals": 10,
                             "rotations": 4}
    seated = {("a", "b"): np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]),
              ("b", "a"): np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])}
    shares = deal_shares(seated)
    assert shares["a"].tolist() == [0.5, 0.0, 1.0] and shares["b"].tolist() == [0.5, 1.0, 0.0]
    e = share_estimate(shares["a"], players=2, rotations=2)
    half = 1.959963984540054 * np.std([0.5, 0.0, 1.0], ddof=1) / np.sqrt(3)
    assert (e.share, e.lo, e.hi) == pytest.approx((0.5, max(0, 0.5 - half), min(1, 0.5 + half)))
    assert e.fair_share == 0.5 and e.p_value == pytest.approx(1.0)


def test_seats_with_rows_of_their_own_play_as_the_runner_plays_them():
    """``play_seats`` (the batch kernel, every seat its own parameter row) and the runner's
    settings give the same shares on the same deals: one tournament either way."""
    via_settings = play(GVR, 16, seed=3).set_index("policy")
    greedy = Seat("greedy", tuple(coltsim.policies.param_vector("greedy")))
    direct = play_table([greedy, "random", "random", "random"], 16, 3, play_seats())
    assert direct[greedy].share == via_settings.loc["greedy", "win_rate"]
    assert direct["random"].share == via_settings.loc["random", "win_rate"]
    assert direct[greedy].lo == via_settings.loc["greedy", "ci_low"]


def test_every_rotation_plays_the_same_deals_and_the_policy_moves_with_its_seat():
    played = [coltsim.simulate(r, 12, seed=5, workers=1, progress=False) for r in rotations(GVR)]
    deal = ["first_player", "cars", "round_1", "round_2", "round_3", "round_4", "station"]
    for r, results in enumerate(played):
        assert results.games[deal].equals(played[0].games[deal])
        p = results.players
        greedy = p[p["policy"] == "greedy"]
        assert (greedy["seat"] == r).all()  # policy 0 of the table sits at seat r
        assert greedy["win"].mean() > 0.6


def test_identical_players_share_victories_exactly_fairly():
    df = play(make_setting(4, policies="random"), 10)
    assert len(df) == 1
    row = df.iloc[0]
    assert (row["seats"], row["games"]) == (4, 10)  # the four rotations are one
    assert row["win_rate"] == pytest.approx(0.25) and row["fair_share"] == 0.25
    assert row["ci_low"] == pytest.approx(0.25) and row["ci_high"] == pytest.approx(0.25)


def test_shares_add_up_and_the_stronger_policy_is_found():
    df = play(GVR, 30, seed=2).set_index("policy")
    assert (df["win_rate"] * df["seats"]).sum() == pytest.approx(1.0)
    g = df.loc["greedy"]
    assert g["games"] == 120
    assert g["ci_low"] <= g["win_rate"] <= g["ci_high"]
    assert g["ci_low"] > 0.25 and g["mean_score"] > df.loc["random", "mean_score"]


def test_shares_match_a_direct_computation_over_deals():
    """The share of a policy is its victories (1/m for a shared one) per seat it holds,
    averaged over rotations per deal; the interval is the normal one over deals."""
    played = concat_results(*[coltsim.simulate(r, 40, seed=3, workers=1, progress=False)
                              for r in rotations(GVR)])
    p = played.players
    n_winners = p.groupby(["setting", "game"], observed=True)["win"].transform("sum")
    share = np.where(p["win"], 1 / n_winners, 0.0)
    greedy = p["policy"] == "greedy"
    per_deal = (p.assign(share=share)[greedy].groupby("game")["share"].mean()).to_numpy()
    row = policy_shares(played).set_index("policy").loc["greedy"]
    assert row["win_rate"] == pytest.approx(per_deal.mean())
    half = 1.959963984540054 * per_deal.std(ddof=1) / np.sqrt(40)
    assert row["ci_high"] - row["win_rate"] == pytest.approx(half)


def test_tables_by_label_and_workers_give_the_same_numbers():
    a = play([make_setting(4, GVR.lineup, GVR.policies, label="one"),
              make_setting(4, GVR.lineup, GVR.policies, label="two")], 8, seed=3)
    b = tournament(make_setting(4, GVR.lineup, GVR.policies, label="one"), 8, 3, workers=2,
                   backend="threading")
    one = a[a["table"] == "one"].reset_index(drop=True)
    two = a[a["table"] == "two"].drop(columns="table").reset_index(drop=True)
    assert one.drop(columns="table").equals(two)
    assert one.equals(b)


def test_bandits_rules_and_two_players():
    df = play(make_setting(2, policies=["greedy", "random"], rules={"advanced": True}), 6)
    assert list(df["fair_share"]) == [0.5, 0.5]
    assert df["win_rate"].sum() == pytest.approx(1.0)
    df = play(make_setting(4, lineup="ghost,belle,tuco,doc", policies=GVR.policies), 4)
    assert list(df["table"]) == ["greedy vs random vs random vs random"] * 2


@pytest.mark.parametrize("settings, games, message", [
    (GVR, 1, "games: a tournament needs at least 2 deals"),
    ([], 10, "settings: a tournament needs one or more tables"),
    (["greedy", "random"], 10, "settings: a tournament needs one or more tables"),
    ([GVR, GVR], 10, "two tables are named"),
])
def test_bad_arguments_say_what_is_wrong(settings, games, message):
    with pytest.raises(ValueError, match=message):
        play(settings, games)


def test_tournament_command_on_an_experiment_file(tmp_path, capsys):
    path = tmp_path / "mini.toml"
    path.write_text('name = "mini"\nseed = 1\ngames = 4\nworkers = 1\n\n[[settings]]\n'
                    'label = "styles"\nplayers = 3\n'
                    'policies = ["cautious", "aggressive", "random"]\n')
    csv = tmp_path / "out.csv"
    assert main(["tournament", str(path), "--csv", str(csv)]) == 0
    out, err = capsys.readouterr()
    assert "styles" in out and "cautious" in out and "aggressive" in out
    assert "games/s" in err or "game/s" in err  # a progress bar, as a run's
    assert csv.read_text().startswith("table,policy,seats,games,win_rate")
    assert main(["tournament", str(path), "--quiet"]) == 0
    assert "game/s" not in capsys.readouterr().err
    assert main(["tournament", str(tmp_path / "missing.toml")]) == 2
    assert "cannot read the experiment file" in capsys.readouterr().err


def test_the_top_rung_of_each_count_is_a_setting_and_the_bundled_strong_tables_play_it():
    # (a top rung per count: docs/policies.md; the bundled files are 4-player tables)
    assert POLICY_LADDER[-1] == top_rung(4)
    for players in range(2, 7):
        name, params = top_rung(players)
        make_setting(players, policies=[name] + [DEFAULT] * (players - 1), params={name: params})
    for file in ("strong_play", "strength_curve"):
        e = coltsim.load_experiment(LADDER.with_name(f"{file}.toml"))
        assert {s.players for s in e.settings} == {4}
        for s in e.settings:
            if "ismcts" in s.policies:
                assert s.policy_params()["ismcts"] == {**s.policy_params()["ismcts"],
                                                        **top_rung(4)[1]}


def test_the_bundled_ladder_file():
    e = coltsim.load_experiment(LADDER)
    assert e.name == "policy_ladder" and e.games >= 2000
    # every rung of coltsim.policies.LADDER against three of the rung below, then DEFAULT
    # against three greedy players
    names = [name for name, _ in POLICY_LADDER]
    tables = [list(s.policies) for s in e.settings]
    assert tables[:-1] == [[upper] + [lower] * 3 for lower, upper in zip(names, names[1:])]
    assert tables[-1] == [DEFAULT] + ["greedy"] * 3
    for s in e.settings:
        for name, params in POLICY_LADDER:
            if name in s.policies:
                assert {k: s.policy_params()[name][k] for k in params} == params
