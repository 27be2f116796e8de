"""How the planner fares against greedy players under each rule set, and how it reacts to the
Gunslinger bonus: the figures of docs/strength-history.md, "The planner's weights".

    python scripts/planner_strength.py [--games N] [--seed S] [--bonus-games N]

One planner against greedy players (4 players unless said), seats rotated, the same deals for
every table (coltsim.tournament): its share of the victories per seat with a 95% interval over
deals, under the printed rules and each variant.  Then every seat planner (and every seat
greedy) under Gunslinger bonuses of $0, $500, $1,000 and $2,000 on the same deals: the bullets
each bandit fires per game (of its 6) and the loot it collects.
"""
from __future__ import annotations

import argparse

import coltsim

RULE_SETS = [("default rules", 4, {}), ("no Gunslinger bonus", 4, {"gunslinger_bonus": 0}),
             ("a $2,000 bonus", 4, {"gunslinger_bonus": 2000}),
             ("unlimited neutral bullets", 4, {"neutral_bullets": -1}),
             ("roof moves of one car", 4, {"roof_move_max": 1}),
             ("hands of 5 cards", 4, {"hand_size": 5}), ("draws of 2 cards", 4, {"draw_count": 2}),
             ("no abilities", 4, {"abilities": []}), ("advanced rules", 4, {"advanced": True}),
             ("3 players", 3, {}), ("5 players", 5, {}), ("6 players", 6, {})]
BONUSES = (0, 500, 1000, 2000)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="deals per table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bonus-games", type=int, default=3000,
                        help="games per bonus and policy")
    args = parser.parse_args(argv)
    print(f"one planner against greedy players, {args.games:,} deals, seats rotated "
          f"(seed {args.seed}):")
    for label, players, rules in RULE_SETS:
        table = coltsim.make_setting(players, policies=["planner"] + ["greedy"] * (players - 1),
                                     rules=rules, label=label)
        row = coltsim.tournament(table, games=args.games, seed=args.seed).set_index(
            "policy").loc["planner"]
        print(f"  {label:28s} {row.win_rate:.3f} ({row.ci_low:.3f} to {row.ci_high:.3f}), "
              f"fair share {row.fair_share:.3f}", flush=True)
    print(f"every seat one policy, {args.bonus_games:,} four-player games per bonus, the same "
          "deals: bullets fired per bandit (of 6) and loot collected")
    for policy in ("planner", "greedy"):
        for bonus in BONUSES:
            setting = coltsim.make_setting(4, policies=policy, rules={"gunslinger_bonus": bonus})
            players = coltsim.simulate(setting, args.bonus_games, seed=args.seed,
                                       progress=False).players
            print(f"  {policy:8s} bonus ${bonus:>5,}: {players['shots'].mean():.2f} bullets, "
                  f"${players['loot'].mean():,.0f} of loot", flush=True)


if __name__ == "__main__":
    main()
