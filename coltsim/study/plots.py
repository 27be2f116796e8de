"""One helper per figure of the reports.

Every helper takes the matplotlib ``Axes`` first and a table from :mod:`coltsim.analysis`, draws
on that axes only (titles, axis labels with units, intervals, fair-share lines) and returns the
artists it made, so a report, a notebook or a slide can compose them::

    fig, ax = plt.subplots()
    plot_win_rates(ax, balance.win_rates(results))

Rates are shown in percent, differences of rates in percentage points, scores in dollars.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis.frames import BANDITS
from ..results import ROUND_CARDS
from ..results import STATIONS as STATION_CARDS
from ..analysis.metrics import GAME_METRICS
from .labels import card_label

FAIR_STYLE = {"linestyle": "--", "linewidth": 1.0, "alpha": 0.8}
ZERO_STYLE = {"color": "0.3", "linestyle": "-", "linewidth": 0.8}
METRIC_TITLES = {"mean_score": "mean score", "score_spread": "spread of scores",
                 "shots": "shots fired", "neutral_bullets": "neutral bullets",
                 "gunslinger_changed_winner": "Gunslinger changing the winner"}
LOOT_COLOURS = {"purse": "#c49a6c", "jewel": "#3f88c5", "strongbox": "#7d7d7d",
                "ransom": "#8cb369", "bonus": "#d1495b"}


def _colours(n: int):
    cmap = __import__("matplotlib").colormaps["tab10"]
    return [cmap(i % 10) for i in range(n)]


def _ordered(values, preferred) -> list:
    values = list(dict.fromkeys(values))
    known = [v for v in preferred if v in values]
    return known + [v for v in values if v not in known]


def _settings_of(table: pd.DataFrame) -> list[tuple[str, str]]:
    seen = dict.fromkeys(zip(table["setting"], table["label"]))
    return list(seen)


def _dodged(ax, table, x_col, x_order, value, lo, hi, scale=1.0, fair_col=None, marker="o"):
    """Markers with error bars, one series per setting, dodged around each x position."""
    artists = {"series": [], "fair": []}
    settings = _settings_of(table)
    colours = _colours(len(settings))
    width = 0.7
    step = width / max(len(settings), 1)
    pos = {x: i for i, x in enumerate(x_order)}
    for i, ((sid, label), colour) in enumerate(zip(settings, colours)):
        sub = table[table["setting"] == sid]
        x = sub[x_col].map(pos).to_numpy(np.float64) - width / 2 + step * (i + 0.5)
        y = sub[value].to_numpy(np.float64) * scale
        err = np.vstack([y - sub[lo].to_numpy(np.float64) * scale,
                         sub[hi].to_numpy(np.float64) * scale - y])
        eb = ax.errorbar(x, y, yerr=np.abs(err), fmt=marker, color=colour, capsize=3,
                         markersize=5, label=label)
        artists["series"].append(eb)
        if fair_col is not None and len(sub):
            fair = float(sub[fair_col].iloc[0]) * scale
            line = ax.axhline(fair, color=colour, **FAIR_STYLE)
            artists["fair"].append(line)
    ax.set_xticks(range(len(x_order)))
    ax.set_xticklabels([str(x).title() if isinstance(x, str) else str(x) for x in x_order])
    ax.set_xlim(-0.6, len(x_order) - 0.4)
    return artists


def _legend_below(ax):
    """A legend under the axes, one row, so it never hides a marker."""
    handles, labels = ax.get_legend_handles_labels()
    width = max((len(lab) for lab in labels), default=1) + 6
    return ax.legend(handles, labels, fontsize="small", frameon=False, loc="upper center",
                     bbox_to_anchor=(0.5, -0.22), ncols=max(1, min(len(labels), 72 // width)))


def _legend(ax, fair_note: str | None = None):
    handles, labels = ax.get_legend_handles_labels()
    if fair_note:
        from matplotlib.lines import Line2D
        handles.append(Line2D([], [], color="0.3", **FAIR_STYLE))
        labels.append(fair_note)
    return ax.legend(handles, labels, fontsize="small", frameon=False, loc="best")


# --- character balance -------------------------------------------------------------------------
def plot_win_rates(ax, table: pd.DataFrame, title: str = "Win rate by bandit"):
    """Each bandit's win rate per setting with its Wilson 95% interval; the dashed line of a
    setting's colour is its fair share 1/players.  ``table``: :func:`balance.win_rates`."""
    bandits = _ordered(table["bandit"], BANDITS)
    artists = _dodged(ax, table, "bandit", bandits, "rate", "lo", "hi", 100, "fair_share")
    ax.set_ylabel("win rate (%)")
    ax.set_xlabel("bandit")
    ax.set_title(title)
    artists["legend"] = _legend(ax, "fair share (1 / players)")
    return artists


