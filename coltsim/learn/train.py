"""``coltsim train``: a value network for ``learned``, learned from the outcomes of many games,
from a seed, into a resumable folder.

Each iteration ``k`` (1, 2 ...):

1. **Play and record.**  ``games`` games (games ``(k - 1) * games ..`` of the master seed), every
   seat played by the iteration's player: iteration 1 by ``start`` (the planner by default;
   a weights file: learned with its network), iteration ``k > 1`` by ``learned`` with the
   network of iteration ``k - 1``; at the table ``players`` and ``rules``, or, with ``mix``,
   each chunk at its table of the schedule (``table_of``: config.MIX_PLAYERS in turn,
   config.MIX_RULES every other turn).  A share of the decisions is recorded
   (policies/recording.py), labelled in one of two ways:

   - **by outcome** (``teacher = 0``): the position the chosen option leads to, as ``learned``
     encodes it, labelled once the game is over with the decider's outcome (a share of the
     recorded decisions explores: it plays a random option, so that the data shows what the
     other options lead to), and every player's position at the first decision of each round
     after the first (what ismcts values at the end of a round with ``leaf = "learned"``).
     Each label is the outcome of one game, noisy; the noise averages out over the hundreds of
     thousands of positions a fit sees (Monte-Carlo returns, as in TD-Gammon and DouZero).
   - **by a search** (``teacher`` playouts): each recorded decision is searched by ``ismcts``
     (config.TEACHERS: planners as its models; up to 4 players the iteration's network as its
     leaf value at the end of the round, at 5 and 6 two rounds played and scored) and every
     option is recorded with the search's mean outcome of it (Expert
     Iteration: the teacher improves with the student it is given as its leaf).

   The games are played in chunks through the runner's backends (runs.runner), so the same
   seed gives the same data on any number of workers.
2. **Fit** a network on the positions of the latest ``window`` iterations (fit.py: ``fit`` by
   outcome, ``fit_options`` by a search).
3. **Match** it on the selection deals (master seed + 1), every seat rotation
   (runs.match): in one seat against the rest its predecessor (iteration 1: the start
   policy) and against the rest planners, at ``players`` or, with ``mix``, at each table of
   config.MIX_MATCHES; an iteration's answer is its share over the fair share (the mean of
   them with ``mix``).

The training stops after ``iterations`` or as soon as an iteration's network does not beat its
predecessor (a share at or under the fair one).  The network with the best share against the
planners (over the fair share) on the selection deals is chosen and then reported on other
deals (master seed + 2, ``report_deals`` of them): a choice is never reported on the deals it
was made on.  The chosen
network is ``FOLDER/weights.npz`` (weights.py: the network, its hash and its provenance: rules,
seed, data, fits, matches, commit), for an experiment's ``[policy_params.learned] weights``.

The folder (runs.folder: one writer, files verified against its manifest, a training of
another configuration refused) holds ``iter-KK/chunk-NNNNN.npz`` (a chunk's positions),
``iter-KK/net.npz`` (the fit), ``iter-KK/match.json``, ``report.json`` and ``weights.npz``; a
rerun resumes where it stopped (finished chunks, fits and matches are read, not redone, and a
damaged one is made again), and more ``iterations`` continue a training that has not stopped.
"""
from __future__ import annotations

import dataclasses
import io
import subprocess
from pathlib import Path

import numpy as np

from .. import __version__
from .._jit import announce_compile
from ..engine.scoring import RB_N, RG_N
from ..rules import MAX_ROUNDS
from ..playout import kernel_parts
from ..policies.recording import new_recorder
from ..policies.weights import (
    load_net, net_bytes, net_hash, read_net_bytes, save_net, shipped_net, table,
)
from ..runs.chunk import ChunkJob, play_batch, seat_shares
from ..runs.folder import Folder
from ..runs.options import check_backend, check_folder, check_workers
from ..runs.runner import chunk_job, play_chunks
from ..runs.match import play_table
from ..setting import make_setting
from ..policies.catalog import param_vector
from .config import MIX_MATCHES, MIX_PLAYERS, MIX_RULES, TEACHERS, TrainConfig
from .fit import fit, fit_options

CHUNK = 2000  # games per chunk
ROWS_PER_GAME = 160  # room for a game's recorded positions at a share of 1 (grown if short)
OPTIONS_PER_DECISION = 6  # rows a decision labelled by a search takes, about (grown if short)


