"""Reports: the analyses an experiment asks for, as Markdown and HTML with figures and tables.

- :mod:`.build`: ``build_report`` (results in, report folder out) and ``render_from_folder``.
- :mod:`.sections`: one module per section (settings, balance, seats, gunslinger, round cards,
  comparisons, methods).
- :mod:`.document`: the structure (report, sections, tables, figures); :mod:`.render` turns it
  into Markdown and HTML (``templates/report.html``); :mod:`.formatting` prints the numbers;
  :mod:`.context` writes the figures and tables.
"""
from .build import build_report, render_from_folder
from .document import Figure, Report, Section, Table

__all__ = ["Figure", "Report", "Section", "Table", "build_report", "render_from_folder"]
