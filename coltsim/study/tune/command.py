"""``coltsim tune FILE``: the balance search of a tune file (coltsim.study.tune.search), then its
report (coltsim.study.tune.report, built like every report and written all at once).

``coltsim tune`` writes into a folder only if it is new, empty or holds a report of the same
search (its name, option, values, objective, settings and seed, with as many games or fewer;
coltsim.study.folder); ``--replace`` replaces another.
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..._process import DONE
from ..folder import owner_of, report_folder
from .report import search_record, write_tune_report
from .search import TuneResult, load_tune, run_search


def tune_file(path, games: int | None = None, max_games: int | None = None,
              workers: int | None = None, out=None, quiet: bool = False,
              replace: bool = False) -> TuneResult:
    """``coltsim tune FILE``: run the search of a tune file and write its report (in the file's
    ``output``, default ``reports/NAME``, or ``out``).  ``games``, ``max_games`` and ``workers``
    override the file's.  The output folder must be new, empty or hold a report of the same
    search with as many games or fewer (coltsim.study.folder); ``replace`` removes another
    report (and its data) from it first."""
    spec = load_tune(path, games=games, max_games=max_games)
    e = spec.experiment.with_overrides(output=out, workers=workers)

    def log(line):
        print(line, file=sys.stderr)

    owner = owner_of({"experiment": e.name, "tune": search_record(spec.search, e.seed)})
    with report_folder(Path(e.output), owner, replace):
        result = run_search(spec.search, seed=e.seed, workers=e.workers, backend=e.backend,
                            progress=not quiet, log=None if quiet else log)
        write_tune_report(result, e.output, name=e.name, description=e.description,
                          text=e.text)
        DONE.set()  # written: a Ctrl-C now cannot make it an interrupted search
    log(f"report: {Path(e.output) / 'report.md'}")  # even quiet: where it is
    return result
