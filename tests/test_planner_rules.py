"""The planner's restated rules held against the engine, on positions reached in play.

``coltsim/policies/planner.py`` resolves cards and events on a small sketch of the position
(integer array ``s``, float array ``f``) instead of on a copied State, for speed (STYLE.md 13:
a restatement kept for speed is tested against the engine).  This module plays games
(random, greedy and planner seats, 2 to 6 players, varied rule options) and, at every position
where a card is about to resolve, a card decision is pending or a round's event is about to
happen, compares the sketch with the engine:

========================= ==============================================================================
rule                      what is compared
========================= ==============================================================================
``read``                  ``_read`` of the position against the engine's state itself
``sight``                 ``_sight`` (lines of fire, Tuco's through the roof) of every bandit against
                          ``actions.sight_targets``, as sets
``fire_targets``          ``_fire_targets`` (bullets, Django's option, ``_belle_filter``) of every bandit
                          against ``actions.fire_targets``
``punch_targets``         ``_punch_targets`` of every bandit against ``actions.punch_targets``
``move``, ``floor``,      every way the card about to resolve can resolve (every path through the
``fire``, ``rob``,        engine's decisions: each Move destination, Fire target, Robbery kind, Punch
``punch``, ``marshal``    target x dropped kind x Cheyenne's keep x direction, Marshal destination), played
                          by flow.py on a copy of the state and by the sketch's rule functions
                          (``_place`` with the Marshal rule and ``_give_neutral``, ``_do_fire`` with
                          Django's push, ``_do_rob``, ``_drop``, ``_do_marshal``) with the same choices
``event_*``               ``_event`` for each of the eight events against flow.py resolving the event on
                          a copy (Pickpocketing: every eligible bandit takes the purse, as the planner
                          both plays and models it)
``play_card``             ``_play_card`` (the owner's modelled choices) against flow.py answering each of
                          the card's decisions with that model's choice, which must be one of the
                          engine's options
``apply_option``          at each card decision met in play, ``_apply_option`` for every option against
                          flow.py applying that option, the rest of the card answered by the model
``draw``                  at each planning decision that may draw, ``_cards_drawn`` against the cards
                          the draw brings on a copy
``turns_after``           at each planning decision, ``common.turns_after`` (the player's cards still to
                          play this round: every policy's count, test_common_turns_after_is_every_
                          policys) against the player's turns flow.py still gives it this round,
                          played out on a copy (a forced pass counted as a turn)
========================= ==============================================================================

A resolved position (all but the last two rules) is compared field by field: every bandit's car and level, bullet cards
left, bullet cards received (from bandits and neutral), tokens carried of each kind (purse,
jewel, strongbox); the Marshal's car; neutral bullets left; the tokens of each kind lying on
every spot.

What the sketch deliberately simplifies, and is therefore not compared:

- **Purse values.**  The sketch values a purse it cannot see at ``EXPECTED_PURSE``, a purse
  taken blind at that mean, one dropped at the mean of the bandit's purses and Marshal's Revenge
  at ``min(LEAST_PURSE, mean)``; only the count of purses is compared.  The value of everything
  else a bandit carries (``F_MONEY - F_PURSES``: jewels, strongboxes, ransoms) is compared.
- **The pile it cannot see** (opponents' face-down cards) is skipped by ``_resolve_pile``; each
  card is checked here on its own, at the moment it resolves.
- **The owners' choices** are a model (``_model_*``); ``play_card`` checks only that the model's
  choice is legal and that the card it describes resolves as in the engine.
- **Lines of fire seen by opponents** (``_exposed``) reuse ``_sight`` with Tuco's shot through the
  roof assumed symmetric: not a rule of resolution, not compared.
- **The bandits' hands and decks** (bullet cards received are counted, not placed), the trace
  registers and ``G_NEUTRAL_REMOVED`` are not in the sketch.

The comparison runs in one compiled kernel (``_check_games``) that returns, per rule, the
checks made and the mismatches found with the first mismatching position (its state, game and
path); the test asserts no mismatch and that every rule, and every special case of the rules
listed in ``CASE_NAMES``, was met often enough for the test not to pass vacuously.
"""
import time

import numba
import numpy as np
import pytest

