"""``learned``: every option played on a copy of the position with the engine's own rules, and
the result valued by a neural network trained on the outcomes of many games (coltsim train).

A decision of the player ``me``:

1. **Project.**  The position is copied into a scratch state; the cards ``me`` cannot see (other
   players' face-down cards not yet turned over) are taken off the copy's pile, every purse
   ``me`` does not know is given the mean value, every random stream is keyed from ``me``'s own,
   and the rest of the pile is resolved by the engine (flow.step, flow.apply), each choice on
   the way made by the model ``greedy``.  For a planning decision this is the pile before
   ``me``'s card, resolved once for all options; for a card being resolved (Stealin'), each
   option is applied first and the rest of the visible pile resolved after it.
2. **Try each option.**  Planning: the projection is copied per option, ``me``'s card leaves
   the hand, goes on the end of the pile and is resolved; drawing plays no card (the encoding
   counts the cards it brings at their expected composition).  Then the round's event.
3. **Value** each result with the seat's network (net.py) over the encoding of what ``me`` may
   know of it (encoding.py: every bandit, the loot, the Marshal, the hand, the stage of the
   game, the player count, the rule options); the best option is played, ties at random from
   ``me``'s own stream.  Discards and keeps (advanced rules) are greedy's, a purse offered is
   always taken.

The projection runs the engine itself on the copy, so a rule changed in the engine, or a rule
option a designer changes, changes how ``learned`` thinks without a line here; the network reads
the rule options too, so what it learned can depend on them.

The network is data: ``learned.npz`` beside this module (the shipped weights, with their
provenance and hash: weights.py), or a file made by ``coltsim train``, given per seat
(``[policy_params.learned] weights = "FILE"``).  A kernel is handed a table of networks, a row
per seat (weights.table), so one compiled kernel plays any weights.
"""
import numpy as np
from numba import types

from .._jit import njit
from ..engine.flow import (
    DK_DISCARD, DK_KEEP, DK_PICKPOCKET, DK_PLAN, FACE_DOWN, OPT_DRAW, STEP_DECISION, STEP_OVER,
    apply, step,
)
from ..engine.rng import seed_streams
from ..engine.state import (
    B_TEAM, G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_PHASE, G_PILE_N, G_POS, L_VALUE, L_WHERE,
    PH_EVENT, PH_STEAL, PILE_CARD, PILE_DOWN, PILE_N, PILE_PLAYER, Z_HAND, copy_state,
    count_loot, remove_card,
)
from .. import constants as K
from .encoding import BUF_W, ENCODE_W, encode
from .common import pick
from .heuristic import GREEDY_WEIGHTS, greedy_choice, pick_best
from .net import net_values
from .observe import pile_revealed
from .view import EXPECTED_PURSE

_MEAN_PURSE = round(EXPECTED_PURSE)  # a purse's value where it is not known


# --- the projection: the engine, on a copy, with greedy choices --------------------------------
@njit(inline="always")  # a unit of its own would link and optimise the engine once more
def _play_phases(q, scratch, last):
    """Play ``q`` on while it is in Stealin' or a later phase up to ``last`` (PH_STEAL: the rest
    of the pile; PH_EVENT: and the round card's event), every choice made by ``greedy``."""
    while PH_STEAL <= q.game[G_PHASE] <= last:
        s = step(q)
        if s == STEP_DECISION:
            apply(q, greedy_choice(q, scratch))
        elif s == STEP_OVER:
            return


@njit(inline="always")  # (called with a constant: a unit would compile once per constant)
def _keep_seen(q, me, first):
    """Take off ``q``'s pile, from card ``first`` on, the cards ``me`` cannot see."""
    n = first
    for i in range(first, q.game[G_PILE_N]):
        if q.pile[i, PILE_PLAYER] == me or pile_revealed(q, i):
            for f in range(PILE_N):
                q.pile[n, f] = q.pile[i, f]
            n += 1
    q.game[G_PILE_N] = n


@njit
def _keep_known(q, me, rng):
    """Make ``q`` a projection that depends only on what ``me`` may know: every purse value it
    does not know is the mean purse's (greedy, choosing for another player, would read that
    player's own), and every random stream is keyed from ``me``'s own stream ``rng``."""
    for t in range(K.FIRST_PURSE, K.FIRST_PURSE + K.N_PURSES):
        w = q.loot[t, L_WHERE]
        if not (w >= K.AT_BANDIT and q.bandit[w - K.AT_BANDIT, B_TEAM] == me):
            q.loot[t, L_VALUE] = _MEAN_PURSE
    count_loot(q)
    seed_streams(q.rng, q.rng.shape[0], rng[0, 0], rng[0, 1])


