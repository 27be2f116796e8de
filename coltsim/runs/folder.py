"""The one folder mechanism: a folder coltsim writes, resumes and verifies.

A run's results (coltsim.runs.storage), a report (coltsim.study.folder) and a training
(coltsim.learn) are folders with the same guarantees, kept here once:

- **Identity.**  ``FOLDER/manifest.json`` says what the folder holds: its ``kind`` and its
  ``identity`` (what a writer must agree with to write there: a training's configuration, a
  run's versions).  A new folder, or one empty but for its lock, is *claimed* by writing the
  manifest; a folder whose manifest names another kind or identity is refused in one line
  naming the first field that differs; a folder holding files but no manifest is someone
  else's and is refused.  A writer may claim only once it knows its work will run
  (``Folder(..., claim=False)``, then :meth:`Folder.claim`): a failed start leaves a new folder
  unclaimed, so the next writer is not refused as "another configuration".
- **One writer.**  The folder's lock (``.lock``, coltsim.runs.lock) is held from ``with`` to
  its end: a second writer stops with one line naming the first (:class:`FolderLocked`).
- **Atomic files.**  Every file is written under a temporary name of its writer
  (``.NAME.TOKEN.tmp``, :func:`new_token`), then renamed: it is whole or absent.  The manifest
  is written the same way, after the files it records.  A writer's temporaries are removed when
  it ends, however it ends; those of a writer that died are removed by the next one.
- **Many files at once** (:func:`write_all`, a report's files and its manifest): the new files
  are written whole into a folder of the writer's own (``.new.TOKEN.tmp``), which one rename
  makes the folder's switch (``.switch``): that rename is the moment the new files replace the
  old.  Then each is renamed into place, the old files the new manifest does not list are
  removed, and the manifest comes last.  A writer killed before the switch leaves the old files
  untouched (its folder is a temporary); one killed after it leaves the switch, which the next
  writer that opens the folder (:func:`recover`, under the lock, before anything else) finishes.
  So the folder holds the old files or the new ones, never a mix, once a writer has opened it;
  until then a file read directly may be of either.  A folder where a file goes (or a file where
  a folder goes) is refused in one line naming it before anything is written.
- **Verified files.**  The manifest records every file written through the folder (its bytes
  and SHA-256: :func:`file_record`).  Reading one back verifies it (:meth:`Folder.read`,
  :meth:`Folder.read_json`): a file missing, damaged or edited is a :class:`FolderError` of one
  line naming it.  A file that can be made again is asked for with :meth:`Folder.verified`,
  which says False for a file not recorded, missing or damaged (the last two with a
  :class:`RepairWarning` naming it, its record dropped), so that the writer makes it again.
- **The user's files stay.**  coltsim removes or replaces only files its manifest lists
  (:meth:`Folder.remove`, :func:`write_all`); any other file in the folder or its
  sub-folders (``notes.md``, ``figures/my_poster.png``, a stray ``chunk-00000.backup2.npz``)
  is the user's: never read, never counted, never removed.

The API, as a training would use it (files under sub-folders are named by their relative
path, ``/``-separated)::

    from coltsim.runs.folder import Folder

    with Folder(path, "training", identity=config.as_dict(), claim=False) as f:
        ...                                   # check that the configuration runs, then
        f.claim()                             # writes manifest.json: the folder is ours
        name = "iter-01/chunk-00002.npz"
        if not f.verified(name):              # recorded and whole? else (re)make it
            f.write(name, npz_bytes)          # atomic, recorded with its SHA-256
        data = f.read(name)                   # verified bytes, or FolderError
        f.write_json("iter-01/weights.json", {"weights": ...})
        weights = f.read_json("iter-01/weights.json")
        f.names("iter-01/")                   # the recorded files under iter-01/, sorted

``write`` records the file and writes the manifest at most every ``FLUSH_SECONDS`` (and when the
``with`` ends, however it ends), so that thousands of small chunks do not rewrite it thousands
of times; :meth:`Folder.flush` writes it now.  Files written by other processes (a run's
workers) are written with :func:`write_whole` under the writer's :attr:`Folder.token` and
recorded by the writer with :meth:`Folder.record`.

The manifest of a generic folder is::

    {"kind": "training", "identity": {...}, "files": {"iter-01/chunk-00002.npz":
     {"bytes": 81234, "sha256": "..."}, ...}, ...}

plus whatever sections its kind adds (:attr:`Folder.manifest` is a dict; a kind with a layout
of its own, the run folder, overrides :meth:`Folder.check_manifest`, :meth:`Folder.identity_problem`
and :meth:`Folder.manifest_text`).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import time
import warnings
from pathlib import Path

from .lock import LOCK, FolderLocked, folder_lock
from .options import check_folder

MANIFEST = "manifest.json"
SWITCH = ".switch"  # the new files of a write_all, committed, until each is in place
FLUSH_SECONDS = 1.0  # the least time between two writes of the manifest by one writer
# A writer's temporary file (or folder): ".NAME.TOKEN.tmp", TOKEN its process id and a random
# part (hex).
TEMPORARY = re.compile(r"^\..+\.[0-9a-f]+(-[0-9a-f]+)?\.tmp$")

__all__ = ["FLUSH_SECONDS", "MANIFEST", "SWITCH", "Folder", "FolderError", "FolderLocked",
           "RepairWarning", "file_problem", "file_record", "first_difference", "foreign_files",
           "mismatch", "new_token", "read_json_file", "recorded_files", "recover",
           "refuse_foreign", "remove_files", "remove_temporaries", "write_all", "write_temporary",
           "write_whole"]


class FolderError(ValueError):
    """A folder coltsim cannot use as it is: someone else's, of another kind or identity, a
    manifest it cannot read, a file missing or damaged.  The message is one line naming the
    folder or the file and what to do.  (Another writer holding the folder is
    :class:`FolderLocked`.)"""


class RepairWarning(UserWarning):
    """A writer found a file of its folder missing or damaged and makes it again."""


# --- files ------------------------------------------------------------------------------------
def new_token() -> str:
    """A name for one writer's temporary files: its process and a random part."""
    return f"{os.getpid():x}-{secrets.token_hex(4)}"


