"""Names for people of what the tables name in snake_case (figures and reports share them)."""
from __future__ import annotations

import pandas as pd

from ..analysis.design import design_of
from ..runs.load import settings_frame
from ..runs.storage import manifest_entry
from ..words import card_label

__all__ = ["card_label", "run_names", "setting_names", "settings_table"]


def settings_table(settings) -> pd.DataFrame:
    """The settings table a run of these :class:`~coltsim.setting.Setting` objects would have
    (what the analyses read, coltsim.results)."""
    return settings_frame({"settings": {s.id: manifest_entry(s, 0, 1, 1) for s in settings}})


def setting_names(settings) -> list[str]:
    """A name per :class:`~coltsim.setting.Setting` for people: its label, else what tells it
    apart from the others (``"4 players"``, ``"Gunslinger bonus $0"``, ``"printed rules"``), as
    the reports name settings (analysis.design)."""
    design = design_of(settings_table(settings))
    labels = dict(zip(design.settings["setting"], design.settings["label"]))
    return [labels.get(s.id, s.id) for s in settings]


def run_names(manifest: dict, settings=None) -> dict:
    """Setting id -> its name for people, for every setting a run's manifest records, as the
    report of ``settings`` (an experiment's :class:`~coltsim.setting.Setting` objects; default:
    the manifest's settings) names them."""
    if settings is not None:
        return dict(zip((s.id for s in settings), setting_names(settings)))
    design = design_of(settings_frame(manifest))
    return dict(zip(design.settings["setting"], design.settings["label"]))
