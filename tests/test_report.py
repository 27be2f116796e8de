"""The report builder writes every file from saved results, and each plot helper draws on the
axes it is given (Agg backend, set in conftest)."""
import base64
import html as htmllib
import json
import re

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from coltsim.analysis import balance, compare, gunslinger, headline, round_cards, seats
from coltsim.analysis.frames import concat_results
from tests.synthetic import synthetic_results
from coltsim.study import plots
from coltsim.study.report.sections import (
    balance as balance_section, compare as compare_section, gunslinger as gunslinger_section,
    policies as policies_section,
    round_cards as round_cards_section, seats as seats_section,
)
from coltsim.study.experiment import loads_experiment
from coltsim.study.report import build_report as _build_report
from coltsim.study.report import formatting, render_from_folder

EXPERIMENT = """
name = "tiny"
description = "A tiny synthetic check of the report."
games = 1500
seed = 5
correction = "bh"
[sweep]
players = [3, 4]
[sweep.rules]
gunslinger_bonus = [1000, 500]
"""


def build_report(*args, **kwargs):
    return _build_report(*args, dpi=40, **kwargs)  # the same figures, fewer pixels to draw


@pytest.fixture(scope="module")
def results():
    # Two rule variants at 4 players on the same seeds (so "compare" has a pair), and 3 and 2
    # players (a setting without Gunslinger).
    base = synthetic_results((2, 3, 4), 1500, seed=5, setting_prefix="base",
                             bandit_edge={"tuco": 0.05})
    half = synthetic_results((4,), 1500, seed=5, setting_prefix="half", gunslinger_bonus=500,
                             bandit_edge={"tuco": 0.05}, card_score={"braking": 300})
    return concat_results(base, half)


EXPECTED_FIGURES = {
    "headline_spread", "balance_effects", "balance_win_rates", "balance_scores", "balance_loot",
    "seats_order", "gunslinger_shares", "gunslinger_by_bandit", "cards_mean_score",
    "cards_other_metrics", "cards_by_bandit", "cards_by_position", "compare_bandits",
    "compare_actions", "compare_seats", "head_to_head", "quality",
}
EXPECTED_TABLES = {
    "headline", "settings", "balance_effects", "balance_spreads", "balance_win_rates",
    "balance_score_effects", "balance_scores", "seats_order", "gunslinger_summary",
    "gunslinger_by_bandit", "cards_effects", "cards_by_bandit", "cards_by_position", "compare",
    "compare_play", "compare_spreads", "head_to_head", "quality", "quality_changes",
}


@pytest.fixture(scope="module")
def full(results, tmp_path_factory):
    """The report of every analysis, built once: (report, folder)."""
    folder = tmp_path_factory.mktemp("tiny")
    experiment = loads_experiment(EXPERIMENT, "experiments/tiny.toml")
    return build_report(results, experiment, folder), folder


