"""Building a report: analyse results (never simulate), write figures and tables, render.

:func:`build_report` writes, into ``out_dir``::

    report.md, report.html        the same content, readable on GitHub or in a browser
    figures/*.png                 one file per figure (composed from coltsim.study.plots)
    tables/*.csv                  every table in full, unformatted
    experiment.toml               the experiment file as it was run (if known)
    manifest.json                 the runner's manifest (if known), with the engine's hash

:func:`render_from_folder` re-renders ``reports/NAME`` from its saved data.
"""
from __future__ import annotations

import json
from pathlib import Path

from ...analysis.frames import as_results
from ...analysis.stats import CORRECTIONS, LEVEL
from ...runs.lock import folder_lock
from ...runs.storage import load_results
from ..experiment import ANALYSES, Experiment, load_experiment
from . import render, sections
from .context import DPI, Context, Writer
from .document import Report


def build_report(results, experiment: Experiment | None = None, out_dir=None,
                 analyses=None, correction: str | None = None, level: float = LEVEL,
                 dpi: int = DPI) -> Report:
    """Analyse results and write the report folder.

    Parameters
    ----------
    results : Results
        What ``coltsim.load_results`` or ``coltsim.simulate`` returns (or any object or
        mapping with the ``players``, ``games`` and ``settings`` DataFrames and optionally
        ``manifest``).
    experiment : Experiment, optional
        Gives the title, description, analyses, correction and default output folder.
    out_dir : path, optional
        Where to write (default ``experiment.output``).
    analyses : sequence of str, optional
        Overrides the experiment's analyses (default: all of
        :data:`coltsim.study.experiment.ANALYSES` that apply).
    correction : {"holm", "bh"}, optional
        Overrides the experiment's multiple-comparison correction (default Holm).
    dpi : int
        Resolution of the figures.

    Returns
    -------
    Report
        The structure that was rendered.
    """
    f = as_results(results)
    if out_dir is None:
        if experiment is None:
            raise ValueError("build_report needs out_dir when no experiment is given")
        out_dir = experiment.output
    out_dir = Path(out_dir)
    analyses = tuple(analyses or (experiment.analyses if experiment else ANALYSES))
    for a in analyses:
        if a not in ANALYSES:
            raise ValueError(f"unknown analysis {a!r}; allowed: {', '.join(ANALYSES)}")
    correction = correction or (experiment.correction if experiment else "holm")
    if correction not in CORRECTIONS or correction == "none":
        raise ValueError(f"unknown correction {correction!r}; allowed: holm, bh")
    if len(f.players) == 0:
        raise ValueError("the results hold no games")

    ctx = Context(f, Writer(out_dir, dpi), correction, level)
    title = experiment.name if experiment else (f.manifest or {}).get("name", out_dir.name)
    description = experiment.description if experiment else ""
    body = [sections.settings.build(ctx, experiment)]
    headline = []
    for a in ANALYSES:  # a fixed, readable order whatever the file lists
        if a in analyses:
            section, lines = sections.BY_ANALYSIS[a](ctx)
            body.append(section)
            headline += lines
    body.append(sections.methods.build(ctx))

    report = Report(f"coltsim report: {title}", description, headline, body, out_dir)
    (out_dir / "report.md").write_text(render.markdown(report), encoding="utf-8")
    (out_dir / "report.html").write_text(render.html(report), encoding="utf-8")
    if experiment is not None and experiment.text:
        (out_dir / "experiment.toml").write_text(experiment.text, encoding="utf-8")
    if f.manifest and not (out_dir / "players").is_dir():  # never touch a results folder's
        (out_dir / "manifest.json").write_text(json.dumps(f.manifest, indent=2, default=str)
                                               + "\n", encoding="utf-8")
    return report


def render_from_folder(folder, data=None) -> Report:
    """Re-render ``reports/NAME`` from its saved data, without simulating.

    The experiment is read from ``folder/experiment.toml`` if it is there; the data (a results
    folder, ``coltsim.load_results``: verified, the experiment's settings only) from ``data`` if
    given, else ``folder/data``.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: no such report folder")
    experiment = None
    if (folder / "experiment.toml").exists():
        experiment = load_experiment(folder / "experiment.toml")
    data = Path(data) if data is not None else folder / "data"
    if not (data / "manifest.json").exists():
        raise ValueError(f"{folder}: no saved results in {data} (no manifest.json)")
    settings = None if experiment is None else [s.id for s in experiment.settings]
    with folder_lock(folder):
        return build_report(load_results(data, settings=settings), experiment, folder)
