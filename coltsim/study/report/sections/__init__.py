"""The sections of a report, one module per topic, each holding all of its topic: the analysis
it calls (``analyse(ctx)``: its tables; every table of tests joins the report's one family), its
sentences for the headline (``headline(ctx, table)``: what it says first, from the headline
table), its figures (``plot_*``, drawn with coltsim.study.plots) and its section
(``build(ctx)``: figures and tables once the family is adjusted).  ``BY_ANALYSIS`` names the
module of each analysis an experiment can ask for.  ``headline`` assembles the answer from what
the topics say; ``settings`` and ``methods`` close the report."""
from . import headline, methods, settings
from .topics import BY_ANALYSIS

__all__ = ["BY_ANALYSIS", "headline", "methods", "settings"]
