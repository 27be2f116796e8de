"""Experiment files: TOML -> a validated :class:`Experiment` whose settings are
:class:`coltsim.setting.Setting` objects.

An experiment asks one question of many simulated games.  Its file lists the settings to play
(explicitly, or as a sweep: every combination of the listed values) and the analyses to run.
Every key, every rule option and two worked examples: docs/experiments.md.  In short::

    name = "rule_whatif"
    description = "What does the Gunslinger bonus do to character balance?"
    seed = 7
    games = 100_000                 # per setting (with precision: the first round, default 2000)
    precision = 0.01                # optional: grow the run in rounds until every win-rate
    max_games = 400_000             # interval of the headline is within +-0.01, or the cap
    analyses = ["compare", "balance", "gunslinger"]   # the report's sections, in this order
                                    # (default: every analysis that applies, the question first)
    correction = "holm"             # or "bh": one family of tests per report; default "holm"
    ladder = ["greedy", "rollout"]  # optional: play every setting with each of these policies
                                    # in every seat, weakest first; the report gives every answer
                                    # per policy and says which hold for the two strongest
    focus = "cheyenne"              # optional: the bandit (or a list) the question is about; the
                                    # headline gives its effect first, and how each comparison
                                    # moves it
    output = "reports/rule_whatif"  # default: reports/<name>
    backend = "loky"                # loky, threading or dask
    workers = 2                     # default: every core

    [rules]                         # options for every setting (fields of coltsim.Rules, and
    neutral_bullets = 13            # abilities_off: the bandits without their ability)

    [sweep]                         # every combination of:
    players = [3, 4, 5, 6]
    lineup = ["random"]             # "random", "all", "ghost,belle,tuco" or a list of names
    policies = ["greedy"]           # one for every seat, or a list with one per player
                                    # (default: coltsim.setting.DEFAULT_POLICY; in
                                    # the two-player game the planner)

    [sweep.rules]                   # each rule option: a list of values to sweep
    gunslinger_bonus = [1000, 0]

    [sweep.label]                   # optional: a name per value of a swept key
    gunslinger_bonus = ["printed bonus", "no bonus"]

    [[settings]]                    # and/or settings listed one by one, with the same keys
    label = "rollout against greedy"   # optional: how reports and tournaments name it
    players = 4
    lineup = ["ghost", "belle", "tuco", "doc"]
    policies = ["rollout", "greedy", "greedy", "greedy"]   # a table of different policies is
    rules = { advanced = true, abilities_off = ["belle"] } # played in every seat rotation

    [policy_params.rollout]         # parameters of a policy, in every setting that plays it
    budget = 32

A mistake gives an :class:`ExperimentError` (a ``ValueError``) whose one-line message names the
file, the key and the allowed values, e.g.::

    experiments/x.toml: sweep.players: 7 is not a player count; allowed: 2, 3, 4, 5, 6 (...)

What the experiment compares is read from its settings (coltsim.analysis.design): settings
that differ in rule options or line-up are *conditions*, each compared with the first one listed
at the same player count and policy; the report answers per condition, player count and policy.
With ``ladder``, a setting may not name its policies (the ladder does).

Every setting is built and checked by ``coltsim.make_setting`` (and the run options by
``coltsim.runs.options``); this module only knows where in the file each value came from.  A
setting's id (``p4-greedy-1a2b3c``) is a hash of what it plays, so it stays the same when
settings are added, removed or reordered.
"""
from __future__ import annotations

import dataclasses
import itertools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .. import constants as K
from ..policies import catalog
from ..rules import ABILITIES_OFF, option_names
from ..runs.options import (
    BACKENDS, check_backend, check_games, check_seed, check_storable, check_workers,
)
from ..setting import FieldError, Setting, make_setting, played_settings
from ..words import did_you_mean

# The analyses an experiment can ask for: each is a topic of the report, the module of its name
# in coltsim/study/report/sections/ (by default, the question first: report.build).
ANALYSES = ("compare", "balance", "policies", "head_to_head", "quality", "gunslinger",
            "round_cards", "seats")
