"""Fingerprints: a few of a run's games, kept to tell later whether the code still plays them.

A report is made from games; whether it is still the report the current code would make depends
on whether the code still plays the same games, not on whether any source byte changed.  So a
report records, for each setting it played, the **fingerprint** of a sample of its games: the
SHA-256 of their rows in the results tables (every column of ``players`` and ``games`` but the
setting's id), taken from the games the report was made of (:func:`fingerprint`)::

    {"setting": "p4-learned-1dc804", "seed": 1, "games": 100, "sha256": "..."}

The sample is the setting's first ``games`` games (``SAMPLE_GAMES``; ``SEARCH_SAMPLE_GAMES``
when a seat searches, whose games take a second each).  A game depends only on the setting, the
seed and its index, so :func:`replay` plays those games again with the current code and
:func:`digest` says whether they are the same, row for row; ``scripts/stale_reports.py``
does it for every committed report.  A refactor that plays the same games leaves every report
fresh, and a change of one game in the sample is caught.

Reading and checking a fingerprint needs no compiled code; replaying one compiles the
setting's kernel (like any run of it).
"""
from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from ..policies.catalog import POLICIES

if TYPE_CHECKING:
    from ..results import Results
    from ..setting import Setting

SAMPLE_GAMES = 100  # games a fingerprint holds (a few hundredths of a second of planners)
SEARCH_SAMPLE_GAMES = 4  # when a seat searches (rollout, ismcts: up to a second a game)
LEFT_OUT = ("setting",)  # a setting's id names the game, it is not part of it


def sample_games(policies, games: int) -> int:
    """How many of a setting's ``games`` games its fingerprint holds, from its ``policies``."""
    search = any(POLICIES[p].models for p in policies if p in POLICIES)
    return min(games, SEARCH_SAMPLE_GAMES if search else SAMPLE_GAMES)


def digest(results: Results, setting_id: str, games: int) -> str | None:
    """The SHA-256 of games ``0 .. games - 1`` of setting ``setting_id`` in ``results``: every
    column of their rows but the setting's id, by name, as plain values (independent of the
    tables' dtypes and column order, of pandas and of pyarrow); None when ``results`` do not
    hold them all."""
    h = hashlib.sha256()
    for name, table, rows_per_game in (("players", results.players, None),
                                       ("games", results.games, 1)):
        rows = table[(table["setting"] == setting_id) & (table["game"] < games)]
        order = [c for c in ("game", "bandit_index") if c in rows.columns]
        rows = rows.sort_values(order, kind="stable")
        if rows["game"].nunique() != games or rows_per_game and len(rows) != games:
            return None
        for column in sorted(c for c in rows.columns if c not in LEFT_OUT):
            h.update(json.dumps([name, column, rows[column].tolist()]).encode())
    return h.hexdigest()


def fingerprint(results: Results, setting_id: str, seed: int, policies, games: int) -> dict | None:
    """The fingerprint of setting ``setting_id`` (played by ``policies``, ``games`` games of
    ``seed``) from the games ``results`` hold (module docstring); None when they do not hold
    its sample."""
    n = sample_games(policies, games)
    sha = digest(results, setting_id, n)
    return None if sha is None else {"setting": setting_id, "seed": seed, "games": n,
                                     "sha256": sha}


def recorded_setting(record: dict, settings: dict) -> Setting:
    """The setting a fingerprint is of: its ``played`` entry (what ``Setting.as_dict`` wrote),
    else the entry of its id in ``settings`` (a manifest's); a ``ValueError`` when this coltsim
    cannot play it again."""
    from .runner import setting_from_entry

    entry = record.get("played") or settings.get(record["setting"])
    if not isinstance(entry, dict):
        raise ValueError(f"setting {record['setting']} is not in the manifest")
    return setting_from_entry(record["setting"], entry)


def replay(setting: Setting, record: dict) -> str | None:
    """The digest of the games of ``record`` (a fingerprint of ``setting``) played now, in this
    process."""
    from .runner import simulate

    played = simulate(setting, record["games"], seed=record["seed"], workers=1, progress=False)
    return digest(played, setting.id, record["games"])


def fingerprint_problem(record) -> str | None:
    """What makes ``record`` unreadable as a fingerprint (None: nothing)."""
    if not isinstance(record, dict):
        return "a fingerprint must be an object"
    for key, least in (("seed", 0), ("games", 1)):
        value = record.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            return f"a fingerprint's {key} must be a whole number from {least}, got {value!r}"
    if not isinstance(record.get("setting"), str) or not isinstance(record.get("sha256"), str):
        return "a fingerprint needs a setting id and a sha256"
    return None
