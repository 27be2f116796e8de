"""Tournaments: policies against each other on identical deals, seats rotated.

``tournament(tables, games=...)`` plays every table (a line-up of policies, one per seat) on the
deals ``0 .. games - 1`` of ``seed``.  Each deal is played once per rotation of the line-up
(policy ``e`` of the line-up sits at seat ``(e + r) % players`` in rotation ``r``), so every
policy plays every seat, bandit and first-player position of every deal, and every table plays
the same deals (common random numbers: a deal fixes the bandits, train, purses, round cards and
first player; the shuffles during play then follow the game).

A policy's result is its share of the victories per seat it holds (a win shared by ``k`` players
counts ``1/k``), to compare with the fair share ``1/players``.  Its 95% interval treats deals as
the independent units: the rotations of one deal are averaged first, and the interval is
``mean +- 1.96 * sd / sqrt(games)`` over deals.

The module itself is callable: ``coltsim.tournament(...)`` calls ``tournament`` below.

From the command line, a ladder experiment (experiments/policy_ladder.toml)::

    python -m coltsim.tournament experiments/policy_ladder.toml [--games N] [--n-jobs K] [--csv F]
"""
from __future__ import annotations

import argparse
import sys
import time
import tomllib
import types
from pathlib import Path

import numpy as np
import pandas as pd

from .engine.scoring import RB_N, RB_TEAM, RB_TEAM_SCORE, RB_WIN, RG_FAIL, RG_N, RG_N_WINNERS
from .playout import FAIL_ILLEGAL_OPTION, batch_kernel
from .policies.registry import resolve_policies
from .setting import bandits_per_player, check_players, check_rules, check_seed, lineup_codes

Z95 = 1.959963984540054
COLUMNS = ["table", "policy", "seats", "games", "win_rate", "ci_low", "ci_high", "fair_share",
           "mean_score"]


def _tables(tables) -> dict:
    if isinstance(tables, dict):
        out = {str(k): list(v) for k, v in tables.items()}
    else:
        tables = list(tables)
        out = {" vs ".join(_name(p) for p in tables): tables}
    if not out:
        raise ValueError("tournament needs at least one table (a list of policies, one per seat)")
    return out


def _name(spec) -> str:
    if isinstance(spec, str):
        return spec
    py = getattr(spec, "py_func", spec)
    return getattr(py, "__name__", repr(spec))


def _play_rotations(kernel, seed, games, lineups, seats, opts, n_jobs, chunk):
    """out_b[r, g] and out_g[r, g] of deal g played in rotation r."""
    players = seats.seat_policy.shape[0]
    n_bandits = lineups.shape[1]
    out_b = np.zeros((players, games, n_bandits, RB_N), np.int32)
    out_g = np.zeros((players, games, RG_N), np.int32)
    jobs = []
    for r in range(players):
        seat_policy = np.roll(seats.seat_policy, r)
        params = np.roll(seats.params, r, axis=0)
        for first in range(0, games, chunk):
            last = min(games, first + chunk)
            jobs.append((seat_policy, params, first, out_b[r, first:last], out_g[r, first:last]))

    def run(job):
        seat_policy, params, first, ob, og = job
        kernel(seed, first, lineups, seat_policy, params, opts, 0, ob, og)

    if n_jobs == 1:
        for job in jobs:
            run(job)
    else:
        from joblib import Parallel, delayed

        Parallel(n_jobs=n_jobs, prefer="threads")(delayed(run)(job) for job in jobs)
    return out_b, out_g


