"""A results folder on disk: chunk files, the manifest that records and verifies them, and a run
writing the folder (:class:`RunFolder`, on the folder mechanism of coltsim.runs.folder).
Reading it back as :class:`coltsim.results.Results` is coltsim.runs.load's.

Layout (written by coltsim.runs.runner)::

    folder/manifest.json
    folder/players/<setting id>/chunk-000000.parquet
    folder/games/<setting id>/chunk-000000.parquet
    folder/.lock                  who is writing the folder (empty when nobody is)

``manifest.json`` records what each setting of the folder is (``Setting.as_dict``: players,
line-up, policies, parameter rows, rule options, and the files it plays with their SHA-256),
with the seed, the number of games and the
chunk size, under a header naming the versions and the hash of the compiled engine; a run whose
arguments differ from the manifest is refused, except that a run asking for more games grows the
recorded one (its games ``N .. M - 1``, so that the folder holds what a fresh run of ``M`` games
would).  Several settings can share one folder: that is how an experiment stores its sweep.

**Verified chunks.**  A chunk is two Parquet files, each written under a temporary name of its
run and then renamed, so a file is either whole or absent.  Once both are on disk the run
records the chunk in the manifest (written the same way, at most every second and when the run
ends, however it ends)::

    "chunks": [{"chunk": 2, "first_game": 100000, "n_games": 50000,
                "files": {"players": {"rows": 200000, "bytes": 812345, "sha256": "..."},
                          "games": {"rows": 50000, "bytes": 401234, "sha256": "..."}}}, ...]

Only recorded chunks count.  A chunk's record carries its own game range, so the records of a
setting must hold games ``0 .. games - 1`` exactly once each, whatever their numbers: a run can
later be grown by recording more chunks (:func:`chunks_to_play` numbers them after the others).

**A manifest cannot lie.**  Each chunk file records in its Parquet metadata what it holds: the
setting's id, the seed and what is played (:func:`chunk_holds`).  A record is verified against
its files: their size and SHA-256, then their content: what they hold against the setting's
entry, their rows against the record's, and their ``game`` column against its game range (first
game and number of games).  Resuming (and ``coltsim report --repair``) recomputes a chunk that
is missing, damaged or does not match its record, saying so (:class:`RepairWarning`);
``coltsim.runs.load.load_results`` refuses it with one line naming the file (:class:`ResultsError`), and an
unfinished run likewise.  An edited record is damage, never data: no game is counted twice or
left out.

**One writer.**  A run holds the folder's lock from start to end (coltsim.runs.lock): a second
run into the folder stops with one line naming the first.  Temporary files are named by their
run; those a dead run left are removed by the next one.

Reading a folder needs no compiled code.
"""
from __future__ import annotations

import contextlib
import json
import warnings
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..policies.catalog import N_PARAMS
from ..rules import Rules
from ..setting import SETTING_ID, Setting, bandits_per_player
from .folder import (
    MANIFEST, Folder, FolderError, RepairWarning, file_problem, file_record, first_difference,
    mismatch, new_token, read_json_file, remove_temporaries, write_whole,
)
from .lock import folder_lock
from .options import check_chunk_count


# 5: each chunk file records the setting and seed it holds, and the players table has fires,
# fizzled and the score after each round; 4: finished chunks are recorded,
# and the players table says how each bandit played (moves ... draws); 3: the players table
# has win_share; 2: the setting's line-up is recorded as "lineup" (1: "bandits").  A folder of
# another format is refused rather than mixed.  A report's copy of the manifest adds
# "experiment", the experiment's name (coltsim.study.folder).
MANIFEST_FORMAT = 5
HOLDS = "coltsim"  # the chunk files' Parquet metadata key: what they hold (chunk_holds)
PLAYED = ("players", "lineup", "policies", "params", "rules")  # what a setting's entry plays
PLAYERS = "players"
GAMES = "games"
TABLES = (PLAYERS, GAMES)
REPORT_DATA = "data"  # a report folder's results folder (coltsim.study.folder)
REMEDY = ("recompute it with `coltsim report REPORT --repair` (a report's data) or by running "
          "the same simulation again")


