"""Exceptions raised by macroscope.

Errors from the Go core arrive as RuntimeError messages carrying a JSON
description; :func:`from_native` turns them into these classes, which keep
the file, line and cause as attributes.
"""

from __future__ import annotations

import errno
import json

_PREFIX = "macroscope-error:"


class MacroscopeError(Exception):
    """Base class of every error macroscope raises."""


class TraceFormatError(MacroscopeError, ValueError):
    """A trace file is malformed, truncated or inconsistent.

    Attributes: ``file``, ``line`` (1-based, or None), ``offset`` (byte
    offset, or None) and ``cause``.
    """

    def __init__(self, message, file=None, line=None, offset=None, cause=None):
        super().__init__(message)
        self.file, self.line, self.offset, self.cause = file, line, offset, cause


class InvalidArgumentError(MacroscopeError, ValueError):
    """A parameter has a value that cannot be used. ``param`` names it."""

    def __init__(self, message, param=None, cause=None):
        super().__init__(message)
        self.param, self.cause = param, cause


class EmptyTraceError(MacroscopeError, ValueError):
    """The trace holds nothing for what was asked: a model of states of a
    trace without states (none written, or every record skipped, as the
    reading's warnings say), or an analysis of a trace outside its scope
    (POP or the critical path of a trace without MPI calls). No argument is
    at fault; ``file`` names the trace when known."""

    def __init__(self, message, file=None):
        super().__init__(message)
        self.file = file


class TraceNotFoundError(MacroscopeError, FileNotFoundError):
    """A trace file does not exist."""


class InternalError(MacroscopeError, RuntimeError):
    """A bug in macroscope: please report it with ``details``."""

    def __init__(self, message, details=None):
        super().__init__(message)
        self.details = details


def from_native(exc: RuntimeError) -> Exception:
    """Translate a RuntimeError raised by the native module."""
    text = str(exc)
    if not text.startswith(_PREFIX):
        return InternalError(text)
    try:
        info = json.loads(text[len(_PREFIX):])
    except ValueError:
        return InternalError(text)
    kind, message = info.get("kind"), info.get("message", "")
    if kind == "format":
        return TraceFormatError(message, file=info.get("file"), line=info.get("line"),
                                offset=info.get("offset"), cause=info.get("cause"))
    if kind == "argument":
        return InvalidArgumentError(message, param=info.get("param"), cause=info.get("cause"))
    if kind == "empty":
        return EmptyTraceError(message, file=info.get("file"))
    if kind == "not_found":
        return TraceNotFoundError(errno.ENOENT, info.get("cause") or message, info.get("file"))
    if kind == "internal":
        return InternalError(message, details=info.get("cause"))
    return MacroscopeError(message)
