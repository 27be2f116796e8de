"""A network fitted on the decisions of several trainings by a search, pooled.

    python benchmarks/fit_pooled.py FOLDER:ITERATION [FOLDER:ITERATION ...] --out NET.npz
                                    [--hidden 64,32] [--epochs 6] [--seed 0] [--games N]

Each ``FOLDER:ITERATION`` names the recorded decisions of one iteration of a ``coltsim train
--teacher N`` folder (every chunk verified against its manifest); they are fitted together as
the training fits (``fit_options``; games of different sources never mix: each source's game
numbers are offset) and the network is written as a weights file (``[policy_params.learned]
weights``, or ``benchmarks/default_players.py --weights``) saying where its decisions came from.
``--games N`` fits only the decisions of each source's first ``N`` games (the chunks of 2,000
games that hold them: the same games whatever the source's length), to compare sources of
different lengths.
A learning curve (benchmarks/learning_curves.py) showed the strength still growing with the
decisions a fit sees; this pools what trainings already recorded.  Not a test: tens of minutes.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import io

import numpy as np

from coltsim.learn.fit import fit_options
from coltsim.learn.train import chunk_names
from coltsim.policies.recording import M_GAME
from coltsim.policies.weights import save_net
from coltsim.runs.folder import Folder

from learning_curves import load_config


def chunks(source: str, games: int | None = None):
    folder, iteration = source.rsplit(":", 1)
    config = load_config(folder)
    with Folder(folder, "training", claim=False) as f:
        for name in chunk_names(int(iteration), min(config.games, games or config.games)):
            yield np.load(io.BytesIO(f.read(name)))


def load(sources, games: int | None = None):
    """The decisions of ``sources`` pooled: ``x`` (float16, one copy in memory), ``meta``, ``y``;
    games of different sources never mix (each source's game numbers are offset)."""
    sizes = [(len(c["meta"]), c["x"].shape[1], c["meta"].shape[1], c["y"].shape[1])
             for s in sources for c in chunks(s, games)]
    rows = sum(s[0] for s in sizes)
    x = np.empty((rows, sizes[0][1]), np.float16)  # (filled chunk by chunk)
    meta = np.empty((rows, sizes[0][2]), np.int32)
    y = np.empty((rows, sizes[0][3]), np.float32)
    at, offset = 0, 0
    for source in sources:
        top = offset
        for c in chunks(source, games):
            n = len(c["meta"])
            x[at:at + n], meta[at:at + n], y[at:at + n] = c["x"], c["meta"], c["y"]
            meta[at:at + n, M_GAME] += offset
            top = max(top, int(meta[at:at + n, M_GAME].max()) + 1)
            at += n
        offset = top
    return x, meta, y


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--hidden", default="64,32")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, help="only each source's first GAMES games")
    args = parser.parse_args(argv)
    if args.games is not None and args.games < 1:
        parser.error(f"--games: at least 1 game, got {args.games}")
    x, meta, y = load(args.sources, args.games)
    rows = len(x)
    print(f"{rows:,} options from {', '.join(args.sources)}", flush=True)
    hidden = tuple(int(h) for h in args.hidden.split(",") if h)
    result = fit_options(x, meta, y, hidden=hidden, epochs=args.epochs, seed=args.seed,
                         say=print)
    save_net(args.out, result.net, {"about": "learned's network fitted on the pooled decisions "
                                             "of trainings by a search "
                                             "(benchmarks/fit_pooled.py)",
                                    "sources": args.sources, "games": args.games,
                                    "fit": result.as_dict()})
    print(f"{args.out}: {result.as_dict()}")


if __name__ == "__main__":
    main()
