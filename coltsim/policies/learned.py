"""``learned``: every option played on a copy of the position with the engine's own rules, and
the result valued by a function learned from search.

A decision of the player ``me``:

1. **Project.**  The position is copied into a scratch state; the cards ``me`` cannot see (other
   players' face-down cards not yet turned over) are taken off the copy's pile, every purse
   ``me`` does not know is given the mean value, and the rest of the pile is resolved by the
   engine (flow.step, flow.apply), each choice on the way made by the model ``greedy``.  For a planning decision this is the pile before ``me``'s card,
   resolved once for all options; for a card being resolved (Stealin'), each option is applied
   first and the rest of the visible pile resolved after it.
2. **Try each option.**  Planning: the projection is copied per option, ``me``'s card goes on the
   end of its pile and is resolved; drawing plays no card.  Then the round's event.
3. **Value** each result with ``features`` (loot, the Gunslinger race under the bonus in force,
   bullets received, reach, exposure, the Marshal, the hand and the round) and the learned
   weights ``WEIGHTS`` (a dot product); the best option is played, ties at random from ``me``'s
   own stream.

Only what ``me`` may know goes into a value: positions, loot kinds and counts, bullets, the
values of the purses ``me``'s bandits carry (a purse taken in the projection is worth its
expected value: a blind grab does not say which one), ``me``'s hand, the rule options.  The
projection runs the engine itself on the copy, so a rule changed in the engine, or a rule option
a designer changes, changes how ``learned`` thinks without a line here.  It costs a copy of the
state per option (engine/state.py) and a few resolved cards.

The weights are data (``learned.json`` beside this module: the weights by feature name and
their provenance), trained by ``coltsim train`` (coltsim/learn/): its closure hash covers the
file, so new weights recompile this module (coltsim._sources).
"""
import json
from pathlib import Path

import numpy as np

from .. import constants as K
from .._jit import njit
from ..engine import actions as A
from ..engine.rng import seed_streams
from ..engine.flow import (
    DK_DISCARD, DK_KEEP, DK_PICKPOCKET, DK_PLAN, FACE_DOWN, OPT_DRAW, STEP_DECISION, STEP_OVER,
    apply, step, turns_of,
)
from ..engine.state import (
    B_BULLETS, B_CAR, B_LEVEL, B_NEUTRAL, B_RECEIVED, B_TEAM, G_BANDITS, G_MARSHAL,
    G_N_ROUNDS, G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_PHASE, G_PILE_N, G_PLAYERS, G_POS,
    G_ROUND, G_SLOT, G_TURN, L_KIND, L_VALUE, L_WHERE, PH_EVENT, PH_STEAL, PILE_CARD, PILE_DOWN,
    PILE_N, PILE_PLAYER, Z_HAND, ability, caboose, card_kind, copy_state, count_loot,
)
from ..rules import O_GUNSLINGER_BONUS, O_ROOF_MOVE_MAX
from .heuristic import GREEDY_WEIGHTS, model_greedy, pick_best
from .observe import pile_revealed
from .view import EXPECTED_PURSE, KIND_VALUE, rand_below

