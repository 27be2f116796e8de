"""The iterations of a training by a search (``coltsim train --teacher N``), as results: what
each iteration fitted and how its network played, and the network itself.

    python benchmarks/search_training.py FOLDER [--results FILE]

For each iteration of the training folder ``FOLDER`` whose fit and selection matches are done
(``iter-KK/net.npz`` and ``iter-KK/match.json``): one line appended to ``--results`` (JSON lines;
one already there, by network hash, is not written again) with the training's configuration,
the fit (positions, held-out agreement with the search, regret, the value's R²) and, per table
matched, the network's share against its predecessor and against planners over the fair share;
the network is copied to ``benchmarks/results/nets/SHA12.npz`` (a weights file:
``[policy_params.learned] weights``, or ``benchmarks/default_players.py --weights``).
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import json
import shutil
from pathlib import Path

from coltsim.policies.weights import load_net

RESULTS = Path(__file__).resolve().parent / "results" / "search_training.jsonl"
# The teacher of a folder made before coltsim/learn/config.py's TEACHERS was part of its identity
BEFORE = "the round's end valued by the network, at every player count"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    config = json.loads((args.folder / "manifest.json").read_text())["identity"]
    rows = list(map(json.loads, args.results.open())) if args.results.exists() else []
    done = {r["net"] for r in rows}
    for match in sorted(args.folder.glob("iter-*/match.json")):
        net, about = load_net(match.parent / "net.npz")
        if about["sha256"] in done:
            continue
        result = json.loads(match.read_text())
        row = {"iteration": int(match.parent.name.split("-")[1]), "net": about["sha256"],
               "config": config, "teachers": config.get("teachers", BEFORE), "fit": about["fit"],
               "tables": [{"players": t["players"], "rules": t["rules"],
                           "planner": p["ratio"], "planner_lo": p["lo"] * t["players"],
                           "planner_hi": p["hi"] * t["players"], "predecessor": t["ratio"]}
                          for t, p in zip(result["predecessor"].get("tables", []),
                                          result["planner"].get("tables", []))]}
        nets = args.results.parent / "nets"
        nets.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(match.parent / "net.npz", nets / f"{about['sha256'][:12]}.npz")
        with args.results.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"iteration {row['iteration']}: network {about['sha256'][:12]}")


if __name__ == "__main__":
    main()
