"""Fuzzing the command line, experiment files and traces: random and mutated arguments, TOML
and trace files, each run through ``coltsim.cli.main`` in this process.

Every input must end with exit status 0 or 2 (130 is Ctrl-C only), never an exception (a
traceback), and with status 2 exactly one error line.  No input may leave a folder that blocks a
later valid run: after each one, a valid run into every results or report folder it touched must
succeed, a folder coltsim did not write must be as it was, no temporary file may remain and no
trace file may be half written.

The inputs are drawn from pools of valid, edge and invalid values (kept small where valid, so
that a valid input plays a few dozen games; among the invalid ones values nested 20,000 deep,
5,000-character values, which the error line shortens, and Dask scheduler addresses where
nothing listens), then mutated (tokens dropped, repeated, swapped, replaced by garbage; TOML
lines replaced, deleted, duplicated, truncated, broken bytes; trace lines replaced by deeply
nested ones).  The fast tier tries 120 inputs, the slow tier 200 more with another seed; each
prints its tally with ``pytest -v`` (never in the dots of ``-q``; ``SHOW_ERRORS`` prints every
error line).
"""
import json
import random
import re
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest

from coltsim.cli import main

# --- pools --------------------------------------------------------------------------------------
DEEP_LIST = "[" * 20_000 + "]" * 20_000  # deeper than Python's parsers go
DEEP_OBJECT = '{"a": ' * 20_000 + "1" + "}" * 20_000
LONG = "x" * 5000  # a value to be shortened in the error line
GAMES = ["1", "2", "20", "37", "0", "-5", "1e3", "abc", "", "2.5", " 3", "4611686018427387904",
         "1000000001", "99999999999999999999999"]
PLAYERS = ["2", "3", "4", "5", "6", "7", "0", "-1", "x", ""]
LINEUPS = ["random", "all", "ghost,belle,tuco,doc", "ghost,ghost,tuco,doc", "zorro", "", ",,,",
           "belle,random,random,random", "GHOST,belle,tuco,doc", "ghost,belle", "ghost", LONG]
# (no rollout: a valid input must stay quick; its parameters are still checked in PARAMS)
POLICIES = ["random", "greedy", "weighted", "aggressive", "never_fires", "cautious",
            "random,greedy,random,random", "clever", "json:loads", "os:getcwd", "math:sqrt",
            "coltsim:make_setting", "", "random,", "a:b:c", "nomodule_xyz:f"]
PARAMS = ['{"rollout": {"budget": 2}}', '{"rollout": {"budget": 1e300}}',
          '{"weighted": {"fire": 0.5}}', '{"greedy": {"x": 1}}', "null", "[]", "5",
          '{"weighted": {"temperature": -1}}', '{"weighted": 5}', "{",
          '{"rollout": {"playout": "random"}}', '{"rollout": {"playout": 3}}', '{"nobody": {}}',
          '{"weighted": {"fire": NaN}}', '{"weighted": {"fire": 1e400}}',
          '{"rollout": {"horizon": 9}}', '{"os:getcwd": {"p0": 1}}', '{"weighted": {"fire": "a"}}',
          DEEP_LIST, DEEP_OBJECT, '{"weighted": {"fire": %s}}' % DEEP_LIST, '{"%s": {}}' % LONG]
RULES = ["{}", '{"neutral_bullets": -1}', '{"neutral_bullets": 200}', '{"rounds": 0}',
         '{"rounds": 3}', '{"abilities": 5}', '{"abilities": []}', '{"cars": "ABCD"}',
         '{"cars": ["A", "B", "C", "D"]}', '{"round_cards": ["braking"]}', '{"station": 5}',
         "null", "[1]", '{"advanced": 1}', '{"hand_size": 1e9}', '{"gunslinger_bonus": true}',
         '{"abilities": [["ghost"]]}', '{"round_cards": [[1]]}', '{"cars": {}}', '{"speed": 1}',
         '{"neutral_runout": []}', '{"station": "marshals_revenge"}', '{"rounds": 2.0}',
         DEEP_LIST, DEEP_OBJECT, '{"abilities": %s}' % DEEP_LIST, '{"cars": "%s"}' % LONG]
