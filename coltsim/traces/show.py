"""A readable rendering of a game trace: every step in words, the train drawn after it.

    coltsim show game.jsonl
"""
from __future__ import annotations

from .. import constants as K


def _initials(names: list[str]) -> list[str]:
    return [n[:2].capitalize() for n in names]


def draw_train(state: dict, cars: list[str], bandit_names: list[str], loot: dict) -> str:
    """The train as three text rows: roofs, insides, and the Marshal; loot as $-counts."""
    width = 13
    who = _initials(bandit_names)
    roofs, insides = [], []
    for car in range(len(cars)):
        for level, row in (("roof", roofs), ("inside", insides)):
            here = [who[b] for b, s in enumerate(state["bandits"])
                    if s["car"] == car and s["level"] == level]
            tokens = state["spots"][f"{car}:{level}"]
            kinds = [loot[t]["kind"] for t in tokens]
            goods = "".join(f"{kinds.count(k)}{k[0]}" for k in K.LOOT_NAMES if kinds.count(k))
            text = " ".join(here) + (f" [{goods}]" if goods else "")
            if level == "inside" and car == state["marshal"]:
                text = "M " + text
            row.append(text.strip()[:width].ljust(width))
    head = [f"{c}".center(width) for c in cars]
    sep = "+".join("-" * width for _ in cars)
    lines = ["|".join(head), sep, "|".join(roofs), "|".join(insides)]
    carried = []
    for b, s in enumerate(state["bandits"]):
        value = sum(loot[t]["value"] for t in s["loot"])
        carried.append(f"{who[b]} ${value} ({len(s['loot'])} tokens, {s['bullets_left']} bullets)")
    lines.append("  ".join(carried))
    return "\n".join(lines)


def render(lines: list[dict]) -> str:
    """The whole trace as text."""
    setup = lines[0]
    names = setup["bandits"]
    cars = setup["cars"]
    loot = {item["id"]: item for item in setup["loot"]}
    out = [f"Colt Express — seed {setup['seed']}, game {setup['game_index']}: "
           f"{setup['players']} players, {', '.join(names)}",
           f"Round cards: {', '.join(setup['round_cards'])}; station: {setup['station']}",
           "", draw_train(setup["state"], cars, names, loot)]

    def name(b):
        return "nobody" if b is None else names[b]

    for line in lines[1:]:
        kind = line["type"]
        if kind == "round":
            out += ["", f"=== Round {line['round']}: {line['card']} ({' '.join(line['turns'])}), "
                        f"First Player {line['first_player']} ==="]
            for p, hand in enumerate(line["hands"]):
                out.append(f"  player {p} holds {', '.join(hand)} ({line['deck_sizes'][p]} in deck)")
        elif kind == "plan":
            what = (f"plays {line['card']} face {line['face']}" if line["choice"] == "play" else
                    f"draws {', '.join(line['drawn']) or 'nothing'}" if line["choice"] == "draw"
                    else "passes")
            out.append(f"  turn {line['turn'] + 1}: player {line['player']} {what}")
        elif kind == "discard":
            out.append(f"  player {line['player']} discards {line['card']} ({line['when']} of Schemin')")
        elif kind in ("action", "event"):
            if kind == "action":
                params = ", ".join(f"{k}={name(v) if k == 'target' else v}"
                                   for k, v in line["params"].items())
                out.append(f"\n{names[line['bandit']]}: {line['card']}"
                           f"{' (' + params + ')' if params else ''}"
                           f"{'' if line['effect'] else ' — no effect'}")
            else:
                out.append(f"\nEvent: {line['name']} {line['params'] or ''}")
            if line["marshal_hits"]:
                out.append("  Marshal sends to the roof: "
                           + ", ".join(names[b] for b in line["marshal_hits"]))
            if line["neutral_given"]:
                out.append("  neutral bullet for: " + ", ".join(names[b] for b in line["neutral_given"]))
            out.append(draw_train(line["state"], cars, names, loot))
        elif kind == "end":
            out.append("\n=== End ===")
            for s in line["scores"]:
                out.append(f"  {names[s['bandit']]}: loot ${s['loot']}"
                           f"{' + Gunslinger $' + str(s['bonus']) if s['gunslinger'] else ''}"
                           f" = ${s['score']}, rank {s['rank']}{' WINS' if s['win'] else ''}")
    return "\n".join(out)
