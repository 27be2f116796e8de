"""What a player may know (the observation) and worlds consistent with it (determinisation).

The observation is a state (engine/state.py), filled by ``observe(st, player, obs)`` with only
what ``player`` may know, so every query of the engine and of view.py works on it unchanged:

=================  ===============================================================================
kept as is         the game scalars (sizes, Marshal, round, phase, pending decision, registers of
                   the card being resolved), every bandit's row (spot, bullets left and
                   received), the train, where every loot token lies and its kind, card counts of
                   every zone of every player, discard piles (face up), face-up pile cards, the
                   rule options, the legal options of the pending decision, everybody's policy id
hidden (-1)        other players' hand and deck cards; other players' face-down pile cards not yet
                   revealed; round cards after the current one (the station card too); the value
                   of every purse that ``player``'s bandits do not carry; the game index
anonymised      purse token ids: purses are renumbered by where they lie (then by known value),
                   so an id says nothing about a value; ids may change between decisions
own                ``player``'s hand, face-down cards and purse values; its deck's composition
                   (sorted: the order is unknown); its parameter row (other rows are zero)
empty              random streams (a policy gets its own stream as an argument), trace notes and
                   the scratch of setup and scoring (left as they were in ``obs``)
=================  ===============================================================================

``sample_world(obs, rng, worlds, i)`` fills ``worlds[i]`` with a complete game consistent with ``obs``:
the unknown cards of each other player (its cards minus those seen) dealt at random to its
hidden pile slots (action cards only), hand and deck; the player's own deck shuffled; the
hidden purse values (all purses minus the player's) dealt to the hidden purses; the future round
cards drawn from those not yet seen (unless the rules fix them); fresh random streams.  Every
draw comes from ``rng``, the deciding player's own stream, and the world depends only on ``obs``
and ``rng``: a search policy built on it cannot read the true hidden values.  Approximations:
the shooters of bullet cards in other players' hidden zones are assigned in a fixed order (a
bullet's shooter never changes play), and cards whose place in another player's deck is public
(advanced rules: bullets put on top of the deck) are dealt at random within the deck.
"""
import numpy as np

from .. import constants as K
from .._jit import njit
from ..rules import (
    MAX_ROUND_DECK, O_ADVANCED, O_DECK, O_ROUND_CARDS, O_ROUND_DECK, O_ROUND_DECK_N, O_STATION,
    O_STATION_DECK, O_STATION_DECK_N,
)
from ..engine.rng import next_u64, randint, shuffle
from ..engine.rng import N_FIXED_STREAMS
from ..engine.state import (
    B_CHAR, B_NEUTRAL, B_RECEIVED, B_TEAM, G_BANDITS, G_GAME_INDEX, G_N_ROUNDS,
    G_PEND_N, G_PEND_PLAYER, G_PHASE, G_PILE_N, G_PLAYERS, G_POS, G_REC_N, G_ROUND, G_T_TOKEN,
    G_TRACE, L_KIND, L_VALUE, L_WHERE, N_ZONES, PH_EVENT, PH_OVER, PH_ROUND_START, PH_STEAL,
    PILE_CARD, PILE_DOWN, PILE_N, PILE_PLAYER, Z_DECK, Z_DISCARD, Z_HAND, card_kind, card_owner,
    copy_state, count_loot, make_card, shots_fired,
)

UNKNOWN = -1

_PURSE_VALUES = np.array(sorted(K.PURSE_VALUES), np.int64)
_TEAM_DECK_KINDS = np.array(K.TEAM_DECK_KINDS, np.int64)


@njit(inline="always")
def pile_revealed(st, i):
    """True once pile card ``i`` is known to everybody (face up, or turned over in Stealin')."""
    phase = st.game[G_PHASE]
    if st.pile[i, PILE_DOWN] == 0:
        return True
    if phase == PH_STEAL:
        return i <= st.game[G_POS]
    return phase == PH_EVENT or phase == PH_OVER


@njit(inline="always")
def pile_resolved(st, i):
    """True once pile card ``i`` has been resolved (and gone back to its owner's cards)."""
    phase = st.game[G_PHASE]
    if phase == PH_STEAL:
        return i < st.game[G_POS]
    return phase == PH_EVENT or phase == PH_OVER


@njit(inline="always")
def last_revealed_round(st):
    """The last round whose card is face up (-1 before the first round starts)."""
    r = st.game[G_ROUND]
    return r - 1 if st.game[G_PHASE] == PH_ROUND_START else r


@njit(inline="always")
def _purse_key(st, player, t):
    """Sort key of purse token ``t`` in an observation: where it lies, then its value if known."""
    w = st.loot[t, L_WHERE]
    known = w >= K.AT_BANDIT and st.bandit[w - K.AT_BANDIT, B_TEAM] == player
    return (w + 2) * 1024 + (st.loot[t, L_VALUE] if known else 0), known


