"""Hand-built positions for scenario tests and experiments: set up a position, play one card,
one event or one Schemin', look at the result.

>>> from tests.positions import Position, play_card, where
>>> pos = (Position(players=3, lineup="tuco,cheyenne,django", cars="ABC")
...        .place("tuco", car=2, level="roof").place("cheyenne", car=2, level="inside")
...        .place("django", car=3, level="roof"))
>>> st = pos.build()                                      # checked: a legal position
>>> play_card(st, "tuco", "fire", choose=[1])             # Tuco shoots Cheyenne through the roof
[Decision(player=0, kind='fire', options=[2, 1])]
>>> int(st.bandit[1, 5])                                  # B_RECEIVED of Cheyenne (bandit 1)
1

Django on the next roof and Cheyenne below Tuco were both targets, so Tuco was asked; a decision
with a single legal option is taken without asking.

The train is drawn left to right from the locomotive (car 0) to the caboose (car C).
Bandits are named by their characters; players are seats (bandit ``b`` is player ``b`` except in
the 2-player variant, where player ``p`` has bandits ``2p`` and ``2p + 1``).

This module holds no compiled code of its own (it calls the engine's kernels from Python), so
editing it does not change the hash that keys numba's cache (``coltsim._jit``).
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Sequence, Union

import numpy as np

from coltsim import constants as K
from coltsim.engine import flow
from coltsim.engine import scoring as _scoring
from coltsim.engine.check import CHECK_NAMES, check_invariants
from coltsim.engine.scoring import RB_N, RG_N, score_game
from coltsim.engine.setup import setup_game
from coltsim.engine.state import (
    B_BULLETS, B_CHAR, B_CAR, B_LEVEL, B_NEUTRAL, B_RECEIVED, B_TEAM, G_BANDITS, G_CARS,
    G_CHECKPOINT, G_FIRST, G_MARSHAL, G_NEUTRAL_LEFT, G_NEUTRAL_REMOVED, G_PEND_KIND, G_PEND_N,
    G_PEND_PLAYER, G_PHASE, G_PILE_N, G_POS, G_ROUND, G_SLOT, G_TURN, L_KIND, L_VALUE, L_WHERE,
    PH_DISCARD, PH_EVENT, PH_KEEP, PH_OVER, PH_ROUND_START, PH_SCHEME, PH_STEAL, PILE_CARD,
    PILE_DOWN, PILE_PLAYER, Z_DECK, Z_HAND, count_loot, init_table, make_card, new_states,
    push_card, remove_card,
)
from coltsim.rules import O_NEUTRAL_BULLETS, Rules
from coltsim.setting import bandits_per_player, check_rules, lineup_codes

_KIND_CODE = {name: i for i, name in enumerate(K.LOOT_NAMES)}
_CARD_CODE = {name: i for i, name in enumerate(K.CARD_NAMES)}
_LEVEL_CODE = {name: i for i, name in enumerate(K.LEVEL_NAMES)}
# Per-bandit result columns of scoring.py by name: RB_SCORE -> "score".
_RB_NAMES = {name[3:].lower(): getattr(_scoring, name) for name in dir(_scoring)
             if name.startswith("RB_") and name != "RB_N"}


class Decision(NamedTuple):
    """One decision asked while driving a position: who, what kind (flow.DECISION_NAMES) and
    the legal option values."""

    player: int
    kind: str
    options: list


class Position:
    """A position under construction.

    Starts as a real setup of game 0 of ``seed`` with the given line-up, cars and rules, then
    every method changes one thing and returns ``self``; ``build()`` checks the result and
    returns the state.  Methods refuse what can never happen in a game (a token that is not in
    the box, a card the player does not hold, a bandit off the train or inside the Marshal's
    car...)."""

    def __init__(self, players: int = 4, lineup=None, cars=None, rules: Rules | dict | None = None,
                 seed: int = 0):
        rules = check_rules(rules, players)
        if cars is not None:
            rules = Rules.from_dict({**rules.as_dict(), "cars": list(cars)})
            rules.check_players(players)
        self.players = players
        self.rules = rules
        self.n_bandits = players * bandits_per_player(players)
        self.st = new_states(1)[0]
        init_table(self.st, players, rules.to_array(), np.zeros(players, np.int64),
                   np.zeros((players, 1)))
        setup_game(self.st, seed, 0, lineup_codes(players, lineup))

    # --- lookups ----------------------------------------------------------------------------
    def bandit(self, who) -> int:
        """Bandit number of a character name (or a number, returned as is)."""
        return bandit_id(self.st, who)

    def player(self, who) -> int:
        """Player (seat) of a bandit name, or a player number returned as is."""
        if isinstance(who, (int, np.integer)):
            if not 0 <= who < self.players:
                raise ValueError(f"player {who} is not in this game "
                                 f"(players are 0..{self.players - 1})")
            return int(who)
        return int(self.st.bandit[self.bandit(who), B_TEAM])

    # --- the train ----------------------------------------------------------------------------
    def place(self, who, car: int, level: str = "inside") -> "Position":
        """Put a bandit on a spot (checked by ``build``: on the train, not with the Marshal)."""
        if level not in _LEVEL_CODE:
            raise ValueError(f"unknown level {level!r}; allowed: {', '.join(K.LEVEL_NAMES)}")
        b = self.bandit(who)
        self.st.bandit[b, B_CAR] = car
        self.st.bandit[b, B_LEVEL] = _LEVEL_CODE[level]
        return self

    def marshal(self, car: int) -> "Position":
        self.st.game[G_MARSHAL] = car
        return self

    def clear_loot(self) -> "Position":
        """Every loot token back in the box (train and bandits empty, even the first strongbox
        and the starting purses)."""
        self.st.loot[:, L_WHERE] = K.IN_BOX
        return self

    def _token_from_box(self, kind: str, value: int | None) -> int:
        if kind not in _KIND_CODE:
            raise ValueError(f"unknown loot kind {kind!r}; allowed: {', '.join(K.LOOT_NAMES)}")
        loot = self.st.loot
        for t in range(K.N_LOOT):
            if (loot[t, L_WHERE] == K.IN_BOX and loot[t, L_KIND] == _KIND_CODE[kind]
                    and loot[t, L_VALUE] > 0  # (an extra jewel no car holds is not in the game)
                    and (value is None or loot[t, L_VALUE] == value)):
                return t
        raise ValueError(f"no {kind} {'' if value is None else f'of ${value} '}left in the box")

    def put(self, kind: str, car: int, level: str = "inside", value: int | None = None) -> int:
        """Put a token from the box on a spot; returns its id.  Ransoms never lie on a spot."""
        if kind == "ransom":
            raise ValueError("a ransom is only ever gained by a bandit (Hostage-Taking), never "
                             "put on a spot")
        if level not in _LEVEL_CODE:
            raise ValueError(f"unknown level {level!r}; allowed: {', '.join(K.LEVEL_NAMES)}")
        if not 0 <= car <= self.st.game[G_CARS]:
            raise ValueError(f"car {car} is off the train (cars are 0..{self.st.game[G_CARS]})")
        t = self._token_from_box(kind, value)
        self.st.loot[t, L_WHERE] = 2 * car + _LEVEL_CODE[level]
        return t

    def give(self, who, kind: str, value: int | None = None) -> int:
        """Give a bandit a token from the box; returns its id.  A ransom is the bandit's own."""
        b = self.bandit(who)
        if kind == "ransom":
            t = K.FIRST_RANSOM + b
            if self.st.loot[t, L_WHERE] != K.IN_BOX:
                raise ValueError(f"bandit {who} already has its ransom")
            if value not in (None, K.RANSOM_VALUE):
                raise ValueError(f"a ransom is worth ${K.RANSOM_VALUE}, not ${value}")
        else:
            t = self._token_from_box(kind, value)
        self.st.loot[t, L_WHERE] = K.AT_BANDIT + b
        return t

    # --- bullets and cards --------------------------------------------------------------------
    def shot(self, shooter, target, n: int = 1) -> "Position":
        """``shooter`` has already fired ``n`` bullets at ``target`` (into the target's deck)."""
        s, t = self.bandit(shooter), self.bandit(target)
        if s == t:
            raise ValueError(f"bandit {shooter} cannot have shot itself")
        if self.st.bandit[s, B_BULLETS] < n:
            raise ValueError(f"bandit {shooter} has only {self.st.bandit[s, B_BULLETS]} "
                             f"bullets left")
        self.st.bandit[s, B_BULLETS] -= n
        self.st.bandit[t, B_RECEIVED] += n
        p = int(self.st.bandit[t, B_TEAM])
        for _ in range(n):
            push_card(self.st, p, Z_DECK, make_card(K.BULLET, s))
        return self

    def neutral(self, who, n: int = 1) -> "Position":
        """``who`` has already received ``n`` neutral bullets from the supply (into its deck)."""
        b = self.bandit(who)
        left = int(self.st.game[G_NEUTRAL_LEFT])
        if 0 <= left < n:
            raise ValueError(f"only {left} neutral bullets left beside the locomotive")
        if left > 0:
            self.st.game[G_NEUTRAL_LEFT] = left - n
        self.st.bandit[b, B_NEUTRAL] += n
        p = int(self.st.bandit[b, B_TEAM])
        for _ in range(n):
            push_card(self.st, p, Z_DECK, make_card(K.BULLET, K.NEUTRAL))
        return self

    def neutral_left(self, n: int) -> "Position":
        """Neutral bullets left beside the locomotive (the rest are out of the game)."""
        supply = self.st.opts[O_NEUTRAL_BULLETS]
        if supply < 0:
            raise ValueError("the neutral-bullet supply is unlimited under these rules")
        left = int(self.st.game[G_NEUTRAL_LEFT])
        if not 0 <= n <= left:
            raise ValueError(f"neutral bullets left must be in 0..{left}, got {n}")
        self.st.game[G_NEUTRAL_REMOVED] += left - n
        self.st.game[G_NEUTRAL_LEFT] = n
        return self

    def hand(self, who, cards) -> "Position":
        """Move the named cards (``"move"``, ``"fire"``, ``"bullet"``...) from the player's deck
        into its hand, in order.  ``who`` is a player number or a bandit name."""
        p = self.player(who)
        for name in cards:
            _move_card(self.st, p, Z_DECK, Z_HAND, self._card(p, name))
        return self

    def empty_deck(self, who) -> "Position":
        """Move the rest of the player's deck into its hand (so it cannot draw)."""
        p = self.player(who)
        n = self.st.ncards[p, Z_DECK]
        for card in list(self.st.cards[p, Z_DECK, :n]):
            _move_card(self.st, p, Z_DECK, Z_HAND, int(card))
        return self

    def stack(self, who, cards) -> "Position":
        """Put the named cards of the player's deck on its top, in order: ``cards[0]`` is drawn
        first."""
        p = self.player(who)
        taken: list[int] = []
        picked = [self._card(p, name, taken) for name in cards]
        for card in picked:
            remove_card(self.st, p, Z_DECK, card)
        for card in reversed(picked):
            push_card(self.st, p, Z_DECK, card)
        return self

    def on_pile(self, who, cards, face_down: bool = False) -> "Position":
        """The named action cards of the player were already played this round (taken from its
        hand, or its deck).  Used to reach positions such as the forced pass."""
        p = self.player(who)
        for name in cards:
            if name == "bullet":
                raise ValueError("a bullet card cannot be played")
            card = self._card(p, name, zones=(Z_HAND, Z_DECK))
            zone = Z_HAND if _holds(self.st, p, Z_HAND, card) else Z_DECK
            remove_card(self.st, p, zone, card)
            i = int(self.st.game[G_PILE_N])
            self.st.pile[i, PILE_CARD] = card
            self.st.pile[i, PILE_PLAYER] = p
            self.st.pile[i, PILE_DOWN] = int(face_down)
            self.st.game[G_PILE_N] = i + 1
        self.st.game[G_PHASE] = PH_SCHEME  # a pile being built, not yet resolved
        return self

    def _card(self, p: int, name: str, taken=None, zones=(Z_DECK,)) -> int:
        """A card of player ``p`` of kind ``name`` in ``zones`` (not one listed in ``taken``)."""
        if name not in _CARD_CODE:
            raise ValueError(f"unknown card {name!r}; allowed: {', '.join(K.CARD_NAMES)}")
        kind = _CARD_CODE[name]
        for z in zones:
            held = [int(c) for c in self.st.cards[p, z, :self.st.ncards[p, z]]]
            for c in reversed(held):  # the top of a deck first
                if c & K.CARD_KIND_MASK == kind:
                    if taken is not None:
                        if taken.count(c) >= held.count(c):
                            continue
                        taken.append(c)
                    return c
        where = " or ".join(("deck", "hand", "discard pile")[z] for z in zones)
        raise ValueError(f"player {p} has no {name} card left in its {where}")

    def first_player(self, player: int) -> "Position":
        self.st.game[G_FIRST] = self.player(player)
        return self

    def round_card(self, name: str, round_index: int = 0) -> "Position":
        """Make ``name`` the round card of round ``round_index`` (0-based) and that round the
        current one."""
        if name not in K.ROUND_CARD_NAMES:
            raise ValueError(f"unknown round card {name!r}; "
                             f"allowed: {', '.join(K.ROUND_CARD_NAMES)}")
        if not 0 <= round_index < self.rules.rounds:
            raise ValueError(f"round must be in 0..{self.rules.rounds - 1}, got {round_index}")
        self.st.rounds[round_index] = K.ROUND_CARD_NAMES.index(name)
        self.st.game[G_ROUND] = round_index
        return self

    # --- done -----------------------------------------------------------------------------------
    def build(self):
        """The state, after checking that the position is legal (``ValueError`` if not).

        Driven by this module's functions, every action and event of a scenario is checked as it
        resolves."""
        st = self.st
        cab = st.game[G_CARS]
        for b in range(self.n_bandits):
            car = st.bandit[b, B_CAR]
            if not 0 <= car <= cab:
                raise ValueError(f"{_name(st, b)} is off the train (car {car}; cars are 0..{cab})")
        if not 0 <= st.game[G_MARSHAL] <= cab:
            raise ValueError(f"the Marshal is off the train (car {st.game[G_MARSHAL]}; "
                             f"cars are 0..{cab})")
        for b in range(self.n_bandits):
            if st.bandit[b, B_CAR] == st.game[G_MARSHAL] and st.bandit[b, B_LEVEL] == K.INSIDE:
                raise ValueError(f"{_name(st, b)} is inside the Marshal's car "
                                 f"(car {st.game[G_MARSHAL]}); a bandit never stays there")
        count_loot(st)  # the loot was placed by hand
        _raise_if_broken(st, ValueError, "impossible position")
        return st


