"""Policies by name, on the Python side: built-ins, presets, parameters and user policies.

A policy is named by

- a built-in name (``POLICY_NAMES``): ``random``, ``greedy``, ``weighted``, ``rollout``, the
  presets of ``weighted`` (``aggressive``, ``cautious``, ``never_fires``, ``never_moves_marshal``)
  and ``planner``;
- ``"package.module:function"``: a numba-compiled function of the policy signature in the user's own
  module (builtin.py's docstring);
- or the compiled function itself, passed from Python.

``resolve_policies`` turns one spec per player into what the kernels need: policy ids, a
parameter matrix and the tuple of user functions (user policy ``k`` gets id
``FIRST_USER_ID + k``).  Parameters are given by name (``param_vector``).
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass

import numpy as np

from ..engine.state import N_PARAMS
from . import heuristic as H
from . import planner as PL
from . import rollout as R
from .builtin import (
    FIRST_PRESET, FIRST_USER_ID, POLICY_GREEDY, POLICY_NAMES, POLICY_RANDOM, POLICY_ROLLOUT,
    POLICY_WEIGHTED,
)

USER_POLICY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")

ROLLOUT_DEFAULTS = {"budget": R.DEFAULT_BUDGET, "playout": "greedy", "horizon": 0}

# The policy of every seat an experiment, a simulation or a trace does not name.
DEFAULT = "planner"
# The strength ladder, weakest first: (name, parameters) as an experiment file names them (its
# ``policies`` and ``[policy_params.NAME]``).  Each rung wins at least 0.32 of the 4-player games
# it plays against three of the rung below (experiments/policy_ladder.toml measures it).
LADDER = (
    ("random", {}),
    ("greedy", {}),
    ("rollout", {"budget": 64, "playout": "greedy"}),
    ("planner", {}),
)


def param_names(name: str) -> tuple:
    """Names of the parameters a built-in policy reads (user policies: ``p0`` .. ``p15``)."""
    if name in ("weighted",) + H.PRESET_NAMES:
        return H.WEIGHT_NAMES
    if name == "rollout":
        return R.PARAM_NAMES
    if name == "planner":
        return PL.PARAM_NAMES
    if name in POLICY_NAMES:
        return ()
    return tuple(f"p{i}" for i in range(N_PARAMS))


def param_vector(name: str, params: dict | None = None) -> np.ndarray:
    """The ``float64[N_PARAMS]`` parameter row of policy ``name`` with ``params`` (by name)
    changed from its defaults.  Unknown names and bad values raise ``ValueError``."""
    params = dict(params or {})
    allowed = param_names(name)
    for key in params:
        if key not in allowed:
            raise ValueError(f"policy {name!r} has no parameter {key!r}; allowed: "
                             f"{', '.join(allowed) if allowed else 'none'}")
    v = np.zeros(N_PARAMS)
    if name == "weighted":
        v[:] = H.GREEDY_WEIGHTS
    elif name in H.PRESET_NAMES:
        v[:] = H.PRESET_WEIGHTS[H.PRESET_NAMES.index(name)]
    elif name == "planner":
        v[:] = PL.DEFAULT_WEIGHTS
    elif name == "rollout":
        params = {**ROLLOUT_DEFAULTS, **params}
    for key, value in params.items():
        if key == "playout":
            if value not in R.PLAYOUT_NAMES:
                raise ValueError(f"policy 'rollout': playout must be one of "
                                 f"{', '.join(R.PLAYOUT_NAMES)}, got {value!r}")
            value = R.PLAYOUT_NAMES.index(value)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not np.isfinite(value):
            raise ValueError(f"policy {name!r}: parameter {key} must be a finite number, "
                             f"got {value!r}")
        if key in ("budget", "horizon") and (value < 0 or value != int(value)):
            raise ValueError(f"policy 'rollout': {key} must be a whole number >= 0, got {value!r}")
        if key == "temperature" and value < 0:
            raise ValueError(f"policy {name!r}: temperature must be >= 0, got {value!r}")
        v[allowed.index(key)] = value
    return v


@dataclass(frozen=True)
class Seats:
    """Policies of every player of a table, ready for the kernels.

    Attributes
    ----------
    names : tuple of str
        A label per player (the built-in name, ``"package.module:function"`` or the function's
        qualified name).
    seat_policy : ndarray, int64[players]
        Policy id per player.
    params : ndarray, float64[players, N_PARAMS]
        Parameter row per player.
    functions : tuple
        The user policies' compiled functions, in id order.
    """

    names: tuple
    seat_policy: np.ndarray
    params: np.ndarray
    functions: tuple


def load_user_policy(spec: str):
    """Import ``"package.module:function"`` and return the compiled function."""
    if not USER_POLICY.match(spec):
        raise ValueError(f"unknown policy {spec!r}; allowed: {', '.join(POLICY_NAMES)} "
                         f"or \"package.module:function\"")
    module_name, func_name = spec.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"user policy {spec!r}: cannot import module {module_name!r}: {e}") from e
    try:
        fn = getattr(module, func_name)
    except AttributeError:
        raise ValueError(f"user policy {spec!r}: module {module_name!r} has no "
                         f"{func_name!r}") from None
    return _compiled(fn, spec)


def _compiled(fn, label: str):
    import numba
    from numba.core.registry import CPUDispatcher

    if isinstance(fn, CPUDispatcher):
        return fn
    if callable(fn):
        # (spelt numba.jit(nopython=True): _jit hashes files that mention the short name)
        return numba.jit(nopython=True, nogil=True)(fn)
    raise ValueError(f"user policy {label!r} is not a function")


def _label(fn) -> str:
    py = getattr(fn, "py_func", fn)
    return f"{py.__module__}:{py.__qualname__}"


def resolve_policies(players: int, policies=None, params=None) -> Seats:
    """One policy per player from ``policies`` (None: ``DEFAULT``; one spec for all; or a list).

    A spec is a name, ``"package.module:function"`` or a compiled function.  ``params`` maps a
    policy name (or spec string) to its parameters by name, or gives a ``players x N_PARAMS``
    array (user policies read their row as they like)."""
    if policies is None:
        policies = DEFAULT
    if isinstance(policies, str):
        policies = [p.strip() for p in policies.split(",") if p.strip()]
    elif callable(policies):
        policies = [policies]
    policies = list(policies)
    if len(policies) == 1:
        policies = policies * players
    if len(policies) != players:
        raise ValueError(f"policies must name 1 or {players} policies, got {len(policies)}")
    by_name = params if isinstance(params, dict) else {}
    for name, values in by_name.items():  # every table of parameters must make sense
        if not isinstance(values, dict):
            raise ValueError(f"params of policy {name!r} must be a mapping of parameter names "
                             f"to numbers, got {values!r}")
        if name not in POLICY_NAMES and not USER_POLICY.match(str(name)):
            raise ValueError(f"params given for unknown policy {name!r}; allowed: "
                             f"{', '.join(POLICY_NAMES)} or \"package.module:function\"")
        param_vector(name, values)
    ids = np.zeros(players, np.int64)
    matrix = np.zeros((players, N_PARAMS))
    names = []
    functions: list = []
    for p, spec in enumerate(policies):
        if isinstance(spec, str) and spec in POLICY_NAMES:
            ids[p] = POLICY_NAMES.index(spec)
            matrix[p] = param_vector(spec, by_name.get(spec))
            if spec in H.PRESET_NAMES and by_name.get(spec):
                ids[p] = POLICY_WEIGHTED  # a preset with changed weights plays as weighted
            names.append(spec)
            continue
        if isinstance(spec, str):
            fn = load_user_policy(spec)
            label = spec
        else:
            fn = _compiled(spec, repr(spec))
            label = _label(fn)
        if fn not in functions:
            functions.append(fn)
        ids[p] = FIRST_USER_ID + functions.index(fn)
        matrix[p] = param_vector(label, by_name.get(label))
        names.append(label)
    if params is not None and not isinstance(params, dict):
        matrix = np.asarray(params, np.float64)
        if matrix.shape != (players, N_PARAMS) or not np.isfinite(matrix).all():
            raise ValueError(f"params must be a finite {players} x {N_PARAMS} array or a dict "
                             f"of parameters by policy name")
    return Seats(tuple(names), ids, matrix, tuple(functions))


__all__ = ["DEFAULT", "LADDER", "FIRST_PRESET", "FIRST_USER_ID", "POLICY_GREEDY", "POLICY_NAMES",
           "POLICY_RANDOM", "POLICY_ROLLOUT", "POLICY_WEIGHTED", "Seats", "load_user_policy",
           "param_names", "param_vector", "resolve_policies"]