@njit
def _purse_rank(st, player, t):
    """Position of purse ``t`` among all purses ordered by ``_purse_key`` (ties by id)."""
    key, _ = _purse_key(st, player, t)
    r = 0
    for u in range(K.FIRST_PURSE, K.FIRST_PURSE + K.N_PURSES):
        ku, _ = _purse_key(st, player, u)
        if ku < key or (ku == key and u < t):
            r += 1
    return r


@njit
def _anonymous_token(st, player, t):
    """The id token ``t`` has in ``player``'s observation."""
    if t < K.FIRST_PURSE or t >= K.FIRST_PURSE + K.N_PURSES:
        return t
    return K.FIRST_PURSE + _purse_rank(st, player, t)


@njit
def _sort(a, n):
    """Insertion sort of ``a[:n]`` (short arrays)."""
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(inline="always")
def _copy(dst, src, n):
    """``dst[:n] = src[:n]`` by a loop (a slice copy would compile numba's shape checks)."""
    for i in range(n):
        dst[i] = src[i]


@njit
def observe(st, player, obs):
    """Fill ``obs`` (a scratch state) with what ``player`` may know of ``st``."""
    _copy(obs.game, st.game, st.game.shape[0])
    obs.game[G_GAME_INDEX] = 0
    obs.game[G_TRACE] = 0
    obs.game[G_REC_N] = 0
    t = st.game[G_T_TOKEN]
    obs.game[G_T_TOKEN] = _anonymous_token(st, player, t) if t >= 0 else t
    for b in range(st.bandit.shape[0]):
        _copy(obs.bandit[b], st.bandit[b], st.bandit.shape[1])
    # Loot: every token's kind and place; purses renumbered, values only of the player's own.
    for t in range(K.N_LOOT):
        if t < K.FIRST_PURSE or t >= K.FIRST_PURSE + K.N_PURSES:
            obs.loot[t, L_KIND] = st.loot[t, L_KIND]
            obs.loot[t, L_VALUE] = st.loot[t, L_VALUE]
            obs.loot[t, L_WHERE] = st.loot[t, L_WHERE]
    for t in range(K.FIRST_PURSE, K.FIRST_PURSE + K.N_PURSES):
        row = K.FIRST_PURSE + _purse_rank(st, player, t)
        _, known = _purse_key(st, player, t)
        obs.loot[row, L_KIND] = K.PURSE
        obs.loot[row, L_VALUE] = st.loot[t, L_VALUE] if known else UNKNOWN
        obs.loot[row, L_WHERE] = st.loot[t, L_WHERE]
    count_loot(obs)  # what lies where is public; held_value is exact only for its own bandits
    for b in range(st.evtok.shape[0]):
        t = st.evtok[b]
        obs.evtok[b] = _anonymous_token(st, player, t) if t >= 0 else t
    _copy(obs.cars, st.cars, st.cars.shape[0])
    r = last_revealed_round(st)
    for i in range(st.rounds.shape[0]):
        obs.rounds[i] = st.rounds[i] if i <= r else UNKNOWN
    # Cards: own zones (deck sorted: its order is unknown), others' discards; the rest hidden.
    for q in range(st.ncards.shape[0]):
        _copy(obs.ncards[q], st.ncards[q], N_ZONES)
    obs.cards[:, :, :] = UNKNOWN
    for q in range(st.game[G_PLAYERS]):
        for z in range(N_ZONES):
            n = st.ncards[q, z]
            if q == player or z == Z_DISCARD:
                _copy(obs.cards[q, z], st.cards[q, z], n)
        if q == player:
            _sort(obs.cards[q, Z_DECK], st.ncards[q, Z_DECK])
    obs.pile[:, :] = UNKNOWN
    for i in range(st.game[G_PILE_N]):
        for f in range(PILE_N):
            obs.pile[i, f] = st.pile[i, f]
        if st.pile[i, PILE_PLAYER] != player and not pile_revealed(st, i):
            obs.pile[i, PILE_CARD] = UNKNOWN
    n = st.game[G_PEND_N]
    obs.options[:] = UNKNOWN
    _copy(obs.options, st.options, n)
    _copy(obs.seat_policy, st.seat_policy, st.seat_policy.shape[0])
    obs.params[:, :] = 0.0
    _copy(obs.params[player], st.params[player], st.params.shape[1])
    _copy(obs.opts, st.opts, st.opts.shape[0])
    obs.rng[:, :] = 0


