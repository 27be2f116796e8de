"""``coltsim tune``, the balance search: which value of a rule option balances the bandits best?

One package for the whole search: :mod:`.search` (the search itself, and tune files),
:mod:`.bootstrap` (its statistics: the objective and the paired bootstrap over deals),
:mod:`.report` (its report, built like every report) and :mod:`.command` (``coltsim tune FILE``).
(Tuning the planner's own weights is another thing: benchmarks/tune_planner_weights.py.)

``coltsim tune FILE`` (or :func:`tune` from Python) plays the settings of a tune file under
every value of one rule option and looks for the value with the smallest objective: the
**spread** (the strongest bandit's win rate minus the weakest's, averaged over the settings) or
the distance of **one bandit's win rate** from a target.  It spends games where the answer is
still open:

- **Common random numbers.**  Round ``r`` plays deals ``0 .. n_r - 1`` of a master seed derived
  from (seed, r) under every value still in the race, so every value is measured on the same
  deals and two values are compared deal by deal.
- **Successive elimination.**  The first round plays ``games`` deals per setting and value; each
  later round doubles the deals of the values still in the race, up to ``max_games``.  After
  each round a value is dropped when its objective is worse than the best one's beyond doubt: a
  paired bootstrap over deals (:mod:`.bootstrap`) gives the difference and its standard
  error, and a value goes when the difference stays above zero by ``z`` standard errors, where
  ``z`` is Bonferroni-adjusted over every comparison the search can make (so the best value is
  dropped with probability at most about ``1 - level``).
- **Stopping.**  The search ends when one value is left, when the values left are all within
  ``tolerance`` of the best beyond doubt, or at ``max_games``.  The values left are the
  confidence set: any of them may be the best.

The report (:mod:`.report`, built like every report; :mod:`.command` runs a tune file:
``tune_file``) shows the objective against the value with its interval,
the best value with its interval, the games used, the policy, and whether the players reacted
to the rule at all (shots, loot and bullets received on the first round's deals, value against
value): a policy that ignores the rule only sees it rescored.

A tune file is an experiment file (coltsim.study.experiment: ``name``, ``seed``, ``games``,
``workers``, ``[sweep]`` or ``[[settings]]``...) with a ``[tune]`` table (``docs/tune.md``)::

    name = "tune_gunslinger_bonus"
    seed = 15
    games = 4000                  # per setting and value in the first round

    [sweep]
    players = [4, 5]
    policies = ["greedy"]

    [tune]
    option = "gunslinger_bonus"
    range = [0, 1500]             # with step; or values = [0, 500, 1000]
    step = 250
    objective = "spread"          # or "win_rate", with bandit = "belle", target = 0.25 or "fair"
    max_games = 64000             # per setting and value, at most
    tolerance = 0.01              # values within 1 point of the best are as good
    level = 0.95
"""
from .search import (
    DEFAULTS, TUNE_KEYS, Search, TuneResult, grid, load_tune, loads_tune, make_search,
    round_seed, run_search, tune,
)

__all__ = ["DEFAULTS", "TUNE_KEYS", "Search", "TuneResult", "grid", "load_tune", "loads_tune",
           "make_search", "round_seed", "run_search", "tune"]
