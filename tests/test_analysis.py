"""Analyses on synthetic results with known answers (tests/synthetic.py plants them)."""
import math

import numpy as np
import pandas as pd
import pytest

from coltsim.analysis import balance, compare, gunslinger, round_cards, seats, stats
from coltsim.analysis.design import design_of
from coltsim.analysis.frames import concat_results, win_share
from coltsim.results import Results
from tests.synthetic import synthetic_results

PLAYERS = (3, 4, 5, 6)
GAMES = 20_000


@pytest.fixture(scope="module")
def fair():
    return synthetic_results(PLAYERS, GAMES, seed=11)


@pytest.fixture(scope="module")
def tuco_plus5():
    return synthetic_results(PLAYERS, GAMES, seed=12, bandit_edge={"tuco": 0.05})


# --- stats -----------------------------------------------------------------------------------
@pytest.mark.parametrize("k, n, lo, hi", [
    (5, 10, 0.2366, 0.7634),  # the textbook example (e.g. Newcombe 1998, Brown et al. 2001)
    (0, 10, 0.0, 0.2775),
    (1, 10, 0.0179, 0.4042),
    (10, 10, 0.7225, 1.0),
])
def test_wilson_interval_matches_published_values(k, n, lo, hi):
    got = stats.wilson_interval(k, n)
    assert got[0] == pytest.approx(lo, abs=5e-5)
    assert got[1] == pytest.approx(hi, abs=5e-5)


def test_wilson_interval_is_vectorised_and_nan_without_trials():
    lo, hi = stats.wilson_interval([5, 0], [10, 0])
    assert lo[0] == pytest.approx(0.2366, abs=5e-5)
    assert np.isnan(lo[1]) and np.isnan(hi[1])


def test_wilson_interval_narrows_at_other_levels():
    lo99, hi99 = stats.wilson_interval(50, 100, level=0.99)
    lo95, hi95 = stats.wilson_interval(50, 100)
    assert lo99 < lo95 < 0.5 < hi95 < hi99


@pytest.mark.parametrize("a, b, lo, hi", [
    ((56, 70), (48, 80), 0.0524, 0.3339),  # Newcombe (1998), method 10, example (a)
    ((9, 10), (3, 10), 0.1705, 0.8090),  # example (b)
])
def test_newcombe_difference_interval_matches_the_paper(a, b, lo, hi):
    d, got_lo, got_hi = stats.newcombe_interval(*a, *b)
    assert d == pytest.approx(a[0] / a[1] - b[0] / b[1])
    assert got_lo == pytest.approx(lo, abs=5e-5)
    assert got_hi == pytest.approx(hi, abs=5e-5)


def test_two_sided_p_of_normal_quantiles():
    assert stats.two_sided_p(1.959963984540054) == pytest.approx(0.05)
    assert stats.two_sided_p(0.0) == pytest.approx(1.0)
    assert stats.z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert stats.two_sided_p(np.inf) == 0.0


def test_holm_matches_hand_computation():
    # Sorted 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1 = 0.02, 0.03, 0.06, 0.04 -> running max.
    got = stats.holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(got, [0.03, 0.06, 0.06, 0.02])


def test_benjamini_hochberg_matches_hand_computation():
    # Sorted p * 4 / rank = 0.02, 0.02, 0.04, 0.04 -> running min from the top.
    got = stats.benjamini_hochberg([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(got, [0.02, 0.04, 0.04, 0.02])


def test_adjustments_cap_at_one_and_keep_nan():
    p = [0.5, np.nan, 0.9]
    h = stats.holm(p)
    assert h[0] == 1.0 and np.isnan(h[1]) and h[2] == 1.0
    b = stats.benjamini_hochberg(p)
    assert b[0] == pytest.approx(0.9) and np.isnan(b[1]) and b[2] == pytest.approx(0.9)
    with pytest.raises(ValueError, match="allowed"):
        stats.adjust(p, "bonferroni-ish")


def test_ols_recovers_exact_coefficients():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2))
    X = np.column_stack([np.ones(200), x])
    y = X @ np.array([1.0, 2.0, -3.0])
    fit = stats.ols(y, X, ["c", "a", "b"], chunk_rows=37)
    np.testing.assert_allclose(fit.coef, [1.0, 2.0, -3.0], atol=1e-10)
    assert fit.contrast(fit.weights(a=1, b=-1)).estimate == pytest.approx(5.0)


