"""Built-in policies and the dispatcher that asks the deciding player's policy.

Every policy has the same shape: given the state with a decision pending (its kind is
``game[G_PEND_KIND]``, its legal options ``options[:game[G_PEND_N]]``), the deciding player, the
player's parameter vector and its own random stream, return the index of the chosen option.
"""
from .._jit import njit
from ..engine.rng import RNG_DECIDE, randint
from ..engine.state import G_PEND_N, G_PEND_PLAYER

POLICY_RANDOM = 0
POLICY_NAMES = ("random",)
POLICY_IDS = {name: i for i, name in enumerate(POLICY_NAMES)}


@njit
def random_policy(st, player):
    """Uniform over the legal options."""
    return randint(st.rng, RNG_DECIDE + player, st.game[G_PEND_N])


@njit
def choose(st):
    """Ask the deciding player's policy; returns an option index."""
    player = st.game[G_PEND_PLAYER]
    return random_policy(st, player)
