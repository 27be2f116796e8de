"""The character-balance section: win rates and scores per bandit, and each bandit's effect."""
from __future__ import annotations

import pandas as pd

from ....analysis import balance
from ....analysis.frames import setting_order
from ... import plots
from ..context import Context
from ..document import Section
from ..formatting import p_value, pct, pct_ci, pp, pp_ci, usd, usd_ci, yes


def build(ctx: Context):
    f, w, corr, lvl = ctx.f, ctx.w, ctx.correction, ctx.level
    rates = balance.win_rates(f, lvl, corr)
    effects = balance.bandit_effects(f, "win", lvl, corr)
    score_effects = balance.bandit_effects(f, "score", lvl, corr)
    scores = balance.mean_scores(f, lvl)
    spread = balance.spread(effects, lvl, ctx.corr_name)
    headline = [spread.sentence(ctx.games, ctx.context_phrase())]

    blocks = [
        "Win rate is each bandit's share of the victories in the games it played (a victory "
        "shared by m players counts 1/m), so the fair share is exactly 1/players. The effect "
        "of a bandit is its win rate minus the average bandit's, from one linear-probability "
        "model over every bandit of every game with the setting (player count) and the seat "
        "order from the First Player as controls; standard errors are clustered by game.",
        w.figure("balance_effects",
                 "Each bandit's win rate minus the average bandit's (percentage points), "
                 "controlling for seat and player count; 95% intervals, filled = significant "
                 f"after {ctx.corr_name} correction.",
                 lambda fig, ax: plots.plot_bandit_effects(ax[0], effects.table), size=(7, 4)),
        w.table("balance_effects", "Bandit effects on the win rate (percentage points)",
                effects.table, pd.DataFrame({
                    "bandit": effects.table["bandit"].str.title(),
                    "effect (95% CI)": [pp_ci(*r) for r in effects.table[
                        ["estimate", "lo", "hi"]].itertuples(index=False)],
                    "adjusted p": effects.table["p_adjusted"].map(p_value),
                    "significant": effects.table["significant"].map(yes),
                    "games": effects.table["n"].map("{:,}".format)})),
        f"Spread between the strongest and weakest bandit: "
        f"{pp_ci(spread.gap.estimate, spread.gap.lo, spread.gap.hi)} percentage points "
        "(picked after looking, so it leans slightly high).",
        w.figure("balance_win_rates",
                 "Win rate of each bandit by setting with Wilson 95% intervals; dashed lines: the "
                 "fair share 1/players in the colour of the setting.",
                 lambda fig, ax: plots.plot_win_rates(ax[0], rates), size=(9, 4.5)),
        w.table("balance_win_rates", "Win rate by bandit and setting", rates, pd.DataFrame({
            "setting": rates["label"], "bandit": rates["bandit"].str.title(),
            "games": rates["n"].map("{:,}".format),
            "win rate (95% CI)": [pct_ci(*r) for r in rates[["rate", "lo", "hi"]].itertuples(
                index=False)],
            "fair share": rates["fair_share"].map(pct),
            "vs fair (pp)": rates["vs_fair"].map(pp),
            "adjusted p": rates["p_adjusted"].map(p_value),
            "significant": rates["significant"].map(yes)})),
        w.figure("balance_scores", "Mean final score of each bandit by setting, 95% intervals.",
                 lambda fig, ax: plots.plot_mean_scores(ax[0], scores), size=(9, 4.5)),
        w.table("balance_score_effects", "Bandit effects on the final score (dollars), "
                "controlling for seat and player count", score_effects.table, pd.DataFrame({
                    "bandit": score_effects.table["bandit"].str.title(),
                    "effect (95% CI)": [usd_ci(*r, signed=True) for r in score_effects.table[
                        ["estimate", "lo", "hi"]].itertuples(index=False)],
                    "adjusted p": score_effects.table["p_adjusted"].map(p_value),
                    "significant": score_effects.table["significant"].map(yes)})),
    ]
    present = [s for s in setting_order(f) if s in set(scores["setting"])]
    if present:
        blocks.append(w.per_setting_figure(
            "balance_loot", "Mean dollars per game of each bandit by kind (purses, jewels, "
            "strongboxes, ransoms, Gunslinger bonus).", present,
            lambda ax, sid: plots.plot_loot_mix(ax, scores, sid, title="Dollars by kind"),
            max_cols=3, panel=(5.5, 4.8)))
    blocks.append(w.table("balance_scores", "Mean score by bandit and setting", scores,
                          pd.DataFrame({
                              "setting": scores["label"], "bandit": scores["bandit"].str.title(),
                              "mean score (95% CI)": [usd_ci(*r) for r in scores[
                                  ["mean", "lo", "hi"]].itertuples(index=False)],
                              **{k: scores[f"mean_{k}"].map(usd)
                                 for k in balance.LOOT_KINDS}})))
    return Section("Character balance", blocks), headline
