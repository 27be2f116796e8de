"""Synthetic results in the runner's exact schema, with effects planted at known sizes, for the
tests: an analysis must find what was planted, and nothing in a fair game.  Nothing here plays
Colt Express: each game draws a line-up, a First Player, a round deck and a winner from planted
probabilities, then makes up loot, shots and bullets that agree with that winner.

Planted effects
---------------
``bandit_edge={"tuco": 0.05}``
    Tuco's team wins with probability ``1/n + 0.05`` in every ``n``-player game it is in; the
    other teams share the rest equally.  Averaged over random line-ups every other bandit then
    loses ``0.05 / 5``, so Tuco is 0.05 above both the fair share and the average bandit.
``order_edge=0.05``
    The same for the First Player of round 1 (``order == 0``).
``card_score={"braking": 500}``
    Every bandit's loot is $500 higher in games whose deck holds Braking.
``tie_rate``
    Fraction of games whose victory is shared by two teams.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from coltsim import constants as K
from coltsim.analysis.frames import BANDITS
from coltsim.results import ROUND_CARDS, Results
from coltsim.results import STATIONS as STATION_CARDS
from coltsim.rules import Rules

_ROUND_CAT = pd.CategoricalDtype(list(ROUND_CARDS))
_STATION_CAT = pd.CategoricalDtype(list(STATION_CARDS))
_BANDIT_CAT = pd.CategoricalDtype(list(BANDITS))


def synthetic_results(players=(3, 4, 5, 6), games: int = 10_000, seed: int = 0,
                      bandit_edge: dict | None = None, order_edge: float = 0.0,
                      card_score: dict | None = None, tie_rate: float = 0.0,
                      gunslinger_bonus: int = 1000, policy: str = "random",
                      setting_prefix: str = "p", rules: dict | None = None) -> Results:
    """Results of ``games`` made-up games for each player count in ``players``.

    Setting ids are ``f"{setting_prefix}{n}"``; the same ``seed`` gives the same line-ups,
    First Players and decks for the same game index whatever else is planted, like the runner's
    common random numbers.
    """
    bandit_edge = dict(bandit_edge or {})
    card_score = dict(card_score or {})
    for b in bandit_edge:
        if b not in BANDITS:
            raise ValueError(f"unknown bandit {b!r}")
    rule_row = Rules(**(rules or {})).as_dict()
    rule_row["gunslinger_bonus"] = gunslinger_bonus
    p_frames, g_frames, s_rows = [], [], []
    for n in players:
        sid = f"{setting_prefix}{n}"
        p, g = _one_setting(n, games, seed, sid, bandit_edge, order_edge, card_score, tie_rate,
                            gunslinger_bonus, policy)
        p_frames.append(p)
        g_frames.append(g)
        row = {"setting": sid, "players": n, "lineup": "random", "policies": policy}
        row.update({k: (",".join(v) if isinstance(v, list) else v) for k, v in rule_row.items()})
        s_rows.append(row)
    ids = [r["setting"] for r in s_rows]
    players_df = pd.concat(p_frames, ignore_index=True)
    games_df = pd.concat(g_frames, ignore_index=True)
    setting_cat = pd.CategoricalDtype(ids)
    players_df["setting"] = players_df["setting"].astype(setting_cat)
    games_df["setting"] = games_df["setting"].astype(setting_cat)
    settings_df = pd.DataFrame(s_rows)
    return Results(players_df, games_df, settings_df,
                  {"seed": seed, "synthetic": True, "games_per_setting": games})


def _one_setting(n, G, seed, sid, bandit_edge, order_edge, card_score, tie_rate, bonus_value,
                 policy):
    # Deal-like draws come from a stream that depends on the seed and player count only.
    deal = np.random.default_rng([seed, n, 0])
    luck = np.random.default_rng([seed, n, 1])
    bpp = 2 if n == 2 else 1
    nb = n * bpp
    lineup = np.argsort(deal.random((G, 6)), axis=1)[:, :nb]  # (G, nb) bandit codes
    team_bandits = lineup.reshape(G, n, bpp)
    first = deal.integers(0, n, G)
    order = (np.arange(n)[None, :] - first[:, None]) % n  # (G, n)
    deck = np.argsort(deal.random((G, len(ROUND_CARDS))), axis=1)[:, :4]
    station = deal.integers(0, len(STATION_CARDS), G)
    car_perm = np.argsort(deal.random((G, 6)), axis=1)[:, :(4 if n == 2 else n)]

    # --- the winner -------------------------------------------------------------------------
    edge = np.zeros((G, n))
    for b, e in bandit_edge.items():
        edge += e * (team_bandits == BANDITS.index(b)).any(axis=2)
    edge += order_edge * (order == 0)
    prob = _winner_probabilities(edge, n)
    winner = (prob.cumsum(axis=1) < luck.random((G, 1))).sum(axis=1).clip(0, n - 1)
    winners = np.zeros((G, n), bool)
    winners[np.arange(G), winner] = True
    tie = luck.random(G) < tie_rate
    other = (winner + luck.integers(1, n, G)) % n
    winners[np.flatnonzero(tie), other[tie]] = True

    # --- shots, bullets and the Gunslinger ---------------------------------------------------
    shots = luck.binomial(6, 0.4, (G, n, bpp))
    neutral = luck.poisson(0.8, (G, n, bpp)).clip(0, 4)
    bullets = neutral + luck.binomial(5, 0.3, (G, n, bpp))
    if n > 2 and bonus_value:
        team_shots = shots[:, :, 0]
        top = team_shots.max(axis=1, keepdims=True)
        gun = (team_shots == top) & (top > 0)
    else:
        gun = np.zeros((G, n), bool)
    bonus = np.where(gun, bonus_value, 0)

    # --- loot agreeing with the winners ------------------------------------------------------
    shift = np.zeros(G, np.int64)
    for card, dollars in card_score.items():
        if card in ROUND_CARDS:
            shift += dollars * (deck == ROUND_CARDS.index(card)).any(axis=1)
        elif card in STATION_CARDS:
            shift += dollars * (station == STATION_CARDS.index(card))
        else:
            raise ValueError(f"unknown card {card!r}")
    loot = 250 * luck.integers(2, 12, (G, n)) * bpp + shift[:, None] * bpp
    score = loot + bonus
    best_other = np.where(winners, -1, score).max(axis=1)
    target = np.maximum(best_other + 250 * luck.integers(1, 5, G),
                        np.where(winners, bonus, 0).max(axis=1))
    loot = np.where(winners, target[:, None] - bonus, loot)
    score = loot + bonus
    loot_winner = loot.argmax(axis=1)  # who would have won without the bonus (ties: first)
    changed = ~winners[np.arange(G), loot_winner]
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)

    # --- one row per bandit ------------------------------------------------------------------
    bandit_loot = np.repeat(loot[:, :, None], bpp, axis=2)
    if bpp == 2:
        half = 250 * ((loot // 250) // 2)
        bandit_loot = np.stack([half, loot - half], axis=2)
    strongbox = 1000 * np.minimum(bandit_loot // 1000, luck.integers(0, 2, bandit_loot.shape))
    rest = bandit_loot - strongbox
    jewel = 500 * luck.integers(0, rest // 500 + 1)
    purse = rest - jewel
    b_bonus = np.repeat(bonus[:, :, None], bpp, axis=2)
    seat = np.broadcast_to(np.arange(n)[None, :, None], (G, n, bpp))

    def team(a):  # team-level (G, n) array -> per bandit (G, n, bpp)
        return np.repeat(a[:, :, None], bpp, axis=2)

    shared = team(winners & (winners.sum(axis=1, keepdims=True) > 1))
    players = pd.DataFrame({
        "game": np.repeat(np.arange(G, dtype=np.int64), nb),
        "setting": sid,
        "players": np.int8(n),
        "seat": seat.ravel().astype(np.int8),
        "bandit_index": np.tile(np.arange(nb, dtype=np.int8), G),
        "bandit": pd.Categorical.from_codes(team_bandits.ravel(), dtype=_BANDIT_CAT),
        "policy": pd.Categorical([policy] * (G * nb)),
        "order": team(order).ravel().astype(np.int8),
        "purse": purse.ravel().astype(np.int32),
        "jewel": jewel.ravel().astype(np.int32),
        "strongbox": strongbox.ravel().astype(np.int32),
        "ransom": np.zeros(G * nb, np.int32),
        "loot": bandit_loot.ravel().astype(np.int32),
        "shots": shots.ravel().astype(np.int8),
        "bullets_received": bullets.ravel().astype(np.int8),
        "neutral_received": neutral.ravel().astype(np.int8),
        "gunslinger": team(gun).ravel(),
        "bonus": b_bonus.ravel().astype(np.int32),
        "score": (bandit_loot + b_bonus).ravel().astype(np.int32),
        "team_score": team(score).ravel().astype(np.int32),
        "rank": team(rank).ravel().astype(np.int8),
        "win": team(winners).ravel(),
        "shared_win": shared.ravel(),
        "win_share": team(winners / winners.sum(axis=1, keepdims=True)).ravel(),
    })
    games = pd.DataFrame({
        "game": np.arange(G, dtype=np.int64),
        "setting": sid,
        "players": np.int8(n),
        "first_player": first.astype(np.int8),
    })
    for j in range(deck.shape[1]):
        games[f"round_{j + 1}"] = pd.Categorical.from_codes(deck[:, j], dtype=_ROUND_CAT)
    games["station"] = pd.Categorical.from_codes(station, dtype=_STATION_CAT)
    car_names = np.array(K.CAR_NAMES[1:])
    games["cars"] = pd.array([",".join(r) for r in car_names[car_perm]], dtype="string")
    games["n_winners"] = winners.sum(axis=1).astype(np.int8)
    games["n_gunslingers"] = gun.sum(axis=1).astype(np.int8)
    games["gunslinger_changed_winner"] = changed
    games["neutral_left"] = np.clip(13 - neutral.sum(axis=(1, 2)), 0, 13).astype(np.int8)
    return players, games


def _winner_probabilities(edge: np.ndarray, n: int) -> np.ndarray:
    """Edged teams win with ``1/n + edge``; the others share what is left equally."""
    edged = edge != 0
    prob = np.where(edged, 1.0 / n + edge, 0.0)
    rest = 1.0 - prob.sum(axis=1, keepdims=True)
    plain = (~edged).sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        prob = np.where(edged, prob, rest / plain)
    all_edged = plain[:, 0] == 0
    prob[all_edged] = 1.0 / n + edge[all_edged] - edge[all_edged].mean(axis=1, keepdims=True)
    if (prob < 0).any():
        raise ValueError("planted edges too large: a winning probability is negative")
    return prob
