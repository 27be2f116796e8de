"""docs/RULES.md 7: the six bandits' abilities, and the rule options that switch them.

Trains are drawn from the locomotive (car 0) to the caboose; ``M`` marks the Marshal's car."""
import pytest

from coltsim import constants as K
from coltsim.engine import flow
from coltsim.engine.state import B_BULLETS, B_NEUTRAL, B_RECEIVED, Z_HAND
from tests.positions import (
    Position, bandit_id, card_value, deal, loot_of, loot_on, pile_cards, play_card, scheme, steal,
    where,
)

ALL_ABILITIES = K.BANDIT_NAMES


def position(bandits, **rules):
    n = bandits.count(",") + 1
    return Position(players=n, lineup=bandits, cars="ABCDEF"[:n], rules=rules or None).clear_loot()


def received(st, who):
    return int(st.bandit[bandit_id(st, who), B_RECEIVED])


def without(name):
    return tuple(b for b in ALL_ABILITIES if b != name)


def face_down_offered(decision):
    return [o for o in decision.options if o != flow.OPT_DRAW and o & flow.FACE_DOWN]


# --- Ghost ----------------------------------------------------------------------------------------
def ghost_scheme(**rules):
    """Braking (N N N N), Ghost first player, every hand a Move and a Fire."""
    pos = position("ghost,belle,doc", **rules).round_card("braking").first_player(0)
    for who in ("ghost", "belle", "doc"):
        pos.hand(who, ["move", "fire"])
    return pos.build()


def test_ghost_may_play_face_down_on_the_first_turn_only():
    st = ghost_scheme()
    ghost_move_down = card_value(st, "ghost", "move", face_down=True)

    def choose(d):
        return ghost_move_down if ghost_move_down in d.options else d.options[0]

    asked = scheme(st, choose)
    first, second = [d for d in asked if d.player == 0][:2]
    assert sorted(face_down_offered(first)) == sorted(
        [ghost_move_down, card_value(st, "ghost", "fire", face_down=True)])
    assert face_down_offered(second) == []  # the second turn is a plain normal turn
    # Nobody else is offered a face-down play on a normal turn.
    assert all(face_down_offered(d) == [] for d in asked if d.player != 0)
    assert pile_cards(st)[0] == (0, "move", "down")
    assert pile_cards(st)[3] == (0, "fire", "up")


def test_ghosts_face_down_card_still_resolves():
    # loco M | A | B | C(Ghost inside, Belle and Doc roof)
    pos = position("ghost,belle,doc").round_card("braking").first_player(0)
    pos.place("ghost", 3).place("belle", 3, "roof").place("doc", 3, "roof")
    pos.hand("ghost", ["move"]).hand("belle", ["floor"]).hand("doc", ["floor"])
    st = pos.build()
    ghost_move_down = card_value(st, "ghost", "move", face_down=True)
    floors = [card_value(st, who, "floor") for who in ("belle", "doc")]

    def choose(d):
        # Ghost plays its Move face down; the others draw while they can, then Floor Change.
        if ghost_move_down in d.options:
            return ghost_move_down
        return flow.OPT_DRAW if flow.OPT_DRAW in d.options else floors[d.player - 1]

    scheme(st, choose)
    assert pile_cards(st) == [(0, "move", "down"), (1, "floor", "up"), (2, "floor", "up")]
    assert steal(st) == []  # from the caboose a Move inside has one destination
    assert where(st, "ghost") == (2, "inside")
    assert where(st, "belle") == (3, "inside") and where(st, "doc") == (3, "inside")


def test_ghost_loses_the_face_down_play_by_drawing_first():
    st = ghost_scheme()
    ghost_moves = iter([flow.OPT_DRAW, card_value(st, "ghost", "move"), flow.OPT_DRAW,
                        flow.OPT_DRAW])
    asked = scheme(st, lambda d: next(ghost_moves) if d.player == 0 else d.options[0])
    first, second = [d for d in asked if d.player == 0][:2]
    assert face_down_offered(first) and face_down_offered(second) == []
    assert [c for c in pile_cards(st) if c[0] == 0] == [(0, "move", "up")]


def test_ghost_without_its_ability_plays_face_up():
    st = ghost_scheme(abilities=without("ghost"))
    asked = scheme(st, lambda d: d.options[0])
    assert all(face_down_offered(d) == [] for d in asked)


