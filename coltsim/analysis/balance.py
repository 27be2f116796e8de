"""Character balance: does any bandit win more often, or score more, than the others?

- :func:`win_rates`: each bandit's win rate per setting (player count), with a Wilson interval
  and a test against the fair share ``1/players``.
- :func:`mean_scores`: each bandit's mean final score (and where the dollars come from).
- :func:`bandit_effects`: each bandit's effect relative to the average bandit, controlling for
  the setting (player count) and the seat order, from one linear-probability model over every
  bandit of every game, with standard errors clustered by game.
- :func:`spread`: the headline, the gap between the strongest and weakest bandit.

A victory shared by ``m`` teams counts ``1/m`` for each, so that win rates in a game add up to
one and ``1/players`` is exactly the fair share.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .frames import BANDITS, as_results, column_codes, game_key, players_of_setting, win_share
from ._common import grouped, label_columns, rate_rows, sd_from_sums, with_adjustment
from .stats import LEVEL, Estimate, OLSResult, mean_interval, ols

LOOT_KINDS = ("purse", "jewel", "strongbox", "ransom", "bonus")


def win_rates(results, level: float = LEVEL, correction: str = "holm") -> pd.DataFrame:
    """Win rate of every bandit in every setting.

    Returns
    -------
    DataFrame
        One row per (setting, bandit): ``setting, label, players, bandit, n`` (games played),
        ``wins`` (shared wins split), ``rate, lo, hi`` (Wilson), ``fair_share`` (1/players),
        ``vs_fair``, ``p_value`` (score test of rate = fair share), ``p_adjusted`` (over the
        whole table with ``correction``) and ``significant``.
    """
    f = as_results(results)
    p = f.players
    g = grouped({"setting": p["setting"], "bandit": p["bandit"]}, {"share": win_share(p)})
    g = g.rename(columns={"share_sum": "wins"})
    n_of = players_of_setting(f)
    fair = 1.0 / g["setting"].map(n_of).to_numpy(np.float64)
    cols = rate_rows(g["wins"], g["n"], fair, level)
    table = pd.concat([g[["setting", "bandit", "wins"]], pd.DataFrame(cols)], axis=1)
    table = table[["setting", "bandit", "n", "wins", "rate", "lo", "hi", "fair_share",
                   "vs_fair", "p_value"]]
    table = _bandit_sorted(label_columns(table, f))
    return with_adjustment(table, correction)


def mean_scores(results, level: float = LEVEL) -> pd.DataFrame:
    """Mean final score (dollars) of every bandit in every setting, with a normal interval,
    and the mean dollars of each kind (purses, jewels, strongboxes, ransoms, Gunslinger bonus).
    """
    f = as_results(results)
    p = f.players
    values = {"score": p["score"].to_numpy(np.float64)}
    values.update({kind: p[kind].to_numpy(np.float64) for kind in LOOT_KINDS})
    g = grouped({"setting": p["setting"], "bandit": p["bandit"]}, values, squares=("score",))
    table = g[["setting", "bandit", "n"]].copy()
    table["mean"] = g["score_sum"] / g["n"]
    table["sd"] = sd_from_sums(g["n"], g["score_sum"], g["score_sumsq"])
    table["lo"], table["hi"] = mean_interval(table["mean"], table["sd"], table["n"], level)
    for kind in LOOT_KINDS:
        table[f"mean_{kind}"] = g[f"{kind}_sum"] / g["n"]
    return _bandit_sorted(label_columns(table, f))


@dataclass(frozen=True)
class Effects:
    """Bandit effects from one regression, and the fit they come from."""

    table: pd.DataFrame  # one row per bandit
    fit: OLSResult
    outcome: str
    contrasts: dict  # bandit -> weight vector of "bandit minus the average bandit"


def bandit_effects(results, outcome: str = "win", level: float = LEVEL,
                   correction: str = "holm", cluster: bool = True) -> Effects:
    """Each bandit's effect relative to the average bandit, controlling for seat and setting.

    Model (one row per bandit per game)::

        outcome ~ 1 + bandit + setting + order-within-setting

    with the win share (``outcome="win"``, a linear-probability model: effects in probability)
    or the final score in dollars (``outcome="score"``).  ``order`` is the seat counted from the
    First Player of round 1, given its own dummies in each setting since a seat's advantage
    depends on the player count.  Standard errors are cluster-robust by game (CR1): the
    bandits of one game share one victory, so their outcomes are not independent; with
    ``cluster=False`` they are White's HC1.

    Returns
    -------
    Effects
        ``table``: ``bandit, estimate, se, lo, hi, p_value, p_adjusted, significant, n``
        (rows: games the bandit played), sorted by estimate, strongest first.
    """
    f = as_results(results)
    p = f.players
    y = win_share(p) if outcome == "win" else _outcome(p, outcome)
    X, names, bandits = design_matrix(p)
    groups = game_key(p) if cluster else None
    fit = ols(y, X, names, groups=groups)
    contrasts = {}
    rows = []
    b_codes, b_names = column_codes(p["bandit"])
    counts = dict(zip(b_names, np.bincount(b_codes[b_codes >= 0], minlength=len(b_names))))
    for b in bandits:
        w = np.zeros(len(names))
        for other in bandits:
            name = f"bandit={other}"
            if name in names:
                w[names.index(name)] -= 1.0 / len(bandits)
        if f"bandit={b}" in names:
            w[names.index(f"bandit={b}")] += 1.0
        contrasts[b] = w
        e = fit.contrast(w, level)
        rows.append({"bandit": b, "estimate": e.estimate, "se": e.se, "lo": e.lo, "hi": e.hi,
                     "p_value": e.p, "n": int(counts.get(b, 0))})
    table = pd.DataFrame(rows).sort_values("estimate", ascending=False, kind="stable")
    table = with_adjustment(table.reset_index(drop=True), correction)
    return Effects(table, fit, outcome, contrasts)


def design_matrix(players: pd.DataFrame):
    """The ``uint8`` design of :func:`bandit_effects`: intercept, bandit dummies (the first
    bandit present is the baseline), setting dummies and order-within-setting dummies (order 0
    is the baseline of each setting).

    Returns
    -------
    X : ndarray of uint8, shape (rows, k)
    names : list of str
    bandits : list of str, the bandits present, in coltsim's order
    """
    b_codes, b_names = column_codes(players["bandit"])
    seen = np.bincount(b_codes[b_codes >= 0], minlength=len(b_names)) > 0
    present = [b for b in BANDITS if b in b_names and seen[b_names.index(b)]]
    present += sorted(n for n, hit in zip(b_names, seen) if hit and n not in BANDITS)
    s_codes, s_names = column_codes(players["setting"])
    s_seen = np.bincount(s_codes[s_codes >= 0], minlength=len(s_names)) > 0
    settings = [i for i in range(len(s_names)) if s_seen[i]]
    order = players["order"].to_numpy(np.int64)
    columns = [np.ones(len(players), bool)]
    names = ["intercept"]
    for b in present[1:]:
        columns.append(b_codes == b_names.index(b))
        names.append(f"bandit={b}")
    for s in settings[1:]:
        columns.append(s_codes == s)
        names.append(f"setting={s_names[s]}")
    for s in settings:
        in_s = s_codes == s
        for o in np.unique(order[in_s]):
            if o == 0:
                continue
            columns.append(in_s & (order == o))
            names.append(f"order={o}@{s_names[s]}")
    X = np.empty((len(players), len(columns)), np.uint8)
    for j, c in enumerate(columns):
        X[:, j] = c
    return X, names, present


@dataclass(frozen=True)
class Spread:
    """The gap between the strongest and the weakest bandit."""

    strongest: str
    weakest: str
    strongest_effect: float
    weakest_effect: float
    gap: Estimate
    n_significant: int
    correction: str
    outcome: str

    def sentence(self, games: int | None = None, context: str = "") -> str:
        """The one line a designer can quote."""
        unit = _unit(self.outcome)
        g = self.gap
        where = f" over {games:,} games" if games else ""
        ctx = f" ({context})" if context else ""
        s, w = self.strongest.title(), self.weakest.title()
        if self.outcome == "win":
            head = (f"{s} is the strongest bandit and {w} the weakest{where}{ctx}: {s} wins "
                    f"{_fmt(self.strongest_effect, unit)} more often than the average bandit "
                    f"and {w} {_fmt(-self.weakest_effect, unit)} less often, a spread of "
                    f"{_fmt(g.estimate, unit)} (95% CI {g.lo * 100:.1f} to {g.hi * 100:.1f}), "
                    "controlling for seat and player count.")
        else:
            head = (f"{s} scores the most and {w} the least{where}{ctx}: a spread of "
                    f"{_fmt(g.estimate, unit)} (95% CI {_fmt(g.lo, unit)} to "
                    f"{_fmt(g.hi, unit)}), controlling for seat and player count.")
        if self.n_significant == 0:
            head += (" No bandit differs significantly from the average bandit after "
                     f"{self.correction} correction.")
        return head


def spread(effects: Effects, level: float = LEVEL, correction: str = "holm") -> Spread:
    """The strongest minus the weakest bandit, with the interval of that difference.

    The two are picked after looking at the data, so the estimate leans slightly high
    (by about one standard error at worst when all bandits are equal).
    """
    t = effects.table
    top, bottom = t.iloc[0], t.iloc[-1]
    w = effects.contrasts[top["bandit"]] - effects.contrasts[bottom["bandit"]]
    gap = effects.fit.contrast(w, level)
    return Spread(top["bandit"], bottom["bandit"], float(top["estimate"]),
                  float(bottom["estimate"]), gap, int(t["significant"].sum()), correction,
                  effects.outcome)


# --- helpers -----------------------------------------------------------------------------------
def _outcome(p: pd.DataFrame, outcome: str) -> np.ndarray:
    if outcome not in p:
        raise ValueError(f"unknown outcome {outcome!r}; allowed: win, score, loot, shots, ...")
    return p[outcome].to_numpy(np.float64)


def _bandit_sorted(table: pd.DataFrame) -> pd.DataFrame:
    rank = {b: i for i, b in enumerate(BANDITS)}
    key = table["setting"].map({s: i for i, s in enumerate(pd.unique(table["setting"]))})
    table = table.assign(_s=key, _b=table["bandit"].map(lambda b: rank.get(b, 99)))
    return table.sort_values(["_s", "_b"], kind="stable").drop(columns=["_s", "_b"]) \
        .reset_index(drop=True)


def _unit(outcome: str) -> str:
    return "pp" if outcome == "win" else "$"


def _fmt(x: float, unit: str) -> str:
    if unit == "pp":
        return f"{100 * x:.1f} percentage points"
    return f"${x:,.0f}" if x >= 0 else f"-${-x:,.0f}"
