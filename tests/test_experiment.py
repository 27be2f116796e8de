"""Experiment files: expansion into settings with stable ids, and one clear error per mistake."""
import dataclasses

import pytest

from coltsim.experiment import (
    ANALYSES, ExperimentError, load_experiment, loads_experiment,
)
from coltsim.policies import DEFAULT
from coltsim.rules import Rules

GOOD = """
name = "whatif"
description = "Gunslinger bonus on and off"
seed = 7
games = 1000
analyses = ["balance", "compare"]

[rules]
neutral_bullets = 13

[sweep]
players = [3, 4]
lineups = ["random"]
policies = ["random"]

[sweep.rules]
gunslinger_bonus = [1000, 0]

[[settings]]
players = 2
lineup = ["ghost", "belle", "tuco", "doc"]
policies = ["random", "random"]
"""


def parse(text, source="experiments/x.toml"):
    return loads_experiment(text, source)


def error_of(text, source="experiments/x.toml") -> str:
    with pytest.raises(ExperimentError) as info:
        parse(text, source)
    message = str(info.value)
    assert "\n" not in message, "errors are one line"
    assert message.startswith(f"{source}: "), "errors name the file first"
    return message


def test_sweep_expands_every_combination_then_listed_settings():
    e = parse(GOOD)
    assert [(s.players, s.rules.gunslinger_bonus) for s in e.settings] == [
        (3, 1000), (3, 0), (4, 1000), (4, 0), (2, 1000)]
    assert e.name == "whatif" and e.seed == 7 and e.games == 1000
    assert e.analyses == ("balance", "compare") and e.correction == "holm"
    assert str(e.output) == "reports/whatif" and e.backend == "loky"
    two = e.settings[-1]
    assert two.lineup == ("ghost", "belle", "tuco", "doc")
    assert two.rules.advanced, "the 2-player game is played with the advanced rules"
    assert all(s.rules.neutral_bullets == 13 for s in e.settings)
    assert e.settings[0].policies == ("random",) * 3


def test_defaults_when_keys_are_left_out():
    e = parse('name = "tiny"\ngames = 10\n[sweep]\nplayers = 4\n')
    assert e.analyses == ANALYSES and e.seed == 0 and e.correction == "holm"
    (s,) = e.settings
    assert s.lineup == "random" and s.policies == (DEFAULT,) * 4 and s.rules == Rules()


def test_setting_ids_are_stable_and_depend_only_on_what_is_played():
    a = {s.id for s in parse(GOOD).settings}
    reordered = GOOD.replace("players = [3, 4]", "players = [4, 3]").replace(
        "[1000, 0]", "[0, 1000]").replace('seed = 7', 'seed = 8').replace(
        'games = 1000', 'games = 5')
    assert {s.id for s in parse(reordered).settings} == a
    assert len(a) == 5
    other = GOOD.replace("neutral_bullets = 13", "neutral_bullets = 12")
    assert {s.id for s in parse(other).settings}.isdisjoint(a)
    assert all(s.id.startswith(f"p{s.players}-random-") for s in parse(GOOD).settings)


def test_settings_frame_has_the_results_schema():
    df = parse(GOOD).settings_frame()
    rule_names = [f.name for f in dataclasses.fields(Rules)]
    assert list(df.columns) == ["setting", "players", "lineup", "policies"] + rule_names
    assert df["lineup"].iloc[-1] == "ghost,belle,tuco,doc"
    assert df["policies"].iloc[0] == "random,random,random"
    assert list(df["gunslinger_bonus"]) == [1000, 0, 1000, 0, 1000]


def test_simulate_kwargs_name_the_setting():
    s = parse(GOOD).settings[-1]
    kw = s.simulate_kwargs()
    assert kw["setting_id"] == s.id and kw["players"] == 2
    assert kw["bandits"] == "ghost,belle,tuco,doc" and kw["params"] is None


def test_user_policies_and_all_lineups_are_accepted():
    e = parse('name = "u"\ngames = 1\n[sweep]\nplayers = [3]\nlineups = ["all"]\n'
              'policies = [["mypkg.bots:cautious", "random", "random"]]\n')
    (s,) = e.settings
    assert s.lineup == "all" and s.policies[0] == "mypkg.bots:cautious"


def test_overrides_from_the_command_line_are_validated():
    e = parse(GOOD).with_overrides(games=5, output="/tmp/elsewhere", n_jobs=2)
    assert e.games == 5 and str(e.output) == "/tmp/elsewhere" and e.n_jobs == 2
    with pytest.raises(ExperimentError, match="games"):
        parse(GOOD).with_overrides(games=0)


def test_load_experiment_reads_a_file_and_keeps_its_text(tmp_path):
    path = tmp_path / "whatif.toml"
    path.write_text(GOOD)
    e = load_experiment(path)
    assert e.source == str(path) and e.text == GOOD
    with pytest.raises(ExperimentError, match="cannot read"):
        load_experiment(tmp_path / "missing.toml")


def test_experiment_error_is_a_value_error():
    assert issubclass(ExperimentError, ValueError)


