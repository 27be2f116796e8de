"""The catalog of policies, in plain Python: ``POLICIES``, the one declaration of every built-in
policy (:class:`Policy`: its name, the chooser that plays it, its parameters with their
defaults and bounds, the parameters that choose a search's models, the files it reads), and the
check of parameters given by name.

A setting (coltsim.setting) is validated against this catalog, so validation never loads the
compiled policies: importing this module loads no numba.  The compiled side finds a policy's
functions by its names: chooser ``c`` is ``choose_c`` in builtin.py, model ``m`` of
``PLAYOUT_NAMES`` is ``model_m`` in models.py.  The kernels (builtin.py, heuristic.py,
rollout.py, ismcts.py) import their parameter indices from here, so the names and the numbers
cannot drift apart.

To add a policy: write its kernel and its chooser ``choose_NAME`` (builtin.py), and declare it
in ``POLICIES`` (name, chooser, parameters in the order of its parameter row);
tests/test_policies.py checks every declaration.

A parameter row is ``float64[N_PARAMS]``: parameter ``i`` of a policy's ``params`` is entry
``i``; entries past them are 0.  User policies (``"package.module:function"``) read their row as
they like: their parameters are named ``p0`` .. ``p15``.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..constants import N_PARAMS
from ..words import did_you_mean

USER_POLICY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")  # "package.module:function"


@dataclass(frozen=True)
class Param:
    """One entry of a policy's parameter row.

    ``choices`` names the allowed values of a parameter given by name (stored as the index of
    the name); ``whole`` asks for a whole number >= 0; ``minimum`` and ``maximum`` bound a
    number.  Every built-in parameter has both bounds: a whole number is cast to int64 by the
    kernels, a budget is time and memory, and a weight beyond ``MAX_WEIGHT`` would only
    overflow a score (docs/policies.md lists them).
    """

    name: str
    default: float = 0.0
    whole: bool = False
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple = ()


@dataclass(frozen=True)
class Policy:
    """A built-in policy: its name, the chooser that plays it (``choose_<chooser>`` in
    builtin.py), its parameters; a search names the parameters that choose its models
    (compiled in with it: ``compiled_as``)."""

    name: str
    chooser: str
    params: tuple = ()  # of Param, in the order of the parameter row
    models: tuple = ()  # names of the parameters that choose a search's models
    files: tuple = ()  # names of the parameters that name a file (not in the row: Seats.nets)


# --- greedy, weighted and its presets (heuristic.py) ------------------------------------------
W_LOOT = 0
W_SEEK = 1
W_FIRE = 2
W_PUNCH = 3
W_MARSHAL = 4
W_AVOID = 5
W_DRAW = 6
W_RICH = 7
W_TEMPERATURE = 8
WEIGHT_NAMES = ("loot", "seek", "fire", "punch", "marshal", "avoid", "draw", "rich",
                "temperature")
NEVER = -1e9
# The largest weight, in either direction (NEVER's size): scores are weights times dollars or
# counts, so a weight within it keeps every score a finite float64.
MAX_WEIGHT = 1e9

GREEDY = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0)
# Named play styles of ``weighted`` (each also a policy name of its own).
PRESETS = {
    #                       loot seek fire punch marshal avoid draw rich temperature
    "aggressive":          (0.8, 0.8, 2.0, 2.0, 1.5, 0.5, 1.0, 2.0, 0.0),
    "cautious":            (1.2, 1.0, 0.5, 0.5, 0.5, 3.0, 1.5, 0.5, 0.0),
    "never_fires":         (1.0, 1.0, NEVER, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0),
    "never_moves_marshal": (1.0, 1.0, 1.0, 1.0, NEVER, 1.0, 1.0, 1.0, 0.0),
}


def _weight(name: str, default: float, minimum: float = -MAX_WEIGHT) -> Param:
    """A real-valued weight: any number within ``MAX_WEIGHT`` (of at least ``minimum``)."""
    return Param(name, default, minimum=minimum, maximum=MAX_WEIGHT)


def _weights(values) -> tuple:
    return tuple(_weight(name, value, 0.0 if name == "temperature" else -MAX_WEIGHT)
                 for name, value in zip(WEIGHT_NAMES, values))


# --- rollout (rollout.py) ---------------------------------------------------------------------
P_BUDGET = 0
P_PLAYOUT = 1
P_HORIZON = 2
# The models a search plays the other seats with (models.py), by their number: a parameter row
# stores it (``playout``, ``opponents``), so a model is only ever added at the end.
PLAYOUT_NAMES = ("greedy", "random", "planner", "learned")
PLAYOUT_GREEDY = 0
DEFAULT_BUDGET = 64
# A search's budget, rollout's and ismcts': about 3 s a decision and minutes a game
# (docs/policies.md speeds); ismcts' tree for it takes about 40 MB.
MAX_BUDGET = 100_000
MAX_HORIZON = 8  # rules.MAX_ROUNDS
ROLLOUT_PARAMS = (
    Param("budget", DEFAULT_BUDGET, whole=True, minimum=1,
          maximum=MAX_BUDGET),  # rollouts per decision
    Param("playout", PLAYOUT_GREEDY, choices=PLAYOUT_NAMES),  # playout policy of every seat
    Param("horizon", 0, whole=True, minimum=0,
          maximum=MAX_HORIZON),  # rounds before scoring; 0: to the end
)

# --- planner (planner.py) ---------------------------------------------------------------------
PLANNER_PARAMS = (  # the planner's weights, in dollars or shares (planner.py's docstring)
    ("pot_now", 0.55),  # share of the loot within reach counted while a Robbery can be played
    ("pot_later", 0.33),  # ... counted for later rounds
    ("reach", 0.38),  # share of a neighbouring spot's loot (one Move or Floor Change away)
    ("clog", 5.3),  # dollars per bullet card received, per later round
    ("tau", 0.05),  # Gunslinger race: uncertainty (in shots) per round left
    ("leader", 0.46),  # opponents counted as: leader x this + their mean x (1 - this)
    ("marshal_risk", 3.0),  # dollars for standing inside a car next to the Marshal
    ("exposed", 17.7),  # dollars per opponent with bullets who has the bandit in its line of fire
    ("draw", 38.9),  # dollars for drawing while turns remain this round
    ("draw_need", 24.1),  # dollars per later turn of this round the hand could not fill
    ("hide", 9.6),  # dollars for playing a card face down
    ("crowd", 0.21),  # share of a spot's loot lost per other bandit standing there
)  # tuned by self-play (docs/policies.md, benchmarks/tune_planner_weights.py)

# --- ismcts (ismcts.py) -----------------------------------------------------------------------
I_BUDGET = 0
I_EXPLORATION = 1
I_MARGIN = 2
I_PLAYOUT = 3
I_OPPONENTS = 4
I_HORIZON = 5
I_LEAF = 6
I_WIDTH = 7
I_ROUNDS = 8
LEAF_NAMES = ("score", "learned")  # how a playout stopped at the horizon is valued
MAX_WIDTH = 64  # above every decision's option count
DEFAULT_ISMCTS_BUDGET = 128
ISMCTS_PARAMS = (
    Param("budget", DEFAULT_ISMCTS_BUDGET, whole=True, minimum=1,
          maximum=MAX_BUDGET),  # playouts per decision
    _weight("exploration", 0.7, minimum=0.0),  # UCB constant below the root
    _weight("margin", 0.2, minimum=0.0),  # weight of the score lead (thousands) in an outcome
    Param("playout", PLAYOUT_GREEDY, choices=PLAYOUT_NAMES),  # every seat after the tree
    Param("opponents", PLAYOUT_GREEDY, choices=PLAYOUT_NAMES),  # the others inside the tree
    Param("horizon", 2, whole=True, minimum=0,
          maximum=MAX_HORIZON),  # rounds before scoring the position; 0: to the end
    # at the horizon: the score (victory share + margin x lead as the game would end there), or
    # learned's value of the position (its network: the weights file, or the shipped one)
    Param("leaf", 0, choices=LEAF_NAMES),
    # options searched at the root: the ``width`` that learned's value (its network) ranks
    # best, and the playout model's choice; 0: every option
    Param("width", 0, whole=True, minimum=0, maximum=MAX_WIDTH),
    # the game's last ``rounds`` rounds are searched, every decision before them is learned's
    # (its network); 0: every round
    Param("rounds", 0, whole=True, minimum=0, maximum=MAX_HORIZON),
)

# --- the built-in policies, in the order the docs list them -----------------------------------
POLICIES: dict[str, Policy] = {p.name: p for p in (
    Policy("random", "random"),
    # greedy, weighted and its presets are one chooser: the weights are the parameter row
    # (greedy has none: all zeros play greedy's weights)
    Policy("greedy", "weighted"),
    Policy("weighted", "weighted", _weights(GREEDY)),
    Policy("rollout", "rollout", ROLLOUT_PARAMS, models=("playout",)),
    *(Policy(name, "weighted", _weights(weights)) for name, weights in PRESETS.items()),
    # an uncertainty is not negative (a negative tau can divide by zero: planner._gunslinger)
    Policy("planner", "planner", tuple(_weight(n, v, 0.0 if n == "tau" else -MAX_WEIGHT)
                                       for n, v in PLANNER_PARAMS)),
    # ``weights``: a weights file of coltsim train (its network), instead of the shipped one
    Policy("learned", "learned", files=("weights",)),
    Policy("ismcts", "ismcts", ISMCTS_PARAMS, models=("playout", "opponents"),
           files=("weights",)),
)}

POLICY_NAMES = tuple(POLICIES)


# The policy of every seat an experiment, a simulation or a trace does not name: the player whose
# answers agree with the strongest search's (docs/policies.md: the strength curve) and fast enough
# for million-game studies.  ``learned``'s network was taught by a search at 2 to 6 players
# and distilled from four of its networks (docs/strength-history.md): it beats planners at
# every player count, the two-bandit game included.
DEFAULT = "learned"


# The top rung at each player count: the strongest ``ismcts`` configuration measured there
# against a table of DEFAULT within the speed bar at 4 players (docs/strength-history.md: a
# stronger top rung).  Its root searches the four options the network ranks best (and the
# planner's).  At 4 players (the bar: 6e-5 of the reference game's games/s in every seat) it
# searches the game's last round only, 128 playouts to the game's end modelling the others as
# planners, and plays every earlier decision as DEFAULT's network does; at 3, 5 and 6 players
# it searches every round, 64 playouts modelling the opponents as DEFAULT, each ended with the
# round and valued there by the network, several times slower.  The two-player game keeps the
# 4-player rung (none chosen for it).
_TOP = {"budget": 128, "opponents": "planner", "playout": "planner", "width": 4, "rounds": 1}
_TOP_AGAINST_DEFAULT = {"budget": 64, "opponents": "learned", "playout": "planner",
                        "horizon": 1, "leaf": "learned", "width": 4}
TOP_RUNGS = {2: _TOP, 3: _TOP_AGAINST_DEFAULT, 4: _TOP, 5: _TOP_AGAINST_DEFAULT,
             6: _TOP_AGAINST_DEFAULT}


def top_rung(players: int) -> tuple:
    """The ladder's top rung at ``players`` players: ``("ismcts", parameters)``."""
    return "ismcts", dict(TOP_RUNGS[players])


