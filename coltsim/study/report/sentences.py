"""What every topic's headline sentences are written with: how many groups of rows are told one
by one, what a group shares, a sentence's lead, tallies of bandits and of robust conclusions.
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


def robust(row) -> str:
    return f" [{row['robust']}]" if isinstance(row["robust"], str) and row["robust"] else ""


def tally(values) -> str:
    """``"Belle in 10 settings, Tuco in 2"``."""
    counts = pd.Series(list(values)).value_counts()
    parts = [f"{bandit(b)} in {n} setting{'s' if n != 1 else ''}" if i == 0 else
             f"{bandit(b)} in {n}" for i, (b, n) in enumerate(counts.items())]
    return ", ".join(parts)


def robust_tally(rows: pd.DataFrame) -> str:
    marked = rows[rows["robust"] != ""]
    if not len(marked):
        return ""
    counts = marked["robust"].value_counts()
    return " Against the two strongest policies: " + ", ".join(
        f"{counts.get(v, 0)} of {len(marked)} {v}" for v in (ROBUST, DEPENDS, INCONCLUSIVE)
        if counts.get(v, 0)) + "."


def significant(effects, setting, name) -> bool:
    if effects is None:
        return True
    hit = effects[(effects["setting"] == setting) & (effects["bandit"] == name)]
    return bool(len(hit)) and bool(hit["significant"].iloc[0])
