"""Names for people of what the tables name in snake_case (figures and reports share them)."""
from __future__ import annotations

from ..analysis.frames import setting_labels
from ..runs.storage import manifest_entry, settings_frame
from ..words import card_label

__all__ = ["card_label", "setting_names"]


def setting_names(settings) -> list[str]:
    """A name per :class:`~coltsim.setting.Setting` for people: its label, else what tells it
    apart from the others (``"4 players"``, ``"gunslinger_bonus=0"``, ``"printed rules"``), as
    the reports name settings."""
    manifest = {"settings": {s.id: manifest_entry(s, 0, 1, 1) for s in settings}}
    labels = setting_labels(settings_frame(manifest))
    return [labels.get(s.id, s.id) for s in settings]