from coltsim import constants as K
from coltsim.engine import actions as A
from coltsim.engine.flow import (
    DK_CHEYENNE, DK_FIRE, DK_MARSHAL, DK_MOVE, DK_PLAN, DK_PUNCH_DIR, DK_PUNCH_LOOT,
    DK_PUNCH_TARGET, DK_ROB, OPT_DRAW, STEP_OVER, _slot_player, apply, step, turns_of,
)
from coltsim.engine.setup import setup_game
from coltsim.engine.state import (
    B_BULLETS, B_CAR, B_LEVEL, B_NEUTRAL, B_RECEIVED, G_BANDITS, G_CARS, G_GAME_INDEX, G_GIVEN,
    G_HITS, G_MARSHAL, G_NEUTRAL_LEFT, G_NEUTRAL_REMOVED, G_PEND_KIND, G_PEND_N,
    G_PEND_PLAYER, G_PHASE, G_PILE_N, G_PLAYERS, G_POS, G_ROUND, G_SLOT, G_T_PUSHED, G_T_TARGET,
    G_TURN, L_KIND, L_VALUE, L_WHERE, N_SCRATCH, PH_EVENT, PH_SCHEME, PH_STEAL, PILE_CARD,
    PILE_PLAYER, Z_HAND,
    card_kind, card_owner, init_table, new_states, place,
)
from coltsim.policies import common as C
from coltsim.policies import planner as P
from coltsim.policies import param_vector
from coltsim.policies.builtin import choose_weighted
from coltsim.policies.models import model_planner, model_random
from coltsim.rules import Rules

jit = numba.njit(cache=True)

RULE_NAMES = (
    "read", "sight", "fire_targets", "punch_targets",
    "move", "floor", "fire", "rob", "punch", "marshal",
    "event_angry_marshal", "event_swivel_arm", "event_braking", "event_take_it_all",
    "event_passengers_rebellion", "event_pickpocketing", "event_marshals_revenge",
    "event_hostage_taking",
    "play_card", "apply_option",
    "draw", "turns_after",
)
R_READ, R_SIGHT, R_FIRE_TARGETS, R_PUNCH_TARGETS = 0, 1, 2, 3
R_CARD = 4  # + card kind (MOVE .. MARSHAL)
R_EVENT = 10  # + index in _EVENTS
R_PLAY_CARD = 18
R_APPLY_OPTION = 19
R_DRAW = 20
R_TURNS = 21
N_RULES = len(RULE_NAMES)
_EVENTS = np.array([K.ANGRY_MARSHAL, K.SWIVEL_ARM, K.BRAKING, K.TAKE_IT_ALL,
                    K.PASSENGERS_REBELLION, K.PICKPOCKETING, K.MARSHALS_REVENGE,
                    K.HOSTAGE_TAKING])
_EVENT_RULE = np.full(K.N_ROUND_CARDS + K.N_STATION_CARDS, -1, np.int64)
for _i, _ev in enumerate(_EVENTS):
    _EVENT_RULE[_ev] = R_EVENT + _i

# Special cases of the rules met while checking (in the engine's resolutions): each must occur.
CASE_NAMES = (
    "marshal_rule",  # a bandit sent to the roof by the Marshal
    "neutral_given",  # a neutral bullet received
    "neutral_unlimited",  # ... from an unlimited supply
    "neutral_runout",  # fewer left than bandits to receive them: nobody gets one
    "neutral_emptied",  # a giving took the last neutral bullets
    "belle_shield",  # Belle left out of a Fire's or a Punch's targets
    "tuco_through_roof",  # Tuco's line of fire through the roof
    "django_push",  # Django's Fire pushed its target
    "django_dry",  # Django's Fire with no bullet left still aims (the option)
    "punch_drop",  # a punched bandit dropped loot
    "cheyenne_keep",  # Cheyenne kept the dropped purse
    "fizzle",  # a card that did nothing (no target, no loot)
)
(C_MARSHAL_RULE, C_NEUTRAL_GIVEN, C_NEUTRAL_UNLIMITED, C_NEUTRAL_RUNOUT, C_NEUTRAL_EMPTIED,
 C_BELLE_SHIELD, C_TUCO_ROOF, C_DJANGO_PUSH, C_DJANGO_DRY, C_PUNCH_DROP, C_CHEYENNE_KEEP,
 C_FIZZLE) = range(len(CASE_NAMES))
N_CASES = len(CASE_NAMES)

# Fields a resolved position is compared on (the code of the first that differs, in ex_info).
DIFF_NAMES = ("", "car or level", "bullets left", "bullets received", "tokens carried",
              "value carried other than purses", "Marshal", "neutral bullets left",
              "tokens on a spot", "model's choice not a legal option",
              "target set", "cards drawn", "turns left")
