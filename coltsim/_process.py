"""What a coltsim process does about signals and about the process that started it.

- :func:`leave_interrupts_to_main`: the ``coltsim`` program blocks SIGINT in its main thread and
  leaves it to a listener thread that does nothing else.  Python runs the handler in the main
  thread all the same (within the 10 ms joblib's wait for results sleeps), but the signal mask is
  inherited by every thread the main thread starts and across fork and exec by every process:
  the run's worker processes, loky's resource trackers and the compiling processes of
  ``playout.warm_up`` never see the Ctrl-C a terminal sends to the whole process group, even
  while they start (before any code of coltsim runs in them, where they would print a
  ``KeyboardInterrupt`` traceback).  The main process stops them.  (Python's resource tracker
  unblocks it when it starts: :func:`start_resource_tracker` starts it keeping the mask.)
- :func:`watch_parent`: a worker process (loky's workers, given it as their initializer by
  coltsim.runs.runner, and the compiling processes) exits within a fraction of a second once the
  process that started it is gone (killed with ``kill -9``, crashed): otherwise it would play or
  compile on, and the semaphores and folders joblib keeps in ``/dev/shm`` would stay until it
  ends (loky's resource trackers remove them once the last process of the run has exited).
- :data:`DONE`: set once a command has done its work (its files written, its last line about
  to be printed): a Ctrl-C or SIGTERM after that cannot change its exit status (coltsim.cli).
- :func:`collector_paused`: while numba compiles in the coltsim program, Python's collector of
  cyclic garbage pauses: a compile makes millions of objects, and the collections of the oldest
  generation trace them all again and again (a first start about 5% sooner, the engine's compile
  a fifth; the process's peak memory about 150 MB higher).
- :func:`interruptible`: in the ``coltsim`` program, a long call (a kernel: a search's game, a
  compile) run in a helper thread while the main thread waits for it in steps of 0.1 s, so that
  Ctrl-C or SIGTERM stops the command at once rather than when the kernel returns (compiled code
  never looks at signals); the process then ends, and the helper with it.  In your own Python
  (a notebook) the call is made as it is: an interrupt there would leave the helper playing on.

Nothing here changes a dependency: only this process's own signal mask, handlers, threads and
collector, and only in coltsim's own processes (the ``coltsim`` program and the processes it
starts; in your own Python, :func:`interruptible` and :func:`collector_paused` change nothing).
"""
from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time

WATCH_SECONDS = 0.2  # how often a worker looks for its parent
WAIT_SECONDS = 0.1  # how often the main thread looks up from a long call
# Set by a command once its work is done (coltsim.study.run, .tune_report, the CLI), cleared by
# coltsim.cli.main as a command starts: from then on the program's handlers ignore Ctrl-C and
# SIGTERM while it prints its last line and ends (joblib stopping its worker processes).
DONE = threading.Event()


_program: list = []  # set by the coltsim program (leave_interrupts_to_main)


def leave_interrupts_to_main() -> None:
    """Block SIGINT in the calling (main) thread, and so in every thread and process it starts,
    after starting a listener thread that keeps it unblocked (module docstring); long calls are
    interruptible from now on."""
    _program.append(True)
    listener = threading.Thread(target=threading.Event().wait, name="coltsim-signals",
                                daemon=True)
    listener.start()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def start_resource_tracker() -> None:
    """Start Python's resource tracker (multiprocessing's, which loky's queues use) before a
    run's worker processes start, keeping this thread's signal mask: Python 3.11's
    ``ensure_running`` ends by unblocking SIGINT and SIGTERM in the thread that starts it (rather
    than restoring the mask it found), and workers started after that would see Ctrl-C."""
    from multiprocessing import resource_tracker

    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


# loky's resource tracker (a process the run starts) warns as it ends of a semaphore that a run
# stopped by Ctrl-C had already removed ("leaked semlock objects", "FileNotFoundError"): the
# tracker removes any left over itself, so there is nothing to tell (1 try in 12 printed it).
QUIET_TRACKER = "ignore::UserWarning:joblib.externals.loky.backend.resource_tracker"


def quiet_resource_tracker() -> None:
    """In the ``coltsim`` program: the processes it starts from now on (loky's resource tracker)
    ignore the tracker's warnings (``PYTHONWARNINGS``, added to any the user set)."""
    given = os.environ.get("PYTHONWARNINGS")
    os.environ["PYTHONWARNINGS"] = f"{given},{QUIET_TRACKER}" if given else QUIET_TRACKER


_watching: list = []  # the parent this process watches (once per process)


def watch_parent(parent: int) -> None:
    """In a process started by ``parent`` (not ``parent`` itself, not a Dask worker, which
    is no child of the run): exit as soon as ``parent`` is gone, and leave Ctrl-C to it (it
    stops its workers)."""
    if _watching or os.getpid() == parent:
        return
    if os.getppid() != parent:
        if _alive(parent):  # not its child
            return
        os._exit(1)  # its parent died while it started
    _watching.append(parent)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="coltsim-watch-parent", daemon=True).start()


@contextlib.contextmanager
def collector_paused(own: bool = False):
    """Within this block (a compile), no collection of cyclic garbage in the coltsim program, or
    in a process of coltsim's own that only compiles (``own``: warm_up's workers); the collector
    resumes as it was after it, and its next collection frees the compile's cycles.  In your
    own Python: nothing changes."""
    pause = (own or bool(_program)) and gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause:
            gc.enable()


_calls: list = []  # the helper threads of interruptible


def call_left_running() -> bool:
    """Whether a call of :func:`interruptible` is still running (the command was stopped while
    it ran): Python's shutdown would then stop its thread inside compiled code or numba's
    compiler, which can crash the process (a segfault after the one line), so the program ends
    without it (coltsim.cli.program)."""
    return any(t.is_alive() for t in _calls)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's
        return True
    return True


def interruptible(call, *args):
    """``call(*args)``; in the main thread of the coltsim program, run in a helper thread that
    the main thread waits for in steps of ``WAIT_SECONDS``, so that a signal's handler (Ctrl-C,
    SIGTERM) runs within them.  The helper is a daemon thread: a command that stops leaves it to
    end with the process."""
    if not _program or threading.current_thread() is not threading.main_thread():
        return call(*args)
    outcome = {}

    def target():
        try:
            outcome["value"] = call(*args)
        except BaseException as e:  # handed to the main thread, which raises it
            outcome["error"] = e

    helper = threading.Thread(target=target, name="coltsim-call", daemon=True)
    _calls.append(helper)
    helper.start()
    while helper.is_alive():
        helper.join(WAIT_SECONDS)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
