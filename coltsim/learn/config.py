"""What a training is (``coltsim train``, train.py): light, so that the command line can show
its defaults without importing the engine."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..setting import FieldError, check_rules
from ..words import did_you_mean

START_POLICIES = ("planner", "learned", "greedy")  # who plays the first iteration's games
# A mixed training (``mix``) plays its chunks of games at the player counts in turn (each count
# as many chunks), every other turn with one rule option changed to one of the values designers
# try, the changes in turn (train.Trainer.table_of): MIX_SCHEDULE, in its identity.
MIX_PLAYERS = (2, 3, 4, 5, 6)
MIX_RULES = (
    ("rounds", (3, 4)),
    ("draw_count", (2, 4)),
    ("gunslinger_bonus", (0, 500, 2000)),
    ("hand_size", (4, 5, 7)),
    ("advanced", (True,)),
    ("roof_move_max", (1, 2)),
    ("neutral_bullets", (-1, 6)),
    ("abilities", ((),)),
)
MIX_SCHEDULE = "the player counts in turn, every other turn one rule change, the changes in turn"
# The teacher search at each player count (its budget is the training's ``teacher``), an
# ``ismcts`` of every option with planners as its models (recording.TEACHER_MODEL): up to 4
# players the top rung's horizon and leaf (the end of the round, valued by the iteration's
# network); at 5 and 6 players two rounds played and scored as the game would end there, where
# the linear value shipped before (trained at 4 players) made the search no better than a
# planner (docs/strength-history.md).
TEACHERS = {players: {"horizon": 1, "leaf": "learned"} if players <= 4
            else {"horizon": 2, "leaf": "score"} for players in range(2, 7)}
# The tables a mixed training's networks are matched at (against planners and their
# predecessor): its answer is the mean over them of the share won over the fair share.
MIX_MATCHES = ((4, {}), (3, {}), (5, {}), (6, {}), (2, {}), (4, {"rounds": 3}))


@dataclass(frozen=True)
class TrainConfig:
    """What a training is: every field but ``iterations`` is part of its folder's identity."""

    seed: int = 0
    iterations: int = 4  # at most this many (it stops when one does not beat its predecessor)
    games: int = 100_000  # games played per iteration, a share of their decisions recorded
    share: float = 0.1  # share of the decisions recorded
    explore: float = 0.05  # share of the recorded decisions that play a random option
    # who plays the first iteration's games: a policy of START_POLICIES ("learned": the shipped
    # network) or a weights file (learned with its network)
    start: str = "planner"
    hidden: tuple = ()  # units of the network's hidden layers; none: a linear value
    epochs: int = 4  # passes over the data in each fit
    margin: float = 0.2  # weight of the score lead (thousands of dollars) in an outcome
    window: int = 2  # iterations whose games each fit learns from (the latest ones)
    match_deals: int = 500  # deals of each selection match (x every seat rotation)
    report_deals: int = 2000  # deals the chosen network is reported on (other deals)
    players: int = 4
    rules: dict = dataclasses.field(default_factory=dict)  # rule options that differ
    # playouts of the teacher search labelling each recorded decision (ismcts as TEACHERS says
    # at the table's player count; policies/recording.py); 0 labels a position by the game's
    # outcome
    teacher: int = 0
    mix: bool = False  # each chunk at a table of MIX_PLAYERS and MIX_RULES (MIX_SCHEDULE)

    def check(self) -> TrainConfig:
        from ..policies.weights import MAX_HIDDEN
        from ..runs.options import check_count, check_seed

        check_seed(self.seed)
        check_count(self.iterations, "iterations", 100)
        check_count(self.games, "games", 100_000_000)
        check_count(self.epochs, "epochs", 1000)
        check_count(self.window, "window", 100)
        check_count(self.match_deals, "match_deals", 1_000_000)
        check_count(self.report_deals, "report_deals", 1_000_000)
        if self.match_deals < 2 or self.report_deals < 2:
            raise FieldError("match_deals", "a match needs at least 2 deals for an interval")
        for name, zero in (("share", False), ("explore", True)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                    0 <= v <= 1 if zero else 0 < v <= 1):
                interval = "[0, 1]" if zero else "(0, 1]"
                raise FieldError(name, f"must be a number in {interval}, got {v!r}")
        if isinstance(self.margin, bool) or not isinstance(self.margin, (int, float)) \
                or not 0 <= self.margin <= 10:
            raise FieldError("margin", f"must be a number from 0 to 10, got {self.margin!r}")
        if self.start not in START_POLICIES and not (isinstance(self.start, str)
                                                     and self.start.endswith(".npz")):
            raise FieldError("start", f"unknown policy {self.start!r}; allowed: "
                                      f"{', '.join(START_POLICIES)} or a weights file (.npz)"
                                      f"{did_you_mean(self.start, START_POLICIES)}")
        self.start_net()
        hidden = tuple(self.hidden)
        if len(hidden) > 2 or not all(isinstance(h, int) and not isinstance(h, bool)
                                      and 1 <= h <= MAX_HIDDEN for h in hidden):
            raise FieldError("hidden", f"none (a linear value), one or two hidden layers of 1 "
                                       f"to {MAX_HIDDEN} units, got {self.hidden!r}")
        from ..policies.catalog import MAX_BUDGET
        if self.teacher != 0:
            check_count(self.teacher, "teacher", MAX_BUDGET)
        if not isinstance(self.mix, bool):
            raise FieldError("mix", f"must be true or false, got {self.mix!r}")
        if self.mix and (self.players != 4 or self.rules):
            raise FieldError("mix", "sets the player count and the rule options of each chunk"
                                    "; give --mix or --players/--rules, not both")
        if not isinstance(self.players, int) or not 3 <= self.players <= 6:
            raise FieldError("players", f"must be 3 to 6 (one bandit per player), got "
                                        f"{self.players!r}")
        self.checked_rules()
        return dataclasses.replace(self, hidden=hidden)

    def start_net(self):
        """The network the first iteration's ``learned`` plays (and its teacher values with):
        the shipped one, a weights file's, or None for a policy without one."""
        from ..policies.weights import load_net, shipped_net

        if self.start in START_POLICIES:
            if self.start == "learned" and shipped_net() is None:
                raise FieldError("start", "learned has no shipped network to start from; "
                                          "start with planner")
            return shipped_net() if self.start == "learned" else None
        try:
            return load_net(self.start)[0]
        except ValueError as e:
            raise FieldError("start", str(e)) from None

    def checked_rules(self):
        if not isinstance(self.rules, dict):
            raise FieldError("rules", f"must be a table of rule options, got {self.rules!r}")
        return check_rules(self.rules, self.players)

    def as_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["hidden"] = list(self.hidden)
        return d

    def identity(self) -> dict:
        """What its folder must hold the same (``iterations`` only says when to stop)."""
        identity = {k: v for k, v in self.as_dict().items() if k != "iterations"}
        if self.teacher:
            identity["teachers"] = {str(p): t for p, t in TEACHERS.items()}
        if self.mix:
            identity["mix_schedule"] = MIX_SCHEDULE
        if self.start not in START_POLICIES:  # a weights file: the network it holds
            from ..policies.weights import net_hash
            identity["start_sha256"] = net_hash(self.start_net())
        return identity
