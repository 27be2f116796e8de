"""The seat section: the First Player's advantage, and seats against each other."""
from __future__ import annotations

import pandas as pd

from ....analysis import seats
from ....analysis.frames import seat_policies
from ....results import Results
from ... import plots
from ..context import Context
from ..document import Section
from ..formatting import p_value, pct, pct_ci, pp, pp_ci, usd, yes


def build(ctx: Context):
    f, w, corr, lvl = ctx.f, ctx.w, ctx.correction, ctx.level
    order = seats.order_win_rates(f, lvl, corr)
    first = order[order["order"] == 0]
    parts = [f"{pp_ci(r.vs_fair, r.lo - r.fair_share, r.hi - r.fair_share)} at {r.label}"
             for r in first.itertuples()]
    n_sig = int(first["significant"].sum())
    verdict = ("significant in every setting" if n_sig == len(first) else
               "not significant in any setting" if n_sig == 0 else
               "significant at " + ", ".join(first.loc[first["significant"], "label"]))
    verdict += f" after {ctx.corr_name} correction"
    headline = ["First Player advantage (the win rate of the First Player of round 1 minus the "
                "fair share 1/players, percentage points, 95% CI): " + "; ".join(parts)
                + f"; {verdict}."]
    blocks = [
        "Seats are counted clockwise from the First Player of round 1 (who is drawn at random). "
        "The First Player starts in the caboose, the next player in the car in front of it, "
        "and so on alternately; the First Player role moves clockwise every round.",
        w.figure("seats_order", "Win rate by seat counted from the First Player of round 1, "
                 "Wilson 95% intervals; dashed: the fair share 1/players.",
                 lambda fig, ax: plots.plot_order_win_rates(ax[0], order), size=(9, 4.5)),
        w.table("seats_order", "Win rate by seat from the First Player", order, pd.DataFrame({
            "setting": order["label"],
            "seat": order["order"].map(lambda o: "First Player" if o == 0 else f"+{o}"),
            "win rate (95% CI)": [pct_ci(*r) for r in order[["rate", "lo", "hi"]].itertuples(
                index=False)],
            "vs fair (pp)": order["vs_fair"].map(pp),
            "mean score": order["mean_score"].map(usd),
            "adjusted p": order["p_adjusted"].map(p_value),
            "significant": order["significant"].map(yes)})),
    ]
    mixed = any(len(set(seat_policies(x))) > 1 for x in f.settings["policies"]) \
        if "policies" in f.settings else False
    if mixed:
        by_seat = seats.seat_win_rates(f, lvl, corr)
        blocks += [
            "Some settings seat different policies, so the win rate by seat (player number) "
            "measures the policies against each other.",
            w.figure("seats_by_seat", "Win rate by seat (player number), Wilson 95% intervals; "
                     "dashed: the fair share.",
                     lambda fig, ax: plots.plot_order_win_rates(
                         ax[0], by_seat, column="seat", title="Win rate by seat"), size=(9, 4.5)),
            w.table("seats_by_seat", "Win rate by seat (player number)", by_seat, pd.DataFrame({
                "setting": by_seat["label"], "seat": by_seat["seat"],
                "win rate (95% CI)": [pct_ci(*r) for r in by_seat[["rate", "lo", "hi"]]
                                      .itertuples(index=False)],
                "vs fair (pp)": by_seat["vs_fair"].map(pp),
                "adjusted p": by_seat["p_adjusted"].map(p_value),
                "significant": by_seat["significant"].map(yes)})),
        ]
        for r in by_seat[by_seat["seat"] == 0].itertuples():
            headline.append(f"Seat 0 ({_seat_policy(f, r.setting)}) wins "
                            f"{pct_ci(r.rate, r.lo, r.hi)} of games at {r.label}, against a "
                            f"fair share of {pct(r.fair_share)}.")
    return Section("Seat and First Player advantage", blocks), headline


def _seat_policy(f: Results, sid: str) -> str:
    row = f.settings[f.settings["setting"].astype(str) == sid]
    if not len(row):
        return "?"
    names = seat_policies(row["policies"].iloc[0])
    return names[0] if names else "?"
