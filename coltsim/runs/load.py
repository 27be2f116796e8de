"""Reading a results folder back: its verified chunks as the ``players``, ``games`` and
``settings`` DataFrames of :class:`coltsim.results.Results` (:func:`load_results`), with the
fixed dtypes of coltsim.results.  Writing and verifying the folder is coltsim.runs.storage's.

Reading a folder needs no compiled code.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from .. import constants as K
from ..results import Results, card_categories, game_columns, player_columns
from ..rules import CONTENT, option_text
from ..words import did_you_mean
from .options import check_folder
from .storage import (
    GAMES, MANIFEST, PLAYERS, REMEDY, TABLES, ResultsError, read_chunk_file, read_manifest,
    tiling_problem,
)

if TYPE_CHECKING:  # pandas is imported only to build DataFrames: workers never need it
    import pandas as pd


# --- tables -> DataFrames with fixed dtypes ------------------------------------------------------
def _fix_categories(df: pd.DataFrame, categories: dict) -> pd.DataFrame:
    import pandas as pd

    for col, cats in categories.items():
        if col in df.columns:
            df[col] = df[col].astype(pd.CategoricalDtype(list(cats)))
    return df


def _categories(setting_ids, policy_names, rounds: int, new_cards=()) -> dict:
    round_cards, stations = card_categories(new_cards)
    cats = {"setting": setting_ids, "bandit": K.BANDIT_NAMES, "policy": policy_names,
            "station": stations}
    for r in range(rounds - 1):
        cats[f"round_{r + 1}"] = round_cards
    return cats


def to_frames(players_tables, games_tables, setting_ids, policy_names, rounds: int,
              new_cards=()):
    """Concatenate chunk tables into the ``players`` and ``games`` DataFrames (``new_cards``:
    the names of the designer's cards they may hold)."""
    import pandas as pd

    cats = _categories(setting_ids, policy_names, rounds, new_cards)
    frames = []
    for tables, columns in ((players_tables, player_columns(rounds)),
                            (games_tables, game_columns(rounds))):
        if tables:
            df = pa.concat_tables(tables, promote_options="permissive").unify_dictionaries() \
                .to_pandas()
        else:
            df = pd.DataFrame({c: pd.Series(dtype=object if t == "category" else t)
                               for c, t in columns})
        frames.append(_fix_categories(df, cats))
    return frames


def settings_frame(manifest: dict, setting_ids=None) -> pd.DataFrame:
    """One row per setting of ``manifest``: what was played (with ``files``, the files played
    and their SHA-256 as JSON, when a setting played any), with every rule option."""
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
        if any("files" in e for e in manifest["settings"].values()):
            row["files"] = json.dumps(s.get("files", {}), sort_keys=True)
        for name, value in s["rules"].items():
            row[name] = option_text(name, value)
        rows.append(row)
    df = pd.DataFrame(rows)
    for name in CONTENT:  # (a content option a setting leaves at the printed game: "")
        if name in df.columns:
            df[name] = df[name].fillna("")
    if len(df):
        df["setting"] = df["setting"].astype(pd.CategoricalDtype(list(df["setting"])))
        df["players"] = df["players"].astype(np.int8)
    return df


def load_results(folder, settings=None, columns=None) -> Results:
    """Read a results folder written by ``coltsim.simulate_to_folder`` (or an experiment),
    verifying every chunk against the manifest's record.

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
        ``players``, ``games`` and ``settings`` DataFrames of the settings read, every game of
        each exactly once, and the manifest of those settings.

    Raises
    ------
    ResultsError
        (a ``ValueError``) with one line naming the problem: not a results folder, a manifest
        this version cannot read, a setting that is not in it, a run not finished yet, or a
        chunk file missing or damaged (its size or SHA-256 differs from its record).  Running
        the same simulation again (``coltsim report REPORT --repair`` for a report's data)
        recomputes what is missing or damaged.
    """
    folder = check_folder(folder)
    manifest = read_manifest(folder)
    if manifest is None:
        raise ResultsError(f"{folder} holds no {MANIFEST}: not a coltsim results folder")
    known = list(manifest["settings"])
    if settings is None:
        wanted = known
    else:
        wanted = [settings] if isinstance(settings, str) else list(settings)
        for sid in wanted:
            if sid not in known:
                raise ResultsError(f"no setting {sid!r} in {folder}; it holds: "
                                   f"{', '.join(known) or 'none'}{did_you_mean(sid, known)}")
    entries = {sid: manifest["settings"][sid] for sid in wanted}
    policy_names = list(dict.fromkeys(p for e in entries.values() for p in e["policies"]))
    rounds = max((e["rules"]["rounds"] for e in entries.values()), default=1)
    keep = None if columns is None else {"game", "setting", *columns}
    tables: dict = {PLAYERS: [], GAMES: []}
    for sid, entry in entries.items():
        for record in sorted(entry["chunks"], key=lambda r: r["first_game"]):
            for name in TABLES:
                problem, table = read_chunk_file(folder, sid, entry, record, name, keep)
                if problem:
                    raise ResultsError(f"{problem}; {REMEDY}")
                tables[name].append(table)
        problem = tiling_problem(folder, sid, entry)
        if problem:
            raise ResultsError(problem)
    new_cards = tuple(dict.fromkeys(c["name"] for e in entries.values()
                                    for c in e["rules"].get("new_cards", ())))
    players, games = to_frames(tables[PLAYERS], tables[GAMES], wanted, policy_names, rounds,
                               new_cards)
    return Results(players, games, settings_frame(manifest, wanted),
                   {**manifest, "settings": entries})
