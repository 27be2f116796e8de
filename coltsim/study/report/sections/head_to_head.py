"""The head-to-head section: for every pair of bandits at the same table, how often each
finishes ahead of the other (a matrix per setting, and the table of every pair)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ....analysis import head_to_head
from ....analysis.frames import BANDITS
from ... import plots
from .. import sentences as S
from ..context import Context
from ..document import Section
from ..formatting import bandit, count, pct_ci

TITLE = "Head to head"
MAX_PANELS = 6


def analyse(ctx: Context) -> None:
    # Estimates with intervals, no tests: not part of the family.
    ctx.table("head_to_head", lambda: head_to_head.head_to_head(ctx.f, ctx.level), test=False)


def build(ctx: Context) -> Section:
    table = ctx.table("head_to_head")
    if not len(table):
        return Section(TITLE, ["No setting seats one policy: a table of different policies "
                               "is compared policy against policy in the policies section."])
    units = list(dict.fromkeys(zip(table["setting"], table["policy"])))
    shown, note = units, ""
    if len(units) > MAX_PANELS:
        first = ctx.design.conditions[0]
        shown = [u for u in units if (table.loc[table["setting"] == u[0], "condition"]
                                      == first).any()][:MAX_PANELS]
        note = f" Shown: {len(shown)} of {len(units)} settings ({first}); every pair of every " \
               "setting is in the table below."
    labels = dict(zip(table["setting"], table["label"]))
    blocks = [
        "When two bandits play in the same game, how often does each finish ahead of the "
        "other (a better rank: the final score, then the tie-break on bullets received)? A "
        "shared rank counts one half, so a pair's two shares add up to 100%; 50% is an even "
        "match. In the 2-player game a bandit finishes as its team does, and the two bandits "
        "of a team are not compared. Intervals are Wilson 95% intervals over the games both "
        "played.",
        ctx.w.panels("head_to_head", "How often the bandit of the row finishes ahead of the "
                     "bandit of the column when both are at the table (%); * where the 95% "
                     "interval excludes 50%." + note, shown,
                     lambda ax, u: plot_head_to_head(ax, table, u[0], u[1],
                                                           title=plots.wrap(labels[u[0]], 50)),
                     panel=(5.6, 4.6), legend=False),
    ]
    # Each pair once (the other direction is one minus it), in coltsim's order of bandits.
    order = {b: i for i, b in enumerate(BANDITS)}
    pairs = table[table["bandit"].map(order) < table["opponent"].map(order)]
    blocks.append(ctx.w.table("head_to_head", "How often a bandit finishes ahead of another "
                              "at the same table", table, pd.DataFrame({
                                  "setting": pairs["label"],
                                  "bandit": pairs["bandit"].map(bandit),
                                  "against": pairs["opponent"].map(bandit),
                                  "games together": pairs["games"].map(count),
                                  "finishes ahead (95% CI)": [
                                      pct_ci(*r) for r in pairs[["rate", "lo", "hi"]]
                                      .itertuples(index=False)],
                                  "shared rank": pairs["ties"].map(count)}),
                              note="Each pair once; the full table has both directions."))
    return Section(TITLE, blocks)


# --- the headline's sentences ------------------------------------------------------------------
def headline(ctx: Context, table: pd.DataFrame) -> list:
    """The most one-sided pair of each setting."""
    pairs = ctx.table("head_to_head")
    pairs = pairs[pairs["rate"] >= 0.5]
    out = []
    groups = S.groups(pairs)
    for (condition, policy), g in groups[:S.MAX_GROUPS]:
        parts = []
        for players, rows in g.groupby("players", sort=False):
            top = rows.loc[rows["rate"].idxmax()]
            parts.append(f"{players} players: {bandit(top['bandit'])} ahead of "
                         f"{bandit(top['opponent'])} in "
                         f"{pct_ci(top['rate'], top['lo'], top['hi'])} of their games")
        out.append(S.lead(S.where(ctx, condition, policy), "the most one-sided pair of bandits "
                         "at the same table (95% CI)") + "; ".join(parts) + ".")
    if len(groups) > S.MAX_GROUPS:
        out.append(f"Every pair of every setting: the head-to-head section "
                   f"({len(groups) - S.MAX_GROUPS} more conditions and policies).")
    return out


# --- figures -------------------------------------------------------------------------------------
def plot_head_to_head(ax, table: pd.DataFrame, setting: str | None = None,
                      policy: str | None = None, title: str = ""):
    """The matrix of :func:`head_to_head.head_to_head` for one setting (and policy): how often
    the bandit of the row finishes ahead of the bandit of the column when both are at the
    table (percent, shared ranks counted one half); blue above 50%, red below, ``*`` where the
    95% interval excludes 50%."""
    setting = setting or table["setting"].iloc[0]
    t = table[table["setting"] == setting]
    if policy is not None:
        t = t[t["policy"] == policy]
    bandits = plots.ordered(list(t["bandit"]) + list(t["opponent"]), BANDITS)
    at = {b: i for i, b in enumerate(bandits)}
    grid = np.full((len(bandits), len(bandits)), np.nan)
    clear = np.zeros_like(grid, bool)
    for r in t.itertuples():
        grid[at[r.bandit], at[r.opponent]] = 100 * r.rate
        clear[at[r.bandit], at[r.opponent]] = r.lo > 0.5 or r.hi < 0.5
    texts = [f"{v:.0f}" + ("*" if c else "") for v, c in zip(grid.ravel(), clear.ravel())]
    names = [b.title() for b in bandits]
    artists = plots.heatmap(ax, grid, texts, clear, names, names, "finishes ahead (%)", centre=50)
    ax.set_xlabel("against")
    ax.set_ylabel("bandit")
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(title or plots.wrap(label, 50), fontsize="medium")
    return artists
