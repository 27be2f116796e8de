"""One helper per figure of the reports.

Every helper takes the matplotlib ``Axes`` first and a table from :mod:`coltsim.analysis`, draws
on that axes only (titles, axis labels with units, intervals, fair-share lines) and returns the
artists it made, so a report, a notebook or a slide can compose them::

    fig, ax = plt.subplots()
    plot_win_rates(ax, balance.win_rates(results))

Rates are shown in percent, differences of rates in percentage points, scores in dollars.

Several settings in one axes are *series*: one colour each, taken from ``colours`` (a dict
label -> colour, e.g. :func:`palette`, so that a condition keeps its colour in every figure of a
report), dodged side by side around each position.  With ``legend=False`` a helper leaves the
legend to the caller (a figure of several panels draws one legend outside all of them:
:func:`figure_legend`).
"""
from __future__ import annotations

import textwrap

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, MaxNLocator, StrMethodFormatter

from ..analysis.frames import BANDITS
from ..analysis.metrics import GAME_METRICS
from ..analysis.quality import METRICS as QUALITY_METRICS
from ..results import ROUND_CARDS
from ..results import STATIONS as STATION_CARDS
from ..words import seat_label
from .labels import card_label

FAIR_STYLE = {"color": "0.2", "linestyle": "--", "linewidth": 1.0, "alpha": 0.8}
ZERO_STYLE = {"color": "0.3", "linestyle": "-", "linewidth": 0.8}
METRIC_TITLES = {"mean_score": "mean score", "score_spread": "spread of scores",
                 "shots": "shots fired", "neutral_bullets": "neutral bullets",
                 "gunslinger_changed_winner": "Gunslinger changing the winner"}
LOOT_COLOURS = {"purse": "#c49a6c", "jewel": "#3f88c5", "strongbox": "#7d7d7d",
                "ransom": "#8cb369", "bonus": "#d1495b"}
BANDIT_COLOURS = {"ghost": "#7f7f7f", "belle": "#d1495b", "cheyenne": "#66a61e",
                  "tuco": "#e6ab02", "django": "#7570b3", "doc": "#1f78b4"}
PLAYER_COLOURS = {2: "#9e9ac8", 3: "#fdae61", 4: "#d7191c", 5: "#2c7bb6", 6: "#1a9641"}
PANEL_TITLE_WIDTH = 40  # characters of a panel title's line
LABEL_WIDTH = 16  # characters per line of a tick label before it wraps
ROW_LABEL_WIDTH = 28  # the same for a row of a horizontal (forest) plot


def palette(labels, cmap: str = "tab10") -> dict:
    """A colour per label, in order (tab10, or tab20 past ten labels)."""
    labels = list(dict.fromkeys(labels))
    name = cmap if len(labels) <= 10 else "tab20"
    colours = matplotlib.colormaps[name]
    n = colours.N
    return {label: colours(i % n) for i, label in enumerate(labels)}


def sequential(labels, cmap: str = "viridis") -> dict:
    """A colour per label of an ordered series (e.g. the values of a sweep), dark to light."""
    labels = list(dict.fromkeys(labels))
    colours = matplotlib.colormaps[cmap]
    return {label: colours(0.9 * i / max(len(labels) - 1, 1)) for i, label in enumerate(labels)}


def signed(x: float, digits: int = 1) -> str:
    """``+1.5``, ``-0.3``, and ``0.0`` (never ``-0.0``) for what rounds to zero."""
    text = f"{x:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def wrap(text, width: int = LABEL_WIDTH) -> str:
    """A tick label on lines of at most ``width`` characters."""
    return textwrap.fill(str(text), width, break_long_words=False) or str(text)


def panel_title(text: str) -> str:
    """A panel's title on lines narrow enough for the narrowest panel (a long policy name with
    its parameters would run past the axes)."""
    return wrap(text, PANEL_TITLE_WIDTH)


def _ordered(values, preferred) -> list:
    values = list(dict.fromkeys(values))
    known = [v for v in preferred if v in values]
    return known + [v for v in values if v not in known]


