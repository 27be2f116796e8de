"""The one playout loop, and the kernels of a table: its games in batches, or one game traced.

A game is played by ``play_out``: find who decides, ask its policy, apply, until the game is
over (the shape of OpenSpiel's ``evaluate_bots``).  Who answers is the *chooser* of the deciding
seat (policies/builtin.py): ``choose(st, scratch, nets)`` looks up ``st.seat_policy[player]``,
the index of the seat's chooser in the table's *key*, a string naming the table's compiled
policies in order (``"planner|ismcts:planner:planner"``; ``Seats.choosers`` joined by ``"|"``),
and hands it the seat's row of the table of networks ``nets`` (policies/net.py: ``learned``'s
weights, a row per seat, so that one compiled kernel plays any weights).

Each kernel is compiled for one table (``with_table``: its ``choose`` is the table's, inlined),
so ``batch_kernel(choosers)`` compiles the loop with exactly the choosers of its table, and a
setting that plays only ``random`` compiles the engine and ``random``, nothing else.  A kernel
is cached on disk like the engine, under a name of its table, so a table compiles once per
machine; the engine's functions are compiled once and shared by every kernel.  Tables with user
policies (``"user:k"``) compile once per process, since the user's functions cannot be cached
with coltsim's code.

Every kernel plays games one after another without the GIL; parallelism is joblib's (runner).
A game depends only on (seed, game index), so any split of a run into batches gives the same
results.  Invariants are checked (``check``) whenever a card or an event has resolved
(``game[G_CHECKPOINT]`` grew); only checking kernels compile the checks, only traced ones the
trace log.
"""
from __future__ import annotations

import functools
import hashlib
import threading
from types import FunctionType

import numba
import numpy as np
from numba import types
from numba.extending import overload

from ._process import collector_paused
from .engine import actions as A
from .engine import events as E
from .engine.check import check_invariants
from .engine.flow import STEP_OVER, apply, decision_pending, step
from .engine.log import LOG_W, drain_records
from .engine.rng import RNG_DECIDE
from .engine.scoring import RB_N, RG_N, score_game
from .engine.setup import setup_game
from .engine.state import (
    G_CHECKPOINT, G_DECISIONS, G_FAIL, G_PEND_KIND, G_PEND_N, G_PEND_PLAYER, G_TRACE,
    N_SCRATCH, init_table, new_states,
)
from .policies.builtin import AHEAD, CHOOSERS, POLICY_FUNCTIONS
from .policies.catalog import PLAYOUT_NAMES, POLICIES
from .policies.observe import observe
from .policies import recording
from .policies.registry import USER

FAIL_ILLEGAL_OPTION = 64  # out_g[RG_FAIL]: a user policy returned an index outside [0, n)


@numba.njit(nogil=True)  # takes the user's function: compiled into each kernel (never cached)
def choose_user(st, scratch, policy):
    """A user's ``policy`` (the policy signature) on a fresh observation of the deciding player;
    an answer outside ``[0, n)`` plays option 0 and marks the game ``FAIL_ILLEGAL_OPTION``."""
    player = st.game[G_PEND_PLAYER]
    obs = scratch[0]
    observe(st, player, obs)
    n = st.game[G_PEND_N]
    rng = st.rng[RNG_DECIDE + player:RNG_DECIDE + player + 1]
    i = policy(obs, st.game[G_PEND_KIND], obs.options[:n], obs.params[player], rng)
    if i < 0 or i >= n:
        if st.game[G_FAIL] == 0:
            st.game[G_FAIL] = FAIL_ILLEGAL_OPTION
        i = 0
    return i


_lock = threading.Lock()
_functions: list = []  # the user policies of each table of this process ("@k" in its key)


def _chooser(code: str, functions: tuple):
    """The chooser of ``code`` in a table whose user policies are ``functions``, and what it
    takes after ``(st, scratch)``: a built-in the seat's network row (``None`` here, filled in
    by the caller), then a search its models' numbers; a user policy its function."""
    if code.startswith(USER):
        return choose_user, (functions[int(code[len(USER):])],)
    name, *models = code.split(":")
    return CHOOSERS[name], (None,) + tuple(PLAYOUT_NAMES.index(m) for m in models)


def _table(key: str):
    """The chooser codes and user policies of the table ``key`` (``"a|b"`` or ``"a|b@k"``)."""
    codes, _, k = key.partition("@")
    return codes.split("|"), _functions[int(k)] if k else ()


def choose(st, scratch, nets):
    """Ask the deciding seat's chooser; returns an option index.

    A name, not a function: every function that asks (a kernel, or a test's loop) is compiled
    by ``with_table``, which binds it to the chooser of one table (``table_chooser``)."""
    raise RuntimeError("playout.choose is bound per table: compile the function that calls it "
                       "with playout.with_table(function, key)")


