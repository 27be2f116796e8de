"""The headline: the answer to the experiment's question, per setting and per player count: the
focus bandits first (the experiment's ``focus``), then in the order of the experiment's
analyses, then the figures of the answer (against the swept value for a numeric sweep) and the
table behind it (``tables/headline.csv``: one row per setting and player count, one per
comparison, each once per focus bandit, one per policy at a mixed table)."""
from __future__ import annotations

import pandas as pd

from ....analysis import balance
from ....analysis.headline import (
    CONCLUSIONS, PRECISION_ANALYSES, ROBUST_COLUMNS, answers, games_per_setting,
    interval_widths,
)
from ....analysis.headline import compute as compute_tables
from ....analysis.power import games_to_reach
from ... import plots
from ...labels import card_label
from .. import sentences as S
from ..context import Context
from ..document import Table
from ..formatting import bandit, count, pct, pct_ci, points, pp, pp_ci, usd_ci
from .topics import BY_ANALYSIS


def analyse(ctx: Context) -> None:
    """The focus bandits' effects and their changes between compared settings (tests of the
    report's family); with a ladder, the spread of its two strongest policies compared on the
    same deals (an interval that judges the spread's robustness, not a test)."""
    if not ctx.design.uniform:
        return
    f, lvl, corr = ctx.f, ctx.level, ctx.correction
    if ctx.focus:
        effects = ctx.table("effects", lambda: balance.bandit_effects(f, "win", lvl, corr))
        # An interval: the same question is tested as the bandit's win-rate difference (compare).
        ctx.table("focus_changes", lambda: balance.effect_changes(effects, ctx.design.pairs(),
                                                                  ctx.focus), test=False)
    if "effects" in ctx.cache:
        ctx.table("ladder_spreads", lambda: balance.spread_changes(
            ctx.table("effects"), ctx.design.ladder_pairs()), test=False)


def compute(ctx: Context) -> pd.DataFrame:
    """The headline table (after the family of tests is adjusted)."""
    tables = {k: (v.table if hasattr(v, "table") else v) for k, v in ctx.cache.items()}
    tables["games"] = games_per_setting(ctx.f)
    if "order" in tables:
        order = tables["order"]
        tables["first_player"] = order[order["order"] == 0].reset_index(drop=True)
    if "cards" in tables:
        cards = tables["cards"]
        tables["cards"] = cards[cards["significant"]]
    table = answers(tables, ctx.design, ctx.focus)
    if "gunslinger_bonus" in ctx.design.settings:  # a $0 title decides nothing
        unpaid = set(ctx.design.settings.loc[
            ctx.design.settings["gunslinger_bonus"].astype(int) == 0, "setting"])
        rows = (table["kind"] == "setting") & table["setting"].isin(unpaid)
        table.loc[rows, ["gunslinger_decided", "gunslinger_decided_lo",
                         "gunslinger_decided_hi"]] = float("nan")
    return table


def build(ctx: Context, table: pd.DataFrame) -> list:
    ctx.w.files.table("headline", table)
    blocks = _focus(ctx, table)
    full, table = table, once(table, ctx.focus)
    for analysis in ctx.analyses:
        blocks += BY_ANALYSIS[analysis].headline(ctx, table)
    blocks += figures(ctx, table)
    settings = table[table["kind"] == "setting"]
    if len(settings):
        blocks.append(_settings_table(ctx, full, settings))
    comparisons = table[table["kind"] == "comparison"]
    if len(comparisons):
        blocks.append(_comparisons_table(ctx, full, comparisons))
    return blocks


def once(table: pd.DataFrame, focus) -> pd.DataFrame:
    """The headline's rows once each: with several focus bandits, the setting and comparison
    rows of the first."""
    if len(focus) < 2:
        return table
    return table[table["focus"].isna() | (table["focus"] == focus[0])]


