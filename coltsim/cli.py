"""The coltsim command line: play Colt Express millions of times to answer balance questions
with experiments and their reports, balance searches, tournaments, runs and game traces.

Bad input gives a one-line error and exit status 2 (a usage mistake, a bad value, a damaged,
locked or taken folder, a file that cannot be written, a Dask scheduler that does not answer);
Ctrl-C gives one line and exit status 130, SIGTERM one line and 143 (a run's worker processes
stopped, its finished chunks kept); a warning (a chunk recomputed, a stale lock taken over) is
one line too, and a long value is shortened.  A report that cannot be built from the games a
run saved (a bug of coltsim: the games are kept) gives one line and exit status 1.  Only another
bug of coltsim shows a traceback.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import pickle
import shutil
import signal
import sys
import threading
import time
import warnings
from pathlib import Path

from ._process import DONE

MAX_MESSAGE = 500  # characters of an error or warning line, its value shortened in the middle


def _json_object(flag: str, text: str | None) -> dict | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{flag} is not valid JSON: {e}") from e
    except RecursionError:
        raise ValueError(f"{flag} is nested too deeply to be options") from None
    if not isinstance(value, dict):
        raise ValueError(f"{flag} must be a JSON object, e.g. '{{\"neutral_bullets\": -1}}', "
                         f"got {text}")
    return value


def _setting(args):
    """The setting the flags ask for (``coltsim.make_setting`` checks it); parameters of a
    policy no seat plays are refused, as an experiment file's are."""
    from .setting import make_setting

    params = _json_object("--params", args.params)
    setting = make_setting(4 if args.players is None else args.players, args.lineup,
                           args.policies, _json_object("--rules", args.rules), params,
                           setting_id=getattr(args, "setting_id", None))
    unplayed = [policy for policy in params or {} if policy not in setting.policies]
    if unplayed:
        raise ValueError(f"--params: {unplayed[0]} is played by no seat (the seats play "
                         f"{', '.join(dict.fromkeys(setting.policies))}); leave it out of "
                         "--params, or name it in --policies")
    return setting


_SETTING_FLAGS = ("players", "lineup", "policies", "params", "rules")


def _announcing():
    """Around a command that plays without a progress bar: "compiling ..." first if coltsim has
    not compiled the kernels it plays from these sources (coltsim._jit)."""
    from ._jit import announcing

    return announcing(lambda text: print(text, file=sys.stderr))


def _trace(args) -> None:
    import io

    from .traces.trace import trace_game, write_trace

    if args.out and Path(args.out).is_dir():
        raise ValueError(f"--out: {args.out} is a folder; give a file name, e.g. "
                         f"{Path(args.out) / 'game.jsonl'}")
    if args.out and not Path(args.out).parent.is_dir():  # said before a compile, not after
        raise ValueError(f"--out: the folder {Path(args.out).parent} does not exist")
    game = 0 if args.game is None else args.game
    if args.source is None:
        if args.setting is not None:
            raise ValueError("--setting names a setting of a run: use it with --from")
        setting = _setting(args)
        with _announcing():
            lines = trace_game(setting, seed=0 if args.seed is None else args.seed,
                               game_index=game)
    else:
        from .traces.replay import check_against_run, run_game

        given = [f"--{f}" for f in _SETTING_FLAGS + ("seed",) if getattr(args, f) is not None]
        if given:
            raise ValueError(f"--from replays a run's game with the run's setting and seed; "
                             f"leave out {', '.join(given)}")
        run = run_game(args.source, game, args.setting, _run_names(args.source))
        with _announcing():
            lines = trace_game(run.setting, seed=run.seed, game_index=run.game)
        note = check_against_run(run, lines[-1])
        if note:
            print(f"coltsim trace: note: {note}", file=sys.stderr)
    text = io.StringIO()
    write_trace(lines, text)
    if args.out:
        Path(args.out).write_text(text.getvalue(), encoding="utf-8")
    else:
        sys.stdout.write(text.getvalue())


