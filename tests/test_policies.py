"""Policies: legal answers, no hidden information, observation and sampled worlds, user policies,
the catalog and the seats, and (slow) the strength ladder."""
import numba
import numpy as np
import pytest
from numba.extending import is_jitted

from coltsim import constants as K
from coltsim.engine import actions as A
from coltsim.engine.check import check_invariants
from coltsim.engine.flow import advance, apply
from coltsim.engine.rng import RNG_DECIDE, randint, seed_streams, shuffle
from coltsim.engine.setup import setup_game
from coltsim.engine.state import (
    B_BULLETS, B_CAR, B_LEVEL, B_TEAM, G_BANDITS, G_FAIL, G_GAME_INDEX, G_N_ROUNDS,
    G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_PHASE, G_PILE_N, G_PLAYERS, G_POS, G_ROUND, G_SLOT,
    L_VALUE, L_WHERE, PH_KEEP, PH_SCHEME, PH_STEAL, PILE_CARD, PILE_DOWN, PILE_PLAYER, Z_DECK, Z_HAND,
    N_SCRATCH, card_kind, copy_state, count_loot, init_table, new_states,
)
from coltsim.playout import Table, check_step, choose
from coltsim.constants import N_PARAMS
from coltsim.policies import DEFAULT, POLICY_NAMES, param_vector, resolve_policies
from coltsim.policies import builtin, catalog, models
from coltsim.policies.heuristic import greedy_policy, weighted_policy
from coltsim.policies.planner import planner_policy
from coltsim.policies.weights import shipped_net
from coltsim.policies.observe import observe, pile_revealed, sample_world
from coltsim.policies import view as V
from coltsim.rules import Rules
from coltsim.setting import make_setting
from coltsim.study.tournament import tournament, tournament_file
from coltsim.traces.trace import trace_game

jit = numba.njit(cache=True)

# Configurations covering every decision kind: base game 3-6 players, advanced rules (discard
# and keep), the 2-player team game.
CONFIGS = [
    (4, Rules()),
    (3, Rules()),
    (5, Rules()),
    (6, Rules()),
    (4, Rules(advanced=True)),
    (2, Rules(advanced=True)),
]


# The search policies, with budgets small enough for the fast tier.
SEARCH = {"rollout": {"budget": 6, "horizon": 1},
          "ismcts": {"budget": 6, "horizon": 1, "leaf": "learned", "width": 2}}  # (the top rung's)
# One policy of each chooser (greedy, weighted and the presets share theirs), and the key of a
# table that compiles them all once: a test seats the ones it checks (seat_policy indexes KEY).
CHOOSING = ("greedy", "planner", "learned", "rollout", "ismcts")
KEY = resolve_policies(6, ["random", *CHOOSING]).choosers
TABLE = Table(KEY)
NETS = np.tile(shipped_net(), (6, 1))  # every seat's network: learned's shipped one

# Scratch states of the tests' kernels: states[GAME] is the game, the others its copies, and
# states[SCRATCH:] the choosers' scratch (playout.choose).
GAME, OBS, COPY_A, COPY_B, WORLD, OBS2, SCRATCH = range(7)


def _state(players, rules, policy_ids, params=None, seed=0):
    """A table of ``players`` (scratch states: see GAME...) and a random line-up."""
    nb = players * (2 if players == 2 else 1)
    states = new_states(SCRATCH + N_SCRATCH)
    if params is None:
        params = np.zeros((players, 1))
    init_table(states[GAME], players, rules.to_array(), policy_ids, params)
    return states, np.full(nb, -1, np.int64)


# --- every built-in answers with a legal option ---------------------------------------------------
@jit
def _play_checked(table, states, seed, first, n_games, lineup, kinds_seen, nets):
    """Play games of ``table`` through ``choose``, as coltsim.playout does, counting answers
    outside [0, n) and broken invariants."""
    st = states[GAME]
    illegal = 0
    broken = 0
    for g in range(first, first + n_games):
        setup_game(st, seed, g, lineup)
        checked = -1
        while advance(st):
            n = st.game[G_PEND_N]
            kinds_seen[st.game[G_PEND_KIND]] += 1
            i = choose(table, st, states[SCRATCH:], nets)
            if i < 0 or i >= n:
                illegal += 1
                i = 0
            apply(st, i)
            checked = check_step(1, st, checked)
        if st.game[G_FAIL] != 0:
            broken += 1
    return illegal, broken


