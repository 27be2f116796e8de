"""The report builder writes every file from saved results, and each plot helper draws on the
axes it is given (Agg backend, set in conftest)."""
import html as htmllib
import json
import re

import pandas as pd
import pytest
from matplotlib.figure import Figure

from coltsim.analysis import balance, compare, gunslinger, round_cards, seats
from coltsim.analysis.frames import concat_results
from coltsim.analysis.synthetic import synthetic_results
from coltsim.study import plots
from coltsim.study.experiment import loads_experiment
from coltsim.study.report import build_report as _build_report
from coltsim.study.report import render_from_folder

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
    "balance_effects", "balance_win_rates", "balance_scores", "balance_loot", "seats_order",
    "gunslinger_shares", "gunslinger_by_bandit", "cards_mean_score", "cards_other_metrics",
    "cards_by_bandit", "cards_by_position", "compare_bandits", "compare_seats",
}
EXPECTED_TABLES = {
    "settings", "balance_effects", "balance_win_rates", "balance_score_effects",
    "balance_scores", "seats_order", "gunslinger_summary", "gunslinger_by_bandit",
    "cards_effects", "cards_by_bandit", "cards_by_position", "compare",
}


def test_build_report_writes_every_file(results, tmp_path):
    experiment = loads_experiment(EXPERIMENT, "experiments/tiny.toml")
    report = build_report(results, experiment, tmp_path)
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
    html_links = set(re.findall(r'(?:src|href)="((?:figures|tables)/[^"]+)"', html))
    assert html_links == md_links
    assert html.startswith("<!DOCTYPE html>") and "</html>" in html
    # The headline a designer can quote, and the correction used.
    assert report.headline[0].startswith("Tuco is the strongest bandit")
    assert report.headline[0] in md and report.headline[0] in htmllib.unescape(html)
    assert "Benjamini-Hochberg" in md and "Benjamini-Hochberg" in html
    assert "# coltsim report: tiny" in md


def test_report_names_holm_by_default_and_can_leave_analyses_out(results, tmp_path):
    report = build_report(results, None, tmp_path, analyses=["balance"])
    md = (tmp_path / "report.md").read_text()
    assert "Holm" in md and "Benjamini" not in md
    assert [s.title for s in report.sections] == ["Settings", "Character balance", "Methods"]
    assert not (tmp_path / "figures" / "seats_order.png").exists()
    with pytest.raises(ValueError, match="unknown analysis"):
        build_report(results, None, tmp_path, analyses=["luck"])
    with pytest.raises(ValueError, match="out_dir"):
        build_report(results)


def test_rendering_escapes_and_marks_code(tmp_path):
    from coltsim.study.report import render
    from coltsim.study.report.document import Report, Section, Table

    table = pd.DataFrame({"a|b": ["<x>"], "c": ["1 & 2"]})
    report = Report("t <1>", "", ["Belle's \"edge\""],
                    [Section("S", ["use `coltsim run` <now>", Table("n", "cap", table, table)])],
                    tmp_path)
    page = render.html(report)
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


def test_rate_plots_draw_intervals_and_fair_share_lines(results):
    rates = balance.win_rates(results)
    fig, ax = _axes()
    artists = plots.plot_win_rates(ax, rates)
    _check_axes(ax, artists)
    n_settings = rates["setting"].nunique()
    assert len(artists["series"]) == n_settings and len(artists["fair"]) == n_settings
    assert "%" in ax.get_ylabel()
    fair_y = sorted(line.get_ydata()[0] for line in artists["fair"])
    assert fair_y == pytest.approx(sorted(100 / rates.groupby("setting")["players"].first()))

    order = seats.order_win_rates(results)
    fig, ax = _axes()
    artists = plots.plot_order_win_rates(ax, order)
    _check_axes(ax, artists)
    assert ax.get_xticklabels()[0].get_text() == "First\nPlayer"


