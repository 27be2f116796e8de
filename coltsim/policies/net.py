"""``learned``'s value network: a small multi-layer perceptron as one flat ``float32`` array.

A network maps an encoded position (encoding.py, ``N_INPUTS`` numbers) to a value: one or two
hidden layers of rectified linear units, then ``n_out`` outputs mixed by fixed coefficients (the
victory share and the score lead, say).  The array is laid out as::

    net[0:HEADER]    n_in, h1 (0: a linear model), h2 (0: one hidden layer), n_out, mix[0..3]
    then             W1 (n_in x h1, row by row), b1 (h1)   (only when h1 > 0)
                     W2 (h1 x h2), b2 (h2)                (only when h2 > 0)
                     W3 (width x n_out), b3 (n_out)       (width = h2, h1 or n_in)

The inputs are standardised before training; the scaling is folded into ``W1`` and ``b1``
(:func:`pack`), so that an input of 0 adds nothing and the first layer sums only the rows of
the inputs that are not 0.  Options of one decision differ in few inputs, so
:func:`net_values` sums the first option's rows and reaches every other option from it through
the inputs that differ (the incremental first layer of chess engines' NNUE).

A table of networks, one row per seat (``float32[players, width]``; rows padded with zeros),
is what a kernel is handed (coltsim.playout): a seat that plays ``learned`` reads its own row.
Making, saving and loading networks is plain Python (weights.py).
"""
import numpy as np

from .._jit import njit
from .weights import HEADER


@njit(inline="always")
def _differing(x, x0, k, idx):
    """The ``i < k`` with ``x[i] != x0[i]``, in order, into ``idx``; returns how many.  Written
    without a branch: which inputs and units are not 0 changes from one option to the next, and
    a branch that guessed wrong once per input cost more than the arithmetic it skipped."""
    m = 0
    for i in range(k):
        idx[m] = i
        m += x[i] != x0[i]
    return m


@njit
def net_values(net, enc, n, values):
    """``values[i]`` = the network ``net``'s value of the encoded position ``enc[i]``, for each
    ``i < n`` (module docstring: the first layer).  The hidden layers are summed in ``float32``,
    the network's own precision, in a fixed order: no ``fastmath``, whose reordered sums and
    fused multiply-adds depend on the processor, so every machine of a cluster gives the same
    values to the last bit, hence the same games."""
    n_in = int(net[0])
    a = int(net[1])
    b = int(net[2])
    n_out = int(net[3])
    if a == 0:  # a linear model: each output a dot product
        for opt in range(n):
            x = enc[opt]
            v = 0.0
            for m in range(n_out):
                y = net[HEADER + n_in * n_out + m]
                for i in range(n_in):
                    if x[i] != 0.0:
                        y += x[i] * net[HEADER + i * n_out + m]
                v += net[4 + m] * y
            values[opt] = v
        return
    b1 = HEADER + n_in * a
    w2 = b1 + a
    b2 = w2 + a * b
    width = b if b > 0 else a
    w3 = b2 + b if b > 0 else w2
    b3 = w3 + width * n_out
    w1m = net[HEADER:b1].reshape((n_in, a))
    w2m = net[w2:b2].reshape((a, b))
    w3m = net[w3:b3].reshape((width, n_out))
    base = net[b1:w2].copy()
    h1 = np.empty(a, np.float32)
    h2 = np.empty(b, np.float32)
    zero = np.zeros(max(n_in, a))
    idx = np.empty(max(n_in, a) + 1, np.int64)  # (_differing writes one past the last)
    x0 = enc[0]
    for t in range(_differing(x0, zero, n_in, idx)):
        i = idx[t]
        xi = np.float32(x0[i])
        for j in range(a):
            base[j] += xi * w1m[i, j]
    for opt in range(n):
        x = enc[opt]
        for j in range(a):
            h1[j] = base[j]
        if opt > 0:
            for t in range(_differing(x, x0, n_in, idx)):
                i = idx[t]
                d = np.float32(x[i] - x0[i])
                if d != 0.0:
                    for j in range(a):
                        h1[j] += d * w1m[i, j]
        for j in range(a):
            h1[j] = max(h1[j], np.float32(0.0))
        last = h1
        if b > 0:
            for k in range(b):
                h2[k] = net[b2 + k]
            for t in range(_differing(h1, zero, a, idx)):  # the units above 0
                j = idx[t]
                hj = h1[j]
                for k in range(b):
                    h2[k] += hj * w2m[j, k]
            for k in range(b):
                h2[k] = max(h2[k], np.float32(0.0))
            last = h2
        v = 0.0
        for m in range(n_out):
            y = np.float32(net[b3 + m])
            for k in range(width):
                y += last[k] * w3m[k, m]
            v += net[4 + m] * y
        values[opt] = v


__all__ = ["net_values"]
