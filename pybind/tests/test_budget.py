"""Impossible requests refused before work: synthetic traces, models and
reads measured against a memory budget (memory_budget=)."""

import subprocess
import sys
import time

import pytest

import macroscope as ms
from conftest import REPO

JACOBI = REPO / "testdata" / "jacobi32.trace"


def test_synth_of_a_million_sites_is_refused_at_once(tmp_path):
    path = tmp_path / "huge.trace"
    began = time.monotonic()
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.synth(path, sites=1_000_000, memory_budget=1 << 30)
    err = info.value
    assert err.param == "cores"
    # 256,000,000 cores x 24 bytes + 8 MiB for the Pajé writer.
    assert ("a synthetic Pajé trace of 256000000 cores (1000000 sites x 4 clusters x 8 machines x 8 cores) needs "
            "about 5.73 GiB of memory, more than the memory budget of 1 GiB") in str(err)
    assert not path.exists()
    assert time.monotonic() - began < 5  # refused, not attempted (it used to abort after 40 s)
    # Parquet's writer needs twice as much per core: 48 bytes + 192 MiB.
    with pytest.raises(ms.InvalidArgumentError, match="a synthetic Parquet trace of 256000000 cores .* needs about 11.6 GiB"):
        ms.synth(tmp_path / "huge.parquet", sites=1_000_000, memory_budget=8 << 30)


# A child that limits its own address space (as ulimit -v does), then asks
# for a synthetic trace with the default budget: half of what the limit
# leaves. It prints the outcome; a Go runtime that ran out of address
# space would abort the interpreter instead (exit 134, no output).
_LIMITED_CHILD = r"""
import resource, sys
import macroscope as ms
size = 0
for line in open("/proc/self/status"):
    if line.startswith("VmSize:"):
        size = int(line.split()[1]) * 1024
room = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (size + room, size + room))
try:
    info = ms.synth(sys.argv[1], sites=1, clusters=1, machines=int(sys.argv[3]), cores=1000, events=1)
    print("WROTE", info["cores"])
except ms.InvalidArgumentError as e:
    print("REFUSED", e)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_synth_under_an_address_space_limit(tmp_path):
    """Under ulimit -v, a request the default budget lets through completes
    and one past it is refused, naming the estimate and the budget: neither
    aborts the interpreter."""
    room = 512 << 20  # the budget: half of it, less what the process maps meanwhile
    for machines, want in ((1000, "WROTE 1000000"), (20_000, "REFUSED")):
        # 1,000,000 cores: about 30.9 MiB estimated; 20,000,000: 466 MiB.
        p = subprocess.run([sys.executable, "-c", _LIMITED_CHILD, str(tmp_path / "t.trace"), str(room), str(machines)],
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, (machines, p.returncode, p.stderr[-2000:])
        assert p.stdout.startswith(want), (machines, p.stdout, p.stderr[-2000:])
        if want == "REFUSED":
            assert "a synthetic Pajé trace of 20000000 cores" in p.stdout
            assert "needs about 466 MiB of memory, more than the memory budget of" in p.stdout


def test_synth_budget_argument(tmp_path):
    info = ms.synth(tmp_path / "small.trace", sites=1, clusters=1, machines=1, cores=2, events=10,
                    memory_budget=0)  # no limit
    assert info["cores"] == 2
    for bad in (-1, 1.5, True, "1G"):
        with pytest.raises(ms.InvalidArgumentError, match="memory_budget"):
            ms.synth(tmp_path / "x.trace", memory_budget=bad)


def test_model_over_budget_is_refused(jacobi):
    # jacobi32: 32 resources x 10 states; 100 slices: 32,000 values, of which
    # the model keeps those that are not zero (12 bytes each, 8 a cell).
    need = jacobi.micro(slices=100).nbytes
    assert need < 32 * 100 * 10 * 8
    model = jacobi.micro(slices=100, memory_budget=need)
    assert (model.resources, len(model.states), model.nbytes) == (32, 10, need)
    with pytest.raises(ms.InvalidArgumentError) as info:
        jacobi.micro(slices=100, memory_budget=need - 1)
    assert info.value.param == "slices"
    assert "a model of 32 resources x 100 slices x 10 states needs about" in str(info.value)
    with pytest.raises(ms.InvalidArgumentError, match="32 resources x 100 slices x 10 states"):
        ms.read_micro(JACOBI, slices=100, memory_budget=1000)


def test_read_over_budget_stops_cleanly(jacobi):
    # 10,272 states of 40 bytes and more: a 200 kB budget is outgrown.
    with pytest.raises(ms.InvalidArgumentError) as info:
        ms.read(JACOBI, memory_budget=200_000)
    err = info.value
    assert err.param == "memory_budget"
    assert "the trace read into memory outgrew the memory budget of 195 KiB" in str(err)
    assert "ms.read_micro(path" in str(err)
    # The same through read_paje, and a budget it fits in.
    with pytest.raises(ms.InvalidArgumentError, match="outgrew the memory budget"):
        ms.read_paje(JACOBI, memory_budget=200_000)
    trace = ms.read(JACOBI, memory_budget=64 << 20)
    assert len(trace.states) == len(jacobi.states) == 10272
    # The streaming path the error advises works under the same budget.
    model = ms.read_micro(JACOBI, slices=20, memory_budget=200_000)
    assert model.resources == 32
