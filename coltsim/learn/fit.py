"""Fitting ``learned``'s value on recorded positions (policies/recording.py).

**By outcome** (:func:`fit`): a linear model (ridge regression) or a multi-layer perceptron
(scikit-learn's ``MLPRegressor``), streamed in batches.

The linear model is solved from its normal equations summed over blocks of rows (the same
solution as scikit-learn's ``Ridge`` on the standardised inputs, tests/test_learn.py, in the
memory of one block); the perceptron is trained by ``partial_fit`` on one block at a time.

The target of a position is the decider's victory share plus ``margin`` times its score lead
over the best other team (thousands of dollars): the outcome the searches score a game by, a
little less noisy than the victory alone.  Positions are split by game: every position of a
twentieth of the games (drawn from the seed) is held out, and the epoch with the lowest error
on them is kept, so that the fit is judged on games it never saw.

**By a search** (:func:`fit_options`): the options of one decision compared, as Expert
Iteration and AlphaZero fit their policies.  Each decision's options get the network's values
``v``; the loss is the cross-entropy between ``softmax(beta * v)`` and the teacher's improved
policy ``softmax(beta * q)`` (``q`` the search's mean outcome of each option, ``beta = 50 +``
the most playouts an option got: Gumbel MuZero's completed-Q target with ``c_visit = 50`` and
``c_scale = 1``, the outcome already on a scale of about one), plus the squared error of ``v``
against ``q``, so that the value stays a value (``ismcts``'s leaf reads it).  A perceptron of
one or two hidden layers is trained with Adam in numpy; the epoch with the least regret on the
held-out games is kept: the teacher's mean outcome of its own choice minus that of the
network's choice.

Inputs are standardised for the fit (their mean and spread over a sample of the data) and the
scaling is folded into the network's first layer (weights.pack), so that the kernels read the
encoding as it is.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..policies.recording import M_GAME, M_OPTION, Y_LEAD, Y_MEAN, Y_SHARE, Y_VISITS
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
    agree: float | None = None  # by a search: held-out decisions where it chooses as the teacher
    regret: float | None = None  # ... and the teacher's mean outcome it gives up per decision

    def as_dict(self) -> dict:
        d = {"rows": self.rows, "held_out": self.held_out, "epochs": self.epochs,
             "best_epoch": self.best_epoch, "mse": round(self.mse, 6),
             "r2": round(self.r2, 6), "seconds": round(self.seconds, 1)}
        if self.agree is not None:
            d.update(agree=round(self.agree, 6), regret=round(self.regret, 6))
        return d


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


# --- by a search ------------------------------------------------------------------------------
C_VISIT = 50.0  # Gumbel MuZero's sigma(q) = (c_visit + max visits) * c_scale * q, c_scale = 1
DECISIONS_PER_BATCH = 256


class _Decisions:
    """Rows grouped by decision (each decision's options are consecutive rows, option 0
    first): the teacher's values ``q``, the temperature ``beta`` of each decision, its target
    policy and the teacher's choice."""

    def __init__(self, meta, y):
        self.start = np.flatnonzero(meta[:, M_OPTION] == 0)
        self.size = np.diff(np.append(self.start, len(meta)))
        q = y[:, Y_MEAN].astype(np.float64)
        visits = y[:, Y_VISITS].astype(np.float64)
        self.q = np.where(np.isfinite(q), q, np.nan)
        group = np.repeat(np.arange(len(self.start)), self.size)
        most = np.maximum.reduceat(visits, self.start)
        lowest = np.fmin.reduceat(self.q, self.start)
        self.q = np.where(np.isnan(self.q), lowest[group], self.q)  # an option not searched
        self.beta = (C_VISIT + most)[group]
        self.target = _softmax(self.beta * self.q, self.start, group)
        # The teacher's choice: the most playouts, then the best mean (sequential halving).
        key = visits * 1e6 + self.q
        self.choice = _argmax(key, self.start, group)

    def rows(self, decisions):
        """The rows of ``decisions`` (an array of decision numbers), and their group starts."""
        sizes = self.size[decisions]
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        rows = np.repeat(self.start[decisions] - starts, sizes) + np.arange(sizes.sum())
        return rows, starts


def _softmax(z, starts, group):
    e = np.exp(z - np.maximum.reduceat(z, starts)[group])
    return e / np.add.reduceat(e, starts)[group]


def _argmax(z, starts, group):
    """Each group's row of largest ``z`` (the first one on a tie), as a row number."""
    best = np.maximum.reduceat(z, starts)[group]
    hit = np.flatnonzero(z >= best)
    return hit[np.unique(group[hit], return_index=True)[1]]


