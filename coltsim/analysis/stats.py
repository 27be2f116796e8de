"""The few statistical tools the analyses need, written with numpy (no scipy).

Every interval is two-sided at ``level`` (default 95%) and uses the normal approximation, which
is what the sample sizes of coltsim (thousands to millions of games) call for.

- :func:`wilson_interval`: a binomial proportion (Wilson score interval).
- :func:`newcombe_interval`: the difference of two independent proportions (Newcombe's hybrid
  score interval, method 10 of Newcombe 1998), with :func:`two_proportion_p` for its test.
- :func:`mean_interval`, :func:`welch_difference`, :func:`paired_difference`: means.
- :func:`ratio_estimate`, :func:`paired_ratio_difference`: a share of events counted in groups
  (the cards of a game), clustered by group, alone or paired on the same groups.
- :func:`holm`, :func:`benjamini_hochberg`, :func:`adjust`: multiple-comparison adjustment.
- :func:`ols`: least squares with heteroskedasticity-robust (HC1) or cluster-robust (CR1)
  standard errors, for linear-probability models such as "win ~ bandit + seat + player count".
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from ..words import did_you_mean

LEVEL = 0.95
CORRECTIONS = {
    "holm": "Holm-Bonferroni (controls the family-wise error rate)",
    "bh": "Benjamini-Hochberg (controls the false discovery rate)",
    "none": "no correction",
}

_erfc = np.frompyfunc(math.erfc, 1, 1)


def z_value(level: float = LEVEL) -> float:
    """The standard normal quantile of a two-sided ``level`` interval (1.959964 for 95%)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level!r}")
    return NormalDist().inv_cdf(0.5 + level / 2)


def two_sided_p(z) -> np.ndarray:
    """Two-sided p-value of standard normal statistics ``z`` (NaN stays NaN)."""
    z = np.abs(np.asarray(z, dtype=np.float64))
    out = np.full(z.shape, np.nan)
    ok = np.isfinite(z)
    out[ok] = _erfc(z[ok] / math.sqrt(2)).astype(np.float64)
    # An infinite statistic (zero standard error, non-zero effect) is certainly significant.
    out[np.isinf(z)] = 0.0
    return out if out.ndim else float(out)


