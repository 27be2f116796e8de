"""Runs: many games of a setting, in parallel, reproducible, resumable, stored as Parquet.

- :mod:`.options`: the seed, game count, workers, backend and chunk size, checked once.
- :mod:`.runner`: ``simulate`` (in memory) and ``simulate_to_folder`` (to disk, resumable).
- :mod:`.chunk`: the work of one chunk in a worker (the compiled batch kernel, then tables).
- :mod:`.folder`: the one folder mechanism (identity, one writer, atomic and verified files)
  under results folders, report folders and trainings.
- :mod:`.storage`: the results folder's layout and its manifest, written and verified (no
  compiled code).
- :mod:`.load`: ``load_results``: a results folder read back, verified, as DataFrames.
- :mod:`.fingerprint`: a sample of a run's games, by which a report is later known stale.
- :mod:`.match`: the one tournament of a table: its entries on the same deals, seats rotated,
  each one's share with its interval over deals.
- :mod:`.bench`: games per second of the engine, and its compile time.
"""
