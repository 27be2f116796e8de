"""Policies: every decision of a player is "choose one of these legal options".

Every policy is a compiled function of one signature (builtin.py)::

    policy(obs, kind, options, params, rng) -> int

registered by name; a table's kernel compiles the chooser of each of its seats' policies
(builtin.py, coltsim.playout).  ``catalog`` names every built-in policy with its chooser and
parameters (plain Python: what a setting is validated against); ``view`` holds the helpers that read the position,
``observe`` the observation and the determinisation used by ``rollout``; ``registry`` resolves
names, presets, parameters and user policies (``"package.module:function"``).  Games are
played by coltsim.playout.  ``DEFAULT`` names the policy of every seat not told otherwise
(``default_policy(players)``: the planner in the two-player game), ``LADDER`` the built-ins
from weakest to strongest.  See docs/policies.md.

The compiled modules load on first use of a name below, so that ``coltsim.policies.catalog``
can be imported without numba.
"""
from .catalog import DEFAULT, LADDER, POLICY_NAMES, default_policy, param_names, param_vector

__all__ = ["DEFAULT", "LADDER", "POLICY_NAMES", "Seats", "default_policy", "load_user_policy",
           "param_names", "param_vector", "resolve_policies"]


def __getattr__(name):
    if name in ("Seats", "load_user_policy", "resolve_policies"):
        from . import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'coltsim.policies' has no attribute {name!r}")
