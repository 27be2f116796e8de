"""Traces: every line of many games checked against docs/TRACE.md, golden traces, and the compiled
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
from tests.golden.regenerate import GOLDEN, regenerate

GOLDEN_DIR = Path(__file__).parent / "golden"
ADVANCED = {"advanced": True}
# Every player count, with and without the advanced rules (always on with 2 players).
VARIANTS = [(2, True)] + [(players, advanced) for players in (3, 4, 5, 6)
                          for advanced in (False, True)]


def traced_games_are_consistent(players, advanced, seed, games):
    for game_index in range(games):
        lines = trace_game(make_setting(players, rules={"advanced": advanced}), seed=seed,
                           game_index=game_index)
        assert check_trace(lines) == [], (players, game_index)


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_many_traced_games_are_consistent(players, advanced):
    traced_games_are_consistent(players, advanced, seed=5, games=20)


@pytest.mark.slow
@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_more_traced_games_are_consistent(players, advanced):
    traced_games_are_consistent(players, advanced, seed=6, games=80)


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
        if line["type"] == "round":
            assert [len(h) for h in line["hand_bandits"]] == [len(h) for h in line["hands"]]
        if line["type"] == "plan" and line["choice"] == "draw":
            assert len(line["drawn_bandits"]) == len(line["drawn"])
        if line["type"] == "action":
            assert isinstance(line["marshal_hits"], list) and isinstance(line["neutral_given"], list)
            if line["card"] in ("move", "floor", "marshal"):
                assert line["effect"] is True


@pytest.mark.parametrize("players, advanced", VARIANTS)
def test_every_token_in_a_state_is_listed_in_setup(players, advanced):
    """One ransom per bandit in the game: the box holds no other bandit's ransom."""
    lines = trace_game(make_setting(players, rules={"advanced": advanced}), seed=2)
    listed = {item["id"] for item in lines[0]["loot"]}
    assert sum(item["kind"] == "ransom" for item in lines[0]["loot"]) == len(lines[0]["bandits"])
    for line in lines:
        if "state" in line:
            s = line["state"]
            held = s["box"] + [t for ts in s["spots"].values() for t in ts] + [
                t for x in s["bandits"] for t in x["loot"]]
            assert sorted(held) == sorted(listed)


def test_card_colours_name_bandits_and_shooters():
    """Action cards carry their bandit, bullet cards their shooter, -1 for neutral bullets."""
    colours = {"action": set(), "bullet": set()}
    for game_index in range(6):
        lines = trace_game(make_setting(4, rules=ADVANCED), seed=5, game_index=game_index)
        for line in lines:
            cards = []
            if line["type"] == "round":
                cards = [c for h, b in zip(line["hands"], line["hand_bandits"]) for c in zip(h, b)]
            elif line["type"] == "plan" and line["choice"] == "draw":
                cards = list(zip(line["drawn"], line["drawn_bandits"]))
            elif line["type"] == "discard":
                cards = [(line["card"], line["bandit"])]
            for name, bandit in cards:
                colours["bullet" if name == "bullet" else "action"].add(bandit)
    assert colours["action"] == {0, 1, 2, 3}
    assert colours["bullet"] == {-1, 0, 1, 2, 3}


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


def test_checker_reports_a_token_that_setup_does_not_list():
    lines = trace_game(make_setting(4), seed=7)
    unlisted = len(lines[0]["loot"])  # the ransom of a fifth bandit
    bad = copy.deepcopy(lines)
    bad[_first(bad, "action")]["state"]["box"].append(unlisted)
    assert any(f"token {unlisted} in box is not listed" in p for p in check_trace(bad))
    bad = copy.deepcopy(lines)
    i = _first(bad, "action")
    bad[i]["state"]["bandits"][0]["loot"].append(unlisted)
    assert any(f"token {unlisted} in bandit 0 is not listed" in p for p in check_trace(bad))
    bad = copy.deepcopy(lines)
    i = next(i for i, x in enumerate(bad) if x["type"] == "action" and x["card"] == "rob"
             and x["params"]["token"] is not None)
    bad[i]["params"]["token"] = unlisted
    assert any(f"token {unlisted} in rob params is not listed" in p for p in check_trace(bad))


