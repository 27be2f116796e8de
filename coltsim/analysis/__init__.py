"""Analyses: pure functions over saved results (they never simulate).

Each takes the results (``coltsim.load_results(folder)``, a :class:`frames.Results`, or any object
with ``players``, ``games`` and ``settings`` DataFrames) and returns a tidy DataFrame with
estimates, 95% intervals and p-values adjusted as one family per table.

- :mod:`.balance`: win rate and mean score per bandit, bandit effects controlling for seat and
  player count, the strongest-minus-weakest spread.
- :mod:`.seats`: seat and First Player advantage.
- :mod:`.round_cards`: round- and station-card effects, by bandit and by position in the deck.
- :mod:`.gunslinger`: how often the Gunslinger is awarded, shared, and decides the game.
- :mod:`.compare`: two settings (rules or policies) on the same seeds, paired by game.
- :mod:`.stats`: Wilson, Newcombe, Welch and paired intervals; Holm and Benjamini-Hochberg; OLS
  with HC1 / cluster-robust errors.
- :mod:`.synthetic`: made-up results in the same schema with planted effects, for tests.
"""
