"""The one jit decorator every compiled kernel in coltsim uses.

``cache=True`` keeps compiled machine code on disk between runs (set ``NUMBA_CACHE_DIR`` to
choose where); ``nogil=True`` lets joblib's thread backend run kernels side by side.
"""
import functools

import numba

njit = functools.partial(numba.njit, cache=True, nogil=True)
