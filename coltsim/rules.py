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
N_OPTIONS = O_STATION + 1

RUNOUT_NOBODY = 0
RUNOUT_UNTIL_EMPTY = 1
RUNOUT_NAMES = ("nobody", "until_empty")

# Another way to give ``abilities`` in a mapping (Rules.from_dict: experiment files, --rules):
# the bandits whose ability is off, every other bandit keeping its own.
ABILITIES_OFF = "abilities_off"


def _names_list(kind: str, values, allowed) -> None:
    for v in values:
        if v not in allowed:
            raise ValueError(f"unknown {kind} {v!r}; allowed: {', '.join(allowed)}"
                             f"{did_you_mean(v, allowed)}")


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

    def __post_init__(self):
        for name in ("abilities", "cars", "round_cards"):
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
        for name in ("gunslinger_if_nobody_fired", "django_push_without_bullets",
                     "ghost_both_halves", "advanced"):
            boolean(name)
        _names_list("bandit in abilities", self.abilities, K.BANDIT_NAMES)
        _names_list("car", self.cars, K.CAR_NAMES[1:])
        if len(set(self.cars)) != len(self.cars):
            raise ValueError(f"rule option cars lists a car twice: {list(self.cars)}")
        _names_list("round card", self.round_cards, K.ROUND_CARD_NAMES[:K.N_ROUND_CARDS])
        if len(set(self.round_cards)) != len(self.round_cards):
            raise ValueError(f"rule option round_cards lists a card twice: {list(self.round_cards)}")
        if self.round_cards and len(self.round_cards) != self.rounds - 1:
            raise ValueError(f"rule option round_cards must list rounds - 1 = {self.rounds - 1} "
                             f"cards, got {len(self.round_cards)}")
        stations = K.ROUND_CARD_NAMES[K.FIRST_STATION:]
        if self.station and self.station not in stations:
            raise ValueError(f"unknown station {self.station!r}; allowed: {', '.join(stations)}"
                             f"{did_you_mean(self.station, stations)}")

    def check_players(self, players: int) -> None:
        """Raise ``ValueError`` if these rules cannot be played by ``players`` players."""
        cars = 4 if players == 2 else players
        if self.cars and len(self.cars) != cars:
            raise ValueError(f"rule option cars must list {cars} cars for {players} players, "
                             f"got {len(self.cars)}")

    # ------------------------------------------------------------------------------------------
    def as_dict(self) -> dict:
        """Every option by name, as recorded in traces and manifests (JSON-friendly)."""
        d = dataclasses.asdict(self)
        for name in ("abilities", "cars", "round_cards"):
            d[name] = list(d[name])
        return d

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
            o[O_ROUND_CARDS + i] = K.ROUND_CARD_NAMES.index(card)
        if self.station:
            o[O_STATION] = K.ROUND_CARD_NAMES.index(self.station)
        return o


def option_names() -> tuple:
    """Every name a mapping of rule options may use (:meth:`Rules.from_dict`): the fields of
    :class:`Rules`, then ``abilities_off``."""
    return tuple(f.name for f in dataclasses.fields(Rules)) + (ABILITIES_OFF,)
