"""The scenario factory (tests/positions.py): it builds what it is told, and refuses positions
that can never occur in a game."""
import doctest

import pytest

import tests.positions
from coltsim import constants as K
from coltsim.engine import flow
from coltsim.engine.state import (
    B_BULLETS, B_NEUTRAL, B_RECEIVED, G_NEUTRAL_LEFT, Z_DECK, Z_HAND,
)
from tests.positions import (
    Position, bandit_id, card_value, hand_cards, loot_of, loot_on, play_card, scheme, score, where,
)


def test_module_docstring_example_runs():
    result = doctest.testmod(tests.positions, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4 and result.failed == 0


def four():
    # loco(Marshal) | A | B | C | D, bandits placed by each test
    return Position(players=4, lineup="ghost,belle,tuco,doc", cars="ABCD")


def test_builds_what_it_is_told():
    # loco | A(Ghost roof) | B(Belle inside) | C(Tuco roof) | D(Doc inside)
    pos = four().clear_loot().marshal(2)
    pos.place("ghost", 1, "roof").place("belle", 2, "roof").place("tuco", 3, "roof")
    pos.place("doc", 4, "inside")
    jewel = pos.put("jewel", 4, "inside")
    purse = pos.give("belle", "purse", value=450)
    st = pos.shot("ghost", "tuco", 2).neutral("doc").build()
    assert where(st, "ghost") == (1, "roof") and where(st, "doc") == (4, "inside")
    assert st.loot[jewel, 2] == 2 * 4 and loot_on(st, 4) == [("jewel", 500)]
    assert st.loot[purse, 2] == K.AT_BANDIT + bandit_id(st, "belle")
    assert loot_of(st, "belle") == [("purse", 450)] and loot_of(st, "ghost") == []
    assert st.bandit[0, B_BULLETS] == 4 and st.bandit[2, B_RECEIVED] == 2
    assert st.bandit[3, B_NEUTRAL] == 1 and st.game[G_NEUTRAL_LEFT] == 12
    assert st.ncards[2, Z_DECK] == 12 and st.ncards[3, Z_DECK] == 11


def test_every_card_of_a_scenario_is_checked_against_the_invariants():
    # loco(Marshal) | A(Ghost roof) | B | C | D(Doc inside); Ghost's bullet count is then broken
    st = four().place("ghost", 1, "roof").place("belle", 2).place("tuco", 3).place("doc", 4).build()
    st.bandit[0, B_BULLETS] = 9  # more bullets than a bandit owns
    with pytest.raises(AssertionError, match="engine broke an invariant"):
        play_card(st, "ghost", "floor")


@pytest.mark.parametrize("arrange, message", [
    (lambda p: p.place("belle", 0, "inside"), "belle is inside the Marshal's car"),
    (lambda p: p.marshal(3).place("tuco", 3, "inside"), "tuco is inside the Marshal's car"),
    (lambda p: p.place("ghost", 5, "roof"), "ghost is off the train"),
    (lambda p: p.place("ghost", -1, "roof"), "ghost is off the train"),
    (lambda p: p.marshal(5), "the Marshal is off the train"),
    (lambda p: p.place("ghost", 1, "attic"), "unknown level 'attic'"),
    (lambda p: p.place("django", 1), "django is not in this game"),
    (lambda p: p.place("zorro", 1), "unknown bandit 'zorro'"),
    (lambda p: p.place(7, 1), "bandit 7 is not in this game"),
])
def test_rejects_bandits_and_marshal_where_they_cannot_be(arrange, message):
    pos = four().place("ghost", 1, "roof").place("belle", 2).place("tuco", 3).place("doc", 4)
    with pytest.raises(ValueError, match=message):
        arrange(pos)
        pos.build()


def test_rejects_tokens_that_are_not_in_the_box():
    pos = four()  # a real setup: the first strongbox is in the locomotive
    pos.put("strongbox", 1)  # the second one is still in the box
    with pytest.raises(ValueError, match="no strongbox left in the box"):
        pos.put("strongbox", 2)
    with pytest.raises(ValueError, match=r"no purse of \$250 left in the box"):
        # 4 starting purses + the cars' purses: draw the $250 ones out until none is left
        for _ in range(K.N_PURSES):
            pos.put("purse", 1, value=250)
    for _ in range(K.N_JEWELS - sum(K.CAR_JEWELS[1:5])):
        pos.put("jewel", 2)
    with pytest.raises(ValueError, match="no jewel left in the box"):
        pos.give("tuco", "jewel")
    with pytest.raises(ValueError, match=r"no purse of \$999"):
        pos.give("tuco", "purse", value=999)
    with pytest.raises(ValueError, match="unknown loot kind 'gold'"):
        pos.put("gold", 1)
    with pytest.raises(ValueError, match="car 9 is off the train"):
        pos.put("jewel", 9)


def test_ransoms_only_go_to_their_own_bandit_once():
    pos = four()
    with pytest.raises(ValueError, match="never put on a spot"):
        pos.put("ransom", 0)
    t = pos.give("doc", "ransom")
    assert t == K.FIRST_RANSOM + pos.bandit("doc")
    with pytest.raises(ValueError, match="already has its ransom"):
        pos.give("doc", "ransom")


def test_rejects_impossible_bullets_and_cards():
    pos = four()
    with pytest.raises(ValueError, match="has only 6 bullets left"):
        pos.shot("ghost", "belle", 7)
    with pytest.raises(ValueError, match="cannot have shot itself"):
        pos.shot("ghost", "ghost")
    with pytest.raises(ValueError, match="only 13 neutral bullets left"):
        pos.neutral("ghost", 14)
    with pytest.raises(ValueError, match="neutral bullets left must be in 0..13"):
        pos.neutral_left(14)
    with pytest.raises(ValueError, match="player 0 has no bullet card left in its deck"):
        pos.hand("ghost", ["bullet"])
    with pytest.raises(ValueError, match="player 1 has no punch card left"):
        pos.hand("belle", ["punch", "punch"])  # one Punch per deck
    with pytest.raises(ValueError, match="a bullet card cannot be played"):
        pos.on_pile("tuco", ["bullet"])
    with pytest.raises(ValueError, match="unknown card 'dynamite'"):
        pos.hand("tuco", ["dynamite"])
    unlimited = Position(players=3, rules={"neutral_bullets": -1})
    with pytest.raises(ValueError, match="unlimited"):
        unlimited.neutral_left(3)


def test_rejects_a_card_the_player_does_not_hold():
    # Doc's only Punch is on the pile already, so it cannot be played again.
    st = four().on_pile("doc", ["punch"]).build()
    with pytest.raises(ValueError, match="holds no punch card of doc"):
        play_card(st, "doc", "punch")


@pytest.mark.parametrize("card, choose, message", [
    ("move", [2], "2 is not a legal option"),
    ("move", [], "no choice given"),
    ("floor", [1], "choices left unused"),
])
def test_rejects_illegal_or_missing_choices(card, choose, message):
    # loco | A | B(Tuco inside) | C | D(Ghost, Belle, Doc roof)
    pos = four().place("ghost", 4, "roof").place("belle", 4, "roof").place("doc", 4, "roof")
    st = pos.place("tuco", 2).build()
    with pytest.raises(ValueError, match=message):
        play_card(st, "tuco", card, choose=choose)


def test_hand_and_stack_take_cards_from_the_deck():
    pos = four().hand("tuco", ["fire", "fire", "move"])
    pos.stack("tuco", ["marshal", "rob", "floor"])
    st = pos.build()
    assert hand_cards(st, "tuco") == ["fire", "fire", "move"]
    assert st.ncards[2, Z_DECK] == 7 and st.ncards[2, Z_HAND] == 3
    # Stacked cards are drawn first, in the order given.
    top = [K.CARD_NAMES[c & K.CARD_KIND_MASK] for c in st.cards[2, Z_DECK, 4:7][::-1]]
    assert top == ["marshal", "rob", "floor"]


def test_stacked_cards_are_the_ones_drawn():
    # Tuco holds only a bullet card, so he must draw: he gets the stacked cards.
    pos = four().first_player(2).round_card("braking").shot("ghost", "tuco")
    pos.hand("tuco", ["bullet"]).stack("tuco", ["punch", "marshal", "rob"])
    for who in ("ghost", "belle", "doc"):
        pos.hand(who, ["move"])
    st = pos.build()
    asked = scheme(st, choose=lambda d: d.options[0])
    assert asked[0].player == 3  # Tuco, first, was not asked: his draw was forced
    tuco_second = [d for d in asked if d.player == 2][0]
    assert {o & K.CARD_KIND_MASK for o in tuco_second.options if o != flow.OPT_DRAW} == {
        K.PUNCH, K.MARSHAL, K.ROB}


def test_score_reports_every_bandit_by_name():
    pos = four().clear_loot()
    pos.give("belle", "jewel")
    pos.give("belle", "purse", value=300)
    st = pos.shot("tuco", "ghost").build()
    result = score(st)
    assert set(result) == {"ghost", "belle", "tuco", "doc"}
    assert result["belle"]["loot"] == 800 and result["belle"]["jewel"] == 500
    assert result["tuco"]["gunslinger"] == 1 and result["tuco"]["score"] == 1000
    assert result["tuco"]["rank"] == 1 and result["belle"]["rank"] == 2


def test_card_value_is_the_plan_option():
    st = four().build()
    assert card_value(st, "tuco", "fire") == K.FIRE + 8 * 2
    assert card_value(st, "ghost", "move", face_down=True) == K.MOVE | flow.FACE_DOWN
