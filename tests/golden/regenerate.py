"""Regenerate the golden traces.  Only do this on purpose, when a change of game behaviour is
intended, and bump ``coltsim.constants.RULES_VERSION`` in the same commit:

    python tests/golden/regenerate.py
"""
from pathlib import Path

from coltsim.setting import make_setting
from coltsim.traces.trace import trace_game, write_trace

HERE = Path(__file__).parent

# file name -> (setting, seed, game index): every player count, fixed line-ups, different seeds.
GOLDEN = {
    "p3_seed1.jsonl": (make_setting(3, lineup="cheyenne,tuco,django"), 1, 0),
    "p4_seed7.jsonl": (make_setting(4, lineup="ghost,belle,tuco,doc"), 7, 0),
    "p5_seed2.jsonl": (make_setting(5, lineup="belle,django,doc,ghost,cheyenne"), 2, 3),
    "p6_seed9.jsonl": (make_setting(6, lineup="doc,ghost,belle,cheyenne,tuco,django"), 9, 0),
    # The variants: the advanced rules, and the 2-player game (two bandits per player).
    "p4_advanced_seed5.jsonl": (make_setting(4, lineup="tuco,doc,belle,ghost",
                                             rules={"advanced": True}), 5, 0),
    "p2_seed4.jsonl": (make_setting(2, lineup="ghost,doc,tuco,belle"), 4, 0),
}


def main():
    for name, (setting, seed, game_index) in GOLDEN.items():
        with open(HERE / name, "w") as f:
            write_trace(trace_game(setting, seed, game_index), f)


if __name__ == "__main__":
    main()
