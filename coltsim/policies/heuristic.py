"""The rule-of-thumb policies: ``greedy`` and its parametric form ``weighted``.

Both score every legal option with the same features and take the best (ties broken at random
from the policy's stream; with a positive temperature ``weighted`` samples from a softmax).
Scores are in thousands of dollars, roughly what the option is worth now.

Planning a card (it resolves later, after the cards played before it) is judged from where the
card's bandit will stand by then: its spot moved by the player's own cards already on the pile
this round (a Move toward the best nearby loot, a Floor Change).  From there:

=========  =======================================================================================
Robbery    ``loot`` x the best token lying there (strongbox 1000 > jewel 500 > purse ~333)
Move       ``seek`` x how much better the best reachable spot is than this one
Floor      ``seek`` x how much better the other level is; ``avoid`` x going inside the Marshal's car
Fire       ``fire`` x (0.15 + 0.35 if someone is in line) + ``rich`` x 0.2 x the richest target's
           loot; a dead card (no bullet left) scores -0.3
Punch      ``punch`` x (0.1 + 0.5 x the richest bandit's loot on the spot); nobody there: -0.2
Marshal    ``marshal`` x (0.05 + 0.3 x opponents he could reach inside an adjacent car)
draw       ``draw`` x (0.1 + 0.25 if at most two action cards are left in hand)
=========  =======================================================================================

Resolving a card: move to the spot with the most loot nearby, away from the Marshal; shoot and
punch the richest opponent (``rich``); rob the most valuable kind; make the punched bandit drop
its most valuable kind (Cheyenne: a purse, which she keeps) and push it away from loot or into
the Marshal; send the Marshal onto opponents (``marshal``), away from the player's own bandits
(``avoid``); always take a purse when offered; discard bullet cards, keep action cards.

A weight of ``NEVER`` (-1e9) makes a card unplayable unless nothing else is legal: the
``never_fires`` and ``never_moves_marshal`` presets.  A weight vector of all zeros means "not
set" and plays the greedy weights.
"""
import numpy as np

from .. import constants as K
from .._jit import njit
from ..engine.flow import (
    DK_DISCARD, DK_FIRE, DK_KEEP, DK_MARSHAL, DK_MOVE, DK_PLAN, DK_PUNCH_DIR, DK_PUNCH_LOOT,
    DK_PUNCH_TARGET, DK_ROB,
)
from ..engine.rng import RNG_DECIDE
from ..engine.state import (
    B_BULLETS, B_CAR, B_LEVEL, B_TEAM, G_BANDITS, G_MARSHAL, G_PEND_KIND, G_PEND_N,
    G_PEND_PLAYER, G_PILE_N, G_T_TARGET, N_PARAMS, PILE_CARD, PILE_PLAYER, ability, caboose,
    card_kind, card_owner,
)
from .catalog import (
    GREEDY, W_AVOID, W_DRAW, W_FIRE, W_LOOT, W_MARSHAL, W_PUNCH, W_RICH,
    W_SEEK, W_TEMPERATURE, WEIGHT_NAMES,
)
from .common import KIND_VALUE, TIE, pick
from .view import (
    acting_bandit, carried_value, grab_value, is_draw, is_face_down, is_stop,
    line_of_fire_from, mine_inside, opponents_inside, option_card, playable_in_hand, rand_unit,
    roof_reach, under_marshal,
)


def _weights(values) -> np.ndarray:
    w = np.zeros(N_PARAMS)
    w[:len(values)] = values
    return w


GREEDY_WEIGHTS = _weights(GREEDY)

_OTHER_LEVEL = 0.3  # share of the other level's loot in a spot's potential
# A decision's tables, in the state's scratch (nothing is allocated per decision, and the
# helpers below take no array arguments):
#   fscratch[_W + i]         the weights of the decision
#   fscratch[_GRAB + spot]   what a Robbery there takes (view.grab_value)
#   fscratch[_CARRIED + b]   what bandit b carries as the player knows it (view.carried_value)
#   fscratch[_SCORES + i]    option scores (softmax)
#   scratch[_PROJ_CAR + b], scratch[_PROJ_LEVEL + b]   projected spot of b (-1: not yet)
#   scratch[_TARGETS:]       a list of bandits
_W = 0
_GRAB = N_PARAMS
_CARRIED = _GRAB + K.MAX_SPOTS
_SCORES = _CARRIED + K.MAX_BANDITS
_TARGETS = 0
_PROJ_CAR = K.MAX_BANDITS
_PROJ_LEVEL = 2 * K.MAX_BANDITS


@njit(inline="always")
def _w(obs, i):
    return obs.fscratch[_W + i]


@njit(inline="always")
def _grab(obs, car, level):
    return obs.fscratch[_GRAB + 2 * car + level]


@njit(inline="always")
def _carried(obs, b):
    return obs.fscratch[_CARRIED + b]