@pytest.mark.parametrize("both_halves, second_half_down", [(False, False), (True, True)])
def test_ghost_on_a_speeding_up_first_turn(both_halves, second_half_down):
    """No round card starts with a D turn, so the option is read off the rule function itself:
    ``plan_options(st, player, letter, turn, half)`` for turn 0 as a D turn."""
    pos = position("ghost,belle,doc", ghost_both_halves=both_halves).hand("ghost", ["move"])
    st = pos.build()
    move, move_down = card_value(st, "ghost", "move"), card_value(st, "ghost", "move", True)
    n = flow.plan_options(st, 0, K.TURN_SPEEDING, 0, 0)
    assert sorted(st.options[:n]) == sorted([move, move_down, flow.OPT_DRAW])
    n = flow.plan_options(st, 0, K.TURN_SPEEDING, 0, 1)
    assert (move_down in list(st.options[:n])) == second_half_down
    # A later D turn is never Ghost's first turn.
    n = flow.plan_options(st, 0, K.TURN_SPEEDING, 1, 0)
    assert move_down not in list(st.options[:n])


def test_ghost_on_bridges_speeding_up_turn_plays_face_up_even_with_both_halves():
    # Bridge is N D N: the D turn is the second turn of the round.
    pos = position("ghost,belle,doc", ghost_both_halves=True).round_card("bridge").first_player(0)
    pos.hand("ghost", ["move", "fire", "rob", "punch"])
    for who in ("belle", "doc"):
        pos.hand(who, ["move", "fire", "rob"])
    st = pos.build()
    asked = scheme(st, lambda d: d.options[0])  # always play, face up
    ghost = [d for d in asked if d.player == 0]
    assert len(ghost) == 4 and face_down_offered(ghost[0])
    assert all(face_down_offered(d) == [] for d in ghost[1:])


# --- Belle ----------------------------------------------------------------------------------------
def test_belle_alone_in_sight_can_be_shot():
    # M loco | A | B(Doc inside) | C(Belle inside) | D(Ghost roof)
    pos = position("ghost,belle,doc,tuco").place("doc", 2).place("belle", 3)
    st = pos.place("ghost", 4, "roof").place("tuco", 4, "roof").build()
    assert play_card(st, "doc", "fire") == []
    assert received(st, "belle") == 1


def test_belle_cannot_be_shot_when_another_bandit_can_be():
    # M loco | A(Ghost inside) | B(Doc inside) | C(Belle inside) | D(Tuco inside)
    pos = position("ghost,belle,doc,tuco").place("doc", 2).place("belle", 3).place("ghost", 1)
    st = pos.place("tuco", 4).build()
    assert play_card(st, "doc", "fire") == []  # Ghost is the only choice left
    assert received(st, "ghost") == 1 and received(st, "belle") == 0


def test_belle_on_the_nearest_roof_hides_the_bandit_behind_her():
    # M loco | A(Doc roof) | B(Belle roof) | C(Ghost roof) | D(Tuco inside)
    # Ghost is out of sight behind Belle, so Belle is Doc's only target.
    pos = position("ghost,belle,doc,tuco").place("doc", 1, "roof").place("belle", 2, "roof")
    st = pos.place("ghost", 3, "roof").place("tuco", 4).build()
    assert play_card(st, "doc", "fire") == []
    assert received(st, "belle") == 1 and received(st, "ghost") == 0


def test_belle_protected_among_several_targets():
    # M loco | A(Ghost roof) | B(Doc roof) | C(Belle roof, Tuco roof) | D
    pos = position("ghost,belle,doc,tuco").place("doc", 2, "roof").place("ghost", 1, "roof")
    st = pos.place("belle", 3, "roof").place("tuco", 3, "roof").build()
    ghost, tuco = bandit_id(st, "ghost"), bandit_id(st, "tuco")
    asked = play_card(st, "doc", "fire", choose=[tuco])
    assert sorted(asked[0].options) == sorted([ghost, tuco])


def test_belle_without_her_ability_is_a_target_like_any_other():
    # M loco | A(Ghost inside) | B(Doc inside) | C(Belle inside) | D(Tuco inside)
    pos = position("ghost,belle,doc,tuco", abilities=without("belle"))
    st = pos.place("doc", 2).place("belle", 3).place("ghost", 1).place("tuco", 4).build()
    belle, ghost = bandit_id(st, "belle"), bandit_id(st, "ghost")
    asked = play_card(st, "doc", "fire", choose=[belle])
    assert sorted(asked[0].options) == sorted([belle, ghost])
    assert received(st, "belle") == 1


