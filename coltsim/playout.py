"""The one playout loop, and the kernels of a table: its games in batches, or one game traced.

A game is played by ``play_out``: find who decides, ask its policy, apply, until the game is
over (the shape of OpenSpiel's ``evaluate_bots``).  Who answers is the *chooser* of the deciding
seat (policies/builtin.py): ``choose(table, st, scratch, nets)`` asks chooser
``st.seat_policy[player]`` of the :class:`Table`, the table's compiled policies in order
(``Seats.choosers``: ``("planner", "ismcts:planner:planner")``), handing it the seat's row of
the table of networks ``nets`` (policies/net.py: ``learned``'s weights, a row per seat, so that
one compiled kernel plays any weights).

A kernel takes its table as its first argument.  numba compiles a function once per distinct
type of its arguments, and a table's numba type is its choosers' codes (:class:`TableType`,
through numba's public extension API), so a kernel is compiled, and cached on disk, once per
table, with exactly the choosers of that table called directly: a setting that plays only
``random`` compiles the engine and ``random``, nothing else.  The dispatch on the deciding seat
is inlined into the kernel (``choose`` is an overload that numba inlines before typing), so that
it is no compiled unit of its own.  A table with user policies (``"user:k"``) is compiled once
per process (``cache=False``): the user's functions cannot be cached with coltsim's code.

Every kernel plays games one after another without the GIL; parallelism is joblib's (runner).
A game depends only on (seed, game index), so any split of a run into batches gives the same
results.  Invariants are checked (``check`` 1; None: not) whenever a card or an event has
resolved (``game[G_CHECKPOINT]`` grew); only checking kernels compile the checks, only traced
ones the trace log, only recording ones a recorder.
"""
from __future__ import annotations

import functools

import numba
import numpy as np
from numba import types
from numba.extending import (
    NativeValue, intrinsic, models, overload, register_model, typeof_impl, unbox,
)

from ._jit import njit
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
from .policies import recording
from .policies import builtin
from .policies.catalog import PLAYOUT_NAMES, POLICIES
from .policies.observe import observe
from .policies.seats import USER

FAIL_ILLEGAL_OPTION = 64  # out_g[RG_FAIL]: a user policy returned an index outside [0, n)
MAX_CHOOSERS = 6  # choosers of a table: one per seat at most (choose)


class Table:
    """The compiled policies of a table, as a kernel takes them: ``choosers`` their codes
    (``Seats.choosers``), ``functions`` the user policies (``"user:k"`` is ``functions[k]``)."""

    def __init__(self, choosers, functions=()):
        if not 0 < len(choosers) <= MAX_CHOOSERS:
            raise ValueError(f"a table has 1 to {MAX_CHOOSERS} choosers, got {choosers!r}")
        self.choosers = tuple(choosers)
        self.functions = tuple(functions)


class TableType(types.Dummy):
    """A :class:`Table` to numba: named by its codes (and its user policies), so that a kernel
    is compiled, and cached, once per table."""

    def __init__(self, choosers: tuple, functions: tuple):
        self.choosers = choosers
        self.functions = functions
        users = f" {functions}" if functions else ""
        super().__init__(f"Table({'|'.join(choosers)}{users})")


@typeof_impl.register(Table)
def _typeof_table(table, context):
    return TableType(table.choosers, table.functions)


register_model(TableType)(models.OpaqueModel)


@unbox(TableType)
def _unbox_table(typ, obj, c):
    return NativeValue(c.context.get_dummy_value())  # (all a table says is in its type)


@numba.njit(nogil=True)  # takes the user's function: compiled into each kernel (never cached)
def choose_user(st, scratch, net, policy):
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


def _chooser(code: str, functions: tuple):
    """The chooser of ``code`` in a table whose user policies are ``functions``, and what it
    takes after ``(st, scratch, net)``: a search the numbers of its models (constants), a user
    policy its function."""
    if code.startswith(USER):
        return choose_user, (functions[int(code[len(USER):])],)
    return builtin.chooser(code)


@intrinsic(prefer_literal=True)
def _ask_chooser(typingctx, table, k, st, scratch, net):
    """Chooser ``k`` (a constant) of ``table`` at the pending decision of ``st`` (``net`` its
    seat's network row), with what it takes after them (``_chooser``) as constants; 0 where
    the table has no chooser ``k``.  Typing it compiles the chooser as a unit of its own (cached
    on disk like every compiled function) and lowering it calls that unit, so that a kernel
    compiles nothing between itself and its choosers (numba's ``overload`` would compile its
    implementation twice more: docs/engine.md)."""
    if not isinstance(k, types.IntegerLiteral):
        return None
    if k.literal_value >= len(table.choosers):
        return types.intp(table, k, st, scratch, net), \
            lambda context, builder, signature, args: context.get_constant(types.intp, 0)
    chooser, extra = _chooser(table.choosers[k.literal_value], table.functions)
    extra_types = tuple(types.literal(x) if isinstance(x, int) else typingctx.resolve_value_type(x)
                        for x in extra)
    chooser_type = typingctx.resolve_value_type(chooser)
    call = chooser_type.get_call_type(typingctx, (st, scratch, net) + extra_types, {})

    def codegen(context, builder, signature, args):
        values = [context.get_constant_generic(builder, t, x) if isinstance(x, int)
                  else context.get_dummy_value() for t, x in zip(extra_types, extra)]
        return context.get_function(chooser_type, call)(builder, (*args[2:], *values))
    return call.return_type(table, k, st, scratch, net), codegen


