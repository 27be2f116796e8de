"""The one jit decorator every compiled kernel in coltsim uses.

``cache=True`` keeps compiled machine code on disk between runs; ``nogil=True`` lets joblib's
thread backend run kernels side by side.

numba checks a cached function against its own source file only, not against the files of the
functions it calls, so after an edit (or an upgrade) a kernel could run stale code.  The cache
therefore lives in a folder named after a hash of coltsim's compiled sources:
``$NUMBA_CACHE_DIR/coltsim-<hash>`` (default ``~/.cache/coltsim/numba/coltsim-<hash>``).
"""
import functools
import hashlib
import os
from pathlib import Path

import numba

from . import _numba_patches  # noqa: F401  (applied before anything is compiled)


def _source_hash() -> str:
    """Hash of every module with compiled code, the constants they read and the compiler fixes."""
    h = hashlib.sha1()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        text = path.read_bytes()
        if b"njit" in text or path.name in ("constants.py", "rules.py", "_numba_patches.py"):
            h.update(str(path.relative_to(root)).encode())
            h.update(text)
    return h.hexdigest()[:12]


_base = numba.config.CACHE_DIR or os.path.join(os.path.expanduser("~"), ".cache", "coltsim", "numba")
numba.config.CACHE_DIR = os.path.join(_base, f"coltsim-{_source_hash()}")

njit = functools.partial(numba.njit, cache=True, nogil=True)
