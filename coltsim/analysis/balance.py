"""Character balance: does any bandit win more often, or score more, than the others?

Every answer is given per *unit*: a setting (one condition, player count and policy), or one
policy's seats at a mixed table (coltsim.analysis.design): never pooled over player counts,
conditions or policies.

- :func:`win_rates`: each bandit's win rate per unit, with a Wilson interval and a test against
  the fair share (``1/players``; at a mixed table, the policy's own share per seat).
- :func:`mean_scores`: each bandit's mean final score (and where the dollars come from).
- :func:`bandit_effects`: each bandit's effect relative to the average bandit in each unit, from
  one linear-probability model with a bandit x unit term, controlling for the seat order, with
  standard errors clustered by deal.
- :func:`spreads`: the gap between the strongest and the weakest bandit of each unit;
  :func:`spread_changes`: how a comparison moves it, on the same deals.
- :func:`effect_changes`: how a comparison moves one bandit's effect, on the same deals (the
  question an experiment's ``focus`` asks).

A victory shared by ``m`` teams counts ``1/m`` for each, so that win rates in a game add up to
one and ``1/players`` is exactly the fair share.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..words import did_you_mean
from .design import design_of
from .frames import BANDITS, as_results, column_codes, win_share
from ._common import bandit_sorted, grouped, rate_rows, sd_from_sums, unit_columns, \
    with_adjustment
from .stats import LEVEL, Estimate, OLSResult, joint_se, mean_interval, ols

LOOT_KINDS = ("purse", "jewel", "strongbox", "ransom", "bonus")


def win_rates(results, level: float = LEVEL, correction: str = "holm") -> pd.DataFrame:
    """Win rate of every bandit in every unit (setting, or policy at a mixed table).

    Returns
    -------
    DataFrame
        One row per (unit, bandit): ``setting, label, players, policy, condition, bandit, n``
        (games played), ``wins`` (shared wins split), ``rate, lo, hi`` (Wilson),
        ``fair_share`` (1/players; at a mixed table the policy's mean share per seat),
        ``vs_fair``, ``p_value`` (score test of rate = fair share), ``p_adjusted`` (over the
        whole table with ``correction``) and ``significant``.
    """
    f = as_results(results)
    codes, units = design_of(f).unit_codes(f.players)
    share = win_share(f.players)
    g = grouped({"unit": (codes, list(units["unit"])), "bandit": f.players["bandit"]},
                {"share": share})
    g = g.rename(columns={"share_sum": "wins"})
    g["unit"] = g["unit"].astype(np.int64)
    fair = 1.0 / units["players"].to_numpy(np.float64)
    for u in units.itertuples():
        if u.mixed:  # the policy's own share per seat: the average bandit it plays
            rows = g["unit"] == u.unit
            fair[u.unit] = g.loc[rows, "wins"].sum() / g.loc[rows, "n"].sum()
    cols = rate_rows(g["wins"], g["n"], fair[g["unit"].to_numpy()], level)
    table = pd.concat([g[["unit", "bandit", "wins"]], pd.DataFrame(cols)], axis=1)
    table = table[["unit", "bandit", "n", "wins", "rate", "lo", "hi", "fair_share", "vs_fair",
                   "p_value"]]
    return with_adjustment(unit_columns(bandit_sorted(table), units), correction)


def mean_scores(results, level: float = LEVEL) -> pd.DataFrame:
    """Mean final score (dollars) of every bandit in every unit, with a normal interval, and
    the mean dollars of each kind (purses, jewels, strongboxes, ransoms, Gunslinger bonus)."""
    f = as_results(results)
    p = f.players
    codes, units = design_of(f).unit_codes(p)
    values = {"score": p["score"].to_numpy(np.float64)}
    values.update({kind: p[kind].to_numpy(np.float64) for kind in LOOT_KINDS})
    g = grouped({"unit": (codes, list(units["unit"])), "bandit": p["bandit"]}, values,
                squares=("score",))
    table = g[["unit", "bandit", "n"]].copy()
    table["unit"] = table["unit"].astype(np.int64)
    table["mean"] = g["score_sum"] / g["n"]
    table["sd"] = sd_from_sums(g["n"], g["score_sum"], g["score_sumsq"])
    table["lo"], table["hi"] = mean_interval(table["mean"], table["sd"], table["n"], level)
    for kind in LOOT_KINDS:
        table[f"mean_{kind}"] = g[f"{kind}_sum"] / g["n"]
    return unit_columns(bandit_sorted(table), units)


@dataclass(frozen=True)
class UnitFit:
    """The fit of one unit: its regression and each bandit's contrast "bandit minus the average
    bandit" over the fit's coefficients."""

    fit: OLSResult
    contrasts: dict  # bandit -> weights


@dataclass(frozen=True)
class Effects:
    """Bandit effects per unit from one model, and what combines them across units."""

    table: pd.DataFrame  # one row per unit and bandit
    fits: dict  # (setting, policy) -> UnitFit
    outcome: str
    n: int  # rows, coefficients and clusters (deals) of the whole model
    k: int
    groups: int
    level: float

    def estimate(self, terms) -> Estimate:
        """A linear combination of bandit effects, possibly of several units (e.g. a spread in
        one setting minus the spread in another played on the same deals), with its standard
        error from the whole model.  ``terms``: ``[((setting, policy), bandit, weight), ...]``.
        """
        parts, value = {}, 0.0
        for unit, bandit, weight in terms:
            uf = self.fits[unit]
            w = parts.setdefault(unit, np.zeros(len(uf.fit.coef)))
            w += weight * uf.contrasts[bandit]
            value += weight * float(uf.contrasts[bandit] @ uf.fit.coef)
        se = joint_se([(self.fits[u].fit, w) for u, w in parts.items()], self.n, self.k,
                      self.groups)
        return Estimate.from_se(value, se, self.n, self.level)


def bandit_effects(results, outcome: str = "win", level: float = LEVEL,
                   correction: str = "holm") -> Effects:
    """Each bandit's effect relative to the average bandit, in every unit.

    Model (one row per bandit per game)::

        outcome ~ unit x (1 + bandit + order-within-setting)

    with the win share (``outcome="win"``, a linear-probability model: effects in probability)
    or the final score in dollars (``outcome="score"``).  Every unit (a setting, or one
    policy's seats at a mixed table) has its own bandit terms: nothing is averaged over player
    counts, conditions or policies.  ``order`` is the seat counted from the First Player of
    round 1, with its own dummies in each setting.  Standard errors are cluster-robust (CR1) by
    deal (the game index): the bandits of one game share one victory, and game ``i`` of every
    setting is played from the same deal, so comparisons of units on the same deals
    (:meth:`Effects.estimate`) are paired.

    Returns
    -------
    Effects
        ``table``: ``setting, label, players, policy, condition, bandit, estimate, se, lo, hi,
        p_value, n`` (rows: games the bandit played), ``p_adjusted, significant``; in unit
        order, strongest first within a unit.
    """
    f = as_results(results)
    p = f.players
    y = win_share(p) if outcome == "win" else _outcome(p, outcome)
    codes, units = design_of(f).unit_codes(p)
    deal = p["game"].to_numpy(np.int64)
    fits, rows, n_total, k_total = {}, [], 0, 0
    for u in units.itertuples():
        mask = codes == u.unit
        if not mask.any():
            continue
        sub = p[mask]
        X, names, bandits = design_matrix(sub)
        fit = ols(y[mask], X, names, groups=deal[mask], influence=True)
        n_total, k_total = n_total + fit.n, k_total + len(names)
        contrasts = {b: _contrast(names, bandits, b) for b in bandits}
        fits[(u.setting, u.policy)] = UnitFit(fit, contrasts)
        b_codes, b_names = column_codes(sub["bandit"])
        counts = dict(zip(b_names, np.bincount(b_codes[b_codes >= 0], minlength=len(b_names))))
        for b in bandits:
            rows.append({"unit": u.unit, "bandit": b,
                         "estimate": float(contrasts[b] @ fit.coef), "n": int(counts[b])})
    groups = len(np.unique(deal[codes >= 0]))
    effects = Effects(pd.DataFrame(), fits, outcome, n_total, k_total, groups, level)
    for r in rows:
        key = tuple(units.loc[r["unit"], ["setting", "policy"]])
        e = effects.estimate([(key, r["bandit"], 1.0)])
        r.update(se=e.se, lo=e.lo, hi=e.hi, p_value=e.p)
    table = pd.DataFrame(rows, columns=["unit", "bandit", "estimate", "se", "lo", "hi",
                                        "p_value", "n"])
    table = table.sort_values(["unit", "estimate"], ascending=[True, False], kind="stable")
    table = with_adjustment(unit_columns(table.reset_index(drop=True), units), correction)
    return Effects(table, fits, outcome, n_total, k_total, groups, level)


def _contrast(names: list, bandits: list, b: str) -> np.ndarray:
    """Weights of "bandit ``b`` minus the average bandit" (the first bandit is the baseline)."""
    w = np.zeros(len(names))
    for other in bandits[1:]:
        w[names.index(f"bandit={other}")] -= 1.0 / len(bandits)
    if f"bandit={b}" in names:
        w[names.index(f"bandit={b}")] += 1.0
    return w


def design_matrix(players: pd.DataFrame):
    """The ``uint8`` design of one unit of :func:`bandit_effects`: intercept, bandit dummies
    (the first bandit present is the baseline), setting dummies (a mixed table's rotations) and
    order-within-setting dummies (order 0 is the baseline of each setting).

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


SPREAD_COLUMNS = ["strongest", "strongest_effect", "weakest", "weakest_effect", "spread", "se",
                  "lo", "hi", "p_value"]


def spreads(effects: Effects) -> pd.DataFrame:
    """The strongest minus the weakest bandit of every unit, with the interval of that
    difference.

    The two are picked after looking at the data, so the estimate leans slightly high (by about
    one standard error at worst when all bandits are equal).

    Returns
    -------
    DataFrame
        One row per unit: ``setting, label, players, policy, condition, strongest,
        strongest_effect, weakest, weakest_effect, spread, se, lo, hi, p_value``.
    """
    rows = []
    id_cols = [c for c in effects.table.columns if c not in _EFFECT_VALUES]
    for _, t in effects.table.groupby(["setting", "policy"], sort=False):
        top, bottom = t.iloc[0], t.iloc[-1]
        key = (top["setting"], top["policy"])
        gap = effects.estimate([(key, top["bandit"], 1.0), (key, bottom["bandit"], -1.0)])
        rows.append({**{c: top[c] for c in id_cols}, "strongest": top["bandit"],
                     "strongest_effect": float(top["estimate"]), "weakest": bottom["bandit"],
                     "weakest_effect": float(bottom["estimate"]), "spread": gap.estimate,
                     "se": gap.se, "lo": gap.lo, "hi": gap.hi, "p_value": gap.p})
    return pd.DataFrame(rows, columns=id_cols + SPREAD_COLUMNS)


def spread_changes(effects: Effects, pairs) -> pd.DataFrame:
    """How each comparison moves the spread: the spread of ``other`` (its strongest minus its
    weakest bandit) minus the spread of ``baseline`` (its own strongest minus weakest), with the
    interval from the whole model: the two settings are played on the same deals, so the
    interval is paired.

    Parameters
    ----------
    pairs : list of (baseline, other) setting ids (uniform settings)

    Returns
    -------
    DataFrame
        One row per pair: ``baseline, setting, baseline_label, label, players, policy,
        baseline_strongest, baseline_weakest, baseline_spread, strongest, weakest, spread,
        change, se, lo, hi, p_value``.
    """
    spread = spreads(effects).set_index("setting")
    labels = dict(zip(effects.table["setting"], effects.table["label"]))
    rows = []
    for base, other in pairs:
        if base not in spread.index or other not in spread.index:
            continue
        a, b = spread.loc[base], spread.loc[other]
        ka, kb = (base, a["policy"]), (other, b["policy"])
        e = effects.estimate([(kb, b["strongest"], 1.0), (kb, b["weakest"], -1.0),
                              (ka, a["strongest"], -1.0), (ka, a["weakest"], 1.0)])
        rows.append({"baseline": base, "setting": other, "baseline_label": labels[base],
                     "label": labels[other], "players": int(b["players"]),
                     "policy": b["policy"], "baseline_strongest": a["strongest"],
                     "baseline_weakest": a["weakest"], "baseline_spread": a["spread"],
                     "strongest": b["strongest"], "weakest": b["weakest"],
                     "spread": b["spread"], "change": e.estimate, "se": e.se, "lo": e.lo,
                     "hi": e.hi, "p_value": e.p})
    return pd.DataFrame(rows, columns=CHANGE_COLUMNS)


def effect_changes(effects: Effects, pairs, bandits) -> pd.DataFrame:
    """How each comparison moves the effect of each of ``bandits``: its effect in ``other``
    minus its effect in ``baseline``, with the interval from the whole model (paired: the two
    settings are played on the same deals).  A bandit that does not play in both settings of a
    pair gets no row.

    Returns
    -------
    DataFrame
        One row per pair and bandit: ``baseline, setting, baseline_label, label, players,
        policy, bandit, baseline_effect, effect, change, se, lo, hi, p_value``.
    """
    t = effects.table.set_index(["setting", "bandit"])
    rows = []
    for base, other in pairs:
        for bandit in bandits:
            if (base, bandit) not in t.index or (other, bandit) not in t.index:
                continue
            a, b = t.loc[(base, bandit)], t.loc[(other, bandit)]
            e = effects.estimate([((other, b["policy"]), bandit, 1.0),
                                  ((base, a["policy"]), bandit, -1.0)])
            rows.append({"baseline": base, "setting": other, "baseline_label": a["label"],
                         "label": b["label"], "players": int(b["players"]),
                         "policy": b["policy"], "bandit": bandit,
                         "baseline_effect": float(a["estimate"]),
                         "effect": float(b["estimate"]), "change": e.estimate, "se": e.se,
                         "lo": e.lo, "hi": e.hi, "p_value": e.p})
    return pd.DataFrame(rows, columns=EFFECT_CHANGE_COLUMNS)


EFFECT_CHANGE_COLUMNS = ["baseline", "setting", "baseline_label", "label", "players", "policy",
                         "bandit", "baseline_effect", "effect", "change", "se", "lo", "hi",
                         "p_value"]
CHANGE_COLUMNS = ["baseline", "setting", "baseline_label", "label", "players", "policy",
                  "baseline_strongest", "baseline_weakest", "baseline_spread", "strongest",
                  "weakest", "spread", "change", "se", "lo", "hi", "p_value"]
_EFFECT_VALUES = ("bandit", "estimate", "se", "lo", "hi", "p_value", "n", "p_adjusted",
                  "significant")


# --- helpers -----------------------------------------------------------------------------------
def _outcome(p: pd.DataFrame, outcome: str) -> np.ndarray:
    if outcome not in p:
        raise ValueError(f"unknown outcome {outcome!r}; allowed: win, score, loot, shots, ..."
                         f"{did_you_mean(outcome, p.columns)}")
    return p[outcome].to_numpy(np.float64)

