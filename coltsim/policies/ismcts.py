"""``ismcts``: information-set Monte Carlo tree search over the deciding player's own decisions.

Single-observer IS-MCTS (Cowling, Powley and Whitehouse 2012; OpenSpiel's ``ismcts.py``) with
the other players modelled by a fixed policy.  An iteration:

1. **Determinise.**  Sample a world consistent with everything the player has observed
   (observe.sample_world: the others' hands and decks, face-down cards, hidden purse values,
   future round cards; face-up pile cards are known), from the player's own stream.
2. **Select.**  Play the world on.  The other players' decisions are played by the
   ``opponents`` policy.  At each of the player's own decisions, descend the tree: a node's
   children are keyed by the decision kind and the option's *value* (not its index: the legal set
   differs between worlds), created when first seen legal.  Every legal child's *availability*
   count goes up by one, and children are compared by ``mean + c * sqrt(ln(availability) /
   visits)``, so that an option is judged only against the visits in which it was legal.  The
   node widens progressively: the playout policy's choice is tried first, another option only
   while fewer than ``sqrt(visits of the node)`` others have been tried (so a young node plays
   like the playout policy, not at random).
3. **Expand.**  The first unvisited child reached joins the tree (one node per iteration).
4. **Play out** with the ``playout`` policy for every seat, until ``horizon`` rounds have been
   played from the decision's round (the current one and the next by default), or to the end.
5. **Back up** the outcome along the path: the player's share of the victory plus ``margin`` x
   its score lead over the best other team, in thousands of dollars (rollout.outcome), as the
   game would be scored then.  Scored two rounds ahead, a playout is three times cheaper than
   to the end and tells options apart better (less of the noise of later rounds): measured in
   docs/policies.md.

**The root** is searched by sequential halving with common random numbers (as at the root of
Gumbel MuZero) rather than by UCB: in ``ceil(log2 n)`` rounds, each sharing the budget equally,
every surviving option is played in the same sampled worlds with the same random streams (a copy
of the world per option), and the better half by mean outcome survives; the last survivor is
the choice.  A game's outcome varies far more between worlds than between options, so comparing
options on the same worlds is what makes a small budget count (measured: docs/policies.md).
Every option gets at least one world per round, so a budget below about ``2 n`` is exceeded.
With ``width`` k, only k options enter the halving: the playout model's choice and those that
``learned``'s value ranks best (learned.option_encodings: each option played on a projection of
what the player may know, valued by the seat's network), so that a small budget is spent on
the options worth comparing (a prior, as Gumbel MuZero's root samples its candidates from the
policy's).

Everything is allocated once per decision (two world states, the tree arrays sized by the
number of iterations, the sampler's temporaries); an iteration allocates nothing.  The tree is a
table of edges ``tree[e, T_*]`` (key, first child, next sibling, visits, availability) and their
summed outcomes ``total[e]``; edge 0 is the root.  A node's children are a linked list, searched
by key (a decision has at most a dozen options).  Should the table fill (``_capacity``), an
iteration leaves the tree where it has no room and plays out.

Parameters (``params[I_*]``; see catalog.py):

===============  ===============================================================================
``budget``       iterations (playouts) per decision (default ``DEFAULT_ISMCTS_BUDGET``)
``exploration``  the UCB constant ``c`` below the root
``margin``       weight of the score lead in the outcome (thousands of dollars)
``playout``      model of every seat after the tree (catalog.PLAYOUT_NAMES; default ``greedy``)
``opponents``    model of the other players inside the tree (default ``greedy``)
``horizon``      rounds played before scoring the position (default 2); 0 plays to the end
``leaf``         at the horizon: the score as the game would end there, or ``learned``'s value
``width``        options searched at the root (0: all; else the ``width`` best by the value)
``rounds``       the game's last rounds searched (0: all); before them the seat plays ``learned``
                 (builtin.choose_ismcts)
===============  ===============================================================================

The two models are policies of fixed parameters (models.py) compiled into the search: the
kernel of a table compiles ``ismcts`` with the models its seats name, given as constants
(builtin.choose_ismcts), not read from ``params``.  A model added to ``PLAYOUT_NAMES`` (its
function ``model_<name>`` in models.py) serves both rollout and ismcts.
"""
import numpy as np

