"""The one jit decorator every compiled kernel in coltsim uses, and the freshness of its cache.

``cache=True`` keeps compiled machine code on disk between runs; ``nogil=True`` lets joblib's
thread backend run kernels side by side.  coltsim never changes numba's configuration: the cache
lives where numba puts it (``__pycache__`` beside each module, or ``$NUMBA_CACHE_DIR`` when you
set it), and your own ``@njit(cache=True)`` functions are untouched.

numba checks a cached function against its own source file only, not against the files of the
functions it calls, so after an edit or a ``git pull`` a kernel could run stale code.  coltsim
therefore keeps a stamp of each compiled module's *closure* (its source and that of every coltsim
module it imports, _sources.closure_hashes) beside its cache and, when a closure changes,
removes that module's cache files (``*.nbi``, ``*.nbc``) before anything is compiled: an edit
recompiles what it can have changed, nothing else.  The stamp lives with the files it vouches
for: ``__pycache__/numba-closures.txt`` beside the sources for numba's own folders, or
``coltsim-closures.txt`` in ``$NUMBA_CACHE_DIR`` when that names the cache (numba's layout
there: a folder per source folder, named by numba's ``get_suitable_cache_subpath``), so that a
cache folder filled by older sources is cleaned however it is reached.

Compiling is done once per machine, and only for what a run plays: the engine, and the
choosers of its table's policies (playout.py).  To say so before it happens, coltsim keeps its
own record of the parts it has compiled from the current sources (``numba-compiled.txt`` beside
the stamp; one line per part, sources and cache folder): :func:`announce_compile` names the parts
not in it, with about how long they take (:func:`compile_estimate`, from what
``benchmarks/compile_time.py --record`` measured on the project's machine: ``compile_times.json``,
each part as a ratio to the reference game's compile measured in the same run), and adds them
once the block ends.  numba's files are never read
for this.  Where coltsim cannot write its ``__pycache__`` (a read-only install) it keeps no
record and gives no notice.
"""
import contextlib
import functools
import hashlib
import json
import os
from pathlib import Path

import numba

from ._process import collector_paused
from ._sources import ROOT, closure_hashes

_STAMP = ROOT / "__pycache__" / "numba-closures.txt"
_COMPILED = ROOT / "__pycache__" / "numba-compiled.txt"
# What a first compile of each part took on the project's machine, as a ratio to the reference
# game's compile there (benchmarks/compile_time.py --record writes it; it is data, not source: a
# new measurement recompiles nothing).
COMPILE_TIMES = ROOT / "compile_times.json"


def _cache_folder(path):
    """The folder numba caches the compiled functions of the module ``path`` in: its
    ``__pycache__``, or its folder in ``$NUMBA_CACHE_DIR`` (numba.core.caching's
    ``UserProvidedCacheLocator.get_suitable_cache_subpath``)."""
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if not custom:
        return path.parent / "__pycache__"
    source_dir = os.path.dirname(os.path.abspath(path))
    digest = hashlib.sha1(source_dir.encode()).hexdigest()
    return Path(custom) / f"{os.path.basename(source_dir)}_{digest}"


def _stamp():
    custom = os.environ.get("NUMBA_CACHE_DIR")
    return Path(custom) / "coltsim-closures.txt" if custom else _STAMP


def _drop_stale_cache() -> None:
    """Remove the cached machine code of every module whose closure changed since it was
    compiled into the current cache folder."""
    current = closure_hashes()
    stamp = _stamp()
    try:
        old = dict(line.split() for line in stamp.read_text().splitlines()) \
            if stamp.exists() else {}
        for module, digest in current.items():
            if old.get(module) != digest:
                path = ROOT / module
                for pattern in (f"{path.stem}.*.nbi", f"{path.stem}.*.nbc"):
                    for cached in _cache_folder(path).glob(pattern):
                        cached.unlink(missing_ok=True)
        if old != current:
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text("".join(f"{m} {d}\n" for m, d in sorted(current.items())))
    except (OSError, ValueError):
        pass  # a read-only install: numba caches elsewhere, and its sources never change


_drop_stale_cache()

njit = functools.partial(numba.njit, cache=True, nogil=True)


def _record_line(part) -> str:
    """``part`` is (name, modules): its line in the record names the closures of its modules and
    the cache folder (numba's choice unless NUMBA_CACHE_DIR names one: read, never set)."""
    name, modules = part
    digests = "+".join(closure_hashes()[m] for m in modules)
    return f"{name}|{digests}|{os.environ.get('NUMBA_CACHE_DIR', '')}"


def compiled(part) -> bool:
    """Whether coltsim's record says ``part`` ((name, modules)) was compiled from the current
    sources of its modules into the current cache folder (True where coltsim cannot keep a
    record: then it never announces)."""
    try:  # (Python writes no __pycache__ under PYTHONDONTWRITEBYTECODE: coltsim makes its own)
        _COMPILED.parent.mkdir(exist_ok=True)
    except OSError:
        return True
    if not os.access(_COMPILED.parent, os.W_OK):
        return True
    try:
        return _record_line(part) in _COMPILED.read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return False


def mark_compiled(part) -> None:
    """Add ``part`` to coltsim's record (dropping older lines of the same part)."""
    try:
        line = _record_line(part)
        lines = _COMPILED.read_text().splitlines() if _COMPILED.exists() else []
        keep = [x for x in lines if x.split("|")[0] != part[0]]
        _COMPILED.write_text("\n".join(keep + [line]) + "\n")
    except (OSError, UnicodeDecodeError):
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
    took on the project's machine, by ``record`` (default :func:`compile_times`).  A first start
    the record measured whole from an empty cache (``record["checks"]``: its ``parts`` and
    ``ratio``; benchmarks/compile_time.py) takes what it measured.  Any other takes its parts,
    each measured alone (``ratios``), as playout.warm_up compiles them: the engine beside the
    policies (the longer of the two), then the kernel."""
    record = record or compile_times()
    if record is None:
        return None
    measured = [c["ratio"] for c in record.get("checks", {}).values()
                if sorted(c.get("parts", ())) == sorted(parts)]
    if measured:
        return measured[0] * record["reference_seconds"]
    ratios = {p: record["ratios"].get(p, 0.0) for p in parts}
    policies = sum(r for p, r in ratios.items() if p not in ("engine", "kernel"))
    return (max(ratios.get("engine", 0.0), policies) + ratios.get("kernel", 0.0)) \
        * record["reference_seconds"]


def compile_notice(parts: tuple) -> str | None:
    """What compiling ``parts`` ((name, modules): the engine, choosers, a kernel) would say, or
    None when coltsim's record has them all."""
    missing = [p for p in parts if not compiled(p)]
    if not missing:
        return None
    bare = [name.split(" ")[0] for name, _ in missing]
    words = [p for p in dict.fromkeys(_SAID.get(n, n) for n in bare) if p != "kernel"] \
        or ["the kernel of this table"]
    what = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    seconds = compile_estimate(bare)
    when = "" if seconds is None else \
        f": about {_rounded(seconds)} s on {compile_times()['machine']}"
    return f"compiling {what} (once for this machine{when})"


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
    """Around a first call of a cached kernel made of ``parts`` (``(name, modules)``: the engine,
    its policies, the kernel itself; playout.kernel_parts): say what will be compiled before it
    when coltsim has no record of some part (``say`` None: the one of ``announcing``, if any),
    and record every part once the block ends without an error."""
    notice = compile_notice(parts)
    say = say or (_say[-1] if _say else None)
    if notice and say is not None:
        say(notice)
    with collector_paused():
        yield
    if notice:
        for part in parts:
            mark_compiled(part)