def _seated(players, rules, names, params=None):
    """States of a table of KEY whose seats play ``names`` (cycled), and a random line-up."""
    names = [names[p % len(names)] for p in range(players)]
    seats = resolve_policies(players, names, params)
    states, lineup = _state(players, rules, np.array([KEY.index(seats.choosers[i])
                                                      for i in seats.seat_policy]), seats.params)
    return states, lineup


# A designer's content (tests/test_content.py): a new card that speeds up, a deck without Tunnel,
# richer cars, Django with more Fire cards, Tuco with fewer bullets, the Marshal in car 2.
DESIGNER = (5, Rules.from_dict({
    "new_cards": [{"name": "stampede", "turns": "DNN", "turns_5_6": "DN", "event": "braking"}],
    "round_deck": ["stampede", "angry_marshal", "braking", "braking", "take_it_all", "bridge"],
    "car_loot": {"B": {"jewels": 2}, "F": {"jewels": 5}}, "decks": {"django": {"fire": 4}},
    "bullets": {"tuco": 4}, "marshal_car": 2}))


@pytest.mark.parametrize("players, rules", CONFIGS + [DESIGNER])
def test_every_builtin_policy_answers_legally(players, rules):
    names = [n for n in POLICY_NAMES if n not in SEARCH]
    kinds = np.zeros(12, np.int64)
    for k in range(len(names)):  # every policy at every seat, mixed with the others
        lineup_names = [names[(k + s) % len(names)] for s in range(players)]
        states, lineup = _seated(players, rules, lineup_names)
        illegal, broken = _play_checked(TABLE, states, 11, 100 * k, 40, lineup, kinds, NETS)
        assert illegal == 0, lineup_names
        assert broken == 0, lineup_names
    for name, cheap in SEARCH.items():  # a small budget and short playouts, in two seats
        states, lineup = _seated(players, rules, [name, "greedy"], {name: cheap})
        assert _play_checked(TABLE, states, 12, 0, 2, lineup, kinds, NETS) == (0, 0), name
    expected = {0, 1, 2, 3, 4, 5, 7, 8}  # plan, move, fire, rob, punch target/loot/dir, marshal
    if rules.advanced:
        expected |= {10, 11}
    assert expected <= set(np.flatnonzero(kinds))


