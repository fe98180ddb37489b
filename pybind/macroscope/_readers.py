"""Reading trace files into memory: one function per format, and one that
finds the format.

The formats and the options of their readers are the Go registry's
(:mod:`macroscope._formats`): this module builds ``read_<format>`` for
each, so a format added in Go is readable here without a line of Python
(``python -m macroscope._stubgen`` writes their signatures into the
package's type stub).
"""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Sequence

from . import _bridge, _dataset, _reading
from ._errors import InvalidArgumentError
from ._formats import DESCRIPTIONS, check_options, function_name
from ._reading import Progress
from ._trace import Trace


def read(path: str | os.PathLike | Sequence[str | os.PathLike], format: str | None = None, *,
         progress: Progress = None,
         memory_budget: int | None = None, **options) -> Trace:
    """Read a trace of any format Macroscope knows (:data:`FORMATS`,
    :func:`formats`), found by ``format`` or else by the file's extension,
    its first bytes (compressed files are looked into: gzip, bzip2, zstd)
    or, for a directory, the files it holds.

    ``options`` are those of the format's reader (``view``,
    ``skip_inverted``, ``sort``...); an option of another format is an error.
    What a reader skipped or tolerated is in ``trace.warnings`` (and is
    warned about).

    ``strict`` (every reader takes it; default False): a trace whose input
    is cut or misses a part is returned marked incomplete
    (``trace.complete`` is False, the reasons first in ``trace.warnings``,
    and every view of it says so in its repr and figure title); with
    ``strict=True`` it raises :class:`TraceFormatError` naming the file and
    the reasons instead. For Pajé it also reads as pj_dump does (see
    :func:`read_paje`), for rocprof's CSV it fails on unreadable rows.

    ``progress``: None (default) shows a tqdm bar if tqdm is installed, the
    read lasts over a second and someone watches (a notebook, or standard
    error on a terminal: not a pipe or a log); True always shows one (tqdm required);
    False shows nothing; a callable is called as ``progress(done, total)``
    in bytes (total 0 if unknown) about ten times a second. Interrupting
    the read (Ctrl-C, Jupyter's stop button) stops the reader too.

    ``memory_budget`` bounds the memory of the trace held (bytes; default
    None: half of the memory available when the read starts; 0: no
    limit): the trace is weighed as it is read, and one that outgrows it
    stops the read with :class:`InvalidArgumentError` giving the estimate
    and the advice to build the model while reading
    (:func:`read_micro`, :func:`moments`), which holds the model, not the
    trace, instead of the process being killed for want of memory.

    A directory written by :func:`macroscope.to_parquet_dataset` is read
    back from its states.

    A list of paths is several traces read as one trace, each under a
    container of type "Run" named after its file, at the top of the
    hierarchy (as :func:`macroscope.read_micro` reads a list): the ranks'
    Kineto files of a PyTorch job, say, whose analyses (stragglers over
    the ranks' steps, flat profile, critical path) then span the job; a
    list of Pajé files is one Pajé trace split in files. So is a directory
    that no format reads as a whole but that holds at least two trace
    files of one format (its files, by name; other files are left out).

    Raises :class:`TraceFormatError` (with ``file``, ``line`` or ``offset``
    and ``cause``) on malformed input, :class:`TraceNotFoundError` if the
    file does not exist and :class:`InvalidArgumentError` for an unknown
    format or option.

    >>> trace = ms.read("testdata/jacobi32.trace")
    >>> trace.format, len(trace.states), trace.complete
    ('paje', 10272, True)
    >>> trace.states[["container", "value", "start", "end"]].head(2)
                  container      value  start  end
    0  alpha/alpha-0/rank-0  PMPI_Init    0.0  0.0
    1  alpha/alpha-1/rank-1  PMPI_Init    0.0  0.0
    """
    check_options("read", options)
    if format is None and not options and isinstance(path, (str, os.PathLike)) and _dataset.is_dataset(path):
        return _dataset.read_dataset(path)
    return _read(path, format, options, progress, memory_budget)


def _read(path, format, options, progress, memory_budget=None) -> Trace:
    options = {k: (os.fspath(v) if isinstance(v, os.PathLike) else v) for k, v in options.items()}
    if format is not None:
        options["format"] = format
    path = _reading.inputs(path, options)
    budget = _bridge.memory_budget(memory_budget)
    if budget is not None:
        options["memory_budget"] = budget
    trace = Trace(_reading.run(path, options, progress))
    for message in trace._summary.get("warnings") or ():
        warnings.warn(message, UserWarning, stacklevel=3)
    return trace


