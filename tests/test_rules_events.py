"""docs/RULES.md 8: the end-of-round events of the round and train-station cards.

Trains are drawn from the locomotive (car 0) to the caboose; ``M`` marks the Marshal's car."""
import pytest

from coltsim import constants as K
from coltsim.engine.state import B_NEUTRAL, G_MARSHAL, G_NEUTRAL_LEFT, G_NEUTRAL_REMOVED, L_WHERE
from tests.positions import Position, bandit_id, loot_of, loot_on, run_event, where


def position(bandits="ghost,cheyenne,tuco,doc", **rules):
    n = bandits.count(",") + 1
    return Position(players=n, lineup=bandits, cars="ABCDEF"[:n], rules=rules or None).clear_loot()


def neutral(st, *names):
    return [int(st.bandit[bandit_id(st, n), B_NEUTRAL]) for n in names]


# --- Angry Marshal --------------------------------------------------------------------------------
def test_angry_marshal_shoots_his_roof_then_moves_back_into_an_occupied_car():
    # loco | A(M; Ghost, Cheyenne roof) | B(Tuco inside, Doc roof) | C | D
    pos = position().marshal(1).place("ghost", 1, "roof").place("cheyenne", 1, "roof")
    st = pos.place("tuco", 2).place("doc", 2, "roof").build()
    assert run_event(st, "angry_marshal") == []
    assert st.game[G_MARSHAL] == 2
    assert neutral(st, "ghost", "cheyenne", "tuco", "doc") == [1, 1, 1, 0]
    assert where(st, "tuco") == (2, "roof")  # fled from the Marshal
    assert where(st, "ghost") == (1, "roof")
    assert st.game[G_NEUTRAL_LEFT] == 10


def test_angry_marshals_two_givings_run_out_separately():
    # loco | A(M; Ghost roof) | B(Tuco inside) | C | D(Cheyenne, Doc inside)
    # One bullet left: enough for the first giving (Ghost), none for the second (Tuco).
    # Judged as one giving of two, nobody would have had one.
    pos = position().marshal(1).place("ghost", 1, "roof").place("tuco", 2)
    st = pos.place("cheyenne", 4).place("doc", 4).neutral_left(1).build()
    run_event(st, "angry_marshal")
    assert neutral(st, "ghost", "tuco") == [1, 0]
    assert where(st, "tuco") == (2, "roof")
    assert st.game[G_NEUTRAL_LEFT] == 0


def test_angry_marshal_in_the_caboose_shoots_his_roof_and_stays():
    # loco | A | B | C(Tuco inside, Cheyenne roof) | D(M; Ghost, Doc roof)
    pos = position().marshal(4).place("ghost", 4, "roof").place("doc", 4, "roof")
    st = pos.place("tuco", 3).place("cheyenne", 3, "roof").build()
    run_event(st, "angry_marshal")
    assert st.game[G_MARSHAL] == 4
    assert neutral(st, "ghost", "doc", "tuco", "cheyenne") == [1, 1, 0, 0]
    assert where(st, "tuco") == (3, "inside")


def test_angry_marshal_with_too_few_bullets_for_his_roof():
    # loco | A(M; Ghost, Cheyenne roof) | B | C | D(Tuco, Doc)
    pos = position().marshal(1).place("ghost", 1, "roof").place("cheyenne", 1, "roof")
    st = pos.place("tuco", 4).place("doc", 4).neutral_left(1).build()
    run_event(st, "angry_marshal")
    assert neutral(st, "ghost", "cheyenne") == [0, 0]
    assert st.game[G_NEUTRAL_LEFT] == 0 and st.game[G_NEUTRAL_REMOVED] == 13
    assert st.game[G_MARSHAL] == 2


