"""`coltsim tune`: the balance search on planted objectives, its statistics, its file format."""
import dataclasses
import json
import re
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

from coltsim import Rules
from coltsim.study.tune.bootstrap import (
    DealTable, Objective, RateSums, deal_weights, elimination_z, estimate, worse_than,
)
from coltsim.cli import main
from coltsim.setting import make_setting
from coltsim.study.experiment import ExperimentError, load_experiment
from coltsim.study.tune import grid, load_tune, loads_tune, round_seed, tune

# A planted answer: with only Doc's ability in play, the bandits are identical except for Doc's
# extra cards (doc_bonus), so at doc_bonus = 0 they are exactly symmetric (spread 0 and Doc at
# his fair share), and every extra card makes Doc stronger (greedy players use them).
DOC_ONLY = {"abilities": ["doc"]}


# --- the statistics on made-up deals --------------------------------------------------------
def test_rates_and_objectives_from_deals():
    share = np.zeros((4, 6))
    present = np.zeros((4, 6), bool)
    present[:, :3] = True  # ghost, belle, cheyenne play every deal
    share[[0, 1, 2, 3], [0, 0, 1, 2]] = 1.0  # ghost wins two deals, belle and cheyenne one
    table = DealTable(share, present, np.zeros((4, 3, 3), np.int32))
    sums = RateSums(1, reps=3)
    sums.add(0, table, np.ones((3, 4)))
    rates = sums.rates()
    assert rates[0, :3].tolist() == [0.5, 0.25, 0.25] and np.isnan(rates[0, 3:]).all()
    np.testing.assert_array_equal(sums.boot_rates(), np.broadcast_to(rates, (3, 1, 6)))  # unit weights
    assert Objective("spread")(rates) == pytest.approx(0.25)
    belle = Objective("win_rate", "belle", (1 / 3,))
    assert belle(rates) == pytest.approx(1 / 3 - 0.25)
    assert belle.per_setting(rates[None])[0].tolist() == pytest.approx([1 / 3 - 0.25])


def test_deal_weights_are_the_same_for_the_same_deals():
    whole = deal_weights(5, 1, 2, 0, 20_000, 8)
    part = deal_weights(5, 1, 2, 8_000, 4_000, 8)
    assert (part == whole[:, 8_000:12_000]).all()
    assert not (deal_weights(5, 0, 2, 0, 100, 8) == whole[:, :100]).all()
    assert whole.mean() == pytest.approx(1.0, abs=0.01)


def _spread_of_made_up_deals(seed, ghost_rate, n=2000, reps=200):
    """A six-player spread from made-up deals: Ghost wins ``ghost_rate`` of them, the other
    five share the rest equally."""
    rng = np.random.default_rng(seed)
    p = np.r_[ghost_rate, np.full(5, (1 - ghost_rate) / 5)]
    share = np.zeros((n, 6))
    share[np.arange(n), rng.choice(6, n, p=p)] = 1.0
    table = DealTable(share, np.ones((n, 6), bool), np.zeros((n, 6, 3), np.int32))
    sums = RateSums(1, reps)
    sums.add(0, table, deal_weights(seed, 0, 0, 0, n, reps))
    spread = Objective("spread")
    return estimate(float(spread(sums.rates())), spread(sums.boot_rates())), p.max() - p.min()


def test_the_bias_correction_pulls_a_noisy_spread_towards_zero():
    """Equal bandits: the plain spread of noisy rates is about 2.5 standard errors above the
    true 0; the correction removes a good part of it (not all: see the Method of a report)."""
    equal = [_spread_of_made_up_deals(seed, 1 / 6)[0] for seed in range(10)]
    raw, corrected = np.mean([e.raw for e in equal]), np.mean([e.estimate for e in equal])
    assert 0.018 < raw < 0.030 and corrected < 0.7 * raw


def test_a_figure_draws_an_interval_that_lies_beside_its_estimate():
    """A bias-corrected spread of few games can lie below its bootstrap interval (a tune of 50
    games drew no figure: matplotlib refuses negative error bars)."""
    import matplotlib.pyplot as plt

    from coltsim.study.tune.report import plot_tune_objective

    table = pd.DataFrame({"objective": [0.047, 0.118], "lo": [0.056, 0.099],
                          "hi": [0.266, 0.319], "status": ["best", "in the running"]})
    fig, ax = plt.subplots()
    drawn = plot_tune_objective(ax, table, [4, 5])
    plt.close(fig)
    assert len(drawn["values"]) == 2


