"""Imported first by every benchmark that runs coltsim's compiled code: numba's cache in the
folder the ``coltsim`` program and the test suite use, named by the hash of coltsim's compiled
sources (coltsim._sources.keyed_cache_dir), so that a benchmark run after an edit never plays a
kernel compiled before it (numba checks a cached function against its own file only: a kernel
that inlined an edited function, or read an edited constant, would run the old one; docs/engine.md).
A benchmark is a process of its own, as the program is; it must be imported before numba is."""
import os

from coltsim._sources import keyed_cache_dir

os.environ["NUMBA_CACHE_DIR"] = keyed_cache_dir()