# --- Swivel Arm and Braking -----------------------------------------------------------------------
def test_swivel_arm_sweeps_every_roof_to_the_caboose():
    # loco(Ghost roof) M | A | B(Cheyenne roof, Tuco inside) | C | D(Doc roof)
    pos = position().place("ghost", 0, "roof").place("cheyenne", 2, "roof").place("tuco", 2)
    st = pos.place("doc", 4, "roof").build()
    run_event(st, "swivel_arm")
    assert [where(st, b) for b in ("ghost", "cheyenne", "tuco", "doc")] == [
        (4, "roof"), (4, "roof"), (2, "inside"), (4, "roof")]


def test_braking_moves_every_roof_one_car_forward_but_not_off_the_locomotive():
    # loco(Ghost roof) | A(M) | B(Cheyenne roof) | C(Tuco inside) | D(Doc roof)
    pos = position().marshal(1).place("ghost", 0, "roof").place("cheyenne", 2, "roof")
    st = pos.place("tuco", 3).place("doc", 4, "roof").build()
    run_event(st, "braking")
    assert [where(st, b) for b in ("ghost", "cheyenne", "tuco", "doc")] == [
        (0, "roof"), (1, "roof"), (3, "inside"), (3, "roof")]
    # Cheyenne slid onto the Marshal's roof: the Marshal never looks up.
    assert st.bandit[:, B_NEUTRAL].sum() == 0


# --- Take It All! ---------------------------------------------------------------------------------
def test_take_it_all_puts_the_second_strongbox_in_the_marshals_car():
    # loco(strongbox) | A | B(M) | C | D
    pos = position().marshal(2)
    first = pos.put("strongbox", 0)
    for who in ("ghost", "cheyenne", "tuco", "doc"):
        pos.place(who, 4)
    st = pos.build()
    run_event(st, "take_it_all")
    assert loot_on(st, 2) == [("strongbox", 1000)]
    assert loot_on(st, 0) == [("strongbox", 1000)] and st.loot[first, L_WHERE] == 0
    assert st.loot[K.FIRST_STRONGBOX + 1, L_WHERE] == 2 * 2 + K.INSIDE


# --- Passengers' Rebellion ------------------------------------------------------------------------
@pytest.mark.parametrize("rules, left, given, left_after, removed", [
    ({}, None, [1, 1, 1, 0], 10, 0),
    ({}, 3, [1, 1, 1, 0], 0, 10),  # just enough
    ({}, 2, [0, 0, 0, 0], 0, 13),  # run out: nobody, the two left leave the game
    ({"neutral_runout": "until_empty"}, 2, [1, 1, 0, 0], 0, 11),  # option: in bandit order
    ({"neutral_bullets": -1}, None, [1, 1, 1, 0], -1, 0),  # option: unlimited
])
def test_passengers_rebellion_shoots_every_bandit_inside(rules, left, given, left_after, removed):
    # loco(Ghost inside) | A(M) | B(Cheyenne inside, Tuco roof) | C | D(Doc inside)
    pos = position(**rules).marshal(1).place("ghost", 0).place("cheyenne", 2)
    pos.place("tuco", 2, "roof").place("doc", 4)
    if left is not None:
        pos.neutral_left(left)
    st = pos.build()
    run_event(st, "passengers_rebellion")
    assert neutral(st, "ghost", "cheyenne", "doc", "tuco") == given
    assert st.game[G_NEUTRAL_LEFT] == left_after
    assert st.game[G_NEUTRAL_REMOVED] == removed


# --- Pickpocketing --------------------------------------------------------------------------------
def pickpocket_train():
    # M loco | A(Ghost inside; purse) | B(Cheyenne, Tuco inside; purse) | C(Doc roof; purse on
    # the roof) | D(Belle inside; a jewel only) | E
    pos = position("ghost,cheyenne,tuco,doc,belle").place("ghost", 1).place("cheyenne", 2)
    pos.place("tuco", 2).place("doc", 3, "roof").place("belle", 4)
    pos.put("purse", 1, value=300)
    pos.put("purse", 2, value=350)
    pos.put("purse", 3, "roof", value=400)
    pos.put("jewel", 4)
    return pos.build()


