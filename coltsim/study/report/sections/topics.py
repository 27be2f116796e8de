"""The topics of a report, by the name an experiment asks for each (``analyses``): one module
each, with its ``analyse``, ``headline`` and ``build`` (the package docstring)."""
from . import balance, compare, gunslinger, head_to_head, policies, quality, round_cards, seats

BY_ANALYSIS = {"balance": balance, "compare": compare, "policies": policies,
               "head_to_head": head_to_head, "quality": quality, "gunslinger": gunslinger,
               "round_cards": round_cards, "seats": seats}