def write_temporary(path: Path, data: bytes, token: str) -> Path:
    """Write ``data`` beside ``path`` under a temporary name of writer ``token`` and return that
    name.  A write that fails (a full disk) leaves no temporary and raises an ``OSError`` naming
    ``path``."""
    tmp = path.with_name(f".{path.name}.{token}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise
    return tmp


def write_whole(path: Path, data: bytes, token: str) -> None:
    """Write ``path`` so that it exists whole or not at all (a temporary of writer ``token``,
    then a rename)."""
    tmp = write_temporary(path, data, token)
    try:
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _temporaries(folder: Path, token: str | None):
    """The temporaries (files, and the folders :func:`write_all` fills) in ``folder`` and its
    sub-folders, of writer ``token`` (None: of any writer), leaving out sub-folders that are
    folders of their own (a report's ``data/``) and the switch."""
    for entry in os.scandir(folder):
        if TEMPORARY.match(entry.name):
            if token is None or entry.name.endswith(f".{token}.tmp"):
                yield Path(entry.path)
        elif entry.is_dir(follow_symlinks=False) and entry.name != SWITCH \
                and not os.path.exists(os.path.join(entry.path, MANIFEST)) \
                and not os.path.exists(os.path.join(entry.path, LOCK)):
            yield from _temporaries(Path(entry.path), token)


def remove_temporaries(folder: Path, token: str | None = None) -> None:
    """Remove the temporaries of writer ``token`` (default: of every writer) from ``folder``
    and its sub-folders (not from a sub-folder that is a folder of its own)."""
    with contextlib.suppress(FileNotFoundError):
        for tmp in list(_temporaries(Path(folder), token)):
            if tmp.is_dir() and not tmp.is_symlink():
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                tmp.unlink(missing_ok=True)


def recover(folder: Path) -> None:
    """What a writer does first, holding the folder's lock: finish the switch of a writer that
    died after committing its files (:func:`write_all`), then remove every writer's
    temporaries."""
    _finish_switch(Path(folder))
    remove_temporaries(folder)


def remove_files(folder: Path, names) -> None:
    """Remove the recorded files ``names`` from ``folder`` (a name outside it, which only an
    edited manifest gives, is left alone), and the sub-folders that held them once empty."""
    for name in names:
        if not _inside(folder, name):
            continue
        path = folder / name
        path.unlink(missing_ok=True)
        for parent in path.relative_to(folder).parents[:-1]:
            with contextlib.suppress(OSError):  # (a folder that holds other files stays)
                (folder / parent).rmdir()


def file_record(data: bytes) -> dict:
    """What a manifest records of a file's content: its size and SHA-256."""
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def file_problem(path: Path, record: dict, where: str = "") -> tuple[str | None, bytes | None]:
    """``(None, the file's bytes)`` when ``path`` is what ``record`` (:func:`file_record`)
    says, else what is wrong with it in words naming it: missing, unreadable, or damaged (its
    size or SHA-256 differs).  ``where`` says, in brackets, what the file is."""
    where = f" ({where})" if where else ""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return f"{path}: missing{where}", None
    except OSError as e:
        return f"{path}: cannot be read{where}: {e.strerror}", None
    if len(data) != record.get("bytes") or hashlib.sha256(data).hexdigest() != record.get("sha256"):
        return f"{path}: damaged, its content differs from the manifest's record{where}", None
    return None, data


def read_json_file(path: Path, what: str = "a manifest", error=None):
    """The JSON value in ``path`` (None when there is no such file); a file that is not UTF-8,
    not JSON or nested too deeply is an ``error`` (default :class:`FolderError`) of one line
    naming it."""
    error = error or FolderError
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise error(f"{path}: not {what} this coltsim can read: not UTF-8 text") from None
    except OSError as e:
        raise error(f"{path}: cannot be read: {e.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"{path}: not {what} this coltsim can read: not JSON ({e})") from None
    except RecursionError:
        raise error(f"{path}: not {what} this coltsim can read: nested too deeply") from None


def first_difference(old, new, prefix: str = ""):
    """``(field, old value, new value)`` of the first field where two JSON values differ (a
    dotted path), None when they are equal."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            if old.get(key) != new.get(key):
                return first_difference(old.get(key), new.get(key), f"{prefix}{key}.")
        return None
    return (prefix.rstrip("."), old, new) if old != new else None


# --- the folder -------------------------------------------------------------------------------
class Folder:
    """A folder opened by one writer: ``with Folder(path, kind, identity) as folder`` (module
    docstring).

    Parameters
    ----------
    path : path
        The folder; created if needed.
    kind : str
        What it holds, in words ("training"): recorded in the manifest, and named by refusals.
    identity : dict, optional
        JSON values a writer must agree with (a training's configuration).  A claimed folder
        of another identity is refused, naming the first field that differs.
    claim : bool
        Claim a new folder at once (default) or only when :meth:`claim` is called.
    """

    Error = FolderError  # the class of its refusals (a kind may name its own)

    def __init__(self, path, kind: str, identity: dict | None = None, *, claim: bool = True):
        self.path = check_folder(path)
        self.kind = kind
        self.identity = json.loads(json.dumps(identity)) if identity is not None else None
        self.token = new_token()  # names this writer's temporaries
        self.manifest: dict | None = None  # None until claimed
        self._claim_now = claim
        self._stack = contextlib.ExitStack()
        self._dirty = False
        self._written = 0.0
        self._write_seconds = 0.0

    # --- opening ---
    def __enter__(self):
        path = self.path
        if path.exists() and not path.is_dir():
            raise self.Error(f"{path} is a file; give a folder for the {self.kind}")
        path.mkdir(parents=True, exist_ok=True)
        self.refuse_foreign()  # before the lock: no file of ours in a folder that is not
        with self._stack as stack:
            stack.enter_context(folder_lock(path))
            recover(path)
            self.refuse_foreign()
            self.manifest = self.load_manifest()
            stack.callback(remove_temporaries, path, self.token)
            stack.callback(self.flush)
            self._stack = stack.pop_all()
        if self.manifest is None and self._claim_now:
            self.claim()
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def refuse_foreign(self) -> None:
        """A folder without a manifest must be empty but for its lock and temporaries."""
        if not (self.path / MANIFEST).exists():
            refuse_foreign(self.path, self.Error)

    def load_manifest(self) -> dict | None:
        """The folder's manifest, read and checked (None: the folder is not claimed yet)."""
        manifest = read_json_file(self.path / MANIFEST, error=self.Error)
        if manifest is None:
            return None
        manifest = self.check_manifest(manifest)
        problem = self.identity_problem(manifest)
        if problem:
            raise self.Error(problem)
        return manifest

    def check_manifest(self, manifest) -> dict:
        """The manifest read, checked: a :class:`FolderError` when it is not one of this kind
        coltsim can read."""
        where = self.path / MANIFEST
        if not isinstance(manifest, dict) or not isinstance(manifest.get("files", {}), dict):
            raise FolderError(f"{where}: not a manifest this coltsim can read")
        if manifest.get("kind") != self.kind:
            raise FolderError(f"{where}: this folder holds a {manifest.get('kind') or 'folder'} "
                              f"of coltsim, not a {self.kind}; choose another folder")
        for name, record in manifest.get("files", {}).items():
            if not isinstance(record, dict) or not isinstance(record.get("sha256"), str) \
                    or not isinstance(record.get("bytes"), int):
                raise FolderError(f"{where}: not a manifest this coltsim can read: the record "
                                  f"of {name} needs bytes and sha256")
        manifest.setdefault("files", {})
        return manifest

    def identity_problem(self, manifest: dict) -> str | None:
        """Why a claimed folder is not this writer's (None: it is)."""
        if self.identity is None:
            return None
        diff = first_difference(manifest.get("identity"), self.identity)
        if diff is None:
            return None
        field, was, now = diff
        return mismatch(self.path, self.kind, field, was, now)

    def claim(self) -> None:
        """Make the folder this writer's: write its manifest (nothing if it has one)."""
        if self.manifest is None:
            self.manifest = {"kind": self.kind, "identity": self.identity, "files": {}}
            self.changed(flush=True)

    @property
    def claimed(self) -> bool:
        return self.manifest is not None

    # --- files ---
    def _file(self, name: str) -> Path:
        if not _inside(self.path, name):
            raise ValueError(f"{name!r} is not a file name inside the folder")
        return self.path / name

    def names(self, prefix: str = "") -> list[str]:
        """The files the manifest records whose name starts with ``prefix``, sorted."""
        return sorted(n for n in self._files() if n.startswith(prefix))

    def _files(self) -> dict:
        if self.manifest is None:
            return {}
        return self.manifest.setdefault("files", {})

    def write(self, name: str, data: bytes) -> None:
        """Write file ``name`` (whole or not at all) and record it."""
        if self.manifest is None:
            raise RuntimeError(f"{self.path}: claim the folder before writing into it")
        path = self._file(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, data, self.token)
        self.record(name, file_record(data))

    def write_json(self, name: str, value) -> None:
        """Write ``value`` as the JSON file ``name`` (indented, keys sorted: stable bytes)."""
        self.write(name, (json.dumps(value, indent=1, sort_keys=True) + "\n").encode())

    def record(self, name: str, record: dict) -> None:
        """Record file ``name``, written by another process (:func:`write_whole` under
        :attr:`token`), with its :func:`file_record`."""
        self._file(name)
        self._files()[name] = record
        self.changed()

    def changed(self, flush: bool = False) -> None:
        """The manifest changed: write it now if ``flush`` or if it was last written
        ``FLUSH_SECONDS`` ago (or ten times what writing it took), else when the writer ends."""
        self._dirty = True
        if flush or time.monotonic() - self._written >= max(FLUSH_SECONDS,
                                                            10 * self._write_seconds):
            self.flush()

    def read(self, name: str) -> bytes:
        """The bytes of recorded file ``name``, verified; a :class:`FolderError` of one line
        naming it when it is not recorded, missing or damaged."""
        record = self._files().get(name)
        if record is None:
            raise self.Error(f"{self.path / name}: not recorded in {self.path / MANIFEST}; "
                              f"coltsim did not write it")
        problem, data = file_problem(self._file(name), record)
        if problem:
            raise self.Error(problem)
        return data

    def read_json(self, name: str):
        """The JSON value of recorded file ``name``, verified (:meth:`read`)."""
        return json.loads(self.read(name))

    def verified(self, name: str) -> bool:
        """Whether file ``name`` is recorded and whole.  A recorded file missing or damaged is
        said with a :class:`RepairWarning` and its record dropped: the writer makes it again."""
        record = self._files().get(name)
        if record is None:
            return False
        problem, _ = file_problem(self._file(name), record)
        if problem:
            warnings.warn(f"{problem}; making it again", RepairWarning, stacklevel=2)
            self.forget(name)
            return False
        return True

    def forget(self, name: str) -> None:
        """Drop the record of file ``name`` (the file, if any, stays)."""
        if self._files().pop(name, None) is not None:
            self.changed()

    def remove(self, name: str) -> None:
        """Remove recorded file ``name`` and its record (a file not recorded is the user's:
        a ``ValueError``)."""
        if name not in self._files():
            raise ValueError(f"{self.path / name} is not recorded in the manifest: coltsim "
                             "removes only files it wrote")
        self._file(name).unlink(missing_ok=True)
        self.forget(name)

    # --- the manifest ---
    def manifest_text(self, manifest: dict) -> str:
        return json.dumps(manifest, indent=1) + "\n"

    def flush(self) -> None:
        """Write the manifest now if it changed."""
        if not self._dirty or self.manifest is None:
            return
        start = time.monotonic()
        write_whole(self.path / MANIFEST, self.manifest_text(self.manifest).encode(), self.token)
        self._dirty = False
        self._written = time.monotonic()
        self._write_seconds = self._written - start


def refuse_foreign(path: Path, error=None) -> None:
    """Refuse (an ``error``, default :class:`FolderError`, of one line) a folder holding files
    other than a lock and temporaries: a folder without a manifest of coltsim is someone
    else's."""
    others = foreign_files(path)
    if others:
        raise (error or FolderError)(
            f"{path} holds files coltsim did not write ({', '.join(others[:3])}"
            f"{', ...' if others[3:] else ''}) and no {MANIFEST} of coltsim; choose a new or "
            "empty folder")


def foreign_files(path: Path) -> list[str]:
    """The names in folder ``path`` other than its lock, its switch and temporaries, sorted."""
    return sorted(p.name for p in path.iterdir()
                  if p.name not in (LOCK, SWITCH) and not TEMPORARY.match(p.name))


def recorded_files(manifest) -> dict:
    """The files a manifest records (name -> record; none for a manifest that lists none)."""
    files = manifest.get("files") if isinstance(manifest, dict) else None
    return files if isinstance(files, dict) else {}


def write_all(path: Path, files: dict, manifest: dict, token: str, text=None) -> dict:
    """Replace the recorded files of the folder ``path`` by ``files`` (name -> bytes) and its
    manifest by ``manifest`` with their records (``"files"``), at once; returns that manifest.

    The files and the manifest (as ``text(manifest)``, default indented JSON) are written whole
    into ``.new.TOKEN.tmp`` (writer ``token``), which one rename makes the folder's switch; then
    the switch is finished (each file renamed into place, the files the previous manifest
    recorded that ``files`` has not removed, and nothing else: a file coltsim did not record
    stays; the manifest last).  A writer killed at any step leaves the old files or, once the
    switch is made, the new ones for the next writer (:func:`recover`): the module docstring.

    A folder where one of the files goes (or a file where one of its folders goes) is a
    :class:`FolderError` naming it, and a file that cannot be written (a full disk) an
    ``OSError`` naming it; both leave the folder as it was."""
    text = text or (lambda m: json.dumps(m, indent=1) + "\n")
    _finish_switch(path)  # (a writer that opened the folder has finished it already)
    manifest = {**manifest, "files": {name: file_record(files[name]) for name in sorted(files)}}
    new = {**files, MANIFEST: text(manifest).encode()}
    for name in new:
        _refuse_in_the_way(path, name)
    staged = path / f".new.{token}.tmp"
    try:
        for name, data in new.items():
            try:
                (staged / name).parent.mkdir(parents=True, exist_ok=True)
                (staged / name).write_bytes(data)
            except OSError as e:
                raise OSError(e.errno, f"{e.strerror}; nothing was written, the folder is as "
                                       "it was", str(path / name)) from None
        os.replace(staged, path / SWITCH)  # the one step: from here on, the new files
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    _finish_switch(path)
    return manifest


def _refuse_in_the_way(path: Path, name: str) -> None:
    """A folder where file ``name`` goes, or a file where one of its folders goes, is not
    coltsim's to remove: a :class:`FolderError` naming it."""
    parts = Path(name).parts
    for i in range(1, len(parts)):
        folder = path.joinpath(*parts[:i])
        if folder.exists() and not folder.is_dir():
            raise FolderError(f"{folder} is a file where coltsim writes the folder {folder.name}/"
                              f" (for {name}); move the file away, then run again")
    if (path / name).is_dir():
        raise FolderError(f"{path / name} is a folder where coltsim writes its file {name}; "
                          "move the folder away, then run again")


def _finish_switch(path: Path) -> None:
    """Put the files of the folder's switch in place (the manifest last, after removing the
    files the old one records and the new one does not), then remove the switch.  Each step can
    be done again: a writer killed here leaves the rest to the next one."""
    switch = path / SWITCH
    if not switch.is_dir():
        return
    new_manifest = switch / MANIFEST
    names = sorted(p.relative_to(switch).as_posix() for p in switch.rglob("*")
                   if p.is_file() and p != new_manifest)
    try:
        for name in names:
            _refuse_in_the_way(path, name)
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(switch / name, path / name)
        if new_manifest.is_file():
            listed = recorded_files(read_json_file(new_manifest))
            remove_files(path, [n for n in recorded_files(_previous_manifest(path))
                                if n not in listed])
            os.replace(new_manifest, path / MANIFEST)
    except OSError as e:
        raise OSError(e.errno, f"{e.strerror}; the new files are committed in {switch}: run "
                               "again to put them in place", e.filename) from None
    shutil.rmtree(switch)


def _previous_manifest(path: Path):
    """The manifest in place (None if it cannot be read: it lists nothing to remove)."""
    try:
        return read_json_file(path / MANIFEST)
    except FolderError:
        return None


def _inside(path: Path, name: str) -> bool:
    """Whether the recorded ``name`` is a file inside ``path`` (an edited manifest could name
    any file)."""
    return isinstance(name, str) and not name.startswith("/") and ".." not in Path(name).parts \
        and name not in ("", MANIFEST, LOCK)


def mismatch(path: Path, kind: str, field: str, was, now) -> str:
    """The refusal of a folder that holds another ``kind`` of work: one line naming the field."""
    return (f"{path / MANIFEST} does not match this {kind}: {field} is {was!r} there but "
            f"{now!r} here; use a new folder, or the same arguments to resume")
