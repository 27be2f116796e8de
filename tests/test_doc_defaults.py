"""The defaults the docs state are the code's: an experiment file's keys (docs/experiments.md),
the rule options (the README's table), every built-in policy's parameters and the presets of
`weighted` (docs/policies.md), a tune file's keys (docs/tune.md).  And the README and the user
guides hold no machine figures: speeds, processors and dates live in benchmarks/results/ and
docs/benchmarks.md."""
import json
import re
from pathlib import Path

import pytest

import coltsim
from coltsim.policies import catalog
from coltsim.rules import ABILITIES_OFF, Rules, option_names
from coltsim.study.experiment import PRECISION_GAMES, PRECISION_MAX_GAMES, loads_experiment
from coltsim.study.tune.search import DEFAULTS as TUNE_DEFAULTS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def table(path: Path, heading: str) -> dict:
    """The first table after ``heading``: the name its first cell writes in backticks -> the other
    cells."""
    text = path.read_text(encoding="utf-8").split(heading, 1)[1]
    rows = {}
    for line in text.splitlines():
        if rows and not line.startswith("|"):
            break
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            rows[code(cells[0])] = cells[1:]
    assert rows, f"no table after {heading!r} in {path.name}"
    return rows


def code(cell: str) -> str:
    """The first value a cell writes in backticks."""
    return re.search(r"`([^`]*)`", cell).group(1)


def minimal(extra: str = "games = 10\n") -> object:
    return loads_experiment('name = "x"\n' + extra + "[sweep]\nplayers = [4]\n")


def test_an_experiment_files_defaults_are_the_codes():
    rows = {key: cells[1] for key, cells in table(DOCS / "experiments.md", "### The file").items()}
    e = minimal()
    assert json.loads(code(rows["seed"])) == e.seed
    assert json.loads(code(rows["description"])) == e.description
    assert json.loads(code(rows["correction"])) == e.correction
    assert json.loads(code(rows["backend"])) == e.backend
    assert json.loads(code(rows["output"])).replace("<name>", "x") == str(e.output)
    assert rows["workers"] == "every core" and e.workers is None
    with_precision = minimal("precision = 0.1\n")
    assert int(code(rows["games"])) == with_precision.games == PRECISION_GAMES
    assert int(code(rows["max_games"])) == with_precision.max_games == PRECISION_MAX_GAMES


def test_a_settings_defaults_are_the_codes():
    """Above all the default policy: the player of every seat not told otherwise."""
    rows = {key: cells[1] for key, cells in
            table(DOCS / "experiments.md", "### A setting's keys").items()}
    stated = re.findall(r'`"([a-z_]+)"`', rows["policies"])
    assert stated == [catalog.DEFAULT]
    assert coltsim.make_setting(4).policies == (catalog.DEFAULT,) * 4
    assert coltsim.make_setting(2).policies == (catalog.DEFAULT,) * 2
    assert minimal().settings[0].policies == (catalog.DEFAULT,) * 4
    assert json.loads(code(rows["lineup"])) == coltsim.make_setting(4).lineup


@pytest.mark.parametrize("page, heading", [("README.md", "## Rule options"),
                                           ("docs/experiments.md", "## Rule options")])
def test_the_rule_option_tables_state_the_defaults_of_rules(page, heading):
    rows = table(ROOT / page, heading)
    assert set(rows) == set(option_names())
    defaults = {**Rules().as_dict(full=True), ABILITIES_OFF: []}
    for option, cells in rows.items():
        assert json.loads(code(cells[0])) == defaults[option], (page, option)


def parameter_defaults(heading: str) -> dict:
    """A parameter table of docs/policies.md: name -> its stated default, as the code holds it
    (a name for a choice)."""
    stated = {}
    for name, cells in table(DOCS / "policies.md", heading).items():
        cell = cells[0]
        stated[name] = cell.strip("`").strip('"') if cell.startswith("`") else cell
    return stated


@pytest.mark.parametrize("policy, heading", [("rollout", "### rollout"),
                                             ("planner", "**For search.**"),
                                             ("ismcts", "### ismcts")])
def test_every_parameter_table_states_the_catalogs_defaults(policy, heading):
    stated = parameter_defaults(heading)
    params = catalog.POLICIES[policy].params
    assert set(stated) - set(catalog.POLICIES[policy].files) == {p.name for p in params}
    for p in params:
        default = p.choices[int(p.default)] if p.choices else p.default
        if p.choices:
            assert stated[p.name] == default, (policy, p.name)
        else:
            assert float(stated[p.name]) == default, (policy, p.name)


def test_the_presets_table_states_the_presets_weights():
    text = (DOCS / "policies.md").read_text(encoding="utf-8").split("| preset |", 1)[1]
    header = ["preset"] + [c.strip() for c in text.splitlines()[0].strip().strip("|").split("|")]
    rows = table(DOCS / "policies.md", "| preset |")
    presets = {"greedy": catalog.GREEDY, **catalog.PRESETS}
    assert set(rows) == set(presets)
    for name, cells in rows.items():
        assert len(cells) == len(header) - 1, f"the row of {name} has another column count"
        stated = [catalog.NEVER if c == "NEVER" else float(c) for c in cells]
        weights = dict(zip(catalog.WEIGHT_NAMES, presets[name]))
        assert stated == [weights[w] for w in header[1:]], name


def test_a_tune_files_defaults_are_the_codes():
    rows = {key: cells[-1] for key, cells in table(DOCS / "tune.md", "| key of `[tune]`").items()}
    assert json.loads(code(rows["objective"])) == TUNE_DEFAULTS["objective"]
    assert float(code(rows["tolerance"])) == TUNE_DEFAULTS["tolerance"]
    assert float(code(rows["level"])) == TUNE_DEFAULTS["level"]
    assert rows["max_games"] == f"{TUNE_DEFAULTS['max_games_factor']} x `games`"


# The pages a designer reads: no processor, no date, no speed (docs/benchmarks.md holds them; the
# history of the strength work and the contributors' pages may date what they tell).
USER_PAGES = ["README.md"] + [f"docs/{name}" for name in (
    "cookbook.md", "experiments.md", "policies.md", "tune.md", "sample-size.md", "notebook.md",
    "commands.md", "TRACE.md", "RULES.md", "rules-decisions.md")]
MACHINE = re.compile(r"EPYC|Xeon|\b20\d\d-\d\d-\d\d\b|games/s|reference game|times the reference",
                     re.IGNORECASE)


@pytest.mark.parametrize("page", USER_PAGES)
def test_the_user_pages_hold_no_machine_figures(page):
    found = [line for line in (ROOT / page).read_text(encoding="utf-8").splitlines()
             if MACHINE.search(line)]
    assert not found, f"{page}: machine figures belong in benchmarks/results/: {found}"
