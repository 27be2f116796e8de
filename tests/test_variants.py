"""The variants (docs/RULES.md 10 and 11): the advanced rules and the 2-player game."""
import pytest

from coltsim import constants as K
from coltsim.engine import flow
from coltsim.engine.scoring import RB_GUNSLINGER, RB_SHOTS, RG_FAIL
from coltsim.engine.state import (
    B_RECEIVED, B_TEAM, G_CARS, G_PHASE, PH_KEEP, Z_DECK, Z_DISCARD, Z_HAND, make_card,
)
from tests.positions import (
    Position, deal, discards, hand_cards, keeps, loot_of, play_card, scheme, score, where,
)
from coltsim.rules import O_ADVANCED, Rules
from coltsim.setting import make_setting
from coltsim.traces.trace import trace_game
from tests.test_properties import play

ADVANCED = Rules(advanced=True)


def zone(st, p, z):
    return [int(c) for c in st.cards[p, z, :st.ncards[p, z]]]


def names(cards):
    return [K.CARD_NAMES[c & K.CARD_KIND_MASK] for c in cards]


# --- advanced rules -----------------------------------------------------------------------------
def test_advanced_deal_does_not_reshuffle_and_tops_up_the_hand():
    # A stacked deck is drawn from its top, in order; two cards kept from last round stay.
    pos = Position(players=3, lineup="ghost,belle,tuco", rules=ADVANCED)
    pos.hand("ghost", ["marshal", "punch"]).stack("ghost", ["rob", "rob", "fire", "move"])
    st = pos.build()
    deal(st)
    assert hand_cards(st, "ghost") == ["marshal", "punch", "rob", "rob", "fire", "move"]
    assert st.ncards[0, Z_DECK] == 4


def test_advanced_empty_deck_takes_the_shuffled_discard_pile():
    pos = Position(players=3, lineup="ghost,belle,tuco", rules=ADVANCED).first_player(0)
    st = pos.build()
    p = 0
    # Everything but one card of Ghost's deck onto its discard pile.
    while st.ncards[p, Z_DECK] > 1:
        st.ncards[p, Z_DECK] -= 1
        st.cards[p, Z_DISCARD, st.ncards[p, Z_DISCARD]] = st.cards[p, Z_DECK, st.ncards[p, Z_DECK]]
        st.ncards[p, Z_DISCARD] += 1
    deal(st)
    assert st.ncards[p, Z_HAND] == 6            # one from the deck, five from the reshuffled pile
    assert st.ncards[p, Z_DISCARD] == 0 and st.ncards[p, Z_DECK] == 4


def test_advanced_discards_at_the_start_of_schemin():
    pos = Position(players=3, lineup="ghost,belle,tuco", rules=ADVANCED).first_player(1)
    pos.shot("tuco", "belle")
    pos.stack("belle", ["bullet", "move", "move", "fire", "rob", "punch"])
    st = pos.build()
    deal(st)
    bullet = make_card(K.BULLET, 2)
    asked = discards(st, [bullet, flow.OPT_STOP, flow.OPT_STOP, flow.OPT_STOP])
    # Belle (First Player) is asked first: each distinct card once, and stop.
    assert asked[0].player == 1 and flow.OPT_STOP in asked[0].options
    assert sorted(asked[0].options[:-1]) == sorted({bullet, make_card(K.MOVE, 1), make_card(K.FIRE, 1),
                                                   make_card(K.ROB, 1), make_card(K.PUNCH, 1)})
    assert [d.player for d in asked] == [1, 1, 2, 0]
    assert zone(st, 1, Z_DISCARD) == [bullet]
    assert "bullet" not in hand_cards(st, "belle")


