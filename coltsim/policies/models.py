"""Models: the policies a search plays the other seats with, and ``call_model``.

A search (rollout.py, ismcts.py) plays the seats of its sampled worlds with models: choosers of
fixed parameters (``model(w, scratch, net) -> int``, the answer to the pending decision of the
world ``w`` for any seat; ``scratch`` the states it may use, as a chooser's: builtin.py).  A
model is named by its index in catalog.PLAYOUT_NAMES, always a constant, and is the function
``model_<name>`` here: ``call_model(model, w, scratch, net)`` then compiles to a direct call of
that model, and a search is compiled once for each model it is given, with that model only
(numba specialises a function on a constant argument).  ``learned``'s network ``net`` is an argument (the search
seat's row of the table of networks: weights.table), so that a search can model any weights
without a compile; the other models ignore it.
"""
from numba import types
from numba.extending import overload

from .._jit import njit
from ..engine.rng import RNG_DECIDE, randint
from ..engine.state import G_PEND_KIND, G_PEND_N, G_PEND_PLAYER
from .catalog import PLAYOUT_NAMES
from .heuristic import greedy_choice
from .learned import learned_decide
from .planner import DEFAULT_WEIGHTS, plan_with


@njit
def model_random(w, scratch, net):
    """Uniform over the legal options, from the deciding seat's stream."""
    return randint(w.rng, RNG_DECIDE + w.game[G_PEND_PLAYER], w.game[G_PEND_N])


@njit
def model_planner(w, scratch, net):
    """The planner with its default weights."""
    p = w.game[G_PEND_PLAYER]
    rng = w.rng[RNG_DECIDE + p:RNG_DECIDE + p + 1]
    return plan_with(w, w.game[G_PEND_KIND], w.options[:w.game[G_PEND_N]], DEFAULT_WEIGHTS, rng)


@njit
def model_learned(w, scratch, net):
    """``learned`` with the network ``net``."""
    p = w.game[G_PEND_PLAYER]
    return learned_decide(w, scratch, net, w.rng[RNG_DECIDE + p:RNG_DECIDE + p + 1])


@njit
def model_greedy(w, scratch, net):
    """``greedy``."""
    return greedy_choice(w, scratch)


def call_model(model, w, scratch, net):
    """The answer of model number ``model`` (catalog.PLAYOUT_NAMES) at the pending decision of
    ``w`` (``learned`` with the network ``net``).  Compiled, ``model`` must be a constant (the
    overload below)."""
    return globals()[f"model_{PLAYOUT_NAMES[model]}"](w, scratch, net)


@overload(call_model, jit_options={"nogil": True})
def _call_model_overload(model, w, scratch, net):
    if not isinstance(model, types.IntegerLiteral):
        return None  # numba then tries again with the constant's literal type
    chosen = globals()[f"model_{PLAYOUT_NAMES[model.literal_value]}"]
    return lambda model, w, scratch, net: chosen(w, scratch, net)
