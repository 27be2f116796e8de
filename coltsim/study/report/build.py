"""Building a report: analyse results (never simulate), make figures and tables, render.

:func:`build_report` makes these files, then writes them into ``out_dir`` at once
(coltsim.study.folder: each whole or not at all, the manifest last; the previous report's
figures and tables that this one does not have are removed)::

    report.md, report.html        the same content, readable on GitHub or in a browser (the
                                  HTML page embeds its figures: it stands alone)
    figures/*.png                 one file per figure (composed from coltsim.study.plots)
    tables/*.csv                  every table in full, at 6 significant digits; headline.csv:
                                  the answer
    experiment.toml               the experiment file as it was run (if known)
    manifest.json                 the runner's manifest (if known), with the engine's hash, the
                                  experiment's name and a fingerprint of each setting's games
                                  (coltsim.runs.fingerprint)

:func:`render_from_folder` re-renders ``reports/NAME`` from its saved data (the games of
:func:`saved_settings`).
"""
from __future__ import annotations

import contextlib
import traceback
from pathlib import Path
from types import SimpleNamespace

from ...analysis.design import Design, design_of
from ...analysis.frames import as_results
from ...analysis.stats import LEVEL
from ...runs.fingerprint import fingerprint
from ...runs.folder import MANIFEST, recover
from ...runs.lock import folder_lock
from ...runs.load import load_results
from ...runs.storage import REPORT_DATA, read_manifest
from ...setting import changed_file, played_settings
from ..experiment import (
    ANALYSES, CORRECTIONS, Experiment, check_analyses, check_choice, load_experiment,
)
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
        Gives the title, description, analyses, correction, ladder and default output folder.
    out_dir : path, optional
        Where to write (default ``experiment.output``).
    analyses : sequence of str, optional
        The analyses, in the order the report gives them (default: the experiment's, else
        every analysis that applies to the design: :func:`default_analyses`).
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
    if len(f.players) == 0:
        raise ValueError("the results hold no games")
    design = design_of(f, experiment.ladder if experiment else ())
    analyses = (check_analyses("build_report", analyses) if analyses else
                (experiment.analyses if experiment else ()) or default_analyses(design))
    correction = check_choice("build_report", "correction", correction or (
        experiment.correction if experiment else "holm"), CORRECTIONS)

    ctx = Context(f, design, Writer(out_dir, dpi), correction, level, analyses,
                  focus=experiment.focus if experiment else ())
    with report_step("the headline") as step:
        for a in analyses:
            step.now = f"the {a} analysis"
            sections.BY_ANALYSIS[a].analyse(ctx)
        step.now = "the headline"
        sections.headline.analyse(ctx)
        ctx.family.adjust()
        headline = sections.headline.build(ctx, sections.headline.compute(ctx))
        if experiment is not None and experiment.precision is not None:
            sentences = next((i for i, b in enumerate(headline) if not isinstance(b, str)),
                             len(headline))
            headline.insert(sentences, sections.headline.precision_note(
                ctx, experiment.precision, experiment.max_games))
        body = []
        for a in analyses:
            step.now = f"the {a} section"
            body.append(sections.BY_ANALYSIS[a].build(ctx))
        step.now = "the settings and methods sections"
        body += [sections.settings.build(ctx, experiment), sections.methods.build(ctx)]
        title = experiment.name if experiment else (f.manifest or {}).get("name", out_dir.name)
        description = experiment.description if experiment else ""
        report = Report(f"coltsim report: {title}", description, headline, body, out_dir)
        step.now = "rendering"
        files = ctx.w.files
        files.add("report.md", render.markdown(report))
        files.add("report.html", render.html(report, files.files))
    if experiment is not None and experiment.text:
        files.add("experiment.toml", experiment.text)
    if f.manifest and not (out_dir / "players").is_dir():  # never touch a results folder's
        manifest = {k: v for k, v in f.manifest.items() if k != "settings"}
        if experiment is not None:  # whose report the folder holds (coltsim.study.folder)
            manifest["experiment"] = experiment.name
        manifest["settings"] = f.manifest.get("settings", {})
        with report_step("the fingerprints of the games"):
            manifest["fingerprints"] = fingerprints(f, manifest["settings"])
        files.manifest = manifest
    files.write()
    return report


def fingerprints(results, settings: dict) -> list:
    """The fingerprint of each setting of ``settings`` (a manifest's entries) from the games
    ``results`` hold (coltsim.runs.fingerprint: what tells later whether the report is stale)."""
    records = (fingerprint(results, sid, e["seed"], e["policies"], e["games"])
               for sid, e in settings.items())
    return [r for r in records if r is not None]


class ReportError(RuntimeError):
    """A report that cannot be built from results that are fine (verified, as a run saved
    them): a bug of coltsim.  The message is one line naming the step that failed, the error
    and the line of coltsim where it happened; the results are untouched."""


