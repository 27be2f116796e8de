"""What the built-in policies read and decide the same way: the one home of their shared helpers.

- **Loot values.**  ``KIND_VALUE[kind]``: what a token of a loot kind is worth (constants.PURSE,
  JEWEL, STRONGBOX, RANSOM), a purse at ``EXPECTED_PURSE``, the mean of the 18 purses (what a
  purse whose value the player cannot see is worth, wherever it lies).
- **The value of a grab.**  :func:`grab_value`: what a Robbery takes from a spot holding
  ``held`` tokens by kind (the most valuable kind lying there; 0 when bare);
  :func:`kind_value` the same for a kind found otherwise (-1: nothing).
- **The arg-max with random ties.**  :func:`pick`, one step of a running arg-max over the
  options' scores: a score more than ``TIE`` above the best so far takes the lead; one within
  ``TIE`` of it is a tie, and each tied option is kept with probability ``1/ties`` (uniform
  among the tied, from the policy's own stream).
- **Turns left.**  :func:`turns_after`: the cards the deciding player still plays this round
  after the one it is planning, and the round's total (tests/test_planner_rules.py holds it
  against the engine's own count, for every policy that calls it).

heuristic.py (``greedy``, ``weighted``), planner.py, rollout.py and view.py (the helpers a
user's policy is written with) call these; a policy of its own kind of position (the planner's
packed sketch) finds the kind and takes its value here.
"""
import numpy as np

from .. import constants as K
from .._jit import njit
from ..engine.flow import turns_of
from ..engine.rng import randint
from ..engine.state import G_ROUND, G_SLOT, G_TURN

# What a purse whose value is hidden is worth on average: the mean of the 18 purses.
EXPECTED_PURSE = sum(K.PURSE_VALUES) / K.N_PURSES
# Value of each loot kind when taken (a purse: its expected value).
KIND_VALUE = np.array([EXPECTED_PURSE, K.JEWEL_VALUE, K.STRONGBOX_VALUE, K.RANSOM_VALUE],
                      np.float64)
# Scores within this of the best are tied.  The options' scores are sums of a few dozen terms in
# dollars or win shares; the same position reached two ways can differ in the last bits.
TIE = 1e-9


@njit(inline="always")
def kind_value(kind):
    """What a token of ``kind`` is worth when taken; 0 for -1 (nothing)."""
    return KIND_VALUE[kind] if kind >= 0 else 0.0


@njit
def grab_value(held):
    """What a Robbery takes from a spot holding ``held[kind]`` tokens of each kind: the most
    valuable kind lying there (a purse at its expected value); 0 if the spot is bare."""
    best = 0.0
    for kind in range(K.N_LOOT_KINDS):
        if held[kind] > 0:
            best = max(best, KIND_VALUE[kind])
    return best


@njit(inline="always")  # small; called with constants (each would compile a copy)
def pick(score, best, chosen, ties, i, rng):
    """Option ``i`` scored ``score`` in a running arg-max: returns the new ``(best, chosen,
    ties)``.  Start from ``(-1e300, 0, 0)``; ties are broken uniformly at random from ``rng``."""
    if score > best + TIE:
        return score, i, 1
    if score >= best - TIE:
        ties += 1
        if randint(rng, 0, ties) == 0:
            return best, i, ties
    return best, chosen, ties


@njit
def turns_after(obs):
    """Cards the deciding player plays this round after the current one (the second card of a
    Speeding turn it is now on counts), and the round's total: ``(after, total)``."""
    turns = turns_of(obs, obs.rounds[obs.game[G_ROUND]])
    t = obs.game[G_TURN]
    n = 1 if turns[t] == K.TURN_SPEEDING and obs.game[G_SLOT] % 2 == 0 else 0
    total = 0
    for u in range(K.MAX_TURNS):
        if turns[u] == K.NO_TURN:
            break
        k = 2 if turns[u] == K.TURN_SPEEDING else 1
        total += k
        if u > t:
            n += k
    return n, total
