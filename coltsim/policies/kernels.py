"""Batch kernels that play chunks of games with any mix of policies.

``engine.play.play_batch`` plays built-in policies only and is cached on disk like the engine.  A table with
user policies needs the user's functions compiled into the dispatcher, and passing a compiled
function as an argument to a cached kernel would defeat the cache (every process would recompile
the whole engine), so ``user_kernel(functions)`` compiles, once per process and per tuple of
functions, a small kernel specialised on them: a dispatcher (``choose`` for built-in ids, the
user function for ids from ``FIRST_USER_ID``, each handed a fresh observation), the playout loop
and the batch loop.  It is not cached on disk (its compile cost is measured in
docs/policies.md); everything it calls (setup, rules, scoring, the built-ins) comes from the
cache.  It has ``engine.play.play_batch``'s signature and, like it, plays the games one after
another without the GIL.

A user policy's answer outside ``[0, n)`` plays option 0 and marks the game failed with
``FAIL_ILLEGAL_OPTION`` in ``out_g[RG_FAIL]``.
"""
from __future__ import annotations

import threading

import numba

from ..engine.flow import advance, apply
from ..engine.play import play_batch, seat_players
from ..engine.rng import RNG_DECIDE
from ..engine.scoring import score_game
from ..engine.setup import setup_game
from ..engine.state import (
    G_CHECK, G_DECISIONS, G_FAIL, G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, _new_state,
)
from .builtin import FIRST_USER_ID, choose
from .observe import new_observation, observe

FAIL_ILLEGAL_OPTION = 64  # out_g[RG_FAIL]: a user policy returned an index outside [0, n)


_USER_SOURCE = '''
def choose_user(st, obs):
    player = st.game[G_PEND_PLAYER]
    pid = st.seat_policy[player]
    if pid < FIRST_USER_ID:
        return choose(st)
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


def play_games_user(seed, first_index, lineups, seat_policy, params, opts, check, out_b, out_g):
    st = _new_state(seat_policy.shape[0], lineups.shape[1], opts, 0)
    seat_players(st, seat_policy, params)
    obs = new_observation(st)
    for g in range(out_g.shape[0]):
        game = first_index + g
        setup_game(st, seed, game, lineups[game % lineups.shape[0]])
        st.game[G_CHECK] = check
        while advance(st):
            st.game[G_DECISIONS] += 1
            apply(st, choose_user(st, obs))
        score_game(st, out_b[g], out_g[g])
'''

_CALL = '''    {keyword} k == {k}:
        i = user_{k}(obs, kind, obs.options[:n], obs.params[player], rng)
'''

_cache: dict = {}
_lock = threading.Lock()


def user_kernel(functions: tuple):
    """The batch kernel for a table whose user policies are ``functions`` (user policy ``k``
    has id ``FIRST_USER_ID + k``); ``engine.play.play_batch`` when there are none.  Compiled on first
    call, then reused for the rest of the process."""
    functions = tuple(functions)
    if not functions:
        return play_batch
    with _lock:
        kernel = _cache.get(functions)
        if kernel is None:
            kernel = _build(functions)
            _cache[functions] = kernel
    return kernel


def _build(functions: tuple):
    calls = "".join(_CALL.format(keyword="if" if k == 0 else "elif", k=k)
                    for k in range(len(functions)))
    namespace = {
        "FIRST_USER_ID": FIRST_USER_ID, "FAIL_ILLEGAL_OPTION": FAIL_ILLEGAL_OPTION,
        "G_PEND_PLAYER": G_PEND_PLAYER, "G_PEND_N": G_PEND_N, "G_PEND_KIND": G_PEND_KIND,
        "G_FAIL": G_FAIL, "G_CHECK": G_CHECK, "G_DECISIONS": G_DECISIONS,
        "RNG_DECIDE": RNG_DECIDE, "choose": choose, "observe": observe,
        "new_observation": new_observation, "seat_players": seat_players,
        "_new_state": _new_state, "setup_game": setup_game, "advance": advance, "apply": apply,
        "score_game": score_game,
    }
    for k, f in enumerate(functions):
        namespace[f"user_{k}"] = f
    exec(compile(_USER_SOURCE.format(calls=calls), "<coltsim user policies>", "exec"), namespace)
    jit = numba.njit(nogil=True)  # not cached: it is specialised on the user's functions
    namespace["choose_user"] = jit(namespace["choose_user"])
    return jit(namespace["play_games_user"])
