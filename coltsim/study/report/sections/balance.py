"""The character-balance section: each bandit's effect, win rate and score in every setting
(per player count, condition and policy; within one policy at a mixed table)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ....analysis import balance
from ....analysis.frames import BANDITS
from ... import plots
from .. import sentences as S
from ..context import Context
from ..document import Section
from ..formatting import (
    bandit, count, is_missing, p_value, pct, pct_ci, points, pp, pp_ci, too_few, usd, usd_ci, yes,
)

TITLE = "Character balance"
MAX_LOOT_PANELS = 6


def analyse(ctx: Context) -> None:
    f, lvl, corr = ctx.f, ctx.level, ctx.correction
    effects = ctx.table("effects", lambda: balance.bandit_effects(f, "win", lvl, corr))
    ctx.table("spreads", lambda: balance.spreads(effects), test=False)
    ctx.table("score_effects", lambda: balance.bandit_effects(f, "score", lvl, corr))
    # Rates with intervals: a bandit's edge is tested once, as its effect (above).
    ctx.table("win_rates", lambda: balance.win_rates(f, lvl, corr), test=False)
    ctx.table("mean_scores", lambda: balance.mean_scores(f, lvl))


def build(ctx: Context) -> Section:
    w = ctx.w
    effects = ctx.table("effects").table
    spreads = ctx.table("spreads")
    score_effects = ctx.table("score_effects").table
    rates = ctx.table("win_rates")
    scores = ctx.table("mean_scores")
    blocks = [
        "A bandit's effect is its win rate minus the average bandit's in the same setting "
        "(player count, rules and policy), from one linear-probability model with a term for "
        "every bandit in every setting and the seat order from the First Player as a control; "
        "nothing is averaged over player counts or the settings compared. At a table of "
        "different policies, a bandit is compared only with the bandits played by the same "
        "policy. Win rate counts a victory shared by m players as 1/m, so the fair share is "
        "exactly 1/players.",
        ctx.facet_figure(
            "balance_effects", "Each bandit's win rate minus the average bandit's (percentage "
            "points) in each setting, controlling for seat; 95% intervals, hollow markers are "
            "not significant (see Methods).", effects,
            lambda ax, rows, series, colours, title: plot_bandit_effects(
                ax, rows, series=series, colours=colours, title=title, legend=False),
            positions=6, horizontal=True, legend_extra=plots.significance_handles()),
        w.table("balance_spreads", "Strongest and weakest bandit of each setting (effect on "
                "the win rate, percentage points)", spreads, pd.DataFrame({
                    "setting": spreads["label"],
                    "strongest": [f"{bandit(b)} {pp(e)}" for b, e in
                                  zip(spreads["strongest"], spreads["strongest_effect"])],
                    "weakest": [f"{bandit(b)} {pp(e)}" for b, e in
                                zip(spreads["weakest"], spreads["weakest_effect"])],
                    "spread (95% CI)": [pp_ci(*r, signed=False) for r in spreads[
                        ["spread", "lo", "hi"]].itertuples(index=False)]}),
                note="The two are picked after looking, so a spread leans slightly high."),
        w.table("balance_effects", "Bandit effects on the win rate (percentage points)",
                effects, pd.DataFrame({
                    "setting": effects["label"], "bandit": effects["bandit"].map(bandit),
                    "effect (95% CI)": [pp_ci(*r) for r in effects[["estimate", "lo", "hi"]]
                                        .itertuples(index=False)],
                    "adjusted p": effects["p_adjusted"].map(p_value),
                    "significant": effects["significant"].map(yes),
                    "games": effects["n"].map(count)})),
        ctx.facet_figure(
            "balance_win_rates", "Win rate of each bandit with Wilson 95% intervals; dashed: "
            "the fair share (1/players; at a table of different policies, the policy's own "
            "share per seat).", rates,
            lambda ax, rows, series, colours, title: plot_win_rates(
                ax, rows, series, colours, title=title, legend=False), positions=6),
        w.table("balance_win_rates", "Win rate by bandit and setting",
                rates.drop(columns=["p_value", "p_adjusted", "significant"]), pd.DataFrame({
                    "setting": rates["label"], "bandit": rates["bandit"].map(bandit),
                    "games": rates["n"].map(count),
                    "win rate (95% CI)": [pct_ci(*r) for r in rates[["rate", "lo", "hi"]]
                                          .itertuples(index=False)],
                    "fair share": rates["fair_share"].map(pct),
                    "vs fair (pp)": rates["vs_fair"].map(pp)}),
                note="Whether a bandit is off the average is tested once, as its effect (the "
                     "table of effects above, controlling for seat)."),
        ctx.facet_figure(
            "balance_scores", "Mean final score of each bandit, 95% intervals.", scores,
            lambda ax, rows, series, colours, title: plot_mean_scores(
                ax, rows, series, colours, title=title, legend=False), positions=6),
        w.table("balance_score_effects", "Bandit effects on the final score (dollars), "
                "controlling for seat", score_effects, pd.DataFrame({
                    "setting": score_effects["label"],
                    "bandit": score_effects["bandit"].map(bandit),
                    "effect (95% CI)": [usd_ci(*r, signed=True) for r in score_effects[
                        ["estimate", "lo", "hi"]].itertuples(index=False)],
                    "adjusted p": score_effects["p_adjusted"].map(p_value),
                    "significant": score_effects["significant"].map(yes)})),
    ]
    units = list(dict.fromkeys(zip(scores["setting"], scores["policy"])))
    shown = units
    note = ""
    if len(units) > MAX_LOOT_PANELS:
        first = ctx.design.conditions[0]
        shown = [u for u in units
                 if (scores.loc[scores["setting"] == u[0], "condition"] == first).any()]
        shown = shown[:MAX_LOOT_PANELS]
        note = f" Shown: {len(shown)} of {len(units)} settings ({first}); every setting is in " \
               "the table below."
    if shown:
        blocks.append(w.panels(
            "balance_loot", "Mean dollars per game of each bandit by kind (purses, jewels, "
            "strongboxes, ransoms, Gunslinger bonus)." + note, shown,
            lambda ax, u: plot_loot_mix(ax, scores, u[0], u[1], legend=False),
            panel=(5.0, 4.4)))
    blocks.append(w.table("balance_scores", "Mean score by bandit and setting", scores,
                          pd.DataFrame({
                              "setting": scores["label"], "bandit": scores["bandit"].map(bandit),
                              "mean score (95% CI)": [usd_ci(*r) for r in scores[
                                  ["mean", "lo", "hi"]].itertuples(index=False)],
                              **{("Gunslinger bonus" if k == "bonus" else k):
                                 scores[f"mean_{k}"].map(usd) for k in balance.LOOT_KINDS}})))
    return Section(TITLE, [b for b in blocks if b is not None])


# --- the headline's sentences ------------------------------------------------------------------
def headline(ctx: Context, table: pd.DataFrame) -> list:
    rows = table[(table["kind"] == "setting") & table["strongest"].notna()]
    effects = ctx.table("effects").table if "effects" in ctx.cache else None
    if not len(rows):
        return []
    groups = S.groups(rows)
    if len(groups) > S.MAX_GROUPS:
        top = [r["strongest"] for _, r in rows.iterrows()
               if S.significant(effects, r["setting"], r["strongest"])]
        bottom = [r["weakest"] for _, r in rows.iterrows()
                  if S.significant(effects, r["setting"], r["weakest"])]
        none = len(rows) - len(top)
        return [f"Strongest bandit (significantly above the average bandit): "
                f"{S.tally(top) or 'none'}; weakest (significantly below): "
                f"{S.tally(bottom) or 'none'}"
                + (f"; {none} of {len(rows)} settings have no bandit significantly above the "
                   "average" if none else "")
                + ". The spread between the strongest and the weakest bandit "
                f"ranges from {points(rows['spread'].min())} to {points(rows['spread'].max())}"
                " percentage points (every setting: the table and figure below)."
                + S.robust_tally(ctx, rows)]
    out = []
    for (condition, policy), g in groups:
        parts = []
        for _, r in g.iterrows():
            if is_missing(r["spread_lo"]):  # a bandit named from a game or two: not an answer
                parts.append(f"{r['players']} players: {too_few(r['games'])}")
                continue
            sig = S.significant(effects, r["setting"], r["strongest"])
            parts.append(f"{r['players']} players: {bandit(r['strongest'])} "
                         f"{pp(r['strongest_effect'])} / {bandit(r['weakest'])} "
                         f"{pp(r['weakest_effect'])}, spread "
                         f"{pp_ci(r['spread'], r['spread_lo'], r['spread_hi'], signed=False)}"
                         + ("" if sig else " (no bandit significantly above the average)"))
        out.append(S.lead(S.where(ctx, condition, policy), "strongest / weakest bandit (win "
                         "rate against the average bandit, percentage points) and the spread "
                         "between them (95% CI)") + "; ".join(parts) + ".")
    return out + S.ladder(ctx, table, "setting")


# --- figures -------------------------------------------------------------------------------------
LOOT_COLOURS = {"purse": "#c49a6c", "jewel": "#3f88c5", "strongbox": "#7d7d7d",
                "ransom": "#8cb369", "bonus": "#d1495b"}


def plot_win_rates(ax, table: pd.DataFrame, series: str = "label", colours: dict | None = None,
                   title: str = "Win rate by bandit", legend: bool = True):
    """Each bandit's win rate per series with its Wilson 95% interval, and the fair share.
    ``table``: :func:`balance.win_rates` (one panel's rows)."""
    bandits = plots.ordered(table["bandit"], BANDITS)
    artists = {"series": plots.dodged(ax, table, "bandit", bandits, "rate", "lo", "hi", series,
                                      colours, 100)}
    artists["fair"] = plots.fair_lines(ax, table, series, colours, "fair_share", 100)
    ax.set_ylabel("win rate (%)")
    ax.set_xlabel("bandit")
    ax.set_title(title)
    if legend:
        artists["legend"] = plots.legend_below(ax)
    return artists


def plot_bandit_effects(ax, table: pd.DataFrame, outcome: str = "win", series: str = "label",
                        colours: dict | None = None,
                        title: str = "Bandit effect, controlling for seat", legend: bool = True):
    """Forest plot of :func:`balance.bandit_effects` rows: each bandit against the average
    bandit of its setting, 95% interval, one series per setting; hollow markers are not
    significant after the report's correction."""
    scale, unit = (100, "percentage points") if outcome == "win" else (1, "$")
    bandits = plots.ordered(table["bandit"], BANDITS)[::-1]
    artists = {"series": plots.dodged(ax, table, "bandit", bandits, "estimate", "lo", "hi", series,
                                      colours, scale, horizontal=True, significant="significant")}
    artists["zero"] = ax.axvline(0, **plots.ZERO_STYLE)
    what = "win rate" if outcome == "win" else "score"
    ax.set_xlabel(f"{what} minus the average bandit's ({unit})")
    ax.set_title(title)
    if legend:
        artists["legend"] = plots.legend_below(ax, plots.significance_handles())
    return artists


def plot_mean_scores(ax, table: pd.DataFrame, series: str = "label", colours: dict | None = None,
                     title: str = "Mean score by bandit", legend: bool = True):
    """Each bandit's mean final score per series with its 95% interval.
    ``table``: :func:`balance.mean_scores`."""
    bandits = plots.ordered(table["bandit"], BANDITS)
    artists = {"series": plots.dodged(ax, table, "bandit", bandits, "mean", "lo", "hi", series,
                                      colours)}
    ax.set_ylabel("mean final score ($)")
    ax.set_xlabel("bandit")
    ax.set_title(title)
    if legend:
        artists["legend"] = plots.legend_below(ax)
    return artists


def plot_loot_mix(ax, table: pd.DataFrame, setting: str | None = None, policy: str | None = None,
                  title: str = "Dollars by kind", legend: bool = True):
    """Stacked bars of the mean dollars per kind (purses, jewels, strongboxes, ransoms,
    Gunslinger bonus) for one setting (default: the first) and policy.
    ``table``: :func:`balance.mean_scores`."""
    setting = setting or table["setting"].iloc[0]
    t = table[table["setting"] == setting]
    if policy is not None:
        t = t[t["policy"] == policy]
    bandits = plots.ordered(t["bandit"], BANDITS)
    t = t.set_index("bandit").loc[bandits]
    bottom = np.zeros(len(t))
    bars = []
    for kind, colour in LOOT_COLOURS.items():
        v = t[f"mean_{kind}"].to_numpy(np.float64)
        bars.append(ax.bar([b.title() for b in bandits], v, bottom=bottom, color=colour,
                           label=kind if kind != "bonus" else "Gunslinger bonus"))
        bottom += v
    ax.set_ylabel("mean dollars per game ($)")
    ax.set_xlabel("bandit")
    ax.tick_params(axis="x", labelrotation=30)
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(f"{title}\n{plots.wrap(label, 40)}", fontsize="medium")
    artists = {"bars": bars}
    if legend:
        artists["legend"] = plots.legend_below(ax)
    return artists
