"""The documents say what the code does: docs/experiments.md names every key and every rule
option with its default and its allowed values (policies, analyses, corrections, backends, the
ranges and names of the rule options, the focus bandits) as the code checks them, and its worked
examples run; docs/tune.md names every key of [tune] and its allowed values; every relative link
of the README and docs/ leads to a file of the repository."""
import dataclasses
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from coltsim import constants as K
from coltsim.constants import BANDIT_NAMES
from coltsim.policies import catalog
from coltsim.rules import (
    ABILITIES_OFF, ACTION_KINDS, LOOT_KEYS, MAX_DECK, MAX_ROUND_DECK, MAX_STATION_DECK, RUNOUT_NAMES,
    RoundCard, Rules, option_names,
)
from coltsim.runs.options import BACKENDS
from coltsim.study.experiment import (
    ANALYSES, CORRECTIONS, SETTING_KEYS, SWEEP_KEYS, TOP_KEYS, loads_experiment,
)
from coltsim.study.run import run_experiment

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "experiments.md"


def toml_blocks() -> list[str]:
    return re.findall(r"```toml\n(.*?)```", DOC.read_text(), re.S)


def table_rows(heading: str, doc: Path = DOC) -> dict:
    """The rows of the first table after ``heading``: first cell (without backticks) -> cells."""
    text = doc.read_text().split(heading, 1)[1]
    rows = {}
    for line in text.splitlines():
        if rows and not line.startswith("|"):
            break
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_every_key_of_an_experiment_file_is_documented():
    assert set(table_rows("### The file")) == set(TOP_KEYS)
    assert set(table_rows("### A setting's keys")) == set(SWEEP_KEYS) == set(SETTING_KEYS)


def test_every_rule_option_is_documented_with_its_default():
    rows = table_rows("## Rule options")
    assert set(rows) == set(option_names())
    defaults = {**Rules().as_dict(full=True), ABILITIES_OFF: []}
    for option, (default, allowed, meaning) in rows.items():
        assert default == f"`{json.dumps(defaults[option])}`", option
        assert allowed and meaning
    assert len(dataclasses.fields(Rules)) + 1 == len(rows)


def test_every_complete_example_is_a_valid_experiment():
    complete = [b for b in toml_blocks() if b.startswith("name = ")]
    assert [loads_experiment(b).name for b in complete] == ["belle_nerf", "bonus_sweep"]
    belle, bonus = (loads_experiment(b) for b in complete)
    assert [s.label for s in belle.settings] == ["printed rules", "Belle without her ability"]
    assert belle.settings[1].rules.abilities == ("ghost", "cheyenne", "tuco", "django", "doc")
    assert (bonus.precision, bonus.max_games, len(bonus.settings)) == (0.01, 200_000, 10)
    # the [sweep.label] fragment, completed into a file
    fragment = next(b for b in toml_blocks() if b.startswith("[sweep]"))
    labelled = loads_experiment('name = "x"\ngames = 10\n' + fragment)
    assert [s.label for s in labelled.settings[:3]] == ["printed rules", "no Belle", "no Cheyenne"]


def named(cell: str) -> list[str]:
    """The names a cell allows, in order: what it writes in backticks (links left out), quotes
    stripped."""
    cell = re.sub(r"\[[^]]*\]\([^)]*\)", "", cell)
    return [n.strip('"') for n in re.findall(r"`([^`]+)`", cell)]


def test_the_allowed_values_of_the_file_are_the_codes():
    rows = table_rows("### The file")
    assert named(rows["analyses"][2]) == list(ANALYSES)
    assert named(rows["correction"][2]) == list(CORRECTIONS)
    assert named(rows["backend"][2]) == list(BACKENDS)
    assert named(rows["focus"][2]) == list(BANDIT_NAMES)
    policies = table_rows("### A setting's keys")["policies"][2]
    assert named(policies) == list(catalog.POLICY_NAMES) + ["package.module:function"]


RANGE = re.compile(r"^(-?[\d,]+)(?: \([^)]*\))? to (-?[\d,]+)")


