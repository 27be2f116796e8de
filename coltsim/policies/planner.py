"""``planner``: a fast policy that reads the public pile and the round, and values positions.

Every decision is judged by resolving on a small sketch of the position (where the bandits and
the Marshal stand, loot counts per spot and per bandit, bullets) what the cards of the pile will
do, and valuing the result with one evaluation function.

- Planning a card: the cards already on the pile that the player can see (face-up ones, its
  own face-down ones) are resolved on the sketch in order, their owners' choices modelled by
  simple rules (rob the best kind, shoot and punch the richest, move toward loot, send the
  Marshal onto others); opponents' face-down cards are unknown and skipped.  Each legal card is
  then resolved at the end of that projection; when it is the player's last card of the round,
  the round card's event follows.  Drawing keeps the projected position.
- Resolving a card (Stealin'): each option is applied to the sketch of the position, the rest
  of the visible pile is resolved as above, then the event, then the evaluation.

The evaluation, in dollars, from the deciding player's side: its loot (own purses exact, others
at their expected value), its expected share of the Gunslinger bonus (a sigmoid of its lead in
shots fired, sharper as the game nears its end, times the bonus of the rule options), the cost
of bullet cards received (each clogs a hand in every later round), loot within its reach (more
while it still holds a Robbery and turns to play it), the risk of standing inside next to the
Marshal, and the opponents who have it in their line of fire; minus the same (without the
position terms) for the opponents, mixing the leader and their mean.

The policy reads the position once into two small scratch arrays (``s`` integers, ``f``
floats) and works on them only, so it costs the same on a state as on an observation and
allocates nothing else.  The rules it needs (moves, lines of fire and Belle's protection, the
Marshal rule and neutral bullets, robbing, punching, the events) are restated on the sketch:
the engine's functions work on a whole State, and copying one for every option of every
decision would cost several times the policy's budget (docs/policies.md, Speed).
tests/test_planner_rules.py holds each of them against the engine on positions reached in play.  It reads only what its player may know (view.py's rule): public facts,
its own hand and face-down cards, the values of its own purses.
"""

from .. import constants as K
from .._jit import njit
from ..engine.flow import (
    DK_CHEYENNE, DK_DISCARD, DK_FIRE, DK_KEEP, DK_MOVE, DK_PICKPOCKET, DK_PLAN,
    DK_PUNCH_DIR, DK_PUNCH_LOOT, DK_PUNCH_TARGET, DK_ROB, FACE_DOWN, OPT_DRAW, event_of,
)
from ..engine.state import (
    B_BULLETS, B_CAR, B_CHAR, B_LEVEL, B_NEUTRAL, B_RECEIVED, B_TEAM, G_BANDITS, G_CARS,
    G_MARSHAL, G_NEUTRAL_LEFT, G_N_ROUNDS, G_PEND_PLAYER, G_PHASE, G_PILE_N, G_PLAYERS, G_POS,
    G_ROUND, G_T_TARGET, MAX_PILE, PH_STEAL, SCRATCH_N,
    N_PARAMS, PILE_CARD, PILE_DOWN, PILE_PLAYER, Z_DECK, Z_DISCARD, Z_HAND, card_kind,
    card_owner, place,
)
from ..rules import (
    O_ABILITY, O_ADVANCED, O_BULLETS, O_DJANGO_PUSH_WITHOUT_BULLETS, O_DRAW_COUNT, O_GUNSLINGER_BONUS,
    O_NEUTRAL_RUNOUT, O_ROOF_MOVE_MAX, RUNOUT_NOBODY,
)
from .catalog import PLANNER_PARAMS, param_vector
from .heuristic import GREEDY_WEIGHTS, pick_best
from .common import EXPECTED_PURSE, KIND_VALUE, TIE, kind_value, pick, turns_after

# --- weights (params[P_*], named and tuned in catalog.PLANNER_PARAMS); all zeros: the defaults
P_POT_NOW = 0  # share of the loot within reach counted while a Robbery can still be played
P_POT_LATER = 1  # ... counted for later rounds
P_REACH = 2  # share of a neighbouring spot's loot (one Move or Floor Change away)
P_CLOG = 3  # dollars per bullet card received, per later round
P_TAU = 4  # Gunslinger race: uncertainty (in shots) per round left
P_LEADER = 5  # opponents counted as: leader x this + their mean x (1 - this)
P_MARSHAL_RISK = 6  # dollars for standing inside a car next to the Marshal
P_EXPOSED = 7  # dollars per opponent with bullets who has the bandit in its line of fire
P_DRAW = 8  # dollars for drawing while turns remain this round
P_DRAW_NEED = 9  # dollars per later turn of this round the hand could not fill
P_HIDE = 10  # dollars for playing a card face down
P_CROWD = 11  # share of a spot's loot lost per other bandit standing there
PARAM_NAMES = tuple(name for name, _ in PLANNER_PARAMS)
DEFAULT_WEIGHTS = param_vector("planner")