def test_ols_hc1_equals_the_two_group_formula():
    # y ~ 1 + group: HC1 variance of the group coefficient is n/(n-k) (s1^2/n1 + s0^2/n0),
    # with s^2 the variance around each group's mean (divided by the group size).
    rng = np.random.default_rng(1)
    g = np.repeat([0, 1], [30, 50])
    y = rng.normal(size=80) + 0.5 * g
    X = np.column_stack([np.ones(80), g])
    fit = stats.ols(y, X)
    n, k = 80, 2
    y0, y1 = y[g == 0], y[g == 1]
    expected = math.sqrt(n / (n - k) * (y1.var() / y1.size + y0.var() / y0.size))
    assert fit.kind == "HC1"
    assert fit.coef[1] == pytest.approx(y1.mean() - y0.mean())
    assert fit.se[1] == pytest.approx(expected)


def test_ols_cluster_robust_with_one_row_per_cluster_equals_hc1():
    rng = np.random.default_rng(2)
    X = np.column_stack([np.ones(100), rng.integers(0, 2, 100), rng.normal(size=100)])
    y = rng.normal(size=100)
    hc1 = stats.ols(y, X)
    cr1 = stats.ols(y, X, groups=np.arange(100)[::-1])
    assert cr1.kind == "CR1" and cr1.groups == 100
    np.testing.assert_allclose(cr1.cov, hc1.cov)


def test_ols_clusters_widen_errors_for_duplicated_rows():
    # The same 100 observations, each copied 4 times: HC1 believes it has 400 independent
    # rows (half the standard error); clustering by the original row knows better.
    rng = np.random.default_rng(3)
    X = np.column_stack([np.ones(100), rng.normal(size=100)])
    y = X @ [0.0, 1.0] + rng.normal(size=100)
    one = stats.ols(y, X)
    X4, y4, g4 = np.repeat(X, 4, axis=0), np.repeat(y, 4), np.repeat(np.arange(100), 4)
    assert stats.ols(y4, X4).se[1] == pytest.approx(one.se[1] / 2, rel=0.05)
    assert stats.ols(y4, X4, groups=g4).se[1] == pytest.approx(one.se[1], rel=0.05)


# --- frames ----------------------------------------------------------------------------------
def _tiny_players(rows):
    cols = ["setting", "game", "seat", "bandit", "win"]
    return pd.DataFrame(rows, columns=cols)


def test_win_share_splits_a_shared_victory():
    p = _tiny_players([
        ("s", 0, 0, "ghost", True), ("s", 0, 1, "belle", False), ("s", 0, 2, "doc", False),
        ("s", 1, 0, "ghost", True), ("s", 1, 1, "belle", True), ("s", 1, 2, "doc", False),
        # the same game index in another setting is another game
        ("t", 0, 0, "ghost", False), ("t", 0, 1, "belle", True), ("t", 0, 2, "doc", False),
    ])
    np.testing.assert_allclose(win_share(p), [1, 0, 0, 0.5, 0.5, 0, 0, 1, 0])


def test_win_share_counts_a_two_bandit_team_once():
    # 2-player game: seat = team; both bandits of the winning team get the full share.
    p = _tiny_players([("s", 0, 0, "ghost", True), ("s", 0, 0, "belle", True),
                       ("s", 0, 1, "doc", False), ("s", 0, 1, "tuco", False)])
    np.testing.assert_allclose(win_share(p), [1, 1, 0, 0])


def test_synthetic_results_follow_the_schema(fair):
    p, g = fair.players, fair.games
    assert p["bandit"].dtype == "category" and g["round_1"].dtype == "category"
    assert (p["score"] == p["loot"] + p["bonus"]).all()
    assert (p["loot"] == p[["purse", "jewel", "strongbox", "ransom"]].sum(axis=1)).all()
    # Each game has its winners on top and as many rows as players.
    assert (p.loc[p["win"], "rank"] == 1).all()
    assert (p.groupby(["setting", "game"], observed=True).size().to_numpy()
            == np.repeat(PLAYERS, GAMES)).all()


def test_setting_labels_name_only_what_varies():
    s = pd.DataFrame({"setting": ["a", "b"], "players": [4, 5], "lineup": ["random"] * 2,
                      "policies": ["greedy"] * 2, "gunslinger_bonus": [1000, 1000]})
    assert list(design_of(s).settings["label"]) == ["4 players", "5 players"]


