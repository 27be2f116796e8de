"""The topics of a report, by the name an experiment asks for each (``analyses``,
coltsim.study.experiment.ANALYSES): one module each, named by it, with its ``analyse``,
``headline`` and ``build`` (the package docstring)."""
import importlib

from ...experiment import ANALYSES

BY_ANALYSIS = {name: importlib.import_module(f".{name}", __package__) for name in ANALYSES}
