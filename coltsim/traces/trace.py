"""Game traces (docs/TRACE.md): play one game with the kernel's recorder on and turn its records
into the JSON Lines of the public trace format."""
from __future__ import annotations

import json
from typing import IO

import numpy as np

from .. import constants as K
from ..engine import log as L
from ..engine.scoring import (
    RB_BONUS, RB_GUNSLINGER, RB_LOOT, RB_N, RB_NEUTRAL, RB_RANK, RB_RECEIVED, RB_SCORE,
    RB_SHOTS, RB_TEAM, RB_TEAM_SCORE, RB_WIN, RG_FAIL, RG_N,
)
from ..engine.state import G_FIRST_FIRST, L_KIND, L_VALUE, init_table
from ..engine.check import CHECK_NAMES
from .._jit import announce_compile
from .._process import interruptible
from ..playout import kernel_parts, new_kernel_states, traced_kernel
from ..runs.chunk import resolve_seats
from ..runs.options import check_seed
from ..setting import Setting

LOG_ROWS = 4096


def _bandit_list(mask: int, n: int) -> list[int]:
    return [b for b in range(n) if mask >> b & 1]


def _card_name(card: int) -> str:
    return K.CARD_NAMES[card & K.CARD_KIND_MASK]


def _card_bandit(card: int) -> int:
    """The card's colour (docs/TRACE.md "Card colours"): the bandit an action card belongs to, the
    shooter of a bullet card, -1 for a neutral bullet."""
    owner = int(card) >> K.CARD_OWNER_SHIFT
    return -1 if owner == K.NEUTRAL else owner