def _tampered(lines, i, path, value):
    bad = copy.deepcopy(lines)
    where = bad[i]
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    return check_trace(bad)


def test_checker_follows_every_players_cards():
    lines = trace_game(make_setting(4, rules=ADVANCED), seed=5)
    assert check_trace(lines) == []
    # A bullet card in a hand, said to come from the player's own bandit (who never shoots
    # itself), and a second bullet card given another shooter.
    tampered = 0
    for i, line in enumerate(lines):
        if line["type"] != "round":
            continue
        for p, hand in enumerate(line["hand_bandits"]):
            for j, shooter in enumerate(hand):
                if line["hands"][p][j] == "bullet" and tampered < 2:
                    stranger = p if tampered == 0 else (-1 if shooter >= 0 else (p + 1) % 4)
                    problems = _tampered(lines, i, ("hand_bandits", p, j), stranger)
                    assert any(f"player {p}" in m for m in problems), problems
                    tampered += 1
    assert tampered == 2
    # A card played of another player's bandit; an action that is not the pile's card.
    i = _first(lines, "plan", choice="play")
    other = (lines[i]["bandit"] + 1) % 4
    assert any("cannot play" in m for m in _tampered(lines, i, ("bandit",), other))
    i = _first(lines, "action")
    assert any("card 0 of the pile is" in m for m in _tampered(
        lines, i, ("card",), "floor" if lines[i]["card"] != "floor" else "move"))
    # The engine's internal code for the Marshal's bullets must not appear as a shooter.
    i = next(i for i, x in enumerate(lines) if x["type"] == "discard" and x["card"] == "bullet")
    assert any("not in its hand" in m for m in _tampered(lines, i, ("bandit",), 7))
    # A card drawn that the deck did not hold: a bandit's bullet before it was ever fired.
    i = next(i for i, x in enumerate(lines) if x["type"] == "plan" and x["choice"] == "draw"
             and "bullet" not in x["drawn"] and x["drawn"])
    bad = copy.deepcopy(lines)
    bad[i]["drawn"][0], bad[i]["drawn_bandits"][0] = "bullet", bad[i]["player"]
    assert any("not in its deck" in m for m in check_trace(bad))
    # A pass by a player who could draw; a deck size off by one; a card face down off a tunnel.
    bad = copy.deepcopy(lines)
    for key in ("drawn", "drawn_bandits"):
        del bad[i][key]
    bad[i]["choice"] = "pass"
    assert any("passes but could play or draw" in m for m in check_trace(bad))
    i = _first(lines, "round")
    assert any("player 0's deck holds" in m for m in _tampered(
        lines, i, ("deck_sizes", 0), lines[i]["deck_sizes"][0] + 1))
    i = next(i for i, x in enumerate(lines) if x["type"] == "plan" and x["turn"] > 0
             and x.get("face") == "up")
    assert any("face down" in m for m in _tampered(lines, i, ("face",), "down"))


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


def test_golden_traces_are_regenerated_only_for_new_rules(tmp_path):
    name = next(iter(GOLDEN))
    same_rules = (GOLDEN_DIR / name).read_text()
    (tmp_path / name).write_text(same_rules)
    assert regenerate(tmp_path) is None  # refused: nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    old_rules = same_rules.replace(f'"rules_version": "{RULES_VERSION}"', '"rules_version": "0"', 1)
    (tmp_path / name).write_text(old_rules)
    changed = regenerate(tmp_path)
    assert changed[name] == {"setup.rules_version": 1}  # the only difference reported
    assert (tmp_path / name).read_text() == same_rules
    assert sorted(changed) == sorted(GOLDEN)
    assert regenerate(tmp_path, force=True) == {}  # forced: same games, nothing changed


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