# --- perturbing what a player cannot know ---------------------------------------------------------
@jit
def _perturb(st, player, seed):
    """Change everything ``player`` cannot know; keep everything it can."""
    rng = np.zeros((1, 2), np.uint64)
    seed_streams(rng, 1, seed, 0)
    # Other players' hands and decks: mixed together, counts kept; their face-down cards not yet
    # revealed swapped with action cards of their hand or deck.
    for q in range(st.game[G_PLAYERS]):
        if q == player:
            continue
        nh = st.ncards[q, Z_HAND]
        nd = st.ncards[q, Z_DECK]
        both = np.empty(nh + nd, np.int64)
        both[:nh] = st.cards[q, Z_HAND, :nh]
        both[nh:] = st.cards[q, Z_DECK, :nd]
        shuffle(rng, 0, both, nh + nd)
        for i in range(st.game[G_PILE_N]):
            if st.pile[i, PILE_PLAYER] == q and st.pile[i, PILE_DOWN] == 1 and \
                    not pile_revealed(st, i) and nh + nd > 0:
                j = randint(rng, 0, nh + nd)
                if card_kind(both[j]) != K.BULLET:
                    c = st.pile[i, PILE_CARD]
                    st.pile[i, PILE_CARD] = both[j]
                    both[j] = c
        st.cards[q, Z_HAND, :nh] = both[:nh]
        st.cards[q, Z_DECK, :nd] = both[nh:]
    # The player's own deck order.
    shuffle(rng, 0, st.cards[player, Z_DECK], st.ncards[player, Z_DECK])
    # Values of the purses its bandits do not carry.
    hidden = np.empty(K.N_PURSES, np.int64)
    values = np.empty(K.N_PURSES, np.int64)
    m = 0
    for t in range(K.FIRST_PURSE, K.FIRST_PURSE + K.N_PURSES):
        w = st.loot[t, L_WHERE]
        if not (w >= K.AT_BANDIT and st.bandit[w - K.AT_BANDIT, B_TEAM] == player):
            hidden[m] = t
            values[m] = st.loot[t, L_VALUE]
            m += 1
    shuffle(rng, 0, values, m)
    for i in range(m):
        st.loot[hidden[i], L_VALUE] = values[i]
    count_loot(st)  # (what each place holds is worth another sum now: held_value)
    # Future round cards: a fresh draw from the cards not yet seen, another station card.
    r = st.game[G_ROUND]
    unseen = np.empty(K.N_ROUND_CARDS, np.int64)
    u = 0
    for c in range(K.N_ROUND_CARDS):
        seen = False
        for i in range(r + 1):
            seen |= st.rounds[i] == c
        if not seen:
            unseen[u] = c
            u += 1
    shuffle(rng, 0, unseen, u)
    n_rounds = st.game[G_N_ROUNDS]
    for i in range(r + 1, n_rounds - 1):
        st.rounds[i] = unseen[i - r - 1]
    if r < n_rounds - 1:
        st.rounds[n_rounds - 1] = K.FIRST_STATION + (st.rounds[n_rounds - 1] - K.FIRST_STATION
                                                      + 1 + randint(rng, 0, 2)) % 3
    # Everybody else's random streams (the future shuffles), the game index, stale slots.
    for s in range(st.rng.shape[0]):
        if s != RNG_DECIDE + player:
            st.rng[s, 0] ^= np.uint64(0x5DEECE66D) + np.uint64(seed)
    st.game[G_GAME_INDEX] += 12345
    for q in range(st.game[G_PLAYERS]):
        for z in range(3):
            for i in range(st.ncards[q, z], st.cards.shape[2]):
                st.cards[q, z, i] = randint(rng, 0, 48)
    for i in range(st.game[G_PILE_N], st.pile.shape[0]):
        st.pile[i, PILE_CARD] = randint(rng, 0, 48)


@jit
def _cheat(st, kind, options, params, rng):
    """A policy that peeks at the next player's hand (to show the test can fail)."""
    q = (st.game[G_PEND_PLAYER] + 1) % st.game[G_PLAYERS]
    s = 0
    for i in range(st.ncards[q, Z_HAND]):
        s += st.cards[q, Z_HAND, i] * (i + 1)
    for t in range(K.FIRST_PURSE, K.FIRST_PURSE + K.N_PURSES):
        s += st.loot[t, L_VALUE] * t * (st.loot[t, L_WHERE] >= 0)
    return s % options.shape[0]


@jit
def _same_decisions(table, states, every, seed, n_games, lineup, nets):
    """Play random games; at every ``every``-th decision ask the chooser of ``table`` of the
    deciding seat on the state and on a perturbed copy (same own stream).  Returns (decisions
    compared, differences, differences of the cheating policy, perturbations that changed the
    state)."""
    st = states[GAME]
    compared = 0
    differ = 0
    cheat_differ = 0
    changed = 0
    k = 0
    for g in range(n_games):
        setup_game(st, seed, g, lineup)
        while advance(st):
            p = st.game[G_PEND_PLAYER]
            n = st.game[G_PEND_N]
            k += 1
            if k % every == 0:
                copy_state(states, COPY_A, st)
                copy_state(states, COPY_B, st)
                a = states[COPY_A]
                b = states[COPY_B]
                _perturb(b, p, k)
                changed += not (np.array_equal(a.cards, b.cards)
                                and np.array_equal(a.loot, b.loot)
                                and np.array_equal(a.rounds, b.rounds))
                differ += choose(table, a, states[SCRATCH:], nets) != \
                    choose(table, b, states[SCRATCH:], nets)
                rng_a = a.rng[RNG_DECIDE + p:RNG_DECIDE + p + 1]
                rng_b = b.rng[RNG_DECIDE + p:RNG_DECIDE + p + 1]
                cheat_differ += _cheat(a, 0, a.options[:n], a.params[p], rng_a) != \
                    _cheat(b, 0, b.options[:n], b.params[p], rng_b)
                compared += 1
            apply(st, randint(st.rng, RNG_DECIDE + p, n))
    return compared, differ, cheat_differ, changed


