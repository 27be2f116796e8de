"""Tidy results: the engine's result arrays turned into tables, and the reader of saved runs.

Two tables per run, one row per bandit (``players``) and one per game (``games``), with compact
dtypes (categoricals with int8 codes, small integers).  Their columns are fixed here, in
``PLAYER_COLUMNS`` and ``GAME_COLUMNS``; analyses are written against them.

``players`` (one row per bandit, ordered by game then bandit index)

============================  ========  =====================================================
column                        dtype     meaning
============================  ========  =====================================================
game                          int64     game index under the run's master seed
setting                       category  setting id
players                       int8      players in the game (2 = the two-bandit variant)
seat                          int8      player number 0..players-1 (= team)
bandit_index                  int8      bandit number in the game (two per player with 2)
bandit                        category  character
policy                        category  policy of the seat
order                         int8      (seat - First Player of round 1) % players
purse jewel strongbox ransom  int32     dollars carried at the end, by kind of loot
loot                          int32     their sum
shots                         int8      bullet cards fired
bullets_received              int8      bullet cards received from bandits
neutral_received              int8      neutral bullets received
gunslinger                    bool      won the Gunslinger title
bonus                         int32     Gunslinger dollars
score                         int32     loot + bonus
team_score                    int32     score of the seat (both bandits with 2 players)
rank                          int8      competition rank of the seat (1 = won)
win, shared_win               bool      the seat won; won together with another seat
============================  ========  =====================================================

``games`` (one row per game): ``game`` int64, ``setting`` category, ``players`` int8,
``first_player`` int8, ``round_1`` .. ``round_{rounds-1}`` category (round cards in order),
``station`` category, ``cars`` string (letters in train order from the locomotive, e.g.
``"EBFA"``), ``n_winners`` int8, ``n_gunslingers`` int8, ``gunslinger_changed_winner`` bool
(the winners would differ without the bonus), ``neutral_left`` int8 (neutral bullets left in the
supply at the end; -1 with an unlimited supply).

``settings`` (one row per setting): ``setting``, ``players``, ``lineup``, ``policies``,
``params``, ``seed``, ``games``, ``chunk_size`` and one column per rule option.

On disk (written by ``coltsim.runner``)::

    folder/manifest.json
    folder/players/<setting id>/chunk-000000.parquet
    folder/games/<setting id>/chunk-000000.parquet
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from . import constants as K
from .engine.scoring import (
    RB_BONUS, RB_CHAR, RB_GUNSLINGER, RB_JEWEL, RB_LOOT, RB_NEUTRAL, RB_PURSE, RB_RANK,
    RB_RANSOM, RB_RECEIVED, RB_SCORE, RB_SHARED, RB_SHOTS, RB_STRONGBOX, RB_TEAM, RB_TEAM_SCORE,
    RB_WIN, RG_CARS, RG_FIRST_PLAYER, RG_GUNSLINGER_CHANGED, RG_N_GUNSLINGERS, RG_N_WINNERS,
    RG_NEUTRAL_LEFT, RG_ROUNDS,
)

if TYPE_CHECKING:  # pandas is imported only to build DataFrames: workers never need it
    import pandas as pd

MANIFEST = "manifest.json"
PLAYERS = "players"
GAMES = "games"
TABLES = (PLAYERS, GAMES)

ROUND_CARDS = K.ROUND_CARD_NAMES[:K.N_ROUND_CARDS]
STATIONS = K.ROUND_CARD_NAMES[K.FIRST_STATION:]
_CAR_LETTERS = np.frombuffer(("?" + "".join(K.CAR_NAMES[1:])).encode(), np.uint8)

# (column, dtype) of the two tables; "category" columns get fixed categories where known.
PLAYER_COLUMNS = (
    ("game", "int64"), ("setting", "category"), ("players", "int8"), ("seat", "int8"),
    ("bandit_index", "int8"), ("bandit", "category"), ("policy", "category"), ("order", "int8"),
    ("purse", "int32"), ("jewel", "int32"), ("strongbox", "int32"), ("ransom", "int32"),
    ("loot", "int32"), ("shots", "int8"), ("bullets_received", "int8"),
    ("neutral_received", "int8"), ("gunslinger", "bool"), ("bonus", "int32"),
    ("score", "int32"), ("team_score", "int32"), ("rank", "int8"), ("win", "bool"),
    ("shared_win", "bool"),
)


def game_columns(rounds: int) -> tuple:
    """(column, dtype) of the games table of a setting played over ``rounds`` rounds."""
    return (
        (("game", "int64"), ("setting", "category"), ("players", "int8"), ("first_player", "int8"))
        + tuple((f"round_{r + 1}", "category") for r in range(rounds - 1))
        + (("station", "category"), ("cars", "str"), ("n_winners", "int8"),
           ("n_gunslingers", "int8"), ("gunslinger_changed_winner", "bool"),
           ("neutral_left", "int8"))
    )


class Results(NamedTuple):
    """The tables of a run: ``players`` and ``games`` (see the module docstring), ``settings``."""

    players: pd.DataFrame
    games: pd.DataFrame
    settings: pd.DataFrame


# ----------------------------------------------------------------------------------------------
# Engine arrays -> Arrow tables (runs in the workers)

def _narrow(a: np.ndarray, dtype) -> np.ndarray:
    """``a`` as the small integer ``dtype``; an out-of-range value is an engine bug, not data."""
    info = np.iinfo(dtype)
    if a.size and (a.min() < info.min or a.max() > info.max):
        raise RuntimeError(f"result value out of range for {np.dtype(dtype).name}: "
                           f"{a.min()}..{a.max()}")
    return a.astype(dtype)


def _category(codes: np.ndarray, names) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(_narrow(codes, np.int8)),
                                          pa.array(list(names), pa.string()))


def chunk_tables(first_game: int, out_b: np.ndarray, out_g: np.ndarray, setting_id: str,
                 players: int, policies: list[str], rounds: int) -> tuple[pa.Table, pa.Table]:
    """The ``players`` and ``games`` tables of games ``first_game ..`` from the kernel's output.

    out_b : int32[games, bandits, RB_N]     out_g : int32[games, RG_N]
    """
    n, n_bandits = out_b.shape[:2]
    b = out_b.reshape(n * n_bandits, -1)
    game = np.arange(first_game, first_game + n, dtype=np.int64)
    setting = _category(np.zeros(n, np.int8), [setting_id])
    first = out_g[:, RG_FIRST_PLAYER]
    seat = b[:, RB_TEAM]
    policy_names = list(dict.fromkeys(policies))
    policy_of_seat = np.array([policy_names.index(p) for p in policies], np.int8)

    def i8(col):
        return pa.array(_narrow(b[:, col], np.int8))

    def i32(col):
        return pa.array(b[:, col].astype(np.int32))

    def flag(col):
        return pa.array(b[:, col] != 0)

    pcols = {
        "game": pa.array(np.repeat(game, n_bandits)),
        "setting": _category(np.zeros(n * n_bandits, np.int8), [setting_id]),
        "players": pa.array(np.full(n * n_bandits, players, np.int8)),
        "seat": i8(RB_TEAM),
        "bandit_index": pa.array(np.tile(np.arange(n_bandits, dtype=np.int8), n)),
        "bandit": _category(b[:, RB_CHAR], K.BANDIT_NAMES),
        "policy": _category(policy_of_seat[seat], policy_names),
        "order": pa.array(_narrow((seat - np.repeat(first, n_bandits)) % players, np.int8)),
        "purse": i32(RB_PURSE), "jewel": i32(RB_JEWEL), "strongbox": i32(RB_STRONGBOX),
        "ransom": i32(RB_RANSOM), "loot": i32(RB_LOOT),
        "shots": i8(RB_SHOTS), "bullets_received": i8(RB_RECEIVED),
        "neutral_received": i8(RB_NEUTRAL), "gunslinger": flag(RB_GUNSLINGER),
        "bonus": i32(RB_BONUS), "score": i32(RB_SCORE), "team_score": i32(RB_TEAM_SCORE),
        "rank": i8(RB_RANK), "win": flag(RB_WIN), "shared_win": flag(RB_SHARED),
    }

    n_cars = 4 if players == 2 else players
    letters = np.ascontiguousarray(_CAR_LETTERS[out_g[:, RG_CARS:RG_CARS + n_cars]])
    gcols = {
        "game": pa.array(game),
        "setting": setting,
        "players": pa.array(np.full(n, players, np.int8)),
        "first_player": pa.array(_narrow(first, np.int8)),
    }
    for r in range(rounds - 1):
        gcols[f"round_{r + 1}"] = _category(out_g[:, RG_ROUNDS + r], ROUND_CARDS)
    gcols["station"] = _category(out_g[:, RG_ROUNDS + rounds - 1] - K.FIRST_STATION, STATIONS)
    gcols["cars"] = pa.array(letters.view(f"S{n_cars}").ravel()).cast(pa.string())
    gcols["n_winners"] = pa.array(_narrow(out_g[:, RG_N_WINNERS], np.int8))
    gcols["n_gunslingers"] = pa.array(_narrow(out_g[:, RG_N_GUNSLINGERS], np.int8))
    gcols["gunslinger_changed_winner"] = pa.array(out_g[:, RG_GUNSLINGER_CHANGED] != 0)
    gcols["neutral_left"] = pa.array(_narrow(out_g[:, RG_NEUTRAL_LEFT], np.int8))
    return pa.table(pcols), pa.table(gcols)


# ----------------------------------------------------------------------------------------------
# Files

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


def read_manifest(folder) -> dict | None:
    path = Path(folder) / MANIFEST
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read {path}: {e}") from e


# ----------------------------------------------------------------------------------------------
# Tables -> DataFrames with fixed dtypes

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
        bandits = s["bandits"]
        row = {
            "setting": sid, "players": s["players"],
            "lineup": bandits if isinstance(bandits, str) else ",".join(bandits),
            "policies": ",".join(s["policies"]),
            "params": json.dumps(s["params"]) if s["params"] is not None else "",
            "seed": s["seed"], "games": s["games"], "chunk_size": s["chunk_size"],
        }
        for name, value in s["rules"].items():
            row[name] = ",".join(value) if isinstance(value, list) else value
        rows.append(row)
    df = pd.DataFrame(rows)
    if len(df):
        df["setting"] = df["setting"].astype(pd.CategoricalDtype(list(df["setting"])))
        df["players"] = df["players"].astype(np.int8)
    return df


def load_results(folder, settings=None, columns=None) -> Results:
    """Read a results folder written by ``coltsim.simulate`` (or an experiment).

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
        ``players``, ``games`` and ``settings`` DataFrames; games of every finished chunk
        (an unfinished run gives the chunks written so far).
    """
    manifest = read_manifest(folder)
    if manifest is None:
        raise ValueError(f"{folder} holds no {MANIFEST}: not a coltsim results folder")
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
    return Results(players, games, settings_frame(manifest, wanted))