def _run_names(source) -> dict | None:
    """Setting id -> its name in the report of the run in ``source`` (a report folder names its
    settings as its experiment does), or None when the folder cannot say."""
    from .runs.storage import read_manifest
    from .setting import played_settings
    from .study.experiment import load_experiment
    from .study.labels import run_names
    from .traces.replay import run_folder

    try:
        folder = run_folder(source)
        toml = Path(source) / "experiment.toml"
        settings = played_settings(load_experiment(toml).settings) if toml.is_file() else None
        return run_names(read_manifest(folder), settings)
    except (ValueError, OSError, KeyError, TypeError):
        return None  # a damaged folder or file: run_game says what is wrong with it


def _show(args) -> None:
    from .traces.show import render
    from .traces.tracecheck import TraceError, check_trace, read_trace

    name = "standard input" if args.trace == "-" else args.trace
    lines = read_trace(sys.stdin if args.trace == "-" else args.trace)
    problems = check_trace(lines)  # a trace that does not hold would be told wrong
    if problems:
        more = f" (and {len(problems) - 1:,} more)" if len(problems) > 1 else ""
        raise TraceError(f"{name}: not a trace of a game coltsim can tell: {problems[0]}{more}")
    try:
        text = render(lines, every_card=args.every_card)
    except (LookupError, TypeError, AttributeError) as e:
        raise TraceError(f"{name}: cannot be shown: a field is missing or malformed "
                         f"({type(e).__name__}: {e})") from None
    print(text)


def _simulate(args) -> None:
    from .runs.runner import simulate_to_folder

    setting = _setting(args)
    info = simulate_to_folder(setting, args.games, args.out, seed=args.seed,
                              chunk_size=args.chunk_size, workers=args.workers,
                              backend=args.backend, scheduler=args.scheduler, check=args.check,
                              progress=not args.quiet)
    if not args.quiet:
        done = info.games - info.games_run
        print(f"{info.games_run:,} games in {info.seconds:.1f} s "
              f"({info.games_per_second:,.0f} games/s)"
              + (f", {done:,} already done" if done else "")
              + f"; setting {info.setting_id} in {info.folder}")


def _bench(args) -> None:
    from .runs.bench import bench, format_bench

    r = bench(players=args.players, games=args.games, policy=args.policy, workers=args.workers,
              compile_times=not args.no_compile)
    print(json.dumps(r) if args.json else format_bench(r))


def _train(args) -> None:
    from .learn.config import TrainConfig
    from .learn.train import train

    hidden = tuple(_whole("--hidden", h) for h in args.hidden.split(",") if h.strip()) \
        if args.hidden.strip() not in ("", "0", "linear") else ()
    config = TrainConfig(seed=args.seed, iterations=args.iterations, games=args.games,
                         share=args.share, explore=args.explore, start=args.start,
                         hidden=hidden, epochs=args.epochs, match_deals=args.match_deals,
                         report_deals=args.report_deals, players=args.players,
                         rules=_json_object("--rules", args.rules) or {},
                         teacher=args.teacher, mix=args.mix)
    train(args.folder, config, workers=args.workers, backend=args.backend,
          scheduler=args.scheduler, progress=not args.quiet,
          say=(lambda text: None) if args.quiet else print)