def _reader(d):
    """``read_<format>`` for the format described by d: its options are
    keyword arguments with the reader's defaults."""
    name = d["name"]
    opts = d["options"] or ()

    def reader(path, *, progress=None, memory_budget=None, **options):
        check_options(function_name(name), options, name)
        given = {k: v for k, v in options.items() if v is not None}
        return _read(path, name, given, progress, memory_budget)

    params = [inspect.Parameter("path", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for o in opts:
        params.append(inspect.Parameter(o["name"], inspect.Parameter.KEYWORD_ONLY, default=o.get("default")))
    params.append(inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=None))
    params.append(inspect.Parameter("memory_budget", inspect.Parameter.KEYWORD_ONLY, default=None))
    reader.__signature__ = inspect.Signature(params, return_annotation=Trace)
    reader.__name__ = reader.__qualname__ = function_name(name)
    lines = [f"Read a trace in the {name} format: {d['summary']}.", ""]
    if d["extensions"]:
        lines.append("Files ending in " + ", ".join(d["extensions"]) + " (plain or compressed with gzip, bzip2 or zstd).")
    if d["directory"]:
        lines.append("A directory holding such a trace is read whole.")
    if opts:
        lines += ["", "Options:"]
        lines += [f"``{o['name']}`` ({o['kind']}, default {o.get('default')!r}): {o['doc']}" for o in opts]
    lines += ["", "``progress``, ``memory_budget``: see :func:`read`. Raises as :func:`read` does."]
    reader.__doc__ = "\n".join(lines)
    return reader


def read_paje(path: str | os.PathLike | Sequence[str | os.PathLike], *, strict: bool = False,
              ignore_incomplete_links: bool = False, sort: bool = False, time_unit: str = "auto",
              max_decompressed: int | None = None, progress: Progress = None,
              memory_budget: int | None = None) -> Trace:
    """Read a Pajé trace (SimGrid, StarPU, PajeNG, Akypuera...) with the
    semantics of PajeNG, the reference implementation. ``path`` may be a
    list of files read one after the other as one trace (a header file and
    per-process files, for instance).

    ``strict=True`` reads exactly as pj_dump (PajeNG 1.3.6) does: it
    refuses the field names of the original Pajé dialect and SimGrid's
    habits before 2012 that PajeNG refuses, and rounds variable values to
    single precision; :meth:`Trace.to_pjdump` then prints what pj_dump
    prints, byte for byte. ``ignore_incomplete_links=True`` drops links
    that never get both ends instead of failing. ``sort=True`` reads a
    trace whose events are not in time order (StarPU's raw FxT
    conversions, NGSolve's traces), sorting them on disk in bounded memory.
    ``time_unit`` ("s", "ms", "us", "ns") is the unit of the dates; "auto"
    reads seconds except for StarPU's and NGSolve's traces, whose dates are
    milliseconds (and for
    ``strict=True``, which takes every date for seconds as pj_dump does).
    ``strict=True``
    also fails on an incomplete trace (a cut last line), as every reader
    does (see :func:`read`). Compressed files
    (gzip, bzip2, zstd) may expand to ``max_decompressed`` bytes (default
    64 GiB; 0: no limit). ``progress``, ``memory_budget``: see :func:`read`.
    """
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not paths:
        raise InvalidArgumentError("path: no file given", param="path")
    options = {"strict": strict, "ignore_incomplete_links": ignore_incomplete_links, "sort": sort,
               "time_unit": time_unit}
    if max_decompressed is not None:
        options["max_decompressed"] = max_decompressed
    if len(paths) > 1:
        options["paths"] = [os.fspath(p) for p in paths[1:]]
    return _read(paths[0], "paje", options, progress, memory_budget)


#: The read_<format> functions built from the registry's descriptions, by
#: function name: every format's but Pajé's, written above to take a list of
#: files.
GENERATED = {function_name(name): _reader(d) for name, d in DESCRIPTIONS.items() if name != "paje"}

#: read_<format> for every format of the registry, by function name.
READERS = {function_name(name): read_paje if name == "paje" else GENERATED[function_name(name)]
           for name in DESCRIPTIONS}