@pytest.mark.parametrize("option", sorted(option_names()))
def test_every_rule_options_allowed_values_are_what_the_rules_accept(option):
    """A range is what coltsim.Rules accepts, to its ends and no further; a list of names is
    the names the engine knows."""
    default, allowed, _ = table_rows("## Rule options")[option]
    value = {**Rules().as_dict(full=True), ABILITIES_OFF: []}[option]
    names = {"neutral_runout": RUNOUT_NAMES, "round_cards": K.ROUND_CARD_NAMES[:K.N_ROUND_CARDS],
             "station": K.ROUND_CARD_NAMES[K.FIRST_STATION:]}
    if isinstance(value, bool):
        assert named(allowed) == ["true", "false"]
    elif isinstance(value, int):
        lo, hi = (int(x.replace(",", "")) for x in RANGE.match(allowed).groups())
        for ok in (lo, hi):
            Rules(**{option: ok})
        for bad in (lo - 1, hi + 1):
            with pytest.raises(ValueError):
                Rules(**{option: bad})
    elif option in names:
        assert named(allowed)[-len(names[option]):] == list(names[option])
    elif option in ("cars", "car_loot"):
        assert re.search(r"`A` to `F`", allowed) and K.CAR_NAMES[1:] == tuple("ABCDEF")
        if option == "car_loot":
            assert named(allowed)[-2:] == list(LOOT_KEYS)
    elif option == "new_cards":
        assert f"at most {K.MAX_NEW_CARDS} cards" in allowed
        assert named(allowed) == [f.name for f in dataclasses.fields(RoundCard)]
    elif option in ("round_deck", "station_deck"):
        most = MAX_ROUND_DECK if option == "round_deck" else MAX_STATION_DECK
        assert f"to {most} " in allowed and "printed or your own" in allowed
    elif option == "bullets":
        assert named(allowed) == [] and f"0 to {K.BULLETS_PER_BANDIT} each" in allowed
    elif option == "decks":
        assert named(allowed) == list(ACTION_KINDS) and f"1 to {MAX_DECK} cards" in allowed
    else:  # the bandits' abilities
        assert allowed == "bandit names"


def test_every_key_of_a_tune_file_and_its_objectives_are_documented():
    from coltsim.study.tune.bootstrap import OBJECTIVES
    from coltsim.study.tune import TUNE_KEYS

    rows = table_rows("| key of `[tune]`", ROOT / "docs" / "tune.md")
    keys = [k for row in rows for k in row.replace("`", "").split(", ")]
    assert sorted(keys) == sorted(TUNE_KEYS)
    assert [n for n in named(rows["objective"][0]) if n in OBJECTIVES] == list(OBJECTIVES)
    assert named(rows["bandit"][0])[1:] == list(BANDIT_NAMES)


def headline_of(folder) -> pd.DataFrame:
    return pd.read_csv(folder / "tables" / "headline.csv")


def test_the_ability_example_runs(tmp_path, capsys):
    """The first example as written, with fewer games: the headline compares the two labelled
    settings, and Belle's ability is gone in the second."""
    path = tmp_path / "belle_nerf.toml"
    path.write_text(toml_blocks()[0])
    run_experiment(path, games=400, workers=1, out=tmp_path / "r", quiet=True)
    assert capsys.readouterr().err == f"report: {tmp_path / 'r' / 'report.md'}\n"  # even quiet
    h = headline_of(tmp_path / "r")
    settings = h[h["kind"] == "setting"].set_index("condition")
    assert list(settings.index) == ["printed rules", "Belle without her ability"]
    (comparison,) = h[h["kind"] == "comparison"].itertuples()
    assert comparison.condition == "Belle without her ability" and comparison.players == 5
    assert comparison.spread_change_lo < comparison.spread_change < comparison.spread_change_hi


@pytest.mark.slow
def test_the_bonus_sweep_example_runs(tmp_path):
    """The second example as written, to a looser precision with a low cap: it grows in rounds
    and states the precision it reached."""
    path = tmp_path / "bonus_sweep.toml"
    path.write_text(toml_blocks()[1])
    run_experiment(path, games=300, precision=0.05, max_games=2400, out=tmp_path / "r",
                   quiet=True)
    h = headline_of(tmp_path / "r")
    assert len(h[h["kind"] == "setting"]) == 10 and len(h[h["kind"] == "comparison"]) == 8
    assert sorted(h["value"].dropna().unique()) == [0, 250, 500, 750, 1000]
    text = (tmp_path / "r" / "report.md").read_text()
    assert "> Precision: " in text
    widths = pd.read_csv(tmp_path / "r" / "tables" / "precision.csv")
    games = h.loc[h["kind"] == "setting", "games"].iloc[0]
    assert widths["half_width"].max() <= 0.05 or games == 2400


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", ["README.md"] + sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")))
def test_relative_links_lead_to_files(page):
    path = ROOT / page
    for target in LINK.findall(path.read_text()):
        if "://" in target or target.startswith("mailto:"):
            continue
        assert (path.parent / target).exists(), f"{page} links {target}, which is not there"


def test_the_readme_is_short_and_holds_no_machine_figures():
    """The README is for a designer's first minutes: at most 150 lines and 1,800 words, and no
    processor, date or speed ratio (those are docs/benchmarks.md's, generated)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert len(text.split()) <= 1800
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b|games/s|times the reference|Xeon|EPYC|Ryzen",
                         text)
