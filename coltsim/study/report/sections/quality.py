"""The game-quality section: is a game tense, is it decided early, can a player come back, and
how often does a card do nothing (coltsim.analysis.quality), per setting and, for the
conditions compared, paired on the same deals."""
from __future__ import annotations

import pandas as pd

from ....analysis import quality as Q
from ... import plots
from .. import sentences as S
from ..context import Context
from ..document import Section
from ..formatting import count, p_value, quality_ci, yes

TITLE = "Game quality"
WHAT = ("Lead changes count how often the leaders changed from one round's end to the next "
        "and at the final count (the leaders: the players with the highest score as the rules "
        "count it then, the Gunslinger bonus only at the end; a tie at the top is a state of its "
        "own). The deciding round is the round after which the final winner led for good ({end}: "
        "only the final count, the Gunslinger bonus or the tie-break, made it the winner). A "
        "comeback is a victory (a shared one in part) by a player last, or tied for last, after "
        "the penultimate round. The margin is the first final score minus the second. A card "
        "did nothing when it resolved without effect: a Fire without a bullet or a target, a "
        "Robbery with nothing to take, a Punch with nobody to punch (a Move, a Floor Change and "
        "a Marshal card always do something).")


def analyse(ctx: Context) -> None:
    games = ctx.table("quality_games", lambda: Q.game_quality(ctx.f), test=False)
    ctx.table("quality", lambda: Q.quality(ctx.f, ctx.level, games), test=False)
    if ctx.design.pairs():
        ctx.table("quality_changes", lambda: Q.quality_changes(ctx.f, ctx.design.pairs(),
                                                               ctx.level, games))


def build(ctx: Context) -> Section:
    table = ctx.table("quality")
    known = [m for m in Q.METRICS if table[m].notna().any()]
    rounds = ctx.f.settings["rounds"].astype(int) if "rounds" in ctx.f.settings else None
    end = "rounds + 1" if rounds is None or rounds.nunique() > 1 else str(rounds.iloc[0] + 1)
    blocks = [WHAT.format(end=end)]
    missing = [Q.METRICS[m][0] for m in Q.METRICS if m not in known]
    if missing:
        blocks.append("Not recorded by the engine that played these games: "
                      + "; ".join(missing) + ".")
    policies = list(dict.fromkeys(table["policy"]))
    keys = [(m, p) for p in policies for m in known]
    axis = ctx.design.axis
    # Against a swept value each condition is one value: the lines are the player counts.
    plotted = table.assign(series=table["players"].map("{} players".format)) if axis else table
    series, colours = ("series", {f"{n} players": c for n, c in ctx.colours["players"].items()}) \
        if axis else ("condition", ctx.colours["condition"])

    def panel(ax, key):
        metric, policy = key
        plot_quality(ax, plotted[plotted["policy"] == policy], metric, series, colours,
                     "value" if axis else "players",
                     title=Q.METRICS[metric][0] + (f", {policy}" if len(policies) > 1 else ""))
        ax.set_xlabel(axis.replace("_", " ") if axis else "")

    if len(table) > 1:  # one setting: a panel of one point per metric says less than the table
        blocks.append(ctx.w.panels("quality", "Game quality in each setting, 95% intervals.",
                                   keys, panel, panel=(4.2, 3.6), max_cols=3,
                                   rows=len(policies) if len(policies) > 1 else None))
    blocks.append(ctx.w.table("quality", "Game quality per setting (95% CI)", table,
                              pd.DataFrame({"setting": table["label"],
                                            "games": table["games"].map(count),
                                            **{Q.METRICS[m][0]: _cells(table, m) for m in known}})))
    changes = ctx.table("quality_changes") if "quality_changes" in ctx.cache else None
    if changes is not None and len(changes):
        blocks.append(ctx.w.table(
            "quality_changes", "Game quality against the baseline on the same deals (setting "
            "minus baseline, paired)", changes, pd.DataFrame({
                "setting": changes["label"], "baseline": changes["baseline_label"],
                "quantity": changes["description"],
                "baseline value": [quality_ci(r.quantity, r.baseline_mean, None, None)
                                   for r in changes.itertuples()],
                "value": [quality_ci(r.quantity, r.mean, None, None)
                          for r in changes.itertuples()],
                "difference (95% CI)": [quality_ci(r.quantity, r.difference, r.lo, r.hi, True)
                                        for r in changes.itertuples()],
                "adjusted p": changes["p_adjusted"].map(p_value),
                "significant": changes["significant"].map(yes)})))
    return Section(TITLE, blocks)