# A run asked for a precision: its first round's games per setting, and its cap, by default.
PRECISION_GAMES = 2_000
PRECISION_MAX_GAMES = 1_000_000
MAX_PRECISION = 0.5  # a half-width of 50 points says nothing
CORRECTIONS = ("holm", "bh")
TOP_KEYS = ("name", "description", "seed", "games", "precision", "max_games", "analyses",
            "correction", "output", "backend", "scheduler", "workers", "rules", "sweep",
            "settings", "policy_params", "ladder", "focus")
SWEEP_KEYS = ("label", "players", "lineup", "policies", "rules")
SETTING_KEYS = ("label", "players", "lineup", "policies", "rules")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
RULE_OPTIONS = option_names()  # the fields of coltsim.Rules, and abilities_off
_TUPLE_OPTIONS = ("abilities", "cars", "round_cards", ABILITIES_OFF)
# Two names of one option: a table giving one replaces the other's value from [rules].
_SAME_OPTION = {"abilities": ABILITIES_OFF, ABILITIES_OFF: "abilities"}


class ExperimentError(ValueError):
    """A bad experiment file; the message is one line naming the file, the key and what is
    allowed."""


@dataclass(frozen=True)
class Experiment:
    """A validated experiment file (see the module docstring for the keys)."""

    name: str
    description: str
    seed: int
    games: int
    settings: tuple  # of Setting
    analyses: tuple  # () = every analysis that applies (the report decides)
    correction: str
    output: Path
    backend: str
    scheduler: str | None
    workers: int | None  # None: every core
    source: str  # the file it came from ("<string>" for text)
    text: str  # the TOML text, kept so a report can record exactly what was asked
    ladder: tuple = ()  # policy names, weakest first, each played in every seat of every setting
    precision: float | None = None  # target half-width of the headline's win-rate intervals
    max_games: int | None = None  # with precision: games per setting at most
    focus: tuple = ()  # bandit names the question is about (the headline answers for them first)

    def with_overrides(self, games: int | None = None, output=None,
                       workers: int | None = None, precision: float | None = None,
                       max_games: int | None = None) -> "Experiment":
        """The same experiment with command-line overrides (``--games``, ``--out``,
        ``--workers``, ``--precision``, ``--max-games``) applied and validated."""
        changes = {}
        if games is not None:
            changes["games"] = _checked(self.source, check_games, games)
        if output is not None:
            changes["output"] = Path(output)
        if workers is not None:
            changes["workers"] = _checked(self.source, check_workers, workers, self.backend)
        if precision is not None or max_games is not None:
            changes["precision"], changes["max_games"] = _precision(
                self.source, self.precision if precision is None else precision,
                self.max_games if max_games is None else max_games,
                changes.get("games", self.games), ("--precision", "--max-games"))
        elif games is not None and self.precision is not None:
            _precision(self.source, self.precision, self.max_games, games)
        return dataclasses.replace(self, **changes)


# --- loading ---------------------------------------------------------------------------------
def read_file(path, kind: str = "experiment") -> str:
    """The text of an experiment (or tune) file; :class:`ExperimentError` if unreadable."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8-sig")  # a byte-order mark is not part of TOML
    except OSError as e:
        raise ExperimentError(f"{path}: cannot read the {kind} file: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ExperimentError(f"{path}: not a UTF-8 text file") from None


def read_toml(text: str, source: str) -> dict:
    """TOML text as a mapping; :class:`ExperimentError` naming ``source`` if it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ExperimentError(f"{source}: not valid TOML: {e}") from None
    except RecursionError:
        raise ExperimentError(f"{source}: nested too deeply to be an experiment file") from None


def load_experiment(path) -> Experiment:
    """Read and validate an experiment file; :class:`ExperimentError` on any problem."""
    return loads_experiment(read_file(path), source=str(path))


def loads_experiment(text: str, source: str = "<string>") -> Experiment:
    """Validate experiment TOML given as text (``source`` names it in errors)."""
    return parse_experiment(read_toml(text, source), source=source, text=text)


