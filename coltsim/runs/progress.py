"""The progress bar of a run: games played, and the time left from each setting's own speed.

One bar counts the games of a run, whether it plays one setting (``coltsim.simulate``), an
experiment's settings (``coltsim run``) or a tournament's tables.  Its time left is the sum over
the settings still to play of

    games left of the setting x the setting's own seconds per game / its workers,

never the run's overall rate: a ladder's fast policy says nothing of its search's speed.  A
setting's seconds per game are what its workers took for its finished chunks or pieces
(coltsim.runs.chunk.play_part times each), or, before any is back, what its first game took
when the runner timed it.  A setting that is not timed yet (not started, or started on a Dask
cluster) has no time left to add: the bar then says "at least", and how many such settings
there are.

The runner plays a slow chunk in pieces (coltsim.runs.options.CHUNK_SECONDS), and the bar
moves for every piece.  A bar that is not a :class:`RunProgress` (any object with
``update(games)``) is told only the games played.
"""
from __future__ import annotations

import sys

# tqdm's own bar, with the time left (the postfix) instead of tqdm's, from the run's overall rate
BAR_FORMAT = ("{desc}: {percentage:3.0f}%|{bar}| {n:,}/{total:,} "
              "[{elapsed}{postfix}, {rate_fmt}]")


class RunProgress:
    """One progress bar over the games a run plays, setting by setting.

    Parameters
    ----------
    total : int
        The games the bar counts to.
    initial : int
        Those already played (on disk) when the bar starts.
    desc : str
        The bar's name (the runner names it by the setting being played).
    enabled : bool
        False: nothing is drawn (the bar still computes its time left).
    """

    def __init__(self, total: int, *, initial: int = 0, desc: str = "", enabled: bool = True):
        from tqdm.auto import tqdm

        self.bar = tqdm(total=total, initial=initial, desc=desc, unit=" game", unit_scale=True,
                        disable=not enabled, mininterval=0.5, file=sys.stderr,
                        bar_format=BAR_FORMAT)
        self.left: dict = {}  # games left of each setting (by key: its id)
        self.workers: dict = {}  # workers playing each setting at once
        self.measured: dict = {}  # [worker seconds, games] of each setting's finished parts
        self.first_game: dict = {}  # seconds of each setting's first game, timed by the runner

    def expect(self, key: str, games: int) -> None:
        """``games`` of setting ``key`` will be played (later in the run): they count in the
        time left once the setting is timed."""
        self.left[key] = games

    def start(self, key: str, games: int, workers: int, first_game: float | None = None) -> None:
        """Setting ``key`` starts: ``games`` to play on ``workers`` workers at once (-1, a Dask
        cluster's own count: taken as 1, so the time left is too long rather than too short),
        its first game timed at ``first_game`` seconds if the runner timed it."""
        self.left[key] = games
        self.workers[key] = max(1, workers)
        if first_game is not None:
            self.first_game[key] = first_game
        self._show()

    def played(self, key: str, games: int, seconds: float | None = None) -> None:
        """``games`` of setting ``key`` are played, in ``seconds`` of one worker's time."""
        self.left[key] = self.left.get(key, games) - games
        if seconds is not None:
            m = self.measured.setdefault(key, [0.0, 0])
            m[0] += seconds
            m[1] += games
        self._show(refresh=False)
        self.bar.update(games)

    def seconds_per_game(self, key: str) -> float | None:
        """Setting ``key``'s seconds per game on one worker, or None when not timed yet."""
        seconds, games = self.measured.get(key, (0.0, 0))
        return seconds / games if games else self.first_game.get(key)

    def time_left(self) -> tuple[float, int]:
        """Seconds left for the timed settings, and how many settings with games left are not
        timed yet."""
        seconds, untimed = 0.0, 0
        for key, games in self.left.items():
            if games <= 0:
                continue
            per_game = self.seconds_per_game(key)
            if per_game is None:
                untimed += 1
            else:
                seconds += games * per_game / self.workers.get(key, 1)
        return seconds, untimed

    def _show(self, refresh: bool = True) -> None:
        seconds, untimed = self.time_left()
        text = f"{format_seconds(seconds)} left"
        if untimed:
            not_timed = f"{untimed} setting{'s' if untimed > 1 else ''} not timed yet"
            text = f"at least {text} ({not_timed})" if seconds >= 1 else not_timed
        self.bar.set_postfix_str(text, refresh=refresh)

    def describe(self, name: str) -> None:
        """Name the bar by what it plays now."""
        self.bar.set_description_str(name)

    def write(self, text: str) -> None:
        """A line above the bar (the compile notice)."""
        self.bar.write(text, file=sys.stderr)

    def close(self) -> None:
        self.bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def format_seconds(seconds: float) -> str:
    """``1:05``, ``1:02:03``: as the bar's elapsed time."""
    s = int(round(seconds))
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