SEEDS = ["0", "7", "-1", "x", "9223372036854775808", "9223372036854775807", "1.5"]
SETTING_IDS = ["s1", "a/b", "..", "", "x" * 101, "ok-id", "é"]
CHUNK_SIZES = ["1", "7", "0", "-1", "10000001", "x", "5"]
WORKERS = ["1", "2", "0", "-1", "100000", "x", "8", "9"]
BACKENDS = ["loky", "threading", "dask", "spark", ""]
# Addresses refused at once (nothing listens on port 1; a real peer is test_integrity's).
SCHEDULERS = ["tcp://127.0.0.1:1", "127.0.0.1:1", "tcp://[::1]:1", "tcp://127.0.0.1",
              "tcp://127.0.0.1:99999", "", LONG]
GARBAGE = ["--", "-x", "--games", "--out", "--bandits", "--n-jobs", "--lineups", "\x00", "é",
           "-" * 3, "--quiet", "--check", "--repair", "--help", "{}", " ", "\n", "1" * 40]

FLAGS = {  # command -> flag -> values (None: a switch); "{...}" are places in the test folder
    "simulate": {"--games": GAMES, "--out": ["{out}"], "--players": PLAYERS,
                 "--lineup": LINEUPS, "--policies": POLICIES, "--params": PARAMS,
                 "--rules": RULES, "--seed": SEEDS, "--setting-id": SETTING_IDS,
                 "--chunk-size": CHUNK_SIZES, "--workers": WORKERS, "--backend": BACKENDS,
                 "--scheduler": SCHEDULERS, "--check": None, "--quiet": None},
    "trace": {"--players": PLAYERS, "--lineup": LINEUPS, "--policies": POLICIES,
              "--params": PARAMS, "--rules": RULES, "--seed": SEEDS, "--game-index": SEEDS,
              "--out": ["{new}/game.jsonl", "{new}", "{dir}", "{file}", "{file}/g.jsonl"]},
    "show": {},
    "run": {"--games": GAMES, "--workers": WORKERS, "--out": ["{out}"], "--quiet": None,
            "--replace": None},
    "report": {"--repair": None, "--workers": WORKERS},
    "tournament": {"--games": GAMES, "--workers": WORKERS, "--quiet": None,
                   "--csv": ["{new}/t.csv", "{dir}", "{file}/t.csv"]},
    "bench": {"--players": PLAYERS, "--games": GAMES, "--policy": POLICIES, "--workers": WORKERS,
              "--json": None},
}
REQUIRED = {"simulate": ["--games", "--out"], "run": ["--out"]}
POSITIONAL = {"show": "{trace}", "run": "{toml}", "report": "{report}", "tournament": "{toml}"}
SHOW_ERRORS = False  # print every error line (to read what the user would see)
FOLDER_STATES = ["new", "empty", "results", "report", "mine", "file"]

TEMPLATES = [
    """name = "fz"
seed = 3
games = 20
analyses = ["balance"]
[sweep]
players = [3]
policies = ["random"]
""",
    """name = "fz2"
description = "two settings"
seed = 1
games = 12
analyses = ["balance", "compare"]
workers = 1
[rules]
neutral_bullets = 13
[[settings]]
label = "base"
players = 4
lineup = ["ghost", "belle", "tuco", "doc"]
policies = "weighted"
[[settings]]
players = 4
policies = ["weighted", "random", "random", "random"]
rules = { advanced = true }
[policy_params.weighted]
fire = 0.5
""",
    """name = "fz3"
seed = 5
games = 10
analyses = ["balance", "gunslinger"]
correction = "bh"
backend = "threading"
[sweep]
players = [3, 4]
lineup = ["random"]
policies = ["greedy"]
[sweep.rules]
gunslinger_bonus = [1000, 0]
""",
]
TOML_VALUES = ["0", "-1", "1.5", "1e300", "inf", "nan", '"x"', '""', "[]", "[1, 2]", '["a"]',
               "{}", "{ a = 1 }", "true", "2024-01-01", "[[1]]", "9223372036854775807", "20",
               "3", '"random"', '"greedy"', '["ghost", "belle", "tuco"]', '"holm"', '"bh"',
               '"threading"', '"loky"', '"dask"', '["balance"]', '["compare"]', "[3, 4]", "[7]",
               '"reports/x"', '"../escape"', '{ advanced = true }', '[1000, 0]', '"a:b"',
               DEEP_LIST, "{ a = " * 5000 + "1" + " }" * 5000, f'"{LONG}"']
