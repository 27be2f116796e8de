"""The setting: what is played, validated once.

A setting is the player count, the line-up (which character each bandit plays), one policy per
player with the policies' parameters, and the rule options, with an optional label.  Its id is a
hash of what is played, so the same setting always gets the same id (in a run, an experiment, a
tournament or a trace), whatever its label and whatever the order of an experiment's settings.

What is played includes the files a setting plays: a ``weights`` file of ``learned`` or
``ismcts`` and the module of a user policy are read when the setting is made, and their SHA-256
is part of the setting (:attr:`Setting.files`), of its id and of what a run records
(:meth:`Setting.as_dict`): another network at the same path is another setting, never more games
of the first.  (``learned`` without a ``weights`` file plays the shipped network, part of the
engine's hash that every run records; a setting without files keeps the id it always had.)

Build one with :func:`make_setting`; every problem is a :class:`FieldError` (a
``ValueError``) naming the field, e.g. ``players: 7 is not a player count; allowed: 2, 3, 4, 5,
6 (2 = the two-bandit variant)``.  The runner, traces, tournaments and experiments all take
settings built here, so no other module validates players, line-ups, policies or rules.

Plain Python and numpy: policy names and parameters are checked against the catalog
(``coltsim.policies.catalog``), so validating a setting loads no compiled code.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import itertools
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import constants as K
from .policies import catalog
from .rules import Rules
from .words import did_you_mean

MIN_PLAYERS = 2
MAX_PLAYERS = 6
LINEUP_RANDOM = "random"  # each bandit drawn per game (also one entry of a line-up)
LINEUP_ALL = "all"  # every ordered line-up of characters in turn
LINEUP_MODES = (LINEUP_RANDOM, LINEUP_ALL)
# The policy of every seat not told otherwise (coltsim.policies.DEFAULT): make_setting,
# experiment files and the command line (trace, simulate) all read it here.
DEFAULT_POLICY = catalog.DEFAULT
SETTING_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.=+-]{0,99}$")
_USER_POLICY_TEXT = '"package.module:function"'


class FieldError(ValueError):
    """A bad value of a setting or a run.  ``field`` names it (``players``, ``lineup``,
    ``policies``, ``params.<policy>``, ``rules``, ``label``, ``setting_id``; ``games``,
    ``seed``, ``workers`` ...); ``problem`` says what is wrong and what is allowed, in one
    line."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class Setting:
    """One validated setting (build it with :func:`make_setting`).

    Attributes
    ----------
    id : str
        ``p<players>-<policy>-<hash>`` (``<policy>`` is ``mixed`` for a mixed table), or the id
        asked for.
    players : int
        2 to 6 (2 = the two-bandit variant).
    lineup : str or tuple of str
        ``"random"`` (every bandit drawn per game), ``"all"`` (every ordered line-up of
        characters in turn: game ``g`` plays line-up ``g % n_lineups``) or one character per
        bandit, where ``"random"`` draws that bandit.
    policies : tuple of str
        One label per player: a built-in name, ``"package.module:function"``, or
        ``"module:qualname"`` of a function passed from Python.
    rules : Rules
        The rule options (the 2-player game always uses the advanced rules).
    params : tuple
        Parameters of the policies played, by policy and name:
        ``((policy, ((name, value), ...)), ...)``, sorted (:meth:`policy_params` as a dict).
    label : str or None
        A name for people (reports, tournaments); not part of the id.
    functions : tuple
        ``((label, function), ...)`` for policies passed as functions.
    files : tuple
        ``((key, path, sha256), ...)``, sorted: every file played, by what names it (the
        parameter ``"learned.weights"``; the policy ``"package.module:function"``, its module),
        with the SHA-256 of its content when the setting was made.
    """

    id: str
    players: int
    lineup: str | tuple
    policies: tuple
    rules: Rules
    params: tuple = ()
    label: str | None = None
    functions: tuple = dataclasses.field(default=(), compare=False, repr=False)
    files: tuple = ()

    @property
    def n_bandits(self) -> int:
        return self.players * bandits_per_player(self.players)

    @property
    def lineup_text(self) -> str:
        return self.lineup if isinstance(self.lineup, str) else ",".join(self.lineup)

    def may_play(self, bandit: str) -> bool:
        """Whether ``bandit`` can be at the table (named in the line-up, or drawn at random)."""
        return not isinstance(self.lineup, tuple) or bandit in self.lineup \
            or LINEUP_RANDOM in self.lineup

    def policy_params(self) -> dict:
        """Parameters by policy name: ``{"rollout": {"budget": 32}}``."""
        return {policy: dict(values) for policy, values in self.params}

    def policy_specs(self) -> list:
        """One policy per player as policies.resolve_policies takes it: a name or the function."""
        functions = dict(self.functions)
        return [functions.get(p, p) for p in self.policies]

    def param_rows(self) -> tuple | None:
        """The players' parameter rows (``N_PARAMS`` numbers each), None when all are 0."""
        by_name = self.policy_params()
        rows = [catalog.param_vector(p, by_name.get(p)) for p in self.policies]
        if not any(row.any() for row in rows):
            return None
        return tuple(tuple(float(x) for x in row) for row in rows)

    def lineups(self) -> np.ndarray:
        """``int64[L, bandits]``: game ``g`` plays row ``g % L``; -1 = drawn at random."""
        if self.lineup == LINEUP_ALL:
            return np.array(list(itertools.permutations(range(K.N_CHARACTERS), self.n_bandits)),
                            np.int64)
        if self.lineup == LINEUP_RANDOM:
            return np.full((1, self.n_bandits), -1, np.int64)
        return lineup_codes(self.players, list(self.lineup))[None, :]

    def file_records(self) -> dict:
        """The files played (:attr:`files`) as a manifest records them:
        ``{key: {"path": path, "sha256": sha256}}``."""
        return {key: {"path": path, "sha256": sha} for key, path, sha in self.files}

    def as_dict(self) -> dict:
        """What is played, JSON-ready, as a run's manifest records it (``files`` only when the
        setting plays a file)."""
        rows = self.param_rows()
        played = {
            "players": self.players,
            "lineup": self.lineup if isinstance(self.lineup, str) else list(self.lineup),
            "policies": list(self.policies),
            "params": None if rows is None else [list(row) for row in rows],
            "rules": self.rules.as_dict(),
        }
        if self.files:
            played["files"] = self.file_records()
        return played