def _ask_chooser_in_python(table, k, st, scratch, net):
    """``_ask_chooser`` in numba's plain-Python mode (``NUMBA_DISABLE_JIT``)."""
    if k >= len(table.choosers):
        return 0
    chooser, extra = _chooser(table.choosers[k], table.functions)
    return chooser(st, scratch, net, *extra)


ask_chooser = _ask_chooser_in_python if numba.config.DISABLE_JIT else _ask_chooser


# The loop, its game and the dispatch on the deciding seat are inlined into each kernel, which
# compiles the engine's functions and the choosers it calls once for all of them (a separate
# function would link and optimise the engine again).
_inlined = functools.partial(numba.njit, cache=False, nogil=True, inline="always")


@_inlined
def choose(table, st, scratch, nets):
    """Ask the deciding seat's chooser of ``table`` (at most ``MAX_CHOOSERS``); returns an
    option index."""
    p = st.game[G_PEND_PLAYER]
    k = st.seat_policy[p]
    if k == 0:
        return ask_chooser(table, 0, st, scratch, nets[p])
    if k == 1:
        return ask_chooser(table, 1, st, scratch, nets[p])
    if k == 2:
        return ask_chooser(table, 2, st, scratch, nets[p])
    if k == 3:
        return ask_chooser(table, 3, st, scratch, nets[p])
    if k == 4:
        return ask_chooser(table, 4, st, scratch, nets[p])
    return ask_chooser(table, 5, st, scratch, nets[p])


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
    """With ``check`` (not None), check the invariants if a card or an event resolved since
    checkpoint ``checked`` (the first broken one goes to ``game[G_FAIL]``); returns the
    checkpoint checked.  Compiled, a kernel that does not check compiles no check."""
    if check is not None and st.game[G_CHECKPOINT] != checked:
        if st.game[G_FAIL] == 0:
            st.game[G_FAIL] = check_invariants(st)
        return st.game[G_CHECKPOINT]
    return checked


@overload(check_step, jit_options={"nogil": True})
def _check_step_overload(check, st, checked):
    if isinstance(check, types.NoneType):
        return lambda check, st, checked: checked
    return check_step


