"""Check a game trace against TRACE.md: fields and types of every line, a legal state on every
line, and each state explained by the one before it and the step between them.

    problems = check_trace(lines)      # [] when the trace is consistent

The replay is independent of the engine: it re-applies each action's reported parameters to the
previous state and compares, so a user can check a trace coltsim wrote (or one they edited).
"""
from __future__ import annotations

import copy

from .. import constants as K

_FIELDS = {
    "setup": {"rules_version": str, "coltsim_version": str, "seed": int, "game_index": int,
              "options": dict, "players": int, "bandits": list, "teams": list, "policies": list,
              "cars": list, "round_cards": list, "station": str, "first_player": int,
              "loot": list, "state": dict},
    "round": {"round": int, "card": str, "turns": list, "first_player": int, "hands": list,
              "deck_sizes": list},
    "plan": {"round": int, "turn": int, "player": int, "choice": str},
    "action": {"round": int, "index": int, "player": int, "bandit": int, "card": str,
               "params": dict, "effect": bool, "marshal_hits": list, "neutral_given": list,
               "state": dict},
    "event": {"round": int, "name": str, "params": dict, "marshal_hits": list,
              "neutral_given": list, "state": dict},
    "end": {"scores": list, "teams": list, "winners": list},
}
_PARAMS = {"move": {"to_car"}, "floor": set(), "fire": {"target", "pushed_to"}, "rob": {"token"},
           "punch": {"target", "dropped", "taken", "to_car"}, "marshal": {"to_car"}}
_BANDIT_FIELDS = ("car", "level", "loot", "bullets_left", "bullets_received", "neutral_received")


