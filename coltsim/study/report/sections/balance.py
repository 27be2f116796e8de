"""The character-balance section: each bandit's effect, win rate and score in every setting
(per player count, condition and policy; within one policy at a mixed table)."""
from __future__ import annotations

import pandas as pd

from ....analysis import balance
from ... import plots
from ..context import Context
from ..document import Section
from ..formatting import bandit, count, p_value, pct, pct_ci, pp, pp_ci, usd, usd_ci, yes

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
            lambda ax, rows, series, colours, title: plots.plot_bandit_effects(
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
            lambda ax, rows, series, colours, title: plots.plot_win_rates(
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
            lambda ax, rows, series, colours, title: plots.plot_mean_scores(
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
            lambda ax, u: plots.plot_loot_mix(ax, scores, u[0], u[1], legend=False),
            panel=(5.0, 4.4)))
    blocks.append(w.table("balance_scores", "Mean score by bandit and setting", scores,
                          pd.DataFrame({
                              "setting": scores["label"], "bandit": scores["bandit"].map(bandit),
                              "mean score (95% CI)": [usd_ci(*r) for r in scores[
                                  ["mean", "lo", "hi"]].itertuples(index=False)],
                              **{("Gunslinger bonus" if k == "bonus" else k):
                                 scores[f"mean_{k}"].map(usd) for k in balance.LOOT_KINDS}})))
    return Section(TITLE, [b for b in blocks if b is not None])
