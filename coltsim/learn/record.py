"""The recording kernel: games of a table in which, at a share of the decisions, the teacher
search says what each option is worth, and ``learned``'s features of every option are kept.

The seats marked as learners play ``learned`` with weights given at run time (a row per seat),
so that one compiled kernel plays every iteration of a training and every match between two
sets of weights; the teacher models ``learned`` with the deciding seat's weights.  With a share
of 0 nothing is searched: the kernel is then a match between the seats.

A row per option of a searched decision (one that ``learned`` values: not a discard or a purse
offered): its features (learned.option_values: the option played on a copy of the position by
the engine), which option the table's policy played, the teacher's mean outcome and playouts
for the option (ismcts at the root, with ``learned`` as its models, or another model), and once the game is over
the decider's outcome (its
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
from ..policies.learned import N_FEATURES, learned_decide, option_values
from ..policies.observe import observe
from ..policies.rollout import outcome

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
V_MEAN = 0  # the teacher's mean outcome for the option
V_VISITS = 1  # its playouts
V_OUTCOME = 2  # the decider's outcome of the game
V_N = 3
_STREAM_KEY = 0x5EED_7EAC  # keys the stream that picks the searched decisions


def _recorder(key: str, model: int):
    @numba.njit(cache=True, nogil=True)
    def record(states, seed, first_index, lineups, seat_policy, params, opts, weights, learner,
               teacher, share, margin, out_b, out_g, feats, ints, floats):
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
                w = weights[player]
                searched = (share > 0 and rows + n <= feats.shape[0]
                            and randint(pick, 0, 1_000_000) < share * 1_000_000)
                if searched:
                    searched = option_values(st, scratch, w, own, values, feats[rows:rows + n])
                if searched:
                    obs = scratch[0]
                    observe(st, player, obs)
                    ismcts_search(obs, obs.game[G_PEND_KIND], obs.options[:n], teacher, pick,
                                  model, model, w, stats[:n])
                if learner[player]:
                    i = learned_decide(st, scratch, w, own)
                else:
                    i = choose(key, st, scratch)
                if searched:
                    for o in range(n):
                        r = rows + o
                        ints[r, R_GAME] = game
                        ints[r, R_DECISION] = decision
                        ints[r, R_OPTION] = o
                        ints[r, R_OPTIONS] = n
                        ints[r, R_PLAYER] = player
                        ints[r, R_ROUND] = st.game[G_ROUND]
                        ints[r, R_KIND] = st.game[G_PEND_KIND]
                        ints[r, R_PLAYED] = o == i
                        floats[r, V_MEAN] = stats[o, 0]
                        floats[r, V_VISITS] = stats[o, 1]
                    rows += n
                decision += 1
                apply(st, i)
            score_game(st, out_b[g], out_g[g])
            for r in range(first_row, rows):
                floats[r, V_OUTCOME] = outcome(st, ints[r, R_PLAYER], margin, out_b[g], out_g[g])
        return rows
    return record


_recorders: dict = {}


def recorder(choosers: tuple, model: str = "learned"):
    """The recording kernel of a table of built-in policies ``choosers`` (Seats.choosers), its
    teacher playing the other seats and its playouts with ``model`` (catalog.PLAYOUT_NAMES)::

        kernel(states, seed, first_index, lineups, seat_policy, params, opts, weights, learner,
           teacher, share, margin, out_b, out_g, feats, ints, floats) -> rows

    ``weights`` is ``float64[players, N_FEATURES]`` (the learners' rows), ``learner``
    ``bool[players]`` (the seats playing ``learned`` with their row; the others play their
    policy), ``teacher`` the teacher's parameter row (ismcts's), ``share`` the share of decisions
    it searches, ``margin`` the weight of the score lead in an outcome; ``feats``
    ``float64[rows, N_FEATURES]``, ``ints`` ``int64[rows, R_N]``, ``floats``
    ``float64[rows, V_N]``.  Compiled once per machine and table."""
    key = "|".join(choosers)
    if (key, model) not in _recorders:
        _recorders[key, model] = _recorder(key, PLAYOUT_NAMES.index(model))
    return _recorders[key, model]


__all__ = ["N_FEATURES", "R_N", "V_N", "recorder"]
