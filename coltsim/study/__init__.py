"""Studies: questions asked of many simulated games, and their answers.

- :mod:`.experiment`: experiment files (TOML) -> validated settings and run options.
- :mod:`.run`: ``run_experiment`` (``coltsim run``): simulate every setting, write the report.
- :mod:`.report`: reports built from saved results (Markdown, HTML, figures, tables).
- :mod:`.folder`: the experiment a report folder belongs to; a report's files written at once.
- :mod:`.plots`: one helper per figure, over the tables of coltsim.analysis.
- :mod:`.tournament`: policies against each other on identical deals, seats rotated.
- :mod:`.tune`: ``coltsim tune``, the balance search: the search, its statistics, its report.
"""
