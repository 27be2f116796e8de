"""Hand-built positions for scenario tests and experiments: set up a position, play one card
or one event, look at the result.

>>> pos = Position(players=3, bandits="tuco,belle,django", cars="ABC")
>>> pos.place("tuco", car=2, level="roof").place("belle", car=2, level="inside")
>>> st = pos.build()                                      # checked: a legal position
>>> asked = play_card(st, "tuco", "fire", choose=[1])     # Tuco shoots Belle through the roof

The train is drawn left to right from the locomotive (car 0) to the caboose (car C).
Names of bandits are their characters; players are seats (bandit ``b`` is player ``b`` except in
the 2-player variant).
"""
from __future__ import annotations

import numpy as np

from . import constants as K
from ._jit import njit
from .engine import flow
from .engine.check import CHECK_NAMES, check_invariants
from .engine.setup import setup_game
from .engine.state import (
    B_BULLETS, B_CAR, B_CHAR, B_LEVEL, B_RECEIVED, B_TEAM, G_CARS, G_FIRST, G_MARSHAL,
    G_NEUTRAL_LEFT, G_NEUTRAL_REMOVED, G_PEND_KIND, G_PEND_N, G_PHASE, G_PILE_N, G_POS, G_ROUND, G_SLOT, G_TURN,
    L_KIND, L_VALUE, L_WHERE, PH_EVENT, PH_OVER, PH_SCHEME, PH_STEAL, PILE_CARD, PILE_DOWN,
    PILE_PLAYER, Z_DECK, Z_HAND, make_card, new_state, push_card, remove_card,
)
from .rules import O_NEUTRAL_BULLETS, Rules
from .setting import bandits_per_player, check_rules, lineup_codes

_KIND_CODE = {name: i for i, name in enumerate(K.LOOT_NAMES)}
_CARD_CODE = {name: i for i, name in enumerate(K.CARD_NAMES)}
_LEVEL_CODE = {name: i for i, name in enumerate(K.LEVEL_NAMES)}


@njit
def _setup(st, seed, lineup):
    setup_game(st, seed, 0, lineup)


@njit
def _check(st):
    return check_invariants(st)


