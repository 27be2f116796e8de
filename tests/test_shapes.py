"""Every experiment shape the docs allow builds its report (docs/experiments.md): sweeps of one,
two and several rule options with two to several values, player counts from the 2-player game to
6, named line-ups, tables of different policies, ladders, ``focus``, ``[[settings]]`` blocks,
every analysis alone and all together, one setting alone, one-round games.  Each is played for a
few hundred games through ``coltsim run`` and must give a report whose headline holds no NaN, or
be refused in one line before any game is played.

The players are ``random`` (the fastest kernel) unless the shape is about policies; those play
the shared tables of tests/tables.py.  Every figure is composed (each plot call of each section
is made, and must draw something) but not rendered to PNG, which is two thirds of a tiny
report's time whatever its shape (test_report renders every figure).  The fast tier builds
the shapes of ``FAST``, the slow tier the others.
"""
import math
import re

import pandas as pd
import pytest

from coltsim.cli import main
from coltsim.study.experiment import ANALYSES

GAMES = 200

# name -> the experiment file's text after its name, seed and games.  The first is the
# newcomer's crash (issue 27): three values of one rule option died in the quality figure.
SHAPES = {
    "newcomer_draw_count_3_2_4": """
[sweep]
players = 4
policies = "random"
[sweep.rules]
draw_count = [3, 2, 4]
""",
    "newcomer_draw_count_3_2_4_focus": """
focus = "cheyenne"
[sweep]
players = 4
policies = "random"
[sweep.rules]
draw_count = [3, 2, 4]
""",
    "one_option_two_values": """
[sweep]
players = 4
policies = "random"
[sweep.rules]
gunslinger_bonus = [1000, 0]
""",
    "one_option_five_values_two_player_counts": """
[sweep]
players = [4, 5]
policies = "random"
[sweep.rules]
gunslinger_bonus = [1000, 750, 500, 250, 0]
""",
    "two_options": """
[sweep]
players = 4
policies = "random"
[sweep.rules]
hand_size = [6, 7]
draw_count = [3, 2]
""",
    "three_options": """
[sweep]
players = 3
policies = "random"
[sweep.rules]
hand_size = [6, 5]
roof_move_max = [3, 1]
neutral_bullets = [13, -1]
""",
    "non_numeric_option_labelled": """
[sweep]
players = 4
policies = "random"
[sweep.rules]
abilities_off = [[], ["belle"], ["doc"]]
[sweep.label]
abilities_off = ["printed rules", "no Belle", "no Doc"]
""",
    "boolean_option": """
[sweep]
players = 5
policies = "random"
[sweep.rules]
advanced = [false, true]
""",
    "player_counts_2_to_6": """
[sweep]
players = [2, 3, 4, 5, 6]
policies = "random"
""",
    "two_players_alone": """
[sweep]
players = 2
policies = "random"
""",
    "six_players_rule_sweep": """
[sweep]
players = 6
policies = "random"
[sweep.rules]
gunslinger_bonus = [1000, 0]
""",
    "two_players_rule_sweep": """
[sweep]
players = 2
policies = "random"
[sweep.rules]
draw_count = [3, 2, 4]
""",
    "named_lineups": """
[sweep]
players = 4
policies = "random"
lineup = [["ghost", "belle", "tuco", "doc"], "random"]
[sweep.label]
lineup = ["Ghost, Belle, Tuco, Doc", "drawn"]
""",
    "every_lineup": """
[sweep]
players = 3
policies = "random"
lineup = "all"
""",
    "table_of_policies": """
[sweep]
players = 4
policies = [["greedy", "random", "random", "random"]]
""",
    "table_beside_uniform": """
[sweep]
players = 4
policies = [["greedy", "random", "random", "random"], "random", "greedy"]
""",
    "table_rule_sweep": """
[sweep]
players = 4
policies = [["greedy", "random", "random", "random"]]
[sweep.rules]
gunslinger_bonus = [1000, 0]
""",
    "ladder_two_rungs": """
ladder = ["random", "greedy"]
[sweep]
players = 4
[sweep.rules]
gunslinger_bonus = [1000, 0]
""",
    "ladder_three_rungs_numeric_sweep": """
ladder = ["random", "greedy", "planner"]
[sweep]
players = 4
[sweep.rules]
hand_size = [6, 5, 7]
""",
    "ladder_one_setting": """
ladder = ["random", "greedy"]
[sweep]
players = 3
""",
    "focus_several": """
focus = ["belle", "tuco"]
[sweep]
players = [3, 4]
policies = "random"
[sweep.rules]
abilities_off = [[], ["belle"]]
""",
    "focus_named_lineup": """
focus = "doc"
[sweep]
players = 4
policies = "random"
lineup = [["ghost", "belle", "tuco", "doc"]]
[sweep.rules]
doc_bonus = [1, 0]
""",
    "settings_blocks": """
[[settings]]
label = "printed rules"
players = 5
policies = "random"

[[settings]]
label = "Belle without her ability"
players = 5
policies = "random"
rules = { abilities_off = ["belle"] }
""",
    "settings_blocks_beside_sweep": """
[sweep]
players = 4
policies = "random"

[[settings]]
label = "no bonus"
players = 4
policies = "random"
rules = { gunslinger_bonus = 0 }

[[settings]]
players = 3
policies = "random"
rules = { rounds = 3 }
""",
    "one_setting": """
[sweep]
players = 4
policies = "random"
""",
    "one_round": """
[rules]
rounds = 1
[sweep]
players = 4
policies = "random"
[sweep.rules]
gunslinger_bonus = [1000, 0]
""",
    "rounds_swept": """
[sweep]
players = 4
policies = "random"
[sweep.rules]
rounds = [5, 1, 3]
""",
    "fixed_round_cards_and_station": """
[rules]
round_cards = ["tunnel", "bridge", "braking", "take_it_all"]
station = "hostage_taking"
cars = ["A", "B", "C", "D"]
[sweep]
players = 4
policies = "random"
[sweep.rules]
advanced = [false, true]
""",
    "bh_correction": """
correction = "bh"
[sweep]
players = [3, 4]
policies = "random"
[sweep.rules]
gunslinger_bonus = [1000, 0]
""",
    "precision": """
precision = 0.3
[sweep]
players = 4
policies = "random"
[sweep.rules]
gunslinger_bonus = [1000, 0]
""",
}
# A tiny report costs seconds of pandas and matplotlib whatever its games: the fast tier builds
# the newcomer's crash and one shape of each kind of setting (rule sweep, player counts, tables of
# policies, ladder, one setting), the slow tier every other shape.
FAST = {"newcomer_draw_count_3_2_4", "player_counts_2_to_6", "table_beside_uniform",
        "ladder_two_rungs", "one_setting"}