def precision_note(ctx: Context, target: float, cap: int) -> str:
    """The precision a run asked for and the one it reached: the widest of the headline's
    win-rate intervals (coltsim.analysis.headline.interval_widths, also written to
    ``tables/precision.csv``) against the target."""
    widths = interval_widths(compute_tables(ctx.f, ctx.design, PRECISION_ANALYSES, ctx.level),
                             ctx.design)
    ctx.w.files.table("precision", widths)
    games = int(games_per_setting(ctx.f).min())
    asked = f"±{points(target, 2)} points"
    if not len(widths):
        return f"Precision asked: {asked}; the results give no win-rate interval to narrow."
    w = widths.iloc[0]
    widest = f"±{points(w['half_width'], 2)} points ({w['interval']}, {w['label']})"
    if w["half_width"] <= target:
        return (f"Precision: every win-rate interval of the headline is within {asked}, as "
                f"asked, with {count(games)} games per setting; the widest is {widest}.")
    more = games_to_reach(games, float(w["half_width"]), target, 10**12, overshoot=1.0,
                          growth=(1.0, float("inf")))
    return (f"Precision: {asked} asked, not reached within the cap of {count(cap)} games per "
            f"setting: with {count(games)} games the widest win-rate interval of the headline "
            f"is {widest}; about {count(more)} games per setting would reach it.")


# --- sentences ---------------------------------------------------------------------------------
def _focus(ctx: Context, table: pd.DataFrame) -> list:
    """The focus bandits first: each one's effect per setting, then how each comparison moves
    it (paired, on the same deals)."""
    effects = ctx.table("effects").table if "effects" in ctx.cache else None
    changes = ctx.table("focus_changes") if "focus_changes" in ctx.cache else None
    out = []
    for name in ctx.focus:
        rows = table[(table["kind"] == "setting") & (table["focus"] == name)
                     & table["focus_effect"].notna()]
        for (condition, policy), g in S.groups(rows):
            parts = [f"{r['players']} players "
                     + pp_ci(r["focus_effect"], r["focus_lo"], r["focus_hi"])
                     + ("" if S.significant(effects, r["setting"], name) else
                        ", " + S.not_significant(ctx, r["focus_lo"], r["focus_hi"]))
                     for _, r in g.iterrows()]
            where = S.where(ctx, condition, policy)
            out.append(f"{bandit(name)}'s win rate against the average bandit (percentage "
                       "points, 95% CI)" + (f", {where}" if where else "") + ": "
                       + "; ".join(parts) + ".")
        if not len(rows):
            out.append(f"{bandit(name)} plays in none of the settings that seat one policy.")
        moved = table[(table["kind"] == "comparison") & (table["focus"] == name)
                      & table["focus_effect"].notna()]
        for (condition, base, policy), g in moved.groupby(
                ["condition", "baseline_condition", "policy"], sort=False):
            parts = []
            for _, r in g.iterrows():
                c = _one_change(changes, r["baseline"], r["setting"], name)
                parts.append(f"{r['players']} players {pp(c['baseline_effect'])} → "
                             f"{pp(c['effect'])}, "
                             f"{pp_ci(r['focus_effect'], r['focus_lo'], r['focus_hi'])}")
            out.append(f"{bandit(name)}'s effect, {condition} against {base} ({policy} "
                       "players, same deals; change in percentage points, 95% CI): "
                       + "; ".join(parts) + ".")
    return out


def _one_change(changes: pd.DataFrame, baseline, setting, name) -> pd.Series:
    hit = changes[(changes["baseline"] == baseline) & (changes["setting"] == setting)
                  & (changes["bandit"] == name)]
    return hit.iloc[0]




