"""ismcts: the tree's bookkeeping (children keyed by option value, availability counts), the
search backs up outcomes the right way round, reproducibility for a seed and budget, and (slow)
strength that grows with the budget.  Legal answers and blindness over every player count and
variant are checked with the other policies in test_policies.py."""
import numba
import numpy as np
import pandas as pd
import pytest

from coltsim import constants as K

from coltsim.engine.flow import DK_MOVE, DK_PLAN, advance, apply
from coltsim.engine.rng import RNG_DECIDE, seed_streams
from coltsim.engine.scoring import RB_N, RG_N
from coltsim.engine.setup import setup_game
from coltsim.engine.state import (
    G_N_ROUNDS, G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_PHASE, G_ROUND, N_SCRATCH, PH_STEAL,
    copy_state, init_table, new_states,
)
from coltsim.policies import param_vector, resolve_policies
from coltsim.policies.builtin import choose_weighted
from coltsim.policies.catalog import PLAYOUT_GREEDY
from coltsim.policies.ismcts import (
    KEY_STRIDE, ROOT, T_AVAIL, T_CHILD, T_KEY, T_N, T_SIBLING, T_VISITS, _select, halving_rounds,
    ismcts_policy, keep_better_half, root_iterations,
)
from coltsim.policies.observe import observe
from coltsim.engine.scoring import outcome
from coltsim.policies.rollout import play_until
from coltsim import simulate
from coltsim.rules import Rules
from coltsim.setting import make_setting
from coltsim.study.tournament import tournament
from coltsim.traces.trace import trace_game
from tests.tables import SEARCH, SEARCH_PARAMS

jit = numba.njit(cache=True)

NO_NET = np.zeros(1, np.float32)  # greedy seats need no network


# --- the tree --------------------------------------------------------------------------------------
def _tree(edges=32):
    tree = np.full((edges, T_N), -1, np.int64)
    tree[ROOT, T_VISITS] = tree[ROOT, T_AVAIL] = 0
    return tree, np.zeros(edges), np.ones(1, np.int64), np.zeros((1, 2), np.uint64)


def _pending(world, kind, options):
    world.game[G_PEND_KIND] = kind
    world.game[G_PEND_N] = len(options)
    world.options[:len(options)] = options


def _edge(tree, key):
    """The root's child with ``key`` (-1 if none)."""
    e = tree[ROOT, T_CHILD]
    while e >= 0 and tree[e, T_KEY] != key:
        e = tree[e, T_SIBLING]
    return e


def _visit(tree, total, e, outcome):
    """Back up ``outcome`` through the root and its child ``e``."""
    for x in (ROOT, e):
        tree[x, T_VISITS] += 1
        total[x] += outcome


def test_children_are_keyed_by_value_and_judged_only_where_legal():
    world = new_states(1)[0]
    tree, total, used, rng = _tree()
    outcome = {10: 0.2, 20: 0.9, 30: 0.5, 40: 0.1}
    _pending(world, DK_PLAN, [10, 20, 30])
    tried = []
    for _ in range(3):  # the playout policy's option (10) first, then the others
        i, e = _select(world, tree, total, ROOT, used, 0.0, rng, 0)
        tried.append(world.options[i])
        assert tree[e, T_KEY] == KEY_STRIDE * DK_PLAN + world.options[i]
        _visit(tree, total, e, outcome[world.options[i]])
    assert tried[0] == 10 and sorted(tried) == [10, 20, 30]
    # Another world: 10 is not legal, 40 is, in another order; the new option is tried.
    _pending(world, DK_PLAN, [40, 30, 20])
    i, e = _select(world, tree, total, ROOT, used, 0.0, rng, 1)
    assert world.options[i] == 40
    _visit(tree, total, e, outcome[40])
    # Then (two others tried, four visits: no more widening) the best mean among the legal
    # ones (no exploration): 20, at its index in this world.
    i, e = _select(world, tree, total, ROOT, used, 0.0, rng, 1)
    assert i == 2 and tree[e, T_KEY] == KEY_STRIDE * DK_PLAN + 20
    avail = {v: tree[_edge(tree, KEY_STRIDE * DK_PLAN + v), T_AVAIL] for v in outcome}
    assert avail == {10: 3, 20: 5, 30: 5, 40: 2}
    assert used[0] == 5  # the root and four children
    # The same value under another decision kind is another child.
    _pending(world, DK_MOVE, [10, 20])
    i, e = _select(world, tree, total, ROOT, used, 0.0, rng, 1)
    assert tree[e, T_KEY] == KEY_STRIDE * DK_MOVE + 20 and used[0] == 7


