"""docs/RULES.md 9: end of the game.  Loot, the Gunslinger bonus, the winner, the tie-break on
bullets received, shared victories and ranks.  Positions are scored as they stand
(``positions.score``)."""
import pytest

from tests.positions import Position, score

BANDITS = ("cheyenne", "belle", "tuco", "doc")


def position(**rules):
    """Four bandits, no loot anywhere, nobody has fired."""
    return Position(players=4, lineup=",".join(BANDITS), cars="ABCD",
                    rules=rules or None).clear_loot()


def column(result, name):
    return [result[b][name] for b in BANDITS]


def test_loot_adds_up_every_kind():
    pos = position()
    pos.give("cheyenne", "purse", value=350)
    pos.give("cheyenne", "purse", value=250)
    pos.give("cheyenne", "jewel")
    pos.give("cheyenne", "strongbox")
    pos.give("cheyenne", "ransom")
    pos.give("doc", "jewel")
    result = score(pos.build())
    ch = result["cheyenne"]
    assert (ch["purse"], ch["jewel"], ch["strongbox"], ch["ransom"]) == (600, 500, 1000, 250)
    assert ch["loot"] == ch["score"] == 2350
    assert column(result, "loot") == [2350, 0, 0, 500]
    assert column(result, "rank") == [1, 3, 3, 2]
    assert column(result, "win") == [1, 0, 0, 0] and column(result, "shared") == [0, 0, 0, 0]


def test_the_gunslinger_fired_the_most_bullets():
    pos = position().shot("tuco", "belle", 3).shot("doc", "belle", 2).shot("cheyenne", "doc")
    pos.give("belle", "jewel")
    result = score(pos.build())
    assert column(result, "shots") == [1, 0, 3, 2]
    assert column(result, "gunslinger") == [0, 0, 1, 0]
    assert column(result, "bonus") == [0, 0, 1000, 0]
    assert column(result, "score") == [0, 500, 1000, 0]
    assert column(result, "received") == [0, 5, 0, 1]


def test_tied_gunslingers_all_get_the_bonus():
    pos = position().shot("tuco", "belle", 2).shot("doc", "belle", 2).shot("cheyenne", "doc")
    result = score(pos.build())
    assert column(result, "gunslinger") == [0, 0, 1, 1]
    assert column(result, "score") == [0, 0, 1000, 1000]


def test_nobody_is_the_gunslinger_when_nobody_fired():
    pos = position()
    pos.give("belle", "purse", value=300)
    result = score(pos.build())
    assert column(result, "gunslinger") == [0, 0, 0, 0]
    assert column(result, "score") == [0, 300, 0, 0]


def test_option_everybody_is_the_gunslinger_when_nobody_fired():
    pos = position(gunslinger_if_nobody_fired=True)
    pos.give("belle", "purse", value=300)
    result = score(pos.build())
    assert column(result, "gunslinger") == [1, 1, 1, 1]
    assert column(result, "score") == [1000, 1300, 1000, 1000]
    assert column(result, "rank") == [2, 1, 2, 2]


@pytest.mark.parametrize("bonus", [500, 0])
def test_option_gunslinger_bonus(bonus):
    pos = position(gunslinger_bonus=bonus).shot("doc", "belle")
    result = score(pos.build())
    assert result["doc"]["bonus"] == bonus and result["doc"]["score"] == bonus


def test_the_gunslinger_bonus_can_decide_the_winner():
    # Belle has the most loot; Tuco fired once and nobody else did.
    pos = position().shot("tuco", "cheyenne")
    pos.give("belle", "strongbox")
    pos.give("belle", "jewel")
    pos.give("tuco", "strongbox")
    result = score(pos.build())
    assert column(result, "score") == [0, 1500, 2000, 0]
    assert column(result, "win") == [0, 0, 1, 0]


def test_a_tie_goes_to_the_bandit_who_received_fewer_bullets():
    # Cheyenne and Belle both have $1000; Cheyenne received 2 bullet cards, Belle 1.
    pos = position().shot("tuco", "cheyenne", 2).shot("doc", "belle")
    pos.give("cheyenne", "jewel")
    pos.give("cheyenne", "jewel")
    pos.give("belle", "strongbox")
    result = score(pos.build())
    # Tuco is the Gunslinger: $1000 too, but he received none.
    assert column(result, "score") == [1000, 1000, 1000, 0]
    assert column(result, "rank") == [3, 2, 1, 4]
    assert column(result, "win") == [0, 0, 1, 0]


