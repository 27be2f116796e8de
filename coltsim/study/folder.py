"""A report folder (``reports/NAME``): the experiment it belongs to, and its files, all written
at once, on the one folder mechanism (coltsim.runs.folder: the lock, temporaries, files
recorded in the manifest).

**One experiment per folder.**  ``coltsim run`` and ``coltsim tune`` write into a folder only
when it is new or empty (but for its lock), or holds a report of the same experiment: the
report's ``manifest.json`` records the experiment's name and what it played (a run's settings,
each with its seed; a search), and a run that stopped before writing its report left
``data/manifest.json``, which records its settings.  Anything else is refused with one line
naming what is there and ``--replace`` (``replace=True``), which first removes what coltsim
wrote there (the report and its data); a folder holding files coltsim did not write and no
report or data of coltsim is refused either way.  A run that rewrites a bundled report of the
repository (``reports/NAME`` beside the ``coltsim`` package) says so first
(:class:`BundledReportWarning`).

**The user's files stay.**  The report's manifest lists every file of the report (``"files"``,
with its size and SHA-256), and the data's manifest every chunk; coltsim removes or replaces
only those, on a rerun (the previous report's files that the new one has not) and on
``--replace``.  Any other file, in the folder or in ``figures/``, ``tables/`` or ``data/``
(``notes.md``, ``figures/my_poster.png``), is the user's and stays.

**Atomic, byte-stable files.**  A report's files are made in memory (:class:`ReportFiles`),
then written all at once (coltsim.runs.folder.write_all): whole, into a folder of the writer's,
which one rename commits; a crash before it leaves the previous report, one after it the new
report, which the next coltsim command on the folder finishes putting in place before anything
else; a full disk leaves the previous report, and the error names the file.  A ``data/``
holding files but no manifest is refused before ``--replace`` removes anything.  Tables
are written at ``TABLE_DIGITS`` significant digits and figures without the plotting library's
version stamp, so that rerunning an experiment with the same engine gives the same bytes on any
machine.
"""
from __future__ import annotations

import contextlib
import io
import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ..runs.folder import (
    MANIFEST, Folder, foreign_files, new_token, recorded_files, refuse_foreign, remove_files,
    write_all, write_whole,
)
from ..runs.storage import REPORT_DATA, TABLES
from ..setting import FieldError, changed_file

TABLE_DIGITS = 6  # significant digits of every number in a report's tables
PNG_METADATA = {"Software": None}  # matplotlib stamps its version otherwise
# A report's files where its manifest lists none (a report of an earlier coltsim).
REPORT_FILES = ("report.md", "report.html", "experiment.toml", "tune.toml")
REPOSITORY = Path(__file__).resolve().parents[2]  # holds coltsim/, and reports/ when a checkout


class BundledReportWarning(UserWarning):
    """A run rewrites one of the reports committed with coltsim (``reports/NAME``)."""


# --- the files of a report ----------------------------------------------------------------------
def table_bytes(df) -> bytes:
    """A table as CSV, numbers at ``TABLE_DIGITS`` significant digits, lines ending in ``\\n``."""
    return df.to_csv(index=False, float_format=f"%.{TABLE_DIGITS}g",
                     lineterminator="\n").encode("utf-8")


def manifest_text(manifest: dict) -> str:
    """A report's manifest as it is written: indented JSON."""
    return json.dumps(manifest, indent=2, default=str) + "\n"


class ReportFiles:
    """The files of one report, kept in memory by name (``report.md``, ``figures/x.png``), and
    its manifest (:attr:`manifest`), until :meth:`write` puts them all in place in
    ``folder``."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.files: dict[str, bytes] = {}
        self.manifest: dict | None = None  # None: the report has no manifest (made up results)

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
        """Write every file and the manifest at once (coltsim.runs.folder.write_all: the
        manifest listing the files); remove the previous report's files that this one does not
        have, and no other file.  A file that cannot be written (a full disk), or a folder
        where one goes, is an error naming it, and leaves the folder as it was."""
        self.folder.mkdir(parents=True, exist_ok=True)
        token = new_token()
        if self.manifest is not None:
            write_all(self.folder, self.files, self.manifest, token, manifest_text)
            return
        for name, data in self.files.items():  # no manifest: nothing to list them in
            (self.folder / name).parent.mkdir(parents=True, exist_ok=True)
            write_whole(self.folder / name, data, token)


# --- whose folder it is -------------------------------------------------------------------------
TUNE_GAMES = ("games", "max_games")  # a search's size: a smaller one never replaces it
TUNE_RESULTS = (*TUNE_GAMES, "games_played", "best")  # in a search's manifest, not what it plays


@dataclass(frozen=True)
class Owner:
    """The experiment a report is of: ``kind`` "run" (``coltsim run``) or "tune" (``coltsim
    tune``), its name (None: not recorded), what it plays (a run: seed by setting id; a search:
    its option, values, objective, settings and seed), for a search its games, and the files
    its settings play (``Setting.file_records``, merged)."""

    kind: str
    name: str | None
    plays: dict
    games: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)

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
                     {k: tune.get(k) for k in TUNE_GAMES}, _files(tune.get("settings")))
    settings = manifest.get("settings")
    settings = settings if isinstance(settings, dict) else {}
    return Owner("run", name, {sid: e.get("seed") if isinstance(e, dict) else None
                               for sid, e in settings.items()},
                 files=_files(list(settings.values())))


def _files(entries) -> dict:
    """The files the settings' entries (``Setting.as_dict``) record, by what names them."""
    entries = entries if isinstance(entries, list) else []
    return {key: record for e in entries if isinstance(e, dict)
            and isinstance(e.get("files"), dict) for key, record in e["files"].items()}


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
    changed = changed_file(there.files, here.files)
    if changed:
        return f"{of} played with another {changed}; put back that file to grow it"
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


