"""The corruption suite: damaged traces of every format, each read in a
fresh Python process, must end in a clean error naming the file or in the
documented tolerance (a trace marked incomplete, with the reasons in its
warnings); never in a crash, a hang or a silently shorter trace.

The default run takes a fixed sample of the cases (a few per source);
MACROSCOPE_CORRUPTION=full runs them all (several minutes; see run.py to
run them outside pytest and print the table of docs/reliability.md).
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases as C  # noqa: E402
import run as R  # noqa: E402

FULL = os.environ.get("MACROSCOPE_CORRUPTION") == "full"
CASES = C.all_cases() if FULL else C.sample(C.all_cases())


@pytest.fixture(scope="module")
def outcomes():
    return {case.name: (outcome, r) for case, outcome, r in R.run(CASES, jobs=2, verbose=False)}


# Failures known and not fixed yet (docs/reliability.md says why).
KNOWN: dict[str, str] = {}


@pytest.mark.parametrize("name", [pytest.param(c.name, marks=pytest.mark.xfail(reason=KNOWN[c.name], strict=False))
                                  if c.name in KNOWN else c.name for c in CASES])
def test_case(outcomes, name):
    outcome, r = outcomes[name]
    assert outcome not in R.FAILURES, f"{name}: {outcome}: {r}"


def test_sample_covers_every_source():
    """The default run reads damaged files of every source present, with
    a strict damage (a cut or a missing part) for each."""
    sources = {c.source.name for c in C.all_cases() if c.source.name != "bomb"}
    sampled = {c.source.name for c in C.sample(C.all_cases()) if c.strict}
    assert sampled == sources


def test_classify():
    """The outcomes, on made-up results."""
    src = C.SOURCES[0]
    cut = C.Case(src, "truncate", "0.5", None)
    flip = C.Case(src, "flip", "0", None)
    base = {"counts": {k: 10 for k in R.COUNTED}}
    short = {"outcome": "read", "complete": True, "warnings": [], "counts": dict(base["counts"], states=9)}
    d = Path("/tmp/case-x")
    assert R.classify(cut, short, base, d) == "silent-loss"
    assert R.classify(flip, short, base, d) == "read"
    assert R.classify(cut, dict(short, complete=False), base, d) == "incomplete"
    assert R.classify(cut, dict(short, warnings=["cut"]), base, d) == "incomplete"
    assert R.classify(cut, {"outcome": "error", "file": "/tmp/case-x/t.prv", "message": ""}, base, d) == "error"
    assert R.classify(cut, {"outcome": "error", "file": None, "message": "bad"}, base, d) == "crash"
    assert R.classify(cut, {"outcome": "exception", "type": "InternalError"}, base, d) == "crash"
    assert R.classify(cut, {"outcome": "hang"}, base, d) == "hang"
    micro = C.Case(src, "truncate", "0.5", None, read="read_micro")
    no_states = {"outcome": "error", "type": "InvalidArgumentError", "file": None, "message": "state_types: none"}
    assert R.classify(micro, no_states, base, d) == "error"
    assert R.classify(cut, no_states, base, d) == "crash"