# --- the scratch arrays -----------------------------------------------------------------------
# s (int64): facts of the decision, then the working sketch, then a saved copy of it.
MB = K.MAX_BANDITS
X_NB = 0  # bandits
X_PLAYERS = 1
X_CAB = 2  # the caboose's car
X_REACH = 3  # farthest Move on a roof
X_RUNOUT = 4  # 1: the neutral-bullet run-out gives nobody a bullet
X_DRY_DJANGO = 5  # 1: Django's Fire pushes without bullets
X_ME = 6  # the deciding player
X_BONUS = 7  # Gunslinger bonus (0 in the 2-player game)
X_PILE_N = 8
X_USED = 9  # length of the sketch in use (the spots of this train)
X_TEAM = 10  # + b: player of bandit b
X_POWER = X_TEAM + MB  # + b: the character whose ability bandit b has in play, -1 none
X_PILE = X_POWER + MB  # + i: pile card i as the player sees it (-1 unknown)
X_BUF = X_PILE + MAX_PILE  # bandit lists (lines of fire, punch targets)
X_LOADED = X_BUF + MB + 1  # + b: bullet cards bandit b started with (rules option bullets)
W0 = X_LOADED + MB  # the working sketch:
S_CAR = W0  # + b
S_LEVEL = S_CAR + MB
S_BULLETS = S_LEVEL + MB  # bullet cards left to fire
S_HIT = S_BULLETS + MB  # bullet cards received (from bandits and neutral)
S_CARRY = S_HIT + MB  # + b: loot tokens carried, counted by kind in one number (_count)
S_MARSHAL = S_CARRY + MB
S_NEUTRAL = S_MARSHAL + 1  # neutral bullets left (-1: unlimited)
S_FIRED = S_NEUTRAL + 1  # shots fired on the sketch since it was saved
S_SPOT = S_FIRED + 1  # + spot: loot tokens lying on a spot, counted like S_CARRY
SKETCH_N = S_SPOT + K.MAX_SPOTS - W0
SAVED = W0 + SKETCH_N
N_INTS = SAVED + SKETCH_N
assert N_INTS <= SCRATCH_N, "the planner's ints live in a state's scratch"
# f (float64): the working sketch's money, its saved copy, the context, work space.
F_MONEY = 0  # + b: value carried, as the deciding player knows it
F_PURSES = F_MONEY + MB  # + b: value of the purses carried
F_SKETCH_N = F_PURSES + MB
F_SAVED = F_SKETCH_N
F_GUN = F_SAVED + F_SKETCH_N  # + q: Gunslinger value of player q on the saved sketch
F_TIME = F_GUN + MB  # rounds left, counting what is left of this one
F_LATER = F_TIME + 1  # rounds after this one
F_ROB_NOW = F_LATER + 1  # 1 if a Robbery of the player's can still be planned this round
F_WORTH = F_ROB_NOW + 1  # + q
F_SHOTS = F_WORTH + MB  # + q
F_WEIGHTS = F_SHOTS + MB  # + i: the weights of the decision (plan_with)
N_FLOATS = F_WEIGHTS + N_PARAMS

_KIND_BITS = 5  # tokens of one place in one number: purses + 32 x jewels + 1024 x strongboxes
LEAST_PURSE = 275.0  # what Marshal's Revenge takes from a bandit with purses, on average


