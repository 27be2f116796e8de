"""Shared set-up.  numba compiles each kernel once per session (and caches it on disk)."""
import os

import matplotlib

from coltsim._sources import source_hash

matplotlib.use("Agg")

# numba checks a cached kernel against its own file only.  coltsim clears its cache in the source
# tree when its sources change (coltsim._jit), but a NUMBA_CACHE_DIR elsewhere is numba's alone:
# the suite keys its folder on the sources, so an edit never runs stale code.  This must happen
# before numba loads, hence the warning filter on numba's class is added here, not in the ini.
_KEYED = f"coltsim-{source_hash()}"
if os.environ.get("NUMBA_CACHE_DIR") and os.path.basename(
        os.path.normpath(os.environ["NUMBA_CACHE_DIR"])) != _KEYED:
    # (once: pytest-xdist's workers inherit the keyed folder from the main process)
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(os.environ["NUMBA_CACHE_DIR"], _KEYED)


def pytest_configure(config):
    config.addinivalue_line("filterwarnings", "error::numba.NumbaWarning")
