"""A report folder (``reports/NAME``): the experiment it belongs to, and its files, all written
at once.

**One experiment per folder.**  ``coltsim run`` and ``coltsim tune`` write into a folder only
when it is new or empty (but for its lock), or holds a report of the same experiment: the
report's ``manifest.json`` records the experiment's name and what it played (a run's settings,
each with its seed; a search), and a run that stopped before writing its report left
``data/manifest.json``, which records its settings.  Anything else is refused with one line
naming what is there and ``--replace`` (``replace=True``), which first removes what coltsim
wrote there (the report and its data); a folder holding files coltsim did not write is refused
either way.  A run that rewrites a bundled report of the repository (``reports/NAME`` beside
the ``coltsim`` package) says so first (:class:`BundledReportWarning`).

**Atomic, byte-stable files.**  A report's files are made in memory (:class:`ReportFiles`);
then each is written under a temporary name, and only when every one is written whole are they
renamed into place, the manifest last.  A crash or a full disk leaves the previous report or
the new one, never a mix, and the error names the file.  Tables are written at
``TABLE_DIGITS`` significant digits and figures without the plotting library's version stamp,
so that rerunning an experiment with the same engine gives the same bytes on any machine.
"""
from __future__ import annotations

import contextlib
import io
import json
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ..runs.lock import LOCK, folder_lock
from ..runs.storage import MANIFEST, REPORT_DATA, TABLES, new_token, write_temporary
from ..setting import FieldError

TABLE_DIGITS = 6  # significant digits of every number in a report's tables
PNG_METADATA = {"Software": None}  # matplotlib stamps its version otherwise
REPORT_FILES = ("report.md", "report.html", "experiment.toml", "tune.toml", MANIFEST)
REPORT_OUTPUTS = {"figures": "*.png", "tables": "*.csv"}  # one file per figure and table
REPOSITORY = Path(__file__).resolve().parents[2]  # holds coltsim/, and reports/ when a checkout


class BundledReportWarning(UserWarning):
    """A run rewrites one of the reports committed with coltsim (``reports/NAME``)."""


# --- the files of a report ----------------------------------------------------------------------
def table_bytes(df) -> bytes:
    """A table as CSV, numbers at ``TABLE_DIGITS`` significant digits, lines ending in ``\\n``."""
    return df.to_csv(index=False, float_format=f"%.{TABLE_DIGITS}g",
                     lineterminator="\n").encode("utf-8")


