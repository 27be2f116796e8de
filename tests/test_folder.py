"""The one folder mechanism (coltsim.runs.folder), generically: what a run's results, a report
and a training rely on.  Identity and claiming, one writer, atomic files, files verified
against the manifest, one-line refusals, and the user's files left alone.  (Run folders and
report folders are tested as such in test_integrity.py.)"""
import json
import shutil
import signal
import subprocess
import sys
import warnings

import pytest

from coltsim.runs.folder import (
    MANIFEST, Folder, FolderError, RepairWarning, new_token, write_all,
)
from coltsim.runs.lock import FolderLocked, StaleLockWarning

CONFIG = {"seed": 3, "games": 50, "teacher": {"budget": 64}}


def one_line(error) -> str:
    text = str(error.value)
    assert "\n" not in text
    return text


def test_a_new_folder_is_claimed_and_resumed_with_its_files(tmp_path):
    with Folder(tmp_path / "t", "training", CONFIG) as f:
        f.write("iter-01/chunk-00000.npz", b"chunk zero")
        f.write_json("iter-01/weights.json", {"bias": 0.0})
    manifest = json.loads((tmp_path / "t" / MANIFEST).read_text())
    assert manifest["kind"] == "training" and manifest["identity"] == CONFIG
    assert sorted(manifest["files"]) == ["iter-01/chunk-00000.npz", "iter-01/weights.json"]
    with Folder(tmp_path / "t", "training", CONFIG) as f:
        assert f.names("iter-01/") == ["iter-01/chunk-00000.npz", "iter-01/weights.json"]
        assert f.verified("iter-01/chunk-00000.npz")
        assert f.read("iter-01/chunk-00000.npz") == b"chunk zero"
        assert f.read_json("iter-01/weights.json") == {"bias": 0.0}


def test_another_identity_or_kind_is_refused_in_one_line_naming_the_field(tmp_path):
    with Folder(tmp_path / "t", "training", CONFIG):
        pass
    other = {**CONFIG, "teacher": {"budget": 128}}
    with pytest.raises(FolderError) as e:
        with Folder(tmp_path / "t", "training", other):
            pass
    assert one_line(e) == (f"{tmp_path / 't' / MANIFEST} does not match this training: "
                           "teacher.budget is 64 there but 128 here; use a new folder, or the "
                           "same arguments to resume")
    with pytest.raises(FolderError, match="this folder holds a training of coltsim, not a "
                                          "report"):
        with Folder(tmp_path / "t", "report"):
            pass


def test_a_folder_claimed_only_once_the_work_runs_stays_free_after_a_failed_start(tmp_path):
    with pytest.raises(RuntimeError, match="the scheduler does not answer"):
        with Folder(tmp_path / "t", "training", CONFIG, claim=False) as f:
            raise RuntimeError("the scheduler does not answer")  # before f.claim()
    assert not (tmp_path / "t" / MANIFEST).exists()
    with Folder(tmp_path / "t", "training", {**CONFIG, "games": 60}, claim=False) as f:
        assert not f.claimed
        f.claim()
        f.write("a", b"1")
    assert json.loads((tmp_path / "t" / MANIFEST).read_text())["identity"]["games"] == 60