def wilson_interval(successes, trials, level: float = LEVEL):
    """Wilson score interval of a binomial proportion.

    Parameters
    ----------
    successes, trials : array_like
        Counts (``successes`` may be fractional, e.g. shared wins counted 1/m).
    level : float
        Coverage of the interval.

    Returns
    -------
    lo, hi : ndarray of float64
        Bounds, NaN where ``trials`` is 0.
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    z = z_value(level)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        lo = np.clip(centre - half, 0.0, 1.0)
        hi = np.clip(centre + half, 0.0, 1.0)
    # Exact bounds at the edges (the formula can leave a rounding error of 1e-17).
    lo = np.where(k == 0, 0.0, lo)
    hi = np.where(k == n, 1.0, hi)
    bad = ~(n > 0)
    lo = np.where(bad, np.nan, lo)
    hi = np.where(bad, np.nan, hi)
    return (lo, hi) if lo.ndim else (float(lo), float(hi))


def proportion_p(successes, trials, p0) -> np.ndarray:
    """Two-sided p-value of the score test of "the proportion equals ``p0``"."""
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    p0 = np.asarray(p0, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (k / n - p0) / np.sqrt(p0 * (1 - p0) / n)
    return two_sided_p(z)


def newcombe_interval(k1, n1, k2, n2, level: float = LEVEL):
    """Interval for ``k1/n1 - k2/n2`` (independent samples), Newcombe's hybrid score method.

    Returns
    -------
    diff, lo, hi : ndarray of float64
    """
    p1 = np.asarray(k1, dtype=np.float64) / np.asarray(n1, dtype=np.float64)
    p2 = np.asarray(k2, dtype=np.float64) / np.asarray(n2, dtype=np.float64)
    l1, u1 = wilson_interval(k1, n1, level)
    l2, u2 = wilson_interval(k2, n2, level)
    d = p1 - p2
    lo = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, lo, hi


def two_proportion_p(k1, n1, k2, n2) -> np.ndarray:
    """Two-sided p-value of the pooled z test of equal proportions."""
    k1, n1, k2, n2 = (np.asarray(a, dtype=np.float64) for a in (k1, n1, k2, n2))
    pooled = (k1 + k2) / (n1 + n2)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (k1 / n1 - k2 / n2) / np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    return two_sided_p(z)


def sample_sd(x) -> float:
    """The sample standard deviation of ``x`` (``ddof=1``), NaN for fewer than 2 values (where
    numpy would warn): no interval can come from one game."""
    x = np.asarray(x, dtype=np.float64)
    return float(x.std(ddof=1)) if x.size >= 2 else math.nan


def mean_interval(mean, sd, n, level: float = LEVEL):
    """Normal interval of a mean from its sample standard deviation and size: ``lo, hi``
    (NaN where ``n < 2``: no interval from one value)."""
    mean, sd, n = (np.asarray(a, dtype=np.float64) for a in (mean, sd, n))
    with np.errstate(invalid="ignore", divide="ignore"):
        half = np.where(n >= 2, z_value(level) * sd / np.sqrt(n), np.nan)
    return mean - half, mean + half


def welch_difference(mean1, sd1, n1, mean2, sd2, n2, level: float = LEVEL):
    """Difference of two independent means with its interval and p-value.

    Returns
    -------
    diff, lo, hi, p : ndarray of float64
    """
    mean1, sd1, n1, mean2, sd2, n2 = (np.asarray(a, dtype=np.float64)
                                      for a in (mean1, sd1, n1, mean2, sd2, n2))
    d = mean1 - mean2
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(sd1 ** 2 / n1 + sd2 ** 2 / n2)
        z = d / se
    # Fewer than 2 values on a side: no interval and no test (too few games), never "certain".
    se = np.where((n1 >= 2) & (n2 >= 2), se, np.nan)
    half = z_value(level) * se
    # Zero spread on both sides: no evidence of a difference if equal, certainty if not.
    z = np.where(se > 0, z, np.where(np.isnan(se), np.nan, np.where(d == 0, 0.0, np.inf)))
    return d, d - half, d + half, two_sided_p(z)


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its standard error, interval and two-sided p-value."""

    estimate: float
    se: float
    lo: float
    hi: float
    p: float
    n: int

    @classmethod
    def from_se(cls, estimate: float, se: float, n: int, level: float = LEVEL) -> "Estimate":
        """The estimate with its normal interval; a NaN ``se`` (the data cannot give one: too
        few games) gives no interval and no test, a zero one a test that is certain."""
        half = z_value(level) * se
        if se > 0:
            p = float(two_sided_p(estimate / se))
        elif math.isnan(se):
            p = math.nan
        else:
            p = 1.0 if estimate == 0 else 0.0
        return cls(float(estimate), float(se), float(estimate - half), float(estimate + half),
                   p, int(n))


