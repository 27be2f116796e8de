"""The answer to an experiment's question, one row per setting and one per comparison.

An experiment compares conditions (coltsim.analysis.design) at each player count and policy;
its headline answers exactly that, never pooled over what is compared:

- one ``setting`` row per uniform setting (condition x player count x policy): the strongest and
  weakest bandit and the spread between them with its interval; the share of games the
  Gunslinger bonus decides; the First Player's edge; the round card that moves scores most;
- one ``comparison`` row per pair (a condition against the baseline at the same player count and
  policy, on the same deals): the spread before and after and its change with a paired interval,
  the change in mean score and in the Gunslinger's decisiveness, the bandit whose win rate moves
  most, and whether the players reacted at all (share of games played differently);
- with the ``quality`` analysis, the game-quality metrics (coltsim.analysis.quality: lead
  changes, decided round, comebacks, margin, cards that did nothing) of every setting row, and
  their paired changes on every comparison row (the same columns);
- one ``policy`` row per policy at each mixed table: its share of the victories per seat.

With a ``focus`` (the bandits an experiment's question is about), every setting row gives the
focus bandit's effect on the win rate (``focus_effect``, ``focus_lo``, ``focus_hi``: its win
rate minus the average bandit's) and every comparison row how the comparison moves that effect
(paired, on the same deals); with several focus bandits, the setting and comparison rows are
given once per focus bandit (``focus`` names it), the other columns repeated.

With a ladder of policies (the experiment's ``ladder``, weakest first), each conclusion is
judged on its own for the two strongest policies (:data:`CONCLUSIONS`; the columns
``strongest_robust``, ``weakest_robust``, ``spread_robust``):

- the strongest and the weakest bandit (of a setting; of a comparison, after it), each counted
  only where its effect is significant: robust when it is the same bandit under both policies;
- a setting's spread: robust when the stronger policy's spread minus the weaker's, paired on
  the same deals (``ladder_spreads``), has a 95% interval holding 0;
- a comparison's spread: its direction (the sign of the spread's change where significant,
  else "no change"), robust when the same under both.

A conclusion with nothing significant under either policy is neither: "not significant for
either".

:func:`headline` computes it from results; :func:`answers` combines tables already computed
(a report adjusts their p-values as one family first).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import balance, compare, gunslinger, quality, round_cards, seats
from .design import Design, design_of
from .frames import Results, as_results
from .stats import LEVEL
from .shares import policy_shares

ROBUST = "robust"
DEPENDS = "depends on play strength"
INCONCLUSIVE = "not significant for either"
CONCLUSIONS = ("strongest", "weakest", "spread")  # judged one by one against a ladder
ROBUST_COLUMNS = [f"{c}_robust" for c in CONCLUSIONS]

COLUMNS = [
    "kind", "setting", "baseline", "condition", "baseline_condition", "players", "policy",
    "value", "games",
    "focus", "focus_effect", "focus_lo", "focus_hi",
    "strongest", "strongest_effect", "weakest", "weakest_effect", "spread", "spread_lo",
    "spread_hi",
    "baseline_strongest", "baseline_weakest", "baseline_spread", "spread_change",
    "spread_change_lo", "spread_change_hi", "spread_change_significant",
    "mean_score_change", "mean_score_change_lo", "mean_score_change_hi",
    "bandit_change_bandit", "bandit_change", "bandit_change_lo", "bandit_change_hi",
    "played_differently", "played_differently_lo", "played_differently_hi", "rescored",
    "shots_change", "shots_change_lo", "shots_change_hi",
    "gunslinger_decided", "gunslinger_decided_lo", "gunslinger_decided_hi",
    "first_player_edge", "first_player_edge_lo", "first_player_edge_hi",
    "top_card", "top_card_effect", "top_card_lo", "top_card_hi",
    *(f"{m}{suffix}" for m in quality.METRICS for suffix in ("", "_lo", "_hi")),
    "win_share", "win_share_lo", "win_share_hi", "fair_share",
    *ROBUST_COLUMNS,
]


def headline(results, analyses=("balance", "compare"), ladder=(), level: float = LEVEL,
             correction: str = "holm", focus=()) -> pd.DataFrame:
    """The headline table of ``results`` for the given analyses (each table adjusted on its
    own; a report adjusts every test it prints as one family), with the ``focus`` bandits'
    effects.  Columns: :data:`COLUMNS`."""
    f = as_results(results)
    design = design_of(f, ladder)
    return answers(compute(f, design, analyses, level, correction, focus), design, focus)


def compute(f, design: Design, analyses, level: float = LEVEL,
            correction: str = "holm", focus=()) -> dict:
    """The tables :func:`answers` reads, for the given analyses and focus bandits (``games``:
    games per setting, always)."""
    tables = {"games": games_per_setting(f)}
    pairs = design.pairs()
    if design.uniform and ("balance" in analyses or "compare" in analyses or focus):
        effects = balance.bandit_effects(f, "win", level, correction)
        tables["effects"] = effects.table
        tables["spreads"] = balance.spreads(effects)
        tables["spread_changes"] = balance.spread_changes(effects, pairs)
        if focus:
            tables["focus_changes"] = balance.effect_changes(effects, pairs, focus)
        tables["ladder_spreads"] = balance.spread_changes(effects, design.ladder_pairs())
    if "compare" in analyses and pairs:
        tables["compare"] = compare.compare(f, pairs, level, correction)
        tables["play"] = compare.play_changes(f, pairs, level)
    if "gunslinger" in analyses:
        tables["gunslinger"] = gunslinger.gunslinger_summary(f, level)
    if "seats" in analyses:
        tables["first_player"] = seats.first_player_advantage(f, level, correction)
    if "round_cards" in analyses:
        tables["cards"] = round_cards.card_effects(f, ["mean_score"], level, correction)
    if "policies" in analyses and design.tables():
        tables["policies"] = table_shares(f, design, level)
    if "quality" in analyses:
        games = quality.game_quality(f)
        tables["quality"] = quality.quality(f, level, games)
        tables["quality_changes"] = quality.quality_changes(f, pairs, level, games)
    return tables


# --- precision ----------------------------------------------------------------------------------
PRECISION_ANALYSES = ("balance", "policies")  # the tables whose intervals a precision target is on
WIDTH_COLUMNS = ["interval", "setting", "label", "players", "policy", "estimate", "lo", "hi",
                 "half_width"]


def precision(results, ladder=(), level: float = LEVEL) -> pd.DataFrame:
    """Every win-rate interval of the headline, with its half-width (:func:`interval_widths`):
    what a run asked for a precision (``precision = 0.01`` in an experiment) must bring to the
    target.  Columns :data:`WIDTH_COLUMNS`, the widest interval first."""
    f = as_results(results)
    design = design_of(f, ladder)
    return interval_widths(compute(f, design, PRECISION_ANALYSES, level), design)


def interval_widths(tables: dict, design: Design) -> pd.DataFrame:
    """The headline's win-rate intervals in the tables of :func:`compute`, the widest first.

    - each bandit's effect (its win rate against the average bandit) in every setting, and at
      a table of different policies within each policy's seats (``effects``);
    - the spread between the strongest and the weakest bandit of every setting (``spreads``);
    - each comparison's change of that spread, on the same deals (``spread_changes``);
    - each policy's share of the victories at a table of different policies (``policies``).

    Differences in dollars, shots or shares of games (the Gunslinger's decisions, games played
    differently) are in other units and are not included.  ``half_width`` is half the
    interval's length, ``(hi - lo) / 2``: a win-rate fraction (0.01 is one percentage point).
    """
    labels = dict(zip(design.settings["setting"], design.settings["label"]))
    conditions = dict(zip(design.settings["setting"], design.settings["condition_label"]))

    def against(t):  # "Gunslinger bonus $0 against printed rules, 4 players"
        return [labels[s].replace(conditions[s], f"{conditions[s]} against {conditions[b]}", 1)
                if conditions[s] in labels[s] else f"{labels[s]} against {labels[b]}"
                for s, b in zip(t["setting"].astype(str), t["baseline"].astype(str))]

    frames = []

    def add(table, interval, estimate="estimate", lo="lo", hi="hi", label=None):
        if table is None or not len(table):
            return
        frames.append(pd.DataFrame({
            "interval": interval(table) if callable(interval) else interval,
            "setting": table["setting"].astype(str).to_numpy(),
            "label": np.asarray(label(table) if label else table["setting"].astype(str).map(
                lambda s: labels.get(s, s))),
            "players": table["players"].astype(int).to_numpy(),
            "policy": table["policy"].astype(str).to_numpy(),
            "estimate": table[estimate].to_numpy(np.float64),
            "lo": table[lo].to_numpy(np.float64), "hi": table[hi].to_numpy(np.float64)}))

    add(tables.get("effects"), lambda t: t["bandit"].map(lambda b: f"{b.title()}'s effect"),
        label=lambda t: t["label"])
    add(tables.get("spreads"), "spread", estimate="spread", label=lambda t: t["label"])
    add(tables.get("spread_changes"), "change of the spread", estimate="change",
        label=against)
    add(tables.get("policies"), lambda t: t["policy"].map(lambda p: f"{p}'s share of the "
                                                                     "victories"),
        estimate="win_rate", lo="ci_low", hi="ci_high", label=lambda t: t["label"])
    if not frames:
        return pd.DataFrame(columns=WIDTH_COLUMNS)
    out = pd.concat(frames, ignore_index=True)
    out["half_width"] = (out["hi"] - out["lo"]) / 2
    return out.sort_values("half_width", ascending=False, kind="stable").reset_index(drop=True)


def games_per_setting(f: Results) -> pd.Series:
    """Games played in each setting (setting id -> count)."""
    return f.games["setting"].astype(str).value_counts()


def table_shares(f, design: Design, level: float = LEVEL) -> pd.DataFrame:
    """Every mixed table's :func:`~coltsim.analysis.shares.policy_shares`, over its seat
    rotations: ``setting`` (the table), ``label, players, condition``, then its columns."""
    frames = []
    for table, rotations in design.tables().items():
        shares = policy_shares(subset(f, rotations), level)
        row = design.row(table)
        shares.insert(0, "setting", table)
        shares.insert(1, "label", row["label"])
        shares.insert(2, "players", row["players"])
        shares.insert(3, "condition", row["condition_label"])
        frames.append(shares)
    return pd.concat(frames, ignore_index=True)


def subset(f: Results, settings) -> Results:
    """The results of some settings only."""
    def keep(df):
        return df[np.isin(df["setting"].astype(str), list(settings))]

    return Results(keep(f.players), keep(f.games), keep(f.settings), f.manifest)


def answers(tables: dict, design: Design, focus=()) -> pd.DataFrame:
    """One row per setting and player count, one per comparison (each once per ``focus``
    bandit), one per policy at a mixed table (columns :data:`COLUMNS`), from the tables of
    :func:`compute` (with their ``significant`` columns as the caller adjusted them)."""
    rows = [_setting_row(r, tables) for r in design.settings.itertuples() if not r.mixed]
    rows += [_comparison_row(base, other, design, tables) for base, other in design.pairs()]
    if focus:
        rows = [_focus_columns(row, bandit, tables) for row in rows for bandit in focus]
    if "policies" in tables:
        for r in tables["policies"].itertuples():
            rows.append({"kind": "policy", "setting": r.setting, "condition": r.condition,
                         "players": r.players, "policy": r.policy, "games": r.games,
                         "win_share": r.win_rate, "win_share_lo": r.ci_low,
                         "win_share_hi": r.ci_high, "fair_share": r.fair_share})
    table = pd.DataFrame(rows, columns=COLUMNS)
    table[ROBUST_COLUMNS] = robustness(table, design, tables.get("effects"),
                                       tables.get("ladder_spreads"))
    return table


def _setting_row(r, tables: dict) -> dict:
    row = {"kind": "setting", "setting": r.setting, "condition": r.condition_label,
           "players": r.players, "policy": r.policy, "value": r.value}
    spread = _one(tables.get("spreads"), setting=r.setting)
    if spread is not None:
        row.update(strongest=spread["strongest"], strongest_effect=spread["strongest_effect"],
                   weakest=spread["weakest"], weakest_effect=spread["weakest_effect"],
                   spread=spread["spread"], spread_lo=spread["lo"], spread_hi=spread["hi"])
    if "games" in tables:
        row["games"] = int(tables["games"].get(r.setting, 0))
    g = _one(tables.get("gunslinger"), setting=r.setting)
    if g is not None and g["awarded_rate"] > 0:
        row.update(gunslinger_decided=g["changed_rate"],
                   gunslinger_decided_lo=g["changed_lo"], gunslinger_decided_hi=g["changed_hi"])
    fp = _one(tables.get("first_player"), setting=r.setting)
    if fp is not None:
        row.update(first_player_edge=fp["vs_fair"], first_player_edge_lo=fp["lo"] - fp["fair_share"],
                   first_player_edge_hi=fp["hi"] - fp["fair_share"])
    q = _one(tables.get("quality"), setting=r.setting)
    if q is not None:
        row.update({c: q[c] for m in quality.METRICS for c in (m, f"{m}_lo", f"{m}_hi")})
    cards = tables.get("cards")
    if cards is not None:
        # Only a card whose effect has an interval can be the answer (not one seen in 1 game).
        c = cards[(cards["setting"] == r.setting) & (cards["metric"] == "mean_score")
                  & np.isfinite(cards["lo"].astype(np.float64))
                  & np.isfinite(cards["hi"].astype(np.float64))]
        if len(c):
            top = c.loc[c["effect"].abs().idxmax()]
            row.update(top_card=top["card"], top_card_effect=top["effect"],
                       top_card_lo=top["lo"], top_card_hi=top["hi"])
    return row


def _comparison_row(base: str, other: str, design: Design, tables: dict) -> dict:
    b, o = design.row(base), design.row(other)
    row = {"kind": "comparison", "setting": other, "baseline": base,
           "condition": o["condition_label"], "baseline_condition": b["condition_label"],
           "players": o["players"], "policy": o["policy"], "value": o["value"]}
    if "games" in tables:  # deals played under both
        row["games"] = int(min(tables["games"].get(base, 0), tables["games"].get(other, 0)))
    ch = _one(tables.get("spread_changes"), baseline=base, setting=other)
    if ch is not None:
        row.update(strongest=ch["strongest"], weakest=ch["weakest"], spread=ch["spread"],
                   baseline_strongest=ch["baseline_strongest"],
                   baseline_weakest=ch["baseline_weakest"],
                   baseline_spread=ch["baseline_spread"], spread_change=ch["change"],
                   spread_change_lo=ch["lo"], spread_change_hi=ch["hi"],
                   spread_change_significant=bool(ch.get("significant", ch["p_value"] < 0.05)))
    cmp = tables.get("compare")
    if cmp is not None:
        t = cmp[(cmp["baseline"] == base) & (cmp["setting"] == other)]
        for metric, name in (("mean_score", "mean_score_change"), ("shots", "shots_change"),
                             ("gunslinger_changed_winner", "gunslinger_decided")):
            m = t[t["quantity"] == metric]
            if len(m):
                m = m.iloc[0]
                row.update({name: m["difference"], f"{name}_lo": m["lo"], f"{name}_hi": m["hi"]})
        bandits = t[(t["group"] == "bandit") & t["significant"]]
        if len(bandits):
            top = bandits.loc[bandits["difference"].abs().idxmax()]
            row.update(bandit_change_bandit=top["quantity"].split(":", 1)[1],
                       bandit_change=top["difference"], bandit_change_lo=top["lo"],
                       bandit_change_hi=top["hi"])
    changes = tables.get("quality_changes")
    if changes is not None:
        for m in changes[(changes["baseline"] == base) & (changes["setting"] == other)] \
                .itertuples():
            row.update({m.quantity: m.difference, f"{m.quantity}_lo": m.lo,
                        f"{m.quantity}_hi": m.hi})
    play = _one(tables.get("play"), baseline=base, setting=other)
    if play is not None:
        row.update(played_differently=play["changed_rate"],
                   played_differently_lo=play["changed_lo"],
                   played_differently_hi=play["changed_hi"], rescored=int(play["rescored"]))
    return row


def _focus_columns(row: dict, bandit: str, tables: dict) -> dict:
    """``row`` with ``bandit``'s effect (a setting row) or the change of its effect (a
    comparison row)."""
    row = {**row, "focus": bandit}
    if row["kind"] == "setting":
        hit = _one(tables.get("effects"), setting=row["setting"], bandit=bandit)
        value = None if hit is None else (hit["estimate"], hit["lo"], hit["hi"])
    else:
        hit = _one(tables.get("focus_changes"), baseline=row["baseline"],
                   setting=row["setting"], bandit=bandit)
        value = None if hit is None else (hit["change"], hit["lo"], hit["hi"])
    if value is not None:
        row.update(focus_effect=value[0], focus_lo=value[1], focus_hi=value[2])
    return row


def _text(x) -> str:
    return x if isinstance(x, str) else ""


def _one(table: pd.DataFrame | None, **where):
    if table is None:
        return None
    mask = np.ones(len(table), bool)
    for col, value in where.items():
        mask &= (table[col].astype(str) == str(value)).to_numpy()
    return table[mask].iloc[0] if mask.any() else None


def conclusion(row: pd.Series, effects: pd.DataFrame | None) -> dict:
    """What a headline row concludes under its policy, conclusion by conclusion, in terms that
    can hold or not under another policy: the ``strongest`` and ``weakest`` bandit (of a
    comparison: after it; None where its effect is not significant) and, of a comparison, the
    ``spread``'s direction of change (+1, -1, or 0 when not significant; a setting's spread is
    judged on the pair of policies: :func:`spread_verdict`)."""
    def significant(bandit):
        if effects is None or not isinstance(bandit, str):
            return False
        hit = effects[(effects["setting"] == row["setting"]) & (effects["bandit"] == bandit)]
        return bool(len(hit)) and bool(hit["significant"].iloc[0])

    out = {c: row[c] if significant(row[c]) else None for c in ("strongest", "weakest")}
    if row["kind"] == "comparison":
        out["spread"] = int(np.sign(row["spread_change"])) \
            if row["spread_change_significant"] is True else 0
    return out


def verdict(weaker, stronger) -> str:
    """A conclusion's verdict from its value under the two strongest policies."""
    if weaker == stronger:
        return ROBUST if weaker else INCONCLUSIVE
    return DEPENDS