def test_pickpocketing_asks_each_lone_bandit_standing_on_a_purse():
    st = pickpocket_train()
    asked = run_event(st, "pickpocketing", choose=[1, 1])
    assert [(d.player, d.kind, d.options) for d in asked] == [
        (bandit_id(st, "ghost"), "pickpocket", [1, 0]),
        (bandit_id(st, "doc"), "pickpocket", [1, 0]),
    ]
    assert loot_of(st, "ghost") == [("purse", 300)] and loot_of(st, "doc") == [("purse", 400)]
    # Not alone: Cheyenne and Tuco get nothing.  No purse: Belle takes nothing.
    assert loot_on(st, 2) == [("purse", 350)] and loot_on(st, 4) == [("jewel", 500)]
    assert loot_of(st, "cheyenne") == [] and loot_of(st, "belle") == []


def test_pickpocketing_is_optional():
    st = pickpocket_train()
    run_event(st, "pickpocketing", choose=[0, 1])
    assert loot_of(st, "ghost") == [] and loot_on(st, 1) == [("purse", 300)]
    assert loot_of(st, "doc") == [("purse", 400)]


def test_pickpocketing_takes_a_purse_blind():
    taken = set()
    for seed in range(24):
        # M loco | A | B(Doc inside; purses of $250 and $500) | C(Ghost, Cheyenne)
        pos = Position(players=3, lineup="ghost,cheyenne,doc", cars="ABC", seed=seed).clear_loot()
        pos.place("doc", 2).place("ghost", 3).place("cheyenne", 3)
        pos.put("purse", 2, value=250)
        pos.put("purse", 2, value=500)
        st = pos.build()
        run_event(st, "pickpocketing", choose=[1])
        [(_, value)] = loot_of(st, "doc")
        taken.add(value)
    assert taken == {250, 500}


# --- Marshal's Revenge ----------------------------------------------------------------------------
def test_marshals_revenge_takes_the_least_valuable_purse_on_his_roof_only():
    # loco | A | B(M; Ghost roof: $450, $300, $400 purses + jewel; Cheyenne roof: jewel only)
    #    | C(Tuco roof: $250 purse) | D(Doc inside: $250 purse)
    pos = position().marshal(2).place("ghost", 2, "roof").place("cheyenne", 2, "roof")
    pos.place("tuco", 3, "roof").place("doc", 4)
    pos.give("ghost", "purse", value=450)
    cheapest = pos.give("ghost", "purse", value=300)
    pos.give("ghost", "purse", value=400)
    pos.give("ghost", "jewel")
    pos.give("cheyenne", "jewel")
    pos.give("tuco", "purse", value=250)
    pos.give("doc", "purse", value=250)
    st = pos.build()
    run_event(st, "marshals_revenge")
    assert loot_of(st, "ghost") == [("jewel", 500), ("purse", 400), ("purse", 450)]
    assert st.loot[cheapest, L_WHERE] == K.IN_BOX  # back in the box, out of the game
    assert loot_of(st, "cheyenne") == [("jewel", 500)]  # no purse: jewels are spared
    assert loot_of(st, "tuco") == [("purse", 250)] and loot_of(st, "doc") == [("purse", 250)]


# --- Hostage-Taking of the Conductor --------------------------------------------------------------
def test_hostage_taking_pays_a_ransom_on_both_levels_of_the_locomotive():
    # loco(Ghost inside, Cheyenne roof) | A(M; Tuco roof) | B | C | D(Doc inside)
    pos = position().marshal(1).place("ghost", 0).place("cheyenne", 0, "roof")
    st = pos.place("tuco", 1, "roof").place("doc", 4).build()
    run_event(st, "hostage_taking")
    assert loot_of(st, "ghost") == [("ransom", 250)]
    assert loot_of(st, "cheyenne") == [("ransom", 250)]
    assert st.loot[K.FIRST_RANSOM + bandit_id(st, "ghost"), L_WHERE] == K.AT_BANDIT + bandit_id(
        st, "ghost")
    assert loot_of(st, "tuco") == [] and loot_of(st, "doc") == []
