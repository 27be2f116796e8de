"""The statistics of a balance search (coltsim.study.tune.search): an objective over the bandits' win
rates, estimated with a bootstrap that is paired across the values of the tuned rule, and the
decision to drop a value that is clearly worse than the best.

Every value of the rule is played on the same deals (common random numbers: deal ``g`` of a
round is the same line-up, train, decks and first player whatever the value), so the search
compares values deal by deal.  The bootstrap resamples deals, not games: one Poisson(1) weight
per deal, the same for every value (:func:`deal_weights`), so the difference between two values'
objectives is resampled as a paired quantity and the deal-to-deal noise they share cancels.

- :func:`deal_table`: one simulated setting's games as arrays per deal (win share and presence
  of each character, and what each bandit did: shots, loot, bullets received).
- :class:`RateSums`: a value's win rates per setting and character, summed over a round's deals,
  with the same sums under every bootstrap weight; rounds add up (:meth:`RateSums.total`).
- :class:`Objective`: the spread (strongest minus weakest bandit) or the distance of one
  bandit's win rate from a target, averaged over the settings.
- :func:`estimate`: an objective's estimate, bias-corrected by the bootstrap, with its interval.
- :func:`worse_than`: which values are worse than the best by more than the bootstrap allows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import constants as K
from ...analysis.frames import as_results, column_codes
from ...analysis.stats import LEVEL, z_value

OBJECTIVES = ("spread", "win_rate")
PLAY_METRICS = ("shots", "loot", "bullets_received")  # what a bandit did, rule by rule
N_CHARACTERS = len(K.BANDIT_NAMES)
BLOCK = 8192  # deals per block of bootstrap weights


@dataclass(frozen=True)
class DealTable:
    """One setting's games as arrays, row ``g`` = game ``g`` of the run.

    share : float64[games, characters]   win share of each character (0 if it did not play)
    present : bool[games, characters]    whether the character played
    play : int32[games, bandits, 3]      each bandit's shots, loot ($) and bullets received
    """

    share: np.ndarray
    present: np.ndarray
    play: np.ndarray

    def rows(self, start: int, stop: int) -> "DealTable":
        """Deals ``start .. stop - 1``."""
        return DealTable(self.share[start:stop], self.present[start:stop],
                         self.play[start:stop])


def deal_table(results) -> DealTable:
    """The arrays of one setting's results (games ``0 .. n - 1``, as ``coltsim.simulate``
    returns them)."""
    p = as_results(results).players
    game = p["game"].to_numpy(np.int64)
    n = int(game.max()) + 1 if len(game) else 0
    bandits = len(p) // n if n else 0
    if n and (len(p) != n * bandits or not (game == np.repeat(np.arange(n), bandits)).all()):
        raise ValueError("deal_table needs the games 0 .. n-1 of one setting, bandits in order")
    codes, names = column_codes(p["bandit"], K.BANDIT_NAMES)
    share = np.zeros((n, N_CHARACTERS))
    present = np.zeros((n, N_CHARACTERS), bool)
    share[game, codes] = p["win_share"].to_numpy(np.float64)
    present[game, codes] = True
    play = np.stack([p[m].to_numpy(np.int32) for m in PLAY_METRICS], axis=1)
    return DealTable(share, present, play.reshape(n, bandits, len(PLAY_METRICS)))


def deal_weights(seed: int, setting: int, round_: int, first: int, n: int,
                 reps: int) -> np.ndarray:
    """``float64[reps, n]`` Poisson(1) bootstrap weights of deals ``first .. first + n - 1`` of
    one setting and round; they depend only on these numbers (and ``BLOCK``), so every value of
    the rule gets the same weights for the same deals."""
    blocks = []
    for start in range(first - first % BLOCK, first + n, BLOCK):
        rng = np.random.default_rng([seed, setting, round_, start // BLOCK, 0x7E57])
        blocks.append(rng.poisson(1.0, (reps, BLOCK)))
    w = np.concatenate(blocks, axis=1) if blocks else np.zeros((reps, 0))
    skip = first % BLOCK
    return w[:, skip:skip + n].astype(np.float64)


class RateSums:
    """A value's win-share and presence sums per (setting, character): the plain sums and the
    sums under each bootstrap weight (``reps`` of them)."""

    def __init__(self, n_settings: int, reps: int):
        self.wins = np.zeros((n_settings, N_CHARACTERS))
        self.games = np.zeros((n_settings, N_CHARACTERS))
        self.boot_wins = np.zeros((reps, n_settings, N_CHARACTERS))
        self.boot_games = np.zeros((reps, n_settings, N_CHARACTERS))

    def add(self, setting: int, table: DealTable, weights: np.ndarray) -> None:
        """Add one round's deals of one setting; ``weights`` as :func:`deal_weights`."""
        present = table.present.astype(np.float64)
        self.wins[setting] += table.share.sum(axis=0)
        self.games[setting] += present.sum(axis=0)
        self.boot_wins[:, setting] += weights @ table.share
        self.boot_games[:, setting] += weights @ present

    @classmethod
    def total(cls, parts: list["RateSums"]) -> "RateSums":
        """The sums of several rounds together."""
        out = cls(*parts[0].wins.shape[:1], parts[0].boot_wins.shape[0])
        for part in parts:
            for name in ("wins", "games", "boot_wins", "boot_games"):
                getattr(out, name)[...] += getattr(part, name)
        return out

    def rates(self) -> np.ndarray:
        """``float64[settings, characters]`` win rates (NaN: the character never played)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.games > 0, self.wins / self.games, np.nan)

    def boot_rates(self) -> np.ndarray:
        """``float64[reps, settings, characters]``, NaN where the character never played."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.boot_games > 0, self.boot_wins / self.boot_games, np.nan)


