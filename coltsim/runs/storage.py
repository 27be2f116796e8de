"""A results folder on disk: chunk files, the manifest, and reading it all back as
:class:`coltsim.results.Results`.

Layout (written by coltsim.runs.runner)::

    folder/manifest.json
    folder/players/<setting id>/chunk-000000.parquet
    folder/games/<setting id>/chunk-000000.parquet

Each finished chunk is two Parquet files, each written under a temporary name and then renamed,
so a file is either whole or absent; the games file goes last and marks the chunk finished.
``manifest.json`` records what each setting of the folder is (``Setting.as_dict``: players,
line-up, policies, parameter rows, rule options), with the seed, the number of games and the
chunk size, under a header naming the versions and the hash of the compiled engine; a run whose
arguments differ from the manifest is refused.  Several settings can share one folder: that is
how an experiment stores its sweep.  Reading a folder needs no compiled code.
"""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .. import constants as K
from ..results import PLAYER_COLUMNS, ROUND_CARDS, STATIONS, Results, game_columns
from ..setting import Setting

if TYPE_CHECKING:  # pandas is imported only to build DataFrames: workers never need it
    import pandas as pd

MANIFEST = "manifest.json"
# 3: the players table has win_share; 2: the setting's line-up is recorded as "lineup" (1:
# "bandits").  A folder of another format is refused rather than mixed.
MANIFEST_FORMAT = 3
PLAYERS = "players"
GAMES = "games"
TABLES = (PLAYERS, GAMES)


# --- chunk files --------------------------------------------------------------------------------
def chunk_path(folder, table: str, setting_id: str, chunk: int) -> Path:
    return Path(folder) / table / setting_id / f"chunk-{chunk:06d}.parquet"


def write_table_atomic(table: pa.Table, path: Path) -> None:
    """Write ``path`` so that it either exists whole or not at all (write, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{np.random.default_rng().integers(1 << 62):x}.tmp")
    try:
        pq.write_table(table, tmp, compression="zstd")
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_chunk(folder, setting_id: str, chunk: int, tables: tuple[pa.Table, pa.Table]) -> None:
    """Write both tables of a chunk; the games file goes last and marks the chunk finished."""
    for name, table in zip(TABLES, tables):
        write_table_atomic(table, chunk_path(folder, name, setting_id, chunk))


def chunk_done(folder, setting_id: str, chunk: int) -> bool:
    return all(chunk_path(folder, name, setting_id, chunk).exists() for name in TABLES)


def remove_temporaries(folder: Path, setting_id: str) -> None:
    for table in TABLES:
        for tmp in (folder / table / setting_id).glob(".chunk-*.tmp"):
            tmp.unlink(missing_ok=True)


# --- the manifest -------------------------------------------------------------------------------
def read_manifest(folder) -> dict | None:
    path = Path(folder) / MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read {path}: {e}") from e


def _write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)


def _first_difference(old, new, prefix: str = ""):
    """Name of the first field where ``old`` and ``new`` (JSON values) differ, with both values."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            if old.get(key) != new.get(key):
                return _first_difference(old.get(key), new.get(key), f"{prefix}{key}.")
        return None
    return prefix.rstrip("."), old, new