@functools.lru_cache(maxsize=None)
def table_chooser(key: str):
    """The chooser of the table ``key``: ``choose(st, scratch, nets)`` looks up
    ``st.seat_policy[player]``, the index of the deciding seat's chooser in the table, and asks
    it, handing it the seat's row of ``nets``, and a search the numbers of its models as
    constants.

    It is inlined where it is called (numba inlines it before typing), so that a kernel calls
    each chooser directly: a compiled unit of its own would link and optimise the whole engine
    once more (2.5 s for ``learned``'s table, docs/engine.md)."""
    names = {"G_PEND_PLAYER": G_PEND_PLAYER}
    calls = []
    codes, functions = _table(key)
    for i, code in enumerate(codes):
        chooser, extra = _chooser(code, functions)
        names[f"c{i}"] = chooser
        args = ""
        for j, x in enumerate(extra):  # the seat's network; a model's number; a function
            names[f"x{i}_{j}"] = x
            args += (", nets[p]" if x is None else f", {x}" if isinstance(x, int)
                     else f", x{i}_{j}")
        calls.append(f"c{i}(st, scratch{args})")
    lines = ["def choose(st, scratch, nets):",
             "    p = st.game[G_PEND_PLAYER]",
             "    i = st.seat_policy[p]"]
    for i, call in enumerate(calls[:-1]):
        lines += [f"    if i == {i}:", f"        return {call}"]
    lines.append(f"    return {calls[-1]}")
    exec("\n".join(lines), names)
    return numba.njit(inline="always", nogil=True)(names["choose"])


def with_table(function, key: str, cache: bool = True):
    """``function`` compiled (``cache``: on disk) with its global ``choose`` bound to the
    chooser of the table ``key`` (``table_chooser``).  Its compiled code is named after the
    table in numba's cache (numba names a function's cache files by its qualified name): the
    same function bound to two tables is two kernels."""
    bound = FunctionType(function.__code__, {**function.__globals__,
                                             "choose": table_chooser(key)},
                         function.__name__, function.__defaults__, function.__closure__)
    digest = hashlib.sha1(key.encode()).hexdigest()[:16]
    bound.__qualname__ = f"{function.__qualname__}.table_{digest}"
    bound.__doc__ = function.__doc__
    return numba.njit(cache=cache, nogil=True)(bound)


def record_decision(rec, st, scratch, i):
    """With a recorder (not None: policies/recording.py), record the pending decision whose
    chosen option is ``i``; returns the option to play (a recorder may explore).  Compiled, a
    kernel without a recorder compiles none of it (the overload below)."""
    return i if rec is None else recording.record_decision(rec, st, scratch, i)


@overload(record_decision, jit_options={"nogil": True})
def _record_decision_overload(rec, st, scratch, i):
    if isinstance(rec, types.NoneType):
        return lambda rec, st, scratch, i: i
    return lambda rec, st, scratch, i: recording.record_decision(rec, st, scratch, i)


def record_game(rec, st, seed, game_index, out_b, out_g):
    """With a recorder: a game starts (``out_b`` None) or is over and scored (its rows get
    their outcomes)."""
    if rec is not None:
        if out_b is None:
            recording.record_start(rec, seed, game_index)
        else:
            recording.record_finish(rec, st, out_b, out_g)


@overload(record_game, jit_options={"nogil": True})
def _record_game_overload(rec, st, seed, game_index, out_b, out_g):
    if isinstance(rec, types.NoneType):
        return lambda rec, st, seed, game_index, out_b, out_g: None
    if isinstance(out_b, types.NoneType):
        return lambda rec, st, seed, game_index, out_b, out_g: recording.record_start(
            rec, seed, game_index)
    return lambda rec, st, seed, game_index, out_b, out_g: recording.record_finish(
        rec, st, out_b, out_g)


def record_step(log, st, n):
    """Append the notes of the last step to ``log`` (none: no trace); returns the rows written.

    Compiled, a kernel without a log compiles none of the trace (the overload below)."""
    return n if log is None else drain_records(st, log, n)


@overload(record_step, jit_options={"nogil": True})
def _record_step_overload(log, st, n):
    if isinstance(log, types.NoneType):
        return lambda log, st, n: n
    return lambda log, st, n: drain_records(st, log, n)