def _holds(st, p, zone, card) -> bool:
    return card in [int(c) for c in st.cards[p, zone, :st.ncards[p, zone]]]


def _move_card(st, p, src, dst, card):
    """Move one ``card`` between zones of player ``p``."""
    if not remove_card(st, p, src, card):
        raise ValueError(f"player {p} holds no card {card} there")
    push_card(st, p, dst, card)


def _raise_if_broken(st, error, what):
    """Raise ``error`` naming the first broken invariant of ``st``."""
    code = check_invariants(st)
    if code:
        raise error(f"{what}: {CHECK_NAMES[code]}")


# --- reading a position ---------------------------------------------------------------------------
def bandit_id(st, who) -> int:
    """Bandit number of a character name (or a number, checked and returned as is)."""
    n = int(st.game[G_BANDITS])
    if isinstance(who, (int, np.integer)):
        if not 0 <= who < n:
            raise ValueError(f"bandit {who} is not in this game (bandits are 0..{n - 1})")
        return int(who)
    if who not in K.BANDIT_NAMES:
        raise ValueError(f"unknown bandit {who!r}; allowed: {', '.join(K.BANDIT_NAMES)}")
    hits = np.flatnonzero(st.bandit[:n, B_CHAR] == K.BANDIT_NAMES.index(who))
    if len(hits) == 0:
        raise ValueError(f"{who} is not in this game")
    return int(hits[0])


