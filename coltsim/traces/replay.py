"""Game ``N`` of a saved run, traced again: ``coltsim trace --from reports/NAME --game N``.

The run's manifest (read through coltsim.runs.storage) records what each setting played (the
player count, line-up, policies with their parameters, rule options) and the master seed, and
game ``N`` depends only on them, so the trace is the game the run played at index ``N``.  It is
checked against the run's own record of that game (each bandit's score and victory) when the
run's data are there, and a run made by other compiled code is named as such.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..runs import storage
from ..runs.runner import setting_from_entry
from ..setting import FieldError, Setting
from ..words import did_you_mean


@dataclass(frozen=True)
class RunGame:
    """One game of a saved run, ready to trace."""

    setting: Setting
    seed: int
    game: int
    folder: Path  # the folder holding the manifest (and the run's data)
    engine: str | None  # the hash of the compiled code that played the run


def run_folder(folder) -> Path:
    """The folder holding a run's manifest: ``folder`` itself (a ``simulate --out`` folder) or
    its ``data/`` (a report folder of ``coltsim run``)."""
    folder = Path(folder)
    for candidate in (folder / "data", folder):
        if (candidate / storage.MANIFEST).is_file():
            return candidate
    raise FieldError("from", f"{folder} holds no {storage.MANIFEST} (nor data/"
                             f"{storage.MANIFEST}): not a coltsim run or report folder")


def run_game(folder, game: int, setting: str | None = None,
             names: dict | None = None) -> RunGame:
    """Game ``game`` of the run in ``folder``; ``setting`` (an id, a label, or a name of
    ``names``: setting id -> its name in the report) picks one of several settings.  Every
    problem is a :class:`~coltsim.setting.FieldError`."""
    folder = run_folder(folder)
    manifest = storage.read_manifest(folder)
    entries = manifest.get("settings") if isinstance(manifest, dict) else None
    if not isinstance(entries, dict) or not entries:
        raise FieldError("from", f"{folder / storage.MANIFEST} lists no settings")
    known = {sid: [n for n in dict.fromkeys((e.get("label"), (names or {}).get(sid))) if n]
             for sid, e in entries.items()}
    choices = ", ".join(sid + (f" ({' or '.join(repr(n) for n in ns)})" if ns else "")
                        for sid, ns in known.items())
    if setting is None:
        if len(entries) > 1:
            raise FieldError("setting", f"the run holds {len(entries)} settings; name one with "
                                        f"--setting (an id or a name): {choices}")
        sid = next(iter(entries))
    else:
        matches = [sid for sid, ns in known.items() if setting == sid or setting in ns]
        if len(matches) != 1:
            what = "no setting" if not matches else f"{len(matches)} settings are named"
            near = "" if matches else did_you_mean(
                setting, [n for sid, ns in known.items() for n in (sid, *ns)])
            raise FieldError("setting", f"{what} {setting!r} in {folder}; allowed (an id or a "
                                        f"name): {choices}{near}")
        sid = matches[0]
    entry = entries[sid]
    games = entry.get("games", 0)
    if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < games:
        raise FieldError("game", f"must be a game index from 0 to {games - 1} (the run played "
                                 f"{games:,} games of {sid}), got {game!r}")
    try:
        s = setting_from_entry(sid, entry)
    except (KeyError, ValueError) as e:
        raise FieldError("from", f"{folder / storage.MANIFEST}: setting {sid} cannot be "
                                 f"played again: {e}") from None
    return RunGame(s, entry["seed"], game, folder, manifest.get("engine"))


def check_against_run(run: RunGame, end: dict) -> str | None:
    """Compare a replayed game's ``end`` line with the run's record of that game; a sentence
    if they differ or the record cannot be read, None if they agree."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    entry = storage.read_manifest(run.folder)["settings"][run.setting.id]
    held = [r["chunk"] for r in entry["chunks"]
            if r["first_game"] <= run.game < r["first_game"] + r["n_games"]]
    path = storage.chunk_path(run.folder, storage.PLAYERS, run.setting.id, held[0]) \
        if held else None
    if path is None or not path.exists():
        return (f"the run's data for game {run.game} are not in {run.folder}: the replay is not "
                "checked against it")
    table = pq.read_table(path, columns=["game", "bandit_index", "score", "win"])
    rows = table.filter(pc.equal(table["game"], run.game)).sort_by("bandit_index").to_pylist()
    recorded = [(r["score"], r["win"]) for r in rows]
    replayed = [(s["score"], s["win"]) for s in end["scores"]]
    if recorded != replayed:
        return (f"the replayed game differs from the run's record of game {run.game} (the run "
                f"was made by engine {run.engine}); this trace is not the game the run played")
    return None