# --- each class of mistake ---------------------------------------------------------------------
@pytest.mark.parametrize("old, new, key, words", [
    # unknown keys, at every level
    ('seed = 7', 'seed = 7\nsed = 3', "sed", ["unknown key", "allowed:", "seed"]),
    ('[sweep]', '[sweep]\nplayer = [3]', "sweep.player", ["unknown key", "players"]),
    ('gunslinger_bonus = [1000, 0]', 'gunslinger_bonnus = [1000, 0]',
     "sweep.rules.gunslinger_bonnus", ["unknown key", "gunslinger_bonus"]),
    ('neutral_bullets = 13', 'neutral_bulets = 13', "rules.neutral_bulets", ["allowed:"]),
    ('policies = ["random", "random"]', 'policies = ["random", "random"]\ncolour = "red"',
     "settings[0].colour", ["unknown key"]),
    # bad values
    ('games = 1000', 'games = 0', "games", ["allowed: 1 to"]),
    ('games = 1000', 'games = "many"', "games", ["must be an integer"]),
    ('seed = 7', 'seed = -1', "seed", ["allowed: 0 to"]),
    ('analyses = ["balance", "compare"]', 'analyses = ["balance", "luck"]', "analyses",
     ["unknown analysis 'luck'", "allowed: balance, seats, gunslinger, round_cards, compare"]),
    ('seed = 7', 'seed = 7\ncorrection = "bonferroni"', "correction", ["allowed: holm, bh"]),
    ('seed = 7', 'seed = 7\nbackend = "spark"', "backend", ["allowed: loky"]),
    ('seed = 7', 'seed = 7\nscheduler = "tcp://h:1"', "scheduler", ["backend = \"dask\""]),
    ('neutral_bullets = 13', 'neutral_bullets = -5', "rules.neutral_bullets", ["-1..1000"]),
    ('gunslinger_bonus = [1000, 0]', 'gunslinger_bonus = [1000, "lots"]',
     "sweep.rules.gunslinger_bonus", ["must be an integer"]),
    ('gunslinger_bonus = [1000, 0]', 'gunslinger_bonus = 1000',
     "sweep.rules.gunslinger_bonus", ["list of values"]),
    ('gunslinger_bonus = [1000, 0]', 'station = ["the_moon"]', "sweep.rules.station",
     ["unknown station", "allowed:", "pickpocketing"]),
    ('name = "whatif"', 'name = "what if?"', "name", ["not a valid name"]),
    # impossible combinations
    ('players = [3, 4]', 'players = [3, 7]', "sweep.players",
     ["7 is not a player count", "allowed: 2, 3, 4, 5, 6"]),
    ('"ghost", "belle", "tuco", "doc"', '"ghost", "belle", "tuco", "ghost"',
     "settings[0].lineup", ["'ghost' is listed twice"]),
    ('"ghost", "belle", "tuco", "doc"', '"ghost", "belle", "tuco", "zorro"',
     "settings[0].lineup", ["unknown bandit 'zorro'", "allowed:", "cheyenne"]),
    ('"ghost", "belle", "tuco", "doc"', '"ghost", "belle", "tuco"', "settings[0].lineup",
     ["must name 4 bandits for 2 players"]),
    ('policies = ["random"]', 'policies = ["randm"]', "sweep.policies",
     ["unknown policy 'randm'", "allowed:", "random", "package.module:function"]),
    ('policies = ["random", "random"]', 'policies = ["random", "random", "random"]',
     "settings[0].policies", ["3 policies for 2 players"]),
    ('neutral_bullets = 13', 'cars = ["A", "B", "C"]', "rules.cars",
     ["must list 4 cars for 4 players"]),
    ('neutral_bullets = 13', 'round_cards = ["braking"]', "rules.round_cards",
     ["rounds - 1 = 4"]),
    ('neutral_bullets = 13', 'neutral_bullets = 200', "rules.neutral_bullets",
     ["at most 127"]),
    ('gunslinger_bonus = [1000, 0]', 'gunslinger_bonus = [1000, 1000]', "sweep",
     ["the same setting as sweep"]),
    ('[rules]', '[policy_params.nobody]\nx = 1\n[rules]', "policy_params.nobody",
     ["unknown policy"]),
])
def test_each_mistake_gives_one_clear_line(old, new, key, words):
    assert old in GOOD
    message = error_of(GOOD.replace(old, new, 1))
    assert f": {key}: " in message, message
    for w in words:
        assert w in message, message


def test_structural_mistakes():
    assert "not valid TOML" in error_of('name = "x"\ngames = \n')
    assert ": name: missing" in error_of("games = 3\n[sweep]\nplayers = 4\n")
    assert ": games: missing" in error_of('name = "x"\n[sweep]\nplayers = 4\n')
    assert ": sweep: no settings" in error_of('name = "x"\ngames = 3\n')
    assert ": sweep.players: missing" in error_of('name = "x"\ngames = 3\n[sweep]\n'
                                                  'lineups = ["random"]\n')
    assert "also set in [rules]" in error_of(GOOD.replace("neutral_bullets = 13",
                                                          "gunslinger_bonus = 500"))
    one = 'name = "x"\ngames = 3\nanalyses = ["compare"]\n[sweep]\nplayers = 4\n'
    assert "needs at least two settings" in error_of(one)
