"""docs/RULES.md 3 and 4: the course of a round.  The draw, the turn order of the four kinds of
turns, playing or drawing, the forced draw and the forced pass, the end of Schemin', Stealin' in
play order, and the First Player moving on."""
import pytest

from coltsim import constants as K
from coltsim.engine import flow
from coltsim.engine.state import (
    B_BULLETS, B_RECEIVED, B_ROUND_LOOT, G_FIRST, G_PHASE, G_ROUND, G_TURN, PH_OVER,
    PH_ROUND_START, Z_DECK,
    Z_HAND,
)
from tests.positions import (
    Position, bandit_id, deal, hand_cards, pile_cards, run_event, scheme, steal, where,
)

# Ghost last: its face-down option on the first turn only appears in 6-player games.
LINEUP = ("cheyenne", "belle", "tuco", "doc", "django", "ghost")
SIX_CARDS = ["move", "move", "floor", "floor", "fire", "rob"]


def round_of(card, players=4, first=0, cards=SIX_CARDS, **rules):
    """Every player holds ``cards``; ``card`` is the round card; ``first`` is First Player."""
    pos = Position(players=players, lineup=",".join(LINEUP[:players]), cars="ABCDEF"[:players],
                   rules=rules or None)
    pos.round_card(card).first_player(first)
    for p in range(players):
        pos.hand(p, cards)
    return pos


def play_first_card(d):
    return d.options[0]


def players_in_pile(st):
    return [p for p, _, _ in pile_cards(st)]


# --- the draw -------------------------------------------------------------------------------------
def test_each_round_starts_with_a_fresh_hand_of_six_from_the_whole_deck():
    hands = set()
    bullet_drawn = False
    for seed in range(12):
        pos = Position(players=3, lineup="cheyenne,belle,tuco", cars="ABC", seed=seed)
        st = pos.shot("cheyenne", "tuco", 6).build()
        deal(st)
        assert [int(st.ncards[p, Z_HAND]) for p in range(3)] == [6, 6, 6]
        assert [int(st.ncards[p, Z_DECK]) for p in range(3)] == [4, 4, 10]
        hands.add(tuple(hand_cards(st, "tuco")))
        bullet_drawn |= "bullet" in hand_cards(st, "tuco")
    # The deck is shuffled whole, received bullet cards included.
    assert len(hands) > 1 and bullet_drawn


# --- turn order -----------------------------------------------------------------------------------
def test_normal_turns_go_clockwise_from_the_first_player():
    st = round_of("braking", first=2).build()  # N N N N
    asked = scheme(st, play_first_card)
    assert [d.player for d in asked] == [2, 3, 0, 1] * 4
    assert players_in_pile(st) == [2, 3, 0, 1] * 4
    assert {face for _, _, face in pile_cards(st)} == {"up"}


def test_a_switching_turn_goes_counter_clockwise_from_the_first_player():
    st = round_of("angry_marshal", first=2).build()  # N N T S
    scheme(st, play_first_card)
    assert players_in_pile(st) == [2, 3, 0, 1] * 3 + [2, 1, 0, 3]


def test_a_tunnel_turn_is_played_face_down():
    st = round_of("angry_marshal", first=2).build()  # N N T S
    asked = scheme(st, play_first_card)
    tunnel = asked[8:12]
    for d in tunnel:
        assert all(o == flow.OPT_DRAW or o & flow.FACE_DOWN for o in d.options)
    faces = [face for _, _, face in pile_cards(st)]
    assert faces == ["up"] * 8 + ["down"] * 4 + ["up"] * 4


def test_a_speeding_up_turn_gives_each_player_two_turns_in_a_row():
    st = round_of("bridge", first=1).build()  # N D N
    scheme(st, play_first_card)
    assert players_in_pile(st) == [1, 2, 3, 0] + [1, 1, 2, 2, 3, 3, 0, 0] + [1, 2, 3, 0]


def test_the_two_halves_of_a_speeding_up_turn_are_separate_choices():
    st = round_of("bridge", first=1).build()  # N D N
    seen = {p: 0 for p in range(4)}

    def choose(d):
        seen[d.player] += 1
        # Player 1 draws on the first half of the D turn (its second decision), then plays.
        return flow.OPT_DRAW if (d.player, seen[d.player]) == (1, 2) else d.options[0]

    scheme(st, choose)
    assert players_in_pile(st) == [1, 2, 3, 0] + [1, 2, 2, 3, 3, 0, 0] + [1, 2, 3, 0]


