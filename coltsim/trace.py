"""Game traces (TRACE.md): play one game with the kernel's recorder on and turn its records
into the JSON Lines of the public trace format."""
from __future__ import annotations

import json
from typing import IO

import numpy as np

from . import constants as K
from ._jit import njit
from .engine import flow, log as L
from .engine.play import play_one
from .engine.scoring import (
    RB_BONUS, RB_GUNSLINGER, RB_LOOT, RB_N, RB_NEUTRAL, RB_RANK, RB_RECEIVED, RB_SCORE,
    RB_SHOTS, RB_TEAM, RB_TEAM_SCORE, RB_WIN, RG_FAIL, RG_N,
)
from .engine.state import G_FIRST_FIRST, G_LOG_N, L_KIND, L_VALUE, new_state
from .engine.check import CHECK_NAMES
from .policies import POLICY_NAMES, resolve_policies
from .rules import Rules
from .setting import (
    bandits_per_player, check_players, check_rules, check_seed, lineup_codes,
)

LOG_ROWS = 4096


@njit
def _play_traced(st, seed, game_index, lineup, out_b, out_g):
    play_one(st, seed, game_index, lineup, 1, out_b, out_g)


def _bandit_list(mask: int, n: int) -> list[int]:
    return [b for b in range(n) if mask >> b & 1]


def _card_name(card: int) -> str:
    return K.CARD_NAMES[card & K.CARD_KIND_MASK]


def _opt(v: int):
    """-1 (none) as JSON null."""
    v = int(v)
    return None if v < 0 else v


class _Decoder:
    """Turns log rows into trace lines; knows the game's sizes."""

    def __init__(self, st, players: int, bandits: int):
        self.players = players
        self.bandits = bandits
        self.n_cars = 4 if players == 2 else players

    def state(self, row) -> dict:
        s = row[L.R_SNAP:]
        loot_where = row[L.SNAP_LOOT:L.SNAP_LOOT + K.N_LOOT]
        bandits = []
        for b in range(self.bandits):
            car, level, left, received, neutral = (int(x) for x in s[2 + L.SNAP_B * b:2 + L.SNAP_B * (b + 1)])
            bandits.append({
                "car": car, "level": K.LEVEL_NAMES[level],
                "loot": [t for t in range(K.N_LOOT) if loot_where[t] == K.AT_BANDIT + b],
                "bullets_left": left, "bullets_received": received, "neutral_received": neutral,
            })
        spots = {}
        for car in range(self.n_cars + 1):
            for level in (K.INSIDE, K.ROOF):
                spot = 2 * car + level
                spots[f"{car}:{K.LEVEL_NAMES[level]}"] = [t for t in range(K.N_LOOT) if loot_where[t] == spot]
        return {
            "marshal": int(s[0]),
            "bandits": bandits,
            "spots": spots,
            "box": [t for t in range(K.N_LOOT) if loot_where[t] == K.IN_BOX],
            "neutral_left": _opt(s[1]),
        }

    def hits(self, row) -> dict:
        return {"marshal_hits": _bandit_list(int(row[L.R_HITS]), self.bandits),
                "neutral_given": _bandit_list(int(row[L.R_GIVEN]), self.bandits)}


def _action_params(kind: int, p) -> dict:
    target, to_car, token, taken, pushed = (int(x) for x in p[:5])
    if kind in (K.MOVE, K.MARSHAL):
        return {"to_car": _opt(to_car)}
    if kind == K.FLOOR:
        return {}
    if kind == K.FIRE:
        return {"target": _opt(target), "pushed_to": _opt(pushed)}
    if kind == K.ROB:
        return {"token": _opt(token)}
    return {"target": _opt(target), "dropped": _opt(token), "taken": bool(taken),
            "to_car": _opt(to_car)}


_EVENT_PARAM = {K.PICKPOCKETING: "taken", K.MARSHALS_REVENGE: "lost", K.HOSTAGE_TAKING: "ransom"}


