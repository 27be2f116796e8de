"""``coltsim run FILE``: an experiment file in, data, tables, figures and a report out.

Every setting is simulated through the batch runner into ``OUTPUT/data`` (resuming whatever is
already there), then the analyses are run on the saved results and the report is written to
``OUTPUT`` (``report.md``, ``report.html``, ``figures/``, ``tables/``).
"""
from __future__ import annotations

import sys
from pathlib import Path

from .experiment import load_experiment
from .report import build_report, load_saved_results
from .runner import simulate


def run_experiment(path, games: int | None = None, n_jobs: int | None = None, out=None,
                   quiet: bool = False):
    """Simulate every setting of the experiment file ``path`` and write its report.

    ``games``, ``n_jobs`` and ``out`` override the file's ``games``, ``n_jobs`` and ``output``.
    Returns the rendered :class:`coltsim.report.Report`."""
    e = load_experiment(path).with_overrides(games=games, output=out, n_jobs=n_jobs)
    data = Path(e.output) / "data"
    for i, s in enumerate(e.settings, start=1):
        if not quiet:
            print(f"[{i}/{len(e.settings)}] {s.id}: {e.games:,} games", file=sys.stderr)
        simulate(e.games, seed=e.seed, folder=data, backend=e.backend, scheduler=e.scheduler,
                 workers=e.n_jobs, quiet=quiet, **s.simulate_kwargs())
    report = build_report(load_saved_results(data), e, e.output)
    if not quiet:
        print(f"report: {Path(e.output) / 'report.md'}", file=sys.stderr)
    return report

