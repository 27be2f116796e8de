"""Policies against each other at one table: each policy's share of the victories per seat.

The results hold one table (a line-up of policies, one per seat) played in several seat
rotations (one setting each) on the same deals: game ``g`` of every setting is deal ``g``.  A
victory shared by ``m`` teams counts ``1/m``.  Per deal, a policy's share is its mean over the
seats it holds in every rotation; deals are the independent units, so the interval is the
normal interval of the mean over deals, kept within [0, 1].  Where every deal gave the policy
the same share (no spread: a policy that never wins) while others hold seats beside it, that
interval would be a single number;
the Wilson interval over the deals is used instead, as for a share of deals won (a mean of
values in [0, 1] varies at most as such a share does), and its score test.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import grouped
from .frames import as_results, players_of_setting, seat_policies, team_rows, win_share
from .stats import LEVEL, Estimate, mean_interval, proportion_p, sample_sd, wilson_interval

COLUMNS = ["policy", "seats", "games", "win_rate", "ci_low", "ci_high", "fair_share",
           "mean_score", "p_value"]


def policy_shares(results, level: float = LEVEL) -> pd.DataFrame:
    """Each policy's victory share per seat it holds, over the deals of one table.

    Returns
    -------
    DataFrame
        One row per policy, in the order of the table: ``policy``, ``seats`` (seats it
        holds), ``games`` (games played: deals x rotations), ``win_rate`` (victory share per
        seat), ``ci_low, ci_high`` (``level`` interval over deals, within [0, 1]),
        ``fair_share`` (1 / players), ``mean_score`` (dollars per seat), ``p_value`` (of the
        share equalling the fair share).
    """
    f = as_results(results)
    players = set(players_of_setting(f).values())
    if len(players) != 1:
        raise ValueError(f"one table has one player count, got {sorted(players)}")
    n_players = players.pop()
    table = seat_policies(f.settings["policies"].iloc[0])
    team = team_rows(f.players)
    p = f.players[team]
    deals, deal = np.unique(p["game"].to_numpy(np.int64), return_inverse=True)
    g = grouped({"deal": (deal, list(range(len(deals)))), "policy": p["policy"]},
                {"share": win_share(f.players)[team],
                 "score": p["team_score"].to_numpy(np.float64)})
    g["per_deal"] = g["share_sum"] / g["n"]
    rows = []
    for name in dict.fromkeys(table):
        d = g[g["policy"] == name]
        rate = float(d["per_deal"].mean())
        deals_played = len(d)
        sd = sample_sd(d["per_deal"])
        if sd == 0 and table.count(name) < n_players:  # (in every seat: exactly the fair share)
            lo, hi = wilson_interval(rate * deals_played, deals_played, level)
            p_value = float(proportion_p(rate * deals_played, deals_played, 1.0 / n_players))
        else:
            lo, hi = mean_interval(rate, sd, deals_played, level)
            p_value = Estimate.from_se(rate - 1.0 / n_players, sd / np.sqrt(deals_played),
                                       deals_played, level).p
        rows.append({"policy": name, "seats": table.count(name), "games": len(f.games),
                     "win_rate": rate, "ci_low": float(np.clip(lo, 0.0, 1.0)),
                     "ci_high": float(np.clip(hi, 0.0, 1.0)), "fair_share": 1.0 / n_players,
                     "mean_score": float(d["score_sum"].sum() / d["n"].sum()),
                     "p_value": p_value})
    return pd.DataFrame(rows, columns=COLUMNS)
