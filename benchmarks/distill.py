"""One network taught by several: the options of recorded decisions valued by the mean of
several networks' values (an ensemble), and one network fitted on those values.

    python benchmarks/distill.py --nets A.npz B.npz ... --merged ENSEMBLE.npz
    python benchmarks/distill.py FOLDER:ITERATION [FOLDER:ITERATION ...] --nets A.npz B.npz ...
                                 --out NET.npz [--hidden 64,32] [--epochs 8] [--seed 0]

Networks fitted on different iterations of a training by a search disagree where each one's
data was thin; the mean of their values plays stronger than any of them
(docs/strength-history.md), but costs the sum of their times per decision.  Distillation
(Hinton, Vinyals and Dean 2015) keeps one network's time: every option of the recorded
decisions (``FOLDER:ITERATION``, as benchmarks/fit_pooled.py reads them; recorded by a
``coltsim train --teacher N`` whose player should be the ensemble itself, so that the positions
are those it meets) is valued by each of ``--nets`` with the kernels' own ``net_values`` (the
weights as a table reads them), the mean replaces the search's value, and ``fit_options`` fits
one network on the options of each decision as a training does.  ``--merged`` writes the
ensemble itself as one network instead (hidden layers side by side, the second block-diagonal,
the outputs averaged: the same values, at the cost of all of them), to play it: as the
recording's ``--start``, or in ``benchmarks/default_players.py --weights``.  Not a test:
minutes.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse

import numpy as np

from coltsim.learn.fit import fit_options
from coltsim.policies.net import net_values
from coltsim.policies.recording import Y_MEAN, Y_VISITS
from coltsim.policies.weights import HEADER, load_net, pack, save_net, table

from fit_pooled import load

VISITS = 64  # every option's label is exact: the temperature of a search of this many playouts
BLOCK = 100_000


def ensemble_values(nets, x: np.ndarray) -> np.ndarray:
    """The mean over ``nets`` of each row's value, as the kernels compute it."""
    rows = [table([net], 1)[0] for net in nets]
    out = np.zeros(len(x))
    values = np.empty(BLOCK)
    for lo in range(0, len(x), BLOCK):
        block = np.ascontiguousarray(x[lo:lo + BLOCK], np.float64)
        for row in rows:
            net_values(row, block, len(block), values)
            out[lo:lo + len(block)] += values[:len(block)] / len(rows)
    return out


def layers(net: np.ndarray) -> list:
    """The ``(W, b)`` pairs of a network of two hidden layers (weights.pack's layout)."""
    n_in, h1, h2, n_out = (int(v) for v in net[:4])
    out, at = [], HEADER
    for a, b in ((n_in, h1), (h1, h2), (h2, n_out)):
        out.append((net[at:at + a * b].reshape(a, b).astype(np.float64),
                    net[at + a * b:at + a * b + b].astype(np.float64)))
        at += a * b + b
    return out


def merged(nets) -> np.ndarray:
    """One network whose value is the mean of ``nets``' (each of two hidden layers)."""
    parts = [layers(net) for net in nets]
    w1 = np.hstack([p[0][0] for p in parts])
    w2 = np.zeros((w1.shape[1], sum(p[1][0].shape[1] for p in parts)))
    row = col = 0
    for p in parts:
        a, b = p[1][0].shape
        w2[row:row + a, col:col + b] = p[1][0]
        row, col = row + a, col + b
    return pack([(w1, np.concatenate([p[0][1] for p in parts])),
                 (w2, np.concatenate([p[1][1] for p in parts])),
                 (np.vstack([p[2][0] for p in parts]) / len(parts),
                  sum(p[2][1] for p in parts) / len(parts))], [1.0])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*")
    parser.add_argument("--nets", nargs="+", required=True)
    parser.add_argument("--merged", help="write the ensemble as one network, and stop")
    parser.add_argument("--out")
    parser.add_argument("--hidden", default="64,32")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    nets = [load_net(p) for p in args.nets]
    if args.merged:
        save_net(args.merged, merged([net for net, _ in nets]),
                 {"about": "the mean of several networks (benchmarks/distill.py --merged)",
                  "nets": [about["sha256"] for _, about in nets]})
        print(args.merged)
        return
    if not args.sources or not args.out:
        parser.error("name the recorded decisions (FOLDER:ITERATION) and --out")
    x, meta, y = load(args.sources)
    y[:, Y_MEAN] = ensemble_values([net for net, _ in nets], x)
    y[:, Y_VISITS] = VISITS
    print(f"{len(x):,} options from {', '.join(args.sources)}, valued by "
          f"{len(nets)} networks", flush=True)
    hidden = tuple(int(h) for h in args.hidden.split(",") if h)
    result = fit_options(x, meta, y, hidden=hidden, epochs=args.epochs, seed=args.seed,
                         say=print)
    save_net(args.out, result.net, {"about": "learned's network fitted on the mean value of "
                                             "several networks (benchmarks/distill.py)",
                                    "sources": args.sources,
                                    "nets": [about["sha256"] for _, about in nets],
                                    "fit": result.as_dict()})
    print(f"{args.out}: {result.as_dict()}")


if __name__ == "__main__":
    main()
