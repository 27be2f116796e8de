"""What every figure of the reports draws with: colours, labels, dodged series with intervals,
fair-share lines, legends, heatmaps, and the headline's spreads and lines.

A topic's own figures live with its section (coltsim.study.report.sections.<topic>: its analysis
call, its headline sentences, its figures and its section in one module; a balance search's in
coltsim.study.tune.report).  Every figure helper takes the matplotlib ``Axes`` first and a table
from :mod:`coltsim.analysis`, draws on that axes only (titles, axis labels with units, intervals,
fair-share lines) and returns the artists it made, so a report, a notebook or a slide can compose
them::

    from coltsim.study.report.sections.balance import plot_win_rates

    fig, ax = plt.subplots()
    plot_win_rates(ax, balance.win_rates(results))

Rates are shown in percent, differences of rates in percentage points, scores in dollars.

Several settings in one axes are *series*: one colour each, taken from ``colours`` (a dict
label -> colour, e.g. :func:`palette`, so that a condition keeps its colour in every figure of a
report), dodged side by side around each position (:func:`dodged`).  With ``legend=False`` a
helper leaves the legend to the caller (a figure of several panels draws one legend outside all
of them: :func:`figure_legend`).
"""
from __future__ import annotations

import textwrap

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..analysis.frames import BANDITS

FAIR_STYLE = {"color": "0.2", "linestyle": "--", "linewidth": 1.0, "alpha": 0.8}
ZERO_STYLE = {"color": "0.3", "linestyle": "-", "linewidth": 0.8}
BANDIT_COLOURS = {"ghost": "#7f7f7f", "belle": "#d1495b", "cheyenne": "#66a61e",
                  "tuco": "#e6ab02", "django": "#7570b3", "doc": "#1f78b4"}
PLAYER_COLOURS = {2: "#9e9ac8", 3: "#fdae61", 4: "#d7191c", 5: "#2c7bb6", 6: "#1a9641"}
PANEL_TITLE_WIDTH = 40  # characters of a panel title's line
LABEL_WIDTH = 16  # characters per line of a tick label before it wraps
ROW_LABEL_WIDTH = 28  # the same for a row of a horizontal (forest) plot


def error_extents(y, lo, hi) -> np.ndarray:
    """Error bars' lengths below and above ``y`` for intervals ``lo`` to ``hi`` (matplotlib's
    ``yerr``/``xerr``).  An interval that lies beside its estimate (a bootstrap's, of few games)
    starts its bar at the estimate; the tables give both bounds."""
    y, lo, hi = (np.asarray(v, np.float64) for v in (y, lo, hi))
    return np.maximum(0, np.vstack([y - lo, hi - y]))


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


def ordered(values, preferred) -> list:
    values = list(dict.fromkeys(values))
    known = [v for v in preferred if v in values]
    return known + [v for v in values if v not in known]


def series_colours(table: pd.DataFrame, series: str, colours: dict | None) -> tuple[list, dict]:
    names = list(dict.fromkeys(table[series])) if len(table) else []
    colours = colours or palette(names)
    return names, {n: colours.get(n, "0.4") for n in names}


def dodged(ax, table, position, order, value, lo, hi, series, colours, scale=1.0,
            horizontal=False, significant=None, marker="o", note=None):
    """Points with interval bars, one series per value of ``series``, dodged around each
    position of ``order``; hollow markers where ``significant`` is False; the text of column
    ``note`` beside each point."""
    names, colour_of = series_colours(table, series, colours)
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
        err = error_extents(y, sub[lo].to_numpy(np.float64) * scale,
                            sub[hi].to_numpy(np.float64) * scale)
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


def fair_lines(ax, table, series, colours, fair_col, scale=1.0, label="fair share"):
    """The fair share: one dark dashed line when every series shares it, else one dashed line
    per series in its colour."""
    if not len(table):
        return []
    fair = table.groupby(series, sort=False)[fair_col].first() * scale
    if np.allclose(fair.to_numpy(np.float64), fair.iloc[0], rtol=0, atol=1e-9):
        return [ax.axhline(fair.iloc[0], **FAIR_STYLE, label=label)]
    _, colour_of = series_colours(table, series, colours)
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
        artists = dodged(ax, t, x, order, "spread", "spread_lo", "spread_hi", series, colours,
                         scale=100, note="_names" if named else None)
        if x == "players":
            ax.set_xticklabels([f"{n} players" for n in order])
    ax.set_ylabel("strongest minus weakest bandit\n(percentage points of win rate)")
    ax.set_xlabel("" if x != "value" else "swept value")
    # room for the names above the intervals; with panels sharing the axis, a later panel's
    # intervals may reach above the top an earlier one set
    ax.set_ylim(0, max(ax.get_ylim()[1] * 1.08, 1.12 * 100 * t["spread_hi"].max()))
    ax.set_title(title)
    if legend:
        legend_below(ax)
    return {"series": artists}


def plot_lines(ax, table: pd.DataFrame, x: str, y: str, lo: str, hi: str, series: str,
               colours: dict | None = None, scale: float = 1.0):
    """One line per series of ``y`` against a numeric ``x``, its interval as a band (or as
    bars, nudged apart, with fewer than five values)."""
    names, colour_of = series_colours(table, series, colours)
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
            artists.append(ax.errorbar(xv, yv, yerr=error_extents(yv, low, high),
                                       fmt="-o", color=c, capsize=2, markersize=4,
                                       linewidth=1.4, label=str(name)))
    if len(xs) <= 6:
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{v:g}" for v in xs])
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
    return artists


def heatmap(ax, grid: np.ndarray, texts: list, bold: np.ndarray, columns: list, rows: list,
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
