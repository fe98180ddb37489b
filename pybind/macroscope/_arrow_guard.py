"""Refuses Parquet and Arrow IPC files to a pyarrow that runs code they
hold: pyarrow 0.14 to 14.0.0 unpickle the Python objects of a column of
extension type ``arrow.py_extension_type`` when they read it
(CVE-2023-47248), so a crafted file runs any code its author wrote.
pyproject.toml asks for 14.0.1; this catches an older pyarrow installed
beside the package (``pip install --no-deps``, a system pyarrow)."""

from __future__ import annotations

import re

import pyarrow as pa

from ._errors import MacroscopeError

FIXED = (14, 0, 1)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def unsafe(version: str | None = None) -> bool:
    """Whether this pyarrow (or the version given) unpickles what a file
    holds."""
    if _version(version or pa.__version__) >= FIXED:
        return False
    # pyarrow_hotfix, the Arrow project's fix for older releases, removes
    # the extension type that unpickles.
    try:
        import pyarrow_hotfix  # noqa: F401
    except ImportError:
        return True
    return False


def check(path) -> None:
    """Raises MacroscopeError, naming path, when this pyarrow would run
    code a Parquet or Arrow file holds."""
    if unsafe():
        raise MacroscopeError(
            f"{path}: not read: pyarrow {pa.__version__} runs Python code that a Parquet or Arrow file may hold "
            f"(CVE-2023-47248); install pyarrow 14.0.1 or later (pip install -U pyarrow), or pyarrow-hotfix")