# --- features: what a position is worth to ``me`` (in thousands of dollars where money) ------
FEATURES = (
    "bias",
    "loot",  # what me's bandits carry (own purses exact, purses taken in the projection: mean)
    "opponents_best",  # the richest other player's loot (its purses at their mean)
    "opponents_mean",
    "gunslinger_lead",  # bonus (thousands) x shot lead over the best other player, clipped to 3
    "gunslinger_ahead",  # bonus x (ahead in the race)
    "gunslinger_tied",  # bonus x (tied for the lead)
    "gunslinger_ahead_late",  # bonus x (ahead) x share of the game played
    "clog",  # bullet cards received x rounds left after this one
    "opponents_clog",  # their mean, the same
    "received",  # bullet cards received (the tie-break)
    "ammo",  # bullets left x share of the game left
    "here",  # what a Robbery on me's spot takes (its best token)
    "near",  # the best a Move or Floor Change away
    "lying_here",  # everything lying on me's spot
    "crowd",  # other bandits on me's spot
    "exposed",  # opponents with bullets who have me's bandit in their line of fire
    "marshal_next",  # inside, next to the Marshal's car
    "marshal_roof",  # on the roof of the Marshal's car
    "in_locomotive",
    "opponents_here",  # the mean of what a Robbery on each other player's spot takes
    "robberies_in_hand",  # after the option, while turns are left this round
    "short_of_cards",  # turns left this round the hand (after the option) cannot fill
    "draw",  # the option draws while turns are left this round
    "face_down",
    "move", "floor", "fire", "rob", "punch", "marshal",  # the option's card
    "time_left",  # share of the game left
)
N_FEATURES = len(FEATURES)
(F_BIAS, F_LOOT, F_OPP_BEST, F_OPP_MEAN, F_GUN_LEAD, F_GUN_AHEAD, F_GUN_TIED, F_GUN_AHEAD_LATE,
 F_CLOG, F_OPP_CLOG, F_RECEIVED, F_AMMO, F_HERE, F_NEAR, F_LYING, F_CROWD, F_EXPOSED,
 F_MARSHAL_NEXT, F_MARSHAL_ROOF, F_LOCO, F_OPP_HERE, F_ROBS, F_SHORT, F_DRAW, F_DOWN,
 F_CARD, _, _, _, _, _, F_TIME) = range(N_FEATURES)

WEIGHTS_FILE = Path(__file__).with_suffix(".json")
_MEAN_PURSE = round(EXPECTED_PURSE)  # a purse's value where it is not known
# Work space in a state's fscratch: a projection's per-player sums (features), a decision's
# feature row and option values (learned_decide; in the observation scratch, which is unused).
_PER_PLAYER = 64
_ROW = 0
_VALUES = N_FEATURES


def load_weights(path=WEIGHTS_FILE) -> np.ndarray:
    """The weights of ``path`` (a ``learned.json``: weights by feature name) in FEATURES order;
    a feature it does not name weighs 0."""
    try:
        return weights_array(json.loads(Path(path).read_text())["weights"])
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def weights_array(by_name: dict) -> np.ndarray:
    """Weights by feature name in FEATURES order; a feature not named weighs 0."""
    unknown = set(by_name) - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown features {sorted(unknown)}; known: {', '.join(FEATURES)}")
    return np.array([float(by_name.get(name, 0.0)) for name in FEATURES])


WEIGHTS = load_weights()


# --- the projection: the engine, on a copy, with greedy choices --------------------------------
@njit
def _play_phase(q, scratch, phase):
    """Play ``q`` on while it is in ``phase``, every choice made by ``greedy``."""
    while q.game[G_PHASE] == phase:
        s = step(q)
        if s == STEP_DECISION:
            apply(q, model_greedy(q, scratch))
        elif s == STEP_OVER:
            return


@njit
def _keep_seen(q, me, first):
    """Take off ``q``'s pile, from card ``first`` on, the cards ``me`` cannot see."""
    n = first
    for i in range(first, q.game[G_PILE_N]):
        if q.pile[i, PILE_PLAYER] == me or pile_revealed(q, i):
            for f in range(PILE_N):
                q.pile[n, f] = q.pile[i, f]
            n += 1
    q.game[G_PILE_N] = n


@njit
def _keep_known(q, me, rng):
    """Make ``q`` a projection that depends only on what ``me`` may know: every purse value it
    does not know is the mean purse's (greedy, choosing for another player, would read that
    player's own), and every random stream is keyed from ``me``'s own stream ``rng``."""
    for t in range(K.FIRST_PURSE, K.FIRST_PURSE + K.N_PURSES):
        w = q.loot[t, L_WHERE]
        if not (w >= K.AT_BANDIT and q.bandit[w - K.AT_BANDIT, B_TEAM] == me):
            q.loot[t, L_VALUE] = _MEAN_PURSE
    count_loot(q)
    seed_streams(q.rng, q.rng.shape[0], rng[0, 0], rng[0, 1])


@njit
def _steal_from(q, first):
    """Turn ``q`` to Stealin' at pile card ``first``, nothing pending."""
    q.game[G_PHASE] = PH_STEAL
    q.game[G_POS] = first
    q.game[G_PEND_N] = 0


