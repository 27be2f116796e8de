"""Validation of what a user asks for (players, line-up, seed, rules), shared by every entry
point.  Every problem is a ``ValueError`` whose one-line message names the bad value and the
allowed ones; the kernels never see bad input."""
from __future__ import annotations

import dataclasses

import numpy as np

from . import constants as K
from .rules import Rules

MIN_PLAYERS = 2
MAX_PLAYERS = 6
RANDOM_BANDIT = "random"


def check_players(players) -> int:
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not (
            MIN_PLAYERS <= players <= MAX_PLAYERS):
        raise ValueError(f"players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS} "
                         f"(2 = the two-bandit variant), got {players!r}")
    return int(players)


def bandits_per_player(players: int) -> int:
    return 2 if players == 2 else 1


def check_seed(seed, name: str = "seed") -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not (
            0 <= seed < 2**63):
        raise ValueError(f"{name} must be an integer from 0 to 2**63 - 1, got {seed!r}")
    return int(seed)


def lineup_codes(players: int, bandits=None) -> np.ndarray:
    """Character codes of every bandit (-1 = drawn at random per game).

    ``bandits``: None (all random), or one name per bandit, where ``"random"`` draws that one."""
    n = players * bandits_per_player(players)
    if bandits is None:
        return np.full(n, -1, np.int64)
    if isinstance(bandits, str):
        bandits = [b.strip() for b in bandits.split(",") if b.strip()]
    bandits = [str(b).lower() for b in bandits]
    if len(bandits) != n:
        raise ValueError(f"bandits must name {n} bandits for {players} players, got {len(bandits)}: "
                         f"{', '.join(bandits)}")
    allowed = K.BANDIT_NAMES + (RANDOM_BANDIT,)
    for b in bandits:
        if b not in allowed:
            raise ValueError(f"unknown bandit {b!r}; allowed: {', '.join(allowed)}")
    named = [b for b in bandits if b != RANDOM_BANDIT]
    for b in named:
        if named.count(b) > 1:
            raise ValueError(f"bandit {b!r} is listed twice; each bandit can play only once")
    return np.array([-1 if b == RANDOM_BANDIT else K.BANDIT_NAMES.index(b) for b in bandits],
                    np.int64)


def check_rules(rules, players: int) -> Rules:
    if rules is None:
        rules = Rules()
    elif isinstance(rules, dict):
        rules = Rules.from_dict(rules)
    elif not isinstance(rules, Rules):
        raise ValueError(f"rules must be a coltsim.Rules or a dict of rule options, got {rules!r}")
    rules.check_players(players)
    if players == 2 and not rules.advanced:
        # The 2-player variant is always played with the advanced rules (RULES.md 11).
        rules = dataclasses.replace(rules, advanced=True)
    return rules
