"""The Parquet files the Go core writes, written with pyarrow.

The extension module carries no Parquet writer of its own (arrow-go's
would double its build, and pyarrow is here anyway). Go code that writes a
Parquet file (a command of the command line, :func:`to_parquet_dataset`,
:func:`synth`) runs while Python polls it; each step of the file waits in
Go until a poll finds it and :func:`serve` does it: open the file with the
table's schema (Zstandard compression, dictionary encoding, the Arrow
schema stored, as the Go command line's writer does), write a batch as a
row group, close it, or remove it when the Go code gives up.
"""

from __future__ import annotations

import json
import os

import pyarrow.parquet as pq

from . import _bridge

#: The files being written, by the number Go gives them.
_files: dict[int, pq.ParquetWriter] = {}


def serve() -> None:
    """Do every step of a Parquet file that waits, and answer Go: with
    pyarrow's error if one failed (the Go code reports it, naming the
    file). Called between polls of a native Command or Work."""
    while True:
        request = _bridge.native.NextParquetRequest()
        op = request.Op()
        if not op:
            return
        failure = "interrupted"
        try:
            _do(request, op)
            failure = ""
        except Exception as e:  # noqa: BLE001 - handed to Go, which reports it
            failure = str(e) or type(e).__name__
        finally:
            request.Done(failure)


def _do(request, op: str) -> None:
    file = request.File()
    if op == "create":
        schema = _bridge.table(request.Export).schema
        plain = set(json.loads(request.NoDictionary()))
        dictionary = [f.name for f in schema if f.name not in plain] if plain else True
        _files[file] = pq.ParquetWriter(request.Path(), schema, compression="zstd",
                                        use_dictionary=dictionary, store_schema=True)
    elif op == "write":
        _files[file].write_table(_bridge.table(request.Export))
    elif op == "close":
        _files.pop(file).close()
    elif op == "abort":
        writer = _files.pop(file, None)
        if writer is not None:
            try:
                writer.close()
            finally:
                try:
                    os.remove(request.Path())
                except FileNotFoundError:
                    pass
    else:
        raise ValueError(f"unknown Parquet request {op!r}")