# --- the value ---------------------------------------------------------------------------------
@njit
def _known_loot(real, q, me, b):
    """What bandit ``b`` carries in the projection ``q``, as ``me`` knows it: a purse is exact
    only if ``me``'s bandit carried it in the real position ``real``."""
    v = 0.0
    where = K.AT_BANDIT + b
    for t in range(K.N_LOOT):
        if q.loot[t, L_WHERE] == where:
            kind = q.loot[t, L_KIND]
            if kind == K.PURSE and not (q.bandit[b, B_TEAM] == me
                                        and real.loot[t, L_WHERE] == where):
                v += EXPECTED_PURSE
            else:
                v += q.loot[t, L_VALUE]
    return v / 1000.0


@njit(inline="always")
def _grab(q, spot):
    """What a Robbery on ``spot`` takes: its best token (thousands of dollars)."""
    held = q.held[spot]
    best = 0.0
    for kind in range(K.N_LOOT_KINDS):
        if held[kind] > 0:
            best = max(best, KIND_VALUE[kind])
    return best / 1000.0


@njit
def _position(q, b, me, out, buf):
    """The position features of ``me``'s bandit ``b`` in ``q`` into ``out`` (added)."""
    car = q.bandit[b, B_CAR]
    level = q.bandit[b, B_LEVEL]
    spot = 2 * car + level
    marshal = q.game[G_MARSHAL]
    out[F_HERE] += _grab(q, spot)
    held = q.held[spot]
    for kind in range(K.N_LOOT_KINDS):
        out[F_LYING] += held[kind] * KIND_VALUE[kind] / 1000.0
    near = 0.0
    if not (level == K.ROOF and car == marshal):
        near = _grab(q, spot ^ 1)  # a Floor Change away
    reach = q.opts[O_ROOF_MOVE_MAX] if level == K.ROOF else 1
    for d in range(1, reach + 1):
        for c in (car - d, car + d):
            if 0 <= c <= caboose(q) and not (level == K.INSIDE and c == marshal):
                near = max(near, _grab(q, 2 * c + level))
    out[F_NEAR] += near
    exposed = 0.0
    for o in range(q.game[G_BANDITS]):
        if q.bandit[o, B_TEAM] == me:
            continue
        if q.bandit[o, B_CAR] == car and q.bandit[o, B_LEVEL] == level:
            out[F_CROWD] += 1.0
        if q.bandit[o, B_BULLETS] > 0:
            n = A.sight_targets(q, o, q.bandit[o, B_CAR], q.bandit[o, B_LEVEL], buf)
            for i in range(n):
                exposed += buf[i] == b
    out[F_EXPOSED] += 0.5 * exposed if ability(q, b, K.BELLE) else exposed
    out[F_MARSHAL_NEXT] += level == K.INSIDE and abs(car - marshal) == 1
    out[F_MARSHAL_ROOF] += level == K.ROOF and car == marshal
    out[F_LOCO] += car == K.LOCO


