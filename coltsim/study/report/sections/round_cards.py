"""The round-card section: each round and station card's effect on scores and bandits."""
from __future__ import annotations

import pandas as pd

from ....analysis import round_cards
from ....analysis.frames import setting_order
from ....analysis.metrics import GAME_METRICS
from ... import plots
from ...labels import card_label
from ..context import Context
from ..document import Section
from ..formatting import metric_ci, metric_value, p_value, pct, pp_ci, usd_ci, yes


def build(ctx: Context):
    f, w, corr, lvl = ctx.f, ctx.w, ctx.correction, ctx.level
    effects = round_cards.card_effects(f, level=lvl, correction=corr)
    if effects.empty:
        return Section("Round and station cards", [
            "No round or station card varies between games (the rules fix the deck)."]), []
    by_bandit = round_cards.card_bandit_effects(f, lvl, corr)
    positions = round_cards.card_position_effects(f, level=lvl, correction=corr)
    headline = []
    ms = effects[effects["metric"] == "mean_score"]
    sig = ms[ms["significant"]]
    if len(sig):
        top = sig.loc[sig["effect"].abs().idxmax()]
        headline.append(f"The card that moves scores most is {card_label(top['card'])}: "
                        f"{usd_ci(top['effect'], top['lo'], top['hi'], signed=True)} per "
                        f"bandit at {top['label']}, against a deck with another card in its "
                        "place.")
    blocks = [
        "Each game's deck holds 4 of the 7 round cards plus 1 of the 3 station cards, drawn at "
        "random, so \"with the card minus without\" is the effect of having that card in the "
        "deck instead of an average other card (station cards: instead of another station "
        "card). Because every deck holds the same number of cards, a card that raises scores "
        "makes the others look slightly negative.",
        w.figure("cards_mean_score", "Change in the mean score per bandit with each card in the "
                 "deck, 95% intervals.",
                 lambda fig, ax: plots.plot_card_effects(ax[0], effects, "mean_score"),
                 size=(8, 6)),
    ]
    others = [m for m in GAME_METRICS if m != "mean_score"]

    def other_metrics(fig, axes):
        for ax, m in zip(axes, others):
            plots.plot_card_effects(ax, effects, m, legend=False)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", frameon=False,
                   ncols=min(len(labels), 4), fontsize="small")

    blocks.append(w.figure("cards_other_metrics", "Change in the spread of scores, shots, "
                           "neutral bullets and the Gunslinger changing the winner with each "
                           "card in the deck, 95% intervals.", other_metrics, size=(14, 11),
                           grid=(2, 2)))
    blocks.append(w.table("cards_effects", "Card effects on game metrics", effects, pd.DataFrame({
        "setting": effects["label"], "card": effects["card"].map(card_label),
        "metric": effects["metric"],
        "with": [metric_value(m, x) for m, x in zip(effects["metric"], effects["with_card"])],
        "without": [metric_value(m, x) for m, x in zip(effects["metric"],
                                                         effects["without_card"])],
        "change (95% CI)": [metric_ci(m, x, lo, hi) for m, x, lo, hi in effects[
            ["metric", "effect", "lo", "hi"]].itertuples(index=False)],
        "adjusted p": effects["p_adjusted"].map(p_value),
        "significant": effects["significant"].map(yes)})))

    present = [s for s in setting_order(f) if s in set(by_bandit["setting"])]
    if present:
        blocks.append(w.per_setting_figure(
            "cards_by_bandit", "Change in each bandit's win rate (percentage points) with "
            f"each card in the deck; * = significant after {ctx.corr_name} correction.", present,
            lambda ax, sid: plots.plot_card_bandit_heatmap(ax, by_bandit, sid),
            max_cols=2, panel=(8, 5.5)))
        shown = by_bandit[by_bandit["significant"]].sort_values("p_adjusted").head(30)
        blocks.append(w.table("cards_by_bandit", "Card effects on each bandit's win rate",
                              by_bandit, pd.DataFrame({
                                  "setting": shown["label"], "card": shown["card"].map(card_label),
                                  "bandit": shown["bandit"].str.title(),
                                  "with": shown["rate_with"].map(pct),
                                  "without": shown["rate_without"].map(pct),
                                  "change, pp (95% CI)": [pp_ci(*r) for r in shown[
                                      ["effect", "lo", "hi"]].itertuples(index=False)],
                                  "adjusted p": shown["p_adjusted"].map(p_value)}),
                              note=f"Shown: the significant rows ({len(shown)} of "
                                   f"{len(by_bandit)}, at most 30)."))
    pos_present = [s for s in setting_order(f) if s in set(positions["setting"])]
    if pos_present:
        blocks.append(w.per_setting_figure(
            "cards_by_position", "Change in the mean score per bandit when the card is the "
            "round-j card, against decks without it, 95% intervals.", pos_present,
            lambda ax, sid: plots.plot_card_positions(ax, positions, sid),
            max_cols=2, panel=(8, 5)))
        shown = positions[positions["significant"]].sort_values("p_adjusted").head(30)
        blocks.append(w.table("cards_by_position", "Card effects by position in the deck",
                              positions, pd.DataFrame({
                                  "setting": shown["label"], "card": shown["card"].map(card_label),
                                  "round": shown["position"],
                                  "change (95% CI)": [metric_ci(m, x, lo, hi) for m, x, lo, hi
                                                      in shown[["metric", "effect", "lo", "hi"]]
                                                      .itertuples(index=False)],
                                  "adjusted p": shown["p_adjusted"].map(p_value)}),
                              note=f"Shown: the significant rows ({len(shown)} of "
                                   f"{len(positions)}, at most 30)."))
    return Section("Round and station cards", blocks), headline