def report_files(out: Path) -> list[str]:
    """The files of the report in ``out`` as its manifest lists them (of a report of an
    earlier coltsim, which lists none: its fixed names)."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        manifest = None
    listed = recorded_files(manifest)
    return list(listed) if listed else [n for n in REPORT_FILES if (out / n).is_file()]


def _remove_report(out: Path) -> None:
    """What coltsim wrote in a report folder: the files its manifest lists, then the chunks
    its data's manifest lists; the data keep a manifest of no setting (so that a file of the
    user's in ``data/`` stays beside it)."""
    from ..runs.runner import manifest_header
    from ..runs.storage import clear_folder

    data = out / REPORT_DATA
    if (data / MANIFEST).is_file():
        clear_folder(data, manifest_header())
    remove_files(out, report_files(out))
    (out / MANIFEST).unlink(missing_ok=True)


def bundled(out: Path) -> bool:
    """Whether ``out`` is a report committed with coltsim (in the repository's ``reports/``)."""
    return (out.resolve().parent == REPOSITORY / "reports" and (out / "report.md").is_file()
            and (REPOSITORY / "experiments").is_dir())


def _output_error(text: str) -> FieldError:
    return FieldError("output", text)


class ReportFolder(Folder):
    """A report folder claimed by one run for a report of ``owner`` (the folder mechanism:
    its lock held, dead writers' temporaries removed), as :func:`report_folder` opens it."""

    Error = staticmethod(_output_error)

    def __init__(self, out, owner: Owner, replace: bool = False):
        super().__init__(out, "report", claim=False)  # the report's manifest, written last
        self.owner = owner
        self.replace = replace

    def refuse_foreign(self) -> None:
        """A results folder is not a report folder; ``data/`` holding files but no manifest is
        not coltsim's to remove or resume; a folder holding neither a report nor a run's data of
        coltsim must be empty (but for its lock and temporaries)."""
        out = self.path
        if (out / MANIFEST).is_file() and any((out / table).is_dir() for table in TABLES):
            raise self.Error(f"{out} is a results folder (coltsim simulate --out); choose "
                             "another folder for the report")
        data = out / REPORT_DATA
        if data.is_dir() and not (data / MANIFEST).is_file() and foreign_files(data):
            # (refused before --replace removes anything: the run would stop there)
            raise self.Error(f"{data} holds files but no {MANIFEST}, so coltsim cannot tell its "
                             f"games from your files there; move {data} away (or remove it if "
                             "only coltsim wrote there), then run again")
        if _recorded(out) is None:
            refuse_foreign(out, self.Error)

    def load_manifest(self) -> dict | None:
        """The experiment the folder holds must be ``owner``'s, unless ``replace``."""
        recorded = _recorded(self.path)
        if recorded is not None and not self.replace:
            problem = _difference(*recorded, self.owner)
            if problem:
                raise self.Error(f"{self.path} holds {problem}; --replace replaces it, or "
                                 "choose another folder (--out)")
        return None  # the report's manifest is written with its files (ReportFiles.write)


@contextlib.contextmanager
def report_folder(out: Path, owner: Owner, replace: bool = False):
    """Claim ``out`` for a report of ``owner`` and hold its lock while the report is made.

    Refuses (a one-line :class:`coltsim.FieldError`) a file, a folder holding files coltsim did
    not write (and no report or data of coltsim), and a folder holding another experiment's
    report unless ``replace``, which removes the report and its data first (the files their
    manifests list: a file of the user's stays)."""
    with ReportFolder(out, owner, replace):
        if bundled(out):
            warnings.warn(f"this run rewrites {out}, a report committed with coltsim (git "
                          f"checkout {out} restores it)", BundledReportWarning)
        if replace and _recorded(out) is not None:
            _remove_report(out)
        yield