def _series(table: pd.DataFrame, series: str, colours: dict | None) -> tuple[list, dict]:
    names = list(dict.fromkeys(table[series])) if len(table) else []
    colours = colours or palette(names)
    return names, {n: colours.get(n, "0.4") for n in names}


def _dodged(ax, table, position, order, value, lo, hi, series, colours, scale=1.0,
            horizontal=False, significant=None, marker="o", note=None):
    """Points with interval bars, one series per value of ``series``, dodged around each
    position of ``order``; hollow markers where ``significant`` is False; the text of column
    ``note`` beside each point."""
    names, colour_of = _series(table, series, colours)
    width = 0.76
    pos = {x: i for i, x in enumerate(order)}
    # Each position shares its width among the series present there, the first on top (or
    # left), so that a series missing somewhere leaves no gap.
    present = {x: [n for n in names if n in set(table.loc[table[position] == x, series])]
               for x in order}
    artists = []
    for name in names:
        sub = table[table[series] == name]
        slot = np.array([present[x].index(name) for x in sub[position]], np.float64)
        count = np.array([len(present[x]) for x in sub[position]], np.float64)
        if horizontal:
            slot = count - 1 - slot
        at = sub[position].map(pos).to_numpy(np.float64) - width / 2 + width / count * (slot + 0.5)
        y = sub[value].to_numpy(np.float64) * scale
        err = np.abs(np.vstack([y - sub[lo].to_numpy(np.float64) * scale,
                                sub[hi].to_numpy(np.float64) * scale - y]))
        c = colour_of[name]
        xy = (y, at) if horizontal else (at, y)
        bars = ax.errorbar(*xy, **({"xerr": err} if horizontal else {"yerr": err}), fmt="none",
                           ecolor=c, capsize=2, linewidth=1.2)
        full = np.ones(len(sub), bool) if significant is None else \
            sub[significant].to_numpy(bool)
        ax.scatter(xy[0][full], xy[1][full], color=c, marker=marker, s=22, zorder=3)
        ax.scatter(xy[0][~full], xy[1][~full], facecolors="white", edgecolors=[c], marker=marker,
                   s=22, zorder=3)
        artists.append(bars)
        ax.plot([], [], marker=marker, color=c, linestyle="none", label=str(name))
        if note is not None:  # centred above the interval
            for px, top, text in zip(at, sub[hi].to_numpy(np.float64) * scale, sub[note]):
                ax.annotate(text, (px, top), textcoords="offset points", xytext=(0, 3),
                            ha="center", va="bottom", fontsize="x-small", color="0.25")
    (ax.xaxis if horizontal else ax.yaxis).set_major_locator(MaxNLocator(nbins=5))
    ticks = range(len(order))
    (ax.set_yticks if horizontal else ax.set_xticks)(list(ticks))
    # Rows of a forest plot sit one text line apart: their labels stay on one line.
    width = ROW_LABEL_WIDTH if horizontal else LABEL_WIDTH
    labels = [wrap(x.title() if x in BANDITS else x, width) if isinstance(x, str) else str(x)
              for x in order]
    (ax.set_yticklabels if horizontal else ax.set_xticklabels)(labels)
    (ax.set_ylim if horizontal else ax.set_xlim)(-0.6, len(order) - 0.4)
    return artists


def _fair_lines(ax, table, series, colours, fair_col, scale=1.0, label="fair share"):
    """The fair share: one dark dashed line when every series shares it, else one dashed line
    per series in its colour."""
    if not len(table):
        return []
    fair = table.groupby(series, sort=False)[fair_col].first() * scale
    if np.allclose(fair.to_numpy(np.float64), fair.iloc[0], rtol=0, atol=1e-9):
        return [ax.axhline(fair.iloc[0], **FAIR_STYLE, label=label)]
    _, colour_of = _series(table, series, colours)
    style = {**FAIR_STYLE, "color": None}
    lines = [ax.axhline(v, **{**style, "color": colour_of[name]}) for name, v in fair.items()]
    ax.plot([], [], **FAIR_STYLE, label=f"{label} (in each series' colour)")
    return lines


