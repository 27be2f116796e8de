"""Round-card and station-card effects: what does a card do to the game?

Each game's deck is 4 of the 7 round cards in random order plus 1 of the 3 station cards, so
the games with a card and the games without it differ only by chance and by that card.  "Games
with Braking minus games without" is the effect of Braking in place of an average other card
(station cards: in place of an average other station card).

- :func:`card_effects`: shift of each game metric (mean score, spread of scores, shots, neutral
  bullets, Gunslinger changing the winner) when a card is in the deck, with Welch intervals.
- :func:`card_quality_effects`: shift of each game-quality metric (coltsim.analysis.quality:
  lead changes, the deciding round, comebacks, the margin, cards that did nothing) when a card
  is in the deck, with 95% intervals: does a card make the game swingier?
- :func:`card_bandit_effects`: shift of each bandit's win rate when a card is in the deck,
  with Newcombe intervals.
- :func:`card_position_effects`: the same shift of a metric by the card's position in the deck
  (round 1..k), against the games without the card.

Settings are analysed separately (the round cards have other turns for 5-6 players).  A card
fixed by the rules (in every game, or in none) has no row.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..results import ROUND_CARDS
from ..results import STATIONS as STATION_CARDS
from . import quality
from .design import design_of
from .frames import BANDITS, as_results, column_codes, round_columns, setting_mask, \
    setting_order, win_share
from ._common import label_columns, unit_columns, with_adjustment
from .metrics import GAME_METRICS, game_metrics, player_game_rows
from .stats import LEVEL, newcombe_interval, sample_sd, two_proportion_p, welch_difference

def deck_cards(games: pd.DataFrame) -> tuple[list, list]:
    """The round cards and the train-station cards the games' columns may hold: the printed
    ones, then a designer's own (rules option new_cards)."""
    def extra(column, printed):
        if column in games and isinstance(games[column].dtype, pd.CategoricalDtype):
            return [c for c in games[column].cat.categories if c not in printed]
        return []

    columns = round_columns(games)
    return (list(ROUND_CARDS) + (extra(columns[0], ROUND_CARDS) if columns else []),
            list(STATION_CARDS) + extra("station", STATION_CARDS))


def card_presence(games: pd.DataFrame) -> pd.DataFrame:
    """Boolean column per card: is it in the game's deck (round cards or station)?"""
    rounds, stations = deck_cards(games)
    out = {card: np.zeros(len(games), bool) for card in dict.fromkeys(rounds + stations)}
    for c in round_columns(games):
        codes, _ = column_codes(games[c], rounds)
        for i, card in enumerate(rounds):
            out[card] |= codes == i
    if "station" in games:
        codes, _ = column_codes(games["station"], stations)
        for i, card in enumerate(stations):
            out[card] |= codes == i
    return pd.DataFrame(out, index=games.index)


def card_position(games: pd.DataFrame) -> pd.DataFrame:
    """Position (1..k) of each round card in each game's deck, 0 if absent (its last
    position, for a card a designer's deck holds twice)."""
    rounds, _ = deck_cards(games)
    out = {card: np.zeros(len(games), np.int8) for card in rounds}
    for j, c in enumerate(round_columns(games), start=1):
        codes, _ = column_codes(games[c], rounds)
        for i, card in enumerate(rounds):
            out[card][codes == i] = j
    return pd.DataFrame(out, index=games.index)


def card_effects(results, metrics=None, level: float = LEVEL,
                 correction: str = "holm") -> pd.DataFrame:
    """Shift of game metrics when each card is in the deck.

    Returns
    -------
    DataFrame
        ``setting, label, players, card, kind`` (round/station), ``metric, description,
        with_card, without_card, n_with, n_without, effect, lo, hi, p_value, p_adjusted,
        significant``.  The whole table is one family for ``correction``.
    """
    f = as_results(results)
    metrics = list(metrics or GAME_METRICS)
    gm = game_metrics(f)
    presence = card_presence(f.games)
    rows = []
    for sid in setting_order(f):
        in_s = setting_mask(gm, sid)
        if not in_s.any():
            continue
        for card in presence.columns:
            has = presence[card].to_numpy()[in_s]
            if has.all() or not has.any():
                continue
            for m in metrics:
                v = gm[m].to_numpy()[in_s]
                a, b = v[has], v[~has]
                d, lo, hi, p = welch_difference(a.mean(), sample_sd(a), a.size,
                                                b.mean(), sample_sd(b), b.size, level)
                rows.append({"setting": sid, "card": card, "kind": _kind(card), "metric": m,
                             "description": GAME_METRICS[m][0], "with_card": a.mean(),
                             "without_card": b.mean(), "n_with": a.size, "n_without": b.size,
                             "effect": float(d), "lo": float(lo), "hi": float(hi),
                             "p_value": float(p)})
    table = pd.DataFrame(rows, columns=_EFFECT_COLUMNS)
    return with_adjustment(label_columns(table, f), correction)


