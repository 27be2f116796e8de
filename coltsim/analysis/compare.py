"""Rule and policy comparison on the same seeds.

The runner seeds game ``i`` of every setting from (master seed, ``i``), so game ``i`` of two
settings starts from the same deal (line-up, cars, deck, First Player) and the settings are
compared pair by pair: the difference is averaged over pairs and its standard error comes from
the spread of the paired differences, which removes the deal-to-deal noise the two settings
share.

- :func:`compare_settings`: one setting against another: every game metric, each bandit's win
  rate (paired by game and bandit) and each seat's win rate (paired by game and seat).
- :func:`default_pairs`: which settings to compare when the experiment does not say: each
  setting against the first one listed with the same player count and line-up.
- :func:`compare`: every pair, one table, one family for the correction.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .frames import BANDITS, as_results, column_codes, setting_labels, setting_mask, \
    setting_order, win_share
from ._common import with_adjustment
from .metrics import GAME_METRICS, game_metrics
from .stats import LEVEL, Estimate

COLUMNS = ["baseline", "setting", "baseline_label", "label", "quantity", "group", "description",
           "n_pairs", "baseline_mean", "mean", "difference", "lo", "hi", "p_value"]


def default_pairs(settings: pd.DataFrame) -> list[tuple[str, str]]:
    """``(baseline, other)`` pairs: each setting against the first setting listed with the same
    player count and line-up (so a sweep of rule options or policies compares each variant with
    the first one)."""
    first: dict = {}
    pairs = []
    for _, row in settings.iterrows():
        key = (row.get("players"), str(row.get("lineup")))
        sid = str(row["setting"])
        if key in first:
            pairs.append((first[key], sid))
        else:
            first[key] = sid
    return pairs


def compare_settings(results, baseline: str, other: str, level: float = LEVEL) -> pd.DataFrame:
    """``other`` minus ``baseline`` on games with the same index, unadjusted p-values.

    Returns
    -------
    DataFrame
        One row per quantity: ``baseline, setting, baseline_label, label, quantity`` (a game
        metric, ``win:BANDIT`` or ``win:seat N``), ``group`` (game/bandit/seat),
        ``description, n_pairs, baseline_mean, mean, difference, lo, hi, p_value``.
    """
    f = as_results(results)
    known = set(setting_order(f))
    for s in (baseline, other):
        if s not in known:
            raise ValueError(f"unknown setting {s!r}; allowed: {', '.join(sorted(known))}")
    labels = setting_labels(f.settings)
    rows = []

    gm = game_metrics(f)
    a = gm[setting_mask(gm, baseline)]
    b = gm[setting_mask(gm, other)]
    m = a.merge(b, on="game", suffixes=("_a", "_b"))
    if len(m) == 0:
        raise ValueError(f"settings {baseline!r} and {other!r} have no game index in common")
    for metric, (desc, _) in GAME_METRICS.items():
        rows.append(_row(m[f"{metric}_a"].to_numpy(), m[f"{metric}_b"].to_numpy(), level,
                         quantity=metric, group="game", description=desc))

    p = f.players
    bandit, _ = column_codes(p["bandit"], BANDITS)
    df = pd.DataFrame({"game": p["game"].to_numpy(np.int64), "bandit": bandit,
                       "seat": p["seat"].to_numpy(np.int64), "share": win_share(p)})
    a = df[setting_mask(p, baseline)]
    b = df[setting_mask(p, other)]
    mb = a.merge(b, on=["game", "bandit"], suffixes=("_a", "_b"))
    code = mb["bandit"].to_numpy()
    for i, bandit_name in enumerate(BANDITS):
        hit = code == i
        if not hit.any():
            continue
        rows.append(_row(mb["share_a"].to_numpy()[hit], mb["share_b"].to_numpy()[hit], level,
                         quantity=f"win:{bandit_name}", group="bandit",
                         description=f"{bandit_name.title()}'s win rate"))
    # Seats: one row per team (the two bandits of a 2-player team share one result).
    a = a.drop_duplicates(["game", "seat"])
    b = b.drop_duplicates(["game", "seat"])
    ms = a.merge(b, on=["game", "seat"], suffixes=("_a", "_b"))
    seat_col = ms["seat"].to_numpy()
    for seat in np.unique(seat_col):
        hit = seat_col == seat
        rows.append(_row(ms["share_a"].to_numpy()[hit], ms["share_b"].to_numpy()[hit], level,
                         quantity=f"win:seat {seat}", group="seat",
                         description=f"win rate of seat {seat}"))
    table = pd.DataFrame(rows)
    table.insert(0, "baseline", baseline)
    table.insert(1, "setting", other)
    table.insert(2, "baseline_label", labels.get(baseline, baseline))
    table.insert(3, "label", labels.get(other, other))
    return table[COLUMNS]


def compare(results, pairs=None, level: float = LEVEL, correction: str = "holm") -> pd.DataFrame:
    """:func:`compare_settings` for every pair (default :func:`default_pairs`), adjusted as one
    family; an empty table (with the columns) if there is nothing to compare."""
    f = as_results(results)
    pairs = default_pairs(f.settings) if pairs is None else list(pairs)
    tables = [compare_settings(f, a, b, level) for a, b in pairs]
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=COLUMNS)
    return with_adjustment(table, correction)


def _row(a: np.ndarray, b: np.ndarray, level: float, **info) -> dict:
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    d = b - a
    n = d.size
    if n >= 2:
        e = Estimate.from_se(d.mean(), d.std(ddof=1) / np.sqrt(n), n, level)
    else:
        e = Estimate(float(d.mean()) if n else np.nan, np.nan, np.nan, np.nan, np.nan, n)
    return {**info, "n_pairs": n, "baseline_mean": a.mean() if n else np.nan,
            "mean": b.mean() if n else np.nan, "difference": e.estimate, "lo": e.lo,
            "hi": e.hi, "p_value": e.p}