@pytest.mark.parametrize("players, rules", CONFIGS)
@pytest.mark.parametrize("name", CHOOSING)  # (random reads nothing)
def test_no_policy_reads_hidden_information(players, rules, name):
    states, lineup = _seated(players, rules, [name], {name: SEARCH[name]} if name in SEARCH
                             else None)
    every, n_games = (7, 2) if name in SEARCH else (3, 6)
    compared, differ, cheat_differ, changed = _same_decisions(TABLE, states, every, 5, n_games,
                                                              lineup, NETS)
    assert compared > 20
    assert changed > compared // 2  # the perturbation really changes hidden things
    assert cheat_differ > 0  # ... which a peeking policy notices
    assert differ == 0


@jit
def _search_or_learned(table, states, seed, n_games, lineup, nets, learned_id):
    """Random games of a table of ``ismcts`` with ``rounds = 1``: at every decision, its answer
    and ``learned``'s (the seat's id switched to ``learned_id``) on copies of the state; the
    decisions and the disagreements before the last round and in it."""
    st = states[GAME]
    seen = np.zeros((2, 2), np.int64)  # [before the last round, in it] x [decisions, differ]
    for g in range(n_games):
        setup_game(st, seed, g, lineup)
        while advance(st):
            p = st.game[G_PEND_PLAYER]
            copy_state(states, COPY_A, st)
            copy_state(states, COPY_B, st)
            states[COPY_B].seat_policy[p] = learned_id
            last = 1 if st.game[G_ROUND] == st.game[G_N_ROUNDS] - 1 else 0
            seen[last, 0] += 1
            seen[last, 1] += choose(table, states[COPY_A], states[SCRATCH:], nets) != \
                choose(table, states[COPY_B], states[SCRATCH:], nets)
            apply(st, randint(st.rng, RNG_DECIDE + p, st.game[G_PEND_N]))
    return seen


def test_ismcts_searches_only_its_last_rounds():
    """``rounds = 1``: every decision before the game's last round is learned's (its network),
    the last round's are searched."""
    states, lineup = _seated(4, Rules(), ["ismcts"], {"ismcts": dict(SEARCH["ismcts"], rounds=1)})
    seen = _search_or_learned(TABLE, states, 3, 3, lineup, NETS, KEY.index("learned"))
    assert seen[0, 0] > 100 and seen[0, 1] == 0
    assert seen[1, 0] > 20 and seen[1, 1] > 0


# --- the observation and the sampled worlds -------------------------------------------------------
@jit
def _check_any_phase(states, st):
    """check_invariants, also during Schemin' (where every pile card is still unresolved:
    counted as in Stealin' before the first card); ``states[COPY_A]`` is scratch."""
    phase = st.game[G_PHASE]
    if phase == PH_SCHEME or phase == PH_KEEP:
        copy_state(states, COPY_A, st)
        t = states[COPY_A]
        t.game[G_PHASE] = PH_STEAL
        t.game[G_POS] = 0
        return check_invariants(t)
    return check_invariants(st)


