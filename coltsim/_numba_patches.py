"""Three fixes to numba's code generation that spare coltsim's kernels most reference counting.

Every compiled function increments the reference count of its array and State arguments on entry
and decrements it on every normal exit: two atomic instructions per call, which were a third of
the engine's time.  numba's pruning pass removes such pairs only in simple control flow.

1. The pruning pass recognises a raise by the metadata numba puts on the store of the exception,
   and a callee's exception passed on to the caller was stored without that metadata.  We mark
   that store too, as numba does for a plain ``raise`` (numba never releases references on an
   exception path, marked or not, so nothing changes there).
2. The pass runs after LLVM's other optimisations, and SimplifyCFG's sinking merges the
   decrements of two different arrays at the ends of two branches into one call on a phi of
   both, which the pass can no longer pair with either increment.  The call-site attribute
   ``nomerge`` forbids exactly that merge.
3. Borrowed arguments.  The caller holds a reference to every argument for the whole call, so
   the callee's pair adds nothing.  In coltsim's functions, a variable bound once to an argument
   (or, with the same type, to such a variable, as the arguments of an inlined function are)
   never increments or decrements its count.  Every other use numba makes of it (storing
   it, returning it) takes its own reference as before.

Measured on 4-player random games, one thread: 40.3 us per game without them, 23.8 with 1 and 2,
21.4 with all three; identical games.  The patches touch only functions of coltsim (mangled names
starting ``_ZN7coltsim``) and are applied only to the numba versions they were written and
tested against; elsewhere the engine is slower, not different.
"""
import numba

PATCHED = numba.__version__.startswith("0.68.")
_MANGLED_PREFIX = "_ZN7coltsim"


def _apply() -> None:
    from llvmlite import ir
    from numba.core import callconv, lowering
    from numba.core import ir as numba_ir
    from numba.core.runtime import context as nrt_context

    propagate = callconv.CPUCallConv.return_status_propagate
    incref_decref = nrt_context.NRTContext._call_incref_decref

    def return_status_propagate(self, builder, status):
        if not builder.function.name.startswith(_MANGLED_PREFIX):
            return propagate(self, builder, status)
        # numba 0.68's CPUCallConv.return_status_propagate, with the store marked as a raise.
        trystatus = self.check_try_status(builder)
        excptr = self._get_excinfo_argument(builder.function)
        builder.store(status.excinfoptr, excptr)
        with builder.if_then(builder.not_(trystatus.in_try)):
            store = builder.store(status.excinfoptr, excptr)
            store.set_metadata("numba_exception_output",
                               builder.module.add_metadata([ir.IntType(1)(1)]))
            self._return_errcode_raw(builder, status.code)

    def call_incref_decref(self, builder, typ, value, funcname):
        block = builder.block
        first = len(block.instructions)
        incref_decref(self, builder, typ, value, funcname)
        if builder.function.name.startswith(_MANGLED_PREFIX):
            for instr in block.instructions[first:]:
                if isinstance(instr, ir.CallInstr):
                    set.add(instr.attributes, "nomerge")  # llvmlite's list of names predates it

    lower_assign = lowering.Lower.lower_assign
    storevar = lowering.Lower.storevar
    delvar = lowering.Lower.delvar

    def borrowed(self):
        """Variables of a coltsim function bound once, to an argument or to such a variable."""
        names = self.__dict__.get("_coltsim_borrowed")
        if names is None:
            names = set()
            if self.fndesc.mangled_name.startswith(_MANGLED_PREFIX) and not self.generator_info:
                assigned = {}
                for block in self.func_ir.blocks.values():
                    for inst in block.find_insts(numba_ir.Assign):
                        assigned.setdefault(inst.target.name, []).append(inst.value)
                once = {name: values[0] for name, values in assigned.items() if len(values) == 1}
                names = {name for name, value in once.items() if isinstance(value, numba_ir.Arg)}
                grew = True
                while grew:  # aliases of borrowed variables, as inlined functions' arguments
                    grew = False
                    for name, value in once.items():
                        if (name not in names and isinstance(value, numba_ir.Var)
                                and value.name in names
                                and self.typeof(name) == self.typeof(value.name)):
                            names.add(name)
                            grew = True
            self._coltsim_borrowed = names
        return names

    def without_refcounts(self, method, *args):
        enable = self.context.enable_nrt
        self.context.enable_nrt = False
        try:
            return method(self, *args)
        finally:
            self.context.enable_nrt = enable

    def lower_assign_(self, ty, inst):
        if (isinstance(inst.value, (numba_ir.Arg, numba_ir.Var))
                and inst.target.name in borrowed(self)):
            return without_refcounts(self, lower_assign, ty, inst)  # no increment...
        return lower_assign(self, ty, inst)

    def storevar_(self, value, name, argidx=None):
        if name in borrowed(self):
            # ...nor, should it be bound again in a loop, a decrement of the value it held...
            return without_refcounts(self, storevar, value, name, argidx)
        return storevar(self, value, name, argidx)

    def delvar_(self, name):
        if name in borrowed(self):
            return without_refcounts(self, delvar, name)  # ...nor one when it dies
        return delvar(self, name)

    callconv.CPUCallConv.return_status_propagate = return_status_propagate
    nrt_context.NRTContext._call_incref_decref = call_incref_decref
    lowering.Lower.lower_assign = lower_assign_
    lowering.Lower.storevar = storevar_
    lowering.Lower.delvar = delvar_


if PATCHED:
    _apply()