TOML_KEYS = ["name", "description", "seed", "games", "analyses", "correction", "output",
             "backend", "scheduler", "workers", "rules", "sweep", "settings", "policy_params",
             "n_jobs", "lineups", "players", "lineup", "policies", "label", "neutral_bullets",
             "rounds", "abilities", "cars", "gunslinger_bonus", "budget", "fire", "unknown_key"]
TOML_HEADERS = ["[sweep]", "[rules]", "[[settings]]", "[sweep.rules]", "[policy_params.rollout]",
                "[policy_params.weighted]", "[policy_params]", "[other]", "[[sweep]]"]


# --- what one input needs on disk ---------------------------------------------------------------
class Bench:
    """The test folder: prepared results, report and trace, and a fresh place per input."""

    def __init__(self, root: Path):
        self.root = root
        self.count = 0
        ready = root / "ready"
        ready.mkdir()
        assert main(["simulate", "--games", "30", "--chunk-size", "10", "--out",
                     str(ready / "results"), "--workers", "1", "--quiet"]) == 0
        (ready / "ok.toml").write_text(TEMPLATES[0])
        assert main(["run", str(ready / "ok.toml"), "--out", str(ready / "report"), "--quiet",
                     "--workers", "1"]) == 0
        assert main(["trace", "--seed", "3", "--out", str(ready / "game.jsonl")]) == 0
        self.ready = ready

    def place(self, rng: random.Random, state: str) -> Path:
        """A folder path in ``state``, new for this input."""
        self.count += 1
        path = self.root / f"in{self.count}"
        if state in ("results", "report"):
            shutil.copytree(self.ready / state, path)
        elif state == "empty":
            path.mkdir()
        elif state == "mine":
            path.mkdir()
            (path / "report.md").write_text("my notes\n")
        elif state == "file":
            path.write_text("a file\n")
        return path

    def trace(self, rng: random.Random) -> Path:
        lines = (self.ready / "game.jsonl").read_text().splitlines()
        path = self.root / f"trace{self.count}.jsonl"
        mutated = mutate_trace(rng, lines)
        path.write_bytes(mutated)
        return path


def mutate_trace(rng: random.Random, lines: list[str]) -> bytes:
    """A trace cut short, with lines dropped or swapped, fields deleted or given other types,
    or bytes broken."""
    lines = list(lines)
    for _ in range(rng.randint(0, 3)):
        if not lines:
            break
        op = rng.randrange(7)
        i = rng.randrange(len(lines))
        if op == 0:
            lines = lines[:rng.randint(0, len(lines))]
        elif op == 1:
            del lines[i]
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op in (3, 4):
            try:
                obj = json.loads(lines[i])
            except (json.JSONDecodeError, IndexError):
                continue
            target = obj
            while isinstance(target, dict) and target and rng.random() < 0.6:
                key = rng.choice(list(target))
                if not isinstance(target[key], (dict, list)) or not target[key]:
                    break
                inner = target[key]
                target = inner if isinstance(inner, dict) else inner[rng.randrange(len(inner))]
            if isinstance(target, dict) and target:
                key = rng.choice(list(target))
                if op == 3:
                    del target[key]
                else:
                    target[key] = rng.choice([None, 5, -1, "x", [], {}, [1, 2], 1e9, True])
            lines[i] = json.dumps(obj)
        elif op == 5:
            raw = bytearray(lines[i].encode())
            if raw:
                raw[rng.randrange(len(raw))] = rng.randrange(256)
            lines[i] = raw.decode("utf-8", "replace")
        else:
            lines[i] = rng.choice([DEEP_LIST, DEEP_OBJECT, json.dumps({"type": LONG})])
    text = "\n".join(lines) + ("\n" if lines else "")
    data = text.encode()
    if rng.random() < 0.05:
        data = b"\xff\xfe" + data
    return data


