"""``coltsim train``: expert iteration, from a seed, into a resumable folder.

Each iteration ``k`` (1, 2 ...):

1. **Record.**  ``games`` games of the learner in every seat, with the weights of iteration
   ``k - 1`` (iteration 0: the shipped ``learned.json``), games ``(k - 1) * games ..`` of the
   master seed; at a share of the decisions ``learned`` values, the teacher (ismcts, its
   opponents and playouts ``learned`` with the same weights, or the fixed model
   ``teacher_model``) says what each option is worth (record.py).  The games are played in chunks through the runner's backends (runs.runner), so
   the same seed gives the same data on any number of workers or on a Dask cluster.
2. **Fit.**  The new weights are a ridge regression of the teacher's values on the options'
   features, within each decision (features and values less their visit-weighted means: only
   differences between the options of one decision count, as they are all the learner acts
   on), weighted by the teacher's playouts, on the data of every iteration so far.
3. **Match.**  The new weights in one seat against three of the previous ones, and against three
   planners, every seat rotation on the same deals: the victory share of the seat with a 95%
   interval over the deals.

The training stops after ``iterations`` or as soon as an iteration's weights do not beat their
predecessor (a share at or under the fair one); the best weights (against
the planners) are the folder's ``weights.json``, with their provenance: the rules, the data,
the seed, the iterations, the commit.  Install the training extra for the fit:
``pip install 'coltsim[train]'`` (scikit-learn).

The folder (``train.json``: the configuration; ``iter-K/``: the chunks' data ``chunk-NNNNN.npz``,
``weights.json``, ``match.json``) resumes where it stopped: finished chunks, fits and matches
are read, not redone, and more ``iterations`` continue it; a folder holding another
configuration is refused.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import __version__
from .._jit import announce_compile
from ..engine.scoring import RB_N, RB_WIN, RG_N, RG_N_WINNERS
from ..playout import kernel_parts, new_kernel_states, warm_up
from ..policies import param_vector
from ..policies.learned import FEATURES, N_FEATURES, WEIGHTS_FILE, load_weights, weights_array
from ..runs.chunk import resolve_seats
from ..runs.runner import play_chunks
from ..runs.options import check_backend, check_folder, check_workers
from ..setting import FieldError, make_setting
from .config import TrainConfig
from .record import R_DECISION, R_GAME, R_N, V_MEAN, V_N, V_VISITS, recorder

CHUNK = 50  # games per chunk of a recording (a few seconds of search each)
ROWS_PER_GAME = 400  # room for the rows of a recorded game (about 14 decisions x 6 options)


@dataclass(frozen=True)
class RecordJob:
    """A table of the recording kernel, small and picklable: the chunk task's argument."""

    seed: int
    lineups: np.ndarray
    seat_policy: np.ndarray
    params: np.ndarray
    opts: np.ndarray
    choosers: tuple
    weights: np.ndarray  # float64[players, N_FEATURES]
    learner: np.ndarray  # bool[players]
    teacher: np.ndarray  # ismcts's parameter row
    share: float
    n_bandits: int
    model: str  # the teacher's models (catalog.PLAYOUT_NAMES)


def record_chunk(job: RecordJob, chunk: int, first: int, n: int):
    """Play games ``first .. first + n - 1`` of ``job``; returns ``(chunk, first, n, None,
    (feats, ints, floats, wins))``: the rows recorded (record.py) and each player's victory
    share per game (``float64[n, players]``)."""
    cap = n * ROWS_PER_GAME if job.share > 0 else 0
    feats = np.zeros((cap, N_FEATURES))
    ints = np.zeros((cap, R_N), np.int64)
    floats = np.zeros((cap, V_N))
    out_b = np.zeros((n, job.n_bandits, RB_N), np.int32)
    out_g = np.zeros((n, RG_N), np.int32)
    rows = recorder(job.choosers, job.model)(
        new_kernel_states(), job.seed, first, job.lineups, job.seat_policy, job.params, job.opts,
        job.weights, job.learner, job.teacher, job.share, 0.0, out_b, out_g, feats, ints, floats)
    wins = out_b[:, :, RB_WIN] / np.maximum(1, out_g[:, None, RG_N_WINNERS])
    return chunk, first, n, None, (feats[:rows].astype(np.float32), ints[:rows].astype(np.int32),
                                   floats[:rows].astype(np.float32), wins)


# --- the folder ----------------------------------------------------------------------------------
def _write_json(path: Path, obj) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def _open_folder(folder: Path, config: TrainConfig) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "train.json"
    identity = config.identity()
    if path.exists():
        saved = json.loads(path.read_text())
        if saved != identity:
            diff = sorted(k for k in set(saved) | set(identity)
                          if saved.get(k) != identity.get(k))
            raise FieldError("folder", f"{folder} holds a training of another configuration "
                                       f"(it differs in {', '.join(diff)}); choose another folder")
    elif any(folder.iterdir()):
        raise FieldError("folder", f"{folder} is not empty and holds no training (no "
                                   "train.json); choose a new or empty folder")
    else:
        _write_json(path, identity)


