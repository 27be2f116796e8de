"""Game traces (docs/TRACE.md): one game's every step as JSON Lines.

- :mod:`.trace`: ``trace_game`` plays one game with the kernel's recorder on and writes the lines.
- :mod:`.tracecheck`: checks a trace against docs/TRACE.md, independently of the engine.
- :mod:`.show`: the trace in words, with the train drawn after every step.
"""
