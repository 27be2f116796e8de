"""The hash of coltsim's compiled sources, and the folder of compiled code keyed on it (plain
Python: importing it loads no numba).

``source_hash()`` names the engine that produced a run (manifests record it): any change to a
module with compiled code, to the constants they read or to the data they play with gives
another engine.  numba checks a cached function against its own source file only, not against
the files of the functions it calls; the ``coltsim`` program therefore keeps numba's cache in a
folder named by this hash (:func:`keyed_cache_dir`), so that an edit, a ``git pull`` or an
upgrade never runs stale code (docs/engine.md).
"""
import hashlib
import os
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).parent
# What compiled code is made of: these modules, every module of these folders, and the data
# files beside them (the learned policy's shipped network).
COMPILED = ("constants.py", "rules.py", "playout.py", "engine", "policies")


def _compiled_files() -> list[Path]:
    files = []
    for name in COMPILED:
        path = ROOT / name
        files += sorted(p for p in path.rglob("*") if p.suffix in (".py", ".npz")) \
            if path.is_dir() else [path]
    return files


@lru_cache(maxsize=1)
def source_hash() -> str:
    """Hash of every module with compiled code, of the constants they read and of the data
    they play with."""
    h = hashlib.sha1()
    for path in _compiled_files():
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def cache_name() -> str:
    """The name of a folder of compiled code that these sources made: ``coltsim-<hash>``."""
    return f"coltsim-{source_hash()}"


def keyed_cache_dir() -> str:
    """The folder the ``coltsim`` program (and the test suite) gives numba's cache: the one
    ``$NUMBA_CACHE_DIR`` names if it is keyed already, else ``coltsim-<hash>`` in it, or in the
    user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``) when it is not set."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given and Path(given).name == cache_name():
        return given
    base = given or os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return str(Path(base) / cache_name())