D_PLACE, D_BULLETS, D_HIT, D_CARRY, D_VALUE, D_MARSHAL, D_NEUTRAL, D_SPOT, D_ILLEGAL, \
    D_SET, D_DRAWN, D_TURNS = range(1, 13)

MAX_DEPTH = 6  # decisions in one card: a Punch asks at most four
EX_W = 6 + 2 * MAX_DEPTH  # ex_info columns: game, pile pos, card, field, depth, bandit, path
# states[GAME] is the game, states[1:1 + N_SCRATCH] the choosers' scratch, then work copies.
GAME = 0
WORK = 1 + N_SCRATCH
N_STATES = WORK + 1


# --- the engine's position, as the sketch should hold it -----------------------------------------
@jit
def _differs(s, f, st):
    """The first field (D_*) in which the sketch ``s``, ``f`` differs from the state; 0: none."""
    nb = st.game[G_BANDITS]
    for b in range(nb):
        if s[P.S_CAR + b] != st.bandit[b, B_CAR] or s[P.S_LEVEL + b] != st.bandit[b, B_LEVEL]:
            return D_PLACE
        if s[P.S_BULLETS + b] != st.bandit[b, B_BULLETS]:
            return D_BULLETS
        if s[P.S_HIT + b] != st.bandit[b, B_RECEIVED] + st.bandit[b, B_NEUTRAL]:
            return D_HIT
        q = place(K.AT_BANDIT + b)
        for kind in range(3):
            if P._count(s[P.S_CARRY + b], kind) != st.held[q, kind]:
                return D_CARRY
        if s[P.S_CARRY + b] < 0:
            return D_CARRY
        other = 0.0
        for t in range(K.N_LOOT):
            if st.loot[t, L_WHERE] == K.AT_BANDIT + b and st.loot[t, L_KIND] != K.PURSE:
                other += st.loot[t, L_VALUE]
        if abs(f[P.F_MONEY + b] - f[P.F_PURSES + b] - other) > 1e-6:
            return D_VALUE
    if s[P.S_MARSHAL] != st.game[G_MARSHAL]:
        return D_MARSHAL
    if s[P.S_NEUTRAL] != st.game[G_NEUTRAL_LEFT]:
        return D_NEUTRAL
    for spot in range(K.MAX_SPOTS):
        if s[P.S_SPOT + spot] < 0:
            return D_SPOT
        for kind in range(3):
            n = st.held[spot, kind] if spot < 2 * (st.game[G_CARS] + 1) else 0
            if P._count(s[P.S_SPOT + spot], kind) != n:
                return D_SPOT
    return 0


@jit
def _same_set(s, m, out, n):
    """Whether ``s[X_BUF:X_BUF + m]`` and ``out[:n]`` list the same bandits, each once."""
    if m != n:
        return False
    a = 0
    c = 0
    for i in range(n):
        a |= 1 << s[P.X_BUF + i]
        c |= 1 << out[i]
    return a == c and _bits(a) == n


@jit
def _bits(x):
    n = 0
    while x:
        n += x & 1
        x >>= 1
    return n


# --- bookkeeping ----------------------------------------------------------------------------------
@jit
def _note(rule, diff, st, counts, bad, ex_states, ex_info, depth, b, kinds, vals):
    """Count a check of ``rule``; a mismatch (``diff`` > 0) keeps its first example."""
    counts[rule] += 1
    if diff == 0:
        return
    if bad[rule] == 0:
        ex_states[rule] = st
        ex_info[rule, 0] = st.game[G_GAME_INDEX]
        ex_info[rule, 1] = st.game[G_POS]
        ex_info[rule, 2] = st.pile[st.game[G_POS], PILE_CARD] \
            if st.game[G_PHASE] == PH_STEAL else -1
        ex_info[rule, 3] = diff
        ex_info[rule, 4] = depth
        ex_info[rule, 5] = b
        for i in range(depth):
            ex_info[rule, 6 + 2 * i] = kinds[i]
            ex_info[rule, 7 + 2 * i] = vals[i]
    bad[rule] += 1


@jit
def _case(st, w, cases):
    """Count the special cases a resolution on ``w`` (a copy of ``st``) met."""
    if w.game[G_HITS] != 0:
        cases[C_MARSHAL_RULE] += 1
    if w.game[G_GIVEN] != 0:
        cases[C_NEUTRAL_GIVEN] += 1
        if st.game[G_NEUTRAL_LEFT] < 0:
            cases[C_NEUTRAL_UNLIMITED] += 1
        if w.game[G_NEUTRAL_LEFT] == 0 and st.game[G_NEUTRAL_LEFT] > 0:
            cases[C_NEUTRAL_EMPTIED] += 1
    if w.game[G_NEUTRAL_REMOVED] > st.game[G_NEUTRAL_REMOVED]:
        cases[C_NEUTRAL_RUNOUT] += 1


