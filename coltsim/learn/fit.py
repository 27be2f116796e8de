"""Fitting ``learned``'s value: a linear model (ridge regression) or a multi-layer perceptron
(scikit-learn's ``MLPRegressor``) on recorded positions (policies/recording.py), streamed in
batches.

The linear model is solved from its normal equations summed over blocks of rows (the same
solution as scikit-learn's ``Ridge`` on the standardised inputs, tests/test_learn.py, in the
memory of one block); the perceptron is trained by ``partial_fit`` on one block at a time.

The target of a position is the decider's victory share plus ``margin`` times its score lead
over the best other team (thousands of dollars): the outcome the searches score a game by, a
little less noisy than the victory alone.  Positions are split by game: every position of a
twentieth of the games (drawn from the seed) is held out, and the epoch with the lowest error
on them is kept, so that the fit is judged on games it never saw.

Inputs are standardised for the fit (their mean and spread over a sample of the data) and the
scaling is folded into the network's first layer (weights.pack), so that the kernels read the
encoding as it is.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..policies.recording import M_GAME, Y_LEAD, Y_SHARE
from ..policies.weights import pack
from ..setting import FieldError

HELD_OUT = 20  # one game in HELD_OUT is held out
BLOCK = 400_000  # rows standardised and handed to the fit at a time
MAX_HELD_OUT_ROWS = 200_000


@dataclass(frozen=True)
class FitResult:
    """A fitted network and how well it fits."""

    net: np.ndarray  # float32, weights.pack's layout
    rows: int  # positions fitted
    held_out: int  # positions of held-out games
    epochs: int  # epochs run
    best_epoch: int
    mse: float  # on the held-out positions, at the best epoch
    r2: float
    seconds: float

    def as_dict(self) -> dict:
        return {"rows": self.rows, "held_out": self.held_out, "epochs": self.epochs,
                "best_epoch": self.best_epoch, "mse": round(self.mse, 6),
                "r2": round(self.r2, 6), "seconds": round(self.seconds, 1)}


def _ridge(standard, t, rows, alpha):
    """Ridge regression of ``t`` on the standardised rows (``standard(rows)``), with an
    intercept that is not penalised: the normal equations summed over blocks of rows."""
    n = None
    for lo in range(0, len(rows), BLOCK):
        block = rows[lo:lo + BLOCK]
        z = np.hstack([standard(block).astype(np.float64), np.ones((len(block), 1))])
        if n is None:
            n = np.zeros((z.shape[1], z.shape[1]))
            r = np.zeros(z.shape[1])
        n += z.T @ z
        r += z.T @ t[block]
    penalty = np.full(n.shape[0], float(alpha))
    penalty[-1] = 0.0
    coef = np.linalg.solve(n + np.diag(penalty), r)
    return coef[:-1], float(coef[-1])


def split(meta: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The rows fitted and the rows held out (every position of one game in ``HELD_OUT``,
    drawn by ``rng``; at most ``MAX_HELD_OUT_ROWS`` of them)."""
    games = np.unique(meta[:, M_GAME])
    held = rng.choice(games, size=max(1, len(games) // HELD_OUT), replace=False)
    is_held = np.isin(meta[:, M_GAME], held)
    return np.flatnonzero(~is_held), np.flatnonzero(is_held)[:MAX_HELD_OUT_ROWS]


def targets(y: np.ndarray, margin: float) -> np.ndarray:
    """The target of each recorded row (module docstring)."""
    return y[:, Y_SHARE].astype(np.float64) + margin * y[:, Y_LEAD]


def fit(x: np.ndarray, meta: np.ndarray, y: np.ndarray, *, hidden=(), margin=0.2,
        epochs=4, seed=0, alpha=None, batch=1024, learning_rate=1e-3, say=None) -> FitResult:
    """Fit a value on the rows ``x`` (``N_INPUTS`` columns), ``meta``, ``y`` (recording.py): a
    linear model if ``hidden`` is empty (``alpha`` its ridge penalty on the standardised
    inputs, default 1), else a perceptron with those hidden layers (``alpha`` its L2 penalty,
    default 1e-4); ``say`` (a function of one string, or None) hears each epoch's held-out
    error."""
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    train_rows, held_rows = split(meta, rng)
    if len(train_rows) < 2 or len(held_rows) < 2:
        raise FieldError("train", f"too few positions to fit a network ({len(x)} recorded): "
                                  "record more games")
    t = targets(y, margin)
    sample = x[rng.choice(train_rows, size=min(len(train_rows), BLOCK), replace=False)]
    mean = sample.astype(np.float64).mean(axis=0)
    scale = sample.astype(np.float64).std(axis=0)
    scale[scale < 1e-6] = 1.0

    def standard(rows):
        return ((x[rows].astype(np.float64) - mean) / scale).astype(np.float32)

    x_held = standard(held_rows)
    t_held = t[held_rows]
    if not hidden:
        w, b = _ridge(standard, t, train_rows, 1.0 if alpha is None else alpha)
        mse = float(np.mean((x_held.astype(np.float64) @ w + b - t_held) ** 2))
        net = pack([(w[:, None], [b])], [1.0], mean, scale)
        return FitResult(net, len(train_rows), len(held_rows), 1, 1, mse,
                         1.0 - mse / float(np.var(t_held)), time.perf_counter() - start)
    try:
        from sklearn.neural_network import MLPRegressor
    except ImportError:
        raise FieldError("train", "the fit needs scikit-learn: pip install 'coltsim[train]'") \
            from None
    model = MLPRegressor(hidden_layer_sizes=tuple(hidden),
                         alpha=1e-4 if alpha is None else alpha, batch_size=batch,
                         learning_rate_init=learning_rate, random_state=seed, max_iter=1)
    best = None
    for epoch in range(1, epochs + 1):
        order = rng.permutation(train_rows)
        for lo in range(0, len(order), BLOCK):
            rows = np.sort(order[lo:lo + BLOCK])
            model.partial_fit(standard(rows), t[rows])
        mse = float(np.mean((model.predict(x_held) - t_held) ** 2))
        if say is not None:
            say(f"epoch {epoch}: held-out error {mse:.5f}")
        if best is None or mse < best[0]:
            best = (mse, epoch, [w.copy() for w in model.coefs_],
                    [b.copy() for b in model.intercepts_])
    mse, best_epoch, coefs, intercepts = best
    net = pack(list(zip(coefs, intercepts)), [1.0], mean, scale)
    return FitResult(net, len(train_rows), len(held_rows), epochs, best_epoch, mse,
                     1.0 - mse / float(np.var(t_held)), time.perf_counter() - start)


__all__ = ["FitResult", "fit", "split", "targets"]
