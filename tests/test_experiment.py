"""Experiment files: expansion into settings with stable ids, and one clear error per mistake."""
import pytest

from coltsim.policies import DEFAULT, POLICY_NAMES
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
    assert e.analyses == () and e.seed == 0 and e.correction == "holm"  # () = what applies
    (s,) = e.settings
    assert s.lineup == "random" and s.policies == (DEFAULT,) * 4 and s.rules == Rules()


def test_the_default_policy_is_learned_at_every_player_count():
    # the two-bandit game included (it kept the planner until learned beat it there), in a sweep
    # as in make_setting
    assert DEFAULT == "learned"
    e = parse('name = "tiny"\ngames = 10\n[sweep]\nplayers = [2, 3, 6]\n[[settings]]\n'
              'players = 2\nlabel = "two"\nrules = { hand_size = 7 }\n')
    assert [s.policies for s in e.settings] == [
        ("learned",) * 2, ("learned",) * 3, ("learned",) * 6, ("learned",) * 2]
    assert make_setting(2).policies == ("learned",) * 2
    assert make_setting(5).policies == ("learned",) * 5
    assert make_setting(2, policies="planner").policies == ("planner",) * 2  # asked for: kept


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
    with pytest.raises(ExperimentError, match="workers: must be an integer from 1 to"):
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
                       f"'randm'; allowed: {', '.join(POLICY_NAMES)} or "
                       f"\"package.module:function\"; did you mean 'random'?")


