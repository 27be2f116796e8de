"""Head to head on hand-built games: how often a bandit finishes ahead of another at the same
table, shared ranks split, teammates never a pair; the interval against statsmodels."""
import pytest
from statsmodels.stats.proportion import proportion_confint

from coltsim.analysis.head_to_head import head_to_head
from tests.handbuilt import hand_built


def seat(name, seat, rank):
    return {"bandit": name, "seat": seat, "rank": rank, "score": 0}


def test_pairs_of_hand_built_games():
    games = [  # Belle ahead of Tuco twice, a shared rank once; Doc only in the last two
        [seat("belle", 0, 1), seat("tuco", 1, 2), seat("ghost", 2, 3)],
        [seat("belle", 0, 2), seat("tuco", 1, 3), seat("doc", 2, 1)],
        [seat("belle", 0, 1), seat("tuco", 1, 1), seat("doc", 2, 3)],
    ]
    h = head_to_head(hand_built(games)).set_index(["bandit", "opponent"])
    belle = h.loc[("belle", "tuco")]
    assert (belle["games"], belle["ahead"], belle["ties"]) == (3, 2.5, 1)
    assert belle["rate"] == pytest.approx(2.5 / 3)
    assert h.loc[("tuco", "belle"), "rate"] == pytest.approx(1 - belle["rate"])
    assert (h.loc[("doc", "tuco"), "games"], h.loc[("doc", "tuco"), "ahead"]) == (2, 1)
    assert ("doc", "ghost") not in h.index  # never at the same table
    assert len(h) == 10  # 5 pairs, both ways
    lo, hi = proportion_confint(2.5, 3, method="wilson")
    assert (belle["lo"], belle["hi"]) == pytest.approx((lo, hi))


def test_teammates_are_not_a_pair_in_the_two_player_game():
    game = [seat("ghost", 0, 2), seat("belle", 0, 2), seat("tuco", 1, 1), seat("doc", 1, 1)]
    h = head_to_head(hand_built([game], players=2))
    assert len(h) == 8 and not ((h["bandit"] == "ghost") & (h["opponent"] == "belle")).any()
    assert set(h.loc[h["bandit"] == "tuco", "rate"]) == {1.0}
