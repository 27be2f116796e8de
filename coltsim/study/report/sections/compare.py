"""The comparison section: each condition against its baseline on the same deals, and whether
the players reacted to it at all."""
from __future__ import annotations

import pandas as pd

from ....analysis import balance, compare
from ....analysis.metrics import GAME_METRICS
from ... import plots
from .. import sentences as S
from ..context import Context
from ..document import Section
from ..formatting import (
    bandit, count, metric_ci, metric_value, num, p_value, pct, pct_ci, points, pp_ci, usd_ci, yes,
)

TITLE = "Comparison on the same deals"


def analyse(ctx: Context) -> None:
    f, lvl, corr = ctx.f, ctx.level, ctx.correction
    pairs = ctx.design.pairs()
    if not pairs:
        return
    effects = ctx.table("effects", lambda: balance.bandit_effects(f, "win", lvl, corr))
    ctx.table("spread_changes", lambda: balance.spread_changes(effects, pairs))
    ctx.table("compare", lambda: compare.compare(f, pairs, lvl, corr))
    ctx.table("play", lambda: compare.play_changes(f, pairs, lvl))


def verdict(row) -> str:
    """Whether the players reacted, in words (a row of compare.play_changes)."""
    if row["changed"] == 0 and row["rescored"] == 0:
        return "nothing changed: the same play and the same scores in every game"
    if row["changed"] == 0:
        return "the players did not react to this rule; the difference is rescoring"
    return f"play changed in {pct(row['changed_rate'])} of the games"


def _moved(before: str, after: str) -> str:
    return bandit(before) if before == after else f"{bandit(before)} → {bandit(after)}"


def build(ctx: Context) -> Section:
    w = ctx.w
    if not ctx.design.pairs():
        return Section(TITLE, ["Nothing to compare: no two settings share a player count and "
                               "policy."])
    table = ctx.table("compare")
    play = ctx.table("play")
    changes = ctx.table("spread_changes")
    blocks = [
        "Each setting is compared with the first condition listed at the same player count and "
        "policy (its baseline). Game i of both starts from the same deal, so differences are "
        "taken game by game (bandit by bandit, seat by seat) and their intervals come from the "
        "paired differences. A game was *played differently* when any bandit's actions "
        f"({', '.join(compare.PLAY_COLUMNS[c] for c in compare.play_columns(ctx.f.players))}), "
        "loot, bullets received or character differ from the baseline's game; a game played "
        "the same way with other scores was only *rescored*.",
        w.table("compare_play", "Did the players react?", play, pd.DataFrame({
            "setting": play["label"], "baseline": play["baseline_label"],
            "games": play["games"].map(count),
            "played differently (95% CI)": [pct_ci(*r) for r in play[
                ["changed_rate", "changed_lo", "changed_hi"]].itertuples(index=False)],
            "only rescored": play["rescored"].map(count),
            "verdict": [verdict(r) for _, r in play.iterrows()]})),
    ]
    if len(changes):
        blocks.append(w.table(
            "compare_spreads", "Spread between the strongest and weakest bandit (percentage "
            "points of win rate), baseline and setting, on the same deals", changes,
            pd.DataFrame({
                "setting": changes["label"], "baseline": changes["baseline_label"],
                "strongest": [_moved(a, b) for a, b in
                              zip(changes["baseline_strongest"], changes["strongest"])],
                "weakest": [_moved(a, b) for a, b in
                            zip(changes["baseline_weakest"], changes["weakest"])],
                "spread": [f"{points(a)} → {points(b)}" for a, b in
                           zip(changes["baseline_spread"], changes["spread"])],
                "change (95% CI)": [pp_ci(*r) for r in changes[["change", "lo", "hi"]]
                                    .itertuples(index=False)],
                "adjusted p": changes["p_adjusted"].map(p_value),
                "significant": changes["significant"].map(yes)})))
    for group, name, caption in (
            ("bandit", "compare_bandits", "Change in each bandit's win rate against the "
             "baseline on the same deals (percentage points), 95% paired intervals; hollow "
             "markers are not significant."),
            ("play", "compare_actions", "Change in each bandit's actions per game against the "
             "baseline on the same deals, 95% paired intervals."),
            ("seat", "compare_seats", "Change in the win rate of each seat, counted from the "
             "First Player of round 1, against the baseline on the same deals (percentage "
             "points), 95% paired intervals.")):
        rows = table[table["group"] == group]
        if len(rows):
            blocks.append(ctx.facet_figure(
                name, caption, rows,
                lambda ax, r, series, colours, title, g=group: plot_comparison(
                    ax, r, g, series, colours, title=title, legend=False),
                positions=rows["quantity"].nunique(), horizontal=True,
                legend_extra=plots.significance_handles()))

    def fmt(row):
        q = row["quantity"]
        if q in GAME_METRICS:
            return (metric_value(q, row["baseline_mean"]), metric_value(q, row["mean"]),
                    metric_ci(q, row["difference"], row["lo"], row["hi"]))
        if row["group"] == "play":
            return (num(row["baseline_mean"]), num(row["mean"]),
                    metric_ci("shots", row["difference"], row["lo"], row["hi"]))
        return (pct(row["baseline_mean"]), pct(row["mean"]),
                pp_ci(row["difference"], row["lo"], row["hi"], unit=" pp"))

    # Every game metric, bandit and seat; of the cards played, those that changed.
    shown = table[(table["group"] != "play") | table["significant"]]
    hidden = len(table) - len(shown)
    cells = [fmt(r) for _, r in shown.iterrows()]
    blocks.append(w.table("compare", "Differences on the same deals (setting minus baseline)",
                          table, pd.DataFrame({
                              "setting": shown["label"], "baseline": shown["baseline_label"],
                              "quantity": shown["description"],
                              "baseline value": [c[0] for c in cells],
                              "value": [c[1] for c in cells],
                              "difference (95% CI)": [c[2] for c in cells],
                              "adjusted p": shown["p_adjusted"].map(p_value),
                              "significant": shown["significant"].map(yes)}),
                          note=f"Of each bandit's cards played, only the significant changes are "
                               f"shown ({hidden} others are in the full table)." if hidden
                          else ""))
    return Section(TITLE, [b for b in blocks if b is not None])