@contextlib.contextmanager
def report_step(first: str):
    """Around the analyses and the rendering of a report (its arguments checked before): an
    error other than a file that cannot be written becomes a :class:`ReportError` naming
    ``step.now``, the step under way."""
    step = SimpleNamespace(now=first)
    try:
        yield step
    except (OSError, ReportError):
        raise
    except Exception as e:  # any bug of a section, told in one line
        text = str(e) if len(str(e)) <= 120 else str(e)[:117] + "..."
        raise ReportError(f"the report could not be built (a bug of coltsim): {step.now} "
                          f"failed with {type(e).__name__}: {text}{_coltsim_line(e)}") from e


def _coltsim_line(e: BaseException) -> str:
    """``" (at coltsim/study/plots.py:236, in plot_lines)"``: the innermost line of coltsim's
    own code in ``e``'s traceback, where a bug report starts."""
    root = Path(__file__).resolve().parents[2]
    frames = [fr for fr in traceback.extract_tb(e.__traceback__)
              if Path(fr.filename).resolve().is_relative_to(root)]
    if not frames:
        return ""
    fr = frames[-1]
    where = Path(fr.filename).resolve().relative_to(root.parent).as_posix()
    return f" (at {where}:{fr.lineno}, in {fr.name})"


def default_analyses(design: Design) -> tuple:
    """The analyses that apply to a design, the question first: policies against each other
    (tables of different policies), comparisons (several conditions), then balance, head to
    head, game quality, the Gunslinger, round cards and seats (settings that seat one
    policy)."""
    if not design.uniform:
        return ("policies",)
    first = (("policies",) if design.tables() else ()) + (("compare",) if design.pairs() else ())
    return first + tuple(a for a in ANALYSES if a not in ("policies", "compare"))


def render_from_folder(folder, data=None) -> Report:
    """Re-render ``reports/NAME`` from its saved data, without simulating.

    The experiment is read from ``folder/experiment.toml`` if it is there; the data (a results
    folder, ``coltsim.load_results``: verified, the experiment's settings only) from ``data`` if
    given, else ``folder/data`` (:func:`saved_settings`).
    """
    folder = Path(folder)
    experiment = _experiment_of(folder)
    settings = saved_settings(folder, data)
    data = Path(data) if data is not None else folder / REPORT_DATA
    with folder_lock(folder):
        recover(folder)
        try:
            return build_report(load_results(data, settings=settings), experiment, folder)
        except ReportError as e:
            raise kept_games(e, data, folder) from e


def _experiment_of(folder: Path) -> Experiment | None:
    """The experiment of the report folder ``folder`` (None: it keeps no experiment file)."""
    if not folder.is_dir():
        raise ValueError(f"{folder}: no such report folder")
    toml = folder / "experiment.toml"
    return load_experiment(toml) if toml.exists() else None


def saved_settings(folder, data=None) -> list | None:
    """The ids of the settings whose games make the report in ``folder``: its experiment's
    (None: it keeps no experiment file; every setting of the data), from the data in ``data``
    (default ``folder/data``).  A folder without saved games, or whose experiment now names a
    file (a network) with another content than its games were played with, is a ``ValueError``
    of one line naming it and what to do."""
    folder = Path(folder)
    experiment = _experiment_of(folder)
    given = data is not None
    data = Path(data) if given else folder / REPORT_DATA
    manifest = read_manifest(data)
    if manifest is None:
        if given:
            raise ValueError(f"{data}: no saved results (no {MANIFEST})")
        toml = folder / "experiment.toml" if experiment else "EXPERIMENT.toml"
        if (folder / MANIFEST).is_file() and (folder / "report.md").is_file():
            raise ValueError(f"{folder}: the games of this report are not saved beside it (a "
                             f"committed report keeps none); `coltsim run {toml} --out "
                             f"{folder}` plays them again")
        raise ValueError(f"{folder} is not a report folder of coltsim (it holds no report and "
                         "no saved games); give the folder `coltsim run` wrote (its --out)")
    if experiment is None:
        return None
    played = played_settings(experiment.settings)
    changed = changed_file(
        {k: r for e in manifest["settings"].values() for k, r in e.get("files", {}).items()},
        {k: r for s in played for k, r in s.file_records().items()})
    if changed:
        raise ValueError(f"{folder}: its games were played with another {changed}; put back "
                         "that file to make the report from them")
    return [s.id for s in played]


def kept_games(e: ReportError, data, folder) -> ReportError:
    """``e`` told with what is kept: the games in ``data``, which ``coltsim report FOLDER``
    builds the report from once the bug is fixed."""
    manifest = read_manifest(data) or {}
    games = sum(r["n_games"] for entry in manifest.get("settings", {}).values()
                for r in entry["chunks"])
    return ReportError(f"{e}; the {games:,} games played are kept in {data}: `coltsim report "
                       f"{folder}` builds the report from them once the bug is fixed")
