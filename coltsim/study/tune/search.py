"""The balance search itself (the package docstring, coltsim.study.tune, says what it does):
checking a search (:func:`make_search`), playing it round by round (:func:`run_search`,
:func:`tune`) and reading tune files (:func:`load_tune`).
"""
from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ... import constants as K
from ...analysis.stats import wilson_interval, z_value
from .bootstrap import (
    BLOCK, OBJECTIVES, Estimate, Objective, RateSums, deal_table, deal_weights, elimination_z,
    estimate, within, worse_than,
)
from ...rules import Rules
from ...runs.fingerprint import fingerprint
from ...runs.options import check_games, check_seed
from ...runs.options import check_storable, check_workers
from ...runs.progress import RunProgress
from ...runs.runner import simulate
from ...setting import FieldError, Setting, make_setting
from ...words import did_you_mean
from ..experiment import Experiment, ExperimentError, parse_experiment, read_file, read_toml
from ..labels import setting_names
from ..report import formatting as fmt

TUNE_KEYS = ("option", "values", "range", "step", "objective", "bandit", "target", "max_games",
             "tolerance", "level")
# Experiment keys a tune file has no use for ([tune] has its own max_games).
NOT_USED = ("analyses", "correction", "precision", "max_games")
REPS = 400  # bootstrap replicates
MAX_VALUES = 50
DEFAULTS = {"objective": "spread", "max_games_factor": 16, "tolerance": 0.01, "level": 0.95}


# --- what is tuned ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Search:
    """A checked search: the settings, the values and what is minimised."""

    settings: tuple  # of Setting: the settings the objective is measured on
    option: str
    values: tuple
    variants: tuple  # variants[j][v]: settings[j] with option = values[v]
    objective: Objective
    target: object  # as given: a win rate, "fair" or None
    games: int  # per setting and value in the first round
    max_games: int
    tolerance: float
    level: float

    def schedule(self) -> list[int]:
        """Deals per setting and value after each round: doubling from ``games`` to
        ``max_games``."""
        out = [self.games]
        while out[-1] < self.max_games:
            out.append(min(2 * out[-1], self.max_games))
        return out