def check_step(check, st, checked):
    """With ``check`` 1, check the invariants if a card or an event resolved since checkpoint
    ``checked`` (the first broken one goes to ``game[G_FAIL]``); returns the checkpoint checked.

    Compiled, ``check`` is a constant and a kernel that does not check compiles no check."""
    if check == 1 and st.game[G_CHECKPOINT] != checked:
        if st.game[G_FAIL] == 0:
            st.game[G_FAIL] = check_invariants(st)
        return st.game[G_CHECKPOINT]
    return checked


@overload(check_step, jit_options={"nogil": True})
def _check_step_overload(check, st, checked):
    if not isinstance(check, types.IntegerLiteral):
        raise numba.errors.TypingError("check_step: check must be a compile-time constant")
    if check.literal_value == 0:
        return lambda check, st, checked: checked
    return check_step


# The loop and its game are inlined into each kernel, which compiles the engine's functions it
# calls once for all of them (a separate function would link and optimise the engine again).
_inlined = functools.partial(numba.njit, cache=False, nogil=True, inline="always")


@_inlined
def play_out(choose, check, st, scratch, nets, log, rec):
    """Play ``st`` to the end: find who decides, ask ``choose(st, scratch, nets)`` (its table's
    chooser: ``table_chooser``), apply.

    ``scratch`` holds the choosers' scratch states (an observation, copies to look ahead in).
    With ``check`` 1 the invariants are checked whenever a card or an event resolves
    (``check_step``).  With a ``log`` (not None), each step's notes go into it; returns the rows
    written.  With a recorder ``rec`` (not None), a share of the decisions is recorded
    (``record_decision``)."""
    n = record_step(log, st, 0)  # the setup's note
    checked = -1
    while True:
        if decision_pending(st):  # (asked before stepping: a step would only say so)
            st.game[G_DECISIONS] += 1
            apply(st, record_decision(rec, st, scratch, choose(st, scratch, nets)))
        elif step(st) == STEP_OVER:
            return n
        checked = check_step(check, st, checked)
        n = record_step(log, st, n)


@_inlined
def play_game(choose, check, states, seed, game_index, lineup, nets, log, rec, out_b, out_g):
    """Deal and play game ``game_index`` of ``seed`` on the table of ``states[0]``
    (``states[1:]`` are the choosers' scratch; ``nets`` the seats' networks; ``log`` and
    ``rec`` as ``play_out``'s) and score it into ``out_b``, ``out_g``; returns the log rows
    written."""
    st = states[0]
    st.game[G_TRACE] = log is not None
    setup_game(st, seed, game_index, lineup)
    record_game(rec, st, seed, game_index, None, None)
    n = play_out(choose, check, st, states[1:], nets, log, rec)
    score_game(st, out_b, out_g)
    record_game(rec, st, seed, game_index, out_b, out_g)
    return n


def _batch(key: str, check: int, cache: bool):
    def batch(states, seed, first_index, lineups, seat_policy, params, nets, opts, out_b,
              out_g):
        init_table(states[0], seat_policy.shape[0], opts, seat_policy, params)
        for g in range(out_g.shape[0]):
            game = first_index + g
            play_game(choose, check, states, seed, game, lineups[game % lineups.shape[0]],
                      nets, None, None, out_b[g], out_g[g])
    return with_table(batch, key, cache)


def _recording(key: str, check: int, cache: bool):
    def recording_batch(states, seed, first_index, lineups, seat_policy, params, nets, opts,
                        out_b, out_g, rec):
        init_table(states[0], seat_policy.shape[0], opts, seat_policy, params)
        for g in range(out_g.shape[0]):
            game = first_index + g
            play_game(choose, check, states, seed, game, lineups[game % lineups.shape[0]],
                      nets, None, rec, out_b[g], out_g[g])
    return with_table(recording_batch, key, cache)


def _traced(key: str, cache: bool):
    def traced(states, seed, game_index, lineup, nets, log, out_b, out_g):
        return play_game(choose, 1, states, seed, game_index, lineup, nets, log, None, out_b,
                         out_g)
    return with_table(traced, key, cache)


_kernels: dict = {}


def _kernel(kind: str, choosers: tuple, functions: tuple, check: int):
    with _lock:
        key = "|".join(choosers)
        if functions:  # compiled once per process: the key names this process's functions
            if functions not in _functions:
                _functions.append(functions)
            key += f"@{_functions.index(functions)}"
        kernel = _kernels.get((kind, key, check))
        if kernel is None:
            cache = not functions
            kernel = (_batch(key, check, cache) if kind == "batch"
                      else _recording(key, check, cache) if kind == "recording"
                      else _traced(key, cache))
            _kernels[(kind, key, check)] = kernel
    return kernel