# --- reading the position -----------------------------------------------------------------------
@njit
def _read(obs, me, s, f):
    """Fill the facts and the working sketch from the position (only what ``me`` may know)."""
    game = obs.game
    bandit = obs.bandit
    opts = obs.opts
    pile = obs.pile
    nb = game[G_BANDITS]
    s[X_NB] = nb
    s[X_PLAYERS] = game[G_PLAYERS]
    s[X_CAB] = game[G_CARS]
    s[X_REACH] = opts[O_ROOF_MOVE_MAX]
    s[X_RUNOUT] = opts[O_NEUTRAL_RUNOUT] == RUNOUT_NOBODY
    s[X_DRY_DJANGO] = opts[O_DJANGO_PUSH_WITHOUT_BULLETS]
    s[X_ME] = me
    s[X_BONUS] = opts[O_GUNSLINGER_BONUS] if nb == game[G_PLAYERS] else 0
    spots = 2 * (game[G_CARS] + 1)
    s[X_USED] = S_SPOT - W0 + spots
    for i in range(SKETCH_N):
        s[W0 + i] = 0
    for i in range(F_SKETCH_N):
        f[i] = 0.0
    for b in range(nb):
        ch = bandit[b, B_CHAR]
        s[X_TEAM + b] = bandit[b, B_TEAM]
        s[X_POWER + b] = ch if opts[O_ABILITY + ch] == 1 else -1
        s[S_CAR + b] = bandit[b, B_CAR]
        s[S_LEVEL + b] = bandit[b, B_LEVEL]
        s[S_BULLETS + b] = bandit[b, B_BULLETS]
        s[X_LOADED + b] = opts[O_BULLETS + bandit[b, B_CHAR]]
        s[S_HIT + b] = bandit[b, B_RECEIVED] + bandit[b, B_NEUTRAL]
    held = obs.held
    for spot in range(spots):
        s[S_SPOT + spot] = _tokens(held[spot])
    for b in range(nb):
        q = place(K.AT_BANDIT + b)
        s[S_CARRY + b] = _tokens(held[q])
        f[F_MONEY + b], f[F_PURSES + b] = _money(obs, q, s[X_TEAM + b] == me)
    s[S_MARSHAL] = game[G_MARSHAL]
    s[S_NEUTRAL] = game[G_NEUTRAL_LEFT]
    # The pile as the player sees it: its own cards, face-up ones, those turned over.
    n = game[G_PILE_N]
    s[X_PILE_N] = n
    revealed = game[G_POS] if game[G_PHASE] == PH_STEAL else -1
    for i in range(n):
        seen = pile[i, PILE_PLAYER] == me or pile[i, PILE_DOWN] == 0 or i <= revealed
        s[X_PILE + i] = pile[i, PILE_CARD] if seen else -1


@njit(inline="always")
def _tokens(held):
    """The loot tokens of one place's row of ``state.held``, counted by kind in one number
    (S_SPOT, S_CARRY); ransoms are not loot a bandit can take or drop."""
    return (held[K.PURSE] * _unit(K.PURSE) + held[K.JEWEL] * _unit(K.JEWEL)
            + held[K.STRONGBOX] * _unit(K.STRONGBOX))


@njit(inline="always")
def _money(obs, q, known):
    """What the bandit at place ``q`` carries, and its purses, as the deciding player knows it:
    every value when ``known`` (its own bandit), else a purse at its expected value
    (view.token_value).  The sums are those of the tokens one by one in the order of their ids
    (strongboxes, purses, jewels, ransoms), to the last bit."""
    held = obs.held[q]
    purses = 0.0
    if known:  # whole dollars: exact in any order
        money = float(obs.held_value[q])
        purses = money - (K.STRONGBOX_VALUE * held[K.STRONGBOX] + K.JEWEL_VALUE * held[K.JEWEL]
                          + K.RANSOM_VALUE * held[K.RANSOM])
    else:
        money = float(K.STRONGBOX_VALUE * held[K.STRONGBOX])
        for _ in range(held[K.PURSE]):
            money += EXPECTED_PURSE
            purses += EXPECTED_PURSE
        for _ in range(held[K.JEWEL]):
            money += K.JEWEL_VALUE
        for _ in range(held[K.RANSOM]):
            money += K.RANSOM_VALUE
    return money, purses


@njit(inline="always")
def _save(s, f):
    for i in range(s[X_USED]):
        s[SAVED + i] = s[W0 + i]
    for i in range(F_SKETCH_N):
        f[F_SAVED + i] = f[i]


@njit(inline="always")
def _restore(s, f):
    for i in range(s[X_USED]):
        s[W0 + i] = s[SAVED + i]
    for i in range(F_SKETCH_N):
        f[i] = f[F_SAVED + i]


@njit(inline="always")
def _has(s, b, character):
    return s[X_POWER + b] == character


@njit(inline="always")
def _unit(kind):
    """One token of ``kind`` in a count of tokens by kind (S_CARRY, S_SPOT)."""
    return 1 << (_KIND_BITS * kind)


@njit(inline="always")
def _count(tokens, kind):
    """How many tokens of ``kind`` a count of tokens by kind holds."""
    return (tokens >> (_KIND_BITS * kind)) & ((1 << _KIND_BITS) - 1)


@njit(inline="always")
def _best_kind(tokens):
    """The most valuable kind a count of tokens by kind holds; -1 if none."""
    if tokens >= _unit(K.STRONGBOX):
        return K.STRONGBOX
    if tokens >= _unit(K.JEWEL):
        return K.JEWEL
    if tokens > 0:
        return K.PURSE
    return -1


@njit(inline="always")
def _grab(s, spot):
    """What a Robbery on ``spot`` takes: the most valuable kind lying there (0: nothing)."""
    return kind_value(_best_kind(s[S_SPOT + spot]))


