"""Rule options (docs/RULES.md section 12): one frozen object, handed to kernels as an int array.

Every **Decision** of docs/RULES.md is the default of an option here, so a designer can test the
other reading.  ``Rules().to_array()`` gives the ``int64`` vector the kernels read through the
``O_*`` indices below; ``Rules.as_dict()`` is what traces and manifests record.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from . import constants as K
from .words import did_you_mean

# Indices into the options vector read by the kernels.
O_NEUTRAL_BULLETS = 0  # supply of neutral bullets; -1 = unlimited
O_NEUTRAL_RUNOUT = 1  # RUNOUT_NOBODY or RUNOUT_UNTIL_EMPTY
O_GUNSLINGER_BONUS = 2
O_GUNSLINGER_IF_NOBODY_FIRED = 3
O_DJANGO_PUSH_WITHOUT_BULLETS = 4
O_GHOST_BOTH_HALVES = 5
O_HAND_SIZE = 6
O_DOC_BONUS = 7
O_DRAW_COUNT = 8
O_ROUNDS = 9
O_ROOF_MOVE_MAX = 10
O_ADVANCED = 11
O_ABILITY = 12  # + character code: 1 = ability on
O_CARS = O_ABILITY + K.N_CHARACTERS  # + i: car code of passenger car i from the front; -1 = random
O_ROUND_CARDS = O_CARS + K.N_PASSENGER_CAR_KINDS  # + i: round card i; -1 = random
MAX_ROUNDS = K.N_ROUND_CARDS + 1
O_STATION = O_ROUND_CARDS + MAX_ROUNDS - 1  # station card code; -1 = random
# The cards as data: printed ones at their printed values, a designer's own after them.
O_TURNS = O_STATION + 1  # + (card * 2 + group) * MAX_TURNS + turn: group 0 for 2-4 players
O_EVENT = O_TURNS + K.N_CARD_CODES * 2 * K.MAX_TURNS  # + card: its event's code, or NO_EVENT
MAX_ROUND_DECK = 12
MAX_STATION_DECK = 6
O_ROUND_DECK_N = O_EVENT + K.N_CARD_CODES  # cards in the deck the round cards are drawn from
O_ROUND_DECK = O_ROUND_DECK_N + 1  # + i: its cards
O_STATION_DECK_N = O_ROUND_DECK + MAX_ROUND_DECK
O_STATION_DECK = O_STATION_DECK_N + 1
O_CAR_PURSES = O_STATION_DECK + MAX_STATION_DECK  # + car code: purses inside that car
O_CAR_JEWELS = O_CAR_PURSES + len(K.CAR_NAMES)  # + car code: jewels inside
O_DECK = O_CAR_JEWELS + len(K.CAR_NAMES)  # + character * N_ACTION_KINDS + kind: its cards
O_BULLETS = O_DECK + K.N_CHARACTERS * K.N_ACTION_KINDS  # + character: its bullet cards
O_MARSHAL_CAR = O_BULLETS + K.N_CHARACTERS  # the Marshal's car at setup
N_OPTIONS = O_MARSHAL_CAR + 1

RUNOUT_NOBODY = 0
RUNOUT_UNTIL_EMPTY = 1
RUNOUT_NAMES = ("nobody", "until_empty")

ROUND_CARDS = K.ROUND_CARD_NAMES[:K.N_ROUND_CARDS]
STATIONS = K.ROUND_CARD_NAMES[K.FIRST_STATION:]
EVENTS = tuple(n for n in K.ROUND_CARD_NAMES if n not in ("tunnel", "bridge")) + ("none",)
ACTION_KINDS = K.CARD_NAMES[:K.N_ACTION_KINDS]
PRINTED_DECK = tuple(K.ACTION_DECK.count(k) for k in range(K.N_ACTION_KINDS))
MAX_DECK = 14  # action cards of one bandit
LOOT_KEYS = ("purses", "jewels")
MAX_JEWELS = K.N_JEWELS + K.N_EXTRA_JEWELS

# The options that change the game's content (cards, decks, loot): left out of Rules.as_dict
# at their defaults.
CONTENT = ("new_cards", "round_deck", "station_deck", "car_loot", "decks", "bullets",
           "marshal_car")

# Another way to give ``abilities`` in a mapping (Rules.from_dict: experiment files, --rules):
# the bandits whose ability is off, every other bandit keeping its own.
ABILITIES_OFF = "abilities_off"


def _names_list(kind: str, values, allowed) -> None:
    for v in values:
        if v not in allowed:
            raise ValueError(f"unknown {kind} {v!r}; allowed: {', '.join(allowed)}"
                             f"{did_you_mean(v, allowed)}")


@dataclass(frozen=True)
class RoundCard:
    """A designer's own round or train-station card (docs/experiments.md, "Your own cards").

    Attributes
    ----------
    name : str
        Its name: lower-case letters, digits and ``_``, not a printed card's.
    turns : str
        Its turns with 2 to 4 players, one letter each: ``N`` normal, ``T`` tunnel (cards face
        down), ``D`` speeding-up (two cards in a row), ``S`` switching (counter-clockwise);
        1 to 5 turns.
    turns_5_6 : str
        Its turns with 5 and 6 players (default: the same as ``turns``).
    event : str
        The printed event it ends with (``braking``, ``marshals_revenge``, ...), or ``"none"``.
    """

    name: str
    turns: str
    turns_5_6: str = ""
    event: str = "none"

    def __post_init__(self):
        where = f"rule option new_cards: card {self.name!r}"
        if not isinstance(self.name, str) or not self.name or not all(
                c.isascii() and (c.isalnum() or c == "_") for c in self.name) \
                or self.name != self.name.lower():
            raise ValueError(f"rule option new_cards: a card's name must be lower-case letters, "
                             f"digits and _, got {self.name!r}")
        if self.name in K.ROUND_CARD_NAMES:
            raise ValueError(f"{where} is a printed card's name; give your card another name")
        if not self.turns_5_6:
            object.__setattr__(self, "turns_5_6", self.turns)
        for field in ("turns", "turns_5_6"):
            v = getattr(self, field)
            if not isinstance(v, str) or not 1 <= len(v) <= K.MAX_TURNS or any(
                    c not in K.TURN_LETTERS for c in v):
                raise ValueError(f"{where}: {field} must be 1 to {K.MAX_TURNS} letters of N "
                                 f"(normal), T (tunnel), D (speeding-up), S (switching), got {v!r}")
        if self.event not in EVENTS:
            raise ValueError(f"{where}: unknown event {self.event!r}; allowed: "
                             f"{', '.join(EVENTS)}{did_you_mean(self.event, EVENTS)}")

    @classmethod
    def from_value(cls, v) -> "RoundCard":
        if isinstance(v, RoundCard):
            return v
        if not isinstance(v, dict):
            raise ValueError(f"rule option new_cards must be a list of cards (tables with name, "
                             f"turns, turns_5_6, event), got {v!r}")
        fields = [f.name for f in dataclasses.fields(cls)]
        for key in v:
            if key not in fields:
                raise ValueError(f"rule option new_cards: unknown key {key!r}; allowed: "
                                 f"{', '.join(fields)}{did_you_mean(key, fields)}")
        for key in ("name", "turns"):
            if key not in v:
                raise ValueError(f"rule option new_cards: a card needs {key} (got {v!r})")
        return cls(**v)


def _table(name: str, value, keys, allowed_values, what: str) -> dict:
    """A rule option given as a table of tables (``car_loot``, ``decks``), checked."""
    if not isinstance(value, dict):
        raise ValueError(f"rule option {name} must be a table of {what}, got {value!r}")
    for key, inner in value.items():
        if key not in keys:
            raise ValueError(f"rule option {name}: unknown {what[:-1]} {key!r}; allowed: "
                             f"{', '.join(keys)}{did_you_mean(str(key), keys)}")
        if not isinstance(inner, dict):
            raise ValueError(f"rule option {name}.{key} must be a table, got {inner!r}")
        for k, n in inner.items():
            if k not in allowed_values:
                raise ValueError(f"rule option {name}.{key}: unknown key {k!r}; allowed: "
                                 f"{', '.join(allowed_values)}{did_you_mean(str(k), allowed_values)}")
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
                raise ValueError(f"rule option {name}.{key}.{k} must be a whole number from 0, "
                                 f"got {n!r}")
    return value


@dataclass(frozen=True)
class Rules:
    """Every rule option of coltsim with its default (the reading docs/RULES.md decides).

    Attributes
    ----------
    neutral_bullets : int
        Neutral bullets beside the locomotive at setup; -1 for an unlimited supply.
    neutral_runout : str
        ``"nobody"``: when fewer neutral bullets remain than bandits to receive them at one
        giving, nobody receives one and the rest leave the game (docs/RULES.md 6).
        ``"until_empty"``: bandits receive them in bandit order until the supply is empty.
    gunslinger_bonus : int
        Dollars for the Gunslinger (0 turns the bonus off).
    gunslinger_if_nobody_fired : bool
        Whether everybody (all tied on zero shots) is the Gunslinger when nobody fired.
    django_push_without_bullets : bool
        Whether Django's Fire with no bullet left still picks a target and pushes it.
    ghost_both_halves : bool
        Whether Ghost may play face down on both halves of a speeding-up first turn.
    hand_size, doc_bonus, draw_count : int
        Cards drawn at the start of a round, Doc's extra cards on top of them (Doc draws
        ``hand_size + doc_bonus``: 8 with ``hand_size = 7``), cards taken by "draw".
    rounds : int
        Rounds in a game: ``rounds - 1`` round cards and the train-station card.
    roof_move_max : int
        Farthest a Move on the roof may go (cars).
    advanced : bool
        The advanced rules (docs/RULES.md 10); always on in the 2-player game.
    abilities : tuple of str
        Bandits whose ability is in play; the others play without it.
    cars : tuple of str
        Passenger cars from the front (letters A-F), or empty for a random draw.
    round_cards : tuple of str
        The round cards in order (``rounds - 1`` of them), or empty for a random draw.
    station : str
        The train-station card, or empty for a random draw.
    new_cards : tuple of RoundCard
        A designer's own round and station cards (at most 4), named in the options below.
    round_deck : tuple of str
        The deck the round cards are drawn from (printed or new cards, repeats allowed), or
        empty for the seven printed round cards.
    station_deck : tuple of str
        The deck the train-station card is drawn from, or empty for the three printed ones.
    car_loot : dict
        Passenger cars whose loot differs from the printed car's: ``{"A": {"jewels": 2}}``
        (purses and jewels inside; a key left out keeps the printed count).
    decks : dict
        Bandits whose action cards differ from the printed ten: ``{"django": {"fire": 4}}``
        (cards of each kind: move, floor, fire, rob, punch, marshal; a kind left out keeps its
        printed count).  Not in the two-player game, whose deck is shared.
    bullets : dict
        Bandits whose bullet cards differ from the printed six: ``{"tuco": 4}`` (0 to 6).
    marshal_car : int
        The car the Marshal starts in (0, the locomotive, printed), at most the car before the
        bandits' (``players - 2``; 2 in the two-player game).
    """

    neutral_bullets: int = 13
    neutral_runout: str = "nobody"
    gunslinger_bonus: int = 1000
    gunslinger_if_nobody_fired: bool = False
    django_push_without_bullets: bool = False
    ghost_both_halves: bool = False
    hand_size: int = 6
    doc_bonus: int = 1
    draw_count: int = 3
    rounds: int = 5
    roof_move_max: int = 3
    advanced: bool = False
    abilities: tuple = K.BANDIT_NAMES
    cars: tuple = ()
    round_cards: tuple = ()
    station: str = ""
    new_cards: tuple = ()
    round_deck: tuple = ()
    station_deck: tuple = ()
    car_loot: dict = dataclasses.field(default_factory=dict)
    decks: dict = dataclasses.field(default_factory=dict)
    bullets: dict = dataclasses.field(default_factory=dict)
    marshal_car: int = 0

    def __hash__(self):
        return hash(repr(self.as_dict()))

    def __post_init__(self):
        if not isinstance(self.new_cards, (list, tuple)):
            raise ValueError("rule option new_cards must be a list of cards (tables with name, "
                             f"turns, turns_5_6, event), got {self.new_cards!r}")
        object.__setattr__(self, "new_cards",
                           tuple(RoundCard.from_value(c) for c in self.new_cards))
        _table("car_loot", self.car_loot, K.CAR_NAMES[1:], LOOT_KEYS, "cars")
        _table("decks", self.decks, K.BANDIT_NAMES, ACTION_KINDS, "bandits")
        if not isinstance(self.bullets, dict):
            raise ValueError(f"rule option bullets must be a table of bandits, got {self.bullets!r}")
        for b, n in self.bullets.items():
            if b not in K.BANDIT_NAMES:
                raise ValueError(f"rule option bullets: unknown bandit {b!r}; allowed: "
                                 f"{', '.join(K.BANDIT_NAMES)}{did_you_mean(str(b), K.BANDIT_NAMES)}")
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or \
                    not 0 <= n <= K.BULLETS_PER_BANDIT:
                raise ValueError(f"rule option bullets.{b} must be 0 to "
                                 f"{K.BULLETS_PER_BANDIT}, got {n!r}")
        object.__setattr__(self, "bullets", {b: int(self.bullets[b]) for b in K.BANDIT_NAMES
                                             if b in self.bullets})
        # Stored whole and in the printed order, so that equal rules are equal objects.
        object.__setattr__(self, "car_loot", {
            car: {"purses": self.car_loot[car].get("purses", K.CAR_PURSES[i + 1]),
                  "jewels": self.car_loot[car].get("jewels", K.CAR_JEWELS[i + 1])}
            for i, car in enumerate(K.CAR_NAMES[1:]) if car in self.car_loot})
        object.__setattr__(self, "decks", {
            b: {k: self.decks[b].get(k, PRINTED_DECK[i]) for i, k in enumerate(ACTION_KINDS)}
            for b in K.BANDIT_NAMES if b in self.decks})
        for name in ("abilities", "cars", "round_cards", "round_deck", "station_deck"):
            value = getattr(self, name)
            if isinstance(value, str):
                value = (value,) if value else ()
            if not isinstance(value, (list, tuple)):
                raise ValueError(f"rule option {name} must be a list of names, got {value!r}")
            object.__setattr__(self, name, tuple(value))
        self._validate()

    # ------------------------------------------------------------------------------------------
    def _validate(self) -> None:
        def integer(name, lo, hi=None):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"rule option {name} must be an integer, got {v!r}")
            if v < lo or (hi is not None and v > hi):
                rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
                raise ValueError(f"rule option {name} must be in {rng}, got {v}")

        def boolean(name):
            v = getattr(self, name)
            if not isinstance(v, (bool, np.bool_)):
                raise ValueError(f"rule option {name} must be true or false, got {v!r}")

        integer("neutral_bullets", -1, 1000)
        if self.neutral_runout not in RUNOUT_NAMES:
            raise ValueError(f"rule option neutral_runout must be one of {', '.join(RUNOUT_NAMES)}, "
                             f"got {self.neutral_runout!r}"
                             f"{did_you_mean(self.neutral_runout, RUNOUT_NAMES)}")
        integer("gunslinger_bonus", 0, 1_000_000)
        integer("hand_size", 1, 20)
        integer("doc_bonus", 0, 10)
        integer("draw_count", 1, 10)
        integer("rounds", 1, MAX_ROUNDS)
        integer("roof_move_max", 1, 6)
        integer("marshal_car", 0, K.MAX_CARS - 3)
        for name in ("gunslinger_if_nobody_fired", "django_push_without_bullets",
                     "ghost_both_halves", "advanced"):
            boolean(name)
        _names_list("bandit in abilities", self.abilities, K.BANDIT_NAMES)
        _names_list("car", self.cars, K.CAR_NAMES[1:])
        if len(set(self.cars)) != len(self.cars):
            raise ValueError(f"rule option cars lists a car twice: {list(self.cars)}")
        new = tuple(c.name for c in self.new_cards)
        if len(new) > K.MAX_NEW_CARDS:
            raise ValueError(f"rule option new_cards: at most {K.MAX_NEW_CARDS} cards, "
                             f"got {len(new)}")
        if len(set(new)) != len(new):
            raise ValueError(f"rule option new_cards names a card twice: {list(new)}")
        _names_list("round card", self.round_cards, ROUND_CARDS + new)
        if self.round_cards and len(self.round_cards) != self.rounds - 1:
            raise ValueError(f"rule option round_cards must list rounds - 1 = {self.rounds - 1} "
                             f"cards, got {len(self.round_cards)}")
        if self.station and self.station not in STATIONS + new:
            raise ValueError(f"unknown station {self.station!r}; allowed: "
                             f"{', '.join(STATIONS + new)}{did_you_mean(self.station, STATIONS + new)}")
        _names_list("card in round_deck", self.round_deck, ROUND_CARDS + new)
        if self.round_deck and not self.rounds - 1 <= len(self.round_deck) <= MAX_ROUND_DECK:
            raise ValueError(f"rule option round_deck must hold rounds - 1 = {self.rounds - 1} "
                             f"to {MAX_ROUND_DECK} cards, got {len(self.round_deck)}")
        _names_list("card in station_deck", self.station_deck, STATIONS + new)
        if len(self.station_deck) > MAX_STATION_DECK:
            raise ValueError(f"rule option station_deck must hold 1 to {MAX_STATION_DECK} "
                             f"cards, got {len(self.station_deck)}")
        for b, counts in self.decks.items():
            if not 1 <= sum(counts.values()) <= MAX_DECK:
                raise ValueError(f"rule option decks.{b} must hold 1 to {MAX_DECK} action "
                                 f"cards, got {sum(counts.values())}")

    def check_players(self, players: int) -> None:
        """Raise ``ValueError`` if these rules cannot be played by ``players`` players."""
        cars = 4 if players == 2 else players
        if self.cars and len(self.cars) != cars:
            raise ValueError(f"rule option cars must list {cars} cars for {players} players, "
                             f"got {len(self.cars)}")
        if self.marshal_car > cars - 2:
            raise ValueError(f"rule option marshal_car must be 0 to {cars - 2} for {players} "
                             f"players (the bandits start in the last two cars), got "
                             f"{self.marshal_car}")
        if self.decks and players == 2:
            raise ValueError("rule option decks: the two-player game's deck is shared by a "
                             "player's two bandits; decks is for 3 to 6 players")
        loot = self.to_array()
        bandits = 4 if players == 2 else players
        for key, at, most in (("purses", O_CAR_PURSES, K.N_PURSES - bandits),
                              ("jewels", O_CAR_JEWELS, MAX_JEWELS)):
            held = [int(loot[at + K.CAR_NAMES.index(c)]) for c in self.cars] if self.cars else \
                sorted(loot[at + 1:at + len(K.CAR_NAMES)])[-cars:]
            if sum(held) > most:
                raise ValueError(f"rule option car_loot: the cars of a {players}-player train "
                                 f"may hold {sum(held)} {key}; the box has {most}")

    # ------------------------------------------------------------------------------------------
    def as_dict(self, full: bool = False) -> dict:
        """Every option by name, as recorded in traces and manifests (JSON-friendly); the
        content options (``CONTENT``) only when they differ from the printed game (so that the
        printed game's records are those of coltsim before them), or always with ``full``."""
        d = dataclasses.asdict(self)
        for name in ("abilities", "cars", "round_cards", "round_deck", "station_deck",
                     "new_cards"):
            d[name] = list(d[name])
        return {k: v for k, v in d.items() if full or k not in CONTENT or v != _DEFAULTS[k]}

    @classmethod
    def from_dict(cls, d: dict) -> "Rules":
        """Build from a mapping, with a clear error for an unknown option name.

        Besides the fields, the mapping may give ``abilities_off``: the bandits whose ability
        is off (``{"abilities_off": ["belle"]}`` is every ability but Belle's), instead of
        ``abilities``."""
        names = option_names()
        for key in d:
            if key not in names:
                raise ValueError(f"unknown rule option {key!r}; allowed: {', '.join(names)}"
                                 f"{did_you_mean(key, names)}")
        d = dict(d)
        if ABILITIES_OFF in d:
            if "abilities" in d:
                raise ValueError("rule options abilities and abilities_off: give one of them "
                                 "(abilities lists the bandits whose ability is on, "
                                 "abilities_off those whose ability is off)")
            off = d.pop(ABILITIES_OFF)
            if isinstance(off, str):
                off = [off] if off else []
            if not isinstance(off, (list, tuple)):
                raise ValueError(f"rule option {ABILITIES_OFF} must be a list of names, "
                                 f"got {off!r}")
            _names_list("bandit in abilities_off", off, K.BANDIT_NAMES)
            d["abilities"] = tuple(b for b in K.BANDIT_NAMES if b not in off)
        return cls(**d)

    def to_array(self) -> np.ndarray:
        """The ``int64[N_OPTIONS]`` vector the kernels read."""
        o = np.full(N_OPTIONS, -1, dtype=np.int64)
        o[O_NEUTRAL_BULLETS] = self.neutral_bullets
        o[O_NEUTRAL_RUNOUT] = RUNOUT_NAMES.index(self.neutral_runout)
        o[O_GUNSLINGER_BONUS] = self.gunslinger_bonus
        o[O_GUNSLINGER_IF_NOBODY_FIRED] = self.gunslinger_if_nobody_fired
        o[O_DJANGO_PUSH_WITHOUT_BULLETS] = self.django_push_without_bullets
        o[O_GHOST_BOTH_HALVES] = self.ghost_both_halves
        o[O_HAND_SIZE] = self.hand_size
        o[O_DOC_BONUS] = self.doc_bonus
        o[O_DRAW_COUNT] = self.draw_count
        o[O_ROUNDS] = self.rounds
        o[O_ROOF_MOVE_MAX] = self.roof_move_max
        o[O_ADVANCED] = self.advanced
        for c, name in enumerate(K.BANDIT_NAMES):
            o[O_ABILITY + c] = name in self.abilities
        for i, car in enumerate(self.cars):
            o[O_CARS + i] = K.CAR_NAMES.index(car)
        for i, card in enumerate(self.round_cards):
            o[O_ROUND_CARDS + i] = self.card_code(card)
        if self.station:
            o[O_STATION] = self.card_code(self.station)
        for c in range(K.N_CARD_CODES):
            turns = (self._turns(c, 0), self._turns(c, 1))
            for g in range(2):
                for t in range(K.MAX_TURNS):
                    o[O_TURNS + (c * 2 + g) * K.MAX_TURNS + t] = \
                        turns[g][t] if t < len(turns[g]) else K.NO_TURN
            o[O_EVENT + c] = self._event(c)
        for at, deck in ((O_ROUND_DECK_N, self.round_deck or ROUND_CARDS),
                         (O_STATION_DECK_N, self.station_deck or STATIONS)):
            o[at] = len(deck)
            for i, card in enumerate(deck):
                o[at + 1 + i] = self.card_code(card)
        for car in range(len(K.CAR_NAMES)):
            loot = self.car_loot.get(K.CAR_NAMES[car], {})
            o[O_CAR_PURSES + car] = loot.get("purses", K.CAR_PURSES[car])
            o[O_CAR_JEWELS + car] = loot.get("jewels", K.CAR_JEWELS[car])
        for c, name in enumerate(K.BANDIT_NAMES):
            counts = self.decks.get(name, dict(zip(ACTION_KINDS, PRINTED_DECK)))
            for k, kind in enumerate(ACTION_KINDS):
                o[O_DECK + c * K.N_ACTION_KINDS + k] = counts[kind]
            o[O_BULLETS + c] = self.bullets.get(name, K.BULLETS_PER_BANDIT)
        o[O_MARSHAL_CAR] = self.marshal_car
        return o

    def card_code(self, name: str) -> int:
        """The code of a round or station card, printed or new (constants.FIRST_NEW_CARD..)."""
        if name in K.ROUND_CARD_NAMES:
            return K.ROUND_CARD_NAMES.index(name)
        return K.FIRST_NEW_CARD + [c.name for c in self.new_cards].index(name)

    def card_name(self, code: int) -> str:
        """The name of the card of ``code`` (``card_code``'s inverse)."""
        code = int(code)
        if code < K.FIRST_NEW_CARD:
            return K.ROUND_CARD_NAMES[code]
        return self.new_cards[code - K.FIRST_NEW_CARD].name

    def card_turns(self, code: int, players: int) -> list:
        """The turn letters of the card of ``code`` with ``players`` players."""
        return [K.TURN_LETTERS[t] for t in self._turns(int(code), 1 if players >= 5 else 0)]

    def _turns(self, code: int, group: int) -> tuple:
        if code < K.FIRST_NEW_CARD:
            return K.ROUND_TURNS[code][group]
        j = code - K.FIRST_NEW_CARD
        if j >= len(self.new_cards):
            return ()
        card = self.new_cards[j]
        return tuple(K.TURN_LETTERS.index(c) for c in (card.turns_5_6 if group else card.turns))

    def _event(self, code: int) -> int:
        if code < K.FIRST_NEW_CARD:
            return K.NO_EVENT if code in (K.TUNNEL, K.BRIDGE) else code
        j = code - K.FIRST_NEW_CARD
        if j >= len(self.new_cards) or self.new_cards[j].event == "none":
            return K.NO_EVENT
        return K.ROUND_CARD_NAMES.index(self.new_cards[j].event)


# Each option's default as Rules.as_dict writes it (a tuple as a list).
_DEFAULTS = {f.name: list(v) if isinstance(v, tuple) else v for f in dataclasses.fields(Rules)
             for v in [f.default if f.default is not dataclasses.MISSING else f.default_factory()]}


def option_text(name: str, value) -> str | int | bool:
    """A rule option's value as one cell of a table (a setting's row, a report's line): a list
    of names joined by commas, a designer's cards and tables in short words; other values as
    they are."""
    if name == "new_cards":
        return "; ".join(f"{c['name']} ({c['turns']}/{c.get('turns_5_6') or c['turns']}, "
                         f"{c.get('event', 'none')})" for c in value)
    if isinstance(value, dict):
        return "; ".join(f"{key}: " + (", ".join(f"{k} {n}" for k, n in inner.items())
                                       if isinstance(inner, dict) else str(inner))
                         for key, inner in value.items())
    if isinstance(value, (list, tuple)):
        return ",".join(value)
    return value


def option_names() -> tuple:
    """Every name a mapping of rule options may use (:meth:`Rules.from_dict`): the fields of
    :class:`Rules`, then ``abilities_off``."""
    return tuple(f.name for f in dataclasses.fields(Rules)) + (ABILITIES_OFF,)
