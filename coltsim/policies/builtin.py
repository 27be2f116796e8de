"""Choosers: the compiled function the playout loop asks for each built-in policy.

Every policy, built-in or a user's, is a compiled function of one signature::

    policy(obs, kind, options, params, rng) -> int     # index into options

``obs`` what the deciding player may know (observe.py; the player is ``obs.game[G_PEND_PLAYER]``),
``kind`` the decision kind (flow.DK_*), ``options`` ``int64[n]`` the legal option values,
``params`` ``float64[N_PARAMS]`` the player's parameter row, ``rng`` ``uint64[1, 2]`` the
player's own random stream (``RNG_DECIDE + player``).

The playout loop asks a *chooser*: ``chooser(st, scratch, net) -> int`` answers the pending
decision of the state ``st`` for its deciding player; ``scratch`` is an array of
``state.N_SCRATCH`` states it may fill: ``scratch[0]`` for an observation, the others for
looking ahead (copies of a position played on: ``state.copy_state(scratch, i, st)``); ``net``
is the deciding seat's row of the table's networks (weights.table: ``learned``'s weights, read by
``learned`` and by a search that models it).  The chooser a catalog ``Policy`` names ``c`` is
``choose_c`` here (:func:`chooser`):

- ``random`` is answered inline (one draw from the seat's stream, no observation: its model);
- ``weighted`` plays ``greedy``, ``weighted`` and every preset of it (their weights are the
  seat's parameter row; all zeros: greedy's), and ``planner`` plays the planner: both read only
  what their player may know (view.py's rule), so they are handed the state itself (no copy;
  tests/test_policies.py checks that the answers are the same on an observation);
- ``learned`` (no parameters but its network: its chooser is its model) looks ahead on copies
  of the state in ``scratch[1:]`` and values only what its player may know (learned.py);
- the searches ``rollout`` and ``ismcts`` sample worlds from an observation built for them and
  play the other seats inside them with models (models.py), given after ``(st, scratch)`` as
  constants: a table's kernel compiles a search with the models its seat names, nothing else.

A table's kernel compiles exactly the choosers of its seats (coltsim.playout).
"""
from .._jit import njit
from ..engine.rng import RNG_DECIDE
from ..engine.state import G_N_ROUNDS, G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_ROUND
from .catalog import I_ROUNDS, PLAYOUT_NAMES
from .heuristic import weighted_policy
from .ismcts import ismcts_policy
from .learned import compile_ahead
from .models import model_learned, model_random
from .observe import observe
from .planner import planner_policy
from .rollout import rollout_policy


@njit
def choose_weighted(st, scratch, net):
    """``greedy``, ``weighted`` and its presets: the greedy features under the seat's weights."""
    player = st.game[G_PEND_PLAYER]
    n = st.game[G_PEND_N]
    rng = st.rng[RNG_DECIDE + player:RNG_DECIDE + player + 1]
    return weighted_policy(st, st.game[G_PEND_KIND], st.options[:n], st.params[player], rng)


@njit
def choose_planner(st, scratch, net):
    """The planner with the seat's weights (all zeros: its defaults)."""
    player = st.game[G_PEND_PLAYER]
    n = st.game[G_PEND_N]
    rng = st.rng[RNG_DECIDE + player:RNG_DECIDE + player + 1]
    return planner_policy(st, st.game[G_PEND_KIND], st.options[:n], st.params[player], rng)


@njit
def choose_rollout(st, scratch, net, playout):
    """``rollout`` with model number ``playout`` (a constant) in every seat of its worlds
    (``learned`` with the network ``net``)."""
    player = st.game[G_PEND_PLAYER]
    n = st.game[G_PEND_N]
    obs = scratch[0]
    observe(st, player, obs)
    rng = st.rng[RNG_DECIDE + player:RNG_DECIDE + player + 1]
    return rollout_policy(obs, obs.game[G_PEND_KIND], obs.options[:n], obs.params[player], rng,
                          playout, net)


@njit
def choose_ismcts(st, scratch, net, playout, opponents):
    """``ismcts`` with the models number ``playout`` (after the tree) and ``opponents`` (inside
    it), both constants (``learned`` with the network ``net``); before the last ``rounds``
    rounds (a parameter above 0), ``learned``."""
    player = st.game[G_PEND_PLAYER]
    rounds = st.params[player, I_ROUNDS]
    if rounds >= 1 and st.game[G_ROUND] < st.game[G_N_ROUNDS] - rounds:
        return model_learned(st, scratch, net)
    n = st.game[G_PEND_N]
    obs = scratch[0]
    observe(st, player, obs)
    rng = st.rng[RNG_DECIDE + player:RNG_DECIDE + player + 1]
    return ismcts_policy(obs, obs.game[G_PEND_KIND], obs.options[:n], obs.params[player], rng,
                         playout, opponents, net)


choose_random = model_random  # random and learned choose as their models do
choose_learned = model_learned
# What of chooser ``c`` needs no engine, ``ahead_c``: compiled while another process compiles the
# engine at a first start (playout.first_start), a function of the numba types of a kernel's
# state, scratch and network row.
ahead_learned = compile_ahead


def chooser(code: str) -> tuple:
    """The compiled chooser of the chooser code ``code`` (catalog.compiled_as: ``"planner"``,
    ``"ismcts:planner:greedy"``) and what it takes after ``(st, scratch, net)``: a search the
    numbers of its models (constants)."""
    name, *models = code.split(":")
    return globals()[f"choose_{name}"], tuple(PLAYOUT_NAMES.index(m) for m in models)
