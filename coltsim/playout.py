"""The one playout loop, and the batch kernels built on it for built-in and user policies.

A game is played by ``play_out``: find who decides, ask its policy, apply, until the game is
over (the shape of OpenSpiel's ``evaluate_bots``).  The loop takes the dispatcher ``choose(st,
obs)`` as an argument, so the same compiled loop serves the built-in policies (``play_batch``,
cached on disk like the engine) and every table with user policies (``batch_kernel``: a
dispatcher compiled once per process for the user's functions, since those cannot be cached
with coltsim's code).  A traced game runs the same loop with a log to fill (``play_traced``).

Every kernel plays games one after another without the GIL; parallelism is joblib's (runner).
A game depends only on (seed, game index), so any split of a run into batches gives the same
results.
"""
from __future__ import annotations

import threading

import numba
import numpy as np

from ._jit import njit
from .engine.flow import STEP_DECISION, STEP_OVER, apply, step
from .engine.log import LOG_W, drain_records
from .engine.rng import RNG_DECIDE
from .engine.scoring import score_game
from .engine.setup import setup_game
from .engine.state import (
    G_CHECK, G_DECISIONS, G_FAIL, G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_TRACE, alloc_states,
    init_table,
)
from .policies.builtin import choose
from .policies.catalog import FIRST_USER_ID
from .policies.observe import observe

FAIL_ILLEGAL_OPTION = 64  # out_g[RG_FAIL]: a user policy returned an index outside [0, n)

# The loop and its batch are templates: inlined into each kernel that names its dispatcher, so
# that no compiled function receives a dispatcher as a run-time value (which numba cannot
# cache); the kernels themselves are cached.
_template = njit(cache=False, inline="always")


@_template
def play_out(st, obs, choose, log):
    """Play ``st`` to the end: find who decides, ask ``choose(st, obs)``, apply.

    ``obs`` is a scratch state for the deciding player's observation.  When ``st`` is traced
    (``game[G_TRACE]``), each step's notes go into ``log``; returns the rows written."""
    n = drain_records(st, log, 0) if st.game[G_TRACE] == 1 else 0  # the setup's note
    while True:
        status = step(st)
        if status == STEP_DECISION:
            st.game[G_DECISIONS] += 1
            apply(st, choose(st, obs))
        elif status == STEP_OVER:
            return n
        if st.game[G_TRACE] == 1:
            n = drain_records(st, log, n)


@_template
def play_game(states, seed, game_index, lineup, check, log, out_b, out_g, choose):
    """Deal and play game ``game_index`` of ``seed`` on the table of ``states[0]``
    (``states[1]`` is the observation scratch) and score it into ``out_b``, ``out_g``.

    Traced when ``log`` has rows; returns the log rows written."""
    st = states[0]
    st.game[G_TRACE] = log.shape[0] > 0
    setup_game(st, seed, game_index, lineup)
    st.game[G_CHECK] = check
    n = play_out(st, states[1], choose, log)
    score_game(st, out_b, out_g)
    return n


@_template
def _play_batch(seed, first_index, lineups, seat_policy, params, opts, check, out_b, out_g,
                choose):
    states = alloc_states(2)  # the game, and the observation scratch
    init_table(states[0], seat_policy.shape[0], opts, seat_policy, params)
    no_log = np.zeros((0, LOG_W), np.int64)
    for g in range(out_g.shape[0]):
        game = first_index + g
        play_game(states, seed, game, lineups[game % lineups.shape[0]], check, no_log, out_b[g],
                  out_g[g], choose)


@njit
def play_batch(seed, first_index, lineups, seat_policy, params, opts, check, out_b, out_g):
    """Play games ``first_index .. first_index + len(out_g) - 1`` of ``seed`` with built-in
    policies.

    Game ``g`` uses line-up ``lineups[g % len(lineups)]``; player ``p`` plays policy
    ``seat_policy[p]`` with parameters ``params[p]`` under the rule options ``opts``; invariants
    are checked after every action and event when ``check`` is 1.

    out_b : int32[games, bandits, RB_N]     out_g : int32[games, RG_N]
    """
    _play_batch(seed, first_index, lineups, seat_policy, params, opts, check, out_b, out_g,
                choose)


@njit
def play_traced(states, seed, game_index, lineup, log, out_b, out_g):
    """One game with built-in policies on the table of ``states[0]`` (state.init_table),
    invariants checked and every step noted in ``log``; returns the log rows written."""
    return play_game(states, seed, game_index, lineup, 1, log, out_b, out_g, choose)


# --- user policies --------------------------------------------------------------------------------
_USER_SOURCE = '''
def choose_user(st, obs):
    player = st.game[G_PEND_PLAYER]
    pid = st.seat_policy[player]
    if pid < FIRST_USER_ID:
        return choose(st, obs)
    observe(st, player, obs)
    n = st.game[G_PEND_N]
    kind = st.game[G_PEND_KIND]
    rng = st.rng[RNG_DECIDE + player:RNG_DECIDE + player + 1]
    k = pid - FIRST_USER_ID
    i = -1
{calls}
    if i < 0 or i >= n:
        if st.game[G_FAIL] == 0:
            st.game[G_FAIL] = FAIL_ILLEGAL_OPTION
        i = 0
    return i
'''

_CALL = '''    {keyword} k == {k}:
        i = user_{k}(obs, kind, obs.options[:n], obs.params[player], rng)
'''

_kernels: dict = {}
_lock = threading.Lock()


def user_dispatcher(functions: tuple):
    """``choose(st, obs)`` for a table whose user policies are ``functions`` (user policy ``k``
    has id ``FIRST_USER_ID + k``; built-in ids go to the built-in dispatcher).  Each user policy
    is handed a fresh observation; an answer outside ``[0, n)`` plays option 0 and marks the
    game failed with ``FAIL_ILLEGAL_OPTION``."""
    calls = "".join(_CALL.format(keyword="if" if k == 0 else "elif", k=k)
                    for k in range(len(functions)))
    namespace = {
        "FIRST_USER_ID": FIRST_USER_ID, "FAIL_ILLEGAL_OPTION": FAIL_ILLEGAL_OPTION,
        "G_PEND_PLAYER": G_PEND_PLAYER, "G_PEND_N": G_PEND_N, "G_PEND_KIND": G_PEND_KIND,
        "G_FAIL": G_FAIL, "RNG_DECIDE": RNG_DECIDE, "choose": choose, "observe": observe,
    }
    for k, f in enumerate(functions):
        namespace[f"user_{k}"] = f
    exec(compile(_USER_SOURCE.format(calls=calls), "<coltsim user policies>", "exec"), namespace)
    return numba.njit(nogil=True)(namespace["choose_user"])  # not cached: the user's functions


def batch_kernel(functions: tuple = ()):
    """A kernel with ``play_batch``'s signature that plays built-in policies and the user
    policies ``functions`` (``Seats.functions``); ``play_batch`` itself when there are none.
    Compiled on first call (user policies: once per process and tuple of functions)."""
    functions = tuple(functions)
    if not functions:
        return play_batch
    with _lock:
        kernel = _kernels.get(functions)
        if kernel is None:
            choose_user = user_dispatcher(functions)

            @numba.njit(nogil=True)
            def kernel(seed, first_index, lineups, seat_policy, params, opts, check, out_b,
                       out_g):
                _play_batch(seed, first_index, lineups, seat_policy, params, opts, check, out_b,
                            out_g, choose_user)

            _kernels[functions] = kernel
    return kernel
