"""Shared set-up.  numba compiles each kernel once per session (and caches it on disk)."""
import os

import matplotlib

from coltsim._sources import keyed_cache_dir

matplotlib.use("Agg")

# numba checks a cached kernel against its own file only: the suite keeps its cache where the
# coltsim program keeps its own, in a folder named by the hash of the compiled sources
# (coltsim-<hash>, in $NUMBA_CACHE_DIR or the user's cache folder), so that an edit never runs
# stale code.  This must happen before numba loads (pytest-xdist's workers inherit it), hence
# the warning filter on numba's class is added here, not in the ini.
os.environ["NUMBA_CACHE_DIR"] = keyed_cache_dir()


def pytest_configure(config):
    config.addinivalue_line("filterwarnings", "error::numba.NumbaWarning")