def test_a_folder_of_someone_elses_files_is_refused_and_untouched(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.md").write_text("mine")
    with pytest.raises(FolderError) as e:
        with Folder(tmp_path / "mine", "training", CONFIG):
            pass
    assert "holds files coltsim did not write (notes.md)" in one_line(e)
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.md"]
    (tmp_path / "afile").write_text("x")
    with pytest.raises(FolderError, match="is a file; give a folder for the training"):
        with Folder(tmp_path / "afile", "training"):
            pass


def test_a_second_writer_is_refused_in_one_line(tmp_path):
    with Folder(tmp_path / "t", "training", CONFIG):
        with pytest.raises(FolderLocked) as e:
            with Folder(tmp_path / "t", "training", CONFIG):
                pass
    assert "is being written by another coltsim run (process" in one_line(e)


@pytest.mark.parametrize("damage", ["truncated", "empty", "deleted", "another file copied over",
                                    "hand-edited"])
def test_a_damaged_file_is_named_in_one_line_or_made_again(tmp_path, damage):
    with Folder(tmp_path / "t", "training", CONFIG) as f:
        f.write("iter-01/chunk-00001.npz", b"the first chunk, long enough")
        f.write("iter-01/chunk-00002.npz", b"the second chunk, other bytes")
        f.write_json("iter-01/weights.json", {"bias": 0.0, "loot": 1.5})
    chunk = tmp_path / "t" / "iter-01" / "chunk-00002.npz"
    weights = tmp_path / "t" / "iter-01" / "weights.json"
    if damage == "truncated":
        chunk.write_bytes(chunk.read_bytes()[:7])
    elif damage == "empty":
        chunk.write_bytes(b"")
    elif damage == "deleted":
        chunk.unlink()
    elif damage == "another file copied over":
        chunk.write_bytes((tmp_path / "t" / "iter-01" / "chunk-00001.npz").read_bytes())
    else:
        weights.write_text("{}")
    path, name = (weights, "iter-01/weights.json") if damage == "hand-edited" else \
        (chunk, "iter-01/chunk-00002.npz")
    problem = f"{path}: missing" if damage == "deleted" else \
        f"{path}: damaged, its content differs from the manifest's record"
    with Folder(tmp_path / "t", "training", CONFIG) as f:
        with pytest.raises(FolderError) as e:
            f.read_json(name) if name.endswith(".json") else f.read(name)
        assert one_line(e) == problem
        with pytest.warns(RepairWarning, match=f"^{problem}; making it again$"):
            assert not f.verified(name)
        assert f.verified("iter-01/chunk-00001.npz")
        f.write(name, b"made again")
    with Folder(tmp_path / "t", "training", CONFIG) as f:
        assert f.read(name) == b"made again"


def test_stray_files_are_the_users_never_read_counted_or_removed(tmp_path):
    with Folder(tmp_path / "t", "training", CONFIG) as f:
        f.write("iter-01/chunk-00000.npz", b"zero")
    stray = tmp_path / "t" / "iter-01" / "chunk-00000.backup2.npz"
    stray.write_bytes(b"a copy the user made")
    (tmp_path / "t" / "notes.md").write_text("mine")
    (tmp_path / "t" / ".mine.tmp").write_text("not a writer's temporary")
    with Folder(tmp_path / "t", "training", CONFIG) as f:
        assert f.names() == ["iter-01/chunk-00000.npz"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert not f.verified("iter-01/chunk-00000.backup2.npz")  # not ours: no warning
        with pytest.raises(FolderError, match="not recorded in .*; coltsim did not write it"):
            f.read("iter-01/chunk-00000.backup2.npz")
        with pytest.raises(ValueError, match="coltsim removes only files it wrote"):
            f.remove("notes.md")
        f.remove("iter-01/chunk-00000.npz")
    assert stray.read_bytes() == b"a copy the user made"
    assert (tmp_path / "t" / "notes.md").read_text() == "mine"
    assert (tmp_path / "t" / ".mine.tmp").exists()
    assert not (tmp_path / "t" / "iter-01" / "chunk-00000.npz").exists()


def test_a_damaged_manifest_is_one_line_naming_it(tmp_path):
    with Folder(tmp_path / "t", "training", CONFIG) as f:
        f.write("a", b"1")
    path = tmp_path / "t" / MANIFEST
    path.write_text(path.read_text()[:40])
    with pytest.raises(FolderError) as e:
        with Folder(tmp_path / "t", "training", CONFIG):
            pass
    assert one_line(e).startswith(f"{path}: not a manifest this coltsim can read: not JSON (")


def test_a_dead_writers_temporaries_go_and_its_recorded_files_stay(tmp_path):
    """A writer killed while it writes: what its manifest recorded is whole and verified, what
    it wrote after the manifest's last write is not counted (the manifest is written at most
    every FLUSH_SECONDS), its temporaries are removed by the next writer."""
    folder = tmp_path / "t"
    code = ("import os, signal, sys\n"
            "from coltsim.runs.folder import Folder, write_temporary\n"
            f"with Folder({str(folder)!r}, 'training', {CONFIG!r}) as f:\n"
            "    f.write('iter-01/chunk-00000.npz', b'recorded: the manifest is written')\n"
            "    f.flush()\n"
            "    f.write('iter-01/chunk-00001.npz', b'written, not yet in the manifest')\n"
            "    write_temporary(f.path / 'iter-01' / 'chunk-00002.npz', b'half', f.token)\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n")
    assert subprocess.run([sys.executable, "-c", code]).returncode == -9
    assert len(list((folder / "iter-01").glob(".*.tmp"))) == 1
    with pytest.warns(StaleLockWarning):
        with Folder(folder, "training", CONFIG) as f:
            assert not list((folder / "iter-01").glob(".*.tmp"))
            assert f.names() == ["iter-01/chunk-00000.npz"]
            assert f.verified("iter-01/chunk-00000.npz")
            assert not f.verified("iter-01/chunk-00001.npz")


def test_write_all_replaces_the_recorded_files_and_keeps_the_users(tmp_path):
    folder = tmp_path / "r"
    folder.mkdir()
    write_all(folder, {"report.md": b"one", "figures/a.png": b"A", "tables/a.csv": b"a"},
              {"experiment": "x"}, new_token())
    for name in ("notes.md", "figures/my_poster.png", "tables/my_analysis.csv"):
        (folder / name).write_text("the user's")
    write_all(folder, {"report.md": b"two", "figures/b.png": b"B"}, {"experiment": "x"},
              new_token())
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) \
        == ["figures/b.png", "figures/my_poster.png", MANIFEST, "notes.md", "report.md",
            "tables/my_analysis.csv"]
    manifest = json.loads((folder / MANIFEST).read_text())
    assert manifest["experiment"] == "x" and sorted(manifest["files"]) == ["figures/b.png",
                                                                           "report.md"]


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs POSIX file size limits")
def test_write_all_on_a_full_disk_leaves_the_folder_as_it_was(tmp_path):
    """A write that fails part way (a file size limit: as a full disk, it fails in write)."""
    import resource

    folder = tmp_path / "r"
    folder.mkdir()
    write_all(folder, {"report.md": b"one"}, {}, new_token())
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (50, hard))
    try:
        with pytest.raises(OSError) as e:
            write_all(folder, {"report.md": b"two", "b.csv": b"b" * 100}, {}, new_token())
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert str(e.value) == (f"[Errno 27] File too large; nothing was written, the folder is as "
                            f"it was: '{folder / 'b.csv'}'")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


