"""Reports answer the experiment's question: scenario experiments through ``coltsim run`` (the
engine, the runner, the report) and the headline they write, mixed tables analysed per policy
and played like a tournament, and conclusions checked against a ladder of policies."""
import re

import numpy as np
import pandas as pd
import pytest

from coltsim.analysis import balance, headline
from coltsim.analysis.design import design_of
from coltsim.analysis.frames import concat_results
from tests.synthetic import synthetic_results
from coltsim.cli import main
from coltsim.setting import make_setting
from coltsim.study.report import render_from_folder
from coltsim.study.tournament import tournament

WITHOUT_BELLE = '["ghost", "cheyenne", "tuco", "django", "doc"]'


def run(tmp_path, text: str, name: str = "x"):
    """``coltsim run`` on an experiment file; its headline table."""
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    out = tmp_path / name
    assert main(["run", str(path), "--out", str(out), "--quiet", "--workers", "1"]) == 0
    return out, pd.read_csv(out / "tables" / "headline.csv")


def test_an_ability_removed_changes_the_answer_per_setting_and_its_comparison(tmp_path):
    """Belle without her ability at 5 players (greedy): a row per setting, each with its own
    strongest bandit, and the comparison's change in the spread, negative, with an interval."""
    out, h = run(tmp_path, f"""
name = "belle_nerf"
seed = 5
games = 3000
analyses = ["compare", "balance"]
backend = "threading"

[[settings]]
players = 5
policies = "greedy"

[[settings]]
label = "Belle without her ability"
players = 5
policies = "greedy"
rules = {{ abilities = {WITHOUT_BELLE} }}
""")
    settings = h[h["kind"] == "setting"].set_index("condition")
    assert list(settings.index) == ["printed rules", "Belle without her ability"]
    assert (settings["players"] == 5).all() and (settings["games"] == 3000).all()
    assert settings.loc["printed rules", "strongest"] == "belle"
    assert settings.loc["Belle without her ability", "strongest"] != "belle"
    assert (settings["spread_lo"] < settings["spread"]).all()
    assert (settings["spread"] < settings["spread_hi"]).all()
    (comparison,) = h[h["kind"] == "comparison"].itertuples()
    assert comparison.baseline_condition == "printed rules"
    assert comparison.spread_change_lo < comparison.spread_change < comparison.spread_change_hi
    assert comparison.spread_change_hi < 0 and comparison.spread_change_significant
    assert comparison.spread_change == pytest.approx(comparison.spread
                                                     - comparison.baseline_spread)
    assert comparison.bandit_change_bandit == "belle" and comparison.bandit_change_hi < 0
    assert comparison.played_differently > 0.5  # the players reacted: other games
    md = (out / "report.md").read_text()
    assert "strongest bandit Belle → " in md.split("## ")[1]  # in the headline, first


def test_a_rule_the_players_ignore_is_reported_as_rescoring(tmp_path):
    out, h = run(tmp_path, """
name = "bonus"
seed = 2
games = 200
analyses = ["compare"]
backend = "threading"

[sweep]
players = [3]
policies = ["random"]

[sweep.rules]
gunslinger_bonus = [1000, 0]
""")
    (comparison,) = h[h["kind"] == "comparison"].itertuples()
    assert comparison.played_differently == 0 and comparison.rescored > 0
    assert comparison.shots_change == 0 and comparison.shots_change_lo == 0
    md = (out / "report.md").read_text()
    assert "the players did not react to this rule; the difference is rescoring" in md
    assert "-$0" not in md


MIXED = """
name = "mixed"
seed = 4
games = 40
backend = "threading"
{analyses}
[[settings]]
players = 3
label = "greedy against two random"
policies = ["greedy", "random", "random"]
"""