# --- figures -----------------------------------------------------------------------------------
def figures(ctx: Context, table: pd.DataFrame) -> list:
    """The answer as figures: the spread in every setting (against the swept value for a
    numeric sweep) and, for a sweep, each bandit's effect, the Gunslinger's decisiveness and the
    change in mean score against the swept value."""
    settings = table[(table["kind"] == "setting") & table["spread"].notna()]
    if not ({"balance", "compare"} & set(ctx.analyses)) or len(settings) < 2:
        return []
    axis = ctx.design.axis
    policies = list(dict.fromkeys(settings["policy"]))
    players = {f"{n} players": c for n, c in ctx.colours["players"].items()}
    settings = settings.assign(series=settings["players"].map("{} players".format))

    def spread(ax, policy):
        plots.plot_spreads(ax, settings[settings["policy"] == policy],
                           "value" if axis else "condition", "series", players,
                           title=_panel_title(policy, policies, "Spread between bandits"),
                           legend=False)
        _axis_label(ax, axis)

    width = 8.0 if axis else max(5.0, 1.1 * len(ctx.design.conditions) + 2.5)
    named = "" if axis or settings.groupby("policy").size().max() > 12 else \
        "; above each: its strongest / weakest bandit"
    out = [ctx.w.panels("headline_spread", "The answer: the strongest minus the weakest bandit "
                        "(percentage points of win rate) in each setting, 95% intervals"
                        + (f", against {_words(axis)}" if axis else "") + named + ".",
                        policies, spread,
                        panel=(min(width, 12.0), 4.2), max_cols=2, sharey=True)]
    if axis is None:
        return out
    effects = ctx.table("effects").table
    value = ctx.design.settings.set_index("setting")["value"]
    rank = {b: i for i, b in enumerate(plots.BANDIT_COLOURS)}
    sweep = effects.assign(value=effects["setting"].map(value), series=effects["bandit"]
                           .map(bandit), _rank=effects["bandit"].map(rank))
    sweep = sweep.dropna(subset=["value"]).sort_values("_rank", kind="stable")
    bandits = {bandit(b): c for b, c in ctx.colours["bandit"].items()}

    def bandit_lines(ax, rows, series, colours, title):
        plots.plot_lines(ax, rows, "value", "estimate", "lo", "hi", "series", bandits, 100)
        ax.axhline(0, **plots.ZERO_STYLE)
        ax.set_title(title)
        ax.set_ylabel("against the average bandit (pp)")
        _axis_label(ax, axis)

    out.append(ctx.facet_figure(
        "sweep_bandits", f"Each bandit's win rate minus the average bandit's (percentage "
        f"points) against {_words(axis)}, 95% intervals (bands).", sweep, bandit_lines))
    for column, kind, name, what, scale in (
            ("gunslinger_decided", "setting", "sweep_gunslinger",
             "games the Gunslinger bonus decides (%)", 100),
            ("mean_score_change", "comparison", "sweep_mean_score",
             "change in the mean score per bandit against the baseline ($)", 1)):
        rows = table[(table["kind"] == kind) & table[column].notna() & table["value"].notna()]
        if not len(rows):
            continue
        rows = rows.assign(series=rows["players"].map("{} players".format))

        def lines(ax, policy, rows=rows, column=column, what=what, scale=scale):
            plots.plot_lines(ax, rows[rows["policy"] == policy], "value", column,
                             f"{column}_lo", f"{column}_hi", "series", players, scale)
            ax.set_ylabel(plots.wrap(what, 34))
            ax.set_title(_panel_title(policy, policies, ""))
            _axis_label(ax, axis)

        out.append(ctx.w.panels(name, f"The {what.split(' (')[0]} against {_words(axis)}, "
                                "95% intervals (bands).",
                                [p for p in policies if (rows["policy"] == p).any()], lines,
                                panel=(6.0, 4.0), max_cols=2))
    return out


def _words(option: str) -> str:
    return option.replace("_", " ")


def _panel_title(policy: str, policies: list, single: str) -> str:
    return plots.panel_title(policy) if len(policies) > 1 else single


def _axis_label(ax, axis):
    ax.set_xlabel(_words(axis) if axis else "")


# --- tables ------------------------------------------------------------------------------------
def _focus_cells(ctx: Context, table: pd.DataFrame, rows: pd.DataFrame, unit: str) -> dict:
    """A column per focus bandit: its effect (a setting row) or the change of its effect (a
    comparison row) with its interval, from the headline rows of that bandit."""
    cells = {}
    def key(r):
        return r.kind, r.setting, r.baseline if isinstance(r.baseline, str) else ""

    for name in ctx.focus:
        mine = {key(r): pp_ci(r.focus_effect, r.focus_lo, r.focus_hi)
                for r in table[table["focus"] == name].itertuples()}
        cells[f"{bandit(name)}, {unit} (95% CI)"] = [mine.get(key(r), "")
                                                    for r in rows.itertuples()]
    return cells


