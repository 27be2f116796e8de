"""A report's structure (coltsim.study.report.document) as Markdown, for git, and as HTML, for a
browser: the same content.  The HTML page is the Jinja template ``templates/report.html``
(autoescaped) and stands alone: its figures are embedded, so the page can be mailed or moved
without its folder; a contents list links every section."""
from __future__ import annotations

import base64

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
        out += _markdown_blocks(report.headline, quote=True)
    if len(report.sections) > 1:
        out += ["Contents: " + " · ".join(f"[{s.title}](#{s.anchor})" for s in report.sections),
                ""]
    for s in report.sections:
        out += [f"## {s.title}", ""]
        out += _markdown_blocks(s.blocks)
    return "\n".join(out).rstrip() + "\n"


def _markdown_blocks(blocks, quote: bool = False) -> list[str]:
    out = []
    for b in blocks:
        if isinstance(b, str):
            out += [f"> {b}" if quote else b, ""]
        elif isinstance(b, Figure):
            out += [f"![{b.caption}](figures/{b.name}.png)", "", f"*{b.caption}*", ""]
        elif isinstance(b, Table):
            out += [f"**{b.caption}**", "", _markdown_table(b.display), ""]
            note = f"{b.note} " if b.note else ""
            out += [f"{note}Full table: [tables/{b.name}.csv](tables/{b.name}.csv)", ""]
    return out


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
_ENV.tests["table"] = lambda block: isinstance(block, Table)


def html(report: Report, files: dict) -> str:
    """The page, with every figure embedded as a data URI (``files``: the report's files by
    name, ``figures/<name>.png``)."""
    def embedded(figure: Figure) -> str:
        data = base64.b64encode(files.get(f"figures/{figure.name}.png", b"")).decode("ascii")
        return f"data:image/png;base64,{data}"

    return _ENV.get_template("report.html").render(report=report, embedded=embedded)
