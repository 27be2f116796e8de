"""Reading the position like the game: the helpers a policy is written with.

Every helper takes ``obs``, the observation handed to a policy (observe.py), and reads only what
the deciding player may know: public facts (where bandits, the Marshal and loot are, bullets left
and received, face-up cards, the current round card) and the player's own (its hand, its own
face-down cards, the values of the purses its bandits carry).  A hidden purse is worth
``EXPECTED_PURSE`` to these helpers wherever it lies, so they give the same answers on the true
state as on the observation; the built-in policies rely on that (and tests/test_policies.py checks
it) to run on the state without building an observation.

Option values (flow.py's table) are decoded by ``is_draw``, ``is_stop``, ``option_card``,
``is_face_down``; a card is ``card_kind(card)`` played by ``card_bandit(card)``.
Helpers that list bandits fill an ``out`` array and return the count; it needs a slot for every
bandit (``K.MAX_BANDITS``), since the engine's lists are built without branches and may write one
slot past their end.
Random numbers come from the policy's own stream ``rng`` (a ``uint64[1, 2]`` view of its row of
the game's streams): ``rand_below(rng, n)``, ``rand_unit(rng)``.
"""
import numpy as np

from .. import constants as K
from .._jit import njit
from ..engine import actions as A
from ..engine.flow import DK_DISCARD, DK_KEEP, DK_PICKPOCKET, DK_PLAN, FACE_DOWN, OPT_DRAW, OPT_STOP
from ..engine.rng import next_u64, randint
from ..engine.state import (
    B_BULLETS, B_CAR, B_LEVEL, B_TEAM, G_BANDITS, G_MARSHAL, G_PEND_PLAYER, G_PILE_N, G_POS,
    G_ROUND, L_KIND, L_VALUE, L_WHERE, PILE_CARD, Z_HAND, ability, card_kind, card_owner, caboose,
)
from ..rules import O_ROOF_MOVE_MAX
from . import common
from .common import EXPECTED_PURSE, KIND_VALUE

# (EXPECTED_PURSE, KIND_VALUE: the value of a loot kind, common.py)

card_bandit = card_owner  # the bandit who performs a card (card_kind: which card it is)


# --- the decision ---------------------------------------------------------------------------------
@njit(inline="always")
def me(obs):
    """The deciding player."""
    return obs.game[G_PEND_PLAYER]


@njit(inline="always")
def is_draw(value):
    """A planning option that draws cards instead of playing one."""
    return value == OPT_DRAW


@njit(inline="always")
def is_stop(value):
    """The discard/keep option that ends discarding."""
    return value == OPT_STOP


@njit(inline="always")
def option_card(value):
    """The card of a planning or discard option (without the face-down flag)."""
    return value & ~FACE_DOWN


@njit(inline="always")
def is_face_down(value):
    return (value & FACE_DOWN) != 0


@njit
def acting_bandit(obs, kind):
    """The bandit a decision is about: the owner of the card being resolved, the bandit offered a
    purse (Pickpocketing); -1 for planning, discarding and keeping (see ``option_card``)."""
    if kind == DK_PLAN or kind == DK_DISCARD or kind == DK_KEEP:
        return -1
    if kind == DK_PICKPOCKET:
        return obs.game[G_POS]
    return card_owner(obs.pile[obs.game[G_POS], PILE_CARD])


# --- random numbers from the policy's own stream --------------------------------------------------
@njit(inline="always")
def rand_below(rng, n):
    """A uniform integer in ``[0, n)`` from the policy's stream."""
    return randint(rng, 0, n)


