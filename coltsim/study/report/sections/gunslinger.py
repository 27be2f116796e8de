"""The Gunslinger section: how often the bonus is awarded, shared, and decides the game."""
from __future__ import annotations

import pandas as pd

from ....analysis import gunslinger
from ... import plots
from ..context import Context
from ..document import Section
from ..formatting import bandit, count, num, p_value, pct, pct_ci, yes

TITLE = "Gunslinger"


def paid(ctx: Context) -> set:
    """Settings whose Gunslinger title is worth dollars (a $0 title decides nothing)."""
    s = ctx.design.settings
    if "gunslinger_bonus" not in s:
        return set(s["setting"])
    return set(s.loc[s["gunslinger_bonus"].astype(int) > 0, "setting"])


def analyse(ctx: Context) -> None:
    f, lvl, corr = ctx.f, ctx.level, ctx.correction
    ctx.table("gunslinger", lambda: gunslinger.gunslinger_summary(f, lvl))
    ctx.table("gunslinger_shares", lambda: gunslinger.gunslinger_shares(f))

    def by_bandit():
        t = gunslinger.gunslinger_by_bandit(f, lvl, corr)
        summary = ctx.table("gunslinger")
        awarded = set(summary.loc[summary["awarded_rate"] > 0, "setting"]) & paid(ctx)
        tables = ctx.design.settings.set_index("setting")["table"]
        keep = t["setting"].map(lambda s: s in awarded or tables.get(s) in awarded)
        return t[keep].reset_index(drop=True)

    ctx.table("gunslinger_by_bandit", by_bandit)


def build(ctx: Context) -> Section:
    w = ctx.w
    summary = ctx.table("gunslinger")
    shares = ctx.table("gunslinger_shares")
    by_bandit = ctx.table("gunslinger_by_bandit")
    blocks = [
        "The Gunslinger is the player who fired the most bullets (ties share it); the bonus "
        "\"changes the winner\" when the winner with the bonus differs from the winner on loot "
        "alone.",
        w.table("gunslinger_summary", "How often the Gunslinger is awarded, shared and decisive",
                summary, pd.DataFrame({
                    "setting": summary["label"], "games": summary["games"].map(count),
                    "awarded (95% CI)": [pct_ci(*r) for r in summary[
                        ["awarded_rate", "awarded_lo", "awarded_hi"]].itertuples(index=False)],
                    "mean Gunslingers": summary["mean_gunslingers"].map(num),
                    "shared, when awarded": [pct_ci(*r) for r in summary[
                        ["shared_rate", "shared_lo", "shared_hi"]].itertuples(index=False)],
                    "changed the winner": [pct_ci(*r) for r in summary[
                        ["changed_rate", "changed_lo", "changed_hi"]].itertuples(index=False)]})),
        ctx.facet_figure(
            "gunslinger_shares", "Share of games by number of Gunslingers.", shares,
            lambda ax, rows, series, colours, title: plots.plot_gunslinger_shares(
                ax, rows, series, title=title, legend=False),
            panel=(5.0, 1.2 + 0.4 * shares.groupby(["players", "policy"])["setting"]
                   .nunique().max())),
    ]
    if len(by_bandit):
        blocks += [
            ctx.facet_figure(
                "gunslinger_by_bandit", "Share of its games in which each bandit is a "
                "Gunslinger, Wilson 95% intervals; dashed: the even share (mean Gunslingers per "
                "game / players).", by_bandit,
                lambda ax, rows, series, colours, title: plots.plot_gunslinger_by_bandit(
                    ax, rows, series, colours, title=title, legend=False),
                positions=6),
            w.table("gunslinger_by_bandit", "Who gets the Gunslinger bonus, and who wins by it",
                    by_bandit, pd.DataFrame({
                        "setting": by_bandit["label"], "bandit": by_bandit["bandit"].map(bandit),
                        "Gunslinger (95% CI)": [pct_ci(*r) for r in by_bandit[
                            ["rate", "lo", "hi"]].itertuples(index=False)],
                        "even share": by_bandit["fair_share"].map(pct),
                        "adjusted p": by_bandit["p_adjusted"].map(p_value),
                        "significant": by_bandit["significant"].map(yes),
                        "won by the bonus (95% CI)": [pct_ci(*r) for r in by_bandit[
                            ["decided_rate", "decided_lo", "decided_hi"]].itertuples(
                            index=False)]})),
        ]
    else:
        blocks.append("No setting pays a Gunslinger bonus (2-player games or bonus $0).")
    return Section(TITLE, [b for b in blocks if b is not None])
