"""Names for people of what the tables name in snake_case (figures and reports share them)."""
from __future__ import annotations

_CARDS = {"take_it_all": "Take It All!", "passengers_rebellion": "Passengers' Rebellion",
          "marshals_revenge": "Marshal's Revenge", "hostage_taking": "Hostage-Taking",
          "angry_marshal": "Angry Marshal", "swivel_arm": "Swivel Arm"}


def card_label(card: str) -> str:
    """A round or station card as printed: ``"marshals_revenge"`` -> ``"Marshal's Revenge"``."""
    return _CARDS.get(card, card.replace("_", " ").title())
