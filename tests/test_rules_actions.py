"""docs/RULES.md 5: the action cards, one card resolved in a hand-built position.

Trains are drawn from the locomotive (car 0) to the caboose; ``M`` marks the Marshal's car.
The bandits here are Ghost and Doc, whose abilities do not touch the cards, unless a test says
otherwise (the abilities have their own file)."""
import pytest

from coltsim import constants as K
from coltsim.engine.state import B_BULLETS, B_NEUTRAL, B_RECEIVED, G_MARSHAL, Z_DECK
from tests.positions import Position, bandit_id, loot_of, loot_on, play_card, where


def position(bandits="ghost,cheyenne,tuco,doc", **rules):
    """A train of one car per bandit, all loot back in the box, the Marshal in the locomotive."""
    n = bandits.count(",") + 1
    return Position(players=n, lineup=bandits, cars="ABCDEF"[:n], rules=rules or None).clear_loot()


def ids(st, *names):
    return [bandit_id(st, n) for n in names]


def top_of_deck(st, who):
    p = bandit_id(st, who)
    return st.cards[p, Z_DECK, st.ncards[p, Z_DECK] - 1]


# --- Move -----------------------------------------------------------------------------------------
def test_move_inside_goes_one_car_forward_or_back():
    # M loco | A | B(Doc) | C | D(Ghost, Cheyenne, Tuco roof)
    pos = position().place("doc", 2)
    for who in ("ghost", "cheyenne", "tuco"):
        pos.place(who, 4, "roof")
    st = pos.build()
    asked = play_card(st, "doc", "move", choose=[3])
    assert [d.kind for d in asked] == ["move"] and asked[0].options == [1, 3]
    assert where(st, "doc") == (3, "inside")


@pytest.mark.parametrize("marshal, start, end", [(2, 4, 3), (2, 0, 1)])
def test_move_inside_at_either_end_of_the_train_has_one_destination(marshal, start, end):
    # loco | A | B(M) | C | D    Doc inside the caboose (or the locomotive): one way only
    pos = position().marshal(marshal).place("doc", start)
    for who in ("ghost", "cheyenne", "tuco"):
        pos.place(who, 2, "roof")
    st = pos.build()
    assert play_card(st, "doc", "move") == []  # a single legal destination: nothing asked
    assert where(st, "doc") == (end, "inside")


@pytest.mark.parametrize("start, destinations", [
    (1, {0, 2, 3, 4}),  # 3 cars back would be car 4, the caboose; 1 forward is the locomotive
    (2, {0, 1, 3, 4}),
    (4, {1, 2, 3}),  # from the caboose only forward, at most 3 cars
])
def test_move_on_the_roof_goes_one_to_three_cars_never_off_the_train(start, destinations):
    # M loco | A(Ghost roof) | B(Cheyenne roof) | C(Tuco roof) | D    Doc on a roof too:
    # bandits on the way never block a roof move, and Doc cannot stay where he is.
    pos = position().place("ghost", 1, "roof").place("cheyenne", 2, "roof").place("tuco", 3, "roof")
    st = pos.place("doc", start, "roof").build()
    far = max(destinations, key=lambda c: abs(c - start))
    asked = play_card(st, "doc", "move", choose=[far])
    assert set(asked[0].options) == destinations
    assert where(st, "doc") == (far, "roof")


def test_roof_move_max_option_limits_the_distance():
    # M loco | A | B(Doc roof) | C | D
    pos = position(roof_move_max=1).place("doc", 2, "roof")
    for who in ("ghost", "cheyenne", "tuco"):
        pos.place(who, 4)
    st = pos.build()
    asked = play_card(st, "doc", "move", choose=[1])
    assert asked[0].options == [1, 3]
    assert where(st, "doc") == (1, "roof")


# --- Floor Change ---------------------------------------------------------------------------------
def test_floor_change_goes_up_then_down_in_the_same_car():
    # M loco | A | B(Doc inside, loot inside and on the roof) | C | D
    pos = position().place("doc", 2)
    pos.put("jewel", 2, "inside")
    pos.put("purse", 2, "roof")
    for who in ("ghost", "cheyenne", "tuco"):
        pos.place(who, 4)
    st = pos.build()
    assert play_card(st, "doc", "floor") == []
    assert where(st, "doc") == (2, "roof")
    assert play_card(st, "doc", "floor") == []
    assert where(st, "doc") == (2, "inside")
    # Nothing else moved: the loot stays where it lay.
    assert loot_on(st, 2, "inside") == [("jewel", 500)]
    assert loot_on(st, 2, "roof") == [("purse", 250)]
    assert loot_of(st, "doc") == []


