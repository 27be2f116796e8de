"""A trace in words, for people: every step told with the bandits' names, cars by their letters
and loot by its value, what every card, event and station card did (or that it affected
nobody), with the train drawn whenever someone moved.

    coltsim show game.jsonl
    coltsim trace --seed 7 | coltsim show -
    coltsim show --every-card game.jsonl      # the train after every card

A player is named by its bandit (in the 2-player game by its two bandits, "Ghost & Doc").  The
train is drawn as a table: one column per car from the locomotive back, a row for the roofs and
one for the insides (``M`` is the Marshal, bandits by their first two letters, loot lying in a
spot as counts: ``3p 1j`` is three purses and a jewel), then what each bandit carries and its
bullets left.  An event's words come from the states before and after it (who moved, the
Marshal's move, the loot taken or lost, the neutral bullets), so a card whose effect the trace
does not spell out is still told.
"""
from __future__ import annotations

from .. import constants as K
from ..rules import CONTENT, Rules, option_text
from ..words import (
    CARD_LABELS, TURN_LABELS, and_list, bandit_label, car_label, card_label, dollars, loot_label,
    plural,
)

WIDTH = 13  # characters per car in the drawing, at least
LABEL = 8  # characters of the row labels
_LOOT_LETTER = {kind: kind[0] for kind in K.LOOT_NAMES}  # p, j, s, r


class _Game:
    """The names of one game, from its setup line."""

    def __init__(self, setup: dict):
        self.bandits = [bandit_label(b) for b in setup["bandits"]]
        self.initials = [b[:2] for b in self.bandits]
        self.teams = setup.get("teams", list(range(len(self.bandits))))
        self.players = setup["players"]
        self.cars = setup["cars"]
        self.loot = {item["id"]: item for item in setup["loot"]}

    def bandit(self, b: int) -> str:
        return self.bandits[b]

    def player(self, p: int) -> str:
        """A player by its bandit, or its two bandits in the 2-player game."""
        return " & ".join(self.bandits[b] for b, t in enumerate(self.teams) if t == p)

    def car(self, i: int) -> str:
        return car_label(self.cars[i])

    def token(self, t: int) -> str:
        item = self.loot[t]
        return loot_label(item["kind"], item["value"])

    def card(self, name: str, owner: int | None = None) -> str:
        """A card; its owner is named where it is not the player's own (bullets, 2 players)."""
        label = CARD_LABELS.get(name, name)
        if name == "bullet" and owner is not None:
            return f"{label} (neutral)" if owner == -1 else f"{label} from {self.bandits[owner]}"
        if owner is not None and self.players == 2:
            return f"{self.bandits[owner]}'s {label}"
        return label

    def cards(self, names: list[str], owners: list[int] | None) -> str:
        owners = owners if owners is not None else [None] * len(names)
        return ", ".join(self.card(n, o) for n, o in zip(names, owners)) or "nothing"


# --- the train ----------------------------------------------------------------------------------
def draw_train(state: dict, game: _Game) -> str:
    """The train as labelled rows: cars, roofs, insides, then each bandit's loot and bullets."""
    rows: dict = {"roof": [], "inside": []}
    for car in range(len(game.cars)):
        for level, row in rows.items():
            here = [game.initials[b] for b, s in enumerate(state["bandits"])
                    if s["car"] == car and s["level"] == level]
            kinds = [game.loot[t]["kind"] for t in state["spots"][f"{car}:{level}"]]
            goods = " ".join(f"{kinds.count(k)}{_LOOT_LETTER[k]}" for k in K.LOOT_NAMES
                             if kinds.count(k))
            if level == "inside" and car == state["marshal"]:
                here.insert(0, "M")
            row.append(" ".join(here + ([goods] if goods else [])))
    width = max([WIDTH] + [len(text) + 1 for row in rows.values() for text in row])
    lines = ["".ljust(LABEL) + "|" + "|".join(c.center(width) for c in game.cars),
             "-" * LABEL + "+" + "+".join("-" * width for _ in game.cars)]
    lines += [level.ljust(LABEL) + "|" + "|".join(text.ljust(width) for text in row)
              for level, row in rows.items()]
    carried, bullets = [], []
    for b, s in enumerate(state["bandits"]):
        value = sum(game.loot[t]["value"] for t in s["loot"])
        kinds = [game.loot[t]["kind"] for t in s["loot"]]
        what = ", ".join(plural(kinds.count(k), k) for k in K.LOOT_NAMES if kinds.count(k))
        carried.append(f"{game.bandit(b)} {dollars(value)}" + (f" ({what})" if what else ""))
        bullets.append(f"{game.bandit(b)} {s['bullets_left']}")
    lines.append("loot".ljust(LABEL) + "| " + "; ".join(carried))
    lines.append("bullets".ljust(LABEL) + "| left to fire: " + ", ".join(bullets))
    return "\n".join(lines)


