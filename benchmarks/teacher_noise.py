"""How noisy the teacher's labels are: two searches of the same decisions, and the student beside them.

    python benchmarks/teacher_noise.py [--players 2,3,4,5,6] [--games 200] [--budgets 64,256]
                                       [--weights NET.npz] [--seed 4242] [--results FILE]

``coltsim train --teacher N`` labels each recorded decision with a search of ``N`` playouts
(learn/train.py).  At each player count this plays ``--games`` games of ``learned`` (the
shipped network, or ``--weights``), every decision labelled by the teacher of each budget, and
once more at half the share: the games are the same (a teacher only labels), but the
recorder's random stream, which the searches draw from, is drawn a different number of times,
so the decisions both runs label after a game's first unlabelled one are searched twice,
independently.  On those decisions it prints the share where the two searches choose the same
option and the regret between them (the first search's value of its choice minus that of the
second's, per decision, times the player count, as benchmarks/regret_by_table.py), and the
student's agreement and regret against the first search on the same decisions, and both regrets
on the decisions of the game's last round and of the rounds before.  If two searches
of one budget agree little more than the student agrees with one, the labels, not the student,
limit what a fit can learn; a larger budget is the lever when its searches agree more.
Appends a row per table and budget to ``--results`` (default
``benchmarks/results/teacher_noise.jsonl``).
Not a test: minutes per table.
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import io
import json
from pathlib import Path

import numpy as np

from coltsim.learn.config import TrainConfig
from coltsim.learn.fit import _Decisions
from coltsim.learn.train import Trainer, play_chunk
from coltsim.policies.recording import M_DECISION, M_GAME, M_ROUND
from coltsim.policies.weights import load_net, shipped_net

from regret_by_table import values

RESULTS = Path(__file__).parent / "results" / "teacher_noise.jsonl"


def labelled(players, net, budget, games, share, seed):
    """The decisions of ``games`` games of ``learned`` (the network ``net``) at ``players``
    players, a ``share`` of them labelled by the teacher of ``budget`` playouts: (x, meta, y)."""
    trainer = Trainer(TrainConfig(players=players, seed=seed, teacher=budget), None, 1, "loky",
                      None, False, print)
    job = trainer.job(["learned"] * players, [net] * players, share=share, teacher=net)
    data = play_chunk(job, 0, 0, games)[4][1]
    arrays = np.load(io.BytesIO(data))
    return arrays["x"].astype(np.float32), arrays["meta"], arrays["y"]


def decisions(meta, y):
    """Each labelled decision's key (game x 1,000,000 + its number in the game), and the
    decisions themselves (fit._Decisions: start rows, sizes, the teacher's values and choice)."""
    d = _Decisions(meta, y)
    keys = meta[d.start, M_GAME].astype(np.int64) * 1_000_000 + meta[d.start, M_DECISION]
    return keys, d


def compare(players, a, b, net):
    """Agreement and regret x players of search b and of the student against search a, on the
    decisions both label after the first decision of its game that b left unlabelled."""
    (xa, ma, ya), (_, mb, yb) = a, b
    ka, da = decisions(ma, ya)
    kb, db = decisions(mb, yb)
    skipped = np.setdiff1d(ka, kb)
    first_skip = {}
    for key in skipped:  # a game's first decision b did not label
        game = key // 1_000_000
        first_skip[game] = min(first_skip.get(game, key), key)
    both = np.intersect1d(ka, kb)
    both = both[[key > first_skip.get(key // 1_000_000, np.inf) for key in both]]
    ia, ib = np.searchsorted(ka, both), np.searchsorted(kb, both)
    many = da.size[ia] > 1
    ia, ib = ia[many], ib[many]
    option_a = da.choice[ia] - da.start[ia]
    option_b = db.choice[ib] - db.start[ib]
    best = da.q[da.choice[ia]]
    v = values(net, xa).astype(np.float64)
    mine = np.array([da.start[i] + int(np.argmax(v[da.start[i]:da.start[i] + da.size[i]]))
                     for i in ia])
    search_regret = (best - da.q[da.start[ia] + option_b]) * players
    student_regret = (best - da.q[mine]) * players
    last = ma[da.start[ia], M_ROUND] == ma[:, M_ROUND].max()  # the game's last round
    return {"decisions": int(len(ia)),
            "search_agreement": float(np.mean(option_a == option_b)),
            "search_regret_x_players": float(np.mean(search_regret)),
            "student_agreement": float(np.mean(mine == da.choice[ia])),
            "student_regret_x_players": float(np.mean(student_regret)),
            "last_round": {"decisions": int(last.sum()),
                           "search_regret_x_players": float(np.mean(search_regret[last])),
                           "student_regret_x_players": float(np.mean(student_regret[last]))},
            "earlier_rounds": {"search_regret_x_players": float(np.mean(search_regret[~last])),
                               "student_regret_x_players": float(np.mean(student_regret[~last]))}}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,3,4,5,6")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--budgets", default="64,256")
    parser.add_argument("--weights", default=None)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    net = load_net(args.weights)[0] if args.weights else shipped_net()
    for players in (int(p) for p in args.players.split(",")):
        for budget in (int(b) for b in args.budgets.split(",")):
            whole = labelled(players, net, budget, args.games, 1.0, args.seed)
            half = labelled(players, net, budget, args.games, 0.5, args.seed)
            row = {"players": players, "budget": budget, "games": args.games,
                   "seed": args.seed, "weights": args.weights or "shipped",
                   **compare(players, whole, half, net)}
            print(json.dumps(row), flush=True)
            with args.results.open("a") as f:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
