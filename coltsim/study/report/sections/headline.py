"""The headline: the answer to the experiment's question, per setting and per player count: the
focus bandits first (the experiment's ``focus``), then in the order of the experiment's
analyses, then the figures of the answer (against the swept value for a numeric sweep) and the
table behind it (``tables/headline.csv``: one row per setting and player count, one per
comparison, each once per focus bandit, one per policy at a mixed table)."""
from __future__ import annotations

import pandas as pd

from ....analysis import balance
from ....analysis.headline import (
    DEPENDS, INCONCLUSIVE, PRECISION_ANALYSES, ROBUST, answers, games_per_setting,
    interval_widths,
)
from ....analysis.headline import compute as compute_tables
from ....analysis.power import games_to_reach
from ....analysis.quality import METRICS as QUALITY
from ... import plots
from ...labels import card_label
from ..context import Context
from ..document import Table
from ..formatting import (
    bandit, count, is_missing, pct, pct_ci, points, pp, pp_ci, quality_ci, too_few, usd_ci,
)
from .compare import verdict

MAX_SENTENCES = 8  # comparisons told one by one; more are grouped by condition


def analyse(ctx: Context) -> None:
    """The focus bandits' effects and their changes between compared settings (tests of the
    report's family)."""
    if not ctx.focus or not ctx.design.uniform:
        return
    f, lvl, corr = ctx.f, ctx.level, ctx.correction
    effects = ctx.table("effects", lambda: balance.bandit_effects(f, "win", lvl, corr))
    # An interval: the same question is tested as the bandit's win-rate difference (compare).
    ctx.table("focus_changes", lambda: balance.effect_changes(effects, ctx.design.pairs(),
                                                              ctx.focus), test=False)


def compute(ctx: Context) -> pd.DataFrame:
    """The headline table (after the family of tests is adjusted)."""
    tables = {k: (v.table if hasattr(v, "table") else v) for k, v in ctx.cache.items()}
    tables["games"] = games_per_setting(ctx.f)
    if "order" in tables:
        order = tables["order"]
        tables["first_player"] = order[order["order"] == 0].reset_index(drop=True)
    if "cards" in tables:
        cards = tables["cards"]
        tables["cards"] = cards[cards["significant"]]
    table = answers(tables, ctx.design, ctx.focus)
    if "gunslinger_bonus" in ctx.design.settings:  # a $0 title decides nothing
        unpaid = set(ctx.design.settings.loc[
            ctx.design.settings["gunslinger_bonus"].astype(int) == 0, "setting"])
        rows = (table["kind"] == "setting") & table["setting"].isin(unpaid)
        table.loc[rows, ["gunslinger_decided", "gunslinger_decided_lo",
                         "gunslinger_decided_hi"]] = float("nan")
    return table


def build(ctx: Context, table: pd.DataFrame) -> list:
    ctx.w.files.table("headline", table)
    blocks = _focus(ctx, table)
    full, table = table, once(table, ctx.focus)
    for analysis in ctx.analyses:
        blocks += SENTENCES[analysis](ctx, table)
    blocks += figures(ctx, table)
    settings = table[table["kind"] == "setting"]
    if len(settings):
        blocks.append(_settings_table(ctx, full, settings))
    comparisons = table[table["kind"] == "comparison"]
    if len(comparisons):
        blocks.append(_comparisons_table(ctx, full, comparisons))
    return blocks


def once(table: pd.DataFrame, focus) -> pd.DataFrame:
    """The headline's rows once each: with several focus bandits, the setting and comparison
    rows of the first."""
    if len(focus) < 2:
        return table
    return table[table["focus"].isna() | (table["focus"] == focus[0])]


