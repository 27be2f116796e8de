"""Every processor plays the same games: a cluster of mixed machines gives the results one
machine gives (the learned value is summed in a fixed order, without fastmath: net.py)."""
import os
import subprocess
import sys

import numpy as np

_SCRIPT = """
import numpy as np
from coltsim.policies.encoding import ENCODE_W, N_INPUTS
from coltsim.policies.net import net_values
from coltsim.policies.weights import shipped_net
rng = np.random.default_rng(7)
enc = np.zeros((40, ENCODE_W))
enc[:, :N_INPUTS] = rng.normal(size=(40, N_INPUTS)) * (rng.random((40, N_INPUTS)) < 0.3)
values = np.zeros(40)
net_values(shipped_net(), enc, 40, values)
print(values.tobytes().hex())
"""


def _values(cpu_name, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env.pop("NUMBA_CPU_NAME", None)
    if cpu_name:
        env["NUMBA_CPU_NAME"] = cpu_name
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         env=env, check=True).stdout
    return out.split()[-1]


def test_learned_values_are_the_same_bits_on_every_processor(tmp_path):
    host = _values(None, tmp_path / "host")
    generic = _values("generic", tmp_path / "generic")
    assert len(set(np.frombuffer(bytes.fromhex(host)))) > 30  # real, distinct values
    assert host == generic