def value_text(value) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value)) or "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _is_number(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def grid(lo, hi, step=None) -> list[int]:
    """``lo, lo + step, ... hi`` (``hi`` included); default step: about 8 intervals."""
    if not (_is_number(lo) and _is_number(hi)) or lo >= hi:
        raise FieldError("range", f"must be two integers [low, high] with low < high, got "
                                  f"{[lo, hi]!r}")
    if step is None:
        step = max(1, -(-(hi - lo) // 8))
    if not _is_number(step) or step < 1:
        raise FieldError("step", f"must be a positive integer, got {step!r}")
    values = list(range(int(lo), int(hi) + 1, int(step)))
    return values if values[-1] == hi else values + [int(hi)]


def make_search(settings, option: str, values, objective: str = DEFAULTS["objective"],
                bandit: str | None = None, target=None, games: int = 2000,
                max_games: int | None = None, tolerance: float = DEFAULTS["tolerance"],
                level: float = DEFAULTS["level"]) -> Search:
    """Check everything a search needs; every problem is a one-line
    :class:`~coltsim.setting.FieldError` naming the field."""
    settings = (settings,) if isinstance(settings, Setting) else tuple(settings)
    if not settings or not all(isinstance(s, Setting) for s in settings):
        raise FieldError("settings", "give one or more settings (coltsim.make_setting) to "
                                     "measure the objective on")
    options = [f.name for f in dataclasses.fields(Rules)]
    if option not in options:
        raise FieldError("option", f"unknown rule option {option!r}; allowed: "
                                   f"{', '.join(options)}{did_you_mean(option, options)}")
    if not isinstance(values, (list, tuple)) or len(values) < 2:
        raise FieldError("values", f"give at least two values of {option} to choose from, got "
                                   f"{values!r}")
    if len(values) > MAX_VALUES:
        raise FieldError("values", f"at most {MAX_VALUES} values, got {len(values)}")
    values = tuple(tuple(v) if isinstance(v, list) else v for v in values)
    if len(set(values)) != len(values):
        raise FieldError("values", f"lists a value twice: {[value_text(v) for v in values]}")
    variants = []
    for s in settings:
        row = []
        for v in values:
            try:
                rules = dataclasses.replace(s.rules, **{option: v})
                variant = make_setting(s.players, s.lineup, s.policy_specs(), rules,
                                       s.policy_params() or None)
                check_storable(variant)
            except FieldError as e:
                raise FieldError("values", f"{option} = {value_text(v)}: {e.problem}") from None
            except (TypeError, ValueError) as e:
                raise FieldError("values", f"{option} = {value_text(v)}: {e}") from None
            row.append(variant)
        variants.append(tuple(row))
    games = check_games(games)
    if games < 50:
        raise FieldError("games", f"the first round needs at least 50 games per setting and "
                                  f"value, got {games}")
    max_games = games * DEFAULTS["max_games_factor"] if max_games is None else max_games
    if check_games(max_games) < games:
        raise FieldError("max_games", f"must be at least games ({games:,}), got {max_games:,}")
    if isinstance(level, bool) or not isinstance(level, float) or not 0.5 <= level < 1:
        raise FieldError("level", f"must be a number from 0.5 to 0.999, got {level!r}")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or \
            not 0 <= tolerance < 1:
        raise FieldError("tolerance", f"must be a win-rate difference from 0 to 1 (0.01 is one "
                                      f"point), got {tolerance!r}")
    return Search(settings, option, values, tuple(variants),
                  _objective(settings, objective, bandit, target), target, games,
                  int(max_games), float(tolerance), level)


def _objective(settings, kind, bandit, target) -> Objective:
    if kind not in OBJECTIVES:
        raise FieldError("objective", f"unknown objective {kind!r}; allowed: "
                                      f"{', '.join(OBJECTIVES)}{did_you_mean(kind, OBJECTIVES)}")
    if kind == "spread":
        for name, value in (("bandit", bandit), ("target", target)):
            if value is not None:
                raise FieldError(name, "only used with objective = \"win_rate\"")
        return Objective("spread")
    if bandit not in K.BANDIT_NAMES:
        raise FieldError("bandit", f"objective win_rate needs the bandit whose win rate is "
                                   f"tuned; allowed: {', '.join(K.BANDIT_NAMES)}, got {bandit!r}"
                                   f"{did_you_mean(bandit, K.BANDIT_NAMES)}")
    for s in settings:
        if not s.may_play(bandit):
            raise FieldError("bandit", f"{bandit} does not play in setting {s.label or s.id} "
                                       f"(line-up {s.lineup_text})")
    if target == "fair":
        targets = tuple(1.0 / s.players for s in settings)
    elif not isinstance(target, bool) and isinstance(target, (int, float)) and 0 < target < 1:
        targets = (float(target),) * len(settings)
    else:
        raise FieldError("target", f"a win rate between 0 and 1 (0.25 is 25%) or \"fair\" "
                                   f"(1/players of each setting), got {target!r}")
    return Objective("win_rate", bandit, targets)


# --- the search ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TuneResult:
    """What a search found (``coltsim.study.tune.report`` writes it up).

    ``table``: one row per value: ``value, games`` (per setting), ``objective, lo, hi``
    (bias-corrected, with its interval), ``raw`` (the plain estimate), ``vs_best, vs_best_lo,
    vs_best_hi`` (the objective minus the best value's on the deals both played, paired, with
    its interval), one column per setting
    (its own objective, bias-corrected), ``status`` (``best``, ``in the running`` or ``dropped``) and
    ``dropped_after`` (games per setting when it was dropped).
    ``rates``: win rate of every bandit per value and setting, with Wilson intervals.
    ``play``: per value, on the first round's deals, against the reference value: the share of
    deals where any bandit's shots, loot or bullets received differed, and the change of mean
    shots and loot per bandit with intervals.
    """

    search: Search
    table: pd.DataFrame
    rates: pd.DataFrame
    play: pd.DataFrame
    rounds: pd.DataFrame
    best: object
    best_estimate: Estimate
    contenders: tuple
    reference: object
    games: int  # every game played, over every value and setting
    seconds: float
    stopped: str
    z: float
    seed: int
    warning: str | None
    fingerprints: tuple = ()  # of each setting and value, from the first round's games

    @property
    def setting_names(self) -> list[str]:
        return setting_names(self.search.settings)


def round_seed(seed: int, round_: int) -> int:
    """The master seed of round ``round_``'s deals (round 0 plays ``seed`` itself)."""
    if round_ == 0:
        return seed
    return int(np.random.SeedSequence([seed, round_]).generate_state(1, np.uint64)[0] >> 1)


def tune(settings, option: str, values, *, objective: str = DEFAULTS["objective"],
         bandit: str | None = None, target=None, games: int = 2000,
         max_games: int | None = None, tolerance: float = DEFAULTS["tolerance"],
         level: float = DEFAULTS["level"], seed: int = 0, workers: int | None = None,
         backend: str = "loky", progress: bool = False, log=None) -> TuneResult:
    """Find the value of rule ``option`` that minimises the objective (module docstring).

    Parameters
    ----------
    settings : Setting or list of Setting
        What is played (players, line-up, policies, the other rules); the objective is averaged
        over them (typically one per player count).
    option : str
        A rule option (``coltsim.Rules``), e.g. ``"gunslinger_bonus"``.
    values : list
        The values to choose from (``grid(lo, hi, step)`` makes a range).
    objective : "spread" or "win_rate"
        ``spread``: strongest minus weakest bandit's win rate.  ``win_rate``: the distance of
        ``bandit``'s win rate from ``target`` (a rate, or ``"fair"``: 1/players).
    games : int
        Deals per setting and value in the first round (default 2,000); doubled each round.
    max_games : int, optional
        Deals per setting and value at most (default 16 x ``games``).
    tolerance : float
        Values within this of the best (a win-rate difference: 0.01 = 1 point) are as good.
    level : float
        Coverage of the intervals; the chance of dropping the best value is about ``1 - level``.
    seed, workers, backend
        As for ``coltsim.simulate``.
    progress : bool
        A progress bar per round.
    log : callable, optional
        Called with one line of text after each round.
    """
    search = make_search(settings, option, values, objective, bandit, target, games, max_games,
                         tolerance, level)
    return run_search(search, seed=seed, workers=workers, backend=backend, progress=progress,
                      log=log)


def run_search(search: Search, *, seed: int = 0, workers: int | None = None,
               backend: str = "loky", progress: bool = False, log=None) -> TuneResult:
    """Play a checked search (:func:`make_search`); the arguments are those of :func:`tune`."""
    seed = check_seed(seed)
    workers = check_workers(workers)
    schedule = search.schedule()
    z = elimination_z(len(search.values), len(schedule), search.level)
    n_settings = len(search.settings)
    parts: list = [[] for _ in search.values]  # per value, the RateSums of each round it played
    alive = list(range(len(search.values)))
    played = np.zeros(len(search.values), np.int64)
    dropped_after: dict = {}
    first_plays: dict = {}  # (setting, value) -> the first round's play arrays
    fingerprints = []  # (coltsim.runs.fingerprint) of every variant's first-round games
    rounds = []
    stopped = "the game cap (max_games) was reached"
    total_games = 0
    start = time.perf_counter()
    for r, cumulative in enumerate(schedule):
        n = cumulative - (schedule[r - 1] if r else 0)
        bar = _bar(progress, len(alive) * n_settings * n, f"round {r + 1}: {len(alive)} values")
        for j in range(n_settings if bar else 0):
            for v in alive:
                bar.expect(search.variants[j][v].id, n)
        for v in alive:
            parts[v].append(RateSums(n_settings, REPS))
        for j in range(n_settings):
            tables = {}
            for v in alive:
                results = simulate(search.variants[j][v], n, seed=round_seed(seed, r),
                                   workers=workers, backend=backend, progress=bar or False)
                tables[v] = deal_table(results)
                total_games += n
                if r == 0:
                    first_plays[j, v] = tables[v].play
                    fingerprints.append(_fingerprint(results, search.variants[j][v], seed, n))
            for first in range(0, n, BLOCK):
                stop = min(n, first + BLOCK)
                weights = deal_weights(seed, j, r, first, stop - first, REPS)
                for v in alive:
                    parts[v][r].add(j, tables[v].rows(first, stop), weights)
        if bar:
            bar.close()
        played[alive] = cumulative
        sums = {v: RateSums.total(parts[v]) for v in alive}
        points = np.array([search.objective(sums[v].rates()) for v in alive])
        boots = np.stack([search.objective(sums[v].boot_rates()) for v in alive], axis=1)
        corrected = 2 * points - boots.mean(axis=0)
        best = int(np.argmin(corrected))
        worse = worse_than(best, points, boots, z)
        gone = [alive[i] for i in np.flatnonzero(worse)]
        for v in gone:
            dropped_after[v] = cumulative
        kept = [v for v in alive if v not in gone]
        rounds.append({"round": r + 1, "games_per_value": cumulative, "values": len(alive),
                       "games": len(alive) * n_settings * n,
                       "best": value_text(search.values[alive[best]]),
                       "dropped": ", ".join(value_text(search.values[v]) for v in gone)})
        if log is not None:
            log(_round_line(search, r, alive, n, cumulative, alive[best], gone))
        keep_idx = [i for i, v in enumerate(alive) if v in kept]
        alive = kept
        if len(alive) == 1:
            stopped = "one value was left"
            break
        best_kept = keep_idx.index(best)
        if within(best_kept, points[keep_idx], boots[:, keep_idx], z, search.tolerance):
            stopped = (f"the values left were all within {fmt.points(search.tolerance)} points of "
                       "the best")
            break
    seconds = time.perf_counter() - start
    result = _result(search, parts, played, alive, dropped_after, first_plays, rounds, stopped,
                     total_games, seconds, z, seed)
    return dataclasses.replace(result, fingerprints=tuple(fingerprints))


def _fingerprint(results, variant: Setting, seed: int, games: int) -> dict:
    """The fingerprint of a variant's games, with what it plays (a search's manifest does not
    list its variants)."""
    record = fingerprint(results, variant.id, seed, variant.policies, games)
    return {**record, "played": json.loads(json.dumps(variant.as_dict()))}


def _bar(progress: bool, total: int, desc: str):
    """A round's progress bar (its time left from each variant's own speed), or None."""
    return RunProgress(total, desc=desc) if progress else None


def _round_line(search: Search, r, alive, n, cumulative, best, gone) -> str:
    line = (f"round {r + 1}: {len(alive)} values x {len(search.settings)} setting(s) x {n:,} "
            f"games ({cumulative:,} per value); best so far {search.option} = "
            f"{value_text(search.values[best])}")
    if gone:
        line += "; dropped " + ", ".join(value_text(search.values[v]) for v in gone)
    return line


def _result(search, parts, played, alive, dropped_after, first_plays, rounds, stopped,
            total_games, seconds, z, seed) -> TuneResult:
    names = setting_names(search.settings)
    sums = [RateSums.total(p) for p in parts]
    rows = []
    for v, value in enumerate(search.values):
        rates, boot = sums[v].rates(), sums[v].boot_rates()
        e = estimate(float(search.objective(rates)), search.objective(boot), search.level)
        row = {"value": value_text(value), "games": int(played[v]), "objective": e.estimate,
               "lo": e.lo, "hi": e.hi, "raw": e.raw}
        per_setting = search.objective.per_setting(rates)
        boot_per_setting = search.objective.per_setting(boot)
        row.update({name: estimate(float(per_setting[j]), boot_per_setting[:, j],
                                   search.level).estimate for j, name in enumerate(names)})
        row["dropped_after"] = dropped_after.get(v)
        rows.append(row)
    table = pd.DataFrame(rows)
    best = min(alive, key=lambda v: table["objective"][v])
    versus = [_versus(search, parts, v, best) for v in range(len(parts))]
    table["vs_best"], table["vs_best_lo"], table["vs_best_hi"] = (list(c) for c in zip(*versus))
    table = table[["value", "games", "objective", "lo", "hi", "raw", "vs_best", "vs_best_lo",
                   "vs_best_hi", *names, "dropped_after"]]
    table["status"] = ["best" if v == best else "in the running" if v in alive else "dropped"
                       for v in range(len(search.values))]
    table["dropped_after"] = table["dropped_after"].astype("Int64")
    best_estimate = estimate(float(search.objective(sums[best].rates())),
                             search.objective(sums[best].boot_rates()), search.level)
    default = getattr(Rules(), search.option)
    reference = search.values.index(default) if default in search.values else 0
    play = _play_table(search, first_plays, reference)
    return TuneResult(search, table, _rates_table(search, sums, played), play,
                      pd.DataFrame(rounds), search.values[best], best_estimate,
                      tuple(search.values[v] for v in alive), search.values[reference],
                      total_games, seconds, stopped, z, seed, _warning(search, play, reference))


def _versus(search: Search, parts, v: int, best: int) -> tuple[float, float, float]:
    """Value ``v``'s objective minus the best value's, on the deals both played (the rounds
    ``v`` played), bias-corrected, with its interval."""
    if v == best:
        return 0.0, 0.0, 0.0
    mine, theirs = RateSums.total(parts[v]), RateSums.total(parts[best][:len(parts[v])])
    point = float(search.objective(mine.rates()) - search.objective(theirs.rates()))
    boot = search.objective(mine.boot_rates()) - search.objective(theirs.boot_rates())
    e = estimate(point, boot, search.level, floor=None)
    return e.estimate, e.lo, e.hi


def _rates_table(search: Search, sums, played) -> pd.DataFrame:
    names = setting_names(search.settings)
    rows = []
    for v, value in enumerate(search.values):
        s = sums[v]
        for j, name in enumerate(names):
            lo, hi = wilson_interval(s.wins[j], s.games[j], search.level)
            for c, bandit in enumerate(K.BANDIT_NAMES):
                if s.games[j, c] > 0:
                    rows.append({"value": value_text(value), "setting": name,
                                 "players": search.settings[j].players, "bandit": bandit,
                                 "games": int(s.games[j, c]),
                                 "win_rate": s.wins[j, c] / s.games[j, c],
                                 "lo": lo[c], "hi": hi[c]})
    return pd.DataFrame(rows)


def _play_table(search: Search, first_plays: dict, reference: int) -> pd.DataFrame:
    """Play per value against the reference value, on the first round's deals of every
    setting (pooled: each deal is one pair)."""
    z = z_value(search.level)
    rows = []
    for v, value in enumerate(search.values):
        changed, shots, loot = [], [], []
        mean_shots, mean_loot = [], []
        for j in range(len(search.settings)):
            a, b = first_plays[j, reference], first_plays[j, v]
            changed.append((a != b).any(axis=(1, 2)))
            shots.append(b[:, :, 0].mean(axis=1) - a[:, :, 0].mean(axis=1))
            loot.append(b[:, :, 1].mean(axis=1) - a[:, :, 1].mean(axis=1))
            mean_shots.append(b[:, :, 0].mean(axis=1))
            mean_loot.append(b[:, :, 1].mean(axis=1))
        row = {"value": value_text(value), "deals": int(sum(len(c) for c in changed)),
               "deals_changed": float(np.concatenate(changed).mean())}
        for name, d, m in (("shots", shots, mean_shots), ("loot", loot, mean_loot)):
            d = np.concatenate(d).astype(np.float64)
            half = z * d.std(ddof=1) / math.sqrt(d.size) if d.size > 1 else np.nan
            row.update({f"mean_{name}": float(np.concatenate(m).mean()),
                        f"{name}_change": float(d.mean()), f"{name}_lo": float(d.mean() - half),
                        f"{name}_hi": float(d.mean() + half)})
        rows.append(row)
    return pd.DataFrame(rows)


def _warning(search: Search, play: pd.DataFrame, reference: int) -> str | None:
    """A warning when the players did not react to the rule (from the play table)."""
    others = play.drop(index=reference)
    policies = policies_text(search.settings)
    if (others["deals_changed"] == 0).all():
        return (f"The players ({policies}) ignored {search.option}: on every one of the "
                f"{int(others['deals'].iloc[0]):,} deals of the first round, every bandit fired "
                f"the same shots, took the same loot and received the same bullets under every "
                f"value.  The differences between values are the same games rescored, not "
                f"players reacting to the rule.")
    moved = ((others["shots_lo"] > 0) | (others["shots_hi"] < 0)
             | (others["loot_lo"] > 0) | (others["loot_hi"] < 0))
    if not moved.any():
        lo, hi = others["deals_changed"].min(), others["deals_changed"].max()
        return (f"The players ({policies}) barely reacted to {search.option}: play differed on "
                f"{fmt.pct(lo)} to {fmt.pct(hi)} of the first round's deals, but the mean "
                f"shots and loot per bandit did not change measurably under any value.  The "
                f"differences between values come mostly from rescoring.")
    return None


def policies_text(settings) -> str:
    """The policies played, with their parameters: ``greedy``, ``rollout (budget 32) against
    greedy``."""
    texts = []
    for s in settings:
        params = s.policy_params()
        names = []
        for p in dict.fromkeys(s.policies):
            extra = ", ".join(f"{k} {v}" for k, v in params.get(p, {}).items())
            names.append(f"{p} ({extra})" if extra else p)
        texts.append(" against ".join(names) if len(names) > 1 else f"{names[0]} at every seat")
    return "; ".join(dict.fromkeys(texts))


# --- files --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TuneFile:
    """A validated tune file: the experiment part (settings, seed, games, workers, output...)
    and the search."""

    experiment: Experiment
    search: Search


def load_tune(path, games: int | None = None, max_games: int | None = None) -> TuneFile:
    """Read and validate a tune file; :class:`ExperimentError` (one line) on any problem.
    ``games`` and ``max_games`` override the file's."""
    return loads_tune(read_file(path, "tune"), source=str(path), games=games,
                      max_games=max_games)


def loads_tune(text: str, source: str = "<string>", games: int | None = None,
               max_games: int | None = None) -> TuneFile:
    """Validate tune-file TOML given as text; ``games`` and ``max_games`` override the file's."""
    data = read_toml(text, source)
    table = data.pop("tune", None)
    if not isinstance(table, dict):
        raise ExperimentError(f"{source}: tune: missing; a tune file needs a [tune] table with "
                              f"the option, its values and the objective (docs/tune.md)")
    for key in NOT_USED:
        if key in data:
            raise ExperimentError(f"{source}: {key}: not used by a tune file; leave it out")
    for key in table:
        if key not in TUNE_KEYS:
            raise ExperimentError(f"{source}: tune.{key}: unknown key; allowed: "
                                  f"{', '.join(TUNE_KEYS)}{did_you_mean(key, TUNE_KEYS)}")
    if "option" not in table:
        raise ExperimentError(f"{source}: tune.option: missing; name the rule option to tune, "
                              "e.g. option = \"gunslinger_bonus\"")
    option = table["option"]
    for where in _rule_tables(data):
        if isinstance(where[1], dict) and option in where[1]:
            raise ExperimentError(f"{source}: {where[0]}.{option}: set by [tune]; leave it out "
                                  "of the settings")
    experiment = parse_experiment(data, source=source, text=text)
    if games is not None:
        experiment = experiment.with_overrides(games=games)
    try:
        values = _file_values(table)
        search = make_search(experiment.settings, option, values,
                             table.get("objective", DEFAULTS["objective"]), table.get("bandit"),
                             table.get("target"), experiment.games,
                             max_games if max_games is not None else table.get("max_games"),
                             table.get("tolerance", DEFAULTS["tolerance"]),
                             table.get("level", DEFAULTS["level"]))
    except FieldError as e:
        where = "games" if e.field == "games" else f"tune.{e.field}"
        raise ExperimentError(f"{source}: {where}: {e.problem}") from None
    return TuneFile(experiment, search)


def _rule_tables(data: dict):
    yield "rules", data.get("rules")
    sweep = data.get("sweep")
    if isinstance(sweep, dict):
        yield "sweep.rules", sweep.get("rules")
    settings = data.get("settings")
    if isinstance(settings, list):
        for i, entry in enumerate(settings):
            if isinstance(entry, dict):
                yield f"settings[{i}].rules", entry.get("rules")


def _file_values(table: dict) -> list:
    if "values" in table:
        if "range" in table or "step" in table:
            raise FieldError("values", "give values or range (with step), not both")
        return table["values"]
    if "range" not in table:
        raise FieldError("values", "missing; give values = [...] or range = [low, high] with "
                                   "step")
    rng = table["range"]
    if not isinstance(rng, list) or len(rng) != 2:
        raise FieldError("range", f"must be [low, high], got {rng!r}")
    return grid(rng[0], rng[1], table.get("step"))
