"""What every section builder gets: the results and their design, where to write figures and
tables, the report's statistical choices, one family of tests, and one colour per condition,
player count, bandit and policy for every figure."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure as _MplFigure

from ...analysis.design import Design
from ...analysis.frames import seat_policies
from ...analysis.stats import adjust
from ...results import Results
from .. import plots
from ..folder import ReportFiles
from .document import Figure, Table

DPI = 150
ALPHA = 0.05


class Writer:
    """Makes the report's figures (PNG) and tables (CSV) into its ``files``
    (coltsim.study.folder.ReportFiles: written into the folder at once when it is done)."""

    def __init__(self, out_dir: Path, dpi: int = DPI):
        self.files = ReportFiles(out_dir)
        self.dpi = dpi

    def figure(self, name: str, caption: str, draw, size=(8, 4.5), grid=(1, 1),
               sharex: bool = False, sharey: bool = False) -> Figure:
        """``draw(fig, axes)`` on a new figure of ``grid`` axes, as ``figures/<name>.png``."""
        fig = _MplFigure(figsize=size, layout="constrained")
        axes = fig.subplots(*grid, squeeze=False, sharex=sharex, sharey=sharey).ravel()
        draw(fig, axes)
        self.files.figure(name, fig, self.dpi)
        return Figure(name, caption)

    def table(self, name: str, caption: str, data: pd.DataFrame, display: pd.DataFrame,
              note: str = "") -> Table:
        """``data`` in full as ``tables/<name>.csv``; ``display`` goes into the report."""
        self.files.table(name, data)
        return Table(name, caption, data, display, note)

    def panels(self, name: str, caption: str, keys: list, draw, panel=(4.6, 3.8),
               max_cols: int = 3, rows: int | None = None, legend_extra=(),
               legend: bool = True, sharex: bool = False, sharey: bool = False) -> Figure:
        """One panel per key (``draw(ax, key)``), at most ``max_cols`` wide in balanced rows
        (or ``rows`` rows of ``len(keys) / rows`` panels), with one legend for all of them below
        the panels; ``sharex``, ``sharey``: one scale for every panel."""
        n = len(keys)
        cols = math.ceil(n / rows) if rows else math.ceil(n / math.ceil(n / max_cols))
        n_rows = math.ceil(n / cols)

        def render(fig, axes):
            for ax, key in zip(axes, keys):
                draw(ax, key)
            for ax in axes[n:]:
                ax.set_visible(False)
            if legend:
                plots.figure_legend(fig, axes[:n], legend_extra)

        return self.figure(name, caption, render, size=(panel[0] * cols, panel[1] * n_rows + 0.8),
                           grid=(n_rows, cols), sharex=sharex, sharey=sharey)


class Family:
    """Every test a report prints with a "significant" mark: one family, adjusted together
    (Holm or Benjamini-Hochberg) once every analysis has run."""

    def __init__(self, correction: str, alpha: float = ALPHA):
        self.correction = correction
        self.alpha = alpha
        self.tables: list[pd.DataFrame] = []
        self.names: list[str] = []  # the analysis table each of ``tables`` is (Context.table)
        self.closed = False

    def add(self, table: pd.DataFrame, name: str = "") -> pd.DataFrame:
        if self.closed:
            raise RuntimeError("the family of tests is already adjusted; compute every table "
                               "in the sections' analyse step")
        if "p_value" in table and not any(t is table for t in self.tables):
            self.tables.append(table)
            self.names.append(name)
        return table

    @property
    def size(self) -> int:
        return int(sum(np.isfinite(t["p_value"].to_numpy(np.float64)).sum()
                       for t in self.tables))

    def adjust(self) -> None:
        """Set every table's ``p_adjusted`` and ``significant`` over the whole family."""
        p = np.concatenate([t["p_value"].to_numpy(np.float64) for t in self.tables]) \
            if self.tables else np.zeros(0)
        adjusted = adjust(p, self.correction)
        at = 0
        for t in self.tables:
            k = len(t)
            t["p_adjusted"] = adjusted[at:at + k]
            t["significant"] = t["p_adjusted"] < self.alpha
            at += k
        self.closed = True


