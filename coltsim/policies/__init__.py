"""Policies: every decision of a player is "choose one of these legal options".

Every policy is a compiled function of one signature (builtin.py)::

    policy(obs, kind, options, params, rng) -> int

registered by name with an integer id; mixed seats dispatch on the id of the deciding player
(``choose``).  ``view`` holds the helpers that read the position, ``observe`` the observation and
the determinisation used by ``rollout``; ``registry`` resolves names, presets, parameters and
user policies (``"package.module:function"``); ``kernels`` plays batches with any mix of them.
``DEFAULT`` names the policy of every seat not told otherwise, ``LADDER`` the built-ins from
weakest to strongest.  See docs/policies.md.
"""
from .builtin import FIRST_USER_ID, POLICY_IDS, POLICY_NAMES, choose
from .registry import (
    DEFAULT, LADDER, Seats, load_user_policy, param_names, param_vector, resolve_policies,
)

__all__ = ["DEFAULT", "LADDER", "FIRST_USER_ID", "POLICY_IDS", "POLICY_NAMES", "Seats", "choose",
           "load_user_policy", "param_names", "param_vector", "resolve_policies", "batch_kernel"]


def batch_kernel(functions: tuple = ()):
    """A kernel with ``engine.play.play_batch``'s signature that plays built-in policies and the
    user policies ``functions`` (``Seats.functions``); see kernels.py."""
    from .kernels import user_kernel

    return user_kernel(functions)
