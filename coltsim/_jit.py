"""The one jit decorator every compiled kernel in coltsim uses, and the freshness of its cache.

``cache=True`` keeps compiled machine code on disk between runs; ``nogil=True`` lets joblib's
thread backend run kernels side by side.  coltsim never changes numba's configuration: the cache
lives where numba puts it (``__pycache__`` beside each module, or ``$NUMBA_CACHE_DIR`` when you
set it), and your own ``@njit(cache=True)`` functions are untouched.

numba checks a cached function against its own source file only, not against the files of the
functions it calls, so after an edit or a ``git pull`` a kernel could run stale code.  coltsim
therefore keeps a stamp of all its compiled sources beside its cache and, when they change,
removes its own cache files (``*.nbi``, ``*.nbc`` in coltsim's ``__pycache__`` folders) before
anything is compiled.  With ``$NUMBA_CACHE_DIR`` set, numba keeps the files elsewhere: clear that
folder after changing coltsim's sources (the test suite keys its folder on the sources itself:
tests/conftest.py).

Compiling is done once per machine, and only for what a run plays: the engine, and the
choosers of its table's policies (playout.py).  To say so before it happens, coltsim keeps its
own record of the parts it has compiled from the current sources (``numba-compiled.txt`` beside
the stamp; one line per part, sources and cache folder): :func:`announce_compile` names the parts
not in it, with what they cost on the project's 2-core machine (``COMPILE_SECONDS``, measured by
benchmarks/compile_time.py), and adds them once the block ends.  numba's files are never read
for this.  Where coltsim cannot write its ``__pycache__`` (a read-only install) it keeps no
record and gives no notice.
"""
import contextlib
import functools
import os

import numba

from ._sources import ROOT, source_hash

_STAMP = ROOT / "__pycache__" / "numba-sources.sha1"
_COMPILED = ROOT / "__pycache__" / "numba-compiled.txt"
# Seconds a first compile takes on the project's 2-core machine (benchmarks/compile_time.py): the
# engine, each policy's chooser, and the kernel of a table (its loop, linked with its parts).
COMPILE_SECONDS = {"engine": 16, "kernel": 3, "random": 0, "weighted": 4, "planner": 9,
                   "rollout": 4, "ismcts": 6}
_SOURCES = source_hash()  # of the sources this process compiles


def _drop_stale_cache() -> None:
    """Remove coltsim's cached machine code if the sources changed since it was compiled."""
    current = _SOURCES
    try:
        if _STAMP.exists() and _STAMP.read_text() == current:
            return
        for pattern in ("*.nbi", "*.nbc"):
            for path in ROOT.rglob(f"__pycache__/{pattern}"):
                path.unlink(missing_ok=True)
        _STAMP.parent.mkdir(exist_ok=True)
        _STAMP.write_text(current)
    except OSError:
        pass  # a read-only install: numba caches elsewhere, and its sources never change


_drop_stale_cache()

njit = functools.partial(numba.njit, cache=True, nogil=True)


def _record_line(kernel: str) -> str:
    # The cache folder is numba's choice unless NUMBA_CACHE_DIR names one: read, never set.
    return f"{_SOURCES} {kernel} {os.environ.get('NUMBA_CACHE_DIR', '')}"


def compiled(kernel: str) -> bool:
    """Whether coltsim's record says ``kernel`` was compiled from the current sources into the
    current cache folder (True where coltsim cannot keep a record: then it never announces)."""
    if not os.access(_COMPILED.parent, os.W_OK):
        return True
    try:
        return _record_line(kernel) in _COMPILED.read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return False


def mark_compiled(kernel: str) -> None:
    """Add ``kernel`` to coltsim's record (dropping the lines of other sources)."""
    try:
        lines = _COMPILED.read_text().splitlines() if _COMPILED.exists() else []
        keep = [line for line in lines if line.startswith(f"{_SOURCES} ")]
        if _record_line(kernel) not in keep:
            _COMPILED.write_text("\n".join(keep + [_record_line(kernel)]) + "\n")
    except (OSError, UnicodeDecodeError):
        pass  # no record: the next run announces the compile again, which is harmless


def compile_notice(parts: tuple) -> str | None:
    """What compiling ``parts`` (the engine, choosers, a kernel) would say, or None when coltsim's
    record has them all."""
    missing = [p for p in parts if not compiled(p)]
    if not missing:
        return None
    names = [p.split(":")[0].split(" ")[0] for p in missing]
    seconds = sum(COMPILE_SECONDS.get(name, COMPILE_SECONDS["kernel"]) for name in names)
    words = [p for p in dict.fromkeys(names) if p != "kernel"] or ["the kernel of this table"]
    what = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return (f"compiling {what} (once for this machine: about {seconds} s on the project's 2-core "
            "machine)")


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
    """Around a first call of a cached kernel made of ``parts`` (``"engine"``, its choosers'
    codes, ``"kernel KEY"``): say what will be compiled before it when coltsim has no record of
    some part (``say`` None: the one of ``announcing``, if any), and record every part once the
    block ends without an error."""
    notice = compile_notice(parts)
    say = say or (_say[-1] if _say else None)
    if notice and say is not None:
        say(notice)
    yield
    if notice:
        for part in parts:
            mark_compiled(part)