# The strength ladder at 4 players, weakest first: (name, parameters) as an experiment file names
# them (its ``policies`` and ``[policy_params.NAME]``).  Each rung up to the default wins at least
# 0.30 of the 4-player games it plays against three of the rung below; the top rung wins about
# 0.30 against three of the default (experiments/policy_ladder.toml measures it).
LADDER = (
    ("random", {}),
    ("greedy", {}),
    ("rollout", {"budget": 64, "playout": "greedy"}),
    ("planner", {}),
    ("learned", {}),  # DEFAULT
    top_rung(4),
)


def compiled_as(name: str, row: np.ndarray) -> str:
    """The chooser code of built-in policy ``name`` with parameter row ``row``: what a kernel
    compiles for a seat that plays it (builtin.py; playout.py).  A search is compiled with its
    models: ``rollout:MODEL``, ``ismcts:PLAYOUT:OPPONENTS``."""
    policy = POLICIES[name]
    code = [policy.chooser]
    for model in policy.models:
        i = param_names(name).index(model)
        if row[i] not in range(len(PLAYOUT_NAMES)):
            raise ValueError(f"policy {name!r}: {model} must be one of {', '.join(PLAYOUT_NAMES)}"
                             f" (0 to {len(PLAYOUT_NAMES) - 1} in a parameter array), "
                             f"got {row[i]!r}")
        code.append(PLAYOUT_NAMES[int(row[i])])
    return ":".join(code)