@_inlined
def play_out(table, check, st, scratch, nets, log, rec):
    """Play ``st`` to the end: find who decides, ask its chooser of ``table``
    (``choose(table, st, scratch, nets)``), apply.

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
            apply(st, record_decision(rec, st, scratch, choose(table, st, scratch, nets)))
        elif step(st) == STEP_OVER:
            return n
        checked = check_step(check, st, checked)
        n = record_step(log, st, n)


@_inlined
def play_game(table, check, states, seed, game_index, lineup, nets, log, rec, out_b, out_g):
    """Deal and play game ``game_index`` of ``seed`` on the table of ``states[0]``
    (``states[1:]`` are the choosers' scratch; ``nets`` the seats' networks; ``log`` and
    ``rec`` as ``play_out``'s) and score it into ``out_b``, ``out_g``; returns the log rows
    written."""
    st = states[0]
    st.game[G_TRACE] = log is not None
    setup_game(st, seed, game_index, lineup)
    record_game(rec, st, seed, game_index, None, None)
    n = play_out(table, check, st, states[1:], nets, log, rec)
    score_game(st, out_b, out_g)
    record_game(rec, st, seed, game_index, out_b, out_g)
    return n


@njit
def _batch(table, check, states, seed, first_index, lineups, seat_policy, params, nets, opts,
           out_b, out_g, rec):
    init_table(states[0], seat_policy.shape[0], opts, seat_policy, params)
    for g in range(out_g.shape[0]):
        game = first_index + g
        play_game(table, check, states, seed, game, lineups[game % lineups.shape[0]], nets,
                  None, rec, out_b[g], out_g[g])


@njit
def _traced(table, states, seed, game_index, lineup, nets, log, out_b, out_g):
    return play_game(table, 1, states, seed, game_index, lineup, nets, log, None, out_b, out_g)


@functools.lru_cache(maxsize=None)
def _uncached(kernel):
    """``kernel`` compiled in this process only: for tables with user policies."""
    return numba.njit(nogil=True)(kernel.py_func)


def _kernel(kernel, choosers, functions):
    """``kernel`` and the :class:`Table` it plays."""
    return (_uncached(kernel) if functions else kernel), Table(choosers, functions)


def batch_kernel(choosers: tuple, functions: tuple = (), check: bool = False):
    """The kernel that plays games of a table whose seats' choosers are ``choosers`` and whose
    user policies are ``functions`` (``Seats.choosers``, ``Seats.functions``), checking
    invariants if ``check``::

        kernel(states, seed, first_index, lineups, seat_policy, params, nets, opts, out_b, out_g,
               rec=None)

    plays games ``first_index .. first_index + len(out_g) - 1`` of ``seed`` on the states
    ``states`` (``new_kernel_states()``); game ``g`` uses line-up
    ``lineups[g % len(lineups)]``; player ``p`` plays chooser ``seat_policy[p]`` with parameters
    ``params[p]`` and network ``nets[p]`` (``Seats.nets``) under the rule options ``opts``.
    With a recorder ``rec`` (policies/recording.py: coltsim train), a share of the decisions
    is recorded: the same games, except that an explored decision plays a random option.

    out_b : int32[games, bandits, RB_N]     out_g : int32[games, RG_N]

    Compiled on first call, then cached on disk (tables with user policies: once per process).
    """
    kernel, table = _kernel(_batch, choosers, functions)
    checking = 1 if check else None

    def play(states, seed, first_index, lineups, seat_policy, params, nets, opts, out_b, out_g,
             rec=None):
        kernel(table, checking, states, seed, first_index, lineups, seat_policy, params, nets,
               opts, out_b, out_g, rec)
    return play


def traced_kernel(choosers: tuple, functions: tuple = ()):
    """The kernel that plays one game of the table ``choosers``, checked and traced::

        kernel(states, seed, game_index, lineup, nets, log, out_b, out_g) -> log rows written

    with ``states[0]`` seated (``state.init_table``), ``nets`` the seats' networks, ``log``
    ``int64[rows, LOG_W]``, ``out_b`` ``int32[bandits, RB_N]`` and ``out_g`` ``int32[RG_N]``."""
    kernel, table = _kernel(_traced, choosers, functions)
    return lambda *args: kernel(table, *args)


def kernel_parts(kind: str, choosers: tuple) -> tuple:
    """What compiling the ``kind`` kernel ("batch", "traced" or "recording") of the table
    ``choosers`` compiles, as the compile notice names it (_jit.announce_compile): the engine,
    each policy's chooser (a search and its models') and the kernel itself."""
    parts = ["engine"]
    if kind == "recording":  # a recorder may label decisions by the teacher search
        parts += ["ismcts", POLICIES[PLAYOUT_NAMES[recording.TEACHER_MODEL]].chooser]
    for code in choosers:
        if not code.startswith(USER):
            name, *models = code.split(":")
            parts += [name] + [POLICIES[m].chooser for m in models]
    return tuple(dict.fromkeys(parts + [f"kernel {kind} {'|'.join(choosers)}"]))


def first_start(choosers: tuple) -> tuple:
    """What a first start of the table ``choosers`` compiles before its kernel, in two rounds
    of units that compile side by side in worker processes (``compile_unit``; the runner's
    ``load_kernel``): the engine's ``step`` beside what of the choosers needs no engine
    (``builtin.ahead_learned``: ``learned``'s greedy, encoding and network), then each chooser
    (which calls ``step``) beside the deal and the scoring.  The kernel's compile then finds them all in
    numba's cache.  Every compiled function links the code of all it calls and optimises it
    again, so the rounds cannot be split further (docs/engine.md: what a first start costs)."""
    codes = [c for c in choosers if not c.startswith(USER) and c != "random"]
    return (("step",) + tuple(f"ahead {c}" for c in codes if hasattr(builtin, f"ahead_{c}")),
            ("deal",) + tuple(codes))


def compile_unit(unit: str) -> None:
    """Compile (into numba's cache) the ``unit`` of a first start (``first_start``) for the
    numba types a kernel calls it with."""
    states = new_kernel_states()
    net = np.zeros((1, 1), np.float32)
    st, scratch, row = (numba.typeof(x) for x in (states[0], states[1:], net[0]))
    i64 = types.int64

    def vector(dtype):
        return types.Array(dtype, 1, "C")
    if unit == "step":
        step.compile((st,))
        apply.compile((st, i64))
    elif unit == "deal":
        setup_game.compile((st, i64, i64, vector(i64)))
        score_game.compile((st, types.Array(types.int32, 2, "C"), vector(types.int32)))
        init_table.compile((st, i64, vector(i64), vector(i64), types.Array(types.float64, 2, "C")))
    elif unit.startswith("ahead "):
        getattr(builtin, f"ahead_{unit.split(' ')[1]}")(st, scratch, row)
    else:
        chooser, extra = _chooser(unit, ())
        chooser.compile((st, scratch, row) + tuple(types.literal(x) for x in extra))


def new_kernel_states():
    """The states a kernel plays on: the game, and its choosers' scratch."""
    return new_states(1 + N_SCRATCH)


__all__ = ["FAIL_ILLEGAL_OPTION", "LOG_W", "RB_N", "RG_N", "Table", "batch_kernel", "choose",
           "check_step", "compile_unit", "first_start", "kernel_parts", "new_kernel_states", "play_game", "play_out",
           "traced_kernel"]
