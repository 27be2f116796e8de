"""Rule and policy comparison on the same seeds.

The runner seeds game ``i`` of every setting from (master seed, ``i``), so game ``i`` of two
settings starts from the same deal (line-up, cars, deck, First Player) and the settings are
compared pair by pair: the difference is averaged over pairs and its standard error comes from
the spread of the paired differences, which removes the deal-to-deal noise the two settings
share.

- :func:`compare_settings`: one setting against another: every game metric, each bandit's win
  rate (paired by game and bandit), each seat's win rate (paired by game and seat from the
  First Player), and each
  bandit's actions per game (:data:`PLAY_COLUMNS`: did the players react?).
- :func:`compare`: every pair (by default the design's: each condition against the first one at
  the same player count and policy, coltsim.analysis.design), one table, one family for the
  correction.
- :func:`play_changes`: per pair, how many games were played differently at all, so that a
  rule that only rescores the same games is reported as such.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..words import did_you_mean, seat_label
from .design import design_of
from .frames import BANDITS, as_results, column_codes, setting_mask, setting_order, win_share
from ._common import with_adjustment
from .metrics import GAME_METRICS, game_metrics
from .stats import LEVEL, Estimate, wilson_interval

COLUMNS = ["baseline", "setting", "baseline_label", "label", "players", "policy", "condition",
           "quantity", "group", "description", "n_pairs", "baseline_mean", "mean", "difference",
           "lo", "hi", "p_value"]
# A bandit's actions in a game, as far as the players table counts them (name -> words): the
# bullets it fired, the action cards it played by kind, the turns it drew cards instead.  Only
# "shots" is recorded today; the others are used as soon as the runner writes them.
PLAY_COLUMNS = {"shots": "shots fired", "moves": "Move cards played",
                "floor_changes": "Change Floor cards played", "robberies": "Robbery cards played",
                "punches": "Punch cards played", "marshal_moves": "Marshal cards played",
                "draws": "turns spent drawing"}
# What a game's course leaves in the players table besides its score: the same values for
# every bandit of a paired game mean the players played it the same way.
COURSE_COLUMNS = ("bandit", "purse", "jewel", "strongbox", "ransom", "bullets_received",
                  "neutral_received")


def play_columns(players: pd.DataFrame) -> list[str]:
    """The action counts the players table has (:data:`PLAY_COLUMNS`)."""
    return [c for c in PLAY_COLUMNS if c in players]


def compare_settings(results, baseline: str, other: str, level: float = LEVEL,
                     metrics: pd.DataFrame | None = None) -> pd.DataFrame:
    """``other`` minus ``baseline`` on games with the same index, unadjusted p-values
    (``metrics``: :func:`~coltsim.analysis.metrics.game_metrics` of the results, if already
    computed).

    Returns
    -------
    DataFrame
        One row per quantity: ``baseline, setting, baseline_label, label, players, policy,
        condition`` (of ``other``), ``quantity`` (a game
        metric, ``win:BANDIT``, ``ACTION:BANDIT`` for each of :func:`play_columns` or
        ``win:First Player``, ``win:First Player +N``: a seat from the First Player of
        round 1), ``group`` (game/bandit/play/seat), ``description, n_pairs,
        baseline_mean, mean, difference, lo, hi, p_value``.
    """
    f = as_results(results)
    known = set(setting_order(f))
    for s in (baseline, other):
        if s not in known:
            raise ValueError(f"unknown setting {s!r}; allowed: {', '.join(sorted(known))}"
                             f"{did_you_mean(s, sorted(known))}")
    design = design_of(f).settings.set_index("setting")
    rows = []

    gm = game_metrics(f) if metrics is None else metrics
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
                       "seat": p["seat"].to_numpy(np.int64),
                       "order": p["order"].to_numpy(np.int64), "share": win_share(p)})
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
    actions = play_columns(p)
    if actions:
        cols = ["game", "bandit"] + actions
        acts = pd.DataFrame({"game": df["game"], "bandit": df["bandit"],
                             **{c: p[c].to_numpy(np.float64) for c in actions}})
        ma = acts[setting_mask(p, baseline)].merge(acts[setting_mask(p, other)][cols],
                                                   on=["game", "bandit"], suffixes=("_a", "_b"))
        code = ma["bandit"].to_numpy()
        for c in actions:
            for i, bandit_name in enumerate(BANDITS):
                hit = code == i
                if hit.any():
                    rows.append(_row(ma[f"{c}_a"].to_numpy()[hit], ma[f"{c}_b"].to_numpy()[hit],
                                     level, quantity=f"{c}:{bandit_name}", group="play",
                                     description=f"{bandit_name.title()}'s {PLAY_COLUMNS[c]} "
                                                 "per game"))
    # Seats, counted from the First Player of round 1 (the same deal has the same First
    # Player): one row per team (the two bandits of a 2-player team share one result).
    a = a.drop_duplicates(["game", "seat"])
    b = b.drop_duplicates(["game", "seat"])
    ms = a.merge(b, on=["game", "order"], suffixes=("_a", "_b"))
    order_col = ms["order"].to_numpy()
    for order in np.unique(order_col):
        hit = order_col == order
        rows.append(_row(ms["share_a"].to_numpy()[hit], ms["share_b"].to_numpy()[hit], level,
                         quantity=f"win:{seat_label(order)}", group="seat",
                         description=f"win rate of the {seat_label(order)}"
                         if order == 0 else f"win rate of {seat_label(order)}"))
    table = pd.DataFrame(rows)
    table.insert(0, "baseline", baseline)
    table.insert(1, "setting", other)
    table.insert(2, "baseline_label", design.loc[baseline, "label"])
    table.insert(3, "label", design.loc[other, "label"])
    table.insert(4, "players", int(design.loc[other, "players"]))
    table.insert(5, "policy", design.loc[other, "policy"])
    table.insert(6, "condition", design.loc[other, "condition_label"])
    return table[COLUMNS]


def compare(results, pairs=None, level: float = LEVEL, correction: str = "holm") -> pd.DataFrame:
    """:func:`compare_settings` for every pair (default ``Design.pairs``), adjusted as one
    family; an empty table (with the columns) if there is nothing to compare."""
    f = as_results(results)
    pairs = design_of(f).pairs() if pairs is None else list(pairs)
    metrics = game_metrics(f) if pairs else None
    tables = [compare_settings(f, a, b, level, metrics) for a, b in pairs]
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


PLAY_CHANGE_COLUMNS = ["baseline", "setting", "baseline_label", "label", "players", "policy",
                       "games", "changed", "changed_rate", "changed_lo", "changed_hi", "rescored",
                       "compared"]


def play_changes(results, pairs=None, level: float = LEVEL) -> pd.DataFrame:
    """Did the players react?  Per pair, the games played differently on the same deal.

    A game counts as played differently when any bandit's action counts
    (:func:`play_columns`), loot by kind, bullets received or character differ between the two
    settings; a game played the same way whose scores differ was only *rescored* (e.g. the same
    shots, paid another Gunslinger bonus).

    Returns
    -------
    DataFrame
        One row per pair: ``baseline, setting, baseline_label, label, players, policy,
        games`` (deals played in both), ``changed`` (games played differently), ``changed_rate, changed_lo,
        changed_hi`` (Wilson), ``rescored`` (games played the same way with other scores),
        ``compared`` (the columns compared, comma-separated).
    """
    f = as_results(results)
    pairs = design_of(f).pairs() if pairs is None else list(pairs)
    design = design_of(f).settings.set_index("setting")
    p = f.players
    course = list(COURSE_COLUMNS) + play_columns(p)
    frame = pd.DataFrame({"game": p["game"].to_numpy(np.int64),
                          "index": p["bandit_index"].to_numpy(np.int64),
                          "bandit": column_codes(p["bandit"], BANDITS)[0],
                          "score": p["team_score"].to_numpy(np.int64),
                          **{c: p[c].to_numpy(np.int64) for c in course if c != "bandit"}})
    rows = []
    for base, other in pairs:
        m = frame[setting_mask(p, base)].merge(frame[setting_mask(p, other)],
                                               on=["game", "index"], suffixes=("_a", "_b"))
        game = m["game"].to_numpy()
        differs = np.zeros(len(m), bool)
        for c in course:
            differs |= m[f"{c}_a"].to_numpy() != m[f"{c}_b"].to_numpy()
        rescores = m["score_a"].to_numpy() != m["score_b"].to_numpy()
        games, at = np.unique(game, return_inverse=True)
        changed = np.bincount(at, weights=differs, minlength=len(games)) > 0
        rescored = (np.bincount(at, weights=rescores, minlength=len(games)) > 0) & ~changed
        lo, hi = wilson_interval(changed.sum(), len(games), level)
        rows.append({"baseline": base, "setting": other,
                     "baseline_label": design.loc[base, "label"],
                     "label": design.loc[other, "label"],
                     "players": int(design.loc[other, "players"]),
                     "policy": design.loc[other, "policy"], "games": len(games), "changed": int(changed.sum()),
                     "changed_rate": changed.mean() if len(games) else np.nan,
                     "changed_lo": lo, "changed_hi": hi, "rescored": int(rescored.sum()),
                     "compared": ",".join(course)})
    return pd.DataFrame(rows, columns=PLAY_CHANGE_COLUMNS)
