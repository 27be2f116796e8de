"""coltsim: play Colt Express millions of times, fast, to answer balance questions."""
from .constants import RULES_VERSION
from .rules import Rules

__version__ = "0.1.0"

from .trace import trace_game
from .results import load_results
from .runner import simulate

__all__ = ["RULES_VERSION", "Rules", "__version__", "load_results", "simulate", "trace_game"]
