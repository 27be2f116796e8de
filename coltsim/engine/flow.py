"""The course of a game as a resumable state machine (RULES.md 4, 10).

``advance(st)`` plays on until a player faces a real decision (two or more legal options; a
single option is taken without asking) and returns True, or until the game is over and returns
False.  The pending decision is ``game[G_PEND_PLAYER]`` (who), ``game[G_PEND_KIND]`` (a DK_*
code below) and ``options[:game[G_PEND_N]]``.  ``apply(st, i)`` carries out option ``i``.
A playout is therefore ``while advance(st): apply(st, choose(st))`` (coltsim.playout), and nothing in the
rules ever calls a policy, so a policy may itself simulate games with these functions.

Decision kinds and what their option values mean:

============== =================================================================================
DK_PLAN        a card to play ``card | FACE_DOWN`` (face-down flag), or ``OPT_DRAW``
DK_MOVE        destination car
DK_FIRE        target bandit
DK_ROB         loot kind
DK_PUNCH_TARGET, DK_PUNCH_LOOT, DK_PUNCH_DIR   target bandit, loot kind, destination car
DK_CHEYENNE    1 keep the dropped purse, 0 let it fall
DK_MARSHAL     destination car of the Marshal
DK_PICKPOCKET  1 take a purse, 0 leave it
DK_DISCARD, DK_KEEP  advanced rules: a card to discard, or ``OPT_STOP``
============== =================================================================================
"""

from .. import constants as K
from .._jit import njit
from ..rules import (
    O_ADVANCED, O_DOC_BONUS, O_DRAW_COUNT, O_EVENT, O_GHOST_BOTH_HALVES, O_HAND_SIZE, O_TURNS,
)
from . import actions as A
from . import events as E
from .log import (
    PLAN_DRAW, PLAN_PASS, PLAN_PLAY, R_EFFECT, R_P0, REC_ACTION, REC_DISCARD, REC_EVENT,
    REC_PLAN, REC_ROUND, log_row,
)
from .rng import RNG_CHANCE, shuffle
from .state import (
    G_BANDITS, G_CHECKPOINT, G_FIRST, G_GIVEN, G_HITS, G_N_ROUNDS, G_PEND_KIND, G_PEND_N,
    G_PEND_PLAYER, G_PHASE, G_PILE_N, G_PLAYERS, G_POS, G_ROUND, G_SLOT, G_T_EFFECT,
    G_T_PUSHED, G_T_TAKEN, G_T_TARGET, G_T_TO_CAR, G_T_TOKEN, G_TURN, PH_DISCARD, PH_EVENT,
    PH_KEEP, PH_OVER, PH_ROUND_START, PH_SCHEME, PH_STEAL, PILE_CARD, PILE_DOWN, PILE_PLAYER,
    B_DRAWS, B_FIZZLED, B_PLAYED, B_ROUND_LOOT, B_TEAM, Z_DECK, Z_DISCARD, Z_HAND, ability,
    card_kind, card_owner, move_zone, place, pop_card, push_card, remove_card,
)

DK_PLAN = 0
DK_MOVE = 1
DK_FIRE = 2
DK_ROB = 3
DK_PUNCH_TARGET = 4
DK_PUNCH_LOOT = 5
DK_CHEYENNE = 6
DK_PUNCH_DIR = 7
DK_MARSHAL = 8
DK_PICKPOCKET = 9
DK_DISCARD = 10
DK_KEEP = 11
DECISION_NAMES = ("plan", "move", "fire", "rob", "punch_target", "punch_loot", "cheyenne",
                  "punch_direction", "marshal", "pickpocket", "discard", "keep")

FACE_DOWN = 1 << 6
OPT_DRAW = 1 << 7
OPT_STOP = 1 << 8

@njit(inline="always")
def request(st, player, kind, n):
    st.game[G_PEND_PLAYER] = player
    st.game[G_PEND_KIND] = kind
    st.game[G_PEND_N] = n


