"""Reading trace files: one function per format, and one that finds the
format."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

from . import _reading
from ._trace import Trace

# The options of each reader, as the keyword arguments of read() spell them.
_OPTIONS = {
    "paje": ("strict", "ignore_incomplete_links"),
    "otf2": (),
    "chrome": (),
    "paraver": ("view",),
    "pjdump": ("skip_inverted",),
}

FORMATS = tuple(_OPTIONS)


def read(path: str | os.PathLike, format: str | None = None, *, progress=None, **options) -> Trace:
    """Read a trace of any format Macroscope knows, found by ``format`` or
    else by the file's extension or first bytes:

    ``"paje"``      Pajé (PajeNG, SimGrid, StarPU, Akypuera): :func:`read_paje`
    ``"otf2"``      OTF2 archive (Score-P): :func:`read_otf2`
    ``"chrome"``    Chrome/Perfetto trace-event JSON (PyTorch): :func:`read_chrome`
    ``"paraver"``   Paraver .prv (Extrae): :func:`read_paraver`
    ``"pjdump"``    pj_dump CSV, or a StarVZ directory: :func:`read_pjdump`

    ``options`` are those of the format's reader (``strict``, ``view``,
    ``skip_inverted``...); an option of another format is an error.

    ``progress``: None (default) shows a tqdm bar if tqdm is installed and
    the read lasts over a second; True always shows one (tqdm required);
    False shows nothing; a callable is called as ``progress(done, total)``
    in bytes (total 0 if unknown) about ten times a second. Interrupting
    the read (Ctrl-C, Jupyter's stop button) stops the reader too.

    Raises :class:`TraceFormatError` (with ``file``, ``line`` or ``offset``
    and ``cause``) on malformed input, :class:`TraceNotFoundError` if the
    file does not exist and :class:`InvalidArgumentError` for an unknown
    format or option.
    """
    known = {name for names in _OPTIONS.values() for name in names}
    for name in options:
        if name not in known:
            raise TypeError(f"read() got an unexpected keyword argument {name!r}")
    return _read(path, format, options, progress)


def read_paje(path: str | os.PathLike | Sequence[str | os.PathLike], *, strict: bool = False,
              ignore_incomplete_links: bool = False, progress=None) -> Trace:
    """Read a Pajé trace (SimGrid, StarPU, PajeNG, Akypuera...) with the
    semantics of PajeNG, the reference implementation. ``path`` may be a
    list of files read one after the other as one trace (a header file and
    per-process files, for instance).

    ``strict=True`` reads exactly as pj_dump (PajeNG 1.3.6) does: it
    refuses the field names of the original Pajé dialect and SimGrid's
    habits before 2012 that PajeNG refuses, and rounds variable values to
    single precision; :meth:`Trace.to_pjdump` then prints what pj_dump
    prints, byte for byte. ``ignore_incomplete_links=True`` drops links
    that never get both ends instead of failing. ``progress``: see
    :func:`read`.
    """
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not paths:
        from ._errors import InvalidArgumentError

        raise InvalidArgumentError("path: no file given", param="path")
    options = {"strict": strict, "ignore_incomplete_links": ignore_incomplete_links}
    if len(paths) > 1:
        options["paths"] = [os.fspath(p) for p in paths[1:]]
    return _read(paths[0], "paje", options, progress)


def read_otf2(path: str | os.PathLike, *, progress=None) -> Trace:
    """Read an OTF2 archive (Score-P): its anchor file ``traces.otf2`` or
    the directory holding it. Regions become states, metrics variables, MPI
    messages links (with their size in bytes) and the other records events.
    No OTF2 library is needed. ``progress``: see :func:`read`."""
    return _read(path, "otf2", {}, progress)


def read_chrome(path: str | os.PathLike, *, progress=None) -> Trace:
    """Read a Chrome/Perfetto trace-event JSON file, plain or gzipped (the
    PyTorch profiler's, PerfFlowAspect's...): processes hold threads,
    slices become nested states, counters variables, flows links and
    instants events. ``progress``: see :func:`read`."""
    return _read(path, "chrome", {}, progress)


def read_paraver(path: str | os.PathLike, *, view: str = "thread", progress=None) -> Trace:
    """Read a Paraver trace (``.prv`` or ``.prv.gz``, Extrae, Dimemas), named
    after the ``.pcf`` and ``.row`` files beside it. ``view="thread"`` places
    records on application > task > thread, ``view="cpu"`` on node > CPU.
    ``progress``: see :func:`read`."""
    return _read(path, "paraver", {"view": view}, progress)


def read_pjdump(path: str | os.PathLike, *, skip_inverted: bool = False, progress=None) -> Trace:
    """Read pj_dump's CSV output, pj_dump_csv's split files, or a StarVZ
    directory (``paje.*.csv.gz`` and ``entities.csv``), rebuilding the trace
    they describe.

    Rows that end before they start are an error, unless
    ``skip_inverted=True``: they are then skipped with a warning naming
    them (StarVZ's dumps hold a few). ``progress``: see :func:`read`."""
    return _read(path, "pjdump", {"skip_inverted": skip_inverted}, progress)


def _read(path, format, options, progress) -> Trace:
    options = dict(options)
    if format is not None:
        options["format"] = format
    trace = Trace(_reading.run(path, options, progress))
    for message in trace._summary.get("warnings") or ():
        warnings.warn(message, UserWarning, stacklevel=3)
    return trace