# --- Fire -----------------------------------------------------------------------------------------
def test_fire_on_the_roof_hits_the_nearest_occupied_roof_in_each_direction():
    # M loco(Tuco roof) | A | B(Ghost roof, Doc roof) | C(Belle inside) | D(Cheyenne roof) | E
    #     | F(Django roof)
    # Forward: car A is empty, the nearest occupied roof is the locomotive's (2 cars away).
    # Back: Cheyenne (2 cars away) hides Django; Belle inside car C neither blocks nor counts;
    # Doc on Ghost's own roof is neither a target nor an obstacle.
    pos = Position(players=6, lineup="ghost,belle,cheyenne,tuco,django,doc", cars="ABCDEF")
    pos.place("ghost", 2, "roof").place("doc", 2, "roof").place("tuco", 0, "roof")
    pos.place("belle", 3, "inside").place("cheyenne", 4, "roof").place("django", 6, "roof")
    st = pos.build()
    tuco, cheyenne = ids(st, "tuco", "cheyenne")
    asked = play_card(st, "ghost", "fire", choose=[cheyenne])
    assert [d.kind for d in asked] == ["fire"]
    assert sorted(asked[0].options) == sorted([tuco, cheyenne])
    assert st.bandit[cheyenne, B_RECEIVED] == 1
    assert st.bandit[bandit_id(st, "ghost"), B_BULLETS] == 5
    # The bullet card is Ghost's, on top of Cheyenne's deck.
    assert top_of_deck(st, "cheyenne") == K.BULLET + 8 * bandit_id(st, "ghost")


def test_fire_on_the_roof_chooses_among_all_bandits_on_the_nearest_roof():
    # M loco | A | B(Doc roof) | C | D(Ghost roof, Cheyenne roof, Tuco roof)
    pos = position().place("doc", 2, "roof")
    for who in ("ghost", "cheyenne", "tuco"):
        pos.place(who, 4, "roof")
    st = pos.build()
    ghost, cheyenne, tuco = ids(st, "ghost", "cheyenne", "tuco")
    asked = play_card(st, "doc", "fire", choose=[tuco])
    assert sorted(asked[0].options) == sorted([ghost, cheyenne, tuco])
    assert st.bandit[tuco, B_RECEIVED] == 1 and st.bandit[ghost, B_RECEIVED] == 0


def test_fire_on_the_roof_without_anyone_in_sight_does_nothing():
    # M loco | A | B(Doc roof, Ghost roof, Cheyenne inside) | C(Tuco inside) | D
    pos = position().place("doc", 2, "roof").place("ghost", 2, "roof")
    st = pos.place("cheyenne", 2).place("tuco", 3).build()
    assert play_card(st, "doc", "fire") == []
    assert st.bandit[:, B_RECEIVED].sum() == 0
    assert st.bandit[bandit_id(st, "doc"), B_BULLETS] == 6
    assert st.ncards[bandit_id(st, "doc"), Z_DECK] == 10  # the card went back to Doc's deck


def test_fire_from_inside_hits_only_the_adjacent_cars():
    # M loco | A(Ghost inside) | B(Doc inside, Tuco inside) | C(Cheyenne roof) | D
    pos = position().place("doc", 2).place("tuco", 2).place("ghost", 1).place("cheyenne", 3, "roof")
    st = pos.build()
    assert play_card(st, "doc", "fire") == []  # Ghost is the only target: no choice
    ghost, cheyenne, tuco = ids(st, "ghost", "cheyenne", "tuco")
    assert st.bandit[ghost, B_RECEIVED] == 1
    assert st.bandit[tuco, B_RECEIVED] == 0 and st.bandit[cheyenne, B_RECEIVED] == 0


