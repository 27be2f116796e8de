"""Policies by name, on the Python side: built-ins, presets, parameters and user policies.

A policy is named by

- a built-in name (``POLICY_NAMES``): ``random``, ``greedy``, ``weighted``, ``rollout`` and the
  presets of ``weighted`` (``aggressive``, ``cautious``, ``never_fires``, ``never_moves_marshal``);
- ``"package.module:function"``: a numba-compiled function of the policy signature in the user's own
  module (builtin.py's docstring);
- or the compiled function itself, passed from Python.

``resolve_policies`` turns one spec per player into what the kernels need: policy ids, a
parameter matrix and the tuple of user functions (user policy ``k`` gets id
``FIRST_USER_ID + k``).  Names, ids and parameters come from the catalog (catalog.py).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np

from .catalog import (
    DEFAULT, FIRST_USER_ID, N_PARAMS, POLICIES, POLICY_IDS, POLICY_NAMES, USER_POLICY, param_names,
    param_vector,
)


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


_COMPILED: dict = {}  # plain Python function -> its compiled dispatcher, made once


def _compiled(fn, label: str):
    import numba
    from numba.extending import is_jitted

    if is_jitted(fn):
        return fn
    if callable(fn):
        if fn not in _COMPILED:
            # (spelt numba.jit(nopython=True): _jit hashes files that mention the short name)
            _COMPILED[fn] = numba.jit(nopython=True, nogil=True)(fn)
        return _COMPILED[fn]
    raise ValueError(f"user policy {label!r} is not a function")


def _label(fn) -> str:
    py = getattr(fn, "py_func", fn)
    return f"{py.__module__}:{py.__qualname__}"


def resolve_policies(players: int, policies=None, params=None) -> Seats:
    """One policy per player from ``policies`` (None: ``catalog.DEFAULT``; one spec for all; or a
    list).

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
    users = {}  # seat -> compiled function
    for p, spec in enumerate(policies):
        if isinstance(spec, str) and spec in POLICY_NAMES:
            ids[p] = POLICY_IDS[spec]
            matrix[p] = param_vector(spec, by_name.get(spec))
            plays_as = POLICIES[spec].plays_as
            if plays_as is not None and by_name.get(spec):
                ids[p] = POLICY_IDS[plays_as]  # a preset with changed weights plays as weighted
            names.append(spec)
            continue
        if isinstance(spec, str):
            users[p] = load_user_policy(spec)
            label = spec
        else:
            users[p] = _compiled(spec, repr(spec))
            label = _label(users[p])
        matrix[p] = param_vector(label, by_name.get(label))
        names.append(label)
    # In the order of their labels, whatever the seats: every seating of the same user
    # policies (a tournament's rotations) shares one compiled kernel (playout.batch_kernel).
    functions = sorted(set(users.values()), key=_label)
    for p, fn in users.items():
        ids[p] = FIRST_USER_ID + functions.index(fn)
    if params is not None and not isinstance(params, dict):
        matrix = np.asarray(params, np.float64)
        if matrix.shape != (players, N_PARAMS) or not np.isfinite(matrix).all():
            raise ValueError(f"params must be a finite {players} x {N_PARAMS} array or a dict "
                             f"of parameters by policy name")
    return Seats(tuple(names), ids, matrix, tuple(functions))


__all__ = ["Seats", "load_user_policy", "param_names", "param_vector", "resolve_policies"]
