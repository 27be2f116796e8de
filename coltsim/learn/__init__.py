"""Learning a fast policy from search: games played through the runner with a teacher search
recording what it thinks of each option (record.py), and the fit of ``learned``'s weights
(train.py, ``coltsim train``).  See docs/policies.md."""
