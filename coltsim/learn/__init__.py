"""Learning ``learned``'s value from the outcomes of many games: positions recorded through the
runner (policies/recording.py), the fit (fit.py) and the iterations of play, fit and matches
(train.py, ``coltsim train``).  See docs/policies.md."""