from .. import constants as K
from .._jit import njit
from ..engine.flow import advance, apply
from ..engine.scoring import RB_N, RG_N, outcome
from ..engine.state import (
    G_N_ROUNDS, G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_ROUND, N_SCRATCH, alloc_states,
    copy_state,
)
from .catalog import (
    DEFAULT_ISMCTS_BUDGET, I_BUDGET, I_EXPLORATION, I_HORIZON, I_LEAF, I_MARGIN, I_WIDTH,
)
from .encoding import BUF_W, ENCODE_W, encode
from .learned import option_encodings
from .models import call_model
from .net import net_values
from .observe import WORLD_SCRATCH_N, sample_world_with
from .view import rand_below

# Columns of the edge table.
T_KEY = 0  # KEY_STRIDE * decision kind + option value; -1 at the root
T_CHILD = 1  # first child edge, -1 = none
T_SIBLING = 2  # next child of the same parent, -1 = none
T_VISITS = 3  # iterations that went through this edge
T_AVAIL = 4  # visits of the parent in which this option was legal
T_N = 5
KEY_STRIDE = 1024  # above every option value (flow.OPT_STOP = 256 is the largest)
ROOT = 0
MAX_DEPTH = 256  # own decisions in one game, with room to spare


@njit
def halving_rounds(n):
    """Rounds of sequential halving over ``n`` options: ``ceil(log2 n)``."""
    rounds = 0
    while (1 << rounds) < n:
        rounds += 1
    return rounds


