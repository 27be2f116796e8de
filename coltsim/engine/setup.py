"""Setup of a game (RULES.md 2; the 2-player team setup of RULES.md 11)."""
import numpy as np

from .. import constants as K
from .._jit import njit
from ..rules import (
    O_ADVANCED, O_BULLETS, O_CAR_JEWELS, O_CAR_PURSES, O_CARS, O_DECK, O_MARSHAL_CAR,
    O_NEUTRAL_BULLETS, O_ROUND_CARDS,
    O_ROUND_DECK, O_ROUND_DECK_N, O_ROUNDS, O_STATION, O_STATION_DECK, O_STATION_DECK_N,
)
from .log import REC_SETUP, log_row
from .rng import RNG_CHANCE, RNG_SETUP, randint, seed_streams, shuffle
from .rng import N_FIXED_STREAMS
from .state import (
    B_BULLETS, B_CAR, B_CHAR, B_LEVEL, B_TEAM, G_BANDITS, G_CARS, G_FIRST, G_FIRST_FIRST,
    G_GAME_INDEX, G_MARSHAL, G_N_ROUNDS, G_NEUTRAL_LEFT, G_PHASE, G_PLAYERS, G_TRACE, L_KIND,
    L_VALUE, L_WHERE, PH_ROUND_START, Z_DECK, count_loot, make_card, push_card, spot_of,
)

# Regions of st.scratch used by setup (the deal allocates nothing).
_S_FREE = 0  # characters not in the line-up
_S_PICKED = 8  # characters drawn for the random seats
_S_POOL = 16  # passenger cars, then the round deck, to draw from
_S_PURSES = 32  # purse ids the cars draw from

_PURSE_VALUES = np.array(K.PURSE_VALUES, np.int64)
_TEAM_DECK_KINDS = np.array(K.TEAM_DECK_KINDS, np.int64)


@njit(inline="always")
def _draw_distinct(st, pool, n_pool, k, out, offset):
    """``k`` distinct entries of ``pool[:n_pool]`` in random order into ``out[offset:]``."""
    for i in range(k):
        j = i + randint(st.rng, RNG_SETUP, n_pool - i)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
        out[offset + i] = pool[i]


@njit
def _choose_characters(st, lineup):
    """Fixed characters from ``lineup``; -1 entries drawn at random among the unused ones."""
    nb = st.game[G_BANDITS]
    free = st.scratch[_S_FREE:_S_FREE + K.N_CHARACTERS]
    n_free = 0
    for c in range(K.N_CHARACTERS):
        used = False
        for b in range(nb):
            used |= lineup[b] == c
        if not used:
            free[n_free] = c
            n_free += 1
    n_random = 0
    for b in range(nb):
        if lineup[b] < 0:
            n_random += 1
    picked = st.scratch[_S_PICKED:_S_PICKED + K.N_CHARACTERS]
    _draw_distinct(st, free, n_free, n_random, picked, 0)
    k = 0
    for b in range(nb):
        if lineup[b] >= 0:
            st.bandit[b, B_CHAR] = lineup[b]
        else:
            st.bandit[b, B_CHAR] = picked[k]
            k += 1


@njit
def _init_loot(st):
    for t in range(K.N_LOOT):
        st.loot[t, L_WHERE] = K.IN_BOX
    for t in range(2):
        st.loot[K.FIRST_STRONGBOX + t, L_KIND] = K.STRONGBOX
        st.loot[K.FIRST_STRONGBOX + t, L_VALUE] = K.STRONGBOX_VALUE
    for i in range(K.N_PURSES):
        st.loot[K.FIRST_PURSE + i, L_KIND] = K.PURSE
        st.loot[K.FIRST_PURSE + i, L_VALUE] = _PURSE_VALUES[i]
    for i in range(K.N_JEWELS):
        st.loot[K.FIRST_JEWEL + i, L_KIND] = K.JEWEL
        st.loot[K.FIRST_JEWEL + i, L_VALUE] = K.JEWEL_VALUE
    for i in range(K.MAX_BANDITS):
        st.loot[K.FIRST_RANSOM + i, L_KIND] = K.RANSOM
        st.loot[K.FIRST_RANSOM + i, L_VALUE] = K.RANSOM_VALUE
    for i in range(K.N_EXTRA_JEWELS):  # (worth nothing unless a car holds it: car_loot)
        st.loot[K.FIRST_EXTRA_JEWEL + i, L_KIND] = K.JEWEL
    st.loot[K.FIRST_STRONGBOX, L_WHERE] = spot_of(K.LOCO, K.INSIDE)


@njit
def _build_train(st):
    """Cars (fixed or a random subset in random order) with their loot inside (printed, or
    the rules option car_loot)."""
    n_cars = st.game[G_CARS]
    st.cars[:] = -1
    st.cars[0] = K.LOCO
    if st.opts[O_CARS] >= 0:
        for i in range(n_cars):
            st.cars[1 + i] = st.opts[O_CARS + i]
    else:
        pool = st.scratch[_S_POOL:_S_POOL + K.N_PASSENGER_CAR_KINDS]
        for i in range(K.N_PASSENGER_CAR_KINDS):
            pool[i] = i + 1
        _draw_distinct(st, pool, K.N_PASSENGER_CAR_KINDS, n_cars, st.cars, 1)
    # Each bandit's starting $250 purse; the cars draw theirs blind from the other purses.
    nb = st.game[G_BANDITS]
    for b in range(nb):
        st.loot[K.FIRST_PURSE + b, L_WHERE] = K.AT_BANDIT + b
    n_purses = K.N_PURSES - nb
    purses = st.scratch[_S_PURSES:_S_PURSES + n_purses]
    for i in range(n_purses):
        purses[i] = K.FIRST_PURSE + nb + i
    shuffle(st.rng, RNG_SETUP, purses, n_purses)
    next_purse = 0
    next_jewel = 0
    for car in range(1, n_cars + 1):
        inside = spot_of(car, K.INSIDE)
        for _ in range(st.opts[O_CAR_PURSES + st.cars[car]]):
            st.loot[purses[next_purse], L_WHERE] = inside
            next_purse += 1
        for _ in range(st.opts[O_CAR_JEWELS + st.cars[car]]):
            if next_jewel < K.N_JEWELS:
                t = K.FIRST_JEWEL + next_jewel
            else:
                t = K.FIRST_EXTRA_JEWEL + next_jewel - K.N_JEWELS
                st.loot[t, L_VALUE] = K.JEWEL_VALUE
            st.loot[t, L_WHERE] = inside
            next_jewel += 1