def test_belle_cannot_be_punched_when_another_bandit_can_be():
    # M loco | A | B(Doc, Belle, Ghost inside) | C | D(Tuco)
    pos = position("ghost,belle,doc,tuco").place("doc", 2).place("belle", 2).place("ghost", 2)
    st = pos.place("tuco", 4).build()
    asked = play_card(st, "doc", "punch", choose=[3])
    assert [d.kind for d in asked] == ["punch_direction"]  # no target choice: Ghost only
    assert where(st, "ghost") == (3, "inside") and where(st, "belle") == (2, "inside")


def test_belle_alone_on_the_spot_is_punched():
    # M loco | A | B(Doc, Belle inside with a jewel) | C | D(Ghost, Tuco)
    pos = position("ghost,belle,doc,tuco").place("doc", 2).place("belle", 2)
    pos.give("belle", "jewel")
    st = pos.place("ghost", 4).place("tuco", 4).build()
    play_card(st, "doc", "punch", choose=[1])
    assert where(st, "belle") == (1, "inside") and loot_on(st, 2) == [("jewel", 500)]


# --- Cheyenne -------------------------------------------------------------------------------------
@pytest.mark.parametrize("take", [1, 0])
def test_cheyenne_may_keep_the_purse_she_punches_out(take):
    # M loco | A | B(Cheyenne, Ghost with a $450 purse, inside) | C | D(Doc)
    pos = position("ghost,cheyenne,doc").place("cheyenne", 2).place("ghost", 2).place("doc", 3)
    pos.give("ghost", "purse", value=450)
    st = pos.build()
    asked = play_card(st, "cheyenne", "punch", choose=[take, 3])
    assert [d.kind for d in asked] == ["cheyenne", "punch_direction"]
    assert asked[0].options == [1, 0]
    assert where(st, "ghost") == (3, "inside") and loot_of(st, "ghost") == []
    if take:
        assert loot_of(st, "cheyenne") == [("purse", 450)] and loot_on(st, 2) == []
    else:
        assert loot_of(st, "cheyenne") == [] and loot_on(st, 2) == [("purse", 450)]


def test_cheyennes_victim_drops_a_jewel_as_usual():
    # M loco | A | B(Cheyenne, Ghost with a purse and a jewel, inside) | C
    pos = position("ghost,cheyenne,doc").place("cheyenne", 2).place("ghost", 2).place("doc", 3)
    pos.give("ghost", "purse", value=450)
    pos.give("ghost", "jewel")
    st = pos.build()
    asked = play_card(st, "cheyenne", "punch", choose=[K.JEWEL, 1])
    assert [d.kind for d in asked] == ["punch_loot", "punch_direction"]  # no offer to keep
    assert loot_on(st, 2) == [("jewel", 500)] and loot_of(st, "cheyenne") == []
    assert loot_of(st, "ghost") == [("purse", 450)]


def test_cheyenne_without_her_ability_lets_the_purse_fall():
    # M loco | A | B(Cheyenne, Ghost with a purse) | C
    pos = position("ghost,cheyenne,doc", abilities=without("cheyenne"))
    pos.place("cheyenne", 2).place("ghost", 2).place("doc", 3).give("ghost", "purse", value=450)
    st = pos.build()
    asked = play_card(st, "cheyenne", "punch", choose=[3])
    assert [d.kind for d in asked] == ["punch_direction"]
    assert loot_on(st, 2) == [("purse", 450)]


# --- Tuco -----------------------------------------------------------------------------------------
def test_tuco_on_the_roof_may_also_shoot_through_it():
    # M loco | A | B(Tuco roof; Ghost inside below) | C(Doc roof) | D
    pos = position("ghost,tuco,doc").place("tuco", 2, "roof").place("ghost", 2)
    st = pos.place("doc", 3, "roof").build()
    ghost, doc = bandit_id(st, "ghost"), bandit_id(st, "doc")
    asked = play_card(st, "tuco", "fire", choose=[ghost])
    assert sorted(asked[0].options) == sorted([ghost, doc])
    assert received(st, "ghost") == 1


def test_tuco_inside_may_shoot_up_through_the_roof():
    # M loco | A | B(Tuco inside, Doc inside; Ghost roof above) | C
    pos = position("ghost,tuco,doc").place("tuco", 2).place("doc", 2).place("ghost", 2, "roof")
    st = pos.build()
    assert play_card(st, "tuco", "fire") == []  # Ghost above; never Doc on Tuco's own spot
    assert received(st, "ghost") == 1 and received(st, "doc") == 0