class ResultsError(FolderError):
    """A results folder that cannot be used as it is: a chunk missing, damaged or not yet
    computed, a manifest coltsim cannot read or that does not match the run.  The message is one
    line naming the folder or file and what to do.  (Another run writing the folder is
    :class:`coltsim.runs.lock.FolderLocked`.)"""


__all__ = ["MANIFEST", "RepairWarning", "ResultsError", "RunFolder", "clear_folder",
           "read_chunk_file", "read_manifest", "tiling_problem"]


# --- chunk files --------------------------------------------------------------------------------
def chunk_path(folder, table: str, setting_id: str, chunk: int) -> Path:
    return Path(folder) / table / setting_id / f"chunk-{chunk:06d}.parquet"


def chunk_holds(setting_id: str, seed: int, played: dict) -> dict:
    """What a chunk file records of its games (its Parquet metadata ``HOLDS``, as JSON): the
    setting's id, the master seed and what is played (``Setting.as_dict``)."""
    return {"setting": setting_id, "seed": seed, **{k: played[k] for k in PLAYED}}


def parquet_bytes(table: pa.Table) -> bytes:
    """A chunk file's bytes: ``table`` as Parquet, compressed with zstd."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def _write_file(table: pa.Table, path: Path, token: str) -> dict:
    """Write ``path`` whole or not at all; returns what the manifest records of it."""
    data = parquet_bytes(table)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, data, token)
    return {"rows": table.num_rows, **file_record(data)}


def write_chunk(folder, setting_id: str, chunk: int, first_game: int,
                tables: tuple[pa.Table, pa.Table], token: str) -> dict:
    """Write both tables of a chunk (each carrying its ``HOLDS`` metadata); returns its record
    for the manifest."""
    files = {name: _write_file(table, chunk_path(folder, name, setting_id, chunk), token)
             for name, table in zip(TABLES, tables)}
    return {"chunk": chunk, "first_game": first_game, "n_games": files[GAMES]["rows"],
            "files": files}


def _games_text(record: dict) -> str:
    first = record["first_game"]
    return f"games {first:,} to {first + record['n_games'] - 1:,}"


def _content_problem(data: bytes, setting_id: str, entry: dict, record: dict, table: str,
                     columns) -> tuple[str | None, pa.Table | None]:
    """Whether a chunk file holds what its record and its setting's entry say (None), and its
    table of ``columns`` (None: all; the ``game`` column is read either way)."""
    try:
        source = pa.BufferReader(data)
        schema = pq.read_schema(source)
        holds = json.loads((schema.metadata or {}).get(HOLDS.encode(), b"null"))
        if columns is not None:
            columns = [c for c in schema.names if c in {"game", *columns}]
        read = pq.read_table(source, columns=columns)
    except (pa.ArrowException, OSError, ValueError, RecursionError) as e:
        return f"not a chunk file coltsim can read ({type(e).__name__})", None
    expected = chunk_holds(setting_id, entry["seed"], entry)
    if not isinstance(holds, dict) or "game" not in read.column_names:
        return "it does not record what it holds", None
    for key, value in expected.items():
        if holds.get(key) != value:
            return f"it holds {key} {holds.get(key)!r}, the manifest records {value!r}", None
    n, recorded = record["n_games"], record["files"][table]["rows"]
    rows = n * entry["players"] * bandits_per_player(entry["players"]) if table == PLAYERS else n
    if read.num_rows != recorded:
        return f"it holds {read.num_rows:,} rows, its record {recorded:,}", None
    if read.num_rows != rows:
        return f"it holds {read.num_rows:,} rows, not the {rows:,} of its record's {n:,} games", \
            None
    games = read.column("game")
    first, last = games[0].as_py(), games[-1].as_py()
    if (first, last) != (record["first_game"], record["first_game"] + n - 1):
        return f"it holds games {first:,} to {last:,}, its record {_games_text(record)}", None
    return None, read.replace_schema_metadata()


def read_chunk_file(folder, setting_id: str, entry: dict, record: dict, table: str,
                    columns=None) -> tuple[str | None, pa.Table | None]:
    """One file of a recorded chunk, verified: ``(None, its table)`` (of ``columns``, default
    all, and ``game``), or what is wrong with it: missing, unreadable, damaged (its size or
    SHA-256 differs from the record), or not what the record says it holds (an edited
    manifest)."""
    path = chunk_path(folder, table, setting_id, record["chunk"])
    where = f"chunk {record['chunk']} of setting {setting_id}, {_games_text(record)}"
    problem, data = file_problem(path, record["files"][table], where)
    if problem:
        return problem, None
    problem, read = _content_problem(data, setting_id, entry, record, table, columns)
    if problem:
        return f"{path}: does not match the manifest's record ({where}): {problem}", None
    return None, read


def chunks_to_play(games: int, chunk_size: int, kept: dict) -> list[tuple[int, int, int]]:
    """The chunks to play so that, with the ``kept`` records (by chunk number), games
    ``0 .. games - 1`` are each held once: ``(chunk, first game, games)``.

    Games not held are cut on the grid of ``chunk_size``; a chunk takes its place on the grid
    as its number (in a fresh run chunk ``c`` holds games ``c * chunk_size ..``), or the next
    unused number when that one is taken (a run grown past a short last chunk)."""
    used = set(kept)
    next_free = max(used, default=-1) + 1
    spans = sorted((r["first_game"], r["first_game"] + r["n_games"]) for r in kept.values())
    todo, held_to = [], 0
    for start, end in spans + [(games, games)]:
        g = held_to
        while g < start:
            stop = min(start, (g // chunk_size + 1) * chunk_size)
            c = g // chunk_size
            if c in used:
                c = next_free
            used.add(c)
            next_free = max(next_free, c + 1)
            todo.append((c, g, stop - g))
            g = stop
        held_to = max(held_to, end)
    return todo


def tiling_problem(folder, setting_id: str, entry: dict) -> str | None:
    """Whether the records of a setting hold games ``0 .. games - 1`` exactly once each: what is
    wrong in one line (a game held twice, games held past the count, games not yet held)."""
    held_to = 0
    previous = None
    for r in sorted(entry["chunks"], key=lambda r: r["first_game"]):
        if r["first_game"] < held_to:
            return (f"{folder}: chunks {previous['chunk']} and {r['chunk']} of setting "
                    f"{setting_id} both hold game {r['first_game']:,} (an edited manifest); "
                    "running the same simulation again (`coltsim report REPORT --repair` for a "
                    "report's data) keeps one")
        if r["first_game"] > held_to:
            break
        held_to, previous = r["first_game"] + r["n_games"], r
    if held_to > entry["games"]:
        return (f"{folder}: setting {setting_id} records {entry['games']:,} games, but its "
                f"chunks hold games 0 to {held_to - 1:,} (an edited manifest); {REMEDY}")
    if held_to != entry["games"]:
        return (f"{folder}: setting {setting_id} is unfinished: games {held_to:,} to "
                f"{entry['games'] - 1:,} of {entry['games']:,} are in no finished chunk; run the "
                "same command again to finish it")
    return None


# --- the manifest -------------------------------------------------------------------------------
def _is_count(value, least: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _check_record(r) -> str | None:
    if not isinstance(r, dict) or not _is_count(r.get("chunk")) \
            or not _is_count(r.get("first_game")) or not _is_count(r.get("n_games"), 1) \
            or not isinstance(r.get("files"), dict):
        return "a chunk record needs chunk, first_game, n_games and files"
    for table in TABLES:
        f = r["files"].get(table)
        if not isinstance(f, dict) or not _is_count(f.get("rows")) \
                or not _is_count(f.get("bytes")) or not isinstance(f.get("sha256"), str):
            return f"the record of chunk {r['chunk']} needs files.{table} with rows, bytes, sha256"
    return None


def _entry_problem(e) -> str | None:
    """What makes a setting's entry unreadable (None: nothing)."""
    if not isinstance(e, dict):
        return "must be an object"
    for key in ("players", "seed", "games", "chunk_size"):
        if not _is_count(e.get(key), 0 if key == "seed" else 1):
            return f"{key} must be a whole number, got {e.get(key)!r}"
    lineup = e.get("lineup")
    if not (isinstance(lineup, str) or isinstance(lineup, list)
            and all(isinstance(b, str) for b in lineup)):
        return f"lineup must be a name or a list of names, got {lineup!r}"
    policies = e.get("policies")
    if not isinstance(policies, list) or not policies \
            or not all(isinstance(p, str) for p in policies):
        return f"policies must be a list of names, got {policies!r}"
    params = e.get("params")
    if params is not None and not (isinstance(params, list) and len(params) == len(policies)
                                   and all(isinstance(row, list) and len(row) == N_PARAMS
                                           and all(isinstance(x, (int, float)) for x in row)
                                           for row in params)):
        return f"params must be null or one row of {N_PARAMS} numbers per player"
    if not isinstance(e.get("rules"), dict):
        return "rules must be an object of rule options"
    try:
        Rules.from_dict(e["rules"])
    except (TypeError, ValueError) as problem:
        return f"rules: {problem}"
    if e.get("label") is not None and not isinstance(e["label"], str):
        return "label must be text"
    files = e.get("files", {})
    if not isinstance(files, dict) or not all(
            isinstance(f, dict) and isinstance(f.get("path"), str)
            and isinstance(f.get("sha256"), str) for f in files.values()):
        return "files must map what names a file to its path and sha256"
    if not isinstance(e.get("chunks"), list):
        return "chunks must be a list of chunk records"
    for r in e["chunks"]:
        problem = _check_record(r)
        if problem:
            return problem
    return None