# --- determinisation ------------------------------------------------------------------------------
@njit
def _sample_purses(obs, rng, world, values):
    """Deal the values of the purses ``obs`` does not know (all purses minus its own) to them
    (``values``: scratch of ``N_PURSES``)."""
    values[:] = _PURSE_VALUES
    for t in range(K.FIRST_PURSE, K.FIRST_PURSE + K.N_PURSES):
        v = obs.loot[t, L_VALUE]
        if v >= 0:
            for i in range(values.shape[0]):
                if values[i] == v:
                    values[i] = UNKNOWN
                    break
    m = 0
    for i in range(values.shape[0]):
        if values[i] >= 0:
            values[m] = values[i]
            m += 1
    shuffle(rng, 0, values, m)
    k = 0
    for t in range(K.FIRST_PURSE, K.FIRST_PURSE + K.N_PURSES):
        if obs.loot[t, L_VALUE] < 0:
            world.loot[t, L_VALUE] = values[k]
            k += 1


@njit
def _sample_rounds(obs, rng, world, unseen):
    """Round cards after the current one: fixed by the rules, or drawn from the cards of the
    round deck not yet seen (``unseen``: scratch of ``MAX_ROUND_DECK``)."""
    r = last_revealed_round(obs)
    n_rounds = obs.game[G_N_ROUNDS]
    m = obs.opts[O_ROUND_DECK_N]
    for j in range(m):
        unseen[j] = obs.opts[O_ROUND_DECK + j]
    for i in range(min(r + 1, n_rounds - 1)):  # each card seen takes one of its copies out
        for j in range(m):
            if unseen[j] == obs.rounds[i]:
                for k in range(j, m - 1):
                    unseen[k] = unseen[k + 1]
                m -= 1
                break
    for i in range(r + 1, n_rounds):
        if i == n_rounds - 1:
            if obs.opts[O_STATION] >= 0:
                world.rounds[i] = obs.opts[O_STATION]
            else:
                world.rounds[i] = obs.opts[O_STATION_DECK + randint(
                    rng, 0, obs.opts[O_STATION_DECK_N])]
        elif obs.opts[O_ROUND_CARDS] >= 0:
            world.rounds[i] = obs.opts[O_ROUND_CARDS + i]
        else:
            j = randint(rng, 0, m)
            world.rounds[i] = unseen[j]
            m -= 1
            unseen[j] = unseen[m]


@njit
def _own_cards(obs, q, count):
    """Multiset (``count[card]``) of every action card of player ``q`` (setup.py's decks)."""
    players = obs.game[G_PLAYERS]
    per = obs.game[G_BANDITS] // players
    count[:] = 0
    if per == 1:  # its bandit's cards of each kind (rules option decks)
        deck = O_DECK + obs.bandit[q, B_CHAR] * K.N_ACTION_KINDS
        for kind in range(K.N_ACTION_KINDS):
            count[make_card(kind, q)] += obs.opts[deck + kind]
    else:
        for i in range(per):
            for kind in _TEAM_DECK_KINDS:
                count[make_card(kind, q * per + i)] += 1
        count[make_card(K.MARSHAL, q * per)] += 1


@njit
def _bullets_fired_unseen(obs, player, fired):
    """Bullet cards of each shooter not in a zone ``player`` sees (its own zones, discards)."""
    nb = obs.game[G_BANDITS]
    for b in range(nb):
        fired[b] = shots_fired(obs, b)
    for q in range(obs.game[G_PLAYERS]):
        for z in range(N_ZONES):
            if q == player or z == Z_DISCARD:
                for i in range(obs.ncards[q, z]):
                    c = obs.cards[q, z, i]
                    if card_kind(c) == K.BULLET and card_owner(c) != K.NEUTRAL:
                        fired[card_owner(c)] -= 1