def precision_note(ctx: Context, target: float, cap: int) -> str:
    """The precision a run asked for and the one it reached: the widest of the headline's
    win-rate intervals (coltsim.analysis.headline.interval_widths, also written to
    ``tables/precision.csv``) against the target."""
    widths = interval_widths(compute_tables(ctx.f, ctx.design, PRECISION_ANALYSES, ctx.level),
                             ctx.design)
    ctx.w.files.table("precision", widths)
    games = int(games_per_setting(ctx.f).min())
    asked = f"±{points(target, 2)} points"
    if not len(widths):
        return f"Precision asked: {asked}; the results give no win-rate interval to narrow."
    w = widths.iloc[0]
    widest = f"±{points(w['half_width'], 2)} points ({w['interval']}, {w['label']})"
    if w["half_width"] <= target:
        return (f"Precision: every win-rate interval of the headline is within {asked}, as "
                f"asked, with {count(games)} games per setting; the widest is {widest}.")
    more = games_to_reach(games, float(w["half_width"]), target, 10**12, overshoot=1.0,
                          growth=(1.0, float("inf")))
    return (f"Precision: {asked} asked, not reached within the cap of {count(cap)} games per "
            f"setting: with {count(games)} games the widest win-rate interval of the headline "
            f"is {widest}; about {count(more)} games per setting would reach it.")


# --- sentences ---------------------------------------------------------------------------------
def _focus(ctx: Context, table: pd.DataFrame) -> list:
    """The focus bandits first: each one's effect per setting, then how each comparison moves
    it (paired, on the same deals)."""
    effects = ctx.table("effects").table if "effects" in ctx.cache else None
    changes = ctx.table("focus_changes") if "focus_changes" in ctx.cache else None
    many_policies = len(ctx.design.policies) > 1
    out = []
    for name in ctx.focus:
        rows = table[(table["kind"] == "setting") & (table["focus"] == name)
                     & table["focus_effect"].notna()]
        for (condition, policy), g in _groups(rows):
            parts = [f"{r['players']} players "
                     + pp_ci(r["focus_effect"], r["focus_lo"], r["focus_hi"])
                     + ("" if _significant(effects, r["setting"], name) else
                        ", not significant") for _, r in g.iterrows()]
            where = _where(ctx, condition, policy)
            out.append(f"{bandit(name)}'s win rate against the average bandit (percentage "
                       "points, 95% CI)" + (f", {where}" if where else "") + ": "
                       + "; ".join(parts) + ".")
        if not len(rows):
            out.append(f"{bandit(name)} plays in none of the settings that seat one policy.")
        moved = table[(table["kind"] == "comparison") & (table["focus"] == name)
                      & table["focus_effect"].notna()]
        for (condition, base, policy), g in moved.groupby(
                ["condition", "baseline_condition", "policy"], sort=False):
            parts = []
            for _, r in g.iterrows():
                c = _one_change(changes, r["baseline"], r["setting"], name)
                parts.append(f"{r['players']} players {pp(c['baseline_effect'])} → "
                             f"{pp(c['effect'])}, "
                             f"{pp_ci(r['focus_effect'], r['focus_lo'], r['focus_hi'])}")
            out.append(f"{bandit(name)}'s effect, {condition} against {base}"
                       + (f" ({policy} players" if many_policies else " (")
                       + (", " if many_policies else "") + "same deals; change in "
                       "percentage points, 95% CI): " + "; ".join(parts) + ".")
    return out


def _one_change(changes: pd.DataFrame, baseline, setting, name) -> pd.Series:
    hit = changes[(changes["baseline"] == baseline) & (changes["setting"] == setting)
                  & (changes["bandit"] == name)]
    return hit.iloc[0]


# Up to this many groups of rows (a condition and policy, over its player counts) are told one
# sentence each; more are summed up in one sentence, the table below giving every row.
MAX_GROUPS = 3


def _where(ctx: Context, condition: str, policy: str) -> str:
    """What a group of rows shares, as the start of a sentence."""
    parts = [condition] if len(ctx.design.conditions) > 1 else []
    if len(ctx.design.policies) > 1:
        parts.append(f"{policy} players")
    return ", ".join(parts)


def _lead(where: str, what: str) -> str:
    """``"Printed rules: what: "``, or ``"What: "`` when nothing needs saying first."""
    return _capital(f"{where}: {what}" if where else what) + ": "


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _groups(rows: pd.DataFrame):
    return list(rows.groupby(["condition", "policy"], sort=False))


def _robust(row) -> str:
    return f" [{row['robust']}]" if isinstance(row["robust"], str) and row["robust"] else ""