def batch_kernel(choosers: tuple, functions: tuple = (), check: bool = False):
    """The kernel that plays games of a table whose seats' choosers are ``choosers`` and whose
    user policies are ``functions`` (``Seats.choosers``, ``Seats.functions``), checking
    invariants if ``check``::

        kernel(states, seed, first_index, lineups, seat_policy, params, nets, opts, out_b, out_g)

    plays games ``first_index .. first_index + len(out_g) - 1`` of ``seed`` on the states
    ``states`` (``new_kernel_states()``); game ``g`` uses line-up
    ``lineups[g % len(lineups)]``; player ``p`` plays chooser ``seat_policy[p]`` with parameters
    ``params[p]`` and network ``nets[p]`` (``Seats.nets``) under the rule options ``opts``.

    out_b : int32[games, bandits, RB_N]     out_g : int32[games, RG_N]

    Compiled on first call, then cached on disk (tables with user policies: once per process).
    """
    return _kernel("batch", tuple(choosers), tuple(functions), int(bool(check)))


def recording_kernel(choosers: tuple, functions: tuple = (), check: bool = False):
    """``batch_kernel`` with a recorder (policies/recording.py) as a last argument: the same
    games, a share of their decisions recorded (an explored decision plays a random option)."""
    return _kernel("recording", tuple(choosers), tuple(functions), int(bool(check)))


def traced_kernel(choosers: tuple, functions: tuple = ()):
    """The kernel that plays one game of the table ``choosers``, checked and traced::

        kernel(states, seed, game_index, lineup, nets, log, out_b, out_g) -> log rows written

    with ``states[0]`` seated (``state.init_table``), ``nets`` the seats' networks, ``log``
    ``int64[rows, LOG_W]``,
    ``out_b`` ``int32[bandits, RB_N]`` and ``out_g`` ``int32[RG_N]``."""
    return _kernel("traced", tuple(choosers), tuple(functions), 1)


_ENGINE = ("engine/flow.py", "engine/setup.py", "engine/scoring.py")


def _module_of(function) -> str:
    """The file of a compiled function, relative to the package (its part of the record)."""
    return function.py_func.__module__.split(".", 1)[1].replace(".", "/") + ".py"


def kernel_parts(kind: str, choosers: tuple, module: str = "playout.py") -> tuple:
    """What compiling the ``kind`` kernel ("batch" or "traced"; "record", of ``module``
    learn/record.py) of the table ``choosers`` compiles, as coltsim's compile record names it
    (_jit.announce_compile): the engine, each policy (a search with its models) and the kernel
    itself, each ``(name, modules)``."""
    parts = {"engine": _ENGINE}
    for code in choosers:
        if code.startswith(USER):
            continue
        for part in _code_parts(code):
            parts[part] = (_module_of(POLICY_FUNCTIONS[part]),)
    parts[f"kernel {kind} {'|'.join(choosers)}"] = (module,)
    return tuple(parts.items())


def _probe(states, nets):
    """Ask a table's chooser as its kernel does (``choose`` on ``states[0]`` and
    ``states[1:]``): compiled by ``with_table`` for the table of one chooser code, it compiles,
    and caches, the chooser for the kernel's own types.  Never run."""
    return choose(states[0], states[1:], nets)


def _engine_units(states) -> tuple:
    """The engine's compiled units a kernel calls, each with the numba types it calls it with
    (``states``: a kernel's states): ``step`` and ``apply`` (compiling the first compiles the
    second, and with them every rule), dealing, then the two small ones, scoring and seating.
    Compiling them is compiling the engine."""
    st = numba.typeof(states[0])
    i64 = types.int64

    def vector(dtype):
        return types.Array(dtype, 1, "C")
    return ((step, (st,)), (apply, (st, i64)),
            (setup_game, (st, i64, i64, vector(i64))),
            (score_game, (st, types.Array(types.int32, 2, "C"), vector(types.int32))),
            (init_table, (st, i64, vector(i64), vector(i64), types.Array(types.float64, 2, "C"))))


def _late_units(states) -> tuple:
    """Units of ``step`` that its compile reaches late (a sixth of it: the lines of fire and the
    three largest round cards' events), each with the types ``step`` calls it with: the worker
    of a policy compiled ahead takes them first, so that both processes have about as much to
    do before the policy's own unit (``compile_chooser``)."""
    st = numba.typeof(states[0])
    tokens = (st, st.typeof("evtok"))
    return ((A.fire_targets, (st, types.int64, st.typeof("options"))),
            (E.event_angry_marshal, (st,)), (E.event_marshals_revenge, tokens),
            (E.event_hostage_taking, tokens))


