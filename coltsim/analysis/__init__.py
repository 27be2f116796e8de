"""Analyses: pure functions over saved results (they never simulate, and load neither numba
nor the engine: pandas and numpy only).

Each takes the results (:class:`coltsim.results.Results`, from ``coltsim.load_results(folder)``
or ``coltsim.simulate``; or any object with ``players``, ``games`` and ``settings``
DataFrames) and returns a tidy DataFrame with estimates, 95% intervals and p-values adjusted as
one family per table (a report adjusts every test it prints as one family).

- :mod:`.design`: what an experiment compares: conditions x player counts x policies, the
  baseline of each comparison, a numeric sweep axis, tables of different policies and their
  seat rotations.
- :mod:`.headline`: the answer, one row per setting and player count and one per comparison.
- :mod:`.balance`: win rate and mean score per bandit, bandit effects per setting (one model
  with a bandit x setting term, controlling for seat), the strongest-minus-weakest spread and
  its change between settings played on the same deals.
- :mod:`.head_to_head`: for every pair of bandits at the same table, how often each finishes
  ahead of the other.
- :mod:`.quality`: game quality: lead changes, the round that decides, comebacks, margins, and
  the cards that did nothing.
- :mod:`.seats`: seat and First Player advantage.
- :mod:`.round_cards`: round- and station-card effects, by bandit and by position in the deck.
- :mod:`.gunslinger`: how often the Gunslinger is awarded, shared, and decides the game.
- :mod:`.compare`: two settings on the same seeds, paired by game, and whether the players
  reacted (games played differently).
- :mod:`.shares`: policies against each other at one table, seats rotated: each one's share.
- :mod:`.stats`: Wilson, Newcombe, Welch and paired intervals; Holm and Benjamini-Hochberg; OLS
  with HC1 / cluster-robust errors (tests/test_statistics.py checks them against statsmodels).
"""