@njit(inline="always")  # (as _keep_seen)
def _steal_from(q, first):
    """Turn ``q`` to Stealin' at pile card ``first``, nothing pending."""
    q.game[G_PHASE] = PH_STEAL
    q.game[G_POS] = first
    q.game[G_PEND_N] = 0


@njit(inline="always")  # (inlined, as _play_phases: its callers are the compiled units)
def option_encodings(st, scratch, rng, enc, buf):
    """Every option of the pending decision of ``st`` projected (module docstring) and encoded
    for its deciding player into ``enc[i]`` (``float64[n, ENCODE_W]``; ``buf``
    ``int64[BUF_W]``); ``scratch[1]`` and ``scratch[2]`` hold the projections, and the random
    streams are keyed from the player's ``rng`` (read, not drawn from).  False for a decision
    ``learned`` does not value (discards, keeps, a purse offered)."""
    kind = st.game[G_PEND_KIND]
    n = st.game[G_PEND_N]
    options = st.options[:n]
    me = st.game[G_PEND_PLAYER]
    if kind == DK_DISCARD or kind == DK_KEEP or kind == DK_PICKPOCKET:
        return False
    if kind == DK_PLAN:
        p = scratch[1]
        copy_state(scratch, 1, st)
        _keep_known(p, me, rng)
        _keep_seen(p, me, 0)
        first = p.game[G_PILE_N]
        _steal_from(p, 0)
        _play_phases(p, scratch, PH_STEAL)  # the visible pile, before me's card
        for i in range(n):
            v = options[i]
            copy_state(scratch, 2, p)
            q = scratch[2]
            if v != OPT_DRAW:  # me's card leaves the hand and resolves after the visible pile
                remove_card(q, me, Z_HAND, v & ~FACE_DOWN)
                q.pile[first, PILE_CARD] = v & ~FACE_DOWN
                q.pile[first, PILE_PLAYER] = me
                q.pile[first, PILE_DOWN] = 1 if v & FACE_DOWN else 0
                q.game[G_PILE_N] = first + 1
                _steal_from(q, first)
            _play_phases(q, scratch, PH_EVENT)  # (me's card,) then the event
            encode(st, q, me, kind, v, enc[i], buf)
    else:
        pos = st.game[G_POS]
        for i in range(n):
            copy_state(scratch, 2, st)
            q = scratch[2]
            _keep_known(q, me, rng)
            _keep_seen(q, me, pos + 1)
            apply(q, i)
            _play_phases(q, scratch, PH_EVENT)  # its later choices, the visible pile, the event
            encode(st, q, me, kind, options[i], enc[i], buf)
    return True


# --- the decision --------------------------------------------------------------------------------
@njit(inline="always")  # (inlined: model_learned is the chooser's one compiled unit)
def learned_decide(st, scratch, net, rng):
    """The option index ``learned`` plays at the pending decision of ``st`` with the network
    ``net`` (net.py), ties at random from ``rng``."""
    kind = st.game[G_PEND_KIND]
    n = st.game[G_PEND_N]
    options = st.options[:n]
    if kind == DK_PICKPOCKET:
        return 0 if options[0] == 1 else 1
    if kind == DK_DISCARD or kind == DK_KEEP:
        return pick_best(st, kind, options, GREEDY_WEIGHTS, rng)
    enc = np.empty((n, ENCODE_W))
    buf = np.empty(BUF_W, np.int64)
    values = np.empty(n)
    option_encodings(st, scratch, rng, enc, buf)
    net_values(net, enc, n, values)
    best, chosen, ties = -1e300, 0, 0
    for i in range(n):
        best, chosen, ties = pick(values[i], best, chosen, ties, i, rng)
    return chosen


def compile_ahead(st, scratch, net) -> None:
    """Compile, for the numba types of a kernel's state ``st``, its scratch and a network row
    ``net``, the units of ``learned``'s chooser that need no engine: ``greedy`` (its choices in
    the projection and its discards), the projection's purses, the encoding and the network.  A
    first start compiles them while another process compiles the engine (playout.first_start);
    the chooser's own compile then finds them in numba's cache."""
    i64 = types.int64
    row = types.Array(types.float64, 1, "C")
    greedy_choice.compile((st, scratch))
    _keep_known.compile((st, i64, types.Array(types.uint64, 2, "C")))
    encode.compile((st, st, i64, i64, i64, row, types.Array(types.int64, 1, "C")))
    net_values.compile((net, types.Array(types.float64, 2, "C"), i64, row))


__all__ = ["compile_ahead", "learned_decide", "option_encodings"]
