"""Experiment files: TOML -> validated frozen dataclasses -> settings with stable ids.

An experiment asks one question of many simulated games.  Its file lists the settings to play
(explicitly, or as a sweep: every combination of the listed values) and the analyses to run::

    name = "rule_whatif"
    description = "What does the Gunslinger bonus do to character balance?"
    seed = 7
    games = 100_000                 # per setting
    analyses = ["balance", "gunslinger", "compare"]   # default: all
    correction = "holm"             # or "bh"; default "holm"
    output = "reports/rule_whatif"  # default: reports/<name>
    backend = "loky"                # loky, threading, multiprocessing or dask

    [rules]                         # options for every setting (fields of coltsim.Rules)
    neutral_bullets = 13

    [sweep]                         # every combination of:
    players = [3, 4, 5, 6]
    lineups = ["random"]            # "random", "all", "ghost,belle,tuco" or a list of names
    policies = ["greedy"]           # one for every seat, or one per player (default: planner)

    [sweep.rules]                   # each rule option: a list of values to sweep
    gunslinger_bonus = [1000, 0]

    [[settings]]                    # and/or settings listed one by one
    players = 4
    lineup = ["ghost", "belle", "tuco", "doc"]
    policies = ["rollout", "greedy", "greedy", "greedy"]
    rules = { advanced = true }

    [policy_params.weighted]        # handed to the policy as it is
    fire = 0.0

A mistake gives an :class:`ExperimentError` (a ``ValueError``) whose one-line message names the
file, the key and the allowed values, e.g.::

    experiments/x.toml: sweep.players: 7 is not a player count; allowed: 2, 3, 4, 5, 6

A setting's id (``p4-greedy-1a2b3c``) is a hash of what it plays (player count, line-up,
policies and their parameters, the rule options that differ from the defaults), so it stays
the same when settings are added, removed or reordered, and when coltsim gains new options.
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import pandas as pd

from . import constants as K
from .policies import DEFAULT as DEFAULT_POLICY
from .rules import Rules
from .runner import BACKENDS, LINEUP_ALL, LINEUP_RANDOM, make_setting
from .setting import MAX_PLAYERS, MIN_PLAYERS, check_rules, lineup_codes

ANALYSES = ("balance", "seats", "gunslinger", "round_cards", "compare")
CORRECTIONS = ("holm", "bh")
LINEUP_MODES = (LINEUP_RANDOM, LINEUP_ALL)  # each bandit drawn per game / every line-up in turn
TOP_KEYS = ("name", "description", "seed", "games", "analyses", "correction", "output",
            "backend", "scheduler", "n_jobs", "rules", "sweep", "settings", "policy_params")
SWEEP_KEYS = ("players", "lineups", "policies", "rules")
SETTING_KEYS = ("players", "lineup", "policies", "rules")
USER_POLICY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
RULE_OPTIONS = tuple(f.name for f in dataclasses.fields(Rules))
_TUPLE_OPTIONS = ("abilities", "cars", "round_cards")


class ExperimentError(ValueError):
    """A bad experiment file; the message is one line naming the file, the key and what is
    allowed."""


@dataclass(frozen=True)
class Setting:
    """One setting to simulate, fully resolved.

    Attributes
    ----------
    id : str
        Stable id, e.g. ``"p4-greedy-1a2b3c"``.
    players : int
        2 to 6 (2 = the two-bandit variant).
    lineup : str or tuple of str
        ``"random"`` (every bandit drawn per game), ``"all"`` (every line-up in turn) or one
        name per bandit, where ``"random"`` draws that one.
    policies : tuple of str
        One policy per player (a built-in name or ``"package.module:function"``).
    rules : Rules
        The resolved rules (the 2-player game always uses the advanced rules).
    """

    id: str
    players: int
    lineup: str | tuple
    policies: tuple
    rules: Rules
    params: tuple = ()  # per player: the policy's parameters by name, as (name, value) pairs

    @property
    def lineup_text(self) -> str:
        return self.lineup if isinstance(self.lineup, str) else ",".join(self.lineup)

    def row(self) -> dict:
        """This setting as a row of the ``settings`` table: ``setting, players, lineup,
        policies`` (one per seat, joined with commas) and one column per rule option."""
        row = {"setting": self.id, "players": self.players, "lineup": self.lineup_text,
               "policies": ",".join(self.policies)}
        for k, v in self.rules.as_dict().items():
            row[k] = ",".join(v) if isinstance(v, list) else v
        return row

    def simulate_kwargs(self) -> dict:
        """Keyword arguments of ``coltsim.simulate`` for this setting (without the seed, the
        number of games and where to write)."""
        params = None
        if any(self.params):
            from .policies.registry import param_vector

            params = [param_vector(p, dict(kv)) for p, kv in zip(self.policies, self.params)]
        return {"players": self.players, "bandits": self.lineup_text,
                "policies": list(self.policies), "rules": self.rules, "params": params,
                "setting_id": self.id}


@dataclass(frozen=True)
class Experiment:
    """A validated experiment file (see the module docstring for the keys)."""

    name: str
    description: str
    seed: int
    games: int
    settings: tuple
    analyses: tuple
    correction: str
    output: Path
    backend: str
    scheduler: str | None
    n_jobs: int | None
    policy_params: MappingProxyType
    source: str  # the file it came from ("<string>" for text)
    text: str  # the TOML text, kept so a report can record exactly what was asked

    def settings_frame(self) -> pd.DataFrame:
        """The settings as the ``settings`` table of the results."""
        return pd.DataFrame([s.row() for s in self.settings])

    def setting(self, setting_id: str) -> Setting:
        for s in self.settings:
            if s.id == setting_id:
                return s
        raise KeyError(setting_id)

    def with_overrides(self, games: int | None = None, output=None,
                       n_jobs: int | None = None) -> "Experiment":
        """The same experiment with command-line overrides (``--games``, ``--out``,
        ``--n-jobs``) applied and validated."""
        changes = {}
        if games is not None:
            changes["games"] = _integer(self.source, "games", games, 1, 10**12)
        if output is not None:
            changes["output"] = Path(output)
        if n_jobs is not None:
            changes["n_jobs"] = _n_jobs(self.source, n_jobs)
        return dataclasses.replace(self, **changes)


# --- loading ---------------------------------------------------------------------------------
def load_experiment(path) -> Experiment:
    """Read and validate an experiment file; :class:`ExperimentError` on any problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ExperimentError(f"{path}: cannot read the experiment file: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ExperimentError(f"{path}: not a UTF-8 text file") from None
    return loads_experiment(text, source=str(path))


def loads_experiment(text: str, source: str = "<string>") -> Experiment:
    """Validate experiment TOML given as text (``source`` names it in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ExperimentError(f"{source}: not valid TOML: {e}") from None
    return parse_experiment(data, source=source, text=text)


def parse_experiment(data: dict, source: str = "<dict>", text: str = "") -> Experiment:
    """Validate an already-parsed experiment mapping."""
    if not isinstance(data, dict):
        raise ExperimentError(f"{source}: an experiment must be a TOML table")
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
    seed = _integer(source, "seed", data.get("seed", 0), 0, 2**63 - 1)
    if "games" not in data:
        raise ExperimentError(f"{source}: games: missing; give the number of games per setting "
                              "(an integer >= 1)")
    games = _integer(source, "games", data["games"], 1, 10**12)
    analyses = _analyses(source, data.get("analyses", list(ANALYSES)))
    correction = _choice(source, "correction", data.get("correction", "holm"), CORRECTIONS)
    output = data.get("output", f"reports/{name}")
    if not isinstance(output, str) or not output.strip():
        raise ExperimentError(f"{source}: output: must be a folder path, got {output!r}")
    backend = _choice(source, "backend", data.get("backend", "loky"), BACKENDS)
    scheduler = data.get("scheduler")
    if scheduler is not None:
        if backend != "dask":
            raise ExperimentError(f"{source}: scheduler: only used with backend = \"dask\" "
                                  f"(backend is {backend!r})")
        if not isinstance(scheduler, str) or not scheduler:
            raise ExperimentError(f"{source}: scheduler: must be an address such as "
                                  f"\"tcp://host:8786\", got {scheduler!r}")
    n_jobs = _n_jobs(source, data["n_jobs"]) if "n_jobs" in data else None
    policy_params = _policy_params(source, data.get("policy_params", {}))

    base_rules = data.get("rules", {})
    if not isinstance(base_rules, dict):
        raise ExperimentError(f"{source}: rules: must be a table of rule options; allowed "
                              f"options: {', '.join(RULE_OPTIONS)}")
    _known_keys(source, "rules", base_rules, RULE_OPTIONS)

    candidates = []  # (key path, players, lineup, policies, rule options)
    if "sweep" in data:
        candidates += _expand_sweep(source, data["sweep"], base_rules)
    if "settings" in data:
        entries = data["settings"]
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ExperimentError(f"{source}: settings: must be an array of tables "
                                  "([[settings]] blocks)")
        for i, entry in enumerate(entries):
            candidates.append(_explicit_setting(source, f"settings[{i}]", entry, base_rules))
    if not candidates:
        raise ExperimentError(f"{source}: sweep: no settings; add a [sweep] table or "
                              "[[settings]] blocks")

    settings, seen = [], {}
    for key, players, lineup, policies, options in candidates:
        s = _resolve(source, key, players, lineup, policies, options, policy_params)
        if s.id in seen:
            raise ExperimentError(f"{source}: {key}: the same setting as {seen[s.id]}; each "
                                  "setting must differ in players, line-up, policies or rules")
        seen[s.id] = key
        settings.append(s)
    used = {p for s in settings for p in s.policies}
    for policy in policy_params:
        if policy not in used:
            raise ExperimentError(f"{source}: policy_params.{policy}: no setting plays this "
                                  f"policy; used: {', '.join(sorted(used))}")
    if "compare" in analyses and "analyses" in data and len(settings) < 2:
        raise ExperimentError(f"{source}: analyses: \"compare\" needs at least two settings, "
                              "this experiment has one")
    return Experiment(name, description, seed, games, tuple(settings), analyses, correction,
                      Path(output), backend, scheduler, n_jobs,
                      MappingProxyType({k: MappingProxyType(v) for k, v in policy_params.items()}),
                      source, text)


# --- pieces ----------------------------------------------------------------------------------
def _known_keys(source: str, where: str, table: dict, allowed) -> None:
    for key in table:
        if key not in allowed:
            path = f"{where}.{key}" if where else key
            raise ExperimentError(f"{source}: {path}: unknown key; allowed: {', '.join(allowed)}")


def _integer(source, key, value, lo, hi) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ExperimentError(f"{source}: {key}: must be an integer from {lo} to {hi}, "
                              f"got {value!r}")
    if not lo <= value <= hi:
        raise ExperimentError(f"{source}: {key}: {value} is out of range; allowed: {lo} to {hi}")
    return value


def _n_jobs(source, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value == 0:
        raise ExperimentError(f"{source}: n_jobs: must be a non-zero integer (-1 = every core), "
                              f"got {value!r}")
    return value


def _choice(source, key, value, allowed) -> str:
    if value not in allowed:
        raise ExperimentError(f"{source}: {key}: unknown value {value!r}; allowed: "
                              f"{', '.join(allowed)}")
    return value


def _analyses(source, value) -> tuple:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ExperimentError(f"{source}: analyses: must be a non-empty list; allowed: "
                              f"{', '.join(ANALYSES)}")
    for a in value:
        if a not in ANALYSES:
            raise ExperimentError(f"{source}: analyses: unknown analysis {a!r}; allowed: "
                                  f"{', '.join(ANALYSES)}")
    return tuple(dict.fromkeys(value))


def _policy_names() -> tuple:
    from .policies import POLICY_NAMES  # read at validation time: policies register by name
    return tuple(POLICY_NAMES)


def _policy_params(source, value) -> dict:
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise ExperimentError(f"{source}: policy_params: must hold one table per policy, "
                              "e.g. [policy_params.weighted]")
    names = _policy_names()
    try:
        from .policies.registry import param_vector
    except ImportError:  # a coltsim without named parameters: accept them as they are
        param_vector = None
    for policy, params in value.items():
        if policy not in names and not USER_POLICY.match(policy):
            raise ExperimentError(f"{source}: policy_params.{policy}: unknown policy; allowed: "
                                  f"{', '.join(names)}")
        if param_vector is not None:
            try:
                param_vector(policy, dict(params))
            except ValueError as e:
                raise ExperimentError(f"{source}: policy_params.{policy}: {e}") from None
    return {k: dict(v) for k, v in value.items()}


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _expand_sweep(source, sweep, base_rules) -> list:
    if not isinstance(sweep, dict):
        raise ExperimentError(f"{source}: sweep: must be a table with keys "
                              f"{', '.join(SWEEP_KEYS)}")
    _known_keys(source, "sweep", sweep, SWEEP_KEYS)
    if "players" not in sweep:
        raise ExperimentError(f"{source}: sweep.players: missing; list the player counts, "
                              f"e.g. players = [3, 4, 5, 6] (allowed: {MIN_PLAYERS} to "
                              f"{MAX_PLAYERS})")
    players = _as_list(sweep["players"])
    lineups = _as_list(sweep.get("lineups", ["random"]))
    policies = _as_list(sweep.get("policies", [DEFAULT_POLICY]))
    for key, values in (("players", players), ("lineups", lineups), ("policies", policies)):
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
        if opt in base_rules:
            raise ExperimentError(f"{source}: sweep.rules.{opt}: also set in [rules]; set it in "
                                  "one place")
    rule_names = list(rule_sweep)
    out = []
    for n, lineup, policy, values in itertools.product(
            players, lineups, policies, itertools.product(*(rule_sweep[o] for o in rule_names))):
        options = _with_origin(base_rules, "rules")
        options.update({o: (v, f"sweep.rules.{o}") for o, v in zip(rule_names, values)})
        out.append(("sweep", n, lineup, policy, options))
    return out


def _with_origin(options: dict, where: str) -> dict:
    """Rule options as ``name -> (value, key path)`` so an error names where a value came from."""
    return {o: (v, f"{where}.{o}") for o, v in options.items()}


def _explicit_setting(source, key, entry, base_rules):
    _known_keys(source, key, entry, SETTING_KEYS)
    if "players" not in entry:
        raise ExperimentError(f"{source}: {key}.players: missing; allowed: {MIN_PLAYERS} to "
                              f"{MAX_PLAYERS}")
    rules = entry.get("rules", {})
    if not isinstance(rules, dict):
        raise ExperimentError(f"{source}: {key}.rules: must be a table of rule options")
    _known_keys(source, f"{key}.rules", rules, RULE_OPTIONS)
    options = _with_origin(base_rules, "rules")
    options.update(_with_origin(rules, f"{key}.rules"))
    return (key, entry["players"], entry.get("lineup", "random"),
            entry.get("policies", DEFAULT_POLICY), options)


def _resolve(source, key, players, lineup, policies, options, policy_params) -> Setting:
    sweep = key == "sweep"
    k_players = "sweep.players" if sweep else f"{key}.players"
    k_lineup = "sweep.lineups" if sweep else f"{key}.lineup"
    k_policies = "sweep.policies" if sweep else f"{key}.policies"
    k_rules = "sweep.rules" if sweep else f"{key}.rules"

    if isinstance(players, bool) or not isinstance(players, int) or not (
            MIN_PLAYERS <= players <= MAX_PLAYERS):
        allowed = ", ".join(map(str, range(MIN_PLAYERS, MAX_PLAYERS + 1)))
        raise ExperimentError(f"{source}: {k_players}: {players!r} is not a player count; "
                              f"allowed: {allowed}")

    # Line-up.
    if isinstance(lineup, str) and lineup.strip().lower() in LINEUP_MODES:
        resolved_lineup = lineup.strip().lower()
    elif isinstance(lineup, list) and all(isinstance(b, str) for b in lineup) and \
            all(b.strip().lower() == LINEUP_RANDOM for b in lineup) and \
            len(lineup) == players * (2 if players == 2 else 1):
        resolved_lineup = LINEUP_RANDOM  # every bandit drawn: the same as "random"
    else:
        if isinstance(lineup, str):
            names = [b.strip().lower() for b in lineup.split(",") if b.strip()]
        elif isinstance(lineup, list) and all(isinstance(b, str) for b in lineup):
            names = [b.strip().lower() for b in lineup]
        else:
            raise ExperimentError(f"{source}: {k_lineup}: {lineup!r} is not a line-up; allowed: "
                                  f"{', '.join(LINEUP_MODES)} or a list of bandits from "
                                  f"{', '.join(K.BANDIT_NAMES)}")
        try:
            lineup_codes(players, names)
        except ValueError as e:
            raise ExperimentError(f"{source}: {k_lineup}: {e}") from None
        resolved_lineup = tuple(names)

    # Policies.
    if isinstance(policies, str):
        plist = [p.strip() for p in policies.split(",") if p.strip()]
    elif isinstance(policies, list) and all(isinstance(p, str) for p in policies):
        plist = [p.strip() for p in policies]
    else:
        plist = None
    known = _policy_names()
    if not plist:
        raise ExperimentError(f"{source}: {k_policies}: {policies!r} is not a policy list; "
                              f"allowed: {', '.join(known)} or \"package.module:function\"")
    if len(plist) == 1:
        plist = plist * players
    if len(plist) != players:
        raise ExperimentError(f"{source}: {k_policies}: {len(plist)} policies for {players} "
                              f"players; give one for every seat or one per player")
    for p in plist:
        if p not in known and not USER_POLICY.match(p):
            raise ExperimentError(f"{source}: {k_policies}: unknown policy {p!r}; allowed: "
                                  f"{', '.join(known)} or \"package.module:function\"")

    # Rules.
    kwargs = {}
    for opt, (value, path) in options.items():
        if opt in _TUPLE_OPTIONS:
            if isinstance(value, str):
                value = [value] if value else []
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ExperimentError(f"{source}: {path}: must be a list of names, got {value!r}")
            value = tuple(value)
        kwargs[opt] = value
    try:
        rules = check_rules(Rules(**kwargs), players)
    except ValueError as e:
        # Name the option the message is about (Rules' messages name it), else the tables.
        paths = [path for opt, (_, path) in options.items() if re.search(rf"\b{opt}\b", str(e))]
        where = paths[0] if paths else k_rules
        raise ExperimentError(f"{source}: {where}: {e}") from None

    policies_t = tuple(plist)
    params = tuple(tuple(sorted(policy_params.get(p, {}).items())) for p in policies_t)
    setting = Setting(_setting_id(players, resolved_lineup, policies_t, rules, policy_params),
                      players, resolved_lineup, policies_t, rules, params)
    if all(p in known for p in policies_t):
        # Whatever else the runner would refuse (user policies are resolved when run).
        try:
            make_setting(**setting.simulate_kwargs())
        except ValueError as e:
            paths = [path for opt, (_, path) in options.items()
                     if re.search(rf"\b{opt}\b", str(e))]
            raise ExperimentError(f"{source}: {paths[0] if paths else key}: {e}") from None
    return setting


def _setting_id(players, lineup, policies, rules, policy_params) -> str:
    defaults = Rules().as_dict()
    changed = {k: v for k, v in rules.as_dict().items() if defaults[k] != v}
    params = {p: policy_params[p] for p in sorted(set(policies)) if p in policy_params}
    blob = json.dumps({"players": players, "lineup": lineup, "policies": list(policies),
                       "rules": changed, "policy_params": params}, sort_keys=True)
    digest = hashlib.sha1(blob.encode()).hexdigest()[:6]
    tag = policies[0] if len(set(policies)) == 1 else "mixed"
    tag = re.sub(r"[^A-Za-z0-9]+", "_", tag.split(":")[-1])
    return f"p{players}-{tag}-{digest}"
