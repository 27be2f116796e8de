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
from .._jit import njit
from .weights import HEADER, MAX_HIDDEN

WORK_W = 3 * MAX_HIDDEN  # room net_values needs in ``work``



@njit(fastmath=True)
def net_values(net, enc, n, values, work):
    """``values[i]`` = the network ``net``'s value of the encoded position ``enc[i]``, for each
    ``i < n``; ``work`` is ``float64[WORK_W]`` (module docstring: the first layer)."""
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
    w1 = HEADER
    b1 = w1 + n_in * a
    w2 = b1 + a
    b2 = w2 + a * b
    w3 = b2 + b if b > 0 else w2
    width = b if b > 0 else a
    b3 = w3 + width * n_out
    base = work[:MAX_HIDDEN]
    h1 = work[MAX_HIDDEN:2 * MAX_HIDDEN]
    h2 = work[2 * MAX_HIDDEN:]
    for j in range(a):
        base[j] = net[b1 + j]
    x0 = enc[0]
    for i in range(n_in):
        if x0[i] != 0.0:
            r = w1 + i * a
            for j in range(a):
                base[j] += x0[i] * net[r + j]
    for opt in range(n):
        x = enc[opt]
        for j in range(a):
            h1[j] = base[j]
        if opt > 0:
            for i in range(n_in):
                d = x[i] - x0[i]
                if d != 0.0:
                    r = w1 + i * a
                    for j in range(a):
                        h1[j] += d * net[r + j]
        for j in range(a):
            h1[j] = max(h1[j], 0.0)
        last = h1
        if b > 0:
            for k in range(b):
                h2[k] = net[b2 + k]
            for j in range(a):
                if h1[j] != 0.0:
                    r = w2 + j * b
                    for k in range(b):
                        h2[k] += h1[j] * net[r + k]
            for k in range(b):
                h2[k] = max(h2[k], 0.0)
            last = h2
        v = 0.0
        for m in range(n_out):
            y = net[b3 + m]
            for k in range(width):
                y += last[k] * net[w3 + k * n_out + m]
            v += net[4 + m] * y
        values[opt] = v


__all__ = ["WORK_W", "net_values"]