def _name(st, b) -> str:
    return K.BANDIT_NAMES[st.bandit[b, B_CHAR]]


def where(st, who) -> tuple[int, str]:
    """(car, level name) of a bandit."""
    b = bandit_id(st, who)
    return int(st.bandit[b, B_CAR]), K.LEVEL_NAMES[st.bandit[b, B_LEVEL]]


def loot_of(st, who) -> list[tuple[str, int]]:
    """The tokens a bandit carries, as sorted (kind name, value) pairs."""
    return _tokens(st, K.AT_BANDIT + bandit_id(st, who))


def loot_on(st, car: int, level: str = "inside") -> list[tuple[str, int]]:
    """The tokens lying on a spot, as sorted (kind name, value) pairs."""
    return _tokens(st, 2 * car + _LEVEL_CODE[level])


def _tokens(st, w) -> list[tuple[str, int]]:
    loot = st.loot
    return sorted((K.LOOT_NAMES[loot[t, L_KIND]], int(loot[t, L_VALUE]))
                  for t in range(K.N_LOOT) if loot[t, L_WHERE] == w)


def card_value(st, who, name: str, face_down: bool = False) -> int:
    """The plan option value of playing bandit ``who``'s card ``name`` (``kind + 8 * bandit``,
    with flow.FACE_DOWN when played face down)."""
    return make_card(_CARD_CODE[name], bandit_id(st, who)) | (flow.FACE_DOWN if face_down else 0)


