"""What every topic's headline sentences are written with: how many groups of rows are told one
by one, what a group shares, a sentence's lead, tallies of bandits and of robust conclusions
(the ladder's verdicts in plain words), why a result is not significant.
Each topic's sentences live with its section (coltsim.study.report.sections.<topic>.headline);
the headline (sections/headline.py) assembles them."""
from __future__ import annotations

import pandas as pd

from ...analysis.headline import DEPENDS, INCONCLUSIVE, ROBUST
from .context import Context
from .formatting import bandit

MAX_SENTENCES = 8  # comparisons told one by one; more are grouped by condition


# Up to this many groups of rows (a condition and policy, over its player counts) are told one
# sentence each; more are summed up in one sentence, the table below giving every row.
MAX_GROUPS = 3


def where(ctx: Context, condition: str, policy: str) -> str:
    """What a group of rows shares, as the start of a sentence."""
    parts = [condition] if len(ctx.design.conditions) > 1 else []
    if len(ctx.design.policies) > 1:
        parts.append(f"{policy} players")
    return ", ".join(parts)


def lead(where: str, what: str) -> str:
    """``"Printed rules: what: "``, or ``"What: "`` when nothing needs saying first."""
    return capital(f"{where}: {what}" if where else what) + ": "


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def groups(rows: pd.DataFrame):
    return list(rows.groupby(["condition", "policy"], sort=False))


def not_significant(ctx: Context, lo, hi) -> str:
    """"not significant", saying why where the 95% interval leaves 0 out: the interval is the
    estimate's own, the test is corrected for every test of the report (one family)."""
    if lo > 0 or hi < 0:
        return (f"the interval excludes 0, but after correcting for the {ctx.family.size} "
                f"tests of this report ({ctx.corr_name}) it is not significant")
    return "not significant"


def ladder_words(ctx: Context) -> dict:
    """A ladder's verdicts (analysis.headline.conclusion) in plain words, naming the two
    strongest policies they compare."""
    weak, strong = ctx.design.strongest_two() or ("the weaker", "the stronger")
    return {ROBUST: f"the same with {weak} and with {strong} players",
            DEPENDS: f"not the same with {weak} and with {strong} players",
            INCONCLUSIVE: f"not significant with {weak} players nor with {strong} players"}


def robust(ctx: Context, row) -> str:
    """`` [robust: the same with greedy and with planner players]`` after a conclusion."""
    verdict = row["robust"]
    if not isinstance(verdict, str) or not verdict:
        return ""
    words = ladder_words(ctx)[verdict]
    return f" [{words}]" if verdict == INCONCLUSIVE else f" [{verdict}: {words}]"


def tally(values) -> str:
    """``"Belle in 10 settings, Tuco in 2"``."""
    counts = pd.Series(list(values)).value_counts()
    parts = [f"{bandit(b)} in {n} setting{'s' if n != 1 else ''}" if i == 0 else
             f"{bandit(b)} in {n}" for i, (b, n) in enumerate(counts.items())]
    return ", ".join(parts)


def robust_tally(ctx: Context, rows: pd.DataFrame) -> str:
    marked = rows[rows["robust"].fillna("") != ""]
    if not len(marked):
        return ""
    counts = marked["robust"].value_counts()
    words = ladder_words(ctx)
    return " Of these answers, " + "; ".join(
        f"{counts.get(v, 0)} of {len(marked)} {'is' if counts.get(v, 0) == 1 else 'are'} "
        f"{words[v]}"
        + ("" if v == INCONCLUSIVE else f" ({v})") for v in (ROBUST, DEPENDS, INCONCLUSIVE)
        if counts.get(v, 0)) + "."


def significant(effects, setting, name) -> bool:
    if effects is None:
        return True
    hit = effects[(effects["setting"] == setting) & (effects["bandit"] == name)]
    return bool(len(hit)) and bool(hit["significant"].iloc[0])