class Position:
    """A position under construction.  Starts as a real setup of game 0 of ``seed`` with the
    given bandits and cars, then every method changes one thing and returns ``self``."""

    def __init__(self, players: int = 4, bandits=None, cars=None, rules: Rules | dict | None = None,
                 seed: int = 0):
        rules = check_rules(rules, players)
        if cars is not None:
            rules = Rules.from_dict({**rules.as_dict(), "cars": list(cars)})
        self.players = players
        self.n_bandits = players * bandits_per_player(players)
        self.st = new_state(players, self.n_bandits, rules.to_array(), 0)
        _setup(self.st, seed, lineup_codes(players, bandits))

    # --- lookups ----------------------------------------------------------------------------
    def bandit(self, who) -> int:
        """Bandit number of a character name (or a number, returned as is)."""
        if isinstance(who, (int, np.integer)):
            return int(who)
        code = K.BANDIT_NAMES.index(who)
        hits = np.flatnonzero(self.st.bandit[:, B_CHAR] == code)
        if len(hits) == 0:
            raise ValueError(f"{who} is not in this game")
        return int(hits[0])

    # --- the train ----------------------------------------------------------------------------
    def place(self, who, car: int, level: str = "inside") -> "Position":
        b = self.bandit(who)
        self.st.bandit[b, B_CAR] = car
        self.st.bandit[b, B_LEVEL] = _LEVEL_CODE[level]
        return self

    def marshal(self, car: int) -> "Position":
        self.st.game[G_MARSHAL] = car
        return self

    def clear_loot(self) -> "Position":
        """Every loot token back in the box (train and bandits empty)."""
        self.st.loot[:, L_WHERE] = K.IN_BOX
        return self

    def _token_from_box(self, kind: str, value: int | None) -> int:
        loot = self.st.loot
        for t in range(K.N_LOOT):
            if (loot[t, L_WHERE] == K.IN_BOX and loot[t, L_KIND] == _KIND_CODE[kind]
                    and (value is None or loot[t, L_VALUE] == value)
                    and not (kind == "ransom" and t - K.FIRST_RANSOM >= self.n_bandits)):
                return t
        raise ValueError(f"no {kind} {'' if value is None else f'of ${value} '}left in the box")

    def put(self, kind: str, car: int, level: str = "inside", value: int | None = None) -> int:
        """Put a token from the box on a spot; returns its id."""
        t = self._token_from_box(kind, value)
        self.st.loot[t, L_WHERE] = 2 * car + _LEVEL_CODE[level]
        return t

    def give(self, who, kind: str, value: int | None = None) -> int:
        """Give a bandit a token from the box; returns its id."""
        t = self._token_from_box(kind, value)
        self.st.loot[t, L_WHERE] = K.AT_BANDIT + self.bandit(who)
        return t

    # --- bullets and cards --------------------------------------------------------------------
    def shot(self, shooter, target, n: int = 1) -> "Position":
        """``shooter`` has already fired ``n`` bullets at ``target`` (cards in its deck)."""
        s, t = self.bandit(shooter), self.bandit(target)
        if self.st.bandit[s, B_BULLETS] < n:
            raise ValueError(f"bandit {shooter} has only {self.st.bandit[s, B_BULLETS]} bullets left")
        self.st.bandit[s, B_BULLETS] -= n
        self.st.bandit[t, B_RECEIVED] += n
        p = self.st.bandit[t, B_TEAM]
        for _ in range(n):
            self.st.cards[p, Z_DECK, self.st.ncards[p, Z_DECK]] = make_card(K.BULLET, s)
            self.st.ncards[p, Z_DECK] += 1
        return self

    def neutral_left(self, n: int) -> "Position":
        """Neutral bullets left beside the locomotive (the rest are out of the game)."""
        supply = self.st.opts[O_NEUTRAL_BULLETS]
        self.st.game[G_NEUTRAL_REMOVED] += self.st.game[G_NEUTRAL_LEFT] - n
        self.st.game[G_NEUTRAL_LEFT] = n if supply >= 0 else -1
        return self

    def hand(self, player: int, cards) -> "Position":
        """Move the named action cards from ``player``'s deck into its hand (in order)."""
        for name in cards:
            card = self._card(player, name)
            _move_card(self.st, player, Z_DECK, Z_HAND, card)
        return self

    def empty_deck(self, player: int) -> "Position":
        """Move the rest of ``player``'s deck into its hand (so it cannot draw)."""
        n = self.st.ncards[player, Z_DECK]
        for card in list(self.st.cards[player, Z_DECK, :n]):
            _move_card(self.st, player, Z_DECK, Z_HAND, card)
        return self

    def _card(self, player: int, name: str) -> int:
        kind = _CARD_CODE[name]
        deck = self.st.cards[player, Z_DECK, :self.st.ncards[player, Z_DECK]]
        for c in deck:
            if c & K.CARD_KIND_MASK == kind:
                return int(c)
        raise ValueError(f"player {player} has no {name} card left in its deck")

    def first_player(self, player: int) -> "Position":
        self.st.game[G_FIRST] = player
        return self

    def round_card(self, name: str, round_index: int = 0) -> "Position":
        self.st.rounds[round_index] = K.ROUND_CARD_NAMES.index(name)
        self.st.game[G_ROUND] = round_index
        return self

    # --- done -----------------------------------------------------------------------------------
    def build(self):
        """The state, after checking that the position is legal (``ValueError`` if not)."""
        cab = self.st.game[G_CARS]
        for b in range(self.n_bandits):
            car, level = self.st.bandit[b, B_CAR], self.st.bandit[b, B_LEVEL]
            if not 0 <= car <= cab:
                raise ValueError(f"bandit {b} is off the train (car {car}; cars are 0..{cab})")
        if not 0 <= self.st.game[G_MARSHAL] <= cab:
            raise ValueError(f"the Marshal is off the train (car {self.st.game[G_MARSHAL]})")
        code = _check(self.st)
        if code:
            raise ValueError(f"impossible position: {CHECK_NAMES[code]}")
        return self.st


@njit
def _move_card(st, p, src, dst, card):
    """Move one ``card`` between zones of player ``p``; False if ``src`` has none."""
    if not remove_card(st, p, src, card):
        return False
    push_card(st, p, dst, card)
    return True