def _tally(values) -> str:
    """``"Belle in 10 settings, Tuco in 2"``."""
    counts = pd.Series(list(values)).value_counts()
    parts = [f"{bandit(b)} in {n} setting{'s' if n != 1 else ''}" if i == 0 else
             f"{bandit(b)} in {n}" for i, (b, n) in enumerate(counts.items())]
    return ", ".join(parts)


def _robust_tally(rows: pd.DataFrame) -> str:
    marked = rows[rows["robust"] != ""]
    if not len(marked):
        return ""
    counts = marked["robust"].value_counts()
    return " Against the two strongest policies: " + ", ".join(
        f"{counts.get(v, 0)} of {len(marked)} {v}" for v in (ROBUST, DEPENDS, INCONCLUSIVE)
        if counts.get(v, 0)) + "."


def _significant(effects, setting, name) -> bool:
    if effects is None:
        return True
    hit = effects[(effects["setting"] == setting) & (effects["bandit"] == name)]
    return bool(len(hit)) and bool(hit["significant"].iloc[0])


def _balance(ctx: Context, table: pd.DataFrame) -> list:
    rows = table[(table["kind"] == "setting") & table["strongest"].notna()]
    effects = ctx.table("effects").table if "effects" in ctx.cache else None
    if not len(rows):
        return []
    groups = _groups(rows)
    if len(groups) > MAX_GROUPS:
        top = [r["strongest"] for _, r in rows.iterrows()
               if _significant(effects, r["setting"], r["strongest"])]
        bottom = [r["weakest"] for _, r in rows.iterrows()
                  if _significant(effects, r["setting"], r["weakest"])]
        none = len(rows) - len(top)
        return [f"Strongest bandit (significantly above the average bandit): "
                f"{_tally(top) or 'none'}; weakest (significantly below): "
                f"{_tally(bottom) or 'none'}"
                + (f"; {none} of {len(rows)} settings have no bandit significantly above the "
                   "average" if none else "") + ". The spread between the strongest and the weakest bandit "
                f"ranges from {points(rows['spread'].min())} to {points(rows['spread'].max())}"
                " percentage points (every setting: the table and figure below)."
                + _robust_tally(rows)]
    out = []
    for (condition, policy), g in groups:
        parts = []
        for _, r in g.iterrows():
            if is_missing(r["spread_lo"]):  # a bandit named from a game or two: not an answer
                parts.append(f"{r['players']} players: {too_few(r['games'])}")
                continue
            sig = _significant(effects, r["setting"], r["strongest"])
            parts.append(f"{r['players']} players: {bandit(r['strongest'])} "
                         f"{pp(r['strongest_effect'])} / {bandit(r['weakest'])} "
                         f"{pp(r['weakest_effect'])}, spread "
                         f"{pp_ci(r['spread'], r['spread_lo'], r['spread_hi'], signed=False)}"
                         + ("" if sig else " (no bandit significantly above the average)")
                         + _robust(r))
        out.append(_lead(_where(ctx, condition, policy), "strongest / weakest bandit (win "
                         "rate against the average bandit, percentage points) and the spread "
                         "between them (95% CI)") + "; ".join(parts) + ".")
    return out


def _comparison_sentence(r) -> str:
    parts = []
    if isinstance(r["strongest"], str):
        parts.append(f"spread {points(r['baseline_spread'])} → {points(r['spread'])} points, "
                     f"{pp_ci(r['spread_change'], r['spread_change_lo'], r['spread_change_hi'])}"
                     + ("" if r["spread_change_significant"] is True
                        or r["spread_change_hi"] - r["spread_change_lo"] < 1e-12
                        else ", not significant"))
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


def _compare(ctx: Context, table: pd.DataFrame) -> list:
    rows = table[table["kind"] == "comparison"]
    if not len(rows):
        return []
    many_policies = len(ctx.design.policies) > 1
    if len(rows) <= MAX_SENTENCES:
        return [_capital(f"{r['condition']} against {r['baseline_condition']} "
                         f"({r['players']} players" + (f", {r['policy']}" if many_policies else "")
                         + ", same deals): " + _comparison_sentence(r) + "." + _robust(r))
                for _, r in rows.iterrows()]
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
                     + f" points ({best['condition']}, {best['players']} players"
                     + (f", {best['policy']}" if many_policies else "") + ")")
        out.append(text + "." + _robust_tally(changes))
    played = rows.dropna(subset=["played_differently"])
    still = played[played["played_differently"] == 0]
    if len(played):
        out.append(f"The players reacted (played differently in some games) in "
                   f"{len(played) - len(still)} of {len(played)} comparisons"
                   + (f"; in the other {len(still)} the difference is rescoring" if len(still)
                      else "") + ".")
    return out


