"""Check a game trace against docs/TRACE.md: fields and types of every line, a legal state on every
line, and each state explained by the one before it and the step between them.

    lines = read_trace("game.jsonl")   # TraceError unless the file is one whole trace
    problems = check_trace(lines)      # [] when the trace is consistent

The replay is independent of the engine: it re-applies each action's reported parameters to the
previous state and compares, so a user can check a trace coltsim wrote (or one they edited).

Loot: every id of every state (box, spots, bandits' loot) and of action and event params is one
``setup.loot`` lists, and every listed token is in exactly one place.

Cards (``_Cards``): every player's cards are followed with their colours (the bandit of an
action card, the shooter of a bullet card, -1 for a neutral bullet), from the starting decks
(10 cards per bandit; the 2-player team's 11) through each zone:
- a round's hands are the kept hand (advanced rules) plus cards from the deck, as many as the
  hand size (Doc's bonus included) allows, and ``deck_sizes`` counts what is left;
- a draw takes ``draw_count`` cards (fewer only from a short deck, none from an empty one) that
  the deck holds; under the advanced rules the bullet cards received lie on top, so they are
  drawn first, last received first, and the discard pile becomes the deck only when it is empty;
- a play is a non-bullet card of the hand, of a bandit of the player's team, face down on a
  tunnel turn and otherwise only for a Ghost card on the first turn; a pass happens only with no
  action card in hand and nothing to draw; a discard (advanced rules) is a card of the hand, at
  the start of Schemin' or after its plans;
- the i-th action of a round resolves the i-th card played (player, bandit and card), every card
  played is resolved, and it goes back to the deck (to the discard pile with the advanced rules);
- a Fire that had a bullet puts a bullet card of the shooter in the deck of its target's player,
  each bandit of ``neutral_given`` a neutral one in its player's deck; later draws and hands
  must show them with that shooter.

Turns (``_TurnOrder``): the First Player of each round, and every plan in its place in the turn
order of the round card (clockwise from the First Player, counter-clockwise on a switching turn,
twice each on a speeding-up turn), none missing.

What it cannot see: which cards a shuffle put where (any card of a shuffled deck may be the one
drawn, so two cards both in the deck can be swapped unnoticed), whether a choice was among the
legal ones (a Move's distance, a Fire's line of sight and Belle, when Ghost's ability is lost),
and what events other than their bullets do.
"""
from __future__ import annotations

import copy
import json
from collections import Counter

from .. import constants as K
from ..setting import MAX_PLAYERS, MIN_PLAYERS
from ..words import did_you_mean

_FIELDS = {
    "setup": {"rules_version": str, "coltsim_version": str, "seed": int, "game_index": int,
              "options": dict, "players": int, "bandits": list, "teams": list, "policies": list,
              "cars": list, "round_cards": list, "station": str, "first_player": int,
              "loot": list, "state": dict},
    "round": {"round": int, "card": str, "turns": list, "first_player": int, "hands": list,
              "deck_sizes": list, "hand_bandits": list},
    "plan": {"round": int, "turn": int, "player": int, "choice": str},
    "discard": {"round": int, "when": str, "player": int, "bandit": int, "card": str},
    "action": {"round": int, "index": int, "player": int, "bandit": int, "card": str,
               "params": dict, "effect": bool, "marshal_hits": list, "neutral_given": list,
               "state": dict},
    "event": {"round": int, "name": str, "params": dict, "marshal_hits": list,
              "neutral_given": list, "state": dict},
    "end": {"scores": list, "teams": list, "winners": list},
}
# A plan line's fields by its choice.
_CHOICE_FIELDS = {"play": {"card": str, "face": str, "bandit": int},
                  "draw": {"drawn": list, "drawn_bandits": list}, "pass": {}}
_PARAMS = {"move": {"to_car"}, "floor": set(), "fire": {"target", "pushed_to"}, "rob": {"token"},
           "punch": {"target", "dropped", "taken", "to_car"}, "marshal": {"to_car"}}
