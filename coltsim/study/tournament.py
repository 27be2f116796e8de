"""Tournaments: policies against each other on identical deals, seats rotated.

``tournament(settings, games=...)`` plays every setting (a table: one policy per seat) through
the runner on the deals ``0 .. games - 1`` of ``seed``, once per rotation of its policies
(policy ``e`` of the table sits at seat ``(e + r) % players`` in rotation ``r``), so every
policy plays every seat, bandit and first-player position of every deal, and every table plays
the same deals (common random numbers: a deal fixes the bandits, train, purses, round cards and
first player; the shuffles during play then follow the game).  Rotations that seat the same
policies are played once.

Each policy's share of the victories per seat, with an interval over deals, comes from
``coltsim.analysis.shares.policy_shares``; compare it with the fair share ``1/players``.
This is the one tournament (coltsim.runs.match: its rotations, ``coltsim.setting.seatings``,
and its estimate) played as settings through the runner, so that any number of workers or a
Dask cluster plays it; tables whose seats need parameter rows of their own (a training's
weights) call ``coltsim.runs.match.play_table`` directly.
``coltsim run`` plays an experiment's tables the same way (:func:`coltsim.setting.played_settings`) and its
report computes the same shares from the saved games.

From the command line, on an experiment file whose settings are the tables::

    coltsim tournament experiments/policy_ladder.toml [--games N] [--workers K] [--csv F]
"""
from __future__ import annotations

import pandas as pd

from ..analysis.frames import concat_results
from ..analysis.shares import policy_shares
from ..runs.options import check_games
from ..runs.progress import RunProgress
from ..runs.runner import simulate
from ..setting import FieldError, Setting, rotations
from .experiment import load_experiment


def table_label(setting: Setting) -> str:
    return setting.label or " vs ".join(setting.policies)


def tournament(settings, games: int = 200, seed: int = 0, *, workers: int | None = None,
               backend: str = "loky", progress: bool = True,
               chunk_size: int | None = None) -> pd.DataFrame:
    """Play tables of policies on the same deals with seats rotated; win rates with intervals.

    Parameters
    ----------
    settings : Setting or list of Setting
        The tables (``coltsim.make_setting(players, lineup, policies, rules, params,
        label)``), named by their label or their policies.  Every table plays the same deals.
    games : int
        Deals per table (at least 2); each is played once per distinct seat rotation.
    seed : int
        Master seed of the deals.
    workers, backend, chunk_size
        As for ``coltsim.simulate`` (a search plays a few games a second: give it chunks of a
        few dozen games so that every worker has some).
    progress : bool
        One progress bar over every table and rotation (default), with the time left from
        each table's own speed (coltsim.runs.progress), or none (False).

    Returns
    -------
    pandas.DataFrame
        One row per table and policy: ``table``, then the columns of
        ``coltsim.analysis.shares.policy_shares`` (``policy, seats, games, win_rate,
        ci_low, ci_high, fair_share, mean_score``).
    """
    settings = [settings] if isinstance(settings, Setting) else list(settings)
    if not settings or not all(isinstance(s, Setting) for s in settings):
        raise FieldError("settings", "a tournament needs one or more tables, each a setting "
                                     "(coltsim.make_setting) with one policy per seat")
    labels = [table_label(s) for s in settings]
    for label in labels:
        if labels.count(label) > 1:
            raise FieldError("settings", f"two tables are named {label!r}; give them labels")
    if check_games(games) < 2:
        raise FieldError("games", f"a tournament needs at least 2 deals, got {games}")
    tables = [(label, rotations(setting)) for label, setting in zip(labels, settings)]
    frames = []
    with RunProgress(games * sum(len(seatings) for _, seatings in tables),
                     desc=labels[0], enabled=bool(progress)) as bar:
        for _, seatings in tables:
            for r in seatings:
                bar.expect(r.id, games)
        for label, seatings in tables:
            played = []
            for i, r in enumerate(seatings, 1):
                bar.describe(label if len(seatings) == 1 else
                             f"{label}, rotation {i}/{len(seatings)}")
                played.append(simulate(r, games, seed=seed, workers=workers, backend=backend,
                                       progress=bar if progress else False,
                                       chunk_size=chunk_size))
            shares = policy_shares(concat_results(*played))
            shares.insert(0, "table", label)
            frames.append(shares)
    return pd.concat(frames, ignore_index=True)


def tournament_file(path, games: int | None = None, workers: int | None = None,
                    progress: bool = True) -> pd.DataFrame:
    """The tournament of an experiment file: its settings are the tables, its seed, games,
    workers and backend the run's (``games`` and ``workers`` override the file's)."""
    e = load_experiment(path).with_overrides(games=games, workers=workers)
    return tournament(e.settings, e.games, e.seed, workers=e.workers, backend=e.backend,
                      progress=progress)