@jit
def _observation_checks(states, seed, n_games, lineup, every):
    """At decisions of random games: (1) the observation is the same for a perturbed state;
    (2) it keeps the player's own hand and hides the others'; (3) greedy, weighted and planner
    decide the same on the state and on the observation; (4) a world sampled from the
    observation is a legal position whose observation is the same.  Returns counts of failures
    of each."""
    fails = np.zeros(5, np.int64)
    k = 0
    st = states[GAME]
    obs = states[OBS]
    obs2 = states[OBS2]
    world = states[WORLD]
    w = np.zeros(16)
    w[:9] = (0.5, 2.0, 1.5, 0.3, 1.0, 2.0, 0.7, 1.2, 0.0)
    for g in range(n_games):
        setup_game(st, seed, g, lineup)
        while advance(st):
            p = st.game[G_PEND_PLAYER]
            n = st.game[G_PEND_N]
            kind = st.game[G_PEND_KIND]
            k += 1
            if k % every == 0:
                observe(st, p, obs)
                copy_state(states, COPY_B, st)
                b = states[COPY_B]
                _perturb(b, p, k)
                observe(b, p, obs2)
                same = (np.array_equal(obs.game, obs2.game) and np.array_equal(obs.loot, obs2.loot)
                        and np.array_equal(obs.cards, obs2.cards)
                        and np.array_equal(obs.pile, obs2.pile)
                        and np.array_equal(obs.rounds, obs2.rounds)
                        and np.array_equal(obs.evtok, obs2.evtok))
                fails[0] += not same
                q = (p + 1) % st.game[G_PLAYERS]
                nh = st.ncards[p, Z_HAND]
                fails[1] += not np.array_equal(obs.cards[p, Z_HAND, :nh], st.cards[p, Z_HAND, :nh])
                for i in range(st.ncards[q, Z_HAND]):
                    fails[1] += obs.cards[q, Z_HAND, i] != -1
                r1 = st.rng.copy()
                r2 = st.rng.copy()
                d1 = greedy_policy(st, kind, st.options[:n], st.params[p],
                                   r1[RNG_DECIDE + p:RNG_DECIDE + p + 1])
                d2 = greedy_policy(obs, kind, obs.options[:n], obs.params[p],
                                   r2[RNG_DECIDE + p:RNG_DECIDE + p + 1])
                d3 = weighted_policy(st, kind, st.options[:n], w,
                                     r1[RNG_DECIDE + p:RNG_DECIDE + p + 1])
                d4 = weighted_policy(obs, kind, obs.options[:n], w,
                                     r2[RNG_DECIDE + p:RNG_DECIDE + p + 1])
                d5 = planner_policy(st, kind, st.options[:n], st.params[p],
                                    r1[RNG_DECIDE + p:RNG_DECIDE + p + 1])
                d6 = planner_policy(obs, kind, obs.options[:n], obs.params[p],
                                    r2[RNG_DECIDE + p:RNG_DECIDE + p + 1])
                fails[2] += d1 != d2 or d3 != d4 or d5 != d6
                sample_world(obs, r1[RNG_DECIDE + p:RNG_DECIDE + p + 1], states, WORLD)
                fails[3] += _check_any_phase(states, world) != 0 or \
                    _check_any_phase(states, st) != 0
                observe(world, p, obs2)
                same = (np.array_equal(obs.game, obs2.game) and np.array_equal(obs.loot, obs2.loot)
                        and np.array_equal(obs.cards, obs2.cards)
                        and np.array_equal(obs.ncards, obs2.ncards)
                        and np.array_equal(obs.pile, obs2.pile)
                        and np.array_equal(obs.rounds, obs2.rounds)
                        and np.array_equal(obs.options, obs2.options))
                fails[4] += not same
            apply(st, randint(st.rng, RNG_DECIDE + p, n))
    return k // every, fails


@pytest.mark.parametrize("players, rules", CONFIGS)
def test_observation_and_sampled_worlds(players, rules):
    states, lineup = _state(players, rules, np.zeros(players, np.int64))
    compared, fails = _observation_checks(states, 3, 8, lineup, 2)
    assert compared > 100
    assert list(fails) == [0, 0, 0, 0, 0], "perturbed obs, own/other hands, state vs obs, " \
                                          "world invariants, world observation"


@jit
def _hidden_purses_in_obs(states, player):
    obs = states[OBS]
    observe(states[GAME], player, obs)
    known = 0
    hidden = 0
    for t in range(K.FIRST_PURSE, K.FIRST_PURSE + K.N_PURSES):
        if obs.loot[t, L_VALUE] >= 0:
            known += 1
        else:
            hidden += 1
    return known, hidden, obs.rounds.copy()


