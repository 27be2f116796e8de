"""Networks as data: packing a trained network into the flat array the kernels read (net.py),
the table of one network per seat, and weights files with their provenance and hash.

Plain Python (no numba): settings are validated and seats resolved without compiling anything.
A weights file (``.npz``) holds ``net``, the flat ``float32`` network, and ``about``, a JSON text
saying what it is and how it was made (coltsim train's provenance: rules, seed, data, commit),
with ``sha256``, the hash of the network's bytes, and ``inputs``, the size of the encoding it
reads (encoding.N_INPUTS): a file made for another encoding is refused rather than misread.
"""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
import zlib
from pathlib import Path

import numpy as np

HEADER = 8  # n_in, h1, h2, n_out, mix[0..3] (net.py's layout)
MAX_HIDDEN = 256  # widest hidden layer a network may have
NET_FILE = Path(__file__).with_name("learned.npz")  # the shipped network
# Training's weight decay leaves the weights of units it turned off near float32's smallest
# normal number, 1.2e-38, and below (half the shipped network's second layer, 6% of its first):
# their products with numbers below 1 are subnormal, which a processor computes tens of times
# slower.  Read as 0, each (times a number below 100) would have added less than half the last
# bit of any sum above 1e-20, so the values are the same (tests/test_processors.py).
DEAD_WEIGHT = 1e-30


def pack(layers, mix, mean=None, scale=None) -> np.ndarray:
    """The flat network (net.py's layout) of ``layers`` (``[(W, b), ...]``: one to three weight
    matrices ``W`` of shape ``(inputs, outputs)`` and bias vectors ``b``, as scikit-learn's
    ``coefs_`` and ``intercepts_``; one alone is a linear model), with output mix ``mix``;
    inputs standardised as ``(x - mean) / scale`` in training are folded into the first
    layer."""
    if len(layers) not in (1, 2, 3):
        raise ValueError(f"a network has at most two hidden layers, got {len(layers) - 1}")
    layers = [(np.asarray(w, np.float64), np.asarray(b, np.float64)) for w, b in layers]
    if mean is not None:
        scale = np.where(np.asarray(scale) > 0, scale, 1.0)
        w1, b1 = layers[0]
        layers[0] = (w1 / scale[:, None], b1 - (np.asarray(mean) / scale) @ w1)
    n_in = layers[0][0].shape[0]
    h1 = layers[0][0].shape[1] if len(layers) > 1 else 0
    h2 = layers[1][0].shape[1] if len(layers) == 3 else 0
    n_out = layers[-1][0].shape[1]
    if max(h1, h2) > MAX_HIDDEN or n_out > HEADER - 4 or len(mix) != n_out:
        raise ValueError(f"hidden layers of at most {MAX_HIDDEN} units and at most "
                         f"{HEADER - 4} outputs, each with a mix coefficient")
    head = np.zeros(HEADER)
    head[:4] = n_in, h1, h2, n_out
    head[4:4 + n_out] = mix
    parts = [head]
    for w, b in layers:
        parts += [w.ravel(), b]
    return np.concatenate(parts).astype(np.float32)


def net_size(n_in: int, h1: int, h2: int, n_out: int) -> int:
    """Entries of a flat network of these sizes (``h1`` 0: a linear model)."""
    width = h2 or h1 or n_in
    return HEADER + n_in * h1 + h1 + (h1 * h2 + h2 if h2 else 0) + width * n_out + n_out


def table(rows, players: int) -> np.ndarray:
    """The ``float32[players, width]`` table of the networks ``rows`` (one per seat, None for a
    seat that needs none), padded with zeros.  Weights below ``DEAD_WEIGHT`` are read as 0
    (module docstring of net.py: why the values are the same)."""
    width = max([1] + [r.size for r in rows if r is not None])
    out = np.zeros((players, width), np.float32)
    for p, r in enumerate(rows):
        if r is not None:
            out[p, :r.size] = r
    out[np.abs(out) < DEAD_WEIGHT] = 0
    return out


def net_hash(net: np.ndarray) -> str:
    """The SHA-256 of a network's weights (its float32 bytes): what names it in a provenance."""
    return hashlib.sha256(np.ascontiguousarray(net, np.float32).tobytes()).hexdigest()


def _inputs() -> int:
    from .encoding import N_INPUTS  # (compiled code: loaded only when a file is read or written)

    return N_INPUTS


def net_bytes(net: np.ndarray, about: dict) -> bytes:
    """A weights file's bytes: the network and ``about`` (its provenance), with its hash."""
    about = {**about, "sha256": net_hash(net), "inputs": _inputs()}
    buf = io.BytesIO()
    np.savez(buf, net=np.asarray(net, np.float32), about=np.array(json.dumps(about, indent=1)))
    return buf.getvalue()


def save_net(path, net: np.ndarray, about: dict) -> None:
    """Write the weights file ``path`` (``net_bytes``) at once: a reader never sees half a
    file."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(net_bytes(net, about))
    tmp.replace(path)


def load_net(path) -> tuple[np.ndarray, dict]:
    """The network of the weights file ``path`` and what it says of itself; a file that is not
    one, was made for another encoding or does not match its hash is a ``ValueError`` naming
    it."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from None
    return read_net_bytes(data, path)


def read_net_bytes(data: bytes, where) -> tuple[np.ndarray, dict]:
    """``load_net`` of a weights file's bytes (``where`` names it in an error)."""
    path = where
    try:
        with np.load(io.BytesIO(data)) as d:
            net = d["net"].astype(np.float32)
            about = json.loads(str(d["about"]))
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        raise ValueError(f"{path}: damaged, or not a weights file of coltsim train "
                         f"({type(e).__name__}: {e}); make it again with coltsim train, or "
                         "name another") from None
    n_in = _inputs()
    if not isinstance(about, dict) or about.get("inputs") != n_in or net.size < HEADER \
            or int(net[0]) != n_in or net.size != net_size(*(int(v) for v in net[:4])):
        raise ValueError(f"{path}: made for another encoding of the position, or damaged "
                         f"(this coltsim reads {n_in} inputs)")
    if about.get("sha256") != net_hash(net):
        raise ValueError(f"{path}: the weights do not match their recorded hash")
    return net, about


_shipped: list = []


def shipped_net() -> np.ndarray | None:
    """The shipped network (``NET_FILE``), or None if there is none."""
    if not _shipped:
        _shipped.append(load_net(NET_FILE)[0] if NET_FILE.exists() else None)
    return _shipped[0]


__all__ = ["HEADER", "MAX_HIDDEN", "NET_FILE", "load_net", "net_bytes", "net_hash", "net_size",
           "pack", "read_net_bytes", "save_net", "shipped_net", "table"]
