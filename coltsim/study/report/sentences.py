"""What every topic's headline sentences are written with: how many groups of rows are told one
by one, what a group shares (always its policy: every answer names its players), a sentence's
lead, tallies of bandits, the ladder's verdicts conclusion by conclusion (the strongest bandit,
the weakest, the spread, with the two strongest policies' answers side by side), why a result
is not significant.
Each topic's sentences live with its section (coltsim.study.report.sections.<topic>.headline);
the headline (sections/headline.py) assembles them."""
from __future__ import annotations

import pandas as pd

from ...analysis.headline import CONCLUSIONS, DEPENDS, INCONCLUSIVE, ROBUST, conclusion
from .context import Context
from .formatting import bandit, points, pp_ci

MAX_SENTENCES = 8  # comparisons told one by one; more are grouped by condition


# Up to this many groups of rows (a condition and policy, over its player counts) are told one
# sentence each; more are summed up in one sentence, the table below giving every row.
MAX_GROUPS = 3


def where(ctx: Context, condition: str, policy: str) -> str:
    """What a group of rows shares, as the start of a sentence: its condition (when the
    experiment has several) and its players."""
    parts = [condition] if len(ctx.design.conditions) > 1 else []
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


WHAT = {"strongest": "strongest bandit", "weakest": "weakest bandit", "spread": "spread"}
DIRECTION = {1: "widens", -1: "narrows", 0: "no significant change"}


def ladder(ctx: Context, table: pd.DataFrame, kind: str) -> list:
    """The ladder's verdicts of the ``kind`` rows ("setting" or "comparison"), one sentence per
    condition (a comparison: per condition and baseline), each player count's conclusions one
    by one with the two strongest policies' answers side by side."""
    top = ctx.design.strongest_two()
    rows = table[(table["kind"] == kind) & (table["strongest_robust"].fillna("") != "")]
    if top is None or not len(rows):
        return []
    effects = ctx.table("effects").table if "effects" in ctx.cache else None
    spreads = ctx.table("ladder_spreads") if "ladder_spreads" in ctx.cache else None
    out = []
    keys = ["condition", "baseline_condition"]
    rows = rows.assign(baseline_condition=rows["baseline_condition"].astype(object).fillna(""))
    for (condition, base), g in rows.groupby(keys, sort=False):
        parts = []
        for players, p in g.groupby("players", sort=False):
            weak, strong = (p[p["policy"] == policy].iloc[0] for policy in top)
            said = [_bandit_verdict(c, weak, strong, effects) for c in ("strongest", "weakest")]
            said.append(_spread_verdict(weak, strong, spreads))
            parts.append(f"{players} players: " + ", ".join(said))
        what = condition if kind == "setting" else f"{condition} against {base}"
        lead_in = f"{what}: " if kind == "comparison" or len(ctx.design.conditions) > 1 else ""
        out.append(capital(f"{lead_in}with {top[0]} and with {top[1]} players (the ladder's "
                           "two strongest, same deals), conclusion by conclusion: ")
                   + "; ".join(parts) + ".")
    return out


def _bandit_verdict(c: str, weak, strong, effects) -> str:
    """``strongest bandit Belle → Ghost (depends on play strength)``."""
    a, b = conclusion(weak, effects)[c], conclusion(strong, effects)[c]
    verdict = weak[f"{c}_robust"]
    if verdict == INCONCLUSIVE:
        return f"{WHAT[c]} {verdict}"
    if verdict == ROBUST:
        return f"{WHAT[c]} {bandit(a)} with both ({verdict})"
    def name(x):
        return bandit(x) if x else "none significant"
    return f"{WHAT[c]} {name(a)} → {name(b)} ({verdict})"


def _spread_verdict(weak, strong, spreads) -> str:
    """A setting's spread under both with the paired change; a comparison's direction."""
    verdict = weak["spread_robust"]
    if weak["kind"] == "comparison":
        a, b = (conclusion(r, None)["spread"] for r in (weak, strong))
        if verdict == INCONCLUSIVE:
            return f"the spread's change {verdict}"
        moved = f"{DIRECTION[a]} with both" if a == b else f"{DIRECTION[a]} → {DIRECTION[b]}"
        return f"spread {moved} ({verdict})"
    hit = spreads[(spreads["baseline"] == weak["setting"])
                  & (spreads["setting"] == strong["setting"])].iloc[0]
    return (f"spread {points(weak['spread'])} → {points(strong['spread'])} points, "
            f"{pp_ci(hit['change'], hit['lo'], hit['hi'])} ({verdict})")


def tally(values) -> str:
    """``"Belle in 10 settings, Tuco in 2"``."""
    counts = pd.Series(list(values)).value_counts()
    parts = [f"{bandit(b)} in {n} setting{'s' if n != 1 else ''}" if i == 0 else
             f"{bandit(b)} in {n}" for i, (b, n) in enumerate(counts.items())]
    return ", ".join(parts)


def robust_tally(ctx: Context, rows: pd.DataFrame) -> str:
    """`` With planner and with learned players (...), conclusion by conclusion: the strongest
    bandit robust in 3 of 4, depends on play strength in 1 of 4; ...``: each condition and
    player count counted once."""
    top = ctx.design.strongest_two()
    if top is None:
        return ""
    marked = rows[(rows["strongest_robust"].fillna("") != "") & (rows["policy"] == top[1])]
    if not len(marked):
        return ""
    parts = []
    for c in CONCLUSIONS:
        counts = marked[f"{c}_robust"].value_counts()
        said = [f"{v} in {counts[v]} of {len(marked)}"
                for v in (ROBUST, DEPENDS, INCONCLUSIVE) if counts.get(v, 0)]
        parts.append(f"the {WHAT[c]} " + ", ".join(said))
    return (f" With {top[0]} and with {top[1]} players (the ladder's two strongest), conclusion "
            "by conclusion: " + "; ".join(parts) + ".")


def significant(effects, setting, name) -> bool:
    if effects is None:
        return True
    hit = effects[(effects["setting"] == setting) & (effects["bandit"] == name)]
    return bool(len(hit)) and bool(hit["significant"].iloc[0])
