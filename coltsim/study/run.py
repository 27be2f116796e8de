"""``coltsim run FILE``: an experiment file in, data, tables, figures and a report out.

Every setting is simulated through the batch runner into ``OUTPUT/data`` (resuming whatever is
already there, after verifying it; a table of different policies in every seat rotation, as a
tournament plays it), then the analyses are run on the saved results of exactly the experiment's
settings (a setting an earlier version of the file had stays in ``data/`` but not in the
report) and the report is written to ``OUTPUT`` (``report.md``, ``report.html``, ``figures/``,
``tables/``).

``OUTPUT`` must be new, empty, or a report folder coltsim wrote (it holds ``data/manifest.json``
or the report's ``manifest.json``): coltsim never overwrites files it did not write.  The run
holds the folder's lock (coltsim.runs.lock) from start to end.
"""
from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from ..runs.lock import LOCK, folder_lock
from ..runs.runner import simulate_to_folder
from ..runs.storage import MANIFEST, load_results
from ..setting import FieldError
from .experiment import load_experiment
from .report import Report, build_report
from .tournament import played_settings

REPORT_OUTPUTS = {"figures": "*.png", "tables": "*.csv"}  # what build_report writes in folders


def run_experiment(path, games: int | None = None, workers: int | None = None, out=None,
                   quiet: bool = False) -> Report:
    """Simulate every setting of the experiment file ``path`` and write its report.

    ``games``, ``workers`` and ``out`` override the file's ``games``, ``workers`` and
    ``output``.  Returns the rendered :class:`coltsim.study.report.Report`."""
    e = load_experiment(path).with_overrides(games=games, output=out, workers=workers)
    out = Path(e.output)
    with report_folder(out):
        data = out / "data"
        played = played_settings(e.settings)
        for i, s in enumerate(played, start=1):
            if not quiet:
                print(f"[{i}/{len(played)}] {s.label or s.id}: {e.games:,} games",
                      file=sys.stderr)
            simulate_to_folder(s, e.games, data, seed=e.seed, workers=e.workers,
                               backend=e.backend, scheduler=e.scheduler, progress=not quiet)
        results = load_results(data, settings=[s.id for s in played])
        for folder, pattern in REPORT_OUTPUTS.items():  # the previous report's, so that the
            for old in (out / folder).glob(pattern):  # folder holds exactly this one
                old.unlink()
        report = build_report(results, e, out)
    if not quiet:
        print(f"report: {out / 'report.md'}", file=sys.stderr)
    return report


def written_by_coltsim(folder: Path) -> bool:
    """Whether ``folder`` is a report folder coltsim wrote: it holds the results' manifest
    (``data/manifest.json``) or the report's copy of it."""
    if (folder / "data" / MANIFEST).is_file():
        return True
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(manifest, dict) and "coltsim_version" in manifest and "engine" in manifest


@contextlib.contextmanager
def report_folder(out: Path):
    """Claim ``out`` for a report: refuse a file, or a folder holding files coltsim did not
    write; create it, and hold its lock while the report is made."""
    if out.exists() and not out.is_dir():
        raise FieldError("output", f"{out} is a file; give a folder for the report")
    if out.is_dir() and not written_by_coltsim(out):
        others = sorted(p.name for p in out.iterdir() if p.name != LOCK)
        if others:
            raise FieldError("output", f"{out} holds files coltsim did not write "
                                       f"({', '.join(others[:3])}{', ...' if others[3:] else ''})"
                                       "; choose a new or empty folder for the report")
    out.mkdir(parents=True, exist_ok=True)
    with folder_lock(out):
        yield