def hand_cards(st, who) -> list[str]:
    """Names of the cards in a player's hand (``who``: player number or bandit name), in order."""
    p = who if isinstance(who, (int, np.integer)) else int(st.bandit[bandit_id(st, who), B_TEAM])
    return [K.CARD_NAMES[c & K.CARD_KIND_MASK] for c in st.cards[p, Z_HAND, :st.ncards[p, Z_HAND]]]


def pile_cards(st):
    """The pile as (player, card name, face) tuples, in play order."""
    n = int(st.game[G_PILE_N])
    return [(int(st.pile[i, PILE_PLAYER]), K.CARD_NAMES[st.pile[i, PILE_CARD] & K.CARD_KIND_MASK],
             "down" if st.pile[i, PILE_DOWN] else "up") for i in range(n)]


def score(st) -> dict[str, dict[str, int]]:
    """Score the game as it stands (scoring.score_game): per bandit name, every ``RB_*`` column
    by its lower-case name (``"loot"``, ``"score"``, ``"rank"``, ``"win"``, ``"gunslinger"``...)."""
    nb = int(st.game[G_BANDITS])
    out_b = np.zeros((nb, RB_N), np.int64)
    out_g = np.zeros(RG_N, np.int64)
    score_game(st, out_b, out_g)
    return {_name(st, b): {col: int(out_b[b, i]) for col, i in _RB_NAMES.items()}
            for b in range(nb)}