def _settings_table(ctx: Context, table: pd.DataFrame, rows: pd.DataFrame) -> Table:
    display = {"setting": rows["condition"], "players": rows["players"],
               "policy": rows["policy"]}
    display.update(_focus_cells(ctx, table, rows, "pp"))
    if rows["strongest"].notna().any():
        display["strongest (pp)"] = [f"{bandit(b)} {pp(e)}" if isinstance(b, str) else ""
                                     for b, e in zip(rows["strongest"], rows["strongest_effect"])]
        display["weakest (pp)"] = [f"{bandit(b)} {pp(e)}" if isinstance(b, str) else ""
                                   for b, e in zip(rows["weakest"], rows["weakest_effect"])]
        display["spread, pp (95% CI)"] = [pp_ci(*r, signed=False, n=n) for r, n in zip(rows[
            ["spread", "spread_lo", "spread_hi"]].itertuples(index=False), rows["games"])]
    if rows["gunslinger_decided"].notna().any():
        display["Gunslinger decides (95% CI)"] = [pct_ci(*r) for r in rows[
            ["gunslinger_decided", "gunslinger_decided_lo", "gunslinger_decided_hi"]]
            .itertuples(index=False)]
    if rows["first_player_edge"].notna().any():
        display["First Player edge, pp (95% CI)"] = [pp_ci(*r) for r in rows[
            ["first_player_edge", "first_player_edge_lo", "first_player_edge_hi"]]
            .itertuples(index=False)]
    if "round_cards" in ctx.analyses:
        display["card moving the score most, $ (95% CI)"] = [
            f"{card_label(c)} {usd_ci(e, lo, hi, signed=True)}" if isinstance(c, str) else "none"
            for c, e, lo, hi in rows[["top_card", "top_card_effect", "top_card_lo",
                                      "top_card_hi"]].itertuples(index=False)]
    display.update(_ladder_cells(rows))
    note = "One row per setting and player count" + (
        ", then one per comparison (the table below)." if (table["kind"] == "comparison").any()
        else ".")
    return Table("headline", "The answer per setting and player count", table,
                 pd.DataFrame(display), note)


def _comparisons_table(ctx: Context, table: pd.DataFrame, rows: pd.DataFrame) -> Table:
    display = {"setting": rows["condition"], "baseline": rows["baseline_condition"],
               "players": rows["players"], "policy": rows["policy"]}
    display.update(_focus_cells(ctx, table, rows, "change, pp"))
    if rows["spread_change"].notna().any():
        display["spread, pp"] = [f"{points(a)} → {points(b)}" for a, b in
                                 zip(rows["baseline_spread"], rows["spread"])]
        display["change, pp (95% CI)"] = [pp_ci(*r) for r in rows[
            ["spread_change", "spread_change_lo", "spread_change_hi"]].itertuples(index=False)]
        display["strongest"] = [bandit(a) if a == b else f"{bandit(a)} → {bandit(b)}"
                                for a, b in zip(rows["baseline_strongest"], rows["strongest"])]
    if rows["mean_score_change"].notna().any():
        display["mean score (95% CI)"] = [usd_ci(*r, signed=True) for r in rows[
            ["mean_score_change", "mean_score_change_lo", "mean_score_change_hi"]]
            .itertuples(index=False)]
    if "gunslinger" in ctx.analyses and rows["gunslinger_decided"].notna().any():
        display["decided by the Gunslinger, pp (95% CI)"] = [pp_ci(*r) for r in rows[
            ["gunslinger_decided", "gunslinger_decided_lo", "gunslinger_decided_hi"]]
            .itertuples(index=False)]
    if rows["played_differently"].notna().any():
        display["played differently"] = rows["played_differently"].map(pct)
    display.update(_ladder_cells(rows))
    return Table("headline", "The answer per comparison (same deals)", table,
                 pd.DataFrame(display))


def _ladder_cells(rows: pd.DataFrame) -> dict:
    """With a ladder, a column per conclusion: its verdict (analysis.headline.robustness)."""
    if not (rows[ROBUST_COLUMNS] != "").to_numpy().any():
        return {}
    return {f"ladder: {c}": rows[f"{c}_robust"] for c in CONCLUSIONS}
