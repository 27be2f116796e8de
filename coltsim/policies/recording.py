"""Positions recorded for training ``learned`` (coltsim train): a share of the decisions of
games played through the one playout loop (coltsim.playout), labelled in one of two ways:

- **by outcome**: the position the chosen option leads to, encoded as ``learned`` reads it,
  and the game's outcome for the player who chose;
- **by a search** (a *teacher*, Expert Iteration: Anthony, Tian and Barber 2017): the decision
  is searched by ``ismcts`` (ismcts.ismcts_search, with the teacher's parameters, planners as
  its models and the teacher's network as its leaf value) and *every* option is recorded, one
  row each in the options' order: the position it leads to, encoded, and the search's mean
  outcome of it and its playouts.  A fit then compares the options of one decision
  (learn/fit.py: fit_options).  The game goes on with the seat's own choice, so the positions
  are those the player meets.

A recorder is a tuple of arrays, handed to the playout loop (``play_out``'s ``rec``; None
records nothing and compiles nothing of this):

==========  =========================================================================================
``x``       ``float32[cap, N_INPUTS]``: the chosen option's projected position (learned.py), encoded
``meta``    ``int32[cap, M_N]``: game, player, round, decision kind, options, explored (1 if the
            option was drawn at random rather than chosen), the decision's number in its game,
            the row's option (its index among the decision's options)
``y``       ``float32[cap, Y_N]``: by outcome, the decider's victory share and its score lead
            over the best other team in thousands of dollars (engine.scoring.outcome), once the
            game is over; by a search, the option's mean outcome and its playouts
``ctl``     ``float64[4]``: the share of decisions recorded, the share of those explored, 1 to
            record every player's position at the first decision of every round after the
            first too (decision kind -1: where ismcts's ``leaf`` values a playout stopped at
            the end of a round), 1 to label by the search
``count``   ``int64[4]``: rows written, 1 if a row did not fit (the caller grows the buffers and
            plays the games again: no row is ever lost), the first row of the current game, the
            round last seen
``pick``    ``uint64[1, 2]``: the recorder's random stream, keyed from (seed, game) apart from the
            game's streams (the teacher's searches draw from it too)
``teacher`` ``float64[N_PARAMS]``: the teacher's ``ismcts`` parameters (catalog.py)
``net``     ``float32[width]``: the teacher's network (its leaf value, its width's ranking)
==========  =========================================================================================

Which decisions are recorded, and which of them explore, is drawn from the recorder's own
stream, so a chunk's rows depend only on the seed and its games.  An explored decision plays its
random option in the game (the data must show what the other options lead to); a decision
that is recorded without exploring plays as it would unrecorded.
"""
import numpy as np

from .._jit import njit
from ..engine.rng import RNG_DECIDE, randint, seed_streams
from ..engine.scoring import outcome
from ..engine.state import (
    G_DECISIONS, G_GAME_INDEX, G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_PLAYERS, G_ROUND,
)
from ..constants import N_PARAMS
from .catalog import PLAYOUT_NAMES
from .encoding import BUF_W, ENCODE_W, N_INPUTS, encode
from .ismcts import ismcts_search
from .learned import option_encodings
from .observe import observe
from .weights import HEADER

M_GAME = 0
M_PLAYER = 1
M_ROUND = 2
M_KIND = 3
M_OPTIONS = 4
M_EXPLORED = 5
M_DECISION = 6
M_OPTION = 7
M_N = 8
Y_SHARE = 0  # by outcome
Y_LEAD = 1
Y_MEAN = 0  # by a search
Y_VISITS = 1
Y_N = 2
TEACHER_MODEL = PLAYOUT_NAMES.index("planner")  # the teacher's models: a constant (models.py)
_STREAM_KEY = 0x5EED_DA7A  # keys the recorder's stream
_MILLION = 1_000_000


def new_recorder(cap: int, share: float, explore: float, rounds: bool = False,
                 teacher=None):
    """A recorder (module docstring) with room for ``cap`` rows; ``teacher`` None records by
    outcome, ``(params, net)`` by the search ``ismcts`` with that parameter row and network."""
    params, net = teacher if teacher is not None else (np.zeros(N_PARAMS), np.zeros(HEADER))
    return (np.zeros((cap, N_INPUTS), np.float32), np.zeros((cap, M_N), np.int32),
            np.zeros((cap, Y_N), np.float32),
            np.array([share, explore, float(rounds), float(teacher is not None)], np.float64),
            np.zeros(4, np.int64), np.zeros((1, 2), np.uint64),
            np.ascontiguousarray(params, np.float64), np.ascontiguousarray(net, np.float32))


@njit
def record_start(rec, seed, game_index):
    """A new game: the recorder's stream keyed from (seed, game)."""
    pick = rec[5]
    seed_streams(pick, 1, seed ^ _STREAM_KEY, game_index)
    rec[4][2] = rec[4][0]
    rec[4][3] = 0