_BANDIT_FIELDS = ("car", "level", "loot", "bullets_left", "bullets_received", "neutral_received")
# The names a line may hold, by (type, field): a value outside them is no game coltsim plays.
_ROUNDS = K.ROUND_CARD_NAMES[:K.N_ROUND_CARDS]
_STATIONS = K.ROUND_CARD_NAMES[K.FIRST_STATION:K.FIRST_STATION + K.N_STATION_CARDS]
_NAMES = {
    ("setup", "bandits"): K.BANDIT_NAMES, ("setup", "cars"): K.CAR_NAMES,
    ("setup", "round_cards"): _ROUNDS, ("setup", "station"): _STATIONS,
    ("round", "card"): K.ROUND_CARD_NAMES, ("round", "turns"): K.TURN_LETTERS,
    ("round", "hands"): K.CARD_NAMES, ("plan", "card"): K.CARD_NAMES,
    ("plan", "face"): ("up", "down"), ("plan", "drawn"): K.CARD_NAMES,
    ("discard", "card"): K.CARD_NAMES, ("action", "card"): K.CARD_NAMES[:K.BULLET],
    ("event", "name"): K.ROUND_CARD_NAMES,
}


_CARD_FIELDS = {("setup", "round_cards"), ("setup", "station"), ("round", "card")}


