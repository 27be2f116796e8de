"""Game-quality metrics on hand-built games whose lead changes, decided round, comebacks,
margins and fizzled cards are known; their intervals against statsmodels."""
import re

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from coltsim.analysis import quality as Q
from coltsim.analysis.frames import concat_results
from coltsim.analysis.stats import paired_ratio_difference, ratio_estimate
from coltsim.study.report import build_report
from tests.handbuilt import hand_built


def bandit(name, seat, rank, rounds, score, fizzled=0, resolved=5):
    """A bandit of a hand-built game: ``resolved`` action cards (Moves, Robberies and a Fire),
    of which ``fizzled`` did nothing."""
    fires = min(resolved, 1)
    return {"bandit": name, "seat": seat, "rank": rank, "rounds": rounds, "score": score,
            "fizzled": fizzled, "fires": fires, "robberies": (resolved - fires) // 2,
            "moves": resolved - fires - (resolved - fires) // 2}


# Three players, three rounds.  Scores after rounds 1, 2, 3, then the final count.
GAMES = [
    # Tuco leads after round 1, Ghost after 2 and 3, Tuco wins with the Gunslinger bonus:
    # 2 lead changes; decided only by the final count (round 3 + 1); Tuco was not last after
    # round 2 (Doc was); margin $1,800 - $900.
    [bandit("ghost", 0, 2, [250, 500, 900], 900, fizzled=1),
     bandit("tuco", 1, 1, [300, 400, 800], 1800),
     bandit("doc", 2, 3, [100, 200, 300], 300, fizzled=2)],
    # Ghost leads from the start: no lead change, decided after round 1, margin $600.
    [bandit("ghost", 0, 1, [500, 700, 1000], 1000),
     bandit("tuco", 1, 3, [250, 250, 250], 250, fizzled=1),
     bandit("doc", 2, 2, [250, 300, 400], 400)],
    # A tie at the top, then Doc, then Ghost and Doc tied, and Ghost wins the tie-break: three
    # changes ({Ghost, Tuco} -> {Doc} -> {Ghost, Doc} -> {Ghost}); Ghost was last after round 2:
    # a comeback; margin $0.
    [bandit("ghost", 0, 1, [250, 250, 700], 700, fizzled=3),
     bandit("tuco", 1, 3, [250, 300, 300], 300),
     bandit("doc", 2, 2, [100, 600, 700], 700)],
    # A shared victory, Ghost and Tuco level all along: no change, decided after round 1.
    [bandit("ghost", 0, 1, [300, 600, 1000], 1000),
     bandit("tuco", 1, 1, [300, 600, 1000], 1000),
     bandit("doc", 2, 3, [0, 0, 0], 0, resolved=0)],
]
KNOWN = {"lead_changes": [2, 0, 3, 0], "decided_round": [4, 1, 4, 1], "comeback": [0, 0, 1, 0],
         "margin": [900, 600, 0, 0], "fizzled": [3, 1, 3, 0], "resolved": [15, 15, 15, 10]}


def test_each_metric_of_hand_built_games():
    gq = Q.game_quality(hand_built(GAMES))
    assert list(gq["game"]) == [0, 1, 2, 3]
    for metric, values in KNOWN.items():
        assert list(gq[metric]) == values, metric


def test_the_quality_table_per_setting():
    q = Q.quality(hand_built(GAMES))
    (row,) = q.itertuples()
    assert row.games == 4 and row.lead_changes == 1.25 and row.decided_round == 2.5
    assert row.margin == 375 and row.comeback == 0.25
    assert row.fizzled == pytest.approx(7 / 55)
    for m in Q.METRICS:
        assert getattr(row, f"{m}_lo") <= getattr(row, m) <= getattr(row, f"{m}_hi"), m
    assert list(q.columns) == Q.COLUMNS


def test_a_two_player_seat_is_a_team_of_two_bandits():
    """Seat 0 (Ghost and Belle) trails after round 1 and leads after round 2 for good."""
    game = [bandit("ghost", 0, 1, [0, 500], 1300), bandit("belle", 0, 1, [100, 500], 1300),
            bandit("tuco", 1, 2, [250, 400], 900), bandit("doc", 1, 2, [250, 400], 900)]
    gq = Q.game_quality(hand_built([game], players=2))
    assert (gq["lead_changes"].iloc[0], gq["decided_round"].iloc[0]) == (1, 2)
    assert (gq["comeback"].iloc[0], gq["margin"].iloc[0]) == (1, 400)


def test_a_sharing_winner_last_before_the_last_round_counts_in_part():
    game = [bandit("ghost", 0, 1, [0, 1000], 1000), bandit("tuco", 1, 1, [300, 1000], 1000),
            bandit("doc", 2, 3, [200, 200], 200)]
    assert Q.game_quality(hand_built([game]))["comeback"].iloc[0] == 0.5


def test_without_the_round_scores_only_the_margin_is_known():
    f = hand_built(GAMES)
    dropped = [c for c in f.players if c.startswith("score_after_")] + ["fizzled"]
    f = type(f)(f.players.drop(columns=dropped), f.games, f.settings)
    q = Q.quality(f).iloc[0]
    assert q["margin"] == 375
    assert np.isnan([q[m] for m in ("lead_changes", "decided_round", "comeback",
                                    "fizzled")]).all()
    assert Q.quality_changes(f, []).empty


def two_conditions():
    """The games above, and the same four deals under a variant where Ghost leads from the
    first round and nothing fizzles."""
    variant = [[dict(b, rank=1 if b["bandit"] == "ghost" else 2,
                     rounds=[1000] * 3 if b["bandit"] == "ghost" else [0] * 3,
                     score=1000 if b["bandit"] == "ghost" else 0, fizzled=0)
                for b in game] for game in GAMES]
    f = concat_results(hand_built(GAMES, setting="a"), hand_built(variant, setting="b"))
    f.settings["gunslinger_bonus"] = [1000, 0]
    return f


def test_changes_are_paired_on_the_same_deals():
    """Each change is the mean of the per-deal differences."""
    c = Q.quality_changes(two_conditions()).set_index("quantity")
    assert c.loc["decided_round", "difference"] == pytest.approx(1 - 2.5)
    assert c.loc["lead_changes", "difference"] == pytest.approx(0 - 1.25)
    assert c.loc["fizzled", "difference"] == pytest.approx(0 - 7 / 55)
    assert (c["n_pairs"] == 4).all() and (c["baseline"] == "a").all()


def _cards(events, trials):
    """One 0/1 row per card, the game it was resolved in."""
    y = np.concatenate([np.r_[np.ones(e), np.zeros(t - e)] for e, t in zip(events, trials)])
    game = np.repeat(np.arange(len(trials)), trials)
    return y, game


def test_the_share_of_fizzled_cards_is_a_mean_clustered_by_game():
    rng = np.random.default_rng(4)
    trials = rng.integers(20, 40, 300)
    events = rng.binomial(trials, rng.uniform(0.05, 0.3, 300))
    e = ratio_estimate(events, trials)
    y, game = _cards(events, trials)
    fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": game})
    assert e.estimate == pytest.approx(fit.params[0])
    assert e.se == pytest.approx(fit.bse[0], rel=1e-9)


def test_a_paired_change_of_the_share_matches_one_clustered_fit():
    rng = np.random.default_rng(5)
    trials_a, trials_b = rng.integers(20, 40, 300), rng.integers(20, 40, 300)
    p = rng.uniform(0.05, 0.3, 300)  # the deal's own difficulty, shared by both settings
    events_a, events_b = rng.binomial(trials_a, p), rng.binomial(trials_b, p + 0.05)
    e = paired_ratio_difference(events_a, trials_a, events_b, trials_b)
    ya, ga = _cards(events_a, trials_a)
    yb, gb = _cards(events_b, trials_b)
    y, game = np.r_[ya, yb], np.r_[ga, gb]
    X = np.column_stack([np.ones(len(y)), np.r_[np.zeros(len(ya)), np.ones(len(yb))]])
    fit = sm.OLS(y, X).fit(cov_type="cluster", cov_kwds={"groups": game})
    n = len(y)  # statsmodels' small-sample factor also has (n - 1) / (n - k), k = 2
    assert e.estimate == pytest.approx(fit.params[1])
    assert e.se == pytest.approx(fit.bse[1] * np.sqrt((n - 2) / (n - 1)), rel=1e-6)
    independent = np.hypot(ratio_estimate(events_a, trials_a).se,
                           ratio_estimate(events_b, trials_b).se)
    assert e.se < independent  # the shared difficulty cancels


def test_quality_of_synthetic_results_without_the_engine_columns(tmp_path):
    """Results from before the engine recorded rounds give the margin alone."""
    from tests.synthetic import synthetic_results

    q = Q.quality(synthetic_results((3, 4), 200, seed=1))
    assert len(q) == 2 and q["margin"].gt(0).all() and q["lead_changes"].isna().all()
    assert isinstance(q, pd.DataFrame)


def test_a_report_gives_the_quality_table_and_its_changes_in_the_headline(tmp_path):
    build_report(two_conditions(), out_dir=tmp_path, analyses=["quality"], dpi=30)
    q = pd.read_csv(tmp_path / "tables" / "quality.csv").set_index("setting")
    assert list(q.columns) == Q.COLUMNS[1:]
    assert (q.loc["a", "lead_changes"], q.loc["b", "decided_round"]) == (1.25, 1)
    h = pd.read_csv(tmp_path / "tables" / "headline.csv")
    (change,) = h[h["kind"] == "comparison"].itertuples()
    assert change.decided_round == pytest.approx(-1.5) and change.fizzled < 0
    assert (tmp_path / "figures" / "quality.png").exists()
    assert "deciding round" in (tmp_path / "report.md").read_text()


def test_quality_of_real_games():
    """The engine's round scores end at the loot; every metric stays in its range."""
    import coltsim

    r = coltsim.simulate(coltsim.make_setting(4, policies="random"), 300, seed=2, workers=1,
                         progress=False)
    p = r.players
    assert (p["score_after_5"] == p["loot"]).all() and (p["fizzled"] <= p["fires"]
                                                          + p["robberies"] + p["punches"]).all()
    gq = Q.game_quality(r)
    assert gq["decided_round"].between(1, 6).all() and gq["lead_changes"].between(0, 5).all()
    assert gq["comeback"].between(0, 1).all() and (gq["margin"] >= 0).all()
    q = Q.quality(r).iloc[0]
    assert 0 < q["fizzled_lo"] < q["fizzled"] < q["fizzled_hi"] < 1


# --- the round cards' effect on game quality -------------------------------------------------------
@pytest.fixture(scope="module")
def random_games():
    import coltsim

    return coltsim.simulate(coltsim.make_setting(4, policies="random"), 3000, seed=7, workers=1,
                            progress=False)


def test_a_cards_effect_on_game_quality_is_the_games_with_it_minus_those_without(random_games):
    from coltsim.analysis import round_cards
    from coltsim.analysis.stats import welch_difference

    t = round_cards.card_quality_effects(random_games)
    assert set(t["metric"]) == set(Q.METRICS) and len(t) == 10 * len(Q.METRICS)
    gq = Q.game_quality(random_games)
    decks = round_cards.card_presence(random_games.games).assign(game=random_games.games["game"])
    gq = gq.merge(decks, on="game")
    tunnel = gq["tunnel"].to_numpy()
    row = t[(t["card"] == "tunnel") & (t["metric"] == "lead_changes")].iloc[0]
    x, y = gq.loc[tunnel, "lead_changes"], gq.loc[~tunnel, "lead_changes"]
    d, lo, hi, p = welch_difference(x.mean(), x.std(), len(x), y.mean(), y.std(), len(y))
    assert (row["n_with"], row["n_without"]) == (len(x), len(y))
    assert (row["effect"], row["lo"], row["hi"], row["p_value"]) == pytest.approx((d, lo, hi, p))
    # The share of cards that did nothing: two shares clustered by game, independent samples.
    row = t[(t["card"] == "tunnel") & (t["metric"] == "fizzled")].iloc[0]
    a = ratio_estimate(gq.loc[tunnel, "fizzled"], gq.loc[tunnel, "resolved"])
    b = ratio_estimate(gq.loc[~tunnel, "fizzled"], gq.loc[~tunnel, "resolved"])
    assert row["effect"] == pytest.approx(a.estimate - b.estimate)
    assert row["hi"] - row["effect"] == pytest.approx(1.959964 * np.hypot(a.se, b.se), rel=1e-5)
    assert row["with_card"] == pytest.approx(a.estimate)


def test_the_round_card_report_ranks_the_cards_by_their_effect_on_lead_changes(random_games,
                                                                              tmp_path):
    build_report(random_games, out_dir=tmp_path, analyses=["round_cards"], dpi=20)
    t = pd.read_csv(tmp_path / "tables" / "cards_quality.csv")
    lead = t[(t["metric"] == "lead_changes") & (t["kind"] == "round")]
    ranked = lead.sort_values("effect", ascending=False)
    md = (tmp_path / "report.md").read_text()
    headline = md.split("## Headline")[1].split("\n## ")[0]
    (sentence,) = [line for line in headline.splitlines() if "ranked by their effect" in line]
    assert sentence.startswith("> Random players: the round cards ranked by their effect on lead "
                               "changes per game, against a deck with another card in its place "
                               "(95% CI): 4 players: ")
    said = re.findall(r"([A-Z][^,:(]*?) ([-+]\d\.\d\d) \(([-+]?\d\.\d\d) to ([-+]?\d\.\d\d)\)",
                      sentence)
    from coltsim.study.labels import card_label
    assert [s[0] for s in said] == [card_label(c) for c in ranked["card"]]
    assert [float(s[1]) for s in said] == [round(e, 2) for e in ranked["effect"]]
    # the section's table: every card with its effects on quality, loot and the winner
    assert "**Each card's effect on game quality, loot and the winner (with the card minus " \
           "without), ranked by its effect on lead changes**" in md
    assert (tmp_path / "figures" / "cards_lead_changes.png").exists()


def test_many_settings_tell_the_card_adding_most_lead_changes_in_one_sentence(tmp_path):
    import coltsim

    r = concat_results(*[coltsim.simulate(
        coltsim.make_setting(4, policies="random", rules={"gunslinger_bonus": bonus}), 400,
        seed=7, workers=1, progress=False) for bonus in (1000, 750, 500, 250)])
    build_report(r, out_dir=tmp_path, analyses=["round_cards"], dpi=20)
    md = (tmp_path / "report.md").read_text()
    (sentence,) = [line for line in md.split("## Headline")[1].split("\n## ")[0].splitlines()
                   if "lead changes" in line]
    assert re.fullmatch(r"> The round card that adds most lead changes per game \(significantly, "
                        r"against a deck with another card in its place\), of 4 settings: .+ "
                        r"\(every card: the round-card section\)\.", sentence), sentence
