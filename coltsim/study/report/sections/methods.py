"""The methods section: intervals, tests and the multiple-comparison correction."""
from __future__ import annotations

from ..context import Context
from ..document import Section


def build(ctx: Context) -> Section:
    corr = {"holm": "Holm-Bonferroni correction (it controls the chance of any false positive "
                    "in a table at 5%)",
            "bh": "Benjamini-Hochberg correction (it controls the expected share of false "
                  "positives among the significant rows of a table at 5%)"}[ctx.correction]
    return Section("Methods", [
        f"Multiple comparisons: every table is one family of tests, adjusted with the {corr}; "
        "\"significant\" means an adjusted p-value below 0.05. Intervals are not adjusted.",
        f"Intervals are {ctx.level:.0%}: Wilson score intervals for rates, normal intervals for "
        "means, Welch intervals for differences of means, Newcombe's hybrid score intervals for "
        "differences of rates, and paired-difference intervals for comparisons on the same "
        "seeds. Tests against the fair share are score tests.",
        "Bandit effects come from a least-squares (linear-probability) model of each bandit's "
        "share of the victory on bandit, setting and seat-order-within-setting dummies, one row "
        "per bandit per game, with cluster-robust (CR1) standard errors by game; an effect is "
        "the bandit's coefficient minus the mean of the bandits' coefficients.",
        "Everything here is computed from the saved results (`coltsim report` re-renders it "
        "without simulating).",
    ])
