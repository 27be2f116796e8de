"""Policies: every decision of a player is "choose one of these legal options".

Every policy is a compiled function of one signature (builtin.py)::

    policy(obs, kind, options, params, rng) -> int

declared by name; a table's kernel compiles the chooser of each of its seats' policies
(builtin.py, coltsim.playout).  ``catalog`` declares every built-in policy with its chooser and
parameters (plain Python: what a setting is validated against); ``view`` holds the helpers that
read the position, ``observe`` the observation and the determinisation used by the searches;
``seats`` resolves names, presets, parameters and user policies (``"package.module:function"``)
into a table's seats.  Games are played by coltsim.playout.  ``DEFAULT`` names the policy of
every seat not told otherwise, ``LADDER`` the built-ins from weakest to strongest at 4 players
(``top_rung(players)``: its top rung at each count).  See docs/policies.md.

Importing this package loads no numba: the compiled modules load when they are imported.
"""
from .catalog import (
    DEFAULT, LADDER, POLICY_NAMES, param_names, param_vector, top_rung,
)
from .seats import Seats, load_user_policy, resolve_policies

__all__ = ["DEFAULT", "LADDER", "POLICY_NAMES", "Seats", "load_user_policy",
           "param_names", "param_vector", "resolve_policies", "top_rung"]
