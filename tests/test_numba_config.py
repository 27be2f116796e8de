"""coltsim leaves numba as it found it: no patched internals, no changed configuration."""
import json
import subprocess
import sys

_SCRIPT = """
import json, numba, numba.core.config as config
def snapshot():
    return {k: repr(getattr(config, k)) for k in dir(config) if k.isupper()}
before = snapshot()
from numba.core import lowering, callconv
from numba.core.runtime import context
methods = [lowering.Lower.lower_assign, lowering.Lower.storevar, lowering.Lower.delvar,
           callconv.CPUCallConv.return_status_propagate, context.NRTContext._call_incref_decref]
import coltsim, coltsim.playout, coltsim.policies
coltsim.simulate(coltsim.make_setting(4, policies="greedy"), 3, workers=1, backend="threading",
                 progress=False)
after = snapshot()
print(json.dumps({"changed": sorted(k for k in before if before[k] != after[k]),
                  "patched": sum(a is not b for a, b in zip(methods, [
                      lowering.Lower.lower_assign, lowering.Lower.storevar, lowering.Lower.delvar,
                      callconv.CPUCallConv.return_status_propagate,
                      context.NRTContext._call_incref_decref]))}))
"""


def test_importing_and_playing_leaves_numba_unchanged():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         check=True).stdout
    result = json.loads(out.splitlines()[-1])
    assert result == {"changed": [], "patched": 0}