@njit(inline="always")
def turns_of(st, card):
    """The turns of round card ``card`` at this table (TURN_*, padded with NO_TURN): rule
    options, printed or a designer's (rules.O_TURNS)."""
    at = O_TURNS + (card * 2 + (1 if st.game[G_PLAYERS] >= 5 else 0)) * K.MAX_TURNS
    return st.opts[at:at + K.MAX_TURNS]


@njit(inline="always")
def event_of(st, card):
    """The event round card ``card`` ends with, or NO_EVENT (rules.O_EVENT)."""
    return st.opts[O_EVENT + card]


# --- drawing ------------------------------------------------------------------------------------
@njit(inline="always")
def can_draw(st, p):
    return st.ncards[p, Z_DECK] > 0 or (st.opts[O_ADVANCED] == 1 and st.ncards[p, Z_DISCARD] > 0)


@njit
def draw_cards(st, p, k):
    """Draw up to ``k`` cards; with the advanced rules an empty deck takes the shuffled discards.

    Returns how many were drawn (they are the last ones of the hand)."""
    drawn = 0
    for _ in range(k):
        if st.ncards[p, Z_DECK] == 0:
            if st.opts[O_ADVANCED] == 0 or st.ncards[p, Z_DISCARD] == 0:
                break
            move_zone(st, p, Z_DISCARD, Z_DECK)
            shuffle(st.rng, RNG_CHANCE, st.cards[p, Z_DECK], st.ncards[p, Z_DECK])
        push_card(st, p, Z_HAND, pop_card(st, p, Z_DECK))
        drawn += 1
    return drawn


@njit
def hand_size(st, p):
    """Cards a player holds after the round's draw: hand_size, plus Doc's bonus."""
    n = st.opts[O_HAND_SIZE]
    for b in range(st.game[G_BANDITS]):
        if st.bandit[b, B_TEAM] == p and ability(st, b, K.DOC):
            n += st.opts[O_DOC_BONUS]
    return n


# --- round start --------------------------------------------------------------------------------
@njit
def _start_round(st):
    r = st.game[G_ROUND]
    log_row(st, REC_ROUND, -1, st.game[G_FIRST], -1, st.rounds[r])
    for p in range(st.game[G_PLAYERS]):
        if st.opts[O_ADVANCED] == 0:
            # Every card is back in the deck: shuffle it whole and draw a fresh hand.
            shuffle(st.rng, RNG_CHANCE, st.cards[p, Z_DECK], st.ncards[p, Z_DECK])
            draw_cards(st, p, hand_size(st, p))
        else:
            draw_cards(st, p, hand_size(st, p) - st.ncards[p, Z_HAND])
    st.game[G_PILE_N] = 0
    st.game[G_TURN] = 0
    st.game[G_SLOT] = 0
    st.game[G_POS] = 0
    st.game[G_PHASE] = PH_DISCARD if st.opts[O_ADVANCED] == 1 else PH_SCHEME


# --- advanced rules: discarding at the start and end of Schemin' ----------------------------------
@njit
def _distinct_hand_cards(st, p, out, n):
    """Append each distinct card of ``p``'s hand to ``out[n:]``; returns the new count."""
    hand = st.cards[p, Z_HAND]
    seen = 0  # bitmask of card codes already listed
    for i in range(st.ncards[p, Z_HAND]):
        c = hand[i]
        if not seen >> c & 1:
            seen |= 1 << c
            out[n] = c
            n += 1
    return n


@njit
def _discard_step(st):
    """Ask each player in turn order which card to discard (at the start of Schemin') or to
    discard rather than keep (at its end), until it says stop."""
    kind = DK_DISCARD if st.game[G_PHASE] == PH_DISCARD else DK_KEEP
    if st.game[G_POS] >= st.game[G_PLAYERS]:
        st.game[G_POS] = 0
        st.game[G_PHASE] = PH_SCHEME if kind == DK_DISCARD else PH_STEAL
        return
    p = (st.game[G_FIRST] + st.game[G_POS]) % st.game[G_PLAYERS]
    n = _distinct_hand_cards(st, p, st.options, 0)
    if n == 0:
        st.game[G_POS] += 1
        return
    st.options[n] = OPT_STOP
    request(st, p, kind, n + 1)