def play_chunk(job: ChunkJob, chunk: int, first: int, n: int):
    """Play games ``first .. first + n - 1`` of ``job`` (or of ``job[chunk]``, a dict of each
    chunk's job: a mixed training's); returns ``(chunk, first, n, None, (wins, data))``: each
    seat's victory share per game (``float64[n, players]``) and, with decisions recorded
    (``job.record``), the chunk's positions as the bytes of an ``.npz`` file (x, meta, y)."""
    if isinstance(job, dict):
        job = job[chunk]
    out_b = np.zeros((n, job.n_bandits, RB_N), np.int32)
    out_g = np.zeros((n, RG_N), np.int32)
    data = None
    if not job.record:
        play_batch(job, first, out_b, out_g)
    else:
        share, explore, rounds, teacher = job.record
        per_game = OPTIONS_PER_DECISION * ROWS_PER_GAME if teacher is not None else ROWS_PER_GAME
        cap = int(n * per_game * share) + 64 + (n * job.players * MAX_ROUNDS if rounds else 0)
        while True:  # a recorder that fills up is grown and the games played again: no row lost
            rec = new_recorder(cap, share, explore, rounds, teacher)
            play_batch(job, first, out_b, out_g, rec)
            x, meta, y, _, (rows, full, *_) = rec[:5]  # (recording.py's module docstring)
            if not full:
                break
            cap *= 2
        buf = io.BytesIO()
        np.savez(buf, x=x[:rows].astype(np.float16), meta=meta[:rows], y=y[:rows])
        data = buf.getvalue()
    return chunk, first, n, None, (seat_shares(out_b, out_g, job.players), data)


