"""The two doors of the command line are one program: the Go program
(go build ./cmd/macroscope) and the Python package's entry point (python -m
macroscope, the console script pip installs) print the same bytes, write
the same files and exit with the same status for every command; and Ctrl-C
stops a long command through either door, promptly, with a clear message
and no process left behind."""

import os
import re
import shutil
import signal
import io
import subprocess
import sys

import pandas as pd
import pyarrow.parquet as pq
import pytest

from conftest import REPO

JACOBI = str(REPO / "testdata" / "jacobi32.trace")
CP_MIXED = str(REPO / "testdata" / "critpath" / "cp_mixed.trace")


@pytest.fixture(scope="module")
def go_binary(tmp_path_factory):
    """The Go program, built once."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("go is not installed: the Go program cannot be built")
    out = tmp_path_factory.mktemp("bin") / "macroscope"
    subprocess.run([go, "build", "-o", str(out), "./cmd/macroscope"], cwd=REPO, check=True, capture_output=True)
    return str(out)


def python_door():
    return [sys.executable, "-m", "macroscope"]


def run_in(cwd, program, args):
    """Run the program with args in the directory cwd: (status, stdout,
    stderr, the files it wrote under cwd and their bytes)."""
    cwd.mkdir(parents=True)
    run = subprocess.run([*program, *args], cwd=cwd, capture_output=True)
    files = {}
    for root, _, names in os.walk(cwd):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, cwd)] = f.read()
    return run.returncode, timeless(run.stdout), timeless(run.stderr), files


def assert_same_parquet(go: bytes, py: bytes, path):
    """The Go program writes Parquet with arrow-go, the Python door with
    pyarrow (macroscope._parquet): not the same bytes, but the same table
    (schema, its metadata, values), row groups and compression."""
    a, b = pq.ParquetFile(io.BytesIO(go)), pq.ParquetFile(io.BytesIO(py))
    assert a.schema_arrow.equals(b.schema_arrow, check_metadata=True), path
    # (NaN is equal to itself here, not in pyarrow's Table.equals)
    pd.testing.assert_frame_equal(a.read().to_pandas(), b.read().to_pandas(), obj=path)
    assert a.metadata.num_row_groups == b.metadata.num_row_groups, path
    for f in (a, b):
        if f.metadata.num_rows:
            assert f.metadata.row_group(0).column(0).compression == "ZSTD", path


def timeless(text: bytes) -> bytes:
    """The output with its measures of time, which differ from run to run,
    replaced."""
    text = re.sub(rb"in( +)\d+\.\d\d s", rb"in\1T s", text)
    return re.sub(rb"\(\d+ MB/s\)", b"(R MB/s)", text)


COMMANDS = {
    "overview": ["overview", JACOBI, "--out", "out"],
    "overview-spatial": ["overview", JACOBI, "--kind", "spatial", "--slices", "20", "--table", "a.csv",
                         "--figure", "o.svg", "--out", "out"],
    "moments": ["moments", JACOBI, "--by", "node", "--busy", "Compute", "--out", "out"],
    "treemap": ["treemap", JACOBI, "--slices", "20", "--out", "out"],
    "gantt": ["gantt", JACOBI, "--start", "2", "--end", "2.5", "--resources", "rank-1*", "--out", "out"],
    "topology": ["topology", JACOBI, "--seed", "3", "--out", "out"],
    "kaleido": ["kaleido", JACOBI, "--per-container", "--out", "out"],
    "profile": ["profile", JACOBI, "--per-process", "pp.csv", "--out", "out"],
    "imbalance": ["imbalance", JACOBI, "--table", "i.csv", "--out", "out"],
    "commmatrix": ["commmatrix", JACOBI, "--out", "out"],
    "pop": ["pop", JACOBI, "--raw", "raw.csv", "--out", "out"],
    "critpath": ["critpath", CP_MIXED, "--states", "s.csv", "--waits", "w.csv", "--out", "out"],
    "stragglers": ["stragglers", JACOBI, "--instances", "i.csv", "--out", "out"],
    "compare": ["compare", JACOBI, JACOBI, "--names", "a,b", "--slices", "10", "--out", "out"],
    "compare-series": ["compare", JACOBI, JACOBI, "--slices", "10", "--series", "series.csv", "--out", "out"],
    "convert": ["convert", JACOBI, "--out", "dataset"],
    "dump": ["dump", JACOBI],
    "dump-header": ["dump", "-h", "--entity-hierarchy=entities.csv", JACOBI],
    "synth": ["synth", "--events", "3000", "--sites", "1", "--seed", "7", "s.trace"],
    "help": ["help"],
    "help-overview": ["overview", "--help"],
    "version": ["--version"],
    "bad-flag": ["overview", JACOBI, "--kind", "radial"],
    "unknown-flag": ["moments", JACOBI, "--bogus"],
    "missing-trace": ["moments", "missing.trace"],
    "unknown-command": ["unfold"],
    "no-command": [],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_both_doors_give_the_same_output(tmp_path, go_binary, name):
    args = COMMANDS[name]
    go = run_in(tmp_path / "go", [go_binary], args)
    py = run_in(tmp_path / "python", python_door(), args)
    assert go[0] == py[0], (go[2], py[2])
    assert go[1] == py[1]
    assert go[2] == py[2]
    assert sorted(go[3]) == sorted(py[3])
    for path in go[3]:
        if path.endswith(".parquet"):
            assert_same_parquet(go[3][path], py[3][path], path)
        else:
            assert go[3][path] == py[3][path], path
    if name.startswith(("overview", "moments", "treemap", "gantt", "topology", "kaleido", "compare", "convert", "synth", "profile",
                        "imbalance", "commmatrix", "pop", "critpath", "stragglers")):
        assert go[0] == 0 and go[3], go[2]  # it did its work


@pytest.fixture(scope="module")
def large_model_trace(tmp_path_factory, go_binary):
    """A synthetic trace of 1,024 cores, whose overview at 200 slices
    with every significant level (--threshold 0) takes minutes."""
    path = tmp_path_factory.mktemp("synth") / "big.trace"
    subprocess.run([go_binary, "synth", "--sites", "2", "--clusters", "4", "--machines", "16", "--cores", "8",
                    "--events", "300000", str(path)], check=True, capture_output=True)
    return path


@pytest.mark.parametrize("door", ["go", "python"])
def test_ctrl_c_stops_a_long_command(tmp_path, go_binary, large_model_trace, door):
    program = [go_binary] if door == "go" else python_door()
    proc = subprocess.Popen([*program, "overview", str(large_model_trace), "--slices", "200", "--threshold", "0",
                             "--out", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        # The model is built when its line is printed: the search for the
        # significant levels runs on.
        for raw in proc.stdout:
            if raw.startswith(b"model "):
                break
        else:
            pytest.fail(f"the overview ended before its model was built: {proc.stderr.read().decode()}")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)  # a failsafe against a hang, not a measure of time
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert err.decode().splitlines()[-1] == "macroscope overview: interrupted"
    assert b"Traceback" not in err and b"levels" not in out
    assert not (tmp_path / "overview.png").exists()
    with pytest.raises(ProcessLookupError):  # no process left in its session
        os.killpg(proc.pid, 0)