def plot_bandit_effects(ax, table: pd.DataFrame, outcome: str = "win",
                        title: str = "Bandit effect, controlling for seat and player count"):
    """Forest plot of :func:`balance.bandit_effects` (its ``table``): each bandit against the
    average bandit, 95% interval; filled markers are significant after correction."""
    t = table.iloc[::-1]
    scale, unit = (100, "percentage points") if outcome == "win" else (1, "$")
    y = np.arange(len(t))
    est = t["estimate"].to_numpy(np.float64) * scale
    err = np.vstack([est - t["lo"].to_numpy(np.float64) * scale,
                     t["hi"].to_numpy(np.float64) * scale - est])
    sig = t["significant"].to_numpy(bool)
    colours = np.where(est >= 0, "#2a7f62", "#b23a48")
    bars = ax.errorbar(est, y, xerr=np.abs(err), fmt="none", ecolor="0.35", capsize=3)
    filled = ax.scatter(est[sig], y[sig], c=list(colours[sig]), zorder=3, s=40,
                        label="significant")
    hollow = ax.scatter(est[~sig], y[~sig], facecolors="white", edgecolors=list(colours[~sig]),
                        zorder=3, s=40, label="not significant")
    zero = ax.axvline(0, **ZERO_STYLE)
    ax.set_yticks(y)
    ax.set_yticklabels([b.title() for b in t["bandit"]])
    what = "win rate" if outcome == "win" else "score"
    ax.set_xlabel(f"{what} minus the average bandit's ({unit})")
    ax.set_title(title)
    legend = ax.legend(fontsize="small", frameon=False, loc="lower right")
    return {"intervals": bars, "significant": filled, "other": hollow, "zero": zero,
            "legend": legend}


def plot_mean_scores(ax, table: pd.DataFrame, title: str = "Mean score by bandit"):
    """Each bandit's mean final score per setting with its 95% interval.
    ``table``: :func:`balance.mean_scores`."""
    bandits = _ordered(table["bandit"], BANDITS)
    artists = _dodged(ax, table, "bandit", bandits, "mean", "lo", "hi")
    ax.set_ylabel("mean final score ($)")
    ax.set_xlabel("bandit")
    ax.set_title(title)
    artists["legend"] = _legend(ax)
    return artists


def plot_loot_mix(ax, table: pd.DataFrame, setting: str | None = None,
                  title: str = "Where each bandit's dollars come from"):
    """Stacked bars of the mean dollars per kind (purses, jewels, strongboxes, ransoms,
    Gunslinger bonus) for one setting (default: the first).
    ``table``: :func:`balance.mean_scores`."""
    setting = setting or table["setting"].iloc[0]
    t = table[table["setting"] == setting]
    bandits = _ordered(t["bandit"], BANDITS)
    t = t.set_index("bandit").loc[bandits]
    bottom = np.zeros(len(t))
    bars = []
    for kind, colour in LOOT_COLOURS.items():
        v = t[f"mean_{kind}"].to_numpy(np.float64)
        bars.append(ax.bar([b.title() for b in bandits], v, bottom=bottom, color=colour,
                           label=kind if kind != "bonus" else "Gunslinger bonus"))
        bottom += v
    ax.set_ylabel("mean dollars per game ($)")
    ax.set_xlabel("bandit")
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(f"{title} ({label})")
    legend = ax.legend(fontsize="small", frameon=False, ncols=3, loc="upper center",
                       bbox_to_anchor=(0.5, -0.15))
    return {"bars": bars, "legend": legend}


