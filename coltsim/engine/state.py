"""Game state: a few typed numpy arrays, and the small helpers every rule uses.

All arrays are ``int64`` unless noted.  ``-1`` means "none" throughout.

``game[G_*]``      scalars: sizes, the Marshal, neutral bullets, the First Player, the phase of the
                   game (which step comes next), the pending decision and scratch registers.
``bandit[b, B_*]`` one row per bandit: character, controlling player (team), car, level, bullet
                   cards left, bullet cards received from bandits and neutral ones.
``loot[t, L_*]``   one row per loot token id: kind, value, where it is (a spot
                   ``2 * car + level``, ``AT_BANDIT + b``, or ``IN_BOX``).
``cars[i]``        car code (constants.CAR_NAMES) of car ``i``; 0 is the locomotive.
``rounds[r]``      round card of round ``r``; the last one is the train-station card.
``cards[p, z, i]`` card ``i`` of player ``p``'s zone ``z`` (Z_DECK, Z_HAND, Z_DISCARD); the top of
                   a deck is its last card.  ``ncards[p, z]`` counts them.  A card is
                   ``kind + 8 * owner`` (constants).
``pile[i, PILE_*]`` the common pile in play order: card, player, 1 if face down.
``options[:game[G_PEND_N]]`` the legal options of the pending decision.
``evtok[b]``       token bandit ``b`` took, lost or gained in the current event (trace params).
``seat_policy[p]`` policy id of each player; ``params`` a policy parameter vector per player.
``opts``           the rule options vector (rules.py).
``rng``            ``uint64[streams, 2]`` counter-based streams (rng.py).
``log``            ``[rows, LOG_W]`` trace records (log.py); zero rows when not tracing.
"""
import numba
import numpy as np
from numba import types
from numba.experimental import structref

from .. import constants as K
from .._jit import njit
from ..rules import MAX_ROUNDS, O_ABILITY
from .rng import N_FIXED_STREAMS, RNG_CHANCE, randint

# --- game scalars -------------------------------------------------------------------------------
G_PLAYERS = 0
G_BANDITS = 1
G_CARS = 2  # passenger cars C; the caboose is car C
G_MARSHAL = 3  # car of the Marshal (always inside)
G_NEUTRAL_LEFT = 4  # neutral bullets beside the locomotive; -1 = unlimited
G_NEUTRAL_REMOVED = 5  # neutral bullets taken out of the game by the run-out rule
G_FIRST = 6  # First Player of the current round
G_FIRST_FIRST = 7  # First Player of round 1
G_ROUND = 8  # current round, 0-based
G_N_ROUNDS = 9
G_PHASE = 10  # PH_*: what _advance does next
G_TURN = 11  # Schemin': index into the round card's turns
G_SLOT = 12  # Schemin': player-turn within the turn; Stealin'/events: sub-step
G_POS = 13  # Stealin': pile index being resolved; discard/keep/events: player or bandit order
G_PILE_N = 14
G_PEND_PLAYER = 15  # pending decision: who decides, what kind, how many options (0 = none)
G_PEND_KIND = 16
G_PEND_N = 17
G_T_TARGET = 18  # registers of the card being resolved (trace params)
G_T_TO_CAR = 19
G_T_TOKEN = 20  # rob: token taken; punch: token dropped
G_T_TAKEN = 21  # punch: 1 if Cheyenne kept the purse
G_T_PUSHED = 22  # fire: Django's push destination
G_T_EFFECT = 23
G_HITS = 24  # bitmask of bandits the Marshal rule sent to the roof in this step
G_GIVEN = 25  # bitmask of bandits who received a neutral bullet in this step
G_LOG_N = 26
G_CHECK = 27  # 1 = check invariants after every action and event
G_FAIL = 28  # first invariant broken (CHECK_*), 0 = none
G_DECISIONS = 29  # decisions asked of policies so far
G_GAME_INDEX = 30
G_N = 31

# Phases of a game, in order within a round.
PH_ROUND_START = 0
PH_DISCARD = 1  # advanced rules: optional discards at the start of Schemin'
PH_SCHEME = 2
PH_KEEP = 3  # advanced rules: keep or discard at the end of Schemin'
PH_STEAL = 4
PH_EVENT = 5
PH_OVER = 6

# --- bandits ------------------------------------------------------------------------------------
B_CHAR = 0
B_TEAM = 1
B_CAR = 2
B_LEVEL = 3
B_BULLETS = 4  # bullet cards left to fire
B_RECEIVED = 5  # bullet cards received from bandits
B_NEUTRAL = 6  # neutral bullet cards received
B_N = 7

# --- loot ---------------------------------------------------------------------------------------
L_KIND = 0
L_VALUE = 1
L_WHERE = 2
L_N = 3

# --- cards --------------------------------------------------------------------------------------
Z_DECK = 0
Z_HAND = 1
Z_DISCARD = 2
N_ZONES = 3
MAX_PILE = 64
PILE_CARD = 0
PILE_PLAYER = 1
PILE_DOWN = 2
PILE_N = 3
MAX_OPTIONS = 64

LOG_W = 128  # columns of a trace record (log.py)

# --- policy parameters --------------------------------------------------------------------------
N_PARAMS = 16

STATE_FIELDS = ("game", "bandit", "loot", "cars", "rounds", "cards", "ncards", "pile", "options",
                "evtok", "seat_policy", "params", "opts", "rng", "log")


@structref.register
class StateType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class State(structref.StructRefProxy):
    """The arrays of one game, passed by reference between kernels.

    A StructRef rather than a tuple: calling a kernel with it costs one reference count, not
    one per array, which makes the engine several times faster.  Its fields are the arrays
    documented above, readable (and writable in place) from Python too."""