def make_setting(players: int = 4, lineup=None, policies=None, rules=None, params=None,
                 label: str | None = None, setting_id: str | None = None) -> Setting:
    """Validate a setting; every problem is a one-line :class:`FieldError`.

    Parameters
    ----------
    players : int
        2 to 6 (2 = the two-bandit variant).
    lineup : None, "random", "all", list of str or comma-separated str
        Drawn per game (None / "random"), every ordered line-up in turn ("all"), or one
        character per bandit ("random" entries are drawn).
    policies : str, list of str or functions
        One policy for every player or one per player (default :data:`DEFAULT_POLICY`):
        built-in names (``coltsim.policies.catalog``), user policies
        ``"package.module:function"``, or compiled functions.
    rules : Rules or dict, optional
    params : dict, optional
        Parameters by policy name, e.g. ``{"rollout": {"budget": 128}}`` (default: each
        policy's defaults; parameters of policies nobody plays are checked, then left out).
    label : str, optional
        A name for people; not part of the id.
    setting_id : str, optional
        By default ``p<players>-<policy>-<hash>`` of what is played.
    """
    players = check_players(players)
    lineup = _check_lineup(players, lineup)
    policies, functions = _check_policies(players, policies)
    rules = check_rules(rules, players)
    params = _check_params(params, policies, functions)
    files = _played_files(policies, params)
    if label is not None and (not isinstance(label, str) or not label.strip()
                              or "\n" in label or len(label) > 100):
        raise FieldError("label", f"must be one line of text (at most 100 characters), "
                                    f"got {label!r}")
    if setting_id is None:
        setting_id = _setting_id(players, lineup, policies, rules, params, files)
    elif not isinstance(setting_id, str) or not SETTING_ID.match(setting_id):
        raise FieldError("setting_id", f"must be 1-100 letters, digits or _.=+- (starting "
                                         f"with a letter or digit), got {setting_id!r}")
    return Setting(setting_id, players, lineup, policies, rules, params, label,
                   tuple(functions.items()), files)


def _setting_id(players, lineup, policies, rules, params, files) -> str:
    """``p<players>-<policy>-<hash>``: the hash covers the player count, the line-up, the
    policies with their parameters, the rule options that differ from the printed rules and the
    content of the files played (when there are any), so it stays the same when coltsim gains
    options."""
    defaults = Rules().as_dict()
    changed = {k: v for k, v in rules.as_dict().items() if defaults.get(k) != v}
    played = {"players": players, "lineup": lineup, "policies": list(policies),
              "rules": changed, "policy_params": {p: dict(v) for p, v in params}}
    if files:
        played["files"] = {key: sha for key, _, sha in files}
    blob = json.dumps(played, sort_keys=True)
    digest = hashlib.sha1(blob.encode()).hexdigest()[:6]
    tag = policies[0] if len(set(policies)) == 1 else "mixed"
    tag = re.sub(r"[^A-Za-z0-9]+", "_", tag.split(":")[-1])
    return f"p{players}-{tag}-{digest}"