@njit
def features(real, q, me, rounds_left, out, buf):
    """The position features of ``q`` for ``me`` into ``out[:N_FEATURES]`` (the option features
    are the caller's); ``real`` is the position the decision is taken in (what ``me`` knows of
    purse values), ``rounds_left`` the share of the game left when it is taken; ``buf`` is an
    ``int64[MAX_BANDITS]`` work space, and ``q``'s ``fscratch`` is used (a projection's)."""
    for i in range(N_FEATURES):
        out[i] = 0.0
    out[F_BIAS] = 1.0
    out[F_TIME] = rounds_left
    players = q.game[G_PLAYERS]
    n_rounds = q.game[G_N_ROUNDS]
    later = max(0.0, rounds_left * n_rounds - 1.0)  # whole rounds after the current one
    two_player = q.game[G_BANDITS] > players
    bonus = 0.0 if two_player else q.opts[O_GUNSLINGER_BONUS] / 1000.0
    # Per player: loot, shots fired, bullet cards received (in q's scratch: nothing allocated).
    mb = K.MAX_BANDITS
    loot = q.fscratch[_PER_PLAYER:_PER_PLAYER + mb]
    shots = q.fscratch[_PER_PLAYER + mb:_PER_PLAYER + 2 * mb]
    received = q.fscratch[_PER_PLAYER + 2 * mb:_PER_PLAYER + 3 * mb]
    loot[:] = 0.0
    shots[:] = 0.0
    received[:] = 0.0
    for b in range(q.game[G_BANDITS]):
        p = q.bandit[b, B_TEAM]
        loot[p] += _known_loot(real, q, me, b)
        shots[p] += K.BULLETS_PER_BANDIT - q.bandit[b, B_BULLETS]
        received[p] += q.bandit[b, B_RECEIVED] + q.bandit[b, B_NEUTRAL]
        if p == me:
            out[F_AMMO] += q.bandit[b, B_BULLETS] * rounds_left
            _position(q, b, me, out, buf)
        else:
            out[F_OPP_HERE] += _grab(q, 2 * q.bandit[b, B_CAR] + q.bandit[b, B_LEVEL])
    best = -1e9
    best_shots = 0.0
    total = 0.0
    total_received = 0.0
    for p in range(players):
        if p != me:
            best = max(best, loot[p])
            best_shots = max(best_shots, shots[p])
            total += loot[p]
            total_received += received[p]
    out[F_LOOT] = loot[me]
    out[F_OPP_BEST] = best
    out[F_OPP_MEAN] = total / (players - 1)
    out[F_OPP_HERE] /= q.game[G_BANDITS] - q.game[G_BANDITS] // players
    lead = shots[me] - best_shots
    out[F_GUN_LEAD] = bonus * max(-3.0, min(3.0, lead)) / 3.0
    out[F_GUN_AHEAD] = bonus * (lead > 0)
    out[F_GUN_TIED] = bonus * (lead == 0)
    out[F_GUN_AHEAD_LATE] = bonus * (lead > 0) * (1.0 - rounds_left)
    out[F_CLOG] = received[me] * later
    out[F_OPP_CLOG] = total_received / (players - 1) * later
    out[F_RECEIVED] = received[me]


# --- the decisions ------------------------------------------------------------------------------
@njit
def _turns_left(st):
    """Cards the deciding player still plays this round after the current one."""
    turns = turns_of(st, st.rounds[st.game[G_ROUND]])
    t = st.game[G_TURN]
    n = 1 if turns[t] == K.TURN_SPEEDING and st.game[G_SLOT] % 2 == 0 else 0
    for u in range(t + 1, K.MAX_TURNS):
        if turns[u] == K.NO_TURN:
            break
        n += 2 if turns[u] == K.TURN_SPEEDING else 1
    return n


@njit(inline="always")
def _time_left(st):
    """Share of the game left, counting the current round as half played."""
    return (st.game[G_N_ROUNDS] - st.game[G_ROUND] - 0.5) / st.game[G_N_ROUNDS]


@njit
def _value(f, w):
    v = 0.0
    for i in range(N_FEATURES):
        v += w[i] * f[i]
    return v


@njit
def _pick(score, best, chosen, ties, i, rng):
    """Running arg-max with uniform tie-breaking: the new (best, chosen, ties)."""
    if score > best + 1e-9:
        return score, i, 1
    if score >= best - 1e-9:
        ties += 1
        if rand_below(rng, ties) == 0:
            return best, i, ties
    return best, chosen, ties


@njit(inline="always")
def _keep(row, w, values, record, i):
    """Option ``i``'s feature ``row``: its value under ``w`` into ``values[i]``, the row into
    ``record[i]`` too when there is a record (None: none; a kernel without one compiles none)."""
    values[i] = _value(row, w)
    if record is not None:
        for j in range(N_FEATURES):
            record[i, j] = row[j]