@dataclass
class Context:
    f: Results
    design: Design
    w: Writer
    correction: str  # "holm" or "bh"
    level: float
    analyses: tuple
    family: Family = None
    cache: dict = field(default_factory=dict)
    focus: tuple = ()  # the bandits the experiment's question is about

    def __post_init__(self):
        self.family = self.family or Family(self.correction)
        d = self.design
        conditions = plots.palette(d.conditions)
        if d.axis:  # ordered values: a sequential scale, in the order of the values
            first = d.settings.drop_duplicates("condition").sort_values("value")
            conditions = plots.sequential(first["condition_label"])
        self.colours = {
            "condition": conditions,
            "players": {n: plots.PLAYER_COLOURS.get(n, "0.4")
                        for n in sorted(d.settings["players"].unique())},
            "policy": plots.palette(list(d.policies) + [p for ps in d.settings["policies"]
                                                        for p in seat_policies(ps)], "Dark2"),
            "bandit": plots.BANDIT_COLOURS,
        }

    @property
    def corr_name(self) -> str:
        return {"holm": "Holm", "bh": "Benjamini-Hochberg"}[self.correction]

    @property
    def games(self) -> int:
        return int(len(self.f.games))

    def table(self, key: str, compute=None, test: bool = True):
        """The analysis table ``key``, computed once (by ``compute``); a table of tests joins
        the family unless ``test`` is False (e.g. estimates picked after looking)."""
        if key not in self.cache:
            if compute is None:
                raise KeyError(f"no table {key!r}: compute it in a section's analyse step")
            value = compute()
            t = value.table if hasattr(value, "table") else value
            if test and isinstance(t, pd.DataFrame):
                self.family.add(t, key)
            self.cache[key] = value
        return self.cache[key]

    # --- facets ---------------------------------------------------------------------------
    def facets(self, table: pd.DataFrame) -> list[tuple]:
        """The panels of a figure over ``table``: one per player count, and per policy when
        there are several (keys ``(players, policy)``, in the design's order)."""
        if not len(table):
            return []
        order = {p: i for i, p in enumerate(self.design.policies)}
        keys = list(dict.fromkeys(zip(table["players"].astype(int), table["policy"])))
        return sorted(keys, key=lambda k: (order.get(k[1], len(order)), k[0]))

    def facet_rows(self, keys: list) -> int | None:
        """Rows of a facet grid: one per policy when there are several, else wrapped."""
        policies = list(dict.fromkeys(k[1] for k in keys))
        return len(policies) if len(policies) > 1 else None

    def facet_title(self, key) -> str:
        players, policy = key
        many = self.design.settings["policy"].nunique() > 1
        return plots.panel_title(f"{players} players" + (f", {policy}" if many else ""))

    def facet_figure(self, name: str, caption: str, table: pd.DataFrame, draw,
                     positions: int = 0, horizontal: bool = False, panel=None,
                     legend_extra=()) -> Figure | None:
        """A figure of one panel per player count (and policy) over ``table``:
        ``draw(ax, rows, series, colours, title)`` draws one panel's rows.  A panel grows with
        its series times ``positions`` (bandits, cards ... along the axis), taller when
        ``horizontal`` (a forest plot: then every panel has the same scale), so that a dozen
        settings stay readable."""
        keys = self.facets(table)
        if not keys:
            return None
        if panel is None:
            n = max(self.in_facet(table, k)[self.series(self.in_facet(table, k))[0]].nunique()
                    for k in keys)
            grow = 1.2 + 0.075 * n * positions
            labels = 0.8 + 0.17 * positions  # a forest plot's row labels a text line apart
            panel = (4.8, max(3.8, grow, labels)) if horizontal else (max(4.6, grow), 3.8)

        def one(ax, key):
            rows = self.in_facet(table, key)
            series, colours = self.series(rows)
            draw(ax, rows, series, colours, self.facet_title(key))

        return self.w.panels(name, caption, keys, one, panel=panel, rows=self.facet_rows(keys),
                             legend_extra=legend_extra, sharex=horizontal)

    @staticmethod
    def in_facet(table: pd.DataFrame, key) -> pd.DataFrame:
        return table[(table["players"].astype(int) == key[0]) & (table["policy"] == key[1])]

    def series(self, table: pd.DataFrame) -> tuple[str, dict]:
        """Within one panel the series are the conditions (one colour each in every figure),
        or the mixed tables' units when the panel holds those."""
        if table["label"].nunique() > table["condition"].nunique():
            return "label", plots.palette(table["label"])
        return "condition", self.colours["condition"]
