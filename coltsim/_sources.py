"""Hashes of coltsim's compiled sources (plain Python: importing it loads no numba).

``source_hash()`` names the engine that produced a run (manifests record it): any change to a
module with compiled code, or to the constants they read, gives another engine.

``closure_hashes()`` keys coltsim's cache of compiled code module by module (_jit.py): a
module's compiled functions link the code of every coltsim module it imports, directly or not,
so its cache is fresh while none of those changed.  An edit to the planner recompiles the
planner and what calls it, not the engine.
"""
import hashlib
import re
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).parent
_CONSTANTS = ("constants.py", "rules.py", "catalog.py")  # frozen into compiled code


def _compiled_modules() -> list[Path]:
    return [path for path in sorted(ROOT.rglob("*.py"))
            if b"njit" in path.read_bytes() or path.name in _CONSTANTS]


def _contents(path: Path) -> bytes:
    """A module's source and the data it plays with: the file beside it of the same name with
    a ``.npz`` suffix (the learned policy's shipped network)."""
    data = path.with_suffix(".npz")
    return path.read_bytes() + (data.read_bytes() if data.is_file() else b"")


def source_hash() -> str:
    """Hash of every module with compiled code, of the data they play with and of the
    constants they read."""
    h = hashlib.sha1()
    for path in _compiled_modules():
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(_contents(path))
    return h.hexdigest()[:12]


_RELATIVE = re.compile(r"^from (\.+)([\w.]*) import (\([^)]*\)|[^\n]*)", re.M)


def _imports(path: Path) -> set:
    """The coltsim modules (files) that ``path`` imports with relative imports (coltsim's own
    modules import each other only so)."""
    out = set()
    for dots, module, names in _RELATIVE.findall(path.read_text()):
        base = path.parent
        for _ in range(len(dots) - 1):
            base = base.parent
        stem = base.joinpath(*module.split(".")) if module else base
        candidates = [stem.with_suffix(".py")]
        candidates += [stem / f"{name.split()[0]}.py"  # from . import actions as A
                       for name in names.strip("()").replace("\n", " ").split(",") if name.strip()]
        out.update(c for c in candidates if c.is_file() and c != path)
    return out


@lru_cache(maxsize=1)
def closure_hashes() -> dict:
    """For each module with compiled code (path relative to the package): a hash of its source
    and of every coltsim module it imports, directly or not."""
    graph, own = {}, {}
    todo = list(_compiled_modules())
    while todo:
        path = todo.pop()
        if path not in graph:
            own[path] = hashlib.sha1(_contents(path)).hexdigest()
            graph[path] = _imports(path)
            todo.extend(graph[path])
    out = {}
    for path in _compiled_modules():
        seen, stack = set(), [path]
        while stack:
            p = stack.pop()
            if p not in seen:
                seen.add(p)
                stack.extend(graph[p])
        digests = "".join(f"{p.relative_to(ROOT)}{own[p]}" for p in sorted(seen))
        out[str(path.relative_to(ROOT))] = hashlib.sha1(digests.encode()).hexdigest()[:12]
    return out
