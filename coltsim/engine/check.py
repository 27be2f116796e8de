"""Invariants of a legal position, checked by a checking driver whenever a card or an event has
resolved (``G_CHECKPOINT`` grew: playout.play_out, positions.py).

``check_invariants`` returns 0, or the CHECK_* code of the first invariant broken.
"""
from .. import constants as K
from .._jit import njit
from ..rules import O_DECK, O_NEUTRAL_BULLETS
from .state import (
    B_CAR, B_CHAR, B_LEVEL, B_NEUTRAL, B_RECEIVED, B_TEAM, G_BANDITS, G_CARS, G_MARSHAL,
    G_NEUTRAL_LEFT, G_NEUTRAL_REMOVED, G_PHASE, G_PILE_N, G_PLAYERS, G_POS, L_WHERE, N_ZONES,
    L_KIND, L_VALUE, N_PLACES, PH_DISCARD, PH_KEEP, PH_SCHEME, PH_STEAL, PILE_CARD,
    PILE_PLAYER, card_kind, card_owner, place, shots_fired,
)

CHECK_OK = 0
CHECK_POSITION = 1  # a bandit or the Marshal off the train
CHECK_MARSHAL_CAR = 2  # a bandit inside the Marshal's car
CHECK_LOOT_PLACE = 3  # a loot token nowhere valid
CHECK_BULLETS = 4  # a bandit's bullet cards not conserved (left + fired != 6)
CHECK_NEUTRAL = 5  # neutral bullets not conserved
CHECK_CARDS = 6  # action cards lost, duplicated or in the wrong player's zones
CHECK_RECEIVED = 7  # bullet cards in a player's zones differ from what its bandits received
CHECK_LOOT_TABLES = 8  # held / held_value differ from where the tokens are
CHECK_NAMES = ("ok", "position", "marshal_car", "loot_place", "bullets", "neutral", "cards",
               "received", "loot_tables")


_HELD = 4 * K.MAX_BANDITS  # scratch: a copy of held, then of held_value, for the recount
_VALUE = _HELD + N_PLACES * K.N_LOOT_KINDS


@njit
def _loot_tables_match(st):
    """``held`` and ``held_value`` say what ``loot`` says: take every token off a copy of them,
    and nothing must be left."""
    held = st.scratch[_HELD:_VALUE]
    value = st.scratch[_VALUE:_VALUE + N_PLACES]
    for q in range(N_PLACES):
        value[q] = st.held_value[q]
        for k in range(K.N_LOOT_KINDS):
            held[q * K.N_LOOT_KINDS + k] = st.held[q, k]
    for t in range(K.N_LOOT):
        q = place(st.loot[t, L_WHERE])
        held[q * K.N_LOOT_KINDS + st.loot[t, L_KIND]] -= 1
        value[q] -= st.loot[t, L_VALUE]
    for i in range(N_PLACES * K.N_LOOT_KINDS):
        if held[i] != 0:
            return False
    for q in range(N_PLACES):
        if value[q] != 0:
            return False
    return True


@njit
def check_invariants(st):
    nb = st.game[G_BANDITS]
    players = st.game[G_PLAYERS]
    cab = st.game[G_CARS]
    marshal = st.game[G_MARSHAL]
    if marshal < 0 or marshal > cab:
        return CHECK_POSITION
    for b in range(nb):
        car = st.bandit[b, B_CAR]
        level = st.bandit[b, B_LEVEL]
        if car < 0 or car > cab or (level != K.INSIDE and level != K.ROOF):
            return CHECK_POSITION
        if car == marshal and level == K.INSIDE:
            return CHECK_MARSHAL_CAR
    for t in range(K.N_LOOT):
        w = st.loot[t, L_WHERE]
        if not (w == K.IN_BOX or 0 <= w < 2 * (cab + 1) or K.AT_BANDIT <= w < K.AT_BANDIT + nb):
            return CHECK_LOOT_PLACE
    if not _loot_tables_match(st):
        return CHECK_LOOT_TABLES
    # Count every card of every zone; the pile holds cards not yet resolved.  Four tables
    # per bandit or player, in the state's scratch.
    fired = st.scratch[0:K.MAX_BANDITS]
    actions = st.scratch[K.MAX_BANDITS:2 * K.MAX_BANDITS]
    bullets_held = st.scratch[2 * K.MAX_BANDITS:3 * K.MAX_BANDITS]
    received = st.scratch[3 * K.MAX_BANDITS:4 * K.MAX_BANDITS]
    st.scratch[:4 * K.MAX_BANDITS] = 0
    neutral_cards = 0
    for p in range(players):
        for z in range(N_ZONES):
            for i in range(st.ncards[p, z]):
                c = st.cards[p, z, i]
                if card_kind(c) == K.BULLET:
                    bullets_held[p] += 1
                    if card_owner(c) == K.NEUTRAL:
                        neutral_cards += 1
                    else:
                        fired[card_owner(c)] += 1
                else:
                    if st.bandit[card_owner(c), B_TEAM] != p:
                        return CHECK_CARDS
                    actions[p] += 1
    # Pile cards are unresolved while it is built (Schemin') and until resolved (Stealin').
    phase = st.game[G_PHASE]
    unresolved = st.game[G_PILE_N]
    if phase == PH_STEAL:
        unresolved = st.game[G_POS]
    elif phase == PH_DISCARD or phase == PH_SCHEME or phase == PH_KEEP:
        unresolved = 0
    for i in range(unresolved, st.game[G_PILE_N]):
        c = st.pile[i, PILE_CARD]
        if card_kind(c) == K.BULLET or st.bandit[card_owner(c), B_TEAM] != st.pile[i, PILE_PLAYER]:
            return CHECK_CARDS
        actions[st.pile[i, PILE_PLAYER]] += 1
    per = nb // players
    neutral_given = 0
    for b in range(nb):
        if fired[b] != shots_fired(st, b):
            return CHECK_BULLETS
        received[st.bandit[b, B_TEAM]] += st.bandit[b, B_RECEIVED] + st.bandit[b, B_NEUTRAL]
        neutral_given += st.bandit[b, B_NEUTRAL]
    for p in range(players):
        expected = len(K.TEAM_DECK_KINDS) * per + 1
        if per == 1:  # its bandit's action cards (rules option decks)
            expected = 0
            for k in range(K.N_ACTION_KINDS):
                expected += st.opts[O_DECK + st.bandit[p, B_CHAR] * K.N_ACTION_KINDS + k]
        if actions[p] != expected:
            return CHECK_CARDS
        if bullets_held[p] != received[p]:
            return CHECK_RECEIVED
    if neutral_cards != neutral_given:
        return CHECK_NEUTRAL
    supply = st.opts[O_NEUTRAL_BULLETS]
    if supply >= 0 and st.game[G_NEUTRAL_LEFT] + st.game[G_NEUTRAL_REMOVED] + neutral_given != supply:
        return CHECK_NEUTRAL
    return CHECK_OK
