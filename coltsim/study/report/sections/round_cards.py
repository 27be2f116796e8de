"""The round-card section: each round and station card's effect on game quality (lead changes,
the deciding round, comebacks, cards that did nothing), on scores and on the bandits' wins; the
cards ranked by their effect on lead changes."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ....analysis import quality as Q
from ....analysis import round_cards
from ....analysis.frames import BANDITS
from ....analysis.metrics import GAME_METRICS
from ....results import ROUND_CARDS
from ....results import STATIONS as STATION_CARDS
from ... import plots
from ...labels import card_label
from .. import sentences as S
from ..context import Context
from ..document import Section
from ..formatting import (
    bandit, metric_ci, metric_name, metric_value, p_value, pct, pp_ci, quality_ci, usd_ci, yes,
)

TITLE = "Round and station cards"
MAX_PANELS = 6
MAX_ROWS = 30


def analyse(ctx: Context) -> None:
    f, lvl, corr = ctx.f, ctx.level, ctx.correction
    ctx.table("cards", lambda: round_cards.card_effects(f, level=lvl, correction=corr))
    games = ctx.table("quality_games", lambda: Q.game_quality(f), test=False)
    ctx.table("cards_quality", lambda: round_cards.card_quality_effects(f, lvl, corr, games))
    ctx.table("cards_by_bandit", lambda: round_cards.card_bandit_effects(f, lvl, corr))
    ctx.table("cards_by_position",
              lambda: round_cards.card_position_effects(f, level=lvl, correction=corr))


def _first_condition(ctx: Context, table: pd.DataFrame) -> tuple[list, str]:
    """The (setting, policy) panels to draw: all, or those of the first condition when there
    are more than :data:`MAX_PANELS` (with a note saying so)."""
    units = list(dict.fromkeys(zip(table["setting"], table["policy"])))
    if len(units) <= MAX_PANELS:
        return units, ""
    first = ctx.design.conditions[0]
    shown = [u for u in units if (table.loc[table["setting"] == u[0], "condition"] == first)
             .any()][:MAX_PANELS]
    return shown, f" Shown: {len(shown)} of {len(units)} settings ({first}); every row is in " \
                  "the table."


def build(ctx: Context) -> Section:
    w = ctx.w
    effects = ctx.table("cards")
    if effects.empty:
        return Section(TITLE, ["No round or station card varies between games (the rules fix "
                               "the deck)."])
    by_bandit = ctx.table("cards_by_bandit")
    positions = ctx.table("cards_by_position")
    blocks = [
        "Each game's deck holds 4 of the 7 round cards plus 1 of the 3 station cards, drawn at "
        "random, so \"with the card minus without\" is the effect of having that card in the "
        "deck instead of an average other card (station cards: instead of another station "
        "card). Because every deck holds the same number of cards, a card that raises scores "
        "makes the others look slightly negative.",
        ctx.facet_figure(
            "cards_mean_score", "Change in the mean score per bandit with each card in the "
            "deck, 95% intervals; hollow markers are not significant.",
            effects[effects["metric"] == "mean_score"],
            lambda ax, rows, series, colours, title: plot_card_effects(
                ax, rows, "mean_score", series, colours, title=title, legend=False),
            positions=10, horizontal=True, legend_extra=plots.significance_handles()),
    ]
    quality = ctx.table("cards_quality")
    lead = quality[quality["metric"] == "lead_changes"]  # games that record the round scores
    if len(lead):
        blocks.append(ctx.facet_figure(
            "cards_lead_changes", "Change in the lead changes per game with each card in the "
            "deck, 95% intervals; hollow markers are not significant.", lead,
            lambda ax, rows, series, colours, title: plot_card_effects(
                ax, rows, "lead_changes", series, colours, title=title, legend=False),
            positions=10, horizontal=True, legend_extra=plots.significance_handles()))
    if len(quality):
        blocks.append(ranking(ctx, effects, quality, by_bandit))
    others = [m for m in GAME_METRICS if m != "mean_score"]
    facets = ctx.facets(effects)
    keys = [(m, k) for m in others for k in facets]

    def other(ax, key):
        metric, facet = key
        rows = ctx.in_facet(effects, facet)
        series, colours = ctx.series(rows)
        plot_card_effects(ax, rows, metric, series, colours, legend=False,
                                title=plots.panel_title(
                                    f"{METRIC_TITLES[metric].capitalize()}, "
                                    f"{ctx.facet_title(facet)}"))

    series = max(ctx.in_facet(effects, k)["label"].nunique() for k in facets)
    blocks.append(w.panels("cards_other_metrics", "Change in the spread of scores, shots, "
                           "neutral bullets and the Gunslinger changing the winner with each "
                           "card in the deck, 95% intervals.", keys, other,
                           panel=(5.0, max(4.6, 1.2 + 0.75 * series)), rows=len(others),
                           legend_extra=plots.significance_handles()))
    fewer = effects[["n_with", "n_without"]].min(axis=1)  # the games of the smaller side
    blocks.append(w.table("cards_effects", "Card effects on game metrics", effects, pd.DataFrame({
        "setting": effects["label"], "card": effects["card"].map(card_label),
        "metric": effects["metric"].map(metric_name),
        "with": [metric_value(m, x) for m, x in zip(effects["metric"], effects["with_card"])],
        "without": [metric_value(m, x) for m, x in zip(effects["metric"],
                                                         effects["without_card"])],
        "change (95% CI)": [metric_ci(m, x, lo, hi, n) for (m, x, lo, hi), n in zip(effects[
            ["metric", "effect", "lo", "hi"]].itertuples(index=False), fewer)],
        "adjusted p": effects["p_adjusted"].map(p_value),
        "significant": effects["significant"].map(yes)})))

    if len(by_bandit):
        shown, note = _first_condition(ctx, by_bandit)
        blocks.append(w.panels(
            "cards_by_bandit", "Change in each bandit's win rate (percentage points) with "
            "each card in the deck; * = significant (see Methods)." + note, shown,
            lambda ax, u: plot_card_bandit_heatmap(ax, by_bandit, u[0], u[1]),
            max_cols=2, panel=(7.5, 5.5), legend=False))
        sig = by_bandit[by_bandit["significant"]].sort_values("p_adjusted").head(MAX_ROWS)
        blocks.append(w.table("cards_by_bandit", "Card effects on each bandit's win rate",
                              by_bandit, pd.DataFrame({
                                  "setting": sig["label"], "card": sig["card"].map(card_label),
                                  "bandit": sig["bandit"].map(bandit),
                                  "with": sig["rate_with"].map(pct),
                                  "without": sig["rate_without"].map(pct),
                                  "change, pp (95% CI)": [pp_ci(*r) for r in sig[
                                      ["effect", "lo", "hi"]].itertuples(index=False)],
                                  "adjusted p": sig["p_adjusted"].map(p_value)}),
                              note=f"Shown: the significant rows ({len(sig)} of "
                                   f"{len(by_bandit)}, at most {MAX_ROWS})."))
    if len(positions):
        shown, note = _first_condition(ctx, positions)
        blocks.append(w.panels(
            "cards_by_position", "Change in the mean score per bandit when the card is the "
            "round-j card, against decks without it, 95% intervals." + note, shown,
            lambda ax, u: plot_card_positions(ax, positions, u[0], legend=False),
            max_cols=2, panel=(6.5, 4.6)))
        sig = positions[positions["significant"]].sort_values("p_adjusted").head(MAX_ROWS)
        blocks.append(w.table("cards_by_position", "Card effects by position in the deck",
                              positions, pd.DataFrame({
                                  "setting": sig["label"], "card": sig["card"].map(card_label),
                                  "round": sig["position"],
                                  "change (95% CI)": [metric_ci(m, x, lo, hi) for m, x, lo, hi
                                                      in sig[["metric", "effect", "lo", "hi"]]
                                                      .itertuples(index=False)],
                                  "adjusted p": sig["p_adjusted"].map(p_value)}),
                              note=f"Shown: the significant rows ({len(sig)} of "
                                   f"{len(positions)}, at most {MAX_ROWS})."))
    return Section(TITLE, [b for b in blocks if b is not None])


def ranking(ctx: Context, effects: pd.DataFrame, quality: pd.DataFrame,
            by_bandit: pd.DataFrame):
    """Each card's effect on game quality beside its effect on loot (the mean score) and on the
    winner (the bandit whose win rate it moves most, where significant), the cards of each
    setting ranked by their effect on lead changes, the most first (where the games record
    the round scores)."""
    rows = []
    for (setting, card), g in quality.groupby(["setting", "card"], sort=False):
        row = {"setting": setting, "label": g["label"].iloc[0], "players": g["players"].iloc[0],
               "policy": g["policy"].iloc[0], "card": card}
        for r in g.itertuples():
            row.update({r.metric: r.effect, f"{r.metric}_lo": r.lo, f"{r.metric}_hi": r.hi,
                        f"{r.metric}_significant": r.significant})
        score = effects[(effects["setting"] == setting) & (effects["card"] == card)
                        & (effects["metric"] == "mean_score")]
        if len(score):
            row.update(mean_score=score["effect"].iloc[0], mean_score_lo=score["lo"].iloc[0],
                       mean_score_hi=score["hi"].iloc[0])
        moved = by_bandit[(by_bandit["setting"] == setting) & (by_bandit["card"] == card)
                          & by_bandit["significant"]]
        if len(moved):
            top = moved.loc[moved["effect"].abs().idxmax()]
            row.update(bandit=top["bandit"], bandit_effect=top["effect"],
                       bandit_lo=top["lo"], bandit_hi=top["hi"])
        rows.append(row)
    table = pd.DataFrame(rows)
    ranked = "lead_changes" in table
    if ranked:
        order = {s: i for i, s in enumerate(ctx.design.settings["setting"])}
        table = table.sort_values(["setting", "lead_changes"], ascending=[True, False],
                                  key=lambda c: c.map(order) if c.name == "setting" else c,
                                  kind="stable").reset_index(drop=True)
    known = [m for m in Q.METRICS if m in table]
    display = {"setting": table["label"],
               "card": [card_label(c) + (" (station)" if c in STATION_CARDS else "")
                        for c in table["card"]]}
    for m in known:
        display[f"{Q.METRICS[m][0]} (95% CI)"] = [
            quality_ci(m, r[m], r[f"{m}_lo"], r[f"{m}_hi"], signed=True)
            for _, r in table.iterrows()]
    if "mean_score" in table:
        display["mean score per bandit (95% CI)"] = [
            usd_ci(r["mean_score"], r["mean_score_lo"], r["mean_score_hi"], signed=True)
            for _, r in table.iterrows()]
    display["bandit's win rate moved most, pp (95% CI)"] = [
        f"{bandit(r['bandit'])} {pp_ci(r['bandit_effect'], r['bandit_lo'], r['bandit_hi'])}"
        if isinstance(r.get("bandit"), str) else "none significantly"
        for _, r in table.iterrows()]
    return ctx.w.table("cards_quality", "Each card's effect on game quality, loot and the "
                       "winner (with the card minus without)"
                       + (", ranked by its effect on lead changes" if ranked else ""),
                       quality, pd.DataFrame(display),
                       note="Every metric's test, adjusted p-value and significance: the full "
                            "table.")


# --- the headline's sentences ------------------------------------------------------------------
def headline(ctx: Context, table: pd.DataFrame) -> list:
    return _score_sentences(ctx, table) + _lead_sentences(ctx, table)


def _lead_sentences(ctx: Context, table: pd.DataFrame) -> list:
    """The round cards of each setting ranked by their effect on lead changes per game."""
    quality = ctx.table("cards_quality")
    lead = quality[(quality["metric"] == "lead_changes") & (quality["kind"] == "round")]
    rows = table[(table["kind"] == "setting") & table["setting"].isin(set(lead["setting"]))]
    groups = S.groups(rows)
    if not len(groups):
        return []
    if len(groups) > S.MAX_GROUPS:
        top = lead.loc[lead.groupby("setting", sort=False)["effect"].idxmax()]
        counts = top.loc[top["significant"], "card"].map(card_label).value_counts()
        return [f"The round card that adds most lead changes per game (significantly, against "
                f"a deck with another card in its place), of {len(rows)} settings: "
                + (", ".join(f"{c} in {n}" for c, n in counts.items()) or "none")
                + " (every card: the round-card section)."]
    out = []
    for (condition, policy), g in groups:
        parts = []
        for _, r in g.iterrows():
            cards = lead[lead["setting"] == r["setting"]].sort_values("effect", ascending=False)
            parts.append(f"{r['players']} players: " + ", ".join(
                f"{card_label(c.card)} {quality_ci('lead_changes', c.effect, c.lo, c.hi, True)}"
                for c in cards.itertuples()))
        out.append(S.lead(S.where(ctx, condition, policy), "the round cards ranked by their "
                          "effect on lead changes per game, against a deck with another card "
                          "in its place (95% CI)") + "; ".join(parts) + ".")
    return out


def _score_sentences(ctx: Context, table: pd.DataFrame) -> list:
    rows = table[table["kind"] == "setting"]
    groups = S.groups(rows)
    found = rows.dropna(subset=["top_card"])
    if len(groups) > S.MAX_GROUPS or not len(found):
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
        out.append(S.lead(S.where(ctx, condition, policy), "the card that moves the mean score "
                         "per bandit most, against a deck with another card in its place")
                   + "; ".join(parts) + ".")
    return out


# --- figures -------------------------------------------------------------------------------------
METRIC_TITLES = {"mean_score": "mean score", "score_spread": "spread of scores",
                 "shots": "shots fired", "neutral_bullets": "neutral bullets",
                 "gunslinger_changed_winner": "Gunslinger changing the winner",
                 "lead_changes": "lead changes"}


def plot_card_effects(ax, table: pd.DataFrame, metric: str = "mean_score",
                      series: str = "label", colours: dict | None = None,
                      title: str | None = None, legend: bool = True):
    """Forest plot of :func:`round_cards.card_effects` (or of
    :func:`round_cards.card_quality_effects`) for one metric: each card's shift (games with it
    minus games without), 95% interval, one colour per series; hollow markers are not
    significant."""
    t = table[table["metric"] == metric]
    cards = plots.ordered(t["card"], ROUND_CARDS + STATION_CARDS)[::-1]
    t = t.assign(_card=t["card"].map(card_label))
    desc, kind = {**GAME_METRICS, **Q.METRICS}[metric]
    scale = 100 if kind in ("rate", "share", "ratio") else 1
    artists = {"series": plots.dodged(ax, t, "_card", [card_label(c) for c in cards], "effect",
                                      "lo", "hi", series, colours, scale, horizontal=True,
                                      significant="significant")}
    artists["zero"] = ax.axvline(0, **plots.ZERO_STYLE)
    unit = " (percentage points)" if scale == 100 else ""
    ax.set_xlabel(plots.wrap(f"change in {desc}{unit} with the card in the deck", 48))
    ax.set_title(title or f"Cards: {METRIC_TITLES.get(metric, metric)}")
    if legend:
        artists["legend"] = plots.legend_below(ax, plots.significance_handles())
    return artists


def plot_card_bandit_heatmap(ax, table: pd.DataFrame, setting: str | None = None,
                             policy: str | None = None,
                             title: str = "Win-rate shift by card and bandit"):
    """Heatmap of :func:`round_cards.card_bandit_effects` for one setting (and policy): change
    of each bandit's win rate (percentage points) with the card in the deck; ``*`` marks
    significant cells after correction."""
    setting = setting or table["setting"].iloc[0]
    t = table[table["setting"] == setting]
    if policy is not None:
        t = t[t["policy"] == policy]
    cards = plots.ordered(t["card"], ROUND_CARDS + STATION_CARDS)
    bandits = plots.ordered(t["bandit"], BANDITS)
    grid = np.full((len(cards), len(bandits)), np.nan)
    sig = np.zeros_like(grid, bool)
    ci, bi = {c: i for i, c in enumerate(cards)}, {b: j for j, b in enumerate(bandits)}
    for _, r in t.iterrows():
        grid[ci[r["card"]], bi[r["bandit"]]] = 100 * r["effect"]
        sig[ci[r["card"]], bi[r["bandit"]]] = bool(r["significant"])
    texts = [plots.signed(v) + ("*" if s else "") for v, s in zip(grid.ravel(), sig.ravel())]
    artists = plots.heatmap(ax, grid, texts, sig, [b.title() for b in bandits],
                            [card_label(c) for c in cards],
                            "change in win rate (percentage points)")
    ax.set_xlabel("bandit")
    ax.set_ylabel("card in the deck")
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(f"{title}\n{plots.wrap(label, 50)}", fontsize="medium")
    return artists


def plot_card_positions(ax, table: pd.DataFrame, setting: str | None = None,
                        metric: str = "mean_score", title: str = "Effect by position in the deck",
                        legend: bool = True):
    """Lines of :func:`round_cards.card_position_effects` for one setting and metric: the
    shift when the card is the round-``j`` card, against games without it, 95% intervals."""
    setting = setting or table["setting"].iloc[0]
    t = table[(table["setting"] == setting) & (table["metric"] == metric)]
    cards = plots.ordered(t["card"], ROUND_CARDS)
    colours = plots.palette([card_label(c) for c in plots.ordered(list(ROUND_CARDS) + cards,
                                                                  ROUND_CARDS)], "tab10")
    artists = {"series": []}
    n_cards = max(len(cards), 1)
    for i, card in enumerate(cards):
        sub = t[t["card"] == card].sort_values("position")
        x = sub["position"].to_numpy(np.float64) + (i - (n_cards - 1) / 2) * 0.06
        y = sub["effect"].to_numpy(np.float64)
        err = plots.error_extents(y, sub["lo"], sub["hi"])
        artists["series"].append(ax.errorbar(x, y, yerr=err, fmt="-o",
                                             color=colours[card_label(card)], capsize=2,
                                             markersize=3, label=card_label(card)))
    artists["zero"] = ax.axhline(0, **plots.ZERO_STYLE)
    positions = sorted(t["position"].unique())
    ax.set_xticks(positions)
    ax.set_xticklabels([f"round {p}" for p in positions])
    ax.set_xlabel("position of the card in the round deck")
    ax.set_ylabel(plots.wrap(f"change in {GAME_METRICS[metric][0]}", 30))
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(f"{title}\n{plots.wrap(label, 50)}", fontsize="medium")
    if legend:
        artists["legend"] = plots.legend_below(ax)
    return artists
