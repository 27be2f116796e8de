"""``coltsim sample-size FILE``: how many games an experiment's questions need, before running it.

The headline's own numbers first, for every setting that seats one policy and every pair the
reports compare:

- **the spread** between the strongest and the weakest bandit: games for its interval to be
  ``± half_width`` (the least certain pair of bandits);
- **its change between two compared settings**, on the same deals: games for a change of
  ``difference`` to be found with probability ``power``, the family being every pair;
- with a ``focus``, **the focus bandit's effect** (its win rate minus the average bandit's):
  games for ``± half_width``, and for a change of ``difference`` between compared settings.

Then, for every setting (its player count, line-up and so how often each bandit plays), with the
closed forms of coltsim.analysis.power:

- **precision**: games for every bandit's win rate to be known within ``± half_width`` (the
  reports' 95% intervals);
- **a bandit off its fair share**: games for the test of "win rate = 1/players" to find a bandit
  ``difference`` away from it, with probability ``power``, the family being every bandit of
  every setting (planned at ``alpha / m``, Bonferroni, which Holm never needs more than);
- **a change between settings**: for each pair the reports compare (each setting against the
  first one with the same player count and line-up), games for the paired comparison on the same
  deals to find a change of ``difference`` in a bandit's win rate, the family being every bandit
  of every pair.

Without a pilot the variance of a win share is that of a yes/no outcome at the fair share,
``p (1 - p)`` (the headline's numbers combine them: coltsim.analysis.power.combination_variance),
and a paired difference is taken as the sum of two such variances (as if the two settings did
not share deals: a safe upper bound).  ``pilot = N`` plays the first ``N`` games of every
setting (the games the run will play first) and uses the variances measured there: the largest
over the bandits, for pairs the variance of the deal-by-deal difference, which common deals make
much smaller, and for the headline's numbers their standard errors from the reports' own model
(coltsim.analysis.balance) on the pilot's games, scaled to the games asked.  Each answer also
says what the file's own ``games`` give.

The sizes hold on average: a bandit that happens to play fewer games than its share, or wins
more often than its fair share, gets a slightly wider interval (a few percent); ask for a little
more than you need.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import constants as K
from ..analysis import balance
from ..analysis import power as P
from ..analysis.design import design_of
from ..analysis.frames import concat_results
from ..analysis.stats import LEVEL
from ..setting import FieldError
from .experiment import Experiment, load_experiment
from .labels import setting_names, settings_table
from .report.formatting import pct, points


@dataclass(frozen=True)
class SampleSizes:
    """The games each question needs (``table``: one row per question and setting or pair),
    and the choices behind them."""

    experiment: Experiment
    table: pd.DataFrame
    half_width: float
    difference: float
    alpha: float
    power: float
    pilot: int

    def text(self) -> str:
        """The sample sizes in words, one block per question."""
        e, t = self.experiment, self.table
        out = [f"{e.name}: {len(e.settings)} setting(s), {e.games:,} games per setting in the "
               f"file" + (f"; variances from a pilot of {self.pilot:,} games per setting"
                          if self.pilot else "; variances assumed (no pilot)")]
        for question, rows in t.groupby("question", sort=False):
            out += ["", rows["title"].iloc[0]]
            for _, r in rows.iterrows():
                if pd.isna(r["games_needed"]):
                    out.append(f"  {r['setting']}: {r['detail']}")
                    continue
                out.append(f"  {r['setting']}: {int(r['games_needed']):,} games "
                           f"({r['detail']}); the file's {e.games:,} give {r['with_file']}")
        return "\n".join(out)


def sample_sizes(experiment: Experiment, half_width: float = P.HALF_WIDTH,
                 difference: float = P.DIFFERENCE, alpha: float = P.ALPHA, power: float = P.POWER,
                 pilot: int = 0, workers: int | None = None) -> SampleSizes:
    """Games per setting for the experiment's questions (module docstring).

    ``half_width`` and ``difference`` are win-rate differences (0.01 = 1 percentage point);
    ``pilot`` games per setting are played to measure the variances (0: assume them).
    """
    for name, value in (("half_width", half_width), ("difference", difference),
                        ("alpha", alpha), ("power", power)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            raise FieldError(name, f"must be a number between 0 and 1, got {value!r}")
    if isinstance(pilot, bool) or not isinstance(pilot, int) or pilot < 0 or pilot == 1:
        raise FieldError("pilot", f"must be 0 (no pilot) or at least 2 games, got {pilot!r}")
    settings = list(experiment.settings)
    names = dict(zip((s.id for s in settings), setting_names(settings)))
    shares = {s.id: P.appearance(s) for s in settings}
    measured = _pilot(experiment, pilot, workers) if pilot else None
    level = LEVEL  # the reports' intervals
    rows = _headline_rows(experiment, names, half_width, difference, alpha, power, level,
                          measured[2] if measured else None, pilot)
    n_tests = sum(len(shares[s.id]) for s in settings)
    alpha_each = alpha / n_tests
    for s in settings:
        p0 = P.fair_share(s)
        need, worst = 0, None
        for bandit, share in shares[s.id].items():
            var = measured[0][s.id].get(bandit, p0 * (1 - p0)) if measured else p0 * (1 - p0)
            n = P.games_for_precision(var, half_width, share, level)
            if n > need:
                need, worst = n, (bandit, share, var)
        bandit, share, var = worst
        if measured:
            detail = (f"{bandit.title()}, the least certain: variance {var:.3f}, plays "
                      f"{_fraction(share)} of the games")
        else:
            who = "each bandit" if len(set(shares[s.id].values())) == 1 else bandit.title()
            detail = (f"{who} plays {_fraction(share)} of the games; variance {var:.3f}, a "
                      f"yes/no outcome at the fair share {pct(p0)}")
        rows.append({
            "question": "precision", "setting": names[s.id],
            "title": f"Every bandit's win rate within ±{points(half_width)} points "
                     f"({100 * level:.0f}% intervals):",
            "games_needed": need, "detail": detail,
            "with_file": f"±{points(P.half_width_after(var, experiment.games, share, level), 2)} "
                         "points"})
        share_min = min(shares[s.id].values())
        need = P.games_to_detect_from(p0, difference, share_min, alpha_each, power)
        found = P.detectable_from(p0, experiment.games, share_min, alpha_each, power)
        rows.append({
            "question": "fair", "setting": names[s.id],
            "title": f"A bandit {points(difference)} points off its fair share, found with "
                     f"probability {100 * power:.0f}% ({100 * alpha:.0f}% over {n_tests} tests: "
                     f"{100 * alpha_each:.2g}% each):",
            "games_needed": need,
            "detail": f"a bandit plays {_fraction(share_min)} of the games",
            "with_file": f"{points(found)} points" if np.isfinite(found) else "no test"})
    pairs = compared_pairs(settings)
    if pairs:
        n_tests = sum(len(shares[a]) for a, _ in pairs)
        alpha_each = alpha / n_tests
        by_id = {s.id: s for s in settings}
        title = (f"A change of {points(difference)} points in a bandit's win rate between "
                 f"two settings, on the same deals, found with probability {100 * power:.0f}% "
                 f"({100 * alpha:.0f}% over {n_tests} tests: {100 * alpha_each:.2g}% each):")
        for a, b in pairs:
            p0 = P.fair_share(by_id[a])
            share = min(shares[a].values())
            var = max(measured[1][a, b].values()) if measured else 2 * p0 * (1 - p0)
            pair = f"{names[b]} against {names[a]}"
            if var == 0:
                rows.append({"question": "change", "title": title, "setting": pair,
                             "games_needed": None,
                             "detail": f"every one of the pilot's {pilot:,} deals gave each "
                                       "bandit the same win share under both: no change to "
                                       "detect", "with_file": ""})
                continue
            need = P.games_to_detect_change(var, difference, share, alpha_each, power)
            found = P.detectable_change(var, experiment.games, share, alpha_each, power)
            rows.append({
                "question": "change", "title": title, "setting": pair, "games_needed": need,
                "detail": f"variance of a deal's difference {var:.3f}"
                          + (" (pilot: the largest over the bandits)" if measured else
                             " (assumed: two independent yes/no outcomes)"),
                "with_file": f"{points(found)} points"})
    return SampleSizes(experiment, pd.DataFrame(rows), half_width, difference, alpha, power, pilot)


def _headline_rows(experiment: Experiment, names: dict, half_width: float, difference: float,
                   alpha: float, power: float, level: float, measured, pilot: int) -> list:
    """The headline's questions (module docstring): the spread and its change, the focus
    bandits' effects and their changes.  ``measured``: the pilot's standard errors
    (:func:`_pilot_errors`), or None to assume the variances."""
    games = experiment.games
    uniform = [s for s in experiment.settings if len(set(s.policies)) == 1]
    by_id = {s.id: s for s in uniform}
    pairs = [p for p in compared_pairs(experiment.settings) if set(p) <= set(by_id)]
    how = (f"from the pilot's {pilot:,} games (the reports' model)" if measured else
           "assumed: yes/no outcomes at the fair share")

    def variance(key, assumed):  # per game: a pilot's squared standard error times its games
        if measured is None:
            return assumed()
        se = measured.get(key)
        return None if se is None else se * se * pilot

    def precise(question, title, key, label, assumed):
        v = variance(key, assumed)
        if v is None:
            return
        rows.append({"question": question, "title": title, "setting": label,
                     "games_needed": P.games_for_precision(v, half_width, 1.0, level),
                     "detail": f"variance per game {v:.3f} ({how})",
                     "with_file": f"±{points(P.half_width_after(v, games, 1.0, level), 2)} "
                                  "points"})

    def changed(question, title, key, label, assumed, tests):
        v = variance(key, assumed)
        if v is None:
            return
        each = alpha / tests
        need = P.games_to_detect_change(v, difference, 1.0, each, power) if v > 0 else None
        rows.append({"question": question, "title": title, "setting": label,
                     "games_needed": need,
                     "detail": f"variance per game of the change {v:.3f} ({how}"
                               + ("" if measured else "; two settings' variances, as if the "
                                                      "deals were not shared") + ")",
                     "with_file": f"{points(P.detectable_change(v, games, 1.0, each, power))} "
                                  "points" if v > 0 else "no change to detect"})

    def spread(s):
        return max(P.combination_variance(s, w) for w in P.spread_weights(s))

    def effect(s, bandit):
        return P.combination_variance(s, P.effect_weights(s, bandit)) \
            if bandit in P.appearance(s) else None

    rows = []
    within = (f"within ±{points(half_width)} points ({100 * level:.0f}% intervals)")
    for s in uniform:
        precise("spread", f"The spread between the strongest and the weakest bandit {within}:",
                ("spread", s.id), names[s.id], lambda s=s: spread(s))
    found = (f"found with probability {100 * power:.0f}% ({100 * alpha:.0f}% over "
             f"{len(pairs)} test{'s' if len(pairs) != 1 else ''})")
    for a, b in pairs:
        changed("spread_change", f"A change of {points(difference)} points in the spread "
                f"between two compared settings, on the same deals, {found}:",
                ("spread_change", a, b), f"{names[b]} against {names[a]}",
                lambda a=a: 2 * spread(by_id[a]), len(pairs))
    for bandit in experiment.focus:
        name = bandit.title()
        for s in uniform:
            precise(f"focus:{bandit}", f"{name}'s effect (win rate against the average "
                    f"bandit) {within}:", ("effect", s.id, bandit), names[s.id],
                    lambda s=s: effect(s, bandit))
        for a, b in pairs:
            changed(f"focus_change:{bandit}", f"A change of {points(difference)} points in "
                    f"{name}'s effect between two compared settings, on the same deals, "
                    f"{found}:", ("effect_change", a, b, bandit),
                    f"{names[b]} against {names[a]}",
                    lambda a=a: None if effect(by_id[a], bandit) is None
                    else 2 * effect(by_id[a], bandit), len(pairs))
    return rows


def compared_pairs(settings) -> list[tuple[str, str]]:
    """The pairs of setting ids the reports compare (coltsim.analysis.design.Design.pairs)."""
    return design_of(settings_table(settings)).pairs()


def _fraction(share: float) -> str:
    for den in range(1, 31):
        if abs(share * den - round(share * den)) < 1e-9:
            return f"{round(share * den)}/{den}" if den > 1 else "all"
    return f"{100 * share:.0f}%"


def _pilot(experiment: Experiment, games: int, workers):
    """Variances measured on the first ``games`` games of every setting: of each bandit's win
    share, and of the deal-by-deal difference for each compared pair."""
    from .tune.bootstrap import deal_table
    from ..runs.runner import simulate

    results = {s.id: simulate(s, games, seed=experiment.seed, workers=workers, progress=False)
               for s in experiment.settings}
    tables = {sid: deal_table(r) for sid, r in results.items()}
    single = {}
    for sid, t in tables.items():
        single[sid] = {K.BANDIT_NAMES[c]: float(t.share[t.present[:, c], c].var(ddof=1))
                       for c in range(len(K.BANDIT_NAMES)) if t.present[:, c].sum() > 1}
    paired = {}
    for a, b in compared_pairs(experiment.settings):
        ta, tb = tables[a], tables[b]
        both = ta.present & tb.present
        paired[a, b] = {K.BANDIT_NAMES[c]: float((tb.share[both[:, c], c]
                                                  - ta.share[both[:, c], c]).var(ddof=1))
                        for c in range(len(K.BANDIT_NAMES)) if both[:, c].sum() > 1}
    return single, paired, _pilot_errors(experiment, concat_results(*results.values()))


def _pilot_errors(experiment: Experiment, results) -> dict:
    """The standard errors of the headline's numbers on a pilot's games, from the reports'
    model: ``("spread", setting)``, ``("spread_change", baseline, setting)``, ``("effect",
    setting, bandit)`` and ``("effect_change", baseline, setting, bandit)``."""
    effects = balance.bandit_effects(results)
    pairs = compared_pairs(experiment.settings)
    out = {("spread", r.setting): r.se for r in balance.spreads(effects).itertuples()}
    out.update({("spread_change", r.baseline, r.setting): r.se
                for r in balance.spread_changes(effects, pairs).itertuples()})
    focus = experiment.focus
    out.update({("effect", r.setting, r.bandit): r.se for r in effects.table.itertuples()
                if r.bandit in focus})
    out.update({("effect_change", r.baseline, r.setting, r.bandit): r.se
                for r in balance.effect_changes(effects, pairs, focus).itertuples()})
    return out


def sample_sizes_file(path, half_width: float = P.HALF_WIDTH, difference: float = P.DIFFERENCE,
                      alpha: float = P.ALPHA, power: float = P.POWER, pilot: int = 0,
                      workers: int | None = None) -> SampleSizes:
    """:func:`sample_sizes` of an experiment file."""
    return sample_sizes(load_experiment(path), half_width, difference, alpha, power, pilot,
                        workers)
