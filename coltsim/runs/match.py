"""The one match (a tournament of a table): players against each other on the same deals,
seats rotated.

A *table* is one entry per seat: whatever names a player to the ``play`` function that plays
it (a policy name; a :class:`Seat`, a policy with a parameter row of its own; a training's
``"new"`` and ``"old"`` weights).  Rotation ``r`` seats entry ``e`` at seat ``(e + r) %
players`` (coltsim.setting.seatings), so that every entry plays every seat, bandit and
first-player position of every deal; rotations that seat the same entries are played once.
Every rotation plays the deals ``0 .. games - 1`` of one master seed (common random numbers:
a deal fixes the bandits, train, purses, round cards and first player)::

    play(seating, games, seed) -> float64[games, players]

plays the table seated as ``seating`` (``seating[s]``: the entry at seat ``s``) and returns
each seat's share of the victory per deal (a victory shared by ``m`` teams counts ``1/m``).

An entry's share of a deal is its share averaged over the seats it holds in every rotation
(``coltsim.analysis.stats.deal_shares``); deals are the independent units, so its share of the
tournament is the mean over deals with the normal interval over deals
(``coltsim.analysis.stats.share_estimate``), to compare with the fair share ``1/players``.  :func:`play_table` does the three in one call; :func:`play_seats`
is the ``play`` of seats given as policies with parameter rows of their own (the batch kernel,
in this process).

The tournament command and an experiment's tables of different policies play the rotations as
settings (coltsim.study.tournament, ``coltsim run``) and compute the same estimate from the
saved games (coltsim.analysis.shares.policy_shares); ``coltsim train``'s matches and the
planner's weight tuning (benchmarks/tune_planner_weights.py) call :func:`play_table`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.stats import LEVEL, ShareEstimate, deal_shares, share_estimate
from ..setting import seatings

__all__ = ["Seat", "ShareEstimate", "deal_shares", "play_seats", "play_table", "share_estimate"]


@dataclass(frozen=True)
class Seat:
    """A policy with a parameter row of its own (``N_PARAMS`` numbers, as
    ``coltsim.policies.param_vector`` makes them): two seats of one policy may differ."""

    policy: str
    params: tuple


def play_table(table, games: int, seed: int, play, level: float = LEVEL) -> dict:
    """Play ``table`` (one entry per seat) in every distinct seat rotation on the deals
    ``0 .. games - 1`` of ``seed`` with ``play`` (module docstring); returns each distinct
    entry's :class:`ShareEstimate`, in the order of the table."""
    table = tuple(table)
    rotations = seatings(table)
    seated = {seating: play(seating, games, seed) for seating in rotations}
    return {entry: share_estimate(per_deal, len(table), len(rotations), level,
                                  table.count(entry))
            for entry, per_deal in deal_shares(seated).items()}


def play_seats(rules=None, lineup=None):
    """A ``play`` for tables of :class:`Seat` entries (or built-in policy names, with their
    default parameters): each seating is played by the table's batch kernel in this process,
    every seat with its own parameter row, under ``rules`` (default ``coltsim.Rules()``) and
    ``lineup`` (default drawn per game)."""
    from ..engine.scoring import RB_N, RG_N
    from ..playout import batch_kernel, new_kernel_states
    from ..policies import param_vector, resolve_policies
    from ..setting import make_setting
    from .chunk import seat_shares

    def play(seating, games, seed):
        players = len(seating)
        names = [e.policy if isinstance(e, Seat) else e for e in seating]
        rows = np.array([e.params if isinstance(e, Seat) else param_vector(e)
                         for e in seating], np.float64)
        setting = make_setting(players, lineup, names, rules)
        seats = resolve_policies(players, names, rows)
        out_b = np.zeros((games, setting.n_bandits, RB_N), np.int32)
        out_g = np.zeros((games, RG_N), np.int32)
        opts = setting.rules.to_array()
        batch_kernel(seats.choosers)(new_kernel_states(), seed, 0, setting.lineups(),
                                     seats.seat_policy, seats.params, seats.nets, opts, out_b, out_g)
        return seat_shares(out_b, out_g, players)

    return play
