"""docs/cookbook.md's recipes are valid files: every TOML block of the page loads as an experiment
(or, with a [tune] table, as a tune file) with the project's own validation, and names the
question it asks; so a renamed key or option, or a policy parameter out of bounds, fails here
rather than in a designer's hands.  The same for the README's experiment and docs/policies.md's
fragments."""
import re
from pathlib import Path

import pytest

from coltsim.study.experiment import loads_experiment
from coltsim.study.tune.search import loads_tune

DOC = Path(__file__).resolve().parents[1] / "docs" / "cookbook.md"
BLOCKS = re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_cookbook_has_recipes():
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("block", BLOCKS, ids=[re.search(r'name = "([^"]+)"', b).group(1)
                                                 if 'name = "' in b else "?" for b in BLOCKS])
def test_every_recipe_is_a_valid_file(block):
    if re.search(r"^\[tune\]", block, re.M):
        spec = loads_tune(block, source="cookbook")
        experiment = spec.experiment
    else:
        experiment = loads_experiment(block, source="cookbook")
    assert experiment.description.endswith(("?", ".")), "a recipe says what it asks"
    assert experiment.settings


def test_the_policy_guides_fragments_are_valid():
    """docs/policies.md's TOML fragments, completed into a file (a name, games, and a setting when
    the fragment has none), load."""
    text = (DOC.parent / "policies.md").read_text(encoding="utf-8")
    fragments = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert fragments
    for fragment in fragments:
        settings = "" if "[[settings]]" in fragment else "\n[sweep]\nplayers = [4]\n"
        loads_experiment('name = "x"\ngames = 10\n' + fragment + settings, source="policies.md")


def test_the_readmes_experiment_is_valid():
    text = (DOC.parents[1] / "README.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```toml\n(.*?)```", text, re.S)
    experiment = loads_experiment(block, source="README.md")
    assert [(s.players, s.label) for s in experiment.settings] == [
        (4, "printed rules"), (4, "a $500 bonus"), (5, "printed rules"), (5, "a $500 bonus")]