def compile_chooser(code: str, ahead: bool = False) -> None:
    """Compile (into numba's cache) the chooser ``code`` of a table (``warm_up``'s worker): a
    chooser of no models directly, for the types a kernel hands it (a probe of its own would
    link and optimise the chooser once more); a search through ``_probe``, which passes
    its models' numbers as constants as the kernel does.  With ``ahead``, first some units of
    ``step`` (``_late_units``) and what of the chooser needs no engine (``AHEAD``), while the
    main process compiles the engine; then, once a line on standard input says ``step`` and
    ``apply`` are in the cache, the chooser, which calls them."""
    import sys

    states = new_kernel_states()
    net = np.zeros((1, 1), np.float32)
    kernel_types = tuple(numba.typeof(a) for a in (states[0], states[1:], net[0]))
    chooser, extra = _chooser(code, ())
    with collector_paused(own=True):  # (this process only compiles)
        if ahead:
            for unit, signature in _late_units(states):
                unit.compile(signature)
            AHEAD[code](*kernel_types)
            sys.stdin.readline()
        if extra == (None,):
            chooser.compile(kernel_types)
        else:
            with_table(_probe, code, cache=False).compile((numba.typeof(states),
                                                          numba.typeof(net)))
    print("compiled", flush=True)  # (in the cache: the kernel's compile need not wait for the
    # end of this process, which takes a while to unload numba)


def warm_up(kind: str, choosers: tuple) -> None:
    """Before the first call of a table's kernel on a machine that has compiled none of it:
    compile the table's policies in other processes while this one compiles the engine, so that
    the kernel's compile then finds both in numba's cache and a first start costs the longer of
    the two rather than their sum.  A policy whose units that need no engine are known
    (``AHEAD``: ``learned``) compiles those, and some units of ``step`` that its compile reaches
    late (``_late_units``), while this process compiles ``step`` and ``apply``; then its own
    unit, which calls them, once they are in the cache (compiled in both processes they would
    cost their seconds twice), while this process compiles the deal, scoring and seating;
    another policy compiles the engine's units it calls itself.  Nothing to do when coltsim's
    record (_jit) has the engine or every policy compiled already, or for a table of random
    and user policies."""
    import os
    import subprocess
    import sys

    from ._jit import compiled

    parts = kernel_parts(kind, choosers)
    if compiled(parts[0]):  # the engine: nothing left to overlap with
        return
    by_name = dict(parts)
    codes = [c for c in dict.fromkeys(choosers) if not c.startswith(USER) and c != "random"
             and not all(compiled((n, by_name[n])) for n in _code_parts(c))]
    if not codes:
        return
    ahead = next((c for c in codes if c in AHEAD), None)
    workers = [subprocess.Popen([sys.executable, "-c", "import sys; from coltsim._process import "
                                 "watch_parent; watch_parent(int(sys.argv[2])); from "
                                 "coltsim.playout import compile_chooser; "
                                 "compile_chooser(sys.argv[1], sys.argv[3] == '1')", code,
                                 str(os.getpid()), str(int(code == ahead))],
                                env=dict(os.environ), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
               for code in codes]
    try:
        for i, (unit, signature) in enumerate(_engine_units(new_kernel_states())):
            unit.compile(signature)
            if i == 1:  # step and apply are in the cache
                for w in workers:
                    _tell(w)
        for w in workers:  # its line says its chooser is in the cache; a worker that failed
            w.stdout.readline()  # says nothing and leaves its part to the kernel's compile
    except BaseException:  # stopped (Ctrl-C): the compiles of the policies stop too
        for w in workers:
            w.kill()
        raise
    finally:  # reaped as they end (unloading numba takes a worker a while)
        for w in workers:
            w.stdout.close()
            threading.Thread(target=w.wait, daemon=True).start()


def _tell(worker) -> None:
    """Tell a compiling worker that ``step`` and ``apply`` are in the cache (once; nothing if
    it has ended)."""
    try:
        worker.stdin.write(b"\n")
        worker.stdin.close()
    except (OSError, ValueError):
        pass


def _code_parts(code: str) -> list:
    """The parts of the compile record a chooser code compiles (itself and its models)."""
    name, *models = code.split(":")
    return [name] + [POLICIES[m].chooser for m in models]


def new_kernel_states():
    """The states a kernel plays on: the game, and its choosers' scratch."""
    return new_states(1 + N_SCRATCH)


__all__ = ["FAIL_ILLEGAL_OPTION", "LOG_W", "RB_N", "RG_N", "batch_kernel", "choose",
           "compile_chooser", "kernel_parts", "new_kernel_states", "play_game", "play_out",
           "recording_kernel", "table_chooser", "traced_kernel", "warm_up", "with_table"]