def _check_manifest(path: Path, manifest) -> dict:
    def unreadable(what: str):
        raise ResultsError(f"{path}: not a manifest this coltsim can read: {what}")

    if not isinstance(manifest, dict):
        unreadable("it is not a JSON object")
    if manifest.get("format") != MANIFEST_FORMAT:
        raise ResultsError(f"{path}: format {manifest.get('format')!r} was written by another "
                           f"version of coltsim (this one reads format {MANIFEST_FORMAT}); run "
                           "it again into a new folder")
    settings = manifest.get("settings")
    if not isinstance(settings, dict):
        unreadable(f"settings must be an object of settings by id, got {settings!r}")
    for sid, entry in settings.items():
        if not SETTING_ID.match(sid):
            unreadable(f"{sid!r} is not a setting id")
        problem = _entry_problem(entry)
        if problem:
            unreadable(f"settings.{sid}: {problem}")
    return manifest


def read_manifest(folder) -> dict | None:
    """The checked manifest of ``folder``, None when it has none."""
    path = Path(folder) / MANIFEST
    manifest = read_json_file(path, error=ResultsError)
    return None if manifest is None else _check_manifest(path, manifest)


def _manifest_text(manifest: dict) -> str:
    """The manifest as indented JSON, each chunk record on one line, in the order of their
    numbers (not of the order they finished in: a rerun writes the same bytes)."""
    marks = {}
    settings = {}
    for sid, entry in manifest["settings"].items():
        mark = f"@chunks of {sid}@"
        records = sorted(entry["chunks"], key=lambda r: r["chunk"])
        marks[json.dumps(mark)] = "[" + ",".join(
            "\n   " + json.dumps(r, separators=(",", ":")) for r in records) + "]"
        settings[sid] = {**entry, "chunks": mark}
    text = json.dumps({**manifest, "settings": settings}, indent=1)
    for mark, records in marks.items():
        text = text.replace(mark, records)
    return text + "\n"