@njit(inline="always")
def rand_unit(rng):
    """A uniform float in ``[0, 1)`` from the policy's stream."""
    return (next_u64(rng, 0) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# --- bandits and the Marshal ----------------------------------------------------------------------
@njit(inline="always")
def n_bandits(obs):
    return obs.game[G_BANDITS]


@njit(inline="always")
def team_of(obs, b):
    """The player controlling bandit ``b``."""
    return obs.bandit[b, B_TEAM]


@njit(inline="always")
def bandit_car(obs, b):
    return obs.bandit[b, B_CAR]


@njit(inline="always")
def bandit_level(obs, b):
    return obs.bandit[b, B_LEVEL]


@njit(inline="always")
def bullets_left(obs, b):
    return obs.bandit[b, B_BULLETS]


@njit(inline="always")
def marshal_car(obs):
    return obs.game[G_MARSHAL]


@njit(inline="always")
def last_car(obs):
    """The caboose's car index (the locomotive is car 0)."""
    return caboose(obs)


@njit(inline="always")
def under_marshal(obs, car, level):
    """True if a bandit on (car, level) would meet the Marshal (inside his car)."""
    return level == K.INSIDE and car == obs.game[G_MARSHAL]


@njit
def first_bandit_of(obs, player):
    """The first bandit of ``player`` (its only one except in the 2-player game)."""
    for b in range(obs.game[G_BANDITS]):
        if obs.bandit[b, B_TEAM] == player:
            return b
    return -1


@njit
def bandits_at(obs, car, level, out):
    """Bandits on spot (car, level), into ``out``; returns how many."""
    return A.add_bandits_at(obs, car, level, -1, out, 0)


@njit
def opponents_inside(obs, player, car):
    """Bandits of other players inside car ``car``."""
    n = 0
    for b in range(obs.game[G_BANDITS]):
        if obs.bandit[b, B_TEAM] != player and obs.bandit[b, B_CAR] == car and \
                obs.bandit[b, B_LEVEL] == K.INSIDE:
            n += 1
    return n


@njit
def mine_inside(obs, player, car):
    """Bandits of ``player`` inside car ``car``."""
    n = 0
    for b in range(obs.game[G_BANDITS]):
        if obs.bandit[b, B_TEAM] == player and obs.bandit[b, B_CAR] == car and \
                obs.bandit[b, B_LEVEL] == K.INSIDE:
            n += 1
    return n


# --- loot -----------------------------------------------------------------------------------------
@njit(inline="always")
def token_value(obs, player, t):
    """Value of loot token ``t`` to ``player``: exact, except a purse ``player``'s bandits do not
    carry (its value is hidden): ``EXPECTED_PURSE``."""
    w = obs.loot[t, L_WHERE]
    if obs.loot[t, L_KIND] == K.PURSE and not (
            w >= K.AT_BANDIT and obs.bandit[w - K.AT_BANDIT, B_TEAM] == player):
        return EXPECTED_PURSE
    return float(obs.loot[t, L_VALUE])


@njit(inline="always")
def loot_count(obs, car, level, kind):
    """Tokens of ``kind`` (constants.PURSE, JEWEL, STRONGBOX) on spot (car, level)."""
    return obs.held[2 * car + level, kind]


@njit(inline="always")
def grab_value(obs, car, level):
    """What a Robbery on (car, level) would take: the most valuable kind lying there (a purse at
    its expected value); 0 if the spot is bare (common.grab_value)."""
    return common.grab_value(obs.held[2 * car + level])


@njit
def spot_value(obs, car, level):
    """Total (expected) value lying on (car, level)."""
    held = obs.held[2 * car + level]
    v = 0.0
    for kind in range(K.N_LOOT_KINDS):
        v += held[kind] * KIND_VALUE[kind]
    return v


@njit
def carried_value(obs, player, b):
    """Value of the loot bandit ``b`` carries, as ``player`` knows it (its own purses exactly,
    other purses at their expected value)."""
    q = K.MAX_SPOTS + b  # state.place(AT_BANDIT + b)
    if obs.bandit[b, B_TEAM] == player:
        return float(obs.held_value[q])
    v = 0.0
    for kind in range(K.N_LOOT_KINDS):
        v += obs.held[q, kind] * KIND_VALUE[kind]
    return v


@njit
def best_carried_kind(obs, b):
    """The most valuable kind bandit ``b`` carries (purse < jewel < strongbox), -1 if none."""
    held = obs.held[K.MAX_SPOTS + b]
    best = -1
    for kind in (K.PURSE, K.JEWEL, K.STRONGBOX):  # in order of value
        if held[kind] > 0:
            best = kind
    return best


# --- cards --------------------------------------------------------------------------------------
@njit(inline="always")
def hand_of(obs, player):
    """The player's own hand (a view; only ``me(obs)``'s hand is known)."""
    return obs.cards[player, Z_HAND, :obs.ncards[player, Z_HAND]]


@njit
def playable_in_hand(obs, player):
    """Action cards (not bullets) in the player's hand."""
    n = 0
    hand = obs.cards[player, Z_HAND]
    for i in range(obs.ncards[player, Z_HAND]):
        if card_kind(hand[i]) != K.BULLET:
            n += 1
    return n


@njit(inline="always")
def round_card(obs):
    """The current round card (constants.ROUND_CARD_NAMES); later ones are hidden."""
    return obs.rounds[obs.game[G_ROUND]]


@njit(inline="always")
def pile_size(obs):
    return obs.game[G_PILE_N]


# --- lines of fire, punches, moves ----------------------------------------------------------------
@njit
def line_of_fire(obs, b, out):
    """Bandits ``b`` may shoot now (the Fire card's legal targets; none without bullets)."""
    return A.fire_targets(obs, b, out)


@njit
def punch_targets(obs, b, out):
    """Bandits ``b`` may punch now."""
    return A.punch_targets(obs, b, out)


@njit
def move_destinations(obs, b, out):
    """Cars a Move of ``b`` may reach now."""
    return A.move_options(obs, b, out)


@njit
def line_of_fire_from(obs, b, car, level, out):
    """Bandits that ``b`` could shoot if it stood on (car, level), the others where they are now
    (for planning a card that resolves later).  Same sight rules as the Fire card, Tuco's shot
    through the roof included; Belle's protection is not applied."""
    return A.sight_targets(obs, b, car, level, out)


@njit(inline="always")
def roof_reach(obs):
    """How far a Move on the roof may go."""
    return obs.opts[O_ROOF_MOVE_MAX]
