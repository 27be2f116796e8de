"""docs/RULES.md 6: the Marshal rule and the neutral bullets' run-out rule.

Whenever a bandit enters the inside of the Marshal's car, or the Marshal enters a car with
bandits inside, they go up to the roof and each receives one neutral bullet; one such event is
one "giving", and when fewer neutral bullets are left than bandits to receive them at one
giving, nobody gets one and the rest leave the game.  Trains are drawn from the locomotive;
``M`` marks the Marshal's car."""
import pytest

from coltsim import constants as K
from coltsim.engine.state import (
    B_NEUTRAL, B_RECEIVED, G_MARSHAL, G_NEUTRAL_LEFT, G_NEUTRAL_REMOVED, Z_DECK,
)
from tests.positions import Position, bandit_id, play_card, where

NEUTRAL_CARD = K.BULLET + 8 * K.NEUTRAL


def position(bandits="ghost,cheyenne,tuco,doc", **rules):
    n = bandits.count(",") + 1
    return Position(players=n, lineup=bandits, cars="ABCDEF"[:n], rules=rules or None).clear_loot()


def neutral(st, who):
    return int(st.bandit[bandit_id(st, who), B_NEUTRAL])


def deck(st, who):
    p = bandit_id(st, who)
    return list(st.cards[p, Z_DECK, :st.ncards[p, Z_DECK]])


# --- a bandit entering the Marshal's car ----------------------------------------------------------
def test_moving_inside_the_marshals_car_sends_the_bandit_to_the_roof_with_a_neutral_bullet():
    # loco | A | B(M) | C(Doc inside) | D
    pos = position().marshal(2).place("doc", 3).place("ghost", 4).place("cheyenne", 4)
    st = pos.place("tuco", 4).build()
    play_card(st, "doc", "move", choose=[2])
    assert where(st, "doc") == (2, "roof")
    assert neutral(st, "doc") == 1 and st.game[G_NEUTRAL_LEFT] == 12
    assert deck(st, "doc").count(NEUTRAL_CARD) == 1
    assert st.bandit[:, B_RECEIVED].sum() == 0  # a neutral bullet is not a bandit's bullet


def test_moving_on_the_roof_over_the_marshals_car_is_safe():
    # loco | A | B(M) | C(Doc roof) | D
    pos = position().marshal(2).place("doc", 3, "roof").place("ghost", 4).place("cheyenne", 4)
    st = pos.place("tuco", 4).build()
    play_card(st, "doc", "move", choose=[2])
    assert where(st, "doc") == (2, "roof") and neutral(st, "doc") == 0
    assert st.game[G_NEUTRAL_LEFT] == 13


def test_floor_change_down_into_the_marshals_car_bounces_back_to_the_roof():
    # loco | A | B(M, Doc roof) | C | D
    pos = position().marshal(2).place("doc", 2, "roof").place("ghost", 4).place("cheyenne", 4)
    st = pos.place("tuco", 4).build()
    assert play_card(st, "doc", "floor") == []
    assert where(st, "doc") == (2, "roof")
    assert neutral(st, "doc") == 1 and st.game[G_NEUTRAL_LEFT] == 12


def test_floor_change_down_elsewhere_is_harmless():
    # loco | A | B(M) | C(Doc roof) | D
    pos = position().marshal(2).place("doc", 3, "roof").place("ghost", 4).place("cheyenne", 4)
    st = pos.place("tuco", 4).build()
    play_card(st, "doc", "floor")
    assert where(st, "doc") == (3, "inside") and neutral(st, "doc") == 0


def test_a_bandit_punched_into_the_marshals_car_flees_to_the_roof():
    # loco | A | B(M) | C(Doc, Ghost inside) | D
    pos = position().marshal(2).place("doc", 3).place("ghost", 3).place("cheyenne", 4)
    st = pos.place("tuco", 4, "roof").build()
    play_card(st, "doc", "punch", choose=[2])
    assert where(st, "ghost") == (2, "roof") and neutral(st, "ghost") == 1
    assert neutral(st, "doc") == 0


