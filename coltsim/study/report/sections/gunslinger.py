"""The Gunslinger section: how often the bonus is awarded, shared, and decides the game."""
from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd

from ....analysis import gunslinger
from ....analysis.frames import BANDITS
from ... import plots
from .. import sentences as S
from ..context import Context
from ..document import Section
from ..formatting import bandit, count, num, p_value, pct, pct_ci, pp, pp_ci, yes

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
            lambda ax, rows, series, colours, title: plot_gunslinger_shares(
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
                lambda ax, rows, series, colours, title: plot_gunslinger_by_bandit(
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


# --- the headline's sentences ------------------------------------------------------------------
def headline(ctx: Context, table: pd.DataFrame) -> list:
    """The share of games the bonus decides in each setting and, for a compared setting, its
    paired change against the baseline on the same deals (the comparison rows, with the
    ``compare`` analysis)."""
    rows = table[(table["kind"] == "setting") & table["gunslinger_decided"].notna()]
    changes = table[(table["kind"] == "comparison") & table["gunslinger_decided"].notna()]
    groups = S.groups(rows)
    if len(groups) > S.MAX_GROUPS:
        text = (f"The Gunslinger bonus changes the winner in "
                f"{pct(rows['gunslinger_decided'].min())} to "
                f"{pct(rows['gunslinger_decided'].max())} of the games, depending on the "
                "setting")
        if len(changes):
            text += (f"; against the baseline on the same deals, the change is "
                     f"{pp(changes['gunslinger_decided'].min())} to "
                     f"{pp(changes['gunslinger_decided'].max())} points")
        return [text + " (every setting and comparison: the tables below)."]
    change = {r["setting"]: r for _, r in changes.iterrows()}
    out = []
    for (condition, policy), g in groups:
        parts = []
        for _, r in g.iterrows():
            part = pct_ci(r["gunslinger_decided"], r["gunslinger_decided_lo"],
                          r["gunslinger_decided_hi"]) + f" at {r['players']} players"
            c = change.get(r["setting"])
            if c is not None:
                part += (", " + pp_ci(c["gunslinger_decided"], c["gunslinger_decided_lo"],
                                      c["gunslinger_decided_hi"])
                         + f" points against {c['baseline_condition']} on the same deals")
            parts.append(part)
        out.append(S.lead(S.where(ctx, condition, policy), "the Gunslinger bonus changes the "
                         "winner in this share of games (95% CI)") + "; ".join(parts) + ".")
    return out


# --- figures -------------------------------------------------------------------------------------
def plot_gunslinger_by_bandit(ax, table: pd.DataFrame, series: str = "label",
                              colours: dict | None = None,
                              title: str = "How often each bandit is the Gunslinger",
                              legend: bool = True):
    """Share of games in which each bandit is (one of) the Gunslinger(s), per series, Wilson 95%
    intervals; dashed: the even share (mean Gunslingers per game / players).
    ``table``: :func:`gunslinger.gunslinger_by_bandit`."""
    bandits = plots.ordered(table["bandit"], BANDITS)
    artists = {"series": plots.dodged(ax, table, "bandit", bandits, "rate", "lo", "hi", series,
                                      colours, 100)}
    artists["fair"] = plots.fair_lines(ax, table, series, colours, "fair_share", 100, "even share")
    ax.set_ylabel("games as Gunslinger (%)")
    ax.set_xlabel("bandit")
    ax.set_title(title)
    if legend:
        artists["legend"] = plots.legend_below(ax)
    return artists


def plot_gunslinger_shares(ax, table: pd.DataFrame, name: str = "label",
                           title: str = "Number of Gunslingers per game", legend: bool = True):
    """Horizontal stacked bars: share of games with 0, 1, 2... Gunslingers, one bar per setting
    named by its ``name`` column (labels wrapped, so that a dozen settings stay readable).
    ``table``: :func:`gunslinger.gunslinger_shares`."""
    settings = list(dict.fromkeys(zip(table["setting"], table[name])))[::-1]
    counts = sorted(table["gunslingers"].unique())
    cmap = matplotlib.colormaps["viridis"]
    left = np.zeros(len(settings))
    bars = []
    y = np.arange(len(settings))
    for c in counts:
        v = np.array([float(table[(table["setting"] == s) & (table["gunslingers"] == c)]
                            ["share"].sum()) for s, _ in settings]) * 100
        bars.append(ax.barh(y, v, left=left, color=cmap(min(c, 6) / 6),  # a count's colour
                            label=f"{c} Gunslinger{'s' if c != 1 else ''}"))
        left += v
    ax.set_yticks(y)
    ax.set_yticklabels([plots.wrap(lab, 28) for _, lab in settings])
    ax.set_xlabel("games (%)")
    ax.set_xlim(0, 100)
    ax.set_title(title)
    artists = {"bars": bars}
    if legend:
        artists["legend"] = plots.legend_below(ax)
    return artists