# --- the fields ---------------------------------------------------------------------------------
def check_players(players) -> int:
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not (
            MIN_PLAYERS <= players <= MAX_PLAYERS):
        allowed = ", ".join(map(str, range(MIN_PLAYERS, MAX_PLAYERS + 1)))
        raise FieldError("players", f"{players!r} is not a player count; allowed: {allowed} "
                                      "(2 = the two-bandit variant)")
    return int(players)


def bandits_per_player(players: int) -> int:
    return 2 if players == 2 else 1


def lineup_codes(players: int, lineup=None) -> np.ndarray:
    """Character codes of every bandit (-1 = drawn at random per game).

    ``lineup``: None (all random), or one name per bandit (a list or a comma-separated string),
    where ``"random"`` draws that one."""
    n = players * bandits_per_player(players)
    if lineup is None:
        return np.full(n, -1, np.int64)
    if isinstance(lineup, str):
        lineup = [b.strip() for b in lineup.split(",") if b.strip()]
    names = [str(b).strip().lower() for b in lineup]
    if len(names) != n:
        raise FieldError("lineup", f"must name {n} bandits for {players} players, got "
                                     f"{len(names)}: {', '.join(names)}")
    allowed = K.BANDIT_NAMES + (LINEUP_RANDOM,)
    for b in names:
        if b not in allowed:
            raise FieldError("lineup", f"unknown bandit {b!r}; allowed: {', '.join(allowed)}"
                                         f"{did_you_mean(b, allowed)}")
    named = [b for b in names if b != LINEUP_RANDOM]
    for b in named:
        if named.count(b) > 1:
            raise FieldError("lineup", f"{b!r} is listed twice; each bandit can play only once")
    return np.array([-1 if b == LINEUP_RANDOM else K.BANDIT_NAMES.index(b) for b in names],
                    np.int64)


def _check_lineup(players: int, lineup):
    if lineup is None:
        return LINEUP_RANDOM
    if isinstance(lineup, str) and lineup.strip().lower() in LINEUP_MODES:
        return lineup.strip().lower()
    if not isinstance(lineup, (str, list, tuple)) or (
            not isinstance(lineup, str) and not all(isinstance(b, str) for b in lineup)):
        raise FieldError("lineup", f"{lineup!r} is not a line-up; allowed: "
                                     f"{', '.join(LINEUP_MODES)} or one bandit per bandit seat "
                                     f"from {', '.join(K.BANDIT_NAMES)}")
    codes = lineup_codes(players, lineup)
    if (codes < 0).all():
        return LINEUP_RANDOM
    return tuple(K.BANDIT_NAMES[c] if c >= 0 else LINEUP_RANDOM for c in codes)


def _check_policies(players: int, policies) -> tuple[tuple, dict]:
    """One label per player, and the functions among them by label."""
    allowed = f"{', '.join(catalog.POLICY_NAMES)} or {_USER_POLICY_TEXT}"
    given = policies
    if policies is None:
        policies = [DEFAULT_POLICY]
    elif isinstance(policies, str):
        policies = [p.strip() for p in policies.split(",") if p.strip()]
    elif callable(policies):
        policies = [policies]
    elif isinstance(policies, (list, tuple)):
        policies = [p.strip() if isinstance(p, str) else p for p in policies]
    else:
        policies = []
    if not policies or not all(isinstance(p, str) or callable(p) for p in policies):
        raise FieldError("policies", f"{given!r} is not a policy list; allowed: {allowed}")
    if len(policies) == 1:
        policies = policies * players
    if len(policies) != players:
        raise FieldError("policies", f"{len(policies)} policies for {players} players; give "
                                       "one for every seat or one per player")
    labels, functions = [], {}
    for p in policies:
        if callable(p):
            label = catalog.function_label(p)
            functions[label] = p
        elif catalog.is_policy(p):
            label = p
        else:
            raise FieldError("policies", f"unknown policy {p!r}; allowed: {allowed}"
                                           f"{did_you_mean(p, catalog.POLICY_NAMES)}")
        labels.append(label)
    return tuple(labels), functions