def parse_experiment(data: dict, source: str = "<dict>", text: str = "") -> Experiment:
    """Validate an already-parsed experiment mapping."""
    if not isinstance(data, dict):
        raise ExperimentError(f"{source}: an experiment must be a TOML table")
    if "tune" in data:
        raise ExperimentError(f"{source}: tune: a tune file (a balance search); run it with "
                              f"coltsim tune {source}")
    _known_keys(source, "", data, TOP_KEYS)
    if "name" not in data:
        raise ExperimentError(f"{source}: name: missing; give the experiment a name "
                              "(letters, digits, '_', '-', '.')")
    name = data["name"]
    if not isinstance(name, str) or not NAME.match(name):
        raise ExperimentError(f"{source}: name: {name!r} is not a valid name; allowed: letters, "
                              "digits, '_', '-' and '.', starting with a letter or digit")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ExperimentError(f"{source}: description: must be a string, got {description!r}")
    seed = _checked(source, check_seed, data.get("seed", 0))
    if "games" not in data and "precision" not in data:
        raise ExperimentError(f"{source}: games: missing; give the number of games per setting "
                              "(an integer >= 1), or a precision to reach")
    games = _checked(source, check_games, data.get("games", PRECISION_GAMES))
    precision, max_games = _precision(source, data.get("precision"), data.get("max_games"),
                                      games)
    analyses = check_analyses(source, data["analyses"]) if "analyses" in data else ()
    correction = check_choice(source, "correction", data.get("correction", "holm"), CORRECTIONS)
    output = data.get("output", f"reports/{name}")
    if not isinstance(output, str) or not output.strip():
        raise ExperimentError(f"{source}: output: must be a folder path, got {output!r}")
    backend = check_choice(source, "backend", data.get("backend", "loky"), BACKENDS)
    scheduler = data.get("scheduler")
    _checked(source, check_backend, backend, scheduler)
    workers = _checked(source, check_workers, data.get("workers"), backend)
    policy_params = data.get("policy_params", {})
    if not isinstance(policy_params, dict) or not all(isinstance(v, dict)
                                                      for v in policy_params.values()):
        raise ExperimentError(f"{source}: policy_params: must hold one table per policy, "
                              "e.g. [policy_params.weighted]")

    ladder = _ladder(source, data.get("ladder"))
    focus = _focus(source, data.get("focus"))
    base_rules = data.get("rules", {})
    if not isinstance(base_rules, dict):
        raise ExperimentError(f"{source}: rules: must be a table of rule options; allowed "
                              f"options: {', '.join(RULE_OPTIONS)}")
    _known_keys(source, "rules", base_rules, RULE_OPTIONS)

    candidates = []  # (keys, setting fields, rule options with where they came from)
    if "sweep" in data:
        candidates += _expand_sweep(source, data["sweep"], base_rules, ladder)
    if "settings" in data:
        entries = data["settings"]
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ExperimentError(f"{source}: settings: must be an array of tables "
                                  "([[settings]] blocks)")
        for i, entry in enumerate(entries):
            candidates.append(_explicit_setting(source, f"settings[{i}]", entry, base_rules,
                                                ladder))
    if ladder:  # every setting once per policy of the ladder, in every seat
        candidates = [(keys, {**fields, "policies": policy}, options)
                      for keys, fields, options in candidates for policy in ladder]
    if not candidates:
        raise ExperimentError(f"{source}: sweep: no settings; add a [sweep] table or "
                              "[[settings]] blocks")

    settings, seen, named = [], {}, {}
    for keys, fields, options in candidates:
        s = _setting(source, keys, fields, options, policy_params)
        if s.id in seen:
            raise ExperimentError(f"{source}: {keys['where']}: the same setting as "
                                  f"{seen[s.id]}; each setting must differ in players, line-up, "
                                  "policies or rules")
        seen[s.id] = keys["where"]
        if s.label is not None:
            # One name for one condition: settings that differ in what the experiment compares
            # (rules, line-up) at the same player count and policies need two labels.
            first = named.setdefault((s.label, s.players, s.policies), (s, keys["where"]))
            if (first[0].lineup, first[0].rules) != (s.lineup, s.rules):
                where = "" if first[1] == keys["where"] else f"{first[1]} and {keys['where']}: "
                raise ExperimentError(
                    f"{source}: {keys['label']}: {s.label!r} would name two different settings "
                    f"({where}other rules or another line-up at {s.players} players); give "
                    "each its own label (in a sweep, a label list to every swept rule option "
                    "and line-up)")
        settings.append(s)
    used = {p for s in settings for p in s.policies}
    for policy in policy_params:
        if policy not in used:
            raise ExperimentError(f"{source}: policy_params.{policy}: no setting plays this "
                                  f"policy; used: {', '.join(sorted(used))}")
    for bandit in focus:
        if not any(s.may_play(bandit) for s in settings):
            raise ExperimentError(f"{source}: focus: {bandit} plays in no setting (every "
                                  "line-up names its bandits without them)")
    if "compare" in analyses and "analyses" in data and len(settings) < 2:
        raise ExperimentError(f"{source}: analyses: \"compare\" needs at least two settings, "
                              "this experiment has one")
    _analyses_apply(source, analyses, settings)
    return Experiment(name, description, seed, games, tuple(settings), analyses, correction,
                      Path(output), backend, scheduler, workers, source, text, ladder, precision,
                      max_games, focus)