def paired_difference(a, b, level: float = LEVEL) -> Estimate:
    """Mean of ``a - b`` over pairs (the same game under two settings), with its interval."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = d.size
    if n < 2:
        return Estimate(float(d.mean()) if n else math.nan, math.nan, math.nan, math.nan,
                        math.nan, n)
    return Estimate.from_se(d.mean(), d.std(ddof=1) / math.sqrt(n), n, level)


def ratio_estimate(events, trials, level: float = LEVEL) -> Estimate:
    """The share ``sum(events) / sum(trials)`` of events counted in groups (e.g. the cards of
    a game that did nothing, out of its cards), with a standard error clustered by group:
    the mean of the trials' 0/1 outcomes with CR1 errors by group, as statsmodels'
    ``OLS(y, ones).fit(cov_type="cluster")`` gives it (the group's score
    ``events - r trials``, small-sample factor ``G / (G - 1)``).  ``n`` is the groups."""
    e, t = (np.asarray(a, dtype=np.float64) for a in (events, trials))
    g, total = e.size, t.sum()
    if g < 2 or total <= 0:
        return Estimate(float(e.sum() / total) if total > 0 else math.nan, math.nan, math.nan,
                        math.nan, math.nan, g)
    r = e.sum() / total
    score = e - r * t
    se = math.sqrt(g / (g - 1) * float(score @ score)) / total
    return Estimate.from_se(r, se, g, level)


def paired_ratio_difference(events_a, trials_a, events_b, trials_b,
                            level: float = LEVEL) -> Estimate:
    """``ratio(b) - ratio(a)`` of :func:`ratio_estimate` on the same groups (game ``i`` of two
    settings played from the same deal), with the standard error of the linearised per-group
    difference (the delta method: each group's score ``events - r trials`` over the mean
    trials per group)."""
    ea, ta, eb, tb = (np.asarray(x, dtype=np.float64) for x in
                      (events_a, trials_a, events_b, trials_b))
    g = ea.size
    if g < 2 or ta.sum() <= 0 or tb.sum() <= 0:
        return Estimate(math.nan, math.nan, math.nan, math.nan, math.nan, g)
    ra, rb = ea.sum() / ta.sum(), eb.sum() / tb.sum()
    u = (eb - rb * tb) / tb.mean() - (ea - ra * ta) / ta.mean()
    return Estimate.from_se(rb - ra, u.std(ddof=1) / math.sqrt(g), g, level)


# --- multiple comparisons --------------------------------------------------------------------
def _sorted_finite(pvalues):
    """The p-values as floats, an all-NaN result of their shape, and the indices of the finite
    ones in increasing order of p."""
    p = np.asarray(pvalues, dtype=np.float64)
    ok = np.flatnonzero(np.isfinite(p))
    return p, np.full(p.shape, np.nan), ok[np.argsort(p[ok], kind="stable")]


def holm(pvalues) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (NaN entries are ignored and stay NaN).

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.005]).round(3).tolist()
    [0.03, 0.06, 0.06, 0.02]
    """
    p, out, order = _sorted_finite(pvalues)
    m = order.size
    scaled = (m - np.arange(m)) * p[order]
    out[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return out


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values ("q-values"; NaN entries stay NaN).

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03, 0.005]).round(3).tolist()
    [0.02, 0.04, 0.04, 0.02]
    """
    p, out, order = _sorted_finite(pvalues)
    m = order.size
    scaled = p[order] * m / np.arange(1, m + 1)
    out[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    return out


def adjust(pvalues, method: str = "holm") -> np.ndarray:
    """Adjust a family of p-values: ``"holm"``, ``"bh"`` or ``"none"``."""
    if method == "holm":
        return holm(pvalues)
    if method == "bh":
        return benjamini_hochberg(pvalues)
    if method == "none":
        return np.asarray(pvalues, dtype=np.float64).copy()
    raise ValueError(f"unknown correction {method!r}; allowed: {', '.join(CORRECTIONS)}"
                     f"{did_you_mean(method, CORRECTIONS)}")


# --- least squares ---------------------------------------------------------------------------
@dataclass(frozen=True)
class OLSResult:
    """A least-squares fit: coefficients, their covariance and how it was computed."""

    names: tuple
    coef: np.ndarray  # float64[k]
    cov: np.ndarray  # float64[k, k], robust covariance of coef
    n: int  # rows
    groups: int  # clusters (= n without clustering)
    kind: str  # "HC1" or "CR1"
    # With ``ols(..., influence=True)`` and clusters: each cluster's influence on the
    # coefficients (float64[groups, k], ``cov = scale * influence.T @ influence``), the cluster
    # labels in the order of its rows (sorted), and the finite-sample scale.
    influence: np.ndarray | None = None
    clusters: np.ndarray | None = None
    scale: float = 1.0

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(np.diag(self.cov))

    def contrast(self, weights, level: float = LEVEL) -> Estimate:
        """The linear combination ``weights @ coef``, with its standard error and interval."""
        w = np.asarray(weights, dtype=np.float64)
        var = float(w @ self.cov @ w)
        return Estimate.from_se(float(w @ self.coef),
                                math.sqrt(max(var, 0.0)) if math.isfinite(var) else math.nan,
                                self.n, level)

    def weights(self, **by_name: float) -> np.ndarray:
        """A contrast vector from coefficient names, e.g. ``fit.weights(tuco=1, doc=-1)``."""
        w = np.zeros(len(self.names))
        for name, value in by_name.items():
            w[self.names.index(name)] += value
        return w


def ols(y, X, names=None, groups=None, chunk_rows: int = 1 << 18,
        influence: bool = False) -> OLSResult:
    """Ordinary least squares with robust standard errors.

    Parameters
    ----------
    y : array_like, shape (n,)
        Outcome (a 0/1 outcome gives a linear-probability model).
    X : array_like, shape (n, k)
        Design matrix, intercept included.  Any dtype (a ``uint8`` matrix of dummies keeps big
        designs small): it is converted to float64 one chunk of rows at a time.
    names : sequence of str, optional
        Coefficient names.
    groups : array_like of int, shape (n,), optional
        Cluster of each row (e.g. the game: bandits of one game are not independent).  Without
        it the covariance is White's HC1, ``n / (n - k) * (X'X)^-1 X' diag(e^2) X (X'X)^-1``;
        with it the cluster-robust CR1, which sums scores per cluster and scales by
        ``G / (G - 1) * (n - 1) / (n - k)``.
    chunk_rows : int
        Rows converted at a time, to bound memory on millions of rows.
    influence : bool
        With ``groups``: keep each cluster's influence on the coefficients, so that estimates
        from separate fits on the same clusters (e.g. two settings played on the same deals) can
        be combined with their covariance (:func:`joint_se`).

    With no more rows than coefficients (or fewer than 2 clusters) the covariance and the
    influence are NaN: every contrast then has an estimate but no interval (too few games).
    """
    y = np.asarray(y, dtype=np.float64)
    n, k = X.shape
    if y.shape != (n,):
        raise ValueError(f"y has shape {y.shape}, X has {n} rows")
    if n == 0:
        raise ValueError("no rows to fit")
    names = tuple(names) if names is not None else tuple(f"x{j}" for j in range(k))

    xtx = np.zeros((k, k))
    xty = np.zeros(k)
    for s in range(0, n, chunk_rows):
        xc = np.asarray(X[s:s + chunk_rows], dtype=np.float64)
        xtx += xc.T @ xc
        xty += xc.T @ y[s:s + chunk_rows]
    bread = np.linalg.pinv(xtx)
    coef = bread @ xty

    if groups is None:
        meat = np.zeros((k, k))
        for s in range(0, n, chunk_rows):
            xc = np.asarray(X[s:s + chunk_rows], dtype=np.float64)
            score = xc * (y[s:s + chunk_rows] - xc @ coef)[:, None]
            meat += score.T @ score
        n_groups = n
        scale = n / (n - k) if n > k else math.nan
        kind = "HC1"
    else:
        codes, uniques = _factorize(groups)
        n_groups = len(uniques)
        scores = np.zeros((n_groups, k))
        for s in range(0, n, chunk_rows):
            xc = np.asarray(X[s:s + chunk_rows], dtype=np.float64)
            e = y[s:s + chunk_rows] - xc @ coef
            g = codes[s:s + chunk_rows]
            for j in range(k):
                scores[:, j] += np.bincount(g, weights=xc[:, j] * e, minlength=n_groups)
        meat = scores.T @ scores
        scale = _cr1_scale(n, k, n_groups)
        kind = "CR1"
    if n <= k or (groups is not None and n_groups < 2):
        # Too few games for errors: the coefficients stand, without an interval or a test.
        scale = math.nan
        if groups is not None:
            scores = np.full_like(scores, np.nan)
    cov = scale * bread @ meat @ bread
    if influence and groups is not None:
        return OLSResult(names, coef, cov, n, n_groups, kind, scores @ bread, uniques, scale)
    return OLSResult(names, coef, cov, n, n_groups, kind)


def joint_se(parts, n: int, k: int, groups: int) -> float:
    """Standard error of a sum of linear combinations of coefficients from fits on shared
    clusters, as one least-squares fit of all of them (a block-diagonal design) with
    cluster-robust (CR1) errors would give it.

    Parameters
    ----------
    parts : sequence of (OLSResult, weights)
        Fits made with ``influence=True`` (rows of different fits may share clusters, e.g. the
        same deal played under two rule sets) and the weights of each one's coefficients.
    n, k, groups : int
        Rows, coefficients and clusters of the joint fit (of every fit of the model, not only
        those in ``parts``), for the CR1 scale ``G / (G - 1) * (n - 1) / (n - k)``.
    """
    labels = np.unique(np.concatenate([fit.clusters for fit, _ in parts]))
    total = np.zeros(len(labels))
    for fit, w in parts:
        total[np.searchsorted(labels, fit.clusters)] += fit.influence @ np.asarray(w, np.float64)
    return float(np.sqrt(_cr1_scale(n, k, groups) * (total @ total)))


def _cr1_scale(n: int, k: int, groups: int) -> float:
    """CR1's finite-sample factor ``G / (G - 1) * (n - 1) / (n - k)``; NaN where the data
    cannot give errors (no more rows than coefficients, fewer than 2 clusters)."""
    if n <= k or groups < 2:
        return math.nan
    return groups / (groups - 1) * (n - 1) / (n - k)


def _factorize(values):
    uniques, codes = np.unique(np.asarray(values), return_inverse=True)
    return codes.ravel(), uniques


# --- a tournament: shares over deals (coltsim.runs.match) ------------------------------
@dataclass(frozen=True)
class ShareEstimate:
    """An entry's share of the victories per seat over the deals of a tournament."""

    share: float
    lo: float  # the ``level`` normal interval over deals, within [0, 1]
    hi: float
    p_value: float  # of the share equalling the fair share
    fair_share: float  # 1 / players
    deals: int
    rotations: int
    per_deal: np.ndarray = field(repr=False, compare=False)  # float64[deals]

    def as_dict(self) -> dict:
        """The estimate as JSON values (not the shares per deal)."""
        return {"share": self.share, "lo": self.lo, "hi": self.hi, "deals": self.deals,
                "rotations": self.rotations}