def test_build_report_writes_every_file(full):
    report, tmp_path = full
    files = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert {"report.md", "report.html", "experiment.toml", "manifest.json"} <= files
    assert {f"figures/{n}.png" for n in EXPECTED_FIGURES} <= files
    assert {f"tables/{n}.csv" for n in EXPECTED_TABLES} <= files
    for n in EXPECTED_FIGURES:
        assert (tmp_path / "figures" / f"{n}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for n in EXPECTED_TABLES:
        assert len(pd.read_csv(tmp_path / "tables" / f"{n}.csv")) > 0
    assert (tmp_path / "experiment.toml").read_text() == EXPERIMENT

    md = (tmp_path / "report.md").read_text()
    html = (tmp_path / "report.html").read_text()
    # Every figure and table the markdown links to exists, and the HTML shows the same ones.
    md_links = set(re.findall(r"\]\(((?:figures|tables)/[^)]+)\)", md))
    assert md_links and all((tmp_path / link).exists() for link in md_links)
    figures = {link for link in md_links if link.startswith("figures/")}
    assert figures == {f"figures/{n}.png" for n in EXPECTED_FIGURES}
    assert set(re.findall(r'href="(tables/[^"]+)"', html)) == md_links - figures
    assert html.startswith("<!DOCTYPE html>") and "</html>" in html
    assert "Benjamini-Hochberg" in md and "Benjamini-Hochberg" in html
    assert "# coltsim report: tiny" in md
    # The answer first: the comparison (two conditions at 4 players), then each setting.
    assert report.headline[0].startswith("Gunslinger bonus $500 against printed rules "
                                         "(4 random players, same deals): spread")
    assert any(isinstance(b, str) and "Tuco" in b and "3 players: Tuco" in b
               for b in report.headline)
    assert report.headline[0] in md and report.headline[0] in htmllib.unescape(html)


def test_the_html_page_stands_alone(results, tmp_path):
    report = build_report(results, None, tmp_path, analyses=["balance", "gunslinger"])
    page = (tmp_path / "report.html").read_text()
    assert 'src="figures/' not in page
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    figures = sorted((tmp_path / "figures").glob("*.png"))
    assert len(images) == len(figures) and base64.b64decode(images[0])[:4] == b"\x89PNG"
    anchors = re.findall(r'<a href="#([a-z0-9-]+)">', page)
    assert anchors == ["headline"] + [s.anchor for s in report.sections]
    assert all(f'id="{a}"' in page for a in anchors)


def test_headline_csv_has_a_row_per_setting_and_per_comparison(full):
    _, tmp_path = full
    h = pd.read_csv(tmp_path / "tables" / "headline.csv")
    assert list(h.columns) == headline.COLUMNS
    settings = h[h["kind"] == "setting"]
    assert sorted(settings["players"]) == [2, 3, 4, 4]
    assert (settings["strongest"] == "tuco").all()  # the planted +5 points, per setting
    assert (settings["spread_lo"] < settings["spread"]).all()
    comparison = h[h["kind"] == "comparison"].iloc[0]
    assert (comparison["baseline"], comparison["setting"]) == ("base4", "half4")
    assert comparison["condition"] == "Gunslinger bonus $500"
    # Synthetic games draw the winner before the bonus: the spread is exactly the same.
    assert comparison["spread_change"] == pytest.approx(0, abs=1e-12)
    assert comparison["spread_change_hi"] - comparison["spread_change_lo"] < 1e-12


def test_one_family_of_tests_per_report(full):
    """Every p-value the report marks is adjusted with every other one, stated once."""
    from coltsim.analysis.stats import benjamini_hochberg

    report, tmp_path = full
    p, adjusted = [], []
    for path in sorted((tmp_path / "tables").glob("*.csv")):
        t = pd.read_csv(path)
        if "p_adjusted" in t:
            p.append(t["p_value"].to_numpy())
            adjusted.append(t["p_adjusted"].to_numpy())
    p, adjusted = np.concatenate(p), np.concatenate(adjusted)
    ok = np.isfinite(p)
    assert ok.sum() > 300  # many tables, one family
    # (the tables hold 6 significant digits)
    np.testing.assert_allclose(adjusted[ok], benjamini_hochberg(p[ok]), rtol=1e-5)
    md = (tmp_path / "report.md").read_text()
    assert md.count("Benjamini-Hochberg") == 1 and f"the {ok.sum():,} tests" in md
    assert report.sections[-1].title == "Methods"
    # One adjusted p per test: a bandit's edge is its effect's test, not its win rate's too.
    assert "p_adjusted" not in pd.read_csv(tmp_path / "tables" / "balance_win_rates.csv")
    assert "each bandit's effect on the win rate" in md


def test_report_names_holm_by_default_and_can_leave_analyses_out(results, tmp_path):
    report = build_report(results, None, tmp_path, analyses=["balance"])
    md = (tmp_path / "report.md").read_text()
    assert "Holm" in md and "Benjamini" not in md
    assert [s.title for s in report.sections] == ["Character balance", "Settings", "Methods"]
    assert not (tmp_path / "figures" / "seats_order.png").exists()
    with pytest.raises(ValueError, match="unknown analysis"):
        build_report(results, None, tmp_path, analyses=["luck"])
    with pytest.raises(ValueError, match="out_dir"):
        build_report(results)


def test_sections_follow_the_experiments_analyses(results, tmp_path):
    report = build_report(results, None, tmp_path, analyses=["seats", "balance"])
    assert [s.title for s in report.sections][:2] == ["Seat and First Player advantage",
                                                      "Character balance"]
    cards = [i for i, b in enumerate(report.headline)
             if isinstance(b, str) and "First Player" in b]
    balance_lines = [i for i, b in enumerate(report.headline)
                     if isinstance(b, str) and "strongest" in b]
    assert cards and balance_lines and max(cards) < min(balance_lines)


def test_numbers_are_printed_honestly():
    assert formatting.usd_ci(-0.3, -0.6, 0.2, signed=True) == "$0 (-$1 to $0)"
    assert formatting.usd_ci(-0.2, -0.4, 0.1, signed=True) == "$0 (-$0.4 to +$0.1)"
    assert formatting.usd(-0.4, signed=True) == "$0"
    assert formatting.pp_ci(-0.0004, -0.0004, -0.0004) == "0.0 (the same in every game)"
    assert formatting.pct_ci(1.0, 0.99996, 1.0) == "100.0% (99.996 to 100.000)"
    assert formatting.pct_ci(0.5, 0.4, 0.6) == "50.0% (40.0 to 60.0)"
    assert formatting.pp_ci(0.132, 0.12, 0.144, signed=False) == "13.2 (12.0 to 14.4)"


def test_rendering_escapes_and_marks_code(tmp_path):
    from coltsim.study.report import render
    from coltsim.study.report.document import Report, Section, Table

    table = pd.DataFrame({"a|b": ["<x>"], "c": ["1 & 2"]})
    report = Report("t <1>", "", ["Belle's \"edge\""],
                    [Section("S", ["use `coltsim run` <now>", Table("n", "cap", table, table)])],
                    tmp_path)
    page = render.html(report, {})
    assert "<title>t &lt;1&gt;</title>" in page and "&lt;x&gt;" in page and "1 &amp; 2" in page
    assert "<p>use <code>coltsim run</code> &lt;now&gt;</p>" in page
    assert "Belle&#39;s &#34;edge&#34;" in page
    md = render.markdown(report)
    assert "| a\\|b | c |" in md and "Full table: [tables/n.csv](tables/n.csv)" in md


# --- plot helpers --------------------------------------------------------------------------------
def _axes():
    fig = Figure(figsize=(6, 4))
    return fig, fig.add_subplot()


def _check_axes(ax, artists, ylabel=True):
    assert ax.get_title()
    assert ax.get_xlabel()
    if ylabel:
        assert ax.get_ylabel()
    assert isinstance(artists, dict) and artists
    assert all(v is not None for v in artists.values())


def test_rate_plots_draw_intervals_and_one_fair_share_line(results):
    rates = balance.win_rates(results)
    four = rates[rates["players"] == 4]
    fig, ax = _axes()
    artists = balance_section.plot_win_rates(ax, four, "condition")
    _check_axes(ax, artists)
    assert len(artists["series"]) == 2 and "%" in ax.get_ylabel()
    # Two settings share the fair share: one dark line, not one per setting's colour.
    assert len(artists["fair"]) == 1 and artists["fair"][0].get_ydata()[0] == pytest.approx(25)
    fig, ax = _axes()
    artists = balance_section.plot_win_rates(ax, rates)
    assert sorted(line.get_ydata()[0] for line in artists["fair"]) == pytest.approx(
        sorted(100 / rates.groupby("setting")["players"].first()))

    order = seats.order_win_rates(results)
    fig, ax = _axes()
    artists = seats_section.plot_order_win_rates(ax, order)
    _check_axes(ax, artists)
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[:2] == ["First Player", "First Player\n+1"]  # one name for a seat


def test_effect_and_comparison_plots(results):
    effects = balance.bandit_effects(results).table
    fig, ax = _axes()
    artists = balance_section.plot_bandit_effects(ax, effects[effects["setting"] == "base3"])
    _check_axes(ax, artists, ylabel=False)
    assert "percentage points" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "Doc", "Django", "Tuco", "Cheyenne", "Belle", "Ghost"]  # coltsim's order, top down
    labels = [t.get_text() for t in artists["legend"].get_texts()]
    assert labels[-2:] == ["significant (adjusted)", "not significant"]
    # Every legend entry has a marker (no empty entry for a kind of marker never drawn).
    assert all(h.get_marker() not in (None, "None", "") for h in artists["legend"].legend_handles)

    table = compare.compare(results)
    for group in ("bandit", "seat", "play"):
        fig, ax = _axes()
        _check_axes(ax, compare_section.plot_comparison(ax, table, group), ylabel=False)