# --- the rules on the sketch (actions.py, events.py) --------------------------------------------
@njit(inline="always")  # small; called with constants (each would compile a copy)
def _give_neutral(s, mask):
    """One giving of neutral bullets, under the run-out rule."""
    k = 0
    for b in range(s[X_NB]):
        k += mask >> b & 1
    if k == 0:
        return
    if 0 <= s[S_NEUTRAL] < k and s[X_RUNOUT] == 1:
        s[S_NEUTRAL] = 0
        return
    for b in range(s[X_NB]):
        if mask >> b & 1 and s[S_NEUTRAL] != 0:
            if s[S_NEUTRAL] > 0:
                s[S_NEUTRAL] -= 1
            s[S_HIT + b] += 1


@njit
def _marshal_rule(s):
    mask = 0
    for b in range(s[X_NB]):
        if s[S_CAR + b] == s[S_MARSHAL] and s[S_LEVEL + b] == K.INSIDE:
            s[S_LEVEL + b] = K.ROOF
            mask |= 1 << b
    _give_neutral(s, mask)


@njit(inline="always")
def _place(s, b, car, level):
    s[S_CAR + b] = car
    s[S_LEVEL + b] = level
    if level == K.INSIDE and car == s[S_MARSHAL]:
        _marshal_rule(s)


@njit(inline="always")  # small; called with constants (each would compile a copy)
def _sight(s, b, tuco):
    """Bandits in ``b``'s line of fire (actions.sight_targets), into ``s[X_BUF:]``; with
    ``tuco`` also the other level of its car.  Belle's protection is not applied."""
    nb = s[X_NB]
    car = s[S_CAR + b]
    level = s[S_LEVEL + b]
    n = 0
    if level == K.INSIDE:
        for t in range(nb):
            if t != b and s[S_LEVEL + t] == K.INSIDE and (
                    s[S_CAR + t] == car - 1 or s[S_CAR + t] == car + 1):
                s[X_BUF + n] = t
                n += 1
    else:
        front = -1
        back = K.MAX_CARS
        for t in range(nb):
            if t != b and s[S_LEVEL + t] == K.ROOF:
                c = s[S_CAR + t]
                if front < c < car:
                    front = c
                elif car < c < back:
                    back = c
        for t in range(nb):
            if t != b and s[S_LEVEL + t] == K.ROOF and (
                    s[S_CAR + t] == front or s[S_CAR + t] == back):
                s[X_BUF + n] = t
                n += 1
    if tuco:
        for t in range(nb):
            if t != b and s[S_CAR + t] == car and s[S_LEVEL + t] != level:
                s[X_BUF + n] = t
                n += 1
    return n


@njit(inline="always")  # small; called with constants (each would compile a copy)
def _belle_filter(s, n):
    """Belle cannot be chosen if another bandit could be (actions.belle_filter)."""
    others = 0
    for i in range(n):
        others += not _has(s, s[X_BUF + i], K.BELLE)
    if others == n or others == 0:
        return n
    m = 0
    for i in range(n):
        if not _has(s, s[X_BUF + i], K.BELLE):
            s[X_BUF + m] = s[X_BUF + i]
            m += 1
    return m


@njit
def _fire_targets(s, b):
    if s[S_BULLETS + b] == 0 and not (_has(s, b, K.DJANGO) and s[X_DRY_DJANGO] == 1):
        return 0
    return _belle_filter(s, _sight(s, b, _has(s, b, K.TUCO)))


@njit
def _punch_targets(s, b):
    n = 0
    for t in range(s[X_NB]):
        if t != b and s[S_CAR + t] == s[S_CAR + b] and s[S_LEVEL + t] == s[S_LEVEL + b]:
            s[X_BUF + n] = t
            n += 1
    return _belle_filter(s, n)


@njit
def _do_fire(s, b, target):
    if s[S_BULLETS + b] > 0:
        s[S_BULLETS + b] -= 1
        s[S_HIT + target] += 1
        s[S_FIRED] += 1
    if _has(s, b, K.DJANGO):
        car = s[S_CAR + target]
        if s[S_CAR + b] < car < s[X_CAB]:
            _place(s, target, car + 1, s[S_LEVEL + target])
        elif 0 < car < s[S_CAR + b]:
            _place(s, target, car - 1, s[S_LEVEL + target])


@njit
def _do_rob(s, f, b, kind):
    s[S_SPOT + 2 * s[S_CAR + b] + s[S_LEVEL + b]] -= _unit(kind)
    s[S_CARRY + b] += _unit(kind)
    v = KIND_VALUE[kind]
    f[F_MONEY + b] += v
    if kind == K.PURSE:
        f[F_PURSES + b] += v


