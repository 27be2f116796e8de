"""How well networks choose as the search did, table by table, on a training's recorded decisions.

    python benchmarks/regret_by_table.py FOLDER ITERATION NET.npz [NET.npz ...] [--by-round]

FOLDER is a ``coltsim train --teacher N`` folder; for each chunk of iteration ``ITERATION`` (each
played at one table: ``Trainer.table_of``) and each weights file: the share of the decisions
where the network's best option is the search's choice, and its regret (the search's value of
its choice minus that of the network's, per decision) times the player count, so that tables of
different fair shares compare; with ``--by-round``, the same for the decisions of each round
and each round's share of the regret.  A network fitted on other iterations sees these
decisions fresh.
Not a test: a minute per iteration.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import io
import json

import numpy as np

from coltsim.learn.fit import _argmax, _Decisions
from coltsim.learn.train import Trainer, chunk_names
from coltsim.policies.recording import M_ROUND
from coltsim.policies.weights import HEADER, load_net
from coltsim.runs.folder import Folder

from learning_curves import load_config


def values(net: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The packed network ``net``'s value of each row of ``x`` (weights.pack's layout)."""
    n_in, a, b, n_out = (int(v) for v in net[:4])
    at, h = HEADER, x
    for rows, cols, relu in ((n_in, a, True), (a, b, True), (b or a or n_in, n_out, False)):
        if cols == 0 or (relu and rows == 0):
            continue
        w = net[at:at + rows * cols].reshape(rows, cols)
        bias = net[at + rows * cols:at + rows * cols + cols]
        at += rows * cols + cols
        h = h @ w + bias
        if relu:
            h = np.maximum(h, 0.0)
    return h @ net[4:4 + n_out]


def choices(net: np.ndarray, x: np.ndarray, d: _Decisions) -> np.ndarray:
    """The row of the option ``net`` values most in each decision of ``d`` (options ``x``)."""
    group = np.repeat(np.arange(len(d.start)), d.size)
    return _argmax(values(net, x).astype(np.float64), d.start, group)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("iteration", type=int)
    parser.add_argument("nets", nargs="+")
    parser.add_argument("--by-round", action="store_true")
    args = parser.parse_args(argv)
    config = load_config(args.folder)
    trainer = Trainer(config, None, 1, "loky", None, False, print)
    nets = [(name.rsplit("/", 1)[-1], load_net(name)[0]) for name in args.nets]
    with Folder(args.folder, "training", claim=False) as f:
        for c, name in enumerate(chunk_names(args.iteration, config.games)):
            if not f.verified(name):
                continue
            data = np.load(io.BytesIO(f.read(name)))
            x, d = data["x"].astype(np.float32), _Decisions(data["meta"], data["y"])
            players, rules = trainer.table_of(args.iteration, c)
            line = [f"chunk {c:3d}: {players} players {json.dumps(rules) if rules else ''}"
                    f" ({len(d.start):,} decisions)"]
            rounds = data["meta"][d.start, M_ROUND]
            for label, net in nets:
                mine = choices(net, x, d)
                regret = (d.q[d.choice] - d.q[mine]) * players
                line.append(f"{label} agreement {np.mean(mine == d.choice):.3f} regret x "
                            f"players {np.mean(regret):.4f}")
                for r in np.unique(rounds) if args.by_round else ():
                    at = rounds == r
                    line.append(f"round {r + 1}: agreement {np.mean(mine[at] == d.choice[at]):.3f}"
                                f" regret x players {np.mean(regret[at]):.4f}, "
                                f"{regret[at].sum() / regret.sum():.0%} of the regret")
            print(" | ".join(line), flush=True)


if __name__ == "__main__":
    main()
