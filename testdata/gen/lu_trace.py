"""The LU-700 trace (lu700.sh), generated once and kept under the hash of
its generators, for the test (pybind/tests/test_lu700_paper.py) and the
notebook (notebooks/papers/lu700.ipynb) alike: 90 MB (15 MB compressed),
too large to bundle, about 80 s of CPU time to write (GENERATION_TIME).

    trace_path(cache_dir) -> path of cache_dir/lu700-<hash>.trace.gz
"""

import hashlib
import os
import pathlib
import shutil
import subprocess

GEN = pathlib.Path(__file__).resolve().parent
GENERATORS = ["lu.c", "lu_case.py", "simgrid_platform.py", "lu700.sh", "regroup.py"]


# What a generation costs (lu700.sh: the build, the simulation, the
# regrouping), measured: 76 s of CPU (user+sys), 5 min 26 s at a load of
# 15-20 on 2 cores, 7.3 GiB resident at its peak. (lu700.sh's own comment
# says a minute: it is hashed into the cache's key, so left as it is.)
GENERATION_TIME = ("about 80 s of CPU time, 5 to 20 minutes on a loaded machine, and up to 7.5 GB of memory; "
                   "kept there for the next runs")


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
    # Minutes of silence otherwise: say what runs, for how long, and where
    # it is kept for the next runs.
    print(f"Generating LU-700 with SimGrid into {path} once: {GENERATION_TIME}", flush=True)
    tmp = path.with_suffix(f".part{os.getpid()}")
    subprocess.run(["nice", "sh", str(GEN / "lu700.sh"), str(tmp)], check=True, capture_output=True)
    os.replace(tmp, path)
    return path
