"""The designer's workflow around `coltsim run`: growing a run, asking for a precision instead
of a game count, and what the run says while it works (the compile notice, one progress bar
named by the settings' labels)."""
import os
import subprocess
import sys

import pandas.testing as pdt
import pytest

import coltsim
from coltsim import _jit
from coltsim.analysis.headline import precision
from coltsim.cli import main
from coltsim.study.experiment import ExperimentError, loads_experiment
from coltsim.study.run import run_experiment

# Random players are the fastest; the two settings are compared on the same deals (the headline's
# two analyses: every section is test_report's).
BONUS = """
name = "bonus"
seed = 4
games = 2000
analyses = ["balance", "compare"]

[sweep]
players = [4]
policies = ["random"]

[sweep.rules]
gunslinger_bonus = [1000, 0]
"""


def write(tmp_path, text, name="bonus.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def data_of(folder):
    return coltsim.load_results(folder / "data")


# --- growing ------------------------------------------------------------------------------------
def test_coltsim_run_grows_a_report_to_what_a_fresh_run_would_hold(tmp_path, capsys):
    """`coltsim run --games 4000` of a report run with 2,000 plays games 2,000..3,999 only:
    the data equal a fresh 4,000-game run, players and games tables alike."""
    path = write(tmp_path, BONUS)
    grown, fresh = tmp_path / "grown", tmp_path / "fresh"
    assert main(["run", str(path), "--out", str(grown), "--quiet"]) == 0
    assert main(["run", str(path), "--out", str(grown), "--games", "4000", "--workers", "2"]) == 0
    err = capsys.readouterr().err
    assert "2 settings x 4,000 games (4,000 to play)" in err  # 2,000 more in each setting
    for s in loads_experiment(BONUS).settings:
        coltsim.simulate_to_folder(s, 4000, fresh, seed=4, progress=False)
    a, b = data_of(grown), coltsim.load_results(fresh)
    pdt.assert_frame_equal(a.players, b.players)
    pdt.assert_frame_equal(a.games, b.games)
    assert a.games.groupby("setting", observed=True).size().tolist() == [4000, 4000]
    assert "8,000 games in 2 settings" in (grown / "report.md").read_text()


def test_coltsim_run_refuses_to_shrink_or_change_a_run(tmp_path, capsys):
    path = write(tmp_path, BONUS.replace("games = 2000", "games = 600"))
    out = tmp_path / "r"
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr().err == f"report: {out / 'report.md'}\n"  # quiet: the path only
    assert main(["run", str(path), "--out", str(out), "--games", "500", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "holds a run of 600 games, this one asks for 500; a run grows but never shrinks: " \
           "ask for 600 games or more, or use a new folder" in err
    assert "\n" not in err
    assert main(["run", str(write(tmp_path, BONUS.replace("seed = 4", "seed = 5"))), "--out",
                 str(out), "--games", "900", "--quiet"]) == 2
    assert "holds the report of experiment 'bonus' with another seed (setting p4-random-" in \
        capsys.readouterr().err
    assert len(data_of(out).games) == 1200  # both settings still at 600 games


# --- precision ----------------------------------------------------------------------------------
PRECISE = BONUS.replace("games = 2000", "games = 300\nprecision = 0.06")


def test_a_precision_run_stops_when_every_headline_interval_is_narrow_enough(tmp_path, capsys):
    report = run_experiment(write(tmp_path, PRECISE), out=tmp_path / "r")
    err = capsys.readouterr().err
    rounds = [line for line in err.splitlines() if line.startswith("round ")]
    assert len(rounds) >= 2, err  # 300 games are not enough: the run grew
    assert rounds[-1].endswith("target reached") and "target reached" not in rounds[-2]
    results = data_of(tmp_path / "r")
    widths = precision(results)
    assert widths["half_width"].max() <= 0.06
    counts = results.games.groupby("setting", observed=True).size()
    assert counts.nunique() == 1 and counts.iloc[0] > 300  # every setting grew alike
    # each bandit's effect and the spread in each setting, and the comparison's change
    assert set(widths["interval"]) >= {"spread", "change of the spread", "Belle's effect"}
    assert len(widths) == 2 * 6 + 2 + 1
    sentences = [b for b in report.headline if isinstance(b, str)]
    assert sentences[-1].startswith(
        f"Precision: every win-rate interval of the headline is within ±6.00 points, as asked, "
        f"with {counts.iloc[0]:,} games per setting; the widest is ±"
        f"{100 * widths['half_width'].max():.2f} points")
    assert (tmp_path / "r" / "tables" / "precision.csv").is_file()


def test_a_precision_run_stops_at_its_cap_and_says_so(tmp_path, capsys):
    path = write(tmp_path, BONUS.replace("games = 2000", "games = 300"))
    assert main(["run", str(path), "--out", str(tmp_path / "r"), "--precision", "0.001",
                 "--max-games", "500"]) == 0
    err = capsys.readouterr().err
    assert "round 2: 500 games per setting" in err and "the cap of 500 games is reached" in err
    assert len(data_of(tmp_path / "r").games) == 1000
    text = (tmp_path / "r" / "report.md").read_text()
    assert "Precision: ±0.10 points asked, not reached within the cap of 500 games per " \
           "setting" in text


@pytest.mark.parametrize("text, words", [
    ("precision = 0", "precision: must be a win-rate half-width above 0 and at most 0.5"),
    ('precision = "1 point"', "precision: must be a win-rate half-width"),
    ("max_games = 5000", "max_games: caps a run asked for a precision; give precision too"),
    ("precision = 0.01\nmax_games = 100", r"max_games: must be at least games \(2,000\)"),
])
def test_precision_mistakes_are_one_line(text, words):
    with pytest.raises(ExperimentError, match=words):
        loads_experiment(BONUS.replace("games = 2000", f"games = 2000\n{text}"), "x.toml")


def test_a_precision_needs_no_game_count():
    e = loads_experiment(BONUS.replace("games = 2000", "precision = 0.01"))
    assert (e.games, e.precision, e.max_games) == (2000, 0.01, 1_000_000)
    with pytest.raises(ExperimentError, match="games: missing; give the number of games per "
                                              "setting .*, or a precision to reach"):
        loads_experiment(BONUS.replace("games = 2000", ""))


# --- feedback -----------------------------------------------------------------------------------
def test_the_compile_estimate_is_what_the_project_machine_measured():
    """coltsim/compile_times.json (benchmarks/compile_time.py --record): each part a ratio to
    the reference game's compile measured beside it; a first start compiles its parts one
    after another, so its estimate is their sum."""
    record = _jit.compile_times()
    assert record["machine"] == "the project's 2-core machine"
    assert set(record["ratios"]) >= {"engine", "kernel", "weighted", "planner", "learned",
                                     "rollout", "ismcts"}
    assert 1 < record["reference_seconds"] < 60 and record["command"].startswith("python ")
    fake = {"ratios": {"engine": 10, "kernel": 1, "planner": 4, "weighted": 2, "ismcts": 12},
            "reference_seconds": 2.0, "machine": "m"}
    assert _jit.compile_estimate(["kernel", "engine", "planner"], fake) == 30
    assert _jit.compile_estimate(["engine", "ismcts", "weighted", "kernel"], fake) == 50
    assert [_jit._rounded(s) for s in (0.2, 7.4, 19.6, 81.2)] == [1, 7, 20, 80]


_FIRST_START = """
from numba.core import event
from coltsim import make_setting
from coltsim.runs.runner import chunk_job, load_kernel

stack, seen = [], []
class Listener(event.Listener):  # every unit compiled: (the unit that compiles it, its name)
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        name = f.__name__ if (f.__module__ or "").startswith("coltsim") else "numba's"
        seen.append((stack[0] if stack else "", name))
        stack.append(name)
    def on_end(self, ev):
        stack.pop()
event.register("numba:compile", Listener())
load_kernel(chunk_job(make_setting(4, policies="learned"), 1))
print(repr(seen))
"""


@pytest.mark.slow
def test_a_first_start_compiles_each_unit_once(tmp_path):
    """From an empty cache, the first game of ``learned``'s table compiles its kernel, and
    within it the engine and the chooser, each once: the dispatch on the deciding seat is
    inlined, no unit of its own (``<lambda>`` are the overloads' bodies; a few small units are
    compiled for two signatures)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", _FIRST_START], env=env, check=True,
                         capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
    seen = eval(out.strip().splitlines()[-1])
    assert [n for top, n in seen if top == ""] == ["_batch"]
    units = [n for _, n in seen]
    for unit in ("_batch", "step", "apply", "model_learned", "greedy_choice", "encode",
                 "net_values", "setup_game", "score_game"):
        assert units.count(unit) == 1, (unit, units)


def test_the_first_compile_is_announced_once(tmp_path, monkeypatch, capsys):
    """coltsim's own record of compiled kernels (not numba's files) decides the notice."""
    record = tmp_path / "coltsim-compiled.txt"
    monkeypatch.setattr(_jit, "_record", lambda: record)
    setting = coltsim.make_setting(4, policies="random")
    coltsim.simulate(setting, 10, workers=1)
    seconds = _jit.compile_estimate(["engine", "random", "kernel"])
    notice = (f"compiling the engine, random and the kernel of a table of random (once for "
              f"this version of coltsim: about {_jit._rounded(seconds)} s on the project's "
              "2-core machine when it is idle, longer on a busy or slower one)")
    assert notice in capsys.readouterr().err
    assert record.read_text().splitlines()[0] == "engine"
    coltsim.simulate(setting, 10, workers=1)
    assert "compiling" not in capsys.readouterr().err
    coltsim.simulate(setting, 10, workers=1, progress=False)
    assert capsys.readouterr().err == ""
    # Another policy: only what is new is named (the engine is compiled).
    coltsim.simulate(coltsim.make_setting(4, policies=["random", "greedy"] * 2), 10, workers=1)
    assert "compiling greedy and the kernel of a table of " in capsys.readouterr().err
    # a trace has a kernel of its own
    assert main(["trace", "--policies", "random", "--out", str(tmp_path / "t.jsonl")]) == 0
    assert main(["trace", "--policies", "random", "--out", str(tmp_path / "t.jsonl")]) == 0
    assert capsys.readouterr().err.count("compiling") == 1


def test_a_new_kernel_counts_every_policy_of_its_table(monkeypatch):
    """A kernel links the code of its table's policies and optimises it again: a table of a
    search whose parts were compiled for other tables is announced by its policies, with the
    time of its kernel and of every policy at it, not the kernel's alone (which said "about 3
    s" for a search table that compiled for minutes)."""
    fake = {"ratios": {"engine": 10, "kernel": 1, "planner": 4, "learned": 3, "ismcts": 12},
            "reference_seconds": 2.0, "machine": "m"}
    monkeypatch.setattr(_jit, "compile_times", lambda: fake)
    parts = ("engine", "ismcts", "planner", "learned", "kernel batch ismcts:planner:planner|learned")
    monkeypatch.setattr(_jit, "compiled", lambda part: not part.startswith("kernel"))
    assert _jit.compile_notice(parts) == (
        "compiling the kernel of a table of ismcts (with planner) and learned (once for this "
        "version of coltsim: about 40 s on m when it is idle, longer on a busy or slower one)")
    monkeypatch.setattr(_jit, "compiled", lambda part: False)  # from an empty cache: each once
    assert "the engine, ismcts, planner, learned and the kernel of a table of ismcts (with " \
           "planner) and learned (once for this version of coltsim: about 60 s on m" in \
           _jit.compile_notice(parts)


def test_the_programs_cache_folder_is_named_by_the_sources(tmp_path, monkeypatch):
    """The coltsim program keeps numba's cache in coltsim-<hash of the compiled sources>, in the
    folder $NUMBA_CACHE_DIR names (or it, when it is keyed already), else in the user's cache
    folder: an edit of the sources is another folder, never stale code; only there does
    coltsim keep its record of compiles."""
    from coltsim import _sources

    name = f"coltsim-{_sources.source_hash()}"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert _sources.keyed_cache_dir() == str(tmp_path / name)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / name))
    assert _sources.keyed_cache_dir() == str(tmp_path / name)
    assert _jit._record() == tmp_path / name / "coltsim-compiled.txt"
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    assert _sources.keyed_cache_dir() == str(tmp_path / "home" / name)
    assert _jit._record() is None  # numba's own folders: no record, no notice
    monkeypatch.setattr(_sources, "source_hash", lambda: "0" * 12)  # an edit
    assert _sources.keyed_cache_dir() == str(tmp_path / "home" / "coltsim-000000000000")


def test_one_progress_bar_names_each_setting_by_its_label(tmp_path, capsys):
    text = BONUS.replace("games = 2000", "games = 200") + \
        '\n[sweep.label]\ngunslinger_bonus = ["as printed", "no bonus"]\n'
    run_experiment(write(tmp_path, text), out=tmp_path / "r")
    err = capsys.readouterr().err
    assert "bonus: 2 settings x 200 games (400 to play)" in err
    assert "[1/2] as printed" in err and "[2/2] no bonus" in err
    assert "/400" in err.replace("\r", "\n")  # one bar over both settings
    assert "p4-random-" not in err  # no setting ids
