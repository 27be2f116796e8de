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
"""
import functools

import numba

from ._sources import ROOT, source_hash

_STAMP = ROOT / "__pycache__" / "numba-sources.sha1"


def _drop_stale_cache() -> None:
    """Remove coltsim's cached machine code if the sources changed since it was compiled."""
    current = source_hash()
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