@pytest.mark.slow
def test_the_interval_of_a_clear_spread_covers_the_truth():
    covered = 0
    for seed in range(100):
        e, truth = _spread_of_made_up_deals(100 + seed, 0.26)
        covered += e.lo <= truth <= e.hi
        assert e.lo < e.estimate < e.hi
    assert 90 <= covered <= 99  # 95% intervals


def test_elimination_drops_only_what_is_clearly_worse():
    rng = np.random.default_rng(4)
    boots = rng.normal(0, 0.01, (400, 1)) + rng.normal(0, 0.002, (400, 3))
    points = np.array([0.10, 0.102, 0.16])
    boots = boots + points
    assert worse_than(0, points, boots, z=3.0).tolist() == [False, False, True]
    # One-sided 5% over the 6 comparisons of each of 5 rounds.
    assert elimination_z(7, 5) == pytest.approx(NormalDist().inv_cdf(1 - 0.05 / 30))


def test_grid_and_round_seeds():
    assert grid(0, 1500, 250) == [0, 250, 500, 750, 1000, 1250, 1500]
    assert grid(0, 10, 4) == [0, 4, 8, 10]
    assert grid(4, 8) == [4, 5, 6, 7, 8]
    assert round_seed(9, 0) == 9 and round_seed(9, 1) != round_seed(9, 2)


# --- the search on real games ---------------------------------------------------------------
def test_tune_finds_the_planted_balance():
    setting = make_setting(4, policies="greedy", rules=DOC_ONLY)
    r = tune(setting, "doc_bonus", [0, 1, 2, 3], games=600, max_games=2400, seed=1,
             workers=1)
    assert r.best == 0 and r.contenders == (0,)
    t = r.table.set_index("value")
    assert t.loc["0", "status"] == "best" and (t.drop(index="0")["status"] == "dropped").all()
    assert t["objective"].is_monotonic_increasing
    assert r.best_estimate.lo < 0.05 < t.loc["3", "lo"]
    # Common deals: the values all played the same first-round deals; the players reacted
    # (Doc's extra cards change play), so no warning.
    assert r.warning is None and r.play.set_index("value").loc["1", "deals_changed"] == 0
    assert r.games == int(t["games"].sum())


def test_tune_spends_more_games_where_the_answer_is_open():
    """Doc's win rate against his fair share at 3 and 4 players: doc_bonus 0 is exact, 4 is far
    off and goes first; the values left get more games."""
    settings = [make_setting(n, policies="greedy", rules=DOC_ONLY) for n in (3, 4)]
    r = tune(settings, "doc_bonus", [0, 1, 4], objective="win_rate", bandit="doc",
             target="fair", games=400, max_games=3200, seed=2, workers=1)
    t = r.table.set_index("value")
    assert r.best == 0
    assert t.loc["4", "status"] == "dropped" and t.loc["4", "games"] == 400
    assert t.loc["0", "games"] > 400
    assert {"3 players", "4 players"} <= set(t.columns)
    # 4 was dropped on the deals both it and the best played: its difference is clear.
    assert t.loc["4", "vs_best_lo"] > 0 and t.loc["0", "vs_best"] == 0


def test_tune_warns_when_the_players_ignore_the_rule():
    """Random players never look at the Gunslinger bonus: the same deals play the same way and
    only the scores change."""
    r = tune(make_setting(4, policies="random"), "gunslinger_bonus", [0, 1000], games=300,
             max_games=300, seed=3, workers=1)
    assert "ignored gunslinger_bonus" in r.warning and "rescored" in r.warning
    assert (r.play["deals_changed"] == 0).all()
    # A rule that changes what happens is not reported as ignored, even by random players.
    r = tune(make_setting(4, policies="random"), "hand_size", [5, 7], games=300, max_games=300,
             seed=3, workers=1)
    assert r.warning is None and r.reference == 5 and r.play["deals_changed"].iloc[1] > 0.5


