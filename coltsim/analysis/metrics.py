"""Game-level outcomes (one row per game) that several analyses compare across conditions."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .frames import Results, column_codes, game_key, setting_universe

# name -> (description with unit, kind): kind "mean" (dollars or counts) or "rate" (0..1).
GAME_METRICS = {
    "mean_score": ("mean score per bandit ($)", "mean"),
    "score_spread": ("spread of scores within a game (SD across players, $)", "mean"),
    "shots": ("shots fired per bandit", "mean"),
    "neutral_bullets": ("neutral bullets received per bandit", "mean"),
    "gunslinger_changed_winner": ("games decided by the Gunslinger bonus", "rate"),
}


def game_metrics(frames: Results) -> pd.DataFrame:
    """One row per game: ``setting``, ``game`` and every metric of :data:`GAME_METRICS`,
    aligned with (and in the row order of) ``frames.games``."""
    p, g = frames.players, frames.games
    idx = player_game_rows(frames)
    n_games = len(g)
    count = np.bincount(idx, minlength=n_games).astype(np.float64)

    def mean_of(values):
        return np.bincount(idx, weights=values, minlength=n_games) / count

    score = p["score"].to_numpy(np.float64)
    team = p["team_score"].to_numpy(np.float64)
    team_mean = mean_of(team)
    spread = np.sqrt(np.maximum(mean_of(team * team) - team_mean ** 2, 0.0))
    out = pd.DataFrame({
        "setting": pd.Categorical.from_codes(*column_codes(g["setting"])),
        "game": g["game"].to_numpy(np.int64),
        "mean_score": mean_of(score),
        "score_spread": spread,
        "shots": mean_of(p["shots"].to_numpy(np.float64)),
        "neutral_bullets": mean_of(p["neutral_received"].to_numpy(np.float64)),
        "gunslinger_changed_winner": g["gunslinger_changed_winner"].to_numpy(np.float64),
    })
    return out


def _common_keys(a: pd.DataFrame, b: pd.DataFrame):
    universe = setting_universe(a, b)
    return game_key(a, universe), game_key(b, universe)


def _row_of(table_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Row of ``table_keys`` holding each of ``keys`` (every key must be there)."""
    order = np.argsort(table_keys, kind="stable")
    pos = np.searchsorted(table_keys[order], keys)
    pos = np.clip(pos, 0, len(order) - 1)
    rows = order[pos]
    if len(keys) and not (table_keys[rows] == keys).all():
        raise ValueError("players rows refer to games missing from the games table")
    return rows


def player_game_rows(frames: Results) -> np.ndarray:
    """Row of ``frames.games`` of every row of ``frames.players``."""
    pkey, gkey = _common_keys(frames.players, frames.games)
    return _row_of(gkey, pkey)
