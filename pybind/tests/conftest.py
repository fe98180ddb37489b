import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "traces"


@pytest.fixture(scope="session")
def bundled_trace():
    return REPO / "testdata" / "jacobi32.trace"


def shared(*parts):
    """Path of a file of the shared trace corpus, or skip the test."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


@pytest.fixture(scope="session")
def mardi_path():
    return shared("pajeng", "traces", "simu-mardi.trace")


@pytest.fixture(scope="session")
def mardi(mardi_path):
    import macroscope as ms

    return ms.read_paje(mardi_path)


@pytest.fixture(scope="session")
def jacobi(bundled_trace):
    import macroscope as ms

    return ms.read_paje(bundled_trace)


# The fields of the Pajé events the hand-written test traces use.
_PAJE_FIELDS = {
    "PajeDefineContainerType": ["Alias string", "Type string", "Name string"],
    "PajeDefineStateType": ["Alias string", "Type string", "Name string"],
    "PajeCreateContainer": ["Time date", "Alias string", "Type string", "Container string", "Name string"],
    "PajeSetState": ["Time date", "Type string", "Container string", "Value string"],
    "PajePushState": ["Time date", "Type string", "Container string", "Value string"],
    "PajePopState": ["Time date", "Type string", "Container string"],
    "PajeDefineLinkType": ["Alias string", "Type string", "StartContainerType string", "EndContainerType string",
                           "Name string"],
    "PajeDefineEventType": ["Alias string", "Type string", "Name string"],
    "PajeDefineVariableType": ["Alias string", "Type string", "Name string"],
    "PajeStartLink": ["Time date", "Type string", "Container string", "StartContainer string", "Value string",
                      "Key string"],
    "PajeEndLink": ["Time date", "Type string", "Container string", "EndContainer string", "Value string",
                    "Key string"],
    "PajeNewEvent": ["Time date", "Type string", "Container string", "Value string"],
    "PajeSetVariable": ["Time date", "Type string", "Container string", "Value string"],
    "PajeDestroyContainer": ["Time date", "Type string", "Name string"],
}


def paje_header(*events: str) -> str:
    """The %EventDef blocks of a Pajé trace defining events 0, 1, 2... in order."""
    blocks = []
    for number, name in enumerate(events):
        fields = "".join(f"% {f}\n" for f in _PAJE_FIELDS[name])
        blocks.append(f"%EventDef {name} {number}\n{fields}%EndEventDef\n")
    return "".join(blocks)


# One host in one state type: the trace the progress and streaming tests
# append SetState lines (event 3) to.
ONE_HOST = paje_header(
    "PajeDefineContainerType", "PajeDefineStateType", "PajeCreateContainer", "PajeSetState",
) + """0 H 0 Host
1 S H State
2 0 h1 H 0 host1
"""


@pytest.fixture(scope="session")
def big_trace(tmp_path_factory):
    """A Pajé trace of about 24 MB: long enough to be read in many steps.
    State i lasts 1 ms, the values s0, s1, s2 in turn."""
    path = tmp_path_factory.mktemp("big") / "big.trace"
    with open(path, "w") as f:
        f.write(ONE_HOST)
        for i in range(1_000_000):
            f.write(f"3 {i // 1000}.{i % 1000:06d} S h1 s{i % 3}\n")
    return path


def check_interrupt_cancels(monkeypatch, read, start, result, path):
    """A KeyboardInterrupt raised by the progress callback of read(path)
    (a reader started by the native function named start) stops the Go
    reader, whose result (the method named result) is then the
    cancellation error."""
    import macroscope as ms
    from macroscope import _bridge

    from macroscope import _reading

    # Poll every millisecond, so that the first report comes mid-read even
    # when the whole read takes less than the default poll (100 ms).
    monkeypatch.setattr(_reading, "_POLL_MS", 1)
    started = []
    native = getattr(_bridge.native, start)
    monkeypatch.setattr(_bridge.native, start, lambda *args: started.append(native(*args)) or started[-1])
    reports = []

    def interrupt(done, total):
        reports.append(done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        read(path, progress=interrupt)
    reading = started[0]
    assert reading.Wait(0)  # the reader has stopped...
    with pytest.raises(ms.MacroscopeError, match="reading canceled"):
        _bridge.call(getattr(reading, result))  # ...because it was canceled
    assert len(reports) == 1 and reports[0] < os.path.getsize(path)


# The browser of the widget tests, JupyterLab and Notebook 7: one each for
# the whole session, shared by every module (a second Playwright started
# beside the first would find its event loop running and refuse).
from widget_harness import browser, lab, notebook7  # noqa: E402,F401
