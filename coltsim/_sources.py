"""The hash of coltsim's compiled sources (plain Python: importing it loads no numba).

It names the engine that produced a run (manifests record it) and keys coltsim's cache of
compiled code (_jit.py; the test suite's cache folder, tests/conftest.py).
"""
import hashlib
from pathlib import Path

ROOT = Path(__file__).parent


def source_hash() -> str:
    """Hash of every module with compiled code and of the constants they read."""
    h = hashlib.sha1()
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_bytes()
        if b"njit" in text or path.name in ("constants.py", "rules.py", "catalog.py"):
            h.update(str(path.relative_to(ROOT)).encode())
            h.update(text)
    return h.hexdigest()[:12]