def manifest_entry(setting: Setting, seed: int, games: int, chunk_size: int) -> dict:
    """A setting's entry in the manifest: what is played, then how (JSON values only), and the
    chunks finished so far (none)."""
    entry = {**setting.as_dict(), "seed": seed, "games": games, "chunk_size": chunk_size}
    if setting.label is not None:
        entry["label"] = setting.label
    entry["chunks"] = []
    return json.loads(json.dumps(entry))


def clear_folder(folder: Path, header: dict) -> None:
    """Remove every chunk file the manifest of results folder ``folder`` records (of any format
    coltsim wrote: ``--replace`` of a report of an earlier coltsim too) and leave a manifest of
    no setting with ``header`` (manifest_header): the folder stays coltsim's, and every file
    coltsim did not write stays in it.  Holds the folder's lock while it works."""
    with folder_lock(folder):
        remove_temporaries(folder)
        try:
            settings = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["settings"]
            records = [(sid, r["chunk"]) for sid, e in settings.items() for r in e["chunks"]]
        except (OSError, ValueError, RecursionError, TypeError, KeyError, AttributeError):
            records = []  # a manifest no coltsim can read lists nothing
        for sid, chunk in records:
            if not (isinstance(chunk, int) and isinstance(sid, str) and SETTING_ID.match(sid)):
                continue
            for table in TABLES:
                path = chunk_path(folder, table, sid, chunk)
                path.unlink(missing_ok=True)
                with contextlib.suppress(OSError):  # (a folder that holds other files stays)
                    path.parent.rmdir()
        write_whole(folder / MANIFEST, _manifest_text({**header, "settings": {}}).encode(),
                    new_token())


