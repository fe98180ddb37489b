"""Hostile inputs and absurd arguments, in this process (the corruption
suite reads damaged files in fresh processes): files a trace is made of
that lead outside the directory named or are not files, figures of absurd
sizes, errors that quote at most an excerpt."""

import os
import pathlib

import pytest

import macroscope as ms

REPO = pathlib.Path(__file__).resolve().parents[2]
TRACE = REPO / "testdata" / "jacobi32.trace"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return ms.to_parquet_dataset(ms.read(TRACE), tmp_path_factory.mktemp("ds") / "ds")


def _copy(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_dataset_part_linked_outside(dataset, tmp_path):
    """A Parquet dataset's part that is a symbolic link leading out of the
    directory named is not read: the error names the part."""
    ds = _copy(dataset, tmp_path / "ds")
    part = next((ds / "states").rglob("*.parquet"))
    secret = tmp_path / "secret.parquet"
    part.rename(secret)
    part.symlink_to(secret)
    with pytest.raises(ms.TraceFormatError, match="outside the directory") as e:
        ms.read(ds)
    assert e.value.file == str(part)


def test_dataset_part_fifo(dataset, tmp_path):
    """A FIFO in place of a part, or of the marker, is refused at once."""
    ds = _copy(dataset, tmp_path / "ds")
    part = next((ds / "states").rglob("*.parquet"))
    part.unlink()
    os.mkfifo(part)
    with pytest.raises(ms.TraceFormatError, match="not a regular file"):
        ms.read(ds)
    marker = ds / "_macroscope_dataset.json"
    marker.unlink()
    os.mkfifo(marker)
    with pytest.raises(ms.TraceFormatError, match="not a regular file"):
        ms.read(ds)


def test_dataset_part_damaged(dataset, tmp_path):
    """A damaged part is the package's error naming it, not pyarrow's."""
    ds = _copy(dataset, tmp_path / "ds")
    part = next((ds / "states").rglob("*.parquet"))
    part.write_bytes(part.read_bytes()[:100])
    with pytest.raises(ms.TraceFormatError) as e:
        ms.read(ds)
    assert str(ds) in e.value.file
