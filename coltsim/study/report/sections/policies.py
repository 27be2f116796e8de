"""The policies section: tables of different policies, each played in every seat rotation on
the same deals (coltsim.study.tournament.rotations): each policy's share of the victories per
seat, and the seats of every rotation."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ....analysis import seats
from ....analysis.headline import subset, table_shares
from ... import plots
from ..context import Context
from ..document import Section
from ..formatting import count, p_value, pct, pct_ci, pp, usd, yes

TITLE = "Policies against each other"


def analyse(ctx: Context) -> None:
    tables = ctx.design.tables()
    if not tables:
        return
    ctx.table("policies", lambda: table_shares(ctx.f, ctx.design, ctx.level))
    rotations = [s for group in tables.values() for s in group]
    ctx.table("rotation_seats", lambda: seats.seat_win_rates(subset(ctx.f, rotations),
                                                             ctx.level, ctx.correction))


def build(ctx: Context) -> Section:
    if not ctx.design.tables():
        return Section(TITLE, ["Every setting seats one policy: there is no table of different "
                               "policies to compare."])
    w = ctx.w
    shares = ctx.table("policies")
    by_seat = ctx.table("rotation_seats")
    policies = seats_policy(ctx, by_seat)
    blocks = [
        "A table of different policies is played in every rotation of its seats on the same "
        "deals, so each policy plays every seat, bandit and First Player position of every "
        "deal. A policy's share is its share of the victories per seat it holds (a victory "
        "shared by m players counts 1/m), averaged over rotations; deals are the independent "
        "units of its interval. Against equals every seat would win the fair share "
        "1/players.",
        w.figure("policy_shares", "Each policy's share of the victories per seat at each table, "
                 "95% intervals over deals; dashed: the fair share.",
                 lambda fig, ax: plot_policy_shares(ax[0], shares,
                                                          colours=ctx.colours["policy"]),
                 size=(8, 1.4 + 0.45 * _row_places(shares)[1])),
        w.table("policies", "Share of the victories per seat", shares, pd.DataFrame({
            "table": shares["label"], "policy": shares["policy"], "seats": shares["seats"],
            "games": shares["games"].map(count),
            "share per seat (95% CI)": [pct_ci(*r) for r in shares[
                ["win_rate", "ci_low", "ci_high"]].itertuples(index=False)],
            "fair share": shares["fair_share"].map(pct),
            "mean score": shares["mean_score"].map(usd),
            "adjusted p": shares["p_adjusted"].map(p_value),
            "significant": shares["significant"].map(yes)})),
        w.table("policies_by_rotation", "Win rate of each seat in each rotation", by_seat,
                pd.DataFrame({
                    "rotation": by_seat["label"], "seat": by_seat["seat"],
                    "policy": policies,
                    "win rate (95% CI)": [pct_ci(*r) for r in by_seat[["rate", "lo", "hi"]]
                                          .itertuples(index=False)],
                    "vs fair (pp)": by_seat["vs_fair"].map(pp),
                    "adjusted p": by_seat["p_adjusted"].map(p_value),
                    "significant": by_seat["significant"].map(yes)})),
    ]
    return Section(TITLE, blocks)


def seats_policy(ctx: Context, by_seat: pd.DataFrame) -> list[str]:
    """The policy in each row's seat."""
    s = ctx.design.settings.set_index("setting")["policies"]
    return [s[sid].split(",")[seat].strip() for sid, seat in zip(by_seat["setting"],
                                                                  by_seat["seat"])]


# --- the headline's sentences ------------------------------------------------------------------
def headline(ctx: Context, table: pd.DataFrame) -> list:
    rows = table[table["kind"] == "policy"]
    labels = ctx.design.settings.set_index("setting")["label"]
    tables = ctx.design.tables()
    out = []
    for setting, g in rows.groupby("setting", sort=False):
        parts = [f"{r['policy']} {pct_ci(r['win_share'], r['win_share_lo'], r['win_share_hi'])}"
                 for _, r in g.iterrows()]
        rotations = len(tables[setting])
        out.append(f"{labels[setting]}: share of the victories per seat (95% CI) "
                   + ", ".join(parts) + f", against a fair share of {pct(g['fair_share'].iloc[0])}"
                   f" ({count(g['games'].iloc[0] // rotations)} deals, each played in "
                   f"{rotations} seat rotations).")
    return out


# --- figures -------------------------------------------------------------------------------------
def _rows(table: pd.DataFrame) -> list:
    """The (table label, policy) pairs of the figure, bottom first."""
    return list(dict.fromkeys(zip(table["label"], table["policy"])))[::-1]


def _tick_labels(table: pd.DataFrame) -> list:
    """The figure's row labels, wrapped."""
    return [plots.wrap(f"{policy} at {label}", 34) for label, policy in _rows(table)]


def _row_places(table: pd.DataFrame) -> tuple[np.ndarray, float]:
    """Where each row of the figure sits, and their total height, in rows of one line: a
    label of k lines takes room for k/2 rows (at least one), so long ones do not overlap."""
    room = np.array([max(1.0, (t.count("\n") + 1) / 2) for t in _tick_labels(table)])
    return np.cumsum(room) - room / 2, float(room.sum())


def plot_policy_shares(ax, table: pd.DataFrame, title: str = "Share of the victories per seat",
                       colours: dict | None = None):
    """Each policy's share of the victories per seat at each mixed table, 95% interval over
    deals, with the fair share.  ``table``: ``coltsim.analysis.headline.table_shares``."""
    rows = _rows(table)
    colours = colours or plots.palette(table["policy"])
    y = _row_places(table)[0]
    artists = []
    for i, (label, policy) in enumerate(rows):
        r = table[(table["label"] == label) & (table["policy"] == policy)].iloc[0]
        x = 100 * r["win_rate"]
        err = plots.error_extents([x], [100 * r["ci_low"]], [100 * r["ci_high"]])
        artists.append(ax.errorbar([x], [y[i]], xerr=err, fmt="o", color=colours[policy],
                                   capsize=3))
    fair = table["fair_share"].unique()
    for v in fair:
        ax.axvline(100 * v, **plots.FAIR_STYLE)
    ax.set_yticks(y)
    ax.set_yticklabels(_tick_labels(table))
    ax.set_xlabel("victories per seat (%); dashed: the fair share")
    ax.set_title(title)
    return {"series": artists}