def _whole(flag: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{flag} must be whole numbers separated by commas, got {text!r}") \
            from None


def _run(args) -> None:
    from .study.run import run_experiment

    run_experiment(args.experiment, games=args.games, workers=args.workers, out=args.out,
                   quiet=args.quiet, precision=args.precision, max_games=args.max_games,
                   replace=args.replace)


def _report(args) -> None:
    from .study.report import render_from_folder
    from .study.report.build import saved_settings

    folder = Path(args.folder)
    settings = saved_settings(folder)  # (a folder that is not a report's: said here)
    if args.repair:
        from .runs.runner import repair_folder

        repair_folder(folder / "data", settings, workers=args.workers)
    render_from_folder(args.folder)
    DONE.set()
    print(f"report: {args.folder}/report.md")


def _tune(args) -> None:
    from .study.tune.command import tune_file

    tune_file(args.file, games=args.games, max_games=args.max_games, workers=args.workers,
              out=args.out, quiet=args.quiet, replace=args.replace)


def _sample_size(args) -> None:
    from .study.sample_size import sample_sizes_file

    with _announcing() if args.pilot else contextlib.nullcontext():
        sizes = sample_sizes_file(args.experiment, half_width=args.half_width,
                                  difference=args.difference, alpha=args.alpha,
                                  power=args.power, pilot=args.pilot, workers=args.workers)
    print(sizes.text())


def _tournament(args) -> None:
    import pandas as pd

    from .study.tournament import tournament_file

    t0 = time.perf_counter()
    with _announcing():
        df = tournament_file(args.experiment, games=args.games, workers=args.workers,
                             progress=not args.quiet)
    with pd.option_context("display.width", 120, "display.max_columns", 20):
        print(df.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"({time.perf_counter() - t0:.1f} s)")
    if args.csv:
        df.to_csv(args.csv, index=False)


def _setting_flags(p) -> None:
    from .setting import DEFAULT_POLICY

    p.add_argument("--players", type=int, help="2 to 6 (default 4)")
    p.add_argument("--lineup", help="one bandit per seat, comma-separated; 'random' (default) "
                                    "draws them per game, 'all' plays every line-up in turn")
    p.add_argument("--policies", help="one policy for all, or comma-separated per player "
                                      f"(default {DEFAULT_POLICY})")
    p.add_argument("--params", help='policy parameters as JSON, e.g. \'{"rollout": {"budget": '
                                    '32}}\' (default: each policy\'s own)')
    p.add_argument("--rules", help='rule options as JSON, e.g. \'{"neutral_bullets": -1}\' '
                                   '(default: the printed rules)')


def _replace_flag(p, what: str) -> None:
    p.add_argument("--replace", action="store_true",
                   help=f"the report folder holds another {what}'s report (or a smaller "
                        "one): remove it and its data, then write this one")


def _workers_flags(p, help_text: str) -> None:
    p.add_argument("--workers", type=int, help=help_text)


class _Parser(argparse.ArgumentParser):
    """A usage mistake in one line and exit status 2, like every other bad input."""

    def error(self, message):
        message = message.replace("\r", "\\r").replace("\n", "\\n")  # it quotes arguments
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    description, epilog = (" ".join(part.split()) for part in __doc__.split("\n\n"))
    parser = _Parser(prog="coltsim", description=description, epilog=epilog)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="simulate an experiment file and write its report",
                       description="Simulate every setting of an experiment file into "
                                   "OUT/data and write the report into OUT.  Asking a run for "
                                   "more games grows it (the games after those it holds, same "
                                   "seed); with --precision it grows in rounds until every "
                                   "win-rate interval of the headline is that narrow "
                                   "(docs/experiments.md).")
    p.add_argument("experiment", help="experiment file, e.g. experiments/quickstart.toml")
    p.add_argument("--games", type=int, help="games per setting (overrides the file's; with a "
                                             "precision: the first round, default the file's "
                                             "games, else 2000)")
    p.add_argument("--precision", type=float,
                   help="play in rounds until every win-rate interval of the headline is at "
                        "most this wide on each side, e.g. 0.01 for +-1 point (overrides the "
                        "file's precision)")
    p.add_argument("--max-games", type=int, help="with a precision: games per setting at most "
                                                 "(default: the file's max_games, else "
                                                 "1,000,000)")
    _workers_flags(p, "parallel workers (default: the file's, else every core)")
    p.add_argument("--out", help="report folder (default: the file's output, reports/NAME): "
                                 "new, empty, or holding a report of this experiment")
    _replace_flag(p, "experiment")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bars or round lines: only the line with the report's path")
    p.set_defaults(func=_run)

    p = sub.add_parser("report", help="re-render a report folder from its saved data")
    p.add_argument("folder", help="e.g. reports/quickstart")
    p.add_argument("--repair", action="store_true",
                   help="first recompute the data's missing or damaged chunks")
    p.add_argument("--workers", type=int, help="parallel workers of --repair (default: every "
                                               "core)")
    p.set_defaults(func=_report)

    p = sub.add_parser("tournament", help="play an experiment's settings as tables of policies, "
                                          "seats rotated, on the same deals")
    p.add_argument("experiment", help="experiment file, e.g. experiments/policy_ladder.toml")
    p.add_argument("--games", type=int, help="deals per table (overrides the file)")
    _workers_flags(p, "parallel workers (default: the file's, else every core)")
    p.add_argument("--csv", help="also write the table to this CSV file")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_tournament)

    p = sub.add_parser("tune", help="find the value of a rule option that balances the "
                                    "bandits best (a tune file, docs/tune.md)",
                       description="Play the settings of a tune file under every value of one "
                                   "rule option, on the same deals, spending games where the "
                                   "answer is still open (successive elimination), and write a "
                                   "report of the objective against the value.")
    p.add_argument("file", help="tune file, e.g. experiments/tune_gunslinger_bonus.toml")
    p.add_argument("--games", type=int, help="games per setting and value in the first round "
                                             "(default: the file's games)")
    p.add_argument("--max-games", type=int, help="games per setting and value at most "
                                                 "(default: the file's max_games, else 16 x "
                                                 "games)")
    _workers_flags(p, "parallel workers (default: the file's, else every core)")
    p.add_argument("--out", help="report folder (default: the file's output, reports/NAME): "
                                 "new, empty, or holding a report of this search")
    _replace_flag(p, "search")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bars or round lines: only the line with the report's path")
    p.set_defaults(func=_tune)

    from .analysis.power import ALPHA, DIFFERENCE, HALF_WIDTH, POWER

    description = ("Say how many games per setting an experiment file needs: to know every "
                   "bandit's win rate within +-HALF_WIDTH, to find a bandit DIFFERENCE off its "
                   "fair share, and to find a change of DIFFERENCE between the settings it "
                   "compares.  Rates are fractions: 0.01 is one percentage point.")
    p = sub.add_parser("sample-size", help="how many games an experiment's questions need",
                       description=description)
    p.add_argument("experiment", help="experiment file, e.g. experiments/quickstart.toml")
    p.add_argument("--half-width", type=float, default=HALF_WIDTH,
                   help=f"wanted half-width of a win rate's 95%% interval (default "
                        f"{HALF_WIDTH})")
    p.add_argument("--difference", type=float, default=DIFFERENCE,
                   help=f"win-rate difference to detect (default {DIFFERENCE})")
    p.add_argument("--power", type=float, default=POWER,
                   help=f"chance of detecting it (default {POWER})")
    p.add_argument("--alpha", type=float, default=ALPHA,
                   help=f"false-alarm rate of the whole family of tests (default {ALPHA})")
    p.add_argument("--pilot", type=int, default=0,
                   help="play this many games per setting to measure the variances "
                        "(default 0: assume them)")
    _workers_flags(p, "parallel workers for the pilot (default: every core)")
    p.set_defaults(func=_sample_size)

    p = sub.add_parser("trace", help="play one game and print its trace (JSON Lines)",
                       description="Play one game and print its trace (JSON Lines): game GAME "
                                   "of master SEED with the setting the flags give, or game GAME "
                                   "of a saved run (--from) with the run's setting and seed.")
    _setting_flags(p)
    p.add_argument("--seed", type=int, help="master seed (default 0)")
    p.add_argument("--game", type=int, help="game index under the seed (default 0)")
    p.add_argument("--from", dest="source", metavar="FOLDER",
                   help="replay a game of a saved run: a report folder (reports/NAME) or a "
                        "simulate --out folder; the setting and seed come from its manifest")
    p.add_argument("--setting", help="with --from: the setting's id, or its name in the report "
                                     "(its label, e.g. 'printed rules'; default: the run's only "
                                     "setting)")
    p.add_argument("--out", help="file to write (default: standard output)")
    p.set_defaults(func=_trace)

    p = sub.add_parser("show", help="tell a trace in words, drawing the train whenever someone "
                                    "moves")
    p.add_argument("trace", help="trace file (JSON Lines), or - to read standard input, e.g. "
                                 "coltsim trace --seed 7 | coltsim show -")
    p.add_argument("--every-card", action="store_true",
                   help="draw the train after every card and event, not only when someone moves")
    p.set_defaults(func=_show)

    p = sub.add_parser("simulate", help="play many games of one setting to a results folder")
    p.add_argument("--games", type=int, required=True)
    p.add_argument("--out", required=True, help="results folder (rerun to resume)")
    _setting_flags(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--setting-id", help="name of the setting (default: from its hash)")
    p.add_argument("--chunk-size", type=int, help="games per chunk, the work of one worker and "
                                                  "one file (default: 16 chunks or more, of 500 "
                                                  "to 50,000 games; resuming: the run's)")
    _workers_flags(p, "parallel workers (default: every core)")
    p.add_argument("--backend", default="loky", help="loky (processes), threading or dask")
    p.add_argument("--scheduler", help="Dask scheduler address tcp://HOST:PORT")
    p.add_argument("--check", action="store_true", help="check engine invariants (slower)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(func=_simulate)

    p = sub.add_parser(
        "train", help="train a fast, strong player (the learned policy) for your rules",
        description="Train the learned policy for your rules: it plays many games, learns "
                    "from their outcomes what each position is worth, plays the next games "
                    "with what it learned, and checks each step against three planners.  The "
                    "result, FOLDER/weights.npz, is played by naming it in an experiment "
                    "file: policies = \"learned\" with [policy_params.learned] weights = "
                    "\"FOLDER/weights.npz\".  Rerun the same command to resume.  Needs "
                    "pip install 'coltsim[train]' (scikit-learn).")
    p.add_argument("folder", help="where the training keeps its games and results (rerun the "
                                  "command to resume it)")
    from .learn.config import TrainConfig

    d = TrainConfig()
    p.add_argument("--players", type=int, default=d.players, help="3 to 6 (default 4)")
    p.add_argument("--rules", help="rule options as JSON, e.g. '{\"hand_size\": 7}' "
                                   "(default: the printed rules)")
    p.add_argument("--seed", type=int, default=d.seed,
                   help=f"master seed: the same seed gives the same player (default {d.seed})")
    p.add_argument("--iterations", type=int, default=d.iterations,
                   help=f"rounds of play and learning, at most (default {d.iterations}; it "
                        "stops as soon as one does not beat the one before)")
    p.add_argument("--games", type=int, default=d.games,
                   help=f"games played in each round of learning (default {d.games:,})")
    p.add_argument("--share", type=float, default=d.share,
                   help=f"share of the decisions of those games it learns from (default "
                        f"{d.share})")
    p.add_argument("--explore", type=float, default=d.explore,
                   help=f"share of those decisions played at random, to learn what the other "
                        f"options lead to (default {d.explore})")
    p.add_argument("--start", default=d.start,
                   help=f"who plays the first games: planner, learned (the shipped player), "
                        f"greedy or a weights file, FILE.npz (default {d.start})")
    p.add_argument("--hidden", default=",".join(map(str, d.hidden)) or "linear",
                   help="the value's shape: linear, or hidden layers of a neural network such "
                        "as 64,32 (default " + (",".join(map(str, d.hidden)) or "linear") + ")")
    p.add_argument("--epochs", type=int, default=d.epochs,
                   help=f"passes over the positions when learning a neural network (default "
                        f"{d.epochs})")
    p.add_argument("--teacher", type=int, default=d.teacher,
                   help="learn from a search instead of the games' outcomes: the playouts of "
                        "the search (ismcts) that compares the options of each recorded "
                        f"decision, such as 64 (default {d.teacher}: from outcomes)")
    p.add_argument("--mix", action="store_true",
                   help="play the games at 2 to 6 players in turn, every other turn with a "
                        "rule option changed (one player for every table) instead of "
                        "--players/--rules")
    p.add_argument("--match-deals", type=int, default=d.match_deals,
                   help=f"deals of each check against the planners, every seat rotation "
                        f"(default {d.match_deals})")
    p.add_argument("--report-deals", type=int, default=d.report_deals,
                   help=f"other deals the chosen player is measured on (default "
                        f"{d.report_deals})")
    _workers_flags(p, "parallel workers (default: every core)")
    p.add_argument("--backend", default="loky", help="loky (processes), threading or dask")
    p.add_argument("--scheduler", help="Dask scheduler address tcp://HOST:PORT")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(func=_train)

    p = sub.add_parser("bench", help="games per second per core, and compile times")
    p.add_argument("--players", type=int, default=4, help="2 to 6 (default 4)")
    p.add_argument("--games", type=int, default=200_000)
    p.add_argument("--policy", default="random")
    p.add_argument("--workers", type=int, help="cores to use (default: every core)")
    p.add_argument("--no-compile", action="store_true",
                   help="skip the compile-time measurement (about a minute cold)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_bench)
    return parser


def _one_line(text) -> str:
    """The first line of a message, at most ``MAX_MESSAGE`` characters: a long value in it is
    shortened in the middle, saying how much was left out."""
    lines = str(text).strip().splitlines() or [""]
    line = lines[0] + (" (...)" if len(lines) > 1 else "")
    if len(line) > MAX_MESSAGE:
        keep = MAX_MESSAGE // 2
        line = (f"{line[:keep]} [... {len(line) - keep - keep // 2:,} characters left out ...] "
                f"{line[-(keep // 2):]}")
    return line


def _os_error(e: OSError) -> str:
    """A failure of the file system (a read-only or full disk, a missing folder) in one line."""
    where = f"{e.filename}: " if e.filename is not None else ""
    return f"{where}{e.strerror or _one_line(e)}"


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that a command stops as it does on Ctrl-C (a run's
    worker processes stopped, its finished chunks kept)."""


_command: list = []  # the arguments of the command running (main)


def _terminate(signum, frame):
    if DONE.is_set():
        return
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
    _stop("terminated", 143, _Terminated)


def _interrupt(signum, frame):
    if not DONE.is_set():
        _stop("interrupted", 130, KeyboardInterrupt)


def _stop(how: str, status: int, error) -> None:
    """The command stops: ``error`` raised in the main thread, which unwinds (a run's worker
    processes stopped, its finished chunks kept); or, while a kernel or a compile runs in a
    helper thread (coltsim._process.interruptible), which nothing in Python can stop, the
    command's line and the end of the process at once: Python's unwinding and shutdown beside a
    compile in LLVM can crash the process (an LLVM assertion)."""
    from ._process import call_left_running

    if call_left_running() and _command:
        args = _command[-1]
        clear = "\r\x1b[K" if os.isatty(2) else "\r"  # (over a progress bar, if one is drawn)
        os.write(2, f"{clear}coltsim {args.command}: {_interrupted(args, how)}\n".encode())
        os._exit(status)
    raise error


def _interrupted(args, how: str) -> str:
    if args.command not in ("simulate", "run"):
        return how
    folder = args.out or "the report folder"
    return (f"{how}; finished chunks are kept in {folder}: run the same command again to "
            "resume")


def main(argv=None) -> int:
    """Run one command; returns its exit status (0, 2 for bad input, 130 after Ctrl-C, 143
    after SIGTERM)."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser().parse_args(argv)  # (its choices load numpy: a third of a second)
    except _Terminated:
        print("coltsim: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("coltsim: interrupted", file=sys.stderr)
        return 130
    except SystemExit as e:  # --help, or a usage mistake (one line: _Parser.error)
        return e.code if isinstance(e.code, int) else 0
    prog = f"coltsim {args.command}"
    _command.append(args)

    def one_line_warning(message, category, filename, lineno, file=None, line=None):
        print(f"{prog}: warning: {_one_line(message)}", file=sys.stderr)

    DONE.clear()
    handles_sigterm = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if handles_sigterm else None
    previous = signal.SIG_DFL if previous is None else previous  # (set outside Python)
    with warnings.catch_warnings():
        warnings.showwarning = one_line_warning
        try:
            args.func(args)
            DONE.set()
        except _Terminated:
            print(f"{prog}: {_interrupted(args, 'terminated')}", file=sys.stderr)
            return 143
        except KeyboardInterrupt:
            print(f"{prog}: {_interrupted(args, 'interrupted')}", file=sys.stderr)
            return 130
        except ValueError as e:
            print(f"{prog}: error: {_one_line(e)}", file=sys.stderr)
            return 2
        except RuntimeError as e:
            # A report that cannot be built from saved games (a bug: the games are kept) is one
            # line too; its class is looked up where it lives only once that module is loaded.
            build = sys.modules.get("coltsim.study.report.build")
            if build is None or not isinstance(e, build.ReportError):
                raise
            print(f"{prog}: error: {_one_line(e)}", file=sys.stderr)
            return 1
        except BrokenPipeError:
            return 0
        except OSError as e:
            print(f"{prog}: error: {_one_line(_os_error(e))}", file=sys.stderr)
            return 2
        finally:
            if handles_sigterm:
                signal.signal(signal.SIGTERM, previous)
    return 0


_RENEWED = "COLTSIM_CACHE_RENEWED"  # set when the program runs again with a fresh cache


def _run_again_with_a_fresh_cache(error: Exception) -> None:
    """numba could not load an entry of the program's cache (an entry cut short or damaged):
    say so in one line, put the folder aside and run the same command again, once, with a fresh
    one (a cache is disposable; its compiled code is made again)."""
    cache = Path(os.environ["NUMBA_CACHE_DIR"])
    if os.environ.get(_RENEWED) == str(cache):
        raise error  # a fresh cache failed too: not the cache's fault
    print(f"coltsim: warning: the compiled code in {cache} is damaged ({type(error).__name__}: "
          f"{_one_line(error)}); compiling it again in a fresh folder", file=sys.stderr)
    aside = cache.with_name(f"{cache.name}.damaged-{os.getpid()}")
    cache.rename(aside)
    shutil.rmtree(aside, ignore_errors=True)
    os.environ[_RENEWED] = str(cache)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, "-m", "coltsim.cli", *sys.argv[1:]])


def program() -> None:
    """The ``coltsim`` program: :func:`main`, then the process ends.  Ctrl-C and SIGTERM stop
    the command, and are ignored once it is done (``DONE``) while Python shuts down (joblib
    stopping its worker processes, well under a second); a run's worker processes ignore Ctrl-C
    (the main process stops them: coltsim._process.worker_started).  numba's cache is a folder
    named by the hash of coltsim's compiled sources (coltsim._sources.keyed_cache_dir), so that
    no edit runs stale code; a damaged entry in it is made again
    (:func:`_run_again_with_a_fresh_cache`)."""
    from ._process import PROGRAM
    from ._sources import keyed_cache_dir

    os.environ["NUMBA_CACHE_DIR"] = keyed_cache_dir()  # (read by numba as it loads)
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _terminate)
    PROGRAM.set()
    try:
        status = main()
    except (pickle.UnpicklingError, EOFError) as e:  # numba loading a damaged cache entry
        _run_again_with_a_fresh_cache(e)
    # The command has ended: ignored, not handled, while Python shuts down (it puts back the
    # default action of a signal it handles, which would end the process by the signal).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(status)


if __name__ == "__main__":
    program()
