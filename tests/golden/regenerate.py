"""Regenerate the golden traces.  Only do this on purpose, when a change of game behaviour is
intended, and bump ``coltsim.constants.RULES_VERSION`` in the same commit:

    python tests/golden/regenerate.py
"""
from pathlib import Path

from coltsim.trace import trace_game, write_trace

HERE = Path(__file__).parent

# (file name, trace_game arguments): every player count, fixed line-ups, different seeds; played
# by random policies (what the rules allow, not how a policy plays).
GOLDEN = {
    "p3_seed1.jsonl": dict(players=3, seed=1, bandits="cheyenne,tuco,django"),
    "p4_seed7.jsonl": dict(players=4, seed=7, bandits="ghost,belle,tuco,doc"),
    "p5_seed2.jsonl": dict(players=5, seed=2, game_index=3, bandits="belle,django,doc,ghost,cheyenne"),
    "p6_seed9.jsonl": dict(players=6, seed=9, bandits="doc,ghost,belle,cheyenne,tuco,django"),
    # The variants: the advanced rules, and the 2-player game (two bandits per player).
    "p4_advanced_seed5.jsonl": dict(players=4, seed=5, bandits="tuco,doc,belle,ghost",
                                    rules={"advanced": True}),
    "p2_seed4.jsonl": dict(players=2, seed=4, bandits="ghost,doc,tuco,belle"),
}
for _kwargs in GOLDEN.values():
    _kwargs["policies"] = "random"


def main():
    for name, kwargs in GOLDEN.items():
        with open(HERE / name, "w") as f:
            write_trace(trace_game(**kwargs), f)


if __name__ == "__main__":
    main()
