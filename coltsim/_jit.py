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


def _source_hash() -> str:
    """Hash of every module with compiled code, and of the constants they read."""
    h = hashlib.sha1()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        text = path.read_bytes()
        if b"njit" in text or path.name in ("constants.py", "rules.py"):
            h.update(str(path.relative_to(root)).encode())
            h.update(text)
    return h.hexdigest()[:12]


_base = numba.config.CACHE_DIR or os.path.join(os.path.expanduser("~"), ".cache", "coltsim", "numba")
numba.config.CACHE_DIR = os.path.join(_base, f"coltsim-{_source_hash()}")

njit = functools.partial(numba.njit, cache=True, nogil=True)


# --- a compiler fix: let numba prune the reference counts of arguments --------------------------
# Every compiled function that calls another one increments the reference count of its arguments
# (the State) on entry and decrements it on every normal exit: two atomic instructions per call,
# a third of the engine's time.  numba's pruning pass removes such pairs when the other paths end
# in a ``raise`` -- but it recognises a raise by the metadata numba puts on the store of the
# exception, and a callee's exception passed on to the caller is stored without that metadata.
# Marking that store too lets the pass drop the pair, as it already does around a plain raise
# (numba never releases references on an exception path, marked or not).  Only coltsim's own
# functions are compiled this way.
from llvmlite import ir as _ir  # noqa: E402
from numba.core import callconv as _callconv  # noqa: E402
from numba.core.runtime import context as _nrt_context  # noqa: E402

_MANGLED_PREFIX = "_ZN7coltsim"
_propagate = _callconv.CPUCallConv.return_status_propagate


def _return_status_propagate(self, builder, status):
    if not builder.function.name.startswith(_MANGLED_PREFIX):
        return _propagate(self, builder, status)
    trystatus = self.check_try_status(builder)
    excptr = self._get_excinfo_argument(builder.function)
    builder.store(status.excinfoptr, excptr)
    with builder.if_then(builder.not_(trystatus.in_try)):
        store = builder.store(status.excinfoptr, excptr)
        store.set_metadata("numba_exception_output", builder.module.add_metadata([_ir.IntType(1)(1)]))
        self._return_errcode_raw(builder, status.code)


_callconv.CPUCallConv.return_status_propagate = _return_status_propagate


# The pruning pass runs after LLVM's other optimisations, and one of them (SimplifyCFG's sinking)
# merges the decrements of two different arrays at the end of two branches into one call on a
# phi of both, which the pass can no longer pair with either increment: typically the State
# with an array written only when tracing.  The call-site attribute ``nomerge`` forbids that
# merge, and only that, so every increment keeps a decrement it can be paired with.
_incref_decref = _nrt_context.NRTContext._call_incref_decref


def _call_incref_decref(self, builder, typ, value, funcname):
    block = builder.block
    first = len(block.instructions)
    _incref_decref(self, builder, typ, value, funcname)
    if builder.function.name.startswith(_MANGLED_PREFIX):
        for instr in block.instructions[first:]:
            if isinstance(instr, _ir.CallInstr):
                set.add(instr.attributes, "nomerge")  # llvmlite's list of names predates it


_nrt_context.NRTContext._call_incref_decref = _call_incref_decref