def test_observation_knows_only_its_own_purses_and_the_current_round():
    states, lineup = _state(4, Rules(), np.zeros(4, np.int64))
    _setup_only(states[GAME], lineup)
    known, hidden, rounds = _hidden_purses_in_obs(states, 2)
    assert (known, hidden) == (1, K.N_PURSES - 1)  # its starting $250 purse
    assert rounds[0] == -1  # nothing revealed before round 1 starts
    assert (rounds == -1).all()


@jit
def _setup_only(st, lineup):
    setup_game(st, 0, 0, lineup)


# --- view helpers agree with the engine -----------------------------------------------------------
@jit
def _line_of_fire_agrees(st, seed, n_games, lineup):
    bad = 0
    checked = 0
    a = np.empty(8, np.int64)
    b = np.empty(8, np.int64)
    for g in range(n_games):
        setup_game(st, seed, g, lineup)
        while advance(st):
            for s in range(st.game[G_BANDITS]):
                na = A.fire_targets(st, s, a)
                if st.bandit[s, B_BULLETS] == 0:
                    continue
                nb = V.line_of_fire_from(st, s, st.bandit[s, B_CAR], st.bandit[s, B_LEVEL], b)
                checked += 1
                if na != nb or not np.array_equal(np.sort(a[:na]), np.sort(b[:nb])):
                    bad += 1
            apply(st, randint(st.rng, RNG_DECIDE + st.game[G_PEND_PLAYER], st.game[G_PEND_N]))
    return checked, bad


def test_line_of_fire_from_matches_the_fire_card():
    rules = Rules(abilities=("ghost", "cheyenne", "tuco", "django", "doc"))  # Belle filters
    states, lineup = _state(5, rules, np.zeros(5, np.int64))
    checked, bad = _line_of_fire_agrees(states[GAME], 1, 5, lineup)
    assert checked > 500 and bad == 0


# --- user policies --------------------------------------------------------------------------------
@numba.njit
def robber(obs, kind, options, params, rng):
    """A user policy: play a Robbery when standing on loot, take the most valuable kind,
    otherwise greedy."""
    if kind == 0:  # DK_PLAN
        for i in range(options.shape[0]):
            v = options[i]
            if not V.is_draw(v) and V.card_kind(V.option_card(v)) == K.ROB:
                b = V.card_bandit(V.option_card(v))
                if V.grab_value(obs, V.bandit_car(obs, b), V.bandit_level(obs, b)) > 0:
                    return i
    if kind == 3:  # DK_ROB
        best = 0
        for i in range(options.shape[0]):
            if V.KIND_VALUE[options[i]] > V.KIND_VALUE[options[best]]:
                best = i
        return best
    return greedy_policy(obs, kind, options, params, rng)


@numba.njit
def sees_no_hidden_cards(obs, kind, options, params, rng):
    """A user policy that answers out of range if its observation shows another player's card
    (or, with ``params[0] == 1``, always: to test the report of an illegal answer)."""
    if params[0] == 1:
        return options.shape[0]
    me = V.me(obs)
    for q in range(obs.game[G_PLAYERS]):
        if q != me:
            for i in range(obs.ncards[q, Z_HAND]):
                if obs.cards[q, Z_HAND, i] != -1:
                    return -1
    return V.rand_below(rng, options.shape[0])


# Every fast test below seats these two user functions beside random players: a table of user
# policies compiles in each process (it cannot be cached), once per order of its functions (a
# tournament's rotations give both).
ROBBER = f"{__name__}:robber"
CHECKER = f"{__name__}:sees_no_hidden_cards"


def play(policies, games, seed=0, params=None, label=None):
    """A tournament of one table, in this process."""
    table = make_setting(len(policies), policies=policies, params=params, label=label)
    return tournament(table, games, seed, workers=1, backend="threading")


def test_user_policy_from_python():
    df = play([robber, sees_no_hidden_cards, "random", "random"], 20, seed=4, label="t")
    row = df.set_index("policy").loc[ROBBER]
    assert row["seats"] == 1 and row["games"] == 80 and df["table"].iloc[0] == "t"
    assert row["win_rate"] > 0.5  # a sensible policy beats random players


@pytest.mark.slow
def test_user_policies_beside_greedy_and_a_search():
    df = play([robber, sees_no_hidden_cards, "greedy", "rollout"], 2,
              params={"rollout": {"budget": 3, "horizon": 1}})
    assert len(df) == 4


