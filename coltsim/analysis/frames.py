"""The results as the analyses see them (:class:`coltsim.results.Results`: ``players``, one row
per bandit per game; ``games``, one row per game; ``settings``, one row per setting), and small
helpers shared by every analysis.  A game is identified by ``(setting, game)``: the game index
restarts in every setting, and the same index means the same seeds, which is what paired
comparisons rely on.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .. import constants as K
from ..results import Results

BANDITS = K.BANDIT_NAMES
ROUND_COLUMN = re.compile(r"^round_(\d+)$")
# Settings columns that are not rule options.
SETTING_KEYS = ("setting", "players", "lineup", "policies", "params", "seed", "games",
                "chunk_size", "label", "files")


def as_results(results) -> Results:
    """Accept :class:`~coltsim.results.Results`, or any object or mapping with ``players``,
    ``games`` and ``settings`` DataFrames (and optionally ``manifest``)."""
    if isinstance(results, Results):
        return results
    get = results.get if isinstance(results, Mapping) else lambda k, d=None: getattr(results, k, d)
    missing = [k for k in ("players", "games", "settings") if get(k) is None]
    if missing:
        raise ValueError(f"results lack the {', '.join(missing)} table(s); expected the players, "
                         "games and settings DataFrames written by the runner")
    manifest = get("manifest", None)
    return Results(get("players"), get("games"), get("settings"),
                   manifest if isinstance(manifest, Mapping) else None)


def setting_order(frames: Results) -> list[str]:
    """Setting ids in the order of the settings table (the experiment's order)."""
    ids = [str(s) for s in frames.settings["setting"]]
    seen = set(ids)
    extra = sorted({str(s) for s in frames.players["setting"].unique()} - seen)
    return ids + extra


def seat_policies(text) -> list[str]:
    return [p.strip() for p in str(text).split(",") if p.strip()]


def rule_columns(settings: pd.DataFrame) -> list[str]:
    return [c for c in settings.columns if c not in SETTING_KEYS]


def round_columns(games: pd.DataFrame) -> list[str]:
    """``round_1 .. round_k`` in order."""
    cols = [c for c in games.columns if ROUND_COLUMN.match(c)]
    return sorted(cols, key=lambda c: int(ROUND_COLUMN.match(c).group(1)))


def column_codes(series: pd.Series, universe=None):
    """Integer codes of a label column without converting millions of rows to strings.

    Returns
    -------
    codes : ndarray of int64
        Index into ``names`` (or into ``universe`` if given; -1 for a label not in it, or
        missing).
    names : list of str
        The labels (``universe`` if given).
    """
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy(np.int64)
        names = [str(c) for c in series.cat.categories]
    else:
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
        codes = codes.astype(np.int64)
        names = [str(u) for u in uniques]
    if universe is None:
        return codes, names
    universe = [str(u) for u in universe]
    lookup = np.array([universe.index(n) if n in universe else -1 for n in names] + [-1],
                      np.int64)
    return lookup[codes], universe  # code -1 (missing) picks the trailing -1


def setting_universe(*frames: pd.DataFrame) -> list[str]:
    """Every setting id appearing in any of the frames, sorted."""
    names = set()
    for df in frames:
        _, n = column_codes(df["setting"])
        names.update(n)
    return sorted(names)


def game_key(df: pd.DataFrame, universe=None) -> np.ndarray:
    """One int64 per game, unique across settings (for grouping and clustering).  Give the
    same ``universe`` (and so the same keys) to two frames to match their games."""
    universe = universe or setting_universe(df)
    codes, _ = column_codes(df["setting"], universe)
    game = df["game"].to_numpy(np.int64)
    return codes * (1 << 40) + game


def setting_mask(df: pd.DataFrame, setting_id: str) -> np.ndarray:
    """Boolean mask of the rows of one setting."""
    codes, names = column_codes(df["setting"])
    if setting_id not in names:
        return np.zeros(len(df), bool)
    return codes == names.index(setting_id)


def win_share(players: pd.DataFrame) -> np.ndarray:
    """Each row's share of its game's victory: 1 for a sole winner, 1/m for m tied winning
    teams, 0 otherwise.  Its mean over a bandit's games is that bandit's win rate, and the fair
    share is exactly 1/players (a shared win is split rather than counted twice).  In the
    2-player game both bandits of the winning team get the team's share."""
    win = players["win"].to_numpy(bool)
    key = game_key(players)
    seat = players["seat"].to_numpy(np.int64)
    # Count winning teams per game: a team wins as a whole, so count distinct winning seats.
    winning_teams = np.unique(key[win] * 8 + seat[win])
    games, teams = np.unique(winning_teams // 8, return_counts=True)
    m = np.ones(len(key))
    if len(games):
        idx = np.clip(np.searchsorted(games, key), 0, len(games) - 1)
        hit = games[idx] == key
        m[hit] = teams[idx[hit]]
    return np.where(win, 1.0 / m, 0.0)


def team_rows(players: pd.DataFrame) -> np.ndarray:
    """Mask of one row per team and game (the 2-player game has two bandits per team)."""
    key = game_key(players) * 8 + players["seat"].to_numpy(np.int64)
    _, first = np.unique(key, return_index=True)
    mask = np.zeros(len(key), bool)
    mask[first] = True
    return mask


def players_of_setting(frames: Results) -> dict[str, int]:
    s = frames.settings
    if "players" in s and len(s):
        return {str(a): int(b) for a, b in zip(s["setting"], s["players"])}
    codes, names = column_codes(frames.games["setting"])
    n = frames.games["players"].to_numpy(np.int64)
    return {name: int(n[np.argmax(codes == i)]) for i, name in enumerate(names)
            if (codes == i).any()}


def concat_results(*parts: Results) -> Results:
    """Stack results of separate runs (their setting ids must differ), keeping categoricals."""
    def stack(frames):
        frames = [f for f in frames if f is not None]
        out = pd.concat(frames, ignore_index=True)
        for c in frames[0].columns:
            if all(isinstance(f[c].dtype, pd.CategoricalDtype) for f in frames if c in f):
                cats = list(dict.fromkeys(x for f in frames for x in f[c].cat.categories))
                out[c] = pd.Categorical(out[c], categories=cats)
        return out

    return Results(stack([p.players for p in parts]), stack([p.games for p in parts]),
                   stack([p.settings for p in parts]), parts[0].manifest)
