"""Game quality: is a game tense, is it decided early, can a player come back, and how often does
a plan fall apart (a card that does nothing when it resolves, Colt Express's signature)?

Designers judge a game by more than balance; Ludii computes such metrics for abstract games
(``Evaluation/src/metrics/single/``: lead changes, decisiveness, drama).  Here each metric is one
small function of recorded games, arrays with one row per game:

- :func:`lead_changes`: how often the lead changed hands, from round to round and at the final
  count.  The leaders of a stage are the seats with the highest score (as a set: a tie at the
  top is a state of its own, as in Ludii's ``LeadChange``).
- :func:`decided_round`: the round after which the final winners led for good: the first
  round ``r`` such that they were the leaders after every round from ``r`` on; ``rounds + 1``
  when only the final count (the Gunslinger bonus, the tie-break) made them the winners.
- :func:`comeback`: the share of the victory won by seats that were last (or tied for last)
  after the penultimate round.
- :func:`margin`: dollars between the first and the second final score.
- :func:`fizzled`: of the action cards resolved, those that did nothing (the engine's record: a
  Fire without a bullet or a target, a Robbery with nothing to take, a Punch with nobody to
  punch; a Move, a Floor Change and a Marshal card always do something).

The stages are the scores after each round, as the rules count them then (loot carried; the
Gunslinger bonus only at the end: the players table's ``score_after_1`` .. ``score_after_R``),
then the final count (``team_score``, ranks with the tie-break).  In the 2-player game a seat is
a team, its score the sum of its two bandits'.

:func:`game_quality` gives every metric per game; :func:`quality` per setting (and per table of
different policies, over its rotations) with 95% intervals; :func:`quality_changes` per
comparison, paired on the same deals; :func:`difference` between two independent sets of games
(coltsim.analysis.round_cards: the games with a card and those without it).
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .design import design_of
from .frames import as_results, column_codes, game_key, team_rows
from .stats import (
    LEVEL, Estimate, mean_interval, paired_difference, paired_ratio_difference, ratio_estimate,
    sample_sd, wilson_interval,
)

SCORE_AFTER = re.compile(r"^score_after_(\d+)$")
# The action cards a players table counts as resolved (each bandit's), and those that did nothing.
RESOLVED = ("moves", "floor_changes", "robberies", "punches", "marshal_moves", "fires")
# name -> (words, kind): "mean" per game, "share" of the victory per game, "ratio" of the cards
# resolved (the module docstring says what each counts).
METRICS = {
    "lead_changes": ("lead changes per game", "mean"),
    "decided_round": ("deciding round", "mean"),
    "comeback": ("comebacks", "share"),
    "margin": ("margin", "mean"),
    "fizzled": ("cards that did nothing", "ratio"),
}
COLUMNS = ["setting", "label", "players", "policy", "condition", "value", "games"] + [
    f"{m}{suffix}" for m in METRICS for suffix in ("", "_lo", "_hi")]
CHANGE_COLUMNS = ["baseline", "setting", "baseline_label", "label", "players", "policy",
                  "condition", "quantity", "description", "n_pairs", "baseline_mean", "mean",
                  "difference", "lo", "hi", "p_value"]


# --- one function per metric (arrays: games x stages x seats) -----------------------------------
def leaders(scores: np.ndarray, winners: np.ndarray) -> np.ndarray:
    """The leading seats of every stage as a bit mask (bit ``s``: seat ``s`` leads): the
    highest scores after each round (``scores``: games x rounds x seats), then the final
    winners (``winners``: games x seats, bool).  Shape: games x (rounds + 1)."""
    top = scores == scores.max(axis=2, keepdims=True)
    stages = np.concatenate([top, winners[:, None, :]], axis=1)
    bits = np.int64(1) << np.arange(stages.shape[2], dtype=np.int64)
    return (stages * bits).sum(axis=2)


def lead_changes(lead: np.ndarray) -> np.ndarray:
    """Times the leaders changed from one stage to the next (``lead``: :func:`leaders`)."""
    return (lead[:, 1:] != lead[:, :-1]).sum(axis=1)


def decided_round(lead: np.ndarray) -> np.ndarray:
    """The first round after which the final winners (the last stage) led at every stage: 1 if
    they led from the first round, ``rounds + 1`` if only the final count made them lead."""
    other = lead[:, :-1] != lead[:, -1:]
    rounds = other.shape[1]
    last_other = np.where(other.any(axis=1), rounds - 1 - np.argmax(other[:, ::-1], axis=1), -1)
    return last_other + 2


def comeback(before_last: np.ndarray, share: np.ndarray) -> np.ndarray:
    """The share of the victory won by seats last (or tied for last) after the penultimate
    round (``before_last``: games x seats scores; ``share``: games x seats win shares)."""
    last = before_last == before_last.min(axis=1, keepdims=True)
    return (share * last).sum(axis=1)


def margin(final: np.ndarray) -> np.ndarray:
    """The first final score minus the second (``final``: games x seats)."""
    ordered = np.sort(final, axis=1)
    return ordered[:, -1] - ordered[:, -2]


def fizzled(did_nothing: np.ndarray, resolved: np.ndarray, level: float = LEVEL) -> Estimate:
    """The share of the resolved action cards that did nothing (``did_nothing``, ``resolved``:
    counts per game), with its interval clustered by game."""
    return ratio_estimate(did_nothing, resolved, level)


# --- per game ------------------------------------------------------------------------------------
def score_columns(players: pd.DataFrame) -> list[str]:
    """``score_after_1 .. score_after_R`` in order (the most rounds of any setting)."""
    cols = [c for c in players.columns if SCORE_AFTER.match(c)]
    return sorted(cols, key=lambda c: int(SCORE_AFTER.match(c).group(1)))


def game_quality(results) -> pd.DataFrame:
    """One row per game: ``setting, game, lead_changes, decided_round, comeback, margin`` and
    the counts ``fizzled`` and ``resolved`` (its bandits' action cards that did nothing, and
    resolved).  A metric the players table cannot give is NaN: the round-by-round scores for
    the first three (and ``comeback`` in a game of one round), the fizzled cards for the last
    two."""
    f = as_results(results)
    p = f.players
    codes, names = column_codes(p["setting"])
    frames = []
    for i, name in enumerate(names):
        rows = codes == i
        if rows.any():
            frames.append(_one_setting(p[rows]).assign(setting=name))
    out = pd.concat(frames, ignore_index=True)
    out["setting"] = pd.Categorical(out["setting"], categories=names)
    return out[["setting", "game", *METRICS, "resolved"]]


def _one_setting(p: pd.DataFrame) -> pd.DataFrame:
    """:func:`game_quality` of one setting's rows (every game seats the same players)."""
    games, first, g = np.unique(game_key(p), return_index=True, return_inverse=True)
    seat = p["seat"].to_numpy(np.int64)
    seats = int(p["players"].iloc[0])
    cell = g * seats + seat
    n = len(games) * seats
    team = team_rows(p)

    def per_seat(values, rows=None):  # games x seats
        rows = np.ones(len(p), bool) if rows is None else rows
        return np.bincount(cell[rows], weights=np.asarray(values, np.float64)[rows],
                           minlength=n).reshape(-1, seats)

    winners = per_seat(p["rank"].to_numpy() == 1, team) > 0
    share = per_seat(p["win_share"], team)
    final = per_seat(p["team_score"], team)
    out = {"game": p["game"].to_numpy(np.int64)[first], "margin": margin(final)}
    cols = [c for c in score_columns(p) if p[c].notna().all()]
    nan = np.full(len(games), np.nan)
    if cols:
        scores = np.stack([per_seat(p[c]) for c in cols], axis=1)
        lead = leaders(scores, winners)
        out.update(lead_changes=lead_changes(lead), decided_round=decided_round(lead),
                   comeback=comeback(scores[:, -2], share) if len(cols) >= 2 else nan)
    else:
        out.update(lead_changes=nan, decided_round=nan, comeback=nan)
    if "fizzled" in p and all(c in p for c in RESOLVED):
        out["fizzled"] = per_seat(p["fizzled"]).sum(axis=1)
        out["resolved"] = per_seat(sum(p[c].to_numpy(np.float64) for c in RESOLVED)).sum(axis=1)
    else:
        out["fizzled"] = out["resolved"] = nan
    return pd.DataFrame(out)


