"""The methods section: the one family of tests, intervals, the model, and what "robust"
means."""
from __future__ import annotations

from ....analysis.headline import DEPENDS, INCONCLUSIVE, ROBUST
from ..context import Context
from ..document import Section

TITLE = "Methods"
# The tables of the one family of tests, in words (coltsim.study.report.context.Context.table).
TESTS = {
    "effects": "each bandit's effect on the win rate (against the average bandit)",
    "score_effects": "each bandit's effect on the score",
    "spread_changes": "each comparison's change of the spread",
    "compare": "each difference on the same deals (game metrics, each bandit's and each seat's "
               "win rate, each bandit's cards)",
    "order": "each seat's win rate against the fair share",
    "cards": "each round card's effect",
    "cards_by_bandit": "each round card's effect on each bandit",
    "quality_changes": "each change of a game-quality metric",
    "policies": "each policy's share of the victories against its fair share",
    "rotation_seats": "each seat's share at a table of different policies",
}


def build(ctx: Context) -> Section:
    corr = {"holm": "Holm-Bonferroni correction, which keeps the chance of any false positive "
                    "among them at 5%",
            "bh": "Benjamini-Hochberg correction, which keeps the expected share of false "
                  "positives among the significant ones at 5%"}[ctx.correction]
    tables = "; ".join(TESTS.get(name, name.replace("_", " ")) for name in ctx.family.names)
    blocks = [
        f"Multiple comparisons: the {ctx.family.size:,} tests this report marks as significant "
        f"or not (in every table and figure) are one family, adjusted together with the "
        f"{corr}; \"significant\" means an adjusted p-value below 0.05. Intervals are not "
        f"adjusted. The family, one test each (and so one adjusted p-value): {tables}. A "
        "bandit's win rate against the fair share is not tested apart from its effect, and the "
        "focus bandit's change is an interval, tested as its win rate's difference on the same "
        "deals.",
        f"Intervals are {ctx.level:.0%}: Wilson score intervals for rates, normal intervals for "
        "means, Welch intervals for differences of means, Newcombe's hybrid score intervals for "
        "differences of rates, and paired-difference intervals for comparisons on the same "
        "deals. Tests against the fair share are score tests. An interval printed with more "
        "digits than its estimate is narrower than the estimate's last digit.",
        "Bandit effects come from one least-squares (linear-probability) model of each bandit's "
        "share of the victory with a term for every bandit in every setting (every player count, "
        "condition and policy; at a table of different policies, every policy's seats), and "
        "seat-order-within-setting dummies, one row per bandit per game. Standard errors are "
        "cluster-robust (CR1) by deal: game i of every setting is played from the same deal, so "
        "a change between two settings (a spread before and after) gets a paired interval from "
        "the same model. An effect is the bandit's coefficient minus the mean of the bandits' "
        "coefficients in its setting; the spread is the strongest minus the weakest.",
    ]
    top = ctx.design.strongest_two()
    if top is not None:
        blocks.append(
            f"Robustness is judged conclusion by conclusion: each is *{ROBUST}* when it holds "
            f"for the two strongest policies of the ladder ({top[0]} and {top[1]}), and "
            f"*{DEPENDS}* otherwise. The strongest and the weakest bandit (of a comparison: "
            "after it) hold when they are the same bandit, each counted only where its effect is "
            "significant; a setting's spread holds when the stronger policy's spread minus the "
            "weaker's, paired on the same deals, has a 95% interval holding 0; a comparison's "
            "spread holds when it changes in the same direction (or not significantly) under "
            f"both. A conclusion with nothing significant under either policy is "
            f"*{INCONCLUSIVE}*.")
    blocks.append("Everything here is computed from the saved results (`coltsim report` "
                  "re-renders it without simulating).")
    return Section(TITLE, blocks)