def test_the_headline_says_what_was_measured_not_what_the_elimination_did(tmp_path):
    """Nothing dropped, yet 7 and 8 clearly worse on the same deals: they are called worse, 4
    and 5 (intervals holding zero) may be as good, and the search's stricter rule is named."""
    from coltsim.study.tune.report import headline, write_tune_report

    r = tune(make_setting(4, policies="random"), "hand_size", [4, 5, 6, 7, 8], games=200,
             max_games=200, seed=3, workers=1)
    table = r.table.assign(
        status=["in the running", "in the running", "best", "in the running",
                "in the running"],
        vs_best=[-0.0004, 0.001, 0.0, 0.026, 0.027],
        vs_best_lo=[-0.006, -0.004, 0.0, 0.003, 0.005],
        vs_best_hi=[0.006, 0.006, 0.0, 0.046, 0.050], dropped_after=pd.NA)
    r = dataclasses.replace(r, table=table, best=6, contenders=(4, 5, 6, 7, 8))
    text = " ".join(headline(r))
    negative_zero = re.compile(r"-\$?0(\.0+)?(?![\d.,])")
    assert "beyond doubt" not in text and not negative_zero.search(text)
    assert "7 and 8 are worse than 6 (the difference, points, 95% CI: 7 +2.6 (+0.3 to +4.6), " \
           "8 +2.7 (+0.5 to +5.0))" in text
    assert "4 and 5 cannot be told apart from 6" in text and "4 0.0 (-0.6 to +0.6)" in text
    assert "The search dropped no value" in text and "It kept 7 and 8 in the running" in text
    md = write_tune_report(r, tmp_path, name="hand").read_text()
    assert not negative_zero.search(md) and "| 4 | 200 |" in md


def test_tune_is_reproducible():
    args = dict(games=200, max_games=400, seed=4, workers=1)
    a = tune(make_setting(3), "draw_count", [2, 3], **args)
    b = tune(make_setting(3), "draw_count", [2, 3], **args)
    pd.testing.assert_frame_equal(a.table, b.table)


@pytest.mark.slow
def test_tune_finds_the_planted_balance_at_every_player_count():
    """The heavier check: 3 to 6 players, spread and win-rate objectives, several seeds; the
    planted value is never dropped and always found."""
    settings = [make_setting(n, policies="greedy", rules=DOC_ONLY) for n in (3, 4, 5, 6)]
    for seed in range(3):
        for objective, extra in (("spread", {}), ("win_rate", {"bandit": "doc",
                                                               "target": "fair"})):
            r = tune(settings, "doc_bonus", [0, 1, 2, 3], objective=objective, games=2000,
                     max_games=16000, seed=seed, workers=2, **extra)
            assert r.best == 0 and r.contenders == (0,), (seed, objective, r.table)


# --- the file and the command ---------------------------------------------------------------
TUNE = '''name = "doc"
seed = 5
games = 300
[sweep]
players = [4]
policies = ["greedy"]
rules = { abilities = ["doc"] }
[tune]
option = "doc_bonus"
range = [0, 2]
max_games = 600
'''


