"""Which committed reports were built by other compiled code than the current engine.

    python scripts/stale_reports.py [REPORTS_FOLDER] [--strict]

Each report folder's ``manifest.json`` records the hash of the compiled sources that made its
games (``engine``).  A report whose hash differs from the current engine's may no longer
reproduce: rerun its experiment (``coltsim run experiments/NAME.toml``) to refresh it.  Prints
one line per report; with ``--strict`` the exit status is 1 when any report is stale.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def staleness(reports: Path, engine: str) -> list[tuple[str, str, str | None]]:
    """``(report name, "fresh" | "stale" | "unknown", recorded engine)`` per report folder."""
    rows = []
    for folder in sorted(p for p in reports.iterdir() if (p / "report.md").exists()):
        try:
            recorded = json.loads((folder / "manifest.json").read_text()).get("engine")
        except (OSError, ValueError, AttributeError):
            recorded = None
        state = "unknown" if recorded is None else "fresh" if recorded == engine else "stale"
        rows.append((folder.name, state, recorded))
    return rows


def main(argv=None) -> int:
    from coltsim.runs.runner import engine_hash

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="?", default=Path(__file__).parents[1] / "reports",
                        type=Path)
    parser.add_argument("--strict", action="store_true", help="exit 1 if any report is stale")
    args = parser.parse_args(argv)
    engine = engine_hash()
    rows = staleness(args.reports, engine)
    for name, state, recorded in rows:
        built = f"built by engine {recorded}" if recorded else "no engine recorded"
        print(f"{state:7}  {name}  ({built}; current engine {engine})")
    return 1 if args.strict and any(state != "fresh" for _, state, _ in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