def test_long_labels_wrap_and_many_settings_get_their_own_colour():
    assert plots.wrap("Belle without her ability and neutral bullets", 16).count("\n") >= 2
    # A panel named by a policy with its parameters stays within the narrowest panel.
    title = plots.panel_title("4 players, ismcts (budget 64, playout planner, opponents planner)")
    assert title.count("\n") == 1 and max(map(len, title.split("\n"))) <= plots.PANEL_TITLE_WIDTH
    colours = plots.palette([f"setting {i}" for i in range(12)])
    assert len(set(colours.values())) == 12
    ordered = plots.sequential(["$0", "$500", "$1,000"])
    assert list(ordered) == ["$0", "$500", "$1,000"]


def test_card_and_gunslinger_plots(results):
    effects = round_cards.card_effects(results)
    fig, ax = _axes()
    _check_axes(ax, round_cards_section.plot_card_effects(ax, effects, "mean_score"), ylabel=False)
    assert "$" in ax.get_xlabel()

    fig, ax = _axes()
    artists = round_cards_section.plot_card_bandit_heatmap(ax, round_cards.card_bandit_effects(results), "half4")
    _check_axes(ax, artists)
    assert artists["image"].get_array().shape == (10, 6)

    fig, ax = _axes()
    _check_axes(ax, round_cards_section.plot_card_positions(ax, round_cards.card_position_effects(results)))

    by_bandit = gunslinger.gunslinger_by_bandit(results)
    fig, ax = _axes()
    _check_axes(ax, gunslinger_section.plot_gunslinger_by_bandit(ax, by_bandit[by_bandit["players"] > 2]))
    fig, ax = _axes()
    _check_axes(ax, gunslinger_section.plot_gunslinger_shares(ax, gunslinger.gunslinger_shares(results)),
                ylabel=False)

    scores = balance.mean_scores(results)
    fig, ax = _axes()
    _check_axes(ax, balance_section.plot_mean_scores(ax, scores))
    fig, ax = _axes()
    artists = balance_section.plot_loot_mix(ax, scores, "base3")
    _check_axes(ax, artists)
    assert len(artists["bars"]) == len(balance_section.LOOT_COLOURS)


