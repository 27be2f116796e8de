"""docs/notebook.md runs as written: every Python block, in order, in one namespace."""
import re
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "notebook.md"


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_notebook_walk_through_runs(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)  # the walk-through reads experiments/ as from a clone
    code = blocks()
    assert len(code) >= 8
    namespace: dict = {}
    for i, block in enumerate(code):
        exec(compile(block, f"{DOC.name}[block {i}]", "exec"), namespace)
    out = capsys.readouterr().out
    # What the walk-through shows is what it says it shows.
    assert "=== Round 1" in out
    spread, answer = namespace["spread"], namespace["answer"]
    assert len(spread) == 1 and spread["lo"].iloc[0] < spread["spread"].iloc[0]
    assert answer["strongest"].iloc[0] == spread["strongest"].iloc[0]
    assert answer["spread"].iloc[0] == spread["spread"].iloc[0]
    assert "Every bandit's win rate within ±1.0 points" in out
    assert namespace["found"].best == 0
    rates = namespace["rates"]
    assert isinstance(rates, pd.DataFrame) and set(rates["bandit"]) == set(namespace["naive"].index)
    assert namespace["balance"].win_rates(namespace["saved"]).equals(rates)