def tournament(tables, games: int = 200, seed: int = 0, rules=None, bandits=None, params=None,
               n_jobs: int = 1) -> pd.DataFrame:
    """Play line-ups of policies on the same deals with seats rotated; win rates with intervals.

    Parameters
    ----------
    tables : list, or dict of label -> list
        A line-up (one policy per seat: a built-in name, ``"package.module:function"`` or a
        compiled function), or several by label.  Every table plays the same deals.
    games : int
        Deals per table; each is played once per seat rotation (``games * players`` games).
    seed : int
        Master seed of the deals.
    rules : coltsim.Rules or dict, optional
    bandits : list of str or str, optional
        One bandit per seat (``"random"`` draws one); default every bandit drawn per deal.
    params : dict, optional
        Parameters by policy name, e.g. ``{"rollout": {"budget": 32}}``.
    n_jobs : int
        Threads playing chunks of games side by side.

    Returns
    -------
    pandas.DataFrame
        One row per table and policy: ``table, policy, seats`` (seats it holds), ``games``
        (games played by the table), ``win_rate`` (victory share per seat), ``ci_low, ci_high``
        (95% interval over deals), ``fair_share`` (1 / players), ``mean_score`` (dollars).
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 2:
        raise ValueError(f"games must be an integer >= 2, got {games!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ValueError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
    seed = check_seed(seed)
    rows = []
    for label, lineup in _tables(tables).items():
        players = check_players(len(lineup))
        seats = resolve_policies(players, lineup, params)
        opts = check_rules(rules, players).to_array()
        lineups = lineup_codes(players, bandits)[None, :]
        kernel = batch_kernel(seats.functions)
        chunk = max(1, min(256, -(-games // (4 * n_jobs))))
        out_b, out_g = _play_rotations(kernel, seed, int(games), lineups, seats, opts, n_jobs,
                                       chunk)
        _check_failures(out_g, seats)
        rows += _summarise(label, seats.names, out_b, out_g, bandits_per_player(players))
    return pd.DataFrame(rows, columns=COLUMNS)


def _check_failures(out_g, seats) -> None:
    fail = out_g[..., RG_FAIL]
    if not fail.any():
        return
    r, g = (int(x[0]) for x in np.nonzero(fail))
    code = int(fail[r, g])
    if code == FAIL_ILLEGAL_OPTION:
        users = [n for n, i in zip(seats.names, seats.seat_policy) if i >= 100]
        raise ValueError(f"a user policy ({', '.join(users)}) returned an option index outside "
                         f"[0, n) in deal {g} (rotation {r})")
    raise RuntimeError(f"engine invariant broken (code {code}) in deal {g}, rotation {r}")


def _summarise(label, names, out_b, out_g, per) -> list:
    """Rows of one table: per distinct policy, its per-seat victory share over deals."""
    players, games = out_g.shape[:2]
    n_winners = np.maximum(out_g[..., RG_N_WINNERS], 1)
    # Team results from each team's first bandit: [rotation, game, team].
    first = out_b[:, :, ::per, :]
    assert (first[..., RB_TEAM] == np.arange(players)).all()
    share = first[..., RB_WIN] / n_winners[..., None]
    score = first[..., RB_TEAM_SCORE].astype(np.float64)
    rows = []
    for name in dict.fromkeys(names):
        entries = [e for e, n in enumerate(names) if n == name]
        per_deal = np.zeros(games)
        mean_score = 0.0
        for r in range(players):
            seat_of = [(e + r) % players for e in entries]
            per_deal += share[r][:, seat_of].mean(axis=1)
            mean_score += score[r][:, seat_of].mean()
        per_deal /= players
        rate = per_deal.mean()
        half = Z95 * per_deal.std(ddof=1) / np.sqrt(games)
        rows.append({"table": label, "policy": name, "seats": len(entries),
                     "games": games * players, "win_rate": rate,
                     "ci_low": max(0.0, rate - half), "ci_high": min(1.0, rate + half),
                     "fair_share": 1.0 / players, "mean_score": mean_score / players})
    return rows


# --- ladder experiments ---------------------------------------------------------------------------
def load_ladder(path) -> dict:
    """Read a ladder experiment: ``name, description, seed, games``, ``[[settings]]`` with
    ``players``, ``policies`` (one per seat), optional ``lineup`` and ``rules``, and optional
    ``[policy_params.NAME]`` tables (the experiment-file format of coltsim.experiment)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"{path}: cannot read the experiment: {e}") from e
    settings = data.get("settings")
    if not isinstance(settings, list) or not settings:
        raise ValueError(f"{path}: settings: list the tables as [[settings]] with policies")
    tables = {}
    for i, s in enumerate(settings):
        policies = s.get("policies")
        if not isinstance(policies, list) or len(policies) != s.get("players", len(policies or [])):
            raise ValueError(f"{path}: settings[{i}].policies: give one policy per player")
        label = s.get("label") or " vs ".join(policies)
        tables[label] = {"policies": policies, "rules": s.get("rules"), "lineup": s.get("lineup")}
    return {"name": data.get("name", path.stem), "description": data.get("description", ""),
            "seed": data.get("seed", 0), "games": data.get("games", 200),
            "params": data.get("policy_params"), "tables": tables}


def run_ladder(path, games: int | None = None, n_jobs: int = 1) -> pd.DataFrame:
    """Play every table of a ladder experiment file (``load_ladder``) on the same deals."""
    spec = load_ladder(path)
    frames = []
    for label, t in spec["tables"].items():
        frames.append(tournament({label: t["policies"]}, games=games or spec["games"],
                                 seed=spec["seed"], rules=t["rules"], bandits=t["lineup"],
                                 params=spec["params"], n_jobs=n_jobs))
    return pd.concat(frames, ignore_index=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m coltsim.tournament",
                                     description="Play a ladder experiment and print win rates.")
    parser.add_argument("experiment")
    parser.add_argument("--games", type=int, help="deals per table (default: the file's)")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--csv", help="also write the table to this CSV file")
    args = parser.parse_args(argv)
    try:
        t0 = time.perf_counter()
        df = run_ladder(args.experiment, args.games, args.n_jobs)
    except ValueError as e:
        print(f"coltsim tournament: error: {e}", file=sys.stderr)
        return 2
    with pd.option_context("display.width", 120, "display.max_columns", 20):
        print(df.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"({time.perf_counter() - t0:.1f} s)")
    if args.csv:
        df.to_csv(args.csv, index=False)
    return 0


class _CallableModule(types.ModuleType):
    """``coltsim.tournament`` is both this module and, called, the function ``tournament``."""

    def __call__(self, *args, **kwargs):
        return tournament(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    sys.exit(main())
