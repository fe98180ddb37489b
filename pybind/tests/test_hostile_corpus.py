"""The Go side's hostile corpus (core/formats TestHostileCorpus: files of
every registered format written to hurt a reader, and the door's own
cases), read through Python, each in a fresh interpreter with a limit of
address space and a time limit: each must end with the package's error
naming the file (saying what the Go test says), or with a trace, never
with a signal, an interpreter killed or a hang. The time limit is a
safety net, not a timing assertion: every case ends in about a second.
"""

from __future__ import annotations

import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 4 << 30  # bytes of address space of a case's process
SAFETY_NET = 300  # seconds; a case takes about one

CHILD = r"""
import json, sys
import macroscope as ms
kwargs = {"format": sys.argv[2]} if sys.argv[2] else {}
try:
    tr = ms.read(sys.argv[1], **kwargs)
    print("RESULT " + json.dumps({"outcome": "read", "states": len(tr.states)}))
except ms.MacroscopeError as e:
    print("RESULT " + json.dumps({"outcome": "error", "type": type(e).__name__, "message": str(e)[:4000]}))
"""


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    go = shutil.which("go")
    if go is None or not (REPO / "core" / "formats").is_dir():
        pytest.skip("the corpus is written by the Go test: no Go toolchain or sources here")
    out = tmp_path_factory.mktemp("hostile")
    env = dict(os.environ, MACROSCOPE_HOSTILE_OUT=str(out))
    run = subprocess.run([go, "test", "-count=1", "-run", "^TestHostileCorpus$", "./core/formats"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    return json.loads((out / "manifest.json").read_text())


def test_hostile_corpus_through_python(corpus):
    assert len(corpus) >= 30, len(corpus)
    failures = []
    for case in corpus:
        name, path, fmt, says = case["Name"], case["Path"], case["Format"], case["Says"]
        try:
            run = subprocess.run([sys.executable, "-W", "ignore", "-c", CHILD, path, fmt], capture_output=True, text=True,
                                 timeout=SAFETY_NET, preexec_fn=_limit_memory)
        except subprocess.TimeoutExpired:
            failures.append(f"{name}: no end after {SAFETY_NET} s")
            continue
        result = next((json.loads(line[len("RESULT "):]) for line in run.stdout.splitlines() if line.startswith("RESULT ")),
                      None)
        if run.returncode != 0 or result is None:
            failures.append(f"{name}: exit {run.returncode}: {run.stderr[-1500:]}")
            continue
        if result["outcome"] == "read":
            if says:
                failures.append(f"{name}: read, want an error saying {says!r}")
            continue
        message = result["message"]
        if says and says not in message:
            failures.append(f"{name}: {message!r} does not say {says!r}")
        named = os.path.basename(path.rstrip("/"))
        if named not in message:
            failures.append(f"{name}: {message!r} does not name {named}")
    assert not failures, "\n".join(failures)
