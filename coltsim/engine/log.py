"""Trace records written by the kernel when ``st.log`` has rows (trace.py turns them into JSON).

One row of ``LOG_W`` integers per record.  Columns:
``R_TYPE`` (REC_*), ``R_ROUND``, ``R_INDEX`` (turn or pile index), ``R_PLAYER``, ``R_BANDIT``,
``R_CARD`` (card code, event code or round card), ``R_P0..`` record parameters, ``R_HITS`` and
``R_GIVEN`` (bitmasks of bandits), ``R_EFFECT``, then from ``R_SNAP`` a snapshot of the state:
Marshal, neutral bullets left, ``SNAP_B`` fields per bandit, and where every loot token is.
Hand records put their cards from ``R_SNAP`` instead.
"""
from .. import constants as K
from .._jit import njit
from .state import (
    B_BULLETS, B_CAR, B_LEVEL, B_NEUTRAL, B_RECEIVED, G_BANDITS, G_GIVEN, G_HITS, G_LOG_N,
    G_MARSHAL, G_NEUTRAL_LEFT, G_ROUND, L_WHERE,
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
R_SNAP = 24
SNAP_B_FIELDS = (B_CAR, B_LEVEL, B_BULLETS, B_RECEIVED, B_NEUTRAL)
SNAP_B = len(SNAP_B_FIELDS)
SNAP_LOOT = R_SNAP + 2 + SNAP_B * K.MAX_BANDITS

# Plan choices (R_P0 of a REC_PLAN row).
PLAN_PLAY = 0
PLAN_DRAW = 1
PLAN_PASS = 2


@njit(inline="always")
def log_row(st, rec_type, index, player, bandit, card):
    """Start a record; returns its row, or -1 when the game is not traced."""
    row = st.game[G_LOG_N]
    if row >= st.log.shape[0]:
        return -1
    st.game[G_LOG_N] = row + 1
    st.log[row, :] = -1
    st.log[row, R_TYPE] = rec_type
    st.log[row, R_ROUND] = st.game[G_ROUND]
    st.log[row, R_INDEX] = index
    st.log[row, R_PLAYER] = player
    st.log[row, R_BANDIT] = bandit
    st.log[row, R_CARD] = card
    return row


@njit
def log_snapshot(st, row):
    """Close a state-carrying record: hits, neutral bullets given, and the state after it."""
    if row < 0:
        return
    st.log[row, R_HITS] = st.game[G_HITS]
    st.log[row, R_GIVEN] = st.game[G_GIVEN]
    st.log[row, R_SNAP] = st.game[G_MARSHAL]
    st.log[row, R_SNAP + 1] = st.game[G_NEUTRAL_LEFT]
    for b in range(st.game[G_BANDITS]):
        for f in range(SNAP_B):
            st.log[row, R_SNAP + 2 + SNAP_B * b + f] = st.bandit[b, SNAP_B_FIELDS[f]]
    for t in range(K.N_LOOT):
        st.log[row, SNAP_LOOT + t] = st.loot[t, L_WHERE]
