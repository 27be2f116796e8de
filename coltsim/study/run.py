"""``coltsim run FILE``: an experiment file in, data, tables, figures and a report out.

Every setting is simulated through the batch runner into ``OUTPUT/data`` (resuming whatever is
already there, after verifying it; a table of different policies in every seat rotation, as a
tournament plays it), then the analyses are run on the saved results of exactly the experiment's
settings (a setting an earlier version of the file had stays in ``data/`` but not in the
report) and the report is written to ``OUTPUT`` (``report.md``, ``report.html``, ``figures/``,
``tables/``).

**More games** grow the run: asked for more games than ``data/`` holds, each setting plays only
the games after those it has, of the same seed, so the data equal a fresh run of the new count
(coltsim.runs.storage); asked for fewer, the run is refused.

**Precision instead of a game count**: with ``precision`` (the file's, or ``--precision``) the
run proceeds in rounds.  Round 1 plays ``games`` per setting (or what ``data/`` already holds, if
more); after each round the headline's win-rate intervals are computed from the saved results
(coltsim.analysis.headline.precision) and, while the widest is wider than the target and the
settings hold fewer than ``max_games`` games, every setting grows to the games the widest
interval projects (coltsim.analysis.power.games_to_reach).  Every setting keeps the same number
of games, so comparisons stay on the same deals.  The report states the precision reached.

``OUTPUT`` must be new, empty, or hold a report of the same experiment (its name and settings,
each with its seed, as the report's manifest records them; coltsim.study.folder): another
experiment's report is replaced only when asked (``--replace``), and coltsim never overwrites
files it did not write.  The run holds the folder's lock (coltsim.runs.lock) from start to end,
and writes the report's files all at once.
"""
from __future__ import annotations

import sys
from pathlib import Path

from .._process import DONE
from ..analysis.headline import precision as interval_precision
from ..analysis.power import games_to_reach
from ..runs.runner import simulate_to_folder
from ..runs.load import load_results
from ..runs.progress import RunProgress
from ..runs.storage import REPORT_DATA, read_manifest
from ..setting import played_settings
from .experiment import Experiment, load_experiment
from .folder import owner_of, report_folder
from .labels import setting_names
from .report import Report, build_report
from .report.build import ReportError, kept_games, report_step
from .report.formatting import points


def run_experiment(path, games: int | None = None, workers: int | None = None, out=None,
                   quiet: bool = False, precision: float | None = None,
                   max_games: int | None = None, replace: bool = False) -> Report:
    """Simulate every setting of the experiment file ``path`` and write its report.

    ``games``, ``workers``, ``out``, ``precision`` and ``max_games`` override the file's
    ``games``, ``workers``, ``output``, ``precision`` and ``max_games``.  The output folder must
    be new, empty or hold a report of this experiment (coltsim.study.folder); ``replace``
    removes another experiment's report (and its data) from it first.  Returns the rendered
    :class:`coltsim.study.report.Report`."""
    e = load_experiment(path).with_overrides(games=games, output=out, workers=workers,
                                             precision=precision, max_games=max_games)
    out = Path(e.output)
    played = played_settings(e.settings)
    owner = owner_of({"experiment": e.name,
                      "settings": {s.id: {**s.as_dict(), "seed": e.seed} for s in played}})
    with report_folder(out, owner, replace):
        data = out / REPORT_DATA
        try:
            if e.precision is None:
                play_settings(e, played, e.games, data, progress=not quiet)
            else:
                grow_to_precision(e, played, data, quiet=quiet)
            report = build_report(load_results(data, settings=[s.id for s in played]), e, out)
            DONE.set()  # written: a Ctrl-C now cannot make it an interrupted run
        except ReportError as error:  # a bug of coltsim, after the games were saved
            raise kept_games(error, data, out) from error
    print(f"report: {out / 'report.md'}", file=sys.stderr)  # even quiet: where it is
    return report


def play_settings(e: Experiment, played: list, games: int, data: Path, progress: bool = True,
                  title: str = "") -> None:
    """Play (or grow, or finish) every setting of ``played`` to ``games`` games into ``data``,
    with one progress bar over them all: named by the setting being played (its label, as the
    report names it), with the time left from each setting's own speed
    (coltsim.runs.progress)."""
    held = games_held(data, played)
    todo = sum(max(0, games - held[s.id]) for s in played)
    if progress:
        print(f"{title or e.name}: {len(played)} setting{'s' if len(played) != 1 else ''} x "
              f"{games:,} games ({f'{todo:,} to play' if todo else 'all played'})",
              file=sys.stderr)
    names = [f"[{i}/{len(played)}] {name}" for i, name in enumerate(setting_names(played), 1)]
    with RunProgress(todo, desc=names[0], enabled=progress and bool(todo)) as bar:
        for s in played:
            bar.expect(s.id, max(0, games - held[s.id]))
        for s, name in zip(played, names):
            bar.describe(name)
            simulate_to_folder(s, games, data, seed=e.seed, workers=e.workers,
                               backend=e.backend, scheduler=e.scheduler,
                               progress=bar if progress else False)


def games_held(data: Path, settings) -> dict:
    """Games of each setting in the finished chunks ``data`` records (0 for a new setting)."""
    manifest = read_manifest(data) if Path(data).is_dir() else None
    entries = manifest["settings"] if manifest else {}
    return {s.id: sum(r["n_games"] for r in entries[s.id]["chunks"]) if s.id in entries else 0
            for s in settings}


def grow_to_precision(e: Experiment, played: list, data: Path, quiet: bool = False) -> list:
    """Play rounds until every win-rate interval of the headline is at most ``e.precision``
    wide on each side, or the settings hold ``e.max_games`` games; returns one dict per round
    (``games`` per setting, the widest ``half_width`` and what it is)."""
    say = (lambda line: None) if quiet else (lambda line: print(line, file=sys.stderr))
    games = max([e.games] + list(games_held(data, played).values()))
    ids = [s.id for s in played]
    rounds = []
    while True:
        r = len(rounds) + 1
        play_settings(e, played, games, data, progress=not quiet,
                      title=f"{e.name}, round {r} (precision ±{points(e.precision, 2)} points)")
        with report_step(f"the precision of round {r}"):
            widths = interval_precision(load_results(data, settings=ids), e.ladder)
        if not len(widths):
            say(f"round {r}: the results give no win-rate interval to narrow")
            rounds.append({"games": games, "half_width": float("nan"), "widest": ""})
            break
        w = widths.iloc[0]
        rounds.append({"games": games, "half_width": float(w["half_width"]),
                       "widest": f"{w['interval']}, {w['label']}"})
        reached = w["half_width"] <= e.precision
        say(f"round {r}: {games:,} games per setting; widest interval ±"
            f"{points(w['half_width'], 2)} points ({w['interval']}, {w['label']})"
            + ("; target reached" if reached else
               f"; the cap of {e.max_games:,} games is reached" if games >= e.max_games else ""))
        if reached or games >= e.max_games:
            break
        games = games_to_reach(games, float(w["half_width"]), e.precision, e.max_games)
    return rounds