@njit
def _seat_bandits(st):
    """Player number k+1 clockwise from the First Player: odd in the caboose, even in front.

    In the 2-player game each player's first bandit starts in the caboose, its second in front."""
    players = st.game[G_PLAYERS]
    nb = st.game[G_BANDITS]
    per = nb // players
    cab = st.game[G_CARS]
    for b in range(nb):
        st.bandit[b, B_TEAM] = b // per
        st.bandit[b, B_LEVEL] = K.INSIDE
        st.bandit[b, B_BULLETS] = st.opts[O_BULLETS + st.bandit[b, B_CHAR]]
        if per == 1:
            k = (b - st.game[G_FIRST]) % players
            st.bandit[b, B_CAR] = cab if k % 2 == 0 else cab - 1
        else:
            st.bandit[b, B_CAR] = cab if b % per == 0 else cab - 1


@njit
def _build_round_deck(st):
    n_rounds = st.opts[O_ROUNDS]
    st.game[G_N_ROUNDS] = n_rounds
    st.rounds[:] = -1
    if st.opts[O_ROUND_CARDS] >= 0:
        for r in range(n_rounds - 1):
            st.rounds[r] = st.opts[O_ROUND_CARDS + r]
    else:  # rounds - 1 cards of the round deck (the printed cards, or the rules' deck)
        n = st.opts[O_ROUND_DECK_N]
        pool = st.scratch[_S_POOL:_S_POOL + n]
        for i in range(n):
            pool[i] = st.opts[O_ROUND_DECK + i]
        _draw_distinct(st, pool, n, n_rounds - 1, st.rounds, 0)
    if st.opts[O_STATION] >= 0:
        st.rounds[n_rounds - 1] = st.opts[O_STATION]
    else:
        st.rounds[n_rounds - 1] = st.opts[O_STATION_DECK + randint(
            st.rng, RNG_SETUP, st.opts[O_STATION_DECK_N])]


@njit
def _build_decks(st):
    """Base game: each player's 10 action cards.  2 players: the shared 11-card team deck."""
    players = st.game[G_PLAYERS]
    per = st.game[G_BANDITS] // players
    st.ncards[:, :] = 0
    for p in range(players):
        if per == 1:  # its bandit's cards of each kind (the printed ten, or the rules' decks)
            deck = O_DECK + st.bandit[p, B_CHAR] * K.N_ACTION_KINDS
            for kind in range(K.N_ACTION_KINDS):
                for _ in range(st.opts[deck + kind]):
                    push_card(st, p, Z_DECK, make_card(kind, p))
        else:
            for i in range(per):
                for kind in _TEAM_DECK_KINDS:
                    push_card(st, p, Z_DECK, make_card(kind, p * per + i))
            push_card(st, p, Z_DECK, make_card(K.MARSHAL, p * per))
        if st.opts[O_ADVANCED] == 1:
            shuffle(st.rng, RNG_CHANCE, st.cards[p, Z_DECK], st.ncards[p, Z_DECK])


@njit
def setup_game(st, seed, game_index, lineup):
    """Reset ``st`` and deal game ``game_index`` of ``seed`` on its table (state.init_table:
    players, rule options, policies).

    ``lineup[b]`` is the character of bandit ``b`` or -1 to draw it at random; its length is the
    number of bandits.  Draws from the setup stream in a fixed order: characters, cars, purses,
    First Player, round cards, station."""
    players = st.game[G_PLAYERS]
    trace = st.game[G_TRACE]
    nb = lineup.shape[0]
    st.game[:] = 0
    st.bandit[:, :] = 0
    st.loot[:, :] = 0
    st.evtok[:] = -1
    st.game[G_PLAYERS] = players
    st.game[G_TRACE] = trace
    st.game[G_BANDITS] = nb
    st.game[G_CARS] = 4 if players == 2 else players
    st.game[G_GAME_INDEX] = game_index
    seed_streams(st.rng, N_FIXED_STREAMS + players, seed, game_index)
    _choose_characters(st, lineup)
    _init_loot(st)
    _build_train(st)
    count_loot(st)
    st.game[G_MARSHAL] = st.opts[O_MARSHAL_CAR]
    st.game[G_NEUTRAL_LEFT] = st.opts[O_NEUTRAL_BULLETS]
    first = randint(st.rng, RNG_SETUP, players)
    st.game[G_FIRST] = first
    st.game[G_FIRST_FIRST] = first
    _seat_bandits(st)
    _build_round_deck(st)
    _build_decks(st)
    st.game[G_PHASE] = PH_ROUND_START
    log_row(st, REC_SETUP, -1, -1, -1, -1)
