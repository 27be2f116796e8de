"""``coltsim tune FILE``: the balance search of a tune file (coltsim.study.tune), then its report
(coltsim.study.report.tune, built like every report)."""
from __future__ import annotations

import sys
from pathlib import Path

from .report.tune import write_tune_report
from .tune import TuneResult, load_tune, run_search


def tune_file(path, games: int | None = None, max_games: int | None = None,
              workers: int | None = None, out=None, quiet: bool = False) -> TuneResult:
    """``coltsim tune FILE``: run the search of a tune file and write its report (in the file's
    ``output``, default ``reports/NAME``, or ``out``).  ``games``, ``max_games`` and ``workers``
    override the file's."""
    spec = load_tune(path, games=games, max_games=max_games)
    e = spec.experiment.with_overrides(output=out, workers=workers)

    def log(line):
        print(line, file=sys.stderr)

    result = run_search(spec.search, seed=e.seed, workers=e.workers, backend=e.backend,
                        progress=not quiet, log=None if quiet else log)
    write_tune_report(result, e.output, name=e.name, description=e.description, text=e.text)
    log(f"report: {Path(e.output) / 'report.md'}")  # even quiet: where it is
    return result
