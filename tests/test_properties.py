"""Invariants over many random games, checked on the state arrays after every action and event
by a checking kernel (engine/check.py, playout.check_step), and on the results of every game."""
import os
import subprocess
import sys

import numpy as np
import pytest

from coltsim import constants as K
from coltsim._jit import njit
from coltsim.engine import check as C
from coltsim.playout import batch_kernel, new_kernel_states
from coltsim.engine.scoring import (
    RB_BONUS, RB_GUNSLINGER, RB_LOOT, RB_N, RB_NEUTRAL, RB_RANK, RB_RECEIVED, RB_SCORE,
    RB_SHOTS, RB_WIN, RG_FAIL, RG_N, RG_N_WINNERS,
)
from coltsim.engine.setup import setup_game
from coltsim.engine.state import (
    B_BULLETS, B_CAR, B_LEVEL, G_MARSHAL, G_NEUTRAL_LEFT, L_WHERE, N_PARAMS, Z_DECK, Z_HAND,
    init_table, new_states,
)
from coltsim.rules import Rules

GAMES = 10_000
TOTAL_LOOT = (sum(K.PURSE_VALUES) + K.N_JEWELS * K.JEWEL_VALUE + 2 * K.STRONGBOX_VALUE
              + K.MAX_BANDITS * K.RANSOM_VALUE)


def play(players, games, rules=None, seed=11):
    opts = (rules or Rules()).to_array()
    n_bandits = players * (2 if players == 2 else 1)
    lineups = np.full((1, n_bandits), -1, np.int64)
    out_b = np.zeros((games, n_bandits, RB_N), np.int32)
    out_g = np.zeros((games, RG_N), np.int32)
    batch_kernel(("random",), check=True)(new_kernel_states(), seed, 0, lineups,
                                          np.zeros(players, np.int64),
                                          np.zeros((players, N_PARAMS)),
                                          np.zeros((players, 1), np.float32), opts, out_b, out_g)
    return out_b, out_g


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_invariants_hold_after_every_action_and_event(players):
    out_b, out_g = play(players, GAMES)
    failures = out_g[:, RG_FAIL]
    assert not failures.any(), {C.CHECK_NAMES[c]: int((failures == c).sum()) for c in set(failures) if c}
    # Results: loot never exceeds what exists; scores add up; the winners are rank 1.
    assert (out_b[:, :, RB_LOOT].sum(axis=1) <= TOTAL_LOOT).all()
    assert (out_b[:, :, RB_SCORE] == out_b[:, :, RB_LOOT] + out_b[:, :, RB_BONUS]).all()
    assert ((out_b[:, :, RB_RANK] == 1) == (out_b[:, :, RB_WIN] == 1)).all()
    assert (out_b[:, :, RB_WIN].sum(axis=1) == out_g[:, RG_N_WINNERS]).all()
    assert (out_g[:, RG_N_WINNERS] >= 1).all()
    # The Gunslinger is whoever fired most, when anybody fired.
    most = out_b[:, :, RB_SHOTS].max(axis=1, keepdims=True)
    expected = (out_b[:, :, RB_SHOTS] == most) & (most > 0)
    assert (expected == (out_b[:, :, RB_GUNSLINGER] == 1)).all()
    # A winner has the best score, and among equal scores the fewest bullets received.
    score = out_b[:, :, RB_SCORE]
    received = out_b[:, :, RB_RECEIVED] + out_b[:, :, RB_NEUTRAL]
    best = score.max(axis=1, keepdims=True)
    fewest = np.where(score == best, received, 99).min(axis=1, keepdims=True)
    assert ((out_b[:, :, RB_WIN] == 1) == ((score == best) & (received == fewest))).all()


@pytest.mark.parametrize("rules", [
    Rules(neutral_bullets=-1), Rules(neutral_bullets=2, neutral_runout="until_empty"),
    Rules(hand_size=4, draw_count=1, rounds=8), Rules(abilities=()),
    Rules(django_push_without_bullets=True, ghost_both_halves=True, roof_move_max=6),
])
def test_invariants_hold_under_rule_options(rules):
    _, out_g = play(4, 2_000, rules)
    assert not out_g[:, RG_FAIL].any()


# --- the checker itself catches each broken invariant ---------------------------------------------
@njit
def _setup(st):
    setup_game(st, 1, 0, np.full(4, -1, np.int64))


@njit
def _check(st):
    return C.check_invariants(st)


def _fresh():
    st = new_states(1)[0]
    init_table(st, 4, Rules().to_array(), np.zeros(4, np.int64), np.zeros((4, N_PARAMS)))
    _setup(st)
    assert _check(st) == C.CHECK_OK
    return st