def _cells(table: pd.DataFrame, metric: str) -> list[str]:
    return [quality_ci(metric, *r) for r in table[[metric, f"{metric}_lo", f"{metric}_hi"]]
            .itertuples(index=False)]


# --- the headline's sentences ------------------------------------------------------------------
def headline(ctx: Context, table: pd.DataFrame) -> list:
    """Every game-quality metric of each setting (its range over the settings when there are
    many), then how each condition changes it on the same deals ("the advanced rules make games
    decided a round later")."""
    rows = table[table["kind"] == "setting"]
    known = [m for m in Q.METRICS if rows[m].notna().any()]
    if not known:
        return []
    groups = S.groups(rows)
    out = []
    if len(groups) > S.MAX_GROUPS:
        out.append("Game quality, lowest to highest over the settings: " + ", ".join(
            f"{Q.METRICS[m][0]} {quality_ci(m, rows[m].min(), None, None)} to "
            f"{quality_ci(m, rows[m].max(), None, None)}" for m in known)
            + " (every setting: the game-quality section).")
    else:
        for (condition, policy), g in groups:
            parts = [f"{r['players']} players: " + ", ".join(
                f"{Q.METRICS[m][0]} "
                f"{quality_ci(m, r[m], r[f'{m}_lo'], r[f'{m}_hi'], n=r['games'])}"
                for m in known) for _, r in g.iterrows()]
            out.append(S.lead(S.where(ctx, condition, policy), "game quality (95% CI)")
                       + "; ".join(parts) + ".")
    changes = ctx.table("quality_changes") if "quality_changes" in ctx.cache else None
    if changes is None or not len(changes):
        return out
    for (condition, policy), g in changes.groupby(["condition", "policy"], sort=False):
        base = ctx.design.row(g["baseline"].iloc[0])["condition_label"]
        out.append(S.capital(f"{condition} against {base}")
                   + f" ({policy} players, same deals), the change in game quality: "
                   + "; ".join(_quality_change(ctx, m, rows) for m, rows in
                               g.groupby("quantity", sort=False)) + ".")
    return out


def _quality_change(ctx: Context, metric: str, rows: pd.DataFrame) -> str:
    """One metric's change over the player counts: its interval at one, its range at several,
    and how many are significant."""
    players = sorted(rows["players"])
    if len(rows) == 1:
        r = rows.iloc[0]
        return (f"{Q.METRICS[metric][0]} {quality_ci(metric, r.difference, r.lo, r.hi, True)} at "
                f"{r.players} players" + ("" if r.significant else
                                          ", " + S.not_significant(ctx, r.lo, r.hi)))
    low, high = rows["difference"].min(), rows["difference"].max()
    return (f"{Q.METRICS[metric][0]} {quality_ci(metric, low, None, None, True)} to "
            f"{quality_ci(metric, high, None, None, True)} at {players[0]} to {players[-1]} "
            f"players ({int(rows['significant'].sum())} of {len(rows)} significant)")


# --- figures -------------------------------------------------------------------------------------
def plot_quality(ax, table: pd.DataFrame, metric: str, series: str = "condition",
                 colours: dict | None = None, x: str = "players", title: str | None = None):
    """One game-quality metric (:func:`quality.quality`: ``<metric>, <metric>_lo,
    <metric>_hi``) per setting with its 95% interval: against the player count, one series per
    condition, or against the swept value (``x="value"``); shares in percent."""
    words, kind = Q.METRICS[metric]
    scale = 100 if kind in ("share", "ratio") else 1
    t = table.dropna(subset=[metric])
    if x == "value":
        artists = plots.plot_lines(ax, t, "value", metric, f"{metric}_lo", f"{metric}_hi", series,
                                   colours, scale)
    else:
        order = sorted(t[x].unique())
        artists = plots.dodged(ax, t, x, order, metric, f"{metric}_lo", f"{metric}_hi", series,
                               colours, scale)
        ax.set_xticklabels([f"{n} players" for n in order] if x == "players" else order)
    unit = " (%)" if scale == 100 else " ($)" if metric == "margin" else ""
    ax.set_ylabel(plots.wrap(words + unit, 34))
    ax.set_title(plots.panel_title(title or words))
    return {"series": artists}