# --- the lines ----------------------------------------------------------------------------------
def _positions(state: dict) -> tuple:
    """Where everybody is: each bandit's car and level, and the Marshal's car."""
    return tuple((b["car"], b["level"]) for b in state["bandits"]) + (state["marshal"],)


def _header(setup: dict, game: _Game) -> list[str]:
    policies = list(dict.fromkeys(setup.get("policies", [])))
    out = [f"Colt Express: seed {setup['seed']}, game {setup['game_index']}, "
           f"{setup['players']} players"
           + (f" ({', '.join(policies)} polic{'y' if len(policies) == 1 else 'ies'})"
              if policies else "")]
    who = [game.player(p) for p in range(setup["players"])]
    out.append(f"Players, clockwise: {', '.join(who)}")
    out.append(f"Train, front to back: {and_list([game.car(i) for i in range(len(game.cars))])}"
               " (a passenger car goes by its printed letter, A to F, each with its own loot; "
               "the last is the caboose)")
    rounds = [f"{i} {card_label(c)}" for i, c in enumerate(setup["round_cards"], start=1)]
    out.append(f"Round cards: {', '.join(rounds)}; station: {card_label(setup['station'])}")
    changed = _changed_options(setup.get("options", {}))
    out.append("Rules: " + ("the printed rules" if not changed else
                            "the printed rules except " + ", ".join(changed)))
    out.append("In the drawing: a column per car (loco the locomotive, then the letters), a "
               "row for the roofs and one for the insides; M the Marshal; "
               + ", ".join(f"{i} {n}" for i, n in zip(game.initials, game.bandits))
               + "; loot lying in a spot: p purse, j jewel, s strongbox, r ransom")
    return out


def _changed_options(options: dict) -> list[str]:
    printed = Rules().as_dict()

    def text(k, v):
        if isinstance(v, bool):
            return "on" if v else "off"
        if k in CONTENT:
            return str(option_text(k, v))
        if isinstance(v, list):
            return ", ".join(map(str, v)) or "none"
        return str(v)

    return [f"{k} {text(k, v)}" for k, v in options.items()
            if (k in printed and printed[k] != v) or (k in CONTENT and v)]


def _round(line: dict, game: _Game) -> list[str]:
    turns = line["turns"]
    used = [t for t in TURN_LABELS if t in turns]
    out = ["", f"=== Round {line['round']}: {card_label(line['card'])}; First Player: "
               f"{game.player(line['first_player'])} ===",
           f"Turns: {' '.join(turns)}  ("
           + ", ".join(f"{t} {TURN_LABELS[t]}" for t in used) + ")",
           "Hands:"]
    owners = line.get("hand_bandits") or [None] * len(line["hands"])
    for p, (hand, deck) in enumerate(zip(line["hands"], line["deck_sizes"])):
        out.append(f"  {game.player(p)}: {game.cards(hand, owners[p])} "
                   f"({plural(deck, 'card')} left in the deck)")
    return out


def _plan(line: dict, game: _Game, turns: list[str]) -> str:
    if line["choice"] == "play":
        what = f"plays {game.card(line['card'], line.get('bandit'))} face {line['face']}"
    elif line["choice"] == "draw":
        what = f"draws {game.cards(line['drawn'], line.get('drawn_bandits'))}"
    else:
        what = "passes (nothing to play or draw)"
    letter = turns[line["turn"]] if line["turn"] < len(turns) else "?"
    return f"  turn {line['turn'] + 1} ({letter})  {game.player(line['player'])}: {what}"