# --- where things are -----------------------------------------------------------------------------
@njit
def _decision_tables(obs, player):
    """What a Robbery takes on each spot and what each bandit carries as ``player`` knows it
    (the weights are already in ``fscratch[_W:]``)."""
    f = obs.fscratch
    f[_GRAB:_SCORES] = 0.0
    for car in range(caboose(obs) + 1):
        for level in (K.INSIDE, K.ROOF):
            f[_GRAB + 2 * car + level] = grab_value(obs, car, level)
    for b in range(obs.game[G_BANDITS]):
        f[_CARRIED + b] = carried_value(obs, player, b)
    obs.scratch[_PROJ_CAR:_PROJ_LEVEL + K.MAX_BANDITS] = -1


@njit(inline="always")
def _potential(obs, car, level):
    """How good it is to stand on (car, level): loot within reach, minus meeting the Marshal."""
    v = _grab(obs, car, level) + _OTHER_LEVEL * _grab(obs, car, 1 - level)
    s = _w(obs, W_SEEK) * v / 1000.0
    if under_marshal(obs, car, level):
        s -= _w(obs, W_AVOID) * 0.5
    return s


@njit
def _best_destination(obs, car, level):
    """The car a Move from (car, level) would choose (the best potential; the nearer on ties)."""
    reach = roof_reach(obs) if level == K.ROOF else 1
    best = car
    best_s = -1e18
    for d in range(1, reach + 1):
        for c in (car - d, car + d):
            if 0 <= c <= caboose(obs):
                s = _potential(obs, c, level)
                if s > best_s + TIE:
                    best_s = s
                    best = c
    return best


@njit
def _projected_spot(obs, player, b):
    """Where bandit ``b`` will stand when the next card planned for it resolves."""
    car = obs.bandit[b, B_CAR]
    level = obs.bandit[b, B_LEVEL]
    pile = obs.pile
    for i in range(obs.game[G_PILE_N]):
        if pile[i, PILE_PLAYER] != player:
            continue
        c = pile[i, PILE_CARD]
        if c < 0 or card_owner(c) != b:
            continue
        k = card_kind(c)
        if k == K.FLOOR:
            level = 1 - level
        elif k == K.MOVE:
            car = _best_destination(obs, car, level)
        if under_marshal(obs, car, level):
            level = K.ROOF
    return car, level


@njit(inline="always")  # small; called with constants (each would compile a copy)
def _richest(obs, n):
    """The most loot among the bandits listed in ``scratch[_TARGETS:_TARGETS + n]``, in
    thousands."""
    best = 0.0
    for i in range(n):
        best = max(best, _carried(obs, obs.scratch[_TARGETS + i]))
    return best / 1000.0


# --- planning -------------------------------------------------------------------------------------
@njit
def _plan_score(obs, player, value):
    if is_draw(value):
        poor = 0.25 if playable_in_hand(obs, player) <= 2 else 0.0
        return _w(obs, W_DRAW) * (0.1 + poor)
    card = option_card(value)
    b = card_owner(card)
    kind = card_kind(card)
    if obs.scratch[_PROJ_CAR + b] < 0:  # once per bandit and decision
        car, level = _projected_spot(obs, player, b)
        obs.scratch[_PROJ_CAR + b] = car
        obs.scratch[_PROJ_LEVEL + b] = level
    car = obs.scratch[_PROJ_CAR + b]
    level = obs.scratch[_PROJ_LEVEL + b]
    s = 0.01 if is_face_down(value) else 0.0
    if kind == K.ROB:
        g = _grab(obs, car, level)
        return s + (_w(obs, W_LOOT) * g / 1000.0 if g > 0 else -0.2)
    if kind == K.MOVE:
        here = _potential(obs, car, level)
        d = _best_destination(obs, car, level)
        return s + _potential(obs, d, level) - here
    if kind == K.FLOOR:
        return s + _potential(obs, car, 1 - level) - _potential(obs, car, level)
    if kind == K.FIRE:
        if obs.bandit[b, B_BULLETS] == 0:
            return s - 0.3
        buf = obs.scratch[_TARGETS:_TARGETS + K.MAX_BANDITS]
        n = line_of_fire_from(obs, b, car, level, buf)
        m = 0
        for i in range(n):  # never count the player's own bandits as targets
            if obs.bandit[buf[i], B_TEAM] != player:
                buf[m] = buf[i]
                m += 1
        if m == 0:
            return s + _w(obs, W_FIRE) * 0.15
        return s + _w(obs, W_FIRE) * 0.5 + _w(obs, W_RICH) * 0.2 * _richest(obs, m)
    if kind == K.PUNCH:
        m = 0
        for t in range(obs.game[G_BANDITS]):
            if obs.bandit[t, B_TEAM] != player and obs.bandit[t, B_CAR] == car and \
                    obs.bandit[t, B_LEVEL] == level:
                obs.scratch[_TARGETS + m] = t
                m += 1
        if m == 0:
            return s - 0.2
        return s + _w(obs, W_PUNCH) * (0.1 + 0.5 * _richest(obs, m))
    # Marshal card
    mc = obs.game[G_MARSHAL]
    best = 0
    for c in (mc - 1, mc + 1):
        if 0 <= c <= caboose(obs):
            best = max(best, opponents_inside(obs, player, c) - 2 * mine_inside(obs, player, c))
    return s + _w(obs, W_MARSHAL) * (0.05 + 0.3 * best)


