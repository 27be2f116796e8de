"""The seat section: the First Player's advantage, in the settings where every seat plays one
policy (at a table of different policies, seats are compared in the policies section)."""
from __future__ import annotations

import pandas as pd

from ....analysis import seats
from ....analysis.headline import subset
from ... import plots
from ..context import Context
from ..document import Section
from ....words import seat_label
from ..formatting import p_value, pct_ci, pp, usd, yes

TITLE = "Seat and First Player advantage"


def analyse(ctx: Context) -> None:
    if ctx.design.uniform:
        ctx.table("order", lambda: seats.order_win_rates(subset(ctx.f, ctx.design.uniform),
                                                         ctx.level, ctx.correction))


def build(ctx: Context) -> Section:
    if not ctx.design.uniform:
        return Section(TITLE, ["Every setting seats different policies: their seats are "
                               "compared in the policies section."])
    w = ctx.w
    order = ctx.table("order")
    blocks = [
        "Seats are counted clockwise from the First Player of round 1 (who is drawn at random). "
        "The First Player starts in the caboose, the next player in the car in front of it, "
        "and so on alternately; the First Player role moves clockwise every round.",
        ctx.facet_figure(
            "seats_order", "Win rate by seat counted from the First Player of round 1, Wilson "
            "95% intervals; dashed: the fair share 1/players.", order,
            lambda ax, rows, series, colours, title: plots.plot_order_win_rates(
                ax, rows, "order", series, colours, title=title, legend=False),
            positions=int(order["order"].max()) + 1),
        w.table("seats_order", "Win rate by seat from the First Player", order, pd.DataFrame({
            "setting": order["label"],
            "seat": order["order"].map(seat_label),
            "win rate (95% CI)": [pct_ci(*r) for r in order[["rate", "lo", "hi"]].itertuples(
                index=False)],
            "vs fair (pp)": order["vs_fair"].map(pp),
            "mean score": order["mean_score"].map(usd),
            "adjusted p": order["p_adjusted"].map(p_value),
            "significant": order["significant"].map(yes)})),
    ]
    return Section(TITLE, [b for b in blocks if b is not None])