@njit
def _drop(s, f, b, target, kind, keep):
    """``target`` drops a token of ``kind`` on its spot, or into Cheyenne's hands if ``keep``."""
    if kind == K.PURSE:  # a random one of its purses
        v = f[F_PURSES + target] / _count(s[S_CARRY + target], K.PURSE)
        f[F_PURSES + target] -= v
    else:
        v = KIND_VALUE[kind]
    s[S_CARRY + target] -= _unit(kind)
    f[F_MONEY + target] -= v
    if keep:
        s[S_CARRY + b] += _unit(kind)
        f[F_MONEY + b] += v
        f[F_PURSES + b] += v
    else:
        s[S_SPOT + 2 * s[S_CAR + target] + s[S_LEVEL + target]] += _unit(kind)


@njit(inline="always")
def _do_marshal(s, to_car):
    s[S_MARSHAL] = to_car
    _marshal_rule(s)


@njit
def _event(s, f, ev):
    """The round card's event on the sketch."""
    nb = s[X_NB]
    if ev == K.ANGRY_MARSHAL:
        mask = 0
        for b in range(nb):
            if s[S_LEVEL + b] == K.ROOF and s[S_CAR + b] == s[S_MARSHAL]:
                mask |= 1 << b
        _give_neutral(s, mask)
        if s[S_MARSHAL] < s[X_CAB]:
            _do_marshal(s, s[S_MARSHAL] + 1)
    elif ev == K.SWIVEL_ARM:
        for b in range(nb):
            if s[S_LEVEL + b] == K.ROOF:
                s[S_CAR + b] = s[X_CAB]
    elif ev == K.BRAKING:
        for b in range(nb):
            if s[S_LEVEL + b] == K.ROOF and s[S_CAR + b] > 0:
                s[S_CAR + b] -= 1
    elif ev == K.TAKE_IT_ALL:
        s[S_SPOT + 2 * s[S_MARSHAL] + K.INSIDE] += _unit(K.STRONGBOX)
    elif ev == K.PASSENGERS_REBELLION:
        mask = 0
        for b in range(nb):
            if s[S_LEVEL + b] == K.INSIDE:
                mask |= 1 << b
        _give_neutral(s, mask)
    elif ev == K.PICKPOCKETING:
        for b in range(nb):
            spot = 2 * s[S_CAR + b] + s[S_LEVEL + b]
            alone = True
            for o in range(nb):
                alone &= o == b or 2 * s[S_CAR + o] + s[S_LEVEL + o] != spot
            if alone and _count(s[S_SPOT + spot], K.PURSE) > 0:
                _do_rob(s, f, b, K.PURSE)
    elif ev == K.MARSHALS_REVENGE:
        for b in range(nb):
            n = _count(s[S_CARRY + b], K.PURSE)
            if s[S_LEVEL + b] == K.ROOF and s[S_CAR + b] == s[S_MARSHAL] and n > 0:
                v = min(LEAST_PURSE, f[F_PURSES + b] / n)
                s[S_CARRY + b] -= _unit(K.PURSE)
                f[F_PURSES + b] -= v
                f[F_MONEY + b] -= v
    elif ev == K.HOSTAGE_TAKING:
        for b in range(nb):
            if s[S_CAR + b] == K.LOCO:
                f[F_MONEY + b] += K.RANSOM_VALUE


# --- modelled choices: what the owner of a card will most likely do when it resolves ----------
@njit
def _model_move(s, b):
    """Toward the most valuable loot within reach, never inside the Marshal's car."""
    car = s[S_CAR + b]
    level = s[S_LEVEL + b]
    reach = s[X_REACH] if level == K.ROOF else 1
    best = -1
    best_v = -1e18
    for d in range(1, reach + 1):
        for c in (car - d, car + d):
            if 0 <= c <= s[X_CAB]:
                v = _grab(s, 2 * c + level)
                if level == K.INSIDE and c == s[S_MARSHAL]:
                    v -= 2000.0
                if v > best_v + TIE:
                    best_v = v
                    best = c
    return best


@njit
def _model_target(s, f, b, n):
    """The richest bandit of another team among ``s[X_BUF:X_BUF + n]``."""
    team = s[X_TEAM + b]
    best = s[X_BUF]
    for i in range(n):
        t = s[X_BUF + i]
        if s[X_TEAM + best] == team or (
                s[X_TEAM + t] != team and f[F_MONEY + t] > f[F_MONEY + best]):
            best = t
    return best


@njit
def _model_push(s, target):
    """Into the Marshal if he waits inside next door, else toward less loot."""
    car = s[S_CAR + target]
    level = s[S_LEVEL + target]
    best = -1
    best_v = 1e18
    for c in (car - 1, car + 1):
        if 0 <= c <= s[X_CAB]:
            v = _grab(s, 2 * c + level)
            if level == K.INSIDE and c == s[S_MARSHAL]:
                v -= 2000.0
            if v < best_v - TIE:
                best_v = v
                best = c
    return best