# --- playing one card, one event, one Schemin' -------------------------------------------------
def _drive(st, choose, until) -> list[tuple[str, list[int]]]:
    """Play ``st`` on, answering each decision with the next value of ``choose`` (an option
    value, which must be legal), until ``until(st)``; returns every decision asked as
    (kind name, legal option values)."""
    asked = []
    choose = list(choose)
    while not until(st):
        status = flow.step(st)
        if status == flow.STEP_OVER:
            break
        if status == flow.STEP_MOVED:
            continue
        n = int(st.game[G_PEND_N])
        options = [int(v) for v in st.options[:n]]
        asked.append((flow.DECISION_NAMES[st.game[G_PEND_KIND]], options))
        if not choose:
            raise ValueError(f"no choice given for decision {asked[-1]}")
        value = choose.pop(0)
        if value not in options:
            raise ValueError(f"{value} is not a legal option of {asked[-1]}")
        flow.apply(st, options.index(value))
    if choose:
        raise ValueError(f"choices left unused: {choose}")
    return asked


def play_card(st, who, card: str, choose=(), face_down: bool = False):
    """Resolve one action card of bandit ``who`` in the current position.

    ``choose`` lists the owner's answers in order (option values: a car, a bandit number, a
    loot kind code, 1/0 for yes/no).  A decision with a single legal option is taken without
    asking.  Returns the decisions asked, as (kind, legal options)."""
    b = who if isinstance(who, (int, np.integer)) else _bandit_of(st, who)
    st.pile[0, PILE_CARD] = make_card(_CARD_CODE[card], b)
    st.pile[0, PILE_PLAYER] = st.bandit[b, B_TEAM]
    st.pile[0, PILE_DOWN] = int(face_down)
    st.game[G_PILE_N] = 1
    st.game[G_POS] = 0
    st.game[G_PHASE] = PH_STEAL
    st.game[G_PEND_N] = 0
    # The card comes from its owner's deck or hand, so cards stay conserved.
    p, c = int(st.bandit[b, B_TEAM]), int(st.pile[0, PILE_CARD])
    if not (_remove_card(st, p, Z_DECK, c) or _remove_card(st, p, Z_HAND, c)):
        raise ValueError(f"player {p} holds no {card} card to play")
    return _drive(st, choose, lambda s: s.game[G_POS] >= 1 or s.game[G_PHASE] != PH_STEAL)


def run_event(st, name: str, choose=()):
    """Play the end-of-round event ``name`` in the current position; returns the decisions."""
    st.rounds[st.game[G_ROUND]] = K.ROUND_CARD_NAMES.index(name)
    st.game[G_PILE_N] = 0
    st.game[G_PHASE] = PH_EVENT
    st.game[G_SLOT] = 0
    st.game[G_POS] = 0
    st.game[G_PEND_N] = 0
    r = int(st.game[G_ROUND])
    return _drive(st, choose, lambda s: s.game[G_ROUND] != r or s.game[G_PHASE] == PH_OVER)


def scheme(st, choose=()):
    """Play the Schemin' phase of the current round from its first turn, with the hands as they
    are; returns the decisions asked (each a ``("plan", options)``)."""
    st.game[G_PHASE] = PH_SCHEME
    st.game[G_TURN] = 0
    st.game[G_SLOT] = 0
    st.game[G_PILE_N] = 0
    st.game[G_PEND_N] = 0
    return _drive(st, choose, lambda s: s.game[G_PHASE] != PH_SCHEME)


def _bandit_of(st, name: str) -> int:
    hits = np.flatnonzero(st.bandit[:, B_CHAR] == K.BANDIT_NAMES.index(name))
    if len(hits) == 0:
        raise ValueError(f"{name} is not in this game")
    return int(hits[0])


@njit
def _remove_card(st, p, zone, card):
    return remove_card(st, p, zone, card)


def pile_cards(st):
    """The pile as (player, card name, face) tuples, in play order."""
    n = int(st.game[G_PILE_N])
    return [(int(st.pile[i, PILE_PLAYER]), K.CARD_NAMES[st.pile[i, PILE_CARD] & K.CARD_KIND_MASK],
             "down" if st.pile[i, PILE_DOWN] else "up") for i in range(n)]