def test_a_young_node_widens_slowly():
    """Visited once, a node tries a second option; then a third only from four visits on."""
    world = new_states(1)[0]
    tree, total, used, rng = _tree()
    _pending(world, DK_PLAN, [1, 2, 3, 4])
    i, e = _select(world, tree, total, ROOT, used, 0.0, rng, 2)
    assert i == 2
    _visit(tree, total, e, 0.0)
    i, e = _select(world, tree, total, ROOT, used, 0.0, rng, 2)
    assert i != 2
    _visit(tree, total, e, 0.0)
    _visit(tree, total, e, 0.0)
    i, e = _select(world, tree, total, ROOT, used, 0.0, rng, 2)  # 1 other tried, 3 visits
    assert tree[e, T_VISITS] == 0
    _visit(tree, total, e, 0.0)  # 2 others tried, 4 visits: the tried ones only
    tried = {k for k in range(4) if tree[_edge(tree, KEY_STRIDE * DK_PLAN + k + 1), T_VISITS]}
    for _ in range(5):
        i, e = _select(world, tree, total, ROOT, used, 0.0, rng, 2)
        assert i in tried


def test_exploration_prefers_the_option_tried_least_often_when_means_tie():
    world = new_states(1)[0]
    tree, total, used, rng = _tree()
    _pending(world, DK_PLAN, [1, 2])
    for _ in range(2):
        i, e = _select(world, tree, total, ROOT, used, 1.0, rng, 0)
        _visit(tree, total, e, 0.5)
    for _ in range(3):
        _visit(tree, total, _edge(tree, KEY_STRIDE * DK_PLAN + 1), 0.5)
    i, e = _select(world, tree, total, ROOT, used, 1.0, rng, 0)
    assert world.options[i] == 2


def test_a_full_edge_table_leaves_the_tree():
    world = new_states(1)[0]
    tree, total, used, rng = _tree(edges=3)
    _pending(world, DK_PLAN, [1, 2, 3])
    assert _select(world, tree, total, ROOT, used, 1.0, rng, 0) == (-1, -1)


def test_sequential_halving_at_the_root():
    # ceil(log2 n) rounds sharing the budget; every option at least once per round it is alive.
    assert [halving_rounds(n) for n in (2, 3, 4, 5, 8, 9)] == [1, 2, 2, 3, 3, 4]
    assert root_iterations(64, 2) == 64
    assert root_iterations(128, 7) == 7 * 6 + 4 * 10 + 2 * 23  # 128 // 21, 86 // 8, 46 // 2
    assert root_iterations(1, 7) == 7 + 4 + 2
    for budget in (16, 32, 128, 512):
        for n in range(2, 13):
            assert budget - 2 * n < root_iterations(budget, n) <= max(budget, 2 * n * 3)
    # The better half survives, ordered by mean; ties keep their order.
    tree, total, _, _ = _tree()
    edges = np.array([3, 4, 5, 6, 7])
    tree[edges, T_VISITS] = 2
    total[edges] = [0.2, 1.0, 0.2, 1.6, 0.2]
    alive = np.arange(5)
    assert keep_better_half(alive, 5, tree, total, edges) == 3
    assert list(alive) == [3, 1, 0, 2, 4]


# --- the search ------------------------------------------------------------------------------------
@jit
def _true_values(states, reps, values):
    """Win share of player 0 after each option of ``states[0]``'s decision, played out ``reps``
    times from the true state (greedy seats, fresh chance), into ``values``."""
    st = states[0]
    out_b = np.zeros((K.MAX_BANDITS, RB_N), np.int32)
    out_g = np.zeros(RG_N, np.int32)
    for i in range(st.game[G_PEND_N]):
        values[i] = 0.0
        for r in range(reps):
            copy_state(states, 2, st)
            w = states[2]
            seed_streams(w.rng, w.rng.shape[0], r, i)
            apply(w, i)
            play_until(w, PLAYOUT_GREEDY, states[3:], w.game[G_N_ROUNDS], NO_NET)
            values[i] += outcome(w, 0, 0.0, out_b, out_g) / reps


@jit
def _decisive_choices(states, seed, n_games, lineup, params, chosen, best, worst):
    """At player 0's decisions in the last round's Stealin' where, played out from the true
    state, one option wins at least half a game more often than another: the true value of
    ismcts's choice, of the best option and of the worst."""
    st = states[0]
    obs = states[1]
    values = np.zeros(64)
    k = 0
    for g in range(n_games):
        setup_game(st, seed, g, lineup)
        while advance(st) and k < chosen.shape[0]:
            p = st.game[G_PEND_PLAYER]
            n = st.game[G_PEND_N]
            if p == 0 and st.game[G_ROUND] == st.game[G_N_ROUNDS] - 1 and \
                    st.game[G_PHASE] == PH_STEAL:
                _true_values(states, 32, values)
                if values[:n].max() - values[:n].min() >= 0.5:
                    observe(st, p, obs)
                    rng = st.rng[RNG_DECIDE + p:RNG_DECIDE + p + 1].copy()
                    i = ismcts_policy(obs, st.game[G_PEND_KIND], obs.options[:n], params, rng,
                                      PLAYOUT_GREEDY, PLAYOUT_GREEDY, NO_NET)
                    chosen[k] = values[i]
                    best[k] = values[:n].max()
                    worst[k] = values[:n].min()
                    k += 1
            apply(st, choose_weighted(st, states[3:], NO_NET))  # the greedy table's chooser
    return k


