"""coltsim: play Colt Express millions of times, fast, to answer balance questions.

Every name below is looked up on first use, so that ``import coltsim`` loads only the standard
library: the ``coltsim`` program (coltsim.cli) installs its Ctrl-C handler before numpy is
loaded, and a setting can be built and checked without numba or pandas.
"""
import importlib

__version__ = "0.1.0"

_LAZY = {
    "RULES_VERSION": "constants", "Results": "results", "Rules": "rules",
    "FieldError": "setting", "Setting": "setting", "make_setting": "setting",
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


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["RULES_VERSION", "FieldError", "Results", "RunInfo", "Rules", "Setting", "__version__",
           "build_report", "load_experiment", "load_results", "make_setting", "run_experiment",
           "simulate", "simulate_to_folder", "tournament", "trace_game"]