@njit
def _punch_kind(s, b, target):
    """The kind a punch makes ``target`` drop (Cheyenne prefers a purse to a jewel)."""
    tokens = s[S_CARRY + target]
    if _has(s, b, K.CHEYENNE) and tokens < _unit(K.STRONGBOX) and _count(tokens, K.PURSE) > 0:
        return K.PURSE
    return _best_kind(tokens)


@njit
def _punch_from(s, f, b, target, kind):
    """The rest of ``b``'s punch once ``target`` and the kind it drops (-1: none) are known."""
    if kind >= 0:
        _drop(s, f, b, target, kind, kind == K.PURSE and _has(s, b, K.CHEYENNE))
    _place(s, target, _model_push(s, target), s[S_LEVEL + target])


@njit
def _model_marshal(s, b):
    """Onto the car with the most bandits of other teams inside, away from ``b``'s team."""
    team = s[X_TEAM + b]
    m = s[S_MARSHAL]
    best = -1
    best_v = -1e18
    for c in (m - 1, m + 1):
        if 0 <= c <= s[X_CAB]:
            v = 0.0
            for t in range(s[X_NB]):
                if s[S_CAR + t] == c and s[S_LEVEL + t] == K.INSIDE:
                    v += -2.0 if s[X_TEAM + t] == team else 1.0
            if v > best_v + TIE:
                best_v = v
                best = c
    return best


@njit
def _play_card(s, f, card):
    """Resolve ``card`` on the sketch with its owner's modelled choices."""
    b = card_owner(card)
    kind = card_kind(card)
    if kind == K.MOVE:
        _place(s, b, _model_move(s, b), s[S_LEVEL + b])
    elif kind == K.FLOOR:
        _place(s, b, s[S_CAR + b], 1 - s[S_LEVEL + b])
    elif kind == K.FIRE:
        n = _fire_targets(s, b)
        if n > 0:
            _do_fire(s, b, _model_target(s, f, b, n))
    elif kind == K.ROB:
        k = _best_kind(s[S_SPOT + 2 * s[S_CAR + b] + s[S_LEVEL + b]])
        if k >= 0:
            _do_rob(s, f, b, k)
    elif kind == K.PUNCH:
        n = _punch_targets(s, b)
        if n > 0:
            target = _model_target(s, f, b, n)
            _punch_from(s, f, b, target, _punch_kind(s, b, target))
    elif kind == K.MARSHAL:
        _do_marshal(s, _model_marshal(s, b))


@njit(inline="always")  # small; called with constants (each would compile a copy)
def _resolve_pile(s, f, first):
    """Resolve the pile from card ``first`` on; cards the player cannot see are skipped."""
    for i in range(first, s[X_PILE_N]):
        if s[X_PILE + i] >= 0:
            _play_card(s, f, s[X_PILE + i])


# --- the evaluation -----------------------------------------------------------------------------
@njit
def _access(s, w, b):
    """Loot bandit ``b`` can reach from where it stands: the best it could rob there (less what
    others standing there may take first), or a neighbouring spot's at the ``reach`` share."""
    car = s[S_CAR + b]
    level = s[S_LEVEL + b]
    spot = 2 * car + level
    crowd = 0
    for o in range(s[X_NB]):
        crowd += o != b and s[S_CAR + o] == car and s[S_LEVEL + o] == level
    here = _grab(s, spot) * max(0.0, 1.0 - w[P_CROWD] * crowd)
    near = 0.0
    if not (level == K.ROOF and car == s[S_MARSHAL]):
        near = _grab(s, spot ^ 1)
    reach = s[X_REACH] if level == K.ROOF else 1
    for d in range(1, reach + 1):
        for c in (car - d, car + d):
            if 0 <= c <= s[X_CAB] and not (level == K.INSIDE and c == s[S_MARSHAL]):
                near = max(near, _grab(s, 2 * c + level))
    return max(here, w[P_REACH] * near)


@njit
def _exposed(s, b):
    """Opponents with bullets that have ``b`` in their line of fire (Belle: half as exposed)."""
    team = s[X_TEAM + b]
    n = _sight(s, b, False)  # lines of fire are symmetric, Tuco's shot through the roof aside
    m = 0
    for i in range(n):
        o = s[X_BUF + i]
        m += s[X_TEAM + o] != team and s[S_BULLETS + o] > 0
    for o in range(s[X_NB]):
        if s[X_TEAM + o] != team and s[S_BULLETS + o] > 0 and _has(s, o, K.TUCO) and \
                s[S_CAR + o] == s[S_CAR + b] and s[S_LEVEL + o] != s[S_LEVEL + b]:
            m += 1
    if _has(s, b, K.BELLE):
        return 0.5 * m
    return float(m)