def significance_handles() -> list:
    """Legend entries for filled (significant) and hollow (not significant) markers."""
    return [Line2D([], [], marker="o", color="0.2", linestyle="none",
                   label="significant (adjusted)"),
            Line2D([], [], marker="o", markerfacecolor="white", markeredgecolor="0.2",
                   color="0.2", linestyle="none", label="not significant")]


def legend_below(ax, extra=()):
    """A legend under the axes, so that it never hides a marker."""
    handles, labels = ax.get_legend_handles_labels()
    handles += list(extra)
    labels += [h.get_label() for h in extra]
    if not handles:
        return None
    width = max(len(lab) for lab in labels) + 6
    return ax.legend(handles, labels, fontsize="small", frameon=False, loc="upper center",
                     bbox_to_anchor=(0.5, -0.18), ncols=max(1, min(len(labels), 90 // width)))


def figure_legend(fig, axes, extra=(), title: str | None = None):
    """One legend for every panel of ``fig``, outside them, below."""
    seen = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    for h in extra:
        seen.setdefault(h.get_label(), h)
    if not seen:
        return None
    entry = (max(len(lab) for lab in seen) + 6) * 4.8  # points, at the "small" font size
    ncols = max(1, min(len(seen), int(fig.get_figwidth() * 72 // entry)))
    return fig.legend(list(seen.values()), list(seen), loc="outside lower center",
                      frameon=False, fontsize="small", title=title, title_fontsize="small",
                      ncols=ncols)


# --- the headline ------------------------------------------------------------------------------
def plot_spreads(ax, table: pd.DataFrame, x: str = "condition", series: str = "players",
                 colours: dict | None = None, title: str = "Spread between bandits",
                 legend: bool = True):
    """The answer of a balance question: the strongest minus the weakest bandit (percentage
    points, 95% interval) per condition, one series per player count.  ``x="value"`` (a numeric
    sweep) draws lines against the swept value.  ``table``: headline rows (``spread,
    spread_lo, spread_hi``)."""
    t = table.dropna(subset=["spread"])
    if x == "value":
        artists = plot_lines(ax, t, "value", "spread", "spread_lo", "spread_hi", series,
                             colours, scale=100)
    else:
        if t[x].nunique() == 1 and t["players"].nunique() > 1:
            x = "players"  # one condition: its answer against the player count
        order = list(dict.fromkeys(t[x])) if x != "players" else sorted(t[x].unique())
        named = "strongest" in t and len(t) <= 12  # few points: name the two bandits
        if named:
            t = t.assign(_names=[f"{str(a).title()} / {str(b).title()}"
                                 for a, b in zip(t["strongest"], t["weakest"])])
        artists = _dodged(ax, t, x, order, "spread", "spread_lo", "spread_hi", series, colours,
                          scale=100, note="_names" if named else None)
        if x == "players":
            ax.set_xticklabels([f"{n} players" for n in order])
    ax.set_ylabel("strongest minus weakest bandit\n(percentage points of win rate)")
    ax.set_xlabel("" if x != "value" else "swept value")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.08)  # room for the names above the intervals
    ax.set_title(title)
    if legend:
        legend_below(ax)
    return {"series": artists}


def plot_lines(ax, table: pd.DataFrame, x: str, y: str, lo: str, hi: str, series: str,
               colours: dict | None = None, scale: float = 1.0):
    """One line per series of ``y`` against a numeric ``x``, its interval as a band (or as
    bars, nudged apart, with fewer than five values)."""
    names, colour_of = _series(table, series, colours)
    xs = np.sort(table[x].astype(float).unique())
    bands = len(xs) >= 5
    nudge = 0.0 if bands or len(xs) < 2 else 0.012 * (xs[-1] - xs[0])
    artists = []
    for i, name in enumerate(names):
        sub = table[table[series] == name].sort_values(x)
        xv = sub[x].to_numpy(np.float64) + nudge * (i - (len(names) - 1) / 2)
        yv = sub[y].to_numpy(np.float64) * scale
        low = sub[lo].to_numpy(np.float64) * scale
        high = sub[hi].to_numpy(np.float64) * scale
        c = colour_of[name]
        if bands:
            ax.fill_between(xv, low, high, color=c, alpha=0.15, linewidth=0)
            artists.append(ax.plot(xv, yv, "-o", color=c, markersize=3.5, linewidth=1.4,
                                   label=str(name))[0])
        else:
            artists.append(ax.errorbar(xv, yv, yerr=np.abs(np.vstack([yv - low, high - yv])),
                                       fmt="-o", color=c, capsize=2, markersize=4,
                                       linewidth=1.4, label=str(name)))
    if len(xs) <= 6:
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{v:g}" for v in xs])
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
    return artists


# --- game quality ------------------------------------------------------------------------------
def plot_quality(ax, table: pd.DataFrame, metric: str, series: str = "condition",
                 colours: dict | None = None, x: str = "players", title: str | None = None):
    """One game-quality metric (:func:`quality.quality`: ``<metric>, <metric>_lo,
    <metric>_hi``) per setting with its 95% interval: against the player count, one series per
    condition, or against the swept value (``x="value"``); shares in percent."""
    words, kind = QUALITY_METRICS[metric]
    scale = 100 if kind in ("share", "ratio") else 1
    t = table.dropna(subset=[metric])
    if x == "value":
        artists = plot_lines(ax, t, "value", metric, f"{metric}_lo", f"{metric}_hi", series,
                             colours, scale)
    else:
        order = sorted(t[x].unique())
        artists = _dodged(ax, t, x, order, metric, f"{metric}_lo", f"{metric}_hi", series,
                          colours, scale)
        ax.set_xticklabels([f"{n} players" for n in order] if x == "players" else order)
    unit = " (%)" if scale == 100 else " ($)" if metric == "margin" else ""
    ax.set_ylabel(wrap(words + unit, 34))
    ax.set_title(panel_title(title or words))
    return {"series": artists}


# --- a balance search ----------------------------------------------------------------------------
TUNE_COLOURS = {"best": "#d1495b", "in the running": "#3f88c5", "dropped": "0.6"}


def plot_tune_objective(ax, table: pd.DataFrame, x, labels=None, settings=(), title: str = "",
                        ylabel: str = "objective (percentage points)") -> dict:
    """A balance search's objective (coltsim.study.tune ``TuneResult.table``: ``objective, lo,
    hi, status``) at each value, placed at ``x`` (named ``labels`` there, for values that are
    not numbers), with its interval, coloured by status; a thin line per setting (its column of
    ``settings``)."""
    x = np.asarray(x, np.float64)
    artists = {"settings": [], "values": []}
    for name, style in zip(settings, ("--", ":", "-.", (0, (1, 4)))):
        artists["settings"] += ax.plot(x, 100 * table[name].to_numpy(np.float64),
                                       linestyle=style, color="0.45", linewidth=1, label=name)
    for status, colour in TUNE_COLOURS.items():
        hit = (table["status"] == status).to_numpy()
        if not hit.any():
            continue
        y = 100 * table["objective"].to_numpy(np.float64)[hit]
        err = np.vstack([y - 100 * table["lo"].to_numpy(np.float64)[hit],
                         100 * table["hi"].to_numpy(np.float64)[hit] - y])
        artists["values"].append(ax.errorbar(
            x[hit], y, yerr=err, fmt="*" if status == "best" else "o", color=colour,
            markersize=12 if status == "best" else 6, capsize=3,
            markerfacecolor="white" if status == "dropped" else colour, label=status))
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    if labels is not None:
        ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    return artists


def plot_tune_games(ax, table: pd.DataFrame, x, labels=None, xlabel: str = "") -> list:
    """The games per setting a balance search gave each value (``TuneResult.table``), placed
    at ``x`` (named ``labels``)."""
    x = np.asarray(x, np.float64)
    width = 0.6 * (np.diff(np.sort(x)).min() if len(x) > 1 else 1.0)
    bars = ax.bar(x, table["games"], width=width,
                  color=[TUNE_COLOURS[s] for s in table["status"]])
    ax.set_ylabel("games per setting")
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    if labels is not None:
        ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    ax.set_xlabel(xlabel)
    return list(bars)


# --- character balance -------------------------------------------------------------------------
def plot_win_rates(ax, table: pd.DataFrame, series: str = "label", colours: dict | None = None,
                   title: str = "Win rate by bandit", legend: bool = True):
    """Each bandit's win rate per series with its Wilson 95% interval, and the fair share.
    ``table``: :func:`balance.win_rates` (one panel's rows)."""
    bandits = _ordered(table["bandit"], BANDITS)
    artists = {"series": _dodged(ax, table, "bandit", bandits, "rate", "lo", "hi", series,
                                 colours, 100)}
    artists["fair"] = _fair_lines(ax, table, series, colours, "fair_share", 100)
    ax.set_ylabel("win rate (%)")
    ax.set_xlabel("bandit")
    ax.set_title(title)
    if legend:
        artists["legend"] = legend_below(ax)
    return artists


def plot_bandit_effects(ax, table: pd.DataFrame, outcome: str = "win", series: str = "label",
                        colours: dict | None = None,
                        title: str = "Bandit effect, controlling for seat", legend: bool = True):
    """Forest plot of :func:`balance.bandit_effects` rows: each bandit against the average
    bandit of its setting, 95% interval, one series per setting; hollow markers are not
    significant after the report's correction."""
    scale, unit = (100, "percentage points") if outcome == "win" else (1, "$")
    bandits = _ordered(table["bandit"], BANDITS)[::-1]
    artists = {"series": _dodged(ax, table, "bandit", bandits, "estimate", "lo", "hi", series,
                                 colours, scale, horizontal=True, significant="significant")}
    artists["zero"] = ax.axvline(0, **ZERO_STYLE)
    what = "win rate" if outcome == "win" else "score"
    ax.set_xlabel(f"{what} minus the average bandit's ({unit})")
    ax.set_title(title)
    if legend:
        artists["legend"] = legend_below(ax, significance_handles())
    return artists


def plot_mean_scores(ax, table: pd.DataFrame, series: str = "label", colours: dict | None = None,
                     title: str = "Mean score by bandit", legend: bool = True):
    """Each bandit's mean final score per series with its 95% interval.
    ``table``: :func:`balance.mean_scores`."""
    bandits = _ordered(table["bandit"], BANDITS)
    artists = {"series": _dodged(ax, table, "bandit", bandits, "mean", "lo", "hi", series,
                                 colours)}
    ax.set_ylabel("mean final score ($)")
    ax.set_xlabel("bandit")
    ax.set_title(title)
    if legend:
        artists["legend"] = legend_below(ax)
    return artists


def plot_loot_mix(ax, table: pd.DataFrame, setting: str | None = None, policy: str | None = None,
                  title: str = "Dollars by kind", legend: bool = True):
    """Stacked bars of the mean dollars per kind (purses, jewels, strongboxes, ransoms,
    Gunslinger bonus) for one setting (default: the first) and policy.
    ``table``: :func:`balance.mean_scores`."""
    setting = setting or table["setting"].iloc[0]
    t = table[table["setting"] == setting]
    if policy is not None:
        t = t[t["policy"] == policy]
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
    ax.tick_params(axis="x", labelrotation=30)
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(f"{title}\n{wrap(label, 40)}", fontsize="medium")
    artists = {"bars": bars}
    if legend:
        artists["legend"] = legend_below(ax)
    return artists


# --- seats -------------------------------------------------------------------------------------
def plot_order_win_rates(ax, table: pd.DataFrame, column: str = "order", series: str = "label",
                         colours: dict | None = None,
                         title: str = "Win rate by seat from the First Player",
                         legend: bool = True):
    """Win rate by order (0 = First Player of round 1) or by seat, per series, Wilson 95%
    intervals and the fair share.  ``table``: :func:`seats.order_win_rates` or
    :func:`seats.seat_win_rates` (then pass ``column="seat"``)."""
    xs = sorted(table[column].unique())
    artists = {"series": _dodged(ax, table, column, xs, "rate", "lo", "hi", series, colours,
                                 100)}
    artists["fair"] = _fair_lines(ax, table, series, colours, "fair_share", 100)
    if column == "order":
        ax.set_xticklabels([wrap(seat_label(x), 12) for x in xs])
        ax.set_xlabel("seat, clockwise from the First Player of round 1")
    else:
        ax.set_xlabel("seat (player number)")
    ax.set_ylabel("win rate (%)")
    ax.set_title(title)
    if legend:
        artists["legend"] = legend_below(ax)
    return artists


# --- round cards -------------------------------------------------------------------------------
def plot_card_effects(ax, table: pd.DataFrame, metric: str = "mean_score",
                      series: str = "label", colours: dict | None = None,
                      title: str | None = None, legend: bool = True):
    """Forest plot of :func:`round_cards.card_effects` for one metric: each card's shift
    (games with it minus games without), 95% interval, one colour per series; hollow markers
    are not significant."""
    t = table[table["metric"] == metric]
    cards = _ordered(t["card"], ROUND_CARDS + STATION_CARDS)[::-1]
    t = t.assign(_card=t["card"].map(card_label))
    scale = 100 if GAME_METRICS[metric][1] == "rate" else 1
    artists = {"series": _dodged(ax, t, "_card", [card_label(c) for c in cards], "effect", "lo",
                                 "hi", series, colours, scale, horizontal=True,
                                 significant="significant")}
    artists["zero"] = ax.axvline(0, **ZERO_STYLE)
    desc = GAME_METRICS[metric][0]
    unit = " (percentage points)" if scale == 100 else ""
    ax.set_xlabel(wrap(f"change in {desc}{unit} with the card in the deck", 48))
    ax.set_title(title or f"Cards: {METRIC_TITLES.get(metric, metric)}")
    if legend:
        artists["legend"] = legend_below(ax, significance_handles())
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
    cards = _ordered(t["card"], ROUND_CARDS + STATION_CARDS)
    bandits = _ordered(t["bandit"], BANDITS)
    grid = np.full((len(cards), len(bandits)), np.nan)
    sig = np.zeros_like(grid, bool)
    ci, bi = {c: i for i, c in enumerate(cards)}, {b: j for j, b in enumerate(bandits)}
    for _, r in t.iterrows():
        grid[ci[r["card"]], bi[r["bandit"]]] = 100 * r["effect"]
        sig[ci[r["card"]], bi[r["bandit"]]] = bool(r["significant"])
    texts = [signed(v) + ("*" if s else "") for v, s in zip(grid.ravel(), sig.ravel())]
    artists = _heatmap(ax, grid, texts, sig, [b.title() for b in bandits],
                       [card_label(c) for c in cards], "change in win rate (percentage points)")
    ax.set_xlabel("bandit")
    ax.set_ylabel("card in the deck")
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(f"{title}\n{wrap(label, 50)}", fontsize="medium")
    return artists


def plot_head_to_head(ax, table: pd.DataFrame, setting: str | None = None,
                      policy: str | None = None, title: str = ""):
    """The matrix of :func:`head_to_head.head_to_head` for one setting (and policy): how often
    the bandit of the row finishes ahead of the bandit of the column when both are at the
    table (percent, shared ranks counted one half); blue above 50%, red below, ``*`` where the
    95% interval excludes 50%."""
    setting = setting or table["setting"].iloc[0]
    t = table[table["setting"] == setting]
    if policy is not None:
        t = t[t["policy"] == policy]
    bandits = _ordered(list(t["bandit"]) + list(t["opponent"]), BANDITS)
    at = {b: i for i, b in enumerate(bandits)}
    grid = np.full((len(bandits), len(bandits)), np.nan)
    clear = np.zeros_like(grid, bool)
    for r in t.itertuples():
        grid[at[r.bandit], at[r.opponent]] = 100 * r.rate
        clear[at[r.bandit], at[r.opponent]] = r.lo > 0.5 or r.hi < 0.5
    texts = [f"{v:.0f}" + ("*" if c else "") for v, c in zip(grid.ravel(), clear.ravel())]
    names = [b.title() for b in bandits]
    artists = _heatmap(ax, grid, texts, clear, names, names, "finishes ahead (%)", centre=50)
    ax.set_xlabel("against")
    ax.set_ylabel("bandit")
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(title or wrap(label, 50), fontsize="medium")
    return artists


def _heatmap(ax, grid: np.ndarray, texts: list, bold: np.ndarray, columns: list, rows: list,
             colour_label: str, centre: float = 0.0) -> dict:
    """A diverging heatmap of ``grid`` (centred on ``centre``, at least +-3 of scale so that
    noise stays pale), each finite cell labelled with its entry of ``texts`` (bold where
    ``bold``)."""
    grid = grid - centre
    limit = max(np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 0.0, 3.0)
    image = ax.imshow(grid, cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
    labels = []
    for (i, j), value in np.ndenumerate(grid):
        if np.isfinite(value):
            labels.append(ax.text(j, i, texts[i * grid.shape[1] + j], ha="center",
                                  va="center", fontsize="x-small",
                                  color="white" if abs(value) > 0.6 * limit else "black",
                                  fontweight="bold" if bold[i, j] else "normal"))
    ax.set_xticks(range(len(columns)))
    ax.set_xticklabels(columns)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    bar = ax.figure.colorbar(image, ax=ax, label=colour_label,
                             format=FuncFormatter(lambda v, _: f"{v + centre:g}"))
    return {"image": image, "texts": labels, "colorbar": bar}


def plot_card_positions(ax, table: pd.DataFrame, setting: str | None = None,
                        metric: str = "mean_score", title: str = "Effect by position in the deck",
                        legend: bool = True):
    """Lines of :func:`round_cards.card_position_effects` for one setting and metric: the
    shift when the card is the round-``j`` card, against games without it, 95% intervals."""
    setting = setting or table["setting"].iloc[0]
    t = table[(table["setting"] == setting) & (table["metric"] == metric)]
    cards = _ordered(t["card"], ROUND_CARDS)
    colours = palette([card_label(c) for c in ROUND_CARDS], "tab10")
    artists = {"series": []}
    n_cards = max(len(cards), 1)
    for i, card in enumerate(cards):
        sub = t[t["card"] == card].sort_values("position")
        x = sub["position"].to_numpy(np.float64) + (i - (n_cards - 1) / 2) * 0.06
        y = sub["effect"].to_numpy(np.float64)
        err = np.vstack([y - sub["lo"].to_numpy(np.float64), sub["hi"].to_numpy(np.float64) - y])
        artists["series"].append(ax.errorbar(x, y, yerr=np.abs(err), fmt="-o",
                                             color=colours[card_label(card)], capsize=2,
                                             markersize=3, label=card_label(card)))
    artists["zero"] = ax.axhline(0, **ZERO_STYLE)
    positions = sorted(t["position"].unique())
    ax.set_xticks(positions)
    ax.set_xticklabels([f"round {p}" for p in positions])
    ax.set_xlabel("position of the card in the round deck")
    ax.set_ylabel(wrap(f"change in {GAME_METRICS[metric][0]}", 30))
    label = t["label"].iloc[0] if len(t) else setting
    ax.set_title(f"{title}\n{wrap(label, 50)}", fontsize="medium")
    if legend:
        artists["legend"] = legend_below(ax)
    return artists


# --- Gunslinger --------------------------------------------------------------------------------
def plot_gunslinger_by_bandit(ax, table: pd.DataFrame, series: str = "label",
                              colours: dict | None = None,
                              title: str = "How often each bandit is the Gunslinger",
                              legend: bool = True):
    """Share of games in which each bandit is (one of) the Gunslinger(s), per series, Wilson 95%
    intervals; dashed: the even share (mean Gunslingers per game / players).
    ``table``: :func:`gunslinger.gunslinger_by_bandit`."""
    bandits = _ordered(table["bandit"], BANDITS)
    artists = {"series": _dodged(ax, table, "bandit", bandits, "rate", "lo", "hi", series,
                                 colours, 100)}
    artists["fair"] = _fair_lines(ax, table, series, colours, "fair_share", 100, "even share")
    ax.set_ylabel("games as Gunslinger (%)")
    ax.set_xlabel("bandit")
    ax.set_title(title)
    if legend:
        artists["legend"] = legend_below(ax)
    return artists


def plot_gunslinger_shares(ax, table: pd.DataFrame, name: str = "label",
                           title: str = "Number of Gunslingers per game", legend: bool = True):
    """Horizontal stacked bars: share of games with 0, 1, 2... Gunslingers, one bar per setting
    named by its ``name`` column (labels wrapped, so that a dozen settings stay readable).
    ``table``: :func:`gunslinger.gunslinger_shares`."""
    settings = list(dict.fromkeys(zip(table["setting"], table[name])))[::-1]
    counts = sorted(table["gunslingers"].unique())
    cmap = matplotlib.colormaps["viridis"]
    left = np.zeros(len(settings))
    bars = []
    y = np.arange(len(settings))
    for c in counts:
        v = np.array([float(table[(table["setting"] == s) & (table["gunslingers"] == c)]
                            ["share"].sum()) for s, _ in settings]) * 100
        bars.append(ax.barh(y, v, left=left, color=cmap(min(c, 6) / 6),  # a count's colour
                            label=f"{c} Gunslinger{'s' if c != 1 else ''}"))
        left += v
    ax.set_yticks(y)
    ax.set_yticklabels([wrap(lab, 28) for _, lab in settings])
    ax.set_xlabel("games (%)")
    ax.set_xlim(0, 100)
    ax.set_title(title)
    artists = {"bars": bars}
    if legend:
        artists["legend"] = legend_below(ax)
    return artists


# --- comparisons -------------------------------------------------------------------------------
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
    artists = {"series": _dodged(ax, t, "_q", quantities, "difference", "lo", "hi", series,
                                 colours, scale, horizontal=True, significant="significant")}
    artists["zero"] = ax.axvline(0, **ZERO_STYLE)
    ax.set_xlabel({"game": "difference (units of each metric)",
                   "play": "change in actions per game"}.get(
        group, "difference in win rate (percentage points)"))
    ax.set_title(title or "Difference on the same seeds")
    if legend:
        artists["legend"] = legend_below(ax, significance_handles())
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


# --- policies ----------------------------------------------------------------------------------
def plot_policy_shares(ax, table: pd.DataFrame, title: str = "Share of the victories per seat",
                       colours: dict | None = None):
    """Each policy's share of the victories per seat at each mixed table, 95% interval over
    deals, with the fair share.  ``table``: ``coltsim.analysis.headline.table_shares``."""
    rows = list(dict.fromkeys(zip(table["label"], table["policy"])))[::-1]
    colours = colours or palette(table["policy"])
    y = np.arange(len(rows))
    artists = []
    for i, (label, policy) in enumerate(rows):
        r = table[(table["label"] == label) & (table["policy"] == policy)].iloc[0]
        x = 100 * r["win_rate"]
        err = [[x - 100 * r["ci_low"]], [100 * r["ci_high"] - x]]
        artists.append(ax.errorbar([x], [i], xerr=err, fmt="o", color=colours[policy],
                                   capsize=3))
    fair = table["fair_share"].unique()
    for v in fair:
        ax.axvline(100 * v, **FAIR_STYLE)
    ax.set_yticks(y)
    ax.set_yticklabels([wrap(f"{policy} at {label}", 34) for label, policy in rows])
    ax.set_xlabel("victories per seat (%); dashed: the fair share")
    ax.set_title(title)
    return {"series": artists}