class _Perceptron:
    """A perceptron of ReLU hidden layers and one output, trained by Adam."""

    def __init__(self, sizes, rng):
        self.params = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            self.params += [rng.normal(0.0, np.sqrt(2.0 / a), (a, b)).astype(np.float32),
                            np.zeros(b, np.float32)]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def forward(self, x):
        acts = [x]
        for i in range(0, len(self.params), 2):
            h = acts[-1] @ self.params[i] + self.params[i + 1]
            acts.append(np.maximum(h, 0.0) if i + 2 < len(self.params) else h)
        return acts

    def gradients(self, acts, grad_out, decay=0.0):
        """The gradient of each parameter, given the loss's gradient ``grad_out`` with respect
        to the output of each row (``acts``: ``forward``'s), plus ``decay`` x the parameter."""
        g = grad_out[:, None].astype(np.float32)
        grads = [None] * len(self.params)
        for i in range(len(self.params) - 2, -1, -2):
            grads[i] = acts[i // 2].T @ g + decay * self.params[i]
            grads[i + 1] = g.sum(axis=0)
            if i > 0:
                g = (g @ self.params[i].T) * (acts[i // 2] > 0)
        return grads

    def step(self, acts, grad_out, lr, decay=1e-5, b1=0.9, b2=0.999):
        """One step of Adam."""
        self.t += 1
        for p, m, v, d in zip(self.params, self.m, self.v,
                              self.gradients(acts, grad_out, decay)):
            m *= b1
            m += (1 - b1) * d
            v *= b2
            v += (1 - b2) * d * d
            p -= lr * (m / (1 - b1 ** self.t)) / (np.sqrt(v / (1 - b2 ** self.t)) + 1e-8)

    def layers(self):
        return [(self.params[i].copy(), self.params[i + 1].copy())
                for i in range(0, len(self.params), 2)]


def fit_options(x: np.ndarray, meta: np.ndarray, y: np.ndarray, *, hidden=(), epochs=6,
                seed=0, learning_rate=1e-3, say=None) -> FitResult:
    """Fit a network that compares the options of each decision recorded by a search (the
    module docstring); ``say`` hears each epoch's held-out agreement and regret."""
    start_time = time.perf_counter()
    rng = np.random.default_rng(seed)
    d = _Decisions(meta, y)
    games = meta[d.start, M_GAME]
    held = rng.choice(np.unique(games), size=max(1, len(np.unique(games)) // HELD_OUT),
                      replace=False)
    is_held = np.isin(games, held)
    train_d, held_d = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    if len(train_d) < 2 or len(held_d) < 2:
        raise FieldError("train", f"too few decisions to fit a network ({len(d.start)} "
                                  "recorded): record more games")
    sample = x[rng.choice(len(x), size=min(len(x), BLOCK), replace=False)].astype(np.float64)
    mean = sample.mean(axis=0)
    scale = sample.std(axis=0)
    scale[scale < 1e-6] = 1.0

    def standard(rows):
        return ((x[rows].astype(np.float32) - mean.astype(np.float32))
                / scale.astype(np.float32))

    held_rows, held_starts = d.rows(held_d)
    x_held = standard(held_rows)
    held_group = np.repeat(np.arange(len(held_d)), d.size[held_d])
    q_held = d.q[held_rows]
    best_q = q_held[np.searchsorted(held_rows, d.choice[held_d])]
    model = _Perceptron((x.shape[1], *hidden, 1), rng)
    best = None
    for epoch in range(1, epochs + 1):
        order = rng.permutation(train_d)
        for lo in range(0, len(order), DECISIONS_PER_BATCH):
            batch = order[lo:lo + DECISIONS_PER_BATCH]
            rows, starts = d.rows(batch)
            group = np.repeat(np.arange(len(batch)), d.size[batch])
            acts = model.forward(standard(rows))
            v = acts[-1][:, 0].astype(np.float64)
            beta = d.beta[rows]
            p = _softmax(beta * v, starts, group)
            grad = (beta * (p - d.target[rows]) / len(batch)
                    + 2.0 * (v - d.q[rows]) / len(rows))
            model.step(acts, grad, learning_rate)
        v = model.forward(x_held)[-1][:, 0].astype(np.float64)
        mine = _argmax(v, held_starts, held_group)
        agree = float(np.mean(held_rows[mine] == d.choice[held_d]))
        regret = float(np.mean(best_q - q_held[mine]))
        mse = float(np.mean((v - q_held) ** 2))
        if say is not None:
            say(f"epoch {epoch}: held-out agreement {agree:.3f}, regret {regret:.4f}, "
                f"value error {mse:.5f}")
        if best is None or regret < best[0]:
            best = (regret, agree, mse, epoch, model.layers())
    regret, agree, mse, best_epoch, layers = best
    net = pack(layers, [1.0], mean, scale)
    return FitResult(net, len(x) - len(held_rows), len(held_rows), epochs, best_epoch, mse,
                     1.0 - mse / float(np.var(q_held)), time.perf_counter() - start_time,
                     agree, regret)


__all__ = ["FitResult", "fit", "fit_options", "split", "targets"]