if numba.config.DISABLE_JIT:
    # Without the compiler the kernels are plain Python, and the state a plain object.
    class State:  # noqa: F811
        __slots__ = STATE_FIELDS

        def __init__(self, *arrays):
            for name, array in zip(STATE_FIELDS, arrays):
                setattr(self, name, array)
else:
    structref.define_proxy(State, StateType, list(STATE_FIELDS))

    def _field_property(name):
        getter = numba.njit(eval(f"lambda st: st.{name}"))  # noqa: S307  (a field name)
        return property(lambda self: getter(self))

    for _name in STATE_FIELDS:
        setattr(State, _name, _field_property(_name))


def new_state(players: int, bandits: int, opts: np.ndarray, log_rows: int = 0) -> State:
    """Allocate an empty state for a game (``setup.setup_game`` fills it)."""
    return _new_state(players, bandits, opts, log_rows)


@njit
def _new_state(players, bandits, opts, log_rows):
    return State(
        np.zeros(G_N, np.int64),
        np.zeros((bandits, B_N), np.int64),
        np.zeros((K.N_LOOT, L_N), np.int64),
        np.zeros(K.MAX_CARS, np.int64),
        np.zeros(MAX_ROUNDS, np.int64),
        np.zeros((players, N_ZONES, K.MAX_CARDS), np.int64),
        np.zeros((players, N_ZONES), np.int64),
        np.zeros((MAX_PILE, PILE_N), np.int64),
        np.zeros(MAX_OPTIONS, np.int64),
        np.zeros(bandits, np.int64),
        np.zeros(players, np.int64),
        np.zeros((players, N_PARAMS), np.float64),
        opts.copy(),
        np.zeros((N_FIXED_STREAMS + players, 2), np.uint64),
        np.zeros((log_rows, LOG_W), np.int64),
    )


@njit
def copy_state(st):
    """An independent copy, for look-ahead (policies that simulate)."""
    return State(
        st.game.copy(), st.bandit.copy(), st.loot.copy(), st.cars.copy(), st.rounds.copy(),
        st.cards.copy(), st.ncards.copy(), st.pile.copy(), st.options.copy(), st.evtok.copy(),
        st.seat_policy.copy(), st.params.copy(), st.opts.copy(), st.rng.copy(), st.log[:0].copy(),
    )


# --- small helpers ------------------------------------------------------------------------------
@njit(inline="always")
def card_kind(card):
    return card & K.CARD_KIND_MASK


@njit(inline="always")
def card_owner(card):
    return card >> K.CARD_OWNER_SHIFT


@njit(inline="always")
def make_card(kind, owner):
    return kind + (owner << K.CARD_OWNER_SHIFT)


@njit(inline="always")
def spot_of(car, level):
    return 2 * car + level


@njit(inline="always")
def bandit_spot(st, b):
    return 2 * st.bandit[b, B_CAR] + st.bandit[b, B_LEVEL]


@njit(inline="always")
def caboose(st):
    return st.game[G_CARS]


@njit(inline="always")
def ability(st, b, character):
    """True if bandit ``b`` is ``character`` and that ability is in play."""
    return st.bandit[b, B_CHAR] == character and st.opts[O_ABILITY + character] == 1


@njit(inline="always")
def push_card(st, p, zone, card):
    st.cards[p, zone, st.ncards[p, zone]] = card
    st.ncards[p, zone] += 1


@njit(inline="always")
def pop_card(st, p, zone):
    st.ncards[p, zone] -= 1
    return st.cards[p, zone, st.ncards[p, zone]]


@njit
def remove_card(st, p, zone, card):
    """Remove one card equal to ``card`` from a zone (order of the rest kept); False if none."""
    cards = st.cards[p, zone]
    gone = 0  # 1 once the card is passed: every later card then moves down one place
    for i in range(st.ncards[p, zone]):
        c = cards[i]
        cards[i - gone] = c
        gone |= c == card  # branch-free: a hand is random, so a branch here would mispredict
    st.ncards[p, zone] -= gone
    return gone == 1


@njit
def move_zone(st, p, src, dst):
    """Put every card of zone ``src`` on top of zone ``dst``, keeping their order."""
    cards = st.cards
    ncards = st.ncards
    for i in range(ncards[p, src]):
        cards[p, dst, ncards[p, dst]] = cards[p, src, i]
        ncards[p, dst] += 1
    ncards[p, src] = 0


@njit(inline="always")
def owner_of_bandit(st, b):
    """The player (team) whose deck receives bandit ``b``'s bullet cards."""
    return st.bandit[b, B_TEAM]


@njit
def kinds_at(st, where):
    """Bitmask of the loot kinds present at ``where``."""
    loot = st.loot
    mask = 0
    for t in range(K.N_LOOT):
        mask |= np.int64(loot[t, L_WHERE] == where) << loot[t, L_KIND]  # branch-free
    return mask


@njit
def loot_at(st, where, kind):
    """Number of tokens of ``kind`` at ``where`` (a spot or AT_BANDIT + b)."""
    loot = st.loot
    n = 0
    for t in range(K.N_LOOT):
        n += (loot[t, L_WHERE] == where) & (loot[t, L_KIND] == kind)  # branch-free
    return n


@njit
def pick_token(st, where, kind):
    """A token of ``kind`` at ``where``: a random one for purses (taken blind), else the first."""
    n = loot_at(st, where, kind)
    if n == 0:
        return -1
    k = randint(st.rng, RNG_CHANCE, n) if kind == K.PURSE else 0
    loot = st.loot
    for t in range(K.N_LOOT):
        if loot[t, L_WHERE] == where and loot[t, L_KIND] == kind:
            if k == 0:
                return t
            k -= 1
    return -1
