"""The explorers' time axis (js/src/_ticks.js roundTicks): ticks at round
values, 1, 2 or 5 times a power of ten apart, labelled in one unit. Runs the
module's own function under node; skips where node is absent (the bundle
is committed, so CI needs no node)."""

import json
import pathlib
import shutil
import subprocess

import pytest

TICKS = pathlib.Path(__file__).resolve().parents[2] / "js" / "src" / "_ticks.js"


def round_ticks(t0, t1, n):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the JS module's own tests need it")
    script = (f"import({json.dumps(TICKS.as_uri())}).then(m => {{ const r = m.roundTicks({t0}, {t1}, {n}); "
              "console.log(JSON.stringify({unit: r.unit, labels: r.ticks.map(t => (t / r.scale).toFixed(r.digits))})); })")
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


@pytest.mark.parametrize("t0, t1, n, unit, labels", [
    (0, 8.5038, 8, "s", ["0", "2", "4", "6", "8"]),
    (0, 0.299986, 10, "ms", ["0", "50", "100", "150", "200", "250"]),
    (0, 1.2, 6, "s", ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0", "1.2"]),
    (0.0013, 0.0019, 5, "ms", ["1.4", "1.6", "1.8"]),
    (0, 2e-7, 4, "ns", ["0", "50", "100", "150", "200"]),
])
def test_round_ticks_in_one_unit(t0, t1, n, unit, labels):
    assert round_ticks(t0, t1, n) == {"unit": unit, "labels": labels}