# --- all at once: a kill at any step of write_all, a folder where a file goes -----------------
OLD = {"report.md": "old report", "report.html": "old page", "figures/a.png": "old a",
       "tables/gone.csv": "only in the old"}
NEW = {"report.md": "new report", "report.html": "new page", "figures/a.png": "new a",
       "tables/b.csv": "only in the new"}
KIND = {"kind": "report", "identity": None}
USERS = {"notes.md": "mine", "figures/my_poster.png": "mine too"}
# Writes NEW into the folder argv[1] and dies (as kill -9: no handler, no finally) before the
# argv[2]-th change of a name in it (a rename or a removal); 0: never.
WRITER = f"""
import os, sys
from pathlib import Path
from coltsim.runs.folder import new_token, write_all

k, changes = int(sys.argv[2]), 0

def dies_at_change_k(change):
    def changing(*args, **kwargs):
        global changes
        changes += 1
        if changes == k:
            os._exit(9)
        return change(*args, **kwargs)
    return changing

for name in ("replace", "rename", "unlink", "rmdir"):
    setattr(os, name, dies_at_change_k(getattr(os, name)))
write_all(Path(sys.argv[1]), {{n: t.encode() for n, t in {NEW!r}.items()}}, {KIND!r},
          new_token())
"""


def visible(folder) -> dict:
    """The files a reader of the folder sees (none hidden: no temporary, no lock), with their
    text."""
    return {p.relative_to(folder).as_posix(): p.read_text() for p in sorted(folder.rglob("*"))
            if p.is_file() and not any(part.startswith(".")
                                        for part in p.relative_to(folder).parts)}


def hidden(folder) -> list:
    """What a writer leaves beside the files: temporaries, a switch half done (the lock is
    the folder's)."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob(".*") if p.name != ".lock")


def written(folder, files: dict):
    folder.mkdir(parents=True, exist_ok=True)
    write_all(folder, {n: t.encode() for n, t in files.items()}, KIND, new_token())
    return folder


def test_a_kill_at_any_step_of_writing_leaves_the_old_files_or_the_new(tmp_path):
    """The writer is killed before its first, second, ... change of a name, until it finishes;
    the next writer that opens the folder finds it (and leaves it) all old or all new, with no
    temporary left, and a kill before the new files were committed left the old ones untouched.
    The user's files stay throughout."""
    old = written(tmp_path / "old", OLD)
    for name, text in USERS.items():
        (old / name).write_text(text)
    new = written(tmp_path / "new", NEW)
    for name, text in USERS.items():
        (new / name).write_text(text)
    outcomes = []
    for k in range(1, 100):
        folder = tmp_path / f"kill-{k}"
        shutil.copytree(old, folder)
        status = subprocess.run([sys.executable, "-c", WRITER, str(folder), str(k)]).returncode
        assert status in (0, 9)
        before = visible(folder)
        with Folder(folder, "report"):  # the next writer
            pass
        after = visible(folder)
        assert after in (visible(old), visible(new)), (k, after)
        outcomes.append("old" if after == visible(old) else "new")
        if outcomes[-1] == "old":
            assert before == visible(old), k  # nothing was switched before the commit
        assert hidden(folder) == [], (k, hidden(folder))
        if status == 0:
            break
    assert status == 0 and (tmp_path / f"kill-{k}" / MANIFEST).read_bytes() == \
        (new / MANIFEST).read_bytes()
    # Old until one step commits the new files, new from that step on; every rename and
    # removal of the write was a step (a file renamed, one removed, the manifest, ...).
    assert outcomes == ["old"] * outcomes.index("new") + ["new"] * (k - outcomes.index("new"))
    assert k > len(NEW) + 2


@pytest.mark.parametrize("where", ["report.md", "figures"])
def test_a_folder_where_a_file_goes_or_a_file_where_a_folder_goes_is_refused(tmp_path, where):
    """Named in one line, before anything is written: the folder stays as it was."""
    folder = written(tmp_path / "r", OLD)
    path = folder / where
    shutil.rmtree(path) if path.is_dir() else path.unlink()
    path.mkdir() if where == "report.md" else path.write_text("mine")
    before = visible(folder)
    with pytest.raises(FolderError) as e:
        written(folder, NEW)
    text = one_line(e)
    assert text.startswith(f"{path} is a ") and ".tmp" not in text and "run again" in text
    assert visible(folder) == before and hidden(folder) == []