# --- driving the engine through one card ------------------------------------------------------------
@jit
def _to_decision(w, pos):
    """Step ``w`` until the card at ``pos`` asks something or is done; True if it asks."""
    while w.game[G_PEND_N] == 0 and w.game[G_PHASE] == PH_STEAL and w.game[G_POS] == pos:
        step(w)
    return w.game[G_PEND_N] > 0 and w.game[G_PHASE] == PH_STEAL and w.game[G_POS] == pos


@jit
def _modelled(s, f, kind, b, target):
    """The planner's model of ``b``'s owner at a decision of its card (``_play_card``'s)."""
    if kind == DK_MOVE:
        return P._model_move(s, b)
    if kind == DK_FIRE:
        return P._model_target(s, f, b, P._fire_targets(s, b))
    if kind == DK_ROB:
        return P._best_kind(s[P.S_SPOT + 2 * s[P.S_CAR + b] + s[P.S_LEVEL + b]])
    if kind == DK_PUNCH_TARGET:
        return P._model_target(s, f, b, P._punch_targets(s, b))
    if kind == DK_PUNCH_LOOT:
        return P._punch_kind(s, b, target)
    if kind == DK_CHEYENNE:
        return 1
    if kind == DK_PUNCH_DIR:
        return P._model_push(s, target)
    return P._model_marshal(s, b)  # DK_MARSHAL


@jit
def _finish_modelled(w, pos, me, b, s2, f2):
    """Answer the rest of the card at ``pos`` on ``w`` with the planner's model, read from the
    engine's position at each decision; False if a modelled answer is not a legal option."""
    while _to_decision(w, pos):
        P._read(w, me, s2, f2)
        v = _modelled(s2, f2, w.game[G_PEND_KIND], b, w.game[G_T_TARGET])
        i = -1
        for j in range(w.game[G_PEND_N]):
            if w.options[j] == v:
                i = j
        if i < 0:
            return False
        apply(w, i)
    return True


@jit
def _mirror(s, f, card, kinds, vals, depth):
    """Resolve ``card`` on the sketch with the choices the engine was given."""
    b = card_owner(card)
    kind = card_kind(card)
    if kind == K.FLOOR:
        P._play_card(s, f, card)
    elif depth == 0:
        return  # a Fire, Robbery or Punch without target or loot
    elif kind == K.MOVE:
        P._place(s, b, vals[0], s[P.S_LEVEL + b])
    elif kind == K.FIRE:
        P._do_fire(s, b, vals[0])
    elif kind == K.ROB:
        P._do_rob(s, f, b, vals[0])
    elif kind == K.MARSHAL:
        P._do_marshal(s, vals[0])
    else:  # PUNCH: target, then the kind dropped (if any), Cheyenne's keep, the direction
        target = vals[0]
        dropped = -1
        keep = 0
        to_car = -1
        for i in range(1, depth):
            if kinds[i] == DK_PUNCH_LOOT:
                dropped = vals[i]
            elif kinds[i] == DK_CHEYENNE:
                keep = vals[i]
            elif kinds[i] == DK_PUNCH_DIR:
                to_car = vals[i]
        if dropped >= 0:
            P._drop(s, f, b, target, dropped, keep == 1)
        P._place(s, target, to_car, s[P.S_LEVEL + target])


@jit
def _check_targets(st, s, f, out, counts, bad, cases, ex_states, ex_info, kinds, vals):
    """Lines of fire, Fire targets and Punch targets of every bandit."""
    P._read(st, st.pile[st.game[G_POS], PILE_PLAYER], s, f)
    for b in range(st.game[G_BANDITS]):
        n = A.sight_targets(st, b, st.bandit[b, B_CAR], st.bandit[b, B_LEVEL], out)
        tuco = P._has(s, b, K.TUCO)
        m = P._sight(s, b, tuco)
        _note(R_SIGHT, 0 if _same_set(s, m, out, n) else D_SET, st, counts, bad, ex_states,
              ex_info, 0, b, kinds, vals)
        if tuco:
            for i in range(n):
                if st.bandit[out[i], B_CAR] == st.bandit[b, B_CAR]:
                    cases[C_TUCO_ROOF] += 1
        n_sight = n
        n = A.fire_targets(st, b, out)
        if 0 < n < n_sight:
            cases[C_BELLE_SHIELD] += 1
        m = P._fire_targets(s, b)
        _note(R_FIRE_TARGETS, 0 if _same_set(s, m, out, n) else D_SET, st, counts, bad,
              ex_states, ex_info, 0, b, kinds, vals)
        n = A.punch_targets(st, b, out)
        m = P._punch_targets(s, b)
        _note(R_PUNCH_TARGETS, 0 if _same_set(s, m, out, n) else D_SET, st, counts, bad,
              ex_states, ex_info, 0, b, kinds, vals)


