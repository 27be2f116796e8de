"""Every command line the README and docs/ show runs, with tiny sizes, and exits 0.

A command line is a line of a fenced code block, or an inline code span, that starts with
``coltsim``, ``python`` or ``.venv/bin/`` and gives it something to do (a command and an
argument, a script; ``&&`` separates commands on one line).  ``RUNS`` says how each one is run here: its synopsis with every optional flag it shows
given a tiny value, placeholders (``NAME``, ``DIR``, ``FOLDER``, ``N``...) filled in, and the
sizes shrunk; ``MENTIONS`` lists the spans that name a command inside a sentence.  A command
line added to the docs and not classified here fails the first test, so a new example is run
as soon as it is written.

coltsim's commands run in this process (``coltsim.cli.main``) from a scratch folder, so that
nothing is written into the repository; scripts (``python benchmarks/...``) run as written, in a
subprocess, with tiny arguments.  The scripts and the commands that play other tables than the
fast tier's are in the slow tier; those that compile minutes of kernels of their own whatever
their size (the ladder's five tables of searches, training, the policy benchmarks' uncached
counters) run only when asked, ``COLTSIM_BY_HAND=1 pytest -m slow tests/test_doc_commands.py``
(they took 2 to 9 minutes each on the loaded 2-core machine; CI's 15 minutes cannot hold them).
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from coltsim.cli import main

ROOT = Path(__file__).resolve().parents[1]
# docs/benchmarks.md is left out: generated from benchmarks/results/, it records the commands
# each figure was measured with (a script's full-size run, a file of the time), not examples.
DOCS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md")
                                    if p.name != "benchmarks.md")]
REFERENCE = ROOT.parent / "shared" / "bench" / "reference_game.py"
SLOW, SKIP, BY_HAND = "slow", "skip", "by hand"

# Each command line of the docs -> how it runs here: (tier, the command with placeholders:
# {out} a fresh folder, {report} a tiny quickstart report, {trace} a trace file, {root} the
# repository; "" for a skipped one) or (SKIP, the reason).
RUNS = {
    "python3 -m venv .venv": (SKIP, "an installation step: CI installs the same way"),
    ".venv/bin/pip install .": (SKIP, "an installation step (a regular one: an editable "
                                    "install makes setuptools print a warning); CI installs "
                                    "the package the same way, editable"),
    '.venv/bin/pip install -e ".[test,dask,train]"': (SKIP, "an installation step: CI "
                                                            "installs the same way"),
    ".venv/bin/python -m pytest -q -n 2": (SKIP, "the suite itself"),
    ".venv/bin/python -m pytest -q -m slow": (SKIP, "the suite itself"),
    ".venv/bin/coltsim run experiments/quickstart.toml --out my-reports/quickstart":
        (SLOW, "coltsim run experiments/quickstart.toml --games 60 --out {out}"),
    "coltsim report DIR": ("", "coltsim report {report}"),
    "coltsim run my-experiments/half_bonus.toml --out my-reports/half_bonus":
        (SKIP, "the README's own file, which tests/test_cookbook.py loads"),
    "python benchmarks/page.py": ("", "python benchmarks/page.py --check"),
    "coltsim run experiments/NAME.toml [--games N] [--precision H] [--max-games N] "
    "[--workers K] [--out DIR] [--replace] [--quiet]":
        ("", "coltsim run experiments/quickstart.toml --games 60 --precision 0.4 --max-games 80 "
             "--workers 1 --out {out} --replace --quiet"),
    "coltsim report reports/NAME [--repair]": ("", "coltsim report {report} --repair"),
    "coltsim sample-size experiments/NAME.toml [--half-width 0.01] [--difference 0.02] "
    "[--pilot N]":
        ("", "coltsim sample-size experiments/quickstart.toml --half-width 0.01 --difference 0.02 "
             "--pilot 30"),
    "coltsim sample-size experiments/NAME.toml [--half-width 0.01] [--difference 0.02] "
    "[--power 0.8] [--alpha 0.05] [--pilot N] [--workers K]":
        ("", "coltsim sample-size experiments/cheyenne_hand.toml --half-width 0.01 "
             "--difference 0.02 --power 0.8 --alpha 0.05 --pilot 30 --workers 1"),
    "coltsim run FILE": (SLOW, "coltsim run experiments/quickstart.toml --games 60 --out {out}"),
    "coltsim run experiments/quickstart.toml":
        (SLOW, "coltsim run experiments/quickstart.toml --games 60 --out {out}"),
    "coltsim run experiments/NAME.toml            # reports/NAME: the same settings and seed":
        (SLOW, "coltsim run experiments/quickstart.toml --games 60 --out {out}"),
    "coltsim tune experiments/tune_NAME.toml      # a balance search's report":
        (SLOW, "coltsim tune experiments/tune_hand_size.toml --games 50 --max-games 50 "
               "--out {out}"),
    "coltsim tune experiments/tune_NAME.toml [--games N] [--max-games N] [--workers K] "
    "[--out DIR] [--replace]":
        ("", "coltsim tune experiments/tune_hand_size.toml --games 50 --max-games 100 --workers 1 "
             "--out {out} --replace"),
    "coltsim tune experiments/tune_hand_size.toml [--games N] [--max-games N] [--workers K] "
    "[--out DIR] [--replace] [--quiet]":
        (SLOW, "coltsim tune experiments/tune_hand_size.toml --games 50 --max-games 100 "
               "--workers 1 --out {out} --replace --quiet"),
    "coltsim tune experiments/tune_hand_size.toml":
        (SLOW, "coltsim tune experiments/tune_hand_size.toml --games 50 --max-games 50 "
               "--out {out}"),
    "coltsim tune experiments/tune_gunslinger_bonus.toml":
        (SLOW, "coltsim tune experiments/tune_gunslinger_bonus.toml --games 50 --max-games 50 "
               "--out {out}"),
    "coltsim tournament experiments/policy_ladder.toml [--games N] [--workers K] [--csv FILE] "
    "[--quiet]":
        (BY_HAND, "coltsim tournament experiments/policy_ladder.toml --games 2 --workers 1 "
                  "--csv {out}.csv --quiet"),
    "coltsim tournament experiments/policy_ladder.toml":
        (BY_HAND, "coltsim tournament experiments/policy_ladder.toml --games 2"),
    "coltsim run experiments/policy_ladder.toml":
        (BY_HAND, "coltsim run experiments/policy_ladder.toml --games 2 --out {out}"),
    "coltsim simulate --players 4 --games 1000000 --policies greedy --out DIR [--lineup ...] "
    "[--rules JSON] [--params JSON] [--workers K]":
        ("", "coltsim simulate --players 4 --games 1000 --policies greedy --out {out} "
             "--lineup ghost,belle,tuco,doc --rules '{{\"gunslinger_bonus\": 500}}' "
             "--params '{{\"greedy\": {{}}}}' --workers 1"),
    "coltsim trace --players 4 --seed 7 [--game 0] [--lineup ghost,belle,tuco,doc] "
    "[--policies ...] [--rules JSON] [--out game.jsonl]":
        ("", "coltsim trace --players 4 --seed 7 --game 0 --lineup ghost,belle,tuco,doc "
             "--policies greedy --rules '{{\"advanced\": true}}' --out {out}.jsonl"),
    "coltsim trace --from reports/NAME --game N [--setting ID-OR-NAME]":
        ("", "coltsim trace --from {report} --game 3 --setting 'printed rules'"),
    "coltsim trace --from FOLDER --game 5": ("", "coltsim trace --from {report} --game 5"),
    "coltsim show game.jsonl [--every-card]": ("", "coltsim show {trace} --every-card"),
    "coltsim trace ... \\| coltsim show -": ("", "coltsim trace --seed 7 | coltsim show -"),
    "coltsim bench [--players N] [--games N] [--policy NAME] [--json]":
        ("", "coltsim bench --players 3 --games 2000 --policy random --json --no-compile"),
    "coltsim train FOLDER [--players N] [--rules JSON] [--teacher N] [--iterations N] "
    "[--games N] [--hidden linear\\|64,32] [--seed N] [--workers K]":
        (BY_HAND, "coltsim train {out} --players 3 --rules '{{\"hand_size\": 7}}' --teacher 4 "
                  "--iterations 1 --games 40 --hidden linear --seed 1 --workers 1 --share 0.5 "
                  "--match-deals 2 --report-deals 2 --quiet"),
    "coltsim train FOLDER --mix --teacher N":
        (BY_HAND, "coltsim train {out} --mix --teacher 4 --iterations 1 --games 40 --workers 1 "
                  "--share 0.5 --match-deals 2 --report-deals 2 --quiet"),
    "coltsim train FOLDER": (BY_HAND, "coltsim train {out} --iterations 1 --games 40 --share 0.5 "
                                      "--match-deals 2 --report-deals 2 --workers 1 --quiet"),
    "coltsim train FOLDER --iterations 2":
        (BY_HAND, "coltsim train {out} --iterations 2 --games 40 --share 0.5 --match-deals 2 "
                  "--report-deals 2 --workers 1 --quiet"),
    "python benchmarks/search_cost.py --measure strength":
        (BY_HAND, "python benchmarks/search_cost.py --measure strength --deals 2 "
                  "--only w4-h1-learned-32 --results {out}.jsonl"),
    "python benchmarks/search_cost.py --measure speed --speed-games 60":
        (BY_HAND, "python benchmarks/search_cost.py --measure speed --speed-games 2 "
                  "--only w4-h1-learned-32 --results {out}.jsonl"),
    "python benchmarks/search_cost.py --measure strength --only w4-h1-learned-32 --seed N":
        (BY_HAND, "python benchmarks/search_cost.py --measure strength --deals 2 "
                  "--only w4-h1-learned-32 --seed 1 --results {out}.jsonl"),
    "python benchmarks/search_cost.py --measure speed --speed-games 200 --only w4-h1-learned-32 "
    "w4-h1-learned-24":
        (BY_HAND, "python benchmarks/search_cost.py --measure speed --speed-games 2 "
                  "--only w4-h1-learned-32 w4-h1-learned-24 --results {out}.jsonl"),
    "python benchmarks/search_cost.py --measure speed --speed-games 200 --only w4-h1-learned-32 "
    "--results /tmp/speed.jsonl":
        (BY_HAND, "python benchmarks/search_cost.py --measure speed --speed-games 2 "
                  "--only w4-h1-learned-32 --results {out}.jsonl"),
    "python benchmarks/default_players.py":
        (BY_HAND, "python benchmarks/default_players.py --deals 2 --results {out}.jsonl"),
    "python benchmarks/learning_curves.py FOLDER --iteration 1":
        (SKIP, "needs a training's folder: tests/test_learn.py runs it on a tiny training (slow "
               "tier)"),
    "coltsim tune FILE": (SLOW, "coltsim tune experiments/tune_gunslinger_bonus.toml --games 50 "
                              "--max-games 50 --out {out} --quiet"),
    "python benchmarks/state_copy.py": (SLOW, "python benchmarks/state_copy.py --copies 2000 "
                                              "--playouts 20"),
    "python benchmarks/planner_projection.py":
        (SLOW, "python benchmarks/planner_projection.py --games 5"),
    "python scripts/planner_strength.py":
        (SLOW, "python scripts/planner_strength.py --games 2 --bonus-games 2"),
    # the tiny report's folder stands for reports/ (--record never writes the committed ones)
    "python scripts/stale_reports.py": (SLOW, "python scripts/stale_reports.py {report}/.."),
    "python scripts/stale_reports.py --strict     # every report fresh again":
        (SLOW, "python scripts/stale_reports.py {report}/.. --strict"),
    "python scripts/stale_reports.py --record":
        (SLOW, "python scripts/stale_reports.py {report}/.. --record"),
    "coltsim train FOLDER --teacher 64 --mix --start learned --hidden 64,32 --games 40000 "
    "--share 0.25 --seed 20261204":
        (BY_HAND, "coltsim train {out} --teacher 4 --mix --start learned --hidden 8 --games 40 "
                  "--share 0.5 --seed 20261204 --iterations 1 --match-deals 2 --report-deals 2 "
                  "--workers 1 --quiet"),
    "python benchmarks/default_players.py --deals 2000 --seed 20261203 --weights "
    "benchmarks/results/nets/980e59570475.npz":
        (BY_HAND, "python benchmarks/default_players.py --deals 2 --seed 20261203 --weights "
                  "benchmarks/results/nets/980e59570475.npz --results {out}.jsonl"),
    "python benchmarks/engine_speed.py --policy learned --games 20000 --workers 2":
        (SLOW, "python benchmarks/engine_speed.py --policy learned --games 200 --workers 1 "
               "--reference-games 1000"),
    "python benchmarks/engine_speed.py --games 400000 --workers 2":
        (SLOW, "python benchmarks/engine_speed.py --games 200 --workers 1 --reference-games 1000"),
    "python benchmarks/default_players.py --group exploit --deals 50 --weights NET":
        (SLOW, "python benchmarks/default_players.py --group exploit --deals 2 --weights "
               "benchmarks/results/nets/980e59570475.npz --results {out}.jsonl"),
    "python benchmarks/default_players.py --group exploit --deals 2000 --seed 20261203":
        (SLOW, "python benchmarks/default_players.py --group exploit --deals 2 --seed 20261203 "
               "--results {out}.jsonl"),
    "python benchmarks/default_players.py --group top --players 4 --deals 500 --seed 4242 "
    "--top PARAMS":
        (BY_HAND, "python benchmarks/default_players.py --group top --players 4 --deals 2 "
                  "--seed 4242 --top '{{\"budget\": 4}}' --results {out}.jsonl"),
    "python benchmarks/default_players.py --group top --players 4 --deals 2000 --seed 4242 "
    "--top '{\"width\": 3}'":
        (BY_HAND, "python benchmarks/default_players.py --group top --players 4 --deals 2 "
                  "--seed 4242 --top '{{\"width\": 3}}' --results {out}.jsonl"),
    "python benchmarks/search_cost.py --only w4-h1-learned-32 r1-w4-h1-learned-128 --measure speed "
    "--speed-games 200":
        (BY_HAND, "python benchmarks/search_cost.py --only w4-h1-learned-32 r1-w4-h1-learned-128 "
                  "--measure speed --speed-games 2 --results {out}.jsonl"),
    "python benchmarks/search_cost.py --measure speed --speed-games 100 --only LABEL":
        (BY_HAND, "python benchmarks/search_cost.py --measure speed --speed-games 2 "
                  "--only r1-w4-h1-learned-128 --results {out}.jsonl"),
    "python benchmarks/default_players.py --group top --deals 150 --seed 99 --top PARAMS":
        (BY_HAND, "python benchmarks/default_players.py --group top --deals 2 --seed 99 --top "
                  "'{{\"budget\": 4}}' --players 3 --results {out}.jsonl"),
    "python benchmarks/default_players.py --group top --deals 500 --seed 20261203 --players 3,5,6 "
    "--top PARAMS":
        (BY_HAND, "python benchmarks/default_players.py --group top --deals 2 --seed 20261203 "
                  "--players 3 --top '{{\"budget\": 4}}' --results {out}.jsonl"),
    "python benchmarks/default_players.py --group top --deals 500 --seed 20261203 --players "
    "3,4,5,6":
        (BY_HAND, "python benchmarks/default_players.py --group top --deals 2 --seed 20261203 "
                  "--players 4 --results {out}.jsonl"),
    "python benchmarks/default_players.py --group top --deals 500 --seed 20261203 --players 2":
        (BY_HAND, "python benchmarks/default_players.py --group top --deals 2 --seed 20261203 "
                  "--players 2 --results {out}.jsonl"),
    "python benchmarks/default_players.py --deals 2000 --seed 4242 --weights NET":
        (BY_HAND, "python benchmarks/default_players.py --deals 2 --seed 4242 --weights "
                  "benchmarks/results/nets/617809847609.npz --results {out}.jsonl"),
    "python benchmarks/default_players.py --deals 2000 --seed 20261203 --weights "
    "benchmarks/results/nets/617809847609.npz":
        (BY_HAND, "python benchmarks/default_players.py --deals 2 --seed 20261203 --weights "
                  "benchmarks/results/nets/617809847609.npz --results {out}.jsonl"),
    "python benchmarks/default_players.py --group exploit --deals 200 --seed 20261203":
        (SLOW, "python benchmarks/default_players.py --group exploit --deals 2 --seed 20261203 "
               "--results {out}.jsonl"),
    "python benchmarks/distill.py --nets A.npz B.npz C.npz D.npz --merged ENSEMBLE.npz":
        (SLOW, "python benchmarks/distill.py --nets benchmarks/results/nets/980e59570475.npz "
               "benchmarks/results/nets/e30aad4538a9.npz benchmarks/results/nets/7005391f6d05.npz "
               "benchmarks/results/nets/ce6aed6a5703.npz --merged {out}.npz"),
    "coltsim train FOLDER --teacher 8 --mix --start ENSEMBLE.npz --hidden 64,32 --games 60000 "
    "--share 0.25 --seed 20261206 --iterations 1":
        (BY_HAND, "coltsim train {out} --teacher 4 --mix --start "
                  "benchmarks/results/nets/617809847609.npz --hidden 8 --games 40 --share 0.5 "
                  "--seed 20261206 --iterations 1 --match-deals 2 --report-deals 2 --workers 1 "
                  "--quiet"),
    "coltsim train FOLDER --teacher 8 --mix --start ENSEMBLE.npz --hidden 64,32 --games 60000 "
    "--share 0.25 --seed 20261217 --iterations 1":
        (BY_HAND, "coltsim train {out} --teacher 4 --mix --start "
                  "benchmarks/results/nets/617809847609.npz --hidden 8 --games 40 --share 0.5 "
                  "--seed 20261217 --iterations 1 --match-deals 2 --report-deals 2 --workers 1 "
                  "--quiet"),
    "python benchmarks/distill.py FOLDER:1 --nets A.npz B.npz C.npz D.npz --out NET.npz "
    "--epochs 8":
        (SKIP, "needs the folder of a training by a search: tests/test_learn.py runs it on a "
               "tiny one (slow tier)"),
    "python benchmarks/distill.py FOLDER:1 --nets A.npz B.npz C.npz D.npz E.npz --out NET.npz "
    "--epochs 8":
        (SKIP, "needs the folder of a training by a search: tests/test_learn.py runs it on a "
               "tiny one (slow tier)"),
    "coltsim train FOLDER --players 3 --teacher 64 --start coltsim/policies/learned.npz --hidden "
    "64,32 --games 60000 --share 0.25 --seed 20261213 --iterations 1":
        (BY_HAND, "coltsim train {out} --players 3 --teacher 4 --start "
                  "coltsim/policies/learned.npz --hidden 8 --games 40 --share 0.5 "
                  "--seed 20261213 --iterations 1 --match-deals 2 --report-deals 2 --workers 1 "
                  "--quiet"),
    "coltsim train FOLDER --players 3 --teacher T --start coltsim/policies/learned.npz --hidden "
    "64,32 --games G --share 0.25 --seed 20261213 --iterations 1":
        (BY_HAND, "coltsim train {out} --players 3 --teacher 8 --start "
                  "coltsim/policies/learned.npz --hidden 8 --games 40 --share 0.5 "
                  "--seed 20261213 --iterations 1 --match-deals 2 --report-deals 2 --workers 1 "
                  "--quiet"),
    "python benchmarks/fit_pooled.py FOLDER:1 --epochs 4 --seed S [--games 16000] "
    "[--hidden 128,64]":
        (SKIP, "needs the folder of a training by a search: tests/test_learn.py runs it on a "
               "tiny one, --games included (slow tier)"),
    "python benchmarks/regret_by_table.py FOLDER 1 NET.npz --by-round":
        (SKIP, "needs the folder of a training by a search: tests/test_learn.py runs it on a "
               "tiny one (slow tier)"),
    "python benchmarks/last_round.py FOLDER":
        (SKIP, "needs the folder of a training by a search at one table: tests/test_learn.py "
               "runs it on a tiny one (slow tier)"),
    "python benchmarks/teacher_noise.py --players 3,4 --games 1000 --budgets 64":
        (BY_HAND, "python benchmarks/teacher_noise.py --players 3 --games 2 --budgets 4 "
                  "--results {out}.jsonl"),
    "python benchmarks/search_cost.py --measure speed --speed-games 200 --only LABEL":
        (BY_HAND, "python benchmarks/search_cost.py --measure speed --speed-games 2 --only "
                  "lo-w4-h1-learned-32 --results {out}.jsonl"),
    "python benchmarks/default_players.py --group top --deals 150 --weights NET":
        (BY_HAND, "python benchmarks/default_players.py --group top --deals 2 --weights "
                  "benchmarks/results/nets/980e59570475.npz --results {out}.jsonl"),
    "python benchmarks/learning_curves.py FOLDER --iteration 2 --sizes 3e5,1e6,4e6 --hidden "
    "\"64,32;128,64\" --deals 300":
        (SKIP, "needs the folder of a training by a search: tests/test_learn.py runs it on a "
               "tiny one (slow tier)"),
    "python benchmarks/fit_pooled.py big2:1 big2:2 big3:1 --out NET --epochs 5":
        (SKIP, "needs the folders of trainings by a search: tests/test_learn.py runs it on a "
               "tiny one (slow tier)"),
    "python benchmarks/regret_by_table.py FOLDER ITERATION NET.npz":
        (SKIP, "needs the folder of a training by a search: tests/test_learn.py runs it on a "
               "tiny one (slow tier)"),
    "python benchmarks/teachers.py PLAYERS":
        (BY_HAND, "python benchmarks/teachers.py 3 h1 --deals 2 --results {out}.jsonl"),
    "python benchmarks/teacher_noise.py --players 3,2,4 --games 300 --budgets 64,256":
        (BY_HAND, "python benchmarks/teacher_noise.py --players 3 --games 2 --budgets 4 "
                  "--results {out}.jsonl"),
    "python benchmarks/search_training.py FOLDER":
        (SKIP, "needs the folder of a training by a search; its rows in benchmarks/results/ "
               "were made by it"),
    "python scripts/search_strength.py --games 300 --seed 1 --budgets 8 16 32 64 128 256 512":
        (BY_HAND, "python scripts/search_strength.py --games 2 --seed 1 --budgets 8 "
                  "--rollout-budget 4"),
}
# Spans that name a command in a sentence (a command and a flag, or an elided argument).
MENTIONS = {"coltsim simulate --out DIR", "coltsim report --repair", "python benchmarks/...",
            "coltsim trace --from --setting", "coltsim train --rules", "coltsim COMMAND --help",
            "coltsim train --players", "coltsim train --teacher N"}


def doc_command_lines() -> dict:
    """Every command line of the README and docs/ -> the pages that show it."""
    found: dict = {}
    # a program, then what it is given: a script or module, or a command and an argument
    least = {"coltsim": 3, ".venv/bin/coltsim": 3, "python": 2, "python3": 2,
             ".venv/bin/python": 2, ".venv/bin/pip": 2}
    for page in DOCS:
        text = page.read_text()
        lines = [line.strip() for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S)
                 for line in block.splitlines()]
        spans = [" ".join(s.split()) for s in re.findall(r"`([^`\n]+(?:\n[^`\n]+)?)`", text)]
        for line in lines + spans:
            for command in (c.strip() for c in line.split(" && ")):
                words = command.split()
                if words and len(words) >= least.get(words[0], len(words) + 1):
                    found.setdefault(command, []).append(page.name)
    return found


def test_every_command_line_of_the_docs_is_run_here():
    found = set(doc_command_lines())
    assert found - MENTIONS == set(RUNS), (
        f"not classified in RUNS: {sorted(found - MENTIONS - set(RUNS))}; no longer in the "
        f"docs: {sorted(set(RUNS) - found)}")


def test_every_flag_a_synopsis_shows_is_given_when_it_runs():
    for shown, (tier, command) in RUNS.items():
        if tier != SKIP:
            flags = set(re.findall(r"--[a-z-]+", shown.split("|")[0]))
            assert flags <= set(re.findall(r"--[a-z-]+", command)), shown


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A tiny quickstart report (its data kept) and a trace file, for the commands that read
    them."""
    from coltsim.study.folder import ReportFiles

    folder = tmp_path_factory.mktemp("made")
    report, trace = folder / "quickstart", folder / "game.jsonl"
    with pytest.MonkeyPatch.context() as m:  # its figures are not the point: none is rendered
        m.setattr(ReportFiles, "figure", lambda self, name, fig, dpi: None)
        assert main(["run", str(ROOT / "experiments" / "quickstart.toml"), "--games", "40",
                     "--out", str(report), "--quiet"]) == 0
    assert main(["trace", "--seed", "7", "--out", str(trace)]) == 0
    return {"report": report, "trace": trace}


