"""Traces: every line of many games checked against TRACE.md, golden traces, and the compiled
engine against the same code run as plain Python."""
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coltsim import RULES_VERSION
from coltsim.setting import make_setting
from coltsim.traces.trace import trace_game
from coltsim.traces.tracecheck import check_trace
from tests.golden.regenerate import GOLDEN

GOLDEN_DIR = Path(__file__).parent / "golden"


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_many_traced_games_are_consistent(players):
    for game_index in range(75):
        lines = trace_game(make_setting(players), seed=5, game_index=game_index)
        assert check_trace(lines) == [], (players, game_index)


def test_trace_lines_follow_the_format():
    lines = trace_game(make_setting(4), seed=7)
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "setup" and kinds[-1] == "end"
    assert kinds.count("round") == 5
    setup = lines[0]
    assert setup["rules_version"] == RULES_VERSION
    assert len(setup["round_cards"]) == 4 and setup["station"] in (
        "marshals_revenge", "pickpocketing", "hostage_taking")
    assert setup["cars"][0] == "loco" and len(setup["cars"]) == 5
    # Every loot token is listed, the second strongbox and the ransoms start in the box.
    ids = [item["id"] for item in setup["loot"]]
    assert ids == list(range(len(ids)))
    assert {1} | {item["id"] for item in setup["loot"] if item["kind"] == "ransom"} <= set(
        setup["state"]["box"])
    for line in lines:
        if line["type"] == "action":
            assert isinstance(line["marshal_hits"], list) and isinstance(line["neutral_given"], list)
            if line["card"] in ("move", "floor", "marshal"):
                assert line["effect"] is True


def _first(lines, kind, **match):
    return next(i for i, line in enumerate(lines)
                if line["type"] == kind and all(line.get(k) == v for k, v in match.items()))


def test_checker_reports_a_tampered_trace():
    lines = trace_game(make_setting(4), seed=7)
    bad = copy.deepcopy(lines)
    i = _first(bad, "action", card="move")
    bad[i]["state"]["bandits"][bad[i]["bandit"]]["car"] += 1  # moved one car too far
    assert any("does not follow" in p or "off the train" in p for p in check_trace(bad))
    bad = copy.deepcopy(lines)
    i = _first(bad, "action")
    token = bad[0]["state"]["box"][0]
    bad[i]["state"]["spots"]["0:roof"].append(token)  # a token in two places
    assert any(f"token {token} is both" in p for p in check_trace(bad))
    bad = copy.deepcopy(lines)
    del bad[_first(bad, "action")]["params"]
    assert any("has no 'params'" in p for p in check_trace(bad))


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_traces_are_unchanged(name):
    expected = (GOLDEN_DIR / name).read_text().splitlines()
    got = [json.dumps(line, separators=(", ", ": ")) for line in trace_game(*GOLDEN[name])]
    strip = lambda s: {k: v for k, v in json.loads(s).items() if k != "coltsim_version"}  # noqa: E731
    for i, (e, g) in enumerate(zip(expected, got)):
        assert strip(e) == strip(g), (
            f"{name} line {i + 1} changed: game behaviour differs. If intended, bump "
            f"RULES_VERSION and run python tests/golden/regenerate.py")
    assert len(expected) == len(got)


_NOJIT_SCRIPT = """
import sys
from coltsim import make_setting, trace_game
from coltsim.traces.trace import write_trace
for players, seed, index in [(3, 1, 0), (4, 7, 2), (5, 3, 1), (6, 8, 4), (4, 21, 9)]:
    write_trace(trace_game(make_setting(players), seed=seed, game_index=index), sys.stdout)
"""


def test_compiled_and_plain_python_engines_play_identical_games():
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    plain = subprocess.run([sys.executable, "-c", _NOJIT_SCRIPT], env=env, capture_output=True,
                           text=True, check=True).stdout
    compiled = subprocess.run([sys.executable, "-c", _NOJIT_SCRIPT], capture_output=True,
                              text=True, check=True).stdout
    assert plain.count("\n") > 500
    assert plain == compiled
