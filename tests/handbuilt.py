"""Results written by hand, in the players table's schema (coltsim.results), for analyses whose
answer a test knows game by game."""
import numpy as np
import pandas as pd

from coltsim.analysis.frames import win_share
from coltsim.results import Results, player_columns


def hand_built(games: list, players: int = 3, setting: str = "s", policy: str = "greedy",
               first_game: int = 0) -> Results:
    """``games``: one list per game of its bandits (one per seat; two per seat with 2 players),
    each a dict with ``bandit``, ``seat``, ``rank`` (of its seat), ``score`` (its seat's final
    score) and optionally ``rounds`` (its own score after each round: the ``score_after_r``
    columns, as many as the longest list) and any other column of the players table
    (``fizzled``, ``moves``...); the rest are 0.  Game ``i`` is game ``first_game + i``."""
    rounds = max(len(b.get("rounds", ())) for game in games for b in game)
    columns = player_columns(rounds)
    rows = []
    for g, game in enumerate(games):
        for i, b in enumerate(game):
            row = {c: 0 for c, _ in columns}
            row.update(game=first_game + g, setting=setting, players=players, bandit_index=i,
                       policy=policy, order=b["seat"], team_score=b["score"])
            row.update({k: v for k, v in b.items() if k not in ("rounds", "score")})
            row["score"] = b["score"]
            row.update({f"score_after_{r + 1}": v for r, v in enumerate(b.get("rounds", ()))})
            row["win"] = b["rank"] == 1
            rows.append(row)
    p = pd.DataFrame(rows)
    winners = p[p["win"]].drop_duplicates(["game", "seat"]).groupby("game").size()
    p["shared_win"] = p["win"] & p["game"].map(winners).gt(1)
    for c, dtype in columns:
        if dtype != "category" and c != "win_share":
            p[c] = p[c].astype(dtype)
    for c in ("setting", "bandit", "policy"):
        p[c] = p[c].astype("category")
    p["win_share"] = win_share(p)
    g = pd.DataFrame({"game": np.unique(p["game"]), "setting": setting, "players": players})
    g["setting"] = g["setting"].astype("category")
    s = pd.DataFrame([{"setting": setting, "players": players, "lineup": "random",
                       "policies": policy, "params": ""}])
    return Results(p, g, s)
