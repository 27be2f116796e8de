"""Seat and First Player advantage.

``order`` is a player's seat counted clockwise from the First Player of round 1 (0 = the First
Player; odd players, counting from 1, start in the caboose, even ones in the car in front of
it).  ``seat`` is the player number, which matters when seats play different policies.

- :func:`order_win_rates`: win rate by order, per setting, against the fair share 1/players.
- :func:`seat_win_rates`: the same by seat (useful for mixed policies: who wins at the table).
- :func:`first_player_advantage`: the First Player's win rate minus the fair share, per setting.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .frames import as_results, players_of_setting, team_rows, win_share
from ._common import grouped, label_columns, rate_rows, with_adjustment
from .stats import LEVEL


def _rates_by(results, column: str, level: float, correction: str) -> pd.DataFrame:
    f = as_results(results)
    p = f.players
    # One row per team and game: in the 2-player game both bandits of a team carry one result.
    team = team_rows(p)
    p = p[team] if not team.all() else p
    share = win_share(f.players)[team]
    values = p[column].to_numpy(np.int64)
    g = grouped({"setting": p["setting"], column: (values, list(range(int(values.max()) + 1)))},
                {"share": share, "score": p["team_score"].to_numpy(np.float64)})
    g[column] = g[column].astype(np.int64)
    g = g.rename(columns={"share_sum": "wins"})
    g["mean_score"] = g["score_sum"] / g["n"]
    fair = 1.0 / g["setting"].map(players_of_setting(f)).to_numpy(np.float64)
    table = pd.concat([g[["setting", column, "wins"]],
                       pd.DataFrame(rate_rows(g["wins"], g["n"], fair, level)),
                       g[["mean_score"]]], axis=1)
    table = label_columns(table, f)
    return with_adjustment(table, correction)


def order_win_rates(results, level: float = LEVEL, correction: str = "holm") -> pd.DataFrame:
    """Win rate by order from the First Player of round 1, per setting.

    Returns
    -------
    DataFrame
        ``setting, label, players, order, wins, n, rate, lo, hi, fair_share, vs_fair,
        p_value, mean_score, p_adjusted, significant`` (the table is one family).
    """
    return _rates_by(results, "order", level, correction)


def seat_win_rates(results, level: float = LEVEL, correction: str = "holm") -> pd.DataFrame:
    """Win rate by seat (player number), per setting; columns as :func:`order_win_rates`."""
    return _rates_by(results, "seat", level, correction)


def first_player_advantage(results, level: float = LEVEL,
                           correction: str = "holm") -> pd.DataFrame:
    """Per setting: the First Player's win rate, its interval, and its edge over 1/players."""
    t = order_win_rates(results, level, correction)
    return t[t["order"] == 0].drop(columns=["order"]).reset_index(drop=True)
