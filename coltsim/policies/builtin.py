"""Built-in policies by integer id, and ``choose``: the dispatcher the playout loop calls.

Every policy, built-in or a user's, is a compiled function of one signature::

    policy(obs, kind, options, params, rng) -> int     # index into options

``obs`` what the deciding player may know (observe.py; the player is ``obs.game[G_PEND_PLAYER]``),
``kind`` the decision kind (flow.DK_*), ``options`` ``int64[n]`` the legal option values,
``params`` ``float64[N_PARAMS]`` the player's parameter row, ``rng`` ``uint64[1, 2]`` the
player's own random stream (``RNG_DECIDE + player``).

A built-in's id is its index in ``POLICY_NAMES``; the presets of ``weighted`` (aggressive,
cautious, never_fires, never_moves_marshal) have ids of their own, so a name alone says everything.

``choose(st, obs)`` looks up the deciding player's policy id in ``st.seat_policy``; ``obs`` is a
scratch state for the observation.  ``random`` is answered inline (one draw, no observation).
``greedy``, ``weighted`` and ``planner`` read only what their player may know (view.py's rule),
so they give the same answers on the state as on an observation and are handed the state itself
(no copy); tests/test_policies.py checks both facts.  ``rollout`` and ``ismcts`` sample worlds
from an observation built for them.  User policies (ids from ``FIRST_USER_ID``) are dispatched
by the playout's user dispatcher (playout.py); here an unknown id plays at random.
"""
from .._jit import njit
from ..engine.rng import RNG_DECIDE, randint
from ..engine.state import G_PEND_KIND, G_PEND_N, G_PEND_PLAYER
from .catalog import (  # the ids of the built-in policies, by name
    FIRST_PRESET, POLICY_GREEDY, POLICY_ISMCTS, POLICY_PLANNER, POLICY_RANDOM, POLICY_ROLLOUT,
    POLICY_WEIGHTED, PRESET_NAMES,
)
from .heuristic import greedy_policy, preset_policy, weighted_policy
from .ismcts import ismcts_policy
from .observe import observe
from .planner import planner_policy
from .rollout import rollout_policy


@njit
def random_policy(obs, kind, options, params, rng):
    """Uniform over the legal options."""
    return randint(rng, 0, options.shape[0])


@njit
def _choose_builtin(st, obs, player, pid):
    n = st.game[G_PEND_N]
    kind = st.game[G_PEND_KIND]
    rng = st.rng[RNG_DECIDE + player:RNG_DECIDE + player + 1]
    if pid == POLICY_PLANNER:
        return planner_policy(st, kind, st.options[:n], st.params[player], rng)
    if pid == POLICY_GREEDY:
        return greedy_policy(st, kind, st.options[:n], st.params[player], rng)
    if pid == POLICY_WEIGHTED:
        return weighted_policy(st, kind, st.options[:n], st.params[player], rng)
    if FIRST_PRESET <= pid < FIRST_PRESET + len(PRESET_NAMES):
        return preset_policy(st, kind, st.options[:n], pid - FIRST_PRESET, rng)
    if pid == POLICY_ROLLOUT:
        observe(st, player, obs)
        return rollout_policy(obs, kind, obs.options[:n], obs.params[player], rng)
    if pid == POLICY_ISMCTS:
        observe(st, player, obs)
        return ismcts_policy(obs, kind, obs.options[:n], obs.params[player], rng)
    return randint(rng, 0, n)


@njit
def choose(st, obs):
    """Ask the deciding player's policy; returns an option index (``obs``: a scratch state)."""
    player = st.game[G_PEND_PLAYER]
    pid = st.seat_policy[player]
    if pid == POLICY_RANDOM:
        return randint(st.rng, RNG_DECIDE + player, st.game[G_PEND_N])
    return _choose_builtin(st, obs, player, pid)