# --- the headline's sentences ------------------------------------------------------------------
def comparison_sentence(ctx: Context, r) -> str:
    parts = []
    if isinstance(r["strongest"], str):
        parts.append(f"spread {points(r['baseline_spread'])} → {points(r['spread'])} points, "
                     f"{pp_ci(r['spread_change'], r['spread_change_lo'], r['spread_change_hi'])}"
                     + ("" if r["spread_change_significant"] is True
                        or r["spread_change_hi"] - r["spread_change_lo"] < 1e-12
                        else ", " + S.not_significant(ctx, r["spread_change_lo"],
                                                      r["spread_change_hi"])))
        if r["strongest"] != r["baseline_strongest"]:
            parts.append(f"strongest bandit {bandit(r['baseline_strongest'])} → "
                         f"{bandit(r['strongest'])}")
    if pd.notna(r["mean_score_change"]):
        parts.append("mean score " + usd_ci(r["mean_score_change"], r["mean_score_change_lo"],
                                            r["mean_score_change_hi"], signed=True))
    if isinstance(r["bandit_change_bandit"], str):
        parts.append(f"the largest change in a bandit's win rate is "
                     f"{bandit(r['bandit_change_bandit'])}'s, "
                     f"{pp_ci(r['bandit_change'], r['bandit_change_lo'], r['bandit_change_hi'])}"
                     " points")
    elif pd.notna(r["mean_score_change"]):
        parts.append("no bandit's win rate changes significantly")
    if pd.notna(r["played_differently"]):
        parts.append(verdict(_play(r)))
    return "; ".join(parts)


def _play(r) -> dict:
    return {"changed": round(r["played_differently"] * r["games"]), "rescored": r["rescored"],
            "changed_rate": r["played_differently"]}


def headline(ctx: Context, table: pd.DataFrame) -> list:
    rows = table[table["kind"] == "comparison"]
    if not len(rows):
        return []
    if len(rows) <= S.MAX_SENTENCES:
        return [S.capital(f"{r['condition']} against {r['baseline_condition']} "
                         f"({r['players']} {r['policy']} players, same deals): "
                         + comparison_sentence(ctx, r) + ".")
                for _, r in rows.iterrows()] + S.ladder(ctx, table, "comparison")
    changes = rows.dropna(subset=["spread_change"])
    out = []
    if len(changes):
        down = int((changes["spread_change_significant"].eq(True)
                    & (changes["spread_change"] < 0)).sum())
        up = int((changes["spread_change_significant"].eq(True)
                  & (changes["spread_change"] > 0)).sum())
        text = (f"Against {changes['baseline_condition'].iloc[0]}, on the same deals, the "
                f"spread between bandits narrows significantly in {down} of {len(changes)} "
                f"comparisons and widens in {up}")
        sig = changes[changes["spread_change_significant"].eq(True)]
        if len(sig):
            best = sig.loc[sig["spread_change"].abs().idxmax()]
            text += ("; the largest change is " + pp_ci(best["spread_change"],
                                                        best["spread_change_lo"],
                                                        best["spread_change_hi"])
                     + f" points ({best['condition']}, {best['players']} {best['policy']} "
                     "players)")
        out.append(text + "." + S.robust_tally(ctx, changes))
    played = rows.dropna(subset=["played_differently"])
    still = played[played["played_differently"] == 0]
    if len(played):
        out.append(f"The players reacted (played differently in some games) in "
                   f"{len(played) - len(still)} of {len(played)} comparisons"
                   + (f"; in the other {len(still)} the difference is rescoring" if len(still)
                      else "") + ".")
    return out


# --- figures -------------------------------------------------------------------------------------
def plot_comparison(ax, table: pd.DataFrame, group: str = "bandit", series: str = "label",
                    colours: dict | None = None, title: str | None = None,
                    legend: bool = True):
    """Forest plot of :func:`compare.compare` rows of one ``group`` ("bandit", "seat", "play"
    or "game"): each setting minus its baseline on the same seeds, 95% paired intervals, one
    series per compared setting; hollow markers are not significant."""
    t = table[table["group"] == group]
    t = t.assign(_q=t["quantity"].map(_quantity_label))
    quantities = list(dict.fromkeys(t["_q"]))[::-1]
    scale = 100 if group in ("bandit", "seat") else 1
    artists = {"series": plots.dodged(ax, t, "_q", quantities, "difference", "lo", "hi", series,
                                      colours, scale, horizontal=True, significant="significant")}
    artists["zero"] = ax.axvline(0, **plots.ZERO_STYLE)
    ax.set_xlabel({"game": "difference (units of each metric)",
                   "play": "change in actions per game"}.get(
        group, "difference in win rate (percentage points)"))
    ax.set_title(title or "Difference on the same seeds")
    if legend:
        artists["legend"] = plots.legend_below(ax, plots.significance_handles())
    return artists


def _quantity_label(q: str) -> str:
    if q.startswith("win:First Player"):
        return q[4:]
    if q.startswith("win:"):
        return q[4:].title()
    if ":" in q:
        action, bandit = q.split(":", 1)
        return f"{bandit.title()}: {action.replace('_', ' ')}"
    return GAME_METRICS.get(q, (q,))[0]
