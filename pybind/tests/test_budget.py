"""Impossible requests refused before work: synthetic traces, models and
reads measured against a memory budget (memory_budget=)."""

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
    # 256,000,000 cores x 32 bytes + 160 MiB of writers' buffers.
    assert ("a synthetic trace of 256000000 cores (1000000 sites x 4 clusters x 8 machines x 8 cores) needs "
            "about 7.79 GiB of memory, more than the memory budget of 1 GiB") in str(err)
    assert not path.exists()
    assert time.monotonic() - began < 5  # refused, not attempted (it used to abort after 40 s)


def test_synth_budget_argument(tmp_path):
    info = ms.synth(tmp_path / "small.trace", sites=1, clusters=1, machines=1, cores=2, events=10,
                    memory_budget=0)  # no limit
    assert info["cores"] == 2
    for bad in (-1, 1.5, True, "1G"):
        with pytest.raises(ms.InvalidArgumentError, match="memory_budget"):
            ms.synth(tmp_path / "x.trace", memory_budget=bad)


def test_model_over_budget_is_refused(jacobi):
    # jacobi32: 32 resources x 10 states; 100 slices: 32,000 cells of 16 bytes.
    model = jacobi.micro(slices=100, memory_budget=32 * 100 * 10 * 16)
    assert (model.resources, len(model.states)) == (32, 10)
    with pytest.raises(ms.InvalidArgumentError) as info:
        jacobi.micro(slices=100, memory_budget=32 * 100 * 10 * 16 - 1)
    assert info.value.param == "slices"
    assert "a model of 32 resources x 100 slices x 10 states needs about 500 KiB of memory" in str(info.value)
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
