"""Names for people of what the tables name in snake_case (figures and reports share them)."""
from __future__ import annotations

from ..words import card_label

__all__ = ["card_label"]