@njit
def _apply_discard(st, p, value, kind):
    if value == OPT_STOP:
        st.game[G_POS] += 1
        return
    remove_card(st, p, Z_HAND, value)
    push_card(st, p, Z_DISCARD, value)
    log_row(st, REC_DISCARD, 0 if kind == DK_DISCARD else 1, p, card_owner(value), value)


# --- Schemin' -----------------------------------------------------------------------------------
@njit(inline="always")
def _wrap(i, n):
    """``i % n`` for ``-n <= i < 2 * n``, without the division (a 64-bit one is slow)."""
    return i - n * (i >= n) + n * (i < 0)


@njit(inline="always")
def _slot_player(st, letter, slot):
    """Player and half-turn (speeding-up) of player-turn ``slot`` of a turn."""
    players = st.game[G_PLAYERS]
    first = st.game[G_FIRST]
    if letter == K.TURN_SWITCHING:
        return _wrap(first - slot, players), 0
    if letter == K.TURN_SPEEDING:
        return _wrap(first + slot // 2, players), slot % 2
    return _wrap(first + slot, players), 0


# The steps that run most often, Schemin' and Stealin' (with plan_options) and the plan's apply,
# are inlined into ``step`` and ``apply``: each is called from that one place, so nothing is
# compiled twice, and a game saves hundreds of calls (about 9% of a random game's time).
@njit(inline="always")
def plan_options(st, p, letter, turn, half):
    """Cards ``p`` may play (face up, or down in a tunnel or by Ghost's ability) and draw."""
    down = FACE_DOWN if letter == K.TURN_TUNNEL else 0
    ghosts = 0  # bitmask of the bandits whose cards may go face down by Ghost's ability
    if turn == 0 and (half == 0 or st.opts[O_GHOST_BOTH_HALVES] == 1) and down == 0:
        for b in range(st.game[G_BANDITS]):
            if ability(st, b, K.GHOST):
                ghosts |= 1 << b
    n = _playable_cards(st.cards[p, Z_HAND], st.ncards[p, Z_HAND], down, ghosts, st.options)
    if can_draw(st, p):
        st.options[n] = OPT_DRAW
        n += 1
    return n


@njit(inline="always")
def _playable_cards(hand, n_hand, down, ghosts, options):
    """Each distinct non-bullet card of ``hand[:n_hand]`` as ``card | down``, followed by
    ``card | FACE_DOWN`` when its owner is in ``ghosts``; returns how many were written."""
    n = 0
    seen = 0  # bitmask of card codes already offered
    for i in range(n_hand):
        # Branch-free: each slot is written, and kept only when ``new`` (or ``ghost``) is 1.
        c = hand[i]
        new = (card_kind(c) != K.BULLET) & ~(seen >> c) & 1
        seen |= new << c
        options[n] = c | down
        n += new
        ghost = new & (ghosts >> card_owner(c))
        options[n] = c | FACE_DOWN
        n += ghost
    return n


@njit(inline="always")
def _scheme_step(st):
    turns = turns_of(st, st.rounds[st.game[G_ROUND]])
    while True:  # past a turn whose player-turns are all done (nothing to note), to the next
        t = st.game[G_TURN]
        if t >= K.MAX_TURNS or turns[t] == K.NO_TURN:
            _end_scheme(st)
            return
        letter = turns[t]
        slots = st.game[G_PLAYERS] * (2 if letter == K.TURN_SPEEDING else 1)
        if st.game[G_SLOT] < slots:
            break
        st.game[G_TURN] += 1
        st.game[G_SLOT] = 0
    p, half = _slot_player(st, letter, st.game[G_SLOT])
    n = plan_options(st, p, letter, t, half)
    if n == 0:
        # Nothing to play and nothing to draw: the forced pass.
        row = log_row(st, REC_PLAN, t, p, -1, -1)
        if row >= 0:
            st.rec[row, R_P0] = PLAN_PASS
        st.game[G_SLOT] += 1
        return
    request(st, p, DK_PLAN, n)


@njit(inline="always")
def _apply_plan(st, p, value):
    t = st.game[G_TURN]
    if value == OPT_DRAW:
        for b in range(st.game[G_BANDITS]):
            st.bandit[b, B_DRAWS] += st.bandit[b, B_TEAM] == p
        n = draw_cards(st, p, st.opts[O_DRAW_COUNT])
        row = log_row(st, REC_PLAN, t, p, -1, -1)
        if row >= 0:
            st.rec[row, R_P0] = PLAN_DRAW
            st.rec[row, R_P0 + 2] = n  # the cards: the end of the hand (log.drain_records)
    else:
        card = value & ~FACE_DOWN
        remove_card(st, p, Z_HAND, card)
        i = st.game[G_PILE_N]
        st.pile[i, PILE_CARD] = card
        st.pile[i, PILE_PLAYER] = p
        st.pile[i, PILE_DOWN] = 1 if value & FACE_DOWN else 0
        st.game[G_PILE_N] = i + 1
        row = log_row(st, REC_PLAN, t, p, card_owner(card), card)
        if row >= 0:
            st.rec[row, R_P0] = PLAN_PLAY
            st.rec[row, R_P0 + 1] = st.pile[i, PILE_DOWN]
    st.game[G_SLOT] += 1


@njit
def _end_scheme(st):
    st.game[G_POS] = 0
    if st.opts[O_ADVANCED] == 1:
        st.game[G_PHASE] = PH_KEEP
        return
    for p in range(st.game[G_PLAYERS]):
        move_zone(st, p, Z_HAND, Z_DECK)
    st.game[G_PHASE] = PH_STEAL


# --- Stealin' -----------------------------------------------------------------------------------
@njit(inline="always")
def _begin_step(st):
    """Reset the registers a resolved card or an event reports in the trace."""
    st.game[G_T_TARGET] = -1
    st.game[G_T_TO_CAR] = -1
    st.game[G_T_TOKEN] = -1
    st.game[G_T_TAKEN] = 0
    st.game[G_T_PUSHED] = -1
    st.game[G_T_EFFECT] = 1
    st.game[G_HITS] = 0
    st.game[G_GIVEN] = 0


@njit(inline="always")
def _steal_step(st):
    i = st.game[G_POS]
    if i >= st.game[G_PILE_N]:
        st.game[G_PHASE] = PH_EVENT
        st.game[G_SLOT] = 0
        st.game[G_POS] = 0
        return
    _begin_step(st)
    card = st.pile[i, PILE_CARD]
    p = st.pile[i, PILE_PLAYER]
    b = card_owner(card)
    kind = card_kind(card)
    if kind == K.MOVE:
        request(st, p, DK_MOVE, A.move_options(st, b, st.options))
    elif kind == K.FLOOR:
        A.do_floor_change(st, b)
        _finish_card(st)
    elif kind == K.MARSHAL:
        request(st, p, DK_MARSHAL, A.marshal_options(st, st.options))
    else:
        if kind == K.FIRE:
            n = A.fire_targets(st, b, st.options)
            dk = DK_FIRE
        elif kind == K.ROB:
            n = A.rob_options(st, b, st.options)
            dk = DK_ROB
        else:
            n = A.punch_targets(st, b, st.options)
            dk = DK_PUNCH_TARGET
        if n == 0:
            st.game[G_T_EFFECT] = 0
            _finish_card(st)
        else:
            request(st, p, dk, n)


@njit(inline="always")
def _ask_punch_direction(st, p):
    request(st, p, DK_PUNCH_DIR, A.punch_direction_options(st, st.game[G_T_TARGET], st.options))


@njit
def _apply_card(st, p, kind, value):
    b = card_owner(st.pile[st.game[G_POS], PILE_CARD])
    if kind == DK_MOVE:
        A.do_move(st, b, value)
        st.game[G_T_TO_CAR] = value
    elif kind == DK_FIRE:
        st.game[G_T_TARGET] = value
        st.game[G_T_PUSHED] = A.do_fire(st, b, value)
    elif kind == DK_ROB:
        st.game[G_T_TOKEN] = A.do_rob(st, b, value)
    elif kind == DK_MARSHAL:
        A.do_marshal_move(st, value)
        st.game[G_T_TO_CAR] = value
    elif kind == DK_PUNCH_TARGET:
        st.game[G_T_TARGET] = value
        n = A.punch_loot_options(st, value, st.options)
        if n == 0:
            _ask_punch_direction(st, p)
        else:
            request(st, p, DK_PUNCH_LOOT, n)
        return
    elif kind == DK_PUNCH_LOOT:
        token = A.punch_drop(st, st.game[G_T_TARGET], value)
        st.game[G_T_TOKEN] = token
        if A.cheyenne_may_take(st, b, token):
            st.options[0] = 1
            st.options[1] = 0
            request(st, p, DK_CHEYENNE, 2)
        else:
            _ask_punch_direction(st, p)
        return
    elif kind == DK_CHEYENNE:
        if value == 1:
            A.take_token(st, b, st.game[G_T_TOKEN])
            st.game[G_T_TAKEN] = 1
        _ask_punch_direction(st, p)
        return
    else:  # DK_PUNCH_DIR
        A.do_punch_move(st, st.game[G_T_TARGET], value)
        st.game[G_T_TO_CAR] = value
    _finish_card(st)


@njit
def _finish_card(st):
    i = st.game[G_POS]
    card = st.pile[i, PILE_CARD]
    p = st.pile[i, PILE_PLAYER]
    row = log_row(st, REC_ACTION, i, p, card_owner(card), card_kind(card))
    if row >= 0:
        st.rec[row, R_P0] = st.game[G_T_TARGET]
        st.rec[row, R_P0 + 1] = st.game[G_T_TO_CAR]
        st.rec[row, R_P0 + 2] = st.game[G_T_TOKEN]
        st.rec[row, R_P0 + 3] = st.game[G_T_TAKEN]
        st.rec[row, R_P0 + 4] = st.game[G_T_PUSHED]
        st.rec[row, R_EFFECT] = st.game[G_T_EFFECT]
    # Counted when resolved, not when played: a card played face down is nobody's business yet.
    st.bandit[card_owner(card), B_PLAYED + card_kind(card)] += 1
    st.bandit[card_owner(card), B_FIZZLED] += st.game[G_T_EFFECT] == 0
    push_card(st, p, Z_DISCARD if st.opts[O_ADVANCED] == 1 else Z_DECK, card)
    st.game[G_POS] = i + 1
    _checkpoint(st)


@njit(inline="always")
def _checkpoint(st):
    """A card or an event has resolved: the moment a driver checks the invariants (playout.py)."""
    st.game[G_CHECKPOINT] += 1


# --- events ---------------------------------------------------------------------------------------
@njit
def _event_step(st):
    ev = event_of(st, st.rounds[st.game[G_ROUND]])
    if st.game[G_SLOT] == 0:
        _begin_step(st)
        st.evtok[:] = -1
        st.game[G_SLOT] = 1
        if ev == K.ANGRY_MARSHAL:
            E.event_angry_marshal(st)
        elif ev == K.SWIVEL_ARM:
            E.event_swivel_arm(st)
        elif ev == K.BRAKING:
            E.event_braking(st)
        elif ev == K.TAKE_IT_ALL:
            st.game[G_T_TOKEN] = E.event_take_it_all(st)
        elif ev == K.PASSENGERS_REBELLION:
            E.event_passengers_rebellion(st)
        elif ev == K.MARSHALS_REVENGE:
            E.event_marshals_revenge(st, st.evtok)
        elif ev == K.HOSTAGE_TAKING:
            E.event_hostage_taking(st, st.evtok)
        elif ev == K.PICKPOCKETING:
            return  # one bandit at a time, below
        _finish_event(st, ev)
        return
    # Pickpocketing: offer each lone bandit the purse, in bandit order.
    b = st.game[G_POS]
    if b >= st.game[G_BANDITS]:
        _finish_event(st, ev)
        return
    if E.pickpocket_eligible(st, b):
        st.options[0] = 1
        st.options[1] = 0
        request(st, st.bandit[b, B_TEAM], DK_PICKPOCKET, 2)
    else:
        st.game[G_POS] += 1


@njit
def _apply_pickpocket(st, value):
    b = st.game[G_POS]
    if value == 1:
        st.evtok[b] = E.do_pickpocket(st, b)
    st.game[G_POS] += 1


@njit
def _finish_event(st, ev):
    if ev != K.NO_EVENT:
        row = log_row(st, REC_EVENT, -1, -1, -1, ev)
        if row >= 0:
            for b in range(st.game[G_BANDITS]):  # (a slice copy would compile numba's checks)
                st.rec[row, R_P0 + b] = st.evtok[b]
            st.rec[row, R_P0 + 6] = st.game[G_T_TOKEN]
        _checkpoint(st)
    r = st.game[G_ROUND]
    for b in range(st.game[G_BANDITS]):  # the round's score, as the rules would count it now
        st.bandit[b, B_ROUND_LOOT + r] = st.held_value[place(K.AT_BANDIT + b)]
    st.game[G_ROUND] = r + 1
    st.game[G_FIRST] = (st.game[G_FIRST] + 1) % st.game[G_PLAYERS]
    st.game[G_POS] = 0
    st.game[G_SLOT] = 0
    st.game[G_PHASE] = PH_OVER if st.game[G_ROUND] >= st.game[G_N_ROUNDS] else PH_ROUND_START


# --- the two entry points ---------------------------------------------------------------------------
STEP_MOVED = 0
STEP_DECISION = 1
STEP_OVER = 2


@njit(inline="always")
def decision_pending(st):
    """A real decision (two or more legal options) waits for ``apply``."""
    return st.game[G_PEND_N] > 1


@njit
def step(st):
    """Do one unit of work: a phase step, or a decision with a single legal option.

    Returns STEP_DECISION when a real decision is pending, STEP_OVER when the game is over."""
    if decision_pending(st):
        return STEP_DECISION
    n = st.game[G_PEND_N]
    if n == 1:
        apply(st, n - 1)  # option 0, not spelt as a constant: numba would compile apply twice
        return STEP_MOVED
    phase = st.game[G_PHASE]
    if phase == PH_SCHEME:
        _scheme_step(st)
    elif phase == PH_STEAL:
        _steal_step(st)
    elif phase == PH_ROUND_START:
        _start_round(st)
    elif phase == PH_EVENT:
        _event_step(st)
    elif phase == PH_DISCARD or phase == PH_KEEP:
        _discard_step(st)
    else:
        return STEP_OVER
    return STEP_MOVED


@njit
def advance(st):
    """Play on until a real decision is pending (True) or the game is over (False)."""
    while not decision_pending(st):
        if step(st) == STEP_OVER:
            return False
    return True


@njit
def apply(st, i):
    """Carry out option ``i`` of the pending decision."""
    value = st.options[i]
    kind = st.game[G_PEND_KIND]
    p = st.game[G_PEND_PLAYER]
    st.game[G_PEND_N] = 0
    if kind == DK_PLAN:
        _apply_plan(st, p, value)
    elif kind == DK_PICKPOCKET:
        _apply_pickpocket(st, value)
    elif kind == DK_DISCARD or kind == DK_KEEP:
        _apply_discard(st, p, value, kind)
    else:
        _apply_card(st, p, kind, value)