# --- pieces ----------------------------------------------------------------------------------
def _analyses_apply(source, analyses: tuple, settings: list) -> None:
    """An analysis asked for by name must have something to answer (coltsim.analysis.design):
    a comparison two settings to compare, ``policies`` a table of different policies."""
    if not {"compare", "policies"} & set(analyses):
        return
    from ..analysis.design import design_of  # (pandas: only for the analyses that need it)
    from .labels import settings_table

    design = design_of(settings_table(played_settings(settings)))
    if "compare" in analyses and not design.pairs():
        raise ExperimentError(
            f"{source}: analyses: \"compare\" needs two settings that differ in rule options or "
            "line-up at the same player count and policies; this experiment has none to "
            "compare (list the analyses without it, or add such a setting)")
    if "policies" in analyses and not design.tables():
        raise ExperimentError(
            f"{source}: analyses: \"policies\" needs a table of different policies (e.g. "
            "policies = [\"rollout\", \"greedy\", \"greedy\", \"greedy\"]); every setting of this "
            "experiment seats one policy")


def _checked(source: str, check, *args):
    """``check(*args)``, with its FieldError as an ExperimentError naming the file."""
    try:
        return check(*args)
    except FieldError as e:
        raise ExperimentError(f"{source}: {e.field}: {e.problem}") from None


def _known_keys(source: str, where: str, table: dict, allowed) -> None:
    for key in table:
        if key not in allowed:
            path = f"{where}.{key}" if where else key
            raise ExperimentError(f"{source}: {path}: unknown key; allowed: {', '.join(allowed)}"
                                  f"{did_you_mean(key, allowed)}")


def _precision(source, precision, max_games, games, keys=("precision", "max_games")):
    """The checked ``precision`` (a win-rate half-width) and ``max_games`` (its cap, default
    :data:`PRECISION_MAX_GAMES`); ``(None, None)`` without a precision."""
    if precision is None:
        if max_games is not None:
            raise ExperimentError(f"{source}: {keys[1]}: caps a run asked for a precision; give "
                                  f"{keys[0]} too, or leave it out")
        return None, None
    if isinstance(precision, bool) or not isinstance(precision, (int, float)) \
            or not 0 < precision <= MAX_PRECISION:
        raise ExperimentError(f"{source}: {keys[0]}: must be a win-rate half-width above 0 and "
                              f"at most {MAX_PRECISION} (0.01 is one percentage point), got "
                              f"{precision!r}")
    if max_games is None:
        max_games = max(PRECISION_MAX_GAMES, games)
    try:
        max_games = check_games(max_games)
    except FieldError as e:
        raise ExperimentError(f"{source}: {keys[1]}: {e.problem}") from None
    if max_games < games:
        raise ExperimentError(f"{source}: {keys[1]}: must be at least games ({games:,}), the "
                              f"first round, got {max_games:,}")
    return float(precision), max_games


