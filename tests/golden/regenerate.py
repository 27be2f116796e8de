"""Regenerate the golden traces, and say what changed in each.

The golden traces pin the games: a change of game behaviour is a change of rules, so it comes
with a new ``coltsim.constants.RULES_VERSION``, and only then does this script overwrite them:

    python tests/golden/regenerate.py            # after bumping RULES_VERSION
    python tests/golden/regenerate.py --force    # same rules, new trace fields: say in the
                                                 # commit which games changed and why

It refuses (exit status 1) while any golden file records the current RULES_VERSION, unless
``--force``.  It prints each file's changed fields, so that a format change can be told from a
change of games.
"""
from __future__ import annotations

import argparse
import io
import json
import sys
from collections import Counter
from pathlib import Path

from coltsim.constants import RULES_VERSION
from coltsim.setting import make_setting
from coltsim.traces.trace import trace_game, write_trace

HERE = Path(__file__).parent

# file name -> (setting, seed, game index): every player count, fixed line-ups, different seeds;
# played by random policies (what the rules allow, not how a policy plays).
GOLDEN = {
    "p3_seed1.jsonl": (make_setting(3, lineup="cheyenne,tuco,django", policies="random"), 1, 0),
    "p4_seed7.jsonl": (make_setting(4, lineup="ghost,belle,tuco,doc", policies="random"), 7, 0),
    "p5_seed2.jsonl": (make_setting(5, lineup="belle,django,doc,ghost,cheyenne",
                                    policies="random"), 2, 3),
    "p6_seed9.jsonl": (make_setting(6, lineup="doc,ghost,belle,cheyenne,tuco,django",
                                    policies="random"), 9, 0),
    # The variants: the advanced rules, and the 2-player game (two bandits per player).
    "p4_advanced_seed5.jsonl": (make_setting(4, lineup="tuco,doc,belle,ghost", policies="random",
                                             rules={"advanced": True}), 5, 0),
    "p2_seed4.jsonl": (make_setting(2, lineup="ghost,doc,tuco,belle", policies="random"), 4, 0),
}


def recorded_version(path: Path) -> str | None:
    """The RULES_VERSION in a golden file's setup line (None if there is no such file)."""
    if not path.exists():
        return None
    with open(path) as f:
        return json.loads(f.readline())["rules_version"]


def changed_fields(old: list[dict], new: list[dict]) -> Counter:
    """How many lines changed each field (``round.hand_bandits``, ``state.box``, ...), or, when
    the lines are not of the same types in the same order, just that the games differ."""
    if [line["type"] for line in old] != [line["type"] for line in new]:
        return Counter({"the games differ: line types": max(len(old), len(new))})
    fields: Counter = Counter()
    for a, b in zip(old, new):
        for key in a.keys() | b.keys():
            if key == "state":
                fields.update(f"state.{k}" for k in a[key].keys() | b[key].keys()
                              if a[key].get(k) != b[key].get(k))
            elif key != "coltsim_version" and a.get(key) != b.get(key):
                fields[f"{a['type']}.{key}"] += 1
    return fields


def regenerate(directory: Path = HERE, force: bool = False) -> dict[str, Counter] | None:
    """Rewrite the golden traces in ``directory``; returns each changed file's changed fields,
    or None (nothing written) when a file records the current RULES_VERSION and not ``force``."""
    if not force and any(recorded_version(directory / name) == RULES_VERSION for name in GOLDEN):
        return None
    changed = {}
    for name, (setting, seed, game_index) in GOLDEN.items():
        path = directory / name
        out = io.StringIO()
        write_trace(trace_game(setting, seed, game_index), out)
        if path.exists() and path.read_text() == out.getvalue():
            continue
        new = [json.loads(x) for x in out.getvalue().splitlines()]
        changed[name] = Counter() if not path.exists() else changed_fields(
            [json.loads(x) for x in path.read_text().splitlines()], new)
        path.write_text(out.getvalue())
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true",
                        help="overwrite although RULES_VERSION did not change")
    args = parser.parse_args(argv)
    changed = regenerate(force=args.force)
    if changed is None:
        print(f"golden traces already record RULES_VERSION {RULES_VERSION}: the games must not "
              "change without a new RULES_VERSION (use --force for a trace format change)",
              file=sys.stderr)
        return 1
    for name in GOLDEN:
        fields = changed.get(name)
        what = "unchanged" if fields is None else ", ".join(
            f"{field} ({n} lines)" for field, n in sorted(fields.items())) or "new file"
        print(f"{name}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