@jit
def _check_card(states, s, f, s2, f2, counts, bad, cases, ex_states, ex_info, digits, kinds,
                vals):
    """Every way the card about to resolve on ``states[GAME]`` can resolve, on the engine and on
    the sketch; then the card with its owner's modelled choices (``_play_card``)."""
    st = states[GAME]
    pos = st.game[G_POS]
    card = st.pile[pos, PILE_CARD]
    me = st.pile[pos, PILE_PLAYER]
    b = card_owner(card)
    kind = card_kind(card)
    rule = R_CARD + kind
    digits[:] = 0
    while True:  # depth-first over the paths of decisions (digits: the option taken at each)
        states[WORK] = st
        w = states[WORK]
        depth = 0
        exhausted = -1
        while _to_decision(w, pos):
            if digits[depth] >= w.game[G_PEND_N]:
                exhausted = depth
                break
            kinds[depth] = w.game[G_PEND_KIND]
            vals[depth] = w.options[digits[depth]]
            apply(w, digits[depth])
            depth += 1
        if exhausted >= 0:
            digits[exhausted] = 0
            if exhausted == 0:
                break
            digits[exhausted - 1] += 1
            continue
        P._read(st, me, s, f)
        _mirror(s, f, card, kinds, vals, depth)
        _note(rule, _differs(s, f, w), st, counts, bad, ex_states, ex_info, depth, b, kinds,
              vals)
        _case(st, w, cases)
        if kind == K.FIRE and depth > 0:
            cases[C_DJANGO_PUSH] += w.game[G_T_PUSHED] >= 0
            cases[C_DJANGO_DRY] += st.bandit[b, B_BULLETS] == 0
        if kind == K.PUNCH:
            for i in range(depth):
                cases[C_PUNCH_DROP] += kinds[i] == DK_PUNCH_LOOT
                cases[C_CHEYENNE_KEEP] += kinds[i] == DK_CHEYENNE and vals[i] == 1
        if kind != K.MOVE and kind != K.FLOOR and kind != K.MARSHAL and depth == 0:
            cases[C_FIZZLE] += 1
        if depth == 0:
            break
        digits[depth - 1] += 1
    # The card as the planner projects it: its owner's modelled choices.
    P._read(st, me, s, f)
    P._play_card(s, f, card)
    states[WORK] = st
    w = states[WORK]
    legal = _finish_modelled(w, pos, me, b, s2, f2)
    _note(R_PLAY_CARD, _differs(s, f, w) if legal else D_ILLEGAL, st, counts, bad, ex_states,
          ex_info, 0, b, kinds, vals)


@jit
def _check_decision(states, s, f, s2, f2, counts, bad, ex_states, ex_info, kinds, vals):
    """Every option of the card decision pending on ``states[GAME]``: ``_apply_option`` on the
    sketch, the option then the model's answers on the engine."""
    st = states[GAME]
    pos = st.game[G_POS]
    me = st.game[G_PEND_PLAYER]
    b = card_owner(st.pile[pos, PILE_CARD])
    kind = st.game[G_PEND_KIND]
    target = st.game[G_T_TARGET]
    for i in range(st.game[G_PEND_N]):
        P._read(st, me, s, f)
        P._apply_option(s, f, kind, st.options[i], b, target)
        states[WORK] = st
        w = states[WORK]
        apply(w, i)
        legal = _finish_modelled(w, pos, me, b, s2, f2)
        kinds[0] = kind
        vals[0] = st.options[i]
        _note(R_APPLY_OPTION, _differs(s, f, w) if legal else D_ILLEGAL, st, counts, bad,
              ex_states, ex_info, 1, b, kinds, vals)