def _policies(ctx: Context, table: pd.DataFrame) -> list:
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


def _gunslinger(ctx: Context, table: pd.DataFrame) -> list:
    rows = table[(table["kind"] == "setting") & table["gunslinger_decided"].notna()]
    groups = _groups(rows)
    if len(groups) > MAX_GROUPS:
        return [f"The Gunslinger bonus changes the winner in {pct(rows['gunslinger_decided'].min())}"
                f" to {pct(rows['gunslinger_decided'].max())} of the games, depending on the "
                "setting (every setting: the table below)."]
    out = []
    for (condition, policy), g in groups:
        parts = [pct_ci(r["gunslinger_decided"], r["gunslinger_decided_lo"],
                        r["gunslinger_decided_hi"]) + f" at {r['players']} players"
                 for _, r in g.iterrows()]
        out.append(_lead(_where(ctx, condition, policy), "the Gunslinger bonus changes the "
                         "winner in this share of games (95% CI)") + "; ".join(parts) + ".")
    return out


def _seats(ctx: Context, table: pd.DataFrame) -> list:
    rows = table[(table["kind"] == "setting") & table["first_player_edge"].notna()]
    order = ctx.table("order") if "order" in ctx.cache else None
    first = order[order["order"] == 0] if order is not None else None
    significant = set(first.loc[first["significant"], "setting"]) if first is not None else set()
    groups = _groups(rows)
    if len(groups) > MAX_GROUPS:
        sig = rows[rows["setting"].isin(significant)]
        return [f"The First Player's advantage (win rate minus the fair share) is significant "
                f"in {len(sig)} of {len(rows)} settings"
                + (f", from {pp(sig['first_player_edge'].min())} to "
                   f"{pp(sig['first_player_edge'].max())} points" if len(sig) else "") + "."]
    out = []
    for (condition, policy), g in groups:
        parts = [pp_ci(r["first_player_edge"], r["first_player_edge_lo"],
                       r["first_player_edge_hi"]) + f" at {r['players']} players"
                 + ("" if r["setting"] in significant else " (not significant)")
                 for _, r in g.iterrows()]
        out.append(_lead(_where(ctx, condition, policy), "the First Player's advantage (the "
                         "win rate of the First Player of round 1 minus the fair share, "
                         "percentage points, 95% CI)") + "; ".join(parts) + ".")
    return out


def _round_cards(ctx: Context, table: pd.DataFrame) -> list:
    rows = table[table["kind"] == "setting"]
    groups = _groups(rows)
    found = rows.dropna(subset=["top_card"])
    if len(groups) > MAX_GROUPS or not len(found):
        if not len(found):
            return ["No round or station card moves the mean score per bandit significantly "
                    "in any setting."]
        top = found.loc[found["top_card_effect"].abs().idxmax()]
        return [f"A card moves the mean score per bandit significantly in {len(found)} of "
                f"{len(rows)} settings; the largest: {card_label(top['top_card'])}, "
                + usd_ci(top["top_card_effect"], top["top_card_lo"], top["top_card_hi"],
                         signed=True)
                + f" per bandit ({top['condition']}, {top['players']} players)."]
    out = []
    for (condition, policy), g in groups:
        parts = [f"{card_label(r['top_card'])} at {r['players']} players, "
                 + usd_ci(r["top_card_effect"], r["top_card_lo"], r["top_card_hi"], signed=True)
                 if isinstance(r["top_card"], str) else
                 f"none significantly at {r['players']} players" for _, r in g.iterrows()]
        out.append(_lead(_where(ctx, condition, policy), "the card that moves the mean score "
                         "per bandit most, against a deck with another card in its place")
                   + "; ".join(parts) + ".")
    return out