def mutate_toml(rng: random.Random, text: str) -> bytes:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(9)
        i = rng.randrange(len(lines)) if lines else 0
        if op in (0, 1, 2) and lines and "=" in lines[i]:  # a value replaced
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {rng.choice(TOML_VALUES)}"
        elif op == 3 and lines:
            del lines[i]
        elif op == 4 and lines:
            lines.insert(i, lines[i])
        elif op == 5:
            lines.insert(i, f"{rng.choice(TOML_KEYS)} = {rng.choice(TOML_VALUES)}")
        elif op == 6:
            lines.insert(i, rng.choice(TOML_HEADERS))
        elif op == 7 and lines:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            raw = "\n".join(lines)
            lines = raw[:rng.randint(0, len(raw))].splitlines()
    data = ("\n".join(lines) + "\n").encode()
    roll = rng.random()
    if roll < 0.05:
        data = b"\xef\xbb\xbf" + data  # a byte-order mark: accepted
    elif roll < 0.08:
        data = data.replace(b"=", b"\xff=", 1)  # not UTF-8
    return data


# --- one input ----------------------------------------------------------------------------------
def random_argv(rng: random.Random, command: str) -> list[str]:
    flags = FLAGS[command]
    argv = [command]
    if command in POSITIONAL:
        argv.append(POSITIONAL[command])
    chosen = [f for f in REQUIRED.get(command, []) if rng.random() < 0.95]
    chosen += rng.sample(list(flags), k=rng.randint(0, min(4, len(flags))))
    for flag in dict.fromkeys(chosen):
        argv.append(flag)
        if flags[flag] is not None:
            argv.append(rng.choice(flags[flag]))
    if command in ("simulate", "run") and rng.random() < 0.8:
        argv.append("--quiet")
    for _ in range(rng.choice([0, 0, 0, 1, 2])):  # mutations of the token list
        op = rng.randrange(4)
        i = rng.randrange(len(argv))
        if op == 0 and len(argv) > 1:
            del argv[i]
        elif op == 1:
            argv.insert(i, argv[i])
        elif op == 2:
            argv.insert(i, rng.choice(GARBAGE))
        else:
            j = rng.randrange(len(argv))
            argv[i], argv[j] = argv[j], argv[i]
    if command == "bench":
        argv.append("--no-compile")  # (measuring a cold compile takes a minute)
    return argv


def one_error_line(err: str, argv) -> None:
    lines = [x for x in err.splitlines() if x.strip() and not re.search(r"\d+%\|", x)]
    errors = [x for x in lines if ": error: " in x]
    assert len(errors) == 1 and errors[0].startswith("coltsim"), (argv, err)
    assert not [x for x in lines if "warning" not in x and x not in errors], (argv, err)
    assert max(map(len, lines)) < 500, (argv, err)  # a long value is shortened


