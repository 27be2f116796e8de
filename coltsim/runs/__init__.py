"""Runs: many games of a setting, in parallel, reproducible, resumable, stored as Parquet.

- :mod:`.options`: the seed, game count, workers, backend and chunk size, checked once.
- :mod:`.runner`: ``simulate`` (in memory) and ``simulate_to_folder`` (to disk, resumable).
- :mod:`.chunk`: the work of one chunk in a worker (the compiled batch kernel, then tables).
- :mod:`.storage`: the folder layout, the manifest and ``load_results`` (no compiled code).
- :mod:`.bench`: games per second of the engine, and its compile time.
"""