def _inside_marshal(st):
    st.bandit[0, B_CAR] = st.game[G_MARSHAL]
    st.bandit[0, B_LEVEL] = K.INSIDE


def _off_train(st):
    st.bandit[1, B_CAR] = 9


def _loot_nowhere(st):
    st.loot[5, L_WHERE] = 77


def _token_moved_behind_the_tables(st):
    st.loot[K.FIRST_JEWEL, L_WHERE] = K.AT_BANDIT + 0  # not through move_token


def _bullet_vanished(st):
    st.bandit[2, B_BULLETS] = 5


def _card_lost(st):
    st.ncards[0, Z_DECK] -= 1


def _card_to_other_player(st):
    st.cards[1, Z_HAND, st.ncards[1, Z_HAND]] = st.cards[0, Z_DECK, st.ncards[0, Z_DECK] - 1]
    st.ncards[1, Z_HAND] += 1
    st.ncards[0, Z_DECK] -= 1


def _neutral_vanished(st):
    st.game[G_NEUTRAL_LEFT] -= 1


@pytest.mark.parametrize("break_it, code", [
    (_inside_marshal, C.CHECK_MARSHAL_CAR), (_off_train, C.CHECK_POSITION),
    (_loot_nowhere, C.CHECK_LOOT_PLACE), (_token_moved_behind_the_tables, C.CHECK_LOOT_TABLES),
    (_bullet_vanished, C.CHECK_BULLETS),
    (_card_lost, C.CHECK_CARDS), (_card_to_other_player, C.CHECK_CARDS),
    (_neutral_vanished, C.CHECK_NEUTRAL),
])
def test_checker_detects_each_broken_invariant(break_it, code):
    st = _fresh()
    break_it(st)
    assert _check(st) == code


def test_batch_kernel_seats_each_players_policy():
    # Three greedy players and one random: the greedy seats win far more than a fair share.
    from coltsim.policies import resolve_policies
    from coltsim.engine.scoring import RB_WIN
    games = 2_000
    lineups = np.full((1, 4), -1, np.int64)
    out_b = np.zeros((games, 4, RB_N), np.int32)
    out_g = np.zeros((games, RG_N), np.int32)
    seats = resolve_policies(4, ["random", "greedy", "greedy", "greedy"])
    assert seats.choosers == ("random", "weighted") and list(seats.seat_policy) == [0, 1, 1, 1]
    batch_kernel(seats.choosers)(new_kernel_states(), 3, 0, lineups, seats.seat_policy,
                                 seats.params, seats.nets, Rules().to_array(), out_b, out_g)
    assert out_b[:, 0, RB_WIN].mean() < 0.1 < out_b[:, 1:, RB_WIN].mean()


_ALLOCATIONS_SCRIPT = """
import coltsim
from numba.core.runtime import rtsys
fixed = [dict(players=p, policies=policy) for p in (3, 4, 5, 6) for policy in ("random", "greedy")]
fixed += [dict(players=2, policies="planner"),
          dict(players=4, policies="planner", rules={"advanced": True}),
          dict(players=4, policies=["weighted", "cautious", "random", "random"])]
search = [dict(players=4, policies=["ismcts", "rollout", "greedy", "random"],  # tests/tables.py
               params={"ismcts": {"budget": 4}, "rollout": {"budget": 4}}),
          dict(players=4, rules={"advanced": True}), dict(players=2)]  # the default, learned
def play(cases, games):  # the kernels a run plays (not the checking ones: test_invariants_...)
    for case in cases:
        coltsim.simulate(coltsim.make_setting(**case), games, workers=1, backend="threading",
                         progress=False)
def allocations(cases, games):
    before = rtsys.get_allocation_stats()
    play(cases, games)
    after = rtsys.get_allocation_stats()
    return [getattr(after, f) - getattr(before, f) for f in ("alloc", "free", "mi_alloc", "mi_free")]
play(fixed + search, 1)  # load the kernels (and start numba's runtime)
print(*allocations(fixed, 5), *allocations(fixed, 50), *allocations(search, 5))
"""


def test_games_allocate_nothing_and_kernels_free_what_they_allocate():
    # The states are given to the kernel, and a game allocates nothing: playing 50 games allocates
    # exactly what playing 5 does.  A search policy, and learned (its options' encodings),
    # allocates its scratch per decision, and frees it.  NRT statistics must be switched on before numba loads, hence the subprocess.
    env = {**os.environ, "NUMBA_NRT_STATS": "1"}
    out = subprocess.run([sys.executable, "-c", _ALLOCATIONS_SCRIPT], env=env, capture_output=True,
                         text=True, check=True).stdout
    few, many, search = np.array(out.split(), int).reshape(3, 4)
    assert few[0] > 0 and (few == many).all()
    assert search[0] > 100 and search[0] == search[1] and search[2] == search[3]
