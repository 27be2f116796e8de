"""Learning curves of learned's value: how strong it plays as the positions it learns from grow.

    python benchmarks/learning_curves.py TRAINING [--iteration 1] [--sizes 1e4,1e5,1e6]
        [--models linear,mlp,trees] [--hidden 64,32] [--deals 500] [--seed 4242]
        [--out benchmarks/results/learning_curves.jsonl] [--figure FILE.png]

TRAINING is a ``coltsim train`` folder: its iteration's recorded positions (the games of that
iteration's player, labelled by their outcomes) are the data.  For each model and each size, a
random set of whole games holding about that many positions is fitted (coltsim.learn.fit, the
training's own fit and held-out games), and the fitted value plays ``learned`` in one seat
against three planners on ``--deals`` deals, every seat rotation (coltsim.runs.match
through the training's match): its victory share with a 95% interval over deals.  ``trees``
(scikit-learn's gradient-boosted trees) cannot play inside the compiled kernels: it is a probe
of what the inputs carry, its held-out R² only.  Each result is one JSON line (appended to
``--out``), with the seconds its fit and match took; ``--figure`` draws the curves of every
line in ``--out``.

A training by a search (``coltsim train --teacher N``) records decisions, each option with the
search's value: there ``mlp`` is fitted as that training fits (``fit_options``, the training's
epochs), a point gives the held-out agreement with the search and regret (the search's value
given up per decision) instead of R², and, for a mixed training, its share over the fair share
against planners at each table of config.MIX_MATCHES and their mean (``ratio``).
"""
from __future__ import annotations

import keyed_cache  # noqa: F401  (first: numba's cache keyed on coltsim's sources)
import argparse
import dataclasses
import io
import json
import time
from pathlib import Path

import numpy as np

from coltsim.learn.config import TrainConfig
from coltsim.learn.fit import HELD_OUT, fit, fit_options, split, targets
from coltsim.learn.train import Trainer, chunk_names
from coltsim.policies.weights import load_net
from coltsim.runs.folder import Folder

OUT = Path(__file__).resolve().parent / "results" / "learning_curves.jsonl"
OPTIONS_OUT = OUT.with_name("option_curves.jsonl")
SAMPLES_SEEN = 3_000_000  # a perceptron sees about this many positions in all (3 to 40 epochs)


def load_config(folder) -> TrainConfig:
    """The configuration of the training in ``folder``, from its manifest."""
    with Folder(folder, "training", claim=False) as f:
        identity = f.load_manifest()["identity"]
    fields = {field.name for field in dataclasses.fields(TrainConfig)}
    return TrainConfig(**{k: tuple(v) if k == "hidden" else v for k, v in identity.items()
                          if k in fields})


def load(folder: Path, iteration: int):
    """The positions of ``iteration`` of the training in ``folder``, and its configuration."""
    config = load_config(folder)
    with Folder(folder, "training", claim=False) as f:
        parts = [np.load(io.BytesIO(f.read(n))) for n in chunk_names(iteration, config.games)]
    return config, [np.concatenate([p[k] for p in parts]) for k in ("x", "meta", "y")]


def games_holding(meta: np.ndarray, rows: int, rng) -> np.ndarray:
    """The rows of a random set of whole games holding about ``rows`` positions."""
    from coltsim.policies.recording import M_GAME

    games, counts = np.unique(meta[:, M_GAME], return_counts=True)
    order = rng.permutation(len(games))
    take = games[order[:np.searchsorted(np.cumsum(counts[order]), rows) + 1]]
    return np.flatnonzero(np.isin(meta[:, M_GAME], take))


