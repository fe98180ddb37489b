"""The generators of the papers' traces (testdata/gen/) reproduce the bundled traces."""

import gzip
import shutil
import subprocess

import pytest

from conftest import REPO

GEN = REPO / "testdata" / "gen"


@pytest.mark.skipif(not shutil.which("smpicc"), reason="SimGrid's smpicc is not installed (Debian: libsimgrid-dev)")
def test_moments_patterns_regenerate_identically(tmp_path):
    # patterns.c gives its work in flops and SMPI does not time the host:
    # the three traces are the same on every run.
    subprocess.run(["sh", str(GEN / "moments_patterns.sh"), str(tmp_path)], check=True, capture_output=True)
    for p in ("imbalance", "late", "tail"):
        fresh = gzip.open(tmp_path / f"moments-{p}.trace.gz").read()
        bundled = gzip.open(REPO / "testdata" / f"moments-{p}.trace.gz").read()
        assert fresh == bundled, p


@pytest.mark.skipif(not shutil.which("smpicc"), reason="SimGrid's smpicc is not installed (Debian: libsimgrid-dev)")
@pytest.mark.parametrize("layout", ["sequential", "locality"])
def test_dt_whitehole_regenerates_identically(tmp_path, layout):
    # DT's loops are charged as flops and the code is not timed
    # (nas/dt-flops.patch): both deployments write the bundled traces.
    out = tmp_path / "dt.trace.gz"
    subprocess.run(["sh", str(GEN / "dt_whitehole.sh"), layout, str(out)], check=True, capture_output=True)
    name = "dt-whitehole.trace.gz" if layout == "sequential" else "dt-whitehole-locality.trace.gz"
    assert gzip.open(out).read() == gzip.open(REPO / "testdata" / name).read()