@pytest.mark.parametrize("players, card, first, order", [
    (5, "angry_marshal", 3, [3, 4, 0, 1, 2] * 2 + [3, 2, 1, 0, 4]),  # N N S
    (6, "take_it_all", 0, [0, 1, 2, 3, 4, 5] + [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
     + [0, 5, 4, 3, 2, 1]),  # N D S
    (5, "passengers_rebellion", 4, [4, 0, 1, 2, 3] * 3 + [4, 3, 2, 1, 0]),  # N T N S
])
def test_turns_of_the_five_and_six_player_round_cards(players, card, first, order):
    st = round_of(card, players=players, first=first).build()
    scheme(st, play_first_card)
    assert players_in_pile(st) == order


# docs/RULES.md 3, copied from the table (not from the engine's constants): turns for 2-4
# players and for 5-6 players.
ROUND_TABLE = {
    "angry_marshal": ("NNTS", "NNS"),
    "swivel_arm": ("NTNN", "NTN"),
    "braking": ("NNNN", "NTNN"),
    "take_it_all": ("NTDN", "NDS"),
    "passengers_rebellion": ("NNTNN", "NTNS"),
    "tunnel": ("NTNTN", "NTNT"),
    "bridge": ("NDN", "ND"),
    "marshals_revenge": ("NNTN", "NNTN"),
    "pickpocketing": ("NNTN", "NNTN"),
    "hostage_taking": ("NNTN", "NNTN"),
}


def expected_pile(turns, players, first):
    """(player, face) of every play when everybody always plays."""
    out = []
    for letter in turns:
        seats = [(first + k) % players for k in range(players)]
        if letter == "S":
            seats = [(first - k) % players for k in range(players)]
        if letter == "D":
            seats = [p for p in seats for _ in (0, 1)]
        out += [(p, "down" if letter == "T" else "up") for p in seats]
    return out


@pytest.mark.parametrize("players", [3, 5])
@pytest.mark.parametrize("card", sorted(ROUND_TABLE))
def test_every_round_card_has_the_turns_of_the_rules_table(card, players):
    first = 1
    st = round_of(card, players=players, first=first).build()
    scheme(st, play_first_card)
    turns = ROUND_TABLE[card][players >= 5]
    assert [(p, face) for p, _, face in pile_cards(st)] == expected_pile(turns, players, first)


# --- playing or drawing ---------------------------------------------------------------------------
def test_drawing_takes_the_top_three_cards_of_the_deck():
    pos = round_of("braking", players=3, cards=["move"]).stack(0, ["punch", "marshal", "rob"])
    st = pos.build()
    asked = scheme(st, [flow.OPT_DRAW, flow.OPT_DRAW, flow.OPT_DRAW], turns=1)
    assert asked[0].options == [K.MOVE, flow.OPT_DRAW]  # player 0's own Move (bandit 0)
    assert hand_cards(st, 0) == ["move", "punch", "marshal", "rob"]
    assert int(st.ncards[0, Z_DECK]) == 6


def test_drawing_takes_fewer_cards_when_fewer_remain():
    cards = ["move", "move", "floor", "floor", "fire", "fire", "rob", "rob"]
    st = round_of("braking", players=3, cards=cards).build()
    scheme(st, [flow.OPT_DRAW] * 3, turns=1)
    assert len(hand_cards(st, 0)) == 10 and int(st.ncards[0, Z_DECK]) == 0


def test_draw_count_option():
    st = round_of("braking", players=3, cards=["move"], draw_count=2).build()
    scheme(st, [flow.OPT_DRAW] * 3, turns=1)
    assert [len(hand_cards(st, p)) for p in range(3)] == [3, 3, 3]


def test_bullet_cards_cannot_be_played():
    pos = round_of("braking", players=3, cards=["move"]).shot("tuco", "cheyenne")
    st = pos.hand("cheyenne", ["bullet"]).build()
    asked = scheme(st, [flow.OPT_DRAW] * 3, turns=1)
    assert asked[0].player == 0 and asked[0].options == [K.MOVE, flow.OPT_DRAW]


def test_a_hand_of_bullets_must_draw():
    # Cheyenne (player 0, first) holds only two bullet cards: she draws without being asked.
    pos = Position(players=3, lineup="cheyenne,belle,tuco", cars="ABC").round_card("braking")
    pos.first_player(0).shot("tuco", "cheyenne", 2).hand("cheyenne", ["bullet", "bullet"])
    pos.stack("cheyenne", ["fire", "rob", "punch"])
    st = pos.hand("belle", ["move"]).hand("tuco", ["move"]).build()
    asked = scheme(st, [flow.OPT_DRAW, flow.OPT_DRAW], turns=1)
    assert [d.player for d in asked] == [1, 2]
    assert hand_cards(st, "cheyenne") == ["bullet", "bullet", "fire", "rob", "punch"]


def test_a_player_who_can_neither_play_nor_draw_passes():
    """Not reachable with the base game's 10 action cards and at most 5 plays a round (all ten
    would have to be on the pile already), so the position is forced: Cheyenne's action cards
    are all on the pile, her hand is two bullet cards and her deck is empty."""
    pos = Position(players=3, lineup="cheyenne,belle,tuco", cars="ABC").round_card("braking")
    pos.first_player(0).on_pile("cheyenne", list(K.CARD_NAMES[k] for k in K.ACTION_DECK))
    pos.shot("tuco", "cheyenne", 2).hand("cheyenne", ["bullet", "bullet"])
    st = pos.hand("belle", ["move"]).hand("tuco", ["move"]).build()
    assert st.ncards[0, Z_DECK] == 0
    asked = scheme(st, play_first_card, turns=1)
    assert [d.player for d in asked] == [1, 2]  # Cheyenne was skipped
    assert players_in_pile(st) == [0] * 10 + [1, 2]
    assert hand_cards(st, "cheyenne") == ["bullet", "bullet"]


# --- end of Schemin' and Stealin' -----------------------------------------------------------------
def test_cards_left_in_hand_go_back_on_top_of_the_deck():
    # Cheyenne plays her first card on each of the four turns and keeps Marshal and Floor Change.
    pos = round_of("braking", players=3, cards=["move", "fire", "rob", "punch", "marshal", "floor"])
    st = pos.build()
    scheme(st, play_first_card)
    assert [c for p, c, _ in pile_cards(st) if p == 0] == ["move", "fire", "rob", "punch"]
    assert all(st.ncards[p, Z_HAND] == 0 for p in range(3))
    assert int(st.ncards[0, Z_DECK]) == 6
    top_two = [K.CARD_NAMES[c & K.CARD_KIND_MASK] for c in st.cards[0, Z_DECK, 4:6]]
    assert top_two == ["marshal", "floor"]


def test_stealin_resolves_in_play_order_against_the_position_as_it_is_then():
    # M loco | A(Tuco roof) | B(Cheyenne inside) | C(Belle inside)
    # Cheyenne's Move is played before Belle's Fire: when the Fire resolves Cheyenne has left
    # car B, so Belle has nobody to shoot and her card does nothing.
    pos = Position(players=3, lineup="cheyenne,belle,tuco", cars="ABC").round_card("braking")
    pos.first_player(0).place("cheyenne", 2).place("belle", 3).place("tuco", 1, "roof")
    pos.hand("cheyenne", ["move"]).hand("belle", ["fire"]).hand("tuco", ["floor"])
    st = pos.build()
    # Each plays its one card on the first turn, then draws.
    scheme(st, lambda d: d.options[0] if st.game[G_TURN] == 0 else flow.OPT_DRAW)
    assert pile_cards(st) == [(0, "move", "up"), (1, "fire", "up"), (2, "floor", "up")]
    asked = steal(st, choose=[1])
    assert [(d.player, d.kind) for d in asked] == [(0, "move")]
    assert where(st, "cheyenne") == (1, "inside")
    assert st.bandit[bandit_id(st, "belle"), B_BULLETS] == 6
    assert st.bandit[:, B_RECEIVED].sum() == 0
    assert where(st, "tuco") == (1, "inside")
    # Every card is back in its owner's deck.
    assert [int(st.ncards[p, Z_DECK]) for p in range(3)] == [10, 10, 10]


# --- the end of a round ---------------------------------------------------------------------------
@pytest.mark.parametrize("card", ["tunnel", "bridge"])
def test_after_the_event_the_next_player_becomes_first_player(card):
    # loco M | A(Cheyenne roof) | B(Belle inside) | C(Tuco roof)
    pos = Position(players=3, lineup="cheyenne,belle,tuco", cars="ABC").first_player(2)
    pos.place("cheyenne", 1, "roof").place("belle", 2).place("tuco", 3, "roof")
    st = pos.round_card(card, 1).build()
    bandits, loot = st.bandit.copy(), st.loot.copy()
    assert run_event(st, card) == []
    assert st.game[G_FIRST] == 0 and st.game[G_ROUND] == 2
    assert st.game[G_PHASE] == PH_ROUND_START
    # No event on these cards: the bandits and the loot are as they were (the round's score
    # is recorded, coltsim.results' score_after_r).
    assert (st.bandit[:, :B_ROUND_LOOT] == bandits[:, :B_ROUND_LOOT]).all()
    assert (st.loot == loot).all()
    assert (st.bandit[:3, B_ROUND_LOOT + 1] == K.PURSE_VALUES[0]).all()  # the starting purses


def test_the_game_ends_after_the_fifth_round():
    pos = Position(players=3, lineup="cheyenne,belle,tuco", cars="ABC")
    st = pos.round_card("hostage_taking", 4).build()
    run_event(st, "hostage_taking")
    assert st.game[G_PHASE] == PH_OVER