def trees_r2(x, meta, y, margin: float, seed: int) -> float:
    """Held-out R² of gradient-boosted trees on the same split the fit uses."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    train_rows, held_rows = split(meta, np.random.default_rng(seed))
    t = targets(y, margin)
    model = HistGradientBoostingRegressor(max_iter=300, random_state=seed)
    model.fit(x[train_rows].astype(np.float32), t[train_rows])
    err = model.predict(x[held_rows].astype(np.float32)) - t[held_rows]
    return float(1.0 - np.mean(err ** 2) / np.var(t[held_rows]))


def curve_point(config, data, model, size, hidden, deals, seed, trainer) -> dict:
    if config.teacher:
        return option_point(config, data, size, hidden, deals, seed, trainer)
    x, meta, y = data
    rows = games_holding(meta, size, np.random.default_rng(seed + size))
    x, meta, y = x[rows], meta[rows], y[rows]
    start = time.perf_counter()
    point = {"model": model, "positions": int(len(rows)), "games": int(len(np.unique(meta[:, 0]))),
             "margin": config.margin, "deals": deals, "seed": seed}
    if model == "trees":
        point["r2"] = round(trees_r2(x, meta, y, config.margin, seed), 4)
        point["fit_seconds"] = round(time.perf_counter() - start, 1)
        return point
    layers = hidden if model == "mlp" else ()
    epochs = int(min(40, max(3, SAMPLES_SEEN // max(1, len(rows))))) if layers else 1
    result = fit(x, meta, y, hidden=layers, margin=config.margin, epochs=epochs, seed=seed)
    point.update(hidden=list(layers), epochs=epochs, r2=round(result.r2, 4),
                 fit_seconds=round(result.seconds, 1))
    start = time.perf_counter()
    share = trainer.match(result.net, "planner", seed, deals, f"{model} {len(rows):,}")
    point.update(share=share["share"], lo=share["lo"], hi=share["hi"],
                 match_seconds=round(time.perf_counter() - start, 1))
    return point


def option_point(config, data, size, hidden, deals, seed, trainer) -> dict:
    """A point of a training by a search: ``fit_options`` on the decisions of a random set of
    whole games holding about ``size`` options, matched against planners."""
    x, meta, y = data
    rows = games_holding(meta, size, np.random.default_rng(seed + size))
    result = fit_options(x[rows], meta[rows], y[rows], hidden=hidden, epochs=config.epochs,
                         seed=seed)
    point = {"model": "options", "positions": int(len(rows)),
             "games": int(len(np.unique(meta[rows, 0]))), "deals": deals, "seed": seed,
             "hidden": list(hidden), "epochs": config.epochs, "best_epoch": result.best_epoch,
             "agree": round(result.agree, 4), "regret": round(result.regret, 5),
             "r2": round(result.r2, 4), "fit_seconds": round(result.seconds, 1)}
    start = time.perf_counter()
    match = trainer.match(result.net, "planner", seed, deals, f"options {len(rows):,}")
    point["ratio"] = match["ratio"]
    if "tables" in match:
        point["tables"] = [{"players": t["players"], "rules": t["rules"], "ratio": t["ratio"]}
                           for t in match["tables"]]
    else:
        point.update(share=match["share"], lo=match["lo"], hi=match["hi"])
    point["match_seconds"] = round(time.perf_counter() - start, 1)
    return point


def draw(lines: list, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    options = any(p["model"] == "options" for p in lines)
    nets = [p for p in lines if p["model"] == "net" and "positions" in p]
    lines = [p for p in lines if p["model"] != "net"]
    labels = [label(p) for p in lines]
    for k, name in enumerate(dict.fromkeys(labels)):
        pts = sorted((p for p, n in zip(lines, labels) if n == name),
                     key=lambda p: p["positions"])
        n = [p["positions"] for p in pts]
        right.plot(n, [p["regret" if options else "r2"] for p in pts], "o-", color=f"C{k}",
                   label=name)
        if options:
            left.plot(n, [p["ratio"] for p in pts], "o-", color=f"C{k}", label=name)
            continue
        played = [p for p in pts if "share" in p]
        if played:
            left.errorbar([p["positions"] for p in played], [p["share"] for p in played],
                          yerr=[[p["share"] - p["lo"] for p in played],
                                [p["hi"] - p["share"] for p in played]],
                          fmt="o-", color=f"C{k}", capsize=3, label=name)
    for p in nets:  # trained networks on the same deals
        left.plot(p["positions"], p["ratio"], "k*", markersize=9)
        left.annotate(p["net"][:6], (p["positions"], p["ratio"]), textcoords="offset points",
                      xytext=(4, -10), fontsize=8)
    left.axhline(1.0 if options else 0.25, color="grey", lw=0.8, ls="--", label="a fair share")
    if options:
        left.set(xscale="log", xlabel="options learned from", ylabel="x the fair share",
                 title="against planners, the mean over the matched tables")
        right.set(xscale="log", xlabel="options learned from",
                  ylabel="regret on held-out decisions", title="the search's value given up")
    else:
        left.set(xscale="log", xlabel="positions learned from", ylabel="victory share",
                 title="learned in one seat against three planners (95% CI)")
        right.set(xscale="log", xlabel="positions learned from", ylabel="R² on held-out games",
                  title="how much of the outcome the value explains")
    for ax in (left, right):
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def label(point: dict) -> str:
    return point["model"] + (f" {'-'.join(map(str, point['hidden']))}"
                             if point.get("hidden") else "")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("training", type=Path)
    parser.add_argument("--iteration", type=int, default=1)
    parser.add_argument("--sizes", default="1e4,1e5,1e6")
    parser.add_argument("--models", default="linear,mlp,trees")
    parser.add_argument("--hidden", default="64,32",
                        help="the perceptron's hidden layers; several shapes apart by ';'")
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None,
                        help=f"(default {OUT.name}; a training by a search: {OPTIONS_OUT.name})")
    parser.add_argument("--figure", type=Path, default=None)
    parser.add_argument("--nets", type=Path, nargs="*", default=[],
                        help="weights files matched on the same deals too (a training by a "
                             "search): where trained networks stand on the curve")
    args = parser.parse_args(argv)
    sizes = [int(float(size)) for size in args.sizes.split(",") if size]
    config, data = load(args.training, args.iteration) if sizes else (
        load_config(args.training), None)
    trainer = Trainer(config, None, args.workers or -1, "loky", None, False, print)
    shapes = [tuple(int(h) for h in shape.split(",") if h) for shape in args.hidden.split(";")]
    out = args.out or (OPTIONS_OUT if config.teacher else OUT)
    out.parent.mkdir(parents=True, exist_ok=True)
    if sizes:
        print(f"{len(data[0]):,} positions of iteration {args.iteration} "
              f"(one game in {HELD_OUT} held out of each fit)")
    models = ["options"] if config.teacher else args.models.split(",")
    shaped = [(m, h) for m in models for h in (shapes if m in ("mlp", "options") else [()])]
    for model, hidden in shaped:
        for size in sizes:
            point = curve_point(config, data, model, size, hidden, args.deals, args.seed,
                                trainer)
            print(json.dumps(point), flush=True)
            with out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(point) + "\n")
    for path in args.nets:
        net, about = load_net(path)
        match = trainer.match(net, "planner", args.seed, args.deals, path.name)
        point = {"model": "net", "net": about["sha256"][:12], "deals": args.deals,
                 "seed": args.seed, "ratio": match["ratio"],
                 "tables": [{"players": t["players"], "rules": t["rules"], "ratio": t["ratio"]}
                            for t in match["tables"]]}
        if "fit" in about:  # (its positions: the fit's rows and held-out rows)
            point["positions"] = about["fit"]["rows"] + about["fit"]["held_out"]
        print(json.dumps(point), flush=True)
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(point) + "\n")
    if args.figure:
        lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        draw(lines, args.figure)
        print(f"figure: {args.figure}")


if __name__ == "__main__":
    main()
