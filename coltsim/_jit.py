"""The one jit decorator every compiled kernel in coltsim uses, and the notice of a first compile.

``cache=True`` keeps compiled machine code on disk between runs; ``nogil=True`` lets joblib's
thread backend run kernels side by side.  coltsim never changes numba's configuration in your
Python: the cache lives where numba puts it (``__pycache__`` beside each module, or
``$NUMBA_CACHE_DIR`` when you set it).  The ``coltsim`` program, a process of its own, keeps it
in a folder named by the hash of coltsim's compiled sources (_sources.keyed_cache_dir), so that
an edit never runs stale code (docs/engine.md).

Compiling is done once per version of coltsim, and only for what a run plays: the engine, and
the choosers of its table's policies (playout.py).  To say so before it happens, coltsim keeps
its own record of the parts compiled into a folder of its own (``coltsim-compiled.txt`` in
it; numba's files are never read): :func:`announce_compile` names the parts not in it (a new
kernel by the policies of its table), with about how long they take (:func:`compile_estimate`,
from what ``benchmarks/compile_time.py --record`` measured on the project's idle machine:
``compile_times.json``, each part as a ratio to the reference game's compile measured in the
same run; a new kernel counts every policy of its table again, since it optimises their code
again), and adds them once the block ends.
Where the cache is not such a folder (your own Python, unless you keyed it so), nothing is
recorded and nothing announced.
"""
import contextlib
import functools
import json
import os
from pathlib import Path

import numba

from ._sources import ROOT, cache_name

njit = functools.partial(numba.njit, cache=True, nogil=True)

# What a first compile of each part took on the project's machine, as a ratio to the reference
# game's compile there (benchmarks/compile_time.py --record writes it; it is data, not source: a
# new measurement recompiles nothing).
COMPILE_TIMES = ROOT / "compile_times.json"


def _record() -> Path | None:
    """coltsim's record of the parts compiled into numba's cache folder, when that folder is
    one coltsim keyed (named by the hash of its sources); else None."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if not folder or Path(folder).name != cache_name():
        return None
    return Path(folder) / "coltsim-compiled.txt"


def compiled(part: str) -> bool:
    """Whether coltsim's record has ``part`` compiled (True where it keeps no record: then it
    never announces)."""
    record = _record()
    try:
        return record is None or part in record.read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return False


def mark_compiled(parts) -> None:
    """Add ``parts`` to coltsim's record."""
    record = _record()
    try:
        if record is not None:
            record.parent.mkdir(parents=True, exist_ok=True)
            with record.open("a") as f:
                f.write("".join(f"{p}\n" for p in parts))
    except OSError:
        pass  # no record: the next run announces the compile again, which is harmless


_SAID = {"engine": "the engine", "weighted": "greedy"}  # a part as the notice names it


@functools.lru_cache(maxsize=1)
def compile_times() -> dict | None:
    """``compile_times.json``: ``ratios`` (each part's first compile over the reference game's
    compile), ``reference_seconds`` (that compile, measured beside them), ``machine``, how and
    when it was measured; None when the file is missing or unreadable."""
    try:
        record = json.loads(COMPILE_TIMES.read_text())
        return record if {"ratios", "reference_seconds", "machine"} <= set(record) else None
    except (OSError, ValueError):
        return None


def compile_estimate(parts, record: dict | None = None) -> float | None:
    """Seconds a first compile of ``parts`` (names: ``engine``, a policy's chooser, ``kernel``)
    took on the project's machine, by ``record`` (default :func:`compile_times`): the sum of
    its parts, each measured alone (``ratios``), since they compile one after another."""
    record = record or compile_times()
    if record is None:
        return None
    return sum(record["ratios"].get(p, 0.0) for p in parts) * record["reference_seconds"]


def compile_notice(parts: tuple) -> str | None:
    """What compiling ``parts`` (the engine, choosers, a kernel: playout.kernel_parts) would
    say, or None when coltsim's record has them all: each part not compiled yet, the kernel
    named by the policies of its table, and the seconds they took on the project's machine
    (:func:`compile_estimate`).  A kernel links the code of every policy at its table and
    optimises it again, so a new kernel counts every chooser of its table, compiled or not:
    a table of a search compiles for minutes even when the search compiled for another
    table."""
    missing = [p for p in parts if not compiled(p)]
    if not missing:
        return None
    names = [p for p in missing if not p.startswith("kernel")]
    words = [_SAID.get(n, n) for n in names]
    kernel = [p for p in missing if p.startswith("kernel")]
    if kernel:
        words.append(f"the kernel of a table of {_table(kernel[0])}")
        names += [p for p in parts if p not in names and p != "engine"]
    what = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    seconds = compile_estimate([n.split(" ")[0] for n in names])
    when = "" if seconds is None else \
        f": about {_rounded(seconds)} s on {compile_times()['machine']} when it is idle, " \
        "longer on a busy or slower one"
    return f"compiling {what} (once for this version of coltsim{when})"


def _table(kernel: str) -> str:
    """The policies a kernel part (``kernel KIND CODE|CODE``) plays, as the notice names them:
    ``ismcts (with planner) and learned``."""
    codes = kernel.split(" ", 2)[2].split("|") if kernel.count(" ") >= 2 else []
    words = []
    for code in codes:
        name, *models = code.split(":")
        if name == "user":
            words.append("your policies")
            continue
        with_models = dict.fromkeys(_SAID.get(m, m) for m in models)
        words.append(_SAID.get(name, name) +
                     (f" (with {' and '.join(with_models)})" if with_models else ""))
    words = list(dict.fromkeys(words)) or ["its policies"]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _rounded(seconds: float) -> int:
    """Seconds as an estimate says them: to the second under 20 s, else to 5 s."""
    return max(1, round(seconds)) if seconds < 20 else 5 * round(seconds / 5)


_say: list = []  # who announces compiles when the caller gives nobody (``announcing``)


@contextlib.contextmanager
def announcing(say):
    """Within this block, compiles that nobody is told of are told to ``say`` (the command line's
    commands that play without a progress bar)."""
    _say.append(say)
    try:
        yield
    finally:
        _say.pop()


@contextlib.contextmanager
def announce_compile(parts: tuple, say=None):
    """Around a first call of a cached kernel made of ``parts`` (playout.kernel_parts): say
    what will be compiled before it when coltsim's record lacks some part (``say`` None: the
    one of ``announcing``, if any), and record every part once the block ends without an
    error."""
    notice = compile_notice(parts)
    say = say or (_say[-1] if _say else None)
    if notice and say is not None:
        say(notice)
    yield
    if notice:
        mark_compiled(parts)