def deal_shares(seated: dict) -> dict:
    """Each entry's share per deal, averaged over the seats it holds in every rotation.

    ``seated`` maps each seating (a tuple of entries by seat) to its seats' shares per deal,
    ``float64[deals, players]``; returns ``{entry: float64[deals]}``, in the order entries
    first sit."""
    total: dict = {}
    seats: dict = {}
    for seating, shares in seated.items():
        for s, entry in enumerate(seating):
            total[entry] = total.get(entry, 0.0) + np.asarray(shares, np.float64)[:, s]
            seats[entry] = seats.get(entry, 0) + 1
    return {entry: total[entry] / seats[entry] for entry in total}


def share_estimate(per_deal, players: int, rotations: int = 1, level: float = LEVEL,
                   seats: int = 1) -> ShareEstimate:
    """An entry's share of a tournament from its share per deal, the entry holding ``seats``
    of the ``players`` seats: the normal interval over deals, kept within [0, 1].  Where every
    deal gave it the same share (no spread: an entry that never wins) while others sit beside
    it, that interval would be a single number: the Wilson interval over the deals is used
    instead, as for a share of deals won (a mean of values in [0, 1] varies at most as such a
    share does), with its score test.  One deal gives no interval (NaN bounds)."""
    per_deal = np.asarray(per_deal, np.float64)
    n = len(per_deal)
    share = float(per_deal.mean())
    sd = sample_sd(per_deal)
    fair = 1.0 / players
    if sd == 0 and seats < players:  # (in every seat: exactly the fair share)
        lo, hi = wilson_interval(share * n, n, level)
        p_value = float(proportion_p(share * n, n, fair))
    else:
        lo, hi = mean_interval(share, sd, n, level)
        p_value = Estimate.from_se(share - fair, sd / math.sqrt(n), n, level).p
    return ShareEstimate(share, float(np.clip(lo, 0.0, 1.0)), float(np.clip(hi, 0.0, 1.0)),
                         p_value, fair, n, rotations, per_deal)
