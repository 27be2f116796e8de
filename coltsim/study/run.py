"""``coltsim run FILE``: an experiment file in, data, tables, figures and a report out.

Every setting is simulated through the batch runner into ``OUTPUT/data`` (resuming whatever is
already there; a table of different policies in every seat rotation, as a tournament plays it),
then the analyses are run on the saved results and the report is written to ``OUTPUT``
(``report.md``, ``report.html``, ``figures/``, ``tables/``).
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..runs.runner import simulate_to_folder
from ..runs.storage import load_results
from .experiment import load_experiment
from .report import Report, build_report
from .tournament import played_settings


def run_experiment(path, games: int | None = None, workers: int | None = None, out=None,
                   quiet: bool = False) -> Report:
    """Simulate every setting of the experiment file ``path`` and write its report.

    ``games``, ``workers`` and ``out`` override the file's ``games``, ``workers`` and
    ``output``.  Returns the rendered :class:`coltsim.study.report.Report`."""
    e = load_experiment(path).with_overrides(games=games, output=out, workers=workers)
    data = Path(e.output) / "data"
    played = played_settings(e.settings)
    for i, s in enumerate(played, start=1):
        if not quiet:
            print(f"[{i}/{len(played)}] {s.label or s.id}: {e.games:,} games", file=sys.stderr)
        simulate_to_folder(s, e.games, data, seed=e.seed, workers=e.workers, backend=e.backend,
                           scheduler=e.scheduler, progress=not quiet)
    report = build_report(load_results(data), e, e.output)
    if not quiet:
        print(f"report: {Path(e.output) / 'report.md'}", file=sys.stderr)
    return report