def _head_to_head(ctx: Context, table: pd.DataFrame) -> list:
    """The most one-sided pair of each setting."""
    pairs = ctx.table("head_to_head")
    pairs = pairs[pairs["rate"] >= 0.5]
    out = []
    groups = _groups(pairs)
    for (condition, policy), g in groups[:MAX_GROUPS]:
        parts = []
        for players, rows in g.groupby("players", sort=False):
            top = rows.loc[rows["rate"].idxmax()]
            parts.append(f"{players} players: {bandit(top['bandit'])} ahead of "
                         f"{bandit(top['opponent'])} in "
                         f"{pct_ci(top['rate'], top['lo'], top['hi'])} of their games")
        out.append(_lead(_where(ctx, condition, policy), "the most one-sided pair of bandits "
                         "at the same table (95% CI)") + "; ".join(parts) + ".")
    if len(groups) > MAX_GROUPS:
        out.append(f"Every pair of every setting: the head-to-head section "
                   f"({len(groups) - MAX_GROUPS} more conditions and policies).")
    return out


def _quality(ctx: Context, table: pd.DataFrame) -> list:
    """Every game-quality metric of each setting (its range over the settings when there are
    many), then how each condition changes it on the same deals ("the advanced rules make games
    decided a round later")."""
    rows = table[table["kind"] == "setting"]
    known = [m for m in QUALITY if rows[m].notna().any()]
    if not known:
        return []
    groups = _groups(rows)
    out = []
    if len(groups) > MAX_GROUPS:
        out.append("Game quality, lowest to highest over the settings: " + ", ".join(
            f"{QUALITY[m][0]} {quality_ci(m, rows[m].min(), None, None)} to "
            f"{quality_ci(m, rows[m].max(), None, None)}" for m in known)
            + " (every setting: the game-quality section).")
    else:
        for (condition, policy), g in groups:
            parts = [f"{r['players']} players: " + ", ".join(
                f"{QUALITY[m][0]} {quality_ci(m, r[m], r[f'{m}_lo'], r[f'{m}_hi'], n=r['games'])}"
                for m in known) for _, r in g.iterrows()]
            out.append(_lead(_where(ctx, condition, policy), "game quality (95% CI)")
                       + "; ".join(parts) + ".")
    changes = ctx.table("quality_changes") if "quality_changes" in ctx.cache else None
    if changes is None or not len(changes):
        return out
    many_policies = len(ctx.design.policies) > 1
    for (condition, policy), g in changes.groupby(["condition", "policy"], sort=False):
        base = ctx.design.row(g["baseline"].iloc[0])["condition_label"]
        out.append(_capital(f"{condition} against {base}")
                   + (f" ({policy} players, " if many_policies else " (")
                   + "same deals), the change in game quality: "
                   + "; ".join(_quality_change(m, rows) for m, rows in
                               g.groupby("quantity", sort=False)) + ".")
    return out


def _quality_change(metric: str, rows: pd.DataFrame) -> str:
    """One metric's change over the player counts: its interval at one, its range at several,
    and how many are significant."""
    players = sorted(rows["players"])
    if len(rows) == 1:
        r = rows.iloc[0]
        return (f"{QUALITY[metric][0]} {quality_ci(metric, r.difference, r.lo, r.hi, True)} at "
                f"{r.players} players" + ("" if r.significant else ", not significant"))
    low, high = rows["difference"].min(), rows["difference"].max()
    return (f"{QUALITY[metric][0]} {quality_ci(metric, low, None, None, True)} to "
            f"{quality_ci(metric, high, None, None, True)} at {players[0]} to {players[-1]} "
            f"players ({int(rows['significant'].sum())} of {len(rows)} significant)")


SENTENCES = {"balance": _balance, "compare": _compare, "policies": _policies,
             "head_to_head": _head_to_head, "quality": _quality, "gunslinger": _gunslinger,
             "seats": _seats, "round_cards": _round_cards}


