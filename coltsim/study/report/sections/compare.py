"""The comparison section: settings against their baseline on the same seeds."""
from __future__ import annotations

import pandas as pd

from ....analysis import compare
from ....analysis.metrics import GAME_METRICS
from ... import plots
from ..context import Context
from ..document import Section
from ..formatting import metric_ci, metric_value, p_value, pct, pp_ci, usd_ci, yes


def build(ctx: Context):
    f, w, corr, lvl = ctx.f, ctx.w, ctx.correction, ctx.level
    pairs = compare.default_pairs(f.settings)
    if not pairs:
        return Section("Comparison on the same seeds", [
            "Nothing to compare: no two settings share a player count and line-up."]), []
    table = compare.compare(f, pairs, lvl, corr)
    headline = []
    for base, other in pairs:
        t = table[(table["baseline"] == base) & (table["setting"] == other)]
        score = t[t["quantity"] == "mean_score"].iloc[0]
        line = (f"{t['label'].iloc[0]} against {t['baseline_label'].iloc[0]} (same seeds): mean "
                f"score {usd_ci(score['difference'], score['lo'], score['hi'], signed=True)}")
        bandits = t[(t["group"] == "bandit") & t["significant"]]
        if len(bandits):
            top = bandits.loc[bandits["difference"].abs().idxmax()]
            line += (f"; the largest change in a bandit's win rate is "
                     f"{top['quantity'][4:].title()}'s, "
                     f"{pp_ci(top['difference'], top['lo'], top['hi'])} points")
        else:
            line += "; no bandit's win rate changes significantly"
        headline.append(line + ".")
    blocks = [
        "Each setting is compared with the first setting listed with the same player count and "
        "line-up. Game i of both settings starts from the same seeds, so differences are taken "
        "game by game (bandit by bandit, seat by seat) and their intervals come from the paired "
        "differences.",
        w.figure("compare_bandits", "Change in each bandit's win rate against the baseline "
                 "setting on the same seeds, 95% paired intervals.",
                 lambda fig, ax: plots.plot_comparison(ax[0], table, "bandit"), size=(8, 5)),
        w.figure("compare_seats", "Change in each seat's win rate against the baseline setting "
                 "on the same seeds, 95% paired intervals.",
                 lambda fig, ax: plots.plot_comparison(ax[0], table, "seat"), size=(8, 4.5)),
    ]

    def fmt(row):
        q = row["quantity"]
        if q in GAME_METRICS:
            return (metric_value(q, row["baseline_mean"]), metric_value(q, row["mean"]),
                    metric_ci(q, row["difference"], row["lo"], row["hi"]))
        return (pct(row["baseline_mean"]), pct(row["mean"]),
                pp_ci(row["difference"], row["lo"], row["hi"]) + " pp")

    cells = [fmt(r) for _, r in table.iterrows()]
    blocks.append(w.table("compare", "Differences on the same seeds (setting minus baseline)",
                          table, pd.DataFrame({
                              "setting": table["label"], "baseline": table["baseline_label"],
                              "quantity": table["description"],
                              "baseline value": [c[0] for c in cells],
                              "value": [c[1] for c in cells],
                              "difference (95% CI)": [c[2] for c in cells],
                              "adjusted p": table["p_adjusted"].map(p_value),
                              "significant": table["significant"].map(yes)})))
    return Section("Comparison on the same seeds", blocks), headline