def test_tune_command_writes_its_report(tmp_path, capsys):
    path = tmp_path / "doc.toml"
    path.write_text(TUNE.replace('rules = { abilities = ["doc"] }\n', "")
                    .replace("[tune]", '[rules]\nabilities = ["doc"]\n[tune]'))
    out = tmp_path / "report"
    assert main(["tune", str(path), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    md = (out / "report.md").read_text()
    assert "> `doc_bonus = 0` gives the smallest spread" in md
    assert "Policy: greedy at every seat" in md and "Games: " in md
    assert "figures/tune.png" in md and (out / "figures" / "tune.png").stat().st_size > 10_000
    assert "doc_bonus = 0" in (out / "report.html").read_text()  # the report package's page
    for table in ("tune", "win_rates", "play", "rounds"):
        assert len(pd.read_csv(out / "tables" / f"{table}.csv")) > 0
    assert (out / "tune.toml").read_text() == path.read_text()
    # The folder now belongs to this search: a smaller one or an experiment is refused, the
    # report kept byte for byte, until --replace.
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    smaller = ["tune", str(path), "--out", str(out), "--quiet", "--workers", "1", "--games",
               "60", "--max-games", "60"]
    assert main(smaller) == 2
    assert ("holds the report of the balance search 'doc' with a larger search (games 300, "
            "max_games 600; this one: games 60, max_games 60), which a smaller one never "
            "replaces; --replace replaces it") in capsys.readouterr().err
    experiment = tmp_path / "doc_run.toml"
    experiment.write_text('name = "doc"\nseed = 5\ngames = 100\n[sweep]\nplayers = [4]\n')
    assert main(["run", str(experiment), "--out", str(out), "--quiet"]) == 2
    assert ("holds the report of the balance search 'doc', not of experiment 'doc'"
            in capsys.readouterr().err)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert main(smaller + ["--replace"]) == 0
    assert json.loads((out / "manifest.json").read_text())["tune"]["games_played"] == 60 * 3


@pytest.mark.parametrize("change, message", [
    (("[tune]\noption = \"doc_bonus\"\nrange = [0, 2]\nmax_games = 600\n", ""),
     "tune: missing; a tune file needs a [tune] table"),
    (("range = [0, 2]", "range = [0, 2]\nspeed = 3"), "tune.speed: unknown key; allowed: option"),
    (('option = "doc_bonus"', 'option = "speed"'), "tune.option: unknown rule option 'speed'"),
    (("range = [0, 2]", "values = [0]"), "tune.values: give at least two values"),
    (("range = [0, 2]", "values = [0, 11]"), "tune.values: doc_bonus = 11: rule option "
                                             "doc_bonus must be in 0..10"),
    (("range = [0, 2]", "range = [2, 0]"), "tune.range: must be two integers"),
    (("range = [0, 2]", "range = [0, 2]\nvalues = [1, 2]"), "tune.values: give values or range"),
    (("range = [0, 2]", 'range = [0, 2]\nobjective = "fun"'), "tune.objective: unknown "
                                                             "objective 'fun'"),
    (("range = [0, 2]", 'range = [0, 2]\nobjective = "win_rate"'), "tune.bandit: objective "
                                                                   "win_rate needs the bandit"),
    (("range = [0, 2]", 'range = [0, 2]\nobjective = "win_rate"\nbandit = "doc"\ntarget = 2'),
     "tune.target: a win rate between 0 and 1"),
    (("max_games = 600", "max_games = 100"), "tune.max_games: must be at least games (300)"),
    (("games = 300", "games = 10"), "games: the first round needs at least 50 games"),
    (("rules = { abilities", 'rules = { doc_bonus = 2 }\n#'), "sweep.rules.doc_bonus: set by "
                                                             "[tune]"),
    (("seed = 5", "seed = 5\nanalyses = [\"balance\"]"), "analyses: not used by a tune file"),
])
def test_bad_tune_files_say_what_is_wrong(change, message, tmp_path, capsys):
    text = TUNE.replace(*change)
    with pytest.raises(ExperimentError, match=None) as e:
        loads_tune(text, "t.toml")
    assert message in str(e.value) and str(e.value).startswith("t.toml: ")
    path = tmp_path / "t.toml"
    path.write_text(text)
    assert main(["tune", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_tune_help_states_defaults(capsys):
    assert main(["tune", "--help"]) == 0
    out = capsys.readouterr().out
    for flag in ("--games", "--max-games", "--workers", "--out"):
        assert flag in out
    assert out.count("(default") >= 4


def test_every_numeric_rule_option_can_be_tuned():
    printed = Rules()
    numeric = [f.name for f in dataclasses.fields(Rules)
               if isinstance(getattr(printed, f.name), int)
               and not isinstance(getattr(printed, f.name), bool)]
    assert set(numeric) == {"neutral_bullets", "gunslinger_bonus", "hand_size", "doc_bonus",
                            "draw_count", "rounds", "roof_move_max", "marshal_car"}
    for name in numeric:
        value = getattr(printed, name)
        spec = loads_tune(TUNE.replace('option = "doc_bonus"', f'option = "{name}"')
                          .replace("range = [0, 2]", f"values = [{value}, {value + 1}]"))
        assert spec.search.values == (value, value + 1)
        variant = spec.search.variants[0][1]
        assert getattr(variant.rules, name) == value + 1
        assert variant.rules.abilities == ("doc",) and variant.policies == ("greedy",) * 4


def test_the_bundled_files_load_and_a_tune_file_is_not_an_experiment(capsys):
    root = Path(__file__).resolve().parents[1] / "experiments"
    tunes = 0
    for path in sorted(root.glob("*.toml")):
        if "[tune]" in path.read_text():
            spec = load_tune(path)
            assert len(spec.search.values) >= 2
            tunes += 1
            assert main(["run", str(path)]) == 2
            assert f"run it with coltsim tune {path}" in capsys.readouterr().err
        else:
            load_experiment(path)
    assert tunes >= 1
