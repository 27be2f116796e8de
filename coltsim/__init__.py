"""coltsim: play Colt Express millions of times, fast, to answer balance questions."""
from .constants import RULES_VERSION
from .rules import Rules

__version__ = "0.1.0"

from .trace import trace_game

__all__ = ["RULES_VERSION", "Rules", "__version__", "trace_game"]