def test_tuco_without_his_ability_cannot_shoot_through_the_roof():
    # M loco | A | B(Tuco roof; Ghost inside below) | C(Doc inside)
    pos = position("ghost,tuco,doc", abilities=without("tuco")).place("tuco", 2, "roof")
    st = pos.place("ghost", 2).place("doc", 3).build()
    assert play_card(st, "tuco", "fire") == []
    assert received(st, "ghost") == 0


def test_tucos_shot_through_the_roof_spares_belle_if_another_can_be_hit():
    # M loco | A | B(Tuco roof; Belle inside below) | C(Doc roof) | D(Ghost)
    pos = position("ghost,belle,tuco,doc").place("tuco", 2, "roof").place("belle", 2)
    st = pos.place("doc", 3, "roof").place("ghost", 4).build()
    assert play_card(st, "tuco", "fire") == []
    assert received(st, "doc") == 1 and received(st, "belle") == 0


# --- Django ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("django, target, level, pushed_to, marshal, doc", [
    # loco | A(Django inside) | B(Ghost inside) | C | D(Doc roof): pushed back
    (1, 2, "inside", 3, 0, (4, "roof")),
    # loco | A | B(Ghost inside) | C(Django inside) | D(Doc roof): pushed forward
    (3, 2, "inside", 1, 0, (4, "roof")),
    # loco | A(Ghost roof) | B(Doc inside) | C | D(Django roof): onto the locomotive's roof
    (4, 1, "roof", 0, 0, (2, "inside")),
    # loco | A(Doc roof) | B | C(Django inside) | D(Ghost inside): the caboose, nowhere further
    (3, 4, "inside", 4, 0, (1, "roof")),
    # loco(Ghost inside) | A(Django inside) | B(M, Doc roof) | C | D: the locomotive's front
    (1, 0, "inside", 0, 2, (2, "roof")),
])
def test_django_pushes_his_target_one_car_away(django, target, level, pushed_to, marshal, doc):
    pos = position("ghost,django,doc,cheyenne").marshal(marshal).place("django", django, level)
    st = pos.place("ghost", target, level).place("doc", *doc).place("cheyenne", *doc).build()
    assert play_card(st, "django", "fire") == []
    assert where(st, "ghost") == (pushed_to, level)
    assert received(st, "ghost") == 1


def test_django_pushes_into_the_marshals_car():
    # loco | A(Django inside) | B(Ghost inside) | C(M) | D(Doc, Cheyenne)
    pos = position("ghost,django,doc,cheyenne").marshal(3).place("django", 1).place("ghost", 2)
    st = pos.place("doc", 4).place("cheyenne", 4).build()
    play_card(st, "django", "fire")
    assert where(st, "ghost") == (3, "roof")  # pushed in, fled to the roof
    assert received(st, "ghost") == 1 and st.bandit[bandit_id(st, "ghost"), B_NEUTRAL] == 1


@pytest.mark.parametrize("option, pushed", [(False, False), (True, True)])
def test_django_with_no_bullet_left(option, pushed):
    # M loco | A(Django inside) | B(Ghost inside) | C | D(Doc)
    pos = position("ghost,django,doc,tuco", django_push_without_bullets=option)
    pos.place("django", 1).place("ghost", 2).place("doc", 4).place("tuco", 4)
    st = pos.shot("django", "doc", 6).build()
    play_card(st, "django", "fire")
    assert where(st, "ghost") == ((3 if pushed else 2), "inside")
    assert received(st, "ghost") == 0  # no bullet card either way
    assert st.bandit[bandit_id(st, "django"), B_BULLETS] == 0


def test_django_without_his_ability_does_not_push():
    # M loco | A(Django inside) | B(Ghost inside) | C | D
    pos = position("ghost,django,doc", abilities=without("django")).place("django", 1)
    st = pos.place("ghost", 2).place("doc", 3).build()
    play_card(st, "django", "fire")
    assert where(st, "ghost") == (2, "inside") and received(st, "ghost") == 1


# --- Doc ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rules, doc_cards, others", [
    ({}, 7, 6),
    ({"hand_size": 5, "doc_bonus": 2}, 7, 5),
    ({"abilities": without("doc")}, 6, 6),
])
def test_doc_draws_more_cards_at_the_start_of_a_round(rules, doc_cards, others):
    pos = position("ghost,doc,belle,tuco", **rules)
    st = pos.shot("tuco", "doc", 3).build()  # bullet cards in Doc's deck do not change it
    deal(st)
    assert [int(st.ncards[p, Z_HAND]) for p in range(4)] == [others, doc_cards, others, others]
