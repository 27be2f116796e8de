"""Experiment files: expansion into settings with stable ids, and one clear error per mistake."""
import pytest

from coltsim.rules import Rules
from coltsim.setting import FieldError, make_setting
from coltsim.study.experiment import (
    ANALYSES, ExperimentError, load_experiment, loads_experiment,
)

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
lineup = ["random"]
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
    assert s.lineup == "random" and s.policies == ("random",) * 4 and s.rules == Rules()


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


def test_settings_are_the_setting_model():
    """An experiment's settings are what make_setting builds from the same values: one model,
    one id scheme, whether a setting comes from a file, a tournament or the Python API."""
    e = parse(GOOD)
    assert e.settings[-1] == make_setting(2, ["ghost", "belle", "tuco", "doc"], "random",
                                          {"neutral_bullets": 13})
    assert e.settings[0] == make_setting(3, "random", "random",
                                         {"neutral_bullets": 13, "gunslinger_bonus": 1000})
    labelled = parse(GOOD.replace('players = 2\n', 'players = 2\nlabel = "two players"\n'))
    assert labelled.settings[-1].label == "two players"
    assert labelled.settings[-1].id == e.settings[-1].id  # a label is not part of the id


def test_policy_params_reach_the_settings_that_play_the_policy():
    e = parse('name = "p"\ngames = 1\n[sweep]\nplayers = 4\n'
              'policies = ["weighted", "random"]\n[policy_params.weighted]\nfire = 0.5\n')
    weighted, plain = e.settings
    assert weighted.policy_params() == {"weighted": {"fire": 0.5}}
    assert plain.policy_params() == {}
    assert weighted.param_rows()[0][2] == 0.5  # fire is the third weight


def test_user_policies_and_all_lineups_are_accepted():
    e = parse('name = "u"\ngames = 1\n[sweep]\nplayers = [3]\nlineup = ["all"]\n'
              'policies = [["mypkg.bots:cautious", "random", "random"]]\n')
    (s,) = e.settings
    assert s.lineup == "all" and s.policies[0] == "mypkg.bots:cautious"


def test_overrides_from_the_command_line_are_validated():
    e = parse(GOOD).with_overrides(games=5, output="/tmp/elsewhere", workers=2)
    assert e.games == 5 and str(e.output) == "/tmp/elsewhere" and e.workers == 2
    with pytest.raises(ExperimentError, match="games"):
        parse(GOOD).with_overrides(games=0)
    with pytest.raises(ExperimentError, match="workers: must be a positive integer"):
        parse(GOOD).with_overrides(workers=-1)


def test_load_experiment_reads_a_file_and_keeps_its_text(tmp_path):
    path = tmp_path / "whatif.toml"
    path.write_text(GOOD)
    e = load_experiment(path)
    assert e.source == str(path) and e.text == GOOD
    with pytest.raises(ExperimentError, match="cannot read"):
        load_experiment(tmp_path / "missing.toml")


@pytest.mark.parametrize("fields, key", [
    ({"players": 7}, "settings[0].players"),
    ({"lineup": ["ghost", "zorro", "tuco", "doc"]}, "settings[0].lineup"),
    ({"policies": ["random", "clever"]}, "settings[0].policies"),
    ({"label": ""}, "settings[0].label"),
    ({"rules": {"rounds": 0}}, "settings[0].rules.rounds"),
])
def test_a_setting_mistake_is_the_setting_models_message_at_its_key(fields, key):
    """The experiment file does not validate settings itself: make_setting does, and the
    experiment names the key the bad value came from."""
    kwargs = {"players": 4, "policies": "random", **fields}
    with pytest.raises(FieldError) as model:
        make_setting(**kwargs)
    toml = "\n".join(f"{k} = {_toml(v)}" for k, v in kwargs.items())
    message = error_of(f'name = "x"\ngames = 3\n[[settings]]\n{toml}\n')
    assert message == f"experiments/x.toml: {key}: {model.value.problem}"


def _toml(value) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return f'"{value}"' if isinstance(value, str) else str(value)


def test_an_experiment_error_stops_the_command_line_with_one_line(tmp_path, capsys):
    from coltsim.cli import main

    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace('policies = ["random"]', 'policies = ["randm"]'))
    for command in (["run", str(bad)], ["tournament", str(bad)]):
        assert main(command) == 2
        err = capsys.readouterr().err.strip()
        assert err == (f"coltsim {command[0]}: error: {bad}: sweep.policies: unknown policy "
                       f"'randm'; allowed: random, greedy, weighted, rollout, aggressive, "
                       f"cautious, never_fires, never_moves_marshal, ismcts or "
                       f"\"package.module:function\"")


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
    ('games = 1000', 'games = 0', "games", ["must be an integer from 1 to"]),
    ('games = 1000', 'games = "many"', "games", ["must be an integer"]),
    ('seed = 7', 'seed = -1', "seed", ["must be an integer from 0 to"]),
    ('seed = 7', 'seed = 7\nworkers = -1', "workers", ["leave it out for every core"]),
    ('seed = 7', 'seed = 7\nn_jobs = 2', "n_jobs", ["renamed; write workers"]),
    ('lineup = ["random"]', 'lineups = ["random"]', "sweep.lineups",
     ["renamed; write lineup"]),
    ('analyses = ["balance", "compare"]', 'analyses = ["balance", "luck"]', "analyses",
     ["unknown analysis 'luck'", "allowed: balance, seats, gunslinger, round_cards, compare"]),
    ('seed = 7', 'seed = 7\ncorrection = "bonferroni"', "correction", ["allowed: holm, bh"]),
    ('seed = 7', 'seed = 7\nbackend = "spark"', "backend", ["allowed: loky"]),
    ('seed = 7', 'seed = 7\nscheduler = "tcp://h:1"', "scheduler",
     ["only used with backend 'dask'"]),
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
    ('lineup = ["random"]', 'lineup = [5]', "sweep.lineup", ["5 is not a line-up"]),
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
    ('[rules]', '[policy_params.random]\nx = 1\n[rules]', "policy_params.random",
     ["policy 'random' has no parameter 'x'"]),
    ('[rules]', '[policy_params.greedy]\n[rules]', "policy_params.greedy",
     ["no setting plays this policy"]),
    ('neutral_bullets = 13', 'abilities = 5', "rules.abilities", ["must be a list of names"]),
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
                                                  'lineup = ["random"]\n')
    assert "also set in [rules]" in error_of(GOOD.replace("neutral_bullets = 13",
                                                          "gunslinger_bonus = 500"))
    one = 'name = "x"\ngames = 3\nanalyses = ["compare"]\n[sweep]\nplayers = 4\n'
    assert "needs at least two settings" in error_of(one)
