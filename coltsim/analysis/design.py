"""What an experiment compares, read from its settings table: conditions x player counts x
policies.

An experiment's settings differ in three ways, and a report treats each differently:

- the **condition** (the rule options and the line-up): what the experiment compares.  Each
  condition is compared with the first one listed (its *baseline*) at the same player count and
  policy, on the same deals; when the conditions differ in one numeric rule option with three or
  more values, that option is the experiment's **sweep axis**.
- the **player count**: every answer is given per player count, never pooled over them.
- the **policy**: the policy every seat plays (a *uniform* table), or a *mixed* table (seats
  playing different policies).  Answers are given per policy; an experiment's ``ladder`` names
  the policies from the weakest to the strongest, so a report can say whether a conclusion holds
  for the two strongest.  A mixed table is played in every seat rotation (one setting each,
  ``coltsim.study.tournament.rotations``); its rotations are recognised here as one table.

Bandit-level analyses work on **units**: a uniform setting, or one policy's seats at a mixed
table (over every rotation), so that a bandit's effect is always measured within one policy.

>>> import pandas as pd
>>> s = pd.DataFrame({"setting": ["a", "b", "c", "d"], "players": [4, 4, 5, 5],
...                   "lineup": ["random"] * 4, "policies": ["greedy"] * 4, "params": [""] * 4,
...                   "gunslinger_bonus": [1000, 0, 1000, 0]})
>>> d = design_of(s)
>>> d.conditions, d.pairs()
(['printed rules', 'Gunslinger bonus $0'], [('a', 'b'), ('c', 'd')])
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import constants as K
from ..policies import catalog
from ..rules import CONTENT, Rules
from ..words import and_list
from .frames import Results, column_codes, rule_columns, seat_policies

PRINTED_RULES = "printed rules"
_BANDIT_TITLES = {b: b.title() for b in K.BANDIT_NAMES}


@dataclass(frozen=True)
class Design:
    """The experiment's design (build it with :func:`design_of`).

    Attributes
    ----------
    settings : DataFrame
        One row per setting, in the experiment's order: ``setting, players, policy`` (the
        policy of every seat, or the mixed table's name), ``mixed`` (bool), ``table`` (the id
        of the table's first rotation; the setting itself when uniform), ``rotation`` (0 for a
        uniform setting), ``condition`` (index into ``conditions``), ``condition_label``,
        ``value`` (the sweep axis' value, NaN without an axis), ``label`` (the setting's own
        name for people: condition, players and policy as far as they vary).
    conditions : list of str
        The conditions' labels in order; the first is every comparison's baseline.
    axis : str or None
        The numeric rule option swept (three or more values), if the conditions differ in it
        and nothing else.
    ladder : tuple of str
        The policies played, from the weakest to the strongest, as the experiment's ladder
        orders them (named with their parameters, like ``policy``).
    policies : list of str
        The uniform policies in order of strength when a ladder is given, else of appearance.
    """

    settings: pd.DataFrame
    conditions: list
    axis: str | None
    ladder: tuple
    policies: list

    def row(self, setting: str) -> pd.Series:
        return self.settings.loc[self.settings["setting"] == setting].iloc[0]

    @property
    def uniform(self) -> list[str]:
        """Uniform settings (every seat plays one policy), in order."""
        return list(self.settings.loc[~self.settings["mixed"], "setting"])

    def tables(self) -> dict[str, list[str]]:
        """Mixed tables: the id of each table -> its rotations' setting ids, rotation 0 first."""
        m = self.settings[self.settings["mixed"]].sort_values("rotation", kind="stable")
        return {t: list(g["setting"]) for t, g in m.groupby("table", sort=False)}

    def pairs(self) -> list[tuple[str, str]]:
        """``(baseline, other)``: each condition against the first condition present at the same
        player count and policy (uniform settings only; mixed tables are compared policy
        against policy in their own section)."""
        u = self.settings[~self.settings["mixed"]]
        out = []
        for _, g in u.groupby(["players", "policy"], sort=False):
            g = g.sort_values("condition", kind="stable")
            base = g["setting"].iloc[0]
            out += [(base, s) for s in g["setting"].iloc[1:]]
        order = {s: i for i, s in enumerate(self.settings["setting"])}
        return sorted(out, key=lambda p: (order[p[1]], order[p[0]]))

    def strongest_two(self) -> tuple[str, str] | None:
        """The two strongest policies of the ladder (the stronger last), or None without a
        ladder of two or more policies played here."""
        return self.ladder[-2:] if len(self.ladder) >= 2 else None

    def ladder_pairs(self) -> list[tuple[str, str]]:
        """``(weaker, stronger)``: the settings of the ladder's two strongest policies at every
        condition and player count both played (uniform settings, on the same deals)."""
        top = self.strongest_two()
        if top is None:
            return []
        u = self.settings[~self.settings["mixed"]]
        out = []
        for _, g in u.groupby(["condition", "players"], sort=False):
            by_policy = dict(zip(g["policy"], g["setting"]))
            if top[0] in by_policy and top[1] in by_policy:
                out.append((by_policy[top[0]], by_policy[top[1]]))
        return out

    def units(self) -> pd.DataFrame:
        """Units of the bandit-level analyses: ``unit`` (0..), ``setting`` (the setting, or the
        mixed table's id), ``policy``, ``settings`` (the setting ids it covers), ``players``,
        ``mixed``, ``condition``, ``condition_label``, ``value``, ``label``."""
        rows = []
        for _, r in self.settings.iterrows():
            if not r["mixed"]:
                rows.append({"setting": r["setting"], "policy": r["policy"],
                             "settings": (r["setting"],), "players": r["players"],
                             "mixed": False, "condition": r["condition"],
                             "condition_label": r["condition_label"], "value": r["value"],
                             "label": r["label"]})
        for table, rotations in self.tables().items():
            first = self.row(table)
            for policy in dict.fromkeys(seat_policies(first["policies"])):
                rows.append({"setting": table, "policy": policy, "settings": tuple(rotations),
                             "players": first["players"], "mixed": True,
                             "condition": first["condition"],
                             "condition_label": first["condition_label"],
                             "value": first["value"],
                             "label": f"{first['label']}: {policy}'s seats"})
        order = {s: i for i, s in enumerate(self.settings["setting"])}
        units = pd.DataFrame(rows, columns=["setting", "policy", "settings", "players", "mixed",
                                            "condition", "condition_label", "value", "label"])
        units = units.sort_values("setting", key=lambda s: s.map(order), kind="stable")
        units.insert(0, "unit", np.arange(len(units)))
        return units.reset_index(drop=True)

    def unit_codes(self, players: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
        """The unit of every row of a players table (-1: a setting not in the design), and
        :meth:`units`."""
        units = self.units()
        s_codes, s_names = column_codes(players["setting"])
        p_codes, p_names = column_codes(players["policy"])
        lookup = np.full((len(s_names) + 1, len(p_names) + 1), -1, np.int64)
        for u in units.itertuples():
            # A uniform setting's rows are all one unit; a mixed table's, one per seat policy.
            seats = [p_names.index(u.policy)] if u.mixed and u.policy in p_names else \
                slice(None) if not u.mixed else []
            for sid in u.settings:
                if sid in s_names:
                    lookup[s_names.index(sid), seats] = u.unit
        return lookup[s_codes, p_codes], units


def design_of(results, ladder=()) -> Design:
    """The design of ``results`` (a :class:`~coltsim.results.Results` or its settings table).

    ``ladder``: the experiment's policies from the weakest to the strongest (its ``ladder``
    key), for :meth:`Design.strongest_two`.
    """
    settings = results.settings if isinstance(results, Results) else results
    s = settings.reset_index(drop=True).copy()
    s["setting"] = s["setting"].astype(str)
    if "params" not in s:
        s["params"] = ""
    if "lineup" not in s:
        s["lineup"] = "random"
    s["players"] = s["players"].astype(int)
    names = [policy_name(p, q) for p, q in zip(s["policies"], s["params"])]
    s["mixed"] = [len(set(seat_policies(p))) > 1 for p in s["policies"]]

    conditions, keys, cond_of = [], {}, []
    condition_cols = ["lineup"] + rule_columns(s)
    for _, r in s.iterrows():
        key = tuple(str(r[c]) for c in condition_cols)
        if key not in keys:
            keys[key] = len(keys)
        cond_of.append(keys[key])
    s["condition"] = cond_of
    conditions = _condition_labels(s, condition_cols)
    s["condition_label"] = [conditions[c] for c in s["condition"]]
    axis = _axis(s, condition_cols)
    s["value"] = (s[axis].astype(float) if axis else np.nan)

    # Mixed tables: rotations of one policy list (and otherwise equal) are one table.
    tables: dict = {}
    table, rotation = [], []
    for i, r in s.iterrows():
        if not r["mixed"]:
            table.append(r["setting"])
            rotation.append(0)
            continue
        seats = _seats(r["policies"], r["params"])
        key = (r["players"], r["condition"], _text(r.get("label")),
               min(seats[k:] + seats[:k] for k in range(len(seats))))
        first = tables.setdefault(key, (r["setting"], seats))
        table.append(first[0])
        rotation.append(next(k for k in range(len(seats))
                             if first[1][len(seats) - k:] + first[1][:len(seats) - k] == seats))
    s["table"] = table
    s["rotation"] = rotation
    for i, r in s.iterrows():
        if r["mixed"]:
            names[i] = names[s.index[s["setting"] == r["table"]][0]]
    s["policy"] = names
    s["label"] = _setting_labels(s, conditions)

    # The ladder names policies as an experiment does ("rollout"); the design names them with
    # their parameters ("rollout (budget 16)").
    uniform = list(dict.fromkeys(s.loc[~s["mixed"], "policy"]))
    base = dict(zip(s.loc[~s["mixed"], "policy"], s.loc[~s["mixed"], "policies"]
                    .map(lambda p: seat_policies(p)[0])))
    ladder = tuple(p for name in ladder for p in uniform if base[p] == name)
    policies = list(ladder) + [p for p in uniform if p not in ladder]
    cols = ["setting", "players", "policy", "mixed", "table", "rotation", "condition",
            "condition_label", "value", "label", "policies", "lineup"]
    return Design(s[cols + [c for c in s.columns if c not in cols]], conditions, axis, ladder,
                  policies)


def policy_name(policies: str, params: str = "") -> str:
    """A table's policies for people: ``"greedy"``, ``"rollout (budget 16)"`` (parameters that
    differ from the policy's defaults), ``"rollout vs greedy ×3"`` for a mixed table."""
    seats = seat_policies(policies)
    rows = json.loads(params) if isinstance(params, str) and params.strip() else None
    named = []
    for k, p in enumerate(seats):
        changed = _changed_params(p, rows[k]) if rows is not None else ""
        named.append(f"{p} ({changed})" if changed else p)
    if len(set(named)) == 1:
        return named[0]
    counts = {n: named.count(n) for n in dict.fromkeys(named)}
    return " vs ".join(n if c == 1 else f"{n} ×{c}" for n, c in counts.items())


def _changed_params(policy: str, row) -> str:
    """The parameters of ``row`` that differ from the policy's defaults, in words."""
    spec = catalog.POLICIES.get(policy)
    choices = {p.name: p.choices for p in spec.params} if spec else {}
    default = catalog.param_vector(policy)
    parts = []
    for i, name in enumerate(catalog.param_names(policy)):
        if i < len(row) and float(row[i]) != float(default[i]):
            value = row[i]
            if choices.get(name):
                value = choices[name][int(value)]
            elif float(value).is_integer():
                value = int(value)
            parts.append(f"{name} {value}")
    return ", ".join(parts)


def _seats(policies: str, params: str) -> tuple:
    """Each seat's policy with its parameter row (a rotation moves both)."""
    rows = json.loads(params) if isinstance(params, str) and params.strip() else None
    return tuple((p, json.dumps(rows[k]) if rows is not None else "")
                 for k, p in enumerate(seat_policies(policies)))


def _text(x) -> str:
    return x if isinstance(x, str) else ""


def _condition_labels(s: pd.DataFrame, condition_cols: list) -> list[str]:
    """One label per condition: the settings' own label when all of its settings share one,
    else the rule options (and line-up) that differ between conditions, in words."""
    first = s.drop_duplicates("condition").sort_values("condition")
    varying = [c for c in condition_cols if first[c].astype(str).nunique() > 1]
    labels = []
    for cond, r in zip(first["condition"], first.itertuples(index=False)):
        own = {_text(x) for x in s.loc[s["condition"] == cond, "label"]} if "label" in s \
            else {""}
        if len(own) == 1 and own != {""}:
            labels.append(own.pop())
            continue
        row = r._asdict()
        parts = [f"line-up {row[c]}" if c == "lineup" else rule_phrase(c, row[c])
                 for c in varying]
        parts = [p for p in parts if p]
        if not parts:  # the printed value of everything the conditions vary in
            common = [p for p in (rule_phrase(c, row[c]) for c in condition_cols
                                  if c in _default_rules()) if p]
            parts = [rule_phrase(c, row[c], always=True) for c in varying if c != "lineup"] \
                if common and varying else common
        labels.append(", ".join(parts) if parts else PRINTED_RULES)
    # Two conditions never share a name (the report groups and colours by it).
    return [label if labels[:i].count(label) == 0 else f"{label} ({labels[:i].count(label) + 1})"
            for i, label in enumerate(labels)]


def _axis(s: pd.DataFrame, condition_cols: list) -> str | None:
    first = s.drop_duplicates("condition")
    varying = [c for c in condition_cols if first[c].astype(str).nunique() > 1]
    if len(varying) != 1 or varying[0] == "lineup":
        return None
    values = first[varying[0]]
    if values.dtype == bool or not all(_is_number(v) for v in values):
        return None
    return varying[0] if values.astype(float).nunique() >= 3 else None


def _is_number(v) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return False
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _setting_labels(s: pd.DataFrame, conditions: list) -> list[str]:
    """A setting's name for people: its own label (else its condition, or the mixed table's
    policies), then its players and policy as far as they vary, and its seat rotation."""
    many_conditions = len(conditions) > 1
    many_players = s["players"].nunique() > 1
    many_policies = s["policy"].nunique() > 1
    labels = []
    for _, r in s.iterrows():
        own = _text(r.get("label"))
        parts = [own] if own else []
        if not own and (many_conditions or not (many_players or many_policies or r["mixed"])):
            parts.append(r["condition_label"])
        if many_players:
            parts.append(f"{r['players']} players")
        if (many_policies and not r["mixed"]) or (r["mixed"] and not own):
            parts.append(r["policy"])
        if r["mixed"] and r["rotation"]:
            parts.append(f"rotation {r['rotation']}")
        labels.append(", ".join(parts))
    return labels


def rule_phrase(option: str, value, always: bool = False) -> str:
    """A rule option's value (of its type in :class:`coltsim.Rules`: a list as the settings
    table joins it) in words, or ``""`` where it is the printed rule's (unless ``always``).

    >>> rule_phrase("gunslinger_bonus", 0), rule_phrase("abilities", "ghost,tuco,doc,django,cheyenne")
    ('Gunslinger bonus $0', "without Belle's ability")
    >>> rule_phrase("gunslinger_bonus", 1000), rule_phrase("gunslinger_bonus", 1000, always=True)
    ('', 'Gunslinger bonus $1,000')
    """
    value = value.item() if isinstance(value, np.generic) else value
    value = ",".join(value) if isinstance(value, (list, tuple)) else value
    defaults = _default_rules()
    if option not in defaults:
        return f"{option.replace('_', ' ')} {value}"
    if value == defaults[option] and not always:
        return ""
    if option == "abilities":
        kept = [b for b in value.split(",") if b]
        if set(kept) == set(K.BANDIT_NAMES):
            return "every bandit's ability"
        gone = [_BANDIT_TITLES.get(b, b) for b in K.BANDIT_NAMES if b not in kept]
        extra = [b for b in kept if b not in K.BANDIT_NAMES]
        if gone and not extra:
            return f"without {and_list(gone)}'s ability" if len(gone) == 1 else \
                f"without the abilities of {and_list(gone)}"
    if option == "gunslinger_bonus":
        return f"Gunslinger bonus ${value:,}"
    if option == "neutral_bullets" and value < 0:
        return "unlimited neutral bullets"
    if option == "advanced":
        return "advanced rules" if value else "base game"
    if option in _PHRASES:
        return _PHRASES[option](value)
    words = option.replace("_", " ")
    if isinstance(value, bool):
        return words if value else f"no {words}"
    return f"{words} {value or 'random'}"


_PHRASES = {
    "doc_bonus": lambda v: "Doc draws no extra card" if v == 0 else
    f"Doc draws {v} extra card{'s' if v != 1 else ''}",
    "django_push_without_bullets": lambda v: "Django pushes without bullets" if v
    else "Django pushes only with bullets",
    "ghost_both_halves": lambda v: "Ghost may hide both halves" if v
    else "Ghost hides one half",
    "gunslinger_if_nobody_fired": lambda v: "everybody Gunslinger when nobody fired"
    if v else "no Gunslinger when nobody fired",
    "neutral_runout": lambda v: f"neutral bullets run out: {v.replace('_', ' ')}",
    "hand_size": lambda v: f"hand of {v} cards",
    "draw_count": lambda v: f"draw {v} cards",
    "rounds": lambda v: f"{v} rounds",
    "roof_move_max": lambda v: f"roof moves up to {v} cars",
}


def _default_rules() -> dict:
    """Each rule option's printed value, as the settings table holds it (a list joined)."""
    return {**{k: "" for k in CONTENT},  # (a content option at the printed game: no text)
            **{k: ",".join(v) if isinstance(v, list) else v for k, v in Rules().as_dict().items()}}