@jit
def _check_event(states, s, f, counts, bad, cases, ex_states, ex_info, kinds, vals):
    """The round's event on the sketch and on a copy (every Pickpocketing purse taken)."""
    st = states[GAME]
    ev = st.rounds[st.game[G_ROUND]]
    rule = _EVENT_RULE[ev]
    if rule < 0:
        return  # Tunnel and Bridge have none
    P._read(st, 0, s, f)
    P._event(s, f, ev)
    states[WORK] = st
    w = states[WORK]
    r = st.game[G_ROUND]
    while w.game[G_ROUND] == r:
        if w.game[G_PEND_N] > 0:
            apply(w, 0)  # Pickpocketing: options are (1 take, 0 leave)
        else:
            step(w)
    _note(rule, _differs(s, f, w), st, counts, bad, ex_states, ex_info, 0, -1, kinds, vals)
    _case(st, w, cases)


@jit
def _check_plan(states, counts, bad, ex_states, ex_info, kinds, vals):
    """The cards a draw brings and the turns left to the deciding player, on copies."""
    st = states[GAME]
    p = st.game[G_PEND_PLAYER]
    n = st.game[G_PEND_N]
    if st.options[n - 1] == OPT_DRAW:
        states[WORK] = st
        w = states[WORK]
        apply(w, n - 1)
        drawn = w.ncards[p, Z_HAND] - st.ncards[p, Z_HAND]
        kinds[0] = P._cards_drawn(st, p)
        vals[0] = drawn
        _note(R_DRAW, D_DRAWN if kinds[0] != drawn else 0, st, counts, bad, ex_states, ex_info,
              1, p, kinds, vals)
    after, total = C.turns_after(st)
    states[WORK] = st
    w = states[WORK]
    apply(w, 0)
    r = st.game[G_ROUND]
    left = 0
    while w.game[G_PHASE] == PH_SCHEME and w.game[G_ROUND] == r:
        if w.game[G_PEND_N] > 0:
            left += w.game[G_PEND_KIND] == DK_PLAN and w.game[G_PEND_PLAYER] == p
            apply(w, 0)
            continue
        turn = w.game[G_TURN]
        slot = w.game[G_SLOT]
        step(w)
        if w.game[G_PEND_N] == 0 and w.game[G_TURN] == turn and w.game[G_SLOT] == slot + 1:
            q, _ = _slot_player(w, turns_of(w, w.rounds[r])[turn], slot)  # a forced pass
            left += q == p
    kinds[0] = after
    vals[0] = left
    _note(R_TURNS, D_TURNS if after != left else 0, st, counts, bad, ex_states, ex_info, 1, p,
          kinds, vals)


NO_NET = np.zeros(1, np.float32)  # (these policies read no network)


@jit
def _choose(st, scratch, code, net):
    if code == 0:
        return model_random(st, scratch, net)
    if code == 1:
        return choose_weighted(st, scratch, net)  # greedy, or a preset of weighted (its row)
    return model_planner(st, scratch, net)


@jit
def _check_games(states, seed, first, max_games, max_positions, lineup, seat_code, counts, bad,
                 cases, ex_states, ex_info):
    """Play games ``first, first + 1, ...`` of ``seed`` on the table of ``states[GAME]`` (seat p
    plays ``seat_code[p]``: 0 random, 1 greedy or a weighted preset, 2 planner) and check the planner's rules at
    every position where a card is about to resolve, a card decision is pending or an event is
    about to happen (``positions``), and at every planning decision (``planning``), until
    ``max_positions`` positions (a whole game at a time) or ``max_games`` games; returns
    (games, positions, planning).  ``counts[rule]`` checks and ``bad[rule]`` mismatches
    grow, ``cases[case]`` the special cases met; the first mismatch of each rule is kept in
    ``ex_states[rule]`` and ``ex_info[rule]``."""
    st = states[GAME]
    s = np.zeros(P.N_INTS, np.int64)
    f = np.zeros(P.N_FLOATS)
    s2 = np.zeros(P.N_INTS, np.int64)
    f2 = np.zeros(P.N_FLOATS)
    out = np.zeros(2 * K.MAX_BANDITS + 1, np.int64)
    digits = np.zeros(MAX_DEPTH, np.int64)
    kinds = np.zeros(MAX_DEPTH, np.int64)
    vals = np.zeros(MAX_DEPTH, np.int64)
    positions = 0
    planning = 0
    games = 0
    while games < max_games and positions < max_positions:
        setup_game(st, seed, first + games, lineup)
        games += 1
        while True:
            n = st.game[G_PEND_N]
            phase = st.game[G_PHASE]
            if n > 0:
                kind = st.game[G_PEND_KIND]
                if kind == DK_PLAN:
                    planning += 1
                    _check_plan(states, counts, bad, ex_states, ex_info, kinds, vals)
                elif phase == PH_STEAL and DK_MOVE <= kind <= DK_MARSHAL:
                    positions += 1
                    P._read(st, st.game[G_PEND_PLAYER], s, f)
                    _note(R_READ, _differs(s, f, st), st, counts, bad, ex_states, ex_info, 0,
                          -1, kinds, vals)
                    _check_decision(states, s, f, s2, f2, counts, bad, ex_states, ex_info,
                                    kinds, vals)
                i = 0 if n == 1 else _choose(st, states[1:WORK], seat_code[st.game[G_PEND_PLAYER]],
                                             NO_NET)
                apply(st, i)
                continue
            if phase == PH_STEAL and st.game[G_POS] < st.game[G_PILE_N]:
                positions += 1
                P._read(st, st.pile[st.game[G_POS], PILE_PLAYER], s, f)
                _note(R_READ, _differs(s, f, st), st, counts, bad, ex_states, ex_info, 0, -1,
                      kinds, vals)
                _check_targets(st, s, f, out, counts, bad, cases, ex_states, ex_info, kinds,
                               vals)
                _check_card(states, s, f, s2, f2, counts, bad, cases, ex_states, ex_info,
                            digits, kinds, vals)
            elif phase == PH_EVENT and st.game[G_SLOT] == 0:
                positions += 1
                _check_event(states, s, f, counts, bad, cases, ex_states, ex_info, kinds, vals)
            if step(st) == STEP_OVER:
                break
    return games, positions, planning


