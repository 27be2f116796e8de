"""What reading the rules through the engine would cost the planner (docs/engine.md, "The
planner's sketch").

    python benchmarks/planner_projection.py [--games N] [--json]

The planner resolves the visible pile and each option on a sketch of the position, its own
restatement of the rules on two small arrays.  The engine's way is ``learned``'s: every option
played on a copy of the position with ``flow.step`` and ``flow.apply``, greedy choices on the
way, the visible pile and the round's event resolved (``learned.option_encodings`` without its
encoding).  This plays 4-player games of planners and times, on one thread (processor time), the
planner's decisions as they are, then the same decisions with the engine's projection of every
option made first, then with the planner asked twice: the differences are what a planner
reading positions through the engine would spend before valuing anything, and the planner's own
time a decision.  Not a test: run it by hand.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import json
import time

import numpy as np

from coltsim._jit import njit
from coltsim.engine.flow import (
    DK_DISCARD, DK_KEEP, DK_PICKPOCKET, DK_PLAN, FACE_DOWN, OPT_DRAW, PH_EVENT, PH_STEAL,
    advance, apply,
)
from coltsim.engine.rng import RNG_DECIDE
from coltsim.engine.setup import setup_game
from coltsim.engine.state import (
    G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_PILE_N, G_POS, PILE_CARD, PILE_DOWN, PILE_PLAYER,
    Z_HAND, copy_state, init_table, new_states, remove_card,
)
from coltsim.policies.learned import _keep_known, _keep_seen, _play_phases, _steal_from
from coltsim.policies.planner import planner_policy
from coltsim.rules import Rules

PLAYERS = 4


@njit
def _project(st, scratch, rng):
    """learned.option_encodings' projection of every option of the pending decision of ``st``,
    without the encoding; returns the options projected."""
    kind = st.game[G_PEND_KIND]
    n = st.game[G_PEND_N]
    me = st.game[G_PEND_PLAYER]
    if kind == DK_DISCARD or kind == DK_KEEP or kind == DK_PICKPOCKET:
        return 0
    if kind == DK_PLAN:
        p = scratch[1]
        copy_state(scratch, 1, st)
        _keep_known(p, me, rng)
        _keep_seen(p, me, 0)
        first = p.game[G_PILE_N]
        _steal_from(p, 0)
        _play_phases(p, scratch, PH_STEAL)
        for i in range(n):
            v = st.options[i]
            copy_state(scratch, 2, p)
            q = scratch[2]
            if v != OPT_DRAW:
                remove_card(q, me, Z_HAND, v & ~FACE_DOWN)
                q.pile[first, PILE_CARD] = v & ~FACE_DOWN
                q.pile[first, PILE_PLAYER] = me
                q.pile[first, PILE_DOWN] = 1 if v & FACE_DOWN else 0
                q.game[G_PILE_N] = first + 1
                _steal_from(q, first)
            _play_phases(q, scratch, PH_EVENT)
    else:
        pos = st.game[G_POS]
        for i in range(n):
            copy_state(scratch, 2, st)
            q = scratch[2]
            _keep_known(q, me, rng)
            _keep_seen(q, me, pos + 1)
            apply(q, i)
            _play_phases(q, scratch, PH_EVENT)
    return n


@njit
def _play(states, seed, games, lineup, mode):
    """Play ``games`` games of planners; ``mode`` 1: the engine's projection of every decision
    first, 2: the planner asked twice.  Returns (decisions, options projected)."""
    st = states[0]
    decisions = 0
    projected = 0
    for g in range(games):
        setup_game(st, seed, g, lineup)
        while advance(st):
            p = st.game[G_PEND_PLAYER]
            n = st.game[G_PEND_N]
            rng = st.rng[RNG_DECIDE + p:RNG_DECIDE + p + 1]
            if mode == 1:
                projected += _project(st, states[1:], rng)
            elif mode == 2:
                planner_policy(st, st.game[G_PEND_KIND], st.options[:n], st.params[p],
                               rng[:, :].copy())
            decisions += 1
            apply(st, planner_policy(st, st.game[G_PEND_KIND], st.options[:n], st.params[p],
                                     rng))
    return decisions, projected


def measure(games: int) -> dict:
    states = new_states(4)
    init_table(states[0], PLAYERS, Rules().to_array(), np.zeros(PLAYERS, np.int64),
               np.zeros((PLAYERS, 16)))
    lineup = np.full(PLAYERS, -1, np.int64)
    _play(states, 0, 1, lineup, 1)  # compile (or load) before the clock
    seconds, projected = {}, 0
    for mode in (0, 1, 2):
        start = time.process_time()
        decisions, n = _play(states, 1, games, lineup, mode)
        seconds[mode] = time.process_time() - start
        projected = max(projected, n)
    planner = (seconds[2] - seconds[0]) / decisions
    projection = (seconds[1] - seconds[0]) / decisions
    return {"games": games, "decisions": decisions, "options_projected": projected,
            "planner_us_per_decision": 1e6 * planner,
            "engine_projection_us_per_decision": 1e6 * projection,
            "ratio": projection / planner}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    r = measure(args.games)
    if args.json:
        print(json.dumps(r))
        return
    print(f"{r['decisions']:,} decisions of {r['games']:,} 4-player games of planners: the "
          f"planner {r['planner_us_per_decision']:.1f} µs a decision, the engine's projection "
          f"of its options "
          f"{r['engine_projection_us_per_decision']:.1f} µs more: {r['ratio']:.2f} times")


if __name__ == "__main__":
    main()