class _Checker:
    def __init__(self, lines):
        self.lines = lines
        self.problems: list[str] = []
        self.at = 0  # the index of the line being checked
        # a designer's cards (setup.options.new_cards) by name
        setup = lines[0] if lines and isinstance(lines[0], dict) else {}
        options = setup.get("options")
        cards = options.get("new_cards") if isinstance(options, dict) else None
        self.new_cards = {c.get("name"): c for c in cards if isinstance(c, dict)} \
            if isinstance(cards, list) else {}
        # each bandit's bullet cards at setup (setup.options.bullets; printed: 6)
        loaded = options.get("bullets") if isinstance(options, dict) else None
        loaded = loaded if isinstance(loaded, dict) else {}
        self.loaded = [loaded.get(name, K.BULLETS_PER_BANDIT) for name in setup.get("bandits", [])
                       if isinstance(name, str)] if isinstance(setup.get("bandits"), list) else []

    def fail(self, i: int, text: str) -> None:
        self.problems.append(f"line {i + 1}: {text}")

    # --- shape --------------------------------------------------------------------------------
    def fields(self, i, line) -> bool:
        kind = line.get("type")
        if not isinstance(kind, str) or kind not in _FIELDS:
            self.fail(i, f"unknown type {kind!r}{did_you_mean(kind, _FIELDS)}")
            return False
        ok = self.typed(i, kind, line, _FIELDS[kind])
        if ok and kind == "plan":
            if line["choice"] not in _CHOICE_FIELDS:
                self.fail(i, f"plan.choice should be one of {sorted(_CHOICE_FIELDS)}"
                             f"{did_you_mean(line['choice'], _CHOICE_FIELDS)}")
                return False
            ok = self.typed(i, kind, line, _CHOICE_FIELDS[line["choice"]])
        return ok and self.named(i, kind, line) and (kind != "setup" or self.counted(line))

    def named(self, i, kind, line) -> bool:
        """Every name of the line one docs/TRACE.md lists (a bandit, card, round card...), or
        a designer's card the setup's options define (new_cards)."""
        for (of, name), allowed in _NAMES.items():
            if of != kind or name not in line:
                continue
            if (of, name) in _CARD_FIELDS:
                allowed = allowed + tuple(self.new_cards)
            value = line[name]
            values = value if isinstance(value, list) else [value]
            flat = [v for x in values for v in (x if isinstance(x, list) else [x])]
            unknown = [v for v in flat if v not in allowed]
            if unknown:
                self.fail(i, f"{kind}.{name}: unknown {unknown[0]!r}; allowed: "
                             f"{', '.join(allowed)}{did_you_mean(unknown[0], allowed)}")
                return False
        return True

    def counted(self, setup) -> bool:
        """The setup line's counts agree: 2 to 6 players, one bandit per player (two each at
        2 players), each with its player in ``teams``, one policy per player, a First Player
        among them, distinct cars behind the locomotive."""
        players, bandits, teams = setup["players"], setup["bandits"], setup["teams"]
        wanted = 2 * players if players == 2 else players
        problem = None
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            problem = f"players is {players}; coltsim plays {MIN_PLAYERS} to {MAX_PLAYERS}"
        elif len(bandits) != wanted or len(set(bandits)) != len(bandits):
            problem = (f"{players} players need {wanted} different bandits, bandits lists "
                       f"{len(bandits)}: {', '.join(map(str, bandits))}")
        elif len(teams) != wanted or sorted(set(teams)) != list(range(players)):
            problem = f"teams {teams} does not give each of the {players} players its bandits"
        elif len(setup["policies"]) != players:
            problem = f"{players} players need {players} policies, got {len(setup['policies'])}"
        elif not 0 <= setup["first_player"] < players:
            problem = f"first_player {setup['first_player']} is not one of the {players} players"
        elif setup["cars"][:1] != ["loco"] or len(set(setup["cars"])) != len(setup["cars"]):
            problem = f"cars {setup['cars']} should be the locomotive, then different cars"
        if problem:
            self.fail(0, f"setup: {problem}")
        return problem is None

    def typed(self, i, kind, line, fields: dict) -> bool:
        ok = True
        for name, typ in fields.items():
            if name not in line:
                self.fail(i, f"{kind} line has no {name!r}")
                ok = False
            elif not isinstance(line[name], typ) or (typ is int and isinstance(line[name], bool)):
                self.fail(i, f"{kind}.{name} should be {typ.__name__}, got {line[name]!r}")
                ok = False
        return ok

    def listed(self, i, ids, where: str) -> None:
        """Every loot id a line names must be one of setup.loot's."""
        for t in ids:
            if t is not None and t not in self.loot:
                self.fail(i, f"token {t} in {where} is not listed in setup.loot")

    def state(self, i, s) -> None:
        """A legal state: every token in exactly one place, bandits on the train."""
        seen = {}
        places = [("box", t) for t in s["box"]]
        places += [(f"spot {k}", t) for k, ts in s["spots"].items() for t in ts]
        places += [(f"bandit {b}", t) for b, x in enumerate(s["bandits"]) for t in x["loot"]]
        for where, t in places:
            self.listed(i, [t], where)
            if t in seen:
                self.fail(i, f"token {t} is both in {seen[t]} and in {where}")
            seen[t] = where
        missing = set(self.loot) - set(seen)
        if missing:
            self.fail(i, f"tokens nowhere: {sorted(missing)}")
        expected_spots = {f"{c}:{lv}" for c in range(self.n_cars) for lv in K.LEVEL_NAMES}
        if set(s["spots"]) != expected_spots:
            self.fail(i, f"spots should be {sorted(expected_spots)}")
        if not 0 <= s["marshal"] < self.n_cars:
            self.fail(i, f"the Marshal is off the train (car {s['marshal']})")
        for b, x in enumerate(s["bandits"]):
            if set(x) != set(_BANDIT_FIELDS):
                self.fail(i, f"bandit {b} fields {sorted(x)}")
                continue
            if not 0 <= x["car"] < self.n_cars or x["level"] not in K.LEVEL_NAMES:
                self.fail(i, f"bandit {b} is off the train: {x['car']} {x['level']}")
            if x["car"] == s["marshal"] and x["level"] == "inside":
                self.fail(i, f"bandit {b} is inside the Marshal's car")
            most = self.loaded[b] if b < len(self.loaded) else K.BULLETS_PER_BANDIT
            if not 0 <= x["bullets_left"] <= most:
                self.fail(i, f"bandit {b} has {x['bullets_left']} bullets left")

    # --- replay ---------------------------------------------------------------------------------
    def hits(self, i, line, prev, expect) -> None:
        """Apply the Marshal rule's hits and the neutral bullets given, as reported."""
        for b in line["marshal_hits"]:
            x = expect["bandits"][b]
            if x["car"] != expect["marshal"]:
                self.fail(i, f"bandit {b} sent to the roof is not in the Marshal's car")
            x["level"] = "roof"
        for b in line["neutral_given"]:
            expect["bandits"][b]["neutral_received"] += 1
        if expect["neutral_left"] is not None:
            expect["neutral_left"] = line["state"]["neutral_left"]
            if not 0 <= line["state"]["neutral_left"] <= prev["neutral_left"] - len(line["neutral_given"]):
                self.fail(i, "neutral bullets left do not match those given")

    def move_token(self, expect, token, src: list, dst: list, i) -> None:
        if token not in src:
            self.fail(i, f"token {token} is not where the step takes it from")
            return
        src.remove(token)
        dst.append(token)

    def action(self, i, line, prev) -> dict:
        expect = copy.deepcopy(prev)
        card, p, b = line["card"], line["params"], line["bandit"]
        if set(p) != _PARAMS.get(card, set()):
            self.fail(i, f"{card} params should be {sorted(_PARAMS.get(card, ()))}, got {sorted(p)}")
            return line["state"]
        self.listed(i, [p.get("token"), p.get("dropped")], f"{card} params")
        me = expect["bandits"][b]
        spot = f"{me['car']}:{me['level']}"
        if card == "move":
            me["car"] = p["to_car"]
        elif card == "floor":
            me["level"] = "roof" if me["level"] == "inside" else "inside"
        elif card == "marshal":
            if abs(p["to_car"] - expect["marshal"]) != 1:
                self.fail(i, "the Marshal moves one car")
            expect["marshal"] = p["to_car"]
        elif card == "fire" and p["target"] is not None:
            if _fires_a_bullet(line, prev):
                me["bullets_left"] -= 1
                expect["bandits"][p["target"]]["bullets_received"] += 1
            if p["pushed_to"] is not None:
                expect["bandits"][p["target"]]["car"] = p["pushed_to"]
        elif card == "rob" and p["token"] is not None:
            self.move_token(expect, p["token"], expect["spots"][spot], me["loot"], i)
        elif card == "punch" and p["target"] is not None:
            target = expect["bandits"][p["target"]]
            if f"{target['car']}:{target['level']}" != spot:
                self.fail(i, "punch target is not on the puncher's spot")
            if p["dropped"] is not None:
                dst = me["loot"] if p["taken"] else expect["spots"][spot]
                self.move_token(expect, p["dropped"], target["loot"], dst, i)
            target["car"] = p["to_car"]
        self.hits(i, line, prev, expect)
        self.compare(i, expect, line["state"])
        return line["state"]

    def compare(self, i, expect, got) -> None:
        norm = lambda s: {**s, "spots": {k: sorted(v) for k, v in s["spots"].items()},  # noqa: E731
                          "box": sorted(s["box"]),
                          "bandits": [{**x, "loot": sorted(x["loot"])} for x in s["bandits"]]}
        e, g = norm(expect), norm(got)
        for key in ("marshal", "neutral_left", "spots", "box"):
            if e[key] != g[key]:
                self.fail(i, f"state.{key} does not follow from the step: expected {e[key]}, got {g[key]}")
        for b, (x, y) in enumerate(zip(e["bandits"], g["bandits"])):
            if x != y:
                self.fail(i, f"bandit {b} does not follow from the step: expected {x}, got {y}")

    def event(self, i, line, prev) -> dict:
        """Events move many things; check what every event keeps unchanged."""
        got = line["state"]
        params = line["params"]
        ids = [params.get("token")] + [t for name in ("taken", "lost", "ransom")
                                       for t in params.get(name, {}).values()]
        self.listed(i, ids, f"event {line['name']} params")
        for b, (x, y) in enumerate(zip(prev["bandits"], got["bandits"])):
            if x["bullets_left"] != y["bullets_left"] or x["bullets_received"] != y["bullets_received"]:
                self.fail(i, f"event {line['name']} changed bandit {b}'s bandit bullets")
            if y["neutral_received"] - x["neutral_received"] != line["neutral_given"].count(b):
                self.fail(i, f"bandit {b}'s neutral bullets do not match neutral_given")
        return got

    # --- the whole trace ------------------------------------------------------------------------
    def run(self) -> list[str]:
        if not self.lines or self.lines[0].get("type") != "setup":
            return ["line 1: the first line must be the setup line"]
        if self.lines[-1].get("type") != "end":
            self.problems.append("the last line must be the end line")
        setup = self.lines[0]
        if not self.fields(0, setup):
            return self.problems
        self.loot = {item["id"]: item for item in setup["loot"]}
        if len(self.loot) != len(setup["loot"]):
            self.fail(0, "setup.loot lists an id twice")
        self.n_cars = len(setup["cars"])
        prev = setup["state"]
        self.state(0, prev)
        cards = _Cards.for_setup(self, setup)
        turns = _TurnOrder(self, setup)
        next_index = 0
        card = None  # the round card in play
        for i, line in enumerate(self.lines[1:], start=1):
            self.at = i
            if not self.fields(i, line):
                if cards:
                    self.fail(i, "cards are not followed past this line")
                    cards = None
                continue
            if cards:
                cards = self.follow(cards, i, line, prev)
            turns.step(i, line)
            kind = line["type"]
            if kind == "round":
                next_index = 0
                card = line["card"]
            elif kind == "action":
                if line["index"] != next_index:
                    self.fail(i, f"action index {line['index']}, expected {next_index}")
                next_index = line["index"] + 1
                self.state(i, line["state"])
                prev = self.action(i, line, prev)
            elif kind == "event":
                event = self.new_cards[card].get("event") if card in self.new_cards else card
                if line["name"] != event:
                    self.fail(i, f"event {line['name']} in a round of {card}")
                self.state(i, line["state"])
                prev = self.event(i, line, prev)
            elif kind == "end":
                self.end(i, line, prev)
        return self.problems

    def follow(self, cards, i, line, prev):
        """``cards`` after ``line`` (``prev``: the state before it), or None once lost."""
        try:
            cards.step(i, line, prev)
        except _LostTrack as e:
            self.fail(i, f"{e}; cards are not followed further")
            return None
        return cards

    def end(self, i, line, final) -> None:
        scores = line["scores"]
        for s in scores:
            carried = sum(self.loot[t]["value"] for t in final["bandits"][s["bandit"]]["loot"])
            if s["loot"] != carried or s["score"] != s["loot"] + s["bonus"]:
                self.fail(i, f"bandit {s['bandit']}'s score does not add up")
        best = max(t["score"] for t in line["teams"])
        for t in line["teams"]:
            if t["win"] and t["score"] != best:
                self.fail(i, f"team {t['team']} wins without the best score")
        if not line["winners"]:
            self.fail(i, "nobody won")