def test_a_mixed_table_is_played_like_a_tournament_and_analysed_per_policy(tmp_path):
    out, h = run(tmp_path, MIXED.format(analyses='analyses = ["policies", "balance"]'))
    # coltsim run plays every seat rotation, and its shares are the tournament's.
    shares = pd.read_csv(out / "tables" / "policies.csv")
    table = make_setting(3, policies=["greedy", "random", "random"],
                         label="greedy against two random")
    direct = tournament(table, 40, seed=4, workers=1, backend="threading")
    cols = ["policy", "seats", "games", "win_rate", "ci_low", "ci_high", "mean_score"]
    pd.testing.assert_frame_equal(shares[cols], direct[cols], check_dtype=False)
    assert list(shares["games"]) == [120, 120]  # 40 deals x 3 rotations
    # Bandit effects only within one policy: one set per policy, none pooled over the table.
    effects = pd.read_csv(out / "tables" / "balance_effects.csv")
    assert set(effects["policy"]) == {"greedy", "random"}
    games = effects.groupby("policy")["n"].sum()
    assert games["greedy"] == 120 and games["random"] == 240  # seats held, over rotations
    rates = pd.read_csv(out / "tables" / "balance_win_rates.csv")
    greedy = rates[rates["policy"] == "greedy"]
    # The fair share of a policy's bandits is the policy's own share, not 1/players.
    assert greedy["fair_share"].iloc[0] == pytest.approx(shares["win_rate"].iloc[0])
    policy_rows = h[h["kind"] == "policy"]
    assert list(policy_rows["policy"]) == ["greedy", "random"]
    assert policy_rows["win_share"].iloc[0] > 1 / 3
    assert not (h["kind"] == "setting").any()  # no uniform setting, no pooled answer
    # Re-rendering from the saved data keeps every rotation (the same report).
    md = (out / "report.md").read_text()
    render_from_folder(out)
    assert (out / "report.md").read_text() == md


def test_a_mixed_table_defaults_to_the_policies_section(tmp_path):
    out, h = run(tmp_path, MIXED.format(analyses=""))
    md = (out / "report.md").read_text()
    assert [line for line in md.splitlines() if line.startswith("## ")][:2] == [
        "## Headline", "## Policies against each other"]
    assert "Character balance" not in md


def test_rotations_of_a_table_are_one_table_and_its_units_hold_one_policy():
    f = concat_results(*[synthetic_results((3,), 50, seed=1, setting_prefix=f"r{k}")
                         for k in range(3)])
    seats = [["greedy", "random", "random"], ["random", "greedy", "random"],
             ["random", "random", "greedy"]]
    f.settings["policies"] = [",".join(s) for s in seats]
    setting = f.players["setting"].astype(str).str[1].astype(int).to_numpy()
    seat = f.players["seat"].to_numpy()
    f.players["policy"] = pd.Categorical(np.where(seat == setting, "greedy", "random"))
    d = design_of(f)
    assert d.tables() == {"r03": ["r03", "r13", "r23"]}
    assert list(d.settings["rotation"]) == [0, 1, 2]
    assert not d.pairs() and not d.uniform
    effects = balance.bandit_effects(f).table
    assert set(zip(effects["setting"], effects["policy"])) == {("r03", "greedy"),
                                                               ("r03", "random")}


# --- a ladder of policies ------------------------------------------------------------------------
def _two_policies(edges: dict) -> tuple:
    """Synthetic results of the printed rules and a variant, each played by greedy and rollout
    (``edges``: policy -> (planted edge in the printed rules, in the variant))."""
    parts = []
    for policy, (base, variant) in edges.items():
        parts.append(synthetic_results((4,), 20_000, seed=3, setting_prefix=f"{policy}-a",
                                       bandit_edge=base, policy=policy))
        parts.append(synthetic_results((4,), 20_000, seed=3, setting_prefix=f"{policy}-b",
                                       bandit_edge=variant, policy=policy, gunslinger_bonus=0))
    return concat_results(*parts)


def test_a_conclusion_is_robust_when_the_two_strongest_policies_agree():
    f = _two_policies({"random": ({"doc": 0.06}, {}), "greedy": ({"tuco": 0.06}, {}),
                       "rollout": ({"tuco": 0.05}, {})})
    h = headline.headline(f, ("balance", "compare"), ladder=("random", "greedy", "rollout"))
    settings = h[h["kind"] == "setting"]
    assert len(settings) == 6 and set(settings["policy"]) == {"random", "greedy", "rollout"}
    printed = settings[settings["condition"] == "printed rules"]
    assert list(printed["strongest"]) == ["doc", "tuco", "tuco"]
    # Tuco is the strongest for the two strongest policies: robust (the weakest random's too).
    assert (printed["strongest_robust"] == headline.ROBUST).all()
    comparisons = h[h["kind"] == "comparison"]
    assert len(comparisons) == 3
    assert (comparisons["spread_robust"] == headline.ROBUST).all()  # narrower under both
    assert (comparisons["spread_change"] < 0).all()


