"""The hand-written statistics (coltsim.analysis.stats, and the analyses built on them) against
an independent oracle: statsmodels and scipy, test-only dependencies, on planted data."""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import (
    confint_proportions_2indep, proportion_confint, proportions_ztest,
)
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

from coltsim.analysis import balance, compare, stats
from coltsim.analysis.frames import concat_results, game_key, team_rows, win_share
from tests.synthetic import synthetic_results
from coltsim.results import Results

RNG = np.random.default_rng(20240611)
LEVELS = (0.9, 0.95, 0.99)


@pytest.fixture(scope="module")
def counts():
    n = RNG.integers(20, 5000, size=200)
    k = RNG.binomial(n, RNG.uniform(0.02, 0.98, size=n.size))
    k[:3] = 0, n[1], 1  # the edges: no success, all successes, one
    return k, n


@pytest.mark.parametrize("level", LEVELS)
def test_wilson_interval(counts, level):
    k, n = counts
    lo, hi = stats.wilson_interval(k, n, level)
    want_lo, want_hi = proportion_confint(k, n, alpha=1 - level, method="wilson")
    np.testing.assert_allclose(lo, want_lo, rtol=0, atol=1e-12)
    np.testing.assert_allclose(hi, want_hi, rtol=0, atol=1e-12)