@njit(inline="always")  # called with two constant offsets: compiled once each otherwise
def _gunslinger(s, f, w, out):
    """Each player's expected Gunslinger bonus, into ``f[out + q]``: a sigmoid of its lead in
    shots over the best other player, sharper as the game nears its end; sure at six shots."""
    players = s[X_PLAYERS]
    shots = f[F_SHOTS:F_SHOTS + MB]
    shots[:players] = 0.0
    for b in range(s[X_NB]):
        shots[s[X_TEAM + b]] += s[X_LOADED + b] - s[S_BULLETS + b]
    scale = 0.5 / (w[P_TAU] * f[F_TIME] + 0.1)
    for q in range(players):
        other = 0.0
        for o in range(players):
            if o != q:
                other = max(other, shots[o])
        if shots[q] >= K.BULLETS_PER_BANDIT:
            p = 1.0
        else:  # a sigmoid of the lead (ties share the bonus), without exp's cost
            z = (shots[q] - other + 0.5) * scale
            p = 0.5 + 0.5 * z / (1.0 + abs(z))
        f[out + q] = s[X_BONUS] * p


@njit
def _value(s, f, w):
    """What the sketched position is worth to the deciding player (module docstring)."""
    me = s[X_ME]
    players = s[X_PLAYERS]
    if s[X_BONUS] > 0 and s[S_FIRED] > 0:
        _gunslinger(s, f, w, F_WORTH)
    else:
        for q in range(MB):  # (a slice copy would compile numba's shape checks)
            f[F_WORTH + q] = f[F_GUN + q]
    clog = w[P_CLOG] * f[F_LATER]
    pot = w[P_POT_NOW] * f[F_ROB_NOW] + w[P_POT_LATER] * (f[F_LATER] > 0)
    alive = f[F_TIME] > 0
    for b in range(s[X_NB]):
        q = s[X_TEAM + b]
        v = f[F_MONEY + b] - clog * s[S_HIT + b]
        if q == me:
            v += pot * _access(s, w, b)
            if alive:
                if s[S_LEVEL + b] == K.INSIDE and abs(s[S_CAR + b] - s[S_MARSHAL]) == 1:
                    v -= w[P_MARSHAL_RISK]
                v -= w[P_EXPOSED] * _exposed(s, b)
        f[F_WORTH + q] += v
    top = -1e18
    total = 0.0
    for q in range(players):
        if q != me:
            top = max(top, f[F_WORTH + q])
            total += f[F_WORTH + q]
    return f[F_WORTH + me] - w[P_LEADER] * top - (1.0 - w[P_LEADER]) * total / (players - 1)


@njit
def _base_saved(s, f, w):
    """Save the working sketch as the base of every option, with its Gunslinger values."""
    s[S_FIRED] = 0
    if s[X_BONUS] > 0:
        _gunslinger(s, f, w, F_GUN)
    else:
        f[F_GUN:F_GUN + MB] = 0.0
    _save(s, f)


# --- the decisions ------------------------------------------------------------------------------
@njit(inline="always")
def _cards_drawn(obs, p):
    """Cards a draw brings ``p`` (flow.draw_cards): with the advanced rules an empty deck takes
    the shuffled discards."""
    left = obs.ncards[p, Z_DECK]
    if obs.opts[O_ADVANCED] == 1:
        left += obs.ncards[p, Z_DISCARD]
    return min(obs.opts[O_DRAW_COUNT], left)


@njit
def _plan(obs, options, w, rng, s, f):
    me = s[X_ME]
    _resolve_pile(s, f, 0)
    after, total = turns_after(obs)
    later = obs.game[G_N_ROUNDS] - 1 - obs.game[G_ROUND]
    f[F_LATER] = later
    f[F_TIME] = later + (after + 1.0) / total
    _base_saved(s, f, w)
    ev = event_of(obs, obs.rounds[obs.game[G_ROUND]])
    playable = 0
    robs = 0
    for i in range(obs.ncards[me, Z_HAND]):
        k = card_kind(obs.cards[me, Z_HAND, i])
        playable += k != K.BULLET
        robs += k == K.ROB
    drawn = _cards_drawn(obs, me)
    best = -1e300
    chosen = 0
    ties = 0
    for i in range(options.shape[0]):
        v = options[i]
        if i > 0:
            _restore(s, f)
        if v == OPT_DRAW:
            f[F_ROB_NOW] = after > 0 and robs > 0
            bonus = 0.0
            if after > 0:
                bonus = w[P_DRAW] - w[P_DRAW_NEED] * max(0, after - playable - drawn)
        else:
            card = v & ~FACE_DOWN
            f[F_ROB_NOW] = after > 0 and robs - (card_kind(card) == K.ROB) > 0
            _play_card(s, f, card)
            bonus = w[P_HIDE] if v & FACE_DOWN else 0.0
            bonus -= w[P_DRAW_NEED] * max(0, after - (playable - 1))
        if after == 0:
            _event(s, f, ev)
        best, chosen, ties = pick(_value(s, f, w) + bonus, best, chosen, ties, i, rng)
    return chosen


