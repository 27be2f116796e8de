"""Analyses: pure functions over saved results (they never simulate, and load neither numba
nor the engine: pandas and numpy only).

Each takes the results (:class:`coltsim.results.Results`, from ``coltsim.load_results(folder)``
or ``coltsim.simulate``; or any object with ``players``, ``games`` and ``settings``
DataFrames) and returns a tidy DataFrame with estimates, 95% intervals and p-values adjusted as
one family per table.

- :mod:`.balance`: win rate and mean score per bandit, bandit effects controlling for seat and
  player count, the strongest-minus-weakest spread.
- :mod:`.seats`: seat and First Player advantage.
- :mod:`.round_cards`: round- and station-card effects, by bandit and by position in the deck.
- :mod:`.gunslinger`: how often the Gunslinger is awarded, shared, and decides the game.
- :mod:`.compare`: two settings (rules or policies) on the same seeds, paired by game.
- :mod:`.tournament`: policies against each other at one table, seats rotated.
- :mod:`.stats`: Wilson, Newcombe, Welch and paired intervals; Holm and Benjamini-Hochberg; OLS
  with HC1 / cluster-robust errors (tests/test_statistics.py checks them against statsmodels).
- :mod:`.synthetic`: made-up results in the same schema with planted effects, for tests.
"""