def _fires_a_bullet(line, prev) -> bool:
    """Whether an action line is a Fire that gave its target a bullet card."""
    return (line["card"] == "fire" and line["params"].get("target") is not None
            and prev["bandits"][line["bandit"]]["bullets_left"] > 0)


# --- the turn order ---------------------------------------------------------------------------------
class _TurnOrder:
    """Who plans when (docs/RULES.md 4): the First Player passes clockwise each round; on each
    turn of the round card every player plans once, clockwise from the First Player
    (counter-clockwise on a switching turn, ``S``; twice in a row each on a speeding-up turn,
    ``D``), every plan a line, a forced pass included."""

    def __init__(self, checker, setup):
        self.fail = checker.fail
        self.players = setup["players"]
        self.first = setup["first_player"]
        self.rounds = 0
        self.schedule: list[tuple[int, int]] = []  # (turn, player) of each plan of the round
        self.planned = 0

    def step(self, i, line) -> None:
        kind = line["type"]
        if kind == "plan":
            self.plan(i, line)
            return
        if kind in ("action", "event", "round", "end") and self.planned < len(self.schedule):
            turn, player = self.schedule[self.planned]
            self.fail(i, f"Schemin' ended before player {player} planned on turn {turn} "
                         f"({len(self.schedule) - self.planned} plans missing)")
            self.planned = len(self.schedule)
        if kind == "round":
            self.round(i, line)

    def round(self, i, line) -> None:
        first = (self.first + self.rounds) % self.players
        self.rounds += 1
        if line["first_player"] != first:
            self.fail(i, f"round {line['round']}: first_player {line['first_player']}, but the "
                         f"First Player passes clockwise each round: player {first}")
        first, n = line["first_player"], self.players
        self.schedule, self.planned = [], 0
        for turn, letter in enumerate(line["turns"]):
            if letter == "S":
                order = [(first - k) % n for k in range(n)]
            elif letter == "D":
                order = [(first + k // 2) % n for k in range(2 * n)]
            else:
                order = [(first + k) % n for k in range(n)]
            self.schedule += [(turn, p) for p in order]

    def plan(self, i, line) -> None:
        if self.planned >= len(self.schedule):
            self.fail(i, f"player {line['player']} plans out of turn: every player has taken "
                         "every turn of the round")
            return
        turn, player = self.schedule[self.planned]
        self.planned += 1
        if (line["turn"], line["player"]) != (turn, player):
            self.fail(i, f"player {line['player']} plans out of turn (turn {line['turn']}): the "
                         f"next plan is player {player}'s, on turn {turn} (clockwise from the "
                         "First Player; counter-clockwise on S, twice each on D)")


# --- cards ------------------------------------------------------------------------------------------
class _LostTrack(Exception):
    """A line the card follower cannot read, so it cannot go on."""


# A card as a replay follows it: (name, colour), the colour being the bandit the card belongs to,
# or for a bullet card the bandit who fired it, -1 for a neutral bullet (docs/TRACE.md "Card
# colours").
NEUTRAL_SHOOTER = -1


def _say(card) -> str:
    name, colour = card
    if name == "bullet":
        return "a neutral bullet" if colour == NEUTRAL_SHOOTER else f"a bullet of bandit {colour}"
    return f"{name} of bandit {colour}"


def _says(cards: Counter) -> str:
    return ", ".join(_say(c) for c in sorted(cards.elements()))


class _Cards:
    """Every player's cards, zone by zone, followed through the trace (docs/RULES.md 4, 10, 11).

    A deck is a multiset in unknown (shuffled) order plus ``top``: the bullet cards received
    since, in the order received.  The advanced rules put them face down on top of the deck, so
    the next draws take them first, the last one received first; in the base game the next
    round's shuffle mixes them in.  The pile holds this round's plays in order.
    """

    OPTIONS = ("advanced", "hand_size", "doc_bonus", "draw_count", "abilities")

    @classmethod
    def for_setup(cls, checker, setup):
        """The follower for a trace, or None (with the problem reported) if setup lacks what
        it needs."""
        missing = [name for name in cls.OPTIONS if name not in setup["options"]]
        for name in missing:
            checker.fail(0, f"setup.options has no {name!r}; cards are not followed")
        teams = setup["teams"]
        if len(teams) != len(setup["bandits"]) or set(teams) != set(range(setup["players"])):
            checker.fail(0, "setup.teams should give every bandit a player; cards are not followed")
            return None
        return None if missing else cls(checker, setup)

    def __init__(self, checker, setup):
        self.fail = checker.fail
        opts = setup["options"]
        self.teams = setup["teams"]
        self.names = setup["bandits"]
        self.abilities = opts["abilities"]
        self.advanced = bool(opts["advanced"])
        self.draw_count = opts["draw_count"]
        players = setup["players"]
        team_of = [[b for b, t in enumerate(self.teams) if t == p] for p in range(players)]
        self.hand_size = [opts["hand_size"] + opts["doc_bonus"] * any(
            self.names[b] == "doc" and "doc" in self.abilities for b in team) for team in team_of]
        decks = opts.get("decks", {})
        self.deck = [_starting_deck(team, decks.get(self.names[team[0]])) for team in team_of]
        self.top: list[list] = [[] for _ in range(players)]
        self.hand = [Counter() for _ in range(players)]
        self.discard_pile = [Counter() for _ in range(players)]
        self.pile: list[tuple[int, tuple]] = []  # (player, card) in the order played
        self.resolved = 0
        self.turns: list[str] = []
        self.phase = "start"  # of the round: start, scheme, end (keep-or-discard), steal

    # --- zones ----------------------------------------------------------------------------------
    def available(self, p) -> int:
        """Cards ``p`` can draw: its deck, and under the advanced rules its discard pile."""
        n = len(self.top[p]) + self.deck[p].total()
        return n + self.discard_pile[p].total() if self.advanced else n

    def draw(self, i, p, cards: Counter) -> None:
        """Take ``cards`` from the top of ``p``'s deck: the bullets on top first, then the
        shuffled rest, then (advanced rules) the discard pile shuffled into a new deck."""
        left = Counter(cards)
        for _ in range(min(left.total(), len(self.top[p]))):
            card = self.top[p].pop()
            if left[card]:
                left[card] -= 1
            else:
                self.fail(i, f"player {p} should have drawn {_say(card)} from the top of its deck")
        left = +left
        deck = self.deck[p]
        if self.advanced and left.total() > deck.total():
            kept = deck - left
            if kept:
                self.fail(i, f"player {p} drew from its discard pile with {_says(kept)} in its deck")
            left -= deck
            self.deck[p], self.discard_pile[p] = self.discard_pile[p], Counter()
            deck = self.deck[p]
        if left - deck:
            self.fail(i, f"player {p} drew {_says(left - deck)}, not in its deck")
        deck -= left

    def receive(self, b, card) -> None:
        """A bullet card given to bandit ``b`` goes on top of its player's deck."""
        self.top[self.teams[b]].append(card)

    def parallel(self, names, colours, what) -> list:
        """``names`` and their ``colours`` (``hand_bandits``, ``drawn_bandits``) as cards."""
        if not isinstance(names, list) or not isinstance(colours, list) or len(names) != len(colours):
            raise _LostTrack(f"{what}: cards and bandits should be parallel lists")
        for name, colour in zip(names, colours):
            lowest = NEUTRAL_SHOOTER if name == "bullet" else 0
            if name not in K.CARD_NAMES or not isinstance(colour, int) or not (
                    lowest <= colour < len(self.teams)):
                raise _LostTrack(f"{what}: no card {name!r} of bandit {colour!r}")
        return list(zip(names, colours))

    def player(self, p) -> int:
        if not 0 <= p < len(self.deck):
            raise _LostTrack(f"no player {p}")
        return p

    def unresolved(self, i) -> None:
        if self.resolved < len(self.pile):
            self.fail(i, f"{len(self.pile) - self.resolved} cards played and never resolved")

    # --- lines ----------------------------------------------------------------------------------
    def step(self, i, line, prev) -> None:
        kind = line["type"]
        if kind == "action":
            self.action(i, line, prev)
        elif kind in ("round", "plan", "discard", "event", "end"):
            getattr(self, kind)(i, line)

    def round(self, i, line) -> None:
        self.unresolved(i)
        self.pile, self.resolved, self.phase, self.turns = [], 0, "start", line["turns"]
        players = len(self.deck)
        if len(line["hands"]) != players or len(line["hand_bandits"]) != players or len(
                line["deck_sizes"]) != players:
            raise _LostTrack(f"hands, hand_bandits and deck_sizes should have {players} entries")
        for p in range(players):
            if not self.advanced:  # every card back in the deck, shuffled
                self.deck[p] += self.hand[p] + Counter(self.top[p])
                self.hand[p], self.top[p] = Counter(), []
            cards = self.parallel(line["hands"][p], line["hand_bandits"][p], f"player {p}'s hand")
            hand = Counter(cards)
            if self.hand[p] - hand:
                self.fail(i, f"player {p}'s hand lost {_says(self.hand[p] - hand)}")
            new = hand - self.hand[p]
            want = min(max(0, self.hand_size[p] - self.hand[p].total()), self.available(p))
            if new.total() != want:
                self.fail(i, f"player {p} drew {new.total()} cards for the round, expected {want}")
            self.draw(i, p, new)
            self.hand[p] = hand
            deck_size = len(self.top[p]) + self.deck[p].total()
            if line["deck_sizes"][p] != deck_size:
                self.fail(i, f"player {p}'s deck holds {deck_size} cards, not {line['deck_sizes'][p]}")

    def plan(self, i, line) -> None:
        p = self.player(line["player"])
        if self.phase in ("end", "steal"):
            self.fail(i, "a plan after Schemin' ended")
        self.phase = "scheme"
        hand = self.hand[p]
        if line["choice"] == "play":
            card, b = (line["card"], line["bandit"]), line["bandit"]
            if card[0] == "bullet" or not 0 <= b < len(self.teams) or self.teams[b] != p:
                self.fail(i, f"player {p} cannot play {card[0]} of bandit {b}")
                return
            if not hand[card]:
                self.fail(i, f"player {p} plays {_say(card)}, not in its hand")
            hand -= Counter([card])
            self.pile.append((p, card))
            self.check_face(i, line)
        elif line["choice"] == "draw":
            cards = self.parallel(line["drawn"], line["drawn_bandits"], "drawn")
            want = min(self.draw_count, self.available(p))
            if want == 0 or len(cards) != want:
                self.fail(i, f"player {p} drew {len(cards)} cards, expected {want} "
                             f"(a player with nothing to draw cannot draw)")
            self.draw(i, p, Counter(cards))
            hand.update(cards)
        elif any(name != "bullet" for name, _ in hand) or self.available(p):
            self.fail(i, f"player {p} passes but could play or draw")

    def check_face(self, i, line) -> None:
        """Face down in a tunnel; elsewhere only a Ghost card on the round's first turn."""
        t = line["turn"]
        tunnel = 0 <= t < len(self.turns) and self.turns[t] == "T"
        ghost = t == 0 and self.names[line["bandit"]] == "ghost" and "ghost" in self.abilities
        if line["face"] not in ("up", "down") or (tunnel and line["face"] == "up") or (
                not tunnel and line["face"] == "down" and not ghost):
            self.fail(i, f"{line['card']} played face {line['face']} on turn {t}")

    def discard(self, i, line) -> None:
        p, card = self.player(line["player"]), (line["card"], line["bandit"])
        if not self.advanced:
            self.fail(i, "discard lines belong to the advanced rules")
            return
        when = line["when"]
        if when not in ("start", "end") or (when == "start" and self.phase != "start") or (
                when == "end" and self.phase not in ("scheme", "end")):
            self.fail(i, f"a discard at the {when} of Schemin' during {self.phase}")
        if when == "end":
            self.phase = "end"
        if not self.hand[p][card]:
            self.fail(i, f"player {p} discards {_say(card)}, not in its hand")
            return
        self.hand[p] -= Counter([card])
        self.discard_pile[p][card] += 1

    def action(self, i, line, prev) -> None:
        self.phase = "steal"
        index = line["index"]
        if not 0 <= index < len(self.pile):
            self.fail(i, "more actions than cards played this round")
            return
        self.resolved = index + 1
        p, card = self.pile[index]
        if (line["player"], (line["card"], line["bandit"])) != (p, card):
            self.fail(i, f"action {index} resolves {line['card']} of bandit {line['bandit']} "
                         f"(player {line['player']}); card {index} of the pile is {_say(card)} "
                         f"of player {p}")
        (self.discard_pile if self.advanced else self.deck)[p][card] += 1
        if _fires_a_bullet(line, prev) and 0 <= line["params"]["target"] < len(self.teams):
            self.receive(line["params"]["target"], ("bullet", line["bandit"]))
        self.neutral_bullets(i, line)

    def event(self, i, line) -> None:
        self.neutral_bullets(i, line)

    def neutral_bullets(self, i, line) -> None:
        """The neutral bullets an action or event gave, each on top of its player's deck."""
        for b in line["neutral_given"]:
            if not 0 <= b < len(self.teams):
                raise _LostTrack(f"neutral bullet given to bandit {b}, not in the game")
            self.receive(b, ("bullet", NEUTRAL_SHOOTER))

    def end(self, i, line) -> None:
        self.unresolved(i)


def _starting_deck(team: list[int], counts: dict | None = None) -> Counter:
    """A player's cards at setup: its bandit's 10 action cards (or ``counts`` of each kind, the
    options' decks); in the 2-player game the team's shared 11 (one Move, Floor, Fire, Robbery
    and Punch of each bandit, and the first bandit's Marshal: docs/rules-decisions.md)."""
    if len(team) == 1:
        if counts:
            return Counter({(kind, team[0]): n for kind, n in counts.items() if n})
        return Counter((K.CARD_NAMES[kind], team[0]) for kind in K.ACTION_DECK)
    deck = Counter((K.CARD_NAMES[kind], b) for b in team for kind in K.TEAM_DECK_KINDS)
    deck["marshal", team[0]] += 1
    return deck


def check_trace(lines: list[dict]) -> list[str]:
    """Every inconsistency of a trace against docs/TRACE.md and the rules, as readable lines.
    A state or a field within a line that is not shaped as docs/TRACE.md says (a name
    misspelt, a number where a list goes) ends the check there."""
    checker = _Checker(lines)
    try:
        return checker.run()
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        checker.fail(checker.at, f"a state or field not shaped as docs/TRACE.md says "
                                 f"({type(e).__name__}: {e}); the lines after it are not checked")
        return checker.problems


class TraceError(ValueError):
    """A file that is not one whole trace; the message is one line naming the file and the
    line."""


def shape_problem(lines: list[dict]) -> str | None:
    """The first problem of a trace's shape (None: none): every line a known type with its
    fields, the setup line first and only there, the end line last and only there."""
    checker = _Checker(lines)
    if not lines or lines[0].get("type") != "setup":
        return "line 1: the first line must be the setup line"
    for i, line in enumerate(lines):
        if not checker.fields(i, line):
            return checker.problems[0]
        if i and line["type"] == "setup":
            return f"line {i + 1}: a second setup line"
        if line["type"] == "end" and i != len(lines) - 1:
            return f"line {i + 1}: the end line is followed by more lines"
    if lines[-1]["type"] != "end":
        return f"line {len(lines)}: the trace stops there, without its end line (cut short?)"
    return None


def read_trace(source) -> list[dict]:
    """Read a trace (JSON Lines, docs/TRACE.md) from a file, or from an open text stream such as
    ``sys.stdin``, and check that it is one whole trace (:func:`shape_problem`);
    :class:`TraceError` otherwise."""
    path = getattr(source, "name", "<stdin>") if hasattr(source, "read") else source
    try:
        if hasattr(source, "read"):
            text = source.read()
        else:
            with open(source, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise TraceError(f"{path}: cannot read the trace: {e.strerror}") from None
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not a trace: not UTF-8 text") from None
    lines = []
    for number, raw in enumerate(text.rstrip().splitlines(), start=1):
        try:
            line = json.loads(raw)
        except json.JSONDecodeError as e:
            raise TraceError(f"{path}: line {number}: not a JSON object ({e.msg})") from None
        except RecursionError:
            raise TraceError(f"{path}: line {number}: nested too deeply to be a trace line") \
                from None
        if not isinstance(line, dict):
            raise TraceError(f"{path}: line {number}: not a JSON object")
        lines.append(line)
    problem = shape_problem(lines)
    if problem:
        raise TraceError(f"{path}: not a whole coltsim trace: {problem}")
    return lines