def trace_game(players: int = 4, seed: int = 0, game_index: int = 0, bandits=None,
               policies=None, rules: Rules | dict | None = None) -> list[dict]:
    """Play one game and return its trace: a list of JSON-ready dicts, one per line of TRACE.md.

    Parameters
    ----------
    players : int
        3 to 6, or 2 for the two-bandit variant.
    seed, game_index : int
        The game played is fully determined by these (and the other arguments).
    bandits : list of str or comma-separated str, optional
        One bandit per seat (two per player with 2 players); ``"random"`` or None draws them.
    policies : str or list of str, optional
        One policy name for every player, or one per player (default
        ``coltsim.policies.DEFAULT``).
    rules : Rules or dict, optional
        Rule options (default: ``Rules()``).
    """
    from . import __version__

    players = check_players(players)
    seed = check_seed(seed)
    game_index = check_seed(game_index, "game_index")
    lineup = lineup_codes(players, bandits)
    seats = resolve_policies(players, policies)
    if seats.functions:
        raise ValueError("traces are played with built-in policies only; allowed: "
                         f"{', '.join(POLICY_NAMES)}")
    rules = check_rules(rules, players)
    n_bandits = players * bandits_per_player(players)

    st = new_state(players, n_bandits, rules.to_array(), LOG_ROWS)
    st.seat_policy[:] = seats.seat_policy
    st.params[:, :] = seats.params
    out_b = np.zeros((n_bandits, RB_N), np.int32)
    out_g = np.zeros(RG_N, np.int32)
    _play_traced(st, seed, game_index, lineup, out_b, out_g)
    n_rows = int(st.game[G_LOG_N])
    if n_rows >= LOG_ROWS:  # pragma: no cover - a game has a few hundred records
        raise RuntimeError("trace buffer overflow")
    if out_g[RG_FAIL]:
        raise RuntimeError(f"engine invariant broken: {CHECK_NAMES[out_g[RG_FAIL]]} "
                           f"(seed {seed}, game {game_index}); please report this game")
    log = st.log[:n_rows].copy()
    dec = _Decoder(st, players, n_bandits)
    characters = [K.BANDIT_NAMES[c] for c in st.bandit[:, 0]]
    teams = [int(t) for t in st.bandit[:, 1]]
    n_rounds = rules.rounds
    rounds = [K.ROUND_CARD_NAMES[c] for c in st.rounds[:n_rounds]]
    lines: list[dict] = []
    pending_hands: dict = {}
    for row in log:
        rec = int(row[L.R_TYPE])
        rnd = int(row[L.R_ROUND]) + 1
        if rec == L.REC_SETUP:
            lines.append({
                "type": "setup", "rules_version": K.RULES_VERSION, "coltsim_version": __version__,
                "seed": seed, "game_index": game_index, "options": rules.as_dict(),
                "players": players, "bandits": characters, "teams": teams,
                "policies": list(seats.names),
                "cars": [K.CAR_NAMES[c] for c in st.cars[:dec.n_cars + 1]],
                "round_cards": rounds[:-1], "station": rounds[-1],
                "first_player": int(st.game[G_FIRST_FIRST]),
                "loot": [{"id": t, "kind": K.LOOT_NAMES[st.loot[t, L_KIND]],
                          "value": int(st.loot[t, L_VALUE])} for t in range(K.N_LOOT)
                         if t < K.FIRST_RANSOM + n_bandits],
                "state": dec.state(row),
            })
        elif rec == L.REC_ROUND:
            card = int(row[L.R_CARD])
            turns = flow.ROUND_TURNS[card, 1 if players >= 5 else 0]
            pending_hands = {"type": "round", "round": rnd, "card": K.ROUND_CARD_NAMES[card],
                             "turns": [K.TURN_LETTERS[t] for t in turns if t >= 0],
                             "first_player": int(row[L.R_PLAYER]), "hands": [], "deck_sizes": []}
            lines.append(pending_hands)
        elif rec == L.REC_HAND:
            n = int(row[L.R_P0 + 1])
            cards = row[L.R_SNAP:L.R_SNAP + n]
            pending_hands["hands"].append([_card_name(c) for c in cards])
            pending_hands["deck_sizes"].append(int(row[L.R_P0]))
            if players == 2:
                pending_hands.setdefault("hand_bandits", []).append(
                    [int(c) >> K.CARD_OWNER_SHIFT for c in cards])
        elif rec == L.REC_PLAN:
            line = {"type": "plan", "round": rnd, "turn": int(row[L.R_INDEX]),
                    "player": int(row[L.R_PLAYER])}
            choice = int(row[L.R_P0])
            if choice == L.PLAN_PLAY:
                line.update(choice="play", card=_card_name(row[L.R_CARD]),
                            face="down" if row[L.R_P0 + 1] else "up", bandit=int(row[L.R_BANDIT]))
            elif choice == L.PLAN_DRAW:
                n = int(row[L.R_P0 + 2])
                line.update(choice="draw",
                            drawn=[_card_name(c) for c in row[L.R_P0 + 3:L.R_P0 + 3 + n]])
            else:
                line.update(choice="pass")
            lines.append(line)
        elif rec == L.REC_DISCARD:
            lines.append({"type": "discard", "round": rnd,
                          "when": "start" if row[L.R_INDEX] == 0 else "end",
                          "player": int(row[L.R_PLAYER]), "bandit": int(row[L.R_BANDIT]),
                          "card": _card_name(row[L.R_CARD])})
        elif rec == L.REC_ACTION:
            kind = int(row[L.R_CARD])
            lines.append({"type": "action", "round": rnd, "index": int(row[L.R_INDEX]),
                          "player": int(row[L.R_PLAYER]), "bandit": int(row[L.R_BANDIT]),
                          "card": K.CARD_NAMES[kind],
                          "params": _action_params(kind, row[L.R_P0:L.R_P0 + 5]),
                          "effect": bool(row[L.R_EFFECT]), **dec.hits(row),
                          "state": dec.state(row)})
        elif rec == L.REC_EVENT:
            ev = int(row[L.R_CARD])
            params: dict = {}
            if ev in _EVENT_PARAM:
                tokens = row[L.R_P0:L.R_P0 + n_bandits]
                params[_EVENT_PARAM[ev]] = {str(b): int(t) for b, t in enumerate(tokens) if t >= 0}
            elif ev == K.TAKE_IT_ALL:
                params["token"] = int(row[L.R_P0 + 6])
            lines.append({"type": "event", "round": rnd, "name": K.ROUND_CARD_NAMES[ev],
                          "params": params, **dec.hits(row), "state": dec.state(row)})
    lines.append(_end_line(out_b, players))
    return lines


def _end_line(out_b, players: int) -> dict:
    scores = []
    for b, r in enumerate(out_b):
        scores.append({
            "bandit": b, "team": int(r[RB_TEAM]), "loot": int(r[RB_LOOT]),
            "gunslinger": bool(r[RB_GUNSLINGER]), "bonus": int(r[RB_BONUS]),
            "score": int(r[RB_SCORE]), "shots": int(r[RB_SHOTS]),
            "bullets_received": int(r[RB_RECEIVED]), "neutral_received": int(r[RB_NEUTRAL]),
            "rank": int(r[RB_RANK]), "win": bool(r[RB_WIN]),
        })
    teams = []
    for team in range(players):
        r = out_b[out_b[:, RB_TEAM] == team][0]
        teams.append({"team": team, "score": int(r[RB_TEAM_SCORE]), "rank": int(r[RB_RANK]),
                      "win": bool(r[RB_WIN])})
    return {"type": "end", "scores": scores, "teams": teams,
            "winners": [s["bandit"] for s in scores if s["win"]]}


def write_trace(lines: list[dict], out: IO[str]) -> None:
    for line in lines:
        out.write(json.dumps(line, separators=(", ", ": ")) + "\n")


def read_trace(path) -> list[dict]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