def test_a_conclusion_depends_on_play_strength_when_they_disagree():
    f = _two_policies({"greedy": ({"tuco": 0.06}, {"belle": 0.06}),
                       "rollout": ({"belle": 0.06}, {"belle": 0.06})})
    h = headline.headline(f, ("balance", "compare"), ladder=("greedy", "rollout"))
    printed = h[(h["kind"] == "setting") & (h["condition"] == "printed rules")]
    assert list(printed["strongest"]) == ["tuco", "belle"]
    assert (printed["strongest_robust"] == headline.DEPENDS).all()
    variant = h[(h["kind"] == "setting") & (h["condition"] != "printed rules")]
    assert (variant["strongest_robust"] == headline.ROBUST).all()  # Belle under both
    comparisons = h[h["kind"] == "comparison"]
    # The spread narrows for greedy (Tuco's edge goes), not for rollout (Belle's stays).
    assert (comparisons["spread_robust"] == headline.DEPENDS).all()
    # Without a ladder, the headline is still given per policy, unmarked.
    plain = headline.headline(f, ("balance",))
    assert (plain[headline.ROBUST_COLUMNS] == "").all().all()
    assert len(plain[plain["kind"] == "setting"]) == 4


def test_a_ladder_experiment_reports_every_answer_per_policy(tmp_path):
    out, h = run(tmp_path, """
name = "ladder"
seed = 9
games = 60
analyses = ["compare", "balance"]
ladder = ["random", "weighted"]
backend = "threading"

[policy_params.weighted]
fire = 0.5

[sweep]
players = [3]

[sweep.rules]
gunslinger_bonus = [1000, 0]
""")
    settings = h[h["kind"] == "setting"]
    assert list(zip(settings["condition"], settings["policy"])) == [
        ("printed rules", "random"), ("printed rules", "weighted (fire 0.5)"),
        ("Gunslinger bonus $0", "random"), ("Gunslinger bonus $0", "weighted (fire 0.5)")]
    comparisons = h[h["kind"] == "comparison"]
    assert list(comparisons["policy"]) == ["random", "weighted (fire 0.5)"]
    verdicts = {headline.ROBUST, headline.DEPENDS, headline.INCONCLUSIVE}
    for column in headline.ROBUST_COLUMNS:
        assert set(h[column]) <= verdicts
    md = (out / "report.md").read_text()
    assert "two strongest policies of the ladder (random and weighted (fire 0.5))" in md
    # the verdicts conclusion by conclusion, naming the two policies compared: the comparison
    # told, the four settings (more than three groups of rows) tallied
    sentences = [line for line in md.split("## Headline")[1].split("\n## ")[0].splitlines()
                 if line.startswith("> ")]
    assert any(line.startswith(
        "> Gunslinger bonus $0 against printed rules: with random and with weighted (fire 0.5) "
        "players (the ladder's two strongest, same deals), conclusion by conclusion: 3 players: "
        "strongest bandit ") for line in sentences), sentences
    tallies = [re.search(r"With random and with weighted \(fire 0\.5\) players \(the ladder's "
                         r"two strongest\), conclusion by conclusion: the strongest bandit "
                         r"(.+) in (\d) of (\d); the weakest bandit .+; the spread .+\.", line)
               for line in sentences]
    (tally,) = [t for t in tallies if t]
    assert tally.group(3) == "2"  # two conditions at one player count, each counted once


# --- a question about one bandit -----------------------------------------------------------------
def _cheyenne_moves() -> object:
    """Two conditions on the same deals at 3 and 4 players: Cheyenne planted 3 points below
    her fair share in the printed rules and 3 above with a $500 bonus."""
    base = synthetic_results((3, 4), 2000, seed=5, setting_prefix="a",
                             bandit_edge={"cheyenne": -0.03})
    half = synthetic_results((3, 4), 2000, seed=5, setting_prefix="b", gunslinger_bonus=500,
                             bandit_edge={"cheyenne": 0.03})
    return concat_results(base, half)


def test_the_focus_bandit_is_answered_per_setting_and_per_comparison():
    f = _cheyenne_moves()
    h = headline.headline(f, ("balance", "compare"), focus=("cheyenne",))
    effects = balance.bandit_effects(f).table.set_index(["setting", "bandit"])
    settings = h[h["kind"] == "setting"]
    assert len(settings) == 4 and (settings["focus"] == "cheyenne").all()
    for r in settings.itertuples():
        e = effects.loc[(r.setting, "cheyenne")]
        assert (r.focus_effect, r.focus_lo, r.focus_hi) == (e["estimate"], e["lo"], e["hi"])
    comparisons = h[h["kind"] == "comparison"]
    for r in comparisons.itertuples():  # the change of her effect, from the same model
        before, after = (effects.loc[(s, "cheyenne"), "estimate"] for s in (r.baseline, r.setting))
        assert r.focus_effect == pytest.approx(after - before)
        assert r.focus_lo < r.focus_effect < r.focus_hi and r.focus_lo > 0
    # Paired on the same deals: narrower than two independent effects' intervals would give.
    widths = settings.set_index("setting")["focus_hi"] - settings.set_index("setting")["focus_lo"]
    for r in comparisons.itertuples():
        independent = np.hypot(widths[r.baseline], widths[r.setting])
        assert r.focus_hi - r.focus_lo < independent