def test_pushed_or_punched_onto_the_marshals_roof_is_harmless():
    # loco | A(Django roof) | B(Ghost roof) | C(M) | D(Cheyenne, Doc roof)
    pos = position("ghost,django,doc,cheyenne").marshal(3).place("django", 1, "roof")
    pos.place("ghost", 2, "roof").place("cheyenne", 4, "roof").place("doc", 4, "roof")
    st = pos.build()
    play_card(st, "django", "fire")
    play_card(st, "cheyenne", "punch")
    assert where(st, "ghost") == (3, "roof") and where(st, "doc") == (3, "roof")
    assert st.bandit[:, B_NEUTRAL].sum() == 0 and st.game[G_NEUTRAL_LEFT] == 13


# --- the Marshal entering a car -------------------------------------------------------------------
def test_marshal_card_into_an_occupied_car_sends_everyone_inside_to_the_roof():
    # loco | A(M) | B(Ghost, Cheyenne inside; Tuco roof) | C | D(Doc inside)
    pos = position().marshal(1).place("ghost", 2).place("cheyenne", 2).place("tuco", 2, "roof")
    st = pos.place("doc", 4).build()
    play_card(st, "doc", "marshal", choose=[2])
    assert st.game[G_MARSHAL] == 2
    assert where(st, "ghost") == (2, "roof") and where(st, "cheyenne") == (2, "roof")
    assert neutral(st, "ghost") == 1 and neutral(st, "cheyenne") == 1
    assert neutral(st, "tuco") == 0  # already on the roof: untouched
    assert st.game[G_NEUTRAL_LEFT] == 11


def test_marshal_card_into_an_empty_car_gives_nothing():
    # loco | A(M) | B(Tuco roof) | C | D(others inside)
    pos = position().marshal(1).place("tuco", 2, "roof").place("ghost", 4).place("cheyenne", 4)
    st = pos.place("doc", 4).build()
    play_card(st, "doc", "marshal", choose=[2])
    assert st.bandit[:, B_NEUTRAL].sum() == 0 and st.game[G_NEUTRAL_LEFT] == 13


# --- neutral bullets running out ------------------------------------------------------------------
@pytest.mark.parametrize("left, runout, supply, expected_given, expected_left, expected_removed", [
    (2, "nobody", 13, [1, 1], 0, 11),  # just enough: both get one
    (1, "nobody", 13, [0, 0], 0, 13),  # too few: nobody, the last one leaves the game too
    (0, "nobody", 13, [0, 0], 0, 13),  # none left at all
    (1, "until_empty", 13, [1, 0], 0, 12),  # option: in bandit order until the supply is empty
    (None, "nobody", -1, [1, 1], -1, 0),  # option: an unlimited supply
])
def test_one_giving_to_two_bandits_under_the_run_out_rule(
        left, runout, supply, expected_given, expected_left, expected_removed):
    # loco | A(M) | B(Ghost, Cheyenne inside) | C | D(Doc inside, Tuco roof)
    pos = position(neutral_runout=runout, neutral_bullets=supply)
    pos.marshal(1).place("ghost", 2).place("cheyenne", 2).place("tuco", 4, "roof").place("doc", 4)
    if left is not None:
        pos.neutral_left(left)
    st = pos.build()
    play_card(st, "doc", "marshal", choose=[2])
    # They flee to the roof whether or not a bullet was left for them.
    assert where(st, "ghost") == (2, "roof") and where(st, "cheyenne") == (2, "roof")
    assert [neutral(st, "ghost"), neutral(st, "cheyenne")] == expected_given
    assert st.game[G_NEUTRAL_LEFT] == expected_left
    assert st.game[G_NEUTRAL_REMOVED] == expected_removed
    assert deck(st, "ghost").count(NEUTRAL_CARD) == expected_given[0]


def test_each_giving_is_judged_on_its_own():
    # loco | A(M) | B(Cheyenne inside) | C(Doc inside) | D
    # One bullet left: the first giving (one bandit) takes it, the second finds none.
    pos = position().marshal(1).place("cheyenne", 2).place("doc", 3).place("ghost", 4)
    st = pos.place("tuco", 4, "roof").neutral_left(1).build()
    play_card(st, "ghost", "marshal", choose=[2])
    assert neutral(st, "cheyenne") == 1 and st.game[G_NEUTRAL_LEFT] == 0
    play_card(st, "ghost", "marshal", choose=[3])
    assert where(st, "doc") == (3, "roof") and neutral(st, "doc") == 0