def test_sweep_lines_and_spreads(results):
    rows = pd.DataFrame({"value": [0, 500, 1000] * 2, "players": [3] * 3 + [4] * 3,
                         "spread": [0.1, 0.12, 0.15, 0.2, 0.21, 0.25]})
    rows["spread_lo"], rows["spread_hi"] = rows["spread"] - 0.01, rows["spread"] + 0.01
    fig, ax = _axes()
    artists = plots.plot_spreads(ax, rows, "value", "players")
    _check_axes(ax, artists)
    assert len(artists["series"]) == 2
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "500", "1000"]
    fig, ax = _axes()
    shares = headline.table_shares(*_mixed_table())
    _check_axes(ax, policies_section.plot_policy_shares(ax, shares), ylabel=False)


def test_spread_panels_sharing_an_axis_show_every_interval():
    """The spread's panels share their scale (the headline figure): a later panel's interval
    above the first panel's (strong_play: learned, then ismcts) must not be cut off."""
    def rows(spread):
        return pd.DataFrame({"condition": ["printed rules"], "players": [4], "spread": [spread],
                             "spread_lo": [spread - 0.03], "spread_hi": [spread + 0.03],
                             "strongest": ["belle"], "weakest": ["tuco"]})
    fig = Figure()
    first, second = fig.subplots(1, 2, sharey=True)
    plots.plot_spreads(first, rows(0.067), legend=False)
    plots.plot_spreads(second, rows(0.090), legend=False)
    assert second.get_ylim()[1] >= 1.1 * 100 * (0.090 + 0.03)


