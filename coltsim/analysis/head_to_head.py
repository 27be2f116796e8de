"""Head to head: when two bandits are at the same table, how often does each finish ahead of the
other?  (TAG's pairwise win rates, for a game of three to six.)

For every setting that seats one policy, and every ordered pair of bandits that played in the
same games, the share of those games in which the first finished ahead of the second (a better
rank: the final scores, then the tie-break on bullets received), a shared rank counting one
half.  In the 2-player game a bandit finishes as its team does, and two bandits of one team are
never a pair.  A row and its mirror add up to one (``rate`` of Belle against Tuco is one minus
Tuco's against Belle).

Each game gives one value per pair (1, 1/2 or 0) and games are independent, so the interval is a
Wilson interval on the games, the shared ranks counted one half: a value of 1/2 varies less than
a win or a loss, so the interval is, if anything, a little wide.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .design import design_of
from .frames import BANDITS, as_results, column_codes, game_key
from ._common import rate_rows, unit_columns
from .stats import LEVEL

COLUMNS = ["setting", "label", "players", "policy", "condition", "bandit", "opponent", "games",
           "ahead", "ties", "rate", "lo", "hi"]


def head_to_head(results, level: float = LEVEL) -> pd.DataFrame:
    """Every ordered pair of bandits at the same table, in every setting that seats one policy.

    Returns
    -------
    DataFrame
        One row per setting and ordered pair: ``setting, label, players, policy, condition,
        bandit, opponent, games`` (games both played, on different teams), ``ahead`` (games the
        bandit finished ahead, shared ranks counted 1/2), ``ties`` (games they shared a rank),
        ``rate`` (``ahead / games``), ``lo, hi`` (Wilson); bandits in coltsim's order.
    """
    f = as_results(results)
    codes, units = design_of(f).unit_codes(f.players)
    frames = []
    for u in units.itertuples():
        if u.mixed:  # a table of different policies: a tournament's question
            continue
        rows = codes == u.unit
        if rows.any():
            frames.append(_pairs(f.players[rows], u.unit, level))
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    return unit_columns(pd.concat(frames, ignore_index=True), units)[COLUMNS]


def _pairs(players: pd.DataFrame, unit: int, level: float) -> pd.DataFrame:
    """The ordered pairs of one setting's games (every game seats the same number of bandits)."""
    order = np.lexsort((players["bandit_index"].to_numpy(), game_key(players)))
    bandit = column_codes(players["bandit"], BANDITS)[0][order]
    rank = players["rank"].to_numpy(np.int64)[order]
    seat = players["seat"].to_numpy(np.int64)[order]
    per_game = len(np.unique(players["bandit_index"].to_numpy()))
    bandit, rank, seat = (a.reshape(-1, per_game) for a in (bandit, rank, seat))
    n = len(BANDITS)
    ahead, ties, games = (np.zeros(n * n) for _ in range(3))
    for i in range(per_game):
        for j in range(i + 1, per_game):
            rivals = seat[:, i] != seat[:, j]
            a, b = bandit[rivals, i], bandit[rivals, j]
            ra, rb = rank[rivals, i], rank[rivals, j]
            tie = (ra == rb).astype(np.float64)
            first = (ra < rb) + tie / 2
            for x, y, value in ((a, b, first), (b, a, 1 - first)):
                cell = x * n + y
                ahead += np.bincount(cell, weights=value, minlength=n * n)
                ties += np.bincount(cell, weights=tie, minlength=n * n)
                games += np.bincount(cell, minlength=n * n)
    cells = np.flatnonzero(games)
    rates = rate_rows(ahead[cells], games[cells], level=level)
    return pd.DataFrame({"unit": unit, "bandit": [BANDITS[c // n] for c in cells],
                         "opponent": [BANDITS[c % n] for c in cells],
                         "games": rates["n"], "ahead": ahead[cells],
                         "ties": ties[cells].astype(np.int64), "rate": rates["rate"],
                         "lo": rates["lo"], "hi": rates["hi"]})
