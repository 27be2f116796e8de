"""The Gunslinger section: how often the bonus is awarded, shared, and decides the game."""
from __future__ import annotations

import pandas as pd

from ....analysis import gunslinger
from ... import plots
from ..context import Context
from ..document import Section
from ..formatting import p_value, pct, pct_ci


def build(ctx: Context):
    f, w, corr, lvl = ctx.f, ctx.w, ctx.correction, ctx.level
    summary = gunslinger.gunslinger_summary(f, lvl)
    shares = gunslinger.gunslinger_shares(f)
    by_bandit = gunslinger.gunslinger_by_bandit(f, lvl, corr)
    with_gun = summary[summary["awarded_rate"] > 0]
    if "gunslinger_bonus" in f.settings:  # a title worth $0 decides nothing
        paid = f.settings.loc[f.settings["gunslinger_bonus"].astype(int) > 0, "setting"]
        with_gun = with_gun[with_gun["setting"].isin(set(paid.astype(str)))]
    by_bandit = by_bandit[by_bandit["setting"].isin(set(with_gun["setting"]))]
    by_bandit = by_bandit.reset_index(drop=True)
    headline = []
    if len(with_gun):
        parts = [f"{pct_ci(r.changed_rate, r.changed_lo, r.changed_hi)} at {r.label}"
                 for r in with_gun.itertuples()]
        headline.append("The Gunslinger bonus changes the winner of the game (share of games, "
                        "95% CI): " + "; ".join(parts) + ".")
    blocks = [
        "The Gunslinger is the player who fired the most bullets (ties share it); the bonus "
        "\"changes the winner\" when the winner with the bonus differs from the winner on loot "
        "alone.",
        w.table("gunslinger_summary", "How often the Gunslinger is awarded, shared and decisive",
                summary, pd.DataFrame({
                    "setting": summary["label"], "games": summary["games"].map("{:,}".format),
                    "awarded (95% CI)": [pct_ci(*r) for r in summary[
                        ["awarded_rate", "awarded_lo", "awarded_hi"]].itertuples(index=False)],
                    "mean Gunslingers": summary["mean_gunslingers"].map(lambda x: f"{x:.2f}"),
                    "shared, when awarded": [pct_ci(*r) for r in summary[
                        ["shared_rate", "shared_lo", "shared_hi"]].itertuples(index=False)],
                    "changed the winner": [pct_ci(*r) for r in summary[
                        ["changed_rate", "changed_lo", "changed_hi"]].itertuples(index=False)]})),
        w.figure("gunslinger_shares", "Share of games by number of Gunslingers.",
                 lambda fig, ax: plots.plot_gunslinger_shares(ax[0], shares), size=(8, 4.5)),
    ]
    if len(by_bandit):
        blocks += [
            w.figure("gunslinger_by_bandit", "Share of its games in which each bandit is a "
                     "Gunslinger, Wilson 95% intervals; dashed: the even share (mean Gunslingers "
                     "per game / players).",
                     lambda fig, ax: plots.plot_gunslinger_by_bandit(ax[0], by_bandit),
                     size=(9, 4.5)),
            w.table("gunslinger_by_bandit", "Who gets the Gunslinger bonus, and who wins by it",
                    by_bandit, pd.DataFrame({
                        "setting": by_bandit["label"], "bandit": by_bandit["bandit"].str.title(),
                        "Gunslinger (95% CI)": [pct_ci(*r) for r in by_bandit[
                            ["rate", "lo", "hi"]].itertuples(index=False)],
                        "even share": by_bandit["fair_share"].map(pct),
                        "adjusted p": by_bandit["p_adjusted"].map(p_value),
                        "won by the bonus (95% CI)": [pct_ci(*r) for r in by_bandit[
                            ["decided_rate", "decided_lo", "decided_hi"]].itertuples(
                            index=False)]})),
        ]
    else:
        blocks.append("No setting awards the Gunslinger bonus (2-player games or bonus 0).")
    return Section("Gunslinger", blocks), headline
