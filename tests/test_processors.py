"""Every processor plays the same games: a cluster of mixed machines gives the results one
machine gives (the learned value is summed in a fixed order, without fastmath: net.py); and
the dead weights a table of networks reads as 0, for speed, change no value."""
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


def test_dead_weights_are_read_as_zero_and_change_no_value():
    from coltsim.policies.encoding import ENCODE_W, N_INPUTS
    from coltsim.policies.net import net_values
    from coltsim.policies.weights import DEAD_WEIGHT, HEADER, shipped_net, table

    net = shipped_net().copy()
    n_in, a, b = (int(v) for v in net[:3])
    w2 = HEADER + n_in * a + a  # the second layer's weights, as training's weight decay leaves
    net[w2:w2 + a * b:3] = np.float32(3e-40)  # a third of them subnormal,
    net[w2 + 1:w2 + a * b:3] = np.float32(-2e-35)  # a third just above float32's smallest normal
    row = table([None, net], 2)[1]
    assert row.size == net.size and not ((row != 0) & (np.abs(row) < DEAD_WEIGHT)).any()
    assert (row == np.where(np.abs(net) < DEAD_WEIGHT, 0, net)).all()
    rng = np.random.default_rng(11)
    enc = np.zeros((200, ENCODE_W))
    enc[:, :N_INPUTS] = rng.normal(size=(200, N_INPUTS)) * (rng.random((200, N_INPUTS)) < 0.2)
    stored, read = np.zeros(200), np.zeros(200)
    net_values(net, enc, 200, stored)
    net_values(row, enc, 200, read)
    assert len(set(stored)) > 150 and stored.tobytes() == read.tobytes()