def check_choice(source, key, value, allowed) -> str:
    """``value`` if one of ``allowed``; else an :class:`ExperimentError` naming ``key``."""
    if value not in allowed:
        raise ExperimentError(f"{source}: {key}: unknown value {value!r}; allowed: "
                              f"{', '.join(allowed)}{did_you_mean(value, allowed)}")
    return value


def check_analyses(source, value) -> tuple:
    """The analyses ``value`` names (a name or a list), each once; else an ExperimentError."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise ExperimentError(f"{source}: analyses: must be a non-empty list; allowed: "
                              f"{', '.join(ANALYSES)}")
    for a in value:
        if a not in ANALYSES:
            raise ExperimentError(f"{source}: analyses: unknown analysis {a!r}; allowed: "
                                  f"{', '.join(ANALYSES)}{did_you_mean(a, ANALYSES)}")
    return tuple(dict.fromkeys(value))


def _ladder(source, value) -> tuple:
    """The ladder: policy names (weakest first), each one policy for every seat."""
    if value is None:
        return ()
    allowed = f"{', '.join(catalog.POLICY_NAMES)} or \"package.module:function\""
    if not isinstance(value, list) or len(value) < 2:
        raise ExperimentError(f"{source}: ladder: must list two or more policies, weakest "
                              f"first, e.g. [\"greedy\", \"rollout\"]; allowed: {allowed}")
    for p in value:
        if not catalog.is_policy(p):
            raise ExperimentError(f"{source}: ladder: unknown policy {p!r}; allowed: {allowed}"
                                  f"{did_you_mean(p, catalog.POLICY_NAMES)}")
        if value.count(p) > 1:
            raise ExperimentError(f"{source}: ladder: {p!r} is listed twice")
    return tuple(value)


def _focus(source, value) -> tuple:
    """The bandits the question is about: one name or a list of names."""
    if value is None:
        return ()
    names = [value] if isinstance(value, str) else value
    allowed = ", ".join(K.BANDIT_NAMES)
    if not isinstance(names, list) or not names:
        raise ExperimentError(f"{source}: focus: must be a bandit's name or a list of names; "
                              f"allowed: {allowed}")
    for name in names:
        if name not in K.BANDIT_NAMES:
            raise ExperimentError(f"{source}: focus: unknown bandit {name!r}; allowed: "
                                  f"{allowed}{did_you_mean(name, K.BANDIT_NAMES)}")
        if names.count(name) > 1:
            raise ExperimentError(f"{source}: focus: {name!r} is listed twice")
    return tuple(names)


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _expand_sweep(source, sweep, base_rules, ladder=()) -> list:
    if not isinstance(sweep, dict):
        raise ExperimentError(f"{source}: sweep: must be a table with keys "
                              f"{', '.join(SWEEP_KEYS)}")
    _known_keys(source, "sweep", sweep, SWEEP_KEYS)
    if "players" not in sweep:
        raise ExperimentError(f"{source}: sweep.players: missing; list the player counts, "
                              f"e.g. players = [3, 4, 5, 6]")
    if ladder and "policies" in sweep:
        raise ExperimentError(f"{source}: sweep.policies: the ladder names the policies; "
                              "leave sweep.policies out")
    axes = {"players": _as_list(sweep["players"]),
            "lineup": _as_list(sweep.get("lineup", ["random"])),
            "policies": _as_list(sweep.get("policies", [None]))}  # None: the default
    for key, values in axes.items():
        if not values:
            raise ExperimentError(f"{source}: sweep.{key}: empty list; give at least one value")
    rule_sweep = sweep.get("rules", {})
    if not isinstance(rule_sweep, dict):
        raise ExperimentError(f"{source}: sweep.rules: must be a table of rule options, each "
                              "with a list of values")
    _known_keys(source, "sweep.rules", rule_sweep, RULE_OPTIONS)
    for opt, values in rule_sweep.items():
        example = "[[\"ghost\", \"belle\"], []]" if opt in _TUPLE_OPTIONS else "[1000, 0]"
        if not isinstance(values, list) or not values:
            raise ExperimentError(f"{source}: sweep.rules.{opt}: must be a non-empty list of "
                                  f"values to sweep, e.g. {example}")
        if opt in base_rules or _SAME_OPTION.get(opt) in base_rules:
            raise ExperimentError(f"{source}: sweep.rules.{opt}: also set in [rules]; set it in "
                                  "one place")
    axes.update(rule_sweep)
    labels = _sweep_labels(source, sweep, axes)
    keys = {"where": "sweep", "players": "sweep.players", "lineup": "sweep.lineup",
            "policies": "sweep.policies", "label": "sweep.label", "rules": "sweep.rules"}
    out = []
    for index in itertools.product(*(range(len(values)) for values in axes.values())):
        value = {axis: values[i] for (axis, values), i in zip(axes.items(), index)}
        options = _with_origin(base_rules, "rules")
        options.update({o: (value[o], f"sweep.rules.{o}") for o in rule_sweep})
        label = ", ".join(labels[axis][index[list(axes).index(axis)]] for axis in labels) \
            or None
        fields = {"players": value["players"], "lineup": value["lineup"],
                  "policies": value["policies"], "label": label}
        out.append((keys, fields, options))
    return out


def _sweep_labels(source, sweep: dict, axes: dict) -> dict:
    """``[sweep.label]``: a name per value of swept keys (``axis -> list of str``), in the
    order written."""
    labels = sweep.get("label", {})
    if not isinstance(labels, dict):
        raise ExperimentError(f"{source}: sweep.label: must be a table giving a name to each "
                              "value of a swept key, e.g. gunslinger_bonus = [\"printed\", "
                              "\"no bonus\"]")
    swept = [a for a in axes if a in sweep or a in sweep.get("rules", {})]
    _known_keys(source, "sweep.label", labels, swept)
    for axis, names in labels.items():
        n = len(axes[axis])
        if not isinstance(names, list) or len(names) != n \
                or not all(isinstance(x, str) for x in names):
            raise ExperimentError(f"{source}: sweep.label.{axis}: must list {n} names, one per "
                                  f"value of {axis} in the same order, got {names!r}")
    return labels


def _with_origin(options: dict, where: str) -> dict:
    """Rule options as ``name -> (value, key path)`` so an error names where a value came from."""
    return {o: (v, f"{where}.{o}") for o, v in options.items()}


def _explicit_setting(source, key, entry, base_rules, ladder=()):
    _known_keys(source, key, entry, SETTING_KEYS)
    if ladder and "policies" in entry:
        raise ExperimentError(f"{source}: {key}.policies: the ladder names the policies; "
                              "leave policies out")
    if "players" not in entry:
        raise ExperimentError(f"{source}: {key}.players: missing; give the player count")
    rules = entry.get("rules", {})
    if not isinstance(rules, dict):
        raise ExperimentError(f"{source}: {key}.rules: must be a table of rule options")
    _known_keys(source, f"{key}.rules", rules, RULE_OPTIONS)
    options = {o: v for o, v in _with_origin(base_rules, "rules").items()
               if _SAME_OPTION.get(o) not in rules}
    options.update(_with_origin(rules, f"{key}.rules"))
    keys = {"where": key, **{f: f"{key}.{f}" for f in SETTING_KEYS}}
    fields = {"players": entry["players"], "lineup": entry.get("lineup", "random"),
              "policies": entry.get("policies"), "label": entry.get("label")}
    return keys, fields, options


def _setting(source, keys: dict, fields: dict, options: dict, policy_params: dict) -> Setting:
    """``make_setting`` of one candidate; its FieldError names the key the value came from."""
    rules = {opt: value for opt, (value, _) in options.items()}
    try:
        setting = make_setting(rules=rules, params=policy_params, **fields)
        check_storable(setting)
        return setting
    except FieldError as e:
        if e.field.startswith("params."):
            where = f"policy_params.{e.field.removeprefix('params.')}"
        elif e.field == "rules":
            # Name the option the message is about (Rules' messages name it), else the tables.
            paths = [path for opt, (_, path) in options.items()
                     if re.search(rf"\b{opt}\b", e.problem)]
            where = paths[0] if paths else keys["rules"]
        else:
            where = keys.get(e.field, keys["where"])
        raise ExperimentError(f"{source}: {where}: {e.problem}") from None
