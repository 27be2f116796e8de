"""Playing games: the one playout loop, and the batch kernel over many games."""
from .._jit import njit
from ..policies.builtin import choose
from .flow import advance, apply
from .scoring import score_game
from .setup import setup_game
from .state import G_CHECK, G_DECISIONS, _new_state


@njit
def play_out(st):
    """Play ``st`` to the end: find who decides, ask its policy, apply."""
    while advance(st):
        st.game[G_DECISIONS] += 1
        apply(st, choose(st))


@njit
def play_one(st, seed, game_index, lineup, check, out_b, out_g):
    setup_game(st, seed, game_index, lineup)
    st.game[G_CHECK] = check
    play_out(st)
    score_game(st, out_b, out_g)


@njit
def seat_players(st, seat_policy, params):
    """Copy the players' policy ids and parameter rows into ``st``.

    Element by element on purpose: inside a ``prange`` loop numba 0.68's parallel transform
    loses a slice assignment to a field of the state, and a kernel may be called from one."""
    for p in range(seat_policy.shape[0]):
        st.seat_policy[p] = seat_policy[p]
        for j in range(params.shape[1]):
            st.params[p, j] = params[p, j]


@njit
def play_batch(seed, first_index, lineups, seat_policy, params, opts, check, out_b, out_g):
    """Play games ``first_index .. first_index + len(out_g) - 1`` of ``seed``, one after another,
    with built-in policies.

    Game ``g`` uses line-up ``lineups[g % len(lineups)]``; each depends only on (seed, game
    index), so any split of a run into batches gives the same results.  The kernel releases the
    GIL: run batches side by side in joblib threads or processes (runner.py).

    out_b : int32[games, bandits, RB_N]     out_g : int32[games, RG_N]
    """
    st = _new_state(seat_policy.shape[0], lineups.shape[1], opts, 0)
    seat_players(st, seat_policy, params)
    for g in range(out_g.shape[0]):
        game = first_index + g
        play_one(st, seed, game, lineups[game % lineups.shape[0]], check, out_b[g], out_g[g])
