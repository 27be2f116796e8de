"""Game state: one numpy record of fixed-size arrays, and the small helpers every rule uses.

A state is one element of a structured array of ``STATE_DTYPE``.  Every kernel takes it as
``st`` and reads and writes its fields in place: ``st.game[G_MARSHAL]``,
``st.bandit[b, B_CAR]``.  A record is passed to a compiled function as a pointer to its bytes,
so calls between kernels cost no reference counting, and nothing in a game allocates: the
arrays are sized for the largest game (``MAX_PLAYERS`` players, ``MAX_BANDITS`` bandits) and the
game's own sizes are ``game[G_PLAYERS]`` and ``game[G_BANDITS]``.  Rows past them are unused.

All fields are ``int64`` unless noted; ``-1`` means "none" throughout.

=================== ===========================================================================
``game[G_*]``       scalars: sizes, the Marshal, neutral bullets, the First Player, the phase of
                    the game (which step comes next), the pending decision, the registers of
                    the card being resolved
``bandit[b, B_*]``  one row per bandit: character, controlling player (team), car, level,
                    bullet cards left, bullet cards received from bandits and neutral ones, and
                    how it played: its action cards resolved, by kind, its player's draws, its
                    cards that did nothing when they resolved, the loot it carried at the end
                    of each round (dollars, as the rules would count it then)
``loot[t, L_*]``    one row per loot token id: kind, value, where it is (a spot
                    ``2 * car + level``, ``AT_BANDIT + b``, or ``IN_BOX``)
``held[q, kind]``   tokens of each kind at each place ``q = place(where)``: the spots, then
``held_value[q]``   each bandit, then the box; and their total value.  Derived from ``loot``
                    (``count_loot``) and kept in step by ``move_token``, the one way a token
                    moves, so that "what lies here" costs one read
``cars[i]``         car code (constants.CAR_NAMES) of car ``i``; 0 is the locomotive
``rounds[r]``       round card of round ``r``; the last one is the train-station card
``cards[p, z, i]``  card ``i`` of player ``p``'s zone ``z`` (Z_DECK, Z_HAND, Z_DISCARD); the
                    top of a deck is its last card; ``ncards[p, z]`` counts them.  A card is
                    ``kind + 8 * owner`` (constants)
``pile[i, PILE_*]`` the common pile in play order: card, player, 1 if face down
``options[:n]``     the legal options of the pending decision (``n = game[G_PEND_N]``)
``evtok[b]``        token bandit ``b`` took, lost or gained in the current event (trace params)
``seat_policy[p]``  policy id of each player
``params[p]``       ``float64``: a policy parameter vector per player
``opts``            the rule options vector (rules.py)
``rng``             ``uint64[streams, 2]`` counter-based random streams (rng.py)
``rec[i, R_*]``     trace records of the current step, ``game[G_REC_N]`` of them (log.py);
                    written only when ``game[G_TRACE]`` is 1
``scratch``         room for the temporaries of setup, scoring and a policy's decision (no
``fscratch``        allocation in a game); ``fscratch`` is ``float64``.  Meaningless between
                    calls
=================== ===========================================================================

Copying a state is one assignment of records, ``states[j] = states[i]`` (``copy_state``), about
0.1 us: look-ahead policies copy the game into a scratch state and play it out.
"""
import numba
import numpy as np

from .. import constants as K
from ..constants import N_PARAMS
from .._jit import njit
from ..rules import MAX_ROUNDS, N_OPTIONS, O_ABILITY, O_BULLETS
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
G_PHASE = 10  # PH_*: what flow.step does next
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
G_TRACE = 26  # 1 = write trace records (log.py)
G_CHECKPOINT = 27  # cards and events resolved (a checking driver checks when it grows)
G_FAIL = 28  # first invariant broken (CHECK_*), 0 = none
G_DECISIONS = 29  # decisions asked of policies so far
G_GAME_INDEX = 30
G_REC_N = 31  # trace records written in the current step
G_N = 32

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
B_PLAYED = 7  # + kind (MOVE .. MARSHAL): its action cards of each kind resolved so far
B_DRAWS = B_PLAYED + K.N_ACTION_KINDS  # turns its player drew instead of playing
B_FIZZLED = B_DRAWS + 1  # its action cards that resolved without effect (no target, no loot)
B_ROUND_LOOT = B_FIZZLED + 1  # + r: dollars it carried at the end of round r
B_N = B_ROUND_LOOT + MAX_ROUNDS

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

# --- players, policies, traces ------------------------------------------------------------------
MAX_PLAYERS = 6
REC_W = 24  # columns of a trace record (log.py)
MAX_RECORDS = 4  # trace records one step may write
SCRATCH_N = 200
N_PLACES = K.MAX_SPOTS + K.MAX_BANDITS + 1  # spots, bandits, the box
FSCRATCH_N = 128