def _param(shown: str):
    tier, command = RUNS[shown]
    asked = os.environ.get("COLTSIM_BY_HAND") == "1"
    marks = {SLOW: [pytest.mark.slow], SKIP: [pytest.mark.skip(reason=command)],
             BY_HAND: [pytest.mark.slow] + ([] if asked else [pytest.mark.skip(
                 reason="minutes of compiling whatever its size: COLTSIM_BY_HAND=1 runs it")])
             }.get(tier, [])
    return pytest.param(shown, marks=marks, id=re.sub(r"[^\w.-]+", "_", shown)[:60])


@pytest.mark.parametrize("shown", [_param(shown) for shown in RUNS])
def test_a_command_line_of_the_docs_runs(shown, made, tmp_path, monkeypatch, capsys):
    command = RUNS[shown][1].format(out=tmp_path / "out", root=ROOT, **made)
    monkeypatch.chdir(tmp_path)  # default outputs (reports/NAME) land here, not in the repository
    if command.startswith("python "):
        argv = shlex.split(command)[1:]
        if argv[0].startswith("../shared/") and not REFERENCE.exists():
            pytest.skip(f"{REFERENCE} is not on this machine")
        script = REFERENCE if argv[0].startswith("../shared/") else ROOT / argv[0]
        done = subprocess.run([sys.executable, str(script), *argv[1:]], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip(), "it printed nothing"
        return
    first, _, second = command.partition(" | ")
    argv = [a.replace("experiments/", f"{ROOT}/experiments/", 1) if a.startswith("experiments/")
            else a for a in shlex.split(first)[1:]]
    assert main(argv) == 0, capsys.readouterr().err
    if second:  # a pipe: the first command's output is the second's input
        import io

        monkeypatch.setattr("sys.stdin", io.StringIO(capsys.readouterr().out))
        assert main(shlex.split(second)[1:]) == 0, capsys.readouterr().err
    if argv[0] in ("trace", "show", "tournament", "bench", "sample-size", "plan") \
            and "--out" not in argv:
        assert capsys.readouterr().out, "it printed nothing"
