"""coltsim: play Colt Express millions of times, fast, to answer balance questions."""
import importlib

__version__ = "0.1.0"

from .constants import RULES_VERSION  # noqa: E402
from .rules import Rules  # noqa: E402
from .trace import trace_game  # noqa: E402

# The rest is imported on first use, so that ``coltsim trace`` need not load pandas and
# matplotlib.
_LAZY = {
    "simulate": "runner", "load_results": "results", "load_experiment": "experiment",
    "run_experiment": "run", "build_report": "report", "tournament": "tournament",
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'coltsim' has no attribute {name!r}")
    module = importlib.import_module(f".{_LAZY[name]}", __name__)
    value = module if name == _LAZY[name] else getattr(module, name)
    globals()[name] = value
    return value


__all__ = ["RULES_VERSION", "Rules", "__version__", "build_report", "load_experiment",
           "load_results", "run_experiment", "simulate", "tournament", "trace_game"]
