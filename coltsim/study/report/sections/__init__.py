"""The sections of a report, one module each.  A section builder takes the report's
:class:`~coltsim.study.report.context.Context` and returns the section and its headline
sentences; ``BY_ANALYSIS`` names the builder of each analysis an experiment can ask for."""
from . import balance, compare, gunslinger, methods, round_cards, seats, settings

BY_ANALYSIS = {"balance": balance.build, "seats": seats.build, "gunslinger": gunslinger.build,
               "round_cards": round_cards.build, "compare": compare.build}

__all__ = ["BY_ANALYSIS", "methods", "settings"]
