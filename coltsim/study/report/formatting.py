"""Numbers as a report prints them: rates in percent, differences in percentage points,
dollars, intervals in parentheses, p-values; an empty cell for a missing number.

Three rules keep the printed numbers honest: a number that rounds to zero is printed without a
sign (never "-$0"); an interval is never printed as a single repeated number: when its bounds
round to the estimate, more digits are shown (up to three more), and an interval of width zero
(the same value in every game) says so instead; and a number whose interval the games cannot
give (NaN bounds: one game on a side) is printed as "too few games", with the games it had when
the caller gives them (bounds of None ask for the bare number).

>>> usd_ci(-0.2, -0.4, 0.1, signed=True), pct_ci(1.0, 0.99996, 1.0), pp_ci(0.0, 0.0, 0.0)
('$0 (-$0.4 to +$0.1)', '100.0% (99.996 to 100.000)', '0.0 (the same in every game)')
>>> usd_ci(-750.0, float("nan"), float("nan"), n=1), usd_ci(-750.0, None, None)
('too few games (n = 1)', '$750')
"""
from __future__ import annotations

import math

from ...analysis.metrics import GAME_METRICS
from ...analysis.quality import METRICS as QUALITY_METRICS

EXACT = "the same in every game"
TOO_FEW = "too few games"
MORE_DIGITS = 3


def is_missing(x) -> bool:
    try:
        return x is None or math.isnan(float(x))
    except (TypeError, ValueError):
        return False


def _number(x: float, digits: int, signed: bool, prefix: str = "", scale: float = 1.0) -> str:
    """``x * scale`` with ``digits`` decimals, a sign only if it does not round to zero."""
    v = x * scale
    text = f"{abs(v):,.{digits}f}"
    zero = float(text.replace(",", "")) == 0
    sign = "" if zero else ("-" if v < 0 else ("+" if signed else ""))
    return f"{sign}{prefix}{text}"


def too_few(n=None) -> str:
    """The cell of a number without an interval for want of games (``n`` of them)."""
    return TOO_FEW if is_missing(n) else f"{TOO_FEW} (n = {int(n):,})"


def _with_interval(x, lo, hi, digits: int, signed: bool, prefix: str = "", scale: float = 1.0,
                   suffix: str = "", n=None) -> str:
    if is_missing(x):
        return ""
    if lo is None and hi is None:
        return _number(x, digits, signed, prefix, scale) + suffix
    if is_missing(lo) or is_missing(hi):
        return too_few(n)
    if abs(hi - lo) <= 1e-12 * max(1.0, abs(x)):  # zero width, up to rounding errors
        return f"{_number(x, digits, signed, prefix, scale)}{suffix} ({EXACT})"
    for d in range(digits, digits + MORE_DIGITS + 1):
        parts = [_number(v, d, signed, prefix, scale) for v in (x, lo, hi)]
        if parts[1] != parts[0] or parts[2] != parts[0]:
            break
    est = _number(x, digits, signed, prefix, scale)
    return f"{est}{suffix} ({parts[1]} to {parts[2]})"


def pct(x) -> str:
    return "" if is_missing(x) else _number(x, 1, False, scale=100) + "%"


def pct_ci(x, lo, hi, n=None) -> str:
    return _with_interval(x, lo, hi, 1, False, scale=100, suffix="%", n=n)


def pp(x) -> str:
    return "" if is_missing(x) else _number(x, 1, True, scale=100)


def points(x, digits: int = 1) -> str:
    """A size in percentage points, without a sign (a spread, a half-width): 0.127 -> 12.7."""
    return "" if is_missing(x) else _number(x, digits, False, scale=100)


def pp_ci(x, lo, hi, signed: bool = True, unit: str = "", n=None) -> str:
    """A difference of rates in percentage points, ``unit`` (e.g. ``" pp"``) after it."""
    return _with_interval(x, lo, hi, 1, signed, scale=100, suffix=unit, n=n)


def usd(x, signed: bool = False) -> str:
    return "" if is_missing(x) else _number(x, 0, signed, "$")


def usd_ci(x, lo, hi, signed=False, n=None) -> str:
    return _with_interval(x, lo, hi, 0, signed, "$", n=n)


def num(x, digits: int = 2, signed: bool = False) -> str:
    return "" if is_missing(x) else _number(x, digits, signed)


def num_ci(x, lo, hi, digits=2, signed=True, n=None) -> str:
    return _with_interval(x, lo, hi, digits, signed, n=n)


def p_value(x) -> str:
    if is_missing(x):
        return ""
    return "<0.001" if x < 0.001 else f"{x:.3f}"


def yes(x) -> str:
    return "yes" if bool(x) else ""


def count(x) -> str:
    return "" if is_missing(x) else f"{int(x):,}"


def metric_name(metric: str) -> str:
    """A game metric (analysis.metrics.GAME_METRICS) in words, with its unit."""
    return GAME_METRICS[metric][0] if metric in GAME_METRICS else metric.replace("_", " ")


def metric_ci(metric: str, x, lo, hi, n=None) -> str:
    """A change in a game metric with its interval (``n``: the games of its smaller side)."""
    kind = GAME_METRICS[metric][1]
    if kind == "rate":
        return pp_ci(x, lo, hi, unit=" pp", n=n)
    if "$" in GAME_METRICS[metric][0]:
        return usd_ci(x, lo, hi, signed=True, n=n)
    return num_ci(x, lo, hi, n=n)


def metric_value(metric: str, x) -> str:
    if GAME_METRICS[metric][1] == "rate":
        return pct(x)
    if "$" in GAME_METRICS[metric][0]:
        return usd(x)
    return num(x)


def bandit(name) -> str:
    return name.title() if isinstance(name, str) else ""


def quality_ci(metric: str, x, lo, hi, signed: bool = False, n=None) -> str:
    """A game-quality metric (analysis.quality.METRICS) with its interval: shares in percent
    (a change in percentage points when ``signed``), the margin in dollars, the others in
    plain numbers."""
    if QUALITY_METRICS[metric][1] in ("share", "ratio"):
        return pp_ci(x, lo, hi, unit=" pp", n=n) if signed else pct_ci(x, lo, hi, n=n)
    if metric == "margin":
        return usd_ci(x, lo, hi, signed=signed, n=n)
    return num_ci(x, lo, hi, signed=signed, n=n)
