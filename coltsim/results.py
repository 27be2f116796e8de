"""Results: the tidy tables of simulated games, in one container, and their columns.

Every run gives three tables with compact dtypes (categoricals with int8 codes, small
integers), fixed here in ``player_columns`` and ``game_columns``; the runner writes them
(coltsim.runs) and the analyses read them (coltsim.analysis).

``players`` (one row per bandit, ordered by game then bandit index)

============================  ========  =====================================================
column                        dtype     meaning
============================  ========  =====================================================
game                          int64     game index under the run's master seed
setting                       category  setting id
players                       int8      players in the game (2 = the two-bandit variant)
seat                          int8      player number 0..players-1 (= team)
bandit_index                  int8      bandit number in the game (two per player with 2)
bandit                        category  character
policy                        category  policy of the seat
order                         int8      (seat - First Player of round 1) % players
purse jewel strongbox ransom  int32     dollars carried at the end, by kind of loot
loot                          int32     their sum
shots                         int8      bullet cards fired
bullets_received              int8      bullet cards received from bandits
neutral_received              int8      neutral bullets received
gunslinger                    bool      won the Gunslinger title
bonus                         int32     Gunslinger dollars
score                         int32     loot + bonus
team_score                    int32     score of the seat (both bandits with 2 players)
rank                          int8      competition rank of the seat (1 = won)
win, shared_win               bool      the seat won; won together with another seat
moves, floor_changes,         int8      how the bandit played: its Move, Floor Change, Fire,
fires, robberies, punches,              Robbery, Punch and Marshal cards resolved
marshal_moves
draws                         int8      turns its player drew cards instead of playing one
                                        (in the 2-player game, the team's, on both bandits)
fizzled                       int8      its action cards that did nothing when they resolved
                                        (a Fire without bullet or target, a Robbery with
                                        nothing to take, a Punch with nobody to punch)
score_after_1 ..              int32     its loot in dollars at the end of each round, as the
score_after_{rounds}                    rules would count it then (no Gunslinger bonus; the
                                        last one is ``loot``)
win_share                     float64   the seat's share of the victory: 1 for a sole winner,
                                        1/m when m seats share it, 0 otherwise (its mean is
                                        the win rate the reports give)
============================  ========  =====================================================

``games`` (one row per game): ``game`` int64, ``setting`` category, ``players`` int8,
``first_player`` int8, ``round_1`` .. ``round_{rounds-1}`` category (round cards in order),
``station`` category, ``cars`` string (letters in train order from the locomotive, e.g.
``"EBFA"``), ``n_winners`` int8, ``n_gunslingers`` int8, ``gunslinger_changed_winner`` bool
(the winners would differ without the bonus), ``neutral_left`` int8 (neutral bullets left in the
supply at the end; -1 with an unlimited supply).

``settings`` (one row per setting): ``setting``, ``players``, ``lineup``, ``policies``,
``params``, ``seed``, ``games``, ``chunk_size``, ``label`` (only when a setting has one) and one
column per rule option.

A game is identified by ``(setting, game)``: the game index restarts in every setting, and the
same index means the same seeds, which is what paired comparisons rely on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import constants as K

if TYPE_CHECKING:  # pandas is imported by whoever builds the tables, not by this module
    import pandas as pd

ROUND_CARDS = K.ROUND_CARD_NAMES[:K.N_ROUND_CARDS]
STATIONS = K.ROUND_CARD_NAMES[K.FIRST_STATION:]


def card_categories(new_cards=()) -> tuple[tuple, tuple]:
    """The categories of the ``round_*`` columns and of ``station``: the printed cards, then
    the names of a designer's cards (rules option new_cards)."""
    return ROUND_CARDS + tuple(new_cards), STATIONS + tuple(new_cards)

# (column, dtype) of the two tables; "category" columns get fixed categories where known.
def player_columns(rounds: int) -> tuple:
    """(column, dtype) of the players table of a setting played over ``rounds`` rounds."""
    return (
        ("game", "int64"), ("setting", "category"), ("players", "int8"), ("seat", "int8"),
        ("bandit_index", "int8"), ("bandit", "category"), ("policy", "category"),
        ("order", "int8"), ("purse", "int32"), ("jewel", "int32"), ("strongbox", "int32"),
        ("ransom", "int32"), ("loot", "int32"), ("shots", "int8"), ("bullets_received", "int8"),
        ("neutral_received", "int8"), ("gunslinger", "bool"), ("bonus", "int32"),
        ("score", "int32"), ("team_score", "int32"), ("rank", "int8"), ("win", "bool"),
        ("shared_win", "bool"), ("moves", "int8"), ("floor_changes", "int8"), ("fires", "int8"),
        ("robberies", "int8"), ("punches", "int8"), ("marshal_moves", "int8"), ("draws", "int8"),
        ("fizzled", "int8"),
    ) + tuple((f"score_after_{r + 1}", "int32") for r in range(rounds)) + (
        ("win_share", "float64"),
    )



def game_columns(rounds: int) -> tuple:
    """(column, dtype) of the games table of a setting played over ``rounds`` rounds."""
    return (
        (("game", "int64"), ("setting", "category"), ("players", "int8"), ("first_player", "int8"))
        + tuple((f"round_{r + 1}", "category") for r in range(rounds - 1))
        + (("station", "category"), ("cars", "str"), ("n_winners", "int8"),
           ("n_gunslingers", "int8"), ("gunslinger_changed_winner", "bool"),
           ("neutral_left", "int8"))
    )


@dataclass(frozen=True)
class Results:
    """The tables of one or more settings' games (see the module docstring), and the manifest
    of the run that made them (None for results made up in memory)."""

    players: pd.DataFrame
    games: pd.DataFrame
    settings: pd.DataFrame
    manifest: dict | None = None
