"""The sections of a report, one module each.  An analysis's module has ``analyse(ctx)``, which
computes its tables (every table of tests joins the report's one family), and ``build(ctx)``,
which writes its figures and tables once the family is adjusted; ``BY_ANALYSIS`` names the
module of each analysis an experiment can ask for.  ``headline`` answers the question first,
``settings`` and ``methods`` close the report."""
from . import balance, compare, gunslinger, head_to_head, headline, methods, policies, \
    quality, round_cards, seats, settings

BY_ANALYSIS = {"balance": balance, "compare": compare, "policies": policies,
               "head_to_head": head_to_head, "quality": quality, "gunslinger": gunslinger,
               "round_cards": round_cards, "seats": seats}

__all__ = ["BY_ANALYSIS", "headline", "methods", "settings"]