# --- figures -----------------------------------------------------------------------------------
def figures(ctx: Context, table: pd.DataFrame) -> list:
    """The answer as figures: the spread in every setting (against the swept value for a
    numeric sweep) and, for a sweep, each bandit's effect, the Gunslinger's decisiveness and the
    change in mean score against the swept value."""
    settings = table[(table["kind"] == "setting") & table["spread"].notna()]
    if not ({"balance", "compare"} & set(ctx.analyses)) or len(settings) < 2:
        return []
    axis = ctx.design.axis
    policies = list(dict.fromkeys(settings["policy"]))
    players = {f"{n} players": c for n, c in ctx.colours["players"].items()}
    settings = settings.assign(series=settings["players"].map("{} players".format))

    def spread(ax, policy):
        plots.plot_spreads(ax, settings[settings["policy"] == policy],
                           "value" if axis else "condition", "series", players,
                           title=_panel_title(policy, policies, "Spread between bandits"),
                           legend=False)
        _axis_label(ax, axis)

    width = 8.0 if axis else max(5.0, 1.1 * len(ctx.design.conditions) + 2.5)
    named = "" if axis or settings.groupby("policy").size().max() > 12 else \
        "; above each: its strongest / weakest bandit"
    out = [ctx.w.panels("headline_spread", "The answer: the strongest minus the weakest bandit "
                        "(percentage points of win rate) in each setting, 95% intervals"
                        + (f", against {_words(axis)}" if axis else "") + named + ".",
                        policies, spread,
                        panel=(min(width, 12.0), 4.2), max_cols=2, sharey=True)]
    if axis is None:
        return out
    effects = ctx.table("effects").table
    value = ctx.design.settings.set_index("setting")["value"]
    rank = {b: i for i, b in enumerate(plots.BANDIT_COLOURS)}
    sweep = effects.assign(value=effects["setting"].map(value), series=effects["bandit"]
                           .map(bandit), _rank=effects["bandit"].map(rank))
    sweep = sweep.dropna(subset=["value"]).sort_values("_rank", kind="stable")
    bandits = {bandit(b): c for b, c in ctx.colours["bandit"].items()}

    def bandit_lines(ax, rows, series, colours, title):
        plots.plot_lines(ax, rows, "value", "estimate", "lo", "hi", "series", bandits, 100)
        ax.axhline(0, **plots.ZERO_STYLE)
        ax.set_title(title)
        ax.set_ylabel("against the average bandit (pp)")
        _axis_label(ax, axis)

    out.append(ctx.facet_figure(
        "sweep_bandits", f"Each bandit's win rate minus the average bandit's (percentage "
        f"points) against {_words(axis)}, 95% intervals (bands).", sweep, bandit_lines))
    for column, kind, name, what, scale in (
            ("gunslinger_decided", "setting", "sweep_gunslinger",
             "games the Gunslinger bonus decides (%)", 100),
            ("mean_score_change", "comparison", "sweep_mean_score",
             "change in the mean score per bandit against the baseline ($)", 1)):
        rows = table[(table["kind"] == kind) & table[column].notna() & table["value"].notna()]
        if not len(rows):
            continue
        rows = rows.assign(series=rows["players"].map("{} players".format))

        def lines(ax, policy, rows=rows, column=column, what=what, scale=scale):
            plots.plot_lines(ax, rows[rows["policy"] == policy], "value", column,
                             f"{column}_lo", f"{column}_hi", "series", players, scale)
            ax.set_ylabel(plots.wrap(what, 34))
            ax.set_title(_panel_title(policy, policies, ""))
            _axis_label(ax, axis)

        out.append(ctx.w.panels(name, f"The {what.split(' (')[0]} against {_words(axis)}, "
                                "95% intervals (bands).",
                                [p for p in policies if (rows["policy"] == p).any()], lines,
                                panel=(6.0, 4.0), max_cols=2))
    return out


def _words(option: str) -> str:
    return option.replace("_", " ")


def _panel_title(policy: str, policies: list, single: str) -> str:
    return plots.panel_title(policy) if len(policies) > 1 else single


def _axis_label(ax, axis):
    ax.set_xlabel(_words(axis) if axis else "")


