"""What a coltsim process does about signals and about the process that started it.

- :func:`worker_started`: the initializer of a run's worker processes (joblib's loky workers,
  coltsim.runs.runner): a worker ignores Ctrl-C, which a terminal sends to every process of the
  group (the main process stops the workers), and exits within a fraction of a second once the
  main process is gone (killed with ``kill -9``, crashed): otherwise it would play on, and the
  semaphores and folders joblib keeps in ``/dev/shm`` would stay until it ends.  The workers
  start with Ctrl-C ignored already (:func:`workers_starting`), so that none is heard while
  Python starts in them, before their initializer runs.
- :data:`DONE`: set once a command has done its work (its files written, its last line about
  to be printed): a Ctrl-C or SIGTERM after that cannot change its exit status (coltsim.cli).
- :func:`interruptible`: in the ``coltsim`` program, a long call (a kernel: a search's game, a
  compile) run in a helper thread while the main thread waits for it in steps of 0.1 s, so that
  Ctrl-C or SIGTERM stops the command at once rather than when the kernel returns (compiled code
  never looks at signals); the process then ends, and the helper with it.  In your own Python
  (a notebook) the call is made as it is: an interrupt there would leave the helper playing on.
"""
from __future__ import annotations

import contextlib
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
PROGRAM = threading.Event()  # set by the coltsim program (coltsim.cli.program)


def worker_started(parent: int) -> None:
    """In a worker process started by ``parent``: ignore Ctrl-C, and exit as soon as
    ``parent`` is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="coltsim-watch-parent", daemon=True).start()


@contextlib.contextmanager
def workers_starting():
    """Around the start of a run's worker processes, in the main thread: Ctrl-C is ignored, so
    that they start ignoring it (an ignored signal stays ignored across fork and exec, and
    Python keeps it so), before their initializer (:func:`worker_started`) runs.  A Ctrl-C in
    these tenths of a second is not heard."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


_calls: list = []  # the helper threads of interruptible


def call_left_running() -> bool:
    """Whether a call of :func:`interruptible` is running: a command stopped then ends at once
    (coltsim.cli._stop)."""
    return any(t.is_alive() for t in _calls)


def interruptible(call, *args):
    """``call(*args)``; in the main thread of the coltsim program, run in a helper thread that
    the main thread waits for in steps of ``WAIT_SECONDS``, so that a signal's handler (Ctrl-C,
    SIGTERM) runs within them.  The helper is a daemon thread: a command that stops leaves it to
    end with the process."""
    if not PROGRAM.is_set() or threading.current_thread() is not threading.main_thread():
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
