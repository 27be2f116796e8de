"""The Gunslinger bonus: how often it is awarded, how many share it, who gets it, and how often
it decides the game.

- :func:`gunslinger_summary`: per setting, the share of games with a Gunslinger, the mean number
  of Gunslingers, and the share of games whose winner the bonus changed (Wilson intervals).
- :func:`gunslinger_shares`: per setting, the distribution of the number of Gunslingers.
- :func:`gunslinger_by_bandit`: per setting (or policy at a mixed table) and bandit, how often
  the bandit is a Gunslinger, against the even share ``mean Gunslingers / players``, and how
  often it wins a game the bonus decided.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .design import design_of
from .frames import as_results
from ._common import bandit_sorted, grouped, label_columns, rate_rows, unit_columns, \
    with_adjustment
from .metrics import player_game_rows
from .stats import LEVEL, wilson_interval


def gunslinger_summary(results, level: float = LEVEL) -> pd.DataFrame:
    """Per setting: ``games, awarded_rate (lo, hi), mean_gunslingers, shared_rate`` (two or more
    Gunslingers, among games with one), ``changed_rate (lo, hi)``."""
    f = as_results(results)
    g = f.games
    n_gun = g["n_gunslingers"].to_numpy(np.int64)
    t = grouped({"setting": g["setting"]}, {
        "awarded": n_gun > 0, "shared": n_gun > 1, "gunslingers": n_gun,
        "changed": g["gunslinger_changed_winner"].to_numpy(bool)})
    n, awarded, shared = t["n"], t["awarded_sum"], t["shared_sum"]
    out = pd.DataFrame({"setting": t["setting"], "games": n})
    out["awarded_rate"] = awarded / n
    out["awarded_lo"], out["awarded_hi"] = wilson_interval(awarded, n, level)
    out["mean_gunslingers"] = t["gunslingers_sum"] / n
    out["shared_rate"] = np.where(awarded > 0, shared / awarded.where(awarded > 0, 1), np.nan)
    out["shared_lo"], out["shared_hi"] = wilson_interval(shared, awarded, level)
    out["changed_rate"] = t["changed_sum"] / n
    out["changed_lo"], out["changed_hi"] = wilson_interval(t["changed_sum"], n, level)
    return label_columns(out, f)


def gunslinger_shares(results) -> pd.DataFrame:
    """Per setting and number of Gunslingers (0, 1, 2, ...): ``games`` and ``share``."""
    f = as_results(results)
    g = f.games
    n_gun = g["n_gunslingers"].to_numpy(np.int64)
    top = int(n_gun.max()) if len(n_gun) else 0
    t = grouped({"setting": g["setting"],
                 "gunslingers": (n_gun, list(range(top + 1)))}, {})
    t = t.rename(columns={"n": "games"})
    t["gunslingers"] = t["gunslingers"].astype(np.int64)
    t["share"] = t["games"] / t.groupby("setting")["games"].transform("sum")
    return label_columns(t, f)


def gunslinger_by_bandit(results, level: float = LEVEL, correction: str = "holm") -> pd.DataFrame:
    """Per unit (a setting, or one policy's seats at a mixed table) and bandit: how often the
    bandit is a Gunslinger and wins thanks to the bonus.

    Returns
    -------
    DataFrame
        ``setting, label, players, policy, condition, bandit, n, rate, lo, hi`` (share of its
        games in which it is a Gunslinger), ``fair_share`` (the unit's mean over its bandits:
        in a uniform setting, mean Gunslingers per game / players, every bandit's rate if none
        fires more than the others), ``vs_fair, p_value, p_adjusted, significant``, and
        ``decided_rate, decided_lo, decided_hi``: share of its games that it won while the
        bonus changed the winner (it won because of the bonus).
    """
    f = as_results(results)
    p = f.players
    changed = f.games["gunslinger_changed_winner"].to_numpy(bool)[player_game_rows(f)]
    gun = p["gunslinger"].to_numpy(bool)
    decided = p["win"].to_numpy(bool) & gun & changed
    codes, units = design_of(f).unit_codes(p)
    g = grouped({"unit": (codes, list(units["unit"])), "bandit": p["bandit"]},
                {"gun": gun, "decided": decided})
    g["unit"] = g["unit"].astype(np.int64)
    totals = g.groupby("unit")[["gun_sum", "n"]].transform("sum")
    fair = (totals["gun_sum"] / totals["n"]).to_numpy(np.float64)
    table = pd.concat([g[["unit", "bandit"]],
                       pd.DataFrame(rate_rows(g["gun_sum"], g["n"], fair, level))], axis=1)
    table["decided_rate"] = g["decided_sum"] / g["n"]
    table["decided_lo"], table["decided_hi"] = wilson_interval(g["decided_sum"], g["n"], level)
    table = unit_columns(bandit_sorted(table), units)
    return with_adjustment(table, correction)