def test_advanced_keeps_chosen_cards_and_discards_the_rest_at_the_end_of_schemin():
    pos = Position(players=3, lineup="ghost,belle,tuco", rules=ADVANCED).first_player(0)
    pos.round_card("bridge")
    for who in ("ghost", "belle", "tuco"):
        pos.hand(who, ["move", "floor", "fire", "rob", "punch", "marshal"])
    st = pos.build()
    # Bridge (N D N): everyone plays the first card offered, four plays each.
    scheme(st, lambda d: d.options[0])
    assert st.game[G_PHASE] == PH_KEEP
    kept_before = hand_cards(st, "ghost")
    floor = make_card(K.FLOOR, 0)
    remaining = [c for c in zone(st, 0, Z_HAND)]
    asked = keeps(st, lambda d: (floor if d.player == 0 and floor in d.options
                                 else flow.OPT_STOP))
    assert asked[0].player == 0
    assert zone(st, 0, Z_DISCARD) == ([floor] if floor in remaining else [])
    assert len(hand_cards(st, "ghost")) == len(kept_before) - (floor in remaining)


def test_advanced_resolved_cards_go_to_the_discard_pile_and_bullets_on_top_of_the_deck():
    # loco | A | B(Tuco roof) | C(Belle roof)
    pos = Position(players=3, lineup="ghost,belle,tuco", cars="ABC", rules=ADVANCED)
    pos.place("tuco", 2, "roof").place("belle", 3, "roof").place("ghost", 1, "inside")
    st = pos.build()
    play_card(st, "tuco", "fire")
    assert names(zone(st, 2, Z_DISCARD)) == ["fire"]
    assert zone(st, 1, Z_DECK)[-1] == make_card(K.BULLET, 2)  # face down on top of Belle's deck


def test_advanced_can_draw_from_the_discard_pile_alone():
    pos = Position(players=3, lineup="ghost,belle,tuco", rules=ADVANCED).first_player(0)
    pos.round_card("braking")
    pos.hand("ghost", ["move"])
    st = pos.build()
    while st.ncards[0, Z_DECK]:  # the rest of Ghost's deck to its discard pile
        st.ncards[0, Z_DECK] -= 1
        st.cards[0, Z_DISCARD, st.ncards[0, Z_DISCARD]] = st.cards[0, Z_DECK, st.ncards[0, Z_DECK]]
        st.ncards[0, Z_DISCARD] += 1
    asked = scheme(st, [flow.OPT_DRAW], turns=1)[0]
    assert flow.OPT_DRAW in asked.options
    # The nine discarded cards became the deck; three of them were drawn.
    assert st.ncards[0, Z_HAND] == 4 and st.ncards[0, Z_DECK] == 6 and st.ncards[0, Z_DISCARD] == 0


# --- the 2-player game --------------------------------------------------------------------------
def two_players(bandits="ghost,doc,tuco,belle", **kw):
    return Position(players=2, lineup=bandits, **kw)


def test_two_player_setup():
    st = two_players().build()
    assert st.opts[O_ADVANCED] == 1                       # the advanced rules, always
    assert st.game[G_CARS] == 4                           # four passenger cars
    assert list(st.bandit[:4, B_TEAM]) == [0, 0, 1, 1]
    assert [where(st, b) for b in ("ghost", "doc", "tuco", "belle")] == [
        (4, "inside"), (3, "inside"), (4, "inside"), (3, "inside")]
    for who in ("ghost", "doc", "tuco", "belle"):
        assert loot_of(st, who) == [("purse", 250)]
    for p, (first, second) in enumerate([(0, 1), (2, 3)]):
        deck = zone(st, p, Z_DECK)
        assert len(deck) == 11
        for b in (first, second):
            assert sorted(c & 7 for c in deck if c >> 3 == b) in (
                [K.MOVE, K.FLOOR, K.FIRE, K.ROB, K.PUNCH],
                [K.MOVE, K.FLOOR, K.FIRE, K.ROB, K.PUNCH, K.MARSHAL])
        assert sum(c & 7 == K.MARSHAL for c in deck) == 1


def test_two_player_card_is_performed_by_the_bandit_of_its_colour():
    # loco | A | B | C(Doc) | D(Ghost): Doc's Floor Change lifts Doc, not Ghost.
    st = two_players().place("doc", 3).place("ghost", 4).build()
    play_card(st, "doc", "floor")
    assert where(st, "doc") == (3, "roof") and where(st, "ghost") == (4, "inside")


