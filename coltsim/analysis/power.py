"""How many games a question needs: sample sizes for the win-rate questions the reports answer.

A bandit's win rate is the mean of its win share over the games it plays (1 for a sole victory,
1/m for a victory shared by m players, 0 otherwise), so it is a mean of values in [0, 1] with
variance at most ``p (1 - p)`` (the Bernoulli variance; shared victories only lower it).  Three
closed forms, all with the normal approximation the reports use:

- :func:`games_for_precision`: games for a win rate's 95% interval to be ``± h``::

      n = z² σ² / h²                    (z = the two-sided quantile of the level)

  with ``σ² = p (1 - p)`` this is statsmodels' ``samplesize_confint_proportion``.
- :func:`games_to_detect_from`: games for the score test of "rate = p0" to find a rate of
  ``p0 ± d`` with probability ``power`` at two-sided level ``alpha``::

      n = (z_{α/2} √(p0 q0) + z_β √(p1 q1))² / d²      (p1 = p0 ± d, the larger n)

- :func:`games_to_detect_change`: games for a paired comparison (the same deals under two
  settings) to find a change of ``d`` in a win rate::

      n = (z_{α/2} + z_β)² σ_D² / d²

  where ``σ_D²`` is the variance of the per-deal difference of win shares.  Without a pilot,
  ``σ_D² = σ_a² + σ_b²`` (as if the two settings' games were independent); common deals make
  the outcomes positively correlated, so a pilot's measured ``σ_D²`` is usually much smaller.

Each gives the bandit-games needed; a bandit plays only in some games (``share``: 4 of 6
bandits at 4 players with random line-ups), so the games of the setting are ``n / share``
(:func:`appearance`).  A family of ``m`` tests at level ``alpha`` (Holm, as the reports use) is
planned at ``alpha / m`` (Bonferroni: Holm never needs more games).

The headline's own numbers are linear combinations of the bandits' win rates ``Σ w_j r_j``:
the spread is the strongest minus the weakest bandit (``w = e_a - e_b``; the average bandit
cancels), a bandit's effect is its win rate minus the average bandit's (``w = e_b - 1/k``, over
the ``k`` bandits that play).  Their variance per game (:func:`combination_variance`, so that
``n = z² V / h²`` games give ``± h``) adds each rate's ``p (1 - p) / s_j`` and, for two bandits
at the same table in a share ``s_jl`` of the games, their covariance ``-p² s_jl / (s_j s_l)``
(one victory between them; in the 2-player game two bandits are teammates a third of the time
and then win together).  Without a pilot, a change of such a number between two settings is
planned with twice its variance (as if the deals were not shared: an upper bound).
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from .. import constants as K
from ..setting import Setting
from .stats import LEVEL

POWER = 0.8
ALPHA = 0.05
HALF_WIDTH = 0.01  # the precision a designer asks for by default: ± 1 point
DIFFERENCE = 0.02  # the difference a designer wants to find by default: 2 points


def _z(p: float) -> float:
    return NormalDist().inv_cdf(p)


def _check_fraction(name: str, value: float, closed_low: bool = False) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and (
        (0 <= value < 1) if closed_low else (0 < value < 1))
    if not ok:
        raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
    return float(value)


def games_for_precision(variance: float, half_width: float, share: float = 1.0,
                        level: float = LEVEL) -> int:
    """Games for a win rate's interval at ``level`` to be ``± half_width``.

    Parameters
    ----------
    variance : float
        Variance of one game's win share (``p (1 - p)`` at most).
    half_width : float
        E.g. 0.01 for ± 1 percentage point.
    share : float
        Fraction of the games the bandit plays.
    """
    half_width = _check_fraction("half_width", half_width)
    share = _check_share(share)
    z = _z(0.5 + _check_fraction("level", level) / 2)
    return math.ceil(math.ceil(z * z * variance / half_width ** 2 - 1e-9) / share - 1e-9)


def half_width_after(variance: float, games: int, share: float = 1.0,
                     level: float = LEVEL) -> float:
    """The half-width of a win rate's interval after ``games`` games (the inverse of
    :func:`games_for_precision`)."""
    z = _z(0.5 + _check_fraction("level", level) / 2)
    return z * math.sqrt(variance / (games * _check_share(share)))


def games_to_reach(games: int, half_width: float, target: float, cap: int,
                   overshoot: float = 1.1, growth=(1.25, 4.0), step: int = 100) -> int:
    """Games per setting for an interval of half-width ``half_width`` after ``games`` games to
    narrow to ``target``: a half-width shrinks as ``1 / √games``, so ``games (h / target)²``,
    times ``overshoot`` (the projection is itself noisy), grown by at least ``growth[0]`` and
    at most ``growth[1]`` times in one step, rounded up to a multiple of ``step`` and at most
    ``cap``.

    >>> games_to_reach(2000, 0.03, 0.01, 1_000_000)   # 9 x 2,000 x 1.1, but 4 x at most
    8000
    >>> games_to_reach(8000, 0.0185, 0.01, 1_000_000)
    30200
    """
    projected = games * (half_width / target) ** 2 * overshoot
    grown = min(max(projected, games * growth[0]), games * growth[1])
    return int(min(cap, math.ceil(grown / step) * step))


def games_to_detect_from(p0: float, difference: float, share: float = 1.0,
                         alpha: float = ALPHA, power: float = POWER) -> int:
    """Games for the score test of ``rate = p0`` (two-sided, level ``alpha``) to reject with
    probability ``power`` when the rate is ``p0 + difference`` or ``p0 - difference`` (the
    harder of the two)."""
    p0 = _check_fraction("p0", p0)
    d = _check_fraction("difference", difference)
    za, zb = _z(1 - _check_fraction("alpha", alpha) / 2), _z(_check_fraction("power", power))
    n = 0
    for p1 in (p0 - d, p0 + d):
        if 0 < p1 < 1:
            root = za * math.sqrt(p0 * (1 - p0)) + zb * math.sqrt(p1 * (1 - p1))
            n = max(n, math.ceil(root * root / (d * d) - 1e-9))
    return math.ceil(n / _check_share(share) - 1e-9)


def detectable_from(p0: float, games: int, share: float = 1.0, alpha: float = ALPHA,
                    power: float = POWER) -> float:
    """The smallest difference from ``p0`` that ``games`` games detect (:func:`
    games_to_detect_from` solved for the difference, by bisection)."""
    lo, hi = 1e-6, min(p0, 1 - p0) - 1e-9
    if games_to_detect_from(p0, hi, share, alpha, power) > games:
        return math.nan
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if games_to_detect_from(p0, mid, share, alpha, power) > games \
            else (lo, mid)
    return hi


def games_to_detect_change(variance: float, difference: float, share: float = 1.0,
                           alpha: float = ALPHA, power: float = POWER) -> int:
    """Games for a paired comparison to find a change of ``difference`` in a win rate, where
    ``variance`` is that of the per-deal difference of win shares."""
    d = _check_fraction("difference", difference)
    za, zb = _z(1 - _check_fraction("alpha", alpha) / 2), _z(_check_fraction("power", power))
    n = math.ceil((za + zb) ** 2 * variance / (d * d) - 1e-9)
    return math.ceil(n / _check_share(share) - 1e-9)


def detectable_change(variance: float, games: int, share: float = 1.0, alpha: float = ALPHA,
                      power: float = POWER) -> float:
    """The smallest change a paired comparison of ``games`` games detects."""
    za, zb = _z(1 - alpha / 2), _z(power)
    return (za + zb) * math.sqrt(variance / (games * _check_share(share)))


def _check_share(share: float) -> float:
    if not isinstance(share, (int, float)) or not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share!r}")
    return float(share)


def appearance(setting: Setting) -> dict[str, float]:
    """The fraction of a setting's games each bandit plays in (bandits that never play are left
    out): every drawn bandit is one of the characters not named in the line-up."""
    rows = setting.lineups()
    counts = np.zeros(K.N_CHARACTERS)
    for row in rows:
        named = row[row >= 0]
        counts[named] += 1
        drawn = int((row < 0).sum())
        if drawn:
            free = [c for c in range(K.N_CHARACTERS) if c not in set(named.tolist())]
            counts[free] += drawn / len(free)
    share = counts / len(rows)
    return {K.BANDIT_NAMES[c]: float(share[c]) for c in range(K.N_CHARACTERS) if share[c] > 0}


def together(setting: Setting) -> np.ndarray:
    """The fraction of a setting's games in which each pair of characters both play
    (``[i, j]``; the diagonal is :func:`appearance`), over its line-ups: a drawn bandit is any of
    the characters the line-up does not name, the drawn ones all different."""
    rows = setting.lineups()
    out = np.zeros((K.N_CHARACTERS, K.N_CHARACTERS))
    for row in rows:
        named = set(row[row >= 0].tolist())
        drawn = int((row < 0).sum())
        free = [c for c in range(K.N_CHARACTERS) if c not in named]
        p = np.zeros(K.N_CHARACTERS)
        p[list(named)] = 1.0
        if drawn:
            p[free] = drawn / len(free)
        both = np.outer(p, p)  # a named bandit with any other; two drawn ones below
        if drawn:
            pair = drawn * (drawn - 1) / (len(free) * (len(free) - 1)) if len(free) > 1 else 0
            both[np.ix_(free, free)] = pair
        np.fill_diagonal(both, p)
        out += both
    return out / len(rows)


def combination_variance(setting: Setting, weights: dict) -> float:
    """Variance per game of ``Σ w_j r_j``, a linear combination of the bandits' win rates in
    ``setting`` (``weights``: bandit -> weight), at the fair share (module docstring): ``n``
    games give it a variance of ``V / n``."""
    s = together(setting)
    p = fair_share(setting)
    teammates = 1 / 3 if setting.players == 2 else 0.0  # in a shared game, the same team
    w = np.zeros(K.N_CHARACTERS)
    for bandit, weight in weights.items():
        w[K.BANDIT_NAMES.index(bandit)] = weight
    on = np.flatnonzero((w != 0) & (np.diag(s) > 0))
    v = 0.0
    for i in on:
        for j in on:
            if i == j:
                v += w[i] ** 2 * p * (1 - p) / s[i, i]
            else:
                v += w[i] * w[j] * (teammates * p - p * p) * s[i, j] / (s[i, i] * s[j, j])
    return float(v)


def spread_weights(setting: Setting) -> list[dict]:
    """The weights of every possible spread (one bandit minus another) in ``setting``."""
    bandits = list(appearance(setting))
    return [{a: 1.0, b: -1.0} for i, a in enumerate(bandits) for b in bandits[i + 1:]]


def effect_weights(setting: Setting, bandit: str) -> dict:
    """The weights of ``bandit``'s effect (its win rate minus the average bandit's)."""
    bandits = list(appearance(setting))
    return {b: (1.0 if b == bandit else 0.0) - 1.0 / len(bandits) for b in bandits}


def fair_share(setting: Setting) -> float:
    """A bandit's fair win rate: ``1/players`` (a 2-player team wins half the games)."""
    return 1.0 / setting.players


__all__ = ["ALPHA", "DIFFERENCE", "HALF_WIDTH", "POWER", "appearance", "combination_variance",
           "detectable_change", "detectable_from", "effect_weights", "fair_share",
           "games_for_precision", "games_to_detect_change", "games_to_detect_from",
           "half_width_after", "spread_weights", "together"]