@dataclass(frozen=True)
class Objective:
    """What the search minimises, from win rates per setting and character.

    ``spread``: the strongest bandit's win rate minus the weakest's, in each setting, averaged
    over the settings.  ``win_rate``: the distance ``|rate - target|`` of ``bandit``'s win rate
    from its target in each setting (``targets``, one per setting), averaged over the settings.
    """

    kind: str
    bandit: str | None = None
    targets: tuple | None = None

    def per_setting(self, rates: np.ndarray) -> np.ndarray:
        """``rates[..., settings, characters]`` -> ``[..., settings]``."""
        if self.kind == "spread":
            with np.errstate(invalid="ignore"):
                return np.nanmax(rates, axis=-1) - np.nanmin(rates, axis=-1)
        c = K.BANDIT_NAMES.index(self.bandit)
        return np.abs(rates[..., c] - np.asarray(self.targets, np.float64))

    def __call__(self, rates: np.ndarray) -> np.ndarray:
        """``rates[..., settings, characters]`` -> ``[...]``: the mean over the settings."""
        return self.per_setting(rates).mean(axis=-1)


@dataclass(frozen=True)
class Estimate:
    """An objective (or a difference of objectives), bias-corrected, with its interval."""

    estimate: float
    lo: float
    hi: float
    se: float
    raw: float  # the plain estimate, before the bias correction


def estimate(point: float, boot: np.ndarray, level: float = LEVEL,
             floor: float | None = 0.0) -> Estimate:
    """Bias-corrected estimate and interval from a plain estimate and its bootstrap replicates.

    A spread (a maximum minus a minimum) or a distance ``|rate - target|`` of noisy rates leans
    high; the bootstrap measures by how much (``mean(boot) - point``) and the estimate and the
    percentile interval are shifted back by that amount (then kept at or above ``floor``).
    """
    boot = np.asarray(boot, np.float64)
    boot = boot[np.isfinite(boot)]
    if not boot.size:
        return Estimate(point, np.nan, np.nan, np.nan, point)
    bias = boot.mean() - point
    alpha = 1.0 - level
    lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2]) - bias
    est = point - bias
    if floor is not None:
        est, lo, hi = max(est, floor), max(lo, floor), max(hi, floor)
    return Estimate(float(est), float(lo), float(hi), float(boot.std(ddof=1)), float(point))


def worse_than(best: int, points: np.ndarray, boots: np.ndarray, z: float) -> np.ndarray:
    """Which values are worse than value ``best`` beyond doubt.

    ``points[v]`` is value ``v``'s objective and ``boots[:, v]`` its bootstrap replicates (the
    same resampled deals for every value).  Value ``v`` is worse when its bias-corrected
    difference from the best, less ``z`` bootstrap standard errors of that difference, is still
    above zero.  Returns ``bool[values]`` (False for ``best`` itself).
    """
    d_point = points - points[best]
    d_boot = boots - boots[:, [best]]
    d = 2 * d_point - d_boot.mean(axis=0)  # bias-corrected differences
    se = d_boot.std(axis=0, ddof=1)
    out = d - z * se > 0
    out[best] = False
    return out


def within(best: int, points: np.ndarray, boots: np.ndarray, z: float,
           tolerance: float) -> bool:
    """Whether every value is within ``tolerance`` of the best beyond doubt (the bias-corrected
    difference plus ``z`` standard errors below ``tolerance``)."""
    d_point = points - points[best]
    d_boot = boots - boots[:, [best]]
    d = 2 * d_point - d_boot.mean(axis=0)
    se = d_boot.std(axis=0, ddof=1)
    return bool(np.all(d + z * se < tolerance))


def elimination_z(values: int, rounds: int, level: float = LEVEL) -> float:
    """The one-sided normal quantile that keeps the chance of ever dropping the best value
    below ``1 - level``: a Bonferroni bound over the ``values - 1`` comparisons of each of
    ``rounds`` rounds."""
    comparisons = max(1, (values - 1) * rounds)
    return z_value(1.0 - 2.0 * (1.0 - level) / comparisons)