# --- the tables played --------------------------------------------------------------------------
_POLICY_CODE = {"random": 0, "greedy": 1, "aggressive": 1, "planner": 2}
_CHARACTER = {name: i for i, name in enumerate(K.BANDIT_NAMES)}

# (players, rule options, seat policies (cycled), line-up or None for random characters).
# Few neutral bullets make the run-out rules bite; random seats wander into the Marshal.
TABLES = [
    (4, Rules(), ("planner",), None),
    (3, Rules(), ("greedy", "planner", "random"), None),
    (5, Rules(neutral_bullets=3), ("random", "planner"), None),
    (6, Rules(neutral_bullets=4, neutral_runout="until_empty"), ("random", "greedy"), None),
    (4, Rules(neutral_bullets=-1, django_push_without_bullets=True), ("random", "planner"),
     ("django", "belle", "tuco", "cheyenne")),
    (5, Rules(abilities=("ghost", "tuco", "django")), ("planner", "greedy"), None),
    (4, Rules(advanced=True, neutral_bullets=2), ("planner", "random"), None),
    (6, Rules(advanced=True, roof_move_max=1), ("greedy", "planner"), None),
    (3, Rules(django_push_without_bullets=True, roof_move_max=2, neutral_bullets=1,
              neutral_runout="until_empty", hand_size=10, rounds=8), ("aggressive", "random"),
     ("django", "cheyenne", "belle")),
    (2, Rules(advanced=True), ("planner", "random"), None),
]