@njit
def _record_round(rec, st):
    """At the first decision of a round after the first, with ``ctl[2]``: every player's
    position (decision kind -1)."""
    x, meta, y, ctl, count, pick = rec[:6]
    r = st.game[G_ROUND]
    if ctl[2] == 0.0 or r == count[3]:
        return
    count[3] = r
    buf = np.empty(BUF_W, np.int64)
    enc = np.empty((1, ENCODE_W))
    for p in range(st.game[G_PLAYERS]):
        row = count[0]
        if row >= x.shape[0]:
            count[1] = 1
            return
        encode(st, st, p, -1, 0, enc[0], buf)
        for j in range(N_INPUTS):
            x[row, j] = enc[0, j]
        meta[row, M_GAME] = st.game[G_GAME_INDEX]
        meta[row, M_PLAYER] = p
        meta[row, M_ROUND] = r
        meta[row, M_KIND] = -1
        meta[row, M_OPTIONS] = 0
        meta[row, M_EXPLORED] = 0
        meta[row, M_DECISION] = st.game[G_DECISIONS]
        meta[row, M_OPTION] = 0
        count[0] = row + 1


@njit
def _record_search(rec, st, scratch, n):
    """Every option of the pending decision of ``st`` (``n`` of them), each with the teacher's
    mean outcome and playouts (module docstring)."""
    x, meta, y, ctl, count, pick, teacher, net = rec
    row = count[0]
    if row + n > x.shape[0]:
        count[1] = 1
        return
    player = st.game[G_PEND_PLAYER]
    enc = np.empty((n, ENCODE_W))
    buf = np.empty(BUF_W, np.int64)
    own = st.rng[RNG_DECIDE + player:RNG_DECIDE + player + 1]
    if not option_encodings(st, scratch, own, enc, buf):
        return  # a decision learned does not value (discards, a purse offered)
    obs = scratch[0]
    observe(st, player, obs)
    stats = np.zeros((n, 2))
    ismcts_search(obs, obs.game[G_PEND_KIND], obs.options[:n], teacher, pick, TEACHER_MODEL,
                  TEACHER_MODEL, net, stats)
    for i in range(n):
        for j in range(N_INPUTS):
            x[row + i, j] = enc[i, j]
        meta[row + i, M_GAME] = st.game[G_GAME_INDEX]
        meta[row + i, M_PLAYER] = player
        meta[row + i, M_ROUND] = st.game[G_ROUND]
        meta[row + i, M_KIND] = st.game[G_PEND_KIND]
        meta[row + i, M_OPTIONS] = n
        meta[row + i, M_EXPLORED] = 0
        meta[row + i, M_DECISION] = st.game[G_DECISIONS]
        meta[row + i, M_OPTION] = i
        y[row + i, Y_MEAN] = stats[i, 0]
        y[row + i, Y_VISITS] = stats[i, 1]
    count[0] = row + n


@njit
def record_decision(rec, st, scratch, i):
    """At the pending decision of ``st``, whose policy chose option ``i``: record it with the
    share ``ctl[0]`` (its row: the chosen option's position), exploring with the share
    ``ctl[1]`` of those (a random option instead); returns the option to play."""
    x, meta, y, ctl, count, pick = rec[:6]
    _record_round(rec, st)
    if randint(pick, 0, _MILLION) >= ctl[0] * _MILLION:
        return i
    n = st.game[G_PEND_N]
    if ctl[3] != 0.0:
        _record_search(rec, st, scratch, n)
        return i
    explored = randint(pick, 0, _MILLION) < ctl[1] * _MILLION
    if explored:
        i = randint(pick, 0, n)
    row = count[0]
    if row >= x.shape[0]:
        count[1] = 1
        return i
    player = st.game[G_PEND_PLAYER]
    enc = np.empty((n, ENCODE_W))
    buf = np.empty(BUF_W, np.int64)
    own = st.rng[RNG_DECIDE + player:RNG_DECIDE + player + 1]
    if not option_encodings(st, scratch, own, enc, buf):
        return i  # a decision learned does not value (discards, a purse offered)
    for j in range(N_INPUTS):
        x[row, j] = enc[i, j]
    meta[row, M_GAME] = st.game[G_GAME_INDEX]
    meta[row, M_PLAYER] = player
    meta[row, M_ROUND] = st.game[G_ROUND]
    meta[row, M_KIND] = st.game[G_PEND_KIND]
    meta[row, M_OPTIONS] = n
    meta[row, M_EXPLORED] = explored
    meta[row, M_DECISION] = st.game[G_DECISIONS]
    meta[row, M_OPTION] = i
    count[0] = row + 1
    return i


@njit
def record_finish(rec, st, out_b, out_g):
    """The game ``st`` is over: every row it recorded by outcome gets its outcome."""
    meta, y, ctl, count = rec[1], rec[2], rec[3], rec[4]
    if ctl[3] != 0.0:
        return
    for r in range(count[2], count[0]):
        p = meta[r, M_PLAYER]
        share = outcome(st, p, 0.0, out_b, out_g)
        y[r, Y_SHARE] = share
        y[r, Y_LEAD] = outcome(st, p, 1.0, out_b, out_g) - share


__all__ = ["M_N", "M_OPTION", "TEACHER_MODEL", "Y_MEAN", "Y_N", "Y_VISITS", "new_recorder", "record_decision", "record_finish", "record_start"]