class ReportFiles:
    """The files of one report, kept in memory by name (``report.md``, ``figures/x.png``) until
    :meth:`write` puts them all in place in ``folder``."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.files: dict[str, bytes] = {}

    def add(self, name: str, content: str | bytes) -> None:
        self.files[name] = content.encode("utf-8") if isinstance(content, str) else content

    def table(self, name: str, df) -> None:
        """``tables/<name>.csv``."""
        self.add(f"tables/{name}.csv", table_bytes(df))

    def figure(self, name: str, fig, dpi: int) -> None:
        """``figures/<name>.png`` of a matplotlib figure."""
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi, metadata=PNG_METADATA)
        self.add(f"figures/{name}.png", buffer.getvalue())

    def write(self) -> None:
        """Write every file under a temporary name, then rename each into place, the manifest
        last; remove the figures and tables of the previous report that this one does not have.
        A file that cannot be written (a full disk) is an ``OSError`` naming it, and leaves the
        folder as it was."""
        token = new_token()
        written = []
        try:
            for name in sorted(self.files, key=lambda name: name == MANIFEST):
                path = self.folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                written.append((write_temporary(path, self.files[name], token), path))
        except BaseException as e:
            for tmp, _ in written:
                tmp.unlink(missing_ok=True)
            if isinstance(e, OSError):
                raise OSError(e.errno, f"{e.strerror}; the report was not written, the folder "
                                       "is as it was", e.filename) from None
            raise
        for tmp, path in written:
            tmp.replace(path)
        for folder, pattern in REPORT_OUTPUTS.items():
            for old in (self.folder / folder).glob(pattern):
                if f"{folder}/{old.name}" not in self.files:
                    old.unlink()


def remove_temporaries(folder: Path) -> None:
    """The temporary files of report writers that died (:meth:`ReportFiles.write`)."""
    for where in (folder, *(folder / f for f in REPORT_OUTPUTS)):
        for tmp in where.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)


# --- whose folder it is -------------------------------------------------------------------------
TUNE_GAMES = ("games", "max_games")  # a search's size: a smaller one never replaces it
TUNE_RESULTS = (*TUNE_GAMES, "games_played", "best")  # in a search's manifest, not what it plays


@dataclass(frozen=True)
class Owner:
    """The experiment a report is of: ``kind`` "run" (``coltsim run``) or "tune" (``coltsim
    tune``), its name (None: not recorded), what it plays (a run: seed by setting id; a search:
    its option, values, objective, settings and seed) and, for a search, its games."""

    kind: str
    name: str | None
    plays: dict
    games: dict = field(default_factory=dict)

    def text(self) -> str:
        if self.name is None:
            return "a balance search" if self.kind == "tune" else "an experiment"
        return f"{'the balance search' if self.kind == 'tune' else 'experiment'} {self.name!r}"


def owner_of(manifest: dict) -> Owner:
    """The experiment a report's manifest (or a run's data manifest) records."""
    name = manifest.get("experiment")
    if isinstance(manifest.get("tune"), dict):
        tune = manifest["tune"]
        return Owner("tune", name, {k: v for k, v in tune.items() if k not in TUNE_RESULTS},
                     {k: tune.get(k) for k in TUNE_GAMES})
    settings = manifest.get("settings")
    settings = settings if isinstance(settings, dict) else {}
    return Owner("run", name, {sid: e.get("seed") if isinstance(e, dict) else None
                               for sid, e in settings.items()})


def _recorded(folder: Path) -> tuple[Owner, bool] | None:
    """The experiment ``folder`` holds and whether its report was written: from the report's
    manifest, else from its data's (a run that stopped before its report); None if neither is
    a manifest coltsim wrote."""
    for path, report in ((folder / MANIFEST, True), (folder / REPORT_DATA / MANIFEST, False)):
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            continue
        if isinstance(manifest, dict) and "coltsim_version" in manifest and "engine" in manifest:
            return owner_of(manifest), report
    return None


def _difference(there: Owner, report: bool, here: Owner) -> str | None:
    """Why the folder's report (or its data, when no report was written) is not of ``here``."""
    if there.kind != here.kind or there.name is not None and there.name != here.name:
        return f"the report of {there.text()}, not of {here.text()}"
    of = f"the report of {here.text()}"
    if here.kind == "tune":
        for key in dict.fromkeys([*there.plays, *here.plays]):
            if there.plays.get(key) != here.plays.get(key):
                return f"{of} with another search ({key} differs)"
        if any(not isinstance(there.games[k], int) or here.games[k] < there.games[k]
               for k in TUNE_GAMES):
            sizes = [", ".join(f"{k} {g[k]:,}" if isinstance(g[k], int) else f"{k} ?"
                               for k in TUNE_GAMES) for g in (there.games, here.games)]
            return (f"{of} with a larger search ({sizes[0]}; this one: {sizes[1]}), which a "
                    "smaller one never replaces")
        return None
    gone = [sid for sid in there.plays if sid not in here.plays]
    if gone:
        return f"{of} with other settings ({gone[0]} is there, not in this one)"
    new = [sid for sid in here.plays if sid not in there.plays]
    if new and report:  # (data without a report: a run that stopped before them)
        return f"{of} with other settings ({new[0]} is in this one, not there)"
    seed = next((sid for sid in there.plays if there.plays[sid] != here.plays[sid]), None)
    if seed is not None:
        return (f"{of} with another seed (setting {seed}: {there.plays[seed]} there, "
                f"{here.plays[seed]} here)")
    return None


def _remove_report(out: Path) -> None:
    """What coltsim wrote in a report folder: the report and its data."""
    data = out / REPORT_DATA
    if data.is_dir():
        with folder_lock(data):
            shutil.rmtree(data)
    for name in REPORT_FILES:
        (out / name).unlink(missing_ok=True)
    for folder, pattern in REPORT_OUTPUTS.items():
        for old in (out / folder).glob(pattern):
            old.unlink()


def bundled(out: Path) -> bool:
    """Whether ``out`` is a report committed with coltsim (in the repository's ``reports/``)."""
    return (out.resolve().parent == REPOSITORY / "reports" and (out / "report.md").is_file()
            and (REPOSITORY / "experiments").is_dir())


@contextlib.contextmanager
def report_folder(out: Path, owner: Owner, replace: bool = False):
    """Claim ``out`` for a report of ``owner`` and hold its lock while the report is made.

    Refuses (a one-line :class:`coltsim.FieldError`) a file, a folder holding files coltsim did
    not write, and a folder holding another experiment's report unless ``replace``, which
    removes the report and its data first."""
    if out.exists() and not out.is_dir():
        raise FieldError("output", f"{out} is a file; give a folder for the report")
    if (out / MANIFEST).is_file() and any((out / table).is_dir() for table in TABLES):
        raise FieldError("output", f"{out} is a results folder (coltsim simulate --out); "
                                   "choose another folder for the report")
    if out.is_dir() and _recorded(out) is None:
        others = sorted(p.name for p in out.iterdir() if p.name != LOCK)
        if others:
            raise FieldError("output", f"{out} holds files coltsim did not write "
                                       f"({', '.join(others[:3])}{', ...' if others[3:] else ''})"
                                       "; choose a new or empty folder for the report")
    out.mkdir(parents=True, exist_ok=True)
    with folder_lock(out):
        remove_temporaries(out)
        recorded = _recorded(out)
        if recorded is not None and not replace:
            problem = _difference(*recorded, owner)
            if problem:
                raise FieldError("output", f"{out} holds {problem}; --replace replaces it, or "
                                           "choose another folder (--out)")
        if bundled(out):
            warnings.warn(f"this run rewrites {out}, a report committed with coltsim (git "
                          f"checkout {out} restores it)", BundledReportWarning)
        if recorded is not None and replace:
            _remove_report(out)
        yield