# Every analysis alone, on a two-condition sweep beside a table of different policies (what
# every analysis applies to), and all of them together.
ANALYSIS_BASE = """
[sweep]
players = 4
policies = ["random", ["greedy", "random", "random", "random"]]
[sweep.rules]
gunslinger_bonus = [1000, 0]
"""
for _a in ANALYSES:
    SHAPES[f"analysis_{_a}_alone"] = f'analyses = ["{_a}"]\n' + ANALYSIS_BASE
SHAPES["every_analysis"] = f"analyses = {list(ANALYSES)!r}\n".replace("'", '"') \
    + ANALYSIS_BASE
FAST.add("every_analysis")

# Shapes refused before a game is played: (the file's text, words of the one-line error).
REFUSED = {
    "compare_with_one_setting": ('analyses = ["compare"]\n[sweep]\nplayers = 4\n',
                                 '"compare" needs at least two settings'),
    "ladder_beside_policies": ('ladder = ["random", "greedy"]\n[sweep]\nplayers = 4\n'
                               'policies = "random"\n', "the ladder names the policies"),
    "focus_on_a_bandit_never_seated": (
        'focus = "django"\n[sweep]\nplayers = 4\nlineup = [["ghost", "belle", "tuco", "doc"]]\n',
        "focus: django plays in no setting"),
    "one_label_for_two_conditions": (
        '[sweep]\nplayers = 4\n[sweep.rules]\ngunslinger_bonus = [1000, 0]\n'
        '[sweep.label]\nplayers = ["four"]\n', "would name two different settings"),
    "seven_players": ("[sweep]\nplayers = [4, 7]\n", "7 is not a player count"),
    "compare_with_nothing_to_compare": (
        'analyses = ["compare"]\n[sweep]\nplayers = [3, 4]\n',
        '"compare" needs two settings that differ in rule options or line-up at the same '
        'player count'),
    "policies_without_a_table_of_policies": (
        'analyses = ["policies"]\n[sweep]\nplayers = 4\n[sweep.rules]\n'
        'gunslinger_bonus = [1000, 0]\n', '"policies" needs a table of different policies'),
    "a_table_of_policies_per_player_count": (
        '[sweep]\nplayers = [3, 4]\npolicies = [["greedy", "random", "random"]]\n',
        "sweep.policies: 3 policies for 4 players"),
}


# A PNG of one pixel, kept for every figure composed (the report's HTML embeds it).
PIXEL = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                      "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082")


@pytest.fixture
def composed_figures(monkeypatch):
    """Each report figure composed, not rendered: the names of those that drew something."""
    from coltsim.study.folder import ReportFiles

    drawn = []

    def figure(self, name, fig, dpi):
        assert any(ax.get_visible() and ax.has_data() for ax in fig.axes), f"{name} is empty"
        drawn.append(name)
        self.add(f"figures/{name}.png", PIXEL)

    monkeypatch.setattr(ReportFiles, "figure", figure)
    return drawn


