"""The fault matrix of "promises kept under faults, round 2": each fault a test.

- small samples told honestly: no interval and no test from one game, never significant, said
  as "too few games (n = N)", never the headline's answer; a run of 1 or 4 games builds its
  report without a warning and writes no NaN;
- shares: never "0.000 (0.000 to 0.000)", never below 0;
- bounds on every number a policy takes (a budget of 10^20 is one line);
- ``coltsim show`` checks what it reads;
- a Dask worker with one thread receives the chunks;
- signals (slow tier: real processes): Ctrl-C to the process group at any moment of
  ``coltsim run`` is one line and exit 130 (0 once the report is complete), ``kill -9`` of the
  main process leaves no process or ``/dev/shm`` file behind, a long search answers Ctrl-C
  within a second;
- a damaged compiled cache is compiled again, with a one-line warning.
"""
import copy
import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import coltsim
from coltsim._sources import source_hash
from coltsim.analysis import stats
from coltsim.analysis._common import with_adjustment
from coltsim.cli import main
from coltsim.policies import catalog
from coltsim.setting import make_setting
from coltsim.study.report.formatting import pct_ci, usd_ci

GOLDEN = Path(__file__).parent / "golden" / "p4_seed7.jsonl"
DOCS = Path(__file__).parents[1] / "docs"


def _experiment(path: Path, games: int, players: int = 3, policies: str = "greedy") -> Path:
    path.write_text(f'name = "faults"\ndescription = "a small run"\nseed = 1\ngames = {games}\n'
                    f'[sweep]\nplayers = [{players}]\npolicies = ["{policies}"]\n')
    return path


# --- small samples -------------------------------------------------------------------------------
def test_one_game_on_a_side_gives_no_interval_no_test_and_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sd = stats.sample_sd([933.0])
        d, lo, hi, p = stats.welch_difference(933.0, sd, 1, 1683.0, 400.0, 3)
        assert d == -750.0 and np.isnan([lo, hi, p]).all()
        assert np.isnan(stats.mean_interval(1.5, sd, 1)).all()
        # Zero spread on both sides of two games each is still a test that is certain.
        assert stats.welch_difference(1.0, 0.0, 2, 0.0, 0.0, 2)[3] == 0.0


