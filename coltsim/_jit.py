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

Compiling the engine takes about a minute, once.  To say so before it happens, coltsim keeps its
own record of the kernels it has compiled from the current sources (``numba-compiled.txt``
beside the stamp; one line per kernel, sources and cache folder): :func:`announce_compile`
prints a notice when the kernel is not in it, and adds it once the kernel has run.  numba's
files are never read for this.  Where coltsim cannot write its ``__pycache__`` (a read-only
install) it keeps no record and gives no notice.
"""
import contextlib
import functools
import os

import numba

from ._sources import ROOT, source_hash

_STAMP = ROOT / "__pycache__" / "numba-sources.sha1"
_COMPILED = ROOT / "__pycache__" / "numba-compiled.txt"
COMPILING = "compiling the engine (first run only, about a minute)"
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


@contextlib.contextmanager
def announce_compile(kernel: str, say=None):
    """Around a first call of the cached ``kernel``: ``say(COMPILING)`` before it when coltsim
    has no record of compiling it (``say`` None: no notice), and record it once the block ends
    without an error."""
    first = not compiled(kernel)
    if first and say is not None:
        say(COMPILING)
    yield
    if first:
        mark_compiled(kernel)