# --- character balance -------------------------------------------------------------------------
def test_planted_five_point_advantage_is_found_in_every_player_count(tuco_plus5):
    effects = balance.bandit_effects(tuco_plus5)
    t = effects.table
    assert list(t["setting"].unique()) == [f"p{n}" for n in PLAYERS]  # one model, per setting
    for sid, rows in t.groupby("setting", sort=False):
        rows = rows.set_index("bandit")
        tuco = rows.loc["tuco"]
        assert rows.index[0] == "tuco"  # the strongest
        assert tuco["lo"] <= 0.05 <= tuco["hi"] and tuco["significant"]
        # Everyone else pays for it: 0.05 spread over the five others = -1 point each.
        for b in ("ghost", "belle", "cheyenne", "django", "doc"):
            assert rows.loc[b, "lo"] <= -0.01 <= rows.loc[b, "hi"]
    # The same advantage over the fair share in every player count.
    rates = balance.win_rates(tuco_plus5)
    tr = rates[rates["bandit"] == "tuco"]
    assert len(tr) == len(PLAYERS)
    assert ((tr["lo"] - tr["fair_share"] <= 0.05) & (0.05 <= tr["hi"] - tr["fair_share"])).all()
    assert tr["significant"].all()


def test_effects_differ_by_player_count_when_the_game_does():
    """A bandit strong at 3 players and weak at 6: no pooled number hides either."""
    three = synthetic_results((3,), GAMES, seed=13, bandit_edge={"django": 0.06})
    six = synthetic_results((6,), GAMES, seed=13, bandit_edge={"django": -0.04})
    t = balance.bandit_effects(concat_results(three, six)).table.set_index(["players", "bandit"])
    assert t.loc[(3, "django"), "lo"] > 0.03 and t.loc[(6, "django"), "hi"] < -0.02
    spreads = balance.spreads(balance.bandit_effects(concat_results(three, six)))
    assert list(spreads["strongest"])[0] == "django" and list(spreads["weakest"])[1] == "django"


def test_spread_of_the_planted_advantage(tuco_plus5):
    spreads = balance.spreads(balance.bandit_effects(tuco_plus5))
    assert len(spreads) == len(PLAYERS) and (spreads["strongest"] == "tuco").all()
    # True spread: +5 for Tuco minus -1 for the others = 6 points (plus selection of the
    # weakest of five equal bandits: about one standard error).
    assert ((spreads["lo"] <= 0.06 + spreads["se"]) & (spreads["hi"] >= 0.06)).all()


def test_fair_game_shows_no_significant_bandit_effect(fair):
    effects = balance.bandit_effects(fair)
    assert not effects.table["significant"].any()
    # 24 unadjusted intervals (6 bandits x 4 player counts): about 5% miss zero by chance.
    missed = ((effects.table["lo"] > 0) | (effects.table["hi"] < 0)).sum()
    assert len(effects.table) == 24 and missed <= 3
    assert not balance.win_rates(fair)["significant"].any()
    score = balance.bandit_effects(fair, outcome="score")
    assert not score.table["significant"].any()


def test_a_spread_change_on_the_same_deals_is_paired():
    """Belle +8 points in the second setting, on the same deals: the spread grows, with an
    interval narrower than two independent spreads would give."""
    a = synthetic_results((4,), GAMES, seed=15, setting_prefix="a", bandit_edge={"tuco": 0.04})
    b = synthetic_results((4,), GAMES, seed=15, setting_prefix="b",
                          bandit_edge={"tuco": 0.04, "belle": 0.08}, gunslinger_bonus=0)
    effects = balance.bandit_effects(concat_results(a, b))
    change = balance.spread_changes(effects, [("a4", "b4")]).iloc[0]
    assert (change["baseline_strongest"], change["strongest"]) == ("tuco", "belle")
    assert change["lo"] > 0 and change["change"] == pytest.approx(
        change["spread"] - change["baseline_spread"])
    spreads = balance.spreads(effects).set_index("setting")
    independent = np.hypot(spreads.loc["a4", "se"], spreads.loc["b4", "se"])
    assert change["se"] < independent


