"""The LU-700 trace (lu700.sh), generated once and kept under the hash of
its generators, for the test (pybind/tests/test_lu700_paper.py) and the
notebook (notebooks/papers/lu700.ipynb) alike: 90 MB (15 MB compressed),
too large to bundle, about a minute of computation to write.

    trace_path(cache_dir) -> path of cache_dir/lu700-<hash>.trace.gz
"""

import hashlib
import os
import pathlib
import shutil
import subprocess

GEN = pathlib.Path(__file__).resolve().parent
GENERATORS = ["lu.c", "lu_case.py", "simgrid_platform.py", "lu700.sh", "regroup.py"]


class NoSimGrid(RuntimeError):
    """SimGrid's smpicc is not installed, and the trace is not cached."""


def key() -> str:
    """The hash of the generators: a change of any of them writes a new trace."""
    return hashlib.sha256(b"".join((GEN / f).read_bytes() for f in GENERATORS)).hexdigest()[:16]


def trace_path(cache_dir) -> pathlib.Path:
    """The trace, from cache_dir when its generators have not changed,
    else generated there first (niced: the simulation takes a core)."""
    cache_dir = pathlib.Path(cache_dir)
    path = cache_dir / f"lu700-{key()}.trace.gz"
    if path.exists():
        return path
    if not shutil.which("smpicc"):
        raise NoSimGrid("SimGrid's smpicc is not installed (Debian: libsimgrid-dev): LU-700 is generated")
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".part{os.getpid()}")
    subprocess.run(["nice", "sh", str(GEN / "lu700.sh"), str(tmp)], check=True, capture_output=True)
    os.replace(tmp, path)
    return path