# --- tables ------------------------------------------------------------------------------------
def _focus_cells(ctx: Context, table: pd.DataFrame, rows: pd.DataFrame, unit: str) -> dict:
    """A column per focus bandit: its effect (a setting row) or the change of its effect (a
    comparison row) with its interval, from the headline rows of that bandit."""
    cells = {}
    def key(r):
        return r.kind, r.setting, r.baseline if isinstance(r.baseline, str) else ""

    for name in ctx.focus:
        mine = {key(r): pp_ci(r.focus_effect, r.focus_lo, r.focus_hi)
                for r in table[table["focus"] == name].itertuples()}
        cells[f"{bandit(name)}, {unit} (95% CI)"] = [mine.get(key(r), "")
                                                    for r in rows.itertuples()]
    return cells


def _settings_table(ctx: Context, table: pd.DataFrame, rows: pd.DataFrame) -> Table:
    display = {"setting": rows["condition"], "players": rows["players"]}
    if len(ctx.design.policies) > 1:
        display["policy"] = rows["policy"]
    display.update(_focus_cells(ctx, table, rows, "pp"))
    if rows["strongest"].notna().any():
        display["strongest (pp)"] = [f"{bandit(b)} {pp(e)}" if isinstance(b, str) else ""
                                     for b, e in zip(rows["strongest"], rows["strongest_effect"])]
        display["weakest (pp)"] = [f"{bandit(b)} {pp(e)}" if isinstance(b, str) else ""
                                   for b, e in zip(rows["weakest"], rows["weakest_effect"])]
        display["spread, pp (95% CI)"] = [pp_ci(*r, signed=False, n=n) for r, n in zip(rows[
            ["spread", "spread_lo", "spread_hi"]].itertuples(index=False), rows["games"])]
    if rows["gunslinger_decided"].notna().any():
        display["Gunslinger decides (95% CI)"] = [pct_ci(*r) for r in rows[
            ["gunslinger_decided", "gunslinger_decided_lo", "gunslinger_decided_hi"]]
            .itertuples(index=False)]
    if rows["first_player_edge"].notna().any():
        display["First Player edge, pp (95% CI)"] = [pp_ci(*r) for r in rows[
            ["first_player_edge", "first_player_edge_lo", "first_player_edge_hi"]]
            .itertuples(index=False)]
    if "round_cards" in ctx.analyses:
        display["card moving the score most, $ (95% CI)"] = [
            f"{card_label(c)} {usd_ci(e, lo, hi, signed=True)}" if isinstance(c, str) else "none"
            for c, e, lo, hi in rows[["top_card", "top_card_effect", "top_card_lo",
                                      "top_card_hi"]].itertuples(index=False)]
    if (rows["robust"] != "").any():
        display["robust"] = rows["robust"]
    note = "One row per setting and player count" + (
        ", then one per comparison (the table below)." if (table["kind"] == "comparison").any()
        else ".")
    return Table("headline", "The answer per setting and player count", table,
                 pd.DataFrame(display), note)


def _comparisons_table(ctx: Context, table: pd.DataFrame, rows: pd.DataFrame) -> Table:
    display = {"setting": rows["condition"], "baseline": rows["baseline_condition"],
               "players": rows["players"]}
    if len(ctx.design.policies) > 1:
        display["policy"] = rows["policy"]
    display.update(_focus_cells(ctx, table, rows, "change, pp"))
    if rows["spread_change"].notna().any():
        display["spread, pp"] = [f"{points(a)} → {points(b)}" for a, b in
                                 zip(rows["baseline_spread"], rows["spread"])]
        display["change, pp (95% CI)"] = [pp_ci(*r) for r in rows[
            ["spread_change", "spread_change_lo", "spread_change_hi"]].itertuples(index=False)]
        display["strongest"] = [bandit(a) if a == b else f"{bandit(a)} → {bandit(b)}"
                                for a, b in zip(rows["baseline_strongest"], rows["strongest"])]
    if rows["mean_score_change"].notna().any():
        display["mean score (95% CI)"] = [usd_ci(*r, signed=True) for r in rows[
            ["mean_score_change", "mean_score_change_lo", "mean_score_change_hi"]]
            .itertuples(index=False)]
    if rows["played_differently"].notna().any():
        display["played differently"] = rows["played_differently"].map(pct)
    if (rows["robust"] != "").any():
        display["robust"] = rows["robust"]
    return Table("headline", "The answer per comparison (same deals)", table,
                 pd.DataFrame(display))