def check_planner(positions: int, seed: int = 19) -> dict:
    """Play the TABLES in turn, checking the planner's rules on ``positions`` positions where a
    card or an event resolves (and on every planning decision of the same games)."""
    counts = np.zeros(N_RULES, np.int64)
    bad = np.zeros(N_RULES, np.int64)
    cases = np.zeros(N_CASES, np.int64)
    ex_states = new_states(N_RULES)
    ex_info = np.full((N_RULES, EX_W), -1, np.int64)
    where = np.full((N_RULES, 1), -1, np.int64)  # the table of each rule's first mismatch
    total = 0
    planning = 0
    games = 0
    per_table = -(-positions // len(TABLES))
    for t, (players, rules, seats, lineup) in enumerate(TABLES):
        nb = players * (2 if players == 2 else 1)
        states = new_states(N_STATES)
        names = [seats[p % len(seats)] for p in range(players)]
        codes = np.array([_POLICY_CODE[name] for name in names])
        params = np.array([param_vector(name) for name in names])
        init_table(states[GAME], players, rules.to_array(), codes, params)
        chars = np.full(nb, -1, np.int64) if lineup is None else \
            np.array([_CHARACTER[c] for c in lineup], np.int64)
        before = bad.copy()
        g, n, m = _check_games(states, seed, 1000 * t, 100_000, per_table, chars, codes, counts,
                            bad, cases, ex_states, ex_info)
        where[(before == 0) & (bad > 0), 0] = t
        games += g
        total += n
        planning += m
    return {"counts": counts, "bad": bad, "cases": cases, "positions": total,
            "planning": planning, "games": games,
            "ex_states": ex_states, "ex_info": ex_info, "where": where[:, 0]}


def _report(result) -> str:
    lines = []
    for r, name in enumerate(RULE_NAMES):
        if result["bad"][r]:
            info = result["ex_info"][r]
            path = [(int(info[6 + 2 * i]), int(info[7 + 2 * i])) for i in range(max(0, info[4]))]
            lines.append(f"{name}: {result['bad'][r]} of {result['counts'][r]} differ; first: "
                         f"table {result['where'][r]}, game {info[0]}, pile position {info[1]}, "
                         f"card {info[2]}, bandit {info[5]}, path (kind, value) {path}: "
                         f"{DIFF_NAMES[info[3]]}")
    return "\n".join(lines)


def _assert_agrees(result, least_rule, least_event, least_case, least_rare):
    assert result["bad"].sum() == 0, "the planner's sketch differs from the engine:\n" + \
        _report(result)
    for r, name in enumerate(RULE_NAMES):
        least = least_event if R_EVENT <= r < R_PLAY_CARD else least_rule
        assert result["counts"][r] >= least, f"rule {name} checked only {result['counts'][r]} times"
    for c, name in enumerate(CASE_NAMES):
        least = least_rare if name == "django_dry" else least_case  # he rarely runs dry
        assert result["cases"][c] >= least, f"case {name} met only {result['cases'][c]} times"


@jit
def _perturbed(states, field):
    """Deal a game, sketch it, change the sketch's ``field`` (D_*; 0: nothing): ``_differs``."""
    st = states[GAME]
    setup_game(st, 3, 0, np.full(st.game[G_PLAYERS], -1, np.int64))
    s = np.zeros(P.N_INTS, np.int64)
    f = np.zeros(P.N_FLOATS)
    P._read(st, 0, s, f)
    b = st.game[G_BANDITS] - 1
    if field == D_PLACE:
        s[P.S_LEVEL + b] = 1 - s[P.S_LEVEL + b]
    elif field == D_BULLETS:
        s[P.S_BULLETS + b] -= 1
    elif field == D_HIT:
        s[P.S_HIT + b] += 1
    elif field == D_CARRY:
        s[P.S_CARRY + b] += P._unit(K.JEWEL)
    elif field == D_VALUE:
        f[P.F_MONEY + b] += K.RANSOM_VALUE
    elif field == D_MARSHAL:
        s[P.S_MARSHAL] += 1
    elif field == D_NEUTRAL:
        s[P.S_NEUTRAL] -= 1
    elif field == D_SPOT:
        s[P.S_SPOT + 2 * st.game[G_CARS] + 1] += P._unit(K.PURSE)
    return _differs(s, f, st)


def test_the_comparison_sees_every_field():
    states = new_states(1)
    init_table(states[GAME], 4, Rules().to_array(), np.zeros(4, np.int64), np.zeros((4, 1)))
    for field in range(D_SPOT + 1):
        assert _perturbed(states, field) == field, DIFF_NAMES[field]


# The policies that count the turns left in a round: each must count them with common.turns_after,
# the count held against the engine here (the learned policy joins them with its rewrite).
TURNS_LEFT_CALLERS = ("coltsim.policies.planner",)


@pytest.mark.parametrize("module", TURNS_LEFT_CALLERS)
def test_common_turns_after_is_every_policys(module):
    import importlib

    source = importlib.import_module(module).__file__
    text = open(source).read()
    assert "turns_after(" in text and "def _turns" not in text and "turns_of(" not in text, \
        f"{module} counts the turns left in a round itself, not with common.turns_after"


def test_planner_rules_agree_with_the_engine():
    result = check_planner(5_000)
    assert result["positions"] >= 5_000
    _assert_agrees(result, least_rule=50, least_event=3, least_case=1, least_rare=0)


@pytest.mark.slow
def test_planner_rules_agree_with_the_engine_on_100000_positions():
    start = time.perf_counter()
    result = check_planner(100_000)
    assert result["positions"] >= 100_000
    _assert_agrees(result, least_rule=1_000, least_event=100, least_case=20, least_rare=5)
    print(f"{result['positions']} positions and {result['planning']} planning decisions of "
          f"{result['games']} games in "
          f"{time.perf_counter() - start:.1f} s; checks per rule: "
          + ", ".join(f"{n} {c}" for n, c in zip(RULE_NAMES, result["counts"])))
