"""A network fitted on the last round's decisions alone, against the shipped one, on held-out
decisions of a training at one table.

    python benchmarks/last_round.py FOLDER [--train 20] [--test 10] [--epochs 6]

FOLDER is a ``coltsim train --players P --teacher N`` folder (one table, not ``--mix``); the
decisions of the last round of its first iteration's first ``--train`` chunks fit a perceptron
64-32 on the options of each decision (fit.fit_options, as a training does), and on the last
round's decisions of the next ``--test`` chunks it prints the share of decisions where each
network chooses as the search did and its regret times the player count
(benchmarks/regret_by_table.py).  If the network fitted on the last round alone does no better
than the network shared by every round, capacity spent on the other rounds is not what it
lacks there.  Then the shipped network's planning decisions of the held-out chunks, by the
turns the player still has in the round after the decision: where in the round it loses.
Not a test: a minute.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import io

import numpy as np

from coltsim.learn.fit import _Decisions, fit_options
from coltsim.learn.train import chunk_names
from coltsim.engine.flow import DK_PLAN
from coltsim.policies.encoding import X_MY_TURNS
from coltsim.policies.recording import M_KIND, M_OPTION, M_ROUND
from coltsim.policies.weights import shipped_net
from coltsim.runs.folder import Folder

from learning_curves import load_config
from regret_by_table import choices


def last_round(f: Folder, names: list[str]):
    """The rows (x, meta, y) of the decisions of the last round in the chunks ``names``."""
    parts = [np.load(io.BytesIO(f.read(name))) for name in names]
    last = max(int(p["meta"][:, M_ROUND].max()) for p in parts)
    keep = [p["meta"][:, M_ROUND] == last for p in parts]
    return tuple(np.concatenate([p[k][m] for p, m in zip(parts, keep)])
                 for k in ("x", "meta", "y"))


def score(net, x, meta, y, players: int) -> str:
    d = _Decisions(meta, y)
    mine = choices(net, x.astype(np.float32), d)
    return (f"{len(d.start):,} decisions, agreement {np.mean(mine == d.choice):.3f}, regret x "
            f"players {np.mean(d.q[d.choice] - d.q[mine]) * players:.4f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--train", type=int, default=20)
    parser.add_argument("--test", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=6)
    args = parser.parse_args(argv)
    config = load_config(args.folder)
    if config.mix:
        raise SystemExit("last_round.py: FOLDER must be a training at one table (not --mix)")
    names = chunk_names(1, config.games)[:args.train + args.test]
    with Folder(args.folder, "training", claim=False) as f:
        train, test = last_round(f, names[:args.train]), last_round(f, names[args.train:])
    fitted = fit_options(train[0].astype(np.float32), train[1], train[2], hidden=(64, 32),
                         epochs=args.epochs, seed=1, say=print)
    print(f"the last round's options: {len(train[0]):,} fitted, {len(test[0]):,} held out")
    shipped = shipped_net()
    print(f"shipped network: {score(shipped, *test, config.players)}")
    print(f"fitted on the last round alone: {score(fitted.net, *test, config.players)}")
    x, meta, y = test
    plans = meta[:, M_KIND] == DK_PLAN
    turns = np.round(x[:, X_MY_TURNS] * 4).astype(int)  # (the input is turns / 4)
    for t in np.unique(turns[plans & (meta[:, M_OPTION] == 0)]):
        keep = plans & (turns == t)
        print(f"planning, {t} turns after it: "
              f"{score(shipped, x[keep], meta[keep], y[keep], config.players)}")


if __name__ == "__main__":
    main()