@njit
def plan_values(st, scratch, options, w, rng, values, record, buf):
    """The value under ``w`` of each planning option ``options[i]`` of the deciding player of
    ``st`` into ``values[i]`` (and its features into ``record[i]``, if given); ``scratch[1]``
    and ``scratch[2]`` hold the projections, ``scratch[0]`` a feature row."""
    me = st.game[G_PEND_PLAYER]
    time_left = _time_left(st)
    row = scratch[0].fscratch[_ROW:_ROW + N_FEATURES]
    p = scratch[1]
    copy_state(scratch, 1, st)
    _keep_known(p, me, rng)
    _keep_seen(p, me, 0)
    first = p.game[G_PILE_N]
    _steal_from(p, 0)
    _play_phase(p, scratch, PH_STEAL)  # the visible pile, before me's card
    after = _turns_left(st)
    hand = st.cards[me, Z_HAND]
    playable = 0
    robs = 0
    for i in range(st.ncards[me, Z_HAND]):
        k = card_kind(hand[i])
        playable += k != K.BULLET
        robs += k == K.ROB
    for i in range(options.shape[0]):
        v = options[i]
        copy_state(scratch, 2, p)
        q = scratch[2]
        card = v & ~FACE_DOWN
        if v != OPT_DRAW:  # me's card resolves after the visible pile
            q.pile[first, PILE_CARD] = card
            q.pile[first, PILE_PLAYER] = me
            q.pile[first, PILE_DOWN] = 1 if v & FACE_DOWN else 0
            q.game[G_PILE_N] = first + 1
            _steal_from(q, first)
            _play_phase(q, scratch, PH_STEAL)
        _play_phase(q, scratch, PH_EVENT)
        features(st, q, me, time_left, row, buf)
        if after > 0:
            if v == OPT_DRAW:
                row[F_DRAW] = 1.0
                row[F_ROBS] = robs
                row[F_SHORT] = max(0, after - playable)
            else:
                row[F_ROBS] = robs - (card_kind(card) == K.ROB)
                row[F_SHORT] = max(0, after - (playable - 1))
        if v != OPT_DRAW:
            row[F_DOWN] = 1.0 if v & FACE_DOWN else 0.0
            row[F_CARD + card_kind(card)] = 1.0
        _keep(row, w, values, record, i)


@njit
def resolve_values(st, scratch, options, w, rng, values, record, buf):
    """The value under ``w`` of each option of the card being resolved at ``st`` (Stealin') into
    ``values[i]`` (and its features into ``record[i]``, if given); ``scratch[2]`` holds the
    projection, ``scratch[0]`` a feature row."""
    me = st.game[G_PEND_PLAYER]
    time_left = _time_left(st)
    pos = st.game[G_POS]
    row = scratch[0].fscratch[_ROW:_ROW + N_FEATURES]
    for i in range(options.shape[0]):
        copy_state(scratch, 2, st)
        q = scratch[2]
        _keep_known(q, me, rng)
        _keep_seen(q, me, pos + 1)
        apply(q, i)
        _play_phase(q, scratch, PH_STEAL)  # this card's later choices, then the visible pile
        _play_phase(q, scratch, PH_EVENT)
        features(st, q, me, time_left, row, buf)
        _keep(row, w, values, record, i)


@njit
def option_values(st, scratch, w, rng, values, record):
    """The value under ``w`` of every option of the pending decision of ``st`` into
    ``values[:n]`` (features into ``record[:n]`` if given), the projections' random streams
    keyed from the deciding player's own ``rng`` (read, not drawn from); False for a decision
    ``learned`` does not value (discards, a purse offered)."""
    kind = st.game[G_PEND_KIND]
    options = st.options[:st.game[G_PEND_N]]
    buf = scratch[0].scratch[:K.MAX_BANDITS]
    if kind == DK_PLAN:
        plan_values(st, scratch, options, w, rng, values, record, buf)
    elif kind == DK_DISCARD or kind == DK_KEEP or kind == DK_PICKPOCKET:
        return False
    else:
        resolve_values(st, scratch, options, w, rng, values, record, buf)
    return True


@njit
def learned_decide(st, scratch, w, rng):
    """The option index ``learned`` plays at the pending decision of ``st`` under weights ``w``
    (``float64[N_FEATURES]``), ties at random from ``rng``."""
    kind = st.game[G_PEND_KIND]
    n = st.game[G_PEND_N]
    options = st.options[:n]
    if kind == DK_PICKPOCKET:
        return 0 if options[0] == 1 else 1
    if kind == DK_DISCARD or kind == DK_KEEP:
        return pick_best(st, kind, options, GREEDY_WEIGHTS, rng)
    values = scratch[0].fscratch[_VALUES:_VALUES + n]
    option_values(st, scratch, w, rng, values, None)
    best = -1e300
    chosen = 0
    ties = 0
    for i in range(n):
        best, chosen, ties = _pick(values[i], best, chosen, ties, i, rng)
    return chosen


__all__ = ["FEATURES", "N_FEATURES", "WEIGHTS", "features", "learned_decide", "load_weights",
           "weights_array",
           "option_values"]
