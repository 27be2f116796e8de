"""What every section builder gets: the results, where to write figures and tables, and the
report's statistical choices."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure as _MplFigure

from ...analysis.frames import compact_policies
from ...results import Results
from .document import Figure, Table

DPI = 150


class Writer:
    """Writes figures (PNG) and tables (CSV) into the report folder."""

    def __init__(self, out_dir: Path, dpi: int = DPI):
        self.out_dir = out_dir
        self.dpi = dpi
        (out_dir / "figures").mkdir(parents=True, exist_ok=True)
        (out_dir / "tables").mkdir(parents=True, exist_ok=True)

    def figure(self, name: str, caption: str, draw, size=(8, 4.5), grid=(1, 1)) -> Figure:
        """``draw(fig, axes)`` on a new figure of ``grid`` axes, saved as ``figures/<name>.png``."""
        fig = _MplFigure(figsize=size, layout="constrained")
        axes = fig.subplots(*grid, squeeze=False).ravel()
        draw(fig, axes)
        fig.savefig(self.out_dir / "figures" / f"{name}.png", dpi=self.dpi)
        return Figure(name, caption)

    def table(self, name: str, caption: str, data: pd.DataFrame, display: pd.DataFrame,
              note: str = "") -> Table:
        """``data`` in full as ``tables/<name>.csv``; ``display`` goes into the report."""
        data.to_csv(self.out_dir / "tables" / f"{name}.csv", index=False)
        return Table(name, caption, data, display, note)

    def per_setting_figure(self, name, caption, settings, draw, max_cols, panel) -> Figure:
        """A grid of one panel per setting (``draw(ax, setting)``), at most ``max_cols`` wide;
        ``panel`` is the (width, height) of one panel in inches."""
        n = len(settings)
        cols = min(n, max_cols)
        rows = math.ceil(n / cols)

        def render(fig, axes):
            for ax, sid in zip(axes, settings):
                draw(ax, sid)
            for ax in axes[n:]:
                ax.set_visible(False)

        return self.figure(name, caption, render, size=(panel[0] * cols, panel[1] * rows),
                           grid=(rows, cols))


@dataclass
class Context:
    f: Results
    w: Writer
    correction: str  # "holm" or "bh"
    level: float

    @property
    def corr_name(self) -> str:
        return {"holm": "Holm", "bh": "Benjamini-Hochberg"}[self.correction]

    @property
    def games(self) -> int:
        return int(len(self.f.games))

    def context_phrase(self) -> str:
        """``"3 to 6 players, greedy policy"``: what the results cover."""
        n = sorted(self.f.settings["players"].astype(int).unique()) if len(self.f.settings) \
            else sorted(self.f.games["players"].astype(int).unique())
        if len(n) == 1:
            players = f"{n[0]} players"
        elif n == list(range(n[0], n[-1] + 1)):
            players = f"{n[0]} to {n[-1]} players"
        else:
            players = ", ".join(map(str, n)) + " players"
        pol = sorted({compact_policies(x) for x in self.f.settings["policies"]}) \
            if "policies" in self.f.settings else []
        return players + (f", {' / '.join(pol)} policy" if len(pol) == 1 else "")