def test_mean_scores_match_a_direct_computation(fair):
    t = balance.mean_scores(fair)
    p = fair.players
    direct = p[(p["setting"] == "p4") & (p["bandit"] == "doc")]["score"]
    row = t[(t["setting"] == "p4") & (t["bandit"] == "doc")].iloc[0]
    assert row["mean"] == pytest.approx(direct.mean())
    assert row["sd"] == pytest.approx(direct.std())
    assert row["n"] == len(direct)
    parts = sum(row[f"mean_{k}"] for k in balance.LOOT_KINDS)
    assert parts == pytest.approx(row["mean"])


def test_design_matrix_drops_one_level_of_each_factor(fair):
    X, names, bandits = balance.design_matrix(fair.players)
    assert bandits == ["ghost", "belle", "cheyenne", "tuco", "django", "doc"]
    assert names[0] == "intercept" and "bandit=ghost" not in names
    assert sum(n.startswith("order=") for n in names) == sum(n - 1 for n in PLAYERS)
    assert X.dtype == np.uint8 and X.shape == (len(fair.players), len(names))


# --- seats -------------------------------------------------------------------------------------
def test_first_player_advantage_is_found():
    f = synthetic_results((3, 5), GAMES, seed=14, order_edge=0.05)
    first = seats.first_player_advantage(f)
    assert len(first) == 2
    assert ((first["lo"] - first["fair_share"] <= 0.05)
            & (0.05 <= first["hi"] - first["fair_share"])).all()
    assert first["significant"].all()


def test_fair_game_has_no_seat_effect(fair):
    t = seats.order_win_rates(fair)
    assert not t["significant"].any()
    assert t.groupby("setting")["rate"].sum().to_numpy() == pytest.approx(1.0)


def test_two_player_seats_count_each_team_once():
    f = synthetic_results((2,), 2000, seed=15)
    t = seats.seat_win_rates(f)
    assert (t["n"] == 2000).all() and t["rate"].sum() == pytest.approx(1.0)


# --- round cards -------------------------------------------------------------------------------
def test_planted_card_effect_is_found_and_others_are_compositional():
    f = synthetic_results((4,), GAMES, seed=16, card_score={"braking": 500,
                                                           "pickpocketing": 400})
    t = round_cards.card_effects(f, metrics=["mean_score"]).set_index("card")
    assert t.loc["braking", "lo"] <= 500 <= t.loc["braking", "hi"]
    # A station card is compared with the other two station cards.
    assert t.loc["pickpocketing", "lo"] <= 400 <= t.loc["pickpocketing", "hi"]
    assert t.loc["marshals_revenge", "lo"] <= -200 <= t.loc["marshals_revenge", "hi"]
    # Another round card is compared with decks holding Braking 3 times in 6: -500/6.
    assert t.loc["tunnel", "lo"] <= -500 / 6 <= t.loc["tunnel", "hi"]
    # Four positions: 99.9% intervals, so that all four cover the truth with 99.6% confidence.
    pos = round_cards.card_position_effects(f, level=0.999)
    braking = pos[pos["card"] == "braking"]
    assert sorted(braking["position"]) == [1, 2, 3, 4]
    assert ((braking["lo"] <= 500) & (500 <= braking["hi"])).all()


def test_fair_game_shows_no_card_effect(fair):
    assert not round_cards.card_effects(fair)["significant"].any()
    by_bandit = round_cards.card_bandit_effects(fair)
    assert len(by_bandit) == len(PLAYERS) * 10 * 6
    assert not by_bandit["significant"].any()


def test_card_presence_and_position_agree(fair):
    g = fair.games.head(50)
    presence = round_cards.card_presence(g)
    position = round_cards.card_position(g)
    assert (presence[list(round_cards.ROUND_CARDS)].sum(axis=1) == 4).all()
    assert (presence[list(round_cards.STATION_CARDS)].sum(axis=1) == 1).all()
    for card in round_cards.ROUND_CARDS:
        assert ((position[card] > 0) == presence[card]).all()
    first = g["round_1"].astype(str).iloc[0]
    assert position[first].iloc[0] == 1


def test_fixed_deck_has_no_card_rows():
    f = synthetic_results((4,), 500, seed=17)
    g = f.games.copy()
    for c in ("round_1", "round_2", "round_3", "round_4", "station"):
        g[c] = g[c].iloc[0]
    assert round_cards.card_effects(Results(f.players, g, f.settings)).empty