def test_a_misspelt_rule_option_stops_coltsim_run_with_the_nearest_option(tmp_path, capsys):
    from coltsim.cli import main

    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace("neutral_bullets = 13", "gunslinger_bonsu = 0"))
    assert main(["run", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"coltsim run: error: {bad}: rules.gunslinger_bonsu: unknown key; "
                          "allowed: neutral_bullets, ")
    assert err.endswith("; did you mean 'gunslinger_bonus'?")


@pytest.mark.parametrize("old, new, key, near", [
    ('seed = 7', 'sede = 7', "sede", "seed"),  # an experiment key
    ('[sweep]', '[sweep]\nplayer = [3]', "sweep.player", "players"),
    ('policies = ["random"]', 'policies = ["randon"]', "sweep.policies", "random"),
    ('"ghost", "belle", "tuco", "doc"', '"ghost", "bele", "tuco", "doc"', "settings[0].lineup",
     "belle"),  # a bandit of a line-up
    ('seed = 7', 'seed = 7\nfocus = "chayenne"', "focus", "cheyenne"),
    ('seed = 7', 'seed = 7\nladder = ["random", "planer"]', "ladder", "planner"),
    ('analyses = ["balance", "compare"]', 'analyses = ["balance", "compar"]', "analyses",
     "compare"),
    ('seed = 7', 'seed = 7\nbackend = "lokky"', "backend", "loky"),
    ('neutral_bullets = 13', 'station = "pickpocketin"', "rules.station", "pickpocketing"),
    ('[rules]', '[policy_params.rollot]\nbudget = 2\n[rules]', "policy_params.rollot",
     "rollout"),
    ('[rules]', '[policy_params.rollout]\nbudgt = 2\n[rules]', "policy_params.rollout",
     "budget"),  # a policy's parameter
])
def test_a_misspelt_name_suggests_the_nearest_allowed_one(old, new, key, near):
    mistake_names(GOOD, old, new, key, ["allowed:"])
    assert error_of(GOOD.replace(old, new, 1)).endswith(f"; did you mean {near!r}?")


@pytest.mark.parametrize("old, new", [
    ('seed = 7', 'seed = 7\nxyzzy = 3'),
    ('policies = ["random"]', 'policies = ["xyzzy"]'),
    ('seed = 7', 'seed = 7\nfocus = "xyzzy"'),
])
def test_a_name_far_from_every_allowed_one_gets_no_suggestion(old, new):
    message = error_of(GOOD.replace(old, new, 1))
    assert "'xyzzy'" in message or ": xyzzy: " in message
    assert "allowed:" in message and "did you mean" not in message


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
    ('seed = 7', 'seed = 7\nn_jobs = 2', "n_jobs", ["unknown key; allowed: name"]),
    ('analyses = ["balance", "compare"]', 'analyses = ["balance", "luck"]', "analyses",
     ["unknown analysis 'luck'", "allowed: " + ", ".join(ANALYSES)]),
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
    mistake_names(GOOD, old, new, key, words)


def mistake_names(text, old, new, key, words):
    """``text`` with ``old`` replaced by ``new`` is refused in one line naming ``key``."""
    assert old in text
    message = error_of(text.replace(old, new, 1))
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


LADDER = """
name = "ladder"
games = 10
ladder = ["greedy", "rollout"]

[policy_params.rollout]
budget = 4

[sweep]
players = [4, 5]

[sweep.rules]
gunslinger_bonus = [1000, 0]

[[settings]]
players = 3
label = "Belle without her ability"
rules = { abilities = ["ghost", "cheyenne", "tuco", "django", "doc"] }
"""


def test_a_ladder_plays_every_setting_with_each_policy_in_every_seat():
    e = parse(LADDER)
    assert e.ladder == ("greedy", "rollout")
    assert [(s.players, s.rules.gunslinger_bonus, s.policies[0]) for s in e.settings] == [
        (4, 1000, "greedy"), (4, 1000, "rollout"), (4, 0, "greedy"), (4, 0, "rollout"),
        (5, 1000, "greedy"), (5, 1000, "rollout"), (5, 0, "greedy"), (5, 0, "rollout"),
        (3, 1000, "greedy"), (3, 1000, "rollout")]
    assert all(len(set(s.policies)) == 1 for s in e.settings)
    assert [s.label for s in e.settings[-2:]] == ["Belle without her ability"] * 2
    assert e.settings[1].policy_params() == {"rollout": {"budget": 4}}
    assert parse(GOOD).ladder == ()


@pytest.mark.parametrize("old, new, key, words", [
    ('ladder = ["greedy", "rollout"]', 'ladder = ["greedy"]', "ladder", ["two or more"]),
    ('ladder = ["greedy", "rollout"]', 'ladder = ["greedy", "genius"]', "ladder",
     ["unknown policy 'genius'", "allowed: random, greedy"]),
    ('ladder = ["greedy", "rollout"]', 'ladder = ["greedy", "greedy"]', "ladder",
     ["listed twice"]),
    ('players = [4, 5]', 'players = [4, 5]\npolicies = ["random"]', "sweep.policies",
     ["the ladder names the policies"]),
    ('players = 3\n', 'players = 3\npolicies = "random"\n', "settings[0].policies",
     ["the ladder names the policies"]),
])
def test_ladder_mistakes(old, new, key, words):
    mistake_names(LADDER, old, new, key, words)


# --- abilities_off, labels of a sweep, one spelling per key -------------------------------------
NO_BELLE = ("ghost", "cheyenne", "tuco", "django", "doc")


def test_abilities_off_removes_abilities_in_every_rules_table():
    base = 'name = "x"\ngames = 3\n'
    e = parse(base + '[rules]\nabilities_off = ["belle"]\n[sweep]\nplayers = 4\n')
    assert e.settings[0].rules.abilities == NO_BELLE
    e = parse(base + '[sweep]\nplayers = 4\n[sweep.rules]\nabilities_off = [[], ["belle"]]\n')
    assert [s.rules.abilities for s in e.settings] == [Rules().abilities, NO_BELLE]
    e = parse(base + '[[settings]]\nplayers = 4\nrules = { abilities_off = ["belle"] }\n')
    assert e.settings[0] == make_setting(4, rules={"abilities": list(NO_BELLE)})
    # a setting's own rules replace [rules]' value of the option, whichever name gives it
    e = parse(base + '[rules]\nabilities_off = ["belle"]\n[[settings]]\nplayers = 4\n'
                     'rules = { abilities = ["doc"] }\n')
    assert e.settings[0].rules.abilities == ("doc",)


@pytest.mark.parametrize("text, key, words", [
    ('[rules]\nabilities_off = ["zorro"]\n[sweep]\nplayers = 4\n', "rules.abilities_off",
     ["unknown bandit in abilities_off 'zorro'", "allowed: ghost"]),
    ('[rules]\nabilities_off = 3\n[sweep]\nplayers = 4\n', "rules.abilities_off",
     ["must be a list of names"]),
    ('[rules]\nabilities_off = ["doc"]\nabilities = ["doc"]\n[sweep]\nplayers = 4\n',
     "rules.abilities_off", ["give one of them"]),
    ('[rules]\nabilities = ["doc"]\n[sweep]\nplayers = 4\n[sweep.rules]\n'
     'abilities_off = [[], ["doc"]]\n', "sweep.rules.abilities_off", ["also set in [rules]"]),
])
def test_abilities_off_mistakes(text, key, words):
    message = error_of('name = "x"\ngames = 3\n' + text)
    assert f": {key}: " in message, message
    for w in words:
        assert w in message, message


SWEEP_LABELS = """
name = "bonus"
games = 3

[sweep]
players = [4, 5]

[sweep.rules]
gunslinger_bonus = [1000, 0]
abilities_off = [[], ["belle"]]

[sweep.label]
abilities_off = ["every ability", "no Belle"]
gunslinger_bonus = ["printed bonus", "no bonus"]
"""


def test_a_sweep_names_each_setting_from_the_labels_of_its_values():
    e = parse(SWEEP_LABELS)
    assert [s.label for s in e.settings[:4]] == [
        "every ability, printed bonus", "no Belle, printed bonus", "every ability, no bonus",
        "no Belle, no bonus"]
    assert [s.label for s in e.settings[4:]] == [s.label for s in e.settings[:4]]
    # labels name settings for people only: the ids are those of the unlabelled sweep
    unlabelled = parse(SWEEP_LABELS.split("[sweep.label]")[0])
    assert [s.id for s in e.settings] == [s.id for s in unlabelled.settings]
    assert all(s.label is None for s in unlabelled.settings)


@pytest.mark.parametrize("old, new, key, words", [
    ('abilities_off = ["every ability", "no Belle"]\n', '', "sweep.label",
     ["'printed bonus' would name two different settings"]),
    ('abilities_off = ["every ability", "no Belle"]', 'abilities_off = ["every ability"]',
     "sweep.label.abilities_off", ["must list 2 names, one per value of abilities_off"]),
    ('abilities_off = ["every ability", "no Belle"]', 'lineup = ["random"]', "sweep.label.lineup",
     ["unknown key; allowed: players, gunslinger_bonus, abilities_off"]),
])
def test_sweep_label_mistakes(old, new, key, words):
    mistake_names(SWEEP_LABELS, old, new, key, words)


def test_a_sweep_label_is_a_name_per_value():
    message = error_of('name = "x"\ngames = 3\n[sweep]\nplayers = [4, 5]\nlabel = "bonus"\n')
    assert ": sweep.label: must be a table giving a name to each value" in message


def test_sweeps_and_listed_settings_spell_every_key_alike():
    """One spelling per key: what a [[settings]] block takes, a [sweep] takes as lists."""
    from coltsim.study.experiment import SETTING_KEYS, SWEEP_KEYS

    assert set(SWEEP_KEYS) == set(SETTING_KEYS)
    listed = parse('name = "x"\ngames = 3\n[[settings]]\nplayers = 4\nlineup = "ghost,belle,'
                   'tuco,doc"\npolicies = "greedy"\nrules = { abilities_off = ["belle"] }\n'
                   'label = "no Belle"\n')
    swept = parse('name = "x"\ngames = 3\n[sweep]\nplayers = [4]\nlineup = ["ghost,belle,tuco,'
                  'doc"]\npolicies = ["greedy"]\n[sweep.rules]\nabilities_off = [["belle"]]\n'
                  '[sweep.label]\nabilities_off = ["no Belle"]\n')
    assert listed.settings == swept.settings


@pytest.mark.parametrize("text, names", [
    ('[sweep]\nplayers = [5]\n[sweep.rules]\nabilities_off = [[], ["belle"]]\n',
     ["printed rules", "without Belle's ability"]),
    # every setting plays the advanced rules: the baseline is not the printed rules
    ('[rules]\nadvanced = true\n[sweep]\nplayers = [4]\n[sweep.rules]\n'
     'gunslinger_bonus = [1000, 0]\n', ["Gunslinger bonus $1,000", "Gunslinger bonus $0"]),
    ('[sweep]\nplayers = [4]\n[sweep.rules]\ngunslinger_bonus = [1000, 0]\n'
     'advanced = [true, false]\n', ["advanced rules", "printed rules",
                                     "Gunslinger bonus $0, advanced rules", "Gunslinger bonus $0"]),
])
def test_the_printed_rules_are_named_so_and_only_they(text, names):
    from coltsim.study.labels import setting_names

    assert setting_names(parse('name = "x"\ngames = 3\n' + text).settings) == names


# --- the bandit a question is about --------------------------------------------------------------
def test_focus_names_one_bandit_or_several():
    assert parse(GOOD).focus == ()
    assert parse('focus = "cheyenne"\n' + GOOD).focus == ("cheyenne",)
    assert parse('focus = ["doc", "belle"]\n' + GOOD).focus == ("doc", "belle")


@pytest.mark.parametrize("line, words", [
    ('focus = "zorro"', "unknown bandit 'zorro'; allowed: ghost, belle, cheyenne, tuco, "
                        "django, doc"),
    ('focus = ["doc", "doc"]', "'doc' is listed twice"),
    ('focus = []', "must be a bandit's name or a list of names"),
    ('focus = "django"', "django plays in no setting"),
])
def test_focus_mistakes(line, words):
    text = f'name = "x"\ngames = 3\n{line}\n[[settings]]\nplayers = 2\n' \
           'lineup = ["ghost", "belle", "tuco", "doc"]\n'
    assert f": focus: {words}" in error_of(text)


def test_two_listed_settings_may_not_share_a_label_for_different_rules():
    same = ('name = "x"\ngames = 3\n[[settings]]\nlabel = "Same"\nplayers = 4\n'
            '[[settings]]\nlabel = "Same"\nplayers = 4\nrules = { gunslinger_bonus = 0 }\n')
    message = error_of(same)
    assert ": settings[1].label: 'Same' would name two different settings (settings[0] and " \
           "settings[1]: other rules or another line-up at 4 players)" in message
    # One label for one condition at several player counts is its name, as the docs say.
    ok = same.replace("players = 4\nrules", "players = 5\nrules")
    assert [s.label for s in parse(ok).settings] == ["Same", "Same"]
