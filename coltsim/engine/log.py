"""Trace records: the kernel notes what happened, the traced playout turns notes into log rows.

When ``game[G_TRACE]`` is 1, a rule that does something worth a trace line notes it in
``st.rec`` (``log_row``: at most ``MAX_RECORDS`` per step).  After every step the traced playout
calls ``drain_records``, which appends each note to the trace log (an ``int64[rows, LOG_W]``
array outside the state) with what the line must show of the state after the step: the train
and loot (``log_snapshot``), a player's new hand, the cards just drawn.  trace.py turns the rows
into JSON.  Untraced games note nothing and own no log.

Columns of a row: ``R_TYPE`` (REC_*), ``R_ROUND``, ``R_INDEX`` (turn or pile index),
``R_PLAYER``, ``R_BANDIT``, ``R_CARD`` (card code, event code or round card), ``R_P0..`` record
parameters, ``R_HITS`` and ``R_GIVEN`` (bitmasks of bandits), ``R_EFFECT``, then from ``R_SNAP``
a snapshot of the state: Marshal, neutral bullets left, ``SNAP_B`` fields per bandit, and where
every loot token is.  Hand records put their cards from ``R_SNAP`` instead.
"""
from .. import constants as K
from .._jit import njit
from .state import (
    B_BULLETS, B_CAR, B_LEVEL, B_NEUTRAL, B_RECEIVED, G_BANDITS, G_GIVEN, G_HITS, G_MARSHAL,
    G_NEUTRAL_LEFT, G_PLAYERS, G_REC_N, G_ROUND, G_TRACE, L_WHERE, MAX_RECORDS, REC_W, Z_DECK,
    Z_HAND,
)

REC_SETUP = 0
REC_ROUND = 1
REC_HAND = 2
REC_PLAN = 3
REC_ACTION = 4
REC_EVENT = 5
REC_DISCARD = 6  # advanced rules: a card discarded at the start (R_INDEX 0) or end (1) of Schemin'

R_TYPE = 0
R_ROUND = 1
R_INDEX = 2
R_PLAYER = 3
R_BANDIT = 4
R_CARD = 5
R_P0 = 6  # up to R_P0 + 9
R_HITS = 16
R_GIVEN = 17
R_EFFECT = 18
R_SNAP = REC_W  # 24: what drain_records adds to a note
SNAP_B_FIELDS = (B_CAR, B_LEVEL, B_BULLETS, B_RECEIVED, B_NEUTRAL)
SNAP_B = len(SNAP_B_FIELDS)
SNAP_LOOT = R_SNAP + 2 + SNAP_B * K.MAX_BANDITS
LOG_W = 128

# Plan choices (R_P0 of a REC_PLAN row).
PLAN_PLAY = 0
PLAN_DRAW = 1
PLAN_PASS = 2
# A draw's row lists the cards drawn from R_P0 + 3 (R_P0 + 2 says how many).
DRAWN = R_P0 + 3


@njit(inline="always")
def log_row(st, rec_type, index, player, bandit, card):
    """Note a record of the current step; returns its row of ``st.rec``, or -1 when the game is
    not traced."""
    if st.game[G_TRACE] == 0:
        return -1
    row = st.game[G_REC_N]
    st.game[G_REC_N] = row + 1
    if row >= MAX_RECORDS:
        return -1  # drain_records reports the overflow
    st.rec[row, :] = -1
    st.rec[row, R_TYPE] = rec_type
    st.rec[row, R_ROUND] = st.game[G_ROUND]
    st.rec[row, R_INDEX] = index
    st.rec[row, R_PLAYER] = player
    st.rec[row, R_BANDIT] = bandit
    st.rec[row, R_CARD] = card
    return row


@njit
def log_snapshot(st, log, row):
    """Close a state-carrying row: hits, neutral bullets given, and the state as it is now."""
    log[row, R_HITS] = st.game[G_HITS]
    log[row, R_GIVEN] = st.game[G_GIVEN]
    log[row, R_SNAP] = st.game[G_MARSHAL]
    log[row, R_SNAP + 1] = st.game[G_NEUTRAL_LEFT]
    for b in range(st.game[G_BANDITS]):
        for f in range(SNAP_B):
            log[row, R_SNAP + 2 + SNAP_B * b + f] = st.bandit[b, SNAP_B_FIELDS[f]]
    for t in range(K.N_LOOT):
        log[row, SNAP_LOOT + t] = st.loot[t, L_WHERE]


@njit
def _hand_row(st, log, n, p):
    """A REC_HAND row for player ``p``: its deck size and hand after the round's draw."""
    log[n, :] = -1
    log[n, R_TYPE] = REC_HAND
    log[n, R_ROUND] = st.game[G_ROUND]
    log[n, R_PLAYER] = p
    log[n, R_P0] = st.ncards[p, Z_DECK]
    h = st.ncards[p, Z_HAND]
    log[n, R_P0 + 1] = h
    for i in range(h):  # (loops, not slice copies, which compile numba's shape checks)
        log[n, R_SNAP + i] = st.cards[p, Z_HAND, i]


@njit
def drain_records(st, log, n):
    """Append the notes of the step just played to ``log`` from row ``n``; returns the new row
    count (``log.shape[0] + 1`` once the log is full: the caller reports the overflow)."""
    for i in range(min(st.game[G_REC_N], MAX_RECORDS)):
        rec = st.rec[i]
        rec_type = rec[R_TYPE]
        extra = st.game[G_PLAYERS] if rec_type == REC_ROUND else 0
        if n + 1 + extra > log.shape[0]:
            return log.shape[0] + 1
        log[n, :] = -1
        for j in range(REC_W):
            log[n, j] = rec[j]
        if rec_type == REC_SETUP or rec_type == REC_ACTION or rec_type == REC_EVENT:
            log_snapshot(st, log, n)
        elif rec_type == REC_PLAN and rec[R_P0] == PLAN_DRAW:
            p = rec[R_PLAYER]
            h = st.ncards[p, Z_HAND]
            k = rec[R_P0 + 2]
            for j in range(k):
                log[n, DRAWN + j] = st.cards[p, Z_HAND, h - k + j]
        n += 1
        for p in range(extra):
            _hand_row(st, log, n, p)
            n += 1
    if st.game[G_REC_N] > MAX_RECORDS:
        return log.shape[0] + 1
    st.game[G_REC_N] = 0
    return n