# --- playing one card, one event, one Schemin' -------------------------------------------------
# Answers to the decisions: option values in order, or a function of each Decision.
Choices = Union[Sequence[int], Callable[[Decision], int]]


def _drive(st, choose, until) -> list[Decision]:
    """Play ``st`` on, answering each decision with the next value of ``choose`` (an option
    value, which must be legal; or a function of the Decision returning one), until
    ``until(st)``; returns every decision asked.  Raises if an invariant breaks."""
    asked = []
    queue = None if callable(choose) else list(choose)
    checked = st.game[G_CHECKPOINT]
    while not until(st):
        if st.game[G_CHECKPOINT] != checked:  # a card or an event resolved
            checked = st.game[G_CHECKPOINT]
            _raise_if_broken(st, AssertionError, "engine broke an invariant")
        status = flow.step(st)
        if status == flow.STEP_OVER:
            break
        if status == flow.STEP_MOVED:
            continue
        n = int(st.game[G_PEND_N])
        d = Decision(int(st.game[G_PEND_PLAYER]), flow.DECISION_NAMES[st.game[G_PEND_KIND]],
                     [int(v) for v in st.options[:n]])
        asked.append(d)
        if queue is None:
            value = choose(d)
        elif queue:
            value = queue.pop(0)
        else:
            raise ValueError(f"no choice given for decision {d}")
        if value not in d.options:
            raise ValueError(f"{value} is not a legal option of {d}")
        flow.apply(st, d.options.index(value))
    if queue:
        raise ValueError(f"choices left unused: {queue}")
    _raise_if_broken(st, AssertionError, "engine broke an invariant")
    return asked