def test_the_search_finds_the_decisive_option():
    """Outcomes are backed up the right way round: where one option clearly wins and another
    clearly loses (late in the game, little left hidden), the search takes a winning one."""
    seats = resolve_policies(4, "greedy")
    assert seats.choosers == ("weighted",)
    states = new_states(3 + N_SCRATCH)
    init_table(states[0], 4, Rules().to_array(), seats.seat_policy, seats.params)
    chosen, best, worst = np.zeros(10), np.zeros(10), np.zeros(10)
    k = _decisive_choices(states, 3, 200, np.full(4, -1, np.int64),
                          param_vector("ismcts", {"budget": 32}), chosen, best, worst)
    assert k == 10
    assert (chosen >= best - 0.25).sum() >= 9, (chosen, best, worst)


def test_reproducible_for_a_seed_and_budget():
    """Two games of the search table (tests/tables.py: one kernel for every fast test of a
    search), the same for the same seed and budget."""
    def games(budget, seed=5):
        params = {**SEARCH_PARAMS, "ismcts": {"budget": budget, "horizon": 2}}
        return simulate(make_setting(4, policies=SEARCH, params=params), 2, seed=seed,
                        workers=1, progress=False).players

    a = games(8)
    pd.testing.assert_frame_equal(a, games(8))
    assert not a.drop(columns="setting").equals(games(9).drop(columns="setting"))  # it matters


def test_a_learned_leaf_values_the_horizon_with_the_seats_network(tmp_path):
    """``leaf = "learned"``: the playouts stopped at the horizon are valued by the network of the
    weights file the seat names, so the search's games change with the leaf and with the
    network (the same kernel: leaf and weights are data)."""
    from coltsim.policies.weights import pack, save_net
    from coltsim.policies.encoding import N_INPUTS

    rng = np.random.default_rng(28)
    save_net(tmp_path / "other.npz", pack([(rng.normal(size=(N_INPUTS, 1)), [0.0])], [1.0]), {})

    def games(**ismcts):
        params = {**SEARCH_PARAMS, "ismcts": {"budget": 8, "horizon": 1, **ismcts}}
        return simulate(make_setting(4, policies=SEARCH, params=params), 2, seed=5,
                        workers=1, progress=False).players.drop(columns="setting")

    score, learned = games(), games(leaf="learned")
    assert not learned.equals(score)
    assert learned.equals(games(leaf="learned"))
    assert not learned.equals(games(leaf="learned", weights=str(tmp_path / "other.npz")))


def test_a_root_of_width_k_searches_the_playout_choice_and_the_best_valued_others():
    """``width``: the root's options are ranked by learned's value of each (the seat's
    network), the playout model's choice first; k of them are searched."""
    from coltsim.policies.encoding import BUF_W, ENCODE_W
    from coltsim.policies.ismcts import keep_widest
    from coltsim.policies.learned import option_encodings
    from coltsim.policies.net import net_values
    from coltsim.policies.weights import shipped_net

    net = shipped_net()
    states = new_states(3 + N_SCRATCH)
    init_table(states[0], 4, Rules().to_array(), np.zeros(4, np.int64), np.zeros((4, 16)))
    setup_game(states[0], 11, 0, np.full(4, -1, np.int64))
    advance(states[0])
    st, obs = states[0], states[1]
    observe(st, st.game[G_PEND_PLAYER], obs)
    n = obs.game[G_PEND_N]
    assert obs.game[G_PEND_KIND] == DK_PLAN and n >= 4
    rng = st.rng[RNG_DECIDE:RNG_DECIDE + 1].copy()
    enc, values = np.empty((n, ENCODE_W)), np.empty(n)
    option_encodings(obs, states[3:], rng, enc, np.empty(BUF_W, np.int64))
    net_values(net, enc, n, values)
    for default in (0, n - 1):
        alive = np.arange(n)
        assert keep_widest(obs, states[3:], rng, net, 3, default, alive) == 3
        assert sorted(alive) == list(range(n)) and alive[0] == default
        others = [i for i in np.argsort(-values, kind="stable") if i != default]
        assert list(alive[1:]) == others


@pytest.mark.slow
def test_reproducible_in_the_two_player_game():
    def game(budget, seed=5):
        table = make_setting(2, policies=["ismcts", "greedy"], rules=Rules(advanced=True),
                             params={"ismcts": {"budget": budget, "horizon": 2}})
        return trace_game(table, seed=seed, game_index=1)

    a = game(8)
    assert a == game(8)
    assert a != game(9)  # the budget matters (so the comparison above can fail)


# --- strength (slow) -------------------------------------------------------------------------------
@pytest.mark.slow
def test_strength_grows_with_the_budget():
    tables = [make_setting(4, policies=["ismcts", "greedy", "greedy", "greedy"], label=str(b),
                           params={"ismcts": {"budget": b}}) for b in (4, 64)]
    top = tournament(tables, games=60, seed=2).set_index(["table", "policy"])["win_rate"]
    assert top["64", "ismcts"] > 0.45
    assert top["64", "ismcts"] > top["4", "ismcts"] + 0.1