def test_a_fit_with_no_more_rows_than_coefficients_has_an_estimate_without_interval():
    X = np.array([[1, 0, 1], [1, 1, 0], [1, 0, 0]], np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = stats.ols([1.0, 0.0, 0.5], X, groups=[0, 1, 2], influence=True)
        e = fit.contrast([0, 1, -1])
    assert math.isfinite(e.estimate) and math.isnan(e.lo) and math.isnan(e.p)
    one_cluster = stats.ols([1.0, 0.0, 0.5, 0.2], np.ones((4, 1)), groups=[3, 3, 3, 3])
    assert np.isnan(one_cluster.cov).all()


def test_a_row_without_an_interval_is_never_significant():
    table = pd.DataFrame({"effect": [-750.0, 10.0], "lo": [np.nan, 5.0], "hi": [np.nan, 15.0],
                          "p_value": [0.0, 0.001]})
    out = with_adjustment(table, "holm")
    assert out["significant"].tolist() == [False, True]
    nan_p = with_adjustment(table.assign(p_value=[np.nan, 0.001]), "holm")
    assert nan_p["significant"].tolist() == [False, True]


def test_a_cell_without_an_interval_says_too_few_games():
    assert usd_ci(-750.0, np.nan, np.nan, signed=True, n=1) == "too few games (n = 1)"
    assert pct_ci(0.5, np.nan, np.nan) == "too few games"
    assert usd_ci(-750.0, None, None, signed=True) == "-$750"  # a bare number, as asked


def _tables(folder: Path) -> dict:
    return {p.name: pd.read_csv(p) for p in sorted((folder / "tables").glob("*.csv"))}


def _no_nan_text(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.suffix in (".csv", ".json", ".md", ".html"):
            text = re.sub(r"base64,[A-Za-z0-9+/=]+", "", path.read_text(encoding="utf-8"))
            assert not re.search(r"\bnan\b|\binf\b|NaN|Infinity", text), path


@pytest.mark.parametrize("games", [1, 4])
def test_a_tiny_run_is_told_honestly(tmp_path, capsys, games):
    """3 players, greedy: 4 games gave 26 rows "significant" with NaN bounds and a headline
    card seen in one game, with numpy's warnings; 1 game failed after playing."""
    out = tmp_path / "report"
    assert main(["run", str(_experiment(tmp_path / "tiny.toml", games)), "--out", str(out),
                 "--workers", "1", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"report: {out}/report.md"], err
    tables = _tables(out)
    for name, t in tables.items():
        if "significant" in t and "lo" in t:
            sig = t[t["significant"]]
            assert np.isfinite(sig[["lo", "hi"]].to_numpy(float)).all(), name
    head = tables["headline.csv"].iloc[0]
    if isinstance(head["top_card"], str):
        cards = tables["cards_effects.csv"]
        top = cards[(cards["card"] == head["top_card"]) & (cards["metric"] == "mean_score")]
        assert np.isfinite(top[["lo", "hi"]].to_numpy(float)).all()
        assert top["n_with"].min() >= 2
    report = (out / "report.md").read_text()
    assert "too few games (n = " in report
    _no_nan_text(out)
    if games == 1:  # the headline names no strongest bandit and no card from one game
        balance = next(line for line in report.splitlines()
                       if line.startswith("> Greedy players: strongest"))
        assert balance.endswith("3 players: too few games (n = 1).")
        assert "No round or station card moves the mean score" in report


def test_a_share_with_no_spread_has_an_interval_and_none_below_zero():
    table = make_setting(4, policies=["greedy", "random", "random", "random"])
    shares = coltsim.tournament(table, games=3, seed=3, workers=1).set_index("policy")
    # Greedy won every game of the 3 deals: no spread over deals, yet an interval.
    assert shares.loc["greedy", "win_rate"] == 1.0 and shares.loc["random", "win_rate"] == 0.0
    assert shares.loc["random", "ci_low"] == 0.0 and shares.loc["random", "ci_high"] > 0.3
    assert 0.3 < shares.loc["greedy", "ci_low"] < 1.0
    near_zero = coltsim.tournament(table, games=3, seed=0, workers=1).set_index("policy")
    assert 0 < near_zero.loc["random", "win_rate"] < 0.05
    assert near_zero.loc["random", "ci_low"] == 0.0  # (the normal interval's -0.03, kept in)
    assert (near_zero[["ci_low", "ci_high"]].to_numpy() <= 1.0).all()
    same = coltsim.tournament(make_setting(4, policies="random"), games=3, workers=1)
    assert same["ci_low"].iloc[0] == same["ci_high"].iloc[0] == 0.25  # exact by construction


def test_a_tournament_writes_no_nan_and_no_interval_of_one_number(tmp_path, capsys):
    toml = tmp_path / "ladder.toml"
    toml.write_text('name = "ladder"\ndescription = "greedy against random"\nseed = 3\n'
                    'games = 3\n[[settings]]\nplayers = 4\n'
                    'policies = ["greedy", "random", "random", "random"]\n')
    csv = tmp_path / "shares.csv"
    assert main(["tournament", str(toml), "--workers", "1", "--csv", str(csv)]) == 0
    printed = capsys.readouterr().out
    assert not re.search(r"nan|inf", printed, re.IGNORECASE), printed
    shares = pd.read_csv(csv)
    assert shares[["ci_low", "ci_high", "p_value"]].notna().all().all()
    assert (shares["ci_high"] > shares["ci_low"]).all() and (shares["ci_low"] >= 0).all()


# --- bounds ---------------------------------------------------------------------------------------
def test_every_parameter_of_every_policy_has_bounds_and_the_docs_state_them():
    text = (DOCS / "policies.md").read_text()
    bounds = text.split("### Bounds on the parameters")[1].split("\n### ")[0]
    for policy in catalog.POLICIES.values():
        for p in policy.params:
            assert p.choices or (p.minimum is not None and p.maximum is not None), \
                (policy.name, p.name)
    for name in ("budget", "horizon", "temperature", "exploration", "margin", "tau",
                 "playout", "opponents", "MAX_BUDGET", "MAX_HORIZON", "MAX_WEIGHT"):
        assert f"`{name}`" in bounds, name
    assert f"{catalog.MAX_BUDGET:,}" in bounds and f"0 to {catalog.MAX_HORIZON}" in bounds


@pytest.mark.parametrize("params, says", [
    ({"ismcts": {"budget": 10**20}}, "budget must be at most 100,000"),
    ({"ismcts": {"budget": 9_007_199_254_740_993}}, "budget must be at most 100,000"),
    ({"ismcts": {"horizon": 9}}, "horizon must be at most 8"),
    ({"ismcts": {"exploration": -1}}, "exploration must be >= 0"),
    ({"ismcts": {"margin": 1e300}}, "margin must be at most 1e+09"),
    ({"rollout": {"budget": 0}}, "budget must be >= 1"),
    ({"weighted": {"fire": -1e12}}, "fire must be >= -1e+09"),
    ({"planner": {"tau": -0.5}}, "tau must be >= 0"),
])
def test_a_number_out_of_bounds_is_one_line_before_anything_is_played(capsys, params, says):
    policy = next(iter(params))
    start = time.perf_counter()
    assert main(["trace", "--policies", policy, "--params", json.dumps(params)]) == 2
    assert time.perf_counter() - start < 5
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and says in out.err


# --- coltsim show ---------------------------------------------------------------------------------
def _edit(lines, kind, edit):
    lines = copy.deepcopy(lines)
    edit(next(line for line in lines if line["type"] == kind))
    return lines


EDITS = {
    "6 players": ("setup", lambda s: s.update(players=6), "6 players need 6 different bandits"),
    "3 players": ("setup", lambda s: s.update(players=3), "3 players need 3 different bandits"),
    "7 players": ("setup", lambda s: s.update(players=7), "players is 7"),
    "a bandit twice": ("setup", lambda s: s["bandits"].__setitem__(1, "ghost"),
                       "need 4 different bandits"),
    "an unknown bandit": ("setup", lambda s: s["bandits"].__setitem__(0, "zorro"),
                          "unknown 'zorro'"),
    "an unknown round card": ("setup", lambda s: s["round_cards"].__setitem__(0, "hurricane"),
                              "unknown 'hurricane'"),
    "an unknown event": ("event", lambda e: e.update(name="earthquake"), "unknown 'earthquake'"),
    "another round's event": ("event", lambda e: e.update(name="braking"),
                              "event braking in a round of"),
    "an unknown card": ("action", lambda a: a.update(card="lasso"), "unknown 'lasso'"),
    "an unknown card in a hand": ("round", lambda r: r["hands"][0].__setitem__(0, "lasso"),
                                  "unknown 'lasso'"),
    "a First Player who is not playing": ("setup", lambda s: s.update(first_player=5),
                                          "first_player 5"),
    "a round with another First Player": ("round", lambda r: r.update(
        first_player=(r["first_player"] + 1) % 4), "the First Player passes clockwise"),
    "a bandit's field misspelt in a state": (
        "action", lambda a: a["state"]["bandits"][0].update(lewel=a["state"]["bandits"][0].pop(
            "level")), "bandit 0 fields ['bullets_left', 'bullets_received', 'car', 'lewel'"),
    "a number where a state's list goes": ("action", lambda a: a["state"].update(box=7),
                                           "not shaped as docs/TRACE.md says (TypeError"),
}


@pytest.mark.parametrize("case", list(EDITS))
def test_show_tells_no_trace_that_does_not_hold(tmp_path, capsys, case):
    lines = [json.loads(x) for x in GOLDEN.read_text().splitlines()]
    kind, edit, says = EDITS[case]
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in _edit(lines, kind, edit)))
    assert main(["show", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1, out.err
    assert says in out.err and str(path) in out.err


def _swap_plans(name, first_two_play):
    """A golden trace with two plan lines swapped: a player's second play of a speeding-up turn
    and the next player's draw (``first_two_play``), or two draws of a normal turn by two
    players; and the bandits of the two players."""
    lines = [json.loads(x) for x in (GOLDEN.parent / name).read_text().splitlines()]
    letters = []
    for i in range(len(lines) - 2):
        a, b, c = lines[i:i + 3]
        if a["type"] == "round":
            letters = a["turns"]
        if not all(x["type"] == "plan" for x in (a, b)) or a["turn"] != b["turn"]:
            continue
        if first_two_play and letters[a["turn"]] == "D" and c["type"] == "plan" \
                and a["player"] == b["player"] != c["player"] and c["turn"] == a["turn"] \
                and a["choice"] == b["choice"] == "play" and c["choice"] == "draw":
            lines[i + 1], lines[i + 2] = c, b
            return lines, [lines[0]["bandits"][p] for p in (a["player"], c["player"])]
        if not first_two_play and letters[a["turn"]] == "N" and a["player"] != b["player"] \
                and a["choice"] == b["choice"] == "draw":
            lines[i], lines[i + 1] = b, a
            return lines, [lines[0]["bandits"][p] for p in (a["player"], b["player"])]
    raise AssertionError(f"{name} has no such turn")


@pytest.mark.parametrize("name, first_two_play, bandits", [
    ("p5_seed2.jsonl", True, ["django", "doc"]),
    ("p4_seed7.jsonl", False, ["belle", "tuco"]),
], ids=["a speeding-up turn's two plays and a draw", "two draws of a normal turn"])
def test_show_tells_no_game_whose_plans_are_out_of_turn(tmp_path, capsys, name, first_two_play,
                                                        bandits):
    """Two plan lines swapped: every card is still in its place, but the players did not take
    their turns in that order (issue 38, 8)."""
    lines, swapped = _swap_plans(name, first_two_play)
    assert swapped == bandits  # the cases
    path = tmp_path / "swapped.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["show", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1, out.err
    assert str(path) in out.err and "out of turn" in out.err


def test_show_tells_the_trace_coltsim_wrote(capsys):
    assert main(["show", str(GOLDEN)]) == 0
    assert "Players, clockwise" in capsys.readouterr().out


# --- Dask -----------------------------------------------------------------------------------------
def test_a_dask_worker_with_one_thread_receives_the_chunks():
    distributed = pytest.importorskip("distributed")
    setting = make_setting(4, policies="random")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster.scheduler_address) as client, \
            distributed.get_task_stream(client=client) as stream:
        r = coltsim.simulate(setting, 900, seed=4, chunk_size=300, backend="dask",
                             scheduler=cluster.scheduler_address, progress=False)
    assert len(stream.data) == 3  # each chunk a task of the worker
    local = coltsim.simulate(setting, 900, seed=4, workers=1, progress=False)
    pd.testing.assert_frame_equal(r.players, local.players)


# --- signals ----------------------------------------------------------------------------------
def test_a_long_call_in_the_main_thread_answers_an_interrupt_at_once(monkeypatch):
    from coltsim import _process

    monkeypatch.setattr(_process, "PROGRAM", threading.Event())
    _process.PROGRAM.set()  # (as the coltsim program sets it)
    # Ctrl-C raises in the main thread, as the program's handler does (an earlier test of the
    # whole suite may have left this process another SIGINT handler: the test failed there)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.3, lambda: __import__("_thread").interrupt_main()).start()
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            _process.interruptible(time.sleep, 10)
        assert time.perf_counter() - start < 1.0
    finally:
        signal.signal(signal.SIGINT, previous)


def _coltsim(*args) -> subprocess.Popen:
    """``coltsim ARGS`` in a session of its own (a terminal's process group)."""
    return subprocess.Popen([sys.executable, "-c", "from coltsim._entry import program; program()",
                             *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


class _Stderr:
    """A process's standard error as it comes, with the time each piece arrived."""

    def __init__(self, proc):
        self.pieces: list = []
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc):
        while chunk := proc.stderr.read1(4096):
            self.pieces.append((time.perf_counter(), chunk))

    def text(self) -> str:
        return b"".join(c for _, c in self.pieces).decode(errors="replace")

    def when(self, needle: str, timeout: float = 600) -> float | None:
        """The time ``needle`` first arrived (waiting for it up to ``timeout`` s)."""
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            seen = b""
            for t, c in list(self.pieces):
                seen += c
                if needle.encode() in seen:
                    return t
            if not self.thread.is_alive():
                return None
            time.sleep(0.02)
        return None


def _left_behind(proc) -> list:
    """Processes of ``proc``'s session still running (zombies aside) and its ``/dev/shm`` files
    (joblib's folders and loky's semaphores carry the main process's id)."""
    ps = subprocess.run(["ps", "-eo", "pid,sid,stat,args"], capture_output=True, text=True).stdout
    left = [row for row in ps.splitlines()[1:]
            if row.split()[1] == str(proc.pid) and not row.split()[2].startswith("Z")]
    shm = [n for n in os.listdir("/dev/shm") if f"-{proc.pid}-" in n or f"_{proc.pid}_" in n]
    return left + shm


def _lines(err: str) -> list:
    """Standard error's lines without progress bars (the last state of a redrawn line)."""
    lines = [line.split("\r")[-1] for line in err.split("\n")]
    return [line for line in lines if line.strip() and "game/s]" not in line
            and not line.startswith("compiling ")]


# The moments of a run, as (what it says before them, seconds after that): starting the workers,
# playing, writing the report, after "report:".
MOMENTS = [("to play)", 0.5), ("to play)", 1.5), ("to play)", 3.0),
           ("to play)", 6.0), ("to play)", 12.0), ("report:", 0.0),
           ("report:", 0.2)]


@pytest.mark.slow
@pytest.mark.parametrize("after, seconds", MOMENTS)
def test_ctrl_c_to_the_process_group_at_any_moment_of_a_run_is_one_line(tmp_path, after,
                                                                         seconds):
    toml = _experiment(tmp_path / "run.toml", 20_000, players=4)
    proc = _coltsim("run", str(toml), "--out", str(tmp_path / "out"), "--workers", "2")
    err = _Stderr(proc)
    assert err.when(after) is not None, err.text()
    time.sleep(seconds)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    proc.wait(60)
    err.thread.join(30)
    lines = _lines(err.text())
    done = (tmp_path / "out" / "manifest.json").exists() and "report:" in err.text()
    assert proc.returncode == (0 if done else 130), lines
    assert lines[0].startswith("faults: 1 setting x 20,000 games")
    said = lines[1:]
    assert len(said) == 1, lines
    assert said[0].startswith("report:" if done else "coltsim run: interrupted"), lines
    time.sleep(1)
    assert _left_behind(proc) == []


def test_the_program_loads_no_numpy_before_its_handlers_are_installed():
    """Until ``cli.program`` installs its handlers a Ctrl-C is Python's own (a traceback): the
    modules it needs to get there are the standard library's, a few hundredths of a second."""
    code = ("import sys, coltsim, coltsim.cli\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'pandas',"
            " 'numba'))[:3])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]", f"loaded: {out}"


@pytest.mark.parametrize("signum, status, says", [(signal.SIGINT, 130, "interrupted"),
                                                  (signal.SIGTERM, 143, "terminated")])
def test_a_signal_while_the_command_line_is_read_is_one_line(monkeypatch, capsys, signum,
                                                             status, says):
    """The parser's choices load numpy (a third of a second) before any command runs."""
    from coltsim import cli

    handler = {signal.SIGINT: cli._interrupt, signal.SIGTERM: cli._terminate}[signum]
    monkeypatch.setattr(cli, "build_parser", lambda: handler(signum, None))
    monkeypatch.setattr(signal, "signal", lambda *a: signal.SIG_DFL)  # keep pytest's handlers
    cli.DONE.clear()
    assert cli.main(["run", "x.toml"]) == status
    assert capsys.readouterr().err.splitlines() == [f"coltsim: {says}"]


# The program's entry with the loading of coltsim.cli made slow (a finder that sleeps first).
_SLOW_LOAD = """
import sys, time
class Slow:
    def find_spec(self, name, path=None, target=None):
        if name == "coltsim.cli":
            time.sleep(20)
sys.meta_path.insert(0, Slow())
from coltsim._entry import program
program()
"""


@pytest.mark.parametrize("signum, status, says", [(signal.SIGINT, 130, "interrupted"),
                                                  (signal.SIGTERM, 143, "terminated")])
def test_a_signal_while_the_program_loads_is_one_line(signum, status, says):
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_LOAD, "run", "x.toml"],
                            stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(1.0)
    os.killpg(proc.pid, signum)
    _, err = proc.communicate(timeout=10)
    assert (proc.returncode, err.decode().splitlines()) == (status, [f"coltsim: {says}"])


@pytest.mark.slow
@pytest.mark.parametrize("seconds", [0.1, 0.2, 0.3, 0.45])  # (Python itself starts in 0.05)
def test_ctrl_c_to_the_process_group_as_the_program_starts_is_one_line(tmp_path, seconds):
    toml = _experiment(tmp_path / "run.toml", 20_000, players=4)
    proc = _coltsim("run", str(toml), "--out", str(tmp_path / "out"), "--workers", "2")
    err = _Stderr(proc)
    time.sleep(seconds)
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(60)
    err.thread.join(30)
    lines = _lines(err.text())
    assert proc.returncode == 130, lines
    said = [line for line in lines if not line.startswith("faults: ")]
    assert len(said) == 1, lines
    assert said[0].startswith(("coltsim: interrupted", "coltsim run: interrupted")), lines


@pytest.mark.slow
@pytest.mark.parametrize("seconds", [1.0, 3.0, 6.0])
def test_kill_9_of_the_main_process_leaves_nothing_behind(tmp_path, seconds):
    toml = _experiment(tmp_path / "run.toml", 20_000, players=4)
    proc = _coltsim("run", str(toml), "--out", str(tmp_path / "out"), "--workers", "2")
    err = _Stderr(proc)
    assert err.when("to play)") is not None, err.text()
    time.sleep(seconds)
    proc.kill()
    proc.wait(10)
    time.sleep(5)
    assert _left_behind(proc) == []


@pytest.mark.slow
def test_a_long_search_answers_ctrl_c_within_a_second():
    """The largest rollout budget played about 40 s on after Ctrl-C (its kernel in the main
    thread); the same holds while the kernel compiles."""
    params = {"rollout": {"budget": catalog.MAX_BUDGET}, "ismcts": {"budget": 4, "horizon": 1}}
    proc = _coltsim("trace", "--policies", "ismcts,rollout,greedy,random", "--params",
                    json.dumps(params))
    err = _Stderr(proc)
    time.sleep(8)
    assert proc.poll() is None  # still playing (or compiling)
    sent = time.perf_counter()
    os.killpg(proc.pid, signal.SIGINT)
    said = err.when("interrupted", timeout=5)
    proc.wait(30)
    assert said is not None and said - sent < 1.0, err.text()
    assert proc.returncode == 130 and _lines(err.text())[-1] == "coltsim trace: interrupted", \
        (proc.returncode, err.text())


@pytest.mark.slow
def test_a_damaged_compiled_cache_is_compiled_again_with_one_warning(tmp_path):
    """A cache is disposable: with every compiled entry of the program's cache cut short, a
    command says so in one line and plays as it would with a fresh cache (issue 38, 5)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    trace = [sys.executable, "-m", "coltsim.cli", "trace", "--policies", "random", "--seed", "3"]
    first = subprocess.run(trace, env=env, capture_output=True, text=True, check=True)
    entries = list((tmp_path / "cache").rglob("*.nbc"))
    assert entries
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[:100])
    again = subprocess.run(trace, env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout
    warning, = [line for line in again.stderr.splitlines() if not line.startswith("compiling")]
    assert warning.startswith("coltsim: warning: the compiled code in ") and \
        " is damaged (" in warning and \
        warning.endswith("); compiling it again in a fresh folder"), again.stderr
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [f"coltsim-{source_hash()}"]