@njit
def _deal_hidden_cards(obs, rng, world, q, count, fired, pool, rest):
    """Deal player ``q``'s unknown cards to its hidden pile slots, hand and deck in ``world``."""
    base_rules = obs.opts[O_ADVANCED] == 0
    _own_cards(obs, q, count)
    # Cards of q seen somewhere: its discard pile, revealed pile cards still on the pile, and
    # (base rules) resolved pile cards, which went back into its deck.
    for i in range(obs.ncards[q, Z_DISCARD]):
        c = obs.cards[q, Z_DISCARD, i]
        if card_kind(c) != K.BULLET:
            count[c] -= 1
    known_in_deck = 0
    for i in range(obs.game[G_PILE_N]):
        c = obs.pile[i, PILE_CARD]
        if obs.pile[i, PILE_PLAYER] != q or c == UNKNOWN:
            continue
        if pile_resolved(obs, i):
            if base_rules:
                count[c] -= 1
                world.cards[q, Z_DECK, known_in_deck] = c
                known_in_deck += 1
        else:
            count[c] -= 1
    # The unknown action cards in a canonical order, then shuffled.
    n = 0
    for c in range(count.shape[0]):
        for _ in range(count[c]):
            pool[n] = c
            n += 1
    shuffle(rng, 0, pool, n)
    k = 0
    for i in range(obs.game[G_PILE_N]):
        if obs.pile[i, PILE_PLAYER] == q and obs.pile[i, PILE_CARD] == UNKNOWN and k < n:
            world.pile[i, PILE_CARD] = pool[k]
            k += 1
    m = 0
    for i in range(k, n):
        rest[m] = pool[i]
        m += 1
    # Its bullet cards not in its discard pile: neutral ones, then bandits' bullets with
    # shooters assigned in a fixed order (preferring shooters of another team).
    neutral = 0
    received = 0
    for b in range(obs.game[G_BANDITS]):
        if obs.bandit[b, B_TEAM] == q:
            neutral += obs.bandit[b, B_NEUTRAL]
            received += obs.bandit[b, B_RECEIVED]
    for i in range(obs.ncards[q, Z_DISCARD]):
        c = obs.cards[q, Z_DISCARD, i]
        if card_kind(c) == K.BULLET:
            if card_owner(c) == K.NEUTRAL:
                neutral -= 1
            else:
                received -= 1
    for _ in range(neutral):
        rest[m] = make_card(K.BULLET, K.NEUTRAL)
        m += 1
    for _ in range(received):
        shooter = -1
        for s in range(obs.game[G_BANDITS]):
            if fired[s] > 0 and obs.bandit[s, B_TEAM] != q:
                shooter = s
                break
        if shooter < 0:
            for s in range(obs.game[G_BANDITS]):
                if fired[s] > 0:
                    shooter = s
                    break
        if shooter < 0:
            shooter = 0
        fired[shooter] -= 1
        rest[m] = make_card(K.BULLET, shooter)
        m += 1
    shuffle(rng, 0, rest, m)
    h = obs.ncards[q, Z_HAND]
    j = 0
    for i in range(h):
        if j < m:
            world.cards[q, Z_HAND, i] = rest[j]
            j += 1
    for i in range(known_in_deck, obs.ncards[q, Z_DECK]):
        if j < m:
            world.cards[q, Z_DECK, i] = rest[j]
            j += 1


# sample_world_with's scratch: one int64 array cut into the tables of the deal.
_COUNT = 0  # multiset of a player's cards, by card code
_FIRED = _COUNT + 64  # bullet cards of each shooter not yet placed
_POOL = _FIRED + K.MAX_BANDITS  # a player's unknown action cards
_REST = _POOL + K.MAX_CARDS  # ... and its hidden bullet cards, for its hand and deck
_VALUES = _REST + 2 * K.MAX_CARDS  # hidden purse values
_UNSEEN = _VALUES + K.N_PURSES  # round cards not yet seen
WORLD_SCRATCH_N = _UNSEEN + MAX_ROUND_DECK


@njit
def sample_world(obs, rng, worlds, i):
    """Fill ``worlds[i]`` (a scratch state) with a game consistent with ``obs``, drawing
    everything unknown from ``rng`` (the deciding player's stream)."""
    sample_world_with(obs, rng, worlds, i, np.empty(WORLD_SCRATCH_N, np.int64))


@njit
def sample_world_with(obs, rng, worlds, i, tmp):
    """``sample_world`` with its temporaries in ``tmp`` (``int64[WORLD_SCRATCH_N]``, contents
    irrelevant): a search that samples a world per iteration allocates it once."""
    copy_state(worlds, i, obs)
    world = worlds[i]
    player = obs.game[G_PEND_PLAYER]
    for s in range(N_FIXED_STREAMS + obs.game[G_PLAYERS]):
        world.rng[s, 0] = next_u64(rng, 0)
        world.rng[s, 1] = 0
    _sample_purses(obs, rng, world, tmp[_VALUES:_UNSEEN])
    count_loot(world)
    _sample_rounds(obs, rng, world, tmp[_UNSEEN:WORLD_SCRATCH_N])
    shuffle(rng, 0, world.cards[player, Z_DECK], world.ncards[player, Z_DECK])
    count = tmp[_COUNT:_FIRED]
    fired = tmp[_FIRED:_POOL]
    pool = tmp[_POOL:_REST]
    rest = tmp[_REST:_VALUES]
    _bullets_fired_unseen(obs, player, fired)
    for q in range(obs.game[G_PLAYERS]):
        if q != player:
            _deal_hidden_cards(obs, rng, world, q, count, fired, pool, rest)