@njit
def _apply_option(s, f, kind, value, b, target):
    """Option ``value`` of bandit ``b``'s card being resolved (``target``: the punched bandit)."""
    if kind == DK_MOVE:
        _place(s, b, value, s[S_LEVEL + b])
    elif kind == DK_FIRE:
        _do_fire(s, b, value)
    elif kind == DK_ROB:
        _do_rob(s, f, b, value)
    elif kind == DK_PUNCH_TARGET:
        _punch_from(s, f, b, value, _punch_kind(s, b, value))
    elif kind == DK_PUNCH_LOOT:
        _punch_from(s, f, b, target, value)
    elif kind == DK_CHEYENNE:
        if value == 1:  # the purse lies on the target's spot: into Cheyenne's hands
            s[S_SPOT + 2 * s[S_CAR + target] + s[S_LEVEL + target]] -= _unit(K.PURSE)
            s[S_CARRY + b] += _unit(K.PURSE)
            f[F_MONEY + b] += EXPECTED_PURSE
            f[F_PURSES + b] += EXPECTED_PURSE
        _place(s, target, _model_push(s, target), s[S_LEVEL + target])
    elif kind == DK_PUNCH_DIR:
        _place(s, target, value, s[S_LEVEL + target])
    else:  # DK_MARSHAL
        _do_marshal(s, value)


@njit
def _resolve(obs, kind, options, w, rng, s, f):
    later = obs.game[G_N_ROUNDS] - 1 - obs.game[G_ROUND]
    f[F_LATER] = later
    f[F_TIME] = later
    f[F_ROB_NOW] = 0.0
    _base_saved(s, f, w)
    ev = event_of(obs, obs.rounds[obs.game[G_ROUND]])
    pos = obs.game[G_POS]
    b = card_owner(obs.pile[pos, PILE_CARD])
    target = obs.game[G_T_TARGET]
    best = -1e300
    chosen = 0
    ties = 0
    for i in range(options.shape[0]):
        if i > 0:
            _restore(s, f)
        _apply_option(s, f, kind, options[i], b, target)
        _resolve_pile(s, f, pos + 1)
        _event(s, f, ev)
        best, chosen, ties = pick(_value(s, f, w), best, chosen, ties, i, rng)
    return chosen


@njit
def decide(obs, kind, options, w, rng, s, f):
    """The planner's choice under weights ``w`` (``float64[N_PARAMS]``, see ``PARAM_NAMES``), in
    the scratch arrays ``s`` (``int64[N_INTS]``) and ``f`` (``float64[N_FLOATS]``): a search can
    call it on sampled worlds, for any seat, without allocating."""
    if kind == DK_DISCARD or kind == DK_KEEP:
        return pick_best(obs, kind, options, GREEDY_WEIGHTS, rng)
    if kind == DK_PICKPOCKET:
        return 0 if options[0] == 1 else 1
    _read(obs, obs.game[G_PEND_PLAYER], s, f)
    if kind == DK_PLAN:
        return _plan(obs, options, w, rng, s, f)
    return _resolve(obs, kind, options, w, rng, s, f)


@njit(inline="always")
def plan_with(obs, kind, options, w, rng):
    """``decide`` under the weights ``w`` in the scratch of ``obs`` (the state or the
    observation it reads)."""
    f = obs.fscratch[:N_FLOATS]
    for i in range(N_PARAMS):  # (in the scratch, the planner is compiled once for any w)
        f[F_WEIGHTS + i] = w[i]
    return decide(obs, kind, options, f[F_WEIGHTS:F_WEIGHTS + N_PARAMS], rng,
                  obs.scratch[:N_INTS], f)


@njit
def planner_policy(obs, kind, options, params, rng):
    """The planner with the weights of ``params`` (all zeros: ``DEFAULT_WEIGHTS``)."""
    unset = True
    for i in range(len(PARAM_NAMES)):
        unset &= params[i] == 0.0
    if unset:
        return plan_with(obs, kind, options, DEFAULT_WEIGHTS, rng)
    return plan_with(obs, kind, options, params, rng)
