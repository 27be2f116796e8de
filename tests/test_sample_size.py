"""`coltsim sample-size`: sample sizes against statsmodels' closed forms and against simulation."""
import math

import numpy as np
import pandas as pd
import pytest

from coltsim.analysis import balance
from coltsim.analysis import power as P
from coltsim.analysis.stats import proportion_p, wilson_interval
from coltsim.cli import main
from coltsim.runs.runner import simulate
from coltsim.setting import make_setting
from coltsim.study.experiment import loads_experiment
from coltsim.study.sample_size import sample_sizes

proportion = pytest.importorskip("statsmodels.stats.proportion")
smpower = pytest.importorskip("statsmodels.stats.power")


@pytest.mark.parametrize("p", [1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 6])
@pytest.mark.parametrize("h", [0.02, 0.01, 0.005])
def test_precision_is_the_textbook_sample_size(p, h):
    want = proportion.samplesize_confint_proportion(p, h, alpha=0.05)
    assert P.games_for_precision(p * (1 - p), h) == math.ceil(want)
    # A bandit seen in 2 games of 3 needs 3/2 as many games; the inverse gives h back.
    n = P.games_for_precision(p * (1 - p), h, share=2 / 3)
    assert n == math.ceil(math.ceil(want) * 3 / 2)
    assert P.half_width_after(p * (1 - p), n, share=2 / 3) == pytest.approx(h, rel=1e-3)


@pytest.mark.parametrize("variance, d", [(0.375, 0.01), (0.1, 0.02), (0.02, 0.005)])
def test_paired_change_is_the_one_sample_normal_power(variance, d):
    want = smpower.NormalIndPower().solve_power(effect_size=d / math.sqrt(variance), alpha=0.01,
                                               power=0.9, ratio=0)
    assert P.games_to_detect_change(variance, d, alpha=0.01, power=0.9) == math.ceil(want)
    found = P.detectable_change(variance, math.ceil(want), alpha=0.01, power=0.9)
    assert found == pytest.approx(d, rel=1e-3)


@pytest.mark.parametrize("p0, d", [(0.25, 0.03), (1 / 6, 0.02), (1 / 3, 0.04)])
def test_off_fair_share_has_the_planned_power_in_simulation(p0, d):
    """At the planned size the reports' score test rejects a rate d off p0 in 80% of samples
    (the harder side; the easier one more often)."""
    n = P.games_to_detect_from(p0, d, alpha=0.05, power=0.8)
    rng = np.random.default_rng(1)
    reps = 20_000
    powers = []
    for p1 in (p0 - d, p0 + d):
        k = rng.binomial(n, p1, reps)
        powers.append((proportion_p(k, n, p0) < 0.05).mean())
    assert min(powers) == pytest.approx(0.8, abs=0.015)
    assert max(powers) >= 0.8 - 0.015
    assert P.detectable_from(p0, n) == pytest.approx(d, abs=1e-3)


def test_planned_precision_holds_in_simulated_binomials():
    n = P.games_for_precision(0.25 * 0.75, 0.01)
    k = np.random.default_rng(2).binomial(n, 0.25, 5_000)
    lo, hi = wilson_interval(k, n)
    half = (hi - lo) / 2  # varies with the rate observed, around the planned 0.01
    assert half.mean() == pytest.approx(0.01, rel=0.005)
    assert np.quantile(half, 0.95) <= 0.0102


def test_appearance_of_each_bandit():
    assert P.appearance(make_setting(4)) == pytest.approx({b: 2 / 3 for b in P.K.BANDIT_NAMES})
    assert P.appearance(make_setting(6, lineup="all")) == pytest.approx(
        {b: 1.0 for b in P.K.BANDIT_NAMES})
    assert P.appearance(make_setting(3, lineup="doc,ghost,tuco")) == {
        "doc": 1.0, "ghost": 1.0, "tuco": 1.0}
    partly = P.appearance(make_setting(3, lineup="belle,random,random"))
    assert partly["belle"] == 1.0 and partly["doc"] == pytest.approx(2 / 5)
    assert P.appearance(make_setting(2))["ghost"] == pytest.approx(4 / 6)


TWO = ('name = "two"\nseed = 4\ngames = 20000\n[sweep]\nplayers = [4]\npolicies = ["random"]\n'
       '[sweep.rules]\ngunslinger_bonus = [1000, 0]\n')


def test_plan_of_an_experiment():
    p = sample_sizes(loads_experiment(TWO), half_width=0.01, difference=0.02)
    t = p.table.set_index(["question", "setting"])
    precision = t.loc[("precision", "printed rules")]
    assert precision["games_needed"] == P.games_for_precision(0.1875, 0.01, 2 / 3)
    fair = t.loc[("fair", "printed rules")]
    assert fair["games_needed"] == P.games_to_detect_from(0.25, 0.02, 2 / 3, 0.05 / 12)
    change = t.loc[("change", "Gunslinger bonus $0 against printed rules")]
    assert change["games_needed"] == P.games_to_detect_change(0.375, 0.02, 2 / 3, 0.05 / 6)
    text = p.text()
    assert "±1.0 points" in text and "0.42% each" in text and "the file's 20,000 give" in text


