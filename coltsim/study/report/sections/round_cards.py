"""The round-card section: each round and station card's effect on scores and bandits."""
from __future__ import annotations

import pandas as pd

from ....analysis import round_cards
from ....analysis.metrics import GAME_METRICS
from ... import plots
from ...labels import card_label
from ..context import Context
from ..document import Section
from ..formatting import bandit, metric_ci, metric_name, metric_value, p_value, pct, pp_ci, yes

TITLE = "Round and station cards"
MAX_PANELS = 6
MAX_ROWS = 30


def analyse(ctx: Context) -> None:
    f, lvl, corr = ctx.f, ctx.level, ctx.correction
    ctx.table("cards", lambda: round_cards.card_effects(f, level=lvl, correction=corr))
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
            lambda ax, rows, series, colours, title: plots.plot_card_effects(
                ax, rows, "mean_score", series, colours, title=title, legend=False),
            positions=10, horizontal=True, legend_extra=plots.significance_handles()),
    ]
    others = [m for m in GAME_METRICS if m != "mean_score"]
    facets = ctx.facets(effects)
    keys = [(m, k) for m in others for k in facets]

    def other(ax, key):
        metric, facet = key
        rows = ctx.in_facet(effects, facet)
        series, colours = ctx.series(rows)
        plots.plot_card_effects(ax, rows, metric, series, colours, legend=False,
                                title=plots.panel_title(
                                    f"{plots.METRIC_TITLES[metric].capitalize()}, "
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
            lambda ax, u: plots.plot_card_bandit_heatmap(ax, by_bandit, u[0], u[1]),
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
            lambda ax, u: plots.plot_card_positions(ax, positions, u[0], legend=False),
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