def test_score_test_against_a_fair_share(counts):
    k, n = counts
    p0 = RNG.uniform(0.1, 0.9, size=k.size)
    want = [proportions_ztest(ki, ni, value=pi, prop_var=pi)[1] for ki, ni, pi in zip(k, n, p0)]
    np.testing.assert_allclose(stats.proportion_p(k, n, p0), want, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("level", LEVELS)
def test_newcombe_difference_of_two_rates(counts, level):
    k, n = counts
    k1, n1, k2, n2 = k[:100], n[:100], k[100:], n[100:]
    d, lo, hi = stats.newcombe_interval(k1, n1, k2, n2, level)
    for i in range(100):
        want_lo, want_hi = confint_proportions_2indep(k1[i], n1[i], k2[i], n2[i],
                                                      method="newcomb", compare="diff",
                                                      alpha=1 - level)
        assert (lo[i], hi[i]) == pytest.approx((want_lo, want_hi), abs=1e-12)
    np.testing.assert_allclose(d, k1 / n1 - k2 / n2)


def test_pooled_test_of_two_rates(counts):
    k, n = counts
    k1, n1, k2, n2 = k[3:100], n[3:100], k[103:], n[103:]
    want = [proportions_ztest([a, b], [c, e])[1] for a, c, b, e in zip(k1, n1, k2, n2)]
    np.testing.assert_allclose(stats.two_proportion_p(k1, n1, k2, n2), want, rtol=1e-9,
                               atol=1e-300)


def test_normal_quantiles_and_p_values():
    for level in LEVELS:
        assert stats.z_value(level) == pytest.approx(sps.norm.ppf(0.5 + level / 2), abs=1e-12)
    z = np.array([-4.0, -1.96, -0.3, 0.0, 0.7, 2.5, 8.0])
    np.testing.assert_allclose(stats.two_sided_p(z), 2 * sps.norm.sf(np.abs(z)), rtol=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_means_independent_and_paired(level):
    a = RNG.normal(300, 120, size=900)
    b = RNG.normal(330, 90, size=700)
    lo, hi = stats.mean_interval(a.mean(), a.std(ddof=1), a.size, level)
    want = sps.norm.interval(level, loc=a.mean(), scale=a.std(ddof=1) / np.sqrt(a.size))
    assert (lo, hi) == pytest.approx(want, rel=1e-12)

    d, lo, hi, p = stats.welch_difference(b.mean(), b.std(ddof=1), b.size, a.mean(),
                                          a.std(ddof=1), a.size, level)
    cm = CompareMeans(DescrStatsW(b), DescrStatsW(a))
    assert (lo, hi) == pytest.approx(cm.zconfint_diff(alpha=1 - level, usevar="unequal"),
                                     rel=1e-10)
    assert p == pytest.approx(cm.ztest_ind(usevar="unequal")[1], rel=1e-9)

    after = a + RNG.normal(5, 40, size=a.size)  # the same games under another setting
    e = stats.paired_difference(after, a, level)
    ds = DescrStatsW(after - a)
    assert (e.lo, e.hi) == pytest.approx(ds.zconfint_mean(alpha=1 - level), rel=1e-10)
    assert e.p == pytest.approx(ds.ztest_mean()[1], rel=1e-9)


@pytest.mark.parametrize("method, oracle", [("holm", "holm"), ("bh", "fdr_bh")])
def test_multiple_comparison_adjustments(method, oracle):
    for size in (1, 2, 7, 60):
        p = np.concatenate([RNG.uniform(0, 1, size), RNG.uniform(0, 0.01, size // 3)])
        p[::5] = p[0]  # ties
        want = multipletests(p, method=oracle)[1]
        np.testing.assert_allclose(stats.adjust(p, method), want, rtol=1e-12)
    with_nan = np.array([0.01, np.nan, 0.04, 0.2])
    got = stats.adjust(with_nan, method)
    assert np.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2, 3]], multipletests(with_nan[[0, 2, 3]],
                                                             method=oracle)[1])


@pytest.fixture(scope="module")
def planted():
    """Made-up games at 3 and 4 players: Tuco +5 points, the First Player +3, 5% shared wins."""
    return synthetic_results((3, 4), 4000, seed=11, bandit_edge={"tuco": 0.05},
                             order_edge=0.03, tie_rate=0.05)


def test_least_squares_with_robust_and_clustered_errors(planted):
    p = planted.players
    X, names, _ = balance.design_matrix(p)
    y = win_share(p)
    groups = game_key(p)
    Xf = X.astype(np.float64)
    hc1 = stats.ols(y, X, names)
    want = sm.OLS(y, Xf).fit(cov_type="HC1")
    np.testing.assert_allclose(hc1.coef, want.params, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(hc1.cov, want.cov_params(), rtol=1e-7, atol=1e-15)
    cr1 = stats.ols(y, X, names, groups=groups, chunk_rows=1000)  # chunks change nothing
    want = sm.OLS(y, Xf).fit(cov_type="cluster", cov_kwds={"groups": groups})
    np.testing.assert_allclose(cr1.coef, want.params, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(cr1.cov, want.cov_params(), rtol=1e-7, atol=1e-15)
    w = cr1.weights(**{"bandit=tuco": 1.0, "bandit=doc": -1.0})
    test = want.t_test(w)
    e = cr1.contrast(w)
    assert (e.estimate, e.se) == pytest.approx((test.effect.item(), test.sd.item()), rel=1e-7)
    assert e.p == pytest.approx(test.pvalue.item(), rel=1e-6)


def test_bandit_effects_against_a_formula_fit(planted):
    """One setting: the effect of each bandit against the average bandit, clustered by game,
    from an independently written model: statsmodels' formula with treatment-coded factors."""
    p = planted.players[(planted.players["setting"] == "p4").to_numpy()]
    df = pd.DataFrame({"share": win_share(p), "bandit": p["bandit"].astype(str),
                       "order": p["order"].astype(str), "game": p["game"].to_numpy()})
    fit = smf.ols("share ~ C(bandit) + C(order)", df).fit(cov_type="cluster",
                                                          cov_kwds={"groups": df["game"]})
    bandits = sorted(df["bandit"].unique())  # patsy's baseline is the first in sorted order
    coef = {b: 0.0 if b == bandits[0] else fit.params[f"C(bandit)[T.{b}]"] for b in bandits}
    one = Results(p, planted.games[(planted.games["setting"] == "p4").to_numpy()],
                  planted.settings[planted.settings["setting"] == "p4"])
    table = balance.bandit_effects(one).table.set_index("bandit")
    for b in bandits:
        w = pd.Series(0.0, index=fit.params.index)
        for other in bandits:
            if other != bandits[0]:
                w[f"C(bandit)[T.{other}]"] -= 1 / len(bandits)
        if b != bandits[0]:
            w[f"C(bandit)[T.{b}]"] += 1
        test = fit.t_test(w.to_numpy())
        assert table.loc[b, "estimate"] == pytest.approx(coef[b] - np.mean(list(coef.values())),
                                                         abs=1e-10)
        assert table.loc[b, "se"] == pytest.approx(test.sd.item(), rel=1e-6)
    assert table.loc["tuco", "lo"] > 0.02  # the planted +5 points, found


def test_effects_per_setting_and_a_paired_change_against_one_clustered_fit():
    """The bandit x setting model: three settings (two played on the same deals) as one
    block-diagonal least-squares fit clustered by deal, in statsmodels; every bandit effect
    and a change of spread between two settings (a contrast across settings) agree."""
    a = synthetic_results((3, 4), 2500, seed=1, setting_prefix="a", bandit_edge={"tuco": 0.05},
                          order_edge=0.03, tie_rate=0.05)
    b = synthetic_results((4,), 2500, seed=1, setting_prefix="b", bandit_edge={"belle": 0.08},
                          gunslinger_bonus=0)
    f = concat_results(a, b)
    p = f.players
    blocks, names = [], []
    for sid in ("a3", "a4", "b4"):
        rows = (p["setting"] == sid).to_numpy()
        X, cols, _ = balance.design_matrix(p[rows])
        block = np.zeros((len(p), X.shape[1]))
        block[rows] = X
        blocks.append(block)
        names += [f"{sid}|{c}" for c in cols]
    fit = sm.OLS(win_share(p), np.hstack(blocks)).fit(
        cov_type="cluster", cov_kwds={"groups": p["game"].to_numpy()})

    def effect(sid, bandit):  # bandit minus the average of the six, ghost the baseline
        w = np.zeros(len(names))
        for other in ("belle", "cheyenne", "tuco", "django", "doc"):
            w[names.index(f"{sid}|bandit={other}")] -= 1 / 6
        if bandit != "ghost":
            w[names.index(f"{sid}|bandit={bandit}")] += 1
        return w

    effects = balance.bandit_effects(f)
    table = effects.table.set_index(["setting", "bandit"])
    for (sid, bandit), row in table.iterrows():
        test = fit.t_test(effect(sid, bandit))
        assert row["estimate"] == pytest.approx(test.effect.item(), abs=1e-10)
        assert row["se"] == pytest.approx(test.sd.item(), rel=1e-7)
    change = balance.spread_changes(effects, [("a4", "b4")]).iloc[0]
    w = (effect("b4", change["strongest"]) - effect("b4", change["weakest"])
         - effect("a4", change["baseline_strongest"]) + effect("a4", change["baseline_weakest"]))
    test = fit.t_test(w)
    assert (change["change"], change["se"]) == pytest.approx((test.effect.item(),
                                                              test.sd.item()), rel=1e-7)
    assert change["p_value"] == pytest.approx(test.pvalue.item(), rel=1e-5)


def test_paired_comparison_of_two_settings_on_the_same_seeds():
    base = synthetic_results((4,), 3000, seed=4, setting_prefix="a")
    other = synthetic_results((4,), 3000, seed=4, setting_prefix="b", bandit_edge={"belle": 0.06})
    both = concat_results(base, other)
    row = compare.compare_settings(both, "a4", "b4").set_index("quantity").loc["win:belle"]
    p = both.players
    share = win_share(p)
    belle = (p["bandit"] == "belle").to_numpy() & team_rows(p)
    a = pd.Series(share[belle & (p["setting"] == "a4").to_numpy()],
                  index=p["game"][belle & (p["setting"] == "a4").to_numpy()])
    b = pd.Series(share[belle & (p["setting"] == "b4").to_numpy()],
                  index=p["game"][belle & (p["setting"] == "b4").to_numpy()])
    pairs = pd.concat([a, b], axis=1, join="inner").dropna()
    ds = DescrStatsW(pairs[1] - pairs[0])
    assert (row["lo"], row["hi"]) == pytest.approx(ds.zconfint_mean(alpha=0.05), rel=1e-10)
    assert row["p_value"] == pytest.approx(ds.ztest_mean()[1], rel=1e-8, abs=1e-300)
    assert row["lo"] > 0  # the planted change, found