# --- parameters by name -----------------------------------------------------------------------
def _user_params() -> tuple:
    return tuple(Param(f"p{i}") for i in range(N_PARAMS))


def is_policy(name) -> bool:
    """A built-in name or a user policy ``"package.module:function"``."""
    return isinstance(name, str) and (name in POLICIES or bool(USER_POLICY.match(name)))


def function_label(fn) -> str:
    """The name of a user policy given as a function: ``"module:qualname"``."""
    py = getattr(fn, "py_func", fn)
    return f"{py.__module__}:{py.__qualname__}"


def param_names(name: str) -> tuple:
    """Names of the parameters a built-in policy reads (user policies: ``p0`` .. ``p15``)."""
    policy = POLICIES.get(name)
    return tuple(p.name for p in (policy.params if policy else _user_params())) \
        + (policy.files if policy else ())


def param_vector(name: str, params: dict | None = None) -> np.ndarray:
    """The ``float64[N_PARAMS]`` parameter row of policy ``name`` with ``params`` (by name)
    changed from its defaults.  Unknown names and bad values raise ``ValueError``."""
    policy = POLICIES.get(name)
    spec = policy.params if policy else _user_params()
    files = policy.files if policy else ()
    allowed = [p.name for p in spec] + list(files)
    params = dict(params or {})
    for key in params:
        if key not in allowed:
            raise ValueError(f"policy {name!r} has no parameter {key!r}; allowed: "
                             f"{', '.join(allowed) if allowed else 'none'}"
                             f"{did_you_mean(key, allowed)}")
        if key in files and not (isinstance(params[key], str) and params[key]):
            raise ValueError(f"policy {name!r}: {key} must name a file, got {params[key]!r}")
    row = np.zeros(N_PARAMS)
    for i, p in enumerate(spec):
        row[i] = _value(name, p, params[p.name]) if p.name in params else p.default
    return row


def _value(policy: str, p: Param, value) -> float:
    if p.choices:
        if value not in p.choices:
            raise ValueError(f"policy {policy!r}: {p.name} must be one of "
                             f"{', '.join(p.choices)}, got {value!r}"
                             f"{did_you_mean(value, p.choices)}")
        return float(p.choices.index(value))
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value):
        raise ValueError(f"policy {policy!r}: parameter {p.name} must be a finite number, "
                         f"got {value!r}")
    if p.whole and (value < 0 or value != int(value)):
        raise ValueError(f"policy {policy!r}: {p.name} must be a whole number >= 0, "
                         f"got {value!r}")
    if p.minimum is not None and value < p.minimum:
        raise ValueError(f"policy {policy!r}: {p.name} must be >= {p.minimum:g}, got {value!r}")
    if p.maximum is not None and value > p.maximum:
        raise ValueError(f"policy {policy!r}: {p.name} must be at most {p.maximum:,g}, "
                         f"got {value!r}")
    return float(value)