class RunFolder(Folder):
    """A results folder opened by one run for writing: ``with RunFolder(path) as out`` (the
    folder mechanism of coltsim.runs.folder: its lock, its temporaries, a foreign folder
    refused, the manifest written whole).

    Entering creates the folder if needed, takes its lock, removes temporary files that dead
    runs left and reads the manifest; :meth:`prepare` records a setting's run, :meth:`kept`
    verifies its finished chunks, :meth:`add` records each new one.  The manifest is written at
    most every ``FLUSH_SECONDS`` (or less often if writing it takes long) and when the run ends,
    however it ends; then the run's own temporary files are removed and the lock released."""

    Error = ResultsError

    def __init__(self, folder):
        super().__init__(folder, "run", claim=False)  # claimed by prepare()

    def refuse_foreign(self) -> None:
        """A report folder (``coltsim run``'s, its results in ``data/``) is not a results
        folder, and a folder without a manifest must be empty (but for the lock and
        temporaries)."""
        if (self.path / REPORT_DATA / MANIFEST).is_file():
            raise ResultsError(f"{self.path} is a report folder (its results are in "
                               f"{self.path / REPORT_DATA}); write there, or to a new or empty "
                               "folder")
        super().refuse_foreign()

    def check_manifest(self, manifest) -> dict:
        manifest = _check_manifest(self.path / MANIFEST, manifest)
        if "experiment" in manifest:
            raise ResultsError(f"{self.path / MANIFEST} is the manifest of a report (of "
                               f"experiment {manifest['experiment']!r}), not of a results "
                               "folder; write to a new or empty folder")
        return manifest

    def manifest_text(self, manifest: dict) -> str:
        return _manifest_text(manifest)

    def prepare(self, setting: Setting, seed: int, games: int, chunk_size: int | None,
                header: dict, default_chunk_size: int) -> int:
        """Record this run of ``setting`` (or check it against the run recorded); returns the
        chunk size its missing games are cut by: ``chunk_size``, else the recorded run's when
        finishing or repairing it, else ``default_chunk_size``.  Asking a recorded run for more
        games grows it: the recorded chunks stay, and the games after them are planned like any
        missing games (the chunking changes no game).  A folder written by other versions or another engine, a
        setting recorded with other arguments, or fewer games than recorded, is refused;
        whatever holds no finished chunk yet is simply replaced."""
        m = self.manifest or {"settings": {}}
        computed = any(e["chunks"] for e in m["settings"].values())
        diff = first_difference({k: m.get(k) for k in header}, header)
        if diff and computed:
            raise ResultsError(mismatch(self.path, "run", *diff))
        m = self.manifest = {**header, "settings": m["settings"]}
        entry = m["settings"].get(setting.id)
        if entry is not None and not entry["chunks"]:
            entry = None  # nothing computed: the new arguments replace the old ones
        if entry is not None and chunk_size is None and games <= entry["games"]:
            chunk_size = entry["chunk_size"]  # finishing or repairing: the run's own cut
        # (new games are cut as a run of their number would be: the chunks held stay as they are)
        chunk_size = chunk_size or default_chunk_size
        check_chunk_count(games, chunk_size)
        new = manifest_entry(setting, seed, games, chunk_size)
        if entry is not None:
            # The label names the setting for people: a new one is recorded, not refused; more
            # games grow the run (games N .. M-1 of the same seed, planned by chunks_to_play).
            ignored = ("label", "chunks", "games", "chunk_size")
            diff = first_difference({k: v for k, v in entry.items() if k not in ignored},
                                    {k: v for k, v in new.items() if k not in ignored})
            if diff:
                field, was, now = diff
                raise ResultsError(mismatch(self.path, "run", f"settings.{setting.id}.{field}",
                                            was, now))
            if games < entry["games"]:
                raise ResultsError(
                    f"{self.path / MANIFEST}: setting {setting.id} holds a run of "
                    f"{entry['games']:,} games, this one asks for {games:,}; a run grows but "
                    f"never shrinks: ask for {entry['games']:,} games or more, or use a new "
                    "folder")
            new["chunks"] = entry["chunks"]
        m["settings"][setting.id] = new
        self.changed(flush=True)
        return chunk_size

    def kept(self, setting_id: str) -> dict:
        """The verified records of a setting's finished chunks, by chunk number.  A record
        whose files are missing or damaged, or that holds games another record holds or the run
        does not have, is dropped with a :class:`RepairWarning`: its chunk will be recomputed."""
        entry = self.manifest["settings"][setting_id]
        kept: dict = {}
        held: list = []
        for r in sorted(entry["chunks"], key=lambda r: r["first_game"]):
            problem = next(filter(None, (read_chunk_file(self.path, setting_id, entry, r, t,
                                                         columns=())[0] for t in TABLES)), None)
            if problem:
                warnings.warn(f"{problem}; recomputing it", RepairWarning)
                continue
            span = (r["first_game"], r["first_game"] + r["n_games"])
            if span[1] > entry["games"] or any(a < span[1] and span[0] < b for a, b in held) \
                    or r["chunk"] in kept:
                warnings.warn(f"{self.path}: chunk {r['chunk']} of setting {setting_id} "
                              f"({_games_text(r)}) holds games another chunk holds or the run "
                              "does not have; its record is dropped", RepairWarning)
                continue
            kept[r["chunk"]] = r
            held.append(span)
        if len(kept) != len(entry["chunks"]):
            entry["chunks"] = sorted(kept.values(), key=lambda r: r["chunk"])
            self.changed()
        return kept

    def add(self, setting_id: str, record: dict) -> None:
        """Record a finished chunk (both its files on disk)."""
        chunks = self.manifest["settings"][setting_id]["chunks"]
        chunks[:] = [r for r in chunks if r["chunk"] != record["chunk"]] + [record]
        self.changed()