def card_quality_effects(results, level: float = LEVEL, correction: str = "holm",
                         games: pd.DataFrame | None = None) -> pd.DataFrame:
    """Shift of each game-quality metric when each card is in the deck (games with it minus
    games without, :func:`coltsim.analysis.quality.difference`).  ``games``: the results'
    :func:`~coltsim.analysis.quality.game_quality`, if already computed.

    Returns
    -------
    DataFrame
        The columns of :func:`card_effects` (``metric`` one of quality.METRICS that the players
        table can give), one family for ``correction``.
    """
    f = as_results(results)
    gq = quality.game_quality(f) if games is None else games
    decks = card_presence(f.games).assign(setting=f.games["setting"].astype(str),
                                          game=f.games["game"].to_numpy(np.int64))
    gq = gq.assign(setting=gq["setting"].astype(str)).merge(decks, on=["setting", "game"])
    presence = gq[list(decks.columns[:-2])]
    rows = []
    for sid in setting_order(f):
        in_s = (gq["setting"] == sid).to_numpy()
        if not in_s.any():
            continue
        games = gq[in_s]
        metrics = [m for m in quality.METRICS if games[m].notna().all()]
        for card in presence.columns:
            has = presence[card].to_numpy()[in_s]
            if has.all() or not has.any():
                continue
            for m in metrics:
                e = quality.difference(games[has], games[~has], m, level)
                rows.append({"setting": sid, "card": card, "kind": _kind(card), "metric": m,
                             "description": quality.METRICS[m][0],
                             "with_card": quality.value(games[has], m),
                             "without_card": quality.value(games[~has], m),
                             "n_with": int(has.sum()), "n_without": int((~has).sum()),
                             "effect": e.estimate, "lo": e.lo, "hi": e.hi, "p_value": e.p})
    table = pd.DataFrame(rows, columns=_EFFECT_COLUMNS)
    return with_adjustment(label_columns(table, f), correction)


def card_bandit_effects(results, level: float = LEVEL, correction: str = "holm") -> pd.DataFrame:
    """Shift of each bandit's win rate when each card is in the deck, per unit (a setting, or
    one policy's seats at a mixed table).

    Returns
    -------
    DataFrame
        ``setting, label, players, policy, condition, card, kind, bandit, rate_with,
        rate_without, n_with, n_without, effect, lo, hi, p_value, p_adjusted, significant``
        (rates in 0..1).
    """
    f = as_results(results)
    p = f.players
    rows_of = player_game_rows(f)
    decks = card_presence(f.games)
    cards = list(decks.columns)
    presence = decks.to_numpy()[rows_of]  # (player rows, cards)
    share = win_share(p)
    bandit_code, _ = column_codes(p["bandit"], BANDITS)
    unit_code, units = design_of(f).unit_codes(p)
    rows = []
    for unit in units["unit"]:
        in_u = unit_code == unit
        if not in_u.any():
            continue
        codes = bandit_code[in_u]
        sh = share[in_u]
        for j, card in enumerate(cards):
            has = presence[in_u, j]
            if has.all() or not has.any():
                continue
            bins = codes * 2 + has
            n = np.bincount(bins[codes >= 0], minlength=2 * len(BANDITS)).reshape(-1, 2)
            k = np.bincount(bins[codes >= 0], weights=sh[codes >= 0],
                            minlength=2 * len(BANDITS)).reshape(-1, 2)
            for b, name in enumerate(BANDITS):
                if n[b, 0] == 0 or n[b, 1] == 0:
                    continue
                d, lo, hi = newcombe_interval(k[b, 1], n[b, 1], k[b, 0], n[b, 0], level)
                rows.append({"unit": unit, "card": card, "kind": _kind(card), "bandit": name,
                             "rate_with": k[b, 1] / n[b, 1], "rate_without": k[b, 0] / n[b, 0],
                             "n_with": int(n[b, 1]), "n_without": int(n[b, 0]),
                             "effect": float(d), "lo": float(lo), "hi": float(hi),
                             "p_value": float(two_proportion_p(k[b, 1], n[b, 1],
                                                               k[b, 0], n[b, 0]))})
    cols = ["unit", "card", "kind", "bandit", "rate_with", "rate_without", "n_with",
            "n_without", "effect", "lo", "hi", "p_value"]
    table = pd.DataFrame(rows, columns=cols)
    return with_adjustment(unit_columns(table, units), correction)


def card_position_effects(results, metrics=("mean_score",), level: float = LEVEL,
                          correction: str = "holm") -> pd.DataFrame:
    """Shift of game metrics when a round card is at position ``j`` of the deck, against the
    games without it (position as a factor).

    Returns
    -------
    DataFrame
        ``setting, label, players, card, position, metric, description, with_card,
        without_card, n_with, n_without, effect, lo, hi, p_value, p_adjusted, significant``.
    """
    f = as_results(results)
    gm = game_metrics(f)
    pos = card_position(f.games)
    k = len(round_columns(f.games))
    rows = []
    for sid in setting_order(f):
        in_s = setting_mask(gm, sid)
        if not in_s.any():
            continue
        for card in pos.columns:
            at = pos[card].to_numpy()[in_s]
            absent = at == 0
            if absent.all() or not absent.any():
                continue
            for m in metrics:
                v = gm[m].to_numpy()[in_s]
                b = v[absent]
                for j in range(1, k + 1):
                    a = v[at == j]
                    if a.size < 2:
                        continue
                    d, lo, hi, p = welch_difference(a.mean(), sample_sd(a), a.size,
                                                    b.mean(), sample_sd(b), b.size, level)
                    rows.append({"setting": sid, "card": card, "position": j, "metric": m,
                                 "description": GAME_METRICS[m][0], "with_card": a.mean(),
                                 "without_card": b.mean(), "n_with": a.size,
                                 "n_without": b.size, "effect": float(d), "lo": float(lo),
                                 "hi": float(hi), "p_value": float(p)})
    cols = ["setting", "card", "position", "metric", "description", "with_card", "without_card",
            "n_with", "n_without", "effect", "lo", "hi", "p_value"]
    table = pd.DataFrame(rows, columns=cols)
    return with_adjustment(label_columns(table, f), correction)


_EFFECT_COLUMNS = ["setting", "card", "kind", "metric", "description", "with_card",
                   "without_card", "n_with", "n_without", "effect", "lo", "hi", "p_value"]


def _kind(card: str) -> str:
    return "station" if card in STATION_CARDS else "round"
