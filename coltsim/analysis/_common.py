"""Pieces shared by the analysis modules: interval columns, adjustment, labelling."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .design import design_of
from .frames import BANDITS, Results, column_codes, players_of_setting, setting_order
from .stats import LEVEL, adjust, proportion_p, wilson_interval

ALPHA = 0.05


def with_adjustment(table: pd.DataFrame, correction: str) -> pd.DataFrame:
    """Add ``p_adjusted`` (over every row of the table: one family) and ``significant``.

    A row without a test (a NaN p-value: too few games) is left out of the family and never
    significant, nor is a row whose interval (``lo``, ``hi``) is not finite."""
    table = table.copy()
    table["p_adjusted"] = adjust(table["p_value"].to_numpy(np.float64), correction)
    significant = table["p_adjusted"].to_numpy(np.float64) < ALPHA
    for bound in ("lo", "hi"):
        if bound in table:
            significant &= np.isfinite(table[bound].to_numpy(np.float64))
    table["significant"] = significant
    return table


def rate_rows(successes, trials, fair=None, level: float = LEVEL) -> dict:
    """Columns of a rate with its Wilson interval (and a test against ``fair``)."""
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    lo, hi = wilson_interval(k, n, level)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = {"n": n.astype(np.int64), "rate": k / n, "lo": lo, "hi": hi}
    if fair is not None:
        fair = np.asarray(fair, dtype=np.float64)
        out["fair_share"] = np.broadcast_to(fair, k.shape).copy()
        out["vs_fair"] = out["rate"] - fair
        out["p_value"] = proportion_p(k, n, fair)
    return out


def label_columns(table: pd.DataFrame, frames: Results) -> pd.DataFrame:
    """Put ``setting``, ``label``, ``players``, ``policy`` and ``condition`` first (the
    setting's names in the experiment's design), rows in experiment order."""
    d = design_of(frames).settings.set_index("setting")
    table = table.copy()
    table["setting"] = table["setting"].astype(str)
    known = table["setting"].isin(d.index)
    def of(col):
        return table["setting"].map(d[col]).where(known, None)

    table.insert(1, "label", of("label").fillna(table["setting"]))
    if "players" not in table:
        table.insert(2, "players", table["setting"].map(players_of_setting(frames)).astype("Int64"))
    at = list(table.columns).index("players") + 1
    table.insert(at, "policy", of("policy"))
    table.insert(at + 1, "condition", of("condition_label"))
    rank = {s: i for i, s in enumerate(setting_order(frames))}
    table = table.sort_values("setting", key=lambda s: s.map(rank), kind="stable")
    return table.reset_index(drop=True)


def unit_columns(table: pd.DataFrame, units: pd.DataFrame) -> pd.DataFrame:
    """Replace a ``unit`` column (coltsim.analysis.design.Design.units) by the unit's
    ``setting, label, players, policy, condition``."""
    info = units.set_index("unit")
    u = table["unit"]
    front = pd.DataFrame({"setting": u.map(info["setting"]).astype(str),
                          "label": u.map(info["label"]),
                          "players": u.map(info["players"]).astype("Int64"),
                          "policy": u.map(info["policy"]),
                          "condition": u.map(info["condition_label"])}, index=table.index)
    return pd.concat([front, table.drop(columns="unit")], axis=1)


def bandit_sorted(table: pd.DataFrame) -> pd.DataFrame:
    """Rows by unit, then bandit in coltsim's order."""
    rank = {b: i for i, b in enumerate(BANDITS)}
    table = table.assign(_b=table["bandit"].map(lambda b: rank.get(b, 99)))
    return table.sort_values(["unit", "_b"], kind="stable").drop(columns="_b") \
        .reset_index(drop=True)


def grouped(keys: dict, values: dict, squares=()) -> pd.DataFrame:
    """Counts and sums of ``values`` per combination of label columns, with ``np.bincount``
    (no string conversion, fast on millions of rows).

    Parameters
    ----------
    keys : dict of name -> Series, or name -> (codes, names)
        Label columns; a Series is coded with :func:`column_codes`.  Rows with a code of -1
        are left out.
    values : dict of name -> ndarray
        Numbers to sum per group (``<name>_sum``).
    squares : names in ``values`` whose sum of squares is wanted too (``<name>_sumsq``).

    Returns
    -------
    DataFrame
        One row per non-empty group: the key columns (labels), ``n`` and the sums.
    """
    coded = []
    for name, k in keys.items():
        codes, names = column_codes(k) if isinstance(k, pd.Series) else k
        coded.append((name, np.asarray(codes, np.int64), list(names)))
    sizes = [len(n) for _, _, n in coded]
    flat = np.zeros(len(coded[0][1]), np.int64)
    valid = np.ones(len(flat), bool)
    for (_, codes, _), size in zip(coded, sizes):
        valid &= codes >= 0
        flat = flat * size + codes
    total = int(np.prod(sizes))
    idx = flat[valid]
    n = np.bincount(idx, minlength=total)
    out = {}
    rest = np.arange(total)
    for (name, _, names), size in reversed(list(zip(coded, sizes))):
        out[name] = np.array(names, dtype=object)[rest % size]
        rest //= size
    out = {name: out[name] for name, _, _ in coded}
    out["n"] = n
    for name, v in values.items():
        v = np.asarray(v, np.float64)[valid]
        out[f"{name}_sum"] = np.bincount(idx, weights=v, minlength=total)
        if name in squares:
            out[f"{name}_sumsq"] = np.bincount(idx, weights=v * v, minlength=total)
    table = pd.DataFrame(out)
    return table[table["n"] > 0].reset_index(drop=True)


def sd_from_sums(n, total, sumsq) -> np.ndarray:
    """Sample standard deviation from a count, a sum and a sum of squares."""
    n = np.asarray(n, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (np.asarray(sumsq, np.float64) - np.asarray(total, np.float64) ** 2 / n) / (n - 1)
    return np.sqrt(np.maximum(var, 0.0))
