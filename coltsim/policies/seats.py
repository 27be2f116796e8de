"""A table's seats: the policies of its players, named, resolved into what the kernels need.

A policy is named by a built-in name (declared in catalog.POLICIES), by
``"package.module:function"`` (a compiled function of the policy signature in the user's own
module: builtin.py's docstring) or given as the function itself, from Python.
``resolve_policies`` turns one spec per player into the table's choosers (the compiled policies
of its seats, catalog.compiled_as; user policy ``k`` of the table's ``functions`` is
``"user:k"``), each seat's index among them, a parameter matrix and the seats' networks.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np

from .catalog import (
    DEFAULT, I_LEAF, I_ROUNDS, I_WIDTH, LEAF_NAMES, N_PARAMS, POLICY_NAMES, USER_POLICY,
    compiled_as, function_label, param_names, param_vector,
)
from ..words import did_you_mean
from .weights import load_net, shipped_net, table

USER = "user:"  # user policy k of a table (Seats.functions[k]) has the chooser code "user:k"


@dataclass(frozen=True)
class Seats:
    """Policies of every player of a table, ready for the kernels.

    Attributes
    ----------
    names : tuple of str
        A label per player (the built-in name, ``"package.module:function"`` or the function's
        qualified name).
    seat_policy : ndarray, int64[players]
        Index of each player's chooser in ``choosers``.
    params : ndarray, float64[players, N_PARAMS]
        Parameter row per player.
    choosers : tuple of str
        The chooser codes of the table: what its kernel compiles (playout.batch_kernel); the
        built-in ones sorted, then ``"user:0"``, ``"user:1"``...
    functions : tuple
        The user policies' compiled functions (``"user:k"`` is ``functions[k]``).
    nets : ndarray, float32[players, width]
        Each seat's network (weights.table): ``learned``'s weights (its ``weights`` file, or the
        shipped ones), also for a search that models ``learned``; zeros where none is needed.
    """

    names: tuple
    seat_policy: np.ndarray
    params: np.ndarray
    choosers: tuple
    functions: tuple
    nets: np.ndarray


def load_user_policy(spec: str):
    """Import ``"package.module:function"`` and return the compiled function."""
    if not USER_POLICY.match(spec):
        raise ValueError(f"unknown policy {spec!r}; allowed: {', '.join(POLICY_NAMES)} "
                         f"or \"package.module:function\"{did_you_mean(spec, POLICY_NAMES)}")
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
            _COMPILED[fn] = numba.njit(nogil=True)(fn)
        return _COMPILED[fn]
    raise ValueError(f"user policy {label!r} is not a function")


def resolve_policies(players: int, policies=None, params=None) -> Seats:
    """One policy per player from ``policies`` (None: ``catalog.DEFAULT``; one
    spec for all; or a list).

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
                             f"{', '.join(POLICY_NAMES)} or \"package.module:function\""
                             f"{did_you_mean(name, POLICY_NAMES)}")
        param_vector(name, values)
    matrix = np.zeros((players, N_PARAMS))
    names = []
    codes = []
    users = []
    for p, spec in enumerate(policies):
        if isinstance(spec, str) and spec in POLICY_NAMES:
            matrix[p] = param_vector(spec, by_name.get(spec))
            names.append(spec)
            codes.append(compiled_as(spec, matrix[p]))
            continue
        fn = load_user_policy(spec) if isinstance(spec, str) else _compiled(spec, repr(spec))
        label = spec if isinstance(spec, str) else function_label(fn)
        matrix[p] = param_vector(label, by_name.get(label))
        names.append(label)
        if fn not in users:
            users.append(fn)
        codes.append(f"{USER}{users.index(fn)}")
    if params is not None and not isinstance(params, dict):
        matrix = np.asarray(params, np.float64)
        if matrix.shape != (players, N_PARAMS) or not np.isfinite(matrix).all():
            raise ValueError(f"params must be a finite {players} x {N_PARAMS} array or a dict "
                             f"of parameters by policy name")
        codes = [c if c.startswith(USER) else compiled_as(n, row)
                 for c, n, row in zip(codes, names, matrix)]
    # Sorted, whatever the seats: every seating of the same policies (a tournament's rotations)
    # shares one compiled kernel.
    choosers = tuple(sorted({c for c in codes if not c.startswith(USER)}))
    choosers += tuple(f"{USER}{k}" for k in range(len(users)))
    seat_policy = np.array([choosers.index(c) for c in codes], np.int64)
    nets = table([_seat_net(n, c, row, by_name.get(n))
                  for n, c, row in zip(names, codes, matrix)], players)
    return Seats(tuple(names), seat_policy, matrix, choosers, tuple(users), nets)


def _seat_net(name: str, code: str, row, params: dict | None):
    """The network a seat playing ``name`` (chooser ``code``, parameter row ``row``) needs, or
    None: its ``weights`` file, or the shipped network, for ``learned``, for a search modelling
    it and for ismcts valuing its leaves, ranking its root's options or playing the rounds it
    does not search with it."""
    needs = "learned" in code.split(":") or (name == "ismcts" and (
        LEAF_NAMES[int(row[I_LEAF])] == "learned" or row[I_WIDTH] > 0 or row[I_ROUNDS] > 0))
    if not needs:
        return None
    if params and params.get("weights"):
        try:
            return load_net(params["weights"])[0]
        except ValueError as e:
            raise ValueError(f"params.{name}.weights: {e}") from None
    net = shipped_net()
    if net is None:
        raise ValueError("policy 'learned' has no shipped weights (coltsim/policies/"
                         "learned.npz); give a weights file of coltsim train: "
                         "params learned.weights")
    return net


__all__ = ["Seats", "load_user_policy", "param_names", "param_vector", "resolve_policies"]
