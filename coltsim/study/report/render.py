"""A report's structure (coltsim.study.report.document) as Markdown, for git, and as HTML, for a
browser: the same content.  The HTML page is the Jinja template ``templates/report.html``
(autoescaped)."""
from __future__ import annotations

import jinja2
import pandas as pd
from markupsafe import Markup, escape

from .document import Figure, Report, Table


def markdown(report: Report) -> str:
    out = [f"# {report.title}", ""]
    if report.description:
        out += [report.description, ""]
    if report.headline:
        out += ["## Headline", ""]
        out += [f"> {line}\n>" for line in report.headline]
        out[-1] = out[-1].rstrip(">").rstrip()
        out.append("")
    for s in report.sections:
        out += [f"## {s.title}", ""]
        for b in s.blocks:
            if isinstance(b, str):
                out += [b, ""]
            elif isinstance(b, Figure):
                out += [f"![{b.caption}](figures/{b.name}.png)", "", f"*{b.caption}*", ""]
            elif isinstance(b, Table):
                out += [f"**{b.caption}**", "", _markdown_table(b.display), ""]
                note = f"{b.note} " if b.note else ""
                out += [f"{note}Full table: [tables/{b.name}.csv](tables/{b.name}.csv)", ""]
    return "\n".join(out).rstrip() + "\n"


def _markdown_table(df: pd.DataFrame) -> str:
    if df.empty:
        return "*(no rows)*"
    cells = [[str(c) for c in df.columns]] + [[str(v) for v in row] for row in df.itertuples(
        index=False)]
    cells = [[c.replace("|", "\\|") for c in row] for row in cells]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "|".join(["---"] * len(df.columns)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
    return "\n".join(lines)


def _inline_code(text: str) -> Markup:
    """Escape, then render the only inline Markdown the report writes: `code`."""
    parts = str(escape(text)).split("`")
    return Markup("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)))


_ENV = jinja2.Environment(loader=jinja2.PackageLoader("coltsim.study.report", "templates"),
                          autoescape=True, trim_blocks=True, lstrip_blocks=True,
                          keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
_ENV.filters["inline_code"] = _inline_code
_ENV.tests["figure"] = lambda block: isinstance(block, Figure)


def html(report: Report) -> str:
    return _ENV.get_template("report.html").render(report=report)
