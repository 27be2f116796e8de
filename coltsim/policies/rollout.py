"""``rollout``: a search policy built on the engine's speed (flat Monte Carlo with
determinisation).

For a decision with ``n`` legal options and a budget of ``B`` rollouts, it samples
``max(1, B // n)`` worlds consistent with its observation (observe.sample_world: other hands and
decks, face-down cards, hidden purse values, future round cards, all dealt from its own random
stream), and in each world tries every option: apply it, play on with a fast playout policy for
every seat, score.  Every option is tried in the same worlds with the same random streams
(common random numbers), so the comparison between options is sharp.  The option with the best
mean outcome wins (ties at random).

Outcome of a playout for the deciding player: its share of the victory (1, 1/k when k teams
share it, else 0) plus ``MARGIN_WEIGHT`` times its score lead over the best other team, in
thousands of dollars.

Parameters (``params[P_*]``; 0 means the default):

==============  ====================================================================================
``budget``      rollouts per decision (default ``DEFAULT_BUDGET``)
``playout``     the model of every seat in the playouts (catalog.PLAYOUT_NAMES): compiled in, so it
                is given by the kernel as a constant (builtin.choose_rollout), not read from
                ``params``
``horizon``     rounds to play before scoring the position (0: to the end of the game)
==============  ====================================================================================

The playout model is a policy of fixed parameters (models.py), never a search: no cycle in the
call graph.
"""
import numpy as np

from .. import constants as K
from .._jit import njit
from ..engine.flow import advance, apply
from ..engine.scoring import RB_N, RG_N, outcome
from ..engine.state import (
    G_N_ROUNDS, G_PEND_PLAYER, G_ROUND, N_SCRATCH, alloc_states, copy_state,
)
from .catalog import DEFAULT_BUDGET, P_BUDGET, P_HORIZON
from .models import call_model
from .observe import sample_world
from .common import pick

MARGIN_WEIGHT = 0.05


@njit
def play_until(w, model, scratch, stop_round, net):
    """Play ``w`` with model number ``model`` (a constant: models.py; ``learned`` with the
    network ``net``) in every seat (``scratch``: its scratch states) until the game ends or
    round ``stop_round`` begins."""
    while advance(w):
        if w.game[G_ROUND] >= stop_round:
            return
        apply(w, call_model(model, w, scratch, net))


@njit
def rollout_policy(obs, kind, options, params, rng, playout, net):
    """Flat Monte Carlo over determinised worlds, model number ``playout`` (a constant:
    models.py; ``learned`` with the network ``net``) in every seat of the playouts (module
    docstring)."""
    n = options.shape[0]
    player = obs.game[G_PEND_PLAYER]
    budget = int(params[P_BUDGET]) if params[P_BUDGET] >= 1 else DEFAULT_BUDGET
    horizon = int(params[P_HORIZON])
    stop = obs.game[G_N_ROUNDS]
    if horizon > 0:
        stop = min(stop, obs.game[G_ROUND] + horizon)
    samples = max(1, budget // n)
    scratch = alloc_states(2 + N_SCRATCH)  # a sampled world, the trial played from it, the model's
    world = scratch[0]
    trial = scratch[1]
    out_b = np.zeros((K.MAX_BANDITS, RB_N), np.int32)
    out_g = np.zeros(RG_N, np.int32)
    total = np.zeros(n)
    for _ in range(samples):
        sample_world(obs, rng, scratch, 0)
        for i in range(n):
            copy_state(scratch, 1, world)
            apply(trial, i)
            play_until(trial, playout, scratch[2:], stop, net)
            total[i] += outcome(trial, player, MARGIN_WEIGHT, out_b, out_g)
    best = -1e300
    chosen = 0
    ties = 0
    for i in range(n):
        best, chosen, ties = pick(total[i], best, chosen, ties, i, rng)
    return chosen