def _mixed_table():
    """Synthetic results of a greedy-vs-random table in two seat rotations."""
    from coltsim.analysis.design import design_of

    a = synthetic_results((3,), 300, seed=2, setting_prefix="r0", policy="greedy")
    b = synthetic_results((3,), 300, seed=2, setting_prefix="r1", policy="greedy")
    f = concat_results(a, b)
    f.settings["policies"] = ["greedy,random,random", "random,greedy,random"]
    seat = f.players["seat"].to_numpy()
    greedy_seat = np.where(f.players["setting"].astype(str) == "r03", 0, 1)
    f.players["policy"] = pd.Categorical(np.where(seat == greedy_seat, "greedy", "random"))
    return f, design_of(f)


def test_report_from_a_real_runner_folder(tmp_path):
    # The runner's own tables and manifest (not synthetic ones): the schema the analyses read.
    import coltsim
    from coltsim._sources import source_hash

    experiment = loads_experiment('name = "real"\ngames = 300\nseed = 3\n'
                                  'analyses = ["balance", "compare"]\n[sweep]\n'
                                  'players = [3]\npolicies = ["greedy"]\n'
                                  '[sweep.rules]\ngunslinger_bonus = [1000, 0]\n',
                                  "real.toml")
    folder = tmp_path / "reports" / "real"
    for s in experiment.settings:
        coltsim.simulate_to_folder(s, experiment.games, folder / "data", seed=experiment.seed,
                                   workers=1, backend="threading", progress=False)
    (folder / "experiment.toml").write_text(experiment.text)
    report = render_from_folder(folder)
    assert (folder / "report.html").exists() and (folder / "tables" / "compare.csv").exists()
    assert json.loads((folder / "manifest.json").read_text())["engine"] == source_hash()
    with pytest.raises(ValueError, match="is not a report folder of coltsim"):
        render_from_folder(tmp_path)
    with pytest.raises(ValueError, match="no such report folder"):
        render_from_folder(tmp_path / "nope")
    compared = pd.read_csv(folder / "tables" / "compare.csv")
    assert set(compared["n_pairs"][compared["group"] == "game"]) == {300}
    assert report.headline and "Gunslinger bonus $0" in (folder / "report.md").read_text()
    h = pd.read_csv(folder / "tables" / "headline.csv")
    assert list(h["kind"]) == ["setting", "setting", "comparison"]
    # Random players ignore the bonus: the same games, rescored.
    assert h["played_differently"].iloc[2] == 0 and h["rescored"].iloc[2] > 0


def test_setting_labels_name_only_rule_options_that_differ_from_the_printed_rules():
    from coltsim.analysis.design import design_of

    s = pd.DataFrame({"setting": ["a", "b", "c", "d"], "players": [4] * 4,
                      "lineup": ["random"] * 4, "policies": ["greedy"] * 4,
                      "gunslinger_bonus": [1000, 0, 1000, 1000],
                      "neutral_bullets": [13, 13, -1, 13],
                      "abilities": ["ghost,belle,cheyenne,tuco,django,doc"] * 3
                      + ["ghost,cheyenne,tuco,django,doc"]})
    assert list(design_of(s).settings["label"]) == [
        "printed rules", "Gunslinger bonus $0", "unlimited neutral bullets",
        "without Belle's ability"]


def test_comparisons_name_seats_from_the_first_player_and_show_the_cards_that_changed(full):
    report, folder = full
    data = pd.read_csv(folder / "tables" / "compare.csv")
    seats = data.loc[data["group"] == "seat", "quantity"]
    assert list(seats[:2]) == ["win:First Player", "win:First Player +1"]
    (table,) = [b for s in report.sections for b in s.blocks
                if getattr(b, "name", "") == "compare" and hasattr(b, "display")]
    play = data["group"] == "play"
    assert play.any() and len(table.display) == (~play).sum() + (play & data["significant"]).sum()
    assert "win rate of the First Player" in set(table.display["quantity"])