def test_several_focus_bandits_repeat_the_rows_once_per_bandit():
    f = _cheyenne_moves()
    plain = headline.headline(f, ("balance", "compare"))
    both = headline.headline(f, ("balance", "compare"), focus=("cheyenne", "doc"))
    assert plain["focus"].isna().all()
    assert len(both) == 2 * len(plain)
    for name in ("cheyenne", "doc"):
        mine = both[both["focus"] == name].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine[["kind", "setting", "spread"]],
                                      plain[["kind", "setting", "spread"]])
        assert mine["focus_effect"].notna().all()


def test_a_report_with_a_focus_names_the_bandit_first(tmp_path):
    from coltsim.study.experiment import loads_experiment
    from coltsim.study.report import build_report

    e = loads_experiment('name = "c"\ngames = 10\nfocus = "cheyenne"\n'
                         'analyses = ["seats"]\n[sweep]\nplayers = [3, 4]\n'
                         '[sweep.rules]\ngunslinger_bonus = [1000, 500]\n')
    report = build_report(_cheyenne_moves(), e, tmp_path, dpi=30)
    first, _, third = report.headline[:3]
    assert first.startswith("Cheyenne's win rate against the average bandit")
    assert "3 players" in first and "4 players" in first
    assert third.startswith("Cheyenne's effect, Gunslinger bonus $500 against printed rules")
    h = pd.read_csv(tmp_path / "tables" / "headline.csv")
    assert h[h["kind"] != "policy"][["focus_effect", "focus_lo", "focus_hi"]].notna().all().all()
    table = next(b for b in report.headline if getattr(b, "name", "") == "headline")
    assert list(table.display.columns)[2:4] == ["policy", "Cheyenne, pp (95% CI)"]


def test_the_headline_says_when_an_interval_and_its_corrected_test_disagree(tmp_path):
    """Tuco's effect's 95% interval excludes 0 but its test, corrected for every test of the
    report, is not significant: the headline says both in words, never a bare "not
    significant" beside an interval that leaves 0 out."""
    from coltsim.study.experiment import loads_experiment
    from coltsim.study.report import build_report

    base = synthetic_results((4,), 1500, seed=3, setting_prefix="base",
                             bandit_edge={"tuco": 0.03})
    half = synthetic_results((4,), 1500, seed=3, setting_prefix="half", gunslinger_bonus=500,
                             bandit_edge={"tuco": 0.045})
    experiment = loads_experiment('name = "t"\ngames = 1500\nfocus = "tuco"\nanalyses = '
                                  '["balance"]\n[sweep]\nplayers = 4\n[sweep.rules]\n'
                                  'gunslinger_bonus = [1000, 500]\n')
    build_report(concat_results(base, half), experiment, tmp_path, dpi=20)
    text = (tmp_path / "report.md").read_text().split("## Headline")[1].split("\n## ")[0]
    said = re.findall(r"\(([-+][\d.]+) to ([-+][\d.]+)\), the interval excludes 0, but after "
                      r"correcting for the (\d+) tests of this report \(Holm\) it is not "
                      r"significant", text)
    assert said, text
    for lo, hi, tests in said:
        assert float(lo) > 0 or float(hi) < 0
        assert int(tests) > 2
    for lo, hi in re.findall(r"\(([-+]?[\d.]+) to ([-+]?[\d.]+)\), not significant", text):
        assert float(lo) <= 0 <= float(hi)


# --- headlines that answer what was asked --------------------------------------------------------
def _headline_lines(out) -> list:
    md = (out / "report.md").read_text()
    return [line[2:] for line in md.split("## Headline")[1].split("\n## ")[0].splitlines()
            if line.startswith("> ")]