# --- Gunslinger --------------------------------------------------------------------------------
def test_gunslinger_summary_matches_direct_counts():
    f = synthetic_results((2, 4), 3000, seed=18)
    s = gunslinger.gunslinger_summary(f).set_index("setting")
    g = f.games[f.games["setting"] == "p4"]
    assert s.loc["p4", "awarded_rate"] == pytest.approx((g["n_gunslingers"] > 0).mean())
    assert s.loc["p4", "changed_rate"] == pytest.approx(g["gunslinger_changed_winner"].mean())
    assert s.loc["p4", "mean_gunslingers"] == pytest.approx(g["n_gunslingers"].mean())
    assert s.loc["p2", "awarded_rate"] == 0
    shares = gunslinger.gunslinger_shares(f)
    assert shares.groupby("setting")["share"].sum().to_numpy() == pytest.approx(1.0)


def test_gunslinger_by_bandit_even_share_and_fair_game(fair):
    t = gunslinger.gunslinger_by_bandit(fair)
    assert not t["significant"].any()
    p = fair.players
    direct = p[(p["setting"] == "p5") & (p["bandit"] == "belle")]
    row = t[(t["setting"] == "p5") & (t["bandit"] == "belle")].iloc[0]
    assert row["rate"] == pytest.approx(direct["gunslinger"].mean())
    games5 = fair.games[fair.games["setting"] == "p5"]
    assert row["fair_share"] == pytest.approx(games5["n_gunslingers"].mean() / 5)
    assert (t["decided_rate"] <= t["rate"]).all()


# --- comparison on the same seeds --------------------------------------------------------------
def test_compare_finds_a_planted_change_on_the_same_seeds():
    base = synthetic_results((4,), GAMES, seed=19, setting_prefix="base")
    tuco = synthetic_results((4,), GAMES, seed=19, setting_prefix="tuco",
                             bandit_edge={"tuco": 0.05})
    f = concat_results(base, tuco)
    assert design_of(f).pairs() == [("base4", "tuco4")]
    t = compare.compare(f).set_index("quantity")
    assert t.loc["win:tuco", "lo"] <= 0.05 <= t.loc["win:tuco", "hi"]
    assert t.loc["win:tuco", "significant"]
    assert t.loc["win:tuco", "n_pairs"] == (base.players["bandit"] == "tuco").sum()
    # Nothing but the winner changed: shots are identical game by game.
    assert t.loc["shots", "difference"] == 0 and not t.loc["shots", "significant"]


def test_compare_of_identical_settings_finds_nothing():
    a = synthetic_results((3,), 2000, seed=20, setting_prefix="a")
    b = synthetic_results((3,), 2000, seed=20, setting_prefix="b")
    t = compare.compare(concat_results(a, b))
    assert (t["difference"] == 0).all() and not t["significant"].any()


def test_compare_rejects_unknown_settings(fair):
    with pytest.raises(ValueError, match="unknown setting"):
        compare.compare_settings(fair, "p4", "nope")


def test_play_changes_count_games_played_differently_and_rescored_ones():
    """Same deals, same winners: the same play unless an action count differs; a column of
    actions the runner adds later (here ``moves``) is compared as soon as it is there."""
    a = synthetic_results((4,), 500, seed=21, setting_prefix="a")
    b = synthetic_results((4,), 500, seed=21, setting_prefix="b")
    for f in (a, b):
        f.players["moves"] = np.int8(3)
    b.players.loc[(b.players["game"] == 7).to_numpy() & (b.players["seat"] == 1).to_numpy(),
                  "moves"] = 4
    rescored = (b.players["game"] == 9).to_numpy()
    b.players.loc[rescored, "team_score"] += 1000
    f = concat_results(a, b)
    (row,) = compare.play_changes(f).itertuples()
    assert (row.games, row.changed, row.rescored) == (500, 1, 1)
    assert "moves" in row.compared.split(",")
    t = compare.compare(f).set_index("quantity")
    moved = [q for q in t.index if q.startswith("moves:")]
    assert len(moved) == 6 and t.loc[moved, "group"].eq("play").all()
    changed = t.loc[moved, "difference"]
    assert (changed > 0).sum() == 1 and (changed == 0).sum() == 5  # one bandit, one game
