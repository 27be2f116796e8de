"""The ``coltsim`` program's entry point (pyproject's ``[project.scripts]``).

Its first statement makes Ctrl-C and SIGTERM one line and the documented exit status (130,
143) while the program loads (coltsim.cli and the standard library it imports): nothing has
started then, so there is nothing to stop but the process.  ``coltsim.cli.program`` then
installs the handlers of a running command.  Only the interpreter's own start (before any code
of coltsim runs: a few hundredths of a second) is left to Python.
"""
import os
import signal


def _stop_loading(signum, frame):
    os.write(2, b"coltsim: interrupted\n" if signum == signal.SIGINT
             else b"coltsim: terminated\n")
    os._exit(130 if signum == signal.SIGINT else 143)


def program() -> None:
    signal.signal(signal.SIGINT, _stop_loading)
    signal.signal(signal.SIGTERM, _stop_loading)
    from .cli import program as run_command

    run_command()
