"""Counter-based random streams, one set per game.

Every game owns ``N_FIXED_STREAMS + players`` independent streams: setup (the deal), chance
(shuffles and blind purse picks during play) and one decision stream per seat.  Stream ``s`` of
game ``i`` under master seed ``m`` has the key ``mix(mix(m) ^ mix(i + GAMMA * (s + 1)))`` and its
``n``-th draw is ``mix(key + GAMMA * n)``: SplitMix64 used as a counter-based generator.  A draw
depends only on (m, i, s, n), so a game plays the same on any thread, process or machine, and
two rule sets or policies can be compared on identical deals.

``rng`` is a ``uint64[n_streams, 2]`` array: column 0 the key, column 1 the counter.
"""
import warnings

import numba
import numpy as np

from .._jit import njit

if numba.config.DISABLE_JIT:
    # Plain numpy scalars warn where compiled code silently wraps around, as intended here.
    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning, __name__)

RNG_SETUP = 0
RNG_CHANCE = 1
RNG_DECIDE = 2  # + seat
N_FIXED_STREAMS = 2

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit
def _mix(z):
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit
def seed_streams(rng, n_streams, master_seed, game_index):
    """Key the first ``n_streams`` streams of ``rng`` for game ``game_index`` under
    ``master_seed``."""
    base = _mix(np.uint64(master_seed))
    for s in range(n_streams):
        rng[s, 0] = _mix(base ^ _mix(np.uint64(game_index) + _GAMMA * np.uint64(s + 1)))
        rng[s, 1] = np.uint64(0)


@njit(inline="always")
def _draw(key, count):
    """Draw number ``count`` of the stream keyed ``key``."""
    return _mix(key + _GAMMA * count)


@njit(inline="always")
def _below(u, n):
    """``u`` (a draw) as a uniform integer in ``[0, n)`` (multiply-shift; bias below 2**-32
    for n < 64)."""
    return np.int64(((u >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


# The draws are inlined where they are used: called with a constant stream (RNG_CHANCE...), a
# compiled function would be compiled once more for each constant.
@njit(inline="always")
def next_u64(rng, stream):
    rng[stream, 1] += np.uint64(1)
    return _draw(rng[stream, 0], rng[stream, 1])


@njit(inline="always")
def randint(rng, stream, n):
    """A uniform integer in ``[0, n)``."""
    return _below(next_u64(rng, stream), n)


@njit(inline="always")
def shuffle(rng, stream, a, n):
    """Fisher-Yates shuffle of ``a[:n]`` in place, drawing as ``randint`` would."""
    # The stream's key and counter are kept in registers: read through ``rng`` at every draw,
    # each would wait for the swap before it (the compiler cannot tell ``a`` from ``rng``).
    key = rng[stream, 0]
    count = rng[stream, 1]
    for i in range(n - 1, 0, -1):
        count += np.uint64(1)
        j = _below(_draw(key, count), i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
    rng[stream, 1] = count