def test_a_pilot_measures_the_common_deals():
    """The same deals under both settings: the measured variance of a deal's difference is far
    below the independent bound, so the pilot plans fewer games."""
    e = loads_experiment(TWO)
    assumed = sample_sizes(e).table.set_index("question")
    piloted = sample_sizes(e, pilot=3000, workers=1).table.set_index("question")
    for question, below in (("change", 0.7), ("spread_change", 1.0)):  # a bandit, the spread
        assert piloted.loc[question, "games_needed"] < below * assumed.loc[question,
                                                                           "games_needed"]
        assert "pilot" in piloted.loc[question, "detail"]


def test_planned_games_give_the_precision_in_real_games():
    """Play the games the plan asks for ±2 points and check the reports' intervals: the plan
    holds on average, and a bandit that plays fewer games or wins more than its fair share gets
    a slightly wider interval (up to 15% wider: one winning 0.3 at five players, not the fair
    0.2, has sqrt(0.3 x 0.7 / 0.16) = 1.15 times the plan's half-width)."""
    e = loads_experiment('name = "one"\nseed = 8\ngames = 10\n[sweep]\nplayers = [5]\n')
    need = sample_sizes(e, half_width=0.02).table.set_index("question").loc["precision", "games_needed"]
    r = simulate(e.settings[0], int(need), seed=8, workers=1, progress=False)
    rates = balance.win_rates(r)
    half = (rates["hi"] - rates["lo"]) / 2
    assert half.mean() == pytest.approx(0.02, rel=0.03) and half.max() <= 0.023


def test_sample_size_command(capsys):
    assert main(["sample-size", "experiments/quickstart.toml", "--half-width", "0.005"]) == 0
    captured = capsys.readouterr()
    assert "within ±0.5 points" in captured.out and "printed rules: 43,217 games" in captured.out
    assert captured.err == ""
    assert main(["sample-size", "experiments/quickstart.toml", "--power", "2"]) == 2
    assert "power: must be a number between 0 and 1" in capsys.readouterr().err
    assert main(["sample-size", "--help"]) == 0
    out = capsys.readouterr().out
    for flag in ("--half-width", "--difference", "--power", "--alpha", "--pilot"):
        assert flag in out
    assert out.count("(default") >= 6


# --- the headline's own numbers ------------------------------------------------------------------
@pytest.mark.parametrize("players, lineup", [(4, "random"), (3, "ghost,belle,tuco"),
                                             (2, "random")])
def test_the_headline_numbers_variances_are_the_models_errors(players, lineup):
    """A spread (one bandit minus another) and a bandit's effect: the closed form's variance
    per game against the standard error the reports' model gives on fair made-up games."""
    from tests.synthetic import synthetic_results

    setting = make_setting(players, lineup=lineup)
    f = synthetic_results((players,), 40_000, seed=3)
    if lineup != "random":  # the line-up the setting names
        names = lineup.split(",")
        f.players["bandit"] = pd.Categorical(
            [names[i] for i in f.players["bandit_index"]], categories=P.K.BANDIT_NAMES)
    effects = balance.bandit_effects(f)
    key = (f.settings["setting"].iloc[0], f.players["policy"].iloc[0])
    a, b = list(P.appearance(setting))[:2]
    n = len(f.games)
    spread = effects.estimate([(key, a, 1.0), (key, b, -1.0)]).se
    assert spread == pytest.approx(math.sqrt(P.combination_variance(setting, {a: 1, b: -1}) / n),
                                   rel=0.05)
    effect = effects.table.set_index("bandit").loc[a, "se"]
    assert effect == pytest.approx(math.sqrt(P.combination_variance(
        setting, P.effect_weights(setting, a)) / n), rel=0.05)


def test_the_plan_sizes_the_headline_and_the_focus_bandit():
    e = loads_experiment('focus = "cheyenne"\n' + TWO)
    t = sample_sizes(e, half_width=0.01, difference=0.02).table.set_index(["question", "setting"])
    s = e.settings[0]
    spread = max(P.combination_variance(s, w) for w in P.spread_weights(s))
    assert t.loc[("spread", "printed rules"), "games_needed"] == P.games_for_precision(
        spread, 0.01)
    assert t.loc[("spread_change", "Gunslinger bonus $0 against printed rules"),
                 "games_needed"] == P.games_to_detect_change(2 * spread, 0.02, alpha=0.05)
    effect = P.combination_variance(s, P.effect_weights(s, "cheyenne"))
    assert t.loc[("focus:cheyenne", "printed rules"), "games_needed"] == \
        P.games_for_precision(effect, 0.01)
    assert ("focus_change:cheyenne", "Gunslinger bonus $0 against printed rules") in t.index
    questions = list(dict.fromkeys(q for q, _ in t.index))
    assert questions[:4] == ["spread", "spread_change", "focus:cheyenne", "focus_change:cheyenne"]
