"""Policies: every decision of a player is "choose one of these legal options".

Every policy is a compiled function of one signature (builtin.py)::

    policy(obs, kind, options, params, rng) -> int

registered by name with an integer id; mixed seats dispatch on the id of the deciding player
(``choose``).  ``view`` holds the helpers that read the position, ``observe`` the observation and
the determinisation used by ``rollout``; ``registry`` resolves names, presets, parameters and
user policies (``"package.module:function"``).  Games are played by coltsim.playout.
See docs/policies.md.
"""
from .builtin import FIRST_USER_ID, POLICY_IDS, POLICY_NAMES, choose
from .registry import Seats, load_user_policy, param_names, param_vector, resolve_policies

__all__ = ["FIRST_USER_ID", "POLICY_IDS", "POLICY_NAMES", "Seats", "choose", "load_user_policy",
           "param_names", "param_vector", "resolve_policies"]