def test_neutral_bullets_count_in_the_tie_break():
    # Equal loot ($1500, above the Gunslingers' $1000), one bandit bullet each; Cheyenne also
    # took a neutral bullet from the Marshal.
    pos = position().shot("tuco", "cheyenne").shot("doc", "belle").neutral("cheyenne")
    for who in ("cheyenne", "belle"):
        pos.give(who, "strongbox")
        pos.give(who, "jewel")
    result = score(pos.build())
    assert column(result, "score") == [1500, 1500, 1000, 1000]
    assert column(result, "received") == [1, 1, 0, 0]
    assert column(result, "neutral") == [1, 0, 0, 0]
    assert column(result, "win") == [0, 1, 0, 0]


def test_still_tied_players_share_the_victory():
    # Everyone has $1000: Cheyenne and Belle in loot, Tuco and Doc as tied Gunslingers.  Tuco
    # and Doc received no bullet, Cheyenne and Belle one each: Tuco and Doc share the victory,
    # Cheyenne and Belle share third place.
    pos = position().shot("tuco", "cheyenne").shot("doc", "belle")
    for who in ("cheyenne", "belle"):
        pos.give(who, "strongbox")
    result = score(pos.build())
    assert column(result, "score") == [1000, 1000, 1000, 1000]
    assert column(result, "rank") == [3, 3, 1, 1]
    assert column(result, "win") == [0, 0, 1, 1] and column(result, "shared") == [0, 0, 1, 1]


def test_shared_victory_between_equally_rich_and_equally_shot_players():
    pos = position()
    for who in ("cheyenne", "doc"):
        pos.give(who, "jewel")
        pos.neutral(who)
    pos.give("belle", "purse", value=450)
    result = score(pos.build())
    assert column(result, "rank") == [1, 3, 4, 1]
    assert column(result, "win") == [1, 0, 0, 1] and column(result, "shared") == [1, 0, 0, 1]


# --- what a game records for its quality metrics (coltsim.results: fizzled, score_after_r) ------
def test_a_card_that_does_nothing_is_counted_as_fizzled():
    # loco(Marshal) | A(Cheyenne, Belle inside) | B(Tuco inside, a jewel) | C | D(Doc roof)
    from coltsim.engine.state import B_FIZZLED
    from tests.positions import bandit_id, play_card

    pos = position().marshal(0).place("cheyenne", 1).place("belle", 1).place("tuco", 2)
    pos.place("doc", 4, "roof")
    pos.put("jewel", 2)
    st = pos.build()
    fizzled = lambda who: int(st.bandit[bandit_id(st, who), B_FIZZLED])  # noqa: E731
    play_card(st, "cheyenne", "rob")  # nothing lies in car A
    play_card(st, "tuco", "rob")  # the jewel
    play_card(st, "doc", "fire")  # nobody on another roof
    play_card(st, "belle", "punch", choose=[2])  # Cheyenne, pushed into car B (no loot to drop)
    assert (fizzled("cheyenne"), fizzled("tuco"), fizzled("doc"), fizzled("belle")) == (1, 0, 1, 0)
    play_card(st, "cheyenne", "fire")  # from car B: Belle inside car A is a target
    assert fizzled("cheyenne") == 1


def test_the_score_after_each_round_is_the_loot_carried_when_the_round_ends():
    # Belle alone on her spot with a purse lying there: Pickpocketing gives it to her at the
    # end of round 1, and the round's score counts it; the Gunslinger bonus does not count.
    from coltsim.engine.state import B_ROUND_LOOT
    from tests.positions import bandit_id, run_event

    pos = position().marshal(0).place("cheyenne", 1).place("belle", 2).place("tuco", 3)
    pos.place("doc", 3).shot("doc", "tuco")
    pos.give("tuco", "jewel")
    pos.put("purse", 2, value=450)
    st = pos.build()
    run_event(st, "pickpocketing", choose=[1])
    after_1 = {b: int(st.bandit[bandit_id(st, b), B_ROUND_LOOT]) for b in BANDITS}
    assert after_1 == {"cheyenne": 0, "belle": 450, "tuco": 500, "doc": 0}
    run_event(st, "braking")
    assert int(st.bandit[bandit_id(st, "belle"), B_ROUND_LOOT + 1]) == 450