@njit
def worlds_per_option(budget, spent, rounds, r, alive):
    """Worlds each of the ``alive`` options is played in during round ``r``: an equal share of
    what is left of the budget, at least one."""
    return max(1, (budget - spent) // ((rounds - r) * alive))


@njit
def root_iterations(budget, n):
    """Playouts the root's sequential halving makes over ``n`` options."""
    rounds = halving_rounds(n)
    alive = n
    spent = 0
    for r in range(rounds):
        spent += worlds_per_option(budget, spent, rounds, r, alive) * alive
        alive = (alive + 1) // 2
    return spent


@njit
def _capacity(iterations, n):
    """Edges for ``iterations`` below a root of ``n`` options.  An iteration creates the children
    of the node it expands and of nodes where another world offers options not seen before:
    about two edges per iteration in 4-player games (measured at budgets 32 to 512); room for
    eight."""
    return 1 + n + 8 * iterations


@njit
def _child(tree, node, key, used):
    """The child of ``node`` with ``key``, created if new (``used[0]`` edges are taken)."""
    e = tree[node, T_CHILD]
    while e >= 0:
        if tree[e, T_KEY] == key:
            return e
        e = tree[e, T_SIBLING]
    e = used[0]
    used[0] += 1
    tree[e, T_KEY] = key
    tree[e, T_CHILD] = -1
    tree[e, T_SIBLING] = tree[node, T_CHILD]
    tree[e, T_VISITS] = 0
    tree[e, T_AVAIL] = 0
    tree[node, T_CHILD] = e
    return e


@njit
def _select(w, tree, total, node, used, c, rng, default):
    """At the world's pending decision (the player's own, at ``node``): mark every legal child
    available and choose one; returns its option index and its edge, (-1, -1) when the edge
    table has no room for the children.

    ``default`` is the playout policy's choice here: tried first; then another unvisited option
    (at random) while fewer than ``sqrt(visits of the node)`` others were tried; else the best
    tried one by UCB."""
    n = w.game[G_PEND_N]
    if used[0] + n > tree.shape[0]:
        return -1, -1
    base = KEY_STRIDE * w.game[G_PEND_KIND]
    best = -1  # the best tried option by UCB
    best_edge = -1
    best_score = -np.inf
    fresh = -1  # the playout policy's option if untried, else an untried one at random
    fresh_edge = -1
    untried = 0
    tried = 0  # tried options other than the playout policy's
    for i in range(n):
        e = _child(tree, node, base + w.options[i], used)
        tree[e, T_AVAIL] += 1
        v = tree[e, T_VISITS]
        if v == 0:
            untried += 1
            if i == default or (fresh != default and rand_below(rng, untried) == 0):
                fresh = i
                fresh_edge = e
        else:
            tried += i != default
            score = total[e] / v + c * np.sqrt(np.log(tree[e, T_AVAIL]) / v)
            if score > best_score:
                best_score = score
                best = i
                best_edge = e
    if fresh >= 0 and (fresh == default or tried * tried < tree[node, T_VISITS]):
        return fresh, fresh_edge
    return best, best_edge


@njit
def _play(w, player, tree, total, used, path, c, margin, playout, opponents, net, scratch, stop,
          out_b, out_g, rng, leaf, enc, buf, leaf_value):
    """Play the sampled world ``w`` on from the root's child ``path[1]`` (its option applied):
    select and expand at the player's own decisions, play out, back up along the path; with
    ``leaf`` 1, a playout stopped at the horizon is valued by the network ``net``
    (``enc``, ``buf``: its work space, ``leaf_value`` its value)."""
    depth = 1
    node = path[1]
    in_tree = tree[node, T_VISITS] > 0
    while advance(w):
        if w.game[G_ROUND] >= stop:
            break
        if not in_tree:
            apply(w, call_model(playout, w, scratch, net))
        elif w.game[G_PEND_PLAYER] != player:
            apply(w, call_model(opponents, w, scratch, net))
        else:
            default = call_model(playout, w, scratch, net)
            i, e = _select(w, tree, total, node, used, c, rng, default)
            if i < 0 or depth + 1 >= MAX_DEPTH:
                in_tree = False
                apply(w, default)
                continue
            node = e
            depth += 1
            path[depth] = node
            in_tree = tree[node, T_VISITS] > 0
            apply(w, i)
    if leaf == 1 and w.game[G_ROUND] < w.game[G_N_ROUNDS]:
        encode(w, w, player, -1, 0, enc[0], buf)
        net_values(net, enc, 1, leaf_value)
        r = leaf_value[0]
    else:
        r = outcome(w, player, margin, out_b, out_g)
    for d in range(depth + 1):
        tree[path[d], T_VISITS] += 1
        total[path[d]] += r


@njit
def _mean(tree, total, e):
    v = tree[e, T_VISITS]
    return total[e] / v if v > 0 else -np.inf


@njit
def keep_better_half(alive, m, tree, total, edges):
    """Order the options ``alive[:m]`` by the mean outcome of their edges ``edges[option]``,
    best first (a stable insertion sort: ties keep their order); returns how many survive."""
    for j in range(1, m):
        x = alive[j]
        k = j - 1
        while k >= 0 and _mean(tree, total, edges[alive[k]]) < _mean(tree, total, edges[x]):
            alive[k + 1] = alive[k]
            k -= 1
        alive[k + 1] = x
    return (m + 1) // 2


@njit
def keep_widest(obs, scratch, rng, net, width, default, alive):
    """Order ``alive`` (the root's options) so that the ``width`` that learned's value ranks
    best come first, the playout model's choice ``default`` among them; returns how many are
    searched (every option for a decision learned does not value)."""
    n = alive.shape[0]
    enc = np.empty((n, ENCODE_W))
    buf = np.empty(BUF_W, np.int64)
    values = np.empty(n)
    if not option_encodings(obs, scratch, rng, enc, buf):
        return n
    net_values(net, enc, n, values)
    values[default] = np.inf
    order = np.argsort(-values, kind="mergesort")  # stable: ties keep the options' order
    for i in range(n):
        alive[i] = order[i]
    return width


@njit
def ismcts_policy(obs, kind, options, params, rng, playout, opponents, net):
    """Information-set MCTS over the player's own decisions, with the models number ``playout``
    and ``opponents`` (constants: models.py; ``learned`` with the network ``net``) (module
    docstring)."""
    return ismcts_search(obs, kind, options, params, rng, playout, opponents, net, None)


@njit
def ismcts_search(obs, kind, options, params, rng, playout, opponents, net, stats):
    """``ismcts_policy`` with ``stats`` (``float64[n, 2]``, or None) each option's mean outcome and playouts at
    the root: what a learner is taught (coltsim/learn)."""
    n = options.shape[0]
    player = obs.game[G_PEND_PLAYER]
    budget = int(params[I_BUDGET]) if params[I_BUDGET] >= 1 else DEFAULT_ISMCTS_BUDGET
    c = params[I_EXPLORATION]
    margin = params[I_MARGIN]
    horizon = int(params[I_HORIZON])
    leaf = int(params[I_LEAF])
    width = int(params[I_WIDTH])
    stop = obs.game[G_N_ROUNDS]
    if horizon > 0:
        stop = min(stop, obs.game[G_ROUND] + horizon)
    # Everything the search needs, allocated once for the decision.
    # The sampled world, the copy an option is played in, and the models' scratch.
    worlds = alloc_states(2 + N_SCRATCH)
    alive = np.arange(n)
    m = n  # the options searched: alive[:m]
    if 0 < width < n:
        m = keep_widest(obs, worlds[2:], rng, net, width,
                        call_model(playout, obs, worlds[2:], net), alive)
    tmp = np.empty(WORLD_SCRATCH_N, np.int64)
    tree = np.empty((_capacity(root_iterations(budget, m), n), T_N), np.int64)
    total = np.zeros(tree.shape[0])
    path = np.zeros(MAX_DEPTH, np.int64)
    used = np.ones(1, np.int64)
    out_b = np.zeros((K.MAX_BANDITS, RB_N), np.int32)
    out_g = np.zeros(RG_N, np.int32)
    edges = np.empty(n, np.int64)  # the root's child of each option
    enc = np.empty((1, ENCODE_W))  # a leaf's encoding and its value
    buf = np.empty(BUF_W, np.int64)
    leaf_value = np.empty(1)
    tree[ROOT, T_KEY] = -1
    tree[ROOT, T_CHILD] = -1
    tree[ROOT, T_SIBLING] = -1
    tree[ROOT, T_VISITS] = 0
    tree[ROOT, T_AVAIL] = 0
    for i in range(n):
        edges[i] = _child(tree, ROOT, KEY_STRIDE * kind + options[i], used)
    path[0] = ROOT
    # Sequential halving at the root, every survivor played in the same worlds.
    rounds = halving_rounds(m)
    spent = 0
    for r in range(rounds):
        per = worlds_per_option(budget, spent, rounds, r, m)
        for _ in range(per):
            sample_world_with(obs, rng, worlds, 0, tmp)
            for j in range(m):
                copy_state(worlds, 1, worlds[0])
                path[1] = edges[alive[j]]
                apply(worlds[1], alive[j])
                _play(worlds[1], player, tree, total, used, path, c, margin, playout, opponents,
                      net, worlds[2:], stop, out_b, out_g, rng, leaf, enc, buf, leaf_value)
        spent += per * m
        m = keep_better_half(alive, m, tree, total, edges)
    if stats is not None:
        for i in range(n):
            stats[i, 0] = _mean(tree, total, edges[i])
            stats[i, 1] = tree[edges[i], T_VISITS]
    return alive[0]