def _cards(cards) -> tuple[list[str], list[int]]:
    """Card names and their colours, parallel lists (``hands``/``hand_bandits``, ...)."""
    return [_card_name(c) for c in cards], [_card_bandit(c) for c in cards]


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
        # The ids of setup.loot: the engine keeps MAX_BANDITS ransom tokens, one per bandit
        # of any game, but a game lists (and places) only its own bandits' ransoms; and the
        # extra jewels a designer's cars hold (those with a value).
        extra = range(K.FIRST_EXTRA_JEWEL, K.N_LOOT)
        self.tokens = np.array(list(range(K.FIRST_RANSOM + bandits))
                               + [t for t in extra if st.loot[t, L_VALUE] > 0], np.int64)
        self.unused = np.setdiff1d(np.arange(K.N_LOOT), self.tokens)

    def state(self, row) -> dict:
        s = row[L.R_SNAP:]
        loot_where = row[L.SNAP_LOOT + self.tokens]
        if (row[L.SNAP_LOOT + self.unused] != K.IN_BOX).any():
            raise RuntimeError("a token not in the game left the box")
        bandits = []
        for b in range(self.bandits):
            car, level, left, received, neutral = (int(x) for x in s[2 + L.SNAP_B * b:2 + L.SNAP_B * (b + 1)])
            bandits.append({
                "car": car, "level": K.LEVEL_NAMES[level],
                "loot": [int(t) for t, w in zip(self.tokens, loot_where) if w == K.AT_BANDIT + b],
                "bullets_left": left, "bullets_received": received, "neutral_received": neutral,
            })
        spots = {}
        for car in range(self.n_cars + 1):
            for level in (K.INSIDE, K.ROOF):
                spot = 2 * car + level
                spots[f"{car}:{K.LEVEL_NAMES[level]}"] = [
                    int(t) for t, w in zip(self.tokens, loot_where) if w == spot]
        return {
            "marshal": int(s[0]),
            "bandits": bandits,
            "spots": spots,
            "box": [int(t) for t, w in zip(self.tokens, loot_where) if w == K.IN_BOX],
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


def trace_game(setting: Setting, seed: int = 0, game_index: int = 0) -> list[dict]:
    """Play one game and return its trace: a list of JSON-ready dicts, one per line of
    docs/TRACE.md.

    Parameters
    ----------
    setting : Setting
        What is played (``coltsim.make_setting``), with built-in policies.
    seed, game_index : int
        The game: game ``game_index`` of master seed ``seed``, the game a run of ``setting``
        with this seed plays at that index.
    """
    from .. import __version__

    seed = check_seed(seed)
    game_index = check_seed(game_index, "game_index")
    players, rules, n_bandits = setting.players, setting.rules, setting.n_bandits
    lineups = setting.lineups()
    lineup = lineups[game_index % len(lineups)]
    seats = resolve_seats(setting)
    states = new_kernel_states()  # the game, and its players' observation scratch
    st = states[0]
    init_table(st, players, rules.to_array(), seats.seat_policy, seats.params)
    out_b = np.zeros((n_bandits, RB_N), np.int32)
    out_g = np.zeros(RG_N, np.int32)
    log = np.zeros((LOG_ROWS, L.LOG_W), np.int64)
    def play():  # (compiling the kernel first, on a first use)
        return traced_kernel(seats.choosers, seats.functions)(states, seed, game_index, lineup,
                                                              seats.nets, log, out_b, out_g)

    with announce_compile(kernel_parts("traced", seats.choosers)):
        n_rows = interruptible(play)  # a long search's game, or a compile, stops at Ctrl-C
    if n_rows > LOG_ROWS:  # pragma: no cover - a game has a few hundred records
        raise RuntimeError("trace buffer overflow")
    if out_g[RG_FAIL]:
        raise RuntimeError(f"engine invariant broken: {CHECK_NAMES[out_g[RG_FAIL]]} "
                           f"(seed {seed}, game {game_index}); please report this game")
    log = log[:n_rows]
    dec = _Decoder(st, players, n_bandits)
    characters = [K.BANDIT_NAMES[c] for c in st.bandit[:n_bandits, 0]]
    teams = [int(t) for t in st.bandit[:n_bandits, 1]]
    n_rounds = rules.rounds
    rounds = [rules.card_name(c) for c in st.rounds[:n_rounds]]
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
                "loot": [{"id": int(t), "kind": K.LOOT_NAMES[st.loot[t, L_KIND]],
                          "value": int(st.loot[t, L_VALUE])} for t in dec.tokens],
                "state": dec.state(row),
            })
        elif rec == L.REC_ROUND:
            card = int(row[L.R_CARD])
            pending_hands = {"type": "round", "round": rnd, "card": rules.card_name(card),
                             "turns": rules.card_turns(card, players),
                             "first_player": int(row[L.R_PLAYER]), "hands": [], "deck_sizes": [],
                             "hand_bandits": []}
            lines.append(pending_hands)
        elif rec == L.REC_HAND:
            names, colours = _cards(row[L.R_SNAP:L.R_SNAP + int(row[L.R_P0 + 1])])
            pending_hands["hands"].append(names)
            pending_hands["deck_sizes"].append(int(row[L.R_P0]))
            pending_hands["hand_bandits"].append(colours)
        elif rec == L.REC_PLAN:
            line = {"type": "plan", "round": rnd, "turn": int(row[L.R_INDEX]),
                    "player": int(row[L.R_PLAYER])}
            choice = int(row[L.R_P0])
            if choice == L.PLAN_PLAY:
                line.update(choice="play", card=_card_name(row[L.R_CARD]),
                            face="down" if row[L.R_P0 + 1] else "up", bandit=int(row[L.R_BANDIT]))
            elif choice == L.PLAN_DRAW:
                names, colours = _cards(row[L.R_P0 + 3:L.R_P0 + 3 + int(row[L.R_P0 + 2])])
                line.update(choice="draw", drawn=names, drawn_bandits=colours)
            else:
                line.update(choice="pass")
            lines.append(line)
        elif rec == L.REC_DISCARD:
            lines.append({"type": "discard", "round": rnd,
                          "when": "start" if row[L.R_INDEX] == 0 else "end",
                          "player": int(row[L.R_PLAYER]), "bandit": _card_bandit(row[L.R_CARD]),
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
                params["token"] = _opt(row[L.R_P0 + 6])
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
