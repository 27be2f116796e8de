"""The recording kernel: games of a table in which, at a share of the decisions, the teacher
search says what each option is worth, and ``learned``'s features of every option are kept.

A row per option of a recorded decision: its features (learned.option_values: the option played
on a copy of the position by the engine), which option the table's policy played, the teacher's
mean outcome and playouts for the option (ismcts at the root, with ``learned`` as its models;
NaN when the decision was not searched), and once the game is over the decider's outcome (its
share of the victory plus ``margin`` times its score lead in thousands of dollars, as the
searches score a game: rollout.outcome).  The table's policies play the games; the teacher only
answers, so the positions are those the table reaches (the learner's own, in expert iteration).

Which decisions are searched is drawn from a stream of the game's own (seed, game index), apart
from the game's streams: a recorded game plays as the same game unrecorded, and a chunk's rows
depend only on the seed and the games it holds.
"""
import numba
import numpy as np

from ..engine.flow import STEP_DECISION, STEP_OVER, apply, step
from ..engine.rng import RNG_DECIDE, randint, seed_streams
from ..engine.scoring import score_game
from ..engine.setup import setup_game
from ..engine.state import (
    G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_ROUND, G_TRACE, init_table,
)
from ..playout import choose
from ..policies.catalog import PLAYOUT_NAMES
from ..policies.ismcts import ismcts_search
from ..policies.learned import N_FEATURES, WEIGHTS, option_values
from ..policies.observe import observe
from ..policies.rollout import outcome

LEARNED = PLAYOUT_NAMES.index("learned")  # the teacher's models
# Columns of a row's integers.
R_GAME = 0
R_DECISION = 1  # the decision's number in its game (decisions with two options or more)
R_OPTION = 2  # the option's index
R_OPTIONS = 3  # how many options the decision had
R_PLAYER = 4
R_ROUND = 5
R_KIND = 6  # flow.DK_*
R_PLAYED = 7  # 1 for the option the table's policy played
R_N = 8
# Columns of a row's floats.
V_MEAN = 0  # the teacher's mean outcome for the option (NaN: not searched)
V_VISITS = 1  # its playouts
V_OUTCOME = 2  # the decider's outcome of the game
V_N = 3
_STREAM_KEY = 0x5EED_7EAC  # keys the stream that picks the searched decisions


def _recorder(key: str):
    @numba.njit(cache=True, nogil=True)
    def record(states, seed, first_index, lineups, seat_policy, params, opts, teacher, share,
               margin, out_b, out_g, feats, ints, floats):
        """Play games ``first_index ..`` (as batch_kernel) and record rows (module docstring)
        into ``feats``, ``ints``, ``floats`` while they have room; returns the rows written."""
        st = states[0]
        scratch = states[1:]
        init_table(st, seat_policy.shape[0], opts, seat_policy, params)
        pick = np.zeros((1, 2), np.uint64)
        stats = np.zeros((64, 2))
        values = np.zeros(64)
        rows = 0
        for g in range(out_g.shape[0]):
            game = first_index + g
            seed_streams(pick, 1, seed ^ _STREAM_KEY, game)
            st.game[G_TRACE] = 0
            setup_game(st, seed, game, lineups[game % lineups.shape[0]])
            first_row = rows
            decision = 0
            while True:
                s = step(st)
                if s == STEP_OVER:
                    break
                if s != STEP_DECISION:
                    continue
                n = st.game[G_PEND_N]
                i = -1
                player = st.game[G_PEND_PLAYER]
                own = st.rng[RNG_DECIDE + player:RNG_DECIDE + player + 1]
                if rows + n <= feats.shape[0] and option_values(
                        st, scratch, WEIGHTS, own, values, feats[rows:rows + n]):
                    searched = randint(pick, 0, 1_000_000) < share * 1_000_000
                    if searched:
                        obs = scratch[0]
                        observe(st, player, obs)
                        ismcts_search(obs, obs.game[G_PEND_KIND], obs.options[:n], teacher,
                                      pick, LEARNED, LEARNED, stats[:n])
                    i = choose(key, st, scratch)
                    for o in range(n):
                        r = rows + o
                        ints[r, 0] = game
                        ints[r, 1] = decision
                        ints[r, 2] = o
                        ints[r, 3] = n
                        ints[r, 4] = st.game[G_PEND_PLAYER]
                        ints[r, 5] = st.game[G_ROUND]
                        ints[r, 6] = st.game[G_PEND_KIND]
                        ints[r, 7] = o == i
                        floats[r, 0] = stats[o, 0] if searched else np.nan
                        floats[r, 1] = stats[o, 1] if searched else 0.0
                    rows += n
                else:
                    i = choose(key, st, scratch)
                decision += 1
                apply(st, i)
            score_game(st, out_b[g], out_g[g])
            for r in range(first_row, rows):
                floats[r, 2] = outcome(st, ints[r, 4], margin, out_b[g], out_g[g])
        return rows
    return record


_recorders: dict = {}


def recorder(choosers: tuple):
    """The recording kernel of a table of built-in policies ``choosers`` (Seats.choosers)::

        kernel(states, seed, first_index, lineups, seat_policy, params, opts, teacher, share,
               margin, out_b, out_g, feats, ints, floats) -> rows

    ``teacher`` is the teacher's parameter row (ismcts's), ``share`` the share of decisions it
    searches, ``margin`` the weight of the score lead in an outcome; ``feats``
    ``float64[rows, N_FEATURES]``, ``ints`` ``int64[rows, R_N]``, ``floats``
    ``float64[rows, V_N]``.  Compiled once per machine and table."""
    key = "|".join(choosers)
    if key not in _recorders:
        _recorders[key] = _recorder(key)
    return _recorders[key]


__all__ = ["N_FEATURES", "R_N", "V_N", "recorder"]
