"""The progress bar of a run (coltsim.runs.progress): its time left comes from each setting's own
speed, a slow chunk moves the bar piece by piece into the same files, and tournaments show it.

No test here is timed: the workers' clock (coltsim.runs.chunk.clock) is a fake that each game
moves on by its setting's seconds per game, so a "slow" setting is slow only on that clock."""
from types import SimpleNamespace

import numba
import pytest

import coltsim
from coltsim.runs import chunk as C
from coltsim.runs import runner
from coltsim.runs.options import CHUNK_SECONDS
from coltsim.runs.progress import RunProgress, format_seconds
from coltsim.study.run import play_settings
from coltsim.study.tournament import tournament

FAST, SLOW = 0.001, 1.0  # seconds per game on the fake clock
LADDER = [coltsim.make_setting(4, policies="random", setting_id="fast", label="fast"),
          coltsim.make_setting(4, policies="random", setting_id="slow", label="slow")]
SPEED = {"fast": FAST, "slow": SLOW}


@pytest.fixture
def fake_clock(monkeypatch):
    """Each game played moves the workers' clock on by its setting's seconds per game
    (``SPEED``, by setting id); returns the games each call of the kernel played."""
    now = [0.0]
    calls = []
    play_batch = C.play_batch

    def timed_batch(job, first, out_b, out_g):
        now[0] += len(out_g) * SPEED.get(job.setting_id, FAST)
        calls.append((job.setting_id, len(out_g)))
        play_batch(job, first, out_b, out_g)

    monkeypatch.setattr(C, "clock", lambda: now[0])
    monkeypatch.setattr(C, "play_batch", timed_batch)
    if numba.config.DISABLE_JIT:  # nothing to compile, and no compiled function to compile
        monkeypatch.setattr(runner, "compiled", lambda part: True)
    return calls


def watch(monkeypatch) -> list:
    """(setting, games left of each setting, time left, settings not timed) after every part a
    RunProgress is told of."""
    seen = []
    played = RunProgress.played

    def spy(self, key, games, seconds=None):
        played(self, key, games, seconds)
        seen.append((key, dict(self.left), *self.time_left()))

    monkeypatch.setattr(RunProgress, "played", spy)
    return seen


def test_a_ladder_s_time_left_is_within_a_factor_2_after_each_setting_s_first_chunk(
        tmp_path, fake_clock, monkeypatch):
    """A fast policy then a slow one (1,000 times slower): once a setting has played its first
    chunk (or piece), the time left is within a factor 2 of the true one, the sum over the
    settings of their games left times their own seconds per game (one worker).  Before the
    slow setting is timed, the bar gives a lower bound and says so."""
    seen = watch(monkeypatch)
    e = SimpleNamespace(name="ladder", seed=3, workers=1, backend="threading", scheduler=None)
    play_settings(e, LADDER, 40, tmp_path / "data")
    # the fast setting in one chunk, the slow one in pieces of CHUNK_SECONDS
    assert [key for key, *_ in seen] == ["fast"] + ["slow"] * int(40 * SLOW / CHUNK_SECONDS)
    assert seen[-1][1] == {"fast": 0, "slow": 0}
    for key, left, seconds, untimed in seen:
        true = sum(n * SPEED[k] for k, n in left.items())
        if untimed:  # the slow one not timed yet: the bar says "at least"
            assert seconds <= true
        elif true > 0:
            assert true / 2 <= seconds <= 2 * true, (key, left, seconds, true)


def test_a_slow_chunk_moves_the_bar_in_pieces_and_writes_the_same_files(
        tmp_path, fake_clock, monkeypatch):
    """Chunks of 12 games of a second each are played in pieces of CHUNK_SECONDS (5 games),
    the bar moving for each; the chunk files and the manifest's records are those of the same
    chunks played at once."""
    slow = LADDER[1]
    seen = watch(monkeypatch)
    coltsim.simulate_to_folder(slow, 24, tmp_path / "pieces", seed=5, chunk_size=12, workers=1,
                               backend="threading", progress=False)
    # one game to load the kernel, one timed, then each chunk in pieces of 5, 5 and 2 games
    assert [n for _, n in fake_clock if n] == [1, 1, 5, 5, 2, 5, 5, 2]
    assert [left["slow"] for _, left, *_ in seen] == [19, 14, 12, 7, 2, 0]
    SPEED["slow"] = FAST  # the same setting, fast: whole chunks
    try:
        coltsim.simulate_to_folder(slow, 24, tmp_path / "whole", seed=5, chunk_size=12,
                                   workers=1, backend="threading", progress=False)
    finally:
        SPEED["slow"] = SLOW
    assert [left["slow"] for _, left, *_ in seen][6:] == [12, 0]
    records = [coltsim.runs.storage.read_manifest(tmp_path / f)["settings"][slow.id]["chunks"]
               for f in ("pieces", "whole")]
    assert records[0] == records[1]
    for table in ("players", "games"):
        for c in range(2):
            assert (C.storage.chunk_path(tmp_path / "pieces", table, slow.id, c).read_bytes()
                    == C.storage.chunk_path(tmp_path / "whole", table, slow.id, c).read_bytes())


def test_a_tournament_shows_one_bar_over_its_tables(capsys, fake_clock):
    """(``coltsim tournament`` passes --quiet as progress=False.)"""
    table = coltsim.make_setting(4, policies="random", label="all random")
    shares = tournament(table, games=4, workers=1, backend="threading")
    assert len(shares) == 1
    err = capsys.readouterr().err
    assert "all random" in err and "4/4" in err and "left" in err
    tournament(table, games=4, workers=1, backend="threading", progress=False)
    assert capsys.readouterr().err == ""


def test_the_time_left_adds_each_setting_s_own_speed():
    bar = RunProgress(300, enabled=False)
    bar.expect("b", 100)
    bar.start("a", 200, workers=2, first_game=0.01)
    assert bar.time_left() == (pytest.approx(1.0), 1)
    bar.played("a", 100, seconds=3.0)  # 0.03 s a game on one worker, two workers
    assert bar.time_left() == (pytest.approx(1.5), 1)
    bar.start("b", 100, workers=-1)  # a Dask cluster: taken as one worker
    bar.played("b", 10, seconds=20.0)
    assert bar.time_left() == (pytest.approx(1.5 + 180), 0)
    assert [format_seconds(s) for s in (5, 65, 3723)] == ["0:05", "1:05", "1:02:03"]
