"""Which committed reports the current code would no longer make: their games, played again.

    python scripts/stale_reports.py [REPORTS_FOLDER] [--strict] [--record]

Each report's ``manifest.json`` records the fingerprint of a sample of the games of each setting
it played (coltsim.runs.fingerprint).  This plays those games again with the current code and
prints one line per report: **fresh** when every sample is the same game for game, **stale**
when one differs (rerun its experiment to refresh it: docs/experiments.md, "A stale report"),
**unknown** when it records no fingerprint (or one this coltsim cannot play again).  The hash of
the compiled sources that made the report is printed beside it: a report made by other sources
is fresh as long as they play the same games.  With ``--strict`` the exit status is 1 unless
every report is fresh (CI runs it so: .ci/run).

``--record`` first adds fingerprints to the reports that have none, once the current code is
shown to play their games: for every setting, one recorded chunk of its data is played again
and its files must have the SHA-256 the manifest records (only a report whose data format is
the current one can be shown so; the others need rerunning).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

REPORTS = Path(__file__).resolve().parents[1] / "reports"


def report_folders(reports: Path) -> list[Path]:
    return sorted(p for p in reports.iterdir() if (p / "report.md").exists())


def read_manifest(folder: Path) -> dict | None:
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def staleness(folder: Path) -> tuple[str, str]:
    """``("fresh" | "stale" | "unknown", why)`` of one report folder, its samples replayed."""
    from coltsim.runs.fingerprint import fingerprint_problem, recorded_setting, replay

    manifest = read_manifest(folder)
    if manifest is None:
        return "unknown", "no manifest.json coltsim can read"
    records = manifest.get("fingerprints")
    if not isinstance(records, list) or not records:
        return "unknown", "no fingerprint of its games recorded; rerun it to record them"
    settings = manifest.get("settings") if isinstance(manifest.get("settings"), dict) else {}
    games = 0
    for record in records:
        problem = fingerprint_problem(record)
        if problem:
            return "unknown", problem
        try:
            setting = recorded_setting(record, settings)
        except ValueError as e:
            return "unknown", f"setting {record['setting']} cannot be played again: {e}"
        if replay(setting, record) != record["sha256"]:
            return "stale", (f"setting {record['setting']} plays other games now (its first "
                             f"{record['games']:,} games of seed {record['seed']})")
        games += record["games"]
    return "fresh", (f"{len(records)} setting{'s' if len(records) != 1 else ''}, {games:,} games "
                     "played again: the same games")


def confirm_and_record(folder: Path) -> str:
    """Add fingerprints to a report that has none, if the current code plays its games: one
    chunk per setting played again must give the files the manifest records.  Returns what was
    done, in words."""
    from coltsim.runs import chunk as C
    from coltsim.runs import fingerprint as F
    from coltsim.runs.runner import chunk_job, setting_from_entry, simulate
    from coltsim.runs.storage import TABLES, parquet_bytes

    manifest = read_manifest(folder)
    settings = (manifest or {}).get("settings")
    if not isinstance(settings, dict) or not settings:
        return "no settings with data records in its manifest: rerun it"
    records = []
    for sid, entry in settings.items():
        setting = setting_from_entry(sid, entry)
        chunk = min(entry["chunks"], key=lambda r: r["n_games"])
        job = chunk_job(setting, entry["seed"])
        _, _, _, failed, tables = C.run_chunk(job, chunk["chunk"], chunk["first_game"],
                                              chunk["n_games"])
        for name, table in zip(TABLES, tables):
            if failed or hashlib.sha256(parquet_bytes(table)).hexdigest() \
                    != chunk["files"][name]["sha256"]:
                return (f"setting {sid}: chunk {chunk['chunk']} played again differs from its "
                        "record (other games, or another data format): rerun it")
        n = F.sample_games(entry["policies"], entry["games"])
        results = simulate(setting, n, seed=entry["seed"], workers=1, progress=False)
        records.append(F.fingerprint(results, sid, entry["seed"], entry["policies"], n))
    manifest["fingerprints"] = records
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str) + "\n",
                                          encoding="utf-8")
    return (f"fingerprints recorded ({len(records)} setting{'s' if len(records) != 1 else ''}, "
            "one chunk of each played again)")


def main(argv=None) -> int:
    from coltsim._sources import source_hash

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="?", default=REPORTS, type=Path)
    parser.add_argument("--strict", action="store_true", help="exit 1 unless every report is "
                                                              "fresh")
    parser.add_argument("--record", action="store_true",
                        help="first record fingerprints where the current code is shown to "
                             "play a report's games")
    args = parser.parse_args(argv)
    engine = source_hash()
    states = []
    for folder in report_folders(args.reports):
        manifest = read_manifest(folder) or {}
        if args.record and not manifest.get("fingerprints"):
            print(f"record   {folder.name}: {confirm_and_record(folder)}", flush=True)
        state, why = staleness(folder)
        states.append(state)
        made = manifest.get("engine")
        by = (f"made by engine {made}" if made else "no engine recorded") + \
            f", current {engine}"
        print(f"{state:7}  {folder.name}  ({why}; {by})", flush=True)
    return 1 if args.strict and any(state != "fresh" for state in states) else 0


if __name__ == "__main__":
    sys.exit(main())