def weights_dict(w: np.ndarray) -> dict:
    return {name: round(float(v), 6) for name, v in zip(FEATURES, w)}


def weights_hash(by_name: dict) -> str:
    """The SHA-256 of a weights table (by feature name), as ``learned.json`` records it."""
    text = json.dumps({k: by_name[k] for k in sorted(by_name)}, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).parent, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


# --- the steps -----------------------------------------------------------------------------------
class _Trainer:
    def __init__(self, config, folder, workers, backend, scheduler, progress):
        self.c = config
        self.folder = folder
        self.workers = workers
        self.backend = backend
        self.scheduler = scheduler
        self.progress = progress
        self.rules = config.checked_rules()
        self.teacher = param_vector("ismcts", {"budget": config.budget,
                                               "horizon": config.horizon})

    def job(self, policies, weights, share, seed) -> RecordJob:
        s = make_setting(self.c.players, policies=policies, rules=self.rules)
        seats = resolve_seats(s)
        learner = np.array([p == "learned" for p in s.policies])
        return RecordJob(seed, s.lineups(), seats.seat_policy, seats.params, s.rules.to_array(),
                         seats.choosers, np.asarray(weights, np.float64), learner, self.teacher,
                         float(share), s.n_bandits, self.c.teacher_model)

    def play(self, job, games, first, desc, on_done, done=()):
        """Play ``games`` games from ``first`` in chunks, skipping the chunks ``done``."""
        from tqdm.auto import tqdm


        todo = [(c, lo, min(CHUNK, first + games - lo))
                for c, lo in enumerate(range(first, first + games, CHUNK)) if c not in done]
        with tqdm(total=games, initial=games - sum(n for _, _, n in todo), unit="game",
                  desc=desc, disable=not self.progress, mininterval=0.5) as bar:
            def done_one(chunk, lo, n, result):
                on_done(chunk, lo, n, result)
                bar.update(n)
            if todo:
                teacher = f"ismcts:{job.model}:{job.model}"
                parts = kernel_parts("record", job.choosers + (teacher,), "learn/record.py")
                with announce_compile(parts, bar.write if self.progress else None):
                    warm_up("record", job.choosers + (teacher,))
                    record_chunk(dataclasses.replace(job, share=0.0), 0, first, 1)
                play_chunks(record_chunk, job, todo, self.backend, self.workers, self.scheduler,
                            done_one)

    def record(self, k: int, w: np.ndarray) -> list:
        """Iteration ``k``'s recorded games (its chunk files, written as they finish)."""
        where = self.folder / f"iter-{k:02d}"
        where.mkdir(exist_ok=True)

        def path(c):
            return where / f"chunk-{c:05d}.npz"
        done = {c for c in range(-(-self.c.games // CHUNK)) if path(c).exists()}

        def save(chunk, lo, n, result):
            feats, ints, floats, _ = result
            tmp = where / f"chunk-{chunk:05d}.tmp.npz"
            np.savez(tmp, feats=feats, ints=ints, floats=floats)
            os.replace(tmp, path(chunk))

        job = self.job("learned", np.tile(w, (self.c.players, 1)), self.c.share, self.c.seed)
        self.play(job, self.c.games, (k - 1) * self.c.games, f"iteration {k}: recording", save,
                  done)
        return sorted(where.glob("chunk-*[0-9].npz"))

    def match(self, w_seat: np.ndarray, others, seed: int) -> dict:
        """``w_seat`` in one seat against three of ``others`` (weights, or "planner"), every
        seat rotation on the same deals: its victory share with a 95% interval over deals."""
        p = self.c.players
        deals = self.c.match_deals
        shares = np.zeros((deals, p))
        for r in range(p):
            policies = ["learned" if (q == r or not isinstance(others, str)) else others
                        for q in range(p)]
            rows = np.tile(w_seat if isinstance(others, str) else others, (p, 1))
            rows[r] = w_seat

            def keep(chunk, lo, n, result, r=r):
                shares[lo:lo + n, r] = result[3][:, r]
            self.play(self.job(policies, rows, 0.0, seed), deals, 0,
                      f"match, seat {r + 1} of {p}", keep)
        per_deal = shares.mean(axis=1)
        half = 1.96 * per_deal.std(ddof=1) / np.sqrt(deals)
        m = float(per_deal.mean())
        return {"share": m, "lo": m - half, "hi": m + half, "deals": deals, "rotations": p}


def fit(files: list, alpha: float) -> tuple[np.ndarray, dict]:
    """The ridge fit of the teacher's values on the features, within each decision (module
    docstring), on the chunk files ``files``; returns the weights and what was fitted."""
    try:
        from sklearn.linear_model import Ridge
    except ImportError:
        raise FieldError("train", "the fit needs scikit-learn: pip install 'coltsim[train]'") \
            from None
    parts = [np.load(f) for f in files]
    feats = np.concatenate([d["feats"] for d in parts]).astype(np.float64)
    ints = np.concatenate([d["ints"] for d in parts]).astype(np.int64)
    floats = np.concatenate([d["floats"] for d in parts]).astype(np.float64)
    ok = np.isfinite(floats[:, V_MEAN]) & (floats[:, V_VISITS] > 0)
    feats, ints, floats = feats[ok], ints[ok], floats[ok]
    # A decision: its file, game and number.
    source = np.concatenate([np.full(len(d["ints"]), i) for i, d in enumerate(parts)])[ok]
    key = np.stack([source, ints[:, R_GAME], ints[:, R_DECISION]], axis=1)
    _, group = np.unique(key, axis=0, return_inverse=True)
    group = group.ravel()
    w = floats[:, V_VISITS]
    totals = np.bincount(group, weights=w)

    def within(x):
        x2 = x if x.ndim == 2 else x[:, None]
        means = np.zeros((totals.size, x2.shape[1]))
        np.add.at(means, group, x2 * w[:, None])
        d = x2 - (means / totals[:, None])[group]
        return d if x.ndim == 2 else d[:, 0]

    xd, yd = within(feats), within(floats[:, V_MEAN])
    model = Ridge(alpha=alpha, fit_intercept=False).fit(xd, yd, sample_weight=w)
    coef = model.coef_.copy()
    coef[FEATURES.index("bias")] = 0.0  # a constant does not tell options apart
    return coef, {"decisions": int(totals.size), "rows": int(len(yd)),
                  "r2_within": float(model.score(xd, yd, sample_weight=w))}


def train(folder, config: TrainConfig | None = None, *, workers: int | None = None,
          backend: str = "loky", scheduler: str | None = None, progress: bool = True,
          say=print) -> dict:
    """Run (or resume) the training ``config`` in ``folder`` (module docstring); returns the
    best weights' file content (``folder/weights.json``)."""
    config = (config or TrainConfig()).check()
    folder = check_folder(folder)
    backend = check_backend(backend, scheduler)
    workers = check_workers(workers, backend) or -1
    _open_folder(folder, config)
    t = _Trainer(config, folder, workers, backend, scheduler, progress)
    match_seed = config.seed + 1  # the matches' deals: apart from the recorded games
    w = load_weights(WEIGHTS_FILE)
    first = _load_or(folder / "iter-00" / "match.json",
                     lambda: {"planner": t.match(w, "planner", match_seed)})
    history = [{"iteration": 0, "weights": weights_dict(w), **first}]
    say(f"iteration 0 (the shipped weights): {_share(first['planner'])} against three planners")
    files: list = []
    for k in range(1, config.iterations + 1):
        files += t.record(k, w)
        fitted = _load_or(folder / f"iter-{k:02d}" / "weights.json",
                          lambda: _fit_record(files, config.alpha))
        new = weights_array(fitted["weights"])
        result = _load_or(folder / f"iter-{k:02d}" / "match.json", lambda: {
            "predecessor": t.match(new, np.asarray(w), match_seed),
            "planner": t.match(new, "planner", match_seed)})
        history.append({"iteration": k, "weights": fitted["weights"], "fit": fitted["fit"],
                        **result})
        say(f"iteration {k}: {_share(result['predecessor'])} against three of iteration "
            f"{k - 1}, {_share(result['planner'])} against three planners "
            f"({fitted['fit']['decisions']:,} decisions fitted)")
        if result["predecessor"]["share"] <= 1 / config.players:
            say(f"iteration {k} does not beat its predecessor: stopping")
            break
        w = new
    best = max(history, key=lambda h: h["planner"]["share"])
    out = {"about": "Weights of the learned policy (coltsim/policies/learned.py) by feature, "
                    "made by coltsim train (coltsim/learn/train.py); sha256 is their hash "
                    "(learn.train.weights_hash), provenance how they were made.",
           "weights": best["weights"], "sha256": weights_hash(best["weights"]),
           "provenance": {
               "trained_by": "coltsim train", "coltsim": __version__, "commit": _commit(),
               "config": config.as_dict(), "iteration": best["iteration"],
               "recorded_games": best["iteration"] * config.games,
               "decisions": best.get("fit", {}).get("decisions", 0),
               "against_planners": best["planner"],
               "history": [{k: v for k, v in h.items() if k != "weights"} for h in history]}}
    _write_json(folder / "weights.json", out)
    say(f"best: iteration {best['iteration']}, {_share(best['planner'])} against three "
        f"planners; weights in {folder / 'weights.json'} (copy it to {WEIGHTS_FILE} to ship it)")
    return out


def _fit_record(files, alpha) -> dict:
    coef, what = fit(files, alpha)
    return {"weights": weights_dict(coef), "fit": what}


def _load_or(path: Path, make):
    if path.exists():
        return json.loads(path.read_text())
    value = make()
    path.parent.mkdir(exist_ok=True)
    _write_json(path, value)
    return value


def _share(m: dict) -> str:
    return f"{m['share']:.3f} ({m['lo']:.3f} to {m['hi']:.3f})"