class Trainer:
    """The steps of a training (train), each on its folder; ``match`` also serves without one
    (benchmarks/learning_curves.py)."""

    def __init__(self, config: TrainConfig, folder: Folder, workers, backend, scheduler,
                 progress, say):
        self.c = config
        self.folder = folder
        self.workers = workers
        self.backend = backend
        self.scheduler = scheduler
        self.progress = progress
        self.say = say
        self.rules = config.checked_rules()

    def job(self, policies, nets, share=0.0, seed=None, at=None, teacher=None) -> ChunkJob:
        """The table of ``policies`` (one per seat), the seats' networks ``nets`` (one per seat,
        None where none is needed), at the table ``at`` (``(players, rules)``; default the
        configuration's), a ``share`` of its decisions recorded by ``teacher`` (a network:
        labels by a search) or by outcome."""
        players, rules = at if at is not None else (self.c.players, self.rules)
        s = make_setting(players, policies=policies, rules=rules)
        job = chunk_job(s, self.c.seed if seed is None else seed)
        rows = [n if n is not None else job.nets[p] if job.nets[p].any() else None
                for p, n in enumerate(nets)]
        record = ()
        if share and teacher is not None:
            record = (float(share), 0.0, False, (teacher_params(players, self.c.teacher), teacher))
        elif share:
            record = (float(share), float(self.c.explore), True, None)
        return dataclasses.replace(job, nets=table(rows, players), record=record)

    def table_of(self, k: int, chunk: int) -> tuple:
        """The table ``(players, rules)`` chunk ``chunk`` of iteration ``k`` is played at: with
        ``mix``, the chunks of all iterations in a row take the player counts in turn, and every
        other turn one rule change of config.MIX_RULES, the changes in turn."""
        if not self.c.mix:
            return self.c.players, self.c.rules
        turn, i = divmod((k - 1) * len(chunk_names(k, self.c.games)) + chunk, len(MIX_PLAYERS))
        if turn % 2 == 0:
            return MIX_PLAYERS[i], {}
        changes = [(name, v) for name, values in MIX_RULES for v in values]
        name, value = changes[(turn // 2 * len(MIX_PLAYERS) + i) % len(changes)]
        return MIX_PLAYERS[i], {name: value}

    def play(self, job, games: int, first: int, desc: str, on_done, done=()):
        """Play ``games`` games from ``first`` of ``job`` (play_chunk's) in chunks (skipping the
        chunks ``done``), with a progress bar and, the first time, the compile notice."""
        from tqdm.auto import tqdm

        todo = [(c, lo, min(CHUNK, first + games - lo))
                for c, lo in enumerate(range(first, first + games, CHUNK)) if c not in done]
        one = next(iter(job.values())) if isinstance(job, dict) else job
        with tqdm(total=games, initial=games - sum(n for _, _, n in todo), unit="game",
                  desc=desc, disable=not self.progress, mininterval=0.5) as bar:
            def done_one(chunk, lo, n, result):
                on_done(chunk, lo, n, result)
                bar.update(n)
            if todo:
                parts = kernel_parts("recording" if one.record else "batch", one.choosers)
                with announce_compile(parts, bar.write if self.progress else None):
                    play_chunk(one, 0, first, 1)
                play_chunks(play_chunk, job, todo, self.backend, self.workers, self.scheduler,
                            done_one)

    # --- the steps ----------------------------------------------------------------------------
    def record(self, k: int, player: str, net) -> None:
        """Play iteration ``k``'s games into its chunk files (each written as it finishes; the
        chunks already verified are not played again)."""
        f = self.folder

        names = chunk_names(k, self.c.games)
        done = {c for c, name in enumerate(names) if f.verified(name)}

        def save(chunk, lo, n, result):
            f.claim()  # (once a chunk is played: a start that fails claims nothing)
            f.write(names[chunk], result[1])

        teacher = None
        if self.c.teacher:
            teacher = net if net is not None else shipped_net()
        jobs, tables = {}, {}
        for c in range(len(names)):  # (a mixed training's chunks: each at its table)
            at = self.table_of(k, c)
            if repr(at) not in tables:
                tables[repr(at)] = self.job(player, [net] * at[0], self.c.share, at=at,
                                            teacher=teacher)
            jobs[c] = tables[repr(at)]
        self.play(jobs, self.c.games, (k - 1) * self.c.games, f"iteration {k}: playing", save,
                  done)

    def load(self, names: list[str]):
        parts = [np.load(io.BytesIO(self.folder.read(n))) for n in names]
        x = np.concatenate([p["x"] for p in parts])
        meta = np.concatenate([p["meta"] for p in parts])
        y = np.concatenate([p["y"] for p in parts])
        return x, meta, y

    def fitted(self, k: int, names: list[str]) -> tuple[np.ndarray, dict]:
        """Iteration ``k``'s network, fitted on the chunks ``names`` (or read back)."""
        where = f"iter-{k:02d}/net.npz"
        if self.folder.verified(where):
            net, about = read_net_bytes(self.folder.read(where), self.folder.path / where)
            return net, about["fit"]
        x, meta, y = self.load(names)
        self.say(f"iteration {k}: fitting a network on {len(x):,} positions")
        say = (lambda s: self.say(f"  {s}")) if self.progress else None
        if self.c.teacher:
            result = fit_options(x, meta, y, hidden=self.c.hidden, epochs=self.c.epochs,
                                 seed=self.c.seed + k, say=say)
        else:
            result = fit(x, meta, y, hidden=self.c.hidden, margin=self.c.margin,
                         epochs=self.c.epochs, seed=self.c.seed + k, say=say)
        self.folder.write(where, net_bytes(result.net, {"fit": result.as_dict()}))
        return result.net, result.as_dict()

    def match(self, net: np.ndarray, other, seed: int, deals: int, desc: str) -> dict:
        """``net`` in one seat against the rest ``other`` (a network, or a policy name),
        every seat rotation on the same deals (runs.match): its share with a 95% interval
        over deals and its ``ratio`` to the fair share; with ``mix``, at each table of
        config.MIX_MATCHES (``tables``) and their mean ratio."""
        if not self.c.mix:
            return self.match_at((self.c.players, self.rules), net, other, seed, deals, desc)
        tables = [dict(players=p, rules=r, **self.match_at(
            (p, r), net, other, seed, deals, f"{desc} at {_table_words((p, r))}"))
            for p, r in MIX_MATCHES]
        return {"ratio": round(float(np.mean([t["ratio"] for t in tables])), 6),
                "tables": tables}

    def match_at(self, at, net, other, seed, deals, desc) -> dict:
        players = at[0]
        nets = {"new": net}
        if not isinstance(other, str):
            nets["old"] = other
            other = "old"

        def play(seating, games, seed):
            wins = np.zeros((games, players))

            def keep(chunk, lo, n, result):
                wins[lo:lo + n] = result[0]
            job = self.job(["learned" if e in nets else e for e in seating],
                           [nets.get(e) for e in seating], seed=seed, at=at)
            self.play(job, games, 0, desc, keep)
            return wins

        table_ = ["new"] + [other] * (players - 1)
        result = play_table(table_, deals, seed, play)["new"].as_dict()
        return dict(result, ratio=round(result["share"] * players, 6))


def train(folder, config: TrainConfig | None = None, *, workers: int | None = None,
          backend: str = "loky", scheduler: str | None = None, progress: bool = True,
          say=print) -> dict:
    """Run (or resume) the training ``config`` in ``folder`` (module docstring); returns what
    the chosen network's weights file says of it (``FOLDER/weights.npz``)."""
    config = (config or TrainConfig()).check()
    path = check_folder(folder)
    backend = check_backend(backend, scheduler)
    workers = check_workers(workers, backend) or -1
    with Folder(path, "training", identity=config.identity(), claim=False) as f:
        t = Trainer(config, f, workers, backend, scheduler, progress, say)
        select_seed, report_seed = config.seed + 1, config.seed + 2
        history = []
        net = None  # the iteration's player: None plays the start policy
        stopped = False
        for k in range(1, config.iterations + 1):
            if k == 1:
                net = config.start_net()
            player = "learned" if net is not None else config.start
            t.record(k, player, net)
            window = [n for j in range(max(1, k - config.window + 1), k + 1)
                      for n in chunk_names(j, config.games)]
            new, fitted = t.fitted(k, window)
            result = _load_or(f, f"iter-{k:02d}/match.json", lambda: {
                "predecessor": t.match(new, player if net is None else net, select_seed,
                                       config.match_deals, f"iteration {k}: against its "
                                       "predecessor"),
                "planner": t.match(new, "planner", select_seed, config.match_deals,
                                   f"iteration {k}: against planners")})
            history.append({"iteration": k, "fit": fitted, "games": config.games,
                            "positions": fitted.get("rows", 0) + fitted.get("held_out", 0),
                            "net_sha256": net_hash(new), **result})
            say(f"iteration {k}: {_share(result['predecessor'])} against its predecessor, "
                f"{_share(result['planner'])} against planners")
            if result["predecessor"]["ratio"] <= 1:
                say(f"iteration {k} does not beat its predecessor: stopping")
                stopped = True
                break
            net = new
        best = max(history, key=lambda h: h["planner"]["ratio"])
        best_net = _iteration_net(f, best["iteration"])
        reported = _load_or(f, f"report-{best['iteration']:02d}.json", lambda: t.match(
            best_net, "planner", report_seed, config.report_deals,
            f"iteration {best['iteration']}: reported against planners"))
        about = {"about": "A value network of the learned policy (coltsim/policies/learned.py),"
                          " made by coltsim train (coltsim/learn/train.py)",
                 "trained_by": "coltsim train", "coltsim": __version__, "commit": _commit(),
                 "config": config.as_dict(), "iteration": best["iteration"],
                 "stopped": stopped, "history": history,
                 "selected_on": {"seed": select_seed, "deals": config.match_deals},
                 "against_planners": reported,
                 "reported_on": {"seed": report_seed, "deals": config.report_deals}}
        weights = path / "weights.npz"
        save_net(weights, best_net, about)
        about = load_net(weights)[1]  # (what a user will load: checked, with its hash)
    say(f"chosen: iteration {best['iteration']}, {_share(reported)} against planners "
        f"on {config.report_deals:,} deals it was not chosen on; to play it, in an experiment "
        f"file: [policy_params.learned] weights = \"{weights}\"")
    return about


def teacher_params(players: int, budget: int):
    """The teacher's ``ismcts`` parameter row at ``players`` players (config.TEACHERS)."""
    return param_vector("ismcts", dict(TEACHERS[players], budget=budget, opponents="planner",
                                       playout="planner", width=0))


def chunk_names(k: int, games: int) -> list[str]:
    """The chunk files of iteration ``k`` (``games`` games): only these are fitted, each
    verified against the folder's manifest (a stray or copied file is not read)."""
    return [f"iter-{k:02d}/chunk-{c:05d}.npz" for c in range(-(-games // CHUNK))]


def _iteration_net(f: Folder, k: int) -> np.ndarray:
    name = f"iter-{k:02d}/net.npz"
    return read_net_bytes(f.read(name), f.path / name)[0]


def _load_or(f: Folder, name: str, make):
    if f.verified(name):
        return f.read_json(name)
    value = make()
    f.write_json(name, value)
    return value


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).parent, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _share(m: dict) -> str:
    if "tables" in m:
        return f"{m['ratio']:.3f} x the fair share (the mean of {len(m['tables'])} tables)"
    return f"{m['share']:.3f} ({m['lo']:.3f} to {m['hi']:.3f})"


def _table_words(at) -> str:
    players, rules = at
    changed = ", ".join(f"{k} = {v!r}" for k, v in rules.items())
    return f"{players} players" + (f" ({changed})" if changed else "")