# --- seats -------------------------------------------------------------------------------------
def plot_order_win_rates(ax, table: pd.DataFrame, column: str = "order",
                         title: str = "Win rate by seat from the First Player"):
    """Win rate by order (0 = First Player of round 1) or by seat, per setting, Wilson 95%
    intervals and fair-share lines.  ``table``: :func:`seats.order_win_rates` or
    :func:`seats.seat_win_rates` (then pass ``column="seat"``)."""
    xs = sorted(table[column].unique())
    artists = _dodged(ax, table, column, xs, "rate", "lo", "hi", 100, "fair_share")
    if column == "order":
        ax.set_xticklabels(["First\nPlayer" if x == 0 else f"+{x}" for x in xs])
        ax.set_xlabel("seat, clockwise from the First Player of round 1")
    else:
        ax.set_xlabel("seat (player number)")
    ax.set_ylabel("win rate (%)")
    ax.set_title(title)
    artists["legend"] = _legend(ax, "fair share (1 / players)")
    return artists


# --- round cards -------------------------------------------------------------------------------
def plot_card_effects(ax, table: pd.DataFrame, metric: str = "mean_score",
                      title: str | None = None, legend: bool = True):
    """Forest plot of :func:`round_cards.card_effects` for one metric: each card's shift
    (games with it minus games without), 95% interval, one colour per setting.  With
    ``legend=False`` (panels of one figure) the caller draws one legend for all."""
    t = table[table["metric"] == metric]
    cards = _ordered(t["card"], ROUND_CARDS + STATION_CARDS)[::-1]
    settings = _settings_of(t)
    colours = _colours(len(settings))
    pos = {c: i for i, c in enumerate(cards)}
    step = 0.7 / max(len(settings), 1)
    scale = 100 if GAME_METRICS[metric][1] == "rate" else 1
    artists = {"series": []}
    for i, ((sid, label), colour) in enumerate(zip(settings, colours)):
        sub = t[t["setting"] == sid]
        y = sub["card"].map(pos).to_numpy(np.float64) - 0.35 + step * (i + 0.5)
        x = sub["effect"].to_numpy(np.float64) * scale
        err = np.vstack([x - sub["lo"].to_numpy(np.float64) * scale,
                         sub["hi"].to_numpy(np.float64) * scale - x])
        artists["series"].append(ax.errorbar(x, y, xerr=np.abs(err), fmt="o", color=colour,
                                             capsize=3, markersize=4, label=label))
    artists["zero"] = ax.axvline(0, **ZERO_STYLE)
    ax.set_yticks(range(len(cards)))
    ax.set_yticklabels([card_label(c) for c in cards])
    desc = GAME_METRICS[metric][0]
    unit = "percentage points" if scale == 100 else ""
    ax.set_xlabel(f"change in {desc}" + (f" ({unit})" if unit else "")
                  + "\nwith the card in the deck, against without")
    ax.set_title(title or f"Cards: {METRIC_TITLES.get(metric, metric)}")
    if legend:
        artists["legend"] = _legend_below(ax)
    return artists


