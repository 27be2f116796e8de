"""Names for people of what the engine, traces and tables name in snake_case: bandits, cards,
round cards, turns, cars and loot; and the nearest allowed name to a misspelt one, for the
messages that refuse it.  Plain Python (the trace renderer, the reports and every check of a
name or key share it).
"""
from __future__ import annotations

import difflib

from . import constants as K

_ROUND_CARDS = {"take_it_all": "Take It All!", "passengers_rebellion": "Passengers' Rebellion",
                "marshals_revenge": "Marshal's Revenge", "hostage_taking": "Hostage-Taking",
                "angry_marshal": "Angry Marshal", "swivel_arm": "Swivel Arm"}
# Action and bullet cards as printed (docs/RULES.md 1).
CARD_LABELS = {"move": "Move", "floor": "Floor Change", "fire": "Fire", "rob": "Robbery",
               "punch": "Punch", "marshal": "Marshal", "bullet": "Bullet"}
# The letters of a round card's turns (docs/RULES.md 3), as a trace writes them.
TURN_LABELS = {"N": "normal (face up)", "T": "tunnel (face down)",
               "D": "speeding-up (two turns in a row)", "S": "switching (counter-clockwise)"}
assert tuple(TURN_LABELS) == K.TURN_LETTERS


def card_label(card: str) -> str:
    """A round or station card as printed: ``"marshals_revenge"`` -> ``"Marshal's Revenge"``."""
    return _ROUND_CARDS.get(card, card.replace("_", " ").title())


def bandit_label(name: str) -> str:
    """``"belle"`` -> ``"Belle"``."""
    return name.title()


def dollars(value: int) -> str:
    """``1250`` -> ``"$1,250"``; ``-250`` -> ``"-$250"``."""
    return f"${value:,}" if value >= 0 else f"-${-value:,}"


def loot_label(kind: str, value: int) -> str:
    """One loot token: ``"$450 purse"``."""
    return f"{dollars(value)} {kind}"


def car_label(name: str) -> str:
    """A car of the train by its name in a trace (``"loco"`` or a letter ``A``-``F``)."""
    return "the locomotive" if name == K.CAR_NAMES[0] else f"car {name}"


def and_list(names) -> str:
    """``["A"]`` -> ``"A"``, ``["A", "B", "C"]`` -> ``"A, B and C"``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def plural(n: int, noun: str) -> str:
    """``plural(1, "purse")`` -> ``"1 purse"``, ``plural(3, "purse")`` -> ``"3 purses"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def seat_label(order: int) -> str:
    """A seat counted clockwise from the First Player of round 1 (the reports' one name for a
    seat): ``0`` -> ``"First Player"``, ``2`` -> ``"First Player +2"``."""
    return "First Player" if order == 0 else f"First Player +{order}"


def did_you_mean(name, allowed) -> str:
    """The end of a message refusing ``name``: ``"; did you mean 'gunslinger_bonus'?"`` naming
    the nearest of ``allowed`` (``difflib.get_close_matches``, ignoring case), or ``""`` when
    none is close (or ``name`` is not a string)."""
    if not isinstance(name, str):
        return ""
    by_lower = {str(a).lower(): str(a) for a in allowed}
    close = difflib.get_close_matches(name.lower(), by_lower, n=1)
    return f"; did you mean {by_lower[close[0]]!r}?" if close else ""
