"""The Parquet files the Go core writes from Python, which pyarrow writes
(macroscope._parquet): the extension carries no Parquet writer of its own.
The files are those of the Go program (test_cli_same compares the two
doors' tables); here, what the Go code asks of each file, and failures."""

import subprocess
import sys

import pyarrow.parquet as pq

import macroscope as ms
from macroscope import _parquet

from conftest import REPO

JACOBI = str(REPO / "testdata" / "jacobi32.trace")


def _dictionary_encoded(path):
    """{column: whether its first row group is dictionary-encoded}."""
    rg = pq.ParquetFile(path).metadata.row_group(0)
    return {rg.column(i).path_in_schema: any("DICTIONARY" in e for e in rg.column(i).encodings)
            for i in range(rg.num_columns)}


def test_synth_table_asks_no_dictionary_for_instants(tmp_path):
    """arrowio.WriteSynthParquet turns the dictionary off for the columns of
    instants (nearly all distinct), keeps it for the others; row groups of
    131,072 rows, Zstandard."""
    path = tmp_path / "s.parquet"
    info = ms.synth(path, sites=1, clusters=2, machines=2, cores=4, events=300_000, seed=2)
    f = pq.ParquetFile(path)
    assert f.metadata.num_rows == info["states"] > 2 * 131_072
    assert [f.metadata.row_group(i).num_rows for i in range(f.metadata.num_row_groups)] == \
        [131_072, 131_072, info["states"] - 2 * 131_072]
    encoded = _dictionary_encoded(path)
    assert {c for c, d in encoded.items() if not d} == {"start", "end", "start_ns", "end_ns"}
    assert encoded["state"] and encoded["resource"]
    assert f.metadata.row_group(0).column(0).compression == "ZSTD"
    assert b"ARROW:schema" in f.metadata.metadata  # the Arrow schema stored
    assert not _parquet._files  # every file closed


def test_dataset_files_are_closed_and_read_back(tmp_path):
    assert ms.to_parquet_dataset(JACOBI, tmp_path / "d") == str(tmp_path / "d")
    assert not _parquet._files
    states = pq.read_table(tmp_path / "d" / "states")
    assert states.num_rows == 10272


def test_a_file_that_cannot_be_written_fails_the_command(tmp_path):
    """A directory where the table goes: the command fails naming the
    file, as the Go program does, and exits (nothing waits for Python)."""
    (tmp_path / "out" / "aggregates.parquet").mkdir(parents=True)
    run = subprocess.run([sys.executable, "-m", "macroscope", "overview", JACOBI, "--out", "out"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1
    assert "macroscope overview: writing out/aggregates.parquet: " in run.stderr
    assert "Is a directory" in run.stderr
    assert (tmp_path / "out" / "overview.png").exists()
