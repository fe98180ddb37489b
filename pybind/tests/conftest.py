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
}


def paje_header(*events: str) -> str:
    """The %EventDef blocks of a Pajé trace defining events 0, 1, 2... in order."""
    blocks = []
    for number, name in enumerate(events):
        fields = "".join(f"% {f}\n" for f in _PAJE_FIELDS[name])
        blocks.append(f"%EventDef {name} {number}\n{fields}%EndEventDef\n")
    return "".join(blocks)
