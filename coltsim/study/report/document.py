"""The structure of a report, before it is rendered: a title, the headline (the answer to the
experiment's question: sentences, a table, figures), and sections of paragraphs, figures and
tables (coltsim.study.report.render turns it into Markdown and HTML)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


@dataclass
class Table:
    """A table: ``data`` goes to ``tables/<name>.csv`` in full; ``display`` (formatted text,
    possibly fewer rows) goes into the report."""

    name: str
    caption: str
    data: pd.DataFrame
    display: pd.DataFrame
    note: str = ""


@dataclass
class Figure:
    """A figure saved as ``figures/<name>.png``."""

    name: str
    caption: str


@dataclass
class Section:
    title: str
    blocks: list = field(default_factory=list)  # str paragraphs, Table, Figure

    @property
    def anchor(self) -> str:
        """The section's id in the HTML page (and its GitHub heading anchor)."""
        return re.sub(r"[^a-z0-9 -]", "", self.title.lower()).strip().replace(" ", "-")


@dataclass
class Report:
    title: str
    description: str
    headline: list  # the answer, first: sentences a designer can quote, a table, figures
    sections: list
    out_dir: Path