class _Checker:
    def __init__(self, lines):
        self.lines = lines
        self.problems: list[str] = []

    def fail(self, i: int, text: str) -> None:
        self.problems.append(f"line {i + 1}: {text}")

    # --- shape --------------------------------------------------------------------------------
    def fields(self, i, line) -> bool:
        kind = line.get("type")
        if kind not in _FIELDS and kind != "discard":
            self.fail(i, f"unknown type {kind!r}")
            return False
        ok = True
        for name, typ in _FIELDS.get(kind, {}).items():
            if name not in line:
                self.fail(i, f"{kind} line has no {name!r}")
                ok = False
            elif not isinstance(line[name], typ) or (typ is int and isinstance(line[name], bool)):
                self.fail(i, f"{kind}.{name} should be {typ.__name__}, got {line[name]!r}")
                ok = False
        return ok

    def state(self, i, s) -> None:
        """A legal state: every token in exactly one place, bandits on the train."""
        seen = {}
        places = [("box", t) for t in s["box"]]
        places += [(f"spot {k}", t) for k, ts in s["spots"].items() for t in ts]
        places += [(f"bandit {b}", t) for b, x in enumerate(s["bandits"]) for t in x["loot"]]
        for where, t in places:
            if t in seen:
                self.fail(i, f"token {t} is both in {seen[t]} and in {where}")
            seen[t] = where
        missing = set(self.loot) - set(seen)
        if missing:
            self.fail(i, f"tokens nowhere: {sorted(missing)}")
        expected_spots = {f"{c}:{lv}" for c in range(self.n_cars) for lv in K.LEVEL_NAMES}
        if set(s["spots"]) != expected_spots:
            self.fail(i, f"spots should be {sorted(expected_spots)}")
        if not 0 <= s["marshal"] < self.n_cars:
            self.fail(i, f"the Marshal is off the train (car {s['marshal']})")
        for b, x in enumerate(s["bandits"]):
            if set(x) != set(_BANDIT_FIELDS):
                self.fail(i, f"bandit {b} fields {sorted(x)}")
                continue
            if not 0 <= x["car"] < self.n_cars or x["level"] not in K.LEVEL_NAMES:
                self.fail(i, f"bandit {b} is off the train: {x['car']} {x['level']}")
            if x["car"] == s["marshal"] and x["level"] == "inside":
                self.fail(i, f"bandit {b} is inside the Marshal's car")
            if not 0 <= x["bullets_left"] <= K.BULLETS_PER_BANDIT:
                self.fail(i, f"bandit {b} has {x['bullets_left']} bullets left")

    # --- replay ---------------------------------------------------------------------------------
    def hits(self, i, line, prev, expect) -> None:
        """Apply the Marshal rule's hits and the neutral bullets given, as reported."""
        for b in line["marshal_hits"]:
            x = expect["bandits"][b]
            if x["car"] != expect["marshal"]:
                self.fail(i, f"bandit {b} sent to the roof is not in the Marshal's car")
            x["level"] = "roof"
        for b in line["neutral_given"]:
            expect["bandits"][b]["neutral_received"] += 1
        if expect["neutral_left"] is not None:
            expect["neutral_left"] = line["state"]["neutral_left"]
            if not 0 <= line["state"]["neutral_left"] <= prev["neutral_left"] - len(line["neutral_given"]):
                self.fail(i, "neutral bullets left do not match those given")

    def move_token(self, expect, token, src: list, dst: list, i) -> None:
        if token not in src:
            self.fail(i, f"token {token} is not where the step takes it from")
            return
        src.remove(token)
        dst.append(token)

    def action(self, i, line, prev) -> dict:
        expect = copy.deepcopy(prev)
        card, p, b = line["card"], line["params"], line["bandit"]
        if set(p) != _PARAMS.get(card, set()):
            self.fail(i, f"{card} params should be {sorted(_PARAMS.get(card, ()))}, got {sorted(p)}")
            return line["state"]
        me = expect["bandits"][b]
        spot = f"{me['car']}:{me['level']}"
        if card == "move":
            me["car"] = p["to_car"]
        elif card == "floor":
            me["level"] = "roof" if me["level"] == "inside" else "inside"
        elif card == "marshal":
            if abs(p["to_car"] - expect["marshal"]) != 1:
                self.fail(i, "the Marshal moves one car")
            expect["marshal"] = p["to_car"]
        elif card == "fire" and p["target"] is not None:
            if me["bullets_left"] > 0:
                me["bullets_left"] -= 1
                expect["bandits"][p["target"]]["bullets_received"] += 1
            if p["pushed_to"] is not None:
                expect["bandits"][p["target"]]["car"] = p["pushed_to"]
        elif card == "rob" and p["token"] is not None:
            self.move_token(expect, p["token"], expect["spots"][spot], me["loot"], i)
        elif card == "punch" and p["target"] is not None:
            target = expect["bandits"][p["target"]]
            if f"{target['car']}:{target['level']}" != spot:
                self.fail(i, "punch target is not on the puncher's spot")
            if p["dropped"] is not None:
                dst = me["loot"] if p["taken"] else expect["spots"][spot]
                self.move_token(expect, p["dropped"], target["loot"], dst, i)
            target["car"] = p["to_car"]
        self.hits(i, line, prev, expect)
        self.compare(i, expect, line["state"])
        return line["state"]

    def compare(self, i, expect, got) -> None:
        norm = lambda s: {**s, "spots": {k: sorted(v) for k, v in s["spots"].items()},  # noqa: E731
                          "box": sorted(s["box"]),
                          "bandits": [{**x, "loot": sorted(x["loot"])} for x in s["bandits"]]}
        e, g = norm(expect), norm(got)
        for key in ("marshal", "neutral_left", "spots", "box"):
            if e[key] != g[key]:
                self.fail(i, f"state.{key} does not follow from the step: expected {e[key]}, got {g[key]}")
        for b, (x, y) in enumerate(zip(e["bandits"], g["bandits"])):
            if x != y:
                self.fail(i, f"bandit {b} does not follow from the step: expected {x}, got {y}")

    def event(self, i, line, prev) -> dict:
        """Events move many things; check what every event keeps unchanged."""
        got = line["state"]
        for b, (x, y) in enumerate(zip(prev["bandits"], got["bandits"])):
            if x["bullets_left"] != y["bullets_left"] or x["bullets_received"] != y["bullets_received"]:
                self.fail(i, f"event {line['name']} changed bandit {b}'s bandit bullets")
            if y["neutral_received"] - x["neutral_received"] != line["neutral_given"].count(b):
                self.fail(i, f"bandit {b}'s neutral bullets do not match neutral_given")
        return got

    # --- the whole trace ------------------------------------------------------------------------
    def run(self) -> list[str]:
        if not self.lines or self.lines[0].get("type") != "setup":
            return ["line 1: the first line must be the setup line"]
        if self.lines[-1].get("type") != "end":
            self.problems.append("the last line must be the end line")
        setup = self.lines[0]
        if not self.fields(0, setup):
            return self.problems
        self.loot = {item["id"]: item for item in setup["loot"]}
        self.n_cars = len(setup["cars"])
        prev = setup["state"]
        self.state(0, prev)
        plays = 0
        next_index = 0
        for i, line in enumerate(self.lines[1:], start=1):
            if not self.fields(i, line):
                continue
            kind = line["type"]
            if kind == "round":
                plays, next_index = 0, 0
            elif kind == "plan" and line["choice"] == "play":
                plays += 1
            elif kind == "action":
                if line["index"] != next_index:
                    self.fail(i, f"action index {line['index']}, expected {next_index}")
                next_index = line["index"] + 1
                if next_index > plays:
                    self.fail(i, "more actions than cards played this round")
                self.state(i, line["state"])
                prev = self.action(i, line, prev)
            elif kind == "event":
                self.state(i, line["state"])
                prev = self.event(i, line, prev)
            elif kind == "end":
                self.end(i, line, prev)
        return self.problems

    def end(self, i, line, final) -> None:
        scores = line["scores"]
        for s in scores:
            carried = sum(self.loot[t]["value"] for t in final["bandits"][s["bandit"]]["loot"])
            if s["loot"] != carried or s["score"] != s["loot"] + s["bonus"]:
                self.fail(i, f"bandit {s['bandit']}'s score does not add up")
        best = max(t["score"] for t in line["teams"])
        for t in line["teams"]:
            if t["win"] and t["score"] != best:
                self.fail(i, f"team {t['team']} wins without the best score")
        if not line["winners"]:
            self.fail(i, "nobody won")


def check_trace(lines: list[dict]) -> list[str]:
    """Every inconsistency of a trace against TRACE.md and the rules, as readable lines."""
    return _Checker(lines).run()