# What else a shape's report must show: (figures drawn, report.md) -> bool.
EXPECT = {
    # the crash was in this figure: one line per player count against the swept value
    "newcomer_draw_count_3_2_4": lambda drawn, text: "quality" in drawn,
    # one setting: no figure of one dot per panel, its numbers are in the table
    "one_setting": lambda drawn, text: "quality" not in drawn
    and "Game quality per setting" in text,
}


def _headline(text: str) -> str:
    """The headline section of a report.md."""
    return text.split("## Headline", 1)[1].split("\n## ", 1)[0]


def _write(tmp_path, name: str, body: str):
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\nseed = 3\ngames = {GAMES}\nworkers = 1\n{body}')
    return path


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n in FAST else pytest.mark.slow)
                                  for n in SHAPES])
def test_every_shape_builds_its_report(name, tmp_path, capsys, composed_figures):
    out = tmp_path / "report"
    assert main(["run", str(_write(tmp_path, name, SHAPES[name])), "--out", str(out),
                 "--quiet"]) == 0, capsys.readouterr().err
    text = (out / "report.md").read_text()
    headline = _headline(text)
    assert headline.strip(), "an empty headline"
    assert not re.search(r"\bnan\b", headline, re.IGNORECASE), headline
    # "not significant" beside an interval only when it holds 0 (else it says why, in words)
    for lo, hi in re.findall(r"\(([-+]?\$?[\d,.]+) to ([-+]?\$?[\d,.]+)\)"
                             r"(?: at \d players)?,? \(?not significant", headline):
        lo, hi = (float(x.replace("$", "").replace(",", "")) for x in (lo, hi))
        assert lo <= 0 <= hi, headline
    table = pd.read_csv(out / "tables" / "headline.csv")
    assert len(table), "no row in tables/headline.csv"
    # An interval is whole or absent, never beside a missing estimate; a setting's spread and
    # a comparison's change of it have theirs whenever they are given.
    for column in [c for c in table.columns if f"{c}_lo" in table.columns]:
        lo, hi = table[f"{column}_lo"].notna(), table[f"{column}_hi"].notna()
        assert (lo == hi).all() and table.loc[lo, column].notna().all(), column
    for kind, column in (("setting", "spread"), ("comparison", "spread_change")):
        rows = table[(table["kind"] == kind) & table[column].notna()]
        assert rows[f"{column}_lo"].map(math.isfinite).all(), (kind, column)
    if "balance" in text and (table["kind"] == "setting").any():
        assert table.loc[table["kind"] == "setting", "spread"].notna().any()
    assert EXPECT.get(name, lambda drawn, text: True)(composed_figures, text)

@pytest.mark.parametrize("name", REFUSED)
def test_a_shape_that_cannot_be_answered_is_refused_before_any_game(name, tmp_path, capsys):
    body, words = REFUSED[name]
    out = tmp_path / "report"
    assert main(["run", str(_write(tmp_path, name, body)), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1, err
    assert not (out / "data").exists()


def test_the_matrix_counts_its_shapes():
    """The count the issue asks for: shapes that build a report, and shapes refused."""
    assert (len(SHAPES), len(REFUSED)) == (39, 8)


def test_a_report_step_that_fails_says_one_line_and_keeps_every_game(tmp_path, capsys,
                                                                      monkeypatch,
                                                                      composed_figures):
    """A bug in a report section, after the games were played: one line naming the step, the
    error and where, exit status 1, the games kept; the same command builds the report from
    them once the bug is gone, playing nothing again."""
    from coltsim.study.report import sections

    def broken(ctx):
        raise KeyError("value")

    path = _write(tmp_path, "broken", 'analyses = ["quality"]\n' + SHAPES["one_option_two_values"])
    out = tmp_path / "report"
    works = sections.quality.build
    monkeypatch.setattr(sections.quality, "build", broken)
    assert main(["run", str(path), "--out", str(out), "--quiet", "--games", "60"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "coltsim run: error: the report could not be built (a bug of coltsim): the quality "
        "section failed with KeyError: 'value' (at coltsim/study/report/build.py:"), err
    assert f"the 120 games played are kept in {out / 'data'}: `coltsim report {out}` builds " \
           "the report from them" in err
    assert not (out / "report.md").exists()
    assert main(["report", str(out)]) == 1  # the same bug, the same line
    assert "the quality section failed" in capsys.readouterr().err
    monkeypatch.setattr(sections.quality, "build", works)
    assert main(["run", str(path), "--out", str(out), "--games", "60"]) == 0
    assert "2 settings x 60 games (all played)" in capsys.readouterr().err
    assert (out / "report.md").is_file()