def test_a_gunslinger_sweep_gives_the_paired_change_of_the_share_it_decides(tmp_path):
    """1,000 -> 500: the headline gives each bonus' share of games decided by the Gunslinger
    and, for $500, its paired change against the printed rules (not only the two levels)."""
    out, h = run(tmp_path, """
name = "half_bonus"
seed = 1
games = 3000
analyses = ["compare", "balance", "gunslinger"]
backend = "threading"

[sweep]
players = [4]
policies = ["greedy"]

[sweep.rules]
gunslinger_bonus = [1000, 500]
""")
    lines = _headline_lines(out)
    share = r"([\d.]+)% \(([\d.]+) to ([\d.]+)\) at 4 players"
    (printed,) = [re.fullmatch(r"Printed rules, greedy players: the Gunslinger bonus changes "
                               r"the winner in this share of games \(95% CI\): " + share + r"\.",
                               line)
                  for line in lines if line.startswith("Printed rules, greedy players: the Gun")]
    (half,) = [re.fullmatch(r"Gunslinger bonus \$500, greedy players: the Gunslinger bonus "
                            r"changes the winner in this share of games \(95% CI\): " + share
                            + r", (-[\d.]+) \((-[\d.]+) to (-[\d.]+)\) points against printed "
                            r"rules on the same deals\.", line)
               for line in lines if line.startswith("Gunslinger bonus $500, greedy players: the")]
    assert printed and half, lines
    (row,) = h[h["kind"] == "comparison"].itertuples()
    said = [float(x) for x in half.groups()[3:]]
    assert said == [round(100 * v, 1) for v in (row.gunslinger_decided, row.gunslinger_decided_lo,
                                                row.gunslinger_decided_hi)]
    assert said[2] < 0  # half the bonus decides significantly fewer games
    # the paired change of the two levels the headline gives, on the same 3,000 deals
    assert said[0] == pytest.approx(float(half.group(1)) - float(printed.group(1)), abs=0.11)
    # and the comparison's own sentence names its players too
    assert any(line.startswith("Gunslinger bonus $500 against printed rules (4 greedy players, "
                               "same deals): spread ") for line in lines), lines


def test_a_two_player_headline_says_its_players_were_planners(tmp_path):
    out, h = run(tmp_path, """
name = "duel"
seed = 3
games = 150
analyses = ["balance"]
backend = "threading"

[sweep]
players = [2]
policies = ["planner"]
""")
    lines = _headline_lines(out)
    assert lines[0].startswith("Planner players: strongest / weakest bandit (win rate against "
                               "the average bandit, percentage points) and the spread between "
                               "them (95% CI): 2 players: "), lines
    md = (out / "report.md").read_text()
    assert "| setting | players | policy |" in md and "| 2 | planner |" in md
    assert list(h.loc[h["kind"] == "setting", "policy"]) == ["planner"]


def test_a_ladder_judges_each_conclusion_on_its_own(tmp_path):
    """Tuco the strongest under both policies, the weakest Doc for greedy and Belle for
    rollout: the strongest bandit held, the weakest did not, and the headline says so for each
    (not "depends on play strength" for both)."""
    from coltsim.study.experiment import loads_experiment
    from coltsim.study.report import build_report

    f = concat_results(
        synthetic_results((4,), 20_000, seed=3, setting_prefix="g", policy="greedy",
                          bandit_edge={"tuco": 0.08, "doc": -0.08}),
        synthetic_results((4,), 20_000, seed=3, setting_prefix="r", policy="rollout",
                          bandit_edge={"tuco": 0.08, "belle": -0.08}))
    e = loads_experiment('name = "l"\ngames = 20000\nanalyses = ["balance"]\n'
                         'ladder = ["greedy", "rollout"]\n[sweep]\nplayers = [4]\n')
    build_report(f, e, tmp_path, dpi=20)
    h = pd.read_csv(tmp_path / "tables" / "headline.csv")
    settings = h[h["kind"] == "setting"]
    assert list(settings["strongest"]) == ["tuco", "tuco"]
    assert list(settings["weakest"]) == ["doc", "belle"]
    assert (settings["strongest_robust"] == headline.ROBUST).all()
    assert (settings["weakest_robust"] == headline.DEPENDS).all()
    lines = _headline_lines(tmp_path)
    assert lines[0].startswith("Greedy players: strongest / weakest bandit")
    assert lines[1].startswith("Rollout players: strongest / weakest bandit")
    ladder = re.fullmatch(
        r"With greedy and with rollout players \(the ladder's two strongest, same deals\), "
        r"conclusion by conclusion: 4 players: strongest bandit Tuco with both \(robust\), "
        r"weakest bandit Doc → Belle \(depends on play strength\), spread ([\d.]+) → ([\d.]+) "
        r"points, ([-+]?[\d.]+) \(([-+]?[\d.]+) to ([-+]?[\d.]+)\) \((robust|depends on play "
        r"strength)\)\.", lines[2])
    assert ladder, lines[2]
    greedy, rollout = settings.itertuples()
    assert [float(x) for x in ladder.groups()[:2]] == [round(100 * greedy.spread, 1),
                                                      round(100 * rollout.spread, 1)]
    lo, hi = float(ladder.group(4)), float(ladder.group(5))
    assert ladder.group(6) == (headline.ROBUST if lo <= 0 <= hi else headline.DEPENDS)
    assert ladder.group(6) == greedy.spread_robust