def _action(line: dict, game: _Game, before: dict) -> str:
    card, params, b = line["card"], line["params"], line["bandit"]
    was = before["bandits"][b]
    if card == "move":
        how = "along the roofs" if was["level"] == "roof" else "inside"
        text = f"moves {how} to {game.car(params['to_car'])}"
    elif card == "floor":
        text = "climbs to the roof" if was["level"] == "inside" else "goes down inside"
    elif card == "marshal":
        text = f"moves the Marshal to {game.car(params['to_car'])}"
    elif card == "fire":
        if params.get("target") is None:
            text = ("cannot fire: no bullet left" if was["bullets_left"] == 0
                    else "fires at nobody: no bandit in the line of fire")
        else:
            target = game.bandit(params["target"])
            text = f"fires at {target}: a bullet card from {game.bandit(b)} goes into " \
                   f"{target}'s deck"
            if params.get("pushed_to") is not None:
                text += f", and {target} is pushed to {game.car(params['pushed_to'])}"
    elif card == "rob":
        text = (f"takes a {game.token(params['token'])}" if params.get("token") is not None
                else "robs nothing: no loot here")
    elif card == "punch":
        if params.get("target") is None:
            text = "punches nobody: no other bandit here"
        else:
            text = f"punches {game.bandit(params['target'])}"
            if params.get("dropped") is not None:
                token = game.token(params["dropped"])
                text += (f", takes a {token} from them" if params.get("taken")
                         else f", who drops a {token}")
            else:
                text += ", who has no loot to drop"
            if params.get("to_car") is not None:
                text += f", and pushes them to {game.car(params['to_car'])}"
    else:  # a card this version does not know: its parameters as they are
        text = f"{card} {params}"
    if not line["effect"] and card not in ("fire", "rob", "punch"):
        text += " (no effect)"
    return f"{game.bandit(b)}'s {CARD_LABELS.get(card, card)}: {text}"


_EVENT_VERBS = {"taken": "takes", "lost": "loses", "ransom": "receives"}
# What each event and station card does (docs/RULES.md 8), said before what it did.
EVENT_RULES = {
    "angry_marshal": "the Marshal fires at the bandits on the roof of his car, then moves one "
                     "car back",
    "swivel_arm": "every bandit on a roof is swept to the caboose's roof",
    "braking": "every bandit on a roof moves one car forward",
    "take_it_all": "the second strongbox is placed inside the Marshal's car",
    "passengers_rebellion": "every bandit inside a car receives a neutral bullet",
    "pickpocketing": "a bandit alone on its spot may take a purse lying there",
    "marshals_revenge": "every bandit on the roof of the Marshal's car loses its least "
                        "valuable purse",
    "hostage_taking": "every bandit at the locomotive, inside or on the roof, gains a ransom",
}
NOBODY = "  it affects nobody"


def _spot(car: int, level: str, game: _Game) -> str:
    return f"{'the roof of' if level == 'roof' else 'inside'} {game.car(car)}"


def _event(line: dict, game: _Game, before: dict) -> list[str]:
    rule = EVENT_RULES.get(line["name"])
    out = [f"Event: {card_label(line['name'])}" + (f" ({rule})" if rule else "")]
    after = line["state"]
    sent_up = set(line.get("marshal_hits") or [])
    for b, (was, now) in enumerate(zip(before["bandits"], after["bandits"])):
        moved = (was["car"], was["level"]) != (now["car"], now["level"])
        only_fled = b in sent_up and was["car"] == now["car"]  # told by the Marshal's line
        if moved and not only_fled:
            out.append(f"  {game.bandit(b)} moves from {_spot(was['car'], was['level'], game)}"
                       f" to {_spot(now['car'], now['level'], game)}")
    if before["marshal"] != after["marshal"]:
        out.append(f"  the Marshal moves from {game.car(before['marshal'])} to "
                   f"{game.car(after['marshal'])}")
    for key, verb in _EVENT_VERBS.items():
        for b, token in line["params"].get(key, {}).items():
            out.append(f"  {game.bandit(int(b))} {verb} a {game.token(token)}")
    token = line["params"].get("token")
    if token is not None:
        where = [spot for spot, tokens in line["state"]["spots"].items() if token in tokens]
        place = ""
        if where:
            car, level = where[0].split(":")
            place = f" {'on the roof of' if level == 'roof' else 'inside'} {game.car(int(car))}"
        out.append(f"  a {game.token(token)} comes into play{place}")
    return out


def _hits(line: dict, game: _Game, before: dict) -> list[str]:
    """The Marshal rule and the neutral bullets of a step (and their running out)."""
    out = []
    if line.get("marshal_hits"):
        out.append(f"  the Marshal sends {and_list([game.bandit(b) for b in line['marshal_hits']])}"
                   " to the roof")
    given = line.get("neutral_given") or []
    if given:
        names = and_list([game.bandit(b) for b in given])
        out.append(f"  {names} receive{'s' if len(given) == 1 else ''} a neutral bullet"
                   + (" each" if len(given) > 1 else ""))
    left, now = before.get("neutral_left", -1), line["state"].get("neutral_left", -1)
    gone = left - now - len(given)
    if now >= 0 and gone > 0:
        out.append(f"  the neutral bullets run out: too few to go round, the last "
                   f"{plural(gone, 'neutral bullet')} leave{'s' if gone == 1 else ''} the game")
    return out