class Fuzz:
    def __init__(self, bench: Bench, capsys):
        self.bench = bench
        self.capsys = capsys
        self.outcomes: Counter = Counter()
        self.errors: Counter = Counter()
        self.follow_ups = 0

    def run(self, rng: random.Random, argv: list[str]) -> None:
        """Fill in the places, run, check the outcome and that the folders stay usable."""
        places = {}  # path -> its state before
        filled = []
        for token in argv:
            for name in re.findall(r"\{(\w+)\}", token):
                if name in ("out", "report"):
                    state = rng.choice(FOLDER_STATES)
                    if name == "report" and rng.random() < 0.6:
                        state = "report"
                    path = self.bench.place(rng, state)
                    places[path] = state
                elif name == "toml":
                    path = self.bench.root / f"exp{self.bench.count}.toml"
                    self.bench.count += 1
                    path.write_bytes(mutate_toml(rng, rng.choice(TEMPLATES)))
                elif name == "trace":
                    path = self.bench.trace(rng)
                elif name == "new":
                    path = self.bench.place(rng, "new")
                elif name == "dir":
                    path = self.bench.place(rng, "empty")
                else:  # file
                    path = self.bench.place(rng, "file")
                token = token.replace("{" + name + "}", str(path), 1)
            filled.append(token)
        before = {p: sorted(x.name for x in p.rglob("*")) for p, s in places.items()
                  if s == "mine"}
        traces = [Path(t) for t in filled if t.endswith(".jsonl") and not Path(t).exists()]
        code = main(filled)
        err = self.capsys.readouterr().err
        assert "Traceback" not in err, (filled, err)
        assert code in (0, 2), (filled, code, err)
        self.outcomes[code] += 1
        if code == 2:
            one_error_line(err, filled)
            self.errors[_kind(err)] += 1
            if SHOW_ERRORS:
                print(err.strip().splitlines()[-1][:300], file=sys.__stdout__)
            assert not any(t.exists() for t in traces), filled  # no half-written trace
        assert not list(self.bench.root.rglob("*.tmp")), filled
        for path, files in before.items():
            assert sorted(x.name for x in path.rglob("*")) == files, filled
        for path, state in places.items():
            if state in ("new", "empty", "results", "report") and path.is_dir():
                self.still_usable(path, filled)

    def still_usable(self, path: Path, argv) -> None:
        """A valid run into ``path`` succeeds (a report folder: into its data folder, and now
        and then a whole experiment)."""
        self.follow_ups += 1
        data = path / "data" if (path / "data").is_dir() else path
        if data != path or not (path / "manifest.json").exists() and not any(path.iterdir()):
            if self.follow_ups % 10 == 0 or data != path and not (data / "manifest.json").exists():
                # (--replace: the input may have left another experiment's report there)
                assert main(["run", str(self.bench.ready / "ok.toml"), "--out", str(path),
                             "--quiet", "--workers", "1", "--replace"]) == 0, \
                    (argv, self.capsys.readouterr())
                self.capsys.readouterr()
                return
        assert main(["simulate", "--games", "5", "--setting-id", "later", "--out", str(data),
                     "--workers", "1", "--quiet"]) == 0, (argv, self.capsys.readouterr())
        self.capsys.readouterr()

    def report(self, name: str) -> str:
        total = sum(self.outcomes.values())
        kinds = ", ".join(f"{k} {n}" for k, n in self.errors.most_common(12))
        return (f"{name}: {total} inputs, exit 0: {self.outcomes[0]}, exit 2: "
                f"{self.outcomes[2]}; no traceback, no folder blocking one of {self.follow_ups} "
                f"later valid runs; errors by kind: {kinds}")


def _kind(err: str) -> str:
    """What an error line is about: the field it names, or its first words."""
    line = next(x for x in err.splitlines() if ": error: " in x)
    text = re.sub(r"^(\S*/\S*: )+", "", line.split(": error: ", 1)[1])  # the file it names
    field = re.match(r"(argument [-\w/]+|[\w.\[\]-]+):", text)
    if field:
        return field.group(1)
    return " ".join(re.sub(r"\S*/\S*", "PATH", text).split()[:4])


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return Bench(tmp_path_factory.mktemp("fuzz"))


def fuzz(bench, capsys, monkeypatch, request, seed: int, commands: int, tomls: int,
         traces: int) -> str:
    monkeypatch.chdir(bench.root)  # outputs given as relative paths stay in the test folder
    rng = random.Random(seed)
    f = Fuzz(bench, capsys)
    for _ in range(commands):
        f.run(rng, random_argv(rng, rng.choice(list(FLAGS))))
    for _ in range(tomls):
        f.run(rng, ["run", "{toml}", "--out", "{out}", "--quiet", "--workers", "1"])
    for _ in range(traces):
        f.run(rng, ["show", "{trace}"])
    summary = f.report(f"seed {seed}")
    if request.config.get_verbosity() > 0:
        with capsys.disabled():
            print("\n" + summary)
    return summary


def test_fuzz_command_line_experiments_and_traces(bench, capsys, monkeypatch, request):
    fuzz(bench, capsys, monkeypatch, request, seed=1, commands=60, tomls=35, traces=25)


@pytest.mark.slow
def test_fuzz_more(bench, capsys, monkeypatch, request):
    """(About a minute on 2 cores.)"""
    fuzz(bench, capsys, monkeypatch, request, seed=2, commands=120, tomls=50, traces=30)