def play_card(st, who, card: str, choose: Choices = (), face_down: bool = False) -> list[Decision]:
    """Resolve one action card of bandit ``who`` in the current position.

    The card is taken from its owner's hand or deck and goes back to the deck once resolved.
    ``choose`` lists the owner's answers in order (option values: a car, a bandit number, a
    loot kind code, 1/0 for yes/no), or is a function of each Decision.  A decision with a
    single legal option is taken without asking.  Returns the decisions asked."""
    b = bandit_id(st, who)
    p, c = int(st.bandit[b, B_TEAM]), make_card(_CARD_CODE[card], b)
    if not (remove_card(st, p, Z_HAND, c) or remove_card(st, p, Z_DECK, c)):
        raise ValueError(f"player {p} holds no {card} card of {_name(st, b)} to play")
    st.pile[0, PILE_CARD] = c
    st.pile[0, PILE_PLAYER] = p
    st.pile[0, PILE_DOWN] = int(face_down)
    st.game[G_PILE_N] = 1
    st.game[G_POS] = 0
    st.game[G_PHASE] = PH_STEAL
    st.game[G_PEND_N] = 0
    return _drive(st, choose, lambda s: s.game[G_POS] >= 1 or s.game[G_PHASE] != PH_STEAL)


def run_event(st, name: str, choose: Choices = ()) -> list[Decision]:
    """Play the end-of-round event ``name`` of the current round; returns the decisions.

    The round then ends as in a game: the next player becomes First Player and the round
    counter moves on."""
    st.rounds[st.game[G_ROUND]] = K.ROUND_CARD_NAMES.index(name)
    st.game[G_PILE_N] = 0
    st.game[G_PHASE] = PH_EVENT
    st.game[G_SLOT] = 0
    st.game[G_POS] = 0
    st.game[G_PEND_N] = 0
    r = int(st.game[G_ROUND])
    return _drive(st, choose, lambda s: s.game[G_ROUND] != r or s.game[G_PHASE] == PH_OVER)


def deal(st) -> None:
    """Start the current round (docs/RULES.md 4.1): every player shuffles its deck and draws."""
    st.game[G_PHASE] = PH_ROUND_START
    st.game[G_PEND_N] = 0
    _drive(st, (), lambda s: s.game[G_PHASE] != PH_ROUND_START)


def scheme(st, choose: Choices = (), turns: int | None = None) -> list[Decision]:
    """Play the Schemin' phase of the current round from its first turn, with the hands as they
    are; returns the decisions asked (each of kind ``"plan"``).

    Stops when Stealin' is about to begin (hands are back on the decks), or after ``turns``
    turns of the round card if given (hands still in hand).  A pile built with
    ``Position.on_pile`` is kept; a pile already resolved (``play_card``, ``steal``) is cleared."""
    if st.game[G_PHASE] != PH_SCHEME:
        st.game[G_PILE_N] = 0
    st.game[G_PHASE] = PH_SCHEME
    st.game[G_TURN] = 0
    st.game[G_SLOT] = 0
    st.game[G_PEND_N] = 0
    if turns is None:
        return _drive(st, choose, lambda s: s.game[G_PHASE] != PH_SCHEME)
    return _drive(st, choose, lambda s: s.game[G_PHASE] != PH_SCHEME or s.game[G_TURN] >= turns)


def steal(st, choose: Choices = ()) -> list[Decision]:
    """Resolve the whole pile in play order (Stealin'), stopping before the event."""
    if st.game[G_PHASE] != PH_STEAL:
        raise ValueError("Stealin' comes after Schemin': call scheme() first")
    return _drive(st, choose, lambda s: s.game[G_PHASE] != PH_STEAL)


def discards(st, choose: Choices = ()) -> list[Decision]:
    """Advanced rules: the optional discards at the start of Schemin' (after ``deal``), one card
    at a time per player from the First Player; answer a card code to discard it or
    ``flow.OPT_STOP``.  Stops when Schemin' begins."""
    if st.game[G_PHASE] != PH_DISCARD:
        raise ValueError("the discards come right after the deal with the advanced rules")
    return _drive(st, choose, lambda s: s.game[G_PHASE] != PH_DISCARD)


def keeps(st, choose: Choices = ()) -> list[Decision]:
    """Advanced rules: at the end of Schemin' each player discards what it does not keep (card
    codes, then ``flow.OPT_STOP``).  Stops when Stealin' begins."""
    if st.game[G_PHASE] != PH_KEEP:
        raise ValueError("keeping cards comes at the end of Schemin' with the advanced rules")
    return _drive(st, choose, lambda s: s.game[G_PHASE] != PH_KEEP)