def plot_card_bandit_heatmap(ax, table: pd.DataFrame, setting: str | None = None,
                             title: str = "Win-rate shift by card and bandit"):
    """Heatmap of :func:`round_cards.card_bandit_effects` for one setting: change of each
    bandit's win rate (percentage points) with the card in the deck; ``*`` marks significant
    cells after correction."""
    setting = setting or table["setting"].iloc[0]
    t = table[table["setting"] == setting]
    cards = _ordered(t["card"], ROUND_CARDS + STATION_CARDS)
    bandits = _ordered(t["bandit"], BANDITS)
    grid = np.full((len(cards), len(bandits)), np.nan)
    sig = np.zeros_like(grid, bool)
    ci, bi = {c: i for i, c in enumerate(cards)}, {b: j for j, b in enumerate(bandits)}
    for _, r in t.iterrows():
        grid[ci[r["card"]], bi[r["bandit"]]] = 100 * r["effect"]
        sig[ci[r["card"]], bi[r["bandit"]]] = bool(r["significant"])
    # At least +-3 points of scale, so that noise in a fair game stays pale.
    limit = max(np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 0.0, 3.0)
    image = ax.imshow(grid, cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
    texts = []
    for i in range(len(cards)):
        for j in range(len(bandits)):
            if np.isfinite(grid[i, j]):
                dark = abs(grid[i, j]) > 0.6 * limit
                texts.append(ax.text(j, i, f"{grid[i, j]:+.1f}" + ("*" if sig[i, j] else ""),
                                     ha="center", va="center", fontsize="x-small",
                                     color="white" if dark else "black",
                                     fontweight="bold" if sig[i, j] else "normal"))
    ax.set_xticks(range(len(bandits)))
    ax.set_xticklabels([b.title() for b in bandits])
    ax.set_yticks(range(len(cards)))
    ax.set_yticklabels([card_label(c) for c in cards])
    ax.set_xlabel("bandit")
    ax.set_ylabel("card in the deck")
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(f"{title} ({label})")
    bar = ax.figure.colorbar(image, ax=ax, label="change in win rate (percentage points)")
    return {"image": image, "texts": texts, "colorbar": bar}


def plot_card_positions(ax, table: pd.DataFrame, setting: str | None = None,
                        metric: str = "mean_score", title: str = "Effect by position in the deck"):
    """Lines of :func:`round_cards.card_position_effects` for one setting and metric: the
    shift when the card is the round-``j`` card, against games without it, 95% intervals."""
    setting = setting or table["setting"].iloc[0]
    t = table[(table["setting"] == setting) & (table["metric"] == metric)]
    cards = _ordered(t["card"], ROUND_CARDS)
    colours = _colours(len(cards))
    artists = {"series": []}
    n_cards = max(len(cards), 1)
    for i, (card, colour) in enumerate(zip(cards, colours)):
        sub = t[t["card"] == card].sort_values("position")
        x = sub["position"].to_numpy(np.float64) + (i - (n_cards - 1) / 2) * 0.06
        y = sub["effect"].to_numpy(np.float64)
        err = np.vstack([y - sub["lo"].to_numpy(np.float64), sub["hi"].to_numpy(np.float64) - y])
        artists["series"].append(ax.errorbar(x, y, yerr=np.abs(err), fmt="-o", color=colour,
                                             capsize=2, markersize=3, label=card_label(card)))
    artists["zero"] = ax.axhline(0, **ZERO_STYLE)
    positions = sorted(t["position"].unique())
    ax.set_xticks(positions)
    ax.set_xticklabels([f"round {p}" for p in positions])
    ax.set_xlabel("position of the card in the round deck")
    ax.set_ylabel(f"change in {GAME_METRICS[metric][0]}")
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(f"{title} ({label})")
    artists["legend"] = ax.legend(fontsize="x-small", frameon=False, ncols=2, loc="best")
    return artists


# --- Gunslinger --------------------------------------------------------------------------------
def plot_gunslinger_by_bandit(ax, table: pd.DataFrame,
                              title: str = "How often each bandit is the Gunslinger"):
    """Share of games in which each bandit is (one of) the Gunslinger(s), per setting, Wilson 95%
    intervals; dashed: the even share (mean Gunslingers per game / players).
    ``table``: :func:`gunslinger.gunslinger_by_bandit`."""
    bandits = _ordered(table["bandit"], BANDITS)
    artists = _dodged(ax, table, "bandit", bandits, "rate", "lo", "hi", 100, "fair_share")
    ax.set_ylabel("games as Gunslinger (%)")
    ax.set_xlabel("bandit")
    ax.set_title(title)
    artists["legend"] = _legend(ax, "even share")
    return artists


def plot_gunslinger_shares(ax, table: pd.DataFrame,
                           title: str = "Number of Gunslingers per game"):
    """Stacked bars: share of games with 0, 1, 2... Gunslingers, per setting.
    ``table``: :func:`gunslinger.gunslinger_shares`."""
    settings = _settings_of(table)
    counts = sorted(table["gunslingers"].unique())
    cmap = __import__("matplotlib").colormaps["viridis"]
    bottom = np.zeros(len(settings))
    bars = []
    for i, c in enumerate(counts):
        v = np.array([float(table[(table["setting"] == s) & (table["gunslingers"] == c)]
                            ["share"].sum()) for s, _ in settings]) * 100
        bars.append(ax.bar([lab for _, lab in settings], v, bottom=bottom,
                           color=cmap(i / max(len(counts) - 1, 1)),
                           label=f"{c} Gunslinger{'s' if c != 1 else ''}"))
        bottom += v
    ax.set_ylabel("games (%)")
    ax.set_xlabel("setting")
    ax.set_title(title)
    legend = ax.legend(fontsize="small", frameon=False, loc="upper left",
                       bbox_to_anchor=(1.0, 1.0))
    return {"bars": bars, "legend": legend}


# --- comparisons -------------------------------------------------------------------------------
def plot_comparison(ax, table: pd.DataFrame, group: str = "bandit",
                    title: str | None = None):
    """Forest plot of :func:`compare.compare` rows of one ``group`` ("bandit", "seat" or
    "game"): each setting minus its baseline on the same seeds, 95% paired intervals."""
    t = table[table["group"] == group]
    pairs = list(dict.fromkeys(zip(t["baseline"], t["setting"], t["label"], t["baseline_label"])))
    quantities = list(dict.fromkeys(t["quantity"]))[::-1]
    pos = {q: i for i, q in enumerate(quantities)}
    colours = _colours(len(pairs))
    step = 0.7 / max(len(pairs), 1)
    scale = 100 if group in ("bandit", "seat") else 1
    artists = {"series": []}
    for i, ((base, sid, label, base_label), colour) in enumerate(zip(pairs, colours)):
        sub = t[(t["baseline"] == base) & (t["setting"] == sid)]
        y = sub["quantity"].map(pos).to_numpy(np.float64) - 0.35 + step * (i + 0.5)
        x = sub["difference"].to_numpy(np.float64) * scale
        err = np.vstack([x - sub["lo"].to_numpy(np.float64) * scale,
                         sub["hi"].to_numpy(np.float64) * scale - x])
        artists["series"].append(ax.errorbar(x, y, xerr=np.abs(err), fmt="o", color=colour,
                                             capsize=3, markersize=4,
                                             label=f"{label} vs {base_label}"))
    artists["zero"] = ax.axvline(0, **ZERO_STYLE)
    ax.set_yticks(range(len(quantities)))
    ax.set_yticklabels([_quantity_label(q) for q in quantities])
    if group == "game":
        ax.set_xlabel("difference (units of each metric)")
    else:
        ax.set_xlabel("difference in win rate (percentage points)")
    ax.set_title(title or "Difference on the same seeds")
    artists["legend"] = _legend_below(ax)
    return artists


def _quantity_label(q: str) -> str:
    if q.startswith("win:seat"):
        return "seat " + q.split()[-1]
    if q.startswith("win:"):
        return q[4:].title()
    return GAME_METRICS.get(q, (q,))[0]
