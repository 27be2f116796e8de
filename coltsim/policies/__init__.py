"""Policies: every decision of a player is "choose one of these legal options".

A built-in policy is a compiled function registered by name with an integer id; mixed seats
dispatch on the id of the deciding player (``choose``).
"""
from .builtin import POLICY_IDS, POLICY_NAMES, choose

__all__ = ["POLICY_IDS", "POLICY_NAMES", "choose"]
