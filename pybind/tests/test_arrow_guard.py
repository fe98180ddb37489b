"""A pyarrow that unpickles what a Parquet or Arrow file holds
(CVE-2023-47248, pyarrow 0.14 to 14.0.0) is refused before a file is read."""

import sys

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

import macroscope as ms
from macroscope import _arrow_guard


@pytest.mark.parametrize("version, unsafe", [
    ("0.14.0", True), ("13.0.0", True), ("14.0.0", True), ("14.0.1", False), ("15.0.0.dev12", False), ("26.0.1", False)])
def test_versions(version, unsafe, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow_hotfix", None)  # not installed
    assert _arrow_guard.unsafe(version) is unsafe


def test_hotfix_makes_it_safe(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow_hotfix", object())
    assert not _arrow_guard.unsafe("14.0.0")


@pytest.mark.parametrize("name", ["t.parquet", "t.feather", "t.arrow"])
def test_read_table_refused_with_an_unsafe_pyarrow(tmp_path, monkeypatch, name):
    path = tmp_path / name
    table = pa.table({"resource": ["r"], "start": [0], "end": [1], "state": ["s"]})
    (pq.write_table if name.endswith(".parquet") else feather.write_feather)(table, path)
    assert ms.read_table(path, end="end") is not None  # this pyarrow: read
    monkeypatch.setattr(pa, "__version__", "14.0.0")
    monkeypatch.setitem(sys.modules, "pyarrow_hotfix", None)
    with pytest.raises(ms.MacroscopeError, match=r"t\.\w+: not read: pyarrow 14\.0\.0 .*CVE-2023-47248"):
        ms.read_table(path, end="end")


def test_dataset_refused_with_an_unsafe_pyarrow(tmp_path, monkeypatch):
    table = pa.table({"resource": ["r", "r"], "start": [0, 2], "end": [1, 3], "state": ["s", "t"]})
    out = tmp_path / "ds"
    ms.to_parquet_dataset(ms.from_pandas(table, end="end"), out)
    monkeypatch.setattr(pa, "__version__", "13.0.0")
    monkeypatch.setitem(sys.modules, "pyarrow_hotfix", None)
    with pytest.raises(ms.MacroscopeError, match="CVE-2023-47248"):
        ms.read(out)