def test_fire_from_inside_both_directions_but_not_two_cars_away():
    # M loco | A(Ghost inside) | B(Doc inside) | C(Cheyenne inside) | D(Tuco inside)
    pos = position().place("doc", 2).place("ghost", 1).place("cheyenne", 3).place("tuco", 4)
    st = pos.build()
    ghost, cheyenne = ids(st, "ghost", "cheyenne")
    asked = play_card(st, "doc", "fire", choose=[ghost])
    assert sorted(asked[0].options) == sorted([ghost, cheyenne])


def test_fire_from_inside_the_locomotive_only_looks_back():
    # loco(Doc inside) | A(Ghost inside) | B(M) | C | D(Cheyenne inside, Tuco roof)
    pos = position().marshal(2).place("doc", 0).place("ghost", 1)
    st = pos.place("cheyenne", 4).place("tuco", 4, "roof").build()
    assert play_card(st, "doc", "fire") == []
    assert st.bandit[bandit_id(st, "ghost"), B_RECEIVED] == 1


def test_fire_with_no_bullet_left_does_nothing():
    # M loco | A(Ghost inside) | B(Doc inside) | C | D
    pos = position().place("doc", 2).place("ghost", 1).place("cheyenne", 4).place("tuco", 4, "roof")
    st = pos.shot("doc", "tuco", 6).build()
    assert play_card(st, "doc", "fire") == []
    assert st.bandit[bandit_id(st, "ghost"), B_RECEIVED] == 0
    assert st.bandit[bandit_id(st, "doc"), B_BULLETS] == 0


# --- Robbery --------------------------------------------------------------------------------------
def test_robbery_chooses_the_kind_of_loot():
    # M loco | A | B(Doc inside: purse, jewel, strongbox) | C | D
    pos = position().place("doc", 2)
    for kind in ("purse", "jewel", "strongbox"):
        pos.put(kind, 2)
    for who in ("ghost", "cheyenne", "tuco"):
        pos.place(who, 4)
    st = pos.build()
    asked = play_card(st, "doc", "rob", choose=[K.STRONGBOX])
    assert asked[0].kind == "rob" and asked[0].options == [K.PURSE, K.JEWEL, K.STRONGBOX]
    assert loot_of(st, "doc") == [("strongbox", 1000)]
    assert loot_on(st, 2) == [("jewel", 500), ("purse", 250)]


def test_robbery_takes_a_purse_blind():
    # M loco | A | B(Doc inside: purses of $250 and $500) | C | D
    # Doc never chooses which purse; over several games he gets either.
    taken = set()
    for seed in range(24):
        pos = Position(players=3, lineup="ghost,cheyenne,doc", cars="ABC", seed=seed).clear_loot()
        pos.place("doc", 2).place("ghost", 3).place("cheyenne", 3)
        pos.put("purse", 2, value=250)
        pos.put("purse", 2, value=500)
        st = pos.build()
        assert play_card(st, "doc", "rob") == []
        [(kind, value)] = loot_of(st, "doc")
        assert len(loot_on(st, 2)) == 1
        taken.add(value)
    assert taken == {250, 500}


@pytest.mark.parametrize("level, loot_level", [
    ("inside", None), ("inside", "roof"), ("roof", "inside"),
])
def test_robbery_with_no_loot_on_the_spot_does_nothing(level, loot_level):
    # M loco | A | B(Doc; loot only on the other level, or nowhere) | C | D
    pos = position().place("doc", 2, level)
    if loot_level:
        pos.put("jewel", 2, loot_level)
    for who in ("ghost", "cheyenne", "tuco"):
        pos.place(who, 4)
    st = pos.build()
    assert play_card(st, "doc", "rob") == []
    assert loot_of(st, "doc") == []
    if loot_level:
        assert loot_on(st, 2, loot_level) == [("jewel", 500)]


# --- Punch ----------------------------------------------------------------------------------------
def test_punch_chooses_target_loot_and_direction():
    # M loco | A | B(Doc, Ghost with purse + jewel, Tuco: all inside) | C | D
    pos = position().place("doc", 2).place("ghost", 2).place("tuco", 2).place("cheyenne", 4)
    pos.give("ghost", "purse", value=300)
    pos.give("ghost", "jewel")
    st = pos.build()
    ghost, tuco = ids(st, "ghost", "tuco")
    asked = play_card(st, "doc", "punch", choose=[ghost, K.JEWEL, 1])
    assert [d.kind for d in asked] == ["punch_target", "punch_loot", "punch_direction"]
    assert sorted(asked[0].options) == sorted([ghost, tuco])
    assert asked[1].options == [K.PURSE, K.JEWEL] and asked[2].options == [1, 3]
    assert where(st, "ghost") == (1, "inside")
    assert loot_of(st, "ghost") == [("purse", 300)]
    assert loot_on(st, 2) == [("jewel", 500)]  # dropped where the punch landed, not where he went
    assert where(st, "doc") == (2, "inside")


