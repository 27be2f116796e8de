"""One writer per folder: a run holds ``FOLDER/.lock`` from start to end.

The lock is an ``flock`` on the file (the kernel releases it when its process dies, however it
dies), and the file names its owner while it is held: process id, host, start time, and the
process's start time by the kernel (to tell a process id that was reused).  The file is emptied
when the run ends.  So a second run into the folder finds the lock held and stops with one line
naming the first; a run that finds the lock free but the file still naming an owner knows that
owner died without ending: when that process is gone from this host the lock is stale and is
taken over (with a :class:`StaleLockWarning`); a lock of another host cannot be checked and is
refused, saying which file to delete if that run has stopped.  Without ``flock`` (another OS, a
file system without it) the file's contents alone decide.
"""
from __future__ import annotations

import contextlib
import json
import os
import socket
import warnings
from datetime import datetime, timezone
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None

LOCK = ".lock"


class FolderLocked(ValueError):
    """Another coltsim run is writing the folder (or left a lock this host cannot check); the
    message is one line naming it."""


class StaleLockWarning(UserWarning):
    """The lock of a run that died was taken over."""


def _process_start(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot; Linux), to tell a reused pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _owner_text(owner: dict | None) -> str:
    if owner is None:  # it holds the lock but has not written its name yet (or just ended)
        return f"it is starting or ending: {LOCK} does not name it yet"
    return (f"process {owner.get('pid')} on host {owner.get('host')}, started "
            f"{owner.get('started')}")


def _read_owner(f) -> dict | None:
    f.seek(0)
    text = f.read()
    if not text.strip():
        return None
    try:
        owner = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        owner = None
    return owner if isinstance(owner, dict) else {"pid": "?", "host": "?", "started": "?"}


def _is_alive(owner: dict) -> bool | None:
    """Whether the owner of a lock still runs: None when it cannot be told (another host)."""
    if owner.get("host") != socket.gethostname() or not isinstance(owner.get("pid"), int):
        return None
    try:
        os.kill(owner["pid"], 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process
    except OSError:
        return None
    start = owner.get("process_start")
    return start is None or _process_start(owner["pid"]) in (None, start)


@contextlib.contextmanager
def folder_lock(folder: Path):
    """Hold ``folder/.lock`` while writing ``folder``: one writer per folder.

    Raises :class:`FolderLocked` (one line naming the owner) when another run holds it or when
    a lock of another host is left in it; takes over a stale lock (its process is gone) with a
    :class:`StaleLockWarning`."""
    path = folder / LOCK
    with os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o644), "r+", encoding="utf-8") as f:
        try:
            if fcntl is not None:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = _read_owner(f)
            raise FolderLocked(f"{folder} is being written by another coltsim run "
                               f"({_owner_text(owner)}); wait for it to finish, or write to "
                               "another folder") from None
        except OSError:
            pass  # a file system without flock: the contents below still tell
        owner = _read_owner(f)
        if owner is not None:
            alive = _is_alive(owner)
            if alive is None:
                raise FolderLocked(f"{path}: held by {_owner_text(owner)}, which this host "
                                   f"cannot check; if that run has stopped, delete {path}")
            if alive:
                raise FolderLocked(f"{folder} is being written by another coltsim run "
                                   f"({_owner_text(owner)}); wait for it to finish, or write "
                                   "to another folder")
            warnings.warn(f"{folder}: a previous run ({_owner_text(owner)}) stopped without "
                          "finishing; its lock is taken over", StaleLockWarning)
        me = {"pid": os.getpid(), "host": socket.gethostname(),
              "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "process_start": _process_start(os.getpid())}
        f.seek(0)
        f.truncate()
        f.write(json.dumps(me) + "\n")
        f.flush()
        try:
            yield
        finally:
            f.seek(0)
            f.truncate()
            f.flush()