# --- resolving ------------------------------------------------------------------------------------
@njit
def _resolve_score(obs, player, kind, value, actor):
    if kind == DK_MOVE:
        level = obs.bandit[actor, B_LEVEL]
        return _potential(obs, value, level) + 0.3 * _potential(
            obs, _best_destination(obs, value, level), level)
    if kind == DK_FIRE or kind == DK_PUNCH_TARGET:
        if obs.bandit[value, B_TEAM] == player:
            return -10.0
        return _w(obs, W_RICH) * _carried(obs, value) / 1000.0
    if kind == DK_ROB:
        return KIND_VALUE[value] / 1000.0
    if kind == DK_PUNCH_LOOT:
        v = KIND_VALUE[value] / 1000.0
        if value == K.PURSE and ability(obs, actor, K.CHEYENNE):
            v += 0.4
        return v
    if kind == DK_PUNCH_DIR:
        target = obs.game[G_T_TARGET]
        level = obs.bandit[target, B_LEVEL]
        s = -_grab(obs, value, level) / 1000.0
        if under_marshal(obs, value, level):
            s += 0.5
        return s
    if kind == DK_MARSHAL:
        return _w(obs, W_MARSHAL) * 0.3 * opponents_inside(obs, player, value) - \
            _w(obs, W_AVOID) * 0.5 * mine_inside(obs, player, value)
    if kind == DK_DISCARD or kind == DK_KEEP:
        if is_stop(value):
            return 0.5
        return 1.0 if card_kind(option_card(value)) == K.BULLET else 0.0
    # DK_CHEYENNE, DK_PICKPOCKET: 1 = take the purse
    return float(value)


@njit(inline="always")
def _score(obs, player, kind, value, actor):
    if kind == DK_PLAN:
        return _plan_score(obs, player, value)
    return _resolve_score(obs, player, kind, value, actor)


@njit(inline="always")
def pick_best(obs, kind, options, w, rng):
    """Index of the option with the best score under weights ``w`` (see the module docstring);
    ties broken uniformly at random, or a softmax draw when ``w[W_TEMPERATURE] > 0``."""
    for i in range(len(WEIGHT_NAMES)):  # (in the scratch, the search is compiled once for any w)
        obs.fscratch[_W + i] = w[i]
    return _pick_best(obs, kind, options, rng)


@njit
def _pick_best(obs, kind, options, rng):
    """``pick_best`` with the weights in ``fscratch[_W:]``."""
    player = obs.game[G_PEND_PLAYER]
    actor = acting_bandit(obs, kind)
    _decision_tables(obs, player)
    n = options.shape[0]
    temperature = _w(obs, W_TEMPERATURE)
    if temperature > 0:
        scores = obs.fscratch[_SCORES:_SCORES + n]
        top = -1e300
        for i in range(n):
            scores[i] = _score(obs, player, kind, options[i], actor)
            top = max(top, scores[i])
        total = 0.0
        for i in range(n):
            scores[i] = np.exp((scores[i] - top) / temperature)
            total += scores[i]
        u = rand_unit(rng) * total
        for i in range(n):
            u -= scores[i]
            if u < 0:
                return i
        return n - 1
    best = -1e300
    chosen = 0
    ties = 0
    for i in range(n):
        best, chosen, ties = pick(_score(obs, player, kind, options[i], actor), best, chosen,
                                  ties, i, rng)
    return chosen


@njit
def greedy_choice(w, scratch):
    """``greedy`` at the pending decision of ``w`` (any seat): the model of that name
    (models.py), and the choices of ``learned``'s projections."""
    p = w.game[G_PEND_PLAYER]
    rng = w.rng[RNG_DECIDE + p:RNG_DECIDE + p + 1]
    return pick_best(w, w.game[G_PEND_KIND], w.options[:w.game[G_PEND_N]], GREEDY_WEIGHTS, rng)


@njit
def greedy_policy(obs, kind, options, params, rng):
    """Rules of thumb (``GREEDY_WEIGHTS``); ``params`` is ignored."""
    return pick_best(obs, kind, options, GREEDY_WEIGHTS, rng)


@njit
def weighted_policy(obs, kind, options, params, rng):
    """The greedy features weighted by ``params[:len(WEIGHT_NAMES)]`` (all zeros: greedy's)."""
    unset = True
    for i in range(len(WEIGHT_NAMES)):
        unset &= params[i] == 0.0
    if unset:
        return pick_best(obs, kind, options, GREEDY_WEIGHTS, rng)
    return pick_best(obs, kind, options, params, rng)
