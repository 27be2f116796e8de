"""coltsim: play Colt Express millions of times, fast, to answer balance questions.

The names below are looked up on first use, so that ``import coltsim`` loads neither numba nor
pandas: a setting can be built and checked without the compiled engine.
"""
import importlib

__version__ = "0.1.0"

from .constants import RULES_VERSION  # noqa: E402
from .results import Results  # noqa: E402
from .rules import Rules  # noqa: E402
from .setting import FieldError, Setting, make_setting  # noqa: E402

_LAZY = {
    "simulate": "runs.runner", "simulate_to_folder": "runs.runner",
    "RunInfo": "runs.runner", "load_results": "runs.load", "trace_game": "traces.trace",
    "load_experiment": "study.experiment", "run_experiment": "study.run",
    "build_report": "study.report", "tournament": "study.tournament",
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'coltsim' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


__all__ = ["RULES_VERSION", "FieldError", "Results", "RunInfo", "Rules", "Setting", "__version__",
           "build_report", "load_experiment", "load_results", "make_setting", "run_experiment",
           "simulate", "simulate_to_folder", "tournament", "trace_game"]