def _check_params(params, policies: tuple, functions: dict) -> tuple:
    if params is None:
        return ()
    if not isinstance(params, dict):
        raise FieldError("params", "must map policy names to tables of parameters by name, "
                                     f"e.g. {{\"rollout\": {{\"budget\": 32}}}}, got {params!r}")
    for policy, values in params.items():
        field = f"params.{policy}"
        if not catalog.is_policy(policy) and policy not in functions:
            raise FieldError(field, f"unknown policy; allowed: "
                                      f"{', '.join(catalog.POLICY_NAMES)} or {_USER_POLICY_TEXT}"
                                      f"{did_you_mean(policy, catalog.POLICY_NAMES)}")
        if not isinstance(values, dict):
            raise FieldError(field, f"must be a table of parameters by name, got {values!r}")
        try:
            catalog.param_vector(policy, values)
        except ValueError as e:
            raise FieldError(field, str(e)) from None
    return tuple(sorted((p, tuple(sorted((k, _plain(v)) for k, v in params[p].items())))
                        for p in set(policies) if p in params and params[p]))


def _played_files(policies: tuple, params: tuple) -> tuple:
    """``((key, path, sha256), ...)``: the files the policies play (:attr:`Setting.files`).  A
    file named by a parameter that cannot be read is a :class:`FieldError` naming both; a user
    policy whose module cannot be found plays no file here (playing it says what is wrong)."""
    by_policy = {p: dict(values) for p, values in params}
    files = []
    for p in dict.fromkeys(policies):
        if p in catalog.POLICIES:
            for name in catalog.POLICIES[p].files:
                path = by_policy.get(p, {}).get(name)
                if path:
                    files.append((f"{p}.{name}", path, _sha256(path, f"params.{p}.{name}")))
        else:
            path = _module_file(p.split(":")[0])
            if path:
                files.append((p, path, _sha256(path, "policies")))
    return tuple(sorted(files))


def _sha256(path: str, field: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as e:
        raise FieldError(field, f"{path}: {e.strerror}; name a file that can be read") from None


def _module_file(name: str) -> str | None:
    """The source file of module ``name`` (None: none found), without importing it."""
    module = sys.modules.get(name)
    if module is not None:
        path = getattr(module, "__file__", None)
    else:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        path = spec.origin if spec is not None and spec.has_location else None
    return path if path and Path(path).is_file() else None


def changed_file(recorded: dict, now: dict) -> str | None:
    """The first file played at the same path with another content: ``recorded`` and ``now``
    as :meth:`Setting.file_records` gives them: ``"PATH (KEY: SHA-256 a1b2... recorded, c3d4...
    in the file now)"``; None when every file recorded that is played now is the same."""
    for key, was in recorded.items():
        new = now.get(key)
        if isinstance(was, dict) and new and was.get("path") == new["path"] \
                and was.get("sha256") != new["sha256"]:
            return (f"{new['path']} ({key}: SHA-256 {str(was.get('sha256'))[:12]} recorded, "
                    f"{new['sha256'][:12]} in the file now)")
    return None


def _plain(value):
    """A numpy number as the Python number (the id hashes the parameters as JSON)."""
    return value.item() if isinstance(value, np.generic) else value


def check_rules(rules, players: int) -> Rules:
    """The rules as a :class:`Rules` that ``players`` players can play."""
    if rules is None:
        rules = Rules()
    elif isinstance(rules, dict):
        try:
            rules = Rules.from_dict(rules)
        except (TypeError, ValueError) as e:
            raise FieldError("rules", str(e)) from None
    elif not isinstance(rules, Rules):
        raise FieldError("rules", f"must be a coltsim.Rules or a dict of rule options, "
                                    f"got {rules!r}")
    try:
        rules.check_players(players)
    except ValueError as e:
        raise FieldError("rules", str(e)) from None
    if players == 2 and not rules.advanced:
        # The 2-player variant is always played with the advanced rules (docs/RULES.md 11).
        rules = dataclasses.replace(rules, advanced=True)
    return rules


def seatings(table) -> list[tuple]:
    """The distinct seat rotations of a table (one entry per seat), rotation 0 first: rotation
    ``r`` seats entry ``e`` at seat ``(e + r) % players`` (the one tournament's rotations:
    coltsim.runs.match)."""
    table = tuple(table)
    return list(dict.fromkeys(table[len(table) - r:] + table[:len(table) - r]
                              for r in range(len(table))))


def rotations(setting: Setting) -> list[Setting]:
    """The distinct seat rotations of a table (:func:`seatings`), rotation 0 (the setting
    itself) first."""
    out = {setting.id: setting}
    for specs in seatings(setting.policy_specs())[1:]:
        rotated = make_setting(setting.players, setting.lineup, list(specs), setting.rules,
                               setting.policy_params(), setting.label)
        out.setdefault(rotated.id, rotated)
    return list(out.values())


def played_settings(settings) -> list[Setting]:
    """What an experiment plays: every setting, a table of different policies in each of its
    seat rotations (:func:`rotations`), each setting once."""
    out = {}
    for s in settings:
        for r in rotations(s):
            out.setdefault(r.id, r)
    return list(out.values())