def test_user_policy_from_a_config(tmp_path):
    path = tmp_path / "ladder.toml"
    path.write_text(f'''
name = "user"
seed = 3
games = 10
backend = "threading"
workers = 1

[[settings]]
players = 3
policies = ["{ROBBER}", "{CHECKER}", "random"]
''')
    df = tournament_file(path)
    assert set(df["policy"]) == {ROBBER, CHECKER, "random"}
    assert df["win_rate"].sum() == pytest.approx(1.0)


def test_user_policy_out_of_range_is_reported():
    with pytest.raises(ValueError, match="a user policy chose an option that does not exist"):
        play([robber, sees_no_hidden_cards, "random"], 2, params={CHECKER: {"p0": 1}})


# --- the catalog and the seats -----------------------------------------------------------------
def test_seats_of_names_presets_and_parameters():
    seats = resolve_policies(4, ["greedy", "cautious", "weighted", f"{__name__}:robber"],
                             {"weighted": {"fire": 0.0}})
    # greedy, weighted and the presets are one chooser, their weights in the parameter rows
    assert seats.choosers == ("weighted", "user:0") and list(seats.seat_policy) == [0, 0, 0, 1]
    assert seats.functions == (robber,)
    assert seats.params[0].sum() == 0.0  # greedy: all zeros, greedy's weights
    assert seats.params[2, 2] == 0.0 and seats.params[2, 0] == 1.0
    assert seats.params[1, 5] == 3.0  # cautious avoids
    seats = resolve_policies(2, ["aggressive", "cautious"], {"aggressive": {"fire": 3.0}})
    assert seats.choosers == ("weighted",)
    assert seats.params[0, 2] == 3.0 and seats.params[0, 3] == 2.0
    assert seats.names[0] == "aggressive"
    seats = resolve_policies(3, ["ismcts", "rollout", "planner"],
                             {"ismcts": {"playout": "planner"}, "rollout": {"playout": "random"}})
    # a search is compiled with its models
    assert seats.choosers == ("ismcts:planner:greedy", "planner", "rollout:random")
    assert list(seats.seat_policy) == [0, 2, 1]
    v = param_vector("rollout", {"budget": 10, "playout": "random"})
    assert (v[0], v[1], v[2]) == (10, 1, 0)
    assert param_vector("never_fires")[2] < -1e8
    with pytest.raises(ValueError, match="has no parameter 'speed'; allowed: loot"):
        param_vector("weighted", {"speed": 1})
    with pytest.raises(ValueError, match="playout must be one of"):
        param_vector("rollout", {"playout": "clever"})
    with pytest.raises(ValueError, match="unknown policy 'clever'"):
        resolve_policies(4, "clever")
    with pytest.raises(ValueError, match="cannot import module"):
        resolve_policies(4, "nowhere.at_all:f")
    with pytest.raises(ValueError, match="must name 1 or 4"):
        resolve_policies(4, ["greedy", "random"])


def test_every_declared_policy_has_its_compiled_functions():
    """Each record of catalog.POLICIES is all a built-in policy declares: its chooser and its
    models are found by name (builtin.py, models.py), its parameters fit a row."""
    for policy in catalog.POLICIES.values():
        assert not catalog.USER_POLICY.match(policy.name)
        assert len(policy.params) <= N_PARAMS
        assert is_jitted(builtin.chooser(policy.chooser)[0]), policy.chooser
        for name in policy.models:
            assert policy.params[catalog.param_names(policy.name).index(name)].choices \
                == catalog.PLAYOUT_NAMES
    for i, name in enumerate(catalog.PLAYOUT_NAMES):
        assert name in catalog.POLICIES and is_jitted(getattr(models, f"model_{name}"))
        assert builtin.chooser(f"rollout:{name}")[1] == (i,)