def test_two_player_friendly_fire_and_bullets_go_to_the_owners_deck():
    # loco | A | B(Ghost) | C(Doc) | D(Tuco, Belle)
    st = two_players().place("ghost", 2).place("doc", 3).place("tuco", 4).place("belle", 4).build()
    asked = play_card(st, "doc", "fire", choose=[0])  # Doc shoots his teammate Ghost
    assert sorted(asked[0].options) == [0, 2]  # Belle hides behind Tuco, as ever
    assert st.bandit[0, B_RECEIVED] == 1
    assert zone(st, 0, Z_DECK)[-1] == make_card(K.BULLET, 1)


def test_two_player_team_score_has_no_gunslinger():
    # Tuco has fired twice, nobody else; Ghost and Doc carry more between them.
    pos = two_players().shot("tuco", "ghost", 2)
    pos.give("doc", "jewel")
    st = pos.build()
    s = score(st)
    assert s["tuco"]["shots"] == 2 and s["tuco"]["gunslinger"] == 0 and s["tuco"]["bonus"] == 0
    assert s["ghost"]["team_score"] == s["doc"]["team_score"] == 250 + 250 + 500
    assert s["ghost"]["win"] == s["doc"]["win"] == 1
    assert s["tuco"]["win"] == s["belle"]["win"] == 0


def test_two_player_team_with_doc_draws_seven():
    st = two_players().build()
    deal(st)
    assert st.ncards[0, Z_HAND] == 7 and st.ncards[1, Z_HAND] == 6


def test_two_player_ghost_face_down_only_for_ghost_cards_on_the_first_turn():
    pos = two_players().first_player(0).round_card("braking")
    ghost_move, doc_move = make_card(K.MOVE, 0), make_card(K.MOVE, 1)
    st = pos.build()
    st.ncards[0, Z_HAND] = 0
    for c in (ghost_move, doc_move):
        st.cards[0, Z_HAND, st.ncards[0, Z_HAND]] = c
        st.ncards[0, Z_HAND] += 1
        remove = list(zone(st, 0, Z_DECK))
        remove.remove(c)
        st.cards[0, Z_DECK, :len(remove)] = remove
        st.ncards[0, Z_DECK] = len(remove)
    asked = scheme(st, [ghost_move | flow.FACE_DOWN], turns=1)[0]
    assert asked.player == 0
    assert set(asked.options) == {ghost_move, ghost_move | flow.FACE_DOWN, doc_move, flow.OPT_DRAW}


# --- many games -------------------------------------------------------------------------------------
@pytest.mark.parametrize("players, rules", [(2, ADVANCED), (3, ADVANCED), (4, ADVANCED),
                                            (5, ADVANCED), (6, ADVANCED)])
def test_variant_invariants_over_many_games(players, rules):
    out_b, out_g = play(players, 10_000, rules)
    assert not out_g[:, RG_FAIL].any()
    if players == 2:
        assert not out_b[:, :, RB_GUNSLINGER].any() and out_b[:, :, RB_SHOTS].any()


def test_two_player_trace_names_teams_and_hand_owners():
    lines = trace_game(make_setting(2, lineup="ghost,doc,tuco,belle"), seed=4)
    assert lines[0]["teams"] == [0, 0, 1, 1] and len(lines[0]["cars"]) == 5
    assert lines[0]["options"]["advanced"] is True
    rnd = next(line for line in lines if line["type"] == "round")
    assert sorted({b for hand in rnd["hand_bandits"] for b in hand}) == [0, 1, 2, 3]
    assert any(line["type"] == "discard" for line in lines)
    end = lines[-1]
    assert len(end["teams"]) == 2 and all(s["bonus"] == 0 for s in end["scores"])
    assert sorted(end["winners"]) in ([0, 1], [2, 3], [0, 1, 2, 3])