@contextlib.contextmanager
def _folder_lock(folder: Path):
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(folder / ".lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def manifest_entry(setting: Setting, seed: int, games: int, chunk_size: int) -> dict:
    """A setting's entry in the manifest: what is played, then how (JSON values only)."""
    entry = {**setting.as_dict(), "seed": seed, "games": games, "chunk_size": chunk_size}
    if setting.label is not None:
        entry["label"] = setting.label
    return json.loads(json.dumps(entry))


def prepare_folder(folder: Path, setting: Setting, seed: int, games: int,
                   chunk_size: int | None, header: dict, default_chunk_size: int) -> int:
    """Create or check the manifest for this run of ``setting``; returns the chunk size to use
    (the saved run's when resuming without one).  ``header`` names the versions and the engine:
    a folder written by other ones is refused."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    with _folder_lock(folder):
        manifest = read_manifest(folder)
        if manifest is None:
            others = [p.name for p in folder.iterdir() if p.name != ".lock"]
            if others:
                raise ValueError(f"{folder} is not empty and holds no {MANIFEST}; "
                                 f"choose a new or empty folder")
            manifest = {**header, "settings": {}}
        else:
            diff = _first_difference({k: manifest.get(k) for k in header}, header)
            if diff:
                _mismatch(folder, *diff)
        entry = manifest["settings"].get(setting.id)
        if entry is not None and chunk_size is None:
            chunk_size = entry.get("chunk_size")
        new = manifest_entry(setting, seed, games, chunk_size or default_chunk_size)
        if entry is not None:
            # The label names the setting for people: a new one is recorded, not refused.
            diff = _first_difference({k: v for k, v in entry.items() if k != "label"},
                                     {k: v for k, v in new.items() if k != "label"})
            if diff:
                field, was, now = diff
                _mismatch(folder, f"settings.{setting.id}.{field}", was, now)
            if entry.get("label") == new.get("label"):
                return entry["chunk_size"]
        manifest["settings"][setting.id] = new
        _write_json_atomic(folder / MANIFEST, manifest)
        return new["chunk_size"]


def _mismatch(folder: Path, field: str, was, now):
    raise ValueError(f"{folder / MANIFEST} does not match this run: {field} is {was!r} there "
                     f"but {now!r} here; use a new folder, or the same arguments to resume")


# --- tables -> DataFrames with fixed dtypes ------------------------------------------------------
def _fix_categories(df: pd.DataFrame, categories: dict) -> pd.DataFrame:
    import pandas as pd

    for col, cats in categories.items():
        if col in df.columns:
            df[col] = df[col].astype(pd.CategoricalDtype(list(cats)))
    return df


def _categories(setting_ids, policy_names, rounds: int) -> dict:
    cats = {"setting": setting_ids, "bandit": K.BANDIT_NAMES, "policy": policy_names,
            "station": STATIONS}
    for r in range(rounds - 1):
        cats[f"round_{r + 1}"] = ROUND_CARDS
    return cats


def to_frames(players_tables, games_tables, setting_ids, policy_names, rounds: int):
    """Concatenate chunk tables into the ``players`` and ``games`` DataFrames."""
    import pandas as pd

    cats = _categories(setting_ids, policy_names, rounds)
    frames = []
    for tables, columns in ((players_tables, PLAYER_COLUMNS), (games_tables, game_columns(rounds))):
        if tables:
            df = pa.concat_tables(tables, promote_options="permissive").unify_dictionaries() \
                .to_pandas()
        else:
            df = pd.DataFrame({c: pd.Series(dtype=object if t == "category" else t)
                               for c, t in columns})
        frames.append(_fix_categories(df, cats))
    return frames


def settings_frame(manifest: dict, setting_ids=None) -> pd.DataFrame:
    """One row per setting of ``manifest``: what was played, with every rule option."""
    import pandas as pd

    rows = []
    for sid, s in manifest["settings"].items():
        if setting_ids is not None and sid not in setting_ids:
            continue
        lineup = s["lineup"]
        row = {
            "setting": sid, "players": s["players"],
            "lineup": lineup if isinstance(lineup, str) else ",".join(lineup),
            "policies": ",".join(s["policies"]),
            "params": json.dumps(s["params"]) if s["params"] is not None else "",
            "seed": s["seed"], "games": s["games"], "chunk_size": s["chunk_size"],
        }
        if any("label" in e for e in manifest["settings"].values()):
            row["label"] = s.get("label") or ""
        for name, value in s["rules"].items():
            row[name] = ",".join(value) if isinstance(value, list) else value
        rows.append(row)
    df = pd.DataFrame(rows)
    if len(df):
        df["setting"] = df["setting"].astype(pd.CategoricalDtype(list(df["setting"])))
        df["players"] = df["players"].astype(np.int8)
    return df


def load_results(folder, settings=None, columns=None) -> Results:
    """Read a results folder written by ``coltsim.simulate_to_folder`` (or an experiment).

    Parameters
    ----------
    folder : path
        The output folder (it holds ``manifest.json``).
    settings : str or list of str, optional
        Setting ids to read (default: all of the manifest).
    columns : list of str, optional
        Columns to read from each table (``game`` and ``setting`` are always read; names a
        table does not have are ignored).

    Returns
    -------
    Results
        ``players``, ``games`` and ``settings`` DataFrames and the manifest; games of every
        finished chunk (an unfinished run gives the chunks written so far).
    """
    manifest = read_manifest(folder)
    if manifest is None:
        raise ValueError(f"{folder} holds no {MANIFEST}: not a coltsim results folder")
    if manifest.get("format") != MANIFEST_FORMAT:
        raise ValueError(f"{Path(folder) / MANIFEST}: format {manifest.get('format')!r} was "
                         f"written by another version of coltsim (this one reads format "
                         f"{MANIFEST_FORMAT}); run it again into a new folder")
    known = list(manifest["settings"])
    if settings is None:
        wanted = known
    else:
        wanted = [settings] if isinstance(settings, str) else list(settings)
        for sid in wanted:
            if sid not in known:
                raise ValueError(f"no setting {sid!r} in {folder}; it holds: {', '.join(known)}")
    policy_names = list(dict.fromkeys(
        p for sid in wanted for p in manifest["settings"][sid]["policies"]))
    rounds = max((manifest["settings"][sid]["rules"]["rounds"] for sid in wanted), default=1)
    keep = None if columns is None else {"game", "setting", *columns}
    tables: dict = {PLAYERS: [], GAMES: []}
    for sid in wanted:
        n_chunks = -(-manifest["settings"][sid]["games"] // manifest["settings"][sid]["chunk_size"])
        for chunk in range(n_chunks):
            if not chunk_done(folder, sid, chunk):
                continue
            for name in TABLES:
                path = chunk_path(folder, name, sid, chunk)
                cols = None
                if keep is not None:
                    cols = [c for c in pq.read_schema(path).names if c in keep]
                tables[name].append(pq.read_table(path, columns=cols))
    players, games = to_frames(tables[PLAYERS], tables[GAMES], wanted, policy_names, rounds)
    return Results(players, games, settings_frame(manifest, wanted), manifest)