def test_never_fires_never_plays_fire_when_it_has_a_choice():
    fires = others = 0
    table = make_setting(4, policies=["never_fires", "greedy", "greedy", "greedy"])  # one chooser
    for g in range(4):
        lines = trace_game(table, seed=9, game_index=g)
        fires += sum(1 for x in lines if x["type"] == "plan" and x["player"] == 0
                     and x.get("card") == "fire")
        others += sum(1 for x in lines if x["type"] == "plan" and x["player"] != 0
                     and x.get("card") == "fire")
    assert others > 0 and fires == 0


# --- the planner (DEFAULT) reads the public pile and the rule options ----------------------------
def _doc_to_plan(ghost_card_face_down=None):
    """Doc's plan decision on the first turn of a round, Ghost having played before him::

        car:      0 (loco)   1        2               3        4 (caboose)
        roof:                Belle                             Django
        inside:   Marshal             Ghost, Doc      purse
                                      jewel

    Doc holds a Robbery, a Move and a Floor Change.  Ghost's Robbery is on the pile, face up
    (``False``), face down by Ghost's ability (``True``), or absent (``None``)."""
    from coltsim.engine import flow
    from tests.positions import Position

    pos = (Position(players=4, lineup="ghost,doc,belle,django")
           .clear_loot().marshal(0).round_card("braking")
           .place("ghost", 2).place("doc", 2).place("belle", 1, "roof").place("django", 4, "roof")
           .hand("doc", ["rob", "move", "floor"]).first_player("ghost"))
    pos.put("jewel", 2)
    pos.put("purse", 3)
    if ghost_card_face_down is not None:
        pos.on_pile("ghost", ["rob"], face_down=ghost_card_face_down)
    st = pos.build()
    st.game[G_PHASE] = PH_SCHEME
    st.game[G_SLOT] = 1  # Ghost has played his turn; Doc's comes
    assert flow.advance(st) and st.game[G_PEND_PLAYER] == 1
    seats = resolve_policies(4, DEFAULT)
    st.seat_policy[1] = seats.seat_policy[1]
    st.params[1] = seats.params[1]
    played = int(st.options[_decide(Table(seats.choosers), st, new_states(N_SCRATCH), NETS)]) \
        & ~flow.FACE_DOWN
    return K.CARD_NAMES[played & K.CARD_KIND_MASK] if played != flow.OPT_DRAW else "draw"


@jit
def _decide(table, st, scratch, nets):
    """The answer of the chooser of ``table`` of the deciding seat at ``st``."""
    return choose(table, st, scratch, nets)


def test_default_reads_the_face_up_pile_and_nothing_face_down():
    # Ghost's face-up Robbery will take the only jewel before Doc's resolves: Doc robs nothing
    # there, so DEFAULT plays something else.  Face down, the card tells Doc nothing: he plays
    # as if the pile were empty.
    assert _doc_to_plan(None) == "rob"
    assert _doc_to_plan(ghost_card_face_down=True) == "rob"
    assert _doc_to_plan(ghost_card_face_down=False) != "rob"


def _mean_shots(bonus):
    import coltsim

    r = coltsim.simulate(make_setting(4, rules={"gunslinger_bonus": bonus}), 3000, seed=2,
                         workers=1, backend="threading", progress=False)
    return r.players["shots"].mean()


def test_default_fires_for_the_gunslinger_bonus():
    # The same deals with and without the $1000 bonus: DEFAULT (the policy of a setting that
    # names none) values a shot by the bonus in force, so it fires clearly less without it.
    with_bonus, without = _mean_shots(1000), _mean_shots(0)
    assert with_bonus - without > 1.0, (with_bonus, without)


# --- the strength ladder (slow) -------------------------------------------------------------------
@pytest.mark.slow
def test_strength_ladder():
    tables = [make_setting(4, policies=["greedy", "random", "random", "random"], label="g"),
              make_setting(4, policies=["rollout", "greedy", "greedy", "greedy"], label="r",
                           params={"rollout": {"budget": 32}}),
              make_setting(4, policies=["planner", "greedy", "greedy", "greedy"], label="p")]
    df = tournament(tables, games=60, seed=1)
    top = df[df["seats"] == 1].set_index("table")
    assert top.loc["g", "ci_low"] > 0.25
    assert top.loc["r", "ci_low"] > 0.25
    assert top.loc["p", "ci_low"] > 0.32