# --- per setting ---------------------------------------------------------------------------------
def quality(results, level: float = LEVEL, games: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every metric per setting (a table of different policies over its rotations), with 95%
    intervals: normal intervals for the means per game, a Wilson interval for ``comeback`` (a
    share of the victory per game: shared victories counted in part), and for ``fizzled`` a
    share of the cards clustered by game.  ``games``: :func:`game_quality` of the results, if
    already computed.

    Returns
    -------
    DataFrame
        One row per setting: :data:`COLUMNS` (``value``: the sweep axis' value, NaN without an
        axis, coltsim.analysis.design; ``<metric>``, ``<metric>_lo``, ``<metric>_hi``: NaN where
        the players table cannot give the metric).
    """
    f = as_results(results)
    gq = game_quality(f) if games is None else games
    design = design_of(f)
    rows = []
    for unit, settings in _units(design).items():
        t = gq[np.isin(gq["setting"].astype(str), settings)]
        r = design.row(unit)
        row = {"setting": unit, "label": r["label"], "players": int(r["players"]),
               "policy": r["policy"], "condition": r["condition_label"], "value": r["value"],
               "games": len(t)}
        for metric, (_, kind) in METRICS.items():
            row.update(zip((metric, f"{metric}_lo", f"{metric}_hi"), _interval(t, metric, kind,
                                                                                level)))
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def _units(design) -> dict:
    """Setting (or a table's first rotation) -> the settings it covers, in experiment order."""
    tables = design.tables()
    out = {s: [s] for s in design.uniform}
    out.update(tables)
    order = {s: i for i, s in enumerate(design.settings["setting"])}
    return dict(sorted(out.items(), key=lambda kv: order[kv[0]]))


def _interval(t: pd.DataFrame, metric: str, kind: str, level: float) -> tuple:
    """A metric's value and interval, the interval kept within what the metric can be (every
    metric is a count, a round, dollars or a share: never below 0; a share at most 1)."""
    if kind == "ratio":
        e = fizzled(t["fizzled"], t["resolved"], level) if t["resolved"].notna().all() \
            else None
        return (e.estimate, max(e.lo, 0.0), min(e.hi, 1.0)) if e is not None else (np.nan,) * 3
    x = t[metric].to_numpy(np.float64)
    if not len(x) or np.isnan(x).any():
        return (np.nan,) * 3
    if kind == "share":
        lo, hi = wilson_interval(x.sum(), len(x), level)
        return x.mean(), float(lo), float(hi)
    lo, hi = mean_interval(x.mean(), sample_sd(x), len(x), level)
    return x.mean(), max(float(lo), 0.0), float(hi)


# --- two sets of games ---------------------------------------------------------------------------
def value(games: pd.DataFrame, metric: str) -> float:
    """A metric over some games (rows of :func:`game_quality`): the mean per game; for
    ``fizzled`` the share of all their cards resolved."""
    if METRICS[metric][1] == "ratio":
        return float(games["fizzled"].sum() / games["resolved"].sum())
    return float(games[metric].mean())


def difference(a: pd.DataFrame, b: pd.DataFrame, metric: str, level: float = LEVEL) -> Estimate:
    """A metric of the games ``a`` minus the same metric of the independent games ``b`` (rows of
    :func:`game_quality`, e.g. the games with a round card and those without it): Welch's
    difference of the means per game (a share of the victory per game too), and for
    ``fizzled`` the difference of the two shares of cards, each clustered by game.  ``n``: the
    games of the smaller side."""
    n = min(len(a), len(b))
    if METRICS[metric][1] == "ratio":
        ea, eb = (fizzled(t["fizzled"], t["resolved"], level) for t in (a, b))
        return Estimate.from_se(ea.estimate - eb.estimate, float(np.hypot(ea.se, eb.se)), n,
                                level)
    x, y = (t[metric].to_numpy(np.float64) for t in (a, b))
    se = np.hypot(sample_sd(x) / np.sqrt(x.size), sample_sd(y) / np.sqrt(y.size))
    return Estimate.from_se(x.mean() - y.mean(), float(se), n, level)


# --- comparisons ---------------------------------------------------------------------------------
def quality_changes(results, pairs=None, level: float = LEVEL,
                    games: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every metric of each compared setting minus its baseline's, paired on the same deals
    (game ``i`` of both): the mean per-game difference with its paired interval, and for
    ``fizzled`` the difference of the two shares with the delta method's paired interval.

    Returns
    -------
    DataFrame
        One row per pair and metric: :data:`CHANGE_COLUMNS` (``quantity`` a metric of
        :data:`METRICS`), unadjusted p-values; no row for a metric the results cannot give.
    """
    f = as_results(results)
    design = design_of(f)
    pairs = design.pairs() if pairs is None else list(pairs)
    gq = game_quality(f) if games is None else games
    info = design.settings.set_index("setting")
    rows = []
    for base, other in pairs:
        a = gq[gq["setting"].astype(str) == base]
        b = gq[gq["setting"].astype(str) == other]
        m = a.merge(b, on="game", suffixes=("_a", "_b"))
        for metric, (words, kind) in METRICS.items():
            ya, yb = m[f"{metric}_a"].to_numpy(np.float64), m[f"{metric}_b"].to_numpy(np.float64)
            if not len(m) or np.isnan(ya).any() or np.isnan(yb).any():
                continue
            if kind == "ratio":
                e = paired_ratio_difference(ya, m["resolved_a"], yb, m["resolved_b"], level)
                before, after = ya.sum() / m["resolved_a"].sum(), yb.sum() / m["resolved_b"].sum()
            else:
                e = paired_difference(yb, ya, level)
                before, after = ya.mean(), yb.mean()
            rows.append({"baseline": base, "setting": other,
                         "baseline_label": info.loc[base, "label"],
                         "label": info.loc[other, "label"],
                         "players": int(info.loc[other, "players"]),
                         "policy": info.loc[other, "policy"],
                         "condition": info.loc[other, "condition_label"], "quantity": metric,
                         "description": words, "n_pairs": e.n, "baseline_mean": before,
                         "mean": after, "difference": e.estimate, "lo": e.lo, "hi": e.hi,
                         "p_value": e.p})
    return pd.DataFrame(rows, columns=CHANGE_COLUMNS)


__all__ = ["METRICS", "comeback", "decided_round", "difference", "fizzled", "game_quality",
           "lead_changes", "leaders", "margin", "quality", "quality_changes", "value"]