def test_effect_and_comparison_plots(results):
    effects = balance.bandit_effects(results).table
    fig, ax = _axes()
    artists = plots.plot_bandit_effects(ax, effects)
    _check_axes(ax, artists, ylabel=False)
    assert "percentage points" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_yticklabels()][-1] == "Tuco"  # strongest on top

    table = compare.compare(results)
    for group in ("bandit", "seat"):
        fig, ax = _axes()
        _check_axes(ax, plots.plot_comparison(ax, table, group), ylabel=False)


def test_card_and_gunslinger_plots(results):
    effects = round_cards.card_effects(results)
    fig, ax = _axes()
    _check_axes(ax, plots.plot_card_effects(ax, effects, "mean_score"), ylabel=False)
    assert "$" in ax.get_xlabel()

    fig, ax = _axes()
    artists = plots.plot_card_bandit_heatmap(ax, round_cards.card_bandit_effects(results), "half4")
    _check_axes(ax, artists)
    assert artists["image"].get_array().shape == (10, 6)

    fig, ax = _axes()
    _check_axes(ax, plots.plot_card_positions(ax, round_cards.card_position_effects(results)))

    by_bandit = gunslinger.gunslinger_by_bandit(results)
    fig, ax = _axes()
    _check_axes(ax, plots.plot_gunslinger_by_bandit(ax, by_bandit[by_bandit["players"] > 2]))
    fig, ax = _axes()
    _check_axes(ax, plots.plot_gunslinger_shares(ax, gunslinger.gunslinger_shares(results)))

    scores = balance.mean_scores(results)
    fig, ax = _axes()
    _check_axes(ax, plots.plot_mean_scores(ax, scores))
    fig, ax = _axes()
    artists = plots.plot_loot_mix(ax, scores, "base3")
    _check_axes(ax, artists)
    assert len(artists["bars"]) == len(plots.LOOT_COLOURS)


def test_report_from_a_real_runner_folder(tmp_path):
    # The runner's own tables and manifest (not synthetic ones): the schema the analyses read.
    import coltsim
    from coltsim.runs.runner import engine_hash

    experiment = loads_experiment('name = "real"\ngames = 300\nseed = 3\n'
                                  'analyses = ["balance", "compare"]\n[sweep]\n'
                                  'players = [3]\n[sweep.rules]\ngunslinger_bonus = [1000, 0]\n',
                                  "real.toml")
    folder = tmp_path / "reports" / "real"
    for s in experiment.settings:
        coltsim.simulate_to_folder(s, experiment.games, folder / "data", seed=experiment.seed,
                                   workers=1, backend="threading", progress=False)
    (folder / "experiment.toml").write_text(experiment.text)
    report = render_from_folder(folder)
    assert (folder / "report.html").exists() and (folder / "tables" / "compare.csv").exists()
    assert json.loads((folder / "manifest.json").read_text())["engine"] == engine_hash()
    with pytest.raises(ValueError, match="no saved results"):
        render_from_folder(tmp_path)
    with pytest.raises(ValueError, match="no such report folder"):
        render_from_folder(tmp_path / "nope")
    compared = pd.read_csv(folder / "tables" / "compare.csv")
    assert set(compared["n_pairs"][compared["group"] == "game"]) == {300}
    assert report.headline and "gunslinger_bonus=0" in (folder / "report.md").read_text()


def test_setting_labels_name_only_rule_options_that_differ_from_the_printed_rules():
    import pandas as pd

    from coltsim.analysis.frames import setting_labels

    s = pd.DataFrame({"setting": ["a", "b", "c"], "players": [4] * 3, "lineup": ["random"] * 3,
                      "policies": ["greedy"] * 3, "gunslinger_bonus": [1000, 0, 1000],
                      "neutral_bullets": [13, 13, -1]})
    assert setting_labels(s) == {"a": "printed rules", "b": "gunslinger_bonus=0",
                                 "c": "neutral_bullets=-1"}
