"""Policies against each other at one table: each policy's share of the victories per seat.

The results hold one table (a line-up of policies, one per seat) played in several seat
rotations (one setting each) on the same deals: game ``g`` of every setting is deal ``g``.  A
victory shared by ``m`` teams counts ``1/m``.  Per deal, a policy's share is its mean over the
seats it holds in every rotation; deals are the independent units, so the interval is the
normal interval of the mean over deals, kept within [0, 1] (the Wilson interval where every
deal gave the policy the same share): the estimate of the one tournament
(coltsim.analysis.stats.deal_shares and share_estimate, which coltsim.runs.match plays for),
here from saved games.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .frames import as_results, players_of_setting, seat_policies, team_rows, win_share
from .stats import LEVEL, deal_shares, share_estimate

COLUMNS = ["policy", "seats", "games", "win_rate", "ci_low", "ci_high", "fair_share",
           "mean_score", "p_value"]


def policy_shares(results, level: float = LEVEL) -> pd.DataFrame:
    """Each policy's victory share per seat it holds, over the deals of one table (the one
    tournament's estimate: coltsim.analysis.stats.share_estimate).

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
    share = win_share(f.players)[team]
    seat = p["seat"].to_numpy(np.int64)
    setting = p["setting"].astype(str).to_numpy()
    seated = {}
    for sid, policies in zip(f.settings["setting"].astype(str), f.settings["policies"]):
        rows = setting == sid
        shares = np.zeros((len(deals), n_players))
        shares[deal[rows], seat[rows]] = share[rows]
        seated[tuple(seat_policies(policies))] = shares
    per_deal = deal_shares(seated)
    score = p.groupby("policy", observed=True)["team_score"].mean()
    rows = []
    for name in dict.fromkeys(table):
        e = share_estimate(per_deal[name], n_players, len(f.settings), level,
                           table.count(name))
        rows.append({"policy": name, "seats": table.count(name), "games": len(f.games),
                     "win_rate": e.share, "ci_low": e.lo, "ci_high": e.hi,
                     "fair_share": e.fair_share, "mean_score": float(score[name]),
                     "p_value": e.p_value})
    return pd.DataFrame(rows, columns=COLUMNS)