STATE_DTYPE = np.dtype([
    ("game", np.int64, (G_N,)),
    ("bandit", np.int64, (K.MAX_BANDITS, B_N)),
    ("loot", np.int64, (K.N_LOOT, L_N)),
    ("held", np.int64, (N_PLACES, K.N_LOOT_KINDS)),
    ("held_value", np.int64, (N_PLACES,)),
    ("cars", np.int64, (K.MAX_CARS,)),
    ("rounds", np.int64, (MAX_ROUNDS,)),
    ("cards", np.int64, (MAX_PLAYERS, N_ZONES, K.MAX_CARDS)),
    ("ncards", np.int64, (MAX_PLAYERS, N_ZONES)),
    ("pile", np.int64, (MAX_PILE, PILE_N)),
    ("options", np.int64, (MAX_OPTIONS,)),
    ("evtok", np.int64, (K.MAX_BANDITS,)),
    ("seat_policy", np.int64, (MAX_PLAYERS,)),
    ("params", np.float64, (MAX_PLAYERS, N_PARAMS)),
    ("opts", np.int64, (N_OPTIONS,)),
    ("rng", np.uint64, (N_FIXED_STREAMS + MAX_PLAYERS, 2)),
    ("rec", np.int64, (MAX_RECORDS, REC_W)),
    ("scratch", np.int64, (SCRATCH_N,)),
    ("fscratch", np.float64, (FSCRATCH_N,)),
], align=True)


N_SCRATCH = 3  # scratch states a chooser is handed: an observation and two for looking ahead


def new_states(n: int = 1) -> np.ndarray:
    """``n`` zeroed states (a record array: ``states[i].game`` reads a field from Python too)."""
    return np.zeros(n, STATE_DTYPE).view(np.recarray)


if numba.config.DISABLE_JIT:
    alloc_states = new_states  # plain Python reads fields as attributes of a record array
else:
    @njit
    def alloc_states(n):
        """``n`` zeroed states, from compiled code: the scratch of batch kernels and search
        policies, allocated once outside the game loop."""
        return np.zeros(n, STATE_DTYPE)


@njit
def init_table(st, players, opts, seat_policy, params):
    """Seat ``players`` players with their policy ids and parameter rows under the rule options
    ``opts``; ``setup.setup_game`` then deals games on this table."""
    st.game[G_PLAYERS] = players
    for i in range(opts.shape[0]):  # (a slice copy would compile numba's shape checks)
        st.opts[i] = opts[i]
    for p in range(players):
        st.seat_policy[p] = seat_policy[p]
        for j in range(params.shape[1]):
            st.params[p, j] = params[p, j]


@njit(inline="always")
def copy_state(states, i, st):
    """``states[i]`` becomes an exact copy of the state ``st`` (one copy of the record)."""
    states[i] = st


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
def shots_fired(st, b):
    """Bullet cards bandit ``b`` has fired: those it started with (rules option bullets) less
    those left."""
    return st.opts[O_BULLETS + st.bandit[b, B_CHAR]] - st.bandit[b, B_BULLETS]


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


@njit(inline="always")
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


# --- loot ---------------------------------------------------------------------------------------
@njit(inline="always")
def place(where):
    """Row of ``held`` for ``where``: a spot, ``AT_BANDIT + b`` or ``IN_BOX``."""
    if where >= K.AT_BANDIT:
        return K.MAX_SPOTS + where - K.AT_BANDIT
    if where == K.IN_BOX:
        return N_PLACES - 1
    return where


@njit
def count_loot(st):
    """Derive ``held`` and ``held_value`` from ``loot`` (after a setup or an edit by hand)."""
    st.held[:, :] = 0
    st.held_value[:] = 0
    for t in range(K.N_LOOT):
        q = place(st.loot[t, L_WHERE])
        st.held[q, st.loot[t, L_KIND]] += 1
        st.held_value[q] += st.loot[t, L_VALUE]


@njit(inline="always")
def move_token(st, t, where):
    """Token ``t`` goes to ``where`` (a spot, ``AT_BANDIT + b`` or ``IN_BOX``)."""
    kind = st.loot[t, L_KIND]
    value = st.loot[t, L_VALUE]
    q = place(st.loot[t, L_WHERE])
    st.held[q, kind] -= 1
    st.held_value[q] -= value
    q = place(where)
    st.held[q, kind] += 1
    st.held_value[q] += value
    st.loot[t, L_WHERE] = where


@njit
def kinds_at(st, where):
    """Bitmask of the loot kinds present at ``where``."""
    held = st.held[place(where)]
    mask = 0
    for kind in range(K.N_LOOT_KINDS):
        mask |= np.int64(held[kind] > 0) << kind
    return mask


@njit(inline="always")
def loot_at(st, where, kind):
    """Number of tokens of ``kind`` at ``where`` (a spot or AT_BANDIT + b)."""
    return st.held[place(where), kind]


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