def spread_verdict(change: pd.Series | None) -> str:
    """A setting's spread: robust when the paired change between the two strongest policies
    (a row of ``ladder_spreads``) has an interval holding 0."""
    if change is None:
        return ""
    return ROBUST if change["lo"] <= 0 <= change["hi"] else DEPENDS


def robustness(table: pd.DataFrame, design: Design, effects: pd.DataFrame | None,
               ladder_spreads: pd.DataFrame | None = None) -> pd.DataFrame:
    """Columns :data:`ROBUST_COLUMNS`: each conclusion's verdict, ``robust`` / ``depends on
    play strength`` / ``not significant for either`` (nothing significant under both
    policies), for the setting and comparison rows of every condition and player count that
    the ladder's two strongest policies both played (all of its policies' rows get the
    verdicts); ``""`` elsewhere, and for every row without a ladder or without the balance
    columns."""
    out = pd.DataFrame("", index=table.index, columns=ROBUST_COLUMNS)
    top = design.strongest_two()
    if top is None or table["strongest"].isna().all():
        return out
    groups = {}
    for i, row in table.iterrows():
        if row["kind"] in ("setting", "comparison") and isinstance(row["strongest"], str):
            key = (row["kind"], row["condition"], _text(row["baseline_condition"]),
                   row["players"])
            rows, by_policy = groups.setdefault(key, ([], {}))
            rows.append(i)
            if row["policy"] in top:
                by_policy[row["policy"]] = (row, conclusion(row, effects))
    for rows, by_policy in groups.values():
        if len(by_policy) < 2:
            continue
        (weak_row, weak), (strong_row, strong) = by_policy[top[0]], by_policy[top[1]]
        for c in CONCLUSIONS:
            if c == "spread" and weak_row["kind"] == "setting":
                v = spread_verdict(_one(ladder_spreads, baseline=weak_row["setting"],
                                        setting=strong_row["setting"]))
            else:
                v = verdict(weak[c], strong[c])
            out.loc[rows, f"{c}_robust"] = v
    return out