def test_punch_at_the_locomotive_can_only_push_back():
    # loco(Doc, Ghost inside) | A | B | C(M) | D
    pos = position().marshal(3).place("doc", 0).place("ghost", 0)
    st = pos.place("cheyenne", 4).place("tuco", 4).build()
    assert play_card(st, "doc", "punch") == []  # one target, no loot, one direction
    assert where(st, "ghost") == (1, "inside")


def test_punch_at_the_caboose_can_only_push_forward_on_the_roof():
    # M loco | A | B | C | D(Doc roof, Ghost roof with a purse)
    pos = position().place("doc", 4, "roof").place("ghost", 4, "roof")
    pos.give("ghost", "purse", value=400)
    st = pos.place("cheyenne", 1).place("tuco", 1).build()
    assert play_card(st, "doc", "punch") == []
    assert where(st, "ghost") == (3, "roof")
    assert loot_on(st, 4, "roof") == [("purse", 400)] and loot_of(st, "ghost") == []


def test_punch_on_a_bandit_with_no_loot_still_moves_it():
    # M loco | A | B(Doc, Ghost inside, no loot) | C | D
    pos = position().place("doc", 2).place("ghost", 2).place("cheyenne", 4).place("tuco", 4)
    st = pos.build()
    asked = play_card(st, "doc", "punch", choose=[3])
    assert [d.kind for d in asked] == ["punch_direction"]
    assert where(st, "ghost") == (3, "inside")
    assert loot_on(st, 2) == []


def test_punch_drops_a_random_purse():
    dropped = set()
    for seed in range(24):
        # M loco | A | B(Doc, Ghost with $250 and $500 purses) | C
        pos = Position(players=3, lineup="ghost,cheyenne,doc", cars="ABC", seed=seed).clear_loot()
        pos.place("doc", 2).place("ghost", 2).place("cheyenne", 3)
        pos.give("ghost", "purse", value=250)
        pos.give("ghost", "purse", value=500)
        st = pos.build()
        asked = play_card(st, "doc", "punch", choose=[3])
        assert [d.kind for d in asked] == ["punch_direction"]  # one kind: no loot question
        [(_, value)] = loot_on(st, 2)
        dropped.add(value)
    assert dropped == {250, 500}


@pytest.mark.parametrize("ghost_level", ["roof", None])
def test_punch_with_nobody_on_the_spot_does_nothing(ghost_level):
    # M loco | A | B(Doc inside; Ghost on the roof above, or far away) | C | D
    pos = position().place("doc", 2).place("ghost", 2 if ghost_level else 4, ghost_level or "roof")
    st = pos.place("cheyenne", 4).place("tuco", 4).build()
    assert play_card(st, "doc", "punch") == []
    assert where(st, "ghost") == ((2, "roof") if ghost_level else (4, "roof"))


# --- Marshal --------------------------------------------------------------------------------------
def test_marshal_card_moves_him_one_car_either_way_inside():
    # loco | A | B(M, Doc roof) | C | D    the Marshal never goes up: Doc on his roof is safe
    pos = position().marshal(2).place("doc", 2, "roof").place("ghost", 4)
    st = pos.place("cheyenne", 4).place("tuco", 4).build()
    asked = play_card(st, "doc", "marshal", choose=[1])
    assert asked[0].kind == "marshal" and asked[0].options == [1, 3]
    assert st.game[G_MARSHAL] == 1
    assert where(st, "doc") == (2, "roof") and st.bandit[:, B_NEUTRAL].sum() == 0


def test_marshal_card_at_the_locomotive_can_only_go_back():
    # M loco | A | B | C | D
    pos = position().place("doc", 4).place("ghost", 4).place("cheyenne", 4).place("tuco", 4)
    st = pos.build()
    assert play_card(st, "doc", "marshal") == []
    assert st.game[G_MARSHAL] == 1