def _end(line: dict, game: _Game) -> list[str]:
    out = ["", "=== End ==="]
    shared = " (shared)" if len(line.get("winners", [])) > (2 if game.players == 2 else 1) \
        else ""
    if game.players == 2:
        by_team: dict = {}
        for s in line["scores"]:
            by_team.setdefault(s["team"], []).append(s)
        received = {t: sum(_received(s) for s in ss) for t, ss in by_team.items()}
        teams = [(game.player(t["team"]), t["score"], t["rank"], received[t["team"]])
                 for t in line["teams"]]
        for t in sorted(line["teams"], key=lambda t: (t["rank"], t["team"])):
            parts = ", ".join(f"{game.bandit(s['bandit'])} {dollars(s['loot'])}"
                              for s in by_team[t["team"]])
            me = (game.player(t["team"]), t["score"], t["rank"], received[t["team"]])
            out.append(f"  {game.player(t['team'])}: {dollars(t['score'])} ({parts}), "
                       f"rank {t['rank']}{', wins' + shared if t['win'] else ''}"
                       + _tie(me, teams))
        return out
    width = max(len(n) for n in game.bandits)
    players = [(game.bandit(s["bandit"]), s["score"], s["rank"], _received(s))
               for s in line["scores"]]
    for s in sorted(line["scores"], key=lambda s: (s["rank"], s["bandit"])):
        how = f" (loot {dollars(s['loot'])} + Gunslinger {dollars(s['bonus'])})" \
            if s["gunslinger"] and s["bonus"] else " in loot"
        me = (game.bandit(s["bandit"]), s["score"], s["rank"], _received(s))
        out.append(f"  {game.bandit(s['bandit']).ljust(width)}  {dollars(s['score'])}{how}, "
                   f"rank {s['rank']}{', wins' + shared if s['win'] else ''}" + _tie(me, players))
    return out


def _received(score: dict) -> int:
    """The bullet cards a bandit received, from bandits and neutral: the tie-break's count."""
    return score["bullets_received"] + score.get("neutral_received", 0)


def _tie(me: tuple, everybody: list) -> str:
    """How a tie on the score was broken (RULES.md 9: fewer bullet cards received rank first;
    as many share the rank), for ``me`` among ``everybody``: each (name, score, rank, bullet
    cards received)."""
    name, score, rank, received = me
    others = [o for o in everybody if o[1] == score and o[0] != name]
    if not others:
        return ""
    parts = []
    for word, group in (("behind", [o for o in others if o[2] < rank]),
                        ("ahead of", [o for o in others if o[2] > rank])):
        if group:
            parts.append(f"{word} {and_list([o[0] for o in group])} on the tie-break, "
                         f"{plural(received, 'bullet card')} received against "
                         f"{and_list([str(o[3]) for o in group])}")
    same = [o[0] for o in others if o[2] == rank]
    if same:
        parts.append(f"sharing the rank with {and_list(same)}: as many bullet cards received")
    return f" (tied on {dollars(score)}: " + "; ".join(parts) + ")"


def render(lines: list[dict], every_card: bool = False) -> str:
    """The whole trace as text; the train is drawn after every step that moved someone (a
    bandit or the Marshal), or after every step with ``every_card``, and at the end."""
    setup = lines[0]
    game = _Game(setup)
    out = _header(setup, game) + ["", draw_train(setup["state"], game)]
    state = drawn = setup["state"]
    turns: list[str] = []
    phase = None
    for line in lines[1:]:
        kind = line["type"]
        if kind == "round":
            out += _round(line, game)
            turns, phase = line["turns"], "round"
        elif kind in ("plan", "discard"):
            if phase != "schemin":
                out.append("Schemin':")
                phase = "schemin"
            if kind == "plan":
                out.append(_plan(line, game, turns))
            else:
                when = "before" if line["when"] == "start" else "after"
                out.append(f"  {game.player(line['player'])}: discards "
                           f"{game.card(line['card'], line.get('bandit'))} ({when} Schemin')")
        elif kind in ("action", "event"):
            if kind == "action":
                if phase != "stealin":
                    out += ["", "Stealin':"]
                    phase = "stealin"
                out += ["", _action(line, game, state)] + _hits(line, game, state)
            else:
                told = _event(line, game, state) + _hits(line, game, state)
                out += [""] + told + ([NOBODY] if len(told) == 1 else [])
            if every_card or _positions(line["state"]) != _positions(state):
                out.append(draw_train(line["state"], game))
                drawn = line["state"]
            state = line["state"]
        elif kind == "end":
            if drawn is not state:
                out += ["", "The train at the end:", draw_train(state, game)]
            out += _end(line, game)
    return "\n".join(out)
