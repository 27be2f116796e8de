"""The ``coltsim`` command line.  Bad input gives a one-line error and exit status 2."""
from __future__ import annotations

import argparse
import json
import sys


def _json_arg(flag: str, text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{flag} is not valid JSON: {e}") from e


def _trace(args) -> None:
    from .rules import Rules
    from .trace import trace_game, write_trace

    rules = Rules.from_dict(_json_arg("--rules", args.rules)) if args.rules else None
    lines = trace_game(players=args.players, seed=args.seed, game_index=args.game_index,
                       bandits=args.bandits, policies=args.policies, rules=rules)
    if args.out:
        with open(args.out, "w") as f:
            write_trace(lines, f)
    else:
        write_trace(lines, sys.stdout)


def _show(args) -> None:
    from .show import render
    from .trace import read_trace

    try:
        lines = read_trace(args.trace)
    except OSError as e:
        raise ValueError(f"cannot read trace {args.trace}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise ValueError(f"{args.trace} is not a JSON Lines trace: {e}") from e
    if not lines or lines[0].get("type") != "setup":
        raise ValueError(f"{args.trace} is not a coltsim trace: its first line is not a setup line")
    print(render(lines))


def _simulate(args) -> None:
    from .rules import Rules
    from .runner import simulate

    rules = Rules.from_dict(_json_arg("--rules", args.rules)) if args.rules else None
    try:
        info = simulate(args.games, players=args.players, bandits=args.bandits,
                        policies=args.policies, rules=rules, seed=args.seed, folder=args.out,
                        setting_id=args.setting_id, chunk_size=args.chunk_size,
                        workers=args.workers, backend=args.backend, scheduler=args.scheduler,
                        check=args.check, quiet=args.quiet)
    except KeyboardInterrupt:
        print(f"coltsim simulate: interrupted; finished chunks are kept in {args.out}: run the "
              f"same command again to resume", file=sys.stderr)
        raise SystemExit(130) from None
    if not args.quiet:
        done = info.games - info.games_run
        print(f"{info.games_run:,} games in {info.seconds:.1f} s "
              f"({info.games_per_second:,.0f} games/s)"
              + (f", {done:,} already done" if done else "")
              + f"; setting {info.setting_id} in {info.folder}")


def _bench(args) -> None:
    from .bench import bench, format_bench

    r = bench(players=args.players, games=args.games, policy=args.policy, workers=args.workers,
              compile_times=not args.no_compile)
    print(json.dumps(r) if args.json else format_bench(r))


def _run(args) -> None:
    from .run import run_experiment

    run_experiment(args.experiment, games=args.games, n_jobs=args.n_jobs, out=args.out,
                   quiet=args.quiet)


def _report(args) -> None:
    from .report import render_from_folder

    render_from_folder(args.folder)
    print(f"report: {args.folder}/report.md")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="coltsim", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="simulate an experiment file and write its report")
    p.add_argument("experiment", help="experiment file, e.g. experiments/quickstart.toml")
    p.add_argument("--games", type=int, help="games per setting (overrides the file)")
    p.add_argument("--n-jobs", type=int, help="parallel workers (default: every core)")
    p.add_argument("--out", help="report folder (default: the file's output, reports/NAME)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=_run)

    p = sub.add_parser("report", help="re-render a report folder from its saved data")
    p.add_argument("folder", help="e.g. reports/quickstart")
    p.set_defaults(func=_report)

    p = sub.add_parser("trace", help="play one game and print its trace (JSON Lines)")
    p.add_argument("--players", type=int, default=4, help="2 to 6 (default 4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--game-index", type=int, default=0)
    p.add_argument("--bandits", help="comma-separated, one per bandit (default: random)")
    p.add_argument("--policies", help="one policy for all, or comma-separated per player")
    p.add_argument("--rules", help='rule options as JSON, e.g. \'{"neutral_bullets": -1}\'')
    p.add_argument("--out", help="file to write (default: standard output)")
    p.set_defaults(func=_trace)

    p = sub.add_parser("show", help="render a trace file readably, drawing the train")
    p.add_argument("trace")
    p.set_defaults(func=_show)

    p = sub.add_parser("simulate", help="play many games of one setting to a results folder")
    p.add_argument("--games", type=int, required=True)
    p.add_argument("--out", required=True, help="results folder (rerun to resume)")
    p.add_argument("--players", type=int, default=4, help="2 to 6 (default 4)")
    p.add_argument("--bandits", help="comma-separated, one per bandit; 'random' (default) draws "
                                     "them per game, 'all' plays every line-up in turn")
    p.add_argument("--policies", help="one policy for all, or comma-separated per player")
    p.add_argument("--rules", help='rule options as JSON, e.g. \'{"neutral_bullets": -1}\'')
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--setting-id", help="name of the setting (default: from its hash)")
    p.add_argument("--chunk-size", type=int, help="games per file (default 50000)")
    p.add_argument("--workers", type=int, help="parallel workers (default: every core)")
    p.add_argument("--backend", default="loky", help="loky (processes), threading or dask")
    p.add_argument("--scheduler", help="Dask scheduler address tcp://HOST:PORT")
    p.add_argument("--check", action="store_true", help="check engine invariants (slower)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(func=_simulate)

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


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.func(args)
    except ValueError as e:
        print(f"coltsim {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
