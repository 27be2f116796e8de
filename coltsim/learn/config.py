"""What a training is (``coltsim train``, train.py): light, so that the command line can show
its defaults without importing the engine."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..setting import FieldError, check_rules


@dataclass(frozen=True)
class TrainConfig:
    """What a training is: every field is part of its folder's identity (``train.json``)."""

    seed: int = 0
    iterations: int = 3
    games: int = 1000  # recorded games per iteration
    share: float = 0.12  # share of the learner's valued decisions the teacher searches
    budget: int = 256  # the teacher's playouts per decision
    horizon: int = 2  # the teacher's rounds of look-ahead (0: to the end of the game)
    teacher_model: str = "learned"  # its opponents and playouts: the learner (or a fixed model)
    alpha: float = 1.0  # the ridge penalty
    match_deals: int = 500  # deals of each match (x 4 seat rotations)
    players: int = 4
    rules: dict = dataclasses.field(default_factory=dict)  # rule options that differ

    def check(self) -> TrainConfig:
        from ..runs.options import check_count, check_seed

        check_seed(self.seed)
        check_count(self.iterations, "iterations", 100)
        check_count(self.games, "games", 10_000_000)
        check_count(self.budget, "budget", 1_000_000)
        if not isinstance(self.horizon, int) or not 0 <= self.horizon <= 5:
            raise FieldError("horizon", f"must be 0 (to the end of the game) to 5 rounds, got "
                                        f"{self.horizon!r}")
        check_count(self.match_deals, "match_deals", 1_000_000)
        from ..policies.catalog import PLAYOUT_NAMES

        if self.teacher_model not in PLAYOUT_NAMES:
            raise FieldError("teacher_model", f"unknown model {self.teacher_model!r}; allowed: "
                                              f"{', '.join(PLAYOUT_NAMES)}")
        if not isinstance(self.share, (int, float)) or not 0 < self.share <= 1:
            raise FieldError("share", f"must be a number in (0, 1], got {self.share!r}")
        if not isinstance(self.alpha, (int, float)) or not 0 <= self.alpha < 1e9:
            raise FieldError("alpha", f"must be a number from 0 to 1e9, got {self.alpha!r}")
        if not isinstance(self.players, int) or not 3 <= self.players <= 6:
            raise FieldError("players", f"must be 3 to 6 (one bandit per player), got "
                                        f"{self.players!r}")
        self.checked_rules()
        return self

    def checked_rules(self):
        if not isinstance(self.rules, dict):
            raise FieldError("rules", f"must be a table of rule options, got {self.rules!r}")
        return check_rules(self.rules, self.players)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def identity(self) -> dict:
        """What its folder must hold the same (``iterations`` only says when to stop)."""
        return {k: v for k, v in self.as_dict().items() if k != "iterations"}
