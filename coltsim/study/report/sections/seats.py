"""The seat section: the First Player's advantage, in the settings where every seat plays one
policy (at a table of different policies, seats are compared in the policies section)."""
from __future__ import annotations

import pandas as pd

from ....analysis import seats
from ....analysis.headline import subset
from ... import plots
from .. import sentences as S
from ..context import Context
from ..document import Section
from ....words import seat_label
from ..formatting import p_value, pct_ci, pp, pp_ci, usd, yes

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
            lambda ax, rows, series, colours, title: plot_order_win_rates(
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


# --- the headline's sentences ------------------------------------------------------------------
def headline(ctx: Context, table: pd.DataFrame) -> list:
    rows = table[(table["kind"] == "setting") & table["first_player_edge"].notna()]
    order = ctx.table("order") if "order" in ctx.cache else None
    first = order[order["order"] == 0] if order is not None else None
    significant = set(first.loc[first["significant"], "setting"]) if first is not None else set()
    groups = S.groups(rows)
    if len(groups) > S.MAX_GROUPS:
        sig = rows[rows["setting"].isin(significant)]
        return [f"The First Player's advantage (win rate minus the fair share) is significant "
                f"in {len(sig)} of {len(rows)} settings"
                + (f", from {pp(sig['first_player_edge'].min())} to "
                   f"{pp(sig['first_player_edge'].max())} points" if len(sig) else "") + "."]
    out = []
    for (condition, policy), g in groups:
        parts = [pp_ci(r["first_player_edge"], r["first_player_edge_lo"],
                       r["first_player_edge_hi"]) + f" at {r['players']} players"
                 + ("" if r["setting"] in significant else
                    " (" + S.not_significant(ctx, r["first_player_edge_lo"],
                                             r["first_player_edge_hi"]) + ")")
                 for _, r in g.iterrows()]
        out.append(S.lead(S.where(ctx, condition, policy), "the First Player's advantage (the "
                         "win rate of the First Player of round 1 minus the fair share, "
                         "percentage points, 95% CI)") + "; ".join(parts) + ".")
    return out


# --- figures -------------------------------------------------------------------------------------
def plot_order_win_rates(ax, table: pd.DataFrame, column: str = "order", series: str = "label",
                         colours: dict | None = None,
                         title: str = "Win rate by seat from the First Player",
                         legend: bool = True):
    """Win rate by order (0 = First Player of round 1) or by seat, per series, Wilson 95%
    intervals and the fair share.  ``table``: :func:`seats.order_win_rates` or
    :func:`seats.seat_win_rates` (then pass ``column="seat"``)."""
    xs = sorted(table[column].unique())
    artists = {"series": plots.dodged(ax, table, column, xs, "rate", "lo", "hi", series, colours,
                                      100)}
    artists["fair"] = plots.fair_lines(ax, table, series, colours, "fair_share", 100)
    if column == "order":
        ax.set_xticklabels([plots.wrap(seat_label(x), 12) for x in xs])
        ax.set_xlabel("seat, clockwise from the First Player of round 1")
    else:
        ax.set_xlabel("seat (player number)")
    ax.set_ylabel("win rate (%)")
    ax.set_title(title)
    if legend:
        artists["legend"] = plots.legend_below(ax)
    return artists
