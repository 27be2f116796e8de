"""Numbers as a report prints them: rates in percent, differences in percentage points,
dollars, intervals in parentheses, p-values; an empty cell for a missing number."""
from __future__ import annotations

import math

from ...analysis.metrics import GAME_METRICS


def is_missing(x) -> bool:
    try:
        return x is None or math.isnan(float(x))
    except (TypeError, ValueError):
        return False


def pct(x) -> str:
    return "" if is_missing(x) else f"{100 * x:.1f}%"


def pct_ci(x, lo, hi) -> str:
    return "" if is_missing(x) else f"{100 * x:.1f}% ({100 * lo:.1f} to {100 * hi:.1f})"


def pp(x) -> str:
    return "" if is_missing(x) else f"{100 * x:+.1f}"


def pp_ci(x, lo, hi) -> str:
    return "" if is_missing(x) else f"{100 * x:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})"


def usd(x) -> str:
    return "" if is_missing(x) else f"${x:,.0f}"


def usd_ci(x, lo, hi, signed=False) -> str:
    if is_missing(x):
        return ""
    f = (lambda v: f"{'+' if v >= 0 else '-'}${abs(v):,.0f}") if signed else \
        (lambda v: f"${v:,.0f}")
    return f"{f(x)} ({f(lo)} to {f(hi)})"


def num_ci(x, lo, hi, digits=2, signed=True) -> str:
    if is_missing(x):
        return ""
    s = "+" if signed else ""
    return f"{x:{s}.{digits}f} ({lo:{s}.{digits}f} to {hi:{s}.{digits}f})"


def p_value(x) -> str:
    if is_missing(x):
        return ""
    return "<0.001" if x < 0.001 else f"{x:.3f}"


def yes(x) -> str:
    return "yes" if bool(x) else ""


def metric_ci(metric: str, x, lo, hi) -> str:
    """A change in a game metric (analysis.metrics.GAME_METRICS) with its interval."""
    kind = GAME_METRICS[metric][1]
    if kind == "rate":
        return pp_ci(x, lo, hi) + " pp"
    if "$" in GAME_METRICS[metric][0]:
        return usd_ci(x, lo, hi, signed=True)
    return num_ci(x, lo, hi)


def metric_value(metric: str, x) -> str:
    if GAME_METRICS[metric][1] == "rate":
        return pct(x)
    if "$" in GAME_METRICS[metric][0]:
        return usd(x)
    return "" if is_missing(x) else f"{x:.2f}"
